// Collectives on every element type the runtime reduces: f64, bf16 and f16
// (accumulated in f32), i64, i1 (max is or, min is and) and ui32.
// RUN: tessera-run %s --random-inputs --seed 31 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 31 --print-results | FileCheck %s --check-prefix=VALUES

// CHECK: check: result0 f64[4]: match
// CHECK: check: result1 bf16[4]: match
// CHECK: check: result2 f16[4]: match
// CHECK: check: result3 i64[4]: bit-exact match
// CHECK: check: result4 bool[4]: bit-exact match
// CHECK: check: result5 bool[4]: bit-exact match
// CHECK: check: result6 u32[4]: bit-exact match
// CHECK: check: all 7 results match the single-device reference
// The axis_index of each device, summed in bf16, f16 and i64: 0+1+2+3 = 6.
// VALUES: result1: bf16[4] = [6, 6, 6, 6]
// VALUES: result2: f16[4] = [6, 6, 6, 6]
// VALUES: result3: i64[4] = [6, 6, 6, 6]
// Device 3 alone has index >= 3: or gives true, and gives false.
// VALUES: result4: bool[4] = [true, true, true, true]
// VALUES: result5: bool[4] = [false, false, false, false]
// The largest of the unsigned inputs, on every device.
// VALUES: result6: u32[4] = [[[MAX:[0-9]+]], [[MAX]], [[MAX]], [[MAX]]]
spmd.mesh @mesh = <["x"=4]>
func.func @main(%a: tensor<4xf64>, %b: tensor<4xui32>) -> (tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xui32>) {
  %0:7 = spmd.manual_computation(%a, %b) in_shardings=[<@mesh, [{"x"}]>, <@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>, <@mesh, [{"x"}]>, <@mesh, [{"x"}]>, <@mesh, [{"x"}]>, <@mesh, [{"x"}]>, <@mesh, [{"x"}]>, <@mesh, [{"x"}]>]
      manual_axes={"x"} (%l: tensor<1xf64>, %u: tensor<1xui32>) {
    %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<1xf64>
    %i = comm.axis_index over @mesh {"x"} : i64
    %it = tensor.from_elements %i : tensor<1xi64>
    %fb = arith.sitofp %it : tensor<1xi64> to tensor<1xbf16>
    %sb = comm.all_reduce sum %fb over @mesh {"x"} : tensor<1xbf16>
    %fh = arith.sitofp %it : tensor<1xi64> to tensor<1xf16>
    %sh = comm.all_reduce sum %fh over @mesh {"x"} : tensor<1xf16>
    %si = comm.all_reduce sum %it over @mesh {"x"} : tensor<1xi64>
    %three = arith.constant dense<3> : tensor<1xi64>
    %ge = arith.cmpi sge, %it, %three : tensor<1xi64>
    %any = comm.all_reduce max %ge over @mesh {"x"} : tensor<1xi1>
    %all = comm.all_reduce min %ge over @mesh {"x"} : tensor<1xi1>
    %mu = comm.all_reduce max %u over @mesh {"x"} : tensor<1xui32>
    spmd.return %s, %sb, %sh, %si, %any, %all, %mu : tensor<1xf64>, tensor<1xbf16>, tensor<1xf16>, tensor<1xi64>, tensor<1xi1>, tensor<1xi1>, tensor<1xui32>
  } : (tensor<4xf64>, tensor<4xui32>) -> (tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xui32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5, %0#6 : tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xui32>
}
