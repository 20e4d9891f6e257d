//===- CommDialect.cpp - comm dialect registration ------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Comm/IR/CommDialect.h"
#include "tessera/Dialect/Comm/IR/CommBytecode.h"
#include "tessera/Dialect/Comm/IR/CommOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessera::comm;

#include "tessera/Dialect/Comm/IR/CommDialect.cpp.inc"
#include "tessera/Dialect/Comm/IR/CommEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Comm/IR/CommAttrs.cpp.inc"

void CommDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/Dialect/Comm/IR/CommAttrs.cpp.inc"
      >();
}

void CommDialect::initialize() {
  registerBytecodeInterface(*this);
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Comm/IR/CommOps.cpp.inc"
      >();
}

Operation *CommDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  // `axis_size` and `axis_index` fold to integer constants.
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || !arith::ConstantOp::isBuildableWith(value, type))
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}
