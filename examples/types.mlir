// Sharding in types: "x" is explicit (part of every type), "y" is auto
// (left to the compiler, so erased from types, as in JAX).
spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, auto]>

func.func @f(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> tensor<16xf32> {
  %0 = math.exp %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x16xf32>
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %1 = linalg.reduce ins(%0 : tensor<8x16xf32>) outs(%zero : tensor<16xf32>) dimensions = [0]
      {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}], unreduced={"x"}>]>}
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %1 : tensor<16xf32>
}
