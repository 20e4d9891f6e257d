// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that #kernel.block, #kernel.target, #kernel.cost and the
// kernel.target module attribute report every parse and verifier error.

// Tests that block dimensions are positive.
// expected-error @+1 {{block dimension 1 must be positive, got 0}}
func.func private @zero_dim() attributes {b = #kernel.block<[8, 0]>}

// -----

// Tests that element padding is non-negative.
// expected-error @+1 {{padding of block dimension 0 must be non-negative, got (-1, 0)}}
func.func private @negative_padding() attributes {b = #kernel.block<[element(8, padding = (-1, 0))]>}

// -----

// Tests that an affine index map has one result per block dimension.
// expected-error @+1 {{index map (d0) -> (d0) has 1 results, but the block has 2 dimensions}}
func.func private @map_results() attributes {b = #kernel.block<[8, 128], (i) -> (i)>}

// -----

// Tests that affine index maps have no symbols.
// expected-error @+1 {{index map (d0)[s0] -> (s0, d0) must not have symbols; index maps that read scalar-prefetch operands are functions (@name)}}
func.func private @map_symbols() attributes {b = #kernel.block<[8, 128], (i)[s] -> (s, i)>}

// -----

// Tests that blocks are not semaphores.
// expected-error @+1 {{blocks cannot be in #kernel.space<semaphore>; semaphores are scratch buffers}}
func.func private @semaphore_block() attributes {b = #kernel.block<full, space = semaphore>}

// -----

// Tests that a block has one or two buffers (Pallas's Buffered(1|2)).
// expected-error @+1 {{'buffers' must be 1 or 2, got 3}}
func.func private @three_buffers() attributes {b = #kernel.block<[8, 128], buffers = 3>}

// -----

// Tests that block dimensions are integers, None or element(...).
// expected-error @+1 {{expected a block dimension: an integer, 'None' or 'element(...)'}}
func.func private @bad_dim() attributes {b = #kernel.block<[squeezed, 128]>}

// -----

// Tests that memory spaces are known.
// expected-error @+1 {{unknown memory space 'cmem'}}
func.func private @bad_space() attributes {b = #kernel.block<full, space = cmem>}

// -----

// Tests that the space is given once.
// expected-error @+1 {{'space' given twice}}
func.func private @space_twice() attributes {b = #kernel.block<full, space = smem, space = vmem>}

// -----

// Tests that the buffer count is given once.
// expected-error @+1 {{'buffers' given twice}}
func.func private @buffers_twice() attributes {b = #kernel.block<full, buffers = 1, buffers = 1>}

// -----

// Tests that the index map comes right after the block shape.
// expected-error @+1 {{expected 'space' or 'buffers' (the index map comes right after the block shape)}}
func.func private @late_map() attributes {b = #kernel.block<[8], space = smem, (i) -> (i)>}

// -----

// Tests that a block has either an affine map or an index function, not
// both (only reachable through the C++ API, so here the second map is a
// parse error).
// expected-error @+1 {{expected 'space' or 'buffers' (the index map comes right after the block shape)}}
func.func private @two_maps() attributes {b = #kernel.block<[8], (i) -> (i), @f>}

// -----

// Tests that the generation of a target is known.
// expected-error @+1 {{unknown TPU generation "v3"; expected one of "v4", "v5e", "v5p", "v6e", "v7x"}}
module attributes {kernel.target = #kernel.target<"v3">} {}

// -----

// Tests that kernel.target holds a #kernel.target.
// expected-error @+1 {{'kernel.target' must be a #kernel.target attribute, got "v5e"}}
module attributes {kernel.target = "v5e"} {}

// -----

// Tests that kernel.target is a module attribute.
// expected-error @+1 {{'kernel.target' must be set on a module, not on 'func.func'}}
func.func private @target_on_func() attributes {kernel.target = #kernel.target<"v5e">}

// -----

// Tests that the kernel dialect has no other discardable attributes.
// expected-error @+1 {{unknown kernel dialect attribute 'kernel.targets'}}
module attributes {kernel.targets = #kernel.target<"v5e">} {}

// -----

// Tests that cost estimates are non-negative.
// expected-error @+1 {{cost estimate entries must be non-negative, got flops = -1, transcendentals = 0, bytes_accessed = 0}}
func.func private @negative_cost() attributes {c = #kernel.cost<flops = -1, transcendentals = 0, bytes_accessed = 0>}

// -----

// Tests that a vector layout tiles one or two trailing dimensions.
// expected-error @+1 {{a vector layout tiles 1 or 2 trailing dimensions, got 3}}
func.func private @layout_rank() attributes {l = #kernel.layout<[1, 8, 128]>}

// -----

// Tests that vector layout tile sizes are positive.
// expected-error @+1 {{vector layout tile sizes must be positive, got [8, 0]}}
func.func private @layout_size() attributes {l = #kernel.layout<[8, 0]>}

// -----

// Tests that kernel.out_layouts is an array of layouts.
func.func @out_layouts_not_array(%v: vector<16x128xf32>) {
  // expected-error @+1 {{'kernel.out_layouts' must be an array of #kernel.layout, got #kernel.layout<[8, 128]>}}
  %w = arith.addf %v, %v {kernel.out_layouts = #kernel.layout<[8, 128]>} : vector<16x128xf32>
  return
}

// -----

// Tests that kernel.out_layouts has one entry per result.
func.func @out_layouts_count(%v: vector<16x128xf32>) {
  // expected-error @+1 {{'kernel.out_layouts' has 2 entries for an op with 1 results}}
  %w = arith.addf %v, %v {kernel.out_layouts = [#kernel.layout<[8, 128]>, unit]} : vector<16x128xf32>
  return
}

// -----

// Tests that a layout's tiles divide the vector's shape.
func.func @out_layouts_divide(%v: vector<16x128xf32>) {
  // expected-error @+1 {{layout #kernel.layout<[8, 96]> of result 0 does not tile 'vector<16x128xf32>': the tile sizes must divide the shape}}
  %w = arith.addf %v, %v {kernel.out_layouts = [#kernel.layout<[8, 96]>]} : vector<16x128xf32>
  return
}

// -----

// Tests that a result that is not a vector has no layout.
func.func @out_layouts_scalar(%s: f32) {
  // expected-error @+1 {{result 0 of type 'f32' has no vector layout, got #kernel.layout<[8, 128]>}}
  %t = arith.addf %s, %s {kernel.out_layouts = [#kernel.layout<[8, 128]>]} : f32
  return
}

// -----

// Tests that a vector result needs a layout.
func.func @out_layouts_missing(%v: vector<16x128xf32>) {
  // expected-error @+1 {{result 0 of type 'vector<16x128xf32>' needs a #kernel.layout, got unit}}
  %w = arith.addf %v, %v {kernel.out_layouts = [unit]} : vector<16x128xf32>
  return
}
