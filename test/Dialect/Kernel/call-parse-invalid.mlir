// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests the syntax errors of kernel.call's clauses.

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that a misspelt clause is named, with the clauses that exist.
func.func @unknown_clause(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{unknown clause 'in_spec', expected one of 'grid', 'scalar_prefetch', 'cost_estimate', 'in_specs', 'out_specs', 'scratch', 'dimension_semantics', 'input_output_aliases', 'vmem_limit_bytes'}}
  %0 = kernel.call @body(%x) grid = [1] in_spec = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that a clause cannot be given twice.
func.func @duplicate_clause(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{clause 'grid' appears more than once}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] grid = [2] out_specs = [#kernel.block<full>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that the grid is required.
func.func @missing_grid(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{expected 'grid' clause}}
  %0 = kernel.call @body(%x) in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that the input specs are required.
func.func @missing_in_specs(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{expected 'in_specs' clause}}
  %0 = kernel.call @body(%x) grid = [1] out_specs = [#kernel.block<full>] : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that the output specs are required.
func.func @missing_out_specs(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{expected 'out_specs' clause}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that a clause's value must have the right kind.
func.func @wrong_kind(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = 3 out_specs = [#kernel.block<full>] : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that a clause's value must follow '='.
func.func @missing_equal(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{expected '='}}
  %0 = kernel.call @body(%x) grid [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that the function type is required.
func.func @missing_type(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{expected ':'}}
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>] (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}

// Tests that a full-form cost estimate right before ':' is explained (it
// takes the function type as its own).
func.func @cost_last(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %0 = kernel.call @body(%x) grid = [1] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>]
      cost_estimate = #kernel.cost<flops = 1, transcendentals = 0, bytes_accessed = 2> : (tensor<8x128xf32>) -> tensor<8x128xf32>
  // expected-error @+1 {{expected ':' and the function type; a '#kernel.cost<...>' right before ':' takes the type as its own: write 'cost_estimate' before another clause or as '<...>'}}
  return %0 : tensor<8x128xf32>
}
