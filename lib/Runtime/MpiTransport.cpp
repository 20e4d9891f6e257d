//===- MpiTransport.cpp - the Transport over MPI ----------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Channels are communicators: the world channel a duplicate of
// MPI_COMM_WORLD, one per group of devices spanning processes made with
// MPI_Comm_split (collective over the world, once per group), their
// operations MPI's non-blocking collectives. Notices are small messages on a
// communicator of their own. Every communicator returns errors instead of
// aborting. Byte counts are sent in units of a contiguous datatype (the
// largest power of two up to 4 KiB that divides every count and
// displacement), so that messages beyond 2 GiB fit MPI's int counts.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Mpi.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

using namespace tessera::rt;

/// The tag of notices.
static constexpr int kNoticeTag = 17;

/// MPI's message for `code`.
static std::string getMpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, length);
}

namespace {

/// A request that failed when it was issued.
class FailedRequest final : public TransportRequest {
public:
  explicit FailedRequest(std::string message) : message(std::move(message)) {}
  State test(std::string &error) override {
    error = message;
    return State::Failed;
  }

private:
  std::string message;
};

/// An MPI request.
class MpiRequest final : public TransportRequest {
public:
  MpiRequest(MPI_Request request, std::vector<int> arrays)
      : request(request), arrays(std::move(arrays)) {}
  State test(std::string &error) override {
    if (done)
      return State::Done;
    int flag = 0;
    int code = MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) {
      error = getMpiError(code);
      return State::Failed;
    }
    done = flag != 0;
    return done ? State::Done : State::Pending;
  }

private:
  MPI_Request request;
  /// The counts and displacements MPI reads until the request completes.
  std::vector<int> arrays;
  bool done = false;
};

/// Contiguous datatypes of power-of-two sizes, made once. (MPI matches
/// messages by their sequence of basic types, bytes here, so the sender's
/// and the receiver's units may differ.)
class Units {
public:
  MPI_Datatype get(int64_t bytes) {
    std::lock_guard<std::mutex> guard(mutex);
    auto [it, inserted] = types.try_emplace(bytes, MPI_BYTE);
    if (inserted && bytes > 1) {
      MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &it->second);
      MPI_Type_commit(&it->second);
    }
    return it->second;
  }

private:
  std::mutex mutex;
  std::map<int64_t, MPI_Datatype> types;
};

Units &getUnits() {
  static Units *units = new Units();
  return *units;
}

/// The unit (a power of two up to 4 KiB) that divides every value, and the
/// values in it as ints; false if one does not fit an int.
bool toUnits(std::initializer_list<const std::vector<int64_t> *> lists,
             int64_t &unit, std::vector<std::vector<int>> &out) {
  unit = 4096;
  for (const std::vector<int64_t> *list : lists)
    for (int64_t value : *list)
      while (unit > 1 && value % unit != 0)
        unit /= 2;
  out.clear();
  for (const std::vector<int64_t> *list : lists) {
    out.emplace_back();
    for (int64_t value : *list) {
      if (value / unit > INT_MAX)
        return false;
      out.back().push_back(static_cast<int>(value / unit));
    }
  }
  return true;
}

std::unique_ptr<TransportRequest> tooLarge() {
  return std::make_unique<FailedRequest>(
      "a message is too large for MPI (more than 2^31 - 1 units)");
}

std::unique_ptr<TransportRequest> issued(int code, MPI_Request request,
                                         std::vector<int> arrays = {}) {
  if (code != MPI_SUCCESS)
    return std::make_unique<FailedRequest>(getMpiError(code));
  return std::make_unique<MpiRequest>(request, std::move(arrays));
}

/// Moves `lists` (vectors of ints) into one array that outlives the call.
std::vector<int> concat(std::vector<std::vector<int>> &lists) {
  std::vector<int> all;
  for (const std::vector<int> &list : lists)
    all.insert(all.end(), list.begin(), list.end());
  return all;
}

/// A communicator.
class MpiChannel final : public TransportChannel {
public:
  MpiChannel(MPI_Comm comm, std::vector<int> processes, int index)
      : TransportChannel(std::move(processes), index), comm(comm) {}
  ~MpiChannel() override { MPI_Comm_free(&comm); }

  std::unique_ptr<TransportRequest> allGather(const void *send, int64_t bytes,
                                              void *recv) override {
    std::vector<std::vector<int>> units;
    int64_t unit;
    std::vector<int64_t> counts{bytes};
    if (!toUnits({&counts}, unit, units))
      return tooLarge();
    MPI_Datatype type = getUnits().get(unit);
    MPI_Request request;
    int code = MPI_Iallgather(send, units[0][0], type, recv, units[0][0], type,
                              comm, &request);
    return issued(code, request);
  }

  std::unique_ptr<TransportRequest>
  allGatherInPlace(void *buffer, const std::vector<int64_t> &counts,
                   const std::vector<int64_t> &displs) override {
    std::vector<std::vector<int>> units;
    int64_t unit;
    if (!toUnits({&counts, &displs}, unit, units))
      return tooLarge();
    std::vector<int> arrays = concat(units);
    int n = getSize();
    MPI_Request request;
    int code = MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer,
                               arrays.data(), arrays.data() + n,
                               getUnits().get(unit), comm, &request);
    return issued(code, request, std::move(arrays));
  }

  std::unique_ptr<TransportRequest>
  allToAll(const void *send, const std::vector<int64_t> &sendCounts,
           const std::vector<int64_t> &sendDispls, void *recv,
           const std::vector<int64_t> &recvCounts,
           const std::vector<int64_t> &recvDispls) override {
    std::vector<std::vector<int>> units;
    int64_t unit;
    if (!toUnits({&sendCounts, &sendDispls, &recvCounts, &recvDispls}, unit,
                 units))
      return tooLarge();
    std::vector<int> arrays = concat(units);
    int n = getSize();
    MPI_Datatype type = getUnits().get(unit);
    MPI_Request request;
    int code = MPI_Ialltoallv(send, arrays.data(), arrays.data() + n, type,
                              recv, arrays.data() + 2 * n,
                              arrays.data() + 3 * n, type, comm, &request);
    return issued(code, request, std::move(arrays));
  }

  std::unique_ptr<TransportRequest> gather(const void *send, int64_t bytes,
                                           void *recv,
                                           const std::vector<int64_t> &counts,
                                           const std::vector<int64_t> &displs,
                                           int root) override {
    // The processes' units may differ: only the bytes must match.
    std::vector<int64_t> mine{bytes};
    std::vector<int64_t> rootCounts = counts, rootDispls = displs;
    if (getIndex() != root) {
      rootCounts.assign(getSize(), 0);
      rootDispls.assign(getSize(), 0);
    }
    std::vector<std::vector<int>> units;
    int64_t unit;
    if (!toUnits({&mine, &rootCounts, &rootDispls}, unit, units))
      return tooLarge();
    int sendCount = units[0][0];
    units.erase(units.begin());
    std::vector<int> arrays = concat(units);
    int n = getSize();
    MPI_Datatype type = getUnits().get(unit);
    MPI_Request request;
    int code = MPI_Igatherv(send, sendCount, type, recv, arrays.data(),
                            arrays.data() + n, type, root, comm, &request);
    return issued(code, request, std::move(arrays));
  }

private:
  MPI_Comm comm;
};

/// The process's MPI transport.
class MpiTransport final : public Transport {
public:
  MpiTransport(MPI_Comm world, MPI_Comm notices, int rank, int size)
      : notices(notices), rank(rank), size(size) {
    std::vector<int> all(size);
    for (int i = 0; i < size; ++i)
      all[i] = i;
    worldChannel = std::make_unique<MpiChannel>(world, all, rank);
  }

  int getRank() const override { return rank; }
  int getNumProcesses() const override { return size; }

  std::unique_ptr<TransportChannel>
  createChannel(const std::vector<int> &processes,
                std::string &error) override {
    bool member = std::binary_search(processes.begin(), processes.end(), rank);
    MPI_Comm comm = MPI_COMM_NULL;
    // Collective over every process of the parent.
    int code =
        MPI_Comm_split(splitParent, member ? 0 : MPI_UNDEFINED, rank, &comm);
    if (code != MPI_SUCCESS) {
      error = "cannot create a communicator for ranks " + describe(processes) +
              ": " + getMpiError(code);
      return nullptr;
    }
    if (!member)
      return nullptr;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int index = static_cast<int>(
        std::lower_bound(processes.begin(), processes.end(), rank) -
        processes.begin());
    return std::make_unique<MpiChannel>(comm, processes, index);
  }

  TransportChannel &getWorld() override { return *worldChannel; }

  void sendNotice(int process, const std::string &message) override {
    std::lock_guard<std::mutex> guard(mutex);
    reapSends();
    auto text = std::make_unique<std::string>(message);
    MPI_Request request;
    if (MPI_Isend(text->data(), static_cast<int>(text->size()), MPI_BYTE,
                  process, kNoticeTag, notices, &request) == MPI_SUCCESS)
      sends.emplace_back(request, std::move(text));
  }

  bool receiveNotice(int &process, std::string &message) override {
    std::lock_guard<std::mutex> guard(mutex);
    reapSends();
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kNoticeTag, notices, &flag, &status) !=
            MPI_SUCCESS ||
        !flag)
      return false;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    message.assign(static_cast<size_t>(std::max(count, 0)), '\0');
    MPI_Recv(message.data(), count, MPI_BYTE, status.MPI_SOURCE, kNoticeTag,
             notices, MPI_STATUS_IGNORE);
    process = status.MPI_SOURCE;
    return true;
  }

  /// Lets go of the notices still in flight (MPI delivers them).
  void releaseSends() {
    std::lock_guard<std::mutex> guard(mutex);
    for (auto &send : sends)
      MPI_Request_free(&send.first);
    // Their buffers stay alive until the process ends.
    for (auto &send : sends)
      (void)send.second.release();
    sends.clear();
  }

  /// The parent communicator of the channels' splits.
  void setSplitParent(MPI_Comm comm) { splitParent = comm; }

private:
  static std::string describe(const std::vector<int> &processes) {
    std::string text;
    for (size_t i = 0; i < processes.size(); ++i)
      text += (i ? ", " : "") + std::to_string(processes[i]);
    return text;
  }

  /// Frees the notices whose sends completed.
  void reapSends() {
    for (size_t i = 0; i < sends.size();) {
      int flag = 0;
      MPI_Test(&sends[i].first, &flag, MPI_STATUS_IGNORE);
      if (flag) {
        sends.erase(sends.begin() + i);
        continue;
      }
      ++i;
    }
  }

  MPI_Comm splitParent = MPI_COMM_NULL;
  MPI_Comm notices;
  int rank, size;
  std::unique_ptr<MpiChannel> worldChannel;
  std::mutex mutex;
  std::vector<std::pair<MPI_Request, std::unique_ptr<std::string>>> sends;
};

/// The process's transport and whether MPI is active.
struct MpiState {
  std::mutex mutex;
  std::shared_ptr<MpiTransport> transport;
  bool finalized = false;
};

MpiState &getState() {
  static MpiState *state = new MpiState();
  return *state;
}

} // namespace

std::shared_ptr<Transport> tessera::rt::getMpiTransport(std::string &error) {
  MpiState &state = getState();
  std::lock_guard<std::mutex> guard(state.mutex);
  if (state.transport)
    return state.transport;
  if (state.finalized) {
    error = "MPI was finalized already";
    return nullptr;
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    int code =
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (code != MPI_SUCCESS) {
      error = "cannot initialize MPI: " + getMpiError(code);
      return nullptr;
    }
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    error = "the MPI library does not support MPI_THREAD_MULTIPLE (devices "
            "of one process call it from several threads)";
    return nullptr;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm world, notices;
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  MPI_Comm_dup(MPI_COMM_WORLD, &notices);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(notices, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  // The world channel owns `world`; splits use a communicator of their own
  // so that they never interleave with the world channel's operations.
  MPI_Comm splits;
  MPI_Comm_dup(MPI_COMM_WORLD, &splits);
  MPI_Comm_set_errhandler(splits, MPI_ERRORS_RETURN);
  state.transport = std::make_shared<MpiTransport>(world, notices, rank, size);
  state.transport->setSplitParent(splits);
  return state.transport;
}

bool tessera::rt::isMpiActive() {
  MpiState &state = getState();
  std::lock_guard<std::mutex> guard(state.mutex);
  return state.transport && !state.finalized;
}

bool tessera::rt::finalizeMpi(bool clean) {
  MpiState &state = getState();
  std::lock_guard<std::mutex> guard(state.mutex);
  if (!state.transport || state.finalized)
    return true;
  state.finalized = true;
  state.transport->releaseSends();
  // Every process reaches this point before any ends (a barrier that gives
  // up after a few seconds: a process may be stuck).
  MPI_Request request;
  bool arrived = false;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &request) == MPI_SUCCESS) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int flag = 0;
    while (!flag && std::chrono::steady_clock::now() < deadline) {
      MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
      if (!flag)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    arrived = flag != 0;
  }
  if (clean && arrived)
    MPI_Finalize();
  return arrived;
}
