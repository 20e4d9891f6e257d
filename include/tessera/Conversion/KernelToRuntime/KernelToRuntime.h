//===- KernelToRuntime.h - kernel.call to runtime calls ---------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The lowering of `kernel.call`s and kernel bodies to loops, memref code and
// calls of the runtime's kernel C ABI (tessera/Runtime/KernelABI.h), as
// dialect-conversion pattern sets: `convert-kernel-to-runtime` applies them
// (tessera/Conversion/Passes.h), and the `kernel-lower-pipelined` /
// `kernel-lower-interpret` pipelines run it after the vector layout passes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_KERNELTORUNTIME_KERNELTORUNTIME_H
#define TESSERA_CONVERSION_KERNELTORUNTIME_KERNELTORUNTIME_H

#include "mlir/Support/LLVM.h"

#include <memory>

namespace mlir {
class ModuleOp;
class RewritePatternSet;
class TypeConverter;

namespace tessera::kernel {

/// How a lowering moves blocks.
enum class KernelLoweringMode {
  /// Sequential, every block copied at every step, with poisoning and
  /// block-index and revisit checks (Pallas's TPU interpret mode).
  Interpret,
  /// Double-buffered windows, copies skipped when the block does not change,
  /// leading parallel axes split across a megacore's TensorCores.
  Pipelined,
};

/// What the patterns of one conversion of a module share: the mode, the
/// runtime functions and message strings declared so far, and the kernel
/// bodies and index map functions being lowered with the facts about their
/// `kernel.call` that their patterns need (names, grid). One per module and
/// conversion.
class KernelLoweringState {
public:
  KernelLoweringState(ModuleOp module, KernelLoweringMode mode);
  ~KernelLoweringState();
  KernelLoweringState(const KernelLoweringState &) = delete;
  KernelLoweringState &operator=(const KernelLoweringState &) = delete;

  struct Impl;
  Impl &getImpl() { return *impl; }

private:
  std::unique_ptr<Impl> impl;
};

/// Adds to `converter` the conversion that drops the kernel memory spaces
/// from memref types (semaphore memrefs become `i32` counters) and from
/// function types; every other type is kept.
void populateKernelMemorySpaceTypeConversion(TypeConverter &converter);

/// Adds the pattern that lowers a `kernel.call` (outside kernel bodies) to a
/// call of `tessera_rt_kernel_call` with a core function (the grid steps of
/// one TensorCore, its windows in the core's arenas) and a clone of the body
/// with the grid indices as leading arguments, which it registers with
/// `state` for the body patterns.
void populateKernelCallToRuntimePatterns(RewritePatternSet &patterns,
                                         KernelLoweringState &state);

/// Adds the patterns that lower the kernel ops of the body clones and index
/// map functions registered with `state` (grid queries, loads and stores,
/// DMAs, semaphores, `kernel.run_scoped`, the body's linalg ops on buffers)
/// and drop the kernel memory spaces from every type, with `converter`
/// (populateKernelMemorySpaceTypeConversion).
void populateKernelBodyToRuntimePatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         KernelLoweringState &state);

/// Lowers every `kernel.call` of `module` and the bodies it runs with the
/// patterns above, checking first what cannot be lowered (reported as
/// errors, the module unchanged).
LogicalResult convertKernelToRuntime(ModuleOp module, KernelLoweringMode mode);

} // namespace tessera::kernel
} // namespace mlir

#endif // TESSERA_CONVERSION_KERNELTORUNTIME_KERNELTORUNTIME_H
