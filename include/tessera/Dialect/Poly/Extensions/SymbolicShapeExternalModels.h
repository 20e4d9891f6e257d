//===- SymbolicShapeExternalModels.h - upstream shape rules -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// External models of `poly::SymbolicShapeOpInterface` for the upstream
// dialects Tessera programs are written in: arith, math, tensor, linalg (all
// structured ops), scf and func.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_EXTENSIONS_SYMBOLICSHAPEEXTERNALMODELS_H
#define TESSERA_DIALECT_POLY_EXTENSIONS_SYMBOLICSHAPEEXTERNALMODELS_H

namespace mlir {
class DialectRegistry;

namespace tessera::poly {

/// Registers the models of every supported upstream dialect, and the
/// symbolic dimensions of spmd's JAX-style types.
void registerSymbolicShapeExternalModels(DialectRegistry &registry);

/// arith: elementwise ops on tensors; index/integer arithmetic, constants,
/// casts, and `cmpi`+`select` as max/min.
void registerArithSymbolicShapeModels(DialectRegistry &registry);
/// math: every op, elementwise.
void registerMathSymbolicShapeModels(DialectRegistry &registry);
/// tensor: dim, empty, cast, extract_slice, insert_slice, pad, concat,
/// reshape, expand_shape, collapse_shape, from_elements, extract, insert,
/// splat, generate, bitcast, rank.
void registerTensorSymbolicShapeModels(DialectRegistry &registry);
/// linalg: every structured op, from its indexing maps.
void registerLinalgSymbolicShapeModels(DialectRegistry &registry);
/// scf: for, while, if, index_switch, execute_region and their terminators.
void registerScfSymbolicShapeModels(DialectRegistry &registry);
/// func: call (nested solving) and return.
void registerFuncSymbolicShapeModels(DialectRegistry &registry);

/// spmd's JAX-style types: `poly.shape` annotations name the dynamic
/// dimensions (`f32[b@x,4]`) through spmd::SymbolicDimsDialectInterface.
void registerSpmdTypesExtension(DialectRegistry &registry);

} // namespace tessera::poly
} // namespace mlir

#endif // TESSERA_DIALECT_POLY_EXTENSIONS_SYMBOLICSHAPEEXTERNALMODELS_H
