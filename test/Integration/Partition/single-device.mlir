// Values on maximal (single-device) meshes beside a 2x2 mesh, as Shardy
// allows (all non-maximal meshes have one device count; a maximal mesh
// names one of those devices). Tessera runs a single-device value's ops on
// every device over the whole value: an argument placed on one device is
// replicated, a sharded value given to one device is gathered, and a value
// on one device used by sharded code is sliced, with nothing broadcast.
// RUN: tessera-run %s --entry arg_on_one --random-inputs --seed 1 --check | FileCheck %s
// RUN: tessera-run %s --entry result_on_one --random-inputs --seed 2 --check | FileCheck %s --check-prefix=CHECK2
// RUN: tessera-run %s --entry one_to_other --random-inputs --seed 3 --check | FileCheck %s
// RUN: tessera-run %s --entry only_one --random-inputs --seed 4 --check | FileCheck %s
// RUN: tessera-run %s --entry view_and_one --random-inputs --seed 5 --check | FileCheck %s
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference
// CHECK2: check: all 2 results match the single-device reference

// The argument on one device is whole on every device; its block is cut
// locally.
// IR-LABEL: func.func @arg_on_one
// IR-SAME: %arg0: tensor<8x8xf32> {spmd.global_sharding = #spmd.sharding<@dev1, []>
// IR-NOT: comm.all_gather
// IR: tensor.extract_slice %arg0
// IR: return

// The matmul is computed sharded; its result is gathered for device 1.
// IR-LABEL: func.func @result_on_one
// IR-SAME: -> (tensor<8x4xf32> {spmd.global_sharding = #spmd.sharding<@dev1, []>
// IR: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x4xf32>)
// IR: comm.all_reduce sum {{.*}} over @mesh {"y"}
// IR: comm.all_gather {{.*}} over @mesh {"x"} dim 0
// IR: linalg.reduce ins(%{{.*}} : tensor<8x4xf32>)

// From one device to another: nothing moves.
// IR-LABEL: func.func @one_to_other
// IR-NOT: comm.
// IR: return

spmd.mesh @mesh = <["x"=2, "y"=2]>
spmd.mesh @dev1 = <[], device_ids=[1]>
spmd.mesh @dev3 = <[], device_ids=[3]>
spmd.mesh @view = <["v"=4]>

func.func @arg_on_one(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@dev1, []>},
                      %b: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %e = tensor.empty() : tensor<8x8xf32>
  %0 = linalg.add ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

func.func @result_on_one(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                         %w: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@dev1, []>}, tensor<4xf32> {spmd.sharding = #spmd.sharding<@dev3, []>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@dev1, []>]>}
      ins(%a, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%mm : tensor<8x4xf32>) outs(%init2 : tensor<4xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %mm, %r : tensor<8x4xf32>, tensor<4xf32>
}

func.func @one_to_other(%a: tensor<6xi32> {spmd.sharding = #spmd.sharding<@dev1, []>})
    -> (tensor<6xi32> {spmd.sharding = #spmd.sharding<@dev3, []>}) {
  %e = tensor.empty() : tensor<6xi32>
  %0 = linalg.mul {spmd.sharding = #spmd.sharding_per_value<[<@dev3, []>]>}
      ins(%a, %a : tensor<6xi32>, tensor<6xi32>) outs(%e : tensor<6xi32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// A module's functions may use only single-device values.
func.func @only_one(%a: tensor<5xf32> {spmd.sharding = #spmd.sharding<@dev3, []>}) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<5xf32>
  %0 = linalg.exp ins(%a : tensor<5xf32>) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// Beside a mesh of other axes (the 1-D view): a single-device result of an
// op whose operands are on both meshes. In the single-device reference
// every mesh has one device, and the single-device sharding must still not
// be spelled on the other meshes (fuzzer: seed 320 program 149).
func.func @view_and_one(%a: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>},
                        %b: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@view, [{}, {"v"}]>})
    -> (tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@dev1, []>}) {
  %0 = arith.addf %a, %b {spmd.sharding = #spmd.sharding_per_value<[<@dev1, []>]>} : tensor<6x4xf32>
  %1 = math.cos %0 : tensor<6x4xf32>
  return %1 : tensor<6x4xf32>
}
