//===- Mesh.h - host API of the mesh-emulating runtime ----------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A Mesh emulates N devices in one process: Mesh::run calls a function once
// per device, each call on its own thread, and the C ABI of
// tessera/Runtime/Runtime.h (collectives, allocation) acts for the calling
// thread's device. Collectives meet in shared memory; a watchdog turns
// divergent or deadlocked programs into errors instead of hangs. The runtime
// depends only on the C++ standard library and threads.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_MESH_H
#define TESSERA_RUNTIME_MESH_H

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tessera::rt {

namespace detail {
class MeshImpl;
} // namespace detail

/// The kinds of collective calls, as counted in DeviceStats.
enum class CollectiveKind : int {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Permute,
  Barrier,
};

/// The number of CollectiveKind values.
constexpr int kNumCollectiveKinds = 6;

/// The name of a collective kind: "all_reduce", "all_gather", ...
const char *getCollectiveKindName(CollectiveKind kind);

/// The shape of a mesh: named axes, their sizes (whose product is the number
/// of devices N) and the device ids in mesh order (row-major over the axes,
/// first axis most major; a permutation of 0..N-1, or empty for 0..N-1).
struct MeshSpec {
  std::vector<std::string> axisNames;
  std::vector<int64_t> axisSizes;
  std::vector<int64_t> deviceIds;
};

/// What one device did: memory and collectives.
struct DeviceStats {
  /// The most bytes the device held at once (tessera_rt_alloc'ed blocks plus
  /// buffers accounted with Mesh::accountBuffer).
  int64_t peakBytes = 0;
  /// The bytes the device holds now.
  int64_t currentBytes = 0;
  /// Completed collective calls (barriers included).
  int64_t collectiveCalls = 0;
  /// Bytes of the operands the device contributed to its collective calls.
  int64_t collectiveBytes = 0;
  /// Wall-clock seconds spent inside collective calls (waiting and copying).
  double collectiveSeconds = 0;
  /// The part of collectiveSeconds after every member of each call had
  /// arrived: moving and reducing the data, without the wait for the others
  /// (which, on an emulated mesh with more devices than cores, is mostly
  /// other devices computing).
  double collectiveDataSeconds = 0;
  /// collectiveCalls and collectiveBytes by CollectiveKind.
  std::array<int64_t, kNumCollectiveKinds> callsByKind{};
  std::array<int64_t, kNumCollectiveKinds> bytesByKind{};
};

/// Memory accounted to the host: blocks tessera_rt_alloc'ed outside any
/// device thread (only peakBytes and currentBytes are set).
DeviceStats getHostMemoryStats();

/// The bytes of freed blocks that tessera_rt_alloc keeps for reuse (large
/// blocks, up to TESSERA_RT_CACHE_BYTES; see docs/Runtime.md).
int64_t getCachedMemoryBytes();
/// Returns the cached blocks to the system.
void releaseCachedMemory();

/// A mesh of emulated devices.
class Mesh {
public:
  /// Validates `spec` (named, distinct axes of size >= 1; device ids a
  /// permutation) and returns a mesh, or nullptr with `error` set.
  static std::unique_ptr<Mesh> create(const MeshSpec &spec, std::string &error);
  ~Mesh();
  Mesh(const Mesh &) = delete;
  Mesh &operator=(const Mesh &) = delete;

  /// The number of devices.
  int64_t numDevices() const;
  /// The spec, with deviceIds filled in.
  const MeshSpec &spec() const;
  /// The mesh coordinates of `device` (empty if it is out of range).
  std::vector<int64_t> coordinates(int64_t device) const;
  /// The device at mesh coordinates `coords` (-1 if they are out of range).
  int64_t deviceAt(const std::vector<int64_t> &coords) const;

  /// Fails a run when no collective completes for `seconds` while a device
  /// waits in one; 0 or less turns the timeout off (divergence, deadlocks and
  /// devices that finish early are still reported). The default is 30 s, or
  /// the environment variable TESSERA_WATCHDOG_SECONDS; this call overrides
  /// both.
  void setWatchdogTimeout(double seconds);
  double getWatchdogTimeout() const;

  /// Records a trace of each run (collectives and the compute between them).
  void setTraceEnabled(bool enabled);

  /// Calls `fn(device)` on one thread per device, with the thread's current
  /// device set, and waits for all of them. Returns false with `error` set to
  /// the first runtime error (bad arguments, divergence, deadlock, watchdog
  /// timeout, an exception escaping `fn`). A mesh can run many times, but not
  /// concurrently.
  bool run(const std::function<void(int64_t device)> &fn, std::string &error);

  /// The statistics of `device`, accumulated over runs since the mesh was
  /// created or resetStats was called. Call it between runs.
  DeviceStats stats(int64_t device) const;
  /// Zeroes the collective counters; peaks restart from the current bytes.
  void resetStats();

  /// Accounts `bytes` of a buffer the host owns (e.g. a scattered input) to
  /// `device`, or releases them again.
  void accountBuffer(int64_t device, int64_t bytes);
  void releaseBuffer(int64_t device, int64_t bytes);

  /// Writes the last run's trace as Chrome trace-event JSON (viewable in
  /// chrome://tracing or Perfetto). Returns false with `error` set if the
  /// file cannot be written.
  bool writeTrace(const std::string &path, std::string &error) const;

private:
  Mesh();
  std::unique_ptr<detail::MeshImpl> impl;
};

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_MESH_H
