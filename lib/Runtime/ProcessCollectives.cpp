//===- ProcessCollectives.cpp - collectives across processes ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The data phase of a collective whose group spans processes. Its members
// in one process have met (MeshImpl::arrive) and the processes have agreed
// on the call (MeshImpl::exchangeSignatures). Then, hierarchically:
//
//   1. local step: the process's members combine or pack their inputs into
//      one buffer per destination process (an all_reduce reduces the local
//      inputs first, so only one buffer per process crosses);
//   2. exchange: one member moves those buffers through the group's
//      channel (an all-to-all, or an all-gather; an all_reduce does a
//      reduce-scatter by processes and an all-gather of the reduced slices);
//   3. local step: every member assembles its output from what arrived.
//
// Barriers separate the steps, so that inputs are read only in step 1 and
// outputs written only in step 3: any output may overlap any input. Every
// process computes the same layout, and every member passes every barrier
// whatever happens (a fault in step 1 or 3, a failure of the mesh while the
// exchange waits), so that nobody waits forever.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Runtime.h"

#include "RuntimeImpl.h"

#include <algorithm>
#include <cstring>

using namespace tessera::rt;
using namespace tessera::rt::detail;

/// Elements per unit of an all_reduce slice (members write whole cache
/// lines).
static constexpr int64_t kUnit = 64;

/// The part [lo, hi) of `n` elements, in whole units, of part `i` of
/// `parts`.
static std::pair<int64_t, int64_t> getSlice(int64_t n, int64_t i,
                                            int64_t parts) {
  int64_t units = (n + kUnit - 1) / kUnit;
  int64_t base = units / parts, extra = units % parts;
  int64_t lo = (i * base + std::min(i, extra)) * kUnit;
  int64_t hi = lo + (base + (i < extra ? 1 : 0)) * kUnit;
  return {std::min(lo, n), std::min(hi, n)};
}

/// Prefix sums of `counts`.
static std::vector<int64_t> getDispls(const std::vector<int64_t> &counts) {
  std::vector<int64_t> displs(counts.size());
  int64_t total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    displs[i] = total;
    total += counts[i];
  }
  return displs;
}

static int64_t sum(const std::vector<int64_t> &values) {
  int64_t total = 0;
  for (int64_t v : values)
    total += v;
  return total;
}

/// The element size of a call (bytes for a permute).
static int64_t getElemSize(const Signature &sig) {
  int64_t size = getDtypeSize(sig.dtype);
  return size ? size : 1;
}

/// The index of `rank` in `ranks` (ascending).
static int64_t indexOf(const std::vector<int64_t> &ranks, int64_t rank) {
  return std::lower_bound(ranks.begin(), ranks.end(), rank) - ranks.begin();
}

/// The block of an all_to_all (the operand cut along the split dimension).
static std::vector<int64_t> getBlockShape(const Signature &sig,
                                          int64_t groupSize) {
  std::vector<int64_t> block = sig.shape;
  block[sig.dim0] /= groupSize;
  return block;
}

bool MeshImpl::planCrossCall(Rendezvous &r, const Signature &sig,
                             int64_t device, const char *site) {
  CrossPlan &plan = r.plan;
  int n = static_cast<int>(plan.processes.size());
  int64_t groupSize = r.members.size();
  int64_t e = getElemSize(sig);
  const std::vector<int64_t> &local = plan.ranksOf[plan.me];
  int64_t numLocal = local.size();
  std::vector<int64_t> sizes; // Of the scratch buffers.
  plan.sendCounts.assign(n, 0);
  plan.recvCounts.assign(n, 0);
  plan.offsets.clear();
  plan.partial = nullptr;
  plan.result = nullptr;
  switch (sig.op) {
  case CollectiveKind::AllReduce: {
    int64_t count = sig.count;
    for (int q = 0; q < n; ++q)
      plan.offsets.push_back(getSlice(count, q, n).first);
    plan.offsets.push_back(count);
    int64_t mine = plan.offsets[plan.me + 1] - plan.offsets[plan.me];
    for (int q = 0; q < n; ++q) {
      plan.sendCounts[q] = (plan.offsets[q + 1] - plan.offsets[q]) * e;
      plan.recvCounts[q] = mine * e;
    }
    // The first local member's output takes the local reduction and the
    // result unless it overlaps an input (other than its own, exactly): the
    // inputs are read only before the result is written. One local member
    // sends its input as it is.
    const Slot &first = r.slots[local.front()];
    auto *out = static_cast<uint8_t *>(first.out);
    bool intoOutput = true;
    for (int64_t member : local) {
      const Slot &slot = r.slots[member];
      if (overlaps(out, first.outBytes, slot.in, slot.inBytes) &&
          !(member == local.front() && slot.in == first.out))
        intoOutput = false;
    }
    // The local reduction, the received slices, the result.
    sizes = {intoOutput ? 0 : count * e, n * mine * e,
             intoOutput ? 0 : count * e};
    if (intoOutput) {
      plan.partial =
          numLocal == 1 ? static_cast<const uint8_t *>(first.in) : out;
      plan.result = out;
    }
    break;
  }
  case CollectiveKind::AllGather: {
    int64_t bytes = r.slots[local.front()].inBytes;
    for (int q = 0; q < n; ++q)
      plan.recvCounts[q] = plan.ranksOf[q].size() * bytes;
    plan.recvDispls = getDispls(plan.recvCounts);
    plan.offsets.resize(groupSize);
    for (int64_t m = 0; m < groupSize; ++m) {
      int q = plan.processOf[m];
      plan.offsets[m] =
          plan.recvDispls[q] + indexOf(plan.ranksOf[q], m) * bytes;
    }
    sizes = {groupSize * bytes};
    break;
  }
  case CollectiveKind::ReduceScatter: {
    int64_t block = r.slots[local.front()].inBytes / groupSize;
    for (int q = 0; q < n; ++q) {
      plan.sendCounts[q] = plan.ranksOf[q].size() * block;
      plan.recvCounts[q] = numLocal * block;
    }
    sizes = {groupSize * block, n * numLocal * block};
    break;
  }
  case CollectiveKind::AllToAll: {
    int64_t block = r.slots[local.front()].inBytes / groupSize;
    for (int q = 0; q < n; ++q) {
      plan.sendCounts[q] = numLocal * plan.ranksOf[q].size() * block;
      plan.recvCounts[q] = plan.ranksOf[q].size() * numLocal * block;
    }
    sizes = {numLocal * groupSize * block, groupSize * numLocal * block};
    break;
  }
  case CollectiveKind::Permute:
    for (const auto &[source, target] : sig.pairs) {
      int from = plan.processOf[source], to = plan.processOf[target];
      if (from == plan.me)
        plan.sendCounts[to] += sig.count;
      if (to == plan.me)
        plan.recvCounts[from] += sig.count;
    }
    sizes = {sum(plan.sendCounts), sum(plan.recvCounts)};
    break;
  case CollectiveKind::Barrier:
    break;
  }
  if (sig.op != CollectiveKind::AllGather) {
    plan.sendDispls = getDispls(plan.sendCounts);
    plan.recvDispls = getDispls(plan.recvCounts);
  }
  plan.buffers.assign(sizes.size(), nullptr);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0)
      continue;
    plan.buffers[i] = plan.group->getBuffer(i, sizes[i]);
    if (!plan.buffers[i]) {
      fail(describeDevices({device}) + " ran out of memory in " + site +
           " (a buffer of " + std::to_string(sizes[i]) +
           " bytes for the other processes)");
      return false;
    }
  }
  if (sig.op == CollectiveKind::AllReduce && !plan.result) {
    plan.partial = plan.buffers[0];
    plan.result = plan.buffers[2];
  }
  return true;
}

namespace {
/// One local member's view of a call across processes.
struct CrossCall {
  MeshImpl &mesh;
  Rendezvous &r;
  const Signature &sig;
  const CrossPlan &plan;
  /// The member's rank in the group and its index among the local members.
  int64_t rank;
  int64_t localIndex;
  const std::vector<int64_t> &local;
  int64_t elemSize;

  const void *in(int64_t member) const { return r.slots[member].in; }
  void *out(int64_t member) const { return r.slots[member].out; }
  int64_t groupSize() const { return r.members.size(); }
};
} // namespace

//===----------------------------------------------------------------------===//
// Step 1: the local inputs into the send buffers
//===----------------------------------------------------------------------===//

/// Reduces the local members' inputs into `dst` (elements [lo, hi)).
static void reduceLocal(const CrossCall &c, int64_t lo, int64_t hi,
                        uint8_t *dst, int64_t srcOffset) {
  if (lo >= hi)
    return;
  static thread_local std::vector<const void *> srcs;
  srcs.clear();
  for (int64_t member : c.local)
    srcs.push_back(static_cast<const uint8_t *>(c.in(member)) + srcOffset +
                   lo * c.elemSize);
  void *out = dst + lo * c.elemSize;
  reduceBuffers(c.sig.dtype, c.sig.kind, srcs.data(), srcs.size(), &out, 1,
                hi - lo, (hi - lo) * c.elemSize >= kStreamingBytes);
}

static void packInputs(const CrossCall &c) {
  const Signature &sig = c.sig;
  const CrossPlan &plan = c.plan;
  int64_t numLocal = c.local.size();
  switch (sig.op) {
  case CollectiveKind::AllReduce: {
    // (One local member's input is sent as it is.)
    if (plan.partial == c.in(c.local.front()) && numLocal == 1)
      return;
    auto [lo, hi] = getSlice(sig.count, c.localIndex, numLocal);
    reduceLocal(c, lo, hi, const_cast<uint8_t *>(plan.partial), 0);
    return;
  }
  case CollectiveKind::AllGather: {
    int64_t bytes = c.r.slots[c.rank].inBytes;
    if (bytes > 0)
      std::memcpy(plan.buffers[0] + plan.offsets[c.rank], c.in(c.rank), bytes);
    return;
  }
  case CollectiveKind::ReduceScatter: {
    // The local members share the blocks; block b of every local input,
    // row by row along the scatter dimension, reduced into its place in
    // the send buffer of its member's process.
    const std::vector<int64_t> &shape = sig.shape;
    int64_t dim = sig.dim0, outer = 1, inner = 1;
    for (int64_t i = 0; i < dim; ++i)
      outer *= shape[i];
    for (size_t i = dim + 1; i < shape.size(); ++i)
      inner *= shape[i];
    int64_t rows = shape[dim] / c.groupSize();
    int64_t run = rows * inner;
    int64_t blockBytes = outer * run * c.elemSize;
    for (int64_t b = c.localIndex; b < c.groupSize(); b += numLocal) {
      int q = plan.processOf[b];
      uint8_t *dst = plan.buffers[0] + plan.sendDispls[q] +
                     indexOf(plan.ranksOf[q], b) * blockBytes;
      for (int64_t o = 0; o < outer; ++o)
        reduceLocal(c, 0, run, dst + o * run * c.elemSize,
                    (o * shape[dim] + b * rows) * inner * c.elemSize);
    }
    return;
  }
  case CollectiveKind::AllToAll: {
    // Block j of this member's input for every member j, in the send
    // buffer of j's process: (local sender, receiver) in rank order.
    std::vector<int64_t> block = getBlockShape(sig, c.groupSize());
    int64_t blockBytes = c.r.slots[c.rank].inBytes / c.groupSize();
    std::vector<int64_t> zeros(block.size(), 0), offset(block.size(), 0);
    for (int64_t j = 0; j < c.groupSize(); ++j) {
      int q = plan.processOf[j];
      int64_t slot =
          c.localIndex * plan.ranksOf[q].size() + indexOf(plan.ranksOf[q], j);
      offset[sig.dim0] = j * block[sig.dim0];
      copyBox(plan.buffers[0] + plan.sendDispls[q] + slot * blockBytes, block,
              zeros, c.in(c.rank), sig.shape, offset, block, c.elemSize);
    }
    return;
  }
  case CollectiveKind::Permute: {
    // The pairs from this process to process q, in pair order.
    std::vector<int64_t> next = plan.sendDispls;
    for (const auto &[source, target] : sig.pairs) {
      if (plan.processOf[source] != plan.me)
        continue;
      int64_t &at = next[plan.processOf[target]];
      if (source == c.rank && sig.count > 0)
        std::memcpy(plan.buffers[0] + at, c.in(c.rank), sig.count);
      at += sig.count;
    }
    return;
  }
  case CollectiveKind::Barrier:
    return;
  }
}

//===----------------------------------------------------------------------===//
// Step 2: the exchange
//===----------------------------------------------------------------------===//

/// Runs `request` to its end; false (the group abandoned) if the mesh
/// failed meanwhile or the transport reported an error (which fails it).
static bool finish(const CrossCall &c,
                   std::unique_ptr<TransportRequest> request, const char *site,
                   int64_t device) {
  std::string error;
  WaitResult result = waitFor(
      *request, [&] { return c.mesh.hasFailed(); }, error);
  if (result == WaitResult::Done)
    return true;
  c.plan.group->abandoned = true;
  (void)request.release();
  if (result == WaitResult::Failed)
    c.mesh.fail(c.mesh.describeDevices({device}) +
                ": the transport failed in " + site + ": " + error);
  return false;
}

static bool exchange(const CrossCall &c, const char *site, int64_t device) {
  const Signature &sig = c.sig;
  const CrossPlan &plan = c.plan;
  TransportChannel &channel = *plan.group->channel;
  switch (sig.op) {
  case CollectiveKind::AllReduce: {
    // The reduce-scatter by processes: each process receives its slice of
    // every process's partial (reduced by reduceSlice), then allGather.
    const uint8_t *partial = plan.partial;
    std::vector<int64_t> displs;
    for (size_t q = 0; q + 1 < plan.offsets.size(); ++q)
      displs.push_back(plan.offsets[q] * c.elemSize);
    return finish(c,
                  channel.allToAll(partial, plan.sendCounts, displs,
                                   plan.buffers[1], plan.recvCounts,
                                   plan.recvDispls),
                  site, device);
  }
  case CollectiveKind::AllGather:
    return finish(c,
                  channel.allGatherInPlace(plan.buffers[0], plan.recvCounts,
                                           plan.recvDispls),
                  site, device);
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll:
  case CollectiveKind::Permute:
    return finish(c,
                  channel.allToAll(plan.buffers[0], plan.sendCounts,
                                   plan.sendDispls, plan.buffers[1],
                                   plan.recvCounts, plan.recvDispls),
                  site, device);
  case CollectiveKind::Barrier:
    return true;
  }
  return true;
}

/// all_reduce, between the exchanges: the local members reduce, in process
/// order, the parts of this process's slice that every process sent.
static void reduceSlice(const CrossCall &c) {
  const CrossPlan &plan = c.plan;
  int64_t lo = plan.offsets[plan.me], hi = plan.offsets[plan.me + 1];
  auto [from, to] = getSlice(hi - lo, c.localIndex, c.local.size());
  if (from >= to)
    return;
  std::vector<const void *> srcs;
  for (size_t q = 0; q < plan.processes.size(); ++q)
    srcs.push_back(plan.buffers[1] + plan.recvDispls[q] + from * c.elemSize);
  void *dst = plan.result + (lo + from) * c.elemSize;
  reduceBuffers(c.sig.dtype, c.sig.kind, srcs.data(), srcs.size(), &dst, 1,
                to - from, false);
}

/// all_reduce, last: every process's reduced slice to every process.
static bool gatherSlices(const CrossCall &c, const char *site, int64_t device) {
  const CrossPlan &plan = c.plan;
  std::vector<int64_t> displs;
  for (size_t q = 0; q + 1 < plan.offsets.size(); ++q)
    displs.push_back(plan.offsets[q] * c.elemSize);
  return finish(c,
                plan.group->channel->allGatherInPlace(plan.result,
                                                      plan.sendCounts, displs),
                site, device);
}

//===----------------------------------------------------------------------===//
// Step 3: the outputs
//===----------------------------------------------------------------------===//

static void unpackOutputs(const CrossCall &c) {
  const Signature &sig = c.sig;
  const CrossPlan &plan = c.plan;
  int64_t numLocal = c.local.size();
  switch (sig.op) {
  case CollectiveKind::AllReduce: {
    // This member's slice of the result into every other local output.
    auto [lo, hi] = getSlice(sig.count, c.localIndex, numLocal);
    if (lo >= hi)
      return;
    int64_t bytes = (hi - lo) * c.elemSize;
    bool stream = sig.count * c.elemSize >= kStreamingBytes;
    for (int64_t member : c.local)
      if (c.out(member) != plan.result)
        copyBytes(static_cast<uint8_t *>(c.out(member)) + lo * c.elemSize,
                  plan.result + lo * c.elemSize, bytes, stream);
    if (stream)
      storeFence();
    return;
  }
  case CollectiveKind::AllGather: {
    // (The processes exchange whole blocks; of padded blocks only the
    // valid part, the first `count` rows, is copied out.)
    std::vector<int64_t> result = sig.shape, zeros(sig.shape.size(), 0),
                         offset(sig.shape.size(), 0), box = sig.shape;
    result[sig.dim0] *= c.groupSize();
    if (sig.count > 0)
      result[sig.dim0] = sig.count;
    for (int64_t m = 0; m < c.groupSize(); ++m) {
      offset[sig.dim0] = m * sig.shape[sig.dim0];
      box[sig.dim0] = std::clamp<int64_t>(result[sig.dim0] - offset[sig.dim0],
                                          0, sig.shape[sig.dim0]);
      if (box[sig.dim0] == 0)
        break;
      copyBox(c.out(c.rank), result, offset, plan.buffers[0] + plan.offsets[m],
              sig.shape, zeros, box, c.elemSize);
    }
    return;
  }
  case CollectiveKind::ReduceScatter: {
    // This member's block from every process, reduced in process order.
    int64_t block = c.r.slots[c.rank].inBytes / c.groupSize();
    if (block == 0)
      return;
    std::vector<const void *> srcs;
    for (size_t q = 0; q < plan.processes.size(); ++q)
      srcs.push_back(plan.buffers[1] + plan.recvDispls[q] +
                     c.localIndex * block);
    void *dst = c.out(c.rank);
    int64_t count = block / c.elemSize;
    reduceBuffers(sig.dtype, sig.kind, srcs.data(), srcs.size(), &dst, 1, count,
                  block >= kStreamingBytes);
    if (block >= kStreamingBytes)
      storeFence();
    return;
  }
  case CollectiveKind::AllToAll: {
    std::vector<int64_t> block = getBlockShape(sig, c.groupSize());
    std::vector<int64_t> result = block, zeros(block.size(), 0),
                         offset(block.size(), 0);
    result[sig.dim1] *= c.groupSize();
    int64_t blockBytes = c.r.slots[c.rank].inBytes / c.groupSize();
    for (int64_t m = 0; m < c.groupSize(); ++m) {
      int q = plan.processOf[m];
      int64_t slot = indexOf(plan.ranksOf[q], m) * numLocal + c.localIndex;
      offset[sig.dim1] = m * block[sig.dim1];
      copyBox(c.out(c.rank), result, offset,
              plan.buffers[1] + plan.recvDispls[q] + slot * blockBytes, block,
              zeros, block, c.elemSize);
    }
    return;
  }
  case CollectiveKind::Permute: {
    if (sig.count == 0)
      return;
    std::vector<int64_t> next = plan.recvDispls;
    for (const auto &[source, target] : sig.pairs) {
      if (plan.processOf[target] != plan.me)
        continue;
      int64_t &at = next[plan.processOf[source]];
      if (target == c.rank) {
        std::memcpy(c.out(c.rank), plan.buffers[1] + at, sig.count);
        return;
      }
      at += sig.count;
    }
    std::memset(c.out(c.rank), 0, sig.count);
    return;
  }
  case CollectiveKind::Barrier:
    return;
  }
}

//===----------------------------------------------------------------------===//
// The data phase
//===----------------------------------------------------------------------===//

namespace {
/// A step to run under an escape frame.
struct StepCall {
  void (*step)(const CrossCall &);
  const CrossCall *call;
};
} // namespace

static void runStep(void *context) {
  auto *call = static_cast<StepCall *>(context);
  call->step(*call->call);
}

bool tessera::rt::detail::runAcrossProcesses(MeshImpl &mesh, Rendezvous &r,
                                             int64_t rank, int64_t device,
                                             const char *site) {
  const Signature &sig = *r.slots[rank].sig;
  if (sig.op == CollectiveKind::Barrier)
    return true;
  const CrossPlan &plan = r.plan;
  const std::vector<int64_t> &local = plan.ranksOf[plan.me];
  CrossCall call{
      mesh, r, sig, plan, rank, indexOf(local, rank), local, getElemSize(sig)};
  // Every member passes every barrier, whatever happens.
  bool ok = true;
  StepCall pack{packInputs, &call};
  ok = runWithEscape(runStep, &pack, "in the data phase of", site);
  r.barrier.arriveAndWait();
  if (call.localIndex == 0 && !mesh.hasFailed())
    ok = exchange(call, site, device) && ok;
  r.barrier.arriveAndWait();
  if (sig.op == CollectiveKind::AllReduce) {
    // The slice of this process, reduced by all its members, then gathered.
    if (!mesh.hasFailed()) {
      StepCall reduce{reduceSlice, &call};
      ok = runWithEscape(runStep, &reduce, "in the data phase of", site) && ok;
    }
    r.barrier.arriveAndWait();
    if (call.localIndex == 0 && !mesh.hasFailed())
      ok = gatherSlices(call, site, device) && ok;
    r.barrier.arriveAndWait();
  }
  if (!mesh.hasFailed()) {
    StepCall unpack{unpackOutputs, &call};
    ok = runWithEscape(runStep, &unpack, "in the data phase of", site) && ok;
  }
  r.barrier.arriveAndWait();
  return ok && !mesh.hasFailed();
}
