//===- Collectives.cpp - collective entry points of the C ABI --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Each entry point checks its arguments, meets the other members of its group
// (MeshImpl::arrive), runs its data phase over the members' buffers in shared
// memory, and leaves through a barrier. Every member writes only its own
// share: an all_reduce member reduces one slice of every input and writes it
// to every output (a reduce-scatter and an all-gather in one pass); the other
// collectives pull what their own output needs.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Runtime.h"

#include "RuntimeImpl.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace tessera::rt;
using namespace tessera::rt::detail;

namespace {
/// What a member's data phase sees once every member arrived.
struct Exchange {
  const Signature &sig;
  int64_t rank;
  int64_t groupSize;
  int64_t elemSize;
  /// The members' buffers, by rank.
  const std::vector<const void *> &ins;
  const std::vector<void *> &outs;
};

/// One collective call, as its entry point describes it.
struct Call {
  explicit Call(CollectiveKind op) { sig.op = op; }

  Signature sig;
  const char *site = nullptr;
  const int64_t *parts = nullptr;
  int32_t numParts = 0;
  const void *in = nullptr;
  /// Bytes of this member's operand and result (-1 while unknown).
  int64_t inBytes = -1;
  void *out = nullptr;
  int64_t outBytes = -1;
  int64_t elemSize = 0;
  /// The first invalid argument.
  std::string error;
  /// The data phase (none for a barrier).
  void (*phase)(const Exchange &) = nullptr;
  /// When every member had arrived (unset until then).
  std::optional<Clock::time_point> allArrived;

  void setError(std::string message) {
    if (error.empty())
      error = std::move(message);
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

/// "4x8".
static std::string formatDims(const std::vector<int64_t> &shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text.empty() ? "scalar" : text;
}

static void checkDtype(Call &call, int32_t dtype) {
  call.sig.dtype = dtype;
  call.elemSize = getDtypeSize(dtype);
  if (!call.elemSize)
    call.setError("invalid dtype " + std::to_string(dtype));
}

static void checkReduction(Call &call, int32_t kind) {
  call.sig.kind = kind;
  if (!getReductionName(kind)) {
    call.setError("invalid reduction kind " + std::to_string(kind));
    return;
  }
  if (call.sig.dtype == TESSERA_RT_I1 &&
      (kind == TESSERA_RT_SUM || kind == TESSERA_RT_PROD))
    call.setError(std::string(getReductionName(kind)) +
                  " is not supported for i1 (use max or min)");
}

/// Reads an operand shape and sets the operand's byte size.
static void checkShape(Call &call, const int64_t *shape, int32_t rank) {
  if (rank < 0) {
    call.setError("negative rank " + std::to_string(rank));
    return;
  }
  if (rank > 0 && !shape) {
    call.setError("null shape");
    return;
  }
  call.sig.shape.assign(shape, shape + rank);
  if (!call.elemSize)
    return;
  int64_t bytes = call.elemSize;
  for (int64_t dim : call.sig.shape) {
    if (dim < 0) {
      call.setError("negative dimension size in shape " +
                    formatDims(call.sig.shape));
      return;
    }
    if (__builtin_mul_overflow(bytes, dim, &bytes)) {
      call.setError("shape " + formatDims(call.sig.shape) + " is too large");
      return;
    }
  }
  call.inBytes = bytes;
}

/// Checks that `dim` is a dimension of the operand.
static void checkDim(Call &call, const char *what, int64_t dim) {
  int64_t rank = call.sig.shape.size();
  if (dim < 0 || dim >= rank)
    call.setError(std::string(what) + " dimension " + std::to_string(dim) +
                  " is out of range for an operand of rank " +
                  std::to_string(rank));
}

/// The checks that need the group size; sets the result's byte size.
static void checkForGroup(Call &call, int64_t groupSize) {
  const Signature &sig = call.sig;
  auto checkDivisible = [&](int64_t dim) {
    if (sig.shape[dim] % groupSize != 0)
      call.setError("dimension " + std::to_string(dim) + " of size " +
                    std::to_string(sig.shape[dim]) +
                    " is not divisible by the group size " +
                    std::to_string(groupSize));
  };
  switch (sig.op) {
  case CollectiveKind::AllGather:
    if (call.inBytes >= 0 &&
        __builtin_mul_overflow(call.inBytes, groupSize, &call.outBytes)) {
      call.outBytes = -1;
      call.setError("the result of gathering shape " + formatDims(sig.shape) +
                    " is too large");
    }
    // Only the valid part of padded blocks: `count` rows of the result.
    if (sig.count > 0 && call.outBytes >= 0) {
      int64_t rows = sig.shape[sig.dim0] * groupSize;
      if (sig.count > rows)
        call.setError("valid size " + std::to_string(sig.count) +
                      " exceeds the " + std::to_string(rows) +
                      " elements the group's blocks hold along dimension " +
                      std::to_string(sig.dim0));
      else
        call.outBytes = call.outBytes / rows * sig.count;
    }
    return;
  case CollectiveKind::ReduceScatter:
    checkDivisible(sig.dim0);
    if (call.error.empty())
      call.outBytes = call.inBytes / groupSize;
    return;
  case CollectiveKind::AllToAll:
    checkDivisible(sig.dim0);
    return;
  case CollectiveKind::Permute: {
    std::vector<bool> isSource(groupSize), isTarget(groupSize);
    for (const auto &pair : sig.pairs) {
      std::string text =
          std::to_string(pair.first) + "->" + std::to_string(pair.second);
      if (pair.first < 0 || pair.first >= groupSize || pair.second < 0 ||
          pair.second >= groupSize) {
        call.setError("permute pair " + text +
                      " is out of range for a group of " +
                      std::to_string(groupSize));
        return;
      }
      if (isSource[pair.first] || isTarget[pair.second]) {
        call.setError("permute pair " + text + " repeats a " +
                      (isSource[pair.first] ? "source" : "target"));
        return;
      }
      isSource[pair.first] = isTarget[pair.second] = true;
    }
    return;
  }
  case CollectiveKind::AllReduce:
  case CollectiveKind::Barrier:
    return;
  }
}

//===----------------------------------------------------------------------===//
// Data phases
//===----------------------------------------------------------------------===//

void tessera::rt::detail::copyBox(
    void *dst, const std::vector<int64_t> &dstShape,
    const std::vector<int64_t> &dstOffset, const void *src,
    const std::vector<int64_t> &srcShape, const std::vector<int64_t> &srcOffset,
    const std::vector<int64_t> &box, int64_t elemSize) {
  size_t rank = box.size();
  for (int64_t extent : box)
    if (extent == 0)
      return;
  // Scratch kept per thread: a fault in a data phase leaves these frames
  // without destructors (runWithEscape), which must not leak.
  static thread_local std::vector<int64_t> srcStride, dstStride, index;
  srcStride.assign(rank, 0);
  dstStride.assign(rank, 0);
  int64_t srcStep = elemSize, dstStep = elemSize;
  for (size_t i = rank; i-- > 0;) {
    srcStride[i] = srcStep;
    dstStride[i] = dstStep;
    srcStep *= srcShape[i];
    dstStep *= dstShape[i];
  }
  const char *from = static_cast<const char *>(src);
  char *to = static_cast<char *>(dst);
  for (size_t i = 0; i < rank; ++i) {
    from += srcOffset[i] * srcStride[i];
    to += dstOffset[i] * dstStride[i];
  }
  // The innermost dimensions that are whole in all three shapes, and the one
  // outside them, make one contiguous run.
  size_t outer = rank;
  int64_t run = elemSize;
  while (outer > 0 && box[outer - 1] == srcShape[outer - 1] &&
         box[outer - 1] == dstShape[outer - 1])
    run *= box[--outer];
  if (outer > 0)
    run *= box[--outer];
  index.assign(outer, 0);
  for (;;) {
    std::memcpy(to, from, run);
    size_t i = outer;
    for (;;) {
      if (i == 0)
        return;
      --i;
      if (++index[i] < box[i]) {
        from += srcStride[i];
        to += dstStride[i];
        break;
      }
      index[i] = 0;
      from -= (box[i] - 1) * srcStride[i];
      to -= (box[i] - 1) * dstStride[i];
    }
  }
}

/// Reduces slice `rank` of every input and writes it to every output. Slices
/// are whole multiples of 64 elements, so members write disjoint cache lines.
static void allReducePhase(const Exchange &ex) {
  constexpr int64_t kUnit = 64;
  int64_t n = ex.sig.count;
  int64_t units = (n + kUnit - 1) / kUnit;
  int64_t base = units / ex.groupSize, extra = units % ex.groupSize;
  int64_t lo = (ex.rank * base + std::min(ex.rank, extra)) * kUnit;
  int64_t hi = lo + (base + (ex.rank < extra ? 1 : 0)) * kUnit;
  lo = std::min(lo, n);
  hi = std::min(hi, n);
  if (lo >= hi)
    return;
  static thread_local std::vector<const void *> srcs;
  static thread_local std::vector<void *> dsts;
  srcs.assign(ex.groupSize, nullptr);
  dsts.assign(ex.groupSize, nullptr);
  for (int64_t j = 0; j < ex.groupSize; ++j) {
    srcs[j] = static_cast<const char *>(ex.ins[j]) + lo * ex.elemSize;
    dsts[j] = static_cast<char *>(ex.outs[j]) + lo * ex.elemSize;
  }
  reduceBuffers(ex.sig.dtype, ex.sig.kind, srcs.data(), ex.groupSize,
                dsts.data(), ex.groupSize, hi - lo,
                n * ex.elemSize >= kStreamingBytes);
}

/// Reduces block `rank` (along the scatter dimension) of every input into
/// this member's output.
static void reduceScatterPhase(const Exchange &ex) {
  const std::vector<int64_t> &shape = ex.sig.shape;
  int64_t dim = ex.sig.dim0;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i)
    outer *= shape[i];
  for (size_t i = dim + 1; i < shape.size(); ++i)
    inner *= shape[i];
  int64_t block = shape[dim] / ex.groupSize;
  int64_t run = block * inner;
  if (run == 0)
    return;
  static thread_local std::vector<const void *> srcs;
  srcs.assign(ex.groupSize, nullptr);
  void *dst = nullptr;
  bool stream = outer * run * ex.elemSize >= kStreamingBytes;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t offset = (o * shape[dim] + ex.rank * block) * inner;
    for (int64_t j = 0; j < ex.groupSize; ++j)
      srcs[j] = static_cast<const char *>(ex.ins[j]) + offset * ex.elemSize;
    dst = static_cast<char *>(ex.outs[ex.rank]) + o * run * ex.elemSize;
    reduceBuffers(ex.sig.dtype, ex.sig.kind, srcs.data(), ex.groupSize, &dst, 1,
                  run, stream);
  }
}

/// Copies every member's input to its place in this member's output.
static void allGatherPhase(const Exchange &ex) {
  const std::vector<int64_t> &shape = ex.sig.shape;
  int64_t dim = ex.sig.dim0;
  static thread_local std::vector<int64_t> resultShape, zeros, offset, box;
  resultShape = shape;
  resultShape[dim] *= ex.groupSize;
  // Of padded blocks only the valid part (the first `count` rows) moves.
  int64_t valid = ex.sig.count > 0 ? ex.sig.count : resultShape[dim];
  resultShape[dim] = valid;
  zeros.assign(shape.size(), 0);
  offset.assign(shape.size(), 0);
  box = shape;
  for (int64_t m = 0; m < ex.groupSize; ++m) {
    offset[dim] = m * shape[dim];
    box[dim] = std::clamp<int64_t>(valid - offset[dim], 0, shape[dim]);
    if (box[dim] == 0)
      break;
    copyBox(ex.outs[ex.rank], resultShape, offset, ex.ins[m], shape, zeros, box,
            ex.elemSize);
  }
}

/// Copies block `rank` (along the split dimension) of every member's input
/// to the sender's place (along the concat dimension) in this member's
/// output.
static void allToAllPhase(const Exchange &ex) {
  const std::vector<int64_t> &shape = ex.sig.shape;
  int64_t split = ex.sig.dim0, concat = ex.sig.dim1;
  static thread_local std::vector<int64_t> block, resultShape, srcOffset,
      dstOffset;
  block = shape;
  block[split] /= ex.groupSize;
  resultShape = block;
  resultShape[concat] *= ex.groupSize;
  srcOffset.assign(shape.size(), 0);
  dstOffset.assign(shape.size(), 0);
  srcOffset[split] = ex.rank * block[split];
  for (int64_t m = 0; m < ex.groupSize; ++m) {
    dstOffset[concat] = m * block[concat];
    copyBox(ex.outs[ex.rank], resultShape, dstOffset, ex.ins[m], shape,
            srcOffset, block, ex.elemSize);
  }
}

/// Copies the input of this member's source, or writes zeros.
static void permutePhase(const Exchange &ex) {
  int64_t bytes = ex.sig.count;
  if (bytes == 0)
    return;
  for (const auto &pair : ex.sig.pairs) {
    if (pair.second == ex.rank) {
      std::memcpy(ex.outs[ex.rank], ex.ins[pair.first], bytes);
      return;
    }
  }
  std::memset(ex.outs[ex.rank], 0, bytes);
}

/// A call on a group of one device.
static void runAlone(const Call &call) {
  switch (call.sig.op) {
  case CollectiveKind::Barrier:
    return;
  case CollectiveKind::Permute:
    if (call.sig.count == 0)
      return;
    if (call.sig.pairs.empty())
      std::memset(call.out, 0, call.sig.count);
    else if (call.out != call.in)
      std::memmove(call.out, call.in, call.sig.count);
    return;
  case CollectiveKind::AllGather:
    // The valid part of a padded block: its first rows.
    if (call.sig.count > 0 && call.sig.count < call.sig.shape[call.sig.dim0]) {
      std::vector<int64_t> box = call.sig.shape,
                           zeros(call.sig.shape.size(), 0);
      box[call.sig.dim0] = call.sig.count;
      copyBox(call.out, box, zeros, call.in, call.sig.shape, zeros, box,
              call.elemSize);
      return;
    }
    [[fallthrough]];
  case CollectiveKind::AllReduce:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll:
    if (call.inBytes > 0 && call.out != call.in)
      std::memmove(call.out, call.in, call.inBytes);
    return;
  }
}

//===----------------------------------------------------------------------===//
// Running a call
//===----------------------------------------------------------------------===//

/// Reports (once per process) a collective called outside a device thread.
static void reportOutsideDevice(CollectiveKind op) {
  static std::atomic<bool> reported{false};
  if (!reported.exchange(true))
    std::fprintf(stderr,
                 "tessera runtime: tessera_rt_%s called outside a device "
                 "thread (run programs with tessera::rt::Mesh::run); its "
                 "output is zeros\n",
                 getCollectiveKindName(op));
}

namespace {
/// A data phase to run under an escape frame.
struct PhaseCall {
  void (*phase)(const Exchange &);
  const Exchange *exchange;
};
} // namespace

static void runPhase(void *context) {
  auto *call = static_cast<PhaseCall *>(context);
  call->phase(*call->exchange);
}

/// Checks the group, meets the other members and exchanges data. Returns
/// false (with nothing written) if the call failed or the mesh had failed.
static bool execute(MeshImpl &mesh, int64_t device, Call &call,
                    int64_t &groupSize) {
  if (call.error.empty())
    call.error = mesh.parseParts(call.parts, call.numParts, call.sig.parts);
  if (call.error.empty()) {
    for (const AxisPart &part : call.sig.parts)
      groupSize *= part.size;
    checkForGroup(call, groupSize);
  }
  if (call.error.empty()) {
    if (!call.in && call.inBytes > 0)
      call.setError("null input buffer");
    else if (!call.out && call.outBytes > 0)
      call.setError("null output buffer");
  }
  if (!call.error.empty()) {
    mesh.fail("device " + std::to_string(device) + " called " + call.site +
              " with invalid arguments: " + call.error);
    return false;
  }

  if (mesh.hasFailed())
    return false;
  std::vector<int64_t> members;
  int64_t rank =
      mesh.getGroup(device, call.sig.parts, &members, currentDevice.order);
  if (groupSize == 1) {
    call.allArrived = Clock::now();
    runAlone(call);
    return true;
  }
  std::vector<const void *> ins(groupSize);
  std::vector<void *> outs(groupSize);
  std::shared_ptr<Rendezvous> r =
      mesh.arrive(device, rank, members, call.sig, call.site, call.in,
                  std::max<int64_t>(call.inBytes, 0), call.out,
                  std::max<int64_t>(call.outBytes, 0));
  if (!r)
    return false;
  call.allArrived = Clock::now();
  if (r->crossProcess)
    return runAcrossProcesses(mesh, *r, rank, device, call.site);
  if (!call.phase)
    return true;

  // From here on, every member passes every barrier whatever happens, so
  // that nobody waits forever or frees a buffer another member still reads.
  bool ok = true;
  void *copy = nullptr;
  if (r->needsCopies) {
    // Inputs that some output overlaps are copied aside first.
    if (call.inBytes > 0) {
      copy = std::malloc(call.inBytes);
      if (copy) {
        std::memcpy(copy, call.in, call.inBytes);
        r->slots[rank].in = copy;
      } else {
        ok = false;
      }
    }
    r->barrier.arriveAndWait();
  }
  for (int64_t j = 0; j < groupSize; ++j) {
    ins[j] = r->slots[j].in;
    outs[j] = r->slots[j].out;
  }
  bool faulted = false;
  if (ok) {
    try {
      // A fault while reading or writing the members' buffers (a buffer
      // smaller than its call said) fails the mesh and still passes the
      // barrier below, so that the other members are not left waiting.
      Exchange exchange{call.sig, rank, groupSize, call.elemSize, ins, outs};
      PhaseCall phaseCall{call.phase, &exchange};
      faulted = !runWithEscape(runPhase, &phaseCall, "in the data phase of",
                               call.site);
    } catch (...) {
      ok = false;
    }
  }
  r->barrier.arriveAndWait();
  std::free(copy);
  if (!ok)
    mesh.fail("device " + std::to_string(device) + " ran out of memory in " +
              call.site);
  return !faulted;
}

/// Fails the calling thread's mesh after an exception (out of memory) in an
/// entry point; exceptions never cross the C ABI.
static void reportException() {
  try {
    if (MeshImpl *mesh = currentDevice.mesh)
      mesh->fail("device " + std::to_string(currentDevice.device) +
                 " ran out of memory in the runtime");
  } catch (...) {
  }
}

/// Runs a call for the calling thread's device: on a failed mesh, or if the
/// call fails, its output is zeros.
static void runCall(Call &call, const char *site, const int64_t *parts,
                    int32_t numParts) {
  CollectiveKind op = call.sig.op;
  call.site = site && *site ? site : getCollectiveKindName(op);
  call.parts = parts;
  call.numParts = numParts;
  CurrentDevice current = currentDevice;
  bool done = false;
  int64_t groupSize = 1;
  if (!current.mesh) {
    reportOutsideDevice(op);
  } else {
    MeshImpl &mesh = *current.mesh;
    Clock::time_point begin = Clock::now();
    double beginUs = mesh.traceEnabled ? mesh.now() : 0;
    try {
      done = execute(mesh, current.device, call, groupSize);
    } catch (...) {
      reportException();
    }
    DeviceState &state = mesh.devices[current.device];
    if (done) {
      int k = static_cast<int>(op);
      state.callsByKind[k] += 1;
      state.bytesByKind[k] += std::max<int64_t>(call.inBytes, 0);
      mesh.noteCompleted(current.device, call.site);
    }
    Clock::time_point end = Clock::now();
    state.collectiveSeconds +=
        std::chrono::duration<double>(end - begin).count();
    if (call.allArrived)
      state.collectiveDataSeconds +=
          std::chrono::duration<double>(end - *call.allArrived).count();
    if (mesh.traceEnabled)
      mesh.traceCall(current.device, call.site, op, beginUs, mesh.now(),
                     std::max<int64_t>(call.inBytes, 0), groupSize);
  }
  if (!done && call.out && call.outBytes > 0)
    std::memset(call.out, 0, call.outBytes);
}

//===----------------------------------------------------------------------===//
// The C ABI
//===----------------------------------------------------------------------===//

extern "C" void tessera_rt_all_reduce(const void *in, void *out,
                                      int64_t numElements, int32_t dtype,
                                      int32_t kind, const int64_t *parts,
                                      int32_t numParts, const char *site) {
  try {
    Call call(CollectiveKind::AllReduce);
    checkDtype(call, dtype);
    checkReduction(call, kind);
    call.sig.count = numElements;
    int64_t bytes = 0;
    if (numElements < 0)
      call.setError("negative number of elements " +
                    std::to_string(numElements));
    else if (__builtin_mul_overflow(numElements, call.elemSize, &bytes))
      call.setError(std::to_string(numElements) + " elements are too many");
    else if (call.elemSize)
      call.inBytes = bytes;
    call.in = in;
    call.out = out;
    call.outBytes = call.inBytes;
    call.phase = allReducePhase;
    runCall(call, site, parts, numParts);
  } catch (...) {
    reportException();
  }
  // On a failed mesh the device stops here rather than go on with zeros.
  leaveIfMeshFailed();
}

/// tessera_rt_all_gather, of the first `validSize` elements along the
/// gather dimension when it is given.
static void allGather(const void *in, void *out, const int64_t *shape,
                      int32_t rank, int32_t dtype, int64_t gatherDim,
                      std::optional<int64_t> validSize, const int64_t *parts,
                      int32_t numParts, const char *site) {
  try {
    Call call(CollectiveKind::AllGather);
    checkDtype(call, dtype);
    checkShape(call, shape, rank);
    call.sig.dim0 = gatherDim;
    checkDim(call, "gather", gatherDim);
    if (validSize && *validSize < 1)
      call.setError("valid size " + std::to_string(*validSize) +
                    " is not positive");
    else if (validSize)
      call.sig.count = *validSize;
    call.in = in;
    call.out = out;
    call.phase = allGatherPhase;
    runCall(call, site, parts, numParts);
  } catch (...) {
    reportException();
  }
  // On a failed mesh the device stops here rather than go on with zeros.
  leaveIfMeshFailed();
}

extern "C" void tessera_rt_all_gather(const void *in, void *out,
                                      const int64_t *shape, int32_t rank,
                                      int32_t dtype, int64_t gatherDim,
                                      const int64_t *parts, int32_t numParts,
                                      const char *site) {
  allGather(in, out, shape, rank, dtype, gatherDim, std::nullopt, parts,
            numParts, site);
}

extern "C" void
tessera_rt_all_gather_valid(const void *in, void *out, const int64_t *shape,
                            int32_t rank, int32_t dtype, int64_t gatherDim,
                            int64_t validSize, const int64_t *parts,
                            int32_t numParts, const char *site) {
  allGather(in, out, shape, rank, dtype, gatherDim, validSize, parts, numParts,
            site);
}

extern "C" void tessera_rt_reduce_scatter(const void *in, void *out,
                                          const int64_t *shape, int32_t rank,
                                          int32_t dtype, int32_t kind,
                                          int64_t scatterDim,
                                          const int64_t *parts,
                                          int32_t numParts, const char *site) {
  try {
    Call call(CollectiveKind::ReduceScatter);
    checkDtype(call, dtype);
    checkReduction(call, kind);
    checkShape(call, shape, rank);
    call.sig.dim0 = scatterDim;
    checkDim(call, "scatter", scatterDim);
    call.in = in;
    call.out = out;
    call.phase = reduceScatterPhase;
    runCall(call, site, parts, numParts);
  } catch (...) {
    reportException();
  }
  // On a failed mesh the device stops here rather than go on with zeros.
  leaveIfMeshFailed();
}

extern "C" void tessera_rt_all_to_all(const void *in, void *out,
                                      const int64_t *shape, int32_t rank,
                                      int32_t dtype, int64_t splitDim,
                                      int64_t concatDim, const int64_t *parts,
                                      int32_t numParts, const char *site) {
  try {
    Call call(CollectiveKind::AllToAll);
    checkDtype(call, dtype);
    checkShape(call, shape, rank);
    call.sig.dim0 = splitDim;
    call.sig.dim1 = concatDim;
    checkDim(call, "split", splitDim);
    checkDim(call, "concat", concatDim);
    call.in = in;
    call.out = out;
    call.outBytes = call.inBytes;
    call.phase = allToAllPhase;
    runCall(call, site, parts, numParts);
  } catch (...) {
    reportException();
  }
  // On a failed mesh the device stops here rather than go on with zeros.
  leaveIfMeshFailed();
}

extern "C" void tessera_rt_permute(const void *in, void *out, int64_t numBytes,
                                   const int64_t *sources,
                                   const int64_t *targets, int32_t numPairs,
                                   const int64_t *parts, int32_t numParts,
                                   const char *site) {
  try {
    Call call(CollectiveKind::Permute);
    call.elemSize = 1;
    call.sig.count = numBytes;
    if (numBytes < 0)
      call.setError("negative byte count " + std::to_string(numBytes));
    else
      call.inBytes = call.outBytes = numBytes;
    if (numPairs < 0)
      call.setError("negative number of pairs " + std::to_string(numPairs));
    else if (numPairs > 0 && (!sources || !targets))
      call.setError("null permute pairs");
    else
      for (int32_t i = 0; i < numPairs; ++i)
        call.sig.pairs.emplace_back(sources[i], targets[i]);
    call.in = in;
    call.out = out;
    call.phase = permutePhase;
    runCall(call, site, parts, numParts);
  } catch (...) {
    reportException();
  }
  // On a failed mesh the device stops here rather than go on with zeros.
  leaveIfMeshFailed();
}

extern "C" void tessera_rt_barrier(const int64_t *parts, int32_t numParts,
                                   const char *site) {
  try {
    Call call(CollectiveKind::Barrier);
    call.inBytes = call.outBytes = 0;
    runCall(call, site, parts, numParts);
  } catch (...) {
    reportException();
  }
  // On a failed mesh the device stops here rather than go on with zeros.
  leaveIfMeshFailed();
}

extern "C" int64_t tessera_rt_axis_index(const int64_t *parts,
                                         int32_t numParts) {
  CurrentDevice current = currentDevice;
  if (!current.mesh)
    return 0;
  try {
    std::vector<AxisPart> group;
    std::string error = current.mesh->parseParts(parts, numParts, group);
    if (!error.empty()) {
      current.mesh->fail("device " + std::to_string(current.device) +
                         " called axis_index with invalid arguments: " + error);
      return 0;
    }
    return current.mesh->getGroup(current.device, group, nullptr,
                                  current.order);
  } catch (...) {
    reportException();
    return 0;
  }
}

extern "C" void tessera_rt_set_device_order(const int64_t *deviceIds,
                                            int64_t numDevices) {
  CurrentDevice &current = currentDevice;
  current.order = nullptr;
  if (!current.mesh || !deviceIds)
    return;
  std::string error;
  if (numDevices != current.mesh->numDevices) {
    error = "has " + std::to_string(numDevices) + " devices, the mesh " +
            std::to_string(current.mesh->numDevices);
  } else {
    std::vector<bool> seen(numDevices, false);
    for (int64_t p = 0; p < numDevices && error.empty(); ++p) {
      int64_t id = deviceIds[p];
      if (id < 0 || id >= numDevices || seen[id])
        error = "is not a permutation of the devices (device " +
                std::to_string(id) + " at position " + std::to_string(p) + ")";
      else
        seen[id] = true;
    }
  }
  if (!error.empty()) {
    current.mesh->fail("device " + std::to_string(current.device) +
                       " called set_device_order with an order that " + error);
    return;
  }
  current.order = deviceIds;
}

extern "C" int64_t tessera_rt_device_id(void) {
  return currentDevice.mesh ? currentDevice.device : -1;
}

extern "C" const TesseraRtSymbol *tessera_rt_symbols(void) {
#define TESSERA_RT_SYMBOL(name)                                                \
  { #name, reinterpret_cast < void *>(&name) }
  static const TesseraRtSymbol symbols[] = {
      TESSERA_RT_SYMBOL(tessera_rt_all_reduce),
      TESSERA_RT_SYMBOL(tessera_rt_all_gather),
      TESSERA_RT_SYMBOL(tessera_rt_all_gather_valid),
      TESSERA_RT_SYMBOL(tessera_rt_reduce_scatter),
      TESSERA_RT_SYMBOL(tessera_rt_all_to_all),
      TESSERA_RT_SYMBOL(tessera_rt_permute),
      TESSERA_RT_SYMBOL(tessera_rt_barrier),
      TESSERA_RT_SYMBOL(tessera_rt_axis_index),
      TESSERA_RT_SYMBOL(tessera_rt_set_device_order),
      TESSERA_RT_SYMBOL(tessera_rt_device_id),
      TESSERA_RT_SYMBOL(tessera_rt_alloc),
      TESSERA_RT_SYMBOL(tessera_rt_aligned_alloc),
      TESSERA_RT_SYMBOL(tessera_rt_free),
      TESSERA_RT_SYMBOL(tessera_rt_assert_failed),
      TESSERA_RT_SYMBOL(tessera_rt_symbols),
      {nullptr, nullptr},
  };
#undef TESSERA_RT_SYMBOL
  return symbols;
}
