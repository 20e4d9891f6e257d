// RUN: tessera-opt %s --split-input-file --kernel-verify --verify-diagnostics

// Tests that kernel-verify reports every rule of the TPU generation with
// JAX's and Mosaic's wording.

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that the target generation is required.
func.func @no_target(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  // expected-error @+1 {{'kernel.call' op kernel-verify needs the TPU generation to check for: set 'kernel.target = #kernel.target<"v5e">' (or "v4", "v5p", "v6e", "v7x") on the enclosing module}}
  %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
      : (tensor<16x128xf32>) -> tensor<16x128xf32>
  return %0 : tensor<16x128xf32>
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that parallel axes form a prefix of the grid.
  func.func @parallel_prefix(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
    // expected-error @+1 {{'kernel.call' op Dimensions with parallel semantics must form a prefix of the grid: dimension_semantics = [arbitrary, parallel]}}
    %0 = kernel.call @body(%x) grid = [2, 2] in_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>] out_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
        dimension_semantics = [arbitrary, parallel]
        : (tensor<16x256xf32>) -> tensor<16x256xf32>
    return %0 : tensor<16x256xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<f32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that VMEM blocks have rank >= 1.
  func.func @rank_zero(%x: tensor<f32>) -> tensor<8x128xf32> {
    // expected-error @+1 {{'kernel.call' op The Pallas TPU lowering currently supports only blocks of rank >= 1. Block spec for args[0] in kernel.call @body has block shape (), array shape (), and index_map zeros, in memory space vmem}}
    %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<f32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x128xf32, #kernel.space<any>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that blocks in ANY are whole arrays with a zero index map.
  func.func @any_windowed(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op The Pallas TPU lowering currently supports in memory space ANY only blocks having the same block shape as the array shape and a trivial index_map (returning all 0s). Block spec for args[0] in kernel.call @body has block shape (8, 128), array shape (16, 128), and index_map (d0) -> (d0, 0), in memory space any}}
    %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0), space = any>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x128xf32, #kernel.space<hbm>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that a whole-array HBM block still needs a zero index map.
  func.func @hbm_index_map(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op The Pallas TPU lowering currently supports in memory space ANY only blocks having the same block shape as the array shape and a trivial index_map (returning all 0s). Block spec for args[0] in kernel.call @body has block shape (16, 128), array shape (16, 128), and index_map (d0) -> (d0, 0), in memory space hbm}}
    %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<full, (i) -> (i, 0), space = hbm>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x100xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests the (8, 128) rule on the minor dimension.
  func.func @minor_128(%x: tensor<16x256xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op The Pallas TPU lowering currently requires that the last two dimensions of your block shape are divisible by 8 and 128 respectively, or be equal to the respective dimensions of the overall array. Block spec for args[0] in kernel.call @body has block shape (8, 100), array shape (16, 256), and index_map (d0) -> (d0, 0), in memory space vmem}}
    %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 100], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x256xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<4x128xf32, #kernel.space<vmem>>, %o: memref<4x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests the (8, 128) rule on the second-minor dimension, for outputs too.
  func.func @second_minor_8(%x: tensor<4x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op The Pallas TPU lowering currently requires that the last two dimensions of your block shape are divisible by 8 and 128 respectively, or be equal to the respective dimensions of the overall array. Block spec for outputs[0] in kernel.call @body has block shape (4, 128), array shape (16, 128), and index_map (d0) -> (d0, 0), in memory space vmem}}
    %0 = kernel.call @body(%x) grid = [4] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<[4, 128], (i) -> (i, 0)>]
        : (tensor<4x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that a squeezed dimension counts as size 1 in the (8, 128) rule.
  func.func @squeezed_second_minor(%x: tensor<16x128xf32>) -> tensor<8x128xf32> {
    // expected-error @+1 {{Block spec for args[0] in kernel.call @body has block shape (None, 128), array shape (16, 128)}}
    %0 = kernel.call @body(%x) grid = [16] in_specs = [#kernel.block<[None, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<full>]
        : (tensor<16x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<100xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests the rank-1 block rule.
  func.func @rank_one(%x: tensor<1000xf32>) -> tensor<8x128xf32> {
    // expected-error @+1 {{'kernel.call' op The Pallas TPU lowering currently requires that rank 1 block shapes, either 1) the first (and only) dimension of the block shape is equal to the first (and only) dimension of the array shape, or 2) the first (and only) dimension of the block shape is a multiple of 1024, or 3) the first (and only) dimension of the block shape is a power of 2 and at least the tiling size (128 = 128 * (32 // 32)) of the array shape. Block spec for args[0] in kernel.call @body has block shape (100,), array shape (1000,), and index_map (d0) -> (d0), in memory space vmem}}
    %0 = kernel.call @body(%x) grid = [10] in_specs = [#kernel.block<[100], (i) -> (i)>] out_specs = [#kernel.block<full>]
        : (tensor<1000xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<128xbf16, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that the rank-1 tiling size grows with the packing of narrow types.
  func.func @rank_one_bf16(%x: tensor<1024xbf16>) -> tensor<8x128xf32> {
    // expected-error @+1 {{power of 2 and at least the tiling size (256 = 128 * (32 // 16)) of the array shape}}
    %0 = kernel.call @body(%x) grid = [8] in_specs = [#kernel.block<[128], (i) -> (i)>] out_specs = [#kernel.block<full>]
        : (tensor<1024xbf16>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<10x128xf32, #kernel.space<vmem>>, %o: memref<512x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests Mosaic's rule that element blocks have only element or squeezed
  // dimensions.
  func.func @element_mix(%x: tensor<512x128xf32>) -> tensor<512x128xf32> {
    // expected-error @+1 {{'kernel.call' op All block dimensions must be Elements or none of them can be Elements. Block spec for args[0] in kernel.call @body has block shape (Element(10), 128), array shape (512, 128), and index_map (d0) -> (d0 * 8, 0), in memory space vmem}}
    %0 = kernel.call @body(%x) grid = [64] in_specs = [#kernel.block<[element(10, padding = (1, 1)), 128], (i) -> (i * 8, 0)>] out_specs = [#kernel.block<full>]
        : (tensor<512x128xf32>) -> tensor<512x128xf32>
    return %0 : tensor<512x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<16x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that a grid-free call has only trivial windows.
  func.func @grid_free(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op Non-trivial windowing is not supported for grid-free pallas_call. Block spec for args[0] in kernel.call @body has block shape (8, 128), array shape (16, 128), and index_map zeros, in memory space vmem}}
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<[8, 128]>] out_specs = [#kernel.block<full>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xi64, #kernel.space<vmem>>, %o: memref<8x128xi64, #kernel.space<vmem>>) {
    return
  }
  // Tests Pallas's rejection of 64-bit types.
  func.func @int64(%x: tensor<8x128xi64>) -> tensor<8x128xi64> {
    // expected-error @+1 {{'kernel.call' op 64-bit types are not supported: args[0] has element type 'i64'}}
    %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<8x128xi64>) -> tensor<8x128xi64>
    return %0 : tensor<8x128xi64>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<8x128xf16, #kernel.space<vmem>>) {
    return
  }
  // Tests that f16 is not a TPU type (here in a scratch buffer).
  func.func @f16_scratch(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    // expected-error @+1 {{'kernel.call' op element type 'f16' of scratch buffer 0 is not supported on TPU v5e (supported: f32, bf16, i32, i16, i8 and i1 of any signedness, fp8 and i4)}}
    %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        scratch = [memref<8x128xf16, #kernel.space<vmem>>]
        : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v4">} {
  func.func @body(%x: memref<32x128xf8E4M3FN, #kernel.space<vmem>>, %o: memref<32x128xf8E4M3FN, #kernel.space<vmem>>) {
    return
  }
  // Tests that fp8 needs v5e or newer.
  func.func @fp8_on_v4(%x: tensor<32x128xf8E4M3FN>) -> tensor<32x128xf8E4M3FN> {
    // expected-error @+1 {{'kernel.call' op element type 'f8E4M3FN' of args[0] is not supported on TPU v4 (supported: f32, bf16, i32, i16, i8 and i1 of any signedness; fp8 and i4 from v5e on)}}
    %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<32x128xf8E4M3FN>) -> tensor<32x128xf8E4M3FN>
    return %0 : tensor<32x128xf8E4M3FN>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<1024x2048xf32, #kernel.space<vmem>>, %o: memref<1024x2048xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests the default scoped VMEM limit: two double-buffered 8 MiB windows
  // need 32 MiB, v5e gives kernels 16 MiB.
  func.func @vmem_budget(%x: tensor<4096x2048xf32>) -> tensor<4096x2048xf32> {
    // expected-error @+1 {{'kernel.call' op Scoped allocation with size 32.00M and limit 16.00M exceeded scoped vmem limit by 16.00M (input window allocation for operator input 0: 2 x 8.00M; output window allocation for operator output 0: 2 x 8.00M); the limit is the default scoped VMEM limit of TPU v5e; vmem_limit_bytes raises it up to the 128.00M of VMEM of one TensorCore}}
    %0 = kernel.call @body(%x) grid = [4] in_specs = [#kernel.block<[1024, 2048], (i) -> (i, 0)>] out_specs = [#kernel.block<[1024, 2048], (i) -> (i, 0)>]
        : (tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
    return %0 : tensor<4096x2048xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v7x">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<8x1024x1024xf32, #kernel.space<vmem>>, %t: memref<8x1000xbf16, #kernel.space<vmem>>) {
    return
  }
  // Tests the budget against an explicit vmem_limit_bytes, with scratch
  // buffers padded to the memory tiling (bf16 is (16, 128) on TPU7x).
  func.func @vmem_limit(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op Scoped allocation with size 32.05M and limit 32.00M exceeded scoped vmem limit by 48.00K (input window allocation for operator input 0: 2 x 4.00K; output window allocation for operator output 0: 2 x 4.00K; scratch allocation for scratch operand 0: 32.00M; scratch allocation for scratch operand 1: 32.00K); the limit is vmem_limit_bytes}}
    %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        scratch = [memref<8x1024x1024xf32, #kernel.space<vmem>>, memref<8x1000xbf16, #kernel.space<vmem>>]
        vmem_limit_bytes = 33554432
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v4">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that vmem_limit_bytes cannot exceed the VMEM of a TensorCore.
  func.func @vmem_limit_too_big(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op vmem_limit_bytes = 33554432 (32.00M) exceeds the 16.00M of VMEM of one TensorCore of TPU v4}}
    %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        vmem_limit_bytes = 33554432
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v6e">} {
  func.func @body(%p: memref<262144xi32, #kernel.space<smem>>, %x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<16xi32, #kernel.space<smem>>) {
    return
  }
  // Tests the SMEM budget: scalar-prefetch operands and SMEM scratch.
  func.func @smem_budget(%p: tensor<262144xi32>, %x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op Scoped allocation with size 1.00M and limit 1.00M exceeded scoped smem limit by 64B (scalar prefetch operand 0: 1.00M; scratch allocation for scratch operand 0: 64B); the limit is the SMEM of one TensorCore of TPU v6e}}
    %0 = kernel.call @body(%p, %x) grid = [2] scalar_prefetch = 1 in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        scratch = [memref<16xi32, #kernel.space<smem>>]
        : (tensor<262144xi32>, tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests Pallas's revisit check: output block 0 is left at iteration (0, 1)
  // and come back to at (1, 0).
  func.func @revisit(%x: tensor<16x256xf32>) -> tensor<8x256xf32> {
    // expected-error @+1 {{'kernel.call' op Revisited block [0:8, 0:128] of output 0 in iteration (1, 0). The block was previously visited in iterations (0, 0) through (0, 0)}}
    %0 = kernel.call @body(%x) grid = [2, 2] in_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>] out_specs = [#kernel.block<[8, 128], (i, j) -> (0, j)>]
        : (tensor<16x256xf32>) -> tensor<8x256xf32>
    return %0 : tensor<8x256xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5p">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests that an output is not revisited along a parallel axis (a
  // reduction over a parallel axis would race across megacore cores).
  func.func @revisit_parallel(%x: tensor<32x128xf32>) -> tensor<8x128xf32> {
    // expected-error @+1 {{'kernel.call' op Revisited block [0:8, 0:128] of output 0 in iteration (1,) along grid axis 0, which has parallel semantics (the block was visited in iteration (0,)); an output may only be revisited along 'arbitrary' axes}}
    %0 = kernel.call @body(%x) grid = [4] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (0, 0)>]
        dimension_semantics = [parallel]
        : (tensor<32x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    // expected-error @+1 {{'kernel.program_id' op axis 1 is out of range for the grid (2,) of rank 1}}
    %i = kernel.program_id 1
    return
  }
  // Tests that grid queries name an axis of the grid.
  func.func @program_id_axis(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-note @+1 {{kernel called here}}
    %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    // expected-error @+1 {{'kernel.num_programs' op axis 0 is out of range for the grid () of rank 0}}
    %n = kernel.num_programs 0
    return
  }
  // Tests the same for num_programs of a grid-free call.
  func.func @num_programs_axis(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    // expected-note @+1 {{kernel called here}}
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
        : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

// Tests Mosaic's rule that SMEM is loaded a scalar at a time.
func.func @smem_vector_load(%s: memref<8x128xi32, #kernel.space<smem>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op Can only load scalars from SMEM}}
  %v = kernel.load %s[%c0, %c0] : memref<8x128xi32, #kernel.space<smem>>, vector<8x128xi32>
  return
}

// -----

// Tests the same for stores.
func.func @smem_vector_store(%s: memref<8x128xi32, #kernel.space<smem>>, %v: vector<8x128xi32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.store' op Can only store scalars to SMEM}}
  kernel.store %v, %s[%c0, %c0] : vector<8x128xi32>, memref<8x128xi32, #kernel.space<smem>>
  return
}

// -----

// Tests Mosaic's rule that SMEM stores have no mask.
func.func @smem_masked_store(%s: memref<8x128xi32, #kernel.space<smem>>, %v: vector<8x128xi32>, %m: vector<8x128xi1>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.store' op SMEM store does not support masks}}
  kernel.store %v, %s[%c0, %c0] mask %m : vector<8x128xi32>, memref<8x128xi32, #kernel.space<smem>>
  return
}

// -----

// Tests that SMEM is accessed in 32-bit words.
func.func @smem_narrow(%s: memref<16xi8, #kernel.space<smem>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.load' op SMEM is accessed in 32-bit words; elements of type 'i8' are not supported}}
  %v = kernel.load %s[%c0] : memref<16xi8, #kernel.space<smem>>, i8
  return
}

// -----

// Tests Mosaic's rule against scalar stores to VMEM.
func.func @vmem_scalar_store(%x: memref<8x128xf32, #kernel.space<vmem>>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.store' op Cannot store scalars to VMEM}}
  kernel.store %v, %x[%c0, %c0] : f32, memref<8x128xf32, #kernel.space<vmem>>
  return
}

// -----

// Tests Mosaic's rule against 0-d VMEM refs.
func.func @vmem_rank_zero(%x: memref<f32, #kernel.space<vmem>>) {
  // expected-error @+1 {{'kernel.load' op Indexing into a ()-shaped Ref not yet supported on TPU}}
  %v = kernel.load %x[] : memref<f32, #kernel.space<vmem>>, f32
  return
}

// -----

// Tests that masked stores of non-32-bit data are rejected.
func.func @masked_bf16_store(%x: memref<16x128xbf16, #kernel.space<vmem>>, %v: vector<16x128xbf16>, %m: vector<16x128xi1>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'kernel.store' op masked stores of non-32-bit data are not implemented, got 'bf16'}}
  kernel.store %v, %x[%c0, %c0] mask %m : vector<16x128xbf16>, memref<16x128xbf16, #kernel.space<vmem>>
  return
}

// -----

// Tests that booleans are not copied by DMA.
func.func @bool_dma(%a: memref<8x128xi1, #kernel.space<any>>, %b: memref<8x128xi1, #kernel.space<vmem>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
  // expected-error @+1 {{'kernel.async_copy' op DMAs of booleans (i1) are not supported}}
  kernel.async_copy start %a, %b, %s[] : memref<8x128xi1, #kernel.space<any>>, memref<8x128xi1, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
  return
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  // expected-error @+1 {{'func.func' op Semaphore scratch buffer 0[1] has non-zero count at kernel exit: 4 (signalled 2 but waited for 1 in each grid step)}}
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<2x!kernel.semaphore, #kernel.space<semaphore>>) {
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    // expected-note @+1 {{first use of the semaphore}}
    kernel.semaphore_signal %s[%c1], %two : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    kernel.semaphore_wait %s[%c1], %one : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    return
  }
  // Tests that a regular semaphore left non-zero in every grid step is
  // reported with its count at kernel exit.
  func.func @semaphore_at_exit(%x: tensor<32x128xf32>) -> tensor<32x128xf32> {
    %0 = kernel.call @body(%x) grid = [4] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        scratch = [memref<2x!kernel.semaphore, #kernel.space<semaphore>>]
        : (tensor<32x128xf32>) -> tensor<32x128xf32>
    return %0 : tensor<32x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  // expected-error @+1 {{'func.func' op Semaphore scratch buffer 1 has non-zero count at kernel exit: 4096 (started copies of 4096 bytes but waited copies of 0 bytes)}}
  func.func @body(%h: memref<8x128xf32, #kernel.space<any>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %v: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
    // expected-note @+1 {{first use of the semaphore}}
    kernel.async_copy start %h, %v, %s[] : memref<8x128xf32, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    return
  }
  // Tests that a copy started and never waited for is reported.
  func.func @copy_not_waited(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full, space = any>] out_specs = [#kernel.block<full>]
        scratch = [memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>]
        : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

// Tests that waiting for more than is signalled is reported as a hang, here
// on a kernel.run_scoped semaphore.
func.func @over_wait() {
  %one = arith.constant 1 : i32
  // expected-error @+1 {{'kernel.run_scoped' op Semaphore scoped buffer 0 is waited for 1 but only signalled 0; the kernel would hang}}
  kernel.run_scoped (%s: memref<!kernel.semaphore, #kernel.space<semaphore>>) {
    // expected-note @+1 {{first use of the semaphore}}
    kernel.semaphore_wait %s[], %one : memref<!kernel.semaphore, #kernel.space<semaphore>>
    kernel.yield
  }
  return
}

// -----

// Tests that a scoped DMA semaphore must be zero at the end of its scope.
func.func @scoped_copy_not_waited(%h: memref<8x128xf32, #kernel.space<any>>) {
  // expected-error @+1 {{'kernel.run_scoped' op Semaphore scoped buffer 1 has non-zero count at the end of the kernel.run_scoped: 4096 (started copies of 4096 bytes but waited copies of 0 bytes)}}
  kernel.run_scoped (%v: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
    // expected-note @+1 {{first use of the semaphore}}
    kernel.async_copy start %h, %v, %s[] : memref<8x128xf32, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    kernel.yield
  }
  return
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests Pallas's out-of-bounds block index check: the last grid step
  // reads rows 16:24 of a 16-row input.
  func.func @out_of_bounds_input(%x: tensor<16x128xf32>) -> tensor<24x128xf32> {
    // expected-error @+1 {{'kernel.call' op Out-of-bounds block index (2, 0) for input "args[0]" in iteration (2,): reading [16:24, 0:128] but input has shape (16, 128)}}
    %0 = kernel.call @body(%x) grid = [3] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<24x128xf32>
    return %0 : tensor<24x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  // Tests the same for a negative block index of an output.
  func.func @out_of_bounds_output(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op Out-of-bounds block index (-1, 0) for output "outputs[0]" in iteration (0,): writing [-8:0, 0:128] but output has shape (16, 128)}}
    %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[8, 128], (i) -> (i - 1, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

module attributes {kernel.target = #kernel.target<"v5e">} {
  // expected-error @+1 {{'func.func' op Semaphores in scratch buffer 1 have non-zero count at kernel exit: 4096 (started copies of 16384 bytes but waited copies of 12288 bytes)}}
  func.func @body(%h: memref<32x128xf32, #kernel.space<any>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %v: memref<4x8x128xf32, #kernel.space<vmem>>, %s: memref<4x!kernel.dma_semaphore, #kernel.space<semaphore>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %src = memref.subview %h[0, 0] [8, 128] [1, 1] : memref<32x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>
      %dst = memref.subview %v[0, 0, 0] [1, 8, 128] [1, 1, 1] : memref<4x8x128xf32, #kernel.space<vmem>> to memref<8x128xf32, strided<[128, 1]>, #kernel.space<vmem>>
      // expected-note @+1 {{first use of the semaphore}}
      kernel.async_copy start %src, %dst, %s[%i] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, strided<[128, 1]>, #kernel.space<vmem>>, memref<4x!kernel.dma_semaphore, #kernel.space<semaphore>>
    }
    scf.for %i = %c0 to %c3 step %c1 {
      %src = memref.subview %h[0, 0] [8, 128] [1, 1] : memref<32x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>
      %dst = memref.subview %v[0, 0, 0] [1, 8, 128] [1, 1, 1] : memref<4x8x128xf32, #kernel.space<vmem>> to memref<8x128xf32, strided<[128, 1]>, #kernel.space<vmem>>
      kernel.async_copy wait %src, %dst, %s[%i] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, strided<[128, 1]>, #kernel.space<vmem>>, memref<4x!kernel.dma_semaphore, #kernel.space<semaphore>>
    }
    return
  }
  // Tests that copies started in a loop of 4 and waited in a loop of 3 leave
  // the semaphores of the buffer non-zero in total (the indices are loop
  // variables, so only the total is known).
  func.func @loop_copies_not_waited(%x: tensor<32x128xf32>) -> tensor<8x128xf32> {
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full, space = any>] out_specs = [#kernel.block<full>]
        scratch = [memref<4x8x128xf32, #kernel.space<vmem>>, memref<4x!kernel.dma_semaphore, #kernel.space<semaphore>>]
        : (tensor<32x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

// Tests a kernel.call inside a kernel body (Pallas lowers no pallas_call
// inside a kernel); the inner call is checked as a call as well.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @inner(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %v = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    kernel.store %v, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @outer(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %t = arith.constant dense<1.0> : tensor<8x128xf32>
    // expected-error @+1 {{'kernel.call' op Unimplemented primitive in Pallas TPU lowering for tc: pallas_call (a kernel.call in @outer, the body of another kernel.call)}}
    %r = kernel.call @inner(%t) grid = [1]
        in_specs = [#kernel.block<[8, 128], (i) -> (0, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (0, 0)>]
        : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return
  }
  func.func @nested_call(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %r = kernel.call @outer(%x) grid = [1]
        in_specs = [#kernel.block<[8, 128], (i) -> (0, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (0, 0)>]
        : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %r : tensor<8x128xf32>
  }
}
