// RUN: tessera-opt %s | FileCheck %s
// RUN: tessera-opt %s --emit-bytecode | tessera-opt | FileCheck %s
// RUN: tessera-opt %s --verify-roundtrip | FileCheck %s
// RUN: tessera-opt %s --spmd-print-types -o /dev/null 2>&1 | FileCheck %s --check-prefix=TYPE

// Tests the `reduced={...}` list of #spmd.sharding (JAX's reduced axes): it
// parses after or before the other lists, prints after `unreduced`, and
// survives bytecode (spmd bytecode version 2); the JAX type prints
// `{U:x, R:y}`.

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// CHECK-LABEL: func.func @reduced
// CHECK-SAME: spmd.sharding = #spmd.sharding<@mesh, [{"z"}], reduced={"x", "y"}>
// CHECK-SAME: spmd.sharding = #spmd.sharding<@mesh, [{}], unreduced={"x"}, reduced={"y"}>
// CHECK-SAME: spmd.sharding = #spmd.sharding<@mesh, [{}], replicated={"z"}, unreduced=max{"x"}, reduced={"y"}>
// TYPE: remark: f32[8@z]{R:(x,y)}
// TYPE: remark: f32[8]{U:x, R:y}
// TYPE: remark: f32[8]{U_max:x, R:y}
func.func @reduced(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z"}], reduced={"x", "y"}>},
                   %b: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"y"}, unreduced={"x"}>},
                   %c: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], reduced={"y"}, unreduced=max{"x"}, replicated={"z"}>}) -> tensor<8xf32> {
  // CHECK: spmd.reshard %{{.*}} <@mesh, [{"z"}], reduced={"x", "y"}> : tensor<8xf32>
  %0 = spmd.reshard %a <@mesh, [{"z"}], reduced={"x", "y"}> : tensor<8xf32>
  // CHECK: spmd.reshard %{{.*}} <@mesh, [{}], unreduced={"x"}, reduced={"y"}> : tensor<8xf32>
  %1 = spmd.reshard %b <@mesh, [{}], reduced={"y"}, unreduced={"x"}> : tensor<8xf32>
  // CHECK: spmd.reshard %{{.*}} <@mesh, [{}], unreduced=max{"x"}, reduced={"y"}> : tensor<8xf32>
  %2 = spmd.reshard %c <@mesh, [{}], unreduced=max{"x"}, reduced={"y"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}
