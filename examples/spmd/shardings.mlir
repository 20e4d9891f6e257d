// Meshes and shardings: the global view of how tensors are laid out.
spmd.mesh @mesh = <["data"=4, "model"=2]>

func.func @layouts(
    // Rows over "data", columns replicated; closed: propagation keeps it.
    %x: tensor<16x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
    // Columns over "model", open: propagation may shard further.
    %w: tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"model", ?}]>},
    // Over both axes, "data" major and "model" minor, at priority p1 (p0,
    // the highest, is the default).
    %b: tensor<256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}p1]>},
    // A sub-axis: the first factor 2 of "data" (pre-size 1, size 2).
    %s: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data":(1)2}, {"data":(2)2}]>})
    // Each device holds a partial sum over "model" (unreduced).
    -> (tensor<16x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}], unreduced={"model"}>}) {
  // Zeros, whose partial sums are zeros.
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x256xf32>) -> tensor<16x256xf32>
  return %z : tensor<16x256xf32>
}
