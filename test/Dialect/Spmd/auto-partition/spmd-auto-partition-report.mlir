// RUN: tessera-opt %s --spmd-auto-partition="report=true" -o /dev/null 2>&1 | FileCheck %s
// RUN: tessera-opt %s --spmd-auto-partition="report=true memory-limit=256KiB" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: tessera-opt %s --spmd-auto-partition="report=true machine=v5e" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TPU
// RUN: printf 'tessera-calibration 1\nmatmul_gflops 1000\nmemory_gbps 1000\ncollective * all_reduce 0.001 0\n' > %t.cal
// RUN: tessera-opt %s --spmd-auto-partition="report=true calibration=%t.cal" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAL

// Tests the report: one remark per decision with its strategy, compute,
// communication and memory, then the plan's totals next to the two
// baselines, and the size of the problem.
//
// A two-layer MLP on 2x4: without a limit, data parallelism over both axes
// (no collective); with the per-device peak of the Megatron plan (column-
// then row-parallel weights, 256 KiB) as the limit, the Megatron plan: one
// all-reduce of the 64x128 output over "model" (16 KiB a device, 24 KiB
// sent by each in a ring).

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @mlp(%x: tensor<64x128xf32>, %w0: tensor<128x512xf32>, %w1: tensor<512x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w0 : tensor<64x128xf32>, tensor<128x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%h, %w1 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%f1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// An argument's remark is at its first use (not on the function's line).
// CHECK: spmd-auto-partition-report.mlir:22:{{[0-9]+}}: remark: auto-partition: argument #0: [{"data", "model"}, {}], memory 4.0 KiB
// CHECK: spmd-auto-partition-report.mlir:22:{{[0-9]+}}: remark: auto-partition: argument #1: [{}, {}], memory 256.0 KiB
// CHECK: spmd-auto-partition-report.mlir:25:{{[0-9]+}}: remark: auto-partition: argument #2: [{}, {}], memory 256.0 KiB
// CHECK: remark: auto-partition: {i: ("data", "model")}, compute {{.*}}, communication 0.0 us, memory {{.*}}
// CHECK: remark: auto-partition: {i: ("data", "model")}, compute {{.*}}, communication 0.0 us, memory {{.*}}
// CHECK: remark: auto-partition: plan: step {{.*}} (compute {{.*}}, communication 0.0 us), collective bytes 0 B, peak 808.0 KiB per device
// CHECK: remark: auto-partition: data parallel on "model": step {{.*}}, collective bytes 0 B, peak 872.0 KiB per device
// CHECK: remark: auto-partition: replicated: step {{.*}}, collective bytes 0 B, peak 1.1 MiB per device
// CHECK: remark: auto-partition: 5 nodes and 4 edges, coarsened to 2 nodes and 1 edges, reduced to 1 nodes and 0 edges; 1 ILP of {{[0-9]+}} variables and {{[0-9]+}} constraints solved in {{.*}}

// LIMIT: remark: auto-partition: argument #0: [{"data"}, {}], memory 16.0 KiB
// LIMIT: remark: auto-partition: argument #1: [{}, {"model"}], memory 64.0 KiB
// LIMIT: remark: auto-partition: argument #2: [{"model"}, {}], memory 64.0 KiB
// LIMIT: remark: auto-partition: {i: "data", j: "model"}, compute {{.*}}, communication 0.0 us
// LIMIT: remark: auto-partition: {i: "data", k: "model"}, compute {{.*}}, communication {{[1-9].*}} us
// LIMIT: remark: auto-partition: plan: step {{.*}}, collective bytes 24.0 KiB, peak 256.0 KiB per device

// On a TPU these matmuls are bound by their memory traffic (819 GB/s next
// to 197 TFLOP/s): the plan reads less of the second weight, its columns
// sharded over "data", still without a collective.
// TPU: remark: auto-partition: argument #2: [{}, {"data"}], memory 128.0 KiB
// TPU: remark: auto-partition: plan: step {{.*}}, collective bytes 0 B, peak 720.0 KiB per device

// With the calibration's fast matmuls (1 TFLOP/s, 1 TB/s) and slow all-reduces
// (1 ms), the plan avoids the all-reduce.
// CAL: remark: auto-partition: plan: {{.*}} collective bytes 0 B
