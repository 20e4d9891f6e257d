// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that kernel.call reports every verifier error.

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that scalar_prefetch cannot exceed the number of operands.
func.func @too_many_prefetch(%x: tensor<8x128xi32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op scalar_prefetch = 2 must be between 0 and the number of operands (1)}}
  %0 = kernel.call @body(%x) grid = [1] scalar_prefetch = 2 in_specs = [] out_specs = [#kernel.block<full>]
      : (tensor<8x128xi32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that grid sizes are positive.
func.func @zero_grid(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op grid sizes must be positive, got (2, 0)}}
  %0 = kernel.call @body(%x) grid = [2, 0] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that every operand after the scalar-prefetch ones has an in_spec.
func.func @missing_in_spec(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op expected 1 in_specs (one per operand after the 0 scalar-prefetch operands), got 0}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [] out_specs = [#kernel.block<full>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that every result has an out_spec.
func.func @missing_out_spec(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op expected 1 out_specs (one per result), got 2}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>, #kernel.block<full>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests JAX's check that dimension_semantics has one entry per grid axis.
func.func @semantics_length(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op Length of grid does not match length of dimension semantics: the grid (2, 2) has 2 axes, dimension_semantics has 1 entries}}
  %0 = kernel.call @body(%x) grid = [2, 2] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      dimension_semantics = [parallel]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%p: memref<4xf32, #kernel.space<smem>>, %x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that scalar-prefetch operands hold i32.
func.func @prefetch_type(%p: tensor<4xf32>, %x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op scalar-prefetch operand 0 must have i32 elements (SMEM holds 32-bit words), got 'tensor<4xf32>'}}
  %0 = kernel.call @body(%p, %x) grid = [1] scalar_prefetch = 1 in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      : (tensor<4xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests JAX's check that a block has the rank of its array.
func.func @block_rank(%x: tensor<2x8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op Block shape for args[0] (= (8, 128)) must have the same number of dimensions as the array shape (2, 8, 128)}}
  %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<full>]
      : (tensor<2x8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that the index map of a full block has one result per array
// dimension.
func.func @full_map_results(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op index map (d0) -> (0) of outputs[0] has 1 results, but the array has rank 2}}
  %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full, (i) -> (0)>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that an index map takes one index per grid axis.
func.func @map_dims(%x: tensor<16x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op index map (d0) -> (d0, 0) of args[0] takes 1 grid indices, but the grid has 2 axes}}
  %0 = kernel.call @body(%x) grid = [2, 1] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<full>]
      : (tensor<16x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<8x128xf32, #kernel.space<hbm>>) {
  return
}

// Tests that scratch buffers are not in HBM.
func.func @scratch_hbm(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op scratch buffer 0 must be a statically shaped memref in #kernel.space<vmem>, <smem> or <semaphore>, got 'memref<8x128xf32, #kernel.space<hbm>>'}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      scratch = [memref<8x128xf32, #kernel.space<hbm>>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<2xf32, #kernel.space<semaphore>>) {
  return
}

// Tests that semaphore scratch buffers hold semaphores.
func.func @scratch_semaphore_space(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op scratch buffer 0 in #kernel.space<semaphore> must hold !kernel.semaphore or !kernel.dma_semaphore, got 'memref<2xf32, #kernel.space<semaphore>>'}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      scratch = [memref<2xf32, #kernel.space<semaphore>>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<2x!kernel.semaphore, #kernel.space<vmem>>) {
  return
}

// Tests that semaphores live in the semaphore memory space.
func.func @scratch_semaphores_in_vmem(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op scratch buffer 0 holds semaphores, which live in #kernel.space<semaphore>, got 'memref<2x!kernel.semaphore, #kernel.space<vmem>>'}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      scratch = [memref<2x!kernel.semaphore, #kernel.space<vmem>>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that an aliased operand index is in range.
func.func @alias_operand_range(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op input_output_aliases: operand index 3 is out of range (the call has 1 operands)}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      input_output_aliases = {3 -> 0}
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that an aliased result index is in range.
func.func @alias_result_range(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op input_output_aliases: result index 1 is out of range (the call has 1 results)}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      input_output_aliases = {0 -> 1}
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%p: memref<8x128xi32, #kernel.space<smem>>, %o: memref<8x128xi32, #kernel.space<vmem>>) {
  return
}

// Tests that scalar-prefetch operands cannot be aliased.
func.func @alias_prefetch(%p: tensor<8x128xi32>) -> tensor<8x128xi32> {
  // expected-error @+1 {{'kernel.call' op input_output_aliases: operand 0 is a scalar-prefetch operand, which cannot be aliased}}
  %0 = kernel.call @body(%p) grid = [1] scalar_prefetch = 1 in_specs = [] out_specs = [#kernel.block<full>]
      input_output_aliases = {0 -> 0}
      : (tensor<8x128xi32>) -> tensor<8x128xi32>
  return %0 : tensor<8x128xi32>
}

// -----

func.func @body(%x: memref<8x256xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that aliased operands and results have the same type.
func.func @alias_types(%x: tensor<8x256xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op input_output_aliases: operand 0 of type 'tensor<8x256xf32>' and result 0 of type 'tensor<8x128xf32>' must have the same type}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      input_output_aliases = {0 -> 0}
      : (tensor<8x256xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %o2: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that an operand is aliased at most once.
func.func @alias_twice(%x: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  // expected-error @+1 {{'kernel.call' op input_output_aliases: operand 0 is aliased twice}}
  %0:2 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>, #kernel.block<full>]
      input_output_aliases = {0 -> 0, 0 -> 1}
      : (tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  return %0#0, %0#1 : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that a result is aliased at most once.
func.func @alias_result_twice(%x: tensor<8x128xf32>, %y: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op input_output_aliases: result 0 is aliased twice}}
  %0 = kernel.call @body(%x, %y) grid = [1] in_specs = [#kernel.block<full>, #kernel.block<full>] out_specs = [#kernel.block<full>]
      input_output_aliases = {0 -> 0, 1 -> 0}
      : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that an odd-length alias list in the generic form is rejected.
func.func @alias_odd(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op input_output_aliases must hold operand, result pairs}}
  %0 = "kernel.call"(%x) <{callee = @body, grid = array<i64: 1>, in_specs = [#kernel.block<full>], out_specs = [#kernel.block<full>], input_output_aliases = array<i64: 0>}>
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that vmem_limit_bytes is positive.
func.func @vmem_limit(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op vmem_limit_bytes must be positive, got 0}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      vmem_limit_bytes = 0
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

// Tests that operands have static shapes.
func.func @dynamic(%x: tensor<?x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op operand #0 must be variadic of statically shaped tensor of any type values, but got 'tensor<?x128xf32>'}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      : (tensor<?x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

// Tests that the callee is a func.func.
func.func @missing_body(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op 'nowhere' does not reference a func.func}}
  %0 = kernel.call @nowhere(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func private @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>)

// Tests that the kernel body is defined.
func.func @declared_body(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op kernel body @body is a declaration; a kernel body must be defined}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

// expected-note @+1 {{kernel body defined here}}
func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32>) {
  return
}

// Tests that the body's arguments are the blocks' memrefs in their memory
// spaces (here the output lacks its memory space and the scratch buffer is
// missing).
func.func @body_type(%x: tensor<16x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op kernel body @body has type '(memref<8x128xf32, #kernel.space<vmem>>, memref<8x128xf32>) -> ()', but its scalar-prefetch operands, blocks and scratch buffers need '(memref<8x128xf32, #kernel.space<vmem>>, memref<8x128xf32, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>) -> ()'}}
  %0 = kernel.call @body(%x) grid = [2] in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<full>]
      scratch = [memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>]
      : (tensor<16x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

// expected-note @+1 {{kernel body defined here}}
func.func @body(%x: memref<128xf32, #kernel.space<vmem>>, %o: memref<4x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that squeezed dimensions are dropped from the body's memref.
func.func @squeezed_body_type(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  // expected-error @+1 {{kernel body @body has type '(memref<128xf32, #kernel.space<vmem>>, memref<4x128xf32, #kernel.space<vmem>>) -> ()', but its scalar-prefetch operands, blocks and scratch buffers need '(memref<128xf32, #kernel.space<vmem>>, memref<128xf32, #kernel.space<vmem>>) -> ()'}}
  %0 = kernel.call @body(%x) grid = [4] in_specs = [#kernel.block<[None, 128], (i) -> (i, 0)>] out_specs = [#kernel.block<[None, 128], (i) -> (i, 0)>]
      : (tensor<4x128xf32>) -> tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}

// -----

func.func @body(%p: memref<4xi32, #kernel.space<smem>>, %x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that a function index map exists.
func.func @missing_index_fn(%p: tensor<4xi32>, %x: tensor<32x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op index map @nowhere of args[1] does not reference a func.func}}
  %0 = kernel.call @body(%p, %x) grid = [4] scalar_prefetch = 1 in_specs = [#kernel.block<[8, 128], @nowhere>] out_specs = [#kernel.block<full>]
      : (tensor<4xi32>, tensor<32x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%p: memref<4xi32, #kernel.space<smem>>, %x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// expected-note @+1 {{index map defined here}}
func.func @index_fn(%i: index) -> (index, index) {
  return %i, %i : index, index
}

// Tests that a function index map takes the grid indices and the
// scalar-prefetch operands and returns one index per array dimension.
func.func @index_fn_type(%p: tensor<4xi32>, %x: tensor<32x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'kernel.call' op index map @index_fn of args[1] has type '(index) -> (index, index)', but it must take the grid indices and the scalar-prefetch operands and return one index per array dimension: '(index, memref<4xi32, #kernel.space<smem>>) -> (index, index)'}}
  %0 = kernel.call @body(%p, %x) grid = [4] scalar_prefetch = 1 in_specs = [#kernel.block<[8, 128], @index_fn>] out_specs = [#kernel.block<full>]
      : (tensor<4xi32>, tensor<32x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that dimension semantics are parallel or arbitrary.
func.func @bad_semantics(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      // expected-error @+1 {{expected 'parallel' or 'arbitrary', got 'sequential'}}
      dimension_semantics = [sequential]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}
