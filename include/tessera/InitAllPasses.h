//===- InitAllPasses.h - register Tessera passes and pipelines -*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_INITALLPASSES_H
#define TESSERA_INITALLPASSES_H

namespace mlir::tessera {

/// Registers Tessera's passes and pipelines, and the upstream passes that
/// Tessera pipelines use, with the global pass registry.
void registerAllPasses();

} // namespace mlir::tessera

#endif // TESSERA_INITALLPASSES_H
