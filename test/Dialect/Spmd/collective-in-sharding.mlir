// RUN: tessera-opt %s -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file --canonicalize | FileCheck %s --check-prefix=CANON

// Tests that the global-view collectives carry their input sharding in
// `in_sharding`, which round-trips, takes precedence over the producer's
// sharding, and keeps the op valid when rewrites drop that sharding.

spmd.mesh @mesh = <["x"=2, "y"=2]>

// CHECK-LABEL: func @every_collective
func.func @every_collective(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK: spmd.all_gather [{"x"}, {}] %{{.*}} in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@mesh, [{}, {}]>
  %0 = spmd.all_gather [{"x"}, {}] %arg0 in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  // CHECK: spmd.all_slice [{}, {"y"}] %{{.*}} in_sharding=<@mesh, [{}, {}]> out_sharding=<@mesh, [{}, {"y"}]>
  %1 = spmd.all_slice [{}, {"y"}] %0 in_sharding=<@mesh, [{}, {}]> out_sharding=<@mesh, [{}, {"y"}]> : tensor<16x8xf32>
  // CHECK: spmd.all_to_all [{"y"}: 1->0] %{{.*}} in_sharding=<@mesh, [{}, {"y"}]> out_sharding=<@mesh, [{"y"}, {}]>
  %2 = spmd.all_to_all [{"y"}: 1->0] %1 in_sharding=<@mesh, [{}, {"y"}]> out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  // CHECK: spmd.collective_permute %{{.*}} in_sharding=<@mesh, [{"y"}, {}]> out_sharding=<@mesh, [{"x"}, {}]>
  %3 = spmd.collective_permute %2 in_sharding=<@mesh, [{"y"}, {}]> out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  // CHECK: spmd.all_reduce max {"y"} %{{.*}} in_sharding=<@mesh, [{"x"}, {}], unreduced=max{"y"}> out_sharding=<@mesh, [{"x"}, {}]>
  %4 = spmd.all_reduce max {"y"} %3 in_sharding=<@mesh, [{"x"}, {}], unreduced=max{"y"}> out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  // CHECK: spmd.reduce_scatter min [{}, {"y"}] %{{.*}} in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@mesh, [{"x"}, {"y"}]>
  %5 = spmd.reduce_scatter min [{}, {"y"}] %4 in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@mesh, [{"x"}, {"y"}]> : tensor<16x8xf32>
  return %5 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// `in_sharding` wins over the sharding the operand's producer declares.
// CHECK-LABEL: func @in_sharding_wins
func.func @in_sharding_wins(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<16x8xf32> {
  // CHECK: spmd.all_gather [{"y"}, {}] %{{.*}} in_sharding=<@mesh, [{"y"}, {}]>
  %0 = spmd.all_gather [{"y"}, {}] %arg0 in_sharding=<@mesh, [{"y"}, {}]> out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Folding `x + -0.0` into `x` drops the producer's sharding; the all_gather
// stays valid because it carries its own input sharding.
// CANON-LABEL: func @producer_folded_away
// CANON-NEXT: %[[G:.*]] = spmd.all_gather [{"x"}, {}] %arg0 in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@mesh, [{}, {}]>
// CANON-NEXT: return %[[G]]
func.func @producer_folded_away(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %cst = arith.constant dense<-0.0> : tensor<16x8xf32>
  %0 = arith.addf %arg0, %cst {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<16x8xf32>
  %1 = spmd.all_gather [{"x"}, {}] %0 in_sharding=<@mesh, [{"x"}, {}]> out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// The all_reduce + all_slice fusion carries the input sharding over to the
// reduce_scatter it creates.
// CANON-LABEL: func @fusion_keeps_in_sharding
// CANON-NEXT: %[[RS:.*]] = spmd.reduce_scatter [{"x"}, {}] %arg0 in_sharding=<@mesh, [{}, {}], unreduced={"x"}> out_sharding=<@mesh, [{"x"}, {}]>
// CANON-NEXT: return %[[RS]]
func.func @fusion_keeps_in_sharding(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = spmd.all_reduce {"x"} %arg0 in_sharding=<@mesh, [{}, {}], unreduced={"x"}> out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  %1 = spmd.all_slice [{"x"}, {}] %0 in_sharding=<@mesh, [{}, {}]> out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}
