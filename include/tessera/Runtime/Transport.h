//===- Transport.h - how the processes of a distributed mesh talk -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A mesh spread over several processes (Mesh::attachTransport) moves the
// data of collectives whose groups span processes, spreads failures and
// agrees on the outcome of a run through a Transport: non-blocking
// collective operations on channels (one per group of processes) and short
// notices between processes. The runtime's own implementation uses MPI
// (tessera/Runtime/Mpi.h, library TesseraRuntimeMpi); this interface keeps
// the runtime itself free of MPI.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_TRANSPORT_H
#define TESSERA_RUNTIME_TRANSPORT_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tessera::rt {

/// A non-blocking operation of a channel.
class TransportRequest {
public:
  enum class State { Pending, Done, Failed };
  virtual ~TransportRequest();
  /// Advances the operation and says whether it is done. On Failed,
  /// `error` says why.
  virtual State test(std::string &error) = 0;
};

/// A communicator over a fixed set of processes. Operations on one channel
/// are collective over its processes: each issues the same operations in the
/// same order, from one thread at a time. Byte counts and displacements are
/// per process index; buffers must stay alive until the request is done (an
/// abandoned request's buffers must never be freed).
class TransportChannel {
public:
  virtual ~TransportChannel();
  /// The processes (transport ranks, ascending).
  const std::vector<int> &getProcesses() const { return processes; }
  /// This process's index in getProcesses().
  int getIndex() const { return index; }
  int getSize() const { return static_cast<int>(processes.size()); }

  /// Every process's `bytes` bytes at `send`, concatenated by index in
  /// `recv` (size() * bytes bytes).
  virtual std::unique_ptr<TransportRequest>
  allGather(const void *send, int64_t bytes, void *recv) = 0;
  /// In place: process i's `counts[i]` bytes are at `buffer + displs[i]` on
  /// process i; afterwards on every process.
  virtual std::unique_ptr<TransportRequest>
  allGatherInPlace(void *buffer, const std::vector<int64_t> &counts,
                   const std::vector<int64_t> &displs) = 0;
  /// Process i sends `sendCounts[j]` bytes at `send + sendDispls[j]` to
  /// process j, which receives them at `recv + recvDispls[i]`.
  virtual std::unique_ptr<TransportRequest>
  allToAll(const void *send, const std::vector<int64_t> &sendCounts,
           const std::vector<int64_t> &sendDispls, void *recv,
           const std::vector<int64_t> &recvCounts,
           const std::vector<int64_t> &recvDispls) = 0;
  /// Process i's `bytes` bytes at `send` go to `recv + displs[i]` on the
  /// process of index `root` (`counts`, `displs` and `recv` matter only
  /// there).
  virtual std::unique_ptr<TransportRequest>
  gather(const void *send, int64_t bytes, void *recv,
         const std::vector<int64_t> &counts, const std::vector<int64_t> &displs,
         int root) = 0;

protected:
  TransportChannel(std::vector<int> processes, int index)
      : processes(std::move(processes)), index(index) {}

private:
  std::vector<int> processes;
  int index;
};

/// The processes of a distributed run and the means to reach them.
class Transport {
public:
  virtual ~Transport();
  /// This process's rank and the number of processes.
  virtual int getRank() const = 0;
  virtual int getNumProcesses() const = 0;
  /// A channel over `processes` (ascending ranks, at least two). Collective
  /// over every process of the transport: all call it for the same sets in
  /// the same order. Returns null on a process that is not in the set (and
  /// when it fails, with `error` set).
  virtual std::unique_ptr<TransportChannel>
  createChannel(const std::vector<int> &processes, std::string &error) = 0;
  /// The channel over every process, for the host's exchanges (never used
  /// by device threads).
  virtual TransportChannel &getWorld() = 0;
  /// Sends a short notice to `process` without waiting for it to arrive.
  virtual void sendNotice(int process, const std::string &message) = 0;
  /// Takes a notice that arrived, if any: returns true with its sender and
  /// text.
  virtual bool receiveNotice(int &process, std::string &message) = 0;
};

/// How waitFor ended.
enum class WaitResult { Done, Stopped, Failed };

/// Waits for `request`: tests it in a tight loop at first, then with
/// yields, then sleeping up to a millisecond between tests, so that a
/// process waiting for slower ones leaves the processors to them. Returns
/// Stopped (the request still pending: abandoned) as soon as `stop` returns
/// true, Failed with `error` set if the request failed.
WaitResult waitFor(TransportRequest &request, const std::function<bool()> &stop,
                   std::string &error);

/// Every process's `mine`, by rank, in `all` (collective over every process
/// of `transport`, from the host). Returns false with `error` set if the
/// exchange fails.
bool exchangeStrings(Transport &transport, const std::string &mine,
                     std::vector<std::string> &all, std::string &error);

/// Sends every process's `mine` to `root`, where `all` receives them by
/// rank (elsewhere `all` is left empty). Collective over every process.
bool gatherStrings(Transport &transport, const std::string &mine, int root,
                   std::vector<std::string> &all, std::string &error);

/// Agrees on the outcome of a step that every process ran: `localError` is
/// this process's error ("" for success). Returns "" on every process if
/// every process succeeded, else the same message everywhere: the error of
/// the lowest failed rank, as `rank R: <error>`. A failed exchange is
/// reported as this process's own error.
std::string agreeOnError(Transport &transport, const std::string &localError);

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_TRANSPORT_H
