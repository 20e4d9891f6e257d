// RUN: tessera-opt %s -split-input-file -verify-diagnostics
// RUN: not tessera-opt %s -split-input-file --canonicalize 2>&1 | FileCheck %s --check-prefix=CANON

// Tests the errors of a collective's `in_sharding`: it is verified like
// `out_sharding`, and the result must follow from it (not from the
// producer's sharding). The last case shows why it exists: without it, a
// fold that drops the producer's sharding makes the collective invalid.

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @in_sharding_rank(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op in_sharding - sharding doesn't match tensor rank: 1 != 2}}
  %0 = spmd.all_gather [{"x"}, {}] %arg0 in_sharding=<@mesh, [{"x"}]> out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @in_sharding_unknown_axis(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op in_sharding - unknown axis name: "z"}}
  %0 = spmd.all_slice [{"x"}, {}] %arg0 in_sharding=<@mesh, [{}, {"z"}]> out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @other = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>

// expected-note @+1 {{operand mesh: #spmd.mesh<["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>}}
func.func @in_sharding_other_mesh(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op result mesh does not match operand mesh}}
  %0 = spmd.all_gather [{"x"}, {}] %arg0 in_sharding=<@other, [{"x"}, {}]> out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// The producer's sharding would make this valid; in_sharding says otherwise.
func.func @in_sharding_overrides_producer(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_gather' op can't apply gathering axis "x" to operand sharding on dimension 0}}
  %0 = spmd.all_gather [{"x"}, {}] %arg0 in_sharding=<@mesh, [{"y"}, {}]> out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @reduce_scatter_in_sharding_kind(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.reduce_scatter' op cannot reduce 'max' unreduced axes. Expected 'sum'.}}
  %0 = spmd.reduce_scatter [{"x"}, {}] %arg0 in_sharding=<@mesh, [{}, {}], unreduced=max{"x"}> out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Valid as written (Shardy's convention: the input sharding is the
// producer's), but --canonicalize folds the producer away.
// CANON: error: 'spmd.all_gather' op collective on operand without sharding
func.func @producer_folded_away(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %cst = arith.constant dense<-0.0> : tensor<16x8xf32>
  %0 = arith.addf %arg0, %cst {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<16x8xf32>
  %1 = spmd.all_gather [{"x"}, {}] %0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}
