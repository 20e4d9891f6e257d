//===- HostArray.cpp - host arrays, .npy files and shard blocks -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/HostArray.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>

namespace tessera::rt {

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

void HostArray::allocate() {
  // Zero-initialized, 64-byte aligned, at least one alignment unit.
  size_t bytes = static_cast<size_t>(getNumBytes());
  size_t rounded = std::max<size_t>(kAlignment, (bytes + kAlignment - 1) /
                                                    kAlignment * kAlignment);
  auto *p = static_cast<uint8_t *>(std::aligned_alloc(kAlignment, rounded));
  if (!p)
    throw std::bad_alloc();
  std::memset(p, 0, rounded);
  storage.reset(p);
}

HostArray::HostArray(DType dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)) {
  allocate();
}

HostArray::HostArray(const HostArray &other)
    : dtype(other.dtype), shape(other.shape) {
  allocate();
  if (other.storage)
    std::memcpy(storage.get(), other.storage.get(), getNumBytes());
}

HostArray &HostArray::operator=(const HostArray &other) {
  if (this != &other)
    *this = HostArray(other);
  return *this;
}

int64_t HostArray::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
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

std::string HostArray::getTypeString() const {
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

} // namespace

bool parseNpy(const uint8_t *bytes, size_t size, const std::string &name,
              HostArray &array, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = name + ": " + message;
    return false;
  };
  static const uint8_t magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(bytes, magic, sizeof(magic)) != 0)
    return fail("not a .npy file (bad magic string)");
  uint8_t major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = bytes[8] | (bytes[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return fail("truncated .npy header");
    headerLength = static_cast<size_t>(bytes[8]) | (bytes[9] << 8) |
                   (bytes[10] << 16) | (static_cast<size_t>(bytes[11]) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + std::to_string(major));
  }
  if (headerLength > size - headerStart)
    return fail("truncated .npy header");
  std::string header(reinterpret_cast<const char *>(bytes + headerStart),
                     headerLength);

  std::string descr;
  bool fortranOrder = false, haveDescr = false, haveOrder = false,
       haveShape = false;
  std::vector<int64_t> shape;
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
      if (!parser.parseBool(fortranOrder))
        return fail("malformed .npy header: bad 'fortran_order'");
      haveOrder = true;
    } else if (key == "shape") {
      if (!parser.parseShape(shape))
        return fail("malformed .npy header: bad 'shape'");
      haveShape = true;
    } else {
      return fail("malformed .npy header: unknown key '" + key + "'");
    }
    if (!parser.consume(',')) {
      if (!parser.consume('}'))
        return fail("malformed .npy header");
      break;
    }
  }
  if (!haveDescr || !haveOrder || !haveShape)
    return fail("malformed .npy header: 'descr', 'fortran_order' and 'shape' "
                "are required");
  DType dtype;
  bool bigEndian = false;
  if (!parseDescr(descr, dtype, bigEndian))
    return fail("unsupported dtype '" + descr + "'");

  int64_t width = getDTypeBytes(dtype);
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / width / d)
      return fail("array too large");
    count *= d;
  }
  size_t dataStart = headerStart + headerLength;
  uint64_t expected = static_cast<uint64_t>(count) * width;
  if (size - dataStart != expected)
    return fail("has " + std::to_string(size - dataStart) +
                " bytes of data, expected " + std::to_string(expected) +
                " for " + getDTypeName(dtype) + " of shape " + [&] {
                  std::string s = "(";
                  for (size_t i = 0; i < shape.size(); ++i)
                    s += (i ? ", " : "") + std::to_string(shape[i]);
                  return s + (shape.size() == 1 ? ",)" : ")");
                }());

  HostArray result(dtype, shape);
  if (expected)
    std::memcpy(result.data(), bytes + dataStart, expected);
  if (bigEndian && width > 1)
    byteSwap(result.data(), count, width);
  if (fortranOrder && shape.size() > 1) {
    // Column-major to row-major.
    HostArray rowMajor(dtype, shape);
    size_t rank = shape.size();
    std::vector<int64_t> index(rank, 0);
    for (int64_t i = 0; i < count; ++i) {
      int64_t source = 0, stride = 1;
      for (size_t d = 0; d < rank; ++d) {
        source += index[d] * stride;
        stride *= shape[d];
      }
      std::memcpy(rowMajor.data() + i * width, result.data() + source * width,
                  width);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
    result = std::move(rowMajor);
  }
  array = std::move(result);
  return true;
}

bool readNpy(const std::string &path, HostArray &array, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open file";
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  if (file.bad()) {
    error = path + ": read error";
    return false;
  }
  return parseNpy(bytes.data(), bytes.size(), path, array, error);
}

bool writeNpy(const std::string &path, const HostArray &array,
              std::string &error) {
  std::string descr;
  switch (array.getDType()) {
  case DType::F32:
    descr = "<f4";
    break;
  case DType::F64:
    descr = "<f8";
    break;
  case DType::F16:
    descr = "<f2";
    break;
  case DType::BF16:
    descr = "bfloat16";
    break;
  case DType::I1:
    descr = "|b1";
    break;
  case DType::I8:
    descr = "|i1";
    break;
  case DType::I16:
    descr = "<i2";
    break;
  case DType::I32:
    descr = "<i4";
    break;
  case DType::I64:
    descr = "<i8";
    break;
  case DType::U8:
    descr = "|u1";
    break;
  case DType::U16:
    descr = "<u2";
    break;
  case DType::U32:
    descr = "<u4";
    break;
  case DType::U64:
    descr = "<u8";
    break;
  }
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  const auto &shape = array.getShape();
  for (size_t i = 0; i < shape.size(); ++i)
    header += (i ? ", " : "") + std::to_string(shape[i]);
  header += shape.size() == 1 ? ",), }" : "), }";
  // Pad with spaces so that the data start at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot create file";
    return false;
  }
  const char prefix[] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  file.write(prefix, sizeof(prefix));
  uint16_t length = static_cast<uint16_t>(header.size());
  char lengthBytes[2] = {static_cast<char>(length & 0xff),
                         static_cast<char>(length >> 8)};
  file.write(lengthBytes, 2);
  file.write(header.data(), header.size());
  file.write(reinterpret_cast<const char *>(array.data()), array.getNumBytes());
  if (!file) {
    error = path + ": write error";
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Shard blocks
//===----------------------------------------------------------------------===//

int64_t ShardLayout::getNumBlocks(size_t d) const {
  int64_t n = 1;
  if (d < dims.size())
    for (const AxisPart &part : dims[d])
      n *= part.size;
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
    int64_t blocks = getNumBlocks(d);
    local[d] = (local[d] + blocks - 1) / blocks;
  }
  return local;
}

/// Copies between a global array and a device's block: `toBlock` selects
/// the direction. Rows of the innermost dimension are copied with memcpy.
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
    origin[d] = layout.getBlockIndex(d, coords) * local[d];
    extent[d] =
        std::max<int64_t>(0, std::min<int64_t>(local[d], shape[d] - origin[d]));
    if (extent[d] == 0)
      return; // An all-padding block.
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

HostArray extractBlock(const HostArray &global, const ShardLayout &layout,
                       const std::vector<int64_t> &coords) {
  HostArray block(global.getDType(), layout.getLocalShape(global.getShape()));
  if (global.getNumElements() > 0)
    copyBlock(const_cast<HostArray &>(global), block, layout, coords,
              /*toBlock=*/true);
  return block;
}

void insertBlock(HostArray &global, const HostArray &block,
                 const ShardLayout &layout,
                 const std::vector<int64_t> &coords) {
  if (global.getNumElements() > 0)
    copyBlock(global, const_cast<HostArray &>(block), layout, coords,
              /*toBlock=*/false);
}

} // namespace tessera::rt
