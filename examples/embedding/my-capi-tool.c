/*===- my-capi-tool.c - Tessera's C API from a C program ----------*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Parses a sharded function with Tessera's dialects, prints the JAX-style
 * type of its argument, and asks the symbolic-shape calculator a question.
 */

#include "tessera-c/Registration.h"
#include "tessera-c/Spmd.h"
#include "tessera-c/SymbolicShape.h"

#include "mlir-c/IR.h"

#include <stdio.h>

static void print(MlirStringRef s, void *userData) {
  (void)userData;
  printf("%.*s\n", (int)s.length, s.data);
}

int main(void) {
  MlirStringRef version = tesseraGetVersion();
  printf("Tessera %.*s\n", (int)version.length, version.data);

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tesseraRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "spmd.mesh @mesh = <[\"data\"=4], axis_types=[explicit]>\n"
               "func.func @f(%x: tensor<16x8xf32> {spmd.sharding = "
               "#spmd.sharding<@mesh, [{\"data\"}, {}]>}) {\n"
               "  return\n"
               "}\n"));
  if (mlirModuleIsNull(module))
    return 1;
  MlirBlock body = mlirRegionGetFirstBlock(
      mlirOperationGetRegion(mlirModuleGetOperation(module), 0));
  MlirOperation func =
      mlirOperationGetNextInBlock(mlirBlockGetFirstOperation(body));
  MlirValue x = mlirBlockGetArgument(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0)), 0);
  tesseraValueGetJaxType(x, false, print, NULL);

  TesseraSymbolicScope scope = tesseraSymbolicScopeCreate(0, NULL, false,
                                                          print, NULL);
  TesseraCompareResult r = tesseraSymbolicCompare(
      scope, mlirStringRefCreateFromCString("b"),
      mlirStringRefCreateFromCString(">="),
      mlirStringRefCreateFromCString("mod(b, 3)"), print, NULL);
  printf("b >= mod(b, 3): %s\n", r == TesseraCompareTrue ? "true" : "not proven");
  tesseraSymbolicScopeDestroy(scope);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
