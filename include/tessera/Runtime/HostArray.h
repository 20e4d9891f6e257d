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

/// The bytes of an array of `dtype` and `shape`, computed without
/// overflow. Returns false (with `bytes` unset) if a dimension is negative
/// or the count overflows int64_t. A dimension of 0 gives 0 bytes.
bool getByteSize(DType dtype, const std::vector<int64_t> &shape,
                 int64_t &bytes);
/// A shape as NumPy prints it: `(2, 3)`, `(5,)`, `()`.
std::string formatShape(const std::vector<int64_t> &shape);
/// A byte count for people: `100 bytes`, `1.50 KiB`, `23.4 GiB`, `3.64 TiB`
/// (three significant digits, binary units).
std::string formatByteSize(int64_t bytes);
/// The physical memory of this host (sysconf), or 0 if unknown.
int64_t getPhysicalMemoryBytes();

/// A dense row-major array owned by the host. Data are 64-byte aligned.
class HostArray {
public:
  HostArray() = default;
  /// A zeroed array. Throws std::bad_alloc if it cannot be allocated (or its
  /// size overflows); create() is the fallible form.
  HostArray(DType dtype, std::vector<int64_t> shape);
  /// Sets `out` to a zeroed array of `dtype` and `shape`, or returns false
  /// with `error` set, never throwing: a negative dimension, a byte count
  /// that overflows (`an array of shape (...) and dtype f32 overflows a
  /// 64-bit byte count`), more bytes than the physical memory of the host
  /// (`an array of shape (1000000, 1000000) and dtype f32 needs 3.64 TiB,
  /// more than the 23.4 GiB of memory of this host`), or an allocation that
  /// fails. `out` is left unchanged on failure.
  static bool create(DType dtype, std::vector<int64_t> shape, HostArray &out,
                     std::string &error);
  HostArray(const HostArray &other);
  HostArray &operator=(const HostArray &other);
  HostArray(HostArray &&) = default;
  HostArray &operator=(HostArray &&) = default;

  DType getDType() const { return dtype; }
  const std::vector<int64_t> &getShape() const { return shape; }
  /// The element count (the product of the shape; 1 for a scalar).
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
  /// Allocates zeroed storage for the shape; false if the size overflows
  /// or malloc fails.
  bool allocate();
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::unique_ptr<uint8_t[], Free> storage;
};

/// The longest `.npy` header accepted (NumPy writes a few hundred bytes).
constexpr int64_t kMaxNpyHeaderBytes = int64_t(1) << 20;
/// The most dimensions an accepted `.npy` array has (NumPy's limit).
constexpr int64_t kMaxNpyRank = 64;

/// Reads a `.npy` file (format versions 1, 2 and 3; little- or big-endian;
/// C or Fortran order). Returns false with a one-line message naming the
/// file and the problem on any malformed, truncated or unsupported input:
/// a path that is not a regular file (a directory, a FIFO, a device), a
/// header longer than kMaxNpyHeaderBytes or with text after its
/// dictionary, a shape whose byte count overflows or exceeds the host's
/// memory, a data section shorter or longer than the shape says. Reads the
/// header with bounded reads, then exactly the data. Never throws.
bool readNpy(const std::string &path, HostArray &array, std::string &error);
/// Parses `.npy` bytes already in memory with the same checks; `name`
/// prefixes messages. Never throws.
bool parseNpy(const uint8_t *bytes, size_t size, const std::string &name,
              HostArray &array, std::string &error);
/// Writes a `.npy` file: version 1.0, or 2.0 when the header does not fit
/// in 64 KiB (bf16 as descr `bfloat16`, which NumPy reads once `ml_dtypes`
/// is imported). Never throws.
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
  bool operator==(const AxisPart &o) const {
    return axis == o.axis && pre == o.pre && size == o.size;
  }
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

/// Sets `block` to the block of `global` that a device at `coords` holds
/// (elements beyond the end of a padded block are zero). Returns false with
/// `error` set, never throwing, if the layout does not fit the array or the
/// coordinates (an axis out of range, a part of size < 1), or the block
/// cannot be allocated.
bool extractBlock(const HostArray &global, const ShardLayout &layout,
                  const std::vector<int64_t> &coords, HostArray &block,
                  std::string &error);
/// Writes the block of a device at `coords` into `global` (padding
/// dropped). Returns false with `error` set, writing nothing, if the
/// layout does not fit or `block` does not have the block's dtype and
/// shape.
bool insertBlock(HostArray &global, const HostArray &block,
                 const ShardLayout &layout, const std::vector<int64_t> &coords,
                 std::string &error);
/// The throwing forms: std::bad_alloc when the block cannot be allocated,
/// std::invalid_argument (with the message of the forms above) when the
/// layout, coordinates or block do not fit.
HostArray extractBlock(const HostArray &global, const ShardLayout &layout,
                       const std::vector<int64_t> &coords);
void insertBlock(HostArray &global, const HostArray &block,
                 const ShardLayout &layout, const std::vector<int64_t> &coords);

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_HOSTARRAY_H
