//===- ArtifactBytecodeProbe.cpp - reading bytecode in a child ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The child reads the bytecode and exits with a status that says the reader
// returned; the parent collects the child's standard error (the first
// "ERROR: " line is the reason it died, e.g. LLVM's "out of memory") while
// it waits, and kills it at the deadline.
//
//===----------------------------------------------------------------------===//

#include "ArtifactBytecodeProbe.h"

#include "tessera/Execution/Program.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/MemoryBufferRef.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tessera::exec;

#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_PROBE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) ||                                        \
    __has_feature(undefined_behavior_sanitizer)
#define TESSERA_PROBE_SANITIZED 1
#endif
#endif

#ifdef TESSERA_PROBE_SANITIZED
/// The sanitizers' public interface (sanitizer/common_interface_defs.h):
/// what runs when a sanitizer ends the process after a report.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void))
    __attribute__((weak));
#endif

namespace {
/// The child's exit status when the bytecode reader returned (success or a
/// diagnosed failure); anything else means it died.
constexpr int kProbeRead = 0, kProbeRefused = 3;

/// The most of the child's standard error kept for the message.
constexpr size_t kMaxOutput = 4096;

/// The processor seconds the child may spend reading `bytes` of bytecode
/// (far more than reading takes: MLIR reads tens of megabytes a second).
rlim_t getProcessorSeconds(size_t bytes) { return 5 + 2 * (bytes >> 20); }

/// The wall-clock seconds the parent waits for the child: room for a busy
/// machine, and a bound if the child blocks (it was forked from a process
/// whose other threads may have held locks).
int getDeadlineSeconds(rlim_t processorSeconds) {
  return static_cast<int>(4 * processorSeconds + 30);
}

/// The memory the child may map beyond what it inherited: reading a module
/// takes a small multiple of its bytecode's size.
rlim_t getExtraMemory(size_t bytes) { return (rlim_t(1) << 30) + 64 * bytes; }

/// The address space the process maps now, or 0 if it is unknown.
rlim_t getMappedBytes() {
  std::ifstream statm("/proc/self/statm");
  unsigned long long pages = 0;
  if (!(statm >> pages))
    return 0;
  return static_cast<rlim_t>(pages) * ::sysconf(_SC_PAGESIZE);
}

/// The child's side: limits, then one read. Never returns.
[[noreturn]] void readInChild(llvm::StringRef bytecode, int output,
                              rlim_t seconds, rlim_t memory) {
  for (int signal : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGXCPU})
    std::signal(signal, SIG_DFL);
#ifdef TESSERA_PROBE_SANITIZED
  // The parent's callback is not the child's to run (libFuzzer's would save
  // the input as a crash of the parent).
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(nullptr);
#endif
  // SIGXCPU at the limit (SIGKILL a little after, if it is ignored).
  struct rlimit cpu = {seconds, seconds + 5}, core = {0, 0};
  ::setrlimit(RLIMIT_CPU, &cpu);
  ::setrlimit(RLIMIT_CORE, &core);
  if (memory) {
    struct rlimit space = {memory, memory};
    ::setrlimit(RLIMIT_AS, &space);
  }
  ::dup2(output, STDERR_FILENO);
  int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0)
    ::dup2(null, STDOUT_FILENO);
  DialectRegistry registry;
  registerExecutionDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.getDiagEngine().registerHandler(
      [](Diagnostic &) { return success(); });
  ParserConfig config(&context);
  Block block;
  bool read = succeeded(readBytecodeFile(
      llvm::MemoryBufferRef(bytecode, "module"), &block, config));
  ::_exit(read ? kProbeRead : kProbeRefused);
}

/// Appends what `fd` has to `output` (up to kMaxOutput); false at its end.
bool drain(int fd, std::string &output) {
  char chunk[1024];
  while (true) {
    ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got > 0) {
      size_t room = kMaxOutput - std::min(kMaxOutput, output.size());
      output.append(chunk, std::min(static_cast<size_t>(got), room));
      continue;
    }
    if (got < 0 && errno == EINTR)
      continue;
    return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

/// Why the child died: the text after the first "ERROR: " of its output
/// (LLVM's fatal errors, the sanitizers' reports), else its signal or exit
/// status.
std::string describeDeath(int status, llvm::StringRef output) {
  llvm::StringRef rest = output;
  while (!rest.empty()) {
    auto [line, next] = rest.split('\n');
    size_t at = line.find("ERROR: ");
    if (at != llvm::StringRef::npos) {
      llvm::StringRef reason = line.drop_front(at + 7).trim();
      if (!reason.empty())
        return reason.take_front(200).str();
    }
    rest = next;
  }
  if (WIFSIGNALED(status))
    return "signal " + std::to_string(WTERMSIG(status));
  return "exit status " + std::to_string(WEXITSTATUS(status));
}
} // namespace

llvm::Error
mlir::tessera::exec::probeArtifactBytecode(llvm::StringRef bytecode) {
  rlim_t seconds = getProcessorSeconds(bytecode.size());
  // The limit counts what the process maps already (with a sanitizer's
  // shadow memory, reserved when it started).
  rlim_t memory = 0;
  if (rlim_t mapped = getMappedBytes())
    memory = mapped + getExtraMemory(bytecode.size());
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0)
    return llvm::Error::success(); // No child: read it in this process.
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe[0]);
    ::close(pipe[1]);
    return llvm::Error::success();
  }
  if (pid == 0)
    readInChild(bytecode, pipe[1], seconds, memory);
  ::close(pipe[1]);
  ::fcntl(pipe[0], F_SETFL, ::fcntl(pipe[0], F_GETFL) | O_NONBLOCK);

  // Collect the output until the child exits or the deadline passes.
  int deadline = getDeadlineSeconds(seconds);
  auto start = std::chrono::steady_clock::now();
  std::string output;
  int status = 0;
  bool exited = false, late = false;
  while (!exited && !late) {
    struct pollfd ready = {pipe[0], POLLIN, 0};
    ::poll(&ready, 1, 50);
    drain(pipe[0], output);
    pid_t got = ::waitpid(pid, &status, WNOHANG);
    exited = got == pid || (got < 0 && errno != EINTR);
    late = std::chrono::steady_clock::now() - start >
           std::chrono::seconds(deadline);
  }
  if (!exited) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  drain(pipe[0], output);
  ::close(pipe[0]);

  if (!exited)
    return makeError("cannot read the artifact's module: its bytecode is "
                     "malformed (MLIR's bytecode reader did not finish "
                     "reading it in " +
                     llvm::Twine(deadline) + " s)");
  if (WIFEXITED(status) && (WEXITSTATUS(status) == kProbeRead ||
                            WEXITSTATUS(status) == kProbeRefused))
    return llvm::Error::success();
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
    return makeError("cannot read the artifact's module: its bytecode is "
                     "malformed (MLIR's bytecode reader did not finish "
                     "reading it in " +
                     llvm::Twine(static_cast<uint64_t>(seconds)) +
                     " s of processor time)");
  return makeError("cannot read the artifact's module: its bytecode is "
                   "malformed (MLIR's bytecode reader died reading it: " +
                   describeDeath(status, output) + ")");
}
