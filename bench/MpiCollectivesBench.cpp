//===- MpiCollectivesBench.cpp - all_reduce over MPI processes ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The runtime's all_reduce (sum of f32, every device's input to its own
// output, through the C ABI) on a mesh of `devices` devices spread over the
// processes of an mpirun, each running a contiguous block of devices: under
// `mpirun -n 1` all of them in one process (the threads backend's shared
// memory), under `-n 2` or `-n 4` hierarchically (reduced inside each
// process, one buffer per process across through MPI). bench/mpi-bench.sh
// runs it with 1, 2 and 4 processes in one session and prints the ratios.
//
// Prints (on rank 0) the median time of `rounds` runs after a warm-up run
// and the bandwidth of one device's buffer (NCCL's "algorithm bandwidth").
// Usage: mpirun -n P mpi-collectives-bench [MiB] [devices] [rounds].
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Mesh.h"
#include "tessera/Runtime/Mpi.h"
#include "tessera/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2]
                      : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int main(int argc, char **argv) {
  long mib = argc > 1 ? std::atol(argv[1]) : 64;
  long devices = argc > 2 ? std::atol(argv[2]) : 8;
  long rounds = argc > 3 ? std::atol(argv[3]) : 7;
  size_t count = (static_cast<size_t>(mib) << 20) / sizeof(float);
  std::string error;
  std::shared_ptr<tessera::rt::Transport> transport =
      tessera::rt::getMpiTransport(error);
  if (!transport) {
    std::fprintf(stderr, "mpi-collectives-bench: %s\n", error.c_str());
    return 1;
  }
  int processes = transport->getNumProcesses();
  auto mesh = tessera::rt::Mesh::create({{"x"}, {devices}, {}}, error);
  const std::vector<int64_t> parts = {0, 1, devices};
  if (!mesh || !mesh->attachTransport(transport, devices / processes, error) ||
      !mesh->prepareGroups({{parts, {}}}, error)) {
    std::fprintf(stderr, "mpi-collectives-bench: %s\n", error.c_str());
    return 1;
  }
  // Only this process's devices have buffers.
  std::vector<std::vector<float>> in(devices), out(devices);
  for (long d = 0; d < devices; ++d) {
    if (!mesh->isLocalDevice(d))
      continue;
    in[d].assign(count, 1.0f);
    out[d].assign(count, 0.0f);
  }
  std::vector<double> times;
  for (long r = 0; r < rounds + 1; ++r) {
    auto start = Clock::now();
    bool ok = mesh->run(
        [&](int64_t d) {
          tessera_rt_all_reduce(in[d].data(), out[d].data(), count,
                                TESSERA_RT_F32, TESSERA_RT_SUM, parts.data(), 1,
                                "bench all_reduce");
        },
        error);
    double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (!ok) {
      std::fprintf(stderr, "mpi-collectives-bench: %s\n", error.c_str());
      return 1;
    }
    if (r > 0) // The first run touches the pages.
      times.push_back(seconds);
  }
  long first = mesh->getFirstLocalDevice();
  bool right = out[first][0] == static_cast<float>(devices) &&
               out[first][count - 1] == static_cast<float>(devices);
  double time = median(times);
  if (transport->getRank() == 0)
    std::printf("all_reduce %ld MiB f32 over %ld devices as %d x %ld: "
                "median %.1f ms, %.2f GiB/s%s\n",
                mib, devices, processes, devices / processes, time * 1e3,
                static_cast<double>(mib) / 1024 / time,
                right ? "" : " (WRONG RESULT)");
  mesh.reset();
  transport.reset();
  tessera::rt::finalizeMpi(/*clean=*/true);
  return right ? 0 : 1;
}
