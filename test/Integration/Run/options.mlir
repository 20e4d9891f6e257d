// Tests what a newcomer expects of tessera-run: --help lists its own options
// and MLIR's, not LLVM's code generation flags; --save-inputs writes the
// generated inputs so that --input repeats the run; --emit needs no inputs;
// MLIR's pass manager options apply to the compilation.
// RUN: tessera-run --help | FileCheck %s --check-prefix=HELP
// RUN: tessera-run --help | FileCheck %s --check-prefix=NO-LLVM
// RUN: rm -rf %t.in && tessera-run %s --random-inputs --seed 3 --save-inputs %t.in | FileCheck %s --check-prefix=SAME
// RUN: tessera-run %s --input 0=%t.in/arg0.npy --input w=%t.in/arg1.npy | FileCheck %s --check-prefix=SAME
// RUN: tessera-run %s --emit=mlir | FileCheck %s --check-prefix=EMIT
// RUN: tessera-run %s --entry dynamic --emit=mlir --input-shape 0=6 | FileCheck %s --check-prefix=EMIT-DYN
// RUN: not tessera-run %s --entry dynamic --emit=mlir 2>&1 | FileCheck %s --check-prefix=EMIT-DYN-ERR
// RUN: tessera-run %s --random-inputs --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: tessera-run %s --random-inputs --mlir-print-ir-after=spmd-partition 2>&1 | FileCheck %s --check-prefix=PRINT-IR

// HELP: --mlir-timing
// HELP: tessera-run options:
// HELP-DAG: --check
// HELP-DAG: --opt-level=<N>
// HELP-DAG: --save-inputs=<dir>
// NO-LLVM-NOT: x86
// The same values from the saved inputs, to the checksum.
// SAME: result0: f32[4] = [0.684523, 0.651476, -0.249428, 0.516853] (sum 1.60342, min -0.249428, max 0.684523, checksum 99005470)
// EMIT: llvm.func @_mlir_ciface_main
// EMIT-DYN: llvm.func @_mlir_ciface_dynamic
// EMIT-DYN-ERR: tessera-run: error: argument 0 (%d) has the dynamic type tensor<?xf32>: give its shape with --input-shape 0=... or an --input file
// TIMING: Total Execution Time
// TIMING: SpmdPartitionPass
// PRINT-IR: IR Dump After SpmdPartitionPass (spmd-partition)
// PRINT-IR: comm.all_reduce
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>},
                %w: tensor<2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %c = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.matvec ins(%a, %w : tensor<4x2xf32>, tensor<2xf32>) outs(%z : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @dynamic(%d: tensor<?xf32>) -> tensor<?xf32> {
  return %d : tensor<?xf32>
}
