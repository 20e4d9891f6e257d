//===- RuntimeTypes.h - MLIR element types as runtime dtypes ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_RUNTIMETYPES_H
#define TESSERA_CONVERSION_RUNTIMETYPES_H

#include "tessera/Runtime/DType.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir::tessera {

/// The runtime dtype (`TESSERA_RT_*` code) of a buffer element of type
/// `type`: f16/bf16/f32/f64, i1 (a byte), signless and signed integers of
/// 8-64 bits, unsigned ones, and `index` (stored as i64). Nullopt for any
/// other type.
std::optional<::tessera::rt::DType> getRuntimeDType(Type type);

} // namespace mlir::tessera

#endif // TESSERA_CONVERSION_RUNTIMETYPES_H
