// Tests tessera-run --calibrate: it measures the program's mesh (with
// --mesh's sizes) or the mesh --mesh names alone, and writes a calibration
// file that spmd-auto-partition's calibration= reads. Tiny sizes and one
// repeat keep it fast; the values are this host's, so only the structure
// is checked.
// RUN: tessera-run %s --calibrate=%t.cal --calibrate-sizes=256,4KiB --calibrate-repeats=1 --calibrate-matmul=16
// RUN: FileCheck %s --input-file=%t.cal
// RUN: tessera-opt %s --spmd-auto-partition="calibration=%t.cal report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: tessera-run %s --auto --auto-options="calibration=%t.cal" --random-inputs --check | FileCheck %s --check-prefix=EXEC
// Without a file name the file goes to stdout; without a program --mesh
// names the axes (here one axis of 2, and --mesh resizing the program's).
// RUN: tessera-run --calibrate --mesh "x=2" --calibrate-sizes=64,1K --calibrate-repeats=1 --calibrate-matmul=8 | FileCheck %s --check-prefix=STDOUT
// RUN: tessera-run %s --mesh "model=1" --calibrate --calibrate-sizes=64,1K --calibrate-repeats=1 --calibrate-matmul=8 | FileCheck %s --check-prefix=RESIZED

// CHECK: # tessera-run --calibrate on data=2,model=2 (4 devices)
// CHECK: tessera-calibration 1
// CHECK-NEXT: matmul_gflops {{[0-9.e+-]+}}
// CHECK-NEXT: memory_gbps {{[0-9.e+-]+}}
// CHECK-NEXT: collective * all_reduce {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK-NEXT: collective * all_gather {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK-NEXT: collective * reduce_scatter {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK-NEXT: collective * all_to_all {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK-NEXT: collective * permute {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK-NEXT: # data all_reduce 256 B (256 B moved): {{[0-9.e+-]+}} us
// CHECK-NEXT: # data all_reduce 4096 B (4096 B moved): {{[0-9.e+-]+}} us
// CHECK-NEXT: collective data all_reduce {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK-NEXT: # model all_reduce 256 B (256 B moved): {{[0-9.e+-]+}} us
// CHECK-NEXT: # model all_reduce 4096 B (4096 B moved): {{[0-9.e+-]+}} us
// CHECK-NEXT: collective model all_reduce {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK-NEXT: # data all_gather 256 B (128 B moved): {{[0-9.e+-]+}} us
// CHECK:      collective model all_gather {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK:      collective model reduce_scatter {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK:      collective model all_to_all {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK:      # data permute 4096 B (4096 B moved): {{[0-9.e+-]+}} us
// CHECK:      collective model permute {{[0-9.e+-]+}} {{[0-9.e+-]+}}
// CHECK-NOT:  collective

// PLAN: remark: auto-partition: plan: step
// EXEC: check: all 1 results match the single-device reference

// STDOUT: # tessera-run --calibrate on x=2 (2 devices)
// STDOUT: tessera-calibration 1
// STDOUT: collective * permute
// STDOUT: collective x all_reduce
// STDOUT: collective x permute

// RESIZED: # tessera-run --calibrate on data=2,model=1 (2 devices)
// RESIZED-NOT: collective model
// RESIZED: collective data permute

spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%x: tensor<16x32xf32>, %w: tensor<32x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
