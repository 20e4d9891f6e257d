//===- LiftInlinedMeshes.cpp - one symbol per mesh ------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/Transforms/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tessera::spmd {
#define GEN_PASS_DEF_SPMDLIFTINLINEDMESHESPASS
#include "tessera/Dialect/Spmd/Transforms/Passes.h.inc"

namespace {

/// The name a lifted mesh gets before uniquing.
std::string getLiftedMeshName(MeshAttr mesh) {
  if (mesh.isMaximal())
    return "maximal_mesh_" + std::to_string(mesh.getDeviceIds().front());
  if (mesh.empty())
    return "empty_mesh";
  return "mesh";
}

struct SpmdLiftInlinedMeshesPass
    : public impl::SpmdLiftInlinedMeshesPassBase<SpmdLiftInlinedMeshesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbolTable(module);

    // 1. One symbol per mesh: keep the first of equal meshes.
    llvm::DenseMap<MeshAttr, StringAttr> meshToName;
    llvm::DenseMap<StringAttr, StringAttr> renamed;
    Operation *lastMesh = nullptr;
    for (MeshOp meshOp :
         llvm::make_early_inc_range(module.getBody()->getOps<MeshOp>())) {
      auto [it, inserted] =
          meshToName.try_emplace(meshOp.getMesh(), meshOp.getSymNameAttr());
      if (inserted) {
        lastMesh = meshOp;
        continue;
      }
      renamed[meshOp.getSymNameAttr()] = it->second;
      symbolTable.erase(meshOp);
    }

    // 2. References to an erased mesh (in shardings, the mesh of a comm op)
    // name the mesh it repeats, before lifted meshes reuse freed names.
    if (!renamed.empty()) {
      AttrTypeReplacer renamer;
      renamer.addReplacement(
          [&](FlatSymbolRefAttr ref) -> std::optional<Attribute> {
            auto it = renamed.find(ref.getAttr());
            if (it == renamed.end())
              return std::nullopt;
            return FlatSymbolRefAttr::get(it->second);
          });
      module->walk([&](Operation *op) {
        if (!isa<MeshOp>(op))
          renamer.replaceElementsIn(op, /*replaceAttrs=*/true,
                                    /*replaceLocs=*/false,
                                    /*replaceTypes=*/false);
      });
    }

    // 3. Rewrite every inlined mesh, in pre-order, declaring new meshes after
    // the existing ones as inlined meshes first appear.
    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);
    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](TensorShardingAttr sharding) -> std::optional<Attribute> {
          StringAttr name;
          if (MeshAttr mesh = sharding.getInlinedMesh()) {
            auto it = meshToName.find(mesh);
            if (it != meshToName.end()) {
              name = it->second;
            } else {
              if (lastMesh)
                builder.setInsertionPointAfter(lastMesh);
              else
                builder.setInsertionPointToStart(module.getBody());
              auto meshOp = MeshOp::create(builder, module.getLoc(),
                                           getLiftedMeshName(mesh), mesh);
              symbolTable.insert(meshOp, builder.getInsertionPoint());
              lastMesh = meshOp;
              name = meshOp.getSymNameAttr();
              meshToName[mesh] = name;
            }
          } else {
            return std::nullopt;
          }
          return TensorShardingAttr::get(
              ctx, FlatSymbolRefAttr::get(name), sharding.getDimShardings(),
              sharding.getReplicatedAxes(), sharding.getUnreducedAxes(),
              sharding.getUnreducedKind(), sharding.getReducedAxes());
        });
    module->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isa<MeshOp>(op))
        replacer.replaceElementsIn(op, /*replaceAttrs=*/true,
                                   /*replaceLocs=*/false,
                                   /*replaceTypes=*/false);
    });
  }
};

} // namespace
} // namespace mlir::tessera::spmd
