//===- DType.h - the runtime's element types as a C++ enum ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The element types of the runtime's C ABI (the TesseraRtDtype codes of
// tessera/Runtime/Runtime.h) as a C++ enum, for the compiler (which maps
// MLIR element types to them) and the host (HostArray). Header-only, part of
// TesseraRuntimeABI: no runtime library, no MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_DTYPE_H
#define TESSERA_RUNTIME_DTYPE_H

#include "tessera/Runtime/Runtime.h"

#include <cstdint>

namespace tessera::rt {

/// Element types; the values are the C ABI's `TESSERA_RT_*` dtype codes.
enum class DType : int32_t {
  F32 = TESSERA_RT_F32,
  F64 = TESSERA_RT_F64,
  F16 = TESSERA_RT_F16,
  BF16 = TESSERA_RT_BF16,
  I1 = TESSERA_RT_I1,
  I8 = TESSERA_RT_I8,
  I16 = TESSERA_RT_I16,
  I32 = TESSERA_RT_I32,
  I64 = TESSERA_RT_I64,
  U8 = TESSERA_RT_U8,
  U16 = TESSERA_RT_U16,
  U32 = TESSERA_RT_U32,
  U64 = TESSERA_RT_U64,
};

} // namespace tessera::rt

#endif // TESSERA_RUNTIME_DTYPE_H
