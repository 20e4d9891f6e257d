// Tests an online-softmax flash-attention kernel as Pallas's TPU flash
// attention writes it: a (128, 128) block of queries per step of the first
// grid axis, the keys and values in (128, 128) blocks over the second
// (`arbitrary`) axis, the running row maximum and sum in (128, 128)
// lane-replicated VMEM scratch and the output accumulated in a third,
// initialized at the first key block and normalized at the last. The
// vector math of the body (two contractions, one with the keys'
// transposed maps, row reductions, broadcasts, exp) runs on native tiles
// (kernel-apply-vector-layout). The result is compared with softmax(q k^T)
// v computed with linalg on the whole arrays in the same module (result1:
// the number of elements that differ by more than 1e-4 relative), and
// --check compares the pipelined run with the interpret run.
// RUN: tessera-run %s --random-inputs --seed 7 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 7 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result1: i32[] = [0]
// CHECK: check: all 2 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
#qd = affine_map<(q, k, d) -> (q, d)>
#kd = affine_map<(q, k, d) -> (k, d)>
#qk = affine_map<(q, k, d) -> (q, k)>
#qk2 = affine_map<(q, d, k) -> (q, k)>
#kd2 = affine_map<(q, d, k) -> (k, d)>
#qd2 = affine_map<(q, d, k) -> (q, d)>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @flash_body(%q: memref<128x128xf32, #kernel.space<vmem>>, %k: memref<128x128xf32, #kernel.space<vmem>>,
                        %v: memref<128x128xf32, #kernel.space<vmem>>, %o: memref<128x128xf32, #kernel.space<vmem>>,
                        %m_ref: memref<128x128xf32, #kernel.space<vmem>>, %l_ref: memref<128x128xf32, #kernel.space<vmem>>,
                        %acc_ref: memref<128x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %j = kernel.program_id 1
    %nj = kernel.num_programs 1
    %first = arith.cmpi eq, %j, %c0 : index
    scf.if %first {
      %ninf = arith.constant dense<0xFF800000> : vector<128x128xf32>
      %zero = arith.constant dense<0.0> : vector<128x128xf32>
      kernel.store %ninf, %m_ref[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
      kernel.store %zero, %l_ref[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
      kernel.store %zero, %acc_ref[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    }
    %qb = kernel.load %q[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %kb = kernel.load %k[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %vb = kernel.load %v[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    // s = q k^T / sqrt(d)
    %zs = arith.constant dense<0.0> : vector<128x128xf32>
    %s0 = vector.contract {indexing_maps = [#qd, #kd, #qk], iterator_types = ["parallel", "parallel", "reduction"],
                           kind = #vector.kind<add>} %qb, %kb, %zs : vector<128x128xf32>, vector<128x128xf32> into vector<128x128xf32>
    %scale = arith.constant dense<0.08838834764> : vector<128x128xf32>
    %s = arith.mulf %s0, %scale : vector<128x128xf32>
    // The running maximum and sum.
    %m_prev = kernel.load %m_ref[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %l_prev = kernel.load %l_ref[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %low = arith.constant dense<0xFF800000> : vector<128xf32>
    %rowmax = vector.multi_reduction <maximumf>, %s, %low [1] : vector<128x128xf32> to vector<128xf32>
    %rowmax2 = vector.shape_cast %rowmax : vector<128xf32> to vector<128x1xf32>
    %m_curr = vector.broadcast %rowmax2 : vector<128x1xf32> to vector<128x128xf32>
    %m_next = arith.maximumf %m_prev, %m_curr : vector<128x128xf32>
    %centered = arith.subf %s, %m_next : vector<128x128xf32>
    %p = math.exp %centered : vector<128x128xf32>
    %dm = arith.subf %m_prev, %m_next : vector<128x128xf32>
    %alpha = math.exp %dm : vector<128x128xf32>
    %zl = arith.constant dense<0.0> : vector<128xf32>
    %rowsum = vector.multi_reduction <add>, %p, %zl [1] : vector<128x128xf32> to vector<128xf32>
    %rowsum2 = vector.shape_cast %rowsum : vector<128xf32> to vector<128x1xf32>
    %l_curr = vector.broadcast %rowsum2 : vector<128x1xf32> to vector<128x128xf32>
    %l_corr = arith.mulf %alpha, %l_prev : vector<128x128xf32>
    %l_next = arith.addf %l_corr, %l_curr : vector<128x128xf32>
    kernel.store %m_next, %m_ref[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    kernel.store %l_next, %l_ref[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    // acc = acc * alpha + p v
    %acc = kernel.load %acc_ref[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %scaled = arith.mulf %acc, %alpha : vector<128x128xf32>
    %pv = vector.contract {indexing_maps = [#qk2, #kd2, #qd2], iterator_types = ["parallel", "parallel", "reduction"],
                           kind = #vector.kind<add>} %p, %vb, %scaled : vector<128x128xf32>, vector<128x128xf32> into vector<128x128xf32>
    kernel.store %pv, %acc_ref[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    %lastj = arith.subi %nj, %c1 : index
    %last = arith.cmpi eq, %j, %lastj : index
    scf.if %last {
      %a = kernel.load %acc_ref[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
      %l = kernel.load %l_ref[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
      %out = arith.divf %a, %l : vector<128x128xf32>
      kernel.store %out, %o[%c0, %c0] : vector<128x128xf32>, memref<128x128xf32, #kernel.space<vmem>>
    }
    return
  }

  // The number of elements of %a and %b that differ by more than 1e-4
  // (relative) or are NaN.
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

  func.func @main(%q: tensor<256x128xf32>, %k: tensor<256x128xf32>, %v: tensor<256x128xf32>)
      -> (tensor<256x128xf32>, tensor<i32>) {
    %0 = kernel.call @flash_body(%q, %k, %v) grid = [2, 2]
        in_specs = [#kernel.block<[128, 128], (i, j) -> (i, 0)>, #kernel.block<[128, 128], (i, j) -> (j, 0)>,
                    #kernel.block<[128, 128], (i, j) -> (j, 0)>]
        out_specs = [#kernel.block<[128, 128], (i, j) -> (i, 0)>]
        scratch = [memref<128x128xf32, #kernel.space<vmem>>, memref<128x128xf32, #kernel.space<vmem>>,
                   memref<128x128xf32, #kernel.space<vmem>>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>

    // The reference: softmax(q k^T / sqrt(d)) v on the whole arrays.
    %zf = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<256x256xf32>
    %f0 = linalg.fill ins(%zf : f32) outs(%e0 : tensor<256x256xf32>) -> tensor<256x256xf32>
    %s = linalg.generic {indexing_maps = [#qd, #kd, #qk], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%q, %k : tensor<256x128xf32>, tensor<256x128xf32>) outs(%f0 : tensor<256x256xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %c, %m : f32
      linalg.yield %r : f32
    } -> tensor<256x256xf32>
    %ninf = arith.constant 0xFF800000 : f32
    %e1 = tensor.empty() : tensor<256xf32>
    %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
    %scale = arith.constant 0.08838834764 : f32
    %mx = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
        ins(%s : tensor<256x256xf32>) outs(%f1 : tensor<256xf32>) {
    ^bb0(%a: f32, %c: f32):
      %sa = arith.mulf %a, %scale : f32
      %r = arith.maximumf %c, %sa : f32
      linalg.yield %r : f32
    } -> tensor<256xf32>
    %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%s, %mx : tensor<256x256xf32>, tensor<256xf32>) outs(%e0 : tensor<256x256xf32>) {
    ^bb0(%a: f32, %m: f32, %c: f32):
      %sa = arith.mulf %a, %scale : f32
      %d = arith.subf %sa, %m : f32
      %r = math.exp %d : f32
      linalg.yield %r : f32
    } -> tensor<256x256xf32>
    %f2 = linalg.fill ins(%zf : f32) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
    %l = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
        ins(%p : tensor<256x256xf32>) outs(%f2 : tensor<256xf32>) {
    ^bb0(%a: f32, %c: f32):
      %r = arith.addf %c, %a : f32
      linalg.yield %r : f32
    } -> tensor<256xf32>
    %e3 = tensor.empty() : tensor<256x128xf32>
    %f3 = linalg.fill ins(%zf : f32) outs(%e3 : tensor<256x128xf32>) -> tensor<256x128xf32>
    %pv = linalg.generic {indexing_maps = [#qk2, #kd2, #qd2], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%p, %v : tensor<256x256xf32>, tensor<256x128xf32>) outs(%f3 : tensor<256x128xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %c, %m : f32
      linalg.yield %r : f32
    } -> tensor<256x128xf32>
    %ref = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
        ins(%pv, %l : tensor<256x128xf32>, tensor<256xf32>) outs(%e3 : tensor<256x128xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %r = arith.divf %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<256x128xf32>
    %a0 = tensor.cast %0 : tensor<256x128xf32> to tensor<?x?xf32>
    %r0 = tensor.cast %ref : tensor<256x128xf32> to tensor<?x?xf32>
    %bad = func.call @mismatches(%a0, %r0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %0, %bad : tensor<256x128xf32>, tensor<i32>
  }
}
