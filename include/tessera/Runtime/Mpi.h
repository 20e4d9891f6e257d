//===- Mpi.h - the MPI transport of a distributed mesh ----------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The Transport of tessera/Runtime/Transport.h over MPI (library
// TesseraRuntimeMpi, which links the MPI library; Debian's OpenMPI). One per
// process: getMpiTransport initializes MPI with MPI_THREAD_MULTIPLE (device
// threads of different groups issue their collectives at once) on first
// use, and finalizeMpi ends it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_MPI_H
#define TESSERA_RUNTIME_MPI_H

#include "tessera/Runtime/Transport.h"

#include <memory>
#include <string>

namespace tessera::rt {

/// The process's MPI transport: initializes MPI on the first call (with
/// MPI_THREAD_MULTIPLE; a library that cannot provide it is an error).
/// Returns null with `error` set if MPI cannot be initialized or was
/// finalized already.
std::shared_ptr<Transport> getMpiTransport(std::string &error);

/// Whether getMpiTransport initialized MPI (and finalizeMpi has not ended
/// it).
bool isMpiActive();

/// Ends MPI in this process (a no-op if it is not active). With `clean`
/// every process calls MPI_Finalize after a last synchronization; without
/// (requests of a failed run may still be pending) it only waits, for at
/// most a few seconds, until every process reached this point, so that no
/// process ends before the others have printed their messages, and leaves
/// MPI as it is: the process must then end with _Exit. Returns false if the
/// processes did not all arrive in time.
bool finalizeMpi(bool clean);

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_MPI_H
