// Tests a fused MLP kernel, y = gelu(x w1) w2 (GELU's tanh form), as a
// Pallas user writes it: (128, 128) row blocks of x over a parallel grid
// axis, w1 and w2 whole in VMEM, the body two jnp.dots and the GELU on
// whole blocks (vector.contract, elementwise math; the vector layout
// passes tile them). @main compares it with the same math in linalg on
// tensors outside a kernel (result0: the number of elements that differ by
// more than 1e-4 relative), and --check compares the pipelined run with the
// interpret run. (bench/gen-kernel-layout-bench.py mlp 256 128 256 128
// --check wrote it; bench/kernel-layout-bench.sh times the larger one.)
// RUN: tessera-run %s --random-inputs --seed 17 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 17 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result0: i32[] = [0]
// CHECK: check: all 1 results match the single-device reference (kernels in interpret mode)
// ZERO: result0: i32[] = [0]
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @mlp_body(%x: memref<128x128xf32, #kernel.space<vmem>>, %w1: memref<128x256xf32, #kernel.space<vmem>>, %w2: memref<256x128xf32, #kernel.space<vmem>>, %o: memref<128x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %xb = kernel.load %x[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %w1b = kernel.load %w1[%c0, %c0] : memref<128x256xf32, #kernel.space<vmem>>, vector<128x256xf32>
    %w2b = kernel.load %w2[%c0, %c0] : memref<256x128xf32, #kernel.space<vmem>>, vector<256x128xf32>
    %zh = arith.constant dense<0.0> : vector<128x256xf32>
    %hb = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %xb, %w1b, %zh : vector<128x128xf32>, vector<128x256xf32> into vector<128x256xf32>
    %g_half = arith.constant dense<0.5> : vector<128x256xf32>
    %g_one = arith.constant dense<1.0> : vector<128x256xf32>
    %g_c = arith.constant dense<0.7978845608> : vector<128x256xf32>
    %g_k = arith.constant dense<0.044715> : vector<128x256xf32>
    %g_x2 = arith.mulf %hb, %hb : vector<128x256xf32>
    %g_x3 = arith.mulf %g_x2, %hb : vector<128x256xf32>
    %g_kx3 = arith.mulf %g_k, %g_x3 : vector<128x256xf32>
    %g_in = arith.addf %hb, %g_kx3 : vector<128x256xf32>
    %g_arg = arith.mulf %g_c, %g_in : vector<128x256xf32>
    %g_th = math.tanh %g_arg : vector<128x256xf32>
    %g_1p = arith.addf %g_one, %g_th : vector<128x256xf32>
    %g_hx = arith.mulf %g_half, %hb : vector<128x256xf32>
    %gb = arith.mulf %g_hx, %g_1p : vector<128x256xf32>

    %zd = arith.constant dense<0.0> : vector<128x128xf32>
    %yb = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %gb, %w2b, %zd : vector<128x256xf32>, vector<256x128xf32> into vector<128x128xf32>
    kernel.store %yb, %o[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    return
  }
  func.func private @kernel(%x: tensor<256x128xf32>, %w1: tensor<128x256xf32>, %w2: tensor<256x128xf32>) -> tensor<256x128xf32> {
    %0 = kernel.call @mlp_body(%x, %w1, %w2) grid = [2]
        in_specs = [#kernel.block<[128, 128], (i) -> (i, 0)>, #kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<[128, 128], (i) -> (i, 0)>]
        dimension_semantics = [parallel] vmem_limit_bytes = 9175040
        : (tensor<256x128xf32>, tensor<128x256xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
    return %0 : tensor<256x128xf32>
  }
  func.func private @reference(%x: tensor<256x128xf32>, %w1: tensor<128x256xf32>, %w2: tensor<256x128xf32>) -> tensor<256x128xf32> {
    %hm_e = tensor.empty() : tensor<256x256xf32>
    %hm_z = arith.constant 0.0 : f32
    %hm_f = linalg.fill ins(%hm_z : f32) outs(%hm_e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %hm = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %w1 : tensor<256x128xf32>, tensor<128x256xf32>) outs(%hm_f : tensor<256x256xf32>) {
    ^bb0(%lhs: f32, %rhs: f32, %acc: f32):
      %prod = arith.mulf %lhs, %rhs : f32
      %sum = arith.addf %acc, %prod : f32
      linalg.yield %sum : f32
    } -> tensor<256x256xf32>
    %ge = tensor.empty() : tensor<256x256xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%hm : tensor<256x256xf32>) outs(%ge : tensor<256x256xf32>) {
    ^bb0(%v: f32, %unused: f32):
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %c = arith.constant 0.7978845608 : f32
      %k = arith.constant 0.044715 : f32
      %v2 = arith.mulf %v, %v : f32
      %v3 = arith.mulf %v2, %v : f32
      %kv3 = arith.mulf %k, %v3 : f32
      %in = arith.addf %v, %kv3 : f32
      %arg = arith.mulf %c, %in : f32
      %th = math.tanh %arg : f32
      %p1 = arith.addf %one, %th : f32
      %hv = arith.mulf %half, %v : f32
      %r = arith.mulf %hv, %p1 : f32
      linalg.yield %r : f32
    } -> tensor<256x256xf32>
    %ym_e = tensor.empty() : tensor<256x128xf32>
    %ym_z = arith.constant 0.0 : f32
    %ym_f = linalg.fill ins(%ym_z : f32) outs(%ym_e : tensor<256x128xf32>) -> tensor<256x128xf32>
    %ym = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%g, %w2 : tensor<256x256xf32>, tensor<256x128xf32>) outs(%ym_f : tensor<256x128xf32>) {
    ^bb0(%lhs: f32, %rhs: f32, %acc: f32):
      %prod = arith.mulf %lhs, %rhs : f32
      %sum = arith.addf %acc, %prod : f32
      linalg.yield %sum : f32
    } -> tensor<256x128xf32>

    return %ym : tensor<256x128xf32>
  }
  func.func private @mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%x: f32, %y: f32, %n: i32):
      %d = arith.subf %x, %y : f32
      %ad = math.absf %d : f32
      %ay = math.absf %y : f32
      %rel = arith.constant 1.0e-4 : f32
      %t = arith.mulf %ay, %rel : f32
      %tol = arith.addf %t, %rel : f32
      %isbad = arith.cmpf ugt, %ad, %tol : f32
      %inc = arith.extui %isbad : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%x: tensor<256x128xf32>, %w1: tensor<128x256xf32>, %w2: tensor<256x128xf32>) -> tensor<i32> {
    %k = func.call @kernel(%x, %w1, %w2) : (tensor<256x128xf32>, tensor<128x256xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
    %r = func.call @reference(%x, %w1, %w2) : (tensor<256x128xf32>, tensor<128x256xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
    %kc = tensor.cast %k : tensor<256x128xf32> to tensor<?x?xf32>
    %rc = tensor.cast %r : tensor<256x128xf32> to tensor<?x?xf32>
    %bad = func.call @mismatches(%kc, %rc) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %bad : tensor<i32>
  }
}
