//===- RuntimeImpl.h - internals of the mesh-emulating runtime --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Shared by the files of lib/Runtime only: the mesh state behind Mesh, the
// rendezvous where a group's members meet, call signatures, memory buckets
// and the reduction kernels.
//
// A collective call goes through three steps:
//   1. arrival (MeshImpl::arrive): under the mesh mutex the device publishes
//      its buffers and signature in the group's rendezvous and waits until
//      every member arrived (or the mesh failed). Groups meet by their member
//      set and a per-device, per-member-set call counter, so independent
//      groups never wait for each other.
//   2. the data phase: each member reads the other members' buffers in place
//      and writes its share of the results; it cannot block.
//   3. departure: a barrier over the members, so that nobody reuses a buffer
//      another member still reads.
//
// A mesh spread over processes (Processes.cpp) runs only its own devices. A
// group whose members live in several processes meets locally first: its
// last local member to arrive exchanges signatures with the other processes
// (the members wait in step 1 meanwhile), then the local members run the
// call's distributed data phase: a local step, one exchange per process
// through the group's channel, and a local step again.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_RUNTIME_RUNTIMEIMPL_H
#define TESSERA_LIB_RUNTIME_RUNTIMEIMPL_H

#include "tessera/Runtime/HostArray.h"
#include "tessera/Runtime/Mesh.h"
#include "tessera/Runtime/Transport.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tessera::rt::detail {

using Clock = std::chrono::steady_clock;

//===----------------------------------------------------------------------===//
// Memory accounting
//===----------------------------------------------------------------------===//

/// Current and peak bytes of one device (or of the host). Reference counted:
/// the mesh holds one reference and every live block another, so a block can
/// be freed after its mesh is gone.
class MemoryBucket {
public:
  void add(int64_t bytes);
  void sub(int64_t bytes) {
    current.fetch_sub(bytes, std::memory_order_relaxed);
  }
  int64_t getCurrent() const { return current.load(std::memory_order_relaxed); }
  int64_t getPeak() const { return peak.load(std::memory_order_relaxed); }
  /// Restarts the peak from the current bytes.
  void resetPeak() { peak.store(getCurrent(), std::memory_order_relaxed); }
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  /// Drops a reference; the last one deletes the bucket.
  void release();

private:
  std::atomic<int64_t> current{0};
  std::atomic<int64_t> peak{0};
  std::atomic<int64_t> refs{1};
};

/// The bucket of blocks allocated outside any device thread.
MemoryBucket &getHostBucket();

//===----------------------------------------------------------------------===//
// Dtypes and reductions
//===----------------------------------------------------------------------===//

/// The byte size of a TesseraRtDtype, or 0 if `dtype` is invalid.
int64_t getDtypeSize(int32_t dtype);
/// "f32", "bf16", ..., or nullptr if `dtype` is invalid.
const char *getDtypeName(int32_t dtype);
/// "sum", "prod", "max", "min", or nullptr if `kind` is invalid.
const char *getReductionName(int32_t kind);

/// Writes to each of `dsts[0..numDsts)` the element-wise reduction of
/// `srcs[0..numSrcs)` (`n` elements each, combined in order; f16 and bf16
/// accumulate in f32). A destination may alias a source only exactly (same
/// pointer) and only if no other source aliases it. `dtype` and `kind` must
/// be valid. With `stream`, the destinations are written with non-temporal
/// stores (for results larger than the caches).
void reduceBuffers(int32_t dtype, int32_t kind, const void *const *srcs,
                   int64_t numSrcs, void *const *dsts, int64_t numDsts,
                   int64_t n, bool stream);

/// Results at least this large are written with non-temporal stores.
constexpr int64_t kStreamingBytes = int64_t(8) << 20;

/// Copies `bytes` bytes from `src` to `dst` (which must not overlap). With
/// `stream`, with non-temporal stores where the target has them: they write
/// results larger than the caches without first reading each destination
/// cache line, and do not evict what the caches hold. The caller makes the
/// stores visible to other threads with storeFence() before it publishes
/// them.
void copyBytes(void *dst, const void *src, size_t bytes, bool stream);

/// Orders the non-temporal stores of this thread before its later stores.
void storeFence();

/// Whether [a, a + aBytes) and [b, b + bBytes) overlap.
inline bool overlaps(const void *a, int64_t aBytes, const void *b,
                     int64_t bBytes) {
  if (aBytes <= 0 || bBytes <= 0)
    return false;
  auto x = reinterpret_cast<uintptr_t>(a);
  auto y = reinterpret_cast<uintptr_t>(b);
  return x < y + static_cast<uintptr_t>(bBytes) &&
         y < x + static_cast<uintptr_t>(aBytes);
}

/// Copies the box of extents `box` at `srcOffset` in the row-major `src`
/// (shape `srcShape`) to `dstOffset` in `dst` (shape `dstShape`), with one
/// memcpy per contiguous run (Collectives.cpp).
void copyBox(void *dst, const std::vector<int64_t> &dstShape,
             const std::vector<int64_t> &dstOffset, const void *src,
             const std::vector<int64_t> &srcShape,
             const std::vector<int64_t> &srcOffset,
             const std::vector<int64_t> &box, int64_t elemSize);

//===----------------------------------------------------------------------===//
// Calls and rendezvous
//===----------------------------------------------------------------------===//

/// One part of a group: the component (coord[axis] / pre) % size.
using AxisPart = tessera::rt::AxisPart;

/// What the members of a group must agree on (the data pointers aside).
struct Signature {
  CollectiveKind op = CollectiveKind::Barrier;
  int32_t dtype = -1;
  int32_t kind = -1;
  /// The operand shape (all_gather, reduce_scatter, all_to_all).
  std::vector<int64_t> shape;
  /// gatherDim, scatterDim or splitDim; concatDim.
  int64_t dim0 = -1;
  int64_t dim1 = -1;
  /// Elements (all_reduce), bytes (permute) or the valid size along the
  /// gather dimension (all_gather of padded blocks; 0: the whole
  /// concatenation).
  int64_t count = 0;
  std::vector<AxisPart> parts;
  /// (source, target) ranks of a permute.
  std::vector<std::pair<int64_t, int64_t>> pairs;

  bool operator==(const Signature &o) const {
    return op == o.op && dtype == o.dtype && kind == o.kind &&
           shape == o.shape && dim0 == o.dim0 && dim1 == o.dim1 &&
           count == o.count && parts == o.parts && pairs == o.pairs;
  }
  bool operator!=(const Signature &o) const { return !(*this == o); }
};

/// A barrier for a fixed number of threads that spins briefly, then blocks.
class PhaseBarrier {
public:
  void init(int64_t n) { expected = n; }
  void arriveAndWait();

private:
  int64_t expected = 1;
  std::atomic<int64_t> count{0};
  std::atomic<uint64_t> generation{0};
  std::mutex mutex;
  std::condition_variable cv;
};

/// A member's entry in a rendezvous.
struct Slot {
  const void *in = nullptr;
  void *out = nullptr;
  int64_t inBytes = 0;
  int64_t outBytes = 0;
  const Signature *sig = nullptr;
  const char *site = nullptr;
  Clock::time_point arrival;
  bool arrived = false;
};

/// The channel of a group of devices that spans processes, and the scratch
/// buffers its calls reuse (calls on one group never overlap: each member
/// makes them one after the other).
struct ProcessGroup {
  explicit ProcessGroup(std::unique_ptr<TransportChannel> channel)
      : channel(std::move(channel)) {}
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup &) = delete;
  ProcessGroup &operator=(const ProcessGroup &) = delete;

  /// Scratch buffer `i` with at least `bytes` bytes (64-byte aligned), or
  /// null if it cannot be allocated.
  uint8_t *getBuffer(size_t i, int64_t bytes);

  std::unique_ptr<TransportChannel> channel;
  /// Set when a call left a request of the channel unfinished (the mesh
  /// failed): the transport may still use the buffers, which are never
  /// freed or reused, nor is the channel.
  bool abandoned = false;

private:
  std::vector<std::pair<uint8_t *, int64_t>> buffers;
};

/// What the members of a group that spans processes know of its layout for
/// one call (computed by the member that exchanged the signatures).
struct CrossPlan {
  ProcessGroup *group = nullptr;
  /// The group's processes (ascending ranks) and this one's index.
  std::vector<int> processes;
  int me = 0;
  /// The members' ranks (in the group) on each process, ascending.
  std::vector<std::vector<int64_t>> ranksOf;
  /// The process index of each member rank.
  std::vector<int> processOf;
  /// The scratch buffers of the call (owned by the group).
  std::vector<uint8_t *> buffers;
  /// What each process sends to and receives from each (bytes, by process
  /// index; displacements into the send and receive buffers).
  std::vector<int64_t> sendCounts, sendDispls, recvCounts, recvDispls;
  /// all_reduce: where each process's slice of the elements begins (one
  /// more entry: the end); all_gather: where each member's input lies in
  /// the gathered buffer.
  std::vector<int64_t> offsets;
  /// all_reduce: where the local reduction lies (the only local member's
  /// input, the first local member's output, or a scratch buffer) and
  /// where the result is assembled (the first local member's output when
  /// it overlaps no other input, or a scratch buffer).
  const uint8_t *partial = nullptr;
  uint8_t *result = nullptr;
};

/// Where the members of one group meet for one call.
struct Rendezvous {
  /// The device ids of the members, by rank.
  std::vector<int64_t> members;
  std::vector<Slot> slots;
  int64_t numArrived = 0;
  /// Set (under the mesh mutex) once every member arrived.
  std::atomic<bool> complete{false};
  /// Whether some member's output overlaps some member's input so that the
  /// members must copy their inputs aside first.
  bool needsCopies = false;
  /// Signalled (with the mesh mutex) on completion and on failure.
  std::condition_variable cv;
  /// The barriers of the data phase.
  PhaseBarrier barrier;
  /// The members this process runs (all of them in one process).
  int64_t numLocal = 0;
  /// Whether members live in other processes, the sorted member set and the
  /// call's number among the calls on it.
  bool crossProcess = false;
  std::vector<int64_t> memberSet;
  int64_t counter = 0;
  /// Set once the members of every process arrived (crossProcess only).
  CrossPlan plan;
};

/// A trace event of one device (times in microseconds from the run start).
struct TraceEvent {
  std::string name;
  double beginUs;
  double endUs;
  /// A collective kind, or -1 for compute.
  int op;
  int64_t bytes;
  int64_t groupSize;
};

/// The state of one device.
struct DeviceState {
  /// The site of the device's last completed collective this run ("" for
  /// none), guarded by the mesh mutex.
  std::string lastCollective;
  /// Set (under the mesh mutex) when `run` returned while the device's
  /// thread still ran: the thread was detached and touches nothing of the
  /// mesh but its own bookkeeping when it ends.
  bool abandoned = false;
  std::vector<int64_t> coords;
  MemoryBucket *memory = nullptr;
  // Written by the device's thread during a run, read between runs.
  int64_t callsByKind[kNumCollectiveKinds] = {};
  int64_t bytesByKind[kNumCollectiveKinds] = {};
  double collectiveSeconds = 0;
  double collectiveDataSeconds = 0;
  std::vector<TraceEvent> trace;
  double lastEventEndUs = 0;
  /// Calls made per member set (sorted device ids), this run.
  std::map<std::vector<int64_t>, int64_t> callCounters;
  // Guarded by the mesh mutex.
  bool finished = false;
};

/// The state behind a Mesh.
class MeshImpl {
public:
  MeshImpl(const MeshSpec &spec, double watchdogSeconds);
  ~MeshImpl();

  MeshSpec spec;
  int64_t numDevices = 1;
  /// The position in mesh order of each device id.
  std::vector<int64_t> positionOf;
  std::vector<DeviceState> devices;
  double watchdogSeconds = 30;
  bool traceEnabled = false;
  /// Names the function at a program counter (Mesh::setSymbolizer).
  std::function<std::string(uint64_t)> symbolizer;
  /// Threads of devices abandoned by runs that have not ended yet.
  std::atomic<int64_t> runaways{0};

  //===--- Processes (Processes.cpp) ------------------------------------===//
  /// The transport of a mesh spread over processes, or null.
  std::shared_ptr<Transport> transport;
  int rank = 0;
  int numProcesses = 1;
  int64_t devicesPerProcess = 1;
  /// The devices of this process: [localBegin, localEnd).
  int64_t localBegin = 0, localEnd = 1;
  /// The channels of groups that span processes, by sorted member set.
  std::map<std::vector<int64_t>, std::unique_ptr<ProcessGroup>> groups;
  bool isLocal(int64_t device) const {
    return device >= localBegin && device < localEnd;
  }
  int processOf(int64_t device) const {
    return static_cast<int>(device / devicesPerProcess);
  }
  /// "device 3", "devices 0, 1, 2"; with processes, each followed by its
  /// rank: "devices 0, 1 (rank 0), 4 (rank 1)".
  std::string describeDevices(const std::vector<int64_t> &ids) const;
  /// Prepares the run of a mesh spread over processes (under the mutex).
  void beginProcessRun();
  /// With processes: takes the notices that arrived (under the mutex, which
  /// it releases while it talks to the transport), tells the other
  /// processes of this process's first own failure, and reports remote
  /// members that finished without reaching a call local members wait in.
  void serviceProcesses(std::unique_lock<std::mutex> &lock);
  /// Tells the other processes that every device of this one finished,
  /// with the calls they made on groups that span processes.
  void announceFinished();
  /// Agrees with the other processes on the outcome of the run; returns
  /// whether every process succeeded, else sets `error` to the same message
  /// on every process.
  bool agreeOnRun(bool ok, std::string &error);
  /// Fails the mesh if a member of `r` that another process runs belongs to
  /// a process whose devices all finished before reaching the call (under
  /// the mutex).
  void checkFinishedProcesses(const Rendezvous &r);
  /// The member sets prepareGroups has handled (members of this process or
  /// not: every process handles the same).
  std::set<std::vector<int64_t>> prepared;
  /// Fills the rest of `r`'s plan for `sig`: what moves between the
  /// processes, and the scratch buffers (ProcessCollectives.cpp). Returns
  /// false, failing the mesh, if they cannot be allocated.
  bool planCrossCall(Rendezvous &r, const Signature &sig, int64_t device,
                     const char *site);
  /// Exchanges `sig` with the other processes of `r`'s group (called with
  /// the mutex released, by the last local member to arrive) and fills the
  /// call's plan. Returns false if the mesh failed (a divergence, an error
  /// of the transport, a failure elsewhere).
  bool exchangeSignatures(Rendezvous &r, int64_t device, const Signature &sig,
                          const char *site);
  /// The devices that a failure found waiting, as describeWaiting says,
  /// and whether the failure came from another process.
  std::string waitingAtFailure;
  bool failureFromElsewhere = false;
  /// Counts runs (every process counts the same), and names the mesh among
  /// those the process attached: the two tell a notice of this run from a
  /// stale one (`<attach> <run>`).
  int64_t runNumber = 0;
  int64_t attachNumber = 0;
  std::string getNoticeKey() const;
  /// For each process whose devices all finished this run: the calls they
  /// made per member set.
  std::map<int, std::map<std::vector<int64_t>, int64_t>> finishedCalls;
  /// Whether this process told the others of its failure.
  bool failureAnnounced = false;

  /// Reads a C ABI part list; returns an error message, or "" on success.
  std::string parseParts(const int64_t *parts, int32_t numParts,
                         std::vector<AxisPart> &result) const;
  /// The rank of `device` in its group over `parts`, and (if `members` is
  /// set) the group's device ids by rank. Positions are numbered by `order`
  /// (the device at each position; a valid permutation) if it is set, else
  /// by the mesh's device order.
  int64_t getGroup(int64_t device, const std::vector<AxisPart> &parts,
                   std::vector<int64_t> *members,
                   const int64_t *order = nullptr) const;
  /// "{x, y:(2)2}".
  std::string describeParts(const std::vector<AxisPart> &parts) const;
  /// "(sum, f32, 16 elements over {x})".
  std::string describe(const Signature &sig) const;

  /// Meets the other members of `members` (the group of `device`, by rank).
  /// Returns the completed rendezvous, or nullptr if the mesh failed before
  /// every member arrived.
  std::shared_ptr<Rendezvous> arrive(int64_t device, int64_t rank,
                                     const std::vector<int64_t> &members,
                                     const Signature &sig, const char *site,
                                     const void *in, int64_t inBytes, void *out,
                                     int64_t outBytes);

  /// Fails the mesh with `message` unless it already failed.
  void fail(const std::string &message);
  /// fail() with the mutex held; `elsewhere`: the failure was another
  /// process's (it is not announced again).
  void failLocked(const std::string &message, bool elsewhere = false);
  bool hasFailed() const { return failed.load(std::memory_order_acquire); }
  /// Records `site` as the last collective `device` completed.
  void noteCompleted(int64_t device, const char *site);

  /// Microseconds since the start of the current run.
  double now() const;

  /// Runs `fn` on every device (Mesh::run).
  bool run(const std::function<void(int64_t)> &fn, std::string &error);

  /// Appends to `device`'s trace the compute span since its last event and
  /// the collective call `site` from `beginUs` to `endUs`.
  void traceCall(int64_t device, const char *site, CollectiveKind op,
                 double beginUs, double endUs, int64_t bytes,
                 int64_t groupSize);
  /// Appends to `device`'s trace the compute span up to `endUs`, where its
  /// function returned.
  void traceEnd(int64_t device, double endUs);
  /// Mesh::writeTrace.
  bool writeTrace(const std::string &path, std::string &error) const;
  bool writeTraceFile(const std::string &path, std::string &error) const;

  /// The first error of the last run.
  std::string firstError;
  double failureUs = 0;

  void finishDevice(int64_t device);
  void watch(std::unique_lock<std::mutex> &lock);
  std::string describeWaiting() const;
  /// Whether every device still running waits for another device of this
  /// process (so nothing can complete), as opposed to waiting for other
  /// processes.
  bool isLocalDeadlock() const;

  mutable std::mutex mutex;
  std::condition_variable watchdogCv;
  /// Rendezvous some member arrived at, by member set plus call counter.
  std::map<std::vector<int64_t>, std::shared_ptr<Rendezvous>> pending;
  int64_t numLive = 0;
  int64_t numWaiting = 0;

private:
  /// The seconds `run` waits after a failure for the devices to end before
  /// it abandons those still running (0: forever).
  double getGraceSeconds() const;

  std::atomic<bool> failed{false};
  Clock::time_point runStart;
  Clock::time_point lastCompletion;
  Clock::time_point failureTime;
};

/// The data phase of a call on `r`, whose group spans processes, for the
/// member of rank `rank` (device `device`) once the processes met
/// (ProcessCollectives.cpp). Returns false if the call or the mesh failed.
bool runAcrossProcesses(MeshImpl &mesh, Rendezvous &r, int64_t rank,
                        int64_t device, const char *site);

/// The mesh and device of the calling thread (none outside device threads).
struct CurrentDevice {
  MeshImpl *mesh = nullptr;
  int64_t device = -1;
  /// The device order collectives use (tessera_rt_set_device_order), or
  /// null for the mesh's own.
  const int64_t *order = nullptr;
};
extern thread_local CurrentDevice currentDevice;

//===----------------------------------------------------------------------===//
// Leaving a device: escape frames and faults (Fault.cpp)
//===----------------------------------------------------------------------===//

/// Where a thread running device code goes back to when its device must
/// stop at once: a signal in device code (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
/// SIGABRT), a failed allocation or assertion, a collective on a failed
/// mesh. Frames nest (a kernel call's cores, a collective's data phase);
/// the innermost one of the thread is left. Set up by runWithEscape.
struct EscapeFrame {
  sigjmp_buf buf;
  EscapeFrame *outer = nullptr;
  // Written by the signal handler (async-signal-safe) before it jumps here;
  // `signal` stays 0 when the runtime left after recording its own error.
  volatile int signal = 0;
  volatile int code = 0;
  volatile uintptr_t address = 0;
  volatile uintptr_t pc = 0;
  volatile uintptr_t sp = 0;
};

/// The innermost escape frame of the calling thread, or null.
extern thread_local EscapeFrame *currentEscape;

/// Calls `body(context)` on the calling device thread under a new escape
/// frame. Returns true when `body` returned, false when the device left it
/// (a signal, which this function reports on the mesh as `device N: SIGSEGV
/// (...) in <function> at pc 0x...`, followed by `where` and `site` if the
/// symbolizer does not know the function; or an error the runtime already
/// recorded). `body`'s frames are discarded without running destructors.
/// Exceptions propagate (the frame is popped). Outside a device thread (no
/// mesh) it just calls `body`.
bool runWithEscape(void (*body)(void *), void *context,
                   const char *where = nullptr, const char *site = nullptr);

/// Leaves the calling thread's innermost escape frame (the reason is
/// already recorded on the mesh). Returns only if the thread has none.
void leaveDevice();

/// Leaves the device (leaveDevice) if the calling thread is a device thread
/// whose mesh failed.
void leaveIfMeshFailed();

/// While alive, the calling thread has an alternate signal stack (so that a
/// stack overflow in device code can be reported) and its stack bounds are
/// known (to tell a stack overflow from other faults). Restores the
/// previous alternate stack.
class DeviceThreadScope {
public:
  DeviceThreadScope();
  ~DeviceThreadScope();
  DeviceThreadScope(const DeviceThreadScope &) = delete;
  DeviceThreadScope &operator=(const DeviceThreadScope &) = delete;

private:
  void *memory = nullptr;
  size_t size = 0;
  stack_t previous{};
  bool installed = false;
};

/// Installs the fault handlers (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT)
/// while at least one acquisition is held; the last release restores the
/// previous handlers.
void acquireFaultHandlers();
void releaseFaultHandlers();

} // namespace tessera::rt::detail

#endif // TESSERA_LIB_RUNTIME_RUNTIMEIMPL_H
