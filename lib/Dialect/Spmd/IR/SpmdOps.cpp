//===- SpmdOps.cpp - spmd operations --------------------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdVerifiers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

LogicalResult MeshOp::verify() {
  MeshAttr mesh = getMesh();
  if (mesh.empty() || mesh.isMaximal())
    return success();
  // All meshes with devices, other than maximal ones, agree on the device
  // count. Each mesh checks against the first such mesh before it.
  for (Operation &sibling : (*this)->getBlock()->getOperations()) {
    if (&sibling == getOperation())
      break;
    auto other = dyn_cast<MeshOp>(&sibling);
    if (!other || other.getMesh().empty() || other.getMesh().isMaximal())
      continue;
    if (other.getMesh().getTotalSize() != mesh.getTotalSize())
      return (emitOpError("has ")
              << mesh.getTotalSize() << " devices but mesh @"
              << other.getSymName() << " has " << other.getMesh().getTotalSize()
              << "; all non-maximal meshes of a module must have the same "
                 "number of devices")
                 .attachNote(other.getLoc())
             << "mesh @" << other.getSymName() << " declared here";
    break;
  }
  return success();
}

#include "tessera/Dialect/Spmd/IR/SpmdInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tessera/Dialect/Spmd/IR/SpmdOps.cpp.inc"
