// Tests that the vectorized code computes what the scalar loops compute, on
// shapes that do not divide the tiles (integers: bit-exact results).
// RUN: rm -rf %t && mkdir -p %t
// RUN: tessera-run %s --entry matmul_unaligned --random-inputs --seed 5 --output-dir %t/matmul_unaligned
// RUN: tessera-run %s --entry matmul_unaligned --random-inputs --seed 5 --scalar-loops --output-dir %t/matmul_unaligned-scalar
// RUN: cmp %t/matmul_unaligned/result0.npy %t/matmul_unaligned-scalar/result0.npy
// RUN: tessera-run %s --entry batch_matmul --random-inputs --seed 5 --output-dir %t/batch_matmul
// RUN: tessera-run %s --entry batch_matmul --random-inputs --seed 5 --scalar-loops --output-dir %t/batch_matmul-scalar
// RUN: cmp %t/batch_matmul/result0.npy %t/batch_matmul-scalar/result0.npy
// RUN: tessera-run %s --entry matmul_transposed --random-inputs --seed 5 --output-dir %t/matmul_transposed
// RUN: tessera-run %s --entry matmul_transposed --random-inputs --seed 5 --scalar-loops --output-dir %t/matmul_transposed-scalar
// RUN: cmp %t/matmul_transposed/result0.npy %t/matmul_transposed-scalar/result0.npy
// RUN: tessera-run %s --entry matmul_dynamic --random-inputs --seed 5 --input-shape 0=35x19 --input-shape 1=19x67 --output-dir %t/matmul_dynamic
// RUN: tessera-run %s --entry matmul_dynamic --random-inputs --seed 5 --input-shape 0=35x19 --input-shape 1=19x67 --scalar-loops --output-dir %t/matmul_dynamic-scalar
// RUN: cmp %t/matmul_dynamic/result0.npy %t/matmul_dynamic-scalar/result0.npy
// RUN: tessera-run %s --entry sum_rows --random-inputs --seed 5 --output-dir %t/sum_rows
// RUN: tessera-run %s --entry sum_rows --random-inputs --seed 5 --scalar-loops --output-dir %t/sum_rows-scalar
// RUN: cmp %t/sum_rows/result0.npy %t/sum_rows-scalar/result0.npy
// RUN: tessera-run %s --entry conv --random-inputs --seed 5 --output-dir %t/conv
// RUN: tessera-run %s --entry conv --random-inputs --seed 5 --scalar-loops --output-dir %t/conv-scalar
// RUN: cmp %t/conv/result0.npy %t/conv-scalar/result0.npy

func.func @matmul_unaligned(%a: tensor<33x20xi32>, %b: tensor<20x70xi32>) -> tensor<33x70xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<33x70xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<33x70xi32>) -> tensor<33x70xi32>
  %r = linalg.matmul ins(%a, %b : tensor<33x20xi32>, tensor<20x70xi32>) outs(%c : tensor<33x70xi32>) -> tensor<33x70xi32>
  return %r : tensor<33x70xi32>
}

func.func @batch_matmul(%a: tensor<3x17x65xi32>, %b: tensor<3x65x33xi32>, %c: tensor<3x17x33xi32>) -> tensor<3x17x33xi32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x17x65xi32>, tensor<3x65x33xi32>) outs(%c : tensor<3x17x33xi32>) -> tensor<3x17x33xi32>
  return %r : tensor<3x17x33xi32>
}

#a = affine_map<(m, n, k) -> (k, m)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_transposed(%a: tensor<45x37xi32>, %b: tensor<70x45xi32>, %c: tensor<37x70xi32>) -> tensor<37x70xi32> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<45x37xi32>, tensor<70x45xi32>) outs(%c : tensor<37x70xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<37x70xi32>
  return %r : tensor<37x70xi32>
}

func.func @matmul_dynamic(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xi32>
  %n = tensor.dim %b, %c1 : tensor<?x?xi32>
  %zero = arith.constant 0 : i32
  %empty = tensor.empty(%m, %n) : tensor<?x?xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<?x?xi32>) -> tensor<?x?xi32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xi32>, tensor<?x?xi32>) outs(%c : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}

func.func @sum_rows(%a: tensor<30x517xi32>, %init: tensor<30xi32>) -> tensor<30xi32> {
  %r = linalg.reduce ins(%a : tensor<30x517xi32>) outs(%init : tensor<30xi32>) dimensions = [1]
    (%x: i32, %acc: i32) {
      %s = arith.addi %x, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<30xi32>
}

func.func @conv(%i: tensor<2x9x11x5xi32>, %f: tensor<3x3x5x70xi32>, %c: tensor<2x4x5x70xi32>) -> tensor<2x4x5x70xi32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%i, %f : tensor<2x9x11x5xi32>, tensor<3x3x5x70xi32>) outs(%c : tensor<2x4x5x70xi32>) -> tensor<2x4x5x70xi32>
  return %r : tensor<2x4x5x70xi32>
}
