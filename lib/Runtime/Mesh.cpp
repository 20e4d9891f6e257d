//===- Mesh.cpp - devices, rendezvous and the watchdog ----------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The host API (Mesh), the device threads of a run, the rendezvous where the
// members of a group meet, and the checks that turn divergent or deadlocked
// programs into errors: signatures that differ, devices that finish while
// others wait for them, every running device waiting, and the watchdog
// timeout.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Mesh.h"

#include "RuntimeImpl.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

using namespace tessera::rt;
using namespace tessera::rt::detail;

thread_local CurrentDevice tessera::rt::detail::currentDevice;

static constexpr int64_t kMaxDevices = Mesh::kMaxDevices;
/// Rounds of spinning (with a yield) before a waiting thread blocks.
static constexpr int kSpinRounds = 64;
/// The longest watchdog timeout honoured (longer ones wait this long).
static constexpr double kMaxWatchdogSeconds = 1e7;
/// After a failure, `run` waits for the devices to end for the watchdog
/// timeout, but at least this long, before it abandons those still running.
static constexpr double kMinGraceSeconds = 1;
/// How often the host of a mesh spread over processes takes their notices.
static constexpr double kPollSeconds = 0.002;

const char *tessera::rt::getCollectiveKindName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::Permute:
    return "permute";
  case CollectiveKind::Barrier:
    return "barrier";
  }
  return "unknown";
}

/// Whether `seconds` is a valid watchdog timeout: finite and >= 0.
static bool isValidTimeout(double seconds) {
  return std::isfinite(seconds) && seconds >= 0;
}

/// The watchdog timeout of a new mesh: TESSERA_WATCHDOG_SECONDS, or 30 s.
/// Returns false with `error` set if the variable is not a finite number of
/// seconds >= 0.
static bool getDefaultWatchdogSeconds(double &seconds, std::string &error) {
  seconds = 30;
  const char *env = std::getenv("TESSERA_WATCHDOG_SECONDS");
  if (!env)
    return true;
  char *end = nullptr;
  double value = std::strtod(env, &end);
  if (end == env || *end != '\0' || !isValidTimeout(value)) {
    error = std::string("TESSERA_WATCHDOG_SECONDS='") + env +
            "' is not a finite number of seconds >= 0";
    return false;
  }
  seconds = value;
  return true;
}

/// "%g" of a double.
static std::string formatSeconds(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%g", seconds);
  return buffer;
}

//===----------------------------------------------------------------------===//
// PhaseBarrier
//===----------------------------------------------------------------------===//

void PhaseBarrier::arriveAndWait() {
  if (expected <= 1)
    return;
  uint64_t gen = generation.load(std::memory_order_acquire);
  if (count.fetch_add(1, std::memory_order_acq_rel) + 1 == expected) {
    count.store(0, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> guard(mutex);
      generation.store(gen + 1, std::memory_order_release);
    }
    cv.notify_all();
    return;
  }
  for (int i = 0; i < kSpinRounds; ++i) {
    if (generation.load(std::memory_order_acquire) != gen)
      return;
    std::this_thread::yield();
  }
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock,
          [&] { return generation.load(std::memory_order_acquire) != gen; });
}

//===----------------------------------------------------------------------===//
// MeshImpl: groups and signatures
//===----------------------------------------------------------------------===//

MeshImpl::MeshImpl(const MeshSpec &meshSpec, double watchdogSeconds)
    : spec(meshSpec), watchdogSeconds(watchdogSeconds) {
  numDevices = 1;
  for (int64_t size : spec.axisSizes)
    numDevices *= size;
  devicesPerProcess = numDevices;
  localEnd = numDevices;
  if (spec.deviceIds.empty()) {
    spec.deviceIds.resize(numDevices);
    for (int64_t i = 0; i < numDevices; ++i)
      spec.deviceIds[i] = i;
  }
  positionOf.resize(numDevices);
  for (int64_t p = 0; p < numDevices; ++p)
    positionOf[spec.deviceIds[p]] = p;
  devices = std::vector<DeviceState>(numDevices);
  size_t numAxes = spec.axisSizes.size();
  for (int64_t d = 0; d < numDevices; ++d) {
    DeviceState &state = devices[d];
    state.coords.resize(numAxes);
    int64_t rest = positionOf[d];
    for (size_t a = numAxes; a-- > 0;) {
      state.coords[a] = rest % spec.axisSizes[a];
      rest /= spec.axisSizes[a];
    }
    state.memory = new MemoryBucket();
  }
}

MeshImpl::~MeshImpl() {
  for (DeviceState &state : devices)
    state.memory->release();
}

/// "x" for a whole axis, "x:(2)4" for a sub-axis.
static std::string describePart(const MeshSpec &spec, const AxisPart &part) {
  const std::string &name = spec.axisNames[part.axis];
  if (part.pre == 1 && part.size == spec.axisSizes[part.axis])
    return name;
  return name + ":(" + std::to_string(part.pre) + ")" +
         std::to_string(part.size);
}

std::string MeshImpl::parseParts(const int64_t *parts, int32_t numParts,
                                 std::vector<AxisPart> &result) const {
  result.clear();
  if (numParts < 0)
    return "negative number of axis parts " + std::to_string(numParts);
  if (numParts > 0 && !parts)
    return "null axis parts";
  int64_t numAxes = spec.axisSizes.size();
  for (int32_t i = 0; i < numParts; ++i) {
    AxisPart part{parts[3 * i], parts[3 * i + 1], parts[3 * i + 2]};
    if (part.axis < 0 || part.axis >= numAxes)
      return "axis " + std::to_string(part.axis) +
             " out of range (the mesh has " + std::to_string(numAxes) +
             (numAxes == 1 ? " axis)" : " axes)");
    int64_t axisSize = spec.axisSizes[part.axis];
    const std::string &name = spec.axisNames[part.axis];
    if (part.pre < 1 || part.size < 1 || part.pre > axisSize ||
        part.size > axisSize || axisSize % (part.pre * part.size) != 0)
      return "invalid part (pre " + std::to_string(part.pre) + ", size " +
             std::to_string(part.size) + ") of axis \"" + name + "\" of size " +
             std::to_string(axisSize) +
             ": pre * size must divide the axis size";
    result.push_back(part);
  }
  // Parts of one axis must cover disjoint ranges of its mixed-radix digits.
  for (size_t i = 0; i < result.size(); ++i) {
    for (size_t j = i + 1; j < result.size(); ++j) {
      AxisPart lo = result[i], hi = result[j];
      if (lo.axis != hi.axis || lo.size == 1 || hi.size == 1)
        continue;
      if (hi.pre < lo.pre)
        std::swap(lo, hi);
      if (hi.pre % (lo.pre * lo.size) != 0)
        return "axis parts " + describePart(spec, result[i]) + " and " +
               describePart(spec, result[j]) + " overlap";
    }
  }
  return "";
}

int64_t MeshImpl::getGroup(int64_t device, const std::vector<AxisPart> &parts,
                           std::vector<int64_t> *members,
                           const int64_t *order) const {
  std::vector<int64_t> ordered;
  if (order) {
    int64_t rest = std::find(order, order + numDevices, device) - order;
    ordered.resize(spec.axisSizes.size());
    for (size_t a = ordered.size(); a-- > 0;) {
      ordered[a] = rest % spec.axisSizes[a];
      rest /= spec.axisSizes[a];
    }
  }
  const std::vector<int64_t> &coords = order ? ordered : devices[device].coords;
  int64_t rank = 0;
  int64_t groupSize = 1;
  for (const AxisPart &part : parts) {
    rank = rank * part.size + (coords[part.axis] / part.pre) % part.size;
    groupSize *= part.size;
  }
  if (!members)
    return rank;
  // The coordinates with every listed component zeroed; member i adds the
  // components of i back.
  std::vector<int64_t> base = coords;
  for (const AxisPart &part : parts)
    base[part.axis] -= ((coords[part.axis] / part.pre) % part.size) * part.pre;
  members->resize(groupSize);
  std::vector<int64_t> memberCoords;
  for (int64_t i = 0; i < groupSize; ++i) {
    memberCoords = base;
    int64_t rest = i;
    for (size_t p = parts.size(); p-- > 0;) {
      memberCoords[parts[p].axis] += (rest % parts[p].size) * parts[p].pre;
      rest /= parts[p].size;
    }
    int64_t position = 0;
    for (size_t a = 0; a < memberCoords.size(); ++a)
      position = position * spec.axisSizes[a] + memberCoords[a];
    (*members)[i] = order ? order[position] : spec.deviceIds[position];
  }
  return rank;
}

std::string MeshImpl::describeParts(const std::vector<AxisPart> &parts) const {
  std::string text = "{";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i)
      text += ", ";
    text += describePart(spec, parts[i]);
  }
  return text + "}";
}

/// "4x8xf32".
static std::string describeShape(const std::vector<int64_t> &shape,
                                 int32_t dtype) {
  std::string text;
  for (int64_t dim : shape)
    text += std::to_string(dim) + "x";
  const char *name = getDtypeName(dtype);
  return text + (name ? name : "?");
}

std::string MeshImpl::describe(const Signature &sig) const {
  const char *reduction = getReductionName(sig.kind);
  std::string red = reduction ? reduction : "?";
  const char *dtype = getDtypeName(sig.dtype);
  std::string over = " over " + describeParts(sig.parts) + ")";
  switch (sig.op) {
  case CollectiveKind::AllReduce:
    return "(" + red + ", " + (dtype ? dtype : "?") + ", " +
           std::to_string(sig.count) +
           (sig.count == 1 ? " element" : " elements") + over;
  case CollectiveKind::AllGather:
    return "(" + describeShape(sig.shape, sig.dtype) + ", gather dim " +
           std::to_string(sig.dim0) + over;
  case CollectiveKind::ReduceScatter:
    return "(" + red + ", " + describeShape(sig.shape, sig.dtype) +
           ", scatter dim " + std::to_string(sig.dim0) + over;
  case CollectiveKind::AllToAll:
    return "(" + describeShape(sig.shape, sig.dtype) + ", split dim " +
           std::to_string(sig.dim0) + ", concat dim " +
           std::to_string(sig.dim1) + over;
  case CollectiveKind::Permute: {
    std::string text = "(" + std::to_string(sig.count) +
                       (sig.count == 1 ? " byte, " : " bytes, ");
    if (sig.pairs.empty())
      text += "no pairs";
    for (size_t i = 0; i < sig.pairs.size(); ++i)
      text += (i ? ", " : "pairs ") + std::to_string(sig.pairs[i].first) +
              "->" + std::to_string(sig.pairs[i].second);
    return text + over;
  }
  case CollectiveKind::Barrier:
    return "(" + over.substr(1);
  }
  return "()";
}

//===----------------------------------------------------------------------===//
// MeshImpl: rendezvous and failure
//===----------------------------------------------------------------------===//

double MeshImpl::now() const {
  return std::chrono::duration<double, std::micro>(Clock::now() - runStart)
      .count();
}

void MeshImpl::fail(const std::string &message) {
  std::lock_guard<std::mutex> guard(mutex);
  failLocked(message);
}

void MeshImpl::failLocked(const std::string &message, bool elsewhere) {
  if (failed.load(std::memory_order_relaxed))
    return;
  firstError = message;
  failureFromElsewhere = elsewhere;
  if (transport)
    waitingAtFailure = describeWaiting();
  failureUs = now();
  failureTime = Clock::now();
  failed.store(true, std::memory_order_release);
  for (auto &entry : pending)
    entry.second->cv.notify_all();
  watchdogCv.notify_all();
}

void MeshImpl::noteCompleted(int64_t device, const char *site) {
  std::lock_guard<std::mutex> guard(mutex);
  devices[device].lastCollective = site ? site : "";
}

/// Whether the members must copy their inputs aside before the data phase
/// because an output overlaps an input. An all_reduce member whose output is
/// exactly its input is fine: every member reads and writes only its own
/// slice of each buffer.
static bool needsInputCopies(const Rendezvous &r, CollectiveKind op) {
  for (const Slot &out : r.slots) {
    for (const Slot &in : r.slots) {
      if (!overlaps(out.out, out.outBytes, in.in, in.inBytes))
        continue;
      if (op == CollectiveKind::AllReduce && &out == &in && out.out == in.in)
        continue;
      return true;
    }
  }
  return false;
}

/// The devices that arrived at `r` and those that did not, by device id, and
/// the site of the lowest arrived device.
static void splitMembers(const Rendezvous &r, std::vector<int64_t> &arrived,
                         std::vector<int64_t> &missing, const char *&site) {
  int64_t lowest = -1;
  for (size_t i = 0; i < r.members.size(); ++i) {
    int64_t device = r.members[i];
    if (r.slots[i].arrived) {
      arrived.push_back(device);
      if (lowest < 0 || device < lowest) {
        lowest = device;
        site = r.slots[i].site;
      }
    } else {
      missing.push_back(device);
    }
  }
  std::sort(arrived.begin(), arrived.end());
  std::sort(missing.begin(), missing.end());
}

/// "device 3 finished without reaching <site> that devices 0, 1 are waiting
/// in".
static std::string describeFinished(const MeshImpl &mesh, int64_t device,
                                    const Rendezvous &r) {
  std::vector<int64_t> arrived, missing;
  const char *site = "a collective";
  splitMembers(r, arrived, missing, site);
  return mesh.describeDevices({device}) + " finished without reaching " + site +
         " that " + mesh.describeDevices(arrived) +
         (arrived.size() == 1 ? " is" : " are") + " waiting in";
}

std::string MeshImpl::describeWaiting() const {
  std::string text;
  for (const auto &entry : pending) {
    const Rendezvous &r = *entry.second;
    std::vector<int64_t> arrived, missing;
    const char *site = "a collective";
    splitMembers(r, arrived, missing, site);
    if (arrived.empty())
      continue;
    if (!text.empty())
      text += "; ";
    text += describeDevices(arrived) + (arrived.size() == 1 ? " is" : " are") +
            " waiting in " + site + " for " + describeDevices(missing) +
            " that never arrived";
  }
  return text;
}

bool MeshImpl::isLocalDeadlock() const {
  // A group whose local members all arrived waits for other processes.
  for (const auto &entry : pending)
    if (entry.second->numArrived > 0 &&
        entry.second->numArrived == entry.second->numLocal)
      return false;
  return true;
}

std::shared_ptr<Rendezvous>
MeshImpl::arrive(int64_t device, int64_t rank,
                 const std::vector<int64_t> &members, const Signature &sig,
                 const char *site, const void *in, int64_t inBytes, void *out,
                 int64_t outBytes) {
  // The key: the member set and how often this device met it before. Every
  // member counts its own calls, so the n-th call of each member meets.
  std::vector<int64_t> memberSet = members;
  std::sort(memberSet.begin(), memberSet.end());
  int64_t counter = devices[device].callCounters[memberSet]++;
  std::vector<int64_t> key = memberSet;
  key.push_back(counter);

  std::unique_lock<std::mutex> lock(mutex);
  if (failed.load(std::memory_order_relaxed))
    return nullptr;
  std::shared_ptr<Rendezvous> &entry = pending[key];
  if (!entry) {
    entry = std::make_shared<Rendezvous>();
    entry->members = members;
    entry->slots.resize(members.size());
    entry->numLocal = std::count_if(members.begin(), members.end(),
                                    [&](int64_t m) { return isLocal(m); });
    entry->crossProcess =
        entry->numLocal < static_cast<int64_t>(members.size());
    entry->memberSet = std::move(memberSet);
    entry->counter = counter;
    entry->barrier.init(entry->numLocal);
  }
  std::shared_ptr<Rendezvous> r = entry;

  // Every member must make the same call.
  for (size_t i = 0; i < r->slots.size(); ++i) {
    const Slot &other = r->slots[i];
    if (!other.arrived)
      continue;
    if (*other.sig == sig && r->members == members)
      break;
    int64_t otherDevice = r->members[i];
    std::string mine = "device " + std::to_string(device) + " called " + site +
                       " " + describe(sig);
    std::string theirs = "device " + std::to_string(otherDevice) + " called " +
                         other.site + " " + describe(*other.sig);
    failLocked("devices diverged: " + (otherDevice < device
                                           ? theirs + " but " + mine
                                           : mine + " but " + theirs));
    return nullptr;
  }

  Slot &slot = r->slots[rank];
  slot.in = in;
  slot.out = out;
  slot.inBytes = inBytes;
  slot.outBytes = outBytes;
  slot.sig = &sig;
  slot.site = site;
  slot.arrival = Clock::now();
  slot.arrived = true;
  ++r->numArrived;

  // A member that finished will never come.
  for (size_t i = 0; i < r->slots.size(); ++i) {
    if (!r->slots[i].arrived && devices[r->members[i]].finished) {
      failLocked(describeFinished(*this, r->members[i], *r));
      return nullptr;
    }
  }
  if (r->crossProcess) {
    checkFinishedProcesses(*r);
    if (failed.load(std::memory_order_relaxed))
      return nullptr;
  }

  if (r->numArrived == r->numLocal && !r->crossProcess) {
    r->needsCopies = needsInputCopies(*r, sig.op);
    r->complete.store(true, std::memory_order_release);
    lastCompletion = Clock::now();
    numWaiting -= r->numLocal - 1;
    pending.erase(key);
    lock.unlock();
    r->cv.notify_all();
    return r;
  }

  if (numWaiting++ == 0)
    watchdogCv.notify_all();
  if (r->numArrived == r->numLocal) {
    // The last local member meets the other processes for every local one;
    // all of them count as waiting meanwhile.
    lock.unlock();
    bool ok = exchangeSignatures(*r, device, sig, site);
    lock.lock();
    if (!ok || failed.load(std::memory_order_relaxed)) {
      --numWaiting;
      return nullptr;
    }
    r->complete.store(true, std::memory_order_release);
    lastCompletion = Clock::now();
    numWaiting -= r->numLocal;
    pending.erase(key);
    lock.unlock();
    r->cv.notify_all();
    return r;
  }
  if (numWaiting == numLive && isLocalDeadlock()) {
    failLocked("deadlock: every running device is waiting in a collective: " +
               describeWaiting());
    --numWaiting;
    return nullptr;
  }
  lock.unlock();
  for (int i = 0; i < kSpinRounds; ++i) {
    if (r->complete.load(std::memory_order_acquire) || hasFailed())
      break;
    std::this_thread::yield();
  }
  lock.lock();
  r->cv.wait(lock, [&] {
    return r->complete.load(std::memory_order_relaxed) ||
           failed.load(std::memory_order_relaxed);
  });
  // The device that completed the rendezvous stopped counting us as waiting.
  if (r->complete.load(std::memory_order_relaxed))
    return r;
  --numWaiting;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// MeshImpl: runs
//===----------------------------------------------------------------------===//

void MeshImpl::finishDevice(int64_t device) {
  std::unique_lock<std::mutex> lock(mutex);
  DeviceState &state = devices[device];
  if (state.abandoned) {
    // `run` returned long ago; its bookkeeping is over. Once the count
    // drops, the mesh may be destroyed: nothing of it is touched after.
    // The last abandoned thread of the run releases the fault handlers the
    // run installed.
    state.abandoned = false;
    lock.unlock();
    if (runaways.fetch_sub(1, std::memory_order_acq_rel) == 1)
      releaseFaultHandlers();
    return;
  }
  if (traceEnabled)
    traceEnd(device, now());
  state.finished = true;
  --numLive;
  if (!failed.load(std::memory_order_relaxed)) {
    for (const auto &entry : pending) {
      const Rendezvous &r = *entry.second;
      auto it = std::find(r.members.begin(), r.members.end(), device);
      if (it != r.members.end() && !r.slots[it - r.members.begin()].arrived) {
        failLocked(describeFinished(*this, device, r));
        break;
      }
    }
  }
  if (!failed.load(std::memory_order_relaxed) && numLive > 0 &&
      numWaiting == numLive && isLocalDeadlock())
    failLocked("deadlock: every running device is waiting in a collective: " +
               describeWaiting());
  watchdogCv.notify_all();
}

double MeshImpl::getGraceSeconds() const {
  if (watchdogSeconds <= 0)
    return 0;
  return std::max(std::min(watchdogSeconds, kMaxWatchdogSeconds),
                  kMinGraceSeconds);
}

void MeshImpl::watch(std::unique_lock<std::mutex> &lock) {
  // With other processes, the host also takes their notices: it wakes at
  // least every kPollInterval.
  auto sleep = [&](std::optional<Clock::time_point> deadline) {
    if (transport) {
      Clock::time_point poll =
          Clock::now() + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(kPollSeconds));
      deadline = deadline ? std::min(*deadline, poll) : poll;
    }
    if (deadline)
      watchdogCv.wait_until(lock, *deadline);
    else
      watchdogCv.wait(lock);
  };
  while (numLive > 0) {
    if (transport)
      serviceProcesses(lock);
    if (failed.load(std::memory_order_relaxed)) {
      // The devices get a grace period to end; those still running after
      // it are abandoned (with the timeout off, run waits for them).
      double grace = getGraceSeconds();
      if (grace <= 0) {
        sleep(std::nullopt);
        continue;
      }
      Clock::time_point deadline =
          failureTime + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(grace));
      if (Clock::now() >= deadline)
        return;
      sleep(deadline);
      continue;
    }
    if (watchdogSeconds <= 0 || numWaiting == 0) {
      sleep(std::nullopt);
      continue;
    }
    // The stall began at the last completion or when the longest-waiting
    // device arrived, whichever is later.
    Clock::time_point oldest = Clock::time_point::max();
    for (const auto &entry : pending)
      for (const Slot &slot : entry.second->slots)
        if (slot.arrived)
          oldest = std::min(oldest, slot.arrival);
    Clock::time_point stallStart = std::max(lastCompletion, oldest);
    double seconds = std::min(watchdogSeconds, kMaxWatchdogSeconds);
    Clock::time_point deadline =
        stallStart + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(seconds));
    if (Clock::now() >= deadline) {
      failLocked("watchdog: no collective completed for " +
                 formatSeconds(watchdogSeconds) + " s: " + describeWaiting());
      continue;
    }
    sleep(deadline);
  }
  // This process's failure reaches the others even if its devices ended at
  // once.
  if (transport)
    serviceProcesses(lock);
}

namespace {
/// What a device thread's escape frame calls.
struct DeviceCall {
  MeshImpl *mesh;
  const std::function<void(int64_t)> *fn;
  int64_t device;
};

void callDeviceFunction(void *context) {
  auto *call = static_cast<DeviceCall *>(context);
  try {
    (*call->fn)(call->device);
  } catch (const std::exception &e) {
    call->mesh->fail("device " + std::to_string(call->device) +
                     " threw an exception: " + e.what());
  } catch (...) {
    call->mesh->fail("device " + std::to_string(call->device) +
                     " threw an exception");
  }
}
} // namespace

bool MeshImpl::run(const std::function<void(int64_t)> &fn, std::string &error) {
  if (!fn) {
    error = "no function to run";
    return false;
  }
  {
    std::lock_guard<std::mutex> guard(mutex);
    if (runaways.load(std::memory_order_acquire) > 0) {
      std::vector<int64_t> running;
      for (int64_t d = 0; d < numDevices; ++d)
        if (devices[d].abandoned)
          running.push_back(d);
      error = "cannot run the mesh: " +
              (running.empty() ? std::string("a device")
                               : describeDevices(running)) +
              " of an earlier failed run " +
              (running.size() > 1 ? "are" : "is") + " still running";
      if (transport) {
        // The other processes learn of it too.
        firstError = error;
        failureFromElsewhere = false;
        waitingAtFailure.clear();
      }
    } else {
      pending.clear();
      failed.store(false, std::memory_order_relaxed);
      firstError.clear();
    }
  }
  if (runaways.load(std::memory_order_acquire) > 0) {
    if (transport)
      agreeOnRun(false, error);
    return false;
  }
  {
    std::lock_guard<std::mutex> guard(mutex);
    failureUs = 0;
    numLive = localEnd - localBegin;
    numWaiting = 0;
    if (transport)
      beginProcessRun();
    runStart = lastCompletion = Clock::now();
    for (DeviceState &state : devices) {
      state.finished = false;
      state.callCounters.clear();
      state.trace.clear();
      state.lastEventEndUs = 0;
      state.lastCollective.clear();
    }
  }
  acquireFaultHandlers();

  auto deviceMain = [this, &fn](int64_t device) {
    currentDevice = CurrentDevice{this, device};
    {
      DeviceThreadScope scope;
      DeviceCall call{this, &fn, device};
      // A device that must stop at once (a fault, a failed allocation or
      // assertion, a collective on a failed mesh) comes back here.
      runWithEscape(callDeviceFunction, &call);
    }
    currentDevice = CurrentDevice{};
    finishDevice(device);
  };

  // The threads of this process's devices: threads[i] runs device
  // localBegin + i.
  std::vector<std::thread> threads;
  threads.reserve(localEnd - localBegin);
  for (int64_t d = localBegin; d < localEnd; ++d) {
    try {
      threads.emplace_back(deviceMain, d);
    } catch (const std::system_error &e) {
      fail("cannot start a thread for device " + std::to_string(d) + ": " +
           e.what());
      for (int64_t rest = d; rest < localEnd; ++rest)
        finishDevice(rest);
      break;
    }
  }
  std::vector<int64_t> abandoned;
  {
    std::unique_lock<std::mutex> lock(mutex);
    watch(lock);
    // Devices still running after the grace period are abandoned: their
    // threads are detached, and their end touches only their bookkeeping.
    if (numLive > 0) {
      std::string details;
      for (int64_t d = localBegin; d < localEnd; ++d) {
        DeviceState &state = devices[d];
        if (state.finished)
          continue;
        state.abandoned = true;
        abandoned.push_back(d);
        details +=
            (details.empty() ? "" : ", ") + std::to_string(d) + " (" +
            (state.lastCollective.empty()
                 ? std::string("no collective completed")
                 : "last completed collective: " + state.lastCollective) +
            ")";
      }
      runaways.fetch_add(abandoned.size(), std::memory_order_acq_rel);
      firstError += std::string("; ") +
                    (abandoned.size() == 1 ? "device " : "devices ") + details +
                    (abandoned.size() == 1 ? " was" : " were") +
                    " still running " + formatSeconds(getGraceSeconds()) +
                    " s after the failure and " +
                    (abandoned.size() == 1 ? "was" : "were") + " abandoned";
    }
  }
  for (size_t i = 0; i < threads.size(); ++i) {
    int64_t d = localBegin + static_cast<int64_t>(i);
    if (std::find(abandoned.begin(), abandoned.end(), d) != abandoned.end())
      threads[i].detach();
    else
      threads[i].join();
  }
  // With abandoned threads, the last of them releases the handlers.
  if (abandoned.empty())
    releaseFaultHandlers();

  bool ok;
  {
    std::lock_guard<std::mutex> guard(mutex);
    pending.clear();
    ok = !failed.load(std::memory_order_relaxed);
    if (!ok)
      error = firstError;
  }
  // Every process learns the outcome of every other.
  if (transport) {
    if (ok)
      announceFinished();
    return agreeOnRun(ok, error);
  }
  return ok;
}

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

Mesh::Mesh() = default;

Mesh::~Mesh() {
  // Threads abandoned by a failed run may still use the mesh's state when
  // they end: it is kept (reachable, for leak checkers) instead.
  if (impl && impl->runaways.load(std::memory_order_acquire) > 0) {
    static std::mutex mutex;
    static auto *kept = new std::vector<MeshImpl *>();
    std::lock_guard<std::mutex> guard(mutex);
    kept->push_back(impl.release());
  }
}

std::unique_ptr<Mesh> Mesh::create(const MeshSpec &spec, std::string &error) {
  if (spec.axisNames.size() != spec.axisSizes.size()) {
    error = "the mesh has " + std::to_string(spec.axisNames.size()) +
            " axis names but " + std::to_string(spec.axisSizes.size()) +
            " axis sizes";
    return nullptr;
  }
  std::set<std::string> names;
  int64_t numDevices = 1;
  for (size_t a = 0; a < spec.axisNames.size(); ++a) {
    const std::string &name = spec.axisNames[a];
    if (name.empty()) {
      error = "axis " + std::to_string(a) + " has an empty name";
      return nullptr;
    }
    if (!names.insert(name).second) {
      error = "duplicate axis name: \"" + name + "\"";
      return nullptr;
    }
    int64_t size = spec.axisSizes[a];
    if (size < 1) {
      error = "axis \"" + name + "\" has size " + std::to_string(size) +
              "; sizes must be at least 1";
      return nullptr;
    }
    if (size > kMaxDevices || numDevices * size > kMaxDevices) {
      error =
          "the mesh has more than " + std::to_string(kMaxDevices) + " devices";
      return nullptr;
    }
    numDevices *= size;
  }
  if (!spec.deviceIds.empty()) {
    if (static_cast<int64_t>(spec.deviceIds.size()) != numDevices) {
      error = "the mesh has " + std::to_string(numDevices) + " devices but " +
              std::to_string(spec.deviceIds.size()) + " device ids";
      return nullptr;
    }
    std::vector<bool> seen(numDevices);
    for (int64_t id : spec.deviceIds) {
      if (id < 0 || id >= numDevices || seen[id]) {
        error = "device ids are not a permutation of 0.." +
                std::to_string(numDevices - 1) + ": " +
                (id < 0 || id >= numDevices
                     ? "id " + std::to_string(id) + " is out of range"
                     : "id " + std::to_string(id) + " appears twice");
        return nullptr;
      }
      seen[id] = true;
    }
  }
  double watchdogSeconds = 30;
  if (!getDefaultWatchdogSeconds(watchdogSeconds, error))
    return nullptr;
  std::unique_ptr<Mesh> mesh(new Mesh());
  mesh->impl = std::make_unique<MeshImpl>(spec, watchdogSeconds);
  return mesh;
}

int64_t Mesh::numDevices() const { return impl->numDevices; }

const MeshSpec &Mesh::spec() const { return impl->spec; }

std::vector<int64_t> Mesh::coordinates(int64_t device) const {
  if (device < 0 || device >= impl->numDevices)
    return {};
  return impl->devices[device].coords;
}

int64_t Mesh::deviceAt(const std::vector<int64_t> &coords) const {
  const std::vector<int64_t> &sizes = impl->spec.axisSizes;
  if (coords.size() != sizes.size())
    return -1;
  int64_t position = 0;
  for (size_t a = 0; a < sizes.size(); ++a) {
    if (coords[a] < 0 || coords[a] >= sizes[a])
      return -1;
    position = position * sizes[a] + coords[a];
  }
  return impl->spec.deviceIds[position];
}

bool Mesh::setWatchdogTimeout(double seconds) {
  if (!isValidTimeout(seconds))
    return false;
  impl->watchdogSeconds = seconds;
  return true;
}

void Mesh::setSymbolizer(std::function<std::string(uint64_t pc)> symbolizer) {
  impl->symbolizer = std::move(symbolizer);
}

bool Mesh::hasRunawayDevices() const {
  return impl->runaways.load(std::memory_order_acquire) > 0;
}

double Mesh::getWatchdogTimeout() const { return impl->watchdogSeconds; }

void Mesh::setTraceEnabled(bool enabled) { impl->traceEnabled = enabled; }

bool Mesh::run(const std::function<void(int64_t device)> &fn,
               std::string &error) {
  return impl->run(fn, error);
}

DeviceStats Mesh::stats(int64_t device) const {
  DeviceStats result;
  if (device < 0 || device >= impl->numDevices)
    return result;
  const DeviceState &state = impl->devices[device];
  result.peakBytes = state.memory->getPeak();
  result.currentBytes = state.memory->getCurrent();
  result.collectiveSeconds = state.collectiveSeconds;
  result.collectiveDataSeconds = state.collectiveDataSeconds;
  for (int k = 0; k < kNumCollectiveKinds; ++k) {
    result.callsByKind[k] = state.callsByKind[k];
    result.bytesByKind[k] = state.bytesByKind[k];
    result.collectiveCalls += state.callsByKind[k];
    result.collectiveBytes += state.bytesByKind[k];
  }
  return result;
}

void Mesh::resetStats() {
  for (DeviceState &state : impl->devices) {
    std::fill(std::begin(state.callsByKind), std::end(state.callsByKind), 0);
    std::fill(std::begin(state.bytesByKind), std::end(state.bytesByKind), 0);
    state.collectiveSeconds = 0;
    state.collectiveDataSeconds = 0;
    state.memory->resetPeak();
  }
}

void Mesh::accountBuffer(int64_t device, int64_t bytes) {
  if (device >= 0 && device < impl->numDevices && bytes > 0)
    impl->devices[device].memory->add(bytes);
}

void Mesh::releaseBuffer(int64_t device, int64_t bytes) {
  if (device >= 0 && device < impl->numDevices && bytes > 0)
    impl->devices[device].memory->sub(bytes);
}

bool Mesh::writeTrace(const std::string &path, std::string &error) const {
  return impl->writeTrace(path, error);
}
