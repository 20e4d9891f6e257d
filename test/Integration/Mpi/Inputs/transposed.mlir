// Reads an 8x6 array with its rows over "model" and its columns over
// "data" (not the layout that wrote it) and returns it doubled, replicated
// (for loading.test).
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%y: tensor<8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) -> tensor<8x6xf32> {
  %d = arith.addf %y, %y : tensor<8x6xf32>
  %r = spmd.sharding_constraint %d <@mesh, [{}, {}]> : tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
