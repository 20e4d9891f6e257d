//===- ShardBlocks.cpp - cutting arrays into shard blocks ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The blocks a ShardLayout gives each device (tessera/Runtime/HostArray.h):
// counting and locating them, and copying them out of and into global
// arrays.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/HostArray.h"

#include "ArrayImpl.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

namespace tessera::rt {

using detail::catchAll;

//===----------------------------------------------------------------------===//
// Shard blocks
//===----------------------------------------------------------------------===//

int64_t ShardLayout::getNumBlocks(size_t d) const {
  int64_t n = 1;
  if (d < dims.size())
    for (const AxisPart &part : dims[d])
      if (part.size > 1 && __builtin_mul_overflow(n, part.size, &n))
        return std::numeric_limits<int64_t>::max();
  return n;
}

int64_t ShardLayout::getBlockIndex(size_t d,
                                   const std::vector<int64_t> &coords) const {
  int64_t index = 0;
  if (d < dims.size())
    for (const AxisPart &part : dims[d])
      index = index * part.size + (coords[part.axis] / part.pre) % part.size;
  return index;
}

std::vector<int64_t>
ShardLayout::getLocalShape(const std::vector<int64_t> &global) const {
  std::vector<int64_t> local(global);
  for (size_t d = 0; d < local.size(); ++d) {
    int64_t blocks = std::max<int64_t>(1, getNumBlocks(d));
    // Rounded up, without overflowing near INT64_MAX.
    local[d] = local[d] / blocks + (local[d] % blocks > 0 ? 1 : 0);
  }
  return local;
}

/// Checks that `layout` can cut an array of `shape` for a device at
/// `coords`: every part names an axis of the coordinates, has pre and size
/// >= 1, and the blocks of each dimension can be counted. Returns "" or the
/// problem.
static std::string checkLayout(const ShardLayout &layout,
                               const std::vector<int64_t> &shape,
                               const std::vector<int64_t> &coords) {
  size_t rank = std::min(layout.dims.size(), shape.size());
  for (size_t d = 0; d < rank; ++d) {
    int64_t blocks = 1;
    for (const AxisPart &part : layout.dims[d]) {
      if (part.axis < 0 || part.axis >= static_cast<int64_t>(coords.size()))
        return "the layout of dimension " + std::to_string(d) + " names axis " +
               std::to_string(part.axis) + ", but the " + "device has " +
               std::to_string(coords.size()) + " coordinates";
      if (part.pre < 1 || part.size < 1)
        return "the layout of dimension " + std::to_string(d) +
               " has a part with pre " + std::to_string(part.pre) +
               " and size " + std::to_string(part.size) +
               " (both must be at least 1)";
      if (coords[part.axis] < 0)
        return "coordinate " + std::to_string(part.axis) + " is negative (" +
               std::to_string(coords[part.axis]) + ")";
      if (__builtin_mul_overflow(blocks, part.size, &blocks))
        return "the layout cuts dimension " + std::to_string(d) +
               " into more than 2^63 blocks";
    }
  }
  return "";
}

/// Copies between a global array and a device's block: `toBlock` selects
/// the direction. Rows of the innermost dimension are copied with memcpy.
/// The layout was checked and the block has the local shape; offsets stay
/// below the element counts of the arrays, which fit in int64_t.
static void copyBlock(HostArray &global, HostArray &block,
                      const ShardLayout &layout,
                      const std::vector<int64_t> &coords, bool toBlock) {
  const auto &shape = global.getShape();
  const auto &local = block.getShape();
  size_t rank = shape.size();
  int64_t width = getDTypeBytes(global.getDType());
  if (rank == 0) {
    if (toBlock)
      std::memcpy(block.data(), global.data(), width);
    else
      std::memcpy(global.data(), block.data(), width);
    return;
  }
  std::vector<int64_t> origin(rank), extent(rank);
  for (size_t d = 0; d < rank; ++d) {
    // block index * local size < dimension + number of blocks; an index
    // past the end (an all-padding block) is clamped, not multiplied out.
    int64_t index = layout.getBlockIndex(d, coords);
    int64_t start = 0;
    if (local[d] == 0 || index > shape[d] / local[d] ||
        __builtin_mul_overflow(index, local[d], &start) || start >= shape[d])
      return; // An all-padding (or empty) block.
    origin[d] = start;
    extent[d] = std::min<int64_t>(local[d], shape[d] - start);
  }
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t globalOffset = 0, blockOffset = 0;
    for (size_t d = 0; d < rank; ++d) {
      globalOffset = globalOffset * shape[d] + origin[d] + index[d];
      blockOffset = blockOffset * local[d] + index[d];
    }
    size_t bytes = static_cast<size_t>(extent[rank - 1] * width);
    if (toBlock)
      std::memcpy(block.data() + blockOffset * width,
                  global.data() + globalOffset * width, bytes);
    else
      std::memcpy(global.data() + globalOffset * width,
                  block.data() + blockOffset * width, bytes);
    size_t d = rank - 1;
    while (true) {
      if (d == 0)
        return;
      --d;
      if (++index[d] < extent[d])
        break;
      index[d] = 0;
    }
  }
}

bool extractBlock(const HostArray &global, const ShardLayout &layout,
                  const std::vector<int64_t> &coords, HostArray &block,
                  std::string &error) {
  return catchAll("extractBlock", error, [&] {
    std::string problem = checkLayout(layout, global.getShape(), coords);
    if (!problem.empty()) {
      error =
          "cannot cut " + global.getTypeString() + " into blocks: " + problem;
      return false;
    }
    HostArray result;
    if (!HostArray::create(global.getDType(),
                           layout.getLocalShape(global.getShape()), result,
                           error))
      return false;
    if (global.getNumElements() > 0 && global.data())
      copyBlock(const_cast<HostArray &>(global), result, layout, coords,
                /*toBlock=*/true);
    block = std::move(result);
    return true;
  });
}

bool insertBlock(HostArray &global, const HostArray &block,
                 const ShardLayout &layout, const std::vector<int64_t> &coords,
                 std::string &error) {
  return catchAll("insertBlock", error, [&] {
    std::string problem = checkLayout(layout, global.getShape(), coords);
    if (!problem.empty()) {
      error = "cannot assemble " + global.getTypeString() +
              " from blocks: " + problem;
      return false;
    }
    std::vector<int64_t> local = layout.getLocalShape(global.getShape());
    if (block.getDType() != global.getDType() || block.getShape() != local) {
      error = "cannot assemble " + global.getTypeString() +
              " from blocks: the block is " + block.getTypeString() +
              ", expected " +
              detail::formatTypeString(global.getDType(), local);
      return false;
    }
    if (global.getNumElements() > 0 && global.data() && block.data())
      copyBlock(global, const_cast<HostArray &>(block), layout, coords,
                /*toBlock=*/false);
    return true;
  });
}

HostArray extractBlock(const HostArray &global, const ShardLayout &layout,
                       const std::vector<int64_t> &coords) {
  HostArray block;
  std::string error;
  if (!extractBlock(global, layout, coords, block, error)) {
    if (checkLayout(layout, global.getShape(), coords).empty())
      throw std::bad_alloc();
    throw std::invalid_argument(error);
  }
  return block;
}

void insertBlock(HostArray &global, const HostArray &block,
                 const ShardLayout &layout,
                 const std::vector<int64_t> &coords) {
  std::string error;
  if (!insertBlock(global, block, layout, coords, error))
    throw std::invalid_argument(error);
}

} // namespace tessera::rt
