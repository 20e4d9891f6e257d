//===- DistributedArray.cpp - arrays from the blocks a process needs -----===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/DistributedArray.h"

#include "tessera/Runtime/Mesh.h"

#include "ArrayImpl.h"
#include "RuntimeImpl.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

using namespace tessera::rt;

std::vector<int64_t> BlockIndex::getShape() const {
  std::vector<int64_t> shape(start.size());
  for (size_t d = 0; d < start.size(); ++d)
    shape[d] = stop[d] - start[d];
  return shape;
}

std::string BlockIndex::toString() const {
  std::string text;
  for (size_t d = 0; d < start.size(); ++d)
    text += (d ? ", " : "") + std::to_string(start[d]) + ":" +
            std::to_string(stop[d]);
  return text.empty() ? "()" : text;
}

std::vector<int64_t>
tessera::rt::getLayoutCoordinates(const ShardLayout &layout, const Mesh &mesh,
                                  int64_t device) {
  if (layout.deviceIds.empty())
    return mesh.coordinates(device);
  const std::vector<int64_t> &sizes = mesh.spec().axisSizes;
  int64_t rest =
      std::find(layout.deviceIds.begin(), layout.deviceIds.end(), device) -
      layout.deviceIds.begin();
  std::vector<int64_t> coords(sizes.size());
  for (size_t a = sizes.size(); a-- > 0;) {
    coords[a] = rest % sizes[a];
    rest /= sizes[a];
  }
  return coords;
}

BlockIndex tessera::rt::getBlockIndexOf(const ShardLayout &layout,
                                        const Mesh &mesh, int64_t device,
                                        const std::vector<int64_t> &shape) {
  std::vector<int64_t> coords = getLayoutCoordinates(layout, mesh, device);
  std::vector<int64_t> local = layout.getLocalShape(shape);
  BlockIndex index;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t start =
        std::min(shape[d], layout.getBlockIndex(d, coords) * local[d]);
    index.start.push_back(start);
    index.stop.push_back(std::min(shape[d], start + local[d]));
  }
  return index;
}

void tessera::rt::copyRegion(const HostArray &src,
                             const std::vector<int64_t> &srcStart,
                             HostArray &dst,
                             const std::vector<int64_t> &dstStart,
                             const std::vector<int64_t> &extent) {
  detail::copyBox(dst.data(), dst.getShape(), dstStart, src.data(),
                  src.getShape(), srcStart, extent,
                  getDTypeBytes(src.getDType()));
}

bool tessera::rt::makeArrayFromCallback(const Mesh &mesh, DType dtype,
                                        const std::vector<int64_t> &shape,
                                        const ShardLayout &layout,
                                        const BlockCallback &callback,
                                        DistributedArray &array,
                                        std::string &error) {
  return detail::catchAll("make_array_from_callback", error, [&] {
    DistributedArray result;
    result.dtype = dtype;
    result.globalShape = shape;
    result.layout = layout;
    result.blocks.resize(mesh.numDevices());
    std::vector<int64_t> local = layout.getLocalShape(shape);
    std::map<BlockIndex, std::shared_ptr<const HostArray>> made;
    for (int64_t i = 0; i < mesh.getNumLocalDevices(); ++i) {
      int64_t device = mesh.getFirstLocalDevice() + i;
      BlockIndex index = getBlockIndexOf(layout, mesh, device, shape);
      auto found = made.find(index);
      if (found != made.end()) {
        result.blocks[device] = found->second;
        continue;
      }
      std::vector<int64_t> extent = index.getShape();
      HostArray data;
      if (!HostArray::create(dtype, extent, data, error))
        return false;
      if (!callback(index, data, error))
        return false;
      if (data.getDType() != dtype || data.getShape() != extent) {
        error = "the data of block [" + index.toString() + "] is " +
                data.getTypeString() + ", expected " +
                detail::formatTypeString(dtype, extent);
        return false;
      }
      auto shared = std::make_shared<HostArray>(std::move(data));
      result.distinct.emplace_back(index, shared);
      if (extent != local) {
        // A padded block: the data in its corner, zeros after.
        HostArray padded;
        if (!HostArray::create(dtype, local, padded, error))
          return false;
        copyRegion(*shared, std::vector<int64_t>(extent.size(), 0), padded,
                   std::vector<int64_t>(extent.size(), 0), extent);
        made[index] = std::make_shared<HostArray>(std::move(padded));
      } else {
        made[index] = shared;
      }
      result.blocks[device] = made[index];
    }
    array = std::move(result);
    return true;
  });
}

/// Formats a shape as JAX prints a tuple: `(8, 4)`.
static std::string formatTuple(const std::vector<int64_t> &shape) {
  return formatShape(shape);
}

bool tessera::rt::makeArrayFromProcessLocalData(
    const Mesh &mesh, const ShardLayout &layout,
    std::vector<int64_t> globalShape, const HostArray &localData,
    DistributedArray &array, std::string &error) {
  const std::vector<int64_t> &localShape = localData.getShape();
  size_t rank = localShape.size();
  if (globalShape.size() != rank) {
    error = "the process-local data has rank " + std::to_string(rank) +
            ", the array " + std::to_string(globalShape.size());
    return false;
  }
  // The block indices each process holds along each dimension.
  int64_t perProcess = mesh.getNumLocalDevices();
  int64_t processes = mesh.numDevices() / std::max<int64_t>(1, perProcess);
  std::vector<std::set<int64_t>> mine(rank);
  std::vector<std::vector<std::set<int64_t>>> all(
      rank, std::vector<std::set<int64_t>>(processes));
  for (int64_t device = 0; device < mesh.numDevices(); ++device) {
    std::vector<int64_t> coords = getLayoutCoordinates(layout, mesh, device);
    for (size_t d = 0; d < rank; ++d) {
      int64_t block = layout.getBlockIndex(d, coords);
      all[d][mesh.getProcessOf(device)].insert(block);
      if (mesh.isLocalDevice(device))
        mine[d].insert(block);
    }
  }
  // Unknown global sizes, as JAX's local_to_global_shape infers them: the
  // local size times the number of distinct parts the processes hold, when
  // those parts do not overlap.
  for (size_t d = 0; d < rank; ++d) {
    if (globalShape[d] >= 0)
      continue;
    std::set<std::set<int64_t>> unique(all[d].begin(), all[d].end());
    size_t covered = 0;
    for (const std::set<int64_t> &part : unique)
      covered += part.size();
    if (covered != static_cast<size_t>(layout.getNumBlocks(d))) {
      error = "Unable to compute global_shape due to non-uniform sharding. "
              "Specify global shape directly.";
      return false;
    }
    globalShape[d] = localShape[d] * static_cast<int64_t>(unique.size());
  }
  std::vector<int64_t> blockShape = layout.getLocalShape(globalShape);
  std::vector<bool> full(rank);
  for (size_t d = 0; d < rank; ++d) {
    full[d] = localShape[d] == globalShape[d];
    if (full[d])
      continue;
    int64_t addressed = 0;
    for (int64_t block : mine[d]) {
      int64_t start = std::min(globalShape[d], block * blockShape[d]);
      addressed += std::min(globalShape[d], start + blockShape[d]) - start;
    }
    if (addressed != localShape[d]) {
      error = "Invalid host data, each dimension should match either global "
              "or process shape. In dimension " +
              std::to_string(d) + ", the process data has " +
              std::to_string(localShape[d]) + " elements. Process addresses " +
              std::to_string(addressed) +
              " elements and global_shape=" + formatTuple(globalShape) + ".";
      return false;
    }
  }
  // The block starting at `start` along d lies at (its position among the
  // process's blocks) * block size in the local data.
  auto callback = [&](const BlockIndex &index, HostArray &data, std::string &) {
    std::vector<int64_t> from(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (full[d]) {
        from[d] = index.start[d];
        continue;
      }
      int64_t block = blockShape[d] ? index.start[d] / blockShape[d] : 0;
      from[d] =
          std::distance(mine[d].begin(), mine[d].find(block)) * blockShape[d];
    }
    copyRegion(localData, from, data, std::vector<int64_t>(rank, 0),
               index.getShape());
    return true;
  };
  return makeArrayFromCallback(mesh, localData.getDType(), globalShape, layout,
                               callback, array, error);
}
