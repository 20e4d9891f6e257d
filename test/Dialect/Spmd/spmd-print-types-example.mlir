// RUN: tessera-opt %examples/mlp.mlir --spmd-print-types -o /dev/null 2>&1 | FileCheck %s

// Tests the types `make run` shows for the main example (examples/mlp.mlir):
// data parallelism on "data", Megatron-style tensor parallelism on "model",
// a row-parallel matmul leaving partial sums, and the reshard reducing them.

// CHECK: mlp.mlir:13:8: remark: f32[16@data,128]{{$}}
// CHECK: mlp.mlir:14:11: remark: f32[]{{$}}
// CHECK: mlp.mlir:18:9: remark: f32[16@data,256@model]{{$}}
// CHECK: mlp.mlir:19:9: remark: f32[16@data,256@model]{{$}}
// CHECK: mlp.mlir:22:9: remark: f32[16@data,256@model]{{$}}
// CHECK: mlp.mlir:31:9: remark: f32[16@data,10]{{$}}
// CHECK: mlp.mlir:32:9: remark: f32[16@data,10]{U:model}{{$}}
// CHECK: mlp.mlir:35:9: remark: f32[16@data,10]{U:model}{{$}}
// CHECK: mlp.mlir:42:8: remark: f32[16@data,10]{{$}}
// CHECK: mlp.mlir:43:8: remark: f32[16@data,10]{{$}}
// CHECK-NOT: remark:
