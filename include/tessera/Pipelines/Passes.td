//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The two passes of the `tessera-cpu` pipeline that Tessera implements
// itself (lib/Pipelines); the pipeline is registered in CpuPipeline.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PIPELINES_PASSES_TD
#define TESSERA_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesseraCpuCodegenPass
    : Pass<"tessera-cpu-codegen", "::mlir::func::FuncOp"> {
  let summary = "Tile and vectorize linalg ops on tensors for a CPU";
  let description = [{
    Rewrites the linalg ops of a function on tensors into tiled loops of
    vector ops, with tile sizes derived from a CPU target: the host's
    vector registers (`llvm::sys::getHostCPUFeatures`: AVX-512, AVX,
    SSE/NEON) and caches (`sysconf`), each property replaced by its option
    when the option is not 0.

    * Contractions (matmul, batch_matmul, generic contractions with any
      operand layout; f32, f64, i32, i64) follow the GotoBLAS structure: the
      operand that carries the output's innermost dimension is packed into
      panels of `nr` columns, the packed op is tiled for the caches (a
      `kc x nc` block of B, then an `mc x kc` block of A in half of L2) and
      for the registers: an `mr x nr` tile of accumulators, held in vector
      registers across the `k` loop, updated by one `vector.contract` per
      `k`. Columns that do not fill a panel are a second, padded
      contraction.
    * Every other linalg op (elementwise, reductions, convolutions, pooling,
      transposes, fills, copies) is tiled to one vector of 4 registers along
      the loop that indexes the innermost dimension of most of its data and
      to 1 along the others, reductions innermost, and vectorized.

    Loops whose trip count the tile size may not divide are peeled: the main
    loop has static tiles, the remainder is vectorized with masks. An op
    that cannot be vectorized stays a (tiled) linalg op and becomes scalar
    loops after bufferization.

    For example, with `vector-bits=256 vector-registers=16`, an addition of
    two `tensor<8x100xf32>` becomes a loop over the 8 rows and, in each row,
    a loop of 3 steps over 32 columns (one vector of 4 registers) and a
    masked remainder of 4 columns:

    ```mlir
    %r = linalg.add ins(%a, %b : tensor<8x100xf32>, tensor<8x100xf32>)
                    outs(%e : tensor<8x100xf32>) -> tensor<8x100xf32>
    // becomes
    %mask = vector.constant_mask [1, 4] : vector<1x32xi1>
    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %e)
        -> (tensor<8x100xf32>) {
      %main = scf.for %j = %c0 to %c96 step %c32 iter_args(%row = %acc)
          -> (tensor<8x100xf32>) {
        ...
        %x = vector.transfer_read %a_tile[%c0, %c0], %poison
            {in_bounds = [true, true]} : tensor<1x32xf32>, vector<1x32xf32>
        %y = vector.transfer_read %b_tile[%c0, %c0], %poison
            {in_bounds = [true, true]} : tensor<1x32xf32>, vector<1x32xf32>
        %s = arith.addf %x, %y : vector<1x32xf32>
        ...
      }
      // Columns 96..99: the same with the transfers masked by %mask.
      ...
    }
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits (0: the host's)">,
    Option<"vectorRegisters", "vector-registers", "unsigned",
           /*default=*/"0", "Number of vector registers (0: the host's)">,
    Option<"l1CacheBytes", "l1-cache-bytes", "int64_t", /*default=*/"0",
           "Level-1 data cache size (0: the host's)">,
    Option<"l2CacheBytes", "l2-cache-bytes", "int64_t", /*default=*/"0",
           "Level-2 cache size (0: the host's)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TesseraCpuLowerVectorsPass
    : Pass<"tessera-cpu-lower-vectors", "::mlir::func::FuncOp"> {
  let summary = "Lower tessera-cpu-codegen's vector ops to FMAs, 1-D "
                "transfers and 1-D reductions";
  let description = [{
    Runs on buffers, after bufferization, and leaves vector ops that
    `convert-vector-to-scf` (n-D transfers, fully unrolled) and
    `convert-vector-to-llvm` take:

    * `vector.contract` with unit reduction dimensions (the register
      kernels of `tessera-cpu-codegen`) becomes `vector.fma` on whole
      accumulator tiles; other contractions fall back to the upstream
      lowering.
    * `vector.multi_reduction` becomes elementwise ops and 1-D
      `vector.reduction`s.
    * Transfers with broadcast or permuted dimensions become minor-identity
      transfers plus `vector.broadcast` / `vector.transpose`; masked
      transfers take their mask as an operand.
    * Leading unit dimensions are dropped.
    * `exp`, `expm1`, `log`, `log1p`, `log2`, `tanh` and `erf` on f32
      vectors become polynomial approximations (on scalars they stay calls
      of the C library).
    * `math.absi` on vectors becomes `max(x, 0 - x)` (MathToLLVM only lowers
      it on 1-D vectors).

    For example, a register kernel's update of a 2 x 16 accumulator tile
    with a 2 x 1 column of A and a 1 x 16 row of B:

    ```mlir
    %r = vector.contract {
        indexing_maps = [#a, #b, #c],
        iterator_types = ["parallel", "parallel", "reduction"],
        kind = #vector.kind<add>} %a, %b, %c
        : vector<2x1xf32>, vector<1x16xf32> into vector<2x16xf32>
    // becomes
    %0 = vector.broadcast %a : vector<2x1xf32> to vector<16x2x1xf32>
    %1 = vector.shape_cast %0 : vector<16x2x1xf32> to vector<16x2xf32>
    %2 = vector.transpose %1, [1, 0] : vector<16x2xf32> to vector<2x16xf32>
    %3 = vector.broadcast %b : vector<1x16xf32> to vector<2x16xf32>
    %r = vector.fma %2, %3, %c : vector<2x16xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TesseraCpuLowerAssertsPass
    : Pass<"tessera-cpu-lower-asserts", "::mlir::ModuleOp"> {
  let summary = "Lower cf.assert to the runtime's assertion-failure call";
  let description = [{
    Rewrites every `cf.assert` into a conditional branch to a block that
    calls the runtime's `tessera_rt_assert_failed(message, length)` with
    the assertion's message prefixed by its location, then is unreachable.
    On an emulated device the runtime fails the run with
    `device N: assertion failed: <location>: <message>` and ends that
    device; the other devices are released. (Upstream's lowering calls
    `abort`, which kills the process with no word of the device.)

    ```mlir
    cf.assert %ok, "index out of bounds"
    ```

    becomes

    ```mlir
      cf.cond_br %ok, ^continue, ^failed
    ^failed:
      %m = llvm.mlir.addressof @tessera_assert_msg_0 : !llvm.ptr
      llvm.call @tessera_rt_assert_failed(%m, %len) : (!llvm.ptr, i64) -> ()
      llvm.unreachable
    ^continue:
    ```
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::cf::ControlFlowDialect",
  ];
}

def TesseraInsertRuntimeChecksPass
    : Pass<"tessera-insert-runtime-checks", "::mlir::func::FuncOp"> {
  let summary = "Guard indexing and integer division with run-time checks";
  let description = [{
    Inserts a `cf.assert`, at the location of the op it guards, before every
    op that would otherwise read or write out of bounds or trap, as Pallas's
    interpret mode and JAX's `checkify` do:

    * `tensor.extract` and `tensor.insert`: every index in `[0, size)`;
    * `tensor.extract_slice` and `tensor.insert_slice` with dynamic offsets
      or sizes: the slice inside the tensor along every dimension;
    * `arith.divsi`, `divui`, `remsi`, `remui`, `ceildivsi`, `ceildivui`,
      `floordivsi` on integers, scalars or tensors: no divisor is zero.

    With `tessera-cpu-lower-asserts` (part of `tessera-cpu`) a failed check
    fails the run with its message and location instead of a crash or a
    silent wrong value. `tessera-run --checks` adds this pass.

    ```mlir
    %v = tensor.extract %t[%i] : tensor<8xf32>
    ```

    becomes

    ```mlir
    %ok = ... 0 <= %i && %i < 8 ...
    cf.assert %ok, "tensor.extract: index 0 out of bounds for dimension 0"
    %v = tensor.extract %t[%i] : tensor<8xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // TESSERA_PIPELINES_PASSES_TD
