//===- Processes.cpp - a mesh spread over several processes -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A mesh attached to a Transport runs the contiguous block of devices of its
// process. This file has what that adds to a mesh: the channels of the
// groups that span processes (built once per group, before the run), the
// signature exchange that completes a rendezvous across processes, the
// notices that spread a failure and the end of a process's devices, and the
// agreement on the outcome of a run; plus the helpers every user of a
// Transport shares (waiting, exchanging strings, agreeing on errors).
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Mesh.h"
#include "tessera/Runtime/Transport.h"

#include "RuntimeImpl.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <thread>

using namespace tessera::rt;
using namespace tessera::rt::detail;

TransportRequest::~TransportRequest() = default;
TransportChannel::~TransportChannel() = default;
Transport::~Transport() = default;

//===----------------------------------------------------------------------===//
// Waiting and exchanging
//===----------------------------------------------------------------------===//

WaitResult tessera::rt::waitFor(TransportRequest &request,
                                const std::function<bool()> &stop,
                                std::string &error) {
  // Tight at first (small messages complete in microseconds), then
  // yielding, then sleeping longer and longer, up to 1 ms.
  Clock::time_point start = Clock::now();
  int64_t sleepUs = 10;
  for (int64_t round = 0;; ++round) {
    switch (request.test(error)) {
    case TransportRequest::State::Done:
      return WaitResult::Done;
    case TransportRequest::State::Failed:
      return WaitResult::Failed;
    case TransportRequest::State::Pending:
      break;
    }
    if (stop && stop())
      return WaitResult::Stopped;
    if (round < 256)
      continue;
    double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (waited < 0.002) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(sleepUs));
    sleepUs = std::min<int64_t>(sleepUs * 2, 1000);
  }
}

/// Every process's `mine` on `channel`, by index. The buffers live on the
/// heap and are left to the transport if `stop` abandons the exchange.
static WaitResult exchangeOnChannel(TransportChannel &channel,
                                    const std::string &mine,
                                    std::vector<std::string> &all,
                                    const std::function<bool()> &stop,
                                    std::string &error) {
  int n = channel.getSize();
  auto *lengths = new int64_t[n + 1];
  lengths[n] = static_cast<int64_t>(mine.size());
  std::unique_ptr<TransportRequest> request =
      channel.allGather(&lengths[n], sizeof(int64_t), lengths);
  WaitResult result = waitFor(*request, stop, error);
  if (result != WaitResult::Done) {
    if (result == WaitResult::Stopped)
      (void)request.release();
    return result;
  }
  std::vector<int64_t> counts(n), displs(n);
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    counts[i] = lengths[i];
    displs[i] = total;
    total += lengths[i];
  }
  delete[] lengths;
  auto *text = new char[std::max<int64_t>(total, 1)];
  std::memcpy(text + displs[channel.getIndex()], mine.data(), mine.size());
  request = channel.allGatherInPlace(text, counts, displs);
  result = waitFor(*request, stop, error);
  if (result != WaitResult::Done) {
    if (result == WaitResult::Stopped)
      (void)request.release();
    return result;
  }
  all.clear();
  for (int i = 0; i < n; ++i)
    all.emplace_back(text + displs[i], counts[i]);
  delete[] text;
  return WaitResult::Done;
}

bool tessera::rt::exchangeStrings(Transport &transport, const std::string &mine,
                                  std::vector<std::string> &all,
                                  std::string &error) {
  return exchangeOnChannel(transport.getWorld(), mine, all, nullptr, error) ==
         WaitResult::Done;
}

bool tessera::rt::gatherStrings(Transport &transport, const std::string &mine,
                                int root, std::vector<std::string> &all,
                                std::string &error) {
  TransportChannel &world = transport.getWorld();
  int n = world.getSize();
  bool isRoot = world.getIndex() == root;
  std::vector<int64_t> lengths(n), ones(n, sizeof(int64_t)), offsets(n);
  for (int i = 0; i < n; ++i)
    offsets[i] = i * static_cast<int64_t>(sizeof(int64_t));
  int64_t length = static_cast<int64_t>(mine.size());
  std::unique_ptr<TransportRequest> request = world.gather(
      &length, sizeof(int64_t), lengths.data(), ones, offsets, root);
  if (waitFor(*request, nullptr, error) != WaitResult::Done)
    return false;
  std::vector<int64_t> displs(n);
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    displs[i] = total;
    total += isRoot ? lengths[i] : 0;
  }
  std::string text(static_cast<size_t>(total), '\0');
  request =
      world.gather(mine.data(), length, text.data(), lengths, displs, root);
  if (waitFor(*request, nullptr, error) != WaitResult::Done)
    return false;
  all.clear();
  if (isRoot)
    for (int i = 0; i < n; ++i)
      all.push_back(text.substr(displs[i], lengths[i]));
  return true;
}

std::string tessera::rt::agreeOnError(Transport &transport,
                                      const std::string &localError) {
  // An empty string is success; a failure is its message after a marker, so
  // that an empty message still counts as a failure.
  std::vector<std::string> all;
  std::string error;
  std::string mine = localError.empty() ? "" : "!" + localError;
  if (!exchangeStrings(transport, mine, all, error))
    return "rank " + std::to_string(transport.getRank()) +
           ": the processes could not agree on the outcome of a step: " +
           error + (localError.empty() ? "" : " (after: " + localError + ")");
  for (size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      return "rank " + std::to_string(r) + ": " + all[r].substr(1);
  return "";
}

//===----------------------------------------------------------------------===//
// ProcessGroup
//===----------------------------------------------------------------------===//

ProcessGroup::~ProcessGroup() {
  if (abandoned) {
    // The transport may still write to them.
    (void)channel.release();
    return;
  }
  for (auto &buffer : buffers)
    std::free(buffer.first);
}

uint8_t *ProcessGroup::getBuffer(size_t i, int64_t bytes) {
  if (buffers.size() <= i)
    buffers.resize(i + 1, {nullptr, 0});
  auto &buffer = buffers[i];
  if (buffer.second >= bytes && buffer.first)
    return buffer.first;
  std::free(buffer.first);
  buffer = {nullptr, 0};
  // Rounded up to whole cache lines (aligned_alloc wants a multiple).
  size_t size = (static_cast<size_t>(std::max<int64_t>(bytes, 1)) + 63) & ~63;
  auto *data = static_cast<uint8_t *>(std::aligned_alloc(64, size));
  if (!data)
    return nullptr;
  buffer = {data, static_cast<int64_t>(size)};
  return data;
}

//===----------------------------------------------------------------------===//
// Mesh: attaching and preparing
//===----------------------------------------------------------------------===//

bool Mesh::attachTransport(std::shared_ptr<Transport> transport,
                           int64_t devicesPerProcess, std::string &error) {
  if (!transport) {
    error = "no transport";
    return false;
  }
  if (impl->transport) {
    error = "the mesh is attached to a transport already";
    return false;
  }
  int64_t processes = transport->getNumProcesses();
  if (devicesPerProcess < 1 || processes * devicesPerProcess != numDevices()) {
    error = std::to_string(processes) +
            (processes == 1 ? " process" : " processes") + " of " +
            std::to_string(devicesPerProcess) +
            (devicesPerProcess == 1 ? " device" : " devices") + " do not run " +
            "the " + std::to_string(numDevices()) + " devices of the mesh";
    return false;
  }
  detail::MeshImpl &mesh = *impl;
  // Every process attaches its meshes in the same order, so the count names
  // a mesh alike everywhere (notices carry it).
  static std::atomic<int64_t> attached{0};
  mesh.attachNumber = ++attached;
  mesh.rank = transport->getRank();
  mesh.numProcesses = transport->getNumProcesses();
  mesh.devicesPerProcess = devicesPerProcess;
  mesh.localBegin = mesh.rank * devicesPerProcess;
  mesh.localEnd = mesh.localBegin + devicesPerProcess;
  mesh.transport = std::move(transport);
  return true;
}

Transport *Mesh::getTransport() const { return impl->transport.get(); }

int64_t Mesh::getFirstLocalDevice() const { return impl->localBegin; }

int64_t Mesh::getNumLocalDevices() const {
  return impl->localEnd - impl->localBegin;
}

bool Mesh::isLocalDevice(int64_t device) const { return impl->isLocal(device); }

int64_t Mesh::getProcessOf(int64_t device) const {
  if (device < 0 || device >= impl->numDevices)
    return -1;
  return impl->processOf(device);
}

bool Mesh::prepareGroups(const std::vector<GroupSpec> &specs,
                         std::string &error) {
  detail::MeshImpl &mesh = *impl;
  if (!mesh.transport)
    return true;
  // The member sets that span processes, in one order on every process.
  std::set<std::vector<int64_t>> sets;
  std::vector<AxisPart> parts;
  std::vector<int64_t> members;
  for (const GroupSpec &spec : specs) {
    if (spec.parts.size() % 3 != 0) {
      error = "a group's parts are not (axis, pre, size) triples";
      return false;
    }
    error = mesh.parseParts(spec.parts.data(),
                            static_cast<int32_t>(spec.parts.size() / 3), parts);
    if (!error.empty())
      return false;
    const int64_t *order = nullptr;
    if (!spec.deviceIds.empty()) {
      std::vector<int64_t> sorted = spec.deviceIds;
      std::sort(sorted.begin(), sorted.end());
      for (int64_t i = 0; i < mesh.numDevices; ++i) {
        if (static_cast<int64_t>(sorted.size()) != mesh.numDevices ||
            sorted[i] != i) {
          error = "a group's device order is not a permutation of the mesh's "
                  "devices";
          return false;
        }
      }
      order = spec.deviceIds.data();
    }
    for (int64_t d = 0; d < mesh.numDevices; ++d) {
      mesh.getGroup(d, parts, &members, order);
      std::sort(members.begin(), members.end());
      if (mesh.processOf(members.front()) != mesh.processOf(members.back()))
        sets.insert(members);
    }
  }
  for (const std::vector<int64_t> &set : sets) {
    if (!mesh.prepared.insert(set).second)
      continue;
    std::vector<int> processes;
    for (int64_t device : set)
      if (processes.empty() || processes.back() != mesh.processOf(device))
        processes.push_back(mesh.processOf(device));
    std::unique_ptr<TransportChannel> channel =
        mesh.transport->createChannel(processes, error);
    if (!error.empty())
      return false;
    if (channel)
      mesh.groups[set] = std::make_unique<ProcessGroup>(std::move(channel));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// MeshImpl: descriptions
//===----------------------------------------------------------------------===//

std::string MeshImpl::describeDevices(const std::vector<int64_t> &ids) const {
  std::string text = ids.size() == 1 ? "device " : "devices ";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(ids[i]);
    // With processes, each run of devices of one process ends with its rank.
    if (numProcesses > 1 &&
        (i + 1 == ids.size() || processOf(ids[i + 1]) != processOf(ids[i])))
      text += " (rank " + std::to_string(processOf(ids[i])) + ")";
  }
  return text;
}

//===----------------------------------------------------------------------===//
// MeshImpl: notices
//===----------------------------------------------------------------------===//

// Notices: `F <mesh> <run> <message>` (this process failed first) and `D
// <mesh> <run> <set>:<calls>;...` (every device of this process finished;
// the calls they made on each member set that spans processes, the set as
// comma-separated device ids). <mesh> is the mesh's attach number, <run>
// its run number: notices of another mesh or run are stale.

std::string MeshImpl::getNoticeKey() const {
  return std::to_string(attachNumber) + " " + std::to_string(runNumber);
}

void MeshImpl::beginProcessRun() {
  ++runNumber;
  finishedCalls.clear();
  failureAnnounced = false;
  failureFromElsewhere = false;
  waitingAtFailure.clear();
}

/// "0,4".
static std::string formatSet(const std::vector<int64_t> &set) {
  std::string text;
  for (size_t i = 0; i < set.size(); ++i)
    text += (i ? "," : "") + std::to_string(set[i]);
  return text;
}

/// Parses the calls of a `D` notice; false if malformed.
static bool parseFinished(const std::string &text,
                          std::map<std::vector<int64_t>, int64_t> &calls) {
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    if (item.empty())
      continue;
    size_t colon = item.find(':');
    if (colon == std::string::npos)
      return false;
    std::vector<int64_t> set;
    std::istringstream ids(item.substr(0, colon));
    std::string id;
    while (std::getline(ids, id, ','))
      set.push_back(std::strtoll(id.c_str(), nullptr, 10));
    calls[set] = std::strtoll(item.c_str() + colon + 1, nullptr, 10);
  }
  return true;
}

void MeshImpl::serviceProcesses(std::unique_lock<std::mutex> &lock) {
  if (failed.load(std::memory_order_relaxed) && !failureFromElsewhere &&
      !failureAnnounced) {
    failureAnnounced = true;
    std::string notice = "F " + getNoticeKey() + " " + firstError;
    lock.unlock();
    for (int p = 0; p < numProcesses; ++p)
      if (p != rank)
        transport->sendNotice(p, notice);
    lock.lock();
  }
  std::vector<std::pair<int, std::string>> notices;
  lock.unlock();
  int from;
  std::string text;
  while (transport->receiveNotice(from, text))
    notices.emplace_back(from, std::move(text));
  lock.lock();
  std::string key = getNoticeKey();
  for (auto &[process, notice] : notices) {
    if (notice.size() < key.size() + 3 || notice[1] != ' ' ||
        notice.compare(2, key.size(), key) != 0 ||
        notice[2 + key.size()] != ' ')
      continue;
    std::string rest = notice.substr(key.size() + 3);
    if (notice[0] == 'F') {
      failLocked(rest, /*elsewhere=*/true);
    } else if (notice[0] == 'D') {
      if (!parseFinished(rest, finishedCalls[process]))
        continue;
      for (const auto &entry : pending)
        checkFinishedProcesses(*entry.second);
    }
  }
}

void MeshImpl::announceFinished() {
  // The calls of this process's devices on every member set that spans
  // processes (each device counts its own; they agree when the run
  // succeeded).
  std::map<std::vector<int64_t>, int64_t> calls;
  for (int64_t d = localBegin; d < localEnd; ++d) {
    for (const auto &[set, count] : devices[d].callCounters) {
      if (processOf(set.front()) == processOf(set.back()))
        continue;
      auto [it, inserted] = calls.try_emplace(set, count);
      if (!inserted)
        it->second = std::min(it->second, count);
    }
  }
  std::string notice = "D " + getNoticeKey() + " ";
  for (const auto &[set, count] : calls)
    notice += formatSet(set) + ":" + std::to_string(count) + ";";
  for (int p = 0; p < numProcesses; ++p)
    if (p != rank)
      transport->sendNotice(p, notice);
}

void MeshImpl::checkFinishedProcesses(const Rendezvous &r) {
  if (!r.crossProcess || failed.load(std::memory_order_relaxed) ||
      finishedCalls.empty())
    return;
  std::vector<int64_t> gone;
  for (int64_t member : r.memberSet) {
    auto it = finishedCalls.find(processOf(member));
    if (it == finishedCalls.end())
      continue;
    auto calls = it->second.find(r.memberSet);
    int64_t made = calls == it->second.end() ? 0 : calls->second;
    if (made <= r.counter)
      gone.push_back(member);
  }
  if (gone.empty())
    return;
  std::vector<int64_t> arrived;
  const char *site = "a collective";
  for (size_t i = 0; i < r.members.size(); ++i) {
    if (!r.slots[i].arrived)
      continue;
    if (arrived.empty() || r.members[i] < arrived.front())
      site = r.slots[i].site;
    arrived.push_back(r.members[i]);
  }
  std::sort(arrived.begin(), arrived.end());
  failLocked(describeDevices(gone) + " finished without reaching " + site +
             " that " + describeDevices(arrived) +
             (arrived.size() == 1 ? " is" : " are") + " waiting in");
}

bool MeshImpl::agreeOnRun(bool ok, std::string &error) {
  // `O` (this process failed first) or `E` (it learned of another's
  // failure), the error and what was waiting when it failed.
  const char kSeparator = '\x1f';
  std::string mine;
  if (!ok)
    mine = std::string(failureFromElsewhere ? "E" : "O") + kSeparator + error +
           kSeparator + waitingAtFailure;
  std::vector<std::string> all;
  std::string exchangeError;
  if (!exchangeStrings(*transport, mine, all, exchangeError)) {
    error = "rank " + std::to_string(rank) +
            ": the processes could not agree on the outcome of the run: " +
            exchangeError + (ok ? "" : " (after: " + error + ")");
    return false;
  }
  int first = -1;
  for (char kind : {'O', 'E'}) {
    for (size_t r = 0; r < all.size() && first < 0; ++r)
      if (!all[r].empty() && all[r][0] == kind)
        first = static_cast<int>(r);
    if (first >= 0)
      break;
  }
  if (first < 0)
    return true;
  auto field = [&](size_t r, int index) {
    size_t begin = 0;
    for (int i = 0; i < index; ++i)
      begin = all[r].find(kSeparator, begin) + 1;
    size_t end = all[r].find(kSeparator, begin);
    return all[r].substr(begin, end == std::string::npos ? end : end - begin);
  };
  std::string message = field(first, 1);
  error = "rank " + std::to_string(first) + ": " + message;
  // A timeout names what every process was waiting in.
  if (message.rfind("watchdog:", 0) == 0)
    for (size_t r = 0; r < all.size(); ++r)
      if (static_cast<int>(r) != first && !all[r].empty() &&
          !field(r, 2).empty())
        error += "; rank " + std::to_string(r) + ": " + field(r, 2);
  return false;
}

//===----------------------------------------------------------------------===//
// MeshImpl: meeting across processes
//===----------------------------------------------------------------------===//

/// FNV-1a over what the members of a call must agree on.
static uint64_t hashSignature(const Signature &sig) {
  uint64_t hash = 1469598103934665603ull;
  auto add = [&](int64_t value) {
    for (int i = 0; i < 8; ++i) {
      hash ^= static_cast<uint64_t>(value >> (8 * i)) & 0xff;
      hash *= 1099511628211ull;
    }
  };
  add(static_cast<int64_t>(sig.op));
  add(sig.dtype);
  add(sig.kind);
  add(static_cast<int64_t>(sig.shape.size()));
  for (int64_t dim : sig.shape)
    add(dim);
  add(sig.dim0);
  add(sig.dim1);
  add(sig.count);
  add(static_cast<int64_t>(sig.parts.size()));
  for (const AxisPart &part : sig.parts) {
    add(part.axis);
    add(part.pre);
    add(part.size);
  }
  add(static_cast<int64_t>(sig.pairs.size()));
  for (const auto &pair : sig.pairs) {
    add(pair.first);
    add(pair.second);
  }
  return hash;
}

namespace {
/// What each process of a group says of its call.
struct SignatureRecord {
  uint64_t hash;
  int64_t counter;
  int64_t device;
  int64_t padding;
};
} // namespace

bool MeshImpl::exchangeSignatures(Rendezvous &r, int64_t device,
                                  const Signature &sig, const char *site) {
  // The groups are only added between runs: reading the map is safe.
  auto found = groups.find(r.memberSet);
  if (found == groups.end()) {
    fail(describeDevices({device}) + " called " + site + " over " +
         describeDevices(r.memberSet) +
         ", a group that spans processes and that no channel was prepared "
         "for (Mesh::prepareGroups)");
    return false;
  }
  ProcessGroup &group = *found->second;
  TransportChannel &channel = *group.channel;
  int n = channel.getSize();
  auto stop = [this] { return hasFailed(); };
  // Heap buffers: an abandoned exchange leaves them to the transport.
  auto *records = new SignatureRecord[n + 1];
  records[n] = SignatureRecord{hashSignature(sig), r.counter, device, 0};
  std::string error;
  std::unique_ptr<TransportRequest> request =
      channel.allGather(&records[n], sizeof(SignatureRecord), records);
  WaitResult result = waitFor(*request, stop, error);
  if (result != WaitResult::Done) {
    group.abandoned = true;
    (void)request.release();
    if (result == WaitResult::Failed)
      fail(describeDevices({device}) + ": the transport failed in " + site +
           ": " + error);
    return false;
  }
  int differs = -1;
  for (int i = 1; i < n && differs < 0; ++i)
    if (records[i].hash != records[0].hash ||
        records[i].counter != records[0].counter)
      differs = i;
  delete[] records;
  if (differs >= 0) {
    // Every process sees the same records and describes the same pair.
    std::vector<std::string> calls;
    std::string mine =
        describeDevices({device}) + " called " + site + " " + describe(sig);
    // Every member saw the same records and makes this exchange, so it
    // completes: another member's report of the same divergence (which
    // stops this process) cuts it short only after a grace period, or the
    // rank whose report wins would depend on timing.
    Clock::time_point began = Clock::now();
    auto stopAfterGrace = [&] {
      return stop() && Clock::now() - began > std::chrono::seconds(2);
    };
    result = exchangeOnChannel(channel, mine, calls, stopAfterGrace, error);
    if (result != WaitResult::Done) {
      group.abandoned = true;
      if (result == WaitResult::Failed)
        fail(describeDevices({device}) + ": the transport failed in " + site +
             ": " + error);
      return false;
    }
    fail("devices diverged: " + calls[0] + " but " + calls[differs]);
    return false;
  }
  CrossPlan &plan = r.plan;
  plan.group = &group;
  plan.processes = channel.getProcesses();
  plan.me = channel.getIndex();
  plan.ranksOf.assign(n, {});
  plan.processOf.assign(r.members.size(), 0);
  for (size_t m = 0; m < r.members.size(); ++m) {
    int process = processOf(r.members[m]);
    int index =
        static_cast<int>(std::lower_bound(plan.processes.begin(),
                                          plan.processes.end(), process) -
                         plan.processes.begin());
    plan.processOf[m] = index;
    plan.ranksOf[index].push_back(static_cast<int64_t>(m));
  }
  return planCrossCall(r, sig, device, site);
}
