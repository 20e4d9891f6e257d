// RUN: tessera-opt %s --split-input-file --kernel-lower-interpret --verify-diagnostics
// RUN: tessera-opt %s --split-input-file --kernel-lower-pipelined --verify-diagnostics

// Tests the errors of kernel-lower-interpret and kernel-lower-pipelined:
// what cannot be lowered is reported, never lowered wrongly.

// Tests an index map function that is only declared.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func private @block_of(%i: index) -> (index, index)
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @external_index_map(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    // expected-error @+1 {{'kernel.call' op index map function @block_of of args[0] has no body to lower}}
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], @block_of>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests a grid query of an axis the call's grid does not have (which
// kernel-verify also reports).
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    // expected-error @+1 {{'kernel.program_id' op axis 1 is out of range for the grid of rank 1 of the kernel.call it is lowered for}}
    %j = kernel.program_id 1
    return
  }
  func.func @axis_out_of_range(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests a kernel op in a function the body calls (only bodies and index map
// functions are lowered).
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func private @helper() -> index {
    // expected-error @+1 {{'kernel.program_id' op is outside a kernel body and cannot be lowered (kernel ops belong in the body of a kernel.call, not in functions it calls)}}
    %i = kernel.program_id 0
    return %i : index
  }
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %i = func.call @helper() : () -> index
    return
  }
  func.func @kernel_op_in_helper(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests a module without a `kernel.target`: the arenas' sizes and the
// TensorCores come from the target, so nothing is lowered without one.
func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}
func.func @no_target(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  // expected-error @+1 {{'kernel.call' op kernel lowering needs the TPU generation to emulate: set 'kernel.target = #kernel.target<"v5e">' (or "v4", "v5p", "v6e", "v7x") on the enclosing module}}
  %0 = kernel.call @body(%x) grid = [2]
      in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
      out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
      : (tensor<16x128xf32>) -> tensor<16x128xf32>
  return %0 : tensor<16x128xf32>
}

// -----

// Tests a call outside any func.func (the lowering allocates the call's
// argument block in the enclosing function).
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  llvm.func @outside_func() {
    %x = tensor.empty() : tensor<16x128xf32>
    // expected-error @+1 {{'kernel.call' op must be inside a func.func to be lowered}}
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    llvm.return
  }
}

// -----

// Tests a kernel.call inside a kernel body (which kernel-verify also
// reports): the body is not lowered, the inner call neither.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @inner(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @outer(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %t = arith.constant dense<1.0> : tensor<8x128xf32>
    // expected-error @+1 {{'kernel.call' op cannot be lowered in a kernel body}}
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
