// The transformer block of the propagation benchmark
// (bench/gen-propagation-module.py --model transformer) on a 2x4 mesh
// ("data" x "model") with no annotation: with the per-device peak of the
// hand-annotated Megatron plan (batch over "data", column- then
// row-parallel weights over "model") as memory-limit, spmd-auto-partition's
// plan fits and moves no more collective bytes per layer than the Megatron
// schedule: here it is that schedule, one all-reduce per row-parallel
// matmul (two per layer, 24 KiB moved by each device in a ring, 16 KiB
// operands), and the program computes what the unpartitioned one does.
//
// The Megatron program and the one without annotations:
// RUN: python3 %S/../../../bench/gen-propagation-module.py --model transformer --layers 1 -o %t.megatron.mlir
// RUN: sed 's/ {spmd.sharding = #spmd.sharding<@mesh, \[[^]]*\]>}//g' %t.megatron.mlir > %t.mlir
// RUN: not grep spmd.sharding %t.mlir
// The Megatron plan's peak as the cost model estimates it (384 KiB) and
// its collectives when it runs:
// RUN: tessera-opt %t.megatron.mlir --spmd-auto-partition=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEGATRON-PLAN
// RUN: tessera-run %t.megatron.mlir --random-inputs --stats | FileCheck %s --check-prefix=MEGATRON
// The automatic plan under that peak, run and checked (the block's
// activations reach 1e8: exp of unnormalized projections, so the partial
// sums' order shows in the absolute error):
// RUN: tessera-opt %t.mlir --spmd-auto-partition="memory-limit=384KiB report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO-PLAN
// RUN: tessera-run %t.mlir --auto --auto-options="memory-limit=384KiB" --random-inputs --check --atol 1e3 --stats | FileCheck %s --check-prefix=AUTO
//
// Two layers (their values overflow f32, so only the plans are compared):
// 96 KiB moved, 48 KiB a layer, for both.
// RUN: python3 %S/../../../bench/gen-propagation-module.py --model transformer --layers 2 -o %t.megatron2.mlir
// RUN: sed 's/ {spmd.sharding = #spmd.sharding<@mesh, \[[^]]*\]>}//g' %t.megatron2.mlir > %t.2.mlir
// RUN: tessera-opt %t.megatron2.mlir --spmd-auto-partition=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEGATRON-PLAN2
// RUN: tessera-opt %t.2.mlir --spmd-auto-partition="memory-limit=640KiB report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO-PLAN2

// MEGATRON-PLAN: remark: auto-partition: plan: {{.*}}, collective bytes 48.0 KiB, peak 384.0 KiB per device
// MEGATRON: stats: 0 {{.*}} 2 32.0 KiB

// AUTO-PLAN: remark: auto-partition: argument #0: [{"data"}, {}]
// AUTO-PLAN: remark: auto-partition: argument #1: [{}, {"model"}]
// AUTO-PLAN: remark: auto-partition: argument #2: [{"model"}, {}]
// AUTO-PLAN: remark: auto-partition: argument #3: [{}, {"model"}]
// AUTO-PLAN: remark: auto-partition: argument #4: [{"model"}, {}]
// AUTO-PLAN: remark: auto-partition: plan: {{.*}}, collective bytes 48.0 KiB, peak 384.0 KiB per device
// AUTO: stats: 0 {{.*}} 2 32.0 KiB
// AUTO: check: all 1 results match the single-device reference

// MEGATRON-PLAN2: remark: auto-partition: plan: {{.*}}, collective bytes 96.0 KiB, peak 640.0 KiB per device
// AUTO-PLAN2: remark: auto-partition: plan: {{.*}}, collective bytes 96.0 KiB, peak 640.0 KiB per device
