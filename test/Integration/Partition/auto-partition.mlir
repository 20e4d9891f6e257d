// Programs partitioned by spmd-auto-partition (tessera-run --auto) compute
// what the unpartitioned program computes; the plans are the ones the cost
// model picks: pure data parallelism without a limit (no collective), the
// Megatron plan (one all-reduce) under its per-device peak, a plan that
// shards every weight under a smaller limit, and an error when nothing
// fits.
// RUN: tessera-run %s --auto --random-inputs --check --stats | FileCheck %s --check-prefixes=CHECK,DP
// RUN: tessera-run %s --auto --auto-options="memory-limit=256KiB" --random-inputs --check --stats | FileCheck %s --check-prefixes=CHECK,MEGATRON
// RUN: tessera-run %s --auto --auto-options="memory-limit=200KiB" --random-inputs --check --stats | FileCheck %s --check-prefixes=CHECK,SMALL
// RUN: not tessera-run %s --auto --auto-options="memory-limit=100KiB" --random-inputs 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not tessera-run %s --auto --auto-options="memory-limit=x" --random-inputs 2>&1 | FileCheck %s --check-prefix=OPTION
// DP: stats: 0 {{.*}} 0 0 B
// MEGATRON: stats: 0 {{.*}} 1 16.0 KiB
// SMALL: stats: 0 {{.*}} 2 48.0 KiB
// CHECK: check: all 1 results match the single-device reference
// NONE: error: no sharding plan fits memory-limit=100.0 KiB (102400 bytes) per device; the smallest peak found is 192.0 KiB (196608 bytes)
// OPTION: error: invalid memory-limit 'x'

spmd.mesh @mesh = <["data"=2, "model"=4]>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<64x128xf32>, %w0: tensor<128x512xf32>, %w1: tensor<512x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w0 : tensor<64x128xf32>, tensor<128x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  %re = tensor.empty() : tensor<64x512xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<64x512xf32>) outs(%re : tensor<64x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.maximumf %in, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x512xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%relu, %w1 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%f1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
