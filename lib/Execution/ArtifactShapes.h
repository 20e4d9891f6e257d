//===- ArtifactShapes.h - the symbolic shapes of an artifact ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The input and output shapes of an artifact's metadata parsed in one
// symbolic scope, as JAX parses an `Exported`'s dimension strings when it
// deserializes one; unlike JAX, the scope keeps the user's constraints, so
// a call checks them too. Private to the execution library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_EXECUTION_ARTIFACTSHAPES_H
#define TESSERA_LIB_EXECUTION_ARTIFACTSHAPES_H

#include "tessera/Execution/Artifact.h"
#include "tessera/SymbolicShape/Solve.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tessera::exec {

/// The parsed shapes of an artifact and the solution of its dimension
/// variables.
class ArtifactShapes {
public:
  /// Parses every dimension of `metadata`'s avals in one scope with its
  /// constraints and solves the dimension variables from the input shapes
  /// (JAX's `solve_dim_vars`). A dimension that does not parse, an
  /// unsatisfiable constraint or an unsolvable variable is an error.
  static llvm::Expected<std::unique_ptr<ArtifactShapes>>
  create(const ArtifactMetadata &metadata);

  /// The input shapes, named `args[i]` as JAX names them.
  llvm::ArrayRef<symbolic::ArgShapeSpec> getInputs() const { return inputs; }
  /// The output shapes.
  llvm::ArrayRef<llvm::SmallVector<symbolic::DimExpr>> getOutputs() const {
    return outputs;
  }
  /// The solution; std::nullopt when no input has a symbolic dimension.
  const std::optional<symbolic::DimVarSolution> &getSolution() const {
    return solution;
  }
  /// The dimension variables, sorted.
  std::vector<std::string> getDimVars() const;

private:
  ArtifactShapes() = default;

  std::unique_ptr<symbolic::DimContext> context;
  std::unique_ptr<symbolic::SymbolicScope> scope;
  std::vector<symbolic::ArgShapeSpec> inputs;
  std::vector<llvm::SmallVector<symbolic::DimExpr>> outputs;
  std::optional<symbolic::DimVarSolution> solution;
};

} // namespace mlir::tessera::exec

#endif // TESSERA_LIB_EXECUTION_ARTIFACTSHAPES_H
