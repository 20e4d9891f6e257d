//===- NpyReader.cpp - reading blocks of .npy files -------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/NpyReader.h"

#include "ArrayImpl.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <unistd.h>

using namespace tessera::rt;

std::unique_ptr<NpyReader> NpyReader::open(const std::string &path,
                                           std::string &error) {
  NpyHeader header;
  int fd = detail::openNpyForReading(path, header, error);
  if (fd < 0)
    return nullptr;
  return std::unique_ptr<NpyReader>(new NpyReader(path, fd, header));
}

NpyReader::~NpyReader() { ::close(fd); }

/// Reads `size` bytes at `offset`; false on an error or the end of the file
/// (with errno 0).
static bool readAt(int fd, uint8_t *out, int64_t size, int64_t offset) {
  while (size > 0) {
    size_t chunk =
        static_cast<size_t>(std::min<int64_t>(size, int64_t(1) << 30));
    ssize_t n = ::pread(fd, out, chunk, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = 0;
      return false;
    }
    out += n;
    size -= n;
    offset += n;
  }
  return true;
}

bool NpyReader::readBox(const std::vector<int64_t> &start,
                        const std::vector<int64_t> &stop, HostArray &block,
                        std::string &error) {
  const std::vector<int64_t> &shape = header.shape;
  size_t rank = shape.size();
  if (header.fortranOrder) {
    error = path + ": a Fortran-order .npy file cannot be read in blocks "
                   "(write it in C order, e.g. with numpy.ascontiguousarray)";
    return false;
  }
  if (start.size() != rank || stop.size() != rank) {
    error = path + ": a block of rank " + std::to_string(start.size()) +
            " of an array of rank " + std::to_string(rank);
    return false;
  }
  std::vector<int64_t> extent(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (start[d] < 0 || start[d] > stop[d] || stop[d] > shape[d]) {
      error = path + ": the block " + std::to_string(start[d]) + ":" +
              std::to_string(stop[d]) + " of dimension " + std::to_string(d) +
              " is outside the array's " + std::to_string(shape[d]);
      return false;
    }
    extent[d] = stop[d] - start[d];
  }
  HostArray result;
  if (!HostArray::create(header.dtype, extent, result, error)) {
    error = path + ": " + error;
    return false;
  }
  int64_t width = getDTypeBytes(header.dtype);
  int64_t total = result.getNumBytes();
  if (total > 0) {
    // The innermost dimensions read whole, and the one outside them, make
    // one contiguous run of the file.
    size_t outer = rank;
    int64_t run = width;
    while (outer > 0 && extent[outer - 1] == shape[outer - 1])
      run *= extent[--outer];
    if (outer > 0)
      run *= extent[--outer];
    std::vector<int64_t> strides(rank, width);
    for (size_t d = rank; d-- > 1;)
      strides[d - 1] = strides[d] * shape[d];
    int64_t base = header.dataOffset;
    for (size_t d = 0; d < rank; ++d)
      base += start[d] * strides[d];
    // Runs that follow each other in the file are read at once.
    std::vector<int64_t> index(outer, 0);
    int64_t pendingFile = base, pendingBytes = 0, written = 0;
    auto flush = [&]() {
      if (pendingBytes == 0)
        return true;
      if (!readAt(fd, result.data() + written, pendingBytes, pendingFile)) {
        error =
            path + (errno ? std::string(": read error: ") + std::strerror(errno)
                          : std::string(": the file shrank while it was "
                                        "read"));
        return false;
      }
      written += pendingBytes;
      pendingBytes = 0;
      return true;
    };
    for (bool done = false; !done;) {
      int64_t offset = base;
      for (size_t d = 0; d < outer; ++d)
        offset += index[d] * strides[d];
      if (pendingBytes > 0 && pendingFile + pendingBytes != offset && !flush())
        return false;
      if (pendingBytes == 0)
        pendingFile = offset;
      pendingBytes += run;
      // The next run: an odometer over the outer dimensions.
      done = true;
      for (size_t d = outer; d-- > 0;) {
        if (++index[d] < extent[d]) {
          done = false;
          break;
        }
        index[d] = 0;
      }
    }
    if (!flush())
      return false;
    bytesRead += total;
    if (header.bigEndian && width > 1)
      for (int64_t i = 0, n = result.getNumElements(); i < n; ++i)
        std::reverse(result.data() + i * width,
                     result.data() + (i + 1) * width);
  }
  block = std::move(result);
  return true;
}
