// Pallas's blocked matmul as a kernel.call: o = x @ y over a grid (i, j, k)
// of (8, 128) x (128, 128) blocks, the k axis last. The kernel keeps an
// accumulator in VMEM scratch, zeroes it on the first k step, adds
// x_block @ y_block at every step and writes it out on the last one:
//
//   def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
//     @pl.when(pl.program_id(2) == 0)
//     def _(): acc_ref[...] = jnp.zeros_like(acc_ref)
//     acc_ref[...] += jnp.dot(x_ref[...], y_ref[...])
//     @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
//     def _(): o_ref[...] = acc_ref[...]
//
// @main also computes the product with linalg.matmul: both results must be
// equal (integers, so bit for bit).
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @matmul_kernel(%x: memref<8x128xi32, #kernel.space<vmem>>,
                           %y: memref<128x128xi32, #kernel.space<vmem>>,
                           %o: memref<8x128xi32, #kernel.space<vmem>>,
                           %acc: memref<8x128xi32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %k = kernel.program_id 2
    %nk = kernel.num_programs 2
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0> : vector<8x128xi32>
      kernel.store %zero, %acc[%c0, %c0] : vector<8x128xi32>, memref<8x128xi32, #kernel.space<vmem>>
    }
    linalg.matmul ins(%x, %y : memref<8x128xi32, #kernel.space<vmem>>, memref<128x128xi32, #kernel.space<vmem>>)
                  outs(%acc : memref<8x128xi32, #kernel.space<vmem>>)
    %lastk = arith.subi %nk, %c1 : index
    %last = arith.cmpi eq, %k, %lastk : index
    scf.if %last {
      %v = kernel.load %acc[%c0, %c0] : memref<8x128xi32, #kernel.space<vmem>>, vector<8x128xi32>
      kernel.store %v, %o[%c0, %c0] : vector<8x128xi32>, memref<8x128xi32, #kernel.space<vmem>>
    }
    return
  }

  func.func @main(%x: tensor<16x256xi32>, %y: tensor<256x256xi32>)
      -> (tensor<16x256xi32>, tensor<16x256xi32>) {
    // pl.pallas_call(matmul_kernel, grid=(2, 2, 2),
    //   in_specs=[pl.BlockSpec((8, 128), lambda i, j, k: (i, k)),
    //             pl.BlockSpec((128, 128), lambda i, j, k: (k, j))],
    //   out_specs=pl.BlockSpec((8, 128), lambda i, j, k: (i, j)),
    //   scratch_shapes=[pltpu.VMEM((8, 128), jnp.int32)], ...)(x, y)
    %0 = kernel.call @matmul_kernel(%x, %y) grid = [2, 2, 2]
        in_specs = [#kernel.block<[8, 128], (i, j, k) -> (i, k)>,
                    #kernel.block<[128, 128], (i, j, k) -> (k, j)>]
        out_specs = [#kernel.block<[8, 128], (i, j, k) -> (i, j)>]
        scratch = [memref<8x128xi32, #kernel.space<vmem>>]
        dimension_semantics = [parallel, parallel, arbitrary]
        : (tensor<16x256xi32>, tensor<256x256xi32>) -> tensor<16x256xi32>
    %zero = arith.constant 0 : i32
    %e = tensor.empty() : tensor<16x256xi32>
    %init = linalg.fill ins(%zero : i32) outs(%e : tensor<16x256xi32>) -> tensor<16x256xi32>
    %ref = linalg.matmul ins(%x, %y : tensor<16x256xi32>, tensor<256x256xi32>)
                         outs(%init : tensor<16x256xi32>) -> tensor<16x256xi32>
    return %0, %ref : tensor<16x256xi32>, tensor<16x256xi32>
  }
}
