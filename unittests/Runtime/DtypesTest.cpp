//===- DtypesTest.cpp - reductions of every element type ------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests the reduction of each dtype and kind on four devices: float kinds and
// NaN, f16 and bf16 accumulating in f32 with round-to-nearest-even (checked
// against roundings written here with double arithmetic), integer
// wrap-around, unsigned comparison, i1 as or/and, and that data movement
// keeps bit patterns.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tessera::rt;
using namespace tessera::rt::test;

/// All-reduces `in` (one operand per device) over a line of in.size()
/// devices; every device must get the same result, which is returned.
template <typename T>
static std::vector<T> allReduce(int32_t dtype, int32_t kind,
                                const std::vector<std::vector<T>> &in) {
  int64_t n = in.size();
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {n});
  std::vector<int64_t> parts = {0, 1, n};
  std::vector<std::vector<T>> out(n, std::vector<T>(in[0].size()));
  runOk(*mesh, [&](int64_t d) {
    tessera_rt_all_reduce(in[d].data(), out[d].data(), in[d].size(), dtype,
                          kind, parts.data(), 1, "test");
  });
  for (int64_t d = 1; d < n; ++d)
    EXPECT_EQ(
        std::memcmp(out[d].data(), out[0].data(), out[0].size() * sizeof(T)), 0)
        << "device " << d << " differs from device 0";
  return out[0];
}

/// Per-device operands from per-element lists of the devices' values.
template <typename T>
static std::vector<std::vector<T>>
byDevice(const std::vector<std::vector<T>> &elements) {
  std::vector<std::vector<T>> in(elements[0].size());
  for (const std::vector<T> &values : elements)
    for (size_t d = 0; d < values.size(); ++d)
      in[d].push_back(values[d]);
  return in;
}

TEST(DtypesTest, F64AllKinds) {
  std::vector<std::vector<double>> in =
      byDevice<double>({{1.5, -2, 3, 0.25}, {-1, -4, -0.5, 2}});
  EXPECT_EQ(allReduce(TESSERA_RT_F64, TESSERA_RT_SUM, in),
            (std::vector<double>{2.75, -3.5}));
  EXPECT_EQ(allReduce(TESSERA_RT_F64, TESSERA_RT_PROD, in),
            (std::vector<double>{-2.25, -4}));
  EXPECT_EQ(allReduce(TESSERA_RT_F64, TESSERA_RT_MAX, in),
            (std::vector<double>{3, 2}));
  EXPECT_EQ(allReduce(TESSERA_RT_F64, TESSERA_RT_MIN, in),
            (std::vector<double>{-2, -4}));
}

TEST(DtypesTest, F32KindsAndNaN) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> in =
      byDevice<float>({{2, 3, 0.5, -1}, {1, nan, 5, 2}, {nan, 1, 2, 3}});
  std::vector<float> prod = allReduce(TESSERA_RT_F32, TESSERA_RT_PROD, in);
  EXPECT_EQ(prod[0], -3);
  std::vector<float> max = allReduce(TESSERA_RT_F32, TESSERA_RT_MAX, in);
  EXPECT_EQ(max[0], 3);
  EXPECT_TRUE(std::isnan(max[1]));
  EXPECT_TRUE(std::isnan(max[2]));
  std::vector<float> min = allReduce(TESSERA_RT_F32, TESSERA_RT_MIN, in);
  EXPECT_EQ(min[0], -1);
  EXPECT_TRUE(std::isnan(min[1]));
  EXPECT_TRUE(std::isnan(min[2]));
}

/// Rounds a finite float to f16 to nearest even, with double arithmetic;
/// returns the f16 bits.
static uint16_t f16Bits(float value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude >= 65520) // halfway to 2^16 and beyond: inf
    return sign | 0x7c00;
  if (magnitude < std::ldexp(1.0, -14)) // subnormal: multiples of 2^-24
    return sign |
           static_cast<uint16_t>(std::nearbyint(std::ldexp(magnitude, 24)));
  int exponent = std::ilogb(magnitude);
  double mantissa = std::nearbyint(std::ldexp(magnitude, 10 - exponent));
  if (mantissa == 2048) {
    mantissa = 1024;
    ++exponent;
  }
  return sign | static_cast<uint16_t>((exponent + 15) << 10) |
         static_cast<uint16_t>(mantissa - 1024);
}

/// The value of finite f16 bits.
static float f16Value(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                                   : std::ldexp(1024 + mantissa, exponent - 25);
  return static_cast<float>((bits & 0x8000) ? -magnitude : magnitude);
}

TEST(DtypesTest, F16AccumulatesInF32) {
  float tiny = std::ldexp(1.0f, -24); // the smallest f16 subnormal
  std::vector<std::vector<float>> values = {
      {2048, 1, 1, 0},         // f16 accumulation would give 2048
      {2048, 3, 0, 0},         // 2051: a tie, rounds to even 2052
      {2048, 1, 0, 0},         // 2049: a tie, rounds to even 2048
      {60000, 60000, 0, 0},    // overflows to inf
      {tiny, tiny, tiny, 0},   // subnormal
      {-0.5, 0.25, 0.125, 1},  // exact
      {-2048, -1, -1, -0.0f}}; // negative
  std::vector<uint16_t> expectedBits = {
      f16Bits(2050),  f16Bits(2052), f16Bits(2048), 0x7c00, 3,
      f16Bits(0.875), f16Bits(-2050)};
  // Pseudo-random finite f16 values, from tiny to large.
  uint32_t state = 12345;
  for (int i = 0; i < 3000; ++i) {
    std::vector<float> column;
    for (int d = 0; d < 4; ++d) {
      state = state * 1664525u + 1013904223u;
      uint16_t bits = static_cast<uint16_t>(state >> 16);
      if ((bits & 0x7c00) == 0x7c00)
        bits &= 0xbfff; // no inf or NaN
      column.push_back(f16Value(bits));
    }
    float acc = column[0];
    for (int d = 1; d < 4; ++d)
      acc += column[d];
    values.push_back(column);
    expectedBits.push_back(f16Bits(acc));
  }
  std::vector<std::vector<uint16_t>> in(4);
  for (const std::vector<float> &column : values)
    for (int d = 0; d < 4; ++d)
      in[d].push_back(f16Bits(column[d]));
  std::vector<uint16_t> sum = allReduce(TESSERA_RT_F16, TESSERA_RT_SUM, in);
  ASSERT_EQ(sum.size(), expectedBits.size());
  for (size_t i = 0; i < sum.size(); ++i)
    ASSERT_EQ(sum[i], expectedBits[i]) << "element " << i;

  std::vector<uint16_t> max = allReduce(TESSERA_RT_F16, TESSERA_RT_MAX, in);
  for (size_t i = 0; i < max.size(); ++i) {
    float expected = values[i][0];
    for (int d = 1; d < 4; ++d)
      expected = std::max(expected, values[i][d]);
    ASSERT_EQ(f16Value(max[i]), expected) << "element " << i;
  }
}

/// Rounds a normal float to bf16 (8 significant bits) to nearest even, with
/// double arithmetic; returns the bf16 bits.
static uint16_t roundToBf16(float value) {
  if (value == 0)
    return std::signbit(value) ? 0x8000 : 0;
  int exponent = std::ilogb(value);
  double scaled = std::ldexp(static_cast<double>(value), 7 - exponent);
  auto rounded =
      static_cast<float>(std::ldexp(std::nearbyint(scaled), exponent - 7));
  uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof(bits));
  return static_cast<uint16_t>(bits >> 16);
}

static float bf16Value(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

TEST(DtypesTest, BF16AccumulatesInF32) {
  std::vector<std::vector<float>> values = {
      {256, 1, 1, 0},  // bf16 accumulation would give 256
      {256, 3, 0, 0},  // 259: a tie, rounds to even 260
      {256, 1, 0, 0},  // 257: a tie, rounds to even 256
      {256, 5, 0, 0}}; // 261: a tie, rounds to even 260
  std::vector<uint16_t> expectedBits = {roundToBf16(258), roundToBf16(260),
                                        roundToBf16(256), roundToBf16(260)};
  EXPECT_EQ(bf16Value(expectedBits[0]), 258);
  EXPECT_EQ(bf16Value(expectedBits[2]), 256);
  uint32_t state = 777;
  for (int i = 0; i < 3000; ++i) {
    std::vector<float> column;
    for (int d = 0; d < 4; ++d) {
      state = state * 1664525u + 1013904223u;
      // Sign, an exponent in [-20, 20] and 7 mantissa bits.
      uint32_t sign = (state >> 31) & 1;
      uint32_t exponent = 127 - 20 + (state >> 8) % 41;
      uint32_t mantissa = (state >> 1) & 0x7f;
      column.push_back(bf16Value(
          static_cast<uint16_t>((sign << 15) | (exponent << 7) | mantissa)));
    }
    float acc = column[0];
    for (int d = 1; d < 4; ++d)
      acc += column[d];
    values.push_back(column);
    expectedBits.push_back(roundToBf16(acc));
  }
  std::vector<std::vector<uint16_t>> in(4);
  for (const std::vector<float> &column : values)
    for (int d = 0; d < 4; ++d) {
      uint32_t bits;
      std::memcpy(&bits, &column[d], sizeof(bits));
      in[d].push_back(static_cast<uint16_t>(bits >> 16));
    }
  std::vector<uint16_t> sum = allReduce(TESSERA_RT_BF16, TESSERA_RT_SUM, in);
  ASSERT_EQ(sum.size(), expectedBits.size());
  for (size_t i = 0; i < sum.size(); ++i)
    ASSERT_EQ(sum[i], expectedBits[i]) << "element " << i;

  std::vector<uint16_t> min = allReduce(TESSERA_RT_BF16, TESSERA_RT_MIN, in);
  for (size_t i = 0; i < min.size(); ++i) {
    float expected = values[i][0];
    for (int d = 1; d < 4; ++d)
      expected = std::min(expected, values[i][d]);
    ASSERT_EQ(bf16Value(min[i]), expected) << "element " << i;
  }
}

TEST(DtypesTest, ReduceScatterBF16) {
  // Four devices, 8 elements: device d gets elements 2d and 2d + 1 of the
  // sum.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {4});
  std::vector<int64_t> parts = {0, 1, 4};
  std::vector<std::vector<uint16_t>> in(4), out(4, std::vector<uint16_t>(2));
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 8; ++k)
      in[d].push_back(roundToBf16(k == 0 ? (d == 0 ? 256 : 1) : d + k));
  runOk(*mesh, [&](int64_t d) {
    int64_t shape[] = {8};
    tessera_rt_reduce_scatter(in[d].data(), out[d].data(), shape, 1,
                              TESSERA_RT_BF16, TESSERA_RT_SUM, 0, parts.data(),
                              1, "rs");
  });
  // Element 0: 256 + 1 + 1 + 1 = 259 -> 260; element k > 0: 6 + 4k.
  EXPECT_EQ(bf16Value(out[0][0]), 260);
  for (int d = 0; d < 4; ++d)
    for (int i = 0; i < 2; ++i)
      if (d || i)
        EXPECT_EQ(bf16Value(out[d][i]), 6 + 4 * (2 * d + i));
}

TEST(DtypesTest, IntegersWrap) {
  std::vector<int32_t> i32 = allReduce(
      TESSERA_RT_I32, TESSERA_RT_SUM,
      byDevice<int32_t>({{std::numeric_limits<int32_t>::max(), 1, 0, 0}}));
  EXPECT_EQ(i32[0], std::numeric_limits<int32_t>::min());
  std::vector<int8_t> i8 = allReduce(TESSERA_RT_I8, TESSERA_RT_SUM,
                                     byDevice<int8_t>({{100, 100, 0, 0}}));
  EXPECT_EQ(i8[0], -56);
  std::vector<int64_t> i64 =
      allReduce(TESSERA_RT_I64, TESSERA_RT_PROD,
                byDevice<int64_t>({{int64_t(1) << 62, 4, 1, 1},
                                   {-3, 5, 7, 11},
                                   {int64_t(1) << 62, 2, 1, 1}}));
  EXPECT_EQ(i64, (std::vector<int64_t>{0, -1155,
                                       std::numeric_limits<int64_t>::min()}));
  std::vector<uint16_t> u16 =
      allReduce(TESSERA_RT_U16, TESSERA_RT_PROD,
                byDevice<uint16_t>({{65535, 65535, 1, 1}}));
  EXPECT_EQ(u16[0], 1);
  std::vector<int16_t> i16 =
      allReduce(TESSERA_RT_I16, TESSERA_RT_MIN,
                byDevice<int16_t>({{-5, 3, -32768, 7}, {1, 2, 3, 4}}));
  EXPECT_EQ(i16, (std::vector<int16_t>{-32768, 1}));
  std::vector<uint8_t> u8 = allReduce(TESSERA_RT_U8, TESSERA_RT_SUM,
                                      byDevice<uint8_t>({{200, 100, 0, 1}}));
  EXPECT_EQ(u8[0], 45);
}

TEST(DtypesTest, UnsignedCompareUnsigned) {
  std::vector<std::vector<uint32_t>> in =
      byDevice<uint32_t>({{0x80000000u, 1, 2, 0xffffffffu}, {5, 9, 7, 6}});
  EXPECT_EQ(allReduce(TESSERA_RT_U32, TESSERA_RT_MAX, in),
            (std::vector<uint32_t>{0xffffffffu, 9}));
  EXPECT_EQ(allReduce(TESSERA_RT_U32, TESSERA_RT_MIN, in),
            (std::vector<uint32_t>{1, 5}));
  std::vector<uint64_t> u64 =
      allReduce(TESSERA_RT_U64, TESSERA_RT_MAX,
                byDevice<uint64_t>({{uint64_t(1) << 63, 1, 2, 3}}));
  EXPECT_EQ(u64[0], uint64_t(1) << 63);
}

TEST(DtypesTest, I1MaxIsOrMinIsAnd) {
  std::vector<std::vector<uint8_t>> in =
      byDevice<uint8_t>({{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}});
  EXPECT_EQ(allReduce(TESSERA_RT_I1, TESSERA_RT_MAX, in),
            (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(allReduce(TESSERA_RT_I1, TESSERA_RT_MIN, in),
            (std::vector<uint8_t>{0, 0, 1}));
}

TEST(DtypesTest, DataMovementKeepsBits) {
  // A signalling NaN and a negative zero in f16, gathered and all-to-all'ed.
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  std::vector<int64_t> parts = {0, 1, 2};
  std::vector<std::vector<uint16_t>> in = {{0x7c01, 0x8000}, {0xfe00, 0x0001}};
  std::vector<std::vector<uint16_t>> gathered(2, std::vector<uint16_t>(4));
  std::vector<std::vector<uint16_t>> exchanged(2, std::vector<uint16_t>(2));
  runOk(*mesh, [&](int64_t d) {
    int64_t shape[] = {2};
    tessera_rt_all_gather(in[d].data(), gathered[d].data(), shape, 1,
                          TESSERA_RT_F16, 0, parts.data(), 1, "ag");
    tessera_rt_all_to_all(in[d].data(), exchanged[d].data(), shape, 1,
                          TESSERA_RT_F16, 0, 0, parts.data(), 1, "a2a");
  });
  std::vector<uint16_t> all = {0x7c01, 0x8000, 0xfe00, 0x0001};
  EXPECT_EQ(gathered[0], all);
  EXPECT_EQ(gathered[1], all);
  EXPECT_EQ(exchanged[0], (std::vector<uint16_t>{0x7c01, 0xfe00}));
  EXPECT_EQ(exchanged[1], (std::vector<uint16_t>{0x8000, 0x0001}));
}

TEST(DtypesTest, GroupOfOneCopiesBits) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  std::vector<uint16_t> in = {0x7f81, 0xffff, 0x0001};
  std::vector<uint16_t> out(3);
  runOk(*mesh, [&](int64_t) {
    tessera_rt_all_reduce(in.data(), out.data(), 3, TESSERA_RT_BF16,
                          TESSERA_RT_SUM, nullptr, 0, "alone");
  });
  EXPECT_EQ(out, in);
}
