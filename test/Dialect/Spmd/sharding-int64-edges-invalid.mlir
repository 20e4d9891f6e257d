// RUN: tessera-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// Tests that sizes at the edges of int64 in sub-axes, meshes and shardings
// give a clear error instead of overflowing (a pre-size times size that
// wrapped to 0 once made the verifier divide by zero, and one that wrapped to
// a divisor of the axis size was accepted).

spmd.mesh @mesh = <["x"=8]>

// Tests that a pre-size times size that overflows to 0 is rejected.
// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+1 {{sub-axis (4294967296)4294967296 is too large: pre-size times size overflows a 64-bit integer}}
func.func @overflow_to_zero(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(4294967296)4294967296}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["x"=8]>

// Tests that a pre-size times size that wraps to a divisor of the axis size
// is rejected rather than accepted.
// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+1 {{sub-axis (4611686018427387906)4 is too large: pre-size times size overflows a 64-bit integer}}
func.func @overflow_wraps_to_axis_size(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(4611686018427387906)4}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["x"=8]>

// Tests the largest pre-size with size 2.
// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+1 {{sub-axis (9223372036854775807)2 is too large: pre-size times size overflows a 64-bit integer}}
func.func @max_pre_size(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(9223372036854775807)2}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["x"=8]>

// Tests the one negative product that overflows (INT64_MIN * -1).
// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+1 {{sub-axis (-9223372036854775808)-1 is too large: pre-size times size overflows a 64-bit integer}}
func.func @min_times_minus_one(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(-9223372036854775808)-1}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["x"=8]>

// Tests that a product that fits in int64 but does not divide the axis size
// is reported by the sub-axis rules.
// expected-error @+1 {{sub-axis next pre-size 9223372036854775807 doesn't divide the size of the full axis 8: "x":(1)9223372036854775807}}
func.func @max_size(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)9223372036854775807}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["x"=8]>

// Tests that negative sub-axis sizes whose product is positive are rejected.
// expected-error @+1 {{sub-axis pre-size must be at least 1: "x":(-2)-4}}
func.func @negative_sizes(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(-2)-4}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["x"=8]>

// Tests that a pre-size past int64 is a parse error.
// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+1 {{integer value too large}}
func.func @pre_size_past_int64(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(9223372036854775808)2}]>}) {
  return
}

// -----

// Tests that two axes whose sizes multiply past int64 are rejected.
// expected-error @+1 {{mesh has too many devices: the product of the axis sizes overflows}}
spmd.mesh @mesh = <["x"=4294967296, "y"=4294967296]>

// -----

// Tests the largest axis size.
// expected-error @+1 {{mesh has too many devices: the product of the axis sizes overflows}}
spmd.mesh @mesh = <["x"=9223372036854775807]>

// -----

// Tests that a standalone sub-axis attribute is checked the same way.
// expected-error @+1 {{sub-axis (4294967296)4294967296 is too large: pre-size times size overflows a 64-bit integer}}
"test.op"() {info = #spmd.sub_axis_info<(4294967296)4294967296>} : () -> ()

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests that sub-axes whose sizes multiply past int64 are reported by the
// sub-axis rules, not by an overflowing divisibility check.
// expected-error @+1 {{sub-axis next pre-size 4611686018427387904 doesn't divide the size of the full axis 2: "x":(1)4611686018427387904}}
func.func @sharded_size_overflow(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)4611686018427387904, "y":(1)4}, {}]>}) {
  return
}
