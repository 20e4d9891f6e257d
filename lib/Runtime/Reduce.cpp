//===- Reduce.cpp - element-wise reduction kernels --------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The reductions of all_reduce and reduce_scatter. Each kernel works through
// its buffers in chunks that fit in the L1 cache: it combines the sources
// into an accumulator chunk with one tight loop per source (which the
// compiler vectorizes), then copies the chunk to every destination. So a
// destination may be one of the sources, and each byte of memory is read and
// written once. f16 and bf16 accumulate in f32 and round to nearest even at
// the end; their conversions are done in software.
//
//===----------------------------------------------------------------------===//

#include "tessera/Runtime/Runtime.h"

#include "RuntimeImpl.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace tessera::rt::detail;

/// Elements per chunk.
static constexpr int64_t kChunk = 2048;

int64_t tessera::rt::detail::getDtypeSize(int32_t dtype) {
  switch (dtype) {
  case TESSERA_RT_F64:
  case TESSERA_RT_I64:
  case TESSERA_RT_U64:
    return 8;
  case TESSERA_RT_F32:
  case TESSERA_RT_I32:
  case TESSERA_RT_U32:
    return 4;
  case TESSERA_RT_F16:
  case TESSERA_RT_BF16:
  case TESSERA_RT_I16:
  case TESSERA_RT_U16:
    return 2;
  case TESSERA_RT_I1:
  case TESSERA_RT_I8:
  case TESSERA_RT_U8:
    return 1;
  default:
    return 0;
  }
}

const char *tessera::rt::detail::getDtypeName(int32_t dtype) {
  static const char *const names[] = {"f32", "f64", "f16", "bf16", "i1",
                                      "i8",  "i16", "i32", "i64",  "u8",
                                      "u16", "u32", "u64"};
  if (dtype < 0 || dtype > TESSERA_RT_U64)
    return nullptr;
  return names[dtype];
}

const char *tessera::rt::detail::getReductionName(int32_t kind) {
  static const char *const names[] = {"sum", "prod", "max", "min"};
  if (kind < 0 || kind > TESSERA_RT_MIN)
    return nullptr;
  return names[kind];
}

//===----------------------------------------------------------------------===//
// f16 and bf16 in software
//===----------------------------------------------------------------------===//

static inline uint32_t toBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

static inline float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

template <typename T> static inline bool isNaN(T a) {
  if constexpr (std::is_floating_point<T>::value)
    return std::isnan(a);
  else
    return false;
}

namespace {
/// IEEE binary16.
struct F16 {
  static inline float toFloat(uint16_t h) {
    constexpr uint32_t kShiftedExp = 0x7c00u << 13;
    uint32_t bits = static_cast<uint32_t>(h & 0x7fff) << 13;
    uint32_t exp = bits & kShiftedExp;
    bits += (127u - 15u) << 23;
    float f;
    if (exp == kShiftedExp) {
      // Inf or NaN.
      f = fromBits(bits + ((128u - 16u) << 23));
    } else if (exp == 0) {
      // Zero or subnormal: renormalize through a float subtraction.
      f = fromBits(bits + (1u << 23)) - fromBits(113u << 23);
    } else {
      f = fromBits(bits);
    }
    return fromBits(toBits(f) | (static_cast<uint32_t>(h & 0x8000) << 16));
  }

  static inline uint16_t fromFloat(float value) {
    constexpr uint32_t kInf = 255u << 23;
    constexpr uint32_t kF16Max = (127u + 16u) << 23;
    constexpr uint32_t kDenormMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    uint32_t bits = toBits(value);
    uint32_t sign = bits & 0x80000000u;
    bits ^= sign;
    uint32_t result;
    if (bits >= kF16Max) {
      // Overflow to Inf, or NaN (made quiet).
      result = bits > kInf ? 0x7e00u : 0x7c00u;
    } else if (bits < (113u << 23)) {
      // A subnormal or zero result: adding 0.5 aligns the 10 mantissa bits at
      // the bottom, rounding to nearest even.
      float shifted = fromBits(bits) + fromBits(kDenormMagic);
      result = toBits(shifted) - kDenormMagic;
    } else {
      uint32_t mantissaOdd = (bits >> 13) & 1u;
      bits -= (127u - 15u) << 23;
      bits += 0xfffu + mantissaOdd;
      result = bits >> 13;
    }
    return static_cast<uint16_t>(result | (sign >> 16));
  }
};

/// bfloat16: the high half of an f32.
struct BF16 {
  static inline float toFloat(uint16_t h) {
    return fromBits(static_cast<uint32_t>(h) << 16);
  }

  static inline uint16_t fromFloat(float value) {
    uint32_t bits = toBits(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
      return static_cast<uint16_t>((bits >> 16) | 0x40u);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>(bits >> 16);
  }
};

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

/// The type integer arithmetic wraps in (no signed overflow, no promotion to
/// int).
template <typename T, bool = std::is_integral<T>::value> struct WrapType {
  using type = T;
};
template <typename T> struct WrapType<T, true> {
  using type = std::conditional_t<(sizeof(T) < sizeof(uint32_t)), uint32_t,
                                  std::make_unsigned_t<T>>;
};

template <typename T> struct Sum {
  static inline T apply(T a, T b) {
    using W = typename WrapType<T>::type;
    return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
  }
};

template <typename T> struct Prod {
  static inline T apply(T a, T b) {
    using W = typename WrapType<T>::type;
    return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
  }
};

/// Floating-point max and min propagate NaN.
template <typename T> struct Max {
  static inline T apply(T a, T b) { return (a > b || isNaN(a)) ? a : b; }
};

template <typename T> struct Min {
  static inline T apply(T a, T b) { return (a < b || isNaN(a)) ? a : b; }
};

/// i1 (one byte, 0 or 1): max is or, min is and.
struct Or {
  static inline uint8_t apply(uint8_t a, uint8_t b) { return a | b; }
};

struct And {
  static inline uint8_t apply(uint8_t a, uint8_t b) { return a & b; }
};
} // namespace

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

void tessera::rt::detail::copyBytes(void *dst, const void *src, size_t bytes,
                                    bool stream) {
#if defined(__SSE2__)
  if (stream && bytes >= 256) {
    char *to = static_cast<char *>(dst);
    const char *from = static_cast<const char *>(src);
    size_t head = (16 - reinterpret_cast<uintptr_t>(to) % 16) % 16;
    std::memcpy(to, from, head);
    to += head;
    from += head;
    bytes -= head;
    size_t blocks = bytes / 16;
    for (size_t i = 0; i < blocks; ++i)
      _mm_stream_si128(
          reinterpret_cast<__m128i *>(to) + i,
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(from) + i));
    std::memcpy(to + blocks * 16, from + blocks * 16, bytes % 16);
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

template <typename T, typename Op>
static void reduceKernel(const void *const *srcs, int64_t numSrcs,
                         void *const *dsts, int64_t numDsts, int64_t n,
                         bool stream) {
  alignas(64) T acc[kChunk];
  for (int64_t start = 0; start < n; start += kChunk) {
    int64_t len = std::min(kChunk, n - start);
    const T *first = static_cast<const T *>(srcs[0]) + start;
    if (numSrcs == 1) {
      for (int64_t i = 0; i < len; ++i)
        acc[i] = first[i];
    } else {
      const T *second = static_cast<const T *>(srcs[1]) + start;
      for (int64_t i = 0; i < len; ++i)
        acc[i] = Op::apply(first[i], second[i]);
    }
    for (int64_t j = 2; j < numSrcs; ++j) {
      const T *src = static_cast<const T *>(srcs[j]) + start;
      for (int64_t i = 0; i < len; ++i)
        acc[i] = Op::apply(acc[i], src[i]);
    }
    for (int64_t d = 0; d < numDsts; ++d)
      copyBytes(static_cast<T *>(dsts[d]) + start, acc, len * sizeof(T),
                stream);
  }
}

/// f16 or bf16 (`Half`), accumulated in f32.
template <typename Half, typename Op>
static void reduceHalfKernel(const void *const *srcs, int64_t numSrcs,
                             void *const *dsts, int64_t numDsts, int64_t n,
                             bool stream) {
  alignas(64) float acc[kChunk];
  alignas(64) uint16_t rounded[kChunk];
  for (int64_t start = 0; start < n; start += kChunk) {
    int64_t len = std::min(kChunk, n - start);
    const uint16_t *first = static_cast<const uint16_t *>(srcs[0]) + start;
    for (int64_t i = 0; i < len; ++i)
      acc[i] = Half::toFloat(first[i]);
    for (int64_t j = 1; j < numSrcs; ++j) {
      const uint16_t *src = static_cast<const uint16_t *>(srcs[j]) + start;
      for (int64_t i = 0; i < len; ++i)
        acc[i] = Op::apply(acc[i], Half::toFloat(src[i]));
    }
    for (int64_t i = 0; i < len; ++i)
      rounded[i] = Half::fromFloat(acc[i]);
    for (int64_t d = 0; d < numDsts; ++d)
      copyBytes(static_cast<uint16_t *>(dsts[d]) + start, rounded,
                len * sizeof(uint16_t), stream);
  }
}

using Kernel = void (*)(const void *const *, int64_t, void *const *, int64_t,
                        int64_t, bool);

template <typename T> static Kernel selectKernel(int32_t kind) {
  switch (kind) {
  case TESSERA_RT_SUM:
    return reduceKernel<T, Sum<T>>;
  case TESSERA_RT_PROD:
    return reduceKernel<T, Prod<T>>;
  case TESSERA_RT_MAX:
    return reduceKernel<T, Max<T>>;
  case TESSERA_RT_MIN:
    return reduceKernel<T, Min<T>>;
  default:
    return nullptr;
  }
}

template <typename Half> static Kernel selectHalfKernel(int32_t kind) {
  switch (kind) {
  case TESSERA_RT_SUM:
    return reduceHalfKernel<Half, Sum<float>>;
  case TESSERA_RT_PROD:
    return reduceHalfKernel<Half, Prod<float>>;
  case TESSERA_RT_MAX:
    return reduceHalfKernel<Half, Max<float>>;
  case TESSERA_RT_MIN:
    return reduceHalfKernel<Half, Min<float>>;
  default:
    return nullptr;
  }
}

static Kernel selectKernel(int32_t dtype, int32_t kind) {
  switch (dtype) {
  case TESSERA_RT_F32:
    return selectKernel<float>(kind);
  case TESSERA_RT_F64:
    return selectKernel<double>(kind);
  case TESSERA_RT_F16:
    return selectHalfKernel<F16>(kind);
  case TESSERA_RT_BF16:
    return selectHalfKernel<BF16>(kind);
  case TESSERA_RT_I1:
    if (kind == TESSERA_RT_MAX)
      return reduceKernel<uint8_t, Or>;
    if (kind == TESSERA_RT_MIN)
      return reduceKernel<uint8_t, And>;
    return nullptr;
  case TESSERA_RT_I8:
    return selectKernel<int8_t>(kind);
  case TESSERA_RT_I16:
    return selectKernel<int16_t>(kind);
  case TESSERA_RT_I32:
    return selectKernel<int32_t>(kind);
  case TESSERA_RT_I64:
    return selectKernel<int64_t>(kind);
  case TESSERA_RT_U8:
    return selectKernel<uint8_t>(kind);
  case TESSERA_RT_U16:
    return selectKernel<uint16_t>(kind);
  case TESSERA_RT_U32:
    return selectKernel<uint32_t>(kind);
  case TESSERA_RT_U64:
    return selectKernel<uint64_t>(kind);
  default:
    return nullptr;
  }
}

void tessera::rt::detail::reduceBuffers(int32_t dtype, int32_t kind,
                                        const void *const *srcs,
                                        int64_t numSrcs, void *const *dsts,
                                        int64_t numDsts, int64_t n,
                                        bool stream) {
  if (n <= 0 || numSrcs <= 0)
    return;
  if (Kernel kernel = selectKernel(dtype, kind))
    kernel(srcs, numSrcs, dsts, numDsts, n, stream);
  if (stream)
    storeFence();
}

void tessera::rt::detail::storeFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}
