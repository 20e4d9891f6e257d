// RUN: tessera-opt %s | FileCheck %s
// RUN: tessera-opt %s | tessera-opt | FileCheck %s
// RUN: tessera-opt %s --mlir-print-op-generic | tessera-opt | FileCheck %s

// Tests that axis names holding characters a string literal must escape (a
// quote, a backslash, a newline) print escaped and parse back to the same
// mesh, sharding and manual axes.

// CHECK: spmd.mesh @mesh = <["a\22b"=2, "c\\d"=2, "e\0Af"=2]>
spmd.mesh @mesh = <["a\"b"=2, "c\\d"=2, "e\nf"=2]>

// CHECK-LABEL: func.func @escaped
// CHECK-SAME: #spmd.sharding<@mesh, [{"a\22b"}, {"c\\d", "e\0Af"}]>
func.func @escaped(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a\"b"}, {"c\\d", "e\nf"}]>}) -> tensor<8x8xf32> {
  // CHECK: manual_axes={"a\22b"}
  %0 = spmd.manual_computation(%x) in_shardings=[<@mesh, [{"a\"b"}, {}]>] out_shardings=[<@mesh, [{"a\"b"}, {}]>] manual_axes={"a\"b"} (%arg0: tensor<4x8xf32>) {
    spmd.return %arg0 : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
