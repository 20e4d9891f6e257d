// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --verify-diagnostics

// Tests every parse error of #spmd.op_sharding_rule, every invariant its
// verifier checks, and every check of an op's `spmd.sharding_rule` against
// the op's operands and results.

//===----------------------------------------------------------------------===//
// Parse errors
//===----------------------------------------------------------------------===//

// Tests that a factor name outside i..z is rejected.
func.func @symbol_out_of_range(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+3 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`}}
  // expected-error @+2 {{failed to parse Spmd_TensorMapping parameter 'dim_mappings' which is to be a `::llvm::ArrayRef<DimMappingAttr>`}}
  // expected-error @+1 {{expecting symbol from 'i' to 'z'. Received: 'a'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([a, j])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a factor name outside i..z is rejected in a factor set.
func.func @set_symbol_out_of_range(%arg0: tensor<2x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expecting symbol from 'i' to 'z'. Received: 'a'}}
  %0 = "test.reduce"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i]) {i=2, j=4} reduction={a}>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that `i_1` is rejected: only `z` takes a numeric suffix.
func.func @symbol_i_1(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+3 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`}}
  // expected-error @+2 {{failed to parse Spmd_TensorMapping parameter 'dim_mappings' which is to be a `::llvm::ArrayRef<DimMappingAttr>`}}
  // expected-error @+1 {{expecting symbol from 'i' to 'z'. Received: '_'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i_1, j])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that `z_` without a number is rejected.
func.func @symbol_z_(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+3 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`}}
  // expected-error @+2 {{failed to parse Spmd_TensorMapping parameter 'dim_mappings' which is to be a `::llvm::ArrayRef<DimMappingAttr>`}}
  // expected-error @+1 {{expecting integer after 'z_'. Received: 'z_'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([z_, j])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that `z_z_1` is rejected: the first `z_` has no number.
func.func @symbol_z_z_1(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+3 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`}}
  // expected-error @+2 {{failed to parse Spmd_TensorMapping parameter 'dim_mappings' which is to be a `::llvm::ArrayRef<DimMappingAttr>`}}
  // expected-error @+1 {{expecting integer after 'z_'. Received: 'z_z_1'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([z_z_1, j])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a `z_N` with a leading zero is rejected.
func.func @symbol_z_0(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+3 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`}}
  // expected-error @+2 {{failed to parse Spmd_TensorMapping parameter 'dim_mappings' which is to be a `::llvm::ArrayRef<DimMappingAttr>`}}
  // expected-error @+1 {{expecting positive integer without leading zeros. Received: '01'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, z_01])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a `z_N` whose index doesn't fit in 64 bits is rejected.
func.func @symbol_overflow(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+3 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`}}
  // expected-error @+2 {{failed to parse Spmd_TensorMapping parameter 'dim_mappings' which is to be a `::llvm::ArrayRef<DimMappingAttr>`}}
  // expected-error @+1 {{expecting symbol index <=2^63-1. Received: '9223372036854775800'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, jz_9223372036854775800])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that factor sizes must start at `i`.
func.func @sizes_not_starting_at_i(%arg0: tensor<2x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expecting factor indices to be ordered like an iota ([0,1,2,...], e.g. {i=#, j=#, ...}). Expecting factor index symbol 'i', received: 'j'}}
  %0 = "test.reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([j, k])->([jk]) {j=2, k=4}>} : (tensor<2x4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that factor sizes can't skip a factor.
func.func @sizes_skip_a_factor(%arg0: tensor<2x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{Expecting factor index symbol 'j', received: 'k'}}
  %0 = "test.reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, k])->([ik]) {i=2, k=4}>} : (tensor<2x4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that factor sizes name single factors, not compounds.
func.func @compound_size_name(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expecting single factor symbol: 'ij'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i])->([i]) {ij=8}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that factor sets name single factors, not compounds.
func.func @compound_set_name(%arg0: tensor<2x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expecting single factor symbol: 'jk'}}
  %0 = "test.reduce"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, jk])->([i]) {i=2, j=2, k=2} reduction={jk}>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that a factor size must be an integer.
func.func @size_not_an_integer(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected integer value}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i])->([i]) {i=x}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a dimension must be made of factor names.
func.func @dim_not_a_name(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`}}
  // expected-error @+1 {{expected ']'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, 4])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that the factors of a compound can't be separated by a space.
func.func @space_between_factors(%arg0: tensor<2x4xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{failed to parse Spmd_OpShardingRule parameter 'result_mappings'}}
  // expected-error @+1 {{expected ']'}}
  %0 = "test.reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i j]) {i=2, j=4}>} : (tensor<2x4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that the operand mappings must be parenthesized.
func.func @missing_parentheses(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected '('}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<[i]->[i] {i=8}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a tensor mapping must be bracketed.
func.func @mapping_not_bracketed(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings' which is to be a `::llvm::ArrayRef<TensorMappingAttr>`}}
  // expected-error @+1 {{expected '['}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<(i)->([i]) {i=8}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a factor set entry must be a name.
func.func @set_entry_not_a_name(%arg0: tensor<2x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected valid keyword}}
  %0 = "test.reduce"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i]) {i=2, j=4} reduction={1}>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that nothing may follow the factor sets but `, custom`.
func.func @trailing_garbage(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected '>'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i])->([i]) {i=8} [i]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that the arrow between operands and results is required.
func.func @missing_arrow(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected '->'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i]) ([i]) {i=8}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that an unknown factor-set keyword is rejected.
func.func @unknown_set(%arg0: tensor<2x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected '>'}}
  %0 = "test.reduce"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i]) {i=2, j=4} reduce={j}>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that factor sets must come in order.
func.func @sets_out_of_order(%arg0: tensor<2x3x5x7xf32>) -> tensor<2x5x7xf32> {
  // expected-error @+1 {{expected '>'}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} need_replication={i} reduction={j}>} : (tensor<2x3x5x7xf32>) -> tensor<2x5x7xf32>
  return %0 : tensor<2x5x7xf32>
}

// -----

// Tests that a factor set can't be given twice.
func.func @set_twice(%arg0: tensor<2x3x5x7xf32>) -> tensor<2x5x7xf32> {
  // expected-error @+1 {{expected '>'}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} permutation={k} permutation={l}>} : (tensor<2x3x5x7xf32>) -> tensor<2x5x7xf32>
  return %0 : tensor<2x5x7xf32>
}

// -----

// Tests that a factor set needs `=`.
func.func @set_without_equal(%arg0: tensor<2x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected '='}}
  %0 = "test.reduce"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i]) {i=2, j=4} reduction: {j}>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that a trailing comma must be followed by `custom`.
func.func @trailing_comma(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{expected 'custom'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32},>} : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests that a misspelled `custom` is rejected.
func.func @custom_wrong_keyword(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{expected 'custom'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32}, custom_rule>} : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests that a standalone dim mapping rejects a malformed factor name.
func.func @dim_mapping_bad_name() {
  // expected-error @+1 {{expecting symbol from 'i' to 'z'. Received: 'b'}}
  "test.parts"() {dim = #spmd.dim_mapping<ib>} : () -> ()
  return
}

//===----------------------------------------------------------------------===//
// Invariants of the attribute
//===----------------------------------------------------------------------===//

// -----

// Tests that a rule needs an operand mapping.
func.func @no_operands() -> tensor<2x8xf32> {
  // expected-error @+2 {{failed to parse Spmd_OpShardingRule parameter 'operand_mappings'}}
  // expected-error @+1 {{expected '['}}
  %0 = "test.source"() {spmd.sharding_rule = #spmd.op_sharding_rule<()->([i, j]) {i=2, j=8}>} : () -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a rule needs a result mapping.
func.func @no_results(%arg0: tensor<2x8xf32>) {
  // expected-error @+2 {{failed to parse Spmd_OpShardingRule parameter 'result_mappings'}}
  // expected-error @+1 {{expected '['}}
  "test.sink"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->() {i=2, j=8}>} : (tensor<2x8xf32>) -> ()
  return
}

// -----

// Tests that a factor size can't be negative.
func.func @negative_size(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{factor size must be non-negative, got: i=-8}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i])->([i]) {i=-8}>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a dimension needs at least one factor.
func.func @dim_without_factors(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{operand 0 - dim mapping must have at least one factor: dim 1}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i,], [i, j])->([i, j]) {i=2, j=8}>} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a factor must have a size.
func.func @unknown_factor(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{operand 0 - expecting factor indices to be within 0<=...<num_factors; received: 12, num_factors: 2}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, u], [i, j])->([i, j]) {i=2, j=8}>} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a factor can't be used twice in one dimension.
func.func @reuse_factor_same_dim(%arg0: tensor<4x2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{result - cannot reuse factors for the same tensor value: i}}
  %0 = "test.reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([ij, k])->([iik]) {i=2, j=2, k=2}>} : (tensor<4x2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a factor can't be used in two dimensions of one tensor.
func.func @reuse_factor_different_dims(%arg0: tensor<2x2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand - cannot reuse factors for the same tensor value: i}}
  %0 = "test.reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, i])->([ij]) {i=2, j=2}>} : (tensor<2x2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a compound dimension can't have a size-1 factor.
func.func @size_one_in_compound(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{operand 0 - dim mapping can't have a factor of size 1 if there are multiple factors: jk with k=1}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, jk], [i, j])->([i, j]) {i=2, j=8, k=1}>} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that every factor must be used.
func.func @unused_factor(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{has factor k=2 that isn't used in operand and result mappings}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=2, j=8, k=2}>} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a factor set must be sorted.
func.func @unsorted_set(%arg0: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{indices of special factors must be sorted, got: need_replication={k, i}}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k])->([i, k]) {i=2, j=4, k=8} need_replication={k, i}>} : (tensor<2x4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a factor set can't repeat a factor.
func.func @repeated_in_set(%arg0: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{indices of special factors must be unique, got: need_replication={i, i}}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k])->([i, k]) {i=2, j=4, k=8} need_replication={i, i}>} : (tensor<2x4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a factor set can't name a factor that doesn't exist.
func.func @set_index_out_of_range(%arg0: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{need_replication factor index must be less than 3, got: 17}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k])->([i, k]) {i=2, j=4, k=8} need_replication={z}>} : (tensor<2x4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that the blocked-propagation set can't name a factor that doesn't
// exist.
func.func @blocked_index_out_of_range(%arg0: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{blocked_propagation factor index must be less than 3, got: 18}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k])->([i, k]) {i=2, j=4, k=8} blocked_propagation={i, z_1}>} : (tensor<2x4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a factor can't be both a reduction and a need-replication
// factor.
func.func @reduction_and_need_replication(%arg0: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{a factor can only be in one of the reduction, need replication, or permutation factor sets: j}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k])->([i, k]) {i=2, j=4, k=8} reduction={j} need_replication={j}>} : (tensor<2x4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a factor can't be both a need-replication and a permutation
// factor.
func.func @need_replication_and_permutation(%arg0: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{a factor can only be in one of the reduction, need replication, or permutation factor sets: k}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k])->([i, k]) {i=2, j=4, k=8} need_replication={i, k} permutation={k}>} : (tensor<2x4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a result can't keep a reduction factor.
func.func @reduction_factor_in_result(%arg0: tensor<2x3x5x7xf32>) -> tensor<2x5x7xf32> {
  // expected-error @+1 {{reduction factor cannot be in result mappings: k}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} reduction={k}>} : (tensor<2x3x5x7xf32>) -> tensor<2x5x7xf32>
  return %0 : tensor<2x5x7xf32>
}

//===----------------------------------------------------------------------===//
// The rule against its op
//===----------------------------------------------------------------------===//

// -----

// Tests that `spmd.sharding_rule` must hold a rule.
func.func @wrong_attr_type(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.negf' op should have a sharding rule attribute of type OpShardingRuleAttr for 'spmd.sharding_rule'}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = 1 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a rule needs one mapping per operand.
func.func @operand_mappings_wrong_num(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'arith.addf' op number of operands and mappings must match: 2 != 1}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a rule needs one mapping per result.
func.func @result_mappings_wrong_num(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'arith.addf' op number of results and mappings must match: 1 != 2}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j], [i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a rule on an op without operands (a function) is rejected.
// expected-error @+1 {{'func.func' op number of operands and mappings must match: 0 != 1}}
func.func @rule_on_function(%arg0: tensor<8xf32>) attributes {spmd.sharding_rule = #spmd.op_sharding_rule<([i])->([i]) {i=8}>} {
  return
}

// -----

// Tests that an operand mapping must have the operand's rank.
func.func @operand_mapping_wrong_rank(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'arith.addf' op operand 1 - mapping rank must match: 1 != 2}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i])->([i, j]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a result mapping must have the result's rank.
func.func @result_mapping_wrong_rank(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'arith.addf' op result - mapping rank must match: 1 != 2}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i]) {i=2, j=4}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a rule can't describe an unranked tensor.
func.func @unranked_tensor(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{operand 0 - expected a ranked tensor with a static shape. type: 'tensor<*xf32>'}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=2, j=4}>} : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that a rule can't describe a dynamically shaped tensor.
func.func @dynamic_tensor(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{operand 0 - expected a ranked tensor with a static shape. type: 'tensor<?x4xf32>'}}
  %0 = arith.addf %arg0, %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=2, j=4}>} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that a rule can't describe a shaped type that isn't a tensor.
func.func @memref_operand(%arg0: memref<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand - expected a ranked tensor with a static shape. type: 'memref<4xf32>'}}
  %0 = "test.load"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i])->([i]) {i=4}>} : (memref<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a non-shaped (scalar) value can't be mapped to a dimension.
func.func @scalar_with_dims(%cst: f32, %init: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand 0 - expected a ranked tensor with a static shape. type: 'f32'}}
  %0 = linalg.fill {spmd.sharding_rule = #spmd.op_sharding_rule<([i], [i])->([i]) {i=4}>} ins(%cst : f32) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a dimension's size must be the product of its factors' sizes.
func.func @dim_size_mismatch(%arg0: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'arith.negf' op operand - dim 0 size must match the product of its factor sizes: 6 != 8 (i=8)}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4}>} : tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// Tests that a compound dimension's size must be the product of its
// factors' sizes.
func.func @compound_size_mismatch(%arg0: tensor<2x4xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{result - dim 0 size must match the product of its factor sizes: 6 != 8 (i=2, j=4)}}
  %0 = "test.reshape"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>} : (tensor<2x4xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Tests that a size-0 factor can't describe a dimension that isn't empty.
func.func @size_zero_factor_on_nonempty_dim(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operand - dim 1 size must match the product of its factor sizes: 4 != 0 (j=0)}}
  %0 = arith.negf %arg0 {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=2, j=0}>} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that blocked pass-through and reduction factors keep their sizes.
func.func @reduction_size_mismatch(%arg0: tensor<2x4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand - dim 1 size must match the product of its factor sizes: 4 != 3 (j=3)}}
  %0 = "test.reduce"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i]) {i=2, j=3} reduction={j} blocked_propagation={i, j}>} : (tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that factor sizes whose product overflows are rejected.
func.func @product_overflows(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{operand - dim 0 size must match the product of its factor sizes (i=4294967296, j=4294967296), which overflows}}
  %0 = "test.op"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([ij])->([ij]) {i=4294967296, j=4294967296}>} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that a dynamic dimension needs a factor of dynamic size.
func.func @dynamic_dim_static_factors(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'test.add' op operand 0 - expected a ranked tensor with a static shape. type: 'tensor<?x4xf32>' (dim 0 is dynamic: map it to a factor of size '?')}}
  %0 = "test.add"(%arg0, %arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=4}>} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that a static dimension can't be made of a dynamic factor.
func.func @static_dim_dynamic_factor(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'test.neg' op operand - dim 0 size must match the product of its factor sizes: 8 != ? (i=?)}}
  %0 = "test.neg"(%arg0) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=?, j=4}>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
