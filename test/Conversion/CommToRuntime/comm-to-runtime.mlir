// RUN: tessera-opt %s --convert-comm-to-runtime --split-input-file | FileCheck %s
// RUN: tessera-opt %s --convert-comm-to-runtime --split-input-file | FileCheck %s --check-prefix=SINGLE

// A collective becomes the call of a private stub that takes the operand
// tensor and returns the result tensor (so that bufferization sees both
// buffers used at the call); the stub passes raw pointers to the runtime.
spmd.mesh @mesh = <["x"=2, "y"=4]>

// CHECK-DAG: llvm.mlir.global internal constant @[[GROUP_X:__tessera_rt_array_[0-9]+]](dense<[0, 1, 2]> : tensor<3xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @[[SITE:__tessera_rt_site_[0-9]+]]("comm.all_reduce at \22{{.*}}comm-to-runtime.mlir\22:{{[0-9]+}}:8\00")
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[ARG:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = call @[[STUB:__tessera_comm_all_reduce_0]](%[[ARG]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @all_reduce(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = comm.all_reduce max %arg0 over @mesh {"x"} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// CHECK-LABEL: func.func private @__tessera_comm_all_reduce_0
// CHECK-SAME: (%[[IN:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[GROUP:.*]] = llvm.mlir.addressof @[[GROUP_X]] : !llvm.ptr
// CHECK: %[[NPARTS:.*]] = arith.constant 1 : i32
// CHECK: %[[SITEPTR:.*]] = llvm.mlir.addressof @[[SITE]] : !llvm.ptr
// CHECK: %[[INBUF:.*]] = bufferization.to_buffer %[[IN]] read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK: %[[INIDX:.*]] = memref.extract_aligned_pointer_as_index %[[INBUF]]
// CHECK: %[[N:.*]] = arith.constant 32 : i64
// CHECK: %[[F32:.*]] = arith.constant 0 : i32
// CHECK: %[[MAX:.*]] = arith.constant 2 : i32
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: call @tessera_rt_all_reduce(%{{.*}}, %{{.*}}, %[[N]], %[[F32]], %[[MAX]], %[[GROUP]], %[[NPARTS]], %[[SITEPTR]]) : (!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr) -> ()
// CHECK: %[[RES:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4x8xf32> to tensor<4x8xf32>
// CHECK: return %[[RES]]
// CHECK: func.func private @tessera_rt_all_reduce(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr)
// The mesh is gone once nothing names it.
// CHECK-NOT: spmd.mesh

// -----

// Every collective: its call, the shape arrays, groups over several axes
// and sub-axes, and the result buffer shaped like the result.
spmd.mesh @mesh = <["x"=2, "y"=4]>

// CHECK-DAG: llvm.mlir.global internal constant @[[XY:__tessera_rt_array_[0-9]+]](dense<[0, 1, 2, 1, 1, 4]> : tensor<6xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @[[Y:__tessera_rt_array_[0-9]+]](dense<[1, 1, 4]> : tensor<3xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @[[SUBY:__tessera_rt_array_[0-9]+]](dense<[1, 2, 2]> : tensor<3xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @[[SHAPE:__tessera_rt_array_[0-9]+]](dense<[4, 8]> : tensor<2xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @[[SRC:__tessera_rt_array_[0-9]+]](dense<[0, 1, 2, 3]> : tensor<4xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @[[DST:__tessera_rt_array_[0-9]+]](dense<[1, 2, 3, 0]> : tensor<4xi64>)

// CHECK-LABEL: func.func @collectives
func.func @collectives(%arg0: tensor<4x8xi32>) -> (tensor<32x8xi32>, tensor<4x4xi32>, tensor<1x32xi32>, tensor<4x8xi32>, index, i32) {
  // CHECK: %[[G:.*]] = call @__tessera_comm_all_gather_0(%arg0) : (tensor<4x8xi32>) -> tensor<32x8xi32>
  %0 = comm.all_gather %arg0 over @mesh {"x", "y"} dim 0 : tensor<4x8xi32> -> tensor<32x8xi32>
  // CHECK: %[[RS:.*]] = call @__tessera_comm_reduce_scatter_1(%arg0) : (tensor<4x8xi32>) -> tensor<4x4xi32>
  %1 = comm.reduce_scatter min %arg0 over @mesh {"y":(2)2} dim 1 : tensor<4x8xi32> -> tensor<4x4xi32>
  // CHECK: %[[A2A:.*]] = call @__tessera_comm_all_to_all_2(%arg0) : (tensor<4x8xi32>) -> tensor<1x32xi32>
  %2 = comm.all_to_all %arg0 over @mesh {"y"} split 0 concat 1 : tensor<4x8xi32> -> tensor<1x32xi32>
  // CHECK: %[[P:.*]] = call @__tessera_comm_permute_3(%arg0) : (tensor<4x8xi32>) -> tensor<4x8xi32>
  %3 = comm.permute %arg0 over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4x8xi32>
  // axis_index is a direct call; axis_size a constant.
  // CHECK: %[[GI:.*]] = llvm.mlir.addressof @[[XY]]
  // CHECK: %[[NG:.*]] = arith.constant 2 : i32
  // CHECK: %[[IDX:.*]] = call @tessera_rt_axis_index(%[[GI]], %[[NG]]) : (!llvm.ptr, i32) -> i64
  // CHECK: %[[IDXI:.*]] = arith.index_cast %[[IDX]] : i64 to index
  %4 = comm.axis_index over @mesh {"x", "y"} : index
  // CHECK: %[[SIZE:.*]] = arith.constant 8 : i32
  %5 = comm.axis_size over @mesh {"x", "y"} : i32
  // CHECK: return %[[G]], %[[RS]], %[[A2A]], %[[P]], %[[IDXI]], %[[SIZE]]
  return %0, %1, %2, %3, %4, %5 : tensor<32x8xi32>, tensor<4x4xi32>, tensor<1x32xi32>, tensor<4x8xi32>, index, i32
}

// i32 is dtype 7; dim 0; two group parts.
// CHECK-LABEL: func.func private @__tessera_comm_all_gather_0
// CHECK: %[[G:.*]] = llvm.mlir.addressof @[[XY]]
// CHECK: %[[NG:.*]] = arith.constant 2 : i32
// CHECK: %[[S:.*]] = llvm.mlir.addressof @[[SHAPE]]
// CHECK: %[[R:.*]] = arith.constant 2 : i32
// CHECK: %[[T:.*]] = arith.constant 7 : i32
// CHECK: %[[D:.*]] = arith.constant 0 : i64
// CHECK: memref.alloc() : memref<32x8xi32>
// CHECK: call @tessera_rt_all_gather(%{{.*}}, %{{.*}}, %[[S]], %[[R]], %[[T]], %[[D]], %[[G]], %[[NG]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i64, !llvm.ptr, i32, !llvm.ptr) -> ()

// min is kind 3; dim 1; the sub-axis "y":(2)2 is the group (1, 2, 2).
// CHECK-LABEL: func.func private @__tessera_comm_reduce_scatter_1
// CHECK: %[[G:.*]] = llvm.mlir.addressof @[[SUBY]]
// CHECK: %[[NG:.*]] = arith.constant 1 : i32
// CHECK: %[[S:.*]] = llvm.mlir.addressof @[[SHAPE]]
// CHECK: %[[R:.*]] = arith.constant 2 : i32
// CHECK: %[[T:.*]] = arith.constant 7 : i32
// CHECK: %[[K:.*]] = arith.constant 3 : i32
// CHECK: %[[D:.*]] = arith.constant 1 : i64
// CHECK: memref.alloc() : memref<4x4xi32>
// CHECK: call @tessera_rt_reduce_scatter(%{{.*}}, %{{.*}}, %[[S]], %[[R]], %[[T]], %[[K]], %[[D]], %[[G]], %[[NG]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i64, !llvm.ptr, i32, !llvm.ptr) -> ()

// CHECK-LABEL: func.func private @__tessera_comm_all_to_all_2
// CHECK: %[[G:.*]] = llvm.mlir.addressof @[[Y]]
// CHECK: %[[SPLIT:.*]] = arith.constant 0 : i64
// CHECK: %[[CONCAT:.*]] = arith.constant 1 : i64
// CHECK: memref.alloc() : memref<1x32xi32>
// CHECK: call @tessera_rt_all_to_all(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SPLIT]], %[[CONCAT]], %[[G]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i64, i64, !llvm.ptr, i32, !llvm.ptr) -> ()

// The permute moves 32 elements of 4 bytes; four pairs.
// CHECK-LABEL: func.func private @__tessera_comm_permute_3
// CHECK: %[[G:.*]] = llvm.mlir.addressof @[[Y]]
// CHECK: %[[N:.*]] = arith.constant 32 : i64
// CHECK: %[[W:.*]] = arith.constant 4 : i64
// CHECK: %[[BYTES:.*]] = arith.muli %[[N]], %[[W]] : i64
// CHECK: %[[SRCP:.*]] = llvm.mlir.addressof @[[SRC]]
// CHECK: %[[DSTP:.*]] = llvm.mlir.addressof @[[DST]]
// CHECK: %[[NP:.*]] = arith.constant 4 : i32
// CHECK: memref.alloc() : memref<4x8xi32>
// CHECK: call @tessera_rt_permute(%{{.*}}, %{{.*}}, %[[BYTES]], %[[SRCP]], %[[DSTP]], %[[NP]], %[[G]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr) -> ()

// -----

// Dynamic shapes: the shape array is built on the stack and the result
// buffer takes the dynamic sizes.
spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @dynamic
// CHECK: call @__tessera_comm_all_gather_0(%arg0) : (tensor<?x8xf64>) -> tensor<?x8xf64>
func.func @dynamic(%arg0: tensor<?x8xf64>) -> tensor<?x8xf64> {
  %0 = comm.all_gather %arg0 over @mesh {"x"} dim 0 : tensor<?x8xf64> -> tensor<?x8xf64>
  return %0 : tensor<?x8xf64>
}
// CHECK-LABEL: func.func private @__tessera_comm_all_gather_0
// CHECK-SAME: (%[[ARG:.*]]: tensor<?x8xf64>)
// CHECK: %[[D:.*]] = tensor.dim %[[ARG]], %{{.*}} : tensor<?x8xf64>
// CHECK: %[[SHAPE:.*]] = memref.alloca() : memref<2xi64>
// CHECK: memref.store %{{.*}}, %[[SHAPE]][%{{.*}}] : memref<2xi64>
// CHECK: %[[N:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: memref.alloc(%[[N]]) : memref<?x8xf64>
// CHECK: call @tessera_rt_all_gather

// -----

// Meshes over the same devices in different orders: before each call, the
// runtime is told the device at each position of the op's mesh (iota for
// @mesh). A module with one device order makes no such call (above), nor
// does a call over a mesh with other axes (@other).
spmd.mesh @mesh = <["x"=4]>
spmd.mesh @reversed = <["x"=4], device_ids=[3, 2, 1, 0]>
spmd.mesh @other = <["y"=2]>

// CHECK-DAG: llvm.mlir.global internal constant @[[IOTA:__tessera_rt_array_[0-9]+]](dense<[0, 1, 2, 3]> : tensor<4xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @[[REV:__tessera_rt_array_[0-9]+]](dense<[3, 2, 1, 0]> : tensor<4xi64>)
// SINGLE-NOT: tessera_rt_set_device_order
// SINGLE: func.func @orders
// CHECK-LABEL: func.func @orders
// CHECK: %[[ORDER:.*]] = llvm.mlir.addressof @[[REV]] : !llvm.ptr
// CHECK: %[[COUNT:.*]] = arith.constant 4 : i64
// CHECK: call @tessera_rt_set_device_order(%[[ORDER]], %[[COUNT]]) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT: %[[GROUP:.*]] = llvm.mlir.addressof
// CHECK: call @tessera_rt_axis_index(%[[GROUP]]
// CHECK-NOT: tessera_rt_set_device_order
// CHECK: call @tessera_rt_axis_index(
// CHECK: return
func.func @orders(%arg0: tensor<4xf32>) -> (index, index, tensor<4xf32>) {
  %i = comm.axis_index over @reversed {"x"} : index
  %j = comm.axis_index over @other {"y"} : index
  %0 = comm.all_reduce sum %arg0 over @mesh {"x"} : tensor<4xf32>
  return %i, %j, %0 : index, index, tensor<4xf32>
}
// CHECK-LABEL: func.func private @__tessera_comm_all_reduce
// CHECK: %[[ORDER:.*]] = llvm.mlir.addressof @[[IOTA]] : !llvm.ptr
// CHECK: %[[COUNT:.*]] = arith.constant 4 : i64
// CHECK: call @tessera_rt_set_device_order(%[[ORDER]], %[[COUNT]]) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT: call @tessera_rt_all_reduce(

// -----

// A collective over a mesh with other axes over the runtime mesh's devices
// (the 1-D view @flat of the 2x4 @mesh) names the runtime mesh's axes that
// cover the same digits of a device's position: "z":(4)2 (comm's form: the
// part above the minor 4) is "x", and "z":(1)4 is "y".
spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @flat = <["z"=8]>

// CHECK-DAG: llvm.mlir.global internal constant @{{__tessera_rt_array_[0-9]+}}(dense<[0, 1, 2]> : tensor<3xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @{{__tessera_rt_array_[0-9]+}}(dense<[1, 1, 4]> : tensor<3xi64>)
// CHECK-DAG: llvm.mlir.global internal constant @{{__tessera_rt_array_[0-9]+}}(dense<[0, 1, 2, 1, 1, 4]> : tensor<6xi64>)
// CHECK-LABEL: func.func @other_axes
// SINGLE-LABEL: func.func @other_axes
// SINGLE-NOT: tessera_rt_set_device_order
func.func @other_axes(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = comm.all_reduce sum %arg0 over @flat {"z":(4)2} : tensor<4x8xf32>
  %1 = comm.all_reduce sum %arg0 over @flat {"z":(1)4} : tensor<4x8xf32>
  %2 = comm.all_reduce sum %arg0 over @flat {"z"} : tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A gather of the valid part of padded blocks calls its own entry, with the
// valid size, and allocates the valid size.
spmd.mesh @mesh = <["x"=2, "y"=4]>

// CHECK-LABEL: func.func @all_gather_valid
// CHECK: call @__tessera_comm_all_gather_0(%arg0) : (tensor<2x3xf32>) -> tensor<5x3xf32>
func.func @all_gather_valid(%arg0: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %0 = comm.all_gather %arg0 over @mesh {"y"} dim 0 valid 5 : tensor<2x3xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
// CHECK-LABEL: func.func private @__tessera_comm_all_gather_0
// CHECK: %[[D:.*]] = arith.constant 0 : i64
// CHECK: %[[V:.*]] = arith.constant 5 : i64
// CHECK: memref.alloc() : memref<5x3xf32>
// CHECK: call @tessera_rt_all_gather_valid(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[D]], %[[V]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i64, i64, !llvm.ptr, i32, !llvm.ptr) -> ()
