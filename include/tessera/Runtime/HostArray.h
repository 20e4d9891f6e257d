//===- HostArray.h - host arrays, .npy files and shard blocks ---*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// What `tessera-run` moves between files, the host and the devices: a dense
// row-major array with a runtime dtype, read from and written to NumPy's
// `.npy` format, and cut into (or assembled from) the blocks a sharding
// gives each device. Pure C++: no MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_HOSTARRAY_H
#define TESSERA_RUNTIME_HOSTARRAY_H

#include "tessera/Runtime/DType.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::rt {

/// Bytes per element.
int64_t getDTypeBytes(DType dtype);
/// JAX's short name: `f32`, `bf16`, `bool`, `i32`, `u8`, ...
const char *getDTypeName(DType dtype);
/// True for f16, bf16, f32 and f64.
bool isFloat(DType dtype);

/// A dense row-major array owned by the host. Data are 64-byte aligned.
class HostArray {
public:
  HostArray() = default;
  HostArray(DType dtype, std::vector<int64_t> shape);
  HostArray(const HostArray &other);
  HostArray &operator=(const HostArray &other);
  HostArray(HostArray &&) = default;
  HostArray &operator=(HostArray &&) = default;

  DType getDType() const { return dtype; }
  const std::vector<int64_t> &getShape() const { return shape; }
  int64_t getNumElements() const;
  int64_t getNumBytes() const {
    return getNumElements() * getDTypeBytes(dtype);
  }
  uint8_t *data() { return storage.get(); }
  const uint8_t *data() const { return storage.get(); }

  /// Element `i` (row-major) converted to double (bool: 0/1).
  double getAsDouble(int64_t i) const;
  /// Sets element `i` from a double, converting (rounding to nearest even
  /// for f16/bf16, truncating toward zero for integers).
  void setFromDouble(int64_t i, double value);

  /// The type as JAX prints it: `f32[4,8]`.
  std::string getTypeString() const;

private:
  struct Free {
    void operator()(uint8_t *p) const;
  };
  void allocate();
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::unique_ptr<uint8_t[], Free> storage;
};

/// Reads a `.npy` file (format versions 1, 2 and 3; little- or big-endian;
/// C or Fortran order). Returns false with a message naming the file and
/// the problem on any malformed, truncated or unsupported input.
bool readNpy(const std::string &path, HostArray &array, std::string &error);
/// Parses `.npy` bytes already in memory; `name` prefixes messages.
bool parseNpy(const uint8_t *bytes, size_t size, const std::string &name,
              HostArray &array, std::string &error);
/// Writes a version 1.0 `.npy` file (bf16 as descr `bfloat16`, which NumPy
/// reads once `ml_dtypes` is imported).
bool writeNpy(const std::string &path, const HostArray &array,
              std::string &error);

/// f16/bf16 <-> f32 conversions (round to nearest even).
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);

/// A part of a mesh axis: coordinate component `(coord[axis] / pre) % size`
/// (a sub-axis `"x":(pre)size`; a full axis has pre 1 and the axis size).
struct AxisPart {
  int64_t axis = 0;
  int64_t pre = 1;
  int64_t size = 1;
};

/// How an array is laid out over a mesh: per dimension, the axis parts
/// that shard it, major to minor. A dimension with no parts is replicated.
struct ShardLayout {
  std::vector<std::vector<AxisPart>> dims;
  /// The device at each mesh position (row-major over the axes) of the
  /// sharding's mesh, which may order the devices differently from the
  /// emulated mesh; empty: the emulated mesh's order.
  std::vector<int64_t> deviceIds;

  /// The number of blocks dimension `d` is cut into.
  int64_t getNumBlocks(size_t d) const;
  /// The block index of dimension `d` on a device at `coords`.
  int64_t getBlockIndex(size_t d, const std::vector<int64_t> &coords) const;
  /// The local (per-device) shape of `global`: each dimension divided by
  /// its number of blocks, rounded up (the last block is padded).
  std::vector<int64_t> getLocalShape(const std::vector<int64_t> &global) const;
};

/// The block of `global` that a device at `coords` holds; elements beyond
/// the end of a padded block are zero.
HostArray extractBlock(const HostArray &global, const ShardLayout &layout,
                       const std::vector<int64_t> &coords);
/// Writes the block of a device at `coords` into `global` (padding
/// dropped).
void insertBlock(HostArray &global, const HostArray &block,
                 const ShardLayout &layout, const std::vector<int64_t> &coords);

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_HOSTARRAY_H
