//===- MpiTestMain.cpp - main of the runtime's MPI tests --------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// TesseraRuntimeMpiTest runs under mpirun (test/Integration/Mpi): every
// process runs every test (their meshes are spread over the processes),
// rank 0 prints the progress and every rank its failures. The binary
// succeeds only if every process's tests passed.
//
//===----------------------------------------------------------------------===//

#include "../RuntimeTestUtils.h"

#include "tessera/Runtime/Mpi.h"

#include <cstdio>

int main(int argc, char **argv) {
  std::string error;
  std::shared_ptr<tessera::rt::Transport> transport =
      tessera::rt::getMpiTransport(error);
  if (!transport) {
    std::fprintf(stderr, "TesseraRuntimeMpiTest: %s\n", error.c_str());
    return 1;
  }
  // Set before the printers are made.
  if (transport->getRank() != 0)
    GTEST_FLAG_SET(brief, true);
  ::testing::InitGoogleTest(&argc, argv);
  tessera::rt::test::getTestTransport() = transport;
  int result = RUN_ALL_TESTS();
  std::string failed =
      tessera::rt::agreeOnError(*transport, result ? "tests failed" : "");
  if (transport->getRank() == 0)
    std::printf("TesseraRuntimeMpiTest: %d processes: %s\n",
                transport->getNumProcesses(),
                failed.empty() ? "every process passed" : failed.c_str());
  tessera::rt::test::getTestTransport().reset();
  transport.reset();
  tessera::rt::finalizeMpi(/*clean=*/true);
  return failed.empty() ? 0 : 1;
}
