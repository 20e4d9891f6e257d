//===- FuncExtension.cpp - spmd hooks on func.func ------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/Extensions/FuncExtension.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {
/// Verifies the shardings of a function's arguments and results with the
/// module verifier's shared symbol tables.
struct FuncShardingSymbolUserModel
    : SymbolUserOpInterface::ExternalModel<FuncShardingSymbolUserModel,
                                           func::FuncOp> {
  LogicalResult verifySymbolUses(Operation *op,
                                 SymbolTableCollection &symbolTables) const {
    return verifyFunctionShardingSymbolUses(cast<FunctionOpInterface>(op),
                                            symbolTables);
  }
};
} // namespace

void mlir::tessera::spmd::registerFunctionShardingVerifierModels(
    DialectRegistry &registry) {
  registry.addExtension(
      +[](MLIRContext *context, func::FuncDialect *, SpmdDialect *spmd) {
        func::FuncOp::attachInterface<FuncShardingSymbolUserModel>(*context);
        spmd->addFunctionWithShardingSymbolUses(
            OperationName(func::FuncOp::getOperationName(), context));
      });
}
