// The tool's outputs: .npy results, timing, traces, emitted code.
// RUN: python3 %S/Inputs/npy.py iota 4x2 f32 %t.a.npy
// RUN: rm -rf %t.out && tessera-run %s --input 0=%t.a.npy --output-dir %t.out | FileCheck %s
// RUN: tessera-run %s --input 0=%t.out/result0.npy --output-dir %t.again --print-results | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: tessera-run %s --random-inputs --repeat 5 --timing | FileCheck %s --check-prefix=TIMING
// RUN: tessera-run %s --random-inputs --trace %t.json && FileCheck %s --check-prefix=TRACE < %t.json
// RUN: python3 -c "import json, sys; t = json.load(open(sys.argv[1])); print(len([e for e in t['traceEvents'] if e.get('cat') == 'collective']), 'collective events')" %t.json | FileCheck %s --check-prefix=JSON
// RUN: tessera-run %s --random-inputs --emit=mlir | FileCheck %s --check-prefix=EMIT-MLIR
// RUN: tessera-run %s --random-inputs --emit=llvm | FileCheck %s --check-prefix=EMIT-LLVM
// RUN: tessera-run %s --random-inputs --emit=obj -o %t.o && test -s %t.o

// Each device doubles its block and sums over "x": [0,2,4,6] + [8,10,12,14].
// CHECK: result0: f32[4,2] = [8, 12, 16, 20, 8, 12, 16, 20]
// The first run's result, read back: 2 * ([8,12,16,20] + [8,12,16,20]).
// ROUNDTRIP: result0: f32[4,2] = [32, 48, 64, 80, 32, 48, 64, 80]
// TIMING: compile: {{[0-9.]+}} ms
// TIMING-NEXT: run: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms, max {{[0-9.]+}} ms over 5 runs
// TRACE: "traceEvents"
// TRACE-DAG: "name":"device 0"
// TRACE-DAG: "name":"comm.all_reduce at
// The trace is valid JSON with one all_reduce per device.
// JSON: 2 collective events
// EMIT-MLIR: llvm.func @_mlir_ciface_main
// EMIT-MLIR: llvm.call @tessera_rt_all_reduce
// EMIT-LLVM: define {{.*}}@_mlir_ciface_main
// EMIT-LLVM: call void @tessera_rt_all_reduce
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%l: tensor<2x2xf32>) {
    %d = arith.addf %l, %l : tensor<2x2xf32>
    %s = comm.all_reduce sum %d over @mesh {"x"} : tensor<2x2xf32>
    spmd.return %s : tensor<2x2xf32>
  } : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
