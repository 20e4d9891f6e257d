//===- Spmd.cpp - Tessera C API: meshes, shardings, JAX types -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera-c/Spmd.h"

#include "tessera/Dialect/Spmd/IR/JaxType.h"
#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tessera::spmd;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Spmd, spmd,
                                      mlir::tessera::spmd::SpmdDialect)

/// Makes sure the spmd dialect is loaded, so its attributes can be built.
static MLIRContext *withSpmd(MlirContext ctx) {
  MLIRContext *context = unwrap(ctx);
  context->getOrLoadDialect<SpmdDialect>();
  return context;
}

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

bool tesseraAttributeIsAMesh(MlirAttribute attr) {
  return isa<MeshAttr>(unwrap(attr));
}

MlirAttribute tesseraMeshAttrGet(MlirContext ctx, intptr_t numAxes,
                                 const MlirStringRef *names,
                                 const int64_t *sizes) {
  MLIRContext *context = withSpmd(ctx);
  SmallVector<MeshAxisAttr> axes;
  for (intptr_t i = 0; i < numAxes; ++i)
    axes.push_back(MeshAxisAttr::get(context, unwrap(names[i]), sizes[i]));
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(context)); };
  return wrap(MeshAttr::getChecked(emitError, context,
                                   ArrayRef<MeshAxisAttr>(axes),
                                   ArrayRef<int64_t>(), ArrayRef<AxisType>()));
}

intptr_t tesseraMeshAttrGetNumAxes(MlirAttribute mesh) {
  return cast<MeshAttr>(unwrap(mesh)).getAxes().size();
}

MlirStringRef tesseraMeshAttrGetAxisName(MlirAttribute mesh, intptr_t pos) {
  return wrap(cast<MeshAttr>(unwrap(mesh)).getAxes()[pos].getName());
}

int64_t tesseraMeshAttrGetAxisSize(MlirAttribute mesh, intptr_t pos) {
  return cast<MeshAttr>(unwrap(mesh)).getAxes()[pos].getSize();
}

int64_t tesseraMeshAttrGetNumDevices(MlirAttribute mesh) {
  return cast<MeshAttr>(unwrap(mesh)).getTotalSize();
}

//===----------------------------------------------------------------------===//
// Tensor shardings
//===----------------------------------------------------------------------===//

bool tesseraAttributeIsATensorSharding(MlirAttribute attr) {
  return isa<TensorShardingAttr>(unwrap(attr));
}

MlirAttribute
tesseraTensorShardingAttrGet(MlirContext ctx, MlirStringRef meshName,
                             intptr_t rank, const intptr_t *numAxes,
                             const MlirStringRef *axes, const bool *isClosed) {
  MLIRContext *context = withSpmd(ctx);
  if (unwrap(meshName).empty()) {
    mlir::emitError(UnknownLoc::get(context))
        << "a sharding must name the symbol of an spmd.mesh";
    return MlirAttribute{nullptr};
  }
  SmallVector<DimensionShardingAttr> dims;
  intptr_t next = 0;
  for (intptr_t d = 0; d < rank; ++d) {
    SmallVector<AxisRefAttr> refs;
    for (intptr_t i = 0; i < numAxes[d]; ++i)
      refs.push_back(AxisRefAttr::get(context, unwrap(axes[next++])));
    dims.push_back(DimensionShardingAttr::get(context, refs, isClosed[d]));
  }
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(context)); };
  Attribute meshRef = FlatSymbolRefAttr::get(context, unwrap(meshName));
  return wrap(TensorShardingAttr::getChecked(
      emitError, context, meshRef, ArrayRef<DimensionShardingAttr>(dims),
      ArrayRef<AxisRefAttr>(), ArrayRef<AxisRefAttr>(), ReductionKind::Sum,
      ArrayRef<AxisRefAttr>()));
}

MlirStringRef tesseraTensorShardingAttrGetMeshName(MlirAttribute sharding) {
  FlatSymbolRefAttr name =
      cast<TensorShardingAttr>(unwrap(sharding)).getMeshSymName();
  return name ? wrap(name.getValue()) : wrap(StringRef());
}

intptr_t tesseraTensorShardingAttrGetRank(MlirAttribute sharding) {
  return cast<TensorShardingAttr>(unwrap(sharding)).getRank();
}

intptr_t tesseraTensorShardingAttrGetDimNumAxes(MlirAttribute sharding,
                                                intptr_t dim) {
  return cast<TensorShardingAttr>(unwrap(sharding))
      .getDimSharding(dim)
      .getAxes()
      .size();
}

void tesseraTensorShardingAttrGetDimAxis(MlirAttribute sharding, intptr_t dim,
                                         intptr_t pos,
                                         MlirStringCallback callback,
                                         void *userData) {
  AxisRefAttr ref = cast<TensorShardingAttr>(unwrap(sharding))
                        .getDimSharding(dim)
                        .getAxes()[pos];
  std::string text = ref.toString();
  callback(wrap(StringRef(text)), userData);
}

bool tesseraTensorShardingAttrIsDimClosed(MlirAttribute sharding,
                                          intptr_t dim) {
  return cast<TensorShardingAttr>(unwrap(sharding))
      .getDimSharding(dim)
      .getIsClosed();
}

int64_t tesseraTensorShardingAttrGetDimPriority(MlirAttribute sharding,
                                                intptr_t dim) {
  std::optional<int64_t> priority = cast<TensorShardingAttr>(unwrap(sharding))
                                        .getDimSharding(dim)
                                        .getPriority();
  return priority ? *priority : -1;
}

//===----------------------------------------------------------------------===//
// JAX-style types
//===----------------------------------------------------------------------===//

void tesseraValueGetJaxType(MlirValue value, bool allAxes,
                            MlirStringCallback callback, void *userData) {
  JaxTypeOptions options;
  options.allAxes = allAxes;
  std::string text = getJaxTypeString(unwrap(value), options);
  callback(wrap(StringRef(text)), userData);
}
