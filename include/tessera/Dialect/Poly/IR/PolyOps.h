//===- PolyOps.h - poly operations ------------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYOPS_H
#define TESSERA_DIALECT_POLY_IR_POLYOPS_H

#include "tessera/Dialect/Poly/IR/PolyAttrs.h"
#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/Dialect/Poly/IR/PolyInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tessera::poly {

/// The side-effect resource of `poly.shape_assertion`. An assertion writes
/// it: assertions are never erased as dead, reordered with each other,
/// hoisted out of loops or sunk into conditional regions, so every check runs
/// where and in the order it was placed.
struct ShapeAssertionResource
    : public SideEffects::Resource::Base<ShapeAssertionResource> {
  StringRef getName() final { return "poly::ShapeAssertion"; }
};

} // namespace mlir::tessera::poly

#define GET_OP_CLASSES
#include "tessera/Dialect/Poly/IR/PolyOps.h.inc"

#endif // TESSERA_DIALECT_POLY_IR_POLYOPS_H
