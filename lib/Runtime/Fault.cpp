//===- Fault.cpp - faults in device code and leaving a device ---*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A device whose code faults, whose allocation or assertion fails, or whose
// collective finds the mesh failed must stop at once rather than return
// into compiled code that would go on with a null pointer or garbage. Each
// thread that runs device code sets up an escape frame (sigsetjmp) before it
// calls that code; leaving jumps back to it (siglongjmp). Compiled MLIR code
// has no destructors to skip.
//
// While a mesh runs, handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and
// SIGABRT are installed (SA_SIGINFO | SA_ONSTACK; each device thread has its
// own alternate signal stack, so a stack overflow is caught too). On a
// thread with an escape frame the handler stores the signal, its code, the
// faulting address and the program counter in the frame (preallocated, on
// the thread's stack: no malloc, no locks) and jumps to it; the frame's
// owner then fails the mesh with a message. On any other thread the handler
// restores the previous disposition and lets the signal take its course
// (re-raising one that was sent rather than caused by an instruction).
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

using namespace tessera::rt;
using namespace tessera::rt::detail;

thread_local EscapeFrame *tessera::rt::detail::currentEscape = nullptr;

namespace {
/// The signals caught while a mesh runs.
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kNumSignals = sizeof(kSignals) / sizeof(kSignals[0]);

/// The dispositions before the first acquisition (read by the handler).
struct sigaction previousActions[kNumSignals];

/// Guards the installation count and previousActions.
std::mutex &getHandlersMutex() {
  static std::mutex *mutex = new std::mutex();
  return *mutex;
}
int handlerUsers = 0;

/// The stack of the calling device thread: [low, high), 0 if unknown.
thread_local uintptr_t stackLow = 0;
thread_local uintptr_t stackHigh = 0;

/// Bytes of each device thread's alternate signal stack.
constexpr size_t kAltStackBytes = size_t(64) << 10;

int getSignalIndex(int signal) {
  for (int i = 0; i < kNumSignals; ++i)
    if (kSignals[i] == signal)
      return i;
  return -1;
}

uintptr_t getProgramCounter(void *context) {
#if defined(__linux__) && defined(__x86_64__)
  return static_cast<uintptr_t>(
      static_cast<ucontext_t *>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__linux__) && defined(__aarch64__)
  return static_cast<uintptr_t>(
      static_cast<ucontext_t *>(context)->uc_mcontext.pc);
#else
  (void)context;
  return 0;
#endif
}

uintptr_t getStackPointer(void *context) {
#if defined(__linux__) && defined(__x86_64__)
  return static_cast<uintptr_t>(
      static_cast<ucontext_t *>(context)->uc_mcontext.gregs[REG_RSP]);
#elif defined(__linux__) && defined(__aarch64__)
  return static_cast<uintptr_t>(
      static_cast<ucontext_t *>(context)->uc_mcontext.sp);
#else
  (void)context;
  return 0;
#endif
}

/// The handler of every caught signal. Async-signal-safe: it reads
/// thread-locals (set up before device code ran), writes the frame and
/// calls only sigaction, pthread_sigmask, raise and siglongjmp.
extern "C" void handleFault(int signal, siginfo_t *info, void *context) {
  int savedErrno = errno;
  EscapeFrame *frame = currentEscape;
  if (frame && !frame->signal) {
    frame->signal = signal;
    frame->code = info ? info->si_code : 0;
    frame->address = info ? reinterpret_cast<uintptr_t>(info->si_addr) : 0;
    frame->pc = getProgramCounter(context);
    frame->sp = getStackPointer(context);
    // The frame was set up without saving the signal mask; go back to the
    // mask the thread had when the signal arrived (the handler's mask
    // blocks the caught signals).
    if (context)
      pthread_sigmask(SIG_SETMASK,
                      &static_cast<ucontext_t *>(context)->uc_sigmask, nullptr);
    siglongjmp(frame->buf, 1);
  }
  // Not a device thread: the previous disposition takes over.
  int index = getSignalIndex(signal);
  if (index >= 0)
    sigaction(signal, &previousActions[index], nullptr);
  else
    ::signal(signal, SIG_DFL);
  // A fault caused by an instruction happens again when the instruction is
  // retried on return; a signal that was sent (kill, raise, abort) is sent
  // again, to be delivered once this handler returns.
  if (!info || info->si_code <= 0 || signal == SIGABRT)
    raise(signal);
  errno = savedErrno;
}

const char *getSignalName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGABRT:
    return "SIGABRT";
  }
  return "a signal";
}

std::string formatAddress(uintptr_t address) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%llx",
                static_cast<unsigned long long>(address));
  return buffer;
}

/// What the signal's code says: "address 0x0 not mapped", "integer divide
/// by zero", ...
std::string describeCode(int signal, int code, uintptr_t address) {
  if (code <= 0)
    return signal == SIGABRT ? "abort" : "sent by kill or raise";
  std::string at = formatAddress(address);
  switch (signal) {
  case SIGSEGV:
    switch (code) {
    case SEGV_MAPERR:
      return "address " + at + " not mapped";
    case SEGV_ACCERR:
      return "no permission to access address " + at;
    }
    if (code == SI_KERNEL)
      return "general protection fault";
    return "invalid access to address " + at;
  case SIGBUS:
    switch (code) {
    case BUS_ADRALN:
      return "misaligned address " + at;
    case BUS_ADRERR:
      return "nonexistent physical address " + at;
    case BUS_OBJERR:
      return "object-specific hardware error at address " + at;
    }
    return "bus error at address " + at;
  case SIGFPE:
    switch (code) {
    case FPE_INTDIV:
      return "integer divide by zero";
    case FPE_INTOVF:
      return "integer overflow";
    case FPE_FLTDIV:
      return "floating-point divide by zero";
    case FPE_FLTOVF:
      return "floating-point overflow";
    case FPE_FLTUND:
      return "floating-point underflow";
    case FPE_FLTRES:
      return "floating-point inexact result";
    case FPE_FLTINV:
      return "invalid floating-point operation";
    case FPE_FLTSUB:
      return "subscript out of range";
    }
    return "arithmetic exception";
  case SIGILL:
    switch (code) {
    case ILL_ILLOPC:
      return "illegal opcode";
    case ILL_ILLOPN:
      return "illegal operand";
    case ILL_ILLADR:
      return "illegal addressing mode";
    case ILL_ILLTRP:
      return "illegal trap";
    case ILL_PRVOPC:
      return "privileged opcode";
    case ILL_PRVREG:
      return "privileged register";
    case ILL_COPROC:
      return "coprocessor error";
    case ILL_BADSTK:
      return "internal stack error";
    }
    return "illegal instruction";
  case SIGABRT:
    return "abort";
  }
  return "code " + std::to_string(code);
}

/// "device 2: SIGFPE (integer divide by zero) in @main at pc 0x7f...".
std::string describeFault(const MeshImpl &mesh, int64_t device,
                          const EscapeFrame &frame, const char *where,
                          const char *site) {
  int signal = frame.signal;
  uintptr_t address = frame.address, pc = frame.pc, sp = frame.sp;
  std::string text = "device " + std::to_string(device) + ": ";
  // A fault with the stack pointer at (or past) the end of the thread's
  // stack is a stack overflow.
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t slack = page > 0 ? static_cast<uintptr_t>(page) : 4096;
  if (signal == SIGSEGV && frame.code > 0 && stackLow && sp &&
      sp < stackLow + slack && sp + (uintptr_t(1) << 20) > stackLow)
    text +=
        "stack overflow (SIGSEGV at address " + formatAddress(address) + ")";
  else
    text += std::string(getSignalName(signal)) + " (" +
            describeCode(signal, frame.code, address) + ")";
  std::string function;
  if (mesh.symbolizer && pc) {
    try {
      function = mesh.symbolizer(pc);
    } catch (...) {
      function.clear();
    }
  }
  if (!function.empty())
    text += " in " + function;
  if (pc)
    text += " at pc " + formatAddress(pc);
  if (function.empty() && where && *where) {
    text += std::string(" ") + where;
    if (site && *site)
      text += std::string(" ") + site;
  }
  return text;
}
} // namespace

bool tessera::rt::detail::runWithEscape(void (*body)(void *), void *context,
                                        const char *where, const char *site) {
  MeshImpl *mesh = currentDevice.mesh;
  if (!mesh) {
    body(context);
    return true;
  }
  int64_t device = currentDevice.device;
  EscapeFrame frame;
  frame.outer = currentEscape;
  // The signal mask is not saved (a system call): the handler restores the
  // mask the thread had when the signal arrived.
  if (sigsetjmp(frame.buf, 0) == 0) {
    currentEscape = &frame;
    try {
      body(context);
    } catch (...) {
      currentEscape = frame.outer;
      throw;
    }
    currentEscape = frame.outer;
    return true;
  }
  currentEscape = frame.outer;
  if (frame.signal)
    mesh->fail(describeFault(*mesh, device, frame, where, site));
  return false;
}

void tessera::rt::detail::leaveDevice() {
  if (EscapeFrame *frame = currentEscape)
    siglongjmp(frame->buf, 1);
}

void tessera::rt::detail::leaveIfMeshFailed() {
  MeshImpl *mesh = currentDevice.mesh;
  if (mesh && mesh->hasFailed())
    leaveDevice();
}

DeviceThreadScope::DeviceThreadScope() {
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
    void *address = nullptr;
    size_t bytes = 0;
    if (pthread_attr_getstack(&attributes, &address, &bytes) == 0) {
      stackLow = reinterpret_cast<uintptr_t>(address);
      stackHigh = stackLow + bytes;
    }
    pthread_attr_destroy(&attributes);
  }
  size_t bytes = kAltStackBytes;
  long minimum = sysconf(_SC_SIGSTKSZ);
  if (minimum > 0 && static_cast<size_t>(minimum) * 4 > bytes)
    bytes = static_cast<size_t>(minimum) * 4;
  void *stack = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (stack == MAP_FAILED)
    return;
  stack_t alternate{};
  alternate.ss_sp = stack;
  alternate.ss_size = bytes;
  alternate.ss_flags = 0;
  if (sigaltstack(&alternate, &previous) != 0) {
    munmap(stack, bytes);
    return;
  }
  memory = stack;
  size = bytes;
  installed = true;
}

DeviceThreadScope::~DeviceThreadScope() {
  stackLow = stackHigh = 0;
  if (!installed)
    return;
  // Back to the previous alternate stack (or none): a sanitizer runtime
  // unmaps the one it installed when the thread ends.
  if (previous.ss_flags & SS_DISABLE) {
    stack_t disabled{};
    disabled.ss_flags = SS_DISABLE;
    sigaltstack(&disabled, nullptr);
  } else {
    previous.ss_flags = 0;
    sigaltstack(&previous, nullptr);
  }
  munmap(memory, size);
}

void tessera::rt::detail::acquireFaultHandlers() {
  std::lock_guard<std::mutex> lock(getHandlersMutex());
  if (handlerUsers++ > 0)
    return;
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = handleFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int signal : kSignals)
    sigaddset(&action.sa_mask, signal);
  for (int i = 0; i < kNumSignals; ++i)
    sigaction(kSignals[i], &action, &previousActions[i]);
}

void tessera::rt::detail::releaseFaultHandlers() {
  std::lock_guard<std::mutex> lock(getHandlersMutex());
  if (handlerUsers == 0 || --handlerUsers > 0)
    return;
  // Only where the handler is still ours: a handler installed meanwhile
  // stays.
  for (int i = 0; i < kNumSignals; ++i) {
    struct sigaction current;
    if (sigaction(kSignals[i], nullptr, &current) == 0 &&
        (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == handleFault)
      sigaction(kSignals[i], &previousActions[i], nullptr);
  }
}

static void callCode(void *context) {
  (*static_cast<const std::function<void()> *>(context))();
}

bool tessera::rt::runDeviceCode(const std::function<void()> &code) {
  if (!code)
    return true;
  return runWithEscape(callCode, const_cast<std::function<void()> *>(&code));
}

extern "C" void tessera_rt_assert_failed(const char *message, int64_t length) {
  if (!message)
    length = 0;
  else if (length < 0)
    length = static_cast<int64_t>(std::strlen(message));
  MeshImpl *mesh = currentDevice.mesh;
  if (mesh && currentEscape) {
    try {
      mesh->fail(
          "device " + std::to_string(currentDevice.device) +
          ": assertion failed: " +
          std::string(message ? message : "", static_cast<size_t>(length)));
    } catch (...) {
      try {
        mesh->fail("device " + std::to_string(currentDevice.device) +
                   ": assertion failed");
      } catch (...) {
      }
    }
    leaveDevice();
  }
  std::fprintf(stderr, "tessera runtime: assertion failed: %.*s\n",
               static_cast<int>(std::min<int64_t>(length, INT32_MAX)),
               message ? message : "");
  std::fflush(stderr);
  std::abort();
}
