// RUN: python3 %S/Inputs/chained-constraints.py 110 > %t.mlir
// RUN: tessera-opt %t.mlir --poly-infer | FileCheck %s
// RUN: tessera-opt %t.mlir --poly-infer=jax-exact=true | FileCheck %s

// Tests that a function with a long chain of constraints (`v1 >= v0 + 1`, ...,
// `v110 >= v109 + 1`) is inferred, with the slice's bound check
// (`v110 >= v0`) decided from the whole chain, in both decision modes.

// CHECK-LABEL: func.func @chain
// CHECK: tensor.extract_slice {{.*}} {poly.shape = #poly.shape<"v0">}
// CHECK: arith.addf {{.*}} {poly.shape = #poly.shape<"v0">}
