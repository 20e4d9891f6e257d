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

class Transport;

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

/// A group of devices a program's collectives use, as the C ABI names it:
/// `parts` holds (axis, pre, size) triples and `deviceIds` the device order
/// that numbers the mesh positions (tessera_rt_set_device_order; empty: the
/// mesh's own order).
struct GroupSpec {
  std::vector<int64_t> parts;
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
  /// The most devices a mesh has (each device is a thread).
  static constexpr int64_t kMaxDevices = int64_t(1) << 16;

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
  /// waits in one; 0 turns the timeout off (divergence, deadlocks and
  /// devices that finish early are still reported). The default is 30 s, or
  /// the environment variable TESSERA_WATCHDOG_SECONDS (create() fails if it
  /// is not a finite number >= 0); this call overrides both. Returns false,
  /// changing nothing, if `seconds` is negative, NaN or infinite.
  ///
  /// After a failure, `run` waits for the devices to end for this long
  /// (but at least 1 s), then returns with those still running abandoned
  /// (hasRunawayDevices); with the timeout off it waits for them forever.
  bool setWatchdogTimeout(double seconds);
  double getWatchdogTimeout() const;

  /// Names the function containing a program counter, for the messages of
  /// faults in device code (`device 2: SIGFPE (integer divide by zero) in
  /// @main at pc 0x...`): the embedder that JIT-compiled the code knows its
  /// symbols. Returns "" when it does not know the address; the name is
  /// printed as returned. Called on the faulting device's thread after the
  /// fault, not in the signal handler.
  void setSymbolizer(std::function<std::string(uint64_t pc)> symbolizer);

  /// Whether threads of devices that a failed run abandoned (still running
  /// after the failure's grace period, e.g. spinning outside any collective)
  /// are still running. They may execute code the host is about to unload:
  /// a tool should then end the process with _Exit rather than destroy its
  /// JIT-compiled code and return from main. The mesh cannot run again
  /// until they end; destroying it meanwhile keeps its state alive for them.
  bool hasRunawayDevices() const;

  /// Spreads the mesh over the processes of `transport`: process p runs the
  /// `devicesPerProcess` devices with ids p * devicesPerProcess, ... (a
  /// contiguous block in device order), and every process creates a mesh of
  /// the same spec and attaches it the same way. Fails (changing nothing)
  /// unless processes x devicesPerProcess is the number of devices, or if
  /// the mesh is attached already. From then on run() and prepareGroups()
  /// are collective over the processes, and collectives whose groups span
  /// processes move their data through the transport: inside a process
  /// through shared memory as before, then one buffer per process across
  /// (docs/Runtime.md, "Several processes").
  bool attachTransport(std::shared_ptr<Transport> transport,
                       int64_t devicesPerProcess, std::string &error);
  /// The transport (null for a mesh in one process).
  Transport *getTransport() const;
  /// The devices this process runs: [getFirstLocalDevice(),
  /// getFirstLocalDevice() + getNumLocalDevices()), every device without a
  /// transport.
  int64_t getFirstLocalDevice() const;
  int64_t getNumLocalDevices() const;
  bool isLocalDevice(int64_t device) const;
  /// The process (transport rank) that runs `device`.
  int64_t getProcessOf(int64_t device) const;

  /// Builds, once per group of devices that spans processes, the channel
  /// its collectives use (Transport::createChannel). A collective over a
  /// group that spans processes fails unless its group was prepared.
  /// Collective over the processes, which pass the same `groups`; a no-op
  /// without a transport.
  bool prepareGroups(const std::vector<GroupSpec> &groups, std::string &error);

  /// Records a trace of each run (collectives and the compute between them).
  void setTraceEnabled(bool enabled);

  /// Calls `fn(device)` on one thread per device, with the thread's current
  /// device set, and waits for all of them. Returns false with `error` set to
  /// the first runtime error (bad arguments, divergence, deadlock, watchdog
  /// timeout, an exception escaping `fn`, a signal in device code, a failed
  /// allocation or assertion). A device that must stop at once leaves `fn`
  /// without returning into it (see runDeviceCode); while a mesh runs, the
  /// runtime handles SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT raised on
  /// device threads (others keep their previous handling). After a failure
  /// `run` returns within the grace period (setWatchdogTimeout) whatever the
  /// devices do. A mesh can run many times, but not concurrently.
  ///
  /// With a transport, `fn` is called for this process's devices only, and
  /// `run` is collective: every process calls it, and it returns the same
  /// outcome everywhere (the error of the lowest rank whose devices failed,
  /// as `rank R: ...`; a failure on one process ends the run on all).
  bool run(const std::function<void(int64_t device)> &fn, std::string &error);

  /// The statistics of `device` (zeros for another process's device),
  /// accumulated over runs since the mesh was
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

/// Calls `code` on the calling device thread so that a device that must
/// stop at once (a signal in its code, a failed tessera_rt_alloc, a failed
/// tessera_rt_assert_failed, a collective that finds the mesh failed) comes
/// back here: returns false then, with the reason recorded on the mesh (run
/// reports it), and true when `code` returned. The frames of `code` are
/// discarded without running destructors, so `code` should be compiled code
/// (which has none) called through a lambda that owns nothing. Without it a
/// device leaves `fn` of Mesh::run altogether, skipping the destructors of
/// `fn`'s locals. Outside a device thread it just calls `code`. Exceptions
/// propagate.
bool runDeviceCode(const std::function<void()> &code);

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_MESH_H
