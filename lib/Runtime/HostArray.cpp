//===- HostArray.cpp - host arrays, .npy files and shard blocks -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/HostArray.h"
#include "tessera/Runtime/NpyReader.h"

#include "ArrayImpl.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::rt {

using detail::catchAll;

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

int64_t getDTypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 8;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::I1:
  case DType::I8:
  case DType::U8:
    return 1;
  }
  return 1;
}

const char *getDTypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "bool";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::U8:
    return "u8";
  case DType::U16:
    return "u16";
  case DType::U32:
    return "u32";
  case DType::U64:
    return "u64";
  }
  return "?";
}

bool isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
         dtype == DType::BF16;
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

bool getByteSize(DType dtype, const std::vector<int64_t> &shape,
                 int64_t &bytes) {
  // As NumPy: the nonzero dimensions must not overflow even when another
  // one is zero (strides are computed from them).
  int64_t n = getDTypeBytes(dtype);
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0)
      return false;
    if (d == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(n, d, &n))
      return false;
  }
  bytes = empty ? 0 : n;
  return true;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

std::string formatByteSize(int64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  // Three significant digits.
  const char *format = value < 9.995   ? "%.2f %s"
                       : value < 99.95 ? "%.1f %s"
                                       : "%.0f %s";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), format, value, units[unit]);
  return buffer;
}

int64_t getPhysicalMemoryBytes() {
  static const int64_t physical = [] {
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    int64_t bytes = 0;
    if (pages <= 0 || pageSize <= 0 ||
        __builtin_mul_overflow(int64_t(pages), int64_t(pageSize), &bytes))
      return int64_t(0);
    return bytes;
  }();
  return physical;
}

//===----------------------------------------------------------------------===//
// f16 / bf16
//===----------------------------------------------------------------------===//

float halfToFloat(uint16_t bits) {
  uint32_t sign = (bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t result;
  if (exponent == 0x1f) {
    result = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    result = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ffu;
    result = sign | ((113 - shift) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) // Inf or NaN (keep NaN quiet).
    return sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0);
  int32_t e = static_cast<int32_t>(exponent) - 127 + 15;
  if (e >= 0x1f)
    return sign | 0x7c00u;
  if (e <= 0) {
    if (e < -10)
      return sign;
    mantissa |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half; // May carry into the exponent, which is right.
  return sign | half;
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t value = static_cast<uint32_t>(bits) << 16;
  float result;
  std::memcpy(&result, &value, sizeof(result));
  return result;
}

uint16_t floatToBfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN stays a quiet NaN.
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

//===----------------------------------------------------------------------===//
// HostArray
//===----------------------------------------------------------------------===//

static constexpr size_t kAlignment = 64;

void HostArray::Free::operator()(uint8_t *p) const { std::free(p); }

bool HostArray::allocate() {
  // Zero-initialized, 64-byte aligned, at least one alignment unit.
  int64_t size = 0;
  if (!getByteSize(dtype, shape, size) ||
      static_cast<uint64_t>(size) >
          std::numeric_limits<size_t>::max() - kAlignment)
    return false;
  size_t bytes = static_cast<size_t>(size);
  size_t rounded = std::max<size_t>(kAlignment, (bytes + kAlignment - 1) /
                                                    kAlignment * kAlignment);
  auto *p = static_cast<uint8_t *>(std::aligned_alloc(kAlignment, rounded));
  if (!p)
    return false;
  std::memset(p, 0, rounded);
  storage.reset(p);
  return true;
}

HostArray::HostArray(DType dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)) {
  if (!allocate())
    throw std::bad_alloc();
}

HostArray::HostArray(const HostArray &other)
    : dtype(other.dtype), shape(other.shape) {
  if (!allocate())
    throw std::bad_alloc();
  if (other.storage)
    std::memcpy(storage.get(), other.storage.get(), getNumBytes());
}

bool HostArray::create(DType dtype, std::vector<int64_t> shape, HostArray &out,
                       std::string &error) {
  try {
    auto describe = [&] {
      return "an array of shape " + formatShape(shape) + " and dtype " +
             getDTypeName(dtype);
    };
    for (int64_t d : shape) {
      if (d < 0) {
        error = describe() + " has a negative dimension";
        return false;
      }
    }
    int64_t bytes = 0;
    if (!getByteSize(dtype, shape, bytes)) {
      error = describe() + " overflows a 64-bit byte count";
      return false;
    }
    int64_t physical = getPhysicalMemoryBytes();
    if (physical > 0 && bytes > physical) {
      error = describe() + " needs " + formatByteSize(bytes) +
              ", more than the " + formatByteSize(physical) +
              " of memory of this host";
      return false;
    }
    HostArray result;
    result.dtype = dtype;
    result.shape = shape;
    if (!result.allocate()) {
      error = "out of memory allocating " + formatByteSize(bytes) + " for " +
              describe();
      return false;
    }
    out = std::move(result);
    return true;
  } catch (const std::exception &) {
    error = "out of memory creating an array";
    return false;
  }
}

HostArray &HostArray::operator=(const HostArray &other) {
  if (this != &other)
    *this = HostArray(other);
  return *this;
}

int64_t HostArray::getNumElements() const {
  // Arrays are created only with counts that fit; saturate anyway.
  for (int64_t d : shape)
    if (d <= 0)
      return 0;
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

template <typename T> static T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T> static void store(uint8_t *p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

double HostArray::getAsDouble(int64_t i) const {
  const uint8_t *p = data() + i * getDTypeBytes(dtype);
  switch (dtype) {
  case DType::F32:
    return load<float>(p);
  case DType::F64:
    return load<double>(p);
  case DType::F16:
    return halfToFloat(load<uint16_t>(p));
  case DType::BF16:
    return bfloat16ToFloat(load<uint16_t>(p));
  case DType::I1:
    return *p ? 1.0 : 0.0;
  case DType::I8:
    return load<int8_t>(p);
  case DType::I16:
    return load<int16_t>(p);
  case DType::I32:
    return load<int32_t>(p);
  case DType::I64:
    return static_cast<double>(load<int64_t>(p));
  case DType::U8:
    return load<uint8_t>(p);
  case DType::U16:
    return load<uint16_t>(p);
  case DType::U32:
    return load<uint32_t>(p);
  case DType::U64:
    return static_cast<double>(load<uint64_t>(p));
  }
  return 0;
}

void HostArray::setFromDouble(int64_t i, double value) {
  uint8_t *p = data() + i * getDTypeBytes(dtype);
  switch (dtype) {
  case DType::F32:
    return store<float>(p, static_cast<float>(value));
  case DType::F64:
    return store<double>(p, value);
  case DType::F16:
    return store<uint16_t>(p, floatToHalf(static_cast<float>(value)));
  case DType::BF16:
    return store<uint16_t>(p, floatToBfloat16(static_cast<float>(value)));
  case DType::I1:
    *p = value != 0;
    return;
  case DType::I8:
    return store<int8_t>(p, static_cast<int8_t>(value));
  case DType::I16:
    return store<int16_t>(p, static_cast<int16_t>(value));
  case DType::I32:
    return store<int32_t>(p, static_cast<int32_t>(value));
  case DType::I64:
    return store<int64_t>(p, static_cast<int64_t>(value));
  case DType::U8:
    return store<uint8_t>(p, static_cast<uint8_t>(value));
  case DType::U16:
    return store<uint16_t>(p, static_cast<uint16_t>(value));
  case DType::U32:
    return store<uint32_t>(p, static_cast<uint32_t>(value));
  case DType::U64:
    return store<uint64_t>(p, static_cast<uint64_t>(value));
  }
}

std::string detail::formatTypeString(DType dtype,
                                     const std::vector<int64_t> &shape) {
  std::string text = getDTypeName(dtype);
  text += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ',';
    text += std::to_string(shape[i]);
  }
  text += ']';
  return text;
}

std::string HostArray::getTypeString() const {
  return detail::formatTypeString(dtype, shape);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

namespace {

/// The dtype of an npy `descr` (without its byte-order character), if
/// supported.
bool parseDescr(const std::string &descr, DType &dtype, bool &bigEndian) {
  if (descr == "bfloat16") {
    dtype = DType::BF16;
    bigEndian = false;
    return true;
  }
  if (descr.size() < 3)
    return false;
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return false;
  bigEndian = order == '>';
  std::string code = descr.substr(1);
  static const struct {
    const char *code;
    DType dtype;
  } table[] = {{"f4", DType::F32}, {"f8", DType::F64}, {"f2", DType::F16},
               {"b1", DType::I1},  {"i1", DType::I8},  {"i2", DType::I16},
               {"i4", DType::I32}, {"i8", DType::I64}, {"u1", DType::U8},
               {"u2", DType::U16}, {"u4", DType::U32}, {"u8", DType::U64}};
  for (const auto &entry : table) {
    if (code == entry.code) {
      dtype = entry.dtype;
      return true;
    }
  }
  return false;
}

/// A cursor over the Python dict literal of an npy header.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    out.clear();
    while (pos < text.size() && text[pos] != quote)
      out += text[pos++];
    if (pos >= text.size())
      return false;
    ++pos;
    return true;
  }
  bool parseBool(bool &out) {
    skipSpace();
    if (text.compare(pos, 4, "True") == 0) {
      pos += 4;
      out = true;
      return true;
    }
    if (text.compare(pos, 5, "False") == 0) {
      pos += 5;
      out = false;
      return true;
    }
    return false;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return false;
    shape.clear();
    while (true) {
      if (consume(')'))
        return true;
      skipSpace();
      if (pos >= text.size() ||
          !std::isdigit(static_cast<unsigned char>(text[pos])))
        return false;
      int64_t value = 0;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos]))) {
        int digit = text[pos++] - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
          return false;
        value = value * 10 + digit;
      }
      shape.push_back(value);
      if (consume(')'))
        return true;
      if (!consume(','))
        return false;
    }
  }
  bool atEnd() {
    skipSpace();
    return pos >= text.size();
  }

private:
  const std::string &text;
  size_t pos = 0;
};

void byteSwap(uint8_t *data, int64_t count, int64_t width) {
  for (int64_t i = 0; i < count; ++i)
    std::reverse(data + i * width, data + (i + 1) * width);
}

/// What the header of a .npy file says.
struct NpyInfo {
  /// Where the header text starts and its length.
  size_t headerStart = 0;
  size_t headerLength = 0;
  DType dtype = DType::F32;
  bool bigEndian = false;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  /// The bytes of the data section the shape calls for.
  int64_t dataBytes = 0;

  size_t getDataStart() const { return headerStart + headerLength; }
};

/// Reads the magic string, the version and the header length from the
/// first `size` bytes (at most 12 are looked at). Returns false with
/// `message` set on a bad or truncated prefix.
bool parsePrefix(const uint8_t *bytes, size_t size, NpyInfo &info,
                 std::string &message) {
  static const uint8_t magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < sizeof(magic) || std::memcmp(bytes, magic, sizeof(magic)) != 0) {
    message = "not a .npy file (bad magic string)";
    return false;
  }
  if (size < 10) {
    message = "truncated .npy header";
    return false;
  }
  uint8_t major = bytes[6];
  if (major == 1) {
    info.headerLength = bytes[8] | (bytes[9] << 8);
    info.headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      message = "truncated .npy header";
      return false;
    }
    info.headerLength = static_cast<size_t>(bytes[8]) | (bytes[9] << 8) |
                        (bytes[10] << 16) |
                        (static_cast<size_t>(bytes[11]) << 24);
    info.headerStart = 12;
  } else {
    message = "unsupported .npy format version " + std::to_string(major);
    return false;
  }
  if (info.headerLength > static_cast<size_t>(kMaxNpyHeaderBytes)) {
    message = "the .npy header is " + std::to_string(info.headerLength) +
              " bytes long, more than the limit of " +
              std::to_string(kMaxNpyHeaderBytes);
    return false;
  }
  return true;
}

/// `text` from a header in single quotes, for a one-line message: bytes
/// outside printable ASCII as \xNN, at most 64 of them.
std::string quote(const std::string &text) {
  std::string result = "'";
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 64) {
      result += "...";
      break;
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      result += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      result += escaped;
    }
  }
  return result + "'";
}

/// Parses the header's dictionary into `info` and computes the size of the
/// data section. Returns false with `message` set.
bool parseHeader(const std::string &header, NpyInfo &info,
                 std::string &message) {
  auto fail = [&](const std::string &text) {
    message = text;
    return false;
  };
  std::string descr;
  bool haveDescr = false, haveOrder = false, haveShape = false;
  HeaderParser parser(header);
  if (!parser.consume('{'))
    return fail("malformed .npy header: expected a dictionary");
  while (!parser.consume('}')) {
    std::string key;
    if (!parser.parseString(key) || !parser.consume(':'))
      return fail("malformed .npy header");
    if (key == "descr") {
      if (!parser.parseString(descr))
        return fail("malformed .npy header: bad 'descr'");
      haveDescr = true;
    } else if (key == "fortran_order") {
      if (!parser.parseBool(info.fortranOrder))
        return fail("malformed .npy header: bad 'fortran_order'");
      haveOrder = true;
    } else if (key == "shape") {
      if (!parser.parseShape(info.shape))
        return fail("malformed .npy header: bad 'shape'");
      haveShape = true;
    } else {
      return fail("malformed .npy header: unknown key " + quote(key));
    }
    if (!parser.consume(',')) {
      if (!parser.consume('}'))
        return fail("malformed .npy header");
      break;
    }
  }
  if (!parser.atEnd())
    return fail("malformed .npy header: unexpected text after the dictionary");
  if (!haveDescr || !haveOrder || !haveShape)
    return fail("malformed .npy header: 'descr', 'fortran_order' and 'shape' "
                "are required");
  if (static_cast<int64_t>(info.shape.size()) > kMaxNpyRank)
    return fail("malformed .npy header: the shape has " +
                std::to_string(info.shape.size()) + " dimensions, more than " +
                std::to_string(kMaxNpyRank));
  if (!parseDescr(descr, info.dtype, info.bigEndian))
    return fail("unsupported dtype " + quote(descr));
  if (!getByteSize(info.dtype, info.shape, info.dataBytes))
    return fail("an array of shape " + formatShape(info.shape) + " and dtype " +
                getDTypeName(info.dtype) + " overflows a 64-bit byte count");
  return true;
}

/// "has 20 bytes of data, expected 24 for f32 of shape (2, 3)".
std::string describeDataSize(uint64_t actual, const NpyInfo &info) {
  return "has " + std::to_string(actual) + " bytes of data, expected " +
         std::to_string(info.dataBytes) + " for " + getDTypeName(info.dtype) +
         " of shape " + formatShape(info.shape);
}

/// Makes `array` (holding the raw data of `info`) native-endian and
/// row-major. Returns false with `message` set if the row-major copy of a
/// Fortran-order array cannot be allocated.
bool normalize(const NpyInfo &info, HostArray &array, std::string &message) {
  int64_t width = getDTypeBytes(info.dtype);
  int64_t count = array.getNumElements();
  if (info.bigEndian && width > 1)
    byteSwap(array.data(), count, width);
  const std::vector<int64_t> &shape = info.shape;
  if (!info.fortranOrder || shape.size() <= 1 || count == 0)
    return true;
  // Column-major to row-major.
  HostArray rowMajor;
  if (!HostArray::create(info.dtype, shape, rowMajor, message))
    return false;
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t source = 0, stride = 1;
    for (size_t d = 0; d < rank; ++d) {
      source += index[d] * stride;
      stride *= shape[d];
    }
    std::memcpy(rowMajor.data() + i * width, array.data() + source * width,
                width);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  array = std::move(rowMajor);
  return true;
}

/// Closes a file descriptor (unless it is -1).
struct FileCloser {
  int fd;
  ~FileCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Reads up to `size` bytes, stopping early only at the end of the file.
/// Returns the bytes read, or -1 with errno set on a read error.
int64_t readFully(int fd, void *buffer, size_t size) {
  auto *out = static_cast<uint8_t *>(buffer);
  size_t done = 0;
  while (done < size) {
    // Linux reads at most about 2 GiB at once.
    size_t chunk = std::min<size_t>(size - done, size_t(1) << 30);
    ssize_t n = ::read(fd, out + done, chunk);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (n == 0)
      break;
    done += static_cast<size_t>(n);
  }
  return static_cast<int64_t>(done);
}

/// What kind of file `mode` is: "a directory", "a FIFO", ...
const char *describeFileType(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/// Opens `path` (a regular file only, without blocking on a FIFO), reads and
/// checks its header and compares the data size with the file's. Returns
/// the descriptor (the caller closes it), or -1 with `error` set.
int openNpyFile(const std::string &path, NpyInfo &info, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = path + ": " + message;
    return -1;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return fail(std::string("cannot open file: ") + std::strerror(errno));
  FileCloser closer{fd};
  struct stat status;
  if (::fstat(fd, &status) != 0)
    return fail(std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(status.st_mode))
    return fail("is a directory, not a .npy file");
  if (!S_ISREG(status.st_mode))
    return fail(std::string("is ") + describeFileType(status.st_mode) +
                ", not a regular .npy file");
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0)
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);

  auto readError = [&] {
    return fail(std::string("read error: ") + std::strerror(errno));
  };
  uint8_t prefix[12];
  std::string message;
  int64_t got = readFully(fd, prefix, 10);
  if (got < 0)
    return readError();
  if (got == 10 && (prefix[6] == 2 || prefix[6] == 3)) {
    int64_t more = readFully(fd, prefix + 10, 2);
    if (more < 0)
      return readError();
    got += more;
  }
  if (!parsePrefix(prefix, static_cast<size_t>(got), info, message))
    return fail(message);
  std::string header(info.headerLength, '\0');
  got = readFully(fd, header.data(), header.size());
  if (got < 0)
    return readError();
  if (static_cast<size_t>(got) != header.size())
    return fail("truncated .npy header");
  if (!parseHeader(header, info, message))
    return fail(message);

  uint64_t fileBytes = static_cast<uint64_t>(status.st_size);
  uint64_t dataStart = info.getDataStart();
  uint64_t available = fileBytes > dataStart ? fileBytes - dataStart : 0;
  if (available != static_cast<uint64_t>(info.dataBytes))
    return fail(describeDataSize(available, info));
  closer.fd = -1;
  return fd;
}

bool readNpyFile(const std::string &path, HostArray &array,
                 std::string &error) {
  NpyInfo info;
  int fd = openNpyFile(path, info, error);
  if (fd < 0)
    return false;
  FileCloser closer{fd};
  auto fail = [&](const std::string &message) {
    error = path + ": " + message;
    return false;
  };
  std::string message;
  HostArray result;
  if (!HostArray::create(info.dtype, info.shape, result, message))
    return fail(message);
  int64_t got =
      readFully(fd, result.data(), static_cast<size_t>(info.dataBytes));
  if (got < 0)
    return fail(std::string("read error: ") + std::strerror(errno));
  if (got != info.dataBytes)
    return fail(describeDataSize(static_cast<uint64_t>(got), info) +
                " (the file shrank while it was read)");
  if (!normalize(info, result, message))
    return fail(message);
  array = std::move(result);
  return true;
}

bool parseNpyBytes(const uint8_t *bytes, size_t size, const std::string &name,
                   HostArray &array, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = name + ": " + message;
    return false;
  };
  NpyInfo info;
  std::string message;
  if (!bytes)
    size = 0;
  if (!parsePrefix(bytes, size, info, message))
    return fail(message);
  if (info.headerLength > size - info.headerStart)
    return fail("truncated .npy header");
  std::string header(reinterpret_cast<const char *>(bytes + info.headerStart),
                     info.headerLength);
  if (!parseHeader(header, info, message))
    return fail(message);
  uint64_t available = size - info.getDataStart();
  if (available != static_cast<uint64_t>(info.dataBytes))
    return fail(describeDataSize(available, info));
  HostArray result;
  if (!HostArray::create(info.dtype, info.shape, result, message))
    return fail(message);
  if (info.dataBytes)
    std::memcpy(result.data(), bytes + info.getDataStart(), info.dataBytes);
  if (!normalize(info, result, message))
    return fail(message);
  array = std::move(result);
  return true;
}

/// The npy descr of `dtype`.
const char *getDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "bfloat16";
  case DType::I1:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::I16:
    return "<i2";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::U8:
    return "|u1";
  case DType::U16:
    return "<u2";
  case DType::U32:
    return "<u4";
  case DType::U64:
    return "<u8";
  }
  return "<f4";
}

bool writeNpyFile(const std::string &path, const HostArray &array,
                  std::string &error) {
  int64_t bytes = 0;
  if (!getByteSize(array.getDType(), array.getShape(), bytes)) {
    error = path + ": an array of shape " + formatShape(array.getShape()) +
            " and dtype " + getDTypeName(array.getDType()) +
            " overflows a 64-bit byte count";
    return false;
  }
  if (bytes > 0 && !array.data()) {
    error = path + ": the array has no data";
    return false;
  }
  std::string header =
      std::string("{'descr': '") + getDescr(array.getDType()) +
      "', 'fortran_order': False, 'shape': " + formatShape(array.getShape()) +
      ", }";
  // Version 1.0 stores the header length in 2 bytes; longer headers (a
  // very high rank) need version 2.0.
  int version = header.size() + 1 + 63 + 10 <= 0xffff ? 1 : 2;
  size_t prefixBytes = version == 1 ? 10 : 12;
  // Pad with spaces so that the data start at a multiple of 64 bytes.
  size_t total = prefixBytes + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string prefix = "\x93NUMPY";
  prefix += static_cast<char>(version);
  prefix += '\0';
  size_t length = header.size();
  for (size_t i = 0; i < prefixBytes - 8; ++i)
    prefix += static_cast<char>((length >> (8 * i)) & 0xff);

  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = path + ": cannot create file: " + std::strerror(errno);
    return false;
  }
  bool ok =
      std::fwrite(prefix.data(), 1, prefix.size(), file) == prefix.size() &&
      std::fwrite(header.data(), 1, header.size(), file) == header.size() &&
      (bytes == 0 || std::fwrite(array.data(), 1, static_cast<size_t>(bytes),
                                 file) == static_cast<size_t>(bytes));
  int writeErrno = errno;
  if (std::fclose(file) != 0 && ok) {
    ok = false;
    writeErrno = errno;
  }
  if (!ok) {
    error = path + ": write error: " + std::strerror(writeErrno);
    return false;
  }
  return true;
}

} // namespace

int detail::openNpyForReading(const std::string &path, NpyHeader &header,
                              std::string &error) {
  NpyInfo info;
  int fd = -1;
  catchAll(path, error, [&] {
    fd = openNpyFile(path, info, error);
    return fd >= 0;
  });
  if (fd < 0)
    return -1;
  header.dtype = info.dtype;
  header.shape = info.shape;
  header.bigEndian = info.bigEndian;
  header.fortranOrder = info.fortranOrder;
  header.dataOffset = static_cast<int64_t>(info.getDataStart());
  header.dataBytes = info.dataBytes;
  return fd;
}

bool parseNpy(const uint8_t *bytes, size_t size, const std::string &name,
              HostArray &array, std::string &error) {
  return catchAll(name, error, [&] {
    return parseNpyBytes(bytes, size, name, array, error);
  });
}

bool readNpy(const std::string &path, HostArray &array, std::string &error) {
  return catchAll(path, error, [&] { return readNpyFile(path, array, error); });
}

bool writeNpy(const std::string &path, const HostArray &array,
              std::string &error) {
  return catchAll(path, error,
                  [&] { return writeNpyFile(path, array, error); });
}

} // namespace tessera::rt
