//===- FuzzerMain.cpp - run a fuzz target over files without libFuzzer ----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A replacement for libFuzzer's `main` used by the regular build: it feeds
// every file named on the command line (directories are walked, sorted by
// name) to `LLVMFuzzerTestOneInput` once. `make check` runs each fuzz target
// over its corpus this way, so inputs that once crashed or hung stay
// regression tests without libFuzzer or sanitizers being installed.
//
// A crash ends the process with a signal, as under libFuzzer. A hang is
// caught by a per-input alarm (`-timeout=N` seconds, default 20, as
// libFuzzer's flag), which prints the input's name and exits with status 70.
// Other `-flag=value` arguments are libFuzzer's and are ignored.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

namespace {
/// The input being run, printed when the alarm fires.
char currentInput[4096];

void onAlarm(int) {
  static const char prefix[] = "fuzz target timed out on input: ";
  // Only async-signal-safe calls here.
  (void)!write(STDERR_FILENO, prefix, sizeof(prefix) - 1);
  (void)!write(STDERR_FILENO, currentInput, strlen(currentInput));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(70);
}

bool runFile(const std::string &path, unsigned timeout) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fprintf(stderr, "error: cannot read '%s'\n", path.c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  snprintf(currentInput, sizeof(currentInput), "%s", path.c_str());
  alarm(timeout);
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  alarm(0);
  return true;
}
} // namespace

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  unsigned timeout = 20;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("-timeout=", 0) == 0) {
      timeout = static_cast<unsigned>(std::max(1, atoi(arg.c_str() + 9)));
      continue;
    }
    if (!arg.empty() && arg[0] == '-')
      continue;
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::string> entries;
      for (const auto &entry :
           std::filesystem::recursive_directory_iterator(arg, ec))
        if (entry.is_regular_file())
          entries.push_back(entry.path().string());
      std::sort(entries.begin(), entries.end());
      files.insert(files.end(), entries.begin(), entries.end());
      continue;
    }
    files.push_back(arg);
  }
  if (files.empty()) {
    fprintf(stderr, "usage: %s [-timeout=N] <file-or-dir>...\n", argv[0]);
    return 2;
  }
  signal(SIGALRM, onAlarm);
  unsigned ran = 0;
  for (const std::string &file : files) {
    if (!runFile(file, timeout))
      return 1;
    ++ran;
  }
  printf("%s: ran %u inputs\n", argv[0], ran);
  return 0;
}
