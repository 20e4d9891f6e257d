//===- KernelBase.td - kernel dialect and enums ------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELBASE_TD
#define TESSERA_DIALECT_KERNEL_IR_KERNELBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Kernel_Dialect : Dialect {
  let name = "kernel";
  let cppNamespace = "::mlir::tessera::kernel";
  let summary = "Pallas-style kernels over blocks in TPU memory spaces";
  let description = [{
    The `kernel` dialect is Pallas (`pl.pallas_call`) in MLIR. A
    `kernel.call` runs a kernel body once per point of an iteration grid;
    every array operand and result is cut into blocks by a `#kernel.block`
    (Pallas's `BlockSpec`: block shape, index map, memory space), and the
    body sees one block of each as a memref in a TPU memory space
    (`#kernel.space<vmem>`, `<smem>`, `<hbm>`, `<any>`, `<semaphore>`).

    ```mlir
    module attributes {kernel.target = #kernel.target<"v5e">} {
      func.func @add_body(%x: memref<8x128xf32, #kernel.space<vmem>>,
                          %y: memref<8x128xf32, #kernel.space<vmem>>,
                          %o: memref<8x128xf32, #kernel.space<vmem>>) {
        %c0 = arith.constant 0 : index
        %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
        %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
        %s = arith.addf %a, %b : vector<8x128xf32>
        kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
        return
      }
      func.func @add(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
        %0 = kernel.call @add_body(%x, %y) grid = [8]
            in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>,
                        #kernel.block<[8, 128], (i) -> (i, 0)>]
            out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
            : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
        return %0 : tensor<64x128xf32>
      }
    }
    ```

    Inside a body, `kernel.program_id` and `kernel.num_programs` query the
    grid, `kernel.load` / `kernel.store` access blocks (with masks),
    `kernel.async_copy` moves data between memory spaces under DMA
    semaphores, `kernel.semaphore_*` signal and wait on regular semaphores,
    and `kernel.run_scoped` allocates scoped buffers. Conditionals such as
    Pallas's `pl.when` are `scf.if`, loops are `scf.for`.

    The module attribute `kernel.target = #kernel.target<"v5e">` names the
    TPU generation; `kernel-verify` checks every kernel against its rules
    (block tiling, memory budgets, dtypes, revisit order).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined in KernelAttrs.cpp).
    void registerAttributes();
    /// Registers the types (defined in KernelDialect.cpp).
    void registerTypes();

    /// The name of the module attribute that holds the `#kernel.target`.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("kernel.target");
    }
    /// The name of the op attribute that holds the vector layouts of the
    /// op's results (kernel-infer-vector-layout).
    static constexpr ::llvm::StringLiteral getOutLayoutsAttrName() {
      return ::llvm::StringLiteral("kernel.out_layouts");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Kernel_SpaceAny : I32EnumAttrCase<"Any", 0, "any">;
def Kernel_SpaceVmem : I32EnumAttrCase<"Vmem", 1, "vmem">;
def Kernel_SpaceSmem : I32EnumAttrCase<"Smem", 2, "smem">;
def Kernel_SpaceHbm : I32EnumAttrCase<"Hbm", 3, "hbm">;
def Kernel_SpaceSemaphore : I32EnumAttrCase<"Semaphore", 4, "semaphore">;
def Kernel_MemorySpace : I32EnumAttr<"MemorySpace",
    "TPU memory space of a kernel buffer",
    [Kernel_SpaceAny, Kernel_SpaceVmem, Kernel_SpaceSmem, Kernel_SpaceHbm,
     Kernel_SpaceSemaphore]> {
  let cppNamespace = "::mlir::tessera::kernel";
  let genSpecializedAttr = 0;
}

def Kernel_Parallel : I32EnumAttrCase<"Parallel", 0, "parallel">;
def Kernel_Arbitrary : I32EnumAttrCase<"Arbitrary", 1, "arbitrary">;
def Kernel_DimensionSemantics : I32EnumAttr<"DimensionSemantics",
    "how the iterations along a grid axis may be scheduled",
    [Kernel_Parallel, Kernel_Arbitrary]> {
  let cppNamespace = "::mlir::tessera::kernel";
  let genSpecializedAttr = 0;
}

def Kernel_CopyStart : I32EnumAttrCase<"Start", 0, "start">;
def Kernel_CopyWait : I32EnumAttrCase<"Wait", 1, "wait">;
def Kernel_CopyPhase : I32EnumAttr<"CopyPhase",
    "the half of an asynchronous copy an op performs",
    [Kernel_CopyStart, Kernel_CopyWait]> {
  let cppNamespace = "::mlir::tessera::kernel";
  let genSpecializedAttr = 0;
}

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELBASE_TD
