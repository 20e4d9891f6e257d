// RUN: tessera-opt %s --convert-comm-to-runtime --split-input-file --verify-diagnostics

spmd.mesh @mesh = <["x"=2]>

func.func @complex(%arg0: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'comm.all_reduce' op element type 'complex<f32>' is not supported by the runtime}}
  %0 = comm.all_reduce sum %arg0 over @mesh {"x"} : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @f8(%arg0: tensor<4xf8E4M3FN>) -> tensor<8xf8E4M3FN> {
  // expected-error @+1 {{'comm.all_gather' op element type 'f8E4M3FN' is not supported by the runtime}}
  %0 = comm.all_gather %arg0 over @mesh {"x"} dim 0 : tensor<4xf8E4M3FN> -> tensor<8xf8E4M3FN>
  return %0 : tensor<8xf8E4M3FN>
}
