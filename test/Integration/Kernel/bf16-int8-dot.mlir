// Tests the contraction dtypes of Pallas kernels: a bf16 dot with
// `astype` (Pallas's `jnp.dot(x.astype(f32), y.astype(f32))`: the blocks
// extended to f32, then an f32 contraction), a bf16 x bf16 contraction
// into an f32 accumulator (`preferred_element_type=jnp.float32`), and an
// int8 quantized matmul: int8 x int8 into an int32 accumulator in VMEM
// scratch over the k axis of the grid, rescaled at the last step by a
// per-row and a per-column f32 scale. Each is compared with linalg on the
// whole arrays in the same module (result1, result3: elements differing by
// more than 1e-4 relative; result5: elements that differ at all, the int8
// products being exact), and --check compares the pipelined run with the
// interpret run. The bf16 operands are whole numbers in [-8, 8).
// RUN: tessera-run %s --random-inputs --seed 13 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 13 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: result5: i32[] = [0]
// CHECK: check: all 6 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
// ZERO: result3: i32[] = [0]
// ZERO: result5: i32[] = [0]
#mk = affine_map<(i, j, k) -> (i, k)>
#kn = affine_map<(i, j, k) -> (k, j)>
#mn = affine_map<(i, j, k) -> (i, j)>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @astype_body(%x: memref<128x256xbf16, #kernel.space<vmem>>, %y: memref<256x128xbf16, #kernel.space<vmem>>,
                         %o: memref<128x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<128x256xbf16, #kernel.space<vmem>>, vector<128x256xbf16>
    %b = kernel.load %y[%c0, %c0] : memref<256x128xbf16, #kernel.space<vmem>>, vector<256x128xbf16>
    %af = arith.extf %a : vector<128x256xbf16> to vector<128x256xf32>
    %bf = arith.extf %b : vector<256x128xbf16> to vector<256x128xf32>
    %zero = arith.constant dense<0.0> : vector<128x128xf32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %af, %bf, %zero : vector<128x256xf32>, vector<256x128xf32> into vector<128x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    return
  }

  func.func @bf16_body(%x: memref<128x256xbf16, #kernel.space<vmem>>, %y: memref<256x128xbf16, #kernel.space<vmem>>,
                       %o: memref<128x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<128x256xbf16, #kernel.space<vmem>>, vector<128x256xbf16>
    %b = kernel.load %y[%c0, %c0] : memref<256x128xbf16, #kernel.space<vmem>>, vector<256x128xbf16>
    %zero = arith.constant dense<0.0> : vector<128x128xf32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %a, %b, %zero : vector<128x256xbf16>, vector<256x128xbf16> into vector<128x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    return
  }

  // out = (x w) * sx * sw, x w in int32 over the k axis.
  func.func @int8_body(%x: memref<128x128xi8, #kernel.space<vmem>>, %w: memref<128x128xi8, #kernel.space<vmem>>,
                       %sx: memref<128x1xf32, #kernel.space<vmem>>, %sw: memref<1x128xf32, #kernel.space<vmem>>,
                       %o: memref<128x128xf32, #kernel.space<vmem>>, %acc_ref: memref<128x128xi32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %k = kernel.program_id 1
    %nk = kernel.num_programs 1
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0> : vector<128x128xi32>
      kernel.store %zero, %acc_ref[%c0, %c0] : vector<128x128xi32>, memref<128x128xi32, #kernel.space<vmem>>
    }
    %a = kernel.load %x[%c0, %c0] : memref<128x128xi8, #kernel.space<vmem>>, vector<128x128xi8>
    %b = kernel.load %w[%c0, %c0] : memref<128x128xi8, #kernel.space<vmem>>, vector<128x128xi8>
    %acc = kernel.load %acc_ref[%c0, %c0] : memref<128x128xi32, #kernel.space<vmem>>, vector<128x128xi32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %a, %b, %acc : vector<128x128xi8>, vector<128x128xi8> into vector<128x128xi32>
    kernel.store %r, %acc_ref[%c0, %c0] : vector<128x128xi32>, memref<128x128xi32, #kernel.space<vmem>>
    %lastk = arith.subi %nk, %c1 : index
    %last = arith.cmpi eq, %k, %lastk : index
    scf.if %last {
      %q = kernel.load %acc_ref[%c0, %c0] : memref<128x128xi32, #kernel.space<vmem>>, vector<128x128xi32>
      %f = arith.sitofp %q : vector<128x128xi32> to vector<128x128xf32>
      %rs = kernel.load %sx[%c0, %c0] : memref<128x1xf32, #kernel.space<vmem>>, vector<128x1xf32>
      %cs = kernel.load %sw[%c0, %c0] : memref<1x128xf32, #kernel.space<vmem>>, vector<1x128xf32>
      %rsb = vector.broadcast %rs : vector<128x1xf32> to vector<128x128xf32>
      %csb = vector.broadcast %cs : vector<1x128xf32> to vector<128x128xf32>
      %t = arith.mulf %f, %rsb : vector<128x128xf32>
      %u = arith.mulf %t, %csb : vector<128x128xf32>
      kernel.store %u, %o[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    }
    return
  }

  // The number of elements of %a and %b that differ by more than `tol`
  // (relative and absolute) or are NaN.
  func.func private @mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %tol: f32) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%p: f32, %q: f32, %n: i32):
      %d = arith.subf %p, %q : f32
      %ad = math.absf %d : f32
      %aq = math.absf %q : f32
      %t = arith.mulf %aq, %tol : f32
      %limit = arith.addf %t, %tol : f32
      %isbad = arith.cmpf ugt, %ad, %limit : f32
      %inc = arith.extui %isbad : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%u: tensor<128x256xf32>, %v: tensor<256x128xf32>, %p: tensor<128x256xi8>, %q: tensor<256x128xi8>,
                  %sx: tensor<128x1xf32>, %sw: tensor<1x128xf32>)
      -> (tensor<128x128xf32>, tensor<i32>, tensor<128x128xf32>, tensor<i32>, tensor<128x128xf32>, tensor<i32>) {
    // Whole numbers in [-8, 8) as bf16.
    %eight = arith.constant 8.0 : f32
    %e0 = tensor.empty() : tensor<128x256xbf16>
    %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%u : tensor<128x256xf32>) outs(%e0 : tensor<128x256xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %s = arith.mulf %in, %eight : f32
      %f = math.floor %s : f32
      %t = arith.truncf %f : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<128x256xbf16>
    %e1 = tensor.empty() : tensor<256x128xbf16>
    %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%v : tensor<256x128xf32>) outs(%e1 : tensor<256x128xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %s = arith.mulf %in, %eight : f32
      %f = math.floor %s : f32
      %t = arith.truncf %f : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<256x128xbf16>
    %zf = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    %tol = arith.constant 1.0e-4 : f32
    %exact = arith.constant 0.0 : f32
    %ef = tensor.empty() : tensor<128x128xf32>
    %ff = linalg.fill ins(%zf : f32) outs(%ef : tensor<128x128xf32>) -> tensor<128x128xf32>
    %fi = tensor.empty() : tensor<128x128xi32>
    %fill_i = linalg.fill ins(%zi : i32) outs(%fi : tensor<128x128xi32>) -> tensor<128x128xi32>
    %ref = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %y : tensor<128x256xbf16>, tensor<256x128xbf16>) outs(%ff : tensor<128x128xf32>) {
    ^bb0(%a: bf16, %b: bf16, %c: f32):
      %af = arith.extf %a : bf16 to f32
      %bf = arith.extf %b : bf16 to f32
      %m = arith.mulf %af, %bf : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<128x128xf32>
    %rc = tensor.cast %ref : tensor<128x128xf32> to tensor<?x?xf32>

    // 0. astype, then an f32 dot.
    %0 = kernel.call @astype_body(%x, %y) grid = []
        in_specs = [#kernel.block<full>, #kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<128x256xbf16>, tensor<256x128xbf16>) -> tensor<128x128xf32>
    %c0 = tensor.cast %0 : tensor<128x128xf32> to tensor<?x?xf32>
    %bad0 = func.call @mismatches(%c0, %rc, %tol) : (tensor<?x?xf32>, tensor<?x?xf32>, f32) -> tensor<i32>

    // 1. bf16 x bf16 into f32.
    %1 = kernel.call @bf16_body(%x, %y) grid = []
        in_specs = [#kernel.block<full>, #kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<128x256xbf16>, tensor<256x128xbf16>) -> tensor<128x128xf32>
    %c1 = tensor.cast %1 : tensor<128x128xf32> to tensor<?x?xf32>
    %bad1 = func.call @mismatches(%c1, %rc, %tol) : (tensor<?x?xf32>, tensor<?x?xf32>, f32) -> tensor<i32>

    // 2. int8 x int8 into int32 over k, rescaled.
    %2 = kernel.call @int8_body(%p, %q, %sx, %sw) grid = [1, 2]
        in_specs = [#kernel.block<[128, 128], (i, k) -> (i, k)>, #kernel.block<[128, 128], (i, k) -> (k, 0)>,
                    #kernel.block<[128, 1], (i, k) -> (i, 0)>, #kernel.block<[1, 128], (i, k) -> (0, 0)>]
        out_specs = [#kernel.block<[128, 128], (i, k) -> (i, 0)>]
        scratch = [memref<128x128xi32, #kernel.space<vmem>>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<128x256xi8>, tensor<256x128xi8>, tensor<128x1xf32>, tensor<1x128xf32>) -> tensor<128x128xf32>
    %qi = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%p, %q : tensor<128x256xi8>, tensor<256x128xi8>) outs(%fill_i : tensor<128x128xi32>) {
    ^bb0(%a: i8, %b: i8, %c: i32):
      %ai = arith.extsi %a : i8 to i32
      %bi = arith.extsi %b : i8 to i32
      %m = arith.muli %ai, %bi : i32
      %s = arith.addi %c, %m : i32
      linalg.yield %s : i32
    } -> tensor<128x128xi32>
    %qref = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (0, j)>,
                                             affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
        ins(%qi, %sx, %sw : tensor<128x128xi32>, tensor<128x1xf32>, tensor<1x128xf32>) outs(%ef : tensor<128x128xf32>) {
    ^bb0(%a: i32, %r: f32, %c: f32, %o: f32):
      %f = arith.sitofp %a : i32 to f32
      %t = arith.mulf %f, %r : f32
      %s = arith.mulf %t, %c : f32
      linalg.yield %s : f32
    } -> tensor<128x128xf32>
    %c2 = tensor.cast %2 : tensor<128x128xf32> to tensor<?x?xf32>
    %r2 = tensor.cast %qref : tensor<128x128xf32> to tensor<?x?xf32>
    %bad2 = func.call @mismatches(%c2, %r2, %exact) : (tensor<?x?xf32>, tensor<?x?xf32>, f32) -> tensor<i32>
    return %0, %bad0, %1, %bad1, %2, %bad2
        : tensor<128x128xf32>, tensor<i32>, tensor<128x128xf32>, tensor<i32>, tensor<128x128xf32>, tensor<i32>
  }
}
