//===- KernelAttrs.td - kernel attributes ------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELATTRS_TD
#define TESSERA_DIALECT_KERNEL_IR_KERNELATTRS_TD

include "tessera/Dialect/Kernel/IR/KernelBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Kernel_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Kernel_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enum attributes
//===----------------------------------------------------------------------===//

def Kernel_MemorySpaceAttr
    : EnumAttr<Kernel_Dialect, Kernel_MemorySpace, "space"> {
  let summary = "a TPU memory space, used as a memref memory space";
  let description = [{
    Where a kernel buffer lives, as in Mosaic's `#tpu.memory_space`:

    - `vmem`: the vector memory of a TensorCore, where windows of blocked
      operands and VMEM scratch live (Pallas's default memory space);
    - `smem`: the scalar memory (32-bit words, scalar access only), where
      scalar-prefetch operands and SMEM blocks live;
    - `hbm`: high-bandwidth memory, the memory of the arrays themselves; the
      body reaches it only through `kernel.async_copy`;
    - `any`: wherever the compiler puts the whole array (Pallas's `pl.ANY`);
      to the body it is like `hbm`;
    - `semaphore`: memrefs of `!kernel.semaphore` / `!kernel.dma_semaphore`.

    ```mlir
    memref<8x128xf32, #kernel.space<vmem>>
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Kernel_DimensionSemanticsAttr
    : EnumAttr<Kernel_Dialect, Kernel_DimensionSemantics,
               "dimension_semantics"> {
  let summary = "the scheduling semantics of one grid axis";
  let description = [{
    `parallel` (iterations along the axis are independent and may be split
    across TensorCores) or `arbitrary` (iterations run in order, e.g. a
    reduction that revisits an output block). Written as bare keywords in
    `kernel.call`'s `dimension_semantics = [parallel, arbitrary]`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Kernel_CopyPhaseAttr
    : EnumAttr<Kernel_Dialect, Kernel_CopyPhase, "copy_phase"> {
  let summary = "start or wait, the half of an asynchronous copy";
  let description = [{
    Written as the bare keyword `start` or `wait` in `kernel.async_copy`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// BlockAttr
//===----------------------------------------------------------------------===//

def Kernel_BlockDimParameter
    : ArrayRefParameter<"::mlir::tessera::kernel::BlockDim",
                        "block dimensions">;

def Kernel_BlockAttr : Kernel_Attr<"Block", "block"> {
  let summary = "how an operand of a kernel.call is cut into blocks";
  let description = [{
    Pallas's `BlockSpec`: the block shape, the index map from grid indices
    to the block, the memory space the body sees the block in, and the
    number of buffers of the pipeline.

    ```mlir
    #kernel.block<[256, 512], (i, j) -> (i, 0)>
    #kernel.block<[None, 8, 128], (b, i) -> (b, i, 0)>
    #kernel.block<[element(130, padding = (1, 1)), 128], (i) -> (i * 128, 0)>
    #kernel.block<[8, 128], @block_index, space = vmem, buffers = 1>
    #kernel.block<full, space = any>
    ```

    Block dimensions, one per array dimension:

    - an integer `n` (`pl.Blocked(n)`): the index map returns a *block
      index* `k` and the block covers elements `[k*n, k*n + n)`;
    - `None` (`pl.Squeezed()`): size 1, and the dimension is dropped from
      the body's memref;
    - `element(n)` or `element(n, padding = (lo, hi))` (`pl.Element`): the
      index map returns an *element offset* into the array padded by `lo`
      elements below and `hi` above.

    `full` (`block_shape=None`) is a block equal to the whole array.

    The index map is either an affine map of the grid indices (one result
    per array dimension), or a symbol reference to a `func.func` taking the
    grid indices (`index`) followed by the scalar-prefetch operands (SMEM
    memrefs) and returning one `index` per array dimension: the form for
    index maps that read scalar-prefetch operands (block-sparse kernels).
    Without an index map, every block index is 0.

    `space` is the memory space of the body's memref (default `vmem`); in
    `any` and `hbm` the body gets the whole array and must copy it itself.
    `buffers` is Pallas's `pipeline_mode=pl.Buffered(n)`, 1 or 2 (default
    2, double buffering).
  }];
  let parameters = (ins
    Kernel_BlockDimParameter:$dims,
    "bool":$full,
    "::mlir::AffineMap":$indexMap,
    "::mlir::FlatSymbolRefAttr":$indexFn,
    "::mlir::tessera::kernel::MemorySpace":$memorySpace,
    "int64_t":$buffers
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of array dimensions the block describes (its explicit
    /// dimensions; unknown, -1, for a `full` block).
    int64_t getRank() const {
      return getFull() ? -1 : static_cast<int64_t>(getDims().size());
    }
    /// True if the block is in `hbm` or `any`: no windowing, the body gets
    /// the whole array.
    bool isRawMemory() const {
      return getMemorySpace() == MemorySpace::Hbm ||
             getMemorySpace() == MemorySpace::Any;
    }
    /// True if some dimension is an `element` dimension.
    bool hasElementDims() const;
    /// The block shape for an array of shape `arrayShape`: the size of each
    /// dimension (1 for squeezed ones), the array shape for a `full` block.
    ::llvm::SmallVector<int64_t>
    getBlockShape(::llvm::ArrayRef<int64_t> arrayShape) const;
    /// The shape of the body's memref for an array of shape `arrayShape`:
    /// the block shape without squeezed dimensions (the whole array in
    /// `hbm`/`any`).
    ::llvm::SmallVector<int64_t>
    getWindowShape(::llvm::ArrayRef<int64_t> arrayShape) const;
    /// True if the block is the whole array and the index map returns all
    /// zeros (Pallas's trivial window).
    bool isTrivialWindow(::llvm::ArrayRef<int64_t> arrayShape) const;
  }];
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

def Kernel_TargetAttr : Kernel_Attr<"Target", "target"> {
  let summary = "the TPU generation kernels are compiled for";
  let description = [{
    A TPU generation, `"v4"`, `"v5e"`, `"v5p"`, `"v6e"` or `"v7x"`, held in
    the module attribute `kernel.target` (the one place hardware facts come
    from):

    ```mlir
    module attributes {kernel.target = #kernel.target<"v6e">} { ... }
    ```

    The generation fixes VMEM and SMEM per TensorCore, TensorCores per chip
    (and whether they form a megacore), HBM size and bandwidth, peak FLOP
    rates, the default scoped VMEM limit, the element types Mosaic supports
    and the memory tiling (see `getInfo()` and docs/Dialects/Kernel.md).
  }];
  let parameters = (ins StringRefParameter<"TPU generation">:$generation);
  let assemblyFormat = "`<` $generation `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The hardware facts of the generation (the attribute is verified, so
    /// the generation is known).
    const ::mlir::tessera::kernel::TpuInfo &getInfo() const;
  }];
}

//===----------------------------------------------------------------------===//
// CostEstimateAttr
//===----------------------------------------------------------------------===//

def Kernel_CostEstimateAttr : Kernel_Attr<"CostEstimate", "cost"> {
  let summary = "a kernel's cost estimate (pl.CostEstimate)";
  let description = [{
    What the whole kernel call costs, as Pallas's `CostEstimate`: floating
    point operations, transcendental operations and bytes accessed.

    ```mlir
    #kernel.cost<flops = 2097152, transcendentals = 0, bytes_accessed = 12288>
    ```
  }];
  let parameters = (ins "int64_t":$flops, "int64_t":$transcendentals,
                        "int64_t":$bytes_accessed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// VectorLayoutAttr
//===----------------------------------------------------------------------===//

def Kernel_VectorLayoutAttr : Kernel_Attr<"VectorLayout", "layout"> {
  let summary = "the native tiling of a vector value in a kernel body";
  let description = [{
    How a vector value of a kernel body maps onto native vector registers,
    as Mosaic's vector layouts do: the tile of its trailing dimensions that
    one register holds (or, for a dimension smaller than the native size,
    the whole dimension). A vector of rank 2 or more has a tile of its last
    two dimensions (`[sublanes, lanes]`; leading dimensions are tiled by 1),
    a vector of rank 1 a tile of its one dimension. The native tiles are
    `(8, 128)` for 32-bit elements, `(16, 128)` for 16-bit and `(32, 128)`
    for 8-bit ones (packed registers), `128 * 32 / bitwidth` lanes for
    rank 1; masks take the tiling of the values they compare.

    `kernel-infer-vector-layout` gives every vector result of a kernel body
    a layout (discardable attribute `kernel.out_layouts`, one entry per
    result, `unit` for results that are not vectors, as Mosaic's
    `out_layout`); `kernel-apply-vector-layout` rewrites the ops of values
    that span more than one tile onto tiles of their layouts.

    ```mlir
    %s = arith.addf %a, %b {kernel.out_layouts = [#kernel.layout<[8, 128]>]}
        : vector<256x512xf32>
    ```

    Each tile size divides its dimension.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "tile sizes">:$tiling);
  let assemblyFormat = "`<` `[` $tiling `]` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The tile of a vector of `shape` with this layout, one size per
    /// dimension (1 for leading dimensions).
    ::llvm::SmallVector<int64_t>
    getTileShape(::llvm::ArrayRef<int64_t> shape) const;
    /// The number of tiles of a vector of `shape` with this layout.
    int64_t getNumTiles(::llvm::ArrayRef<int64_t> shape) const;
  }];
}

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELATTRS_TD
