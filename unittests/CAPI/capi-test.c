/*===- capi-test.c - tests of Tessera's C API, written in C -------*- C -*-===*\
|*                                                                            *|
|* Part of the Tessera project, under the Apache License v2.0.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Every function of include/tessera-c, with its error paths. The output is
 * checked by test/CAPI/capi.test with FileCheck; the program also exits
 * non-zero when a check in it fails.
 */

#include "tessera-c/Artifact.h"
#include "tessera-c/Execution.h"
#include "tessera-c/Registration.h"
#include "tessera-c/Spmd.h"
#include "tessera-c/SymbolicShape.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "CHECK failed at line %d: %s\n", __LINE__, #cond);       \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void printPrefixed(MlirStringRef s, void *userData) {
  fprintf(stdout, "%s%.*s\n", (const char *)userData, (int)s.length, s.data);
}

static void printVar(MlirStringRef name, int64_t value, void *userData) {
  (void)userData;
  fprintf(stdout, "var %.*s = %lld\n", (int)name.length, name.data,
          (long long)value);
}

/// The prefix `print` writes before a string, as callback user data.
#define P(text) ((void *)(uintptr_t)(text))

/// Prints a string after the prefix passed as user data.
static void print(MlirStringRef s, void *userData) {
  printPrefixed(s, userData);
}

static void printPiece(MlirStringRef s, void *userData) {
  (void)userData;
  fprintf(stdout, "%.*s", (int)s.length, s.data);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)userData;
  fprintf(stdout, "diagnostic: ");
  mlirDiagnosticPrint(diag, printPiece, NULL);
  fprintf(stdout, "\n");
  return mlirLogicalResultSuccess();
}

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static void testRegistrationAndTypes(void) {
  fprintf(stdout, "@registration\n");
  MlirStringRef version = tesseraGetVersion();
  fprintf(stdout, "version %.*s\n", (int)version.length, version.data);
  // CHECK-LABEL: @registration
  // CHECK: version {{[0-9]+\.[0-9]+\.[0-9]+}}

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tesseraRegisterAllDialects(registry);
  tesseraRegisterAllPasses();
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);

  MlirDialectHandle spmd = mlirGetDialectHandle__spmd__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(spmd);
  fprintf(stdout, "dialect %.*s\n", (int)ns.length, ns.data);
  // CHECK: dialect spmd

  const char *source =
      "spmd.mesh @mesh = <[\"x\"=2, \"y\"=4], axis_types=[explicit, explicit]>\n"
      "func.func @f(%a: tensor<8x16xf32> {spmd.sharding = "
      "#spmd.sharding<@mesh, [{\"x\"}, {\"y\"}]>}) -> tensor<8x16xf32> {\n"
      "  return %a : tensor<8x16xf32>\n"
      "}\n";
  MlirModule module = mlirModuleCreateParse(ctx, str(source));
  CHECK(!mlirModuleIsNull(module));
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(moduleOp, 0));
  MlirOperation func = mlirOperationGetNextInBlock(mlirBlockGetFirstOperation(body));
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirValue arg = mlirBlockGetArgument(entry, 0);
  tesseraValueGetJaxType(arg, false, print, P("jax type "));
  // CHECK: jax type f32[8@x,16@y]
  tesseraValueGetJaxType(arg, true, print, P("all axes "));
  // CHECK: all axes f32[8@x,16@y]
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
}

static void testMeshesAndShardings(void) {
  fprintf(stdout, "@meshes\n");
  // CHECK-LABEL: @meshes
  MlirContext ctx = mlirContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);

  MlirStringRef names[] = {str("data"), str("model")};
  int64_t sizes[] = {4, 2};
  MlirAttribute mesh = tesseraMeshAttrGet(ctx, 2, names, sizes);
  CHECK(!mlirAttributeIsNull(mesh));
  CHECK(tesseraAttributeIsAMesh(mesh));
  CHECK(!tesseraAttributeIsATensorSharding(mesh));
  mlirAttributePrint(mesh, printPiece, NULL);
  fprintf(stdout, "\n");
  // CHECK: #spmd.mesh<["data"=4, "model"=2]>
  fprintf(stdout, "axes %ld devices %lld\n", (long)tesseraMeshAttrGetNumAxes(mesh),
          (long long)tesseraMeshAttrGetNumDevices(mesh));
  // CHECK: axes 2 devices 8
  MlirStringRef axis1 = tesseraMeshAttrGetAxisName(mesh, 1);
  fprintf(stdout, "axis 1 %.*s=%lld\n", (int)axis1.length, axis1.data,
          (long long)tesseraMeshAttrGetAxisSize(mesh, 1));
  // CHECK: axis 1 model=2

  // Error paths: duplicate names, a size below 1, too many devices.
  MlirStringRef dup[] = {str("x"), str("x")};
  int64_t two[] = {2, 2};
  CHECK(mlirAttributeIsNull(tesseraMeshAttrGet(ctx, 2, dup, two)));
  // CHECK: diagnostic: duplicate axis name: "x"
  MlirStringRef one[] = {str("x")};
  int64_t zero[] = {0};
  CHECK(mlirAttributeIsNull(tesseraMeshAttrGet(ctx, 1, one, zero)));
  // CHECK: diagnostic: axis size must be at least 1, got: 0 for axis "x"
  int64_t huge[] = {4294967296, 4294967296};
  MlirStringRef xy[] = {str("x"), str("y")};
  CHECK(mlirAttributeIsNull(tesseraMeshAttrGet(ctx, 2, xy, huge)));
  // CHECK: diagnostic: mesh has too many devices: the product of the axis sizes overflows

  // A sharding [{"data"}, {"model", ?}, {}].
  intptr_t numAxes[] = {1, 1, 0};
  MlirStringRef axes[] = {str("data"), str("model")};
  bool closed[] = {true, false, true};
  MlirAttribute sharding =
      tesseraTensorShardingAttrGet(ctx, str("mesh"), 3, numAxes, axes, closed);
  CHECK(!mlirAttributeIsNull(sharding));
  CHECK(tesseraAttributeIsATensorSharding(sharding));
  CHECK(!tesseraAttributeIsAMesh(sharding));
  mlirAttributePrint(sharding, printPiece, NULL);
  fprintf(stdout, "\n");
  // CHECK: #spmd.sharding<@mesh, [{"data"}, {"model", ?}, {}]>
  MlirStringRef meshName = tesseraTensorShardingAttrGetMeshName(sharding);
  fprintf(stdout, "mesh %.*s rank %ld\n", (int)meshName.length, meshName.data,
          (long)tesseraTensorShardingAttrGetRank(sharding));
  // CHECK: mesh mesh rank 3
  for (intptr_t d = 0; d < 3; ++d) {
    fprintf(stdout, "dim %ld: %ld axes, %s, priority %lld\n", (long)d,
            (long)tesseraTensorShardingAttrGetDimNumAxes(sharding, d),
            tesseraTensorShardingAttrIsDimClosed(sharding, d) ? "closed" : "open",
            (long long)tesseraTensorShardingAttrGetDimPriority(sharding, d));
    for (intptr_t i = 0; i < tesseraTensorShardingAttrGetDimNumAxes(sharding, d); ++i)
      tesseraTensorShardingAttrGetDimAxis(sharding, d, i, print, P("  axis "));
  }
  // CHECK: dim 0: 1 axes, closed, priority -1
  // CHECK-NEXT:   axis "data"
  // CHECK-NEXT: dim 1: 1 axes, open, priority -1
  // CHECK-NEXT:   axis "model"
  // CHECK-NEXT: dim 2: 0 axes, closed, priority -1

  // A parsed sharding with a priority and an inlined mesh.
  MlirAttribute parsed = mlirAttributeParseGet(
      ctx, str("#spmd.sharding<mesh<[\"x\"=2]>, [{\"x\"}p2]>"));
  CHECK(tesseraAttributeIsATensorSharding(parsed));
  MlirStringRef inlinedName = tesseraTensorShardingAttrGetMeshName(parsed);
  fprintf(stdout, "inlined mesh name '%.*s' priority %lld\n",
          (int)inlinedName.length, inlinedName.data,
          (long long)tesseraTensorShardingAttrGetDimPriority(parsed, 0));
  // CHECK: inlined mesh name '' priority 2

  // Error path: a sharding needs a mesh symbol.
  MlirAttribute noMesh =
      tesseraTensorShardingAttrGet(ctx, str(""), 3, numAxes, axes, closed);
  CHECK(mlirAttributeIsNull(noMesh));
  // CHECK: diagnostic: a sharding must name the symbol of an spmd.mesh
  mlirContextDestroy(ctx);
}

static void testSymbolicShapes(void) {
  fprintf(stdout, "@symbolic\n");
  // CHECK-LABEL: @symbolic
  MlirStringRef constraints[] = {str("a >= b + 8"), str("b >= 16")};
  TesseraSymbolicScope scope =
      tesseraSymbolicScopeCreate(2, constraints, false, print, P("error: "));
  CHECK(!tesseraSymbolicScopeIsNull(scope));

  CHECK(mlirLogicalResultIsSuccess(
      tesseraSymbolicNormalize(scope, str("b + b + 3"), print, P("normal "))));
  // CHECK: normal 2*b + 3
  CHECK(mlirLogicalResultIsSuccess(
      tesseraSymbolicNormalize(scope, str("b, 2*a"), print, P("shape "))));
  // CHECK: shape (b, 2*a)
  CHECK(mlirLogicalResultIsFailure(
      tesseraSymbolicNormalize(scope, str("b +"), print, P("syntax "))));
  // CHECK: syntax syntax error in symbolic shape

  CHECK(tesseraSymbolicCompare(scope, str("a"), str(">="), str("24"), print,
                               P("error: ")) == TesseraCompareTrue);
  CHECK(tesseraSymbolicCompare(scope, str("b"), str("<"), str("16"), print,
                               P("error: ")) == TesseraCompareFalse);
  CHECK(tesseraSymbolicCompare(scope, str("b"), str(">="), str("mod(b, 3)"),
                               print, P("error: ")) == TesseraCompareTrue);
  CHECK(tesseraSymbolicCompare(scope, str("a"), str(">="), str("2*b"), print,
                               P("inconclusive: ")) == TesseraCompareInconclusive);
  // CHECK: inconclusive: Symbolic dimension comparison 'a' >= '2*b' is inconclusive.
  CHECK(tesseraSymbolicCompare(scope, str("a"), str("=>"), str("b"), print,
                               P("bad op: ")) == TesseraCompareError);
  // CHECK: bad op: invalid comparison operator '=>'
  CHECK(tesseraSymbolicCompare(scope, str("a +"), str(">="), str("b"), NULL,
                               NULL) == TesseraCompareError);
  CHECK(tesseraSymbolicCompare(scope, str("a"), str(">="), str("("), print,
                               P("bad rhs: ")) == TesseraCompareError);
  // CHECK: bad rhs: syntax error

  int64_t dims[] = {32, 16};
  CHECK(mlirLogicalResultIsSuccess(tesseraSymbolicSolve(
      scope, str("a, b"), 2, dims, printVar, print, P("error: "))));
  // CHECK: var a = 32
  // CHECK-NEXT: var b = 16
  int64_t badDims[] = {20, 16};
  CHECK(mlirLogicalResultIsFailure(tesseraSymbolicSolve(
      scope, str("a, b"), 2, badDims, printVar, print, P("assertion: "))));
  // CHECK: assertion: Input shapes do not match the symbolic shape constraint a >= b + 8. Expected '- b + a - 8' to be greater or equal to 0, but found -4.
  int64_t rank1[] = {3};
  CHECK(mlirLogicalResultIsFailure(tesseraSymbolicSolve(
      scope, str("a, b"), 1, rank1, printVar, print, P("rank: "))));
  // CHECK: rank: Rank mismatch for args[0]
  CHECK(mlirLogicalResultIsFailure(tesseraSymbolicSolve(
      scope, str("a,, b"), 2, dims, printVar, print, P("spec: "))));
  // CHECK: spec: syntax error
  tesseraSymbolicScopeDestroy(scope);

  // Error paths of scope creation; destroying a null scope is a no-op.
  MlirStringRef unsat[] = {str("a >= 5"), str("a <= 3")};
  TesseraSymbolicScope none =
      tesseraSymbolicScopeCreate(2, unsat, true, print, P("create: "));
  CHECK(tesseraSymbolicScopeIsNull(none));
  // CHECK: create: Unsatisfiable constraint: a <= 3
  MlirStringRef syntax[] = {str("a >> 3")};
  CHECK(tesseraSymbolicScopeIsNull(
      tesseraSymbolicScopeCreate(1, syntax, false, print, P("create: "))));
  // CHECK: create: Constraint parsing error: must contain one of '==' or '>=' or '<='
  CHECK(tesseraSymbolicScopeIsNull(
      tesseraSymbolicScopeCreate(1, syntax, false, NULL, NULL)));
  tesseraSymbolicScopeDestroy(none);

  // The JAX-exact procedure leaves what it cannot decide inconclusive.
  TesseraSymbolicScope exact =
      tesseraSymbolicScopeCreate(0, NULL, true, print, P("error: "));
  CHECK(tesseraSymbolicCompare(exact, str("b"), str(">="), str("mod(b, 3)"),
                               NULL, NULL) == TesseraCompareInconclusive);
  tesseraSymbolicScopeDestroy(exact);
}

static void testExecution(void) {
  fprintf(stdout, "@execution\n");
  // CHECK-LABEL: @execution
  // A row-sharded doubling on four emulated devices, checked against the
  // single-device reference.
  const char *program =
      "spmd.mesh @mesh = <[\"x\"=4]>\n"
      "func.func @main(%a: tensor<8x2xi32> {spmd.sharding = "
      "#spmd.sharding<@mesh, [{\"x\"}, {}]>}) -> tensor<8x2xi32> {\n"
      "  %0 = arith.addi %a, %a : tensor<8x2xi32>\n"
      "  return %0 : tensor<8x2xi32>\n"
      "}\n";
  TesseraRunOptions options = tesseraRunOptionsGetDefault();
  CHECK(options.optLevel == 3 && !options.check && options.entry.data == NULL);
  options.check = true;
  options.optLevel = 1;
  options.seed = 3;
  fflush(stdout);
  CHECK(mlirLogicalResultIsSuccess(tesseraRunProgram(
      str(program), str("double.mlir"), &options, print, P("run: "))));
  // CHECK: tessera-run: @main on x=4 (4 devices)
  // CHECK: result0: i32[8,2] = [
  // CHECK: check: all 1 results match the single-device reference

  // A smaller mesh given by name.
  options.meshSizes = str("x=2");
  options.check = false;
  CHECK(mlirLogicalResultIsSuccess(tesseraRunProgram(
      str(program), str("double.mlir"), &options, print, P("run: "))));
  // CHECK: tessera-run: @main on x=2 (2 devices)

  // Errors reach the callback: an unknown entry, a mesh axis the module does
  // not have, and a parse error with its location.
  options = tesseraRunOptionsGetDefault();
  options.entry = str("nope");
  CHECK(mlirLogicalResultIsFailure(tesseraRunProgram(
      str(program), str("double.mlir"), &options, print, P("run: "))));
  // CHECK: run: error: unknown entry function 'nope' (the module defines: main)
  options = tesseraRunOptionsGetDefault();
  options.meshSizes = str("y=2");
  CHECK(mlirLogicalResultIsFailure(tesseraRunProgram(
      str(program), str("double.mlir"), &options,
      print, P("run: "))));
  // CHECK: run: error: --mesh names axis 'y', which the mesh does not have (its axes are x)
  CHECK(mlirLogicalResultIsFailure(tesseraRunProgram(
      str("func.func @main( {"), str("broken.mlir"), NULL, print,
      P("run: "))));
  // CHECK: run: broken.mlir:1:
  // CHECK-SAME: error:
}

/// A growing byte buffer, filled by a string callback.
typedef struct {
  char *data;
  size_t size;
} Bytes;

static void appendBytes(MlirStringRef s, void *userData) {
  Bytes *bytes = (Bytes *)userData;
  bytes->data = (char *)realloc(bytes->data, bytes->size + s.length + 1);
  memcpy(bytes->data + bytes->size, s.data, s.length);
  bytes->size += s.length;
  bytes->data[bytes->size] = 0;
}

/// Prints a result of a call: dtype, shape and the i32 values.
static void printResult(TesseraArray array, void *userData) {
  (void)userData;
  fprintf(stdout, "result %.*s[", (int)array.dtype.length, array.dtype.data);
  int64_t count = 1;
  for (intptr_t d = 0; d < array.rank; ++d) {
    fprintf(stdout, "%s%lld", d ? "," : "", (long long)array.shape[d]);
    count *= array.shape[d];
  }
  fprintf(stdout, "] =");
  for (int64_t i = 0; i < count; ++i)
    fprintf(stdout, " %d", ((const int32_t *)array.data)[i]);
  fprintf(stdout, "\n");
}

static void testArtifacts(void) {
  fprintf(stdout, "@artifacts\n");
  // CHECK-LABEL: @artifacts
  // A polymorphic doubling (a batch of b rows of 2, sharded over 2 devices)
  // exported, serialized, deserialized, inspected and called.
  const char *program =
      "spmd.mesh @mesh = <[\"x\"=2]>\n"
      "func.func @double(%a: tensor<?x2xi32> {poly.shape = "
      "#poly.shape<\"2*b, 2\">, spmd.sharding = #spmd.sharding<@mesh, "
      "[{\"x\"}, {}]>}) -> tensor<?x2xi32> {\n"
      "  %0 = arith.addi %a, %a : tensor<?x2xi32>\n"
      "  return %0 : tensor<?x2xi32>\n"
      "}\n";
  Bytes bytes = {NULL, 0};
  CHECK(mlirLogicalResultIsSuccess(
      tesseraArtifactExport(str(program), str("double.mlir"), str(""), 3,
                            appendBytes, print, &bytes)));
  CHECK(bytes.size > 80);

  TesseraArtifact artifact = tesseraArtifactDeserialize(
      mlirStringRefCreate(bytes.data, bytes.size), print, P("error: "));
  CHECK(!tesseraArtifactIsNull(artifact));
  MlirStringRef name = tesseraArtifactGetFunctionName(artifact);
  fprintf(stdout, "function %.*s: %d inputs, %d outputs, %d devices\n",
          (int)name.length, name.data,
          (int)tesseraArtifactGetNumInputs(artifact),
          (int)tesseraArtifactGetNumOutputs(artifact),
          (int)tesseraArtifactGetNumDevices(artifact));
  // CHECK: function double: 1 inputs, 1 outputs, 2 devices

  // Serializing gives back the same bytes.
  Bytes again = {NULL, 0};
  tesseraArtifactSerialize(artifact, appendBytes, &again);
  CHECK(again.size == bytes.size &&
        memcmp(again.data, bytes.data, bytes.size) == 0);
  free(again.data);

  tesseraArtifactInspect(artifact, false, printPiece, NULL);
  // CHECK: fun_name: double
  // CHECK: in_avals: (ShapedArray(int32[2*b,2]),)
  // CHECK: in_shardings: (#spmd.sharding<@mesh, [{"x"}, {}]>,)
  // CHECK: dim_vars: ('b',)
  Bytes json = {NULL, 0};
  tesseraArtifactInspect(artifact, true, appendBytes, &json);
  CHECK(json.data && strstr(json.data, "\"function\": \"double\""));
  free(json.data);

  // Called with 4 rows (b = 2) and 6 rows (b = 3).
  int32_t values[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  int64_t shape4[2] = {4, 2}, shape6[2] = {6, 2};
  TesseraArray input = {str("i32"), 2, shape4, values};
  CHECK(mlirLogicalResultIsSuccess(tesseraArtifactCall(
      artifact, 1, &input, str(""), 1, true, printResult, print,
      P("call: "))));
  // CHECK: result i32[4,2] = 0 2 4 6 8 10 12 14
  input.shape = shape6;
  CHECK(mlirLogicalResultIsSuccess(tesseraArtifactCall(
      artifact, 1, &input, str(""), 1, true, printResult, print,
      P("call: "))));
  // CHECK: result i32[6,2] = 0 2 4 6 8 10 12 14 16 18 20 22

  // Exported.call's checks, with JAX's messages.
  int64_t odd[2] = {3, 2};
  input.shape = odd;
  CHECK(mlirLogicalResultIsFailure(tesseraArtifactCall(
      artifact, 1, &input, str(""), 1, true, printResult, print,
      P("call: "))));
  // CHECK: call: error: Input shapes do not match the polymorphic shapes specification. Division had remainder 1 when computing the value of 'b'.
  input.dtype = str("f32");
  input.shape = shape4;
  CHECK(mlirLogicalResultIsFailure(tesseraArtifactCall(
      artifact, 1, &input, str(""), 1, true, printResult, print,
      P("call: "))));
  // CHECK: call: error: Dtype mismatch for args[0]: expected int32 and called with float32
  input.dtype = str("i32");
  CHECK(mlirLogicalResultIsFailure(tesseraArtifactCall(
      artifact, 1, &input, str("x=4"), 1, true, printResult, print,
      P("call: "))));
  // CHECK: call: error: Function double was exported for 2 devices and is called in a context with 4 devices, which is not allowed.
  tesseraArtifactDestroy(artifact);

  // Bad bytes are refused with one message.
  bytes.data[bytes.size - 1] ^= 1;
  TesseraArtifact corrupted = tesseraArtifactDeserialize(
      mlirStringRefCreate(bytes.data, bytes.size), print, P("read: "));
  CHECK(tesseraArtifactIsNull(corrupted));
  // CHECK: read: error: the artifact's payload is corrupted
  tesseraArtifactDestroy(corrupted);
  free(bytes.data);

  // An export error reaches the callback.
  CHECK(mlirLogicalResultIsFailure(
      tesseraArtifactExport(str(program), str("double.mlir"), str("nope"), 3,
                            appendBytes, print, P("export: "))));
  // CHECK: export: error: unknown entry function 'nope' (the module defines: double)
}

int main(void) {
  testRegistrationAndTypes();
  testMeshesAndShardings();
  testSymbolicShapes();
  testExecution();
  testArtifacts();
  fprintf(stdout, "failures: %d\n", failures);
  // CHECK: failures: 0
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
