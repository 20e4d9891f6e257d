// RUN: tessera-opt %s --spmd-lower-replicated --verify-diagnostics

func.func @inlined_mesh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op has a sharding without a mesh symbol; run spmd-lift-inlined-meshes first}}
  %0 = spmd.manual_computation(%arg0)
      in_shardings=[<mesh<["x"=2]>, [{"x"}]>]
      out_shardings=[<mesh<["x"=2]>, [{"x"}]>]
      manual_axes={"x"}
      (%l: tensor<4xf32>) {
    spmd.return %l : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
