// RUN: tessera-opt %s --spmd-partition --split-input-file --verify-diagnostics

// Layouts spmd-insert-reshards does not produce for a windowed op: the
// halo exchange needs the input's windowed dimension sharded like the
// output's, into equal blocks.

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

func.func @padded(%a: tensor<9xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>},
                  %w: tensor<3xf32>) -> tensor<7xf32> {
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<7xf32>
  // expected-error @+1 {{'linalg.conv_1d' op reads dimension 0 of operand 0 through a window whose sharding does not divide it or output dimension 0 into equal blocks, which spmd-partition does not support}}
  %0 = linalg.conv_1d {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>}
      ins(%a, %w : tensor<9xf32>, tensor<3xf32>) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}
