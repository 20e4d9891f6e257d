// Structured ops whose bodies read a loop index get the device's offset
// added to it, whichever op holds the body: fill_rng_2d (the one upstream
// named op whose built body reads linalg.index) and linalg.map (a body the
// program writes), both over sharded loops, match the single-device
// reference; a matmul's built body is left as it is.
// RUN: tessera-run %s --entry rng --random-inputs --seed 1 --check | FileCheck %s
// RUN: tessera-run %s --entry map_index --random-inputs --seed 2 --check | FileCheck %s
// RUN: tessera-opt %s --tessera-partition --mlir-print-op-generic | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Each device draws the numbers of its own rows and columns: without the
// offset every device would draw the first block's.
// IR-LABEL: sym_name = "rng"
// IR: %[[X:.*]] = "comm.axis_index"() <{axes = #spmd.axis_ref_list<{"x"}>
// IR: %[[OX:.*]] = "arith.muli"(%[[X]]
// IR: "linalg.fill_rng_2d"
// IR: %[[I:.*]] = "linalg.index"() <{dim = 0 : i64}>
// IR: "arith.addi"(%[[I]], %[[OX]])
func.func @rng(%s: tensor<i32>)
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %min = arith.constant -1.0 : f64
  %max = arith.constant 1.0 : f64
  %seed = tensor.extract %s[] : tensor<i32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.fill_rng_2d ins(%min, %max, %seed : f64, f64, i32)
      outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// IR-LABEL: sym_name = "map_index"
// IR: "linalg.matmul"
// IR-NOT: "arith.addi"
// IR: %[[Y:.*]] = "comm.axis_index"() <{axes = #spmd.axis_ref_list<{"y"}>
// IR: %[[OY:.*]] = "arith.muli"(%[[Y]]
// IR: "linalg.map"
// IR: %[[J:.*]] = "linalg.index"() <{dim = 1 : i64}>
// IR: "arith.addi"(%[[J]], %[[OY]])
func.func @map_index(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                     %b: tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>)
      outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %r = linalg.map ins(%m : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>)
    (%in: f32, %out: f32) {
      %j = linalg.index 1 : index
      %ji = arith.index_cast %j : index to i32
      %jf = arith.sitofp %ji : i32 to f32
      %v = arith.addf %in, %jf : f32
      linalg.yield %v : f32
    }
  return %r : tensor<8x16xf32>
}
