//===- Shards.h - arrays stored as one .npy file per block ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A shard directory holds an array as one C-order .npy file per distinct
// block, named after the block's index ranges (`0-4_0-8.npy` for rows 0 to
// 4 and columns 0 to 8), and an `index.json` that lists them with the
// array's dtype and shape:
//
//   {"format": "tessera-shards", "version": 1, "dtype": "f32",
//    "shape": [8, 8],
//    "shards": [{"start": [0, 0], "stop": [4, 8], "file": "0-4_0-8.npy"},
//               ...]}
//
// `tessera-run --output-dir DIR --output-shards` writes result i as
// DIR/result<i> (every process its own blocks), and `--input x=DIR` reads
// one back: a process reads from the shards only the parts of its blocks,
// whatever sharding wrote them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_EXECUTION_SHARDS_H
#define TESSERA_EXECUTION_SHARDS_H

#include "tessera/Runtime/DistributedArray.h"
#include "tessera/Runtime/HostArray.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::tessera::exec {

/// The index of a shard directory.
struct ShardIndex {
  std::string dir;
  ::tessera::rt::DType dtype = ::tessera::rt::DType::F32;
  std::vector<int64_t> shape;
  struct Shard {
    ::tessera::rt::BlockIndex index;
    /// The file, relative to `dir`.
    std::string file;
  };
  std::vector<Shard> shards;
};

/// Whether `path` names a directory.
bool isDirectory(llvm::StringRef path);

/// The file name of the shard of block `index`: `0-4_0-8.npy` (a scalar:
/// `scalar.npy`).
std::string getShardFileName(const ::tessera::rt::BlockIndex &index);

/// Reads and checks `dir/index.json`: its format and version, a known
/// dtype, shards inside the array that do not overlap, file names without
/// a directory part.
llvm::Expected<ShardIndex> readShardIndex(llvm::StringRef dir);

/// Reads the box `box` of the array into `out` (a new array of the box's
/// shape) from the shards that cover it, each file checked against the
/// index (dtype and shape); adds the data bytes read to `bytesRead`. Fails
/// if the shards do not cover the box.
llvm::Error readShardBox(const ShardIndex &index,
                         const ::tessera::rt::BlockIndex &box,
                         ::tessera::rt::HostArray &out, int64_t &bytesRead);

/// Copies `data`, the elements of block `index` of `global`, into it.
void placeBlockData(::tessera::rt::HostArray &global,
                    const ::tessera::rt::BlockIndex &index,
                    const ::tessera::rt::HostArray &data);

/// The elements of block `index` of `global`.
::tessera::rt::HostArray getRegion(const ::tessera::rt::HostArray &global,
                                   const ::tessera::rt::BlockIndex &index);

/// The elements of block `index` that `block` (a device's block, padded to
/// the layout's local shape) holds inside the array.
::tessera::rt::HostArray getBlockData(const ::tessera::rt::HostArray &block,
                                      const ::tessera::rt::BlockIndex &index);

/// Writes `data` (the elements of block `index`) as its shard file in
/// `dir`, which must exist.
llvm::Error writeShardFile(llvm::StringRef dir,
                           const ::tessera::rt::BlockIndex &index,
                           const ::tessera::rt::HostArray &data);

/// Writes `dir/index.json` for an array of `dtype` and `shape` whose
/// shards are the blocks `blocks`.
llvm::Error
writeShardIndex(llvm::StringRef dir, ::tessera::rt::DType dtype,
                const std::vector<int64_t> &shape,
                const std::vector<::tessera::rt::BlockIndex> &blocks);

} // namespace mlir::tessera::exec

#endif // TESSERA_EXECUTION_SHARDS_H
