//===- RuntimeTestUtils.h - helpers of the runtime tests --------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Meshes for the tests and a reference model of groups computed by brute
// force from the definition (devices are in one group when their coordinates
// agree outside the listed parts; the rank linearizes the listed parts'
// components), independently of the runtime's own group code.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_UNITTESTS_RUNTIME_RUNTIMETESTUTILS_H
#define TESSERA_UNITTESTS_RUNTIME_RUNTIMETESTUTILS_H

#include "tessera/Runtime/Mesh.h"
#include "tessera/Runtime/Runtime.h"
#include "tessera/Runtime/Transport.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace tessera::rt::test {

/// One (axis, pre, size) part.
struct Part {
  int64_t axis, pre, size;
};

/// Creates a mesh or fails the test.
inline std::unique_ptr<Mesh> makeMesh(std::vector<std::string> names,
                                      std::vector<int64_t> sizes,
                                      std::vector<int64_t> ids = {}) {
  std::string error;
  std::unique_ptr<Mesh> mesh = Mesh::create(
      MeshSpec{std::move(names), std::move(sizes), std::move(ids)}, error);
  EXPECT_TRUE(mesh) << error;
  return mesh;
}

/// The transport that tests attach their meshes to: set by the MPI test
/// binary's main, null in the others (every device in one process).
inline std::shared_ptr<Transport> &getTestTransport() {
  static std::shared_ptr<Transport> transport;
  return transport;
}

/// Spreads `mesh` over the processes of the test transport (if any) and
/// prepares `groups`. Returns false if the processes do not split the mesh
/// evenly (the test should be skipped: every process decides alike).
inline bool attachTestTransport(Mesh &mesh,
                                const std::vector<GroupSpec> &groups) {
  std::shared_ptr<Transport> transport = getTestTransport();
  if (!transport)
    return true;
  int64_t processes = transport->getNumProcesses();
  if (mesh.numDevices() % processes != 0)
    return false;
  std::string error;
  EXPECT_TRUE(
      mesh.attachTransport(transport, mesh.numDevices() / processes, error))
      << error;
  EXPECT_TRUE(mesh.prepareGroups(groups, error)) << error;
  return true;
}

/// The devices this process runs.
inline std::vector<int64_t> getLocalDevices(const Mesh &mesh) {
  std::vector<int64_t> devices;
  for (int64_t i = 0; i < mesh.getNumLocalDevices(); ++i)
    devices.push_back(mesh.getFirstLocalDevice() + i);
  return devices;
}

/// The flat (axis, pre, size) triples of the C ABI.
inline std::vector<int64_t> flatten(const std::vector<Part> &parts) {
  std::vector<int64_t> flat;
  for (const Part &p : parts) {
    flat.push_back(p.axis);
    flat.push_back(p.pre);
    flat.push_back(p.size);
  }
  return flat;
}

/// Groups of a mesh, by brute force.
struct RefGroups {
  /// The rank of each device.
  std::vector<int64_t> rank;
  /// The members (by rank) of each device's group.
  std::vector<std::vector<int64_t>> members;
  int64_t groupSize = 1;
};

inline RefGroups computeGroups(const std::vector<int64_t> &sizes,
                               std::vector<int64_t> ids,
                               const std::vector<Part> &parts) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  if (ids.empty())
    for (int64_t i = 0; i < n; ++i)
      ids.push_back(i);
  // Coordinates of each device id.
  std::vector<std::vector<int64_t>> coords(n);
  for (int64_t p = 0; p < n; ++p) {
    std::vector<int64_t> c(sizes.size());
    int64_t rest = p;
    for (size_t a = sizes.size(); a-- > 0;) {
      c[a] = rest % sizes[a];
      rest /= sizes[a];
    }
    coords[ids[p]] = c;
  }
  RefGroups groups;
  for (const Part &p : parts)
    groups.groupSize *= p.size;
  // A device's key: per axis, its coordinate with the listed components
  // removed; its rank: the listed components, first part most major.
  std::vector<std::vector<int64_t>> keys(n);
  groups.rank.resize(n);
  for (int64_t d = 0; d < n; ++d) {
    std::vector<int64_t> key = coords[d];
    int64_t rank = 0;
    for (const Part &p : parts) {
      int64_t component = (coords[d][p.axis] / p.pre) % p.size;
      key[p.axis] -= component * p.pre;
      rank = rank * p.size + component;
    }
    keys[d] = key;
    groups.rank[d] = rank;
  }
  groups.members.resize(n);
  for (int64_t d = 0; d < n; ++d) {
    std::vector<int64_t> &members = groups.members[d];
    members.assign(groups.groupSize, -1);
    for (int64_t e = 0; e < n; ++e)
      if (keys[e] == keys[d])
        members[groups.rank[e]] = e;
  }
  return groups;
}

/// Runs `fn` on every device and expects success.
inline void runOk(Mesh &mesh, const std::function<void(int64_t)> &fn) {
  std::string error;
  EXPECT_TRUE(mesh.run(fn, error)) << error;
}

/// Runs `fn` on every device, expects failure and returns the error.
inline std::string runFail(Mesh &mesh, const std::function<void(int64_t)> &fn) {
  std::string error;
  EXPECT_FALSE(mesh.run(fn, error));
  return error;
}

} // namespace tessera::rt::test

#endif // TESSERA_UNITTESTS_RUNTIME_RUNTIMETESTUTILS_H
