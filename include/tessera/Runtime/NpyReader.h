//===- NpyReader.h - reading blocks of .npy files ---------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Reads parts of a C-order `.npy` file without reading the rest: a process
// of a distributed run loads only the blocks its devices hold. The header is
// checked as readNpy checks it (tessera/Runtime/HostArray.h); each block is
// read with one pread per contiguous run of the file, and the reader counts
// the data bytes it read.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_NPYREADER_H
#define TESSERA_RUNTIME_NPYREADER_H

#include "tessera/Runtime/HostArray.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::rt {

/// What the header of a .npy file says.
struct NpyHeader {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  bool bigEndian = false;
  bool fortranOrder = false;
  /// Where the data begin in the file, and their size.
  int64_t dataOffset = 0;
  int64_t dataBytes = 0;
};

/// An open .npy file whose blocks can be read.
class NpyReader {
public:
  /// Opens `path` and checks its header (as readNpy does). Returns null
  /// with `error` set on a file readNpy would refuse.
  static std::unique_ptr<NpyReader> open(const std::string &path,
                                         std::string &error);
  ~NpyReader();
  NpyReader(const NpyReader &) = delete;
  NpyReader &operator=(const NpyReader &) = delete;

  const NpyHeader &getHeader() const { return header; }
  const std::string &getPath() const { return path; }

  /// Reads the box of elements [start, stop) (per dimension) into `block`,
  /// a new array of shape stop - start: one pread per contiguous run of the
  /// file, byte-swapped if the file is big-endian. Returns false with
  /// `error` set for a Fortran-order file (its blocks are not runs of rows),
  /// a box outside the array, a read error or a file that shrank.
  bool readBox(const std::vector<int64_t> &start,
               const std::vector<int64_t> &stop, HostArray &block,
               std::string &error);

  /// The data bytes the reads took from the file so far.
  int64_t getBytesRead() const { return bytesRead; }

private:
  NpyReader(std::string path, int fd, NpyHeader header)
      : path(std::move(path)), fd(fd), header(std::move(header)) {}

  std::string path;
  int fd;
  NpyHeader header;
  int64_t bytesRead = 0;
};

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_NPYREADER_H
