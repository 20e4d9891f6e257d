//===- DistributedArray.h - arrays built from the blocks a process needs -*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// JAX's distributed data loading for a mesh spread over processes
// (Mesh::attachTransport): an array laid out over the mesh by a ShardLayout
// is built, on each process, from only the blocks its devices hold.
// makeArrayFromCallback asks a callback for each distinct block (as
// jax.make_array_from_callback does); makeArrayFromProcessLocalData cuts
// the process's part of the array (jax.make_array_from_process_local_data).
// Without a transport the process holds every device.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_DISTRIBUTEDARRAY_H
#define TESSERA_RUNTIME_DISTRIBUTEDARRAY_H

#include "tessera/Runtime/HostArray.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tessera::rt {

class Mesh;

/// The index ranges of a block: [start[d], stop[d]) along each dimension,
/// within the array (JAX's tuple of slices; a padded block is cut at the
/// array's end).
struct BlockIndex {
  std::vector<int64_t> start, stop;

  bool operator<(const BlockIndex &o) const {
    return start != o.start ? start < o.start : stop < o.stop;
  }
  bool operator==(const BlockIndex &o) const {
    return start == o.start && stop == o.stop;
  }
  /// The shape of the block's data: stop - start.
  std::vector<int64_t> getShape() const;
  /// `0:4, 8:16`.
  std::string toString() const;
};

/// The coordinates of `device` in the mesh order of `layout` (its device
/// ids if it has them, else `mesh`'s).
std::vector<int64_t> getLayoutCoordinates(const ShardLayout &layout,
                                          const Mesh &mesh, int64_t device);

/// Copies the box of `extent` at `srcStart` of `src` to `dstStart` of `dst`
/// (both of one dtype), one memcpy per contiguous run.
void copyRegion(const HostArray &src, const std::vector<int64_t> &srcStart,
                HostArray &dst, const std::vector<int64_t> &dstStart,
                const std::vector<int64_t> &extent);

/// The block of an array of `globalShape` laid out by `layout` that
/// `device` holds.
BlockIndex getBlockIndexOf(const ShardLayout &layout, const Mesh &mesh,
                           int64_t device,
                           const std::vector<int64_t> &globalShape);

/// An array laid out over a mesh, as one process holds it.
struct DistributedArray {
  DType dtype = DType::F32;
  std::vector<int64_t> globalShape;
  ShardLayout layout;
  /// By device id: the block of each device this process runs (of the
  /// layout's local shape, zero past the end of a padded dimension), null
  /// for the other devices. Devices that hold the same block share it.
  std::vector<std::shared_ptr<const HostArray>> blocks;
  /// The distinct blocks of this process (their data without padding), in
  /// the order of the devices that first hold them.
  std::vector<std::pair<BlockIndex, std::shared_ptr<const HostArray>>> distinct;
};

/// Fills `data` (zeroed, of the block's dtype and shape stop - start) with
/// the elements of the block `index` of the global array. Returns false
/// with `error` set to fail the array.
using BlockCallback = std::function<bool(const BlockIndex &index,
                                         HostArray &data, std::string &error)>;

/// jax.make_array_from_callback: builds the blocks of an array of `dtype`
/// and `globalShape` laid out by `layout` that this process's devices of
/// `mesh` hold, calling `callback` once per distinct block (a block
/// replicated over several devices of the process is asked for once).
/// Returns false with `error` set if the callback fails, leaves `data`
/// with another dtype or shape, or a block cannot be allocated.
bool makeArrayFromCallback(const Mesh &mesh, DType dtype,
                           const std::vector<int64_t> &globalShape,
                           const ShardLayout &layout,
                           const BlockCallback &callback,
                           DistributedArray &array, std::string &error);

/// jax.make_array_from_process_local_data: `local` holds this process's
/// part of the array; along each dimension it has either the whole global
/// size or exactly the indices the process's devices address (the distinct
/// blocks they hold along it, in order, mapped one after the other, as JAX
/// maps them). A dimension of `globalShape` that is -1 is inferred from
/// `local` (its size times the number of distinct parts the processes hold
/// along it). Returns false with `error` set (JAX's message) if a dimension
/// matches neither.
bool makeArrayFromProcessLocalData(const Mesh &mesh, const ShardLayout &layout,
                                   std::vector<int64_t> globalShape,
                                   const HostArray &local,
                                   DistributedArray &array, std::string &error);

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_DISTRIBUTEDARRAY_H
