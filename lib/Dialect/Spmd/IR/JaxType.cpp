//===- JaxType.cpp - JAX-style type strings of sharded values -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Spmd/IR/JaxType.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"
#include "tessera/Dialect/Spmd/IR/SpmdUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;
using namespace mlir::tessera::spmd;

MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::tessera::spmd::SymbolicDimsDialectInterface)

//===----------------------------------------------------------------------===//
// Axes
//===----------------------------------------------------------------------===//

bool mlir::tessera::spmd::isJaxVisibleAxis(AxisRefAttr ref, MeshAttr mesh,
                                           const JaxTypeOptions &options) {
  if (options.allAxes)
    return true;
  if (!mesh)
    return false;
  std::optional<unsigned> index = mesh.getAxisIndex(ref.getName());
  return index && mesh.getAxisType(*index) == AxisType::Explicit;
}

/// Prints an axis as it appears in a type: `x`, or `x:(2)4` for a sub-axis.
static void printAxisName(llvm::raw_ostream &os, AxisRefAttr ref) {
  os << ref.getName();
  if (SubAxisInfoAttr info = ref.getSubAxisInfo())
    os << ":(" << info.getPreSize() << ")" << info.getSize();
}

/// Number of the axes in `axes` that are shown.
static unsigned countVisible(ArrayRef<AxisRefAttr> axes, MeshAttr mesh,
                             const JaxTypeOptions &options) {
  return llvm::count_if(axes, [&](AxisRefAttr ref) {
    return isJaxVisibleAxis(ref, mesh, options);
  });
}

/// The shown axes of `refs` (a sharding's unreduced or reduced axes), in
/// mesh order.
static SmallVector<AxisRefAttr, 4>
getVisibleAxes(ArrayRef<AxisRefAttr> refs, MeshAttr mesh,
               const JaxTypeOptions &options) {
  SmallVector<AxisRefAttr, 4> axes;
  for (AxisRefAttr ref : refs)
    if (isJaxVisibleAxis(ref, mesh, options))
      axes.push_back(ref);
  // The verifier keeps the list in mesh order; sort only IR it has not seen.
  auto less = [&](AxisRefAttr lhs, AxisRefAttr rhs) {
    return AxisRefAttr::lessInMesh(mesh, lhs, rhs);
  };
  if (mesh && !llvm::is_sorted(axes, less))
    llvm::sort(axes, less);
  return axes;
}

/// The shown unreduced axes of `sharding`, in mesh order.
static SmallVector<AxisRefAttr, 4>
getVisibleUnreduced(TensorShardingAttr sharding, MeshAttr mesh,
                    const JaxTypeOptions &options) {
  return getVisibleAxes(sharding.getUnreducedAxes(), mesh, options);
}

/// The shown reduced axes of `sharding`, in mesh order.
static SmallVector<AxisRefAttr, 4>
getVisibleReduced(TensorShardingAttr sharding, MeshAttr mesh,
                  const JaxTypeOptions &options) {
  return getVisibleAxes(sharding.getReducedAxes(), mesh, options);
}

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

namespace {
/// The NumPy name of a dtype and JAX's short name for it (`float32`, `f32`).
struct DtypeNames {
  StringLiteral longName;
  StringLiteral shortName;
};
} // namespace

/// The names of the element types whose name does not depend on a
/// parameter.
static std::optional<DtypeNames> getFixedDtypeNames(Type type) {
  using Names = std::optional<DtypeNames>;
  return llvm::TypeSwitch<Type, Names>(type)
      .Case([](Float16Type) {
        return DtypeNames{"float16", "f16"};
      })
      .Case([](BFloat16Type) {
        return DtypeNames{"bfloat16", "bf16"};
      })
      .Case([](Float32Type) {
        return DtypeNames{"float32", "f32"};
      })
      .Case([](Float64Type) {
        return DtypeNames{"float64", "f64"};
      })
      .Case([](Float80Type) {
        return DtypeNames{"float80", "f80"};
      })
      .Case([](Float128Type) {
        return DtypeNames{"float128", "f128"};
      })
      .Case([](FloatTF32Type) {
        return DtypeNames{"tf32", "tf32"};
      })
      .Case([](Float8E5M2Type) {
        return DtypeNames{"float8_e5m2", "f8_e5m2"};
      })
      .Case([](Float8E4M3Type) {
        return DtypeNames{"float8_e4m3", "f8_e4m3"};
      })
      .Case([](Float8E4M3FNType) {
        return DtypeNames{"float8_e4m3fn", "f8_e4m3fn"};
      })
      .Case([](Float8E5M2FNUZType) {
        return DtypeNames{"float8_e5m2fnuz", "f8_e5m2fnuz"};
      })
      .Case([](Float8E4M3FNUZType) {
        return DtypeNames{"float8_e4m3fnuz", "f8_e4m3fnuz"};
      })
      .Case([](Float8E4M3B11FNUZType) {
        return DtypeNames{"float8_e4m3b11fnuz", "f8_e4m3b11fnuz"};
      })
      .Case([](Float8E3M4Type) {
        return DtypeNames{"float8_e3m4", "f8_e3m4"};
      })
      .Case([](Float8E8M0FNUType) {
        return DtypeNames{"float8_e8m0fnu", "f8_e8m0fnu"};
      })
      .Case([](Float6E2M3FNType) {
        return DtypeNames{"float6_e2m3fn", "f6_e2m3fn"};
      })
      .Case([](Float6E3M2FNType) {
        return DtypeNames{"float6_e3m2fn", "f6_e3m2fn"};
      })
      .Case([](Float4E2M1FNType) {
        return DtypeNames{"float4_e2m1fn", "f4_e2m1fn"};
      })
      .Case([](IndexType) {
        return DtypeNames{"index", "index"};
      })
      .Case([](ComplexType complex) -> Names {
        if (isa<Float32Type>(complex.getElementType()))
          return DtypeNames{"complex64", "c64"};
        if (isa<Float64Type>(complex.getElementType()))
          return DtypeNames{"complex128", "c128"};
        return std::nullopt;
      })
      .Default([](Type) { return std::nullopt; });
}

void mlir::tessera::spmd::printJaxDtype(llvm::raw_ostream &os, Type type,
                                        bool shortDtypes) {
  if (std::optional<DtypeNames> names = getFixedDtypeNames(type)) {
    os << (shortDtypes ? names->shortName : names->longName);
    return;
  }
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.isSignless() && integer.getWidth() == 1) {
      os << "bool";
      return;
    }
    if (integer.isUnsigned())
      os << (shortDtypes ? "u" : "uint");
    else
      os << (shortDtypes ? "i" : "int");
    os << integer.getWidth();
    return;
  }
  if (auto complex = dyn_cast<ComplexType>(type)) {
    os << "complex<";
    printJaxDtype(os, complex.getElementType(), shortDtypes);
    os << ">";
    return;
  }
  type.print(os);
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// True for the types JAX treats as scalars (rank-0 arrays).
static bool isScalarType(Type type) {
  return type.isIntOrIndexOrFloat() || isa<ComplexType>(type);
}

/// Prints `@x` or `@(x,y)` for the shown axes of one dimension.
static void printDimAxes(llvm::raw_ostream &os, ArrayRef<AxisRefAttr> axes,
                         MeshAttr mesh, const JaxTypeOptions &options) {
  unsigned numVisible = countVisible(axes, mesh, options);
  if (numVisible == 0)
    return;
  os << '@';
  if (numVisible > 1)
    os << '(';
  bool first = true;
  for (AxisRefAttr ref : axes) {
    if (!isJaxVisibleAxis(ref, mesh, options))
      continue;
    if (!first)
      os << ',';
    first = false;
    printAxisName(os, ref);
  }
  if (numVisible > 1)
    os << ')';
}

/// Prints `x` or `(x,y)` for the axes of an annotation.
static void printAnnotationAxes(llvm::raw_ostream &os,
                                ArrayRef<AxisRefAttr> axes) {
  if (axes.size() > 1)
    os << '(';
  llvm::interleave(
      axes, os, [&](AxisRefAttr ref) { printAxisName(os, ref); }, ",");
  if (axes.size() > 1)
    os << ')';
}

/// Prints the `{U:x}`, `{R:y}` or `{U:x, R:y}` annotation, or nothing.
static void printAnnotation(llvm::raw_ostream &os, TensorShardingAttr sharding,
                            MeshAttr mesh, const JaxTypeOptions &options) {
  if (sharding.getUnreducedAxes().empty() && sharding.getReducedAxes().empty())
    return;
  SmallVector<AxisRefAttr, 4> unreduced =
      getVisibleUnreduced(sharding, mesh, options);
  SmallVector<AxisRefAttr, 4> reduced =
      getVisibleReduced(sharding, mesh, options);
  if (unreduced.empty() && reduced.empty())
    return;
  os << '{';
  if (!unreduced.empty()) {
    os << 'U';
    switch (sharding.getUnreducedKind()) {
    case ReductionKind::Sum:
      break;
    case ReductionKind::Max:
      os << "_max";
      break;
    case ReductionKind::Min:
      os << "_min";
      break;
    }
    os << ':';
    printAnnotationAxes(os, unreduced);
    if (!reduced.empty())
      os << ", ";
  }
  if (!reduced.empty()) {
    os << "R:";
    printAnnotationAxes(os, reduced);
  }
  os << '}';
}

void mlir::tessera::spmd::printJaxType(llvm::raw_ostream &os, Type type,
                                       TensorShardingAttr sharding,
                                       MeshAttr mesh,
                                       const JaxTypeOptions &options,
                                       ArrayRef<StringRef> symbolicDims) {
  if (auto ranked = dyn_cast<RankedTensorType>(type)) {
    printJaxDtype(os, ranked.getElementType(), options.shortDtypes);
    ArrayRef<DimensionShardingAttr> dims;
    if (sharding)
      dims = sharding.getDimShardings();
    os << '[';
    for (auto [i, size] : llvm::enumerate(ranked.getShape())) {
      if (i != 0)
        os << ',';
      if (!ShapedType::isDynamic(size))
        os << size;
      else if (i < symbolicDims.size() && !symbolicDims[i].empty())
        os << symbolicDims[i];
      else
        os << '?';
      if (i < dims.size())
        printDimAxes(os, dims[i].getAxes(), mesh, options);
    }
    os << ']';
  } else if (auto unranked = dyn_cast<UnrankedTensorType>(type)) {
    printJaxDtype(os, unranked.getElementType(), options.shortDtypes);
    os << "[*]";
  } else if (isScalarType(type)) {
    printJaxDtype(os, type, options.shortDtypes);
    os << "[]";
  } else {
    type.print(os);
    return;
  }
  if (sharding)
    printAnnotation(os, sharding, mesh, options);
}

std::string mlir::tessera::spmd::getJaxTypeString(
    Type type, TensorShardingAttr sharding, MeshAttr mesh,
    const JaxTypeOptions &options, ArrayRef<StringRef> symbolicDims) {
  std::string result;
  llvm::raw_string_ostream os(result);
  printJaxType(os, type, sharding, mesh, options, symbolicDims);
  return result;
}

/// The op whose ancestors decide the axis types `value` sees: its defining
/// op, or for a block argument an op of its block (so that the op owning the
/// region counts), or null for a detached block.
static Operation *getContextAnchor(Value value) {
  if (Operation *def = value.getDefiningOp())
    return def;
  Block *block = cast<BlockArgument>(value).getOwner();
  if (!block->empty())
    return &block->front();
  return block->getParentOp();
}

std::string
mlir::tessera::spmd::getJaxTypeString(Value value,
                                      const JaxTypeOptions &options) {
  return JaxTypePrinter(value.getContext(), options).getString(value);
}

//===----------------------------------------------------------------------===//
// PartitionSpecs
//===----------------------------------------------------------------------===//

/// Prints `s` as Python's repr of a str: single quotes unless the text holds
/// a single quote and no double quote.
static void printPythonString(llvm::raw_ostream &os, StringRef s) {
  char quote = (s.contains('\'') && !s.contains('"')) ? '"' : '\'';
  os << quote;
  for (char c : s) {
    if (c == quote || c == '\\')
      os << '\\';
    os << c;
  }
  os << quote;
}

/// Prints an axis as a PartitionSpec names it: `'x'`, or `'x:(2)4'`.
static void printAxisRepr(llvm::raw_ostream &os, AxisRefAttr ref) {
  if (!ref.getSubAxisInfo()) {
    printPythonString(os, ref.getName());
    return;
  }
  SmallString<32> text;
  llvm::raw_svector_ostream textOs(text);
  printAxisName(textOs, ref);
  printPythonString(os, text);
}

void mlir::tessera::spmd::printPartitionEntry(llvm::raw_ostream &os,
                                              ArrayRef<AxisRefAttr> axes,
                                              MeshAttr mesh,
                                              const JaxTypeOptions &options) {
  unsigned numVisible = countVisible(axes, mesh, options);
  if (numVisible == 0) {
    os << "None";
    return;
  }
  if (numVisible > 1)
    os << '(';
  bool first = true;
  for (AxisRefAttr ref : axes) {
    if (!isJaxVisibleAxis(ref, mesh, options))
      continue;
    if (!first)
      os << ", ";
    first = false;
    printAxisRepr(os, ref);
  }
  if (numVisible > 1)
    os << ')';
}

/// Prints the PartitionSpec entries of `sharding`, separated by `, `.
static void printPartitionEntries(llvm::raw_ostream &os,
                                  TensorShardingAttr sharding, MeshAttr mesh,
                                  const JaxTypeOptions &options) {
  llvm::interleave(
      sharding.getDimShardings(), os,
      [&](DimensionShardingAttr dim) {
        printPartitionEntry(os, dim.getAxes(), mesh, options);
      },
      ", ");
}

void mlir::tessera::spmd::printPartitionTuple(llvm::raw_ostream &os,
                                              TensorShardingAttr sharding,
                                              MeshAttr mesh,
                                              const JaxTypeOptions &options) {
  os << '(';
  printPartitionEntries(os, sharding, mesh, options);
  if (sharding.getRank() == 1)
    os << ',';
  os << ')';
}

void mlir::tessera::spmd::printPartitionSpec(llvm::raw_ostream &os,
                                             TensorShardingAttr sharding,
                                             MeshAttr mesh,
                                             const JaxTypeOptions &options) {
  SmallVector<AxisRefAttr, 4> unreduced =
      getVisibleUnreduced(sharding, mesh, options);
  SmallVector<AxisRefAttr, 4> reduced =
      getVisibleReduced(sharding, mesh, options);
  os << "P(";
  printPartitionEntries(os, sharding, mesh, options);
  if (unreduced.empty() && reduced.empty()) {
    // Python's repr of a 1-tuple keeps its trailing comma: `P('x',)`.
    if (sharding.getRank() == 1)
      os << ',';
    os << ')';
    return;
  }
  if (sharding.getRank() != 0)
    os << ", ";
  auto printSet = [&](StringRef name, ArrayRef<AxisRefAttr> axes) {
    os << name << "={";
    llvm::interleave(
        axes, os, [&](AxisRefAttr ref) { printAxisRepr(os, ref); }, ", ");
    os << '}';
  };
  if (!unreduced.empty())
    printSet("unreduced", unreduced);
  if (!unreduced.empty() && !reduced.empty())
    os << ", ";
  if (!reduced.empty())
    printSet("reduced", reduced);
  if (!unreduced.empty() && sharding.getUnreducedKind() != ReductionKind::Sum)
    os << ", unreduced_kind="
       << stringifyReductionKind(sharding.getUnreducedKind());
  os << ')';
}

std::string mlir::tessera::spmd::getPartitionSpecString(
    TensorShardingAttr sharding, MeshAttr mesh, const JaxTypeOptions &options) {
  std::string result;
  llvm::raw_string_ostream os(result);
  printPartitionSpec(os, sharding, mesh, options);
  return result;
}

//===----------------------------------------------------------------------===//
// JaxTypePrinter
//===----------------------------------------------------------------------===//

JaxTypePrinter::JaxTypePrinter(MLIRContext *context, JaxTypeOptions options,
                               SymbolicDimsFn symbolicDims)
    : options(options), symbolicDimsFn(std::move(symbolicDims)) {
  for (Dialect *dialect : context->getLoadedDialects())
    if (auto *iface =
            dialect->getRegisteredInterface<SymbolicDimsDialectInterface>())
      interfaces.push_back(iface);
}

JaxTypePrinter::~JaxTypePrinter() = default;

MeshAttr JaxTypePrinter::getMesh(TensorShardingAttr sharding, Value value) {
  if (!sharding)
    return {};
  Operation *anchor = getContextAnchor(value);
  if (!anchor)
    return sharding.getInlinedMesh();
  MeshAttr mesh = sharding.getInlinedMesh();
  if (!mesh) {
    FlatSymbolRefAttr name = sharding.getMeshSymName();
    auto meshOp =
        name ? symbolTables.lookupNearestSymbolFrom<MeshOp>(anchor, name)
             : MeshOp();
    if (!meshOp)
      return {};
    mesh = meshOp.getMesh();
  }
  // The axis types depend only on the ancestors of `anchor`.
  auto [it, inserted] =
      contextMeshes.try_emplace({anchor->getParentOp(), mesh}, MeshAttr());
  if (inserted)
    it->second = getMeshWithAxisTypesAt(anchor, mesh);
  return it->second;
}

void JaxTypePrinter::collectSymbolicDims(Value value) {
  dimScratch.clear();
  if (symbolicDimsFn && symbolicDimsFn(value, dimScratch))
    return;
  for (const SymbolicDimsDialectInterface *iface : interfaces) {
    dimScratch.clear();
    if (iface->getSymbolicDims(value, dimScratch))
      return;
  }
  dimScratch.clear();
}

void JaxTypePrinter::print(llvm::raw_ostream &os, Value value) {
  Type type = value.getType();
  TensorShardingAttr sharding = getSharding(value);
  MeshAttr mesh = getMesh(sharding, value);
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (ranked && !ranked.hasStaticShape()) {
    collectSymbolicDims(value);
    printJaxType(os, type, sharding, mesh, options, dimScratch);
    return;
  }
  printJaxType(os, type, sharding, mesh, options);
}

std::string JaxTypePrinter::getString(Value value) {
  std::string result;
  llvm::raw_string_ostream os(result);
  print(os, value);
  return result;
}
