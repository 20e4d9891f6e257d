//===- Registration.cpp - Tessera C API: registration and version ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera-c/Registration.h"

#include "tessera/InitAllDialects.h"
#include "tessera/InitAllPasses.h"
#include "tessera/Version.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

void tesseraRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::tessera::registerAllDialects(*unwrap(registry));
}

void tesseraRegisterAllPasses(void) { mlir::tessera::registerAllPasses(); }

MlirStringRef tesseraGetVersion(void) {
  return mlirStringRefCreateFromCString(TESSERA_VERSION_STRING);
}
