spmd.mesh @mesh = <["x"=8]>

func.func @f(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)4}, {"x":(2)2}]>}) {
  return
}
