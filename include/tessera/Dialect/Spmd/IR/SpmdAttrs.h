//===- SpmdAttrs.h - spmd attributes --------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDATTRS_H
#define TESSERA_DIALECT_SPMD_IR_SPMDATTRS_H

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h.inc"

namespace mlir::tessera::spmd {

// Bare (unbracketed) forms used by op assembly formats, e.g.
// `spmd.all_gather [{"y"}, {}] %x ...` or `manual_axes={"x"}`. The
// attributes' own parse/print use `<body>`.

/// `{"x", "y":(1)2}`
ParseResult parseAxisRefListBody(AsmParser &parser, AxisRefListAttr &result);
void printAxisRefListBody(AsmPrinter &printer, AxisRefListAttr list);
/// `[{"x"}, {}]`
ParseResult parseListOfAxisRefListsBody(AsmParser &parser,
                                        ListOfAxisRefListsAttr &result);
void printListOfAxisRefListsBody(AsmPrinter &printer,
                                 ListOfAxisRefListsAttr lists);
/// `[<@mesh, [{"x"}]>, <@mesh, []>]` (possibly empty), the body of a
/// `#spmd.sharding_per_value` and the `in_shardings`/`out_shardings` of
/// region ops.
ParseResult
parseTensorShardingListBody(AsmParser &parser,
                            SmallVectorImpl<TensorShardingAttr> &result);
/// `{"x", "y"}`
ParseResult parseManualAxesBody(AsmParser &parser, ManualAxesAttr &result);
void printManualAxesBody(AsmPrinter &printer, ManualAxesAttr axes);
/// `[{"x"}: 0->1, {"y"}: 1->0]`
ParseResult parseAllToAllParamListBody(AsmParser &parser,
                                       AllToAllParamListAttr &result);
void printAllToAllParamListBody(AsmPrinter &printer,
                                AllToAllParamListAttr params);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_SPMDATTRS_H
