// RUN: tessera-opt %s --spmd-partition --split-input-file --verify-diagnostics

// Layouts spmd-insert-reshards does not produce for a windowed op or a pad:
// the halo exchange needs the input's windowed dimension sharded like the
// output's, the output (a pad's source) into equal blocks.

spmd.mesh @mesh = <["x"=2]>

func.func @input_sharded_output_not(%a: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>},
                                    %w: tensor<3xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{'linalg.conv_1d' op reads dimension 0 of operand 0 through a window and shards it otherwise than output dimension 0 (run spmd-insert-reshards first)}}
  %0 = linalg.conv_1d ins(%a, %w : tensor<10xf32>, tensor<3xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @output_padded(%a: tensor<9xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>},
                  %w: tensor<3xf32>) -> tensor<7xf32> {
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<7xf32>
  // expected-error @+1 {{'linalg.conv_1d' op reads dimension 0 of operand 0 through a window whose output dimension 0 its sharding does not divide into equal blocks, which spmd-partition does not support}}
  %0 = linalg.conv_1d {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>}
      ins(%a, %w : tensor<9xf32>, tensor<3xf32>) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @pad_source_replicated(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> tensor<10xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.pad' op pads dimension 0 and shards it otherwise than its result (run spmd-insert-reshards first)}}
  %0 = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<8xf32> to tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @pad_source_padded(%a: tensor<7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<10xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.pad' op pads dimension 0 of a source sharded into unequal blocks or with a padding value that is not constant, which spmd-partition does not support}}
  %0 = tensor.pad %a low[1] high[2] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<7xf32> to tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// A source on a mesh of the same devices in another order holds other
// blocks than the result's mesh names (the same order would be accepted).

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @reversed = <["r"=4], device_ids=[3, 2, 1, 0]>

func.func @pad_source_other_order(%a: tensor<4xf32> {spmd.sharding = #spmd.sharding<@reversed, [{"r"}]>}) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.pad' op pads dimension 0 and shards it otherwise than its result (run spmd-insert-reshards first)}}
  %0 = tensor.pad %a low[2] high[2] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", "y"}]>]>} : tensor<4xf32> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @reversed = <["r"=4], device_ids=[3, 2, 1, 0]>

func.func @conv_input_other_order(%a: tensor<10xf32> {spmd.sharding = #spmd.sharding<@reversed, [{"r"}]>},
                                  %w: tensor<3xf32>) -> tensor<8xf32> {
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", "y"}]>]>} : tensor<8xf32>
  // expected-error @+1 {{'linalg.conv_1d' op reads dimension 0 of operand 0 through a window and shards it otherwise than output dimension 0 (run spmd-insert-reshards first)}}
  %0 = linalg.conv_1d {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", "y"}]>]>}
      ins(%a, %w : tensor<10xf32>, tensor<3xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
