// RUN: tessera-opt %s --split-input-file --kernel-infer-vector-layout --kernel-apply-vector-layout=rows-per-step=1 | FileCheck %s

// Tests that a costly elementwise op (here exp) of a lane-replicated value
// is computed on one column of each tile and broadcast along the lanes.
// Flash attention's running maximum lives in (16, 128) scratch whose every
// store writes a replicated value over whole rows (-inf at the first step,
// then max(m_prev, broadcast of the row maxima)), so its loads are
// replicated, and so is exp(m_prev - m_next); exp(s - m_next) is not.
// CHECK-LABEL: func.func @online_max
// CHECK: math.exp %{{.*}} : vector<1x128xf32>
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[P:.*]] = kernel.load %{{.*}}[%[[R]], %{{.*}}] : memref<16x128xf32, #kernel.space<vmem>>, vector<1x1xf32>
// CHECK: %[[N:.*]] = vector.transfer_read %{{.*}}[%[[R]], %{{.*}}], %{{.*}} {in_bounds = [true, true]} : memref<16x128xf32, #kernel.space<vmem>>, vector<1x1xf32>
// CHECK: %[[D:.*]] = arith.subf %[[P]], %[[N]] : vector<1x1xf32>
// CHECK: %[[E:.*]] = math.exp %[[D]] : vector<1x1xf32>
// CHECK: %[[B:.*]] = vector.broadcast %[[E]] : vector<1x1xf32> to vector<1x128xf32>
// CHECK: kernel.store %[[B]], %{{.*}}[%[[R]], %{{.*}}] : vector<1x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
// CHECK: return
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @online_max(%x: memref<16x128xf32, #kernel.space<vmem>>, %p: memref<16x128xf32, #kernel.space<vmem>>,
                        %a: memref<16x128xf32, #kernel.space<vmem>>, %m_ref: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %j = kernel.program_id 0
    %first = arith.cmpi eq, %j, %c0 : index
    scf.if %first {
      %ninf = arith.constant dense<0xFF800000> : vector<16x128xf32>
      kernel.store %ninf, %m_ref[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    }
    %s = kernel.load %x[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    %low = arith.constant dense<0xFF800000> : vector<16xf32>
    %rowmax = vector.multi_reduction <maximumf>, %s, %low [1] : vector<16x128xf32> to vector<16xf32>
    %rowmax2 = vector.shape_cast %rowmax : vector<16xf32> to vector<16x1xf32>
    %m_curr = vector.broadcast %rowmax2 : vector<16x1xf32> to vector<16x128xf32>
    %m_prev = kernel.load %m_ref[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    %m_next = arith.maximumf %m_prev, %m_curr : vector<16x128xf32>
    %centered = arith.subf %s, %m_next : vector<16x128xf32>
    %e = math.exp %centered : vector<16x128xf32>
    kernel.store %e, %p[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    %dm = arith.subf %m_prev, %m_next : vector<16x128xf32>
    %alpha = math.exp %dm : vector<16x128xf32>
    kernel.store %alpha, %a[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    kernel.store %m_next, %m_ref[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
    %0, %1 = kernel.call @online_max(%x) grid = [4]
        in_specs = [#kernel.block<[16, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[16, 128], (i) -> (i, 0)>, #kernel.block<[16, 128], (i) -> (i, 0)>]
        scratch = [memref<16x128xf32, #kernel.space<vmem>>]
        : (tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>)
    return %0, %1 : tensor<64x128xf32>, tensor<64x128xf32>
  }
}

// -----

// Tests that a scratch buffer is not replicated when one of its stores
// writes a value that is not (the block itself), nor a window (its
// contents come from DMAs): exp of their loads runs on whole rows.
// CHECK-LABEL: func.func @not_replicated
// CHECK-NOT: vector<1x1xf32>
// CHECK: math.exp %{{.*}} : vector<1x128xf32>
// CHECK: math.exp %{{.*}} : vector<1x128xf32>
// CHECK-NOT: vector<1x1xf32>
// CHECK: return
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @not_replicated(%x: memref<16x128xf32, #kernel.space<vmem>>, %o: memref<16x128xf32, #kernel.space<vmem>>,
                            %o2: memref<16x128xf32, #kernel.space<vmem>>, %t_ref: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %j = kernel.program_id 0
    %first = arith.cmpi eq, %j, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<16x128xf32>
      kernel.store %zero, %t_ref[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    }
    %t = kernel.load %t_ref[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    %e = math.exp %t : vector<16x128xf32>
    kernel.store %e, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    %w = kernel.load %x[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    %f = math.exp %w : vector<16x128xf32>
    kernel.store %f, %o2[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    kernel.store %w, %t_ref[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
    %0, %1 = kernel.call @not_replicated(%x) grid = [4]
        in_specs = [#kernel.block<[16, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[16, 128], (i) -> (i, 0)>, #kernel.block<[16, 128], (i) -> (i, 0)>]
        scratch = [memref<16x128xf32, #kernel.space<vmem>>]
        : (tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>)
    return %0, %1 : tensor<64x128xf32>, tensor<64x128xf32>
  }
}
