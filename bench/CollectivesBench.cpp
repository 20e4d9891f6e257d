//===- CollectivesBench.cpp - runtime collectives vs memcpy ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The all_reduce of the mesh emulator next to plain memcpy, measured side
// by side in one run (alternating, median of several rounds; the machine is
// shared and noisy, so only ratios within one run mean something):
//
//   all_reduce    sum of 64 MiB of f32 over 8 devices (every device's
//                 input to its own output), through the C ABI;
//   memcpy        one thread copying the same 64 MiB;
//   memcpy x8     8 threads each copying 64 MiB at once (what the devices'
//                 outputs amount to).
//
// Bandwidth is bytes of one device's buffer per second (NCCL's "algorithm
// bandwidth"). Usage: CollectivesBench [MiB] [devices] [rounds].
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Mesh.h"
#include "tessera/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2]
                      : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

} // namespace

int main(int argc, char **argv) {
  // Google Benchmark flags from bench/run.sh are ignored.
  std::vector<long> numbers;
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-')
      numbers.push_back(std::atol(argv[i]));
  long mib = numbers.size() > 0 ? numbers[0] : 64;
  long devices = numbers.size() > 1 ? numbers[1] : 8;
  long rounds = numbers.size() > 2 ? numbers[2] : 7;
  size_t bytes = static_cast<size_t>(mib) << 20;
  size_t count = bytes / sizeof(float);

  std::string error;
  auto mesh = tessera::rt::Mesh::create({{"x"}, {devices}, {}}, error);
  if (!mesh) {
    std::fprintf(stderr, "CollectivesBench: %s\n", error.c_str());
    return 1;
  }
  std::vector<std::vector<float>> in(devices, std::vector<float>(count, 1.0f));
  std::vector<std::vector<float>> out(devices, std::vector<float>(count));
  std::vector<char> src(bytes, 1), dst(bytes);
  const int64_t parts[3] = {0, 1, devices};

  std::vector<double> allReduce, copy, copyParallel;
  for (long r = 0; r < rounds + 1; ++r) {
    auto t0 = Clock::now();
    bool ok = mesh->run(
        [&](int64_t d) {
          tessera_rt_all_reduce(in[d].data(), out[d].data(), count,
                                TESSERA_RT_F32, TESSERA_RT_SUM, parts, 1,
                                "bench all_reduce");
        },
        error);
    auto t1 = Clock::now();
    if (!ok) {
      std::fprintf(stderr, "CollectivesBench: %s\n", error.c_str());
      return 1;
    }
    std::memcpy(dst.data(), src.data(), bytes);
    auto t2 = Clock::now();
    std::vector<std::thread> threads;
    for (long d = 0; d < devices; ++d)
      threads.emplace_back(
          [&, d] { std::memcpy(out[d].data(), in[d].data(), bytes); });
    for (auto &t : threads)
      t.join();
    auto t3 = Clock::now();
    if (r == 0)
      continue; // Warm-up: first touch of the pages.
    allReduce.push_back(seconds(t0, t1));
    copy.push_back(seconds(t1, t2));
    copyParallel.push_back(seconds(t2, t3));
  }
  if (out[0][0] != 1.0f * devices && out[0][0] != 1.0f) {
    std::fprintf(stderr, "CollectivesBench: wrong all_reduce result\n");
    return 1;
  }
  double gib = static_cast<double>(bytes) / (1 << 30);
  double ar = median(allReduce), cp = median(copy), cpp = median(copyParallel);
  std::printf("%ld MiB f32 on %ld emulated devices, median of %ld rounds "
              "(%u hardware threads)\n",
              mib, devices, rounds, std::thread::hardware_concurrency());
  std::printf("%-12s %10s %12s\n", "operation", "time", "bandwidth");
  std::printf("%-12s %8.1f ms %8.2f GiB/s\n", "all_reduce", ar * 1e3, gib / ar);
  std::printf("%-12s %8.1f ms %8.2f GiB/s\n", "memcpy", cp * 1e3, gib / cp);
  std::printf("%-12s %8.1f ms %8.2f GiB/s (per thread)\n", "memcpy x8",
              cpp * 1e3, gib / cpp);
  std::printf("all_reduce / memcpy bandwidth: %.2f (one buffer's bytes)\n",
              cp / ar);
  std::printf("all_reduce / memcpy x8 time: %.2f (the same bytes written: "
              "one buffer per device)\n",
              cpp / ar);
  return 0;
}
