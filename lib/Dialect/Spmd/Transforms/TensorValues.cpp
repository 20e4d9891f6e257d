//===- TensorValues.cpp - what partitioning knows of values ---------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Transforms/TensorValues.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tessera::spmd {

bool isZeroSplat(Value value) {
  Attribute attr;
  if (matchPattern(value, m_Constant(&attr))) {
    auto dense = dyn_cast<DenseElementsAttr>(attr);
    return dense && dense.isSplat() &&
           (matchPattern(value, m_AnyZeroFloat()) ||
            matchPattern(value, m_Zero()));
  }
  auto fill = value.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Value scalar = fill.getInputs().front();
  return matchPattern(scalar, m_AnyZeroFloat()) ||
         matchPattern(scalar, m_Zero());
}

} // namespace mlir::tessera::spmd
