// Tests a block-sparse matmul driven by scalar prefetch: two i32 arrays
// %rows and %cols (prefetched into SMEM) list the nonzero (16, 128) blocks of
// a (64, 512) left-hand side, sorted by row of blocks. The grid is (j, s):
// j walks the 2 column blocks of the output (parallel), s the 7 nonzero
// blocks (arbitrary). The index maps of the right-hand side and of the output
// are functions that read the prefetched arrays (cols[s] and rows[s]), so the
// output block is revisited on consecutive steps while it accumulates, and
// the body finds the first step of each row of blocks by comparing
// rows[s] with rows[s - 1] in SMEM.
//
//  0. The nonzero blocks stored compactly (a (7, 16, 128) array read with a
//     squeezed leading dimension and an affine index map); every row of
//     blocks has at least one nonzero block, so the kernel writes the whole
//     output: O = dense(A) * B.
//  1. The left-hand side stored dense (64, 512), its blocks picked by an
//     index map reading both prefetched arrays; row of blocks 1 has no
//     nonzero block and (3, 1) is listed twice (added twice, and its
//     right-hand-side block does not change between the two steps). The
//     output is aliased to the input C (input_output_aliases, counting the
//     prefetch operands), so the unvisited row of blocks keeps C:
//     O = C + mask(A) * B.
//
// Each kernel result is compared with linalg.matmul of the densified
// left-hand side (built by an scf.for adding every listed block into
// zeros) in the same module: result2 and result5 are the number of elements
// that differ by more than 1e-4 (relative) or are NaN. result6 counts the
// elements of result0 that are exactly 0 (none: every row of blocks is
// written) and result7 those of result3 equal to C (exactly row of blocks 1:
// 16 x 256 = 4096), so a kernel that skips or misplaces blocks fails even if
// the reference were wrong the same way. --check compares the pipelined
// lowering with the interpret lowering, which also checks the data-dependent
// block indices and output revisits at run time.
//
// RUN: tessera-run %s --random-inputs --seed 3 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 3 --kernel-mode=pipelined | FileCheck %s --check-prefix=VALUES
// RUN: tessera-run %s --random-inputs --seed 5 --kernel-mode=interpret | FileCheck %s --check-prefix=VALUES
// RUN: tessera-opt %s --kernel-verify | FileCheck %s --check-prefix=VERIFY
// RUN: tessera-opt %s --kernel-lower-pipelined | FileCheck %s --check-prefix=PIPELINED
// RUN: tessera-opt %s --kernel-lower-pipelined | FileCheck %s --check-prefix=CALLS

// CHECK: result2: i32[] = [0]
// CHECK: result5: i32[] = [0]
// CHECK: result6: i32[] = [0]
// CHECK: result7: i32[] = [4096]
// CHECK: check: all 8 results match the single-device reference (kernels in interpret mode)
// VALUES: result2: i32[] = [0]
// VALUES: result5: i32[] = [0]
// VALUES: result6: i32[] = [0]
// VALUES: result7: i32[] = [4096]

// kernel-verify accepts both calls (function index maps are left to the
// run-time checks) and leaves them unchanged.
// VERIFY-LABEL: func.func @main
// VERIFY: kernel.call @compact_body(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) grid = [2, 7] scalar_prefetch = 2
// VERIFY-SAME: in_specs = [#kernel.block<[None, 16, 128], (d0, d1) -> (d1, 0, 0)>, #kernel.block<[128, 128], @rhs_block>]
// VERIFY-SAME: out_specs = [#kernel.block<[16, 128], @out_block>]
// VERIFY-SAME: dimension_semantics = [parallel, arbitrary]
// VERIFY: kernel.call @dense_body(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) grid = [2, 7] scalar_prefetch = 2
// VERIFY-SAME: input_output_aliases = {4 -> 0}

// The pipelined lowering: the index-map functions and the bodies are lowered
// with plain memrefs (their SMEM loads become memref loads); the prefetched
// arrays are copied into buffers that the index-map calls and the body call
// all get, after the grid indices.
// PIPELINED-LABEL: func.func @rhs_block
// PIPELINED-SAME: (%{{.*}}: index, %[[S:.*]]: index, %{{.*}}: memref<7xi32>, %[[COLS:.*]]: memref<7xi32>) -> (index, index)
// PIPELINED: memref.load %[[COLS]][%[[S]]] : memref<7xi32>
// PIPELINED-LABEL: func.func private @compact_body_pipelined0
// PIPELINED-SAME: (%{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<7xi32>, %{{.*}}: memref<7xi32>, %{{.*}}: memref<16x128xf32>, %{{.*}}: memref<128x128xf32>, %{{.*}}: memref<16x128xf32>)
// PIPELINED-LABEL: func.func private @dense_body_pipelined1
// PIPELINED-SAME: (%{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<7xi32>, %{{.*}}: memref<7xi32>, %{{.*}}: memref<16x128xf32>, %{{.*}}: memref<128x128xf32>, %{{.*}}: memref<16x128xf32>, %{{.*}}: memref<16x128xf32>)
// CALLS: memref.copy %{{.*}}, %[[ROWS0:.*]] : memref<7xi32> to memref<7xi32>
// CALLS: memref.copy %{{.*}}, %[[COLS0:.*]] : memref<7xi32> to memref<7xi32>
// CALLS: call @rhs_block(%{{.*}}, %{{.*}}, %[[ROWS0]], %[[COLS0]])
// CALLS: call @out_block(%{{.*}}, %{{.*}}, %[[ROWS0]], %[[COLS0]])
// CALLS: call @compact_body_pipelined0(%{{.*}}, %{{.*}}, %[[ROWS0]], %[[COLS0]], %{{.*}}, %{{.*}}, %{{.*}})
// CALLS: memref.copy %{{.*}}, %[[ROWS1:.*]] : memref<7xi32> to memref<7xi32>
// CALLS: memref.copy %{{.*}}, %[[COLS1:.*]] : memref<7xi32> to memref<7xi32>
// CALLS: call @lhs_block(%{{.*}}, %{{.*}}, %[[ROWS1]], %[[COLS1]])
// CALLS: call @dense_body_pipelined1(%{{.*}}, %{{.*}}, %[[ROWS1]], %[[COLS1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})

module attributes {kernel.target = #kernel.target<"v5e">} {
  // The right-hand-side block of step (j, s): (cols[s], j).
  func.func @rhs_block(%j: index, %s: index, %rows: memref<7xi32, #kernel.space<smem>>,
                       %cols: memref<7xi32, #kernel.space<smem>>) -> (index, index) {
    %c = kernel.load %cols[%s] : memref<7xi32, #kernel.space<smem>>, i32
    %ci = arith.index_cast %c : i32 to index
    return %ci, %j : index, index
  }

  // The output block (and C block) of step (j, s): (rows[s], j).
  func.func @out_block(%j: index, %s: index, %rows: memref<7xi32, #kernel.space<smem>>,
                       %cols: memref<7xi32, #kernel.space<smem>>) -> (index, index) {
    %r = kernel.load %rows[%s] : memref<7xi32, #kernel.space<smem>>, i32
    %ri = arith.index_cast %r : i32 to index
    return %ri, %j : index, index
  }

  // The dense left-hand-side block of step (j, s): (rows[s], cols[s]).
  func.func @lhs_block(%j: index, %s: index, %rows: memref<7xi32, #kernel.space<smem>>,
                       %cols: memref<7xi32, #kernel.space<smem>>) -> (index, index) {
    %r = kernel.load %rows[%s] : memref<7xi32, #kernel.space<smem>>, i32
    %c = kernel.load %cols[%s] : memref<7xi32, #kernel.space<smem>>, i32
    %ri = arith.index_cast %r : i32 to index
    %ci = arith.index_cast %c : i32 to index
    return %ri, %ci : index, index
  }

  // 0. o (+)= a * b, o zeroed on the first step of its row of blocks.
  func.func @compact_body(%rows: memref<7xi32, #kernel.space<smem>>, %cols: memref<7xi32, #kernel.space<smem>>,
                          %a: memref<16x128xf32, #kernel.space<vmem>>, %b: memref<128x128xf32, #kernel.space<vmem>>,
                          %o: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = kernel.program_id 1
    // rows[max(s - 1, 0)]: the previous step's row of blocks (s = 0 has none).
    %sm1 = arith.subi %s, %c1 : index
    %isfirst = arith.cmpi eq, %s, %c0 : index
    %prev = arith.select %isfirst, %c0, %sm1 : index
    %r = kernel.load %rows[%s] : memref<7xi32, #kernel.space<smem>>, i32
    %rp = kernel.load %rows[%prev] : memref<7xi32, #kernel.space<smem>>, i32
    %newrow = arith.cmpi ne, %r, %rp : i32
    %start = arith.ori %isfirst, %newrow : i1
    scf.if %start {
      %zero = arith.constant dense<0.0> : vector<16x128xf32>
      kernel.store %zero, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    }
    linalg.matmul ins(%a, %b : memref<16x128xf32, #kernel.space<vmem>>, memref<128x128xf32, #kernel.space<vmem>>)
                  outs(%o : memref<16x128xf32, #kernel.space<vmem>>)
    return
  }

  // 1. o (+)= a * b, o set to the C block on the first step of its row of
  // blocks.
  func.func @dense_body(%rows: memref<7xi32, #kernel.space<smem>>, %cols: memref<7xi32, #kernel.space<smem>>,
                        %a: memref<16x128xf32, #kernel.space<vmem>>, %b: memref<128x128xf32, #kernel.space<vmem>>,
                        %c: memref<16x128xf32, #kernel.space<vmem>>, %o: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = kernel.program_id 1
    %sm1 = arith.subi %s, %c1 : index
    %isfirst = arith.cmpi eq, %s, %c0 : index
    %prev = arith.select %isfirst, %c0, %sm1 : index
    %r = kernel.load %rows[%s] : memref<7xi32, #kernel.space<smem>>, i32
    %rp = kernel.load %rows[%prev] : memref<7xi32, #kernel.space<smem>>, i32
    %newrow = arith.cmpi ne, %r, %rp : i32
    %start = arith.ori %isfirst, %newrow : i1
    scf.if %start {
      %init = kernel.load %c[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
      kernel.store %init, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    }
    linalg.matmul ins(%a, %b : memref<16x128xf32, #kernel.space<vmem>>, memref<128x128xf32, #kernel.space<vmem>>)
                  outs(%o : memref<16x128xf32, #kernel.space<vmem>>)
    return
  }

  // The (64, 512) matrix with src(s) added at block (rows[s], cols[s]) for
  // every s, where src(s) is blocks[s] (compact) or the block (rows[s],
  // cols[s]) of %dense (dense).
  func.func private @densify(%rows: tensor<7xi32>, %cols: tensor<7xi32>, %blocks: tensor<7x16x128xf32>,
                             %dense: tensor<64x512xf32>, %compact: i1) -> tensor<64x512xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<64x512xf32>
    %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x512xf32>) -> tensor<64x512xf32>
    %res = scf.for %s = %c0 to %c7 step %c1 iter_args(%acc = %zeros) -> (tensor<64x512xf32>) {
      %r = tensor.extract %rows[%s] : tensor<7xi32>
      %c = tensor.extract %cols[%s] : tensor<7xi32>
      %ri = arith.index_cast %r : i32 to index
      %ci = arith.index_cast %c : i32 to index
      %ro = arith.muli %ri, %c16 : index
      %co = arith.muli %ci, %c128 : index
      %src = scf.if %compact -> (tensor<16x128xf32>) {
        %blk = tensor.extract_slice %blocks[%s, 0, 0] [1, 16, 128] [1, 1, 1] : tensor<7x16x128xf32> to tensor<16x128xf32>
        scf.yield %blk : tensor<16x128xf32>
      } else {
        %blk = tensor.extract_slice %dense[%ro, %co] [16, 128] [1, 1] : tensor<64x512xf32> to tensor<16x128xf32>
        scf.yield %blk : tensor<16x128xf32>
      }
      %old = tensor.extract_slice %acc[%ro, %co] [16, 128] [1, 1] : tensor<64x512xf32> to tensor<16x128xf32>
      %new = arith.addf %old, %src : tensor<16x128xf32>
      %upd = tensor.insert_slice %new into %acc[%ro, %co] [16, 128] [1, 1] : tensor<16x128xf32> into tensor<64x512xf32>
      scf.yield %upd : tensor<64x512xf32>
    }
    return %res : tensor<64x512xf32>
  }

  // The number of elements of %a and %b that differ by more than 1e-4
  // (relative) or are NaN.
  func.func private @mismatches(%a: tensor<64x256xf32>, %b: tensor<64x256xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<64x256xf32>, tensor<64x256xf32>) outs(%acc : tensor<i32>) {
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

  // The number of elements of %a and %b that are exactly equal.
  func.func private @equal(%a: tensor<64x256xf32>, %b: tensor<64x256xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                         iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<64x256xf32>, tensor<64x256xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%x: f32, %y: f32, %m: i32):
      %eq = arith.cmpf oeq, %x, %y : f32
      %inc = arith.extui %eq : i1 to i32
      %sum = arith.addi %m, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %n : tensor<i32>
  }

  func.func @main(%blocks: tensor<7x16x128xf32>, %a: tensor<64x512xf32>, %b: tensor<512x256xf32>, %c: tensor<64x256xf32>)
      -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<i32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<i32>,
          tensor<i32>, tensor<i32>) {
    %true = arith.constant true
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<64x256xf32>
    %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x256xf32>) -> tensor<64x256xf32>

    // 0. Rows of blocks 0: {0, 2}, 1: {1}, 2: {0, 1, 3}, 3: {3}.
    %rows0 = arith.constant dense<[0, 0, 1, 2, 2, 2, 3]> : tensor<7xi32>
    %cols0 = arith.constant dense<[0, 2, 1, 0, 1, 3, 3]> : tensor<7xi32>
    %0 = kernel.call @compact_body(%rows0, %cols0, %blocks, %b) grid = [2, 7] scalar_prefetch = 2
        in_specs = [#kernel.block<[None, 16, 128], (j, s) -> (s, 0, 0)>,
                    #kernel.block<[128, 128], @rhs_block>]
        out_specs = [#kernel.block<[16, 128], @out_block>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<7xi32>, tensor<7xi32>, tensor<7x16x128xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
    %unused = tensor.empty() : tensor<64x512xf32>
    %d0 = func.call @densify(%rows0, %cols0, %blocks, %unused, %true)
        : (tensor<7xi32>, tensor<7xi32>, tensor<7x16x128xf32>, tensor<64x512xf32>, i1) -> tensor<64x512xf32>
    %ref0 = linalg.matmul ins(%d0, %b : tensor<64x512xf32>, tensor<512x256xf32>) outs(%zeros : tensor<64x256xf32>) -> tensor<64x256xf32>
    %bad0 = func.call @mismatches(%0, %ref0) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<i32>
    %nzero = func.call @equal(%0, %zeros) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<i32>

    // 1. Rows of blocks 0: {3, 1}, 1: none, 2: {0, 2}, 3: {1, 1, 2}.
    %rows1 = arith.constant dense<[0, 0, 2, 2, 3, 3, 3]> : tensor<7xi32>
    %cols1 = arith.constant dense<[3, 1, 0, 2, 1, 1, 2]> : tensor<7xi32>
    %1 = kernel.call @dense_body(%rows1, %cols1, %a, %b, %c) grid = [2, 7] scalar_prefetch = 2
        in_specs = [#kernel.block<[16, 128], @lhs_block>,
                    #kernel.block<[128, 128], @rhs_block>,
                    #kernel.block<[16, 128], @out_block>]
        out_specs = [#kernel.block<[16, 128], @out_block>]
        dimension_semantics = [parallel, arbitrary]
        input_output_aliases = {4 -> 0}
        : (tensor<7xi32>, tensor<7xi32>, tensor<64x512xf32>, tensor<512x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
    %noblocks = tensor.empty() : tensor<7x16x128xf32>
    %d1 = func.call @densify(%rows1, %cols1, %noblocks, %a, %false)
        : (tensor<7xi32>, tensor<7xi32>, tensor<7x16x128xf32>, tensor<64x512xf32>, i1) -> tensor<64x512xf32>
    %ref1 = linalg.matmul ins(%d1, %b : tensor<64x512xf32>, tensor<512x256xf32>) outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
    %bad1 = func.call @mismatches(%1, %ref1) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<i32>
    %kept = func.call @equal(%1, %c) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<i32>

    return %0, %ref0, %bad0, %1, %ref1, %bad1, %nzero, %kept
        : tensor<64x256xf32>, tensor<64x256xf32>, tensor<i32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<i32>,
          tensor<i32>, tensor<i32>
  }
}
