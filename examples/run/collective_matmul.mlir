// The collective matmul of "Programming TPUs in JAX" as a shard_map: A is
// sharded P('X', 'Y') (batch over X, the contracting dim over Y), W is
// sharded P(None, 'Y'). Instead of all-gathering A's contracting dim before
// a local matmul, every device multiplies the block of A it holds with the
// matching rows of its W block, then passes its A block to the left
// neighbour along Y (ppermute), so communication overlaps computation.
// The result is sharded P('X', 'Y'), as `jnp.dot(A, W)` would be.
//
//   tessera-run examples/run/collective_matmul.mlir --random-inputs --check --stats
//   tessera-run examples/run/collective_matmul.mlir --entry reference ...
spmd.mesh @mesh = <["X"=2, "Y"=4]>

func.func @main(%a: tensor<16x32xf32>, %w: tensor<32x16xf32>) -> tensor<16x16xf32> {
  %0 = spmd.manual_computation(%a, %w)
      in_shardings=[<@mesh, [{"X"}, {"Y"}]>, <@mesh, [{}, {"Y"}]>]
      out_shardings=[<@mesh, [{"X"}, {"Y"}]>]
      manual_axes={"X", "Y"}
      (%lhs: tensor<8x8xf32>, %rhs: tensor<32x4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %chunk = arith.constant 8 : index
    %size = comm.axis_size over @mesh {"Y"} : index
    %idx = comm.axis_index over @mesh {"Y"} : index
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x4xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    // Step i multiplies the A block that started on device idx + i (it has
    // travelled i steps to the left) with rows (idx + i) % size of W.
    %acc, %last = scf.for %i = %c0 to %size step %c1
        iter_args(%accum = %acc0, %blk = %lhs) -> (tensor<8x4xf32>, tensor<8x8xf32>) {
      %k = arith.addi %idx, %i : index
      %owner = arith.remui %k, %size : index
      %row = arith.muli %owner, %chunk : index
      %w_chunk = tensor.extract_slice %rhs[%row, 0] [8, 4] [1, 1] : tensor<32x4xf32> to tensor<8x4xf32>
      %upd = linalg.matmul ins(%blk, %w_chunk : tensor<8x8xf32>, tensor<8x4xf32>)
                           outs(%accum : tensor<8x4xf32>) -> tensor<8x4xf32>
      %next = comm.permute %blk over @mesh {"Y"} pairs [0 -> 3, 1 -> 0, 2 -> 1, 3 -> 2] : tensor<8x8xf32>
      scf.yield %upd, %next : tensor<8x4xf32>, tensor<8x8xf32>
    }
    spmd.return %acc : tensor<8x4xf32>
  } : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// The same product in the global view, for comparison.
func.func @reference(%a: tensor<16x32xf32>, %w: tensor<32x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%a, %w : tensor<16x32xf32>, tensor<32x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %m : tensor<16x16xf32>
}
