//===- SpmdTypesExtension.cpp - symbolic dims in JAX-style types ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Gives spmd's JAX-style types (`spmd-print-types`, `f32[b@x,4]`) the
// symbolic dimensions poly-infer wrote: the poly dialect implements
// spmd::SymbolicDimsDialectInterface by reading `poly.shape` annotations.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"

#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/Dialect/Poly/IR/PolyUtils.h"
#include "tessera/Dialect/Spmd/IR/JaxType.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;

namespace {
/// The symbolic dimensions of a value: the dimensions of its `poly.shape`
/// (argument spec or poly-infer's annotation), which point into the
/// attribute's storage.
struct PolySymbolicDims : public spmd::SymbolicDimsDialectInterface {
  using SymbolicDimsDialectInterface::SymbolicDimsDialectInterface;

  bool getSymbolicDims(Value value,
                       SmallVectorImpl<StringRef> &dims) const override {
    ShapeAttr annotation = getShapeAnnotation(value);
    auto type = dyn_cast<ShapedType>(value.getType());
    if (!annotation || !type || !type.hasRank())
      return false;
    SmallVector<StringRef> strings = annotation.getDimStrings();
    if (static_cast<int64_t>(strings.size()) != type.getRank())
      return false;
    dims.append(strings.begin(), strings.end());
    return true;
  }
};
} // namespace

void poly::registerSpmdTypesExtension(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, PolyDialect *dialect) {
    dialect->addInterfaces<PolySymbolicDims>();
  });
}
