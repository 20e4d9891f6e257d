//===- PolyShapeRules.cpp - JAX's shape rules on symbolic shapes ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/IR/PolyShapeRules.h"
#include "tessera/SymbolicShape/Decision.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimError;

bool poly::definitelyEqual(const DimExpr &lhs, const DimExpr &rhs) {
  return lhs.isIdenticalTo(rhs) || symbolic::definitelyEqual(lhs, rhs);
}

bool poly::definitelyEqualShapes(ArrayRef<DimExpr> lhs, ArrayRef<DimExpr> rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip_equal(lhs, rhs))
    if (!definitelyEqual(l, r))
      return false;
  return true;
}

std::string poly::formatShapes(ArrayRef<ArrayRef<DimExpr>> shapes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shapes, os,
      [&](ArrayRef<DimExpr> shape) { os << symbolic::formatShape(shape); },
      ", ");
  return s;
}

DimResult<Shape> poly::broadcastShapes(StringRef name,
                                       ArrayRef<ArrayRef<DimExpr>> shapes) {
  SmallVector<ArrayRef<DimExpr>> nonScalar;
  for (ArrayRef<DimExpr> shape : shapes)
    if (!shape.empty())
      nonScalar.push_back(shape);
  if (nonScalar.empty())
    return Shape();
  for (ArrayRef<DimExpr> shape : nonScalar)
    if (shape.size() != nonScalar.front().size())
      return DimError::value(name +
                             ": arrays must have same number of dimensions, "
                             "got " +
                             formatShapes(nonScalar) + ".");
  Shape result;
  for (size_t i = 0, rank = nonScalar.front().size(); i < rank; ++i) {
    const DimExpr &first = nonScalar.front()[i];
    if (llvm::all_of(nonScalar, [&](ArrayRef<DimExpr> s) {
          return s[i].isIdenticalTo(first);
        })) {
      result.push_back(first);
      continue;
    }
    SmallVector<DimExpr> nonOnes;
    for (ArrayRef<DimExpr> shape : nonScalar)
      if (!definitelyEqual(shape[i], DimExpr(1)))
        nonOnes.push_back(shape[i]);
    if (nonOnes.empty()) {
      result.push_back(DimExpr(1));
      continue;
    }
    if (!llvm::all_of(nonOnes, [&](const DimExpr &d) {
          return definitelyEqual(nonOnes.front(), d);
        }))
      return DimError::value(name +
                             " got incompatible shapes for broadcasting: " +
                             formatShapes(nonScalar) + ".");
    result.push_back(nonOnes.front());
  }
  return result;
}

DimStatus poly::checkDotGeneral(ArrayRef<DimExpr> lhsBatch,
                                ArrayRef<DimExpr> rhsBatch,
                                ArrayRef<DimExpr> lhsContracting,
                                ArrayRef<DimExpr> rhsContracting) {
  if (!definitelyEqualShapes(lhsBatch, rhsBatch))
    return DimError::value(
        "dot_general requires lhs batch dimensions and rhs batch dimensions "
        "to have the same shape, got " +
        symbolic::formatShape(lhsBatch) + " and " +
        symbolic::formatShape(rhsBatch) + ".");
  if (!definitelyEqualShapes(lhsContracting, rhsContracting))
    return DimError::value(
        "dot_general requires contracting dimensions to have the same shape, "
        "got " +
        symbolic::formatShape(lhsContracting) + " and " +
        symbolic::formatShape(rhsContracting) + ".");
  return DimStatus::success();
}

DimResult<DimExpr> poly::getNumElements(ArrayRef<DimExpr> shape) {
  DimResult<DimExpr> size = DimExpr(1);
  for (const DimExpr &d : shape)
    size = symbolic::mul(size, d);
  return size;
}

DimResult<DimExpr> poly::divideShapeSizes(ArrayRef<DimExpr> s1,
                                          ArrayRef<DimExpr> s2) {
  // JAX treats an empty shape as (1,).
  Shape one = {DimExpr(1)};
  ArrayRef<DimExpr> a = s1.empty() ? ArrayRef<DimExpr>(one) : s1;
  ArrayRef<DimExpr> b = s2.empty() ? ArrayRef<DimExpr>(one) : s2;
  DimResult<DimExpr> sz1 = getNumElements(a);
  if (!sz1)
    return sz1;
  DimResult<DimExpr> sz2 = getNumElements(b);
  if (!sz2)
    return sz2;
  if (definitelyEqual(*sz1, *sz2))
    return DimExpr(1);
  DimResult<std::pair<DimExpr, DimExpr>> qr = symbolic::divMod(*sz1, *sz2);
  if (!qr)
    return qr.getError();
  if (qr->second.getConstant() != std::optional<int64_t>(0))
    return DimError::inconclusive(
        "Cannot divide evenly the sizes of shapes " + symbolic::formatShape(a) +
        " and " + symbolic::formatShape(b) + ". The remainder " +
        qr->second.str() + " should be 0.");
  return qr->first;
}

DimResult<Shape> poly::computeReshapeShape(ArrayRef<DimExpr> operand,
                                           ArrayRef<DimExpr> newShape) {
  SmallVector<unsigned> minusOnes;
  for (auto [i, d] : llvm::enumerate(newShape))
    if (d.getConstant() == std::optional<int64_t>(-1))
      minusOnes.push_back(i);
  if (minusOnes.size() > 1)
    return DimError::value("can only specify one unknown axis size with a "
                           "`-1` value, got " +
                           symbolic::formatShape(newShape));
  Shape result(newShape.begin(), newShape.end());
  if (minusOnes.empty()) {
    DimResult<DimExpr> oldSize = getNumElements(operand);
    if (!oldSize)
      return oldSize.getError();
    DimResult<DimExpr> newSize = getNumElements(newShape);
    if (!newSize)
      return newSize.getError();
    if (!definitelyEqual(*oldSize, *newSize))
      return DimError::value(
          "cannot reshape array of shape " + symbolic::formatShape(operand) +
          " (size " + oldSize->str() + ") into shape " +
          symbolic::formatShape(newShape) + " (size " + newSize->str() + ")");
    return result;
  }
  // jnp.reshape's check when the sizes are integers (and, in Tessera, when
  // the other sizes multiply to 0, which no size can be divided by).
  Shape others;
  for (auto [i, d] : llvm::enumerate(newShape))
    if (i != minusOnes.front())
      others.push_back(d);
  DimResult<DimExpr> oldSize = getNumElements(operand);
  if (!oldSize)
    return oldSize.getError();
  DimResult<DimExpr> othersSize = getNumElements(others);
  if (!othersSize)
    return othersSize.getError();
  std::optional<int64_t> divisor = othersSize->getConstant();
  std::optional<int64_t> dividend = oldSize->getConstant();
  if (divisor && (*divisor == 0 || (dividend && *dividend % *divisor != 0)))
    return DimError::value(
        "cannot reshape array of shape " + symbolic::formatShape(operand) +
        " (size " + oldSize->str() + ") into shape " +
        symbolic::formatShape(newShape) +
        " because the product of specified axis sizes (" + othersSize->str() +
        ") does not evenly divide " + oldSize->str());
  // JAX divides by the size of the new shape *with* the -1 and negates.
  DimResult<DimExpr> q = divideShapeSizes(operand, newShape);
  if (!q)
    return q.getError();
  DimResult<DimExpr> size = symbolic::neg(*q);
  if (!size)
    return size.getError();
  result[minusOnes.front()] = *size;
  return result;
}

DimStatus poly::checkSliceBounds(ArrayRef<DimExpr> operand,
                                 ArrayRef<DimExpr> startIndices,
                                 ArrayRef<DimExpr> limitIndices) {
  for (auto [dim, limit] : llvm::zip_equal(operand, limitIndices)) {
    DimResult<bool> fits = symbolic::geq(dim, limit);
    if (!fits)
      return fits.getError();
    if (!*fits)
      return DimError::value(
          "slice limit_indices must be less than or equal to operand shape, "
          "got limit_indices " +
          symbolic::formatShape(limitIndices) + " for operand shape " +
          symbolic::formatShape(operand) + ".");
  }
  for (const DimExpr &start : startIndices) {
    DimResult<bool> nonNegative = symbolic::geq(start, DimExpr(0));
    if (!nonNegative)
      return nonNegative.getError();
    if (!*nonNegative)
      return DimError::value("slice start_indices must be greater than or "
                             "equal to zero, got start_indices of " +
                             symbolic::formatShape(startIndices) + ".");
  }
  for (auto [start, limit] : llvm::zip_equal(startIndices, limitIndices)) {
    DimResult<bool> ordered = symbolic::geq(limit, start);
    if (!ordered)
      return ordered.getError();
    if (!*ordered)
      return DimError::value(
          "slice limit_indices must be greater than or equal to "
          "start_indices, got start_indices " +
          symbolic::formatShape(startIndices) + " and limit_indices " +
          symbolic::formatShape(limitIndices) + ".");
  }
  return DimStatus::success();
}

DimStatus poly::checkSliceStrides(ArrayRef<DimExpr> strides) {
  for (const DimExpr &stride : strides) {
    DimResult<bool> positive = symbolic::geq(stride, DimExpr(1));
    if (!positive)
      return positive.getError();
    if (!*positive)
      return DimError::value("slice strides must be positive, got " +
                             symbolic::formatShape(strides));
  }
  return DimStatus::success();
}

DimStatus poly::checkUpdateFits(ArrayRef<DimExpr> update,
                                ArrayRef<DimExpr> operand) {
  for (auto [u, o] : llvm::zip_equal(update, operand)) {
    DimResult<bool> fits = symbolic::geq(o, u);
    if (!fits)
      return fits.getError();
    if (!*fits)
      return DimError::value("dynamic_update_slice update shape must be "
                             "smaller than operand shape, got update shape " +
                             symbolic::formatShape(update) +
                             " for operand shape " +
                             symbolic::formatShape(operand) + ".");
  }
  return DimStatus::success();
}

DimResult<Shape> poly::padShape(ArrayRef<DimExpr> operand,
                                ArrayRef<DimExpr> low, ArrayRef<DimExpr> high) {
  Shape result;
  for (auto [d, lo, hi] : llvm::zip_equal(operand, low, high)) {
    DimResult<DimExpr> size = symbolic::add(symbolic::add(lo, d), hi);
    if (!size)
      return size.getError();
    result.push_back(*size);
  }
  for (const DimExpr &d : result) {
    DimResult<bool> nonNegative = symbolic::geq(d, DimExpr(0));
    if (!nonNegative)
      return nonNegative.getError();
    if (*nonNegative)
      continue;
    SmallVector<std::string> entries;
    for (auto [lo, hi] : llvm::zip_equal(low, high))
      entries.push_back("(" + lo.str() + ", " + hi.str() + ", 0)");
    std::string config =
        "(" + llvm::join(entries, ", ") + (entries.size() == 1 ? ",)" : ")");
    return DimError::value(
        "Dimension size after padding is not at least 0, got result shape " +
        symbolic::formatShape(result) + ", for padding_config " + config +
        " and operand shape " + symbolic::formatShape(operand));
  }
  return result;
}

DimResult<Shape> poly::concatenateShapes(ArrayRef<ArrayRef<DimExpr>> shapes,
                                         unsigned dimension) {
  assert(!shapes.empty() && "concatenate needs an operand");
  ArrayRef<DimExpr> first = shapes.front();
  for (ArrayRef<DimExpr> shape : shapes) {
    bool same = shape.size() == first.size();
    for (size_t i = 0; same && i < shape.size(); ++i)
      if (i != dimension && !definitelyEqual(shape[i], first[i]))
        same = false;
    if (!same)
      return DimError::value(
          "Cannot concatenate arrays with shapes that differ in dimensions "
          "other than the one being concatenated: concatenating along "
          "dimension " +
          Twine(dimension) + " for shapes " + formatShapes(shapes) + ".");
  }
  Shape result(first.begin(), first.end());
  DimResult<DimExpr> sum = DimExpr(0);
  for (ArrayRef<DimExpr> shape : shapes)
    sum = symbolic::add(sum, shape[dimension]);
  if (!sum)
    return sum.getError();
  result[dimension] = *sum;
  return result;
}

/// JAX's dtype name of `type` (numpy's: `float32`, `int32`, `bool`).
static std::string jaxDtypeName(Type type) {
  if (type.isIndex())
    return "int64";
  if (type.isInteger(1))
    return "bool";
  if (auto integer = dyn_cast<IntegerType>(type))
    return ((integer.isUnsigned() ? "uint" : "int") + Twine(integer.getWidth()))
        .str();
  if (type.isBF16())
    return "bfloat16";
  if (auto flt = dyn_cast<FloatType>(type))
    return ("float" + Twine(flt.getWidth())).str();
  if (auto complex = dyn_cast<ComplexType>(type))
    if (auto elt = dyn_cast<FloatType>(complex.getElementType()))
      return ("complex" + Twine(2 * elt.getWidth())).str();
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string poly::formatJaxAval(Type elementType, ArrayRef<DimExpr> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << jaxDtypeName(elementType) << "[";
  llvm::interleave(
      shape, os, [&](const DimExpr &d) { d.print(os); }, ",");
  os << "]";
  return s;
}

/// Joins JAX's per-difference sentences: one capitalized sentence, or a
/// bulleted list.
static std::string joinDifferences(ArrayRef<std::string> diffs) {
  std::string s;
  if (diffs.size() == 1) {
    s = diffs.front();
    s[0] = llvm::toUpper(s[0]);
    return s + ".\n";
  }
  for (auto [i, d] : llvm::enumerate(diffs))
    s += "  * " + d + (i + 1 == diffs.size() ? ".\n" : ";\n\n");
  return s;
}

std::string poly::formatCarryMismatch(StringRef name,
                                      ArrayRef<TypeMismatch> mismatches) {
  SmallVector<std::string> diffs;
  for (const TypeMismatch &m : mismatches)
    diffs.push_back(("the input carry at path [" + Twine(m.index) +
                     "] has type " + m.first +
                     " but the corresponding output carry component has "
                     "type " +
                     m.second)
                        .str());
  return (name +
          " function carry input and carry output must have equal types, "
          "but they differ:\n\n" +
          joinDifferences(diffs) +
          "\nRevise the function so that all output types match the "
          "corresponding input types.")
      .str();
}

std::string poly::formatBranchMismatch(StringRef name, StringRef first,
                                       StringRef second,
                                       ArrayRef<TypeMismatch> mismatches) {
  SmallVector<std::string> diffs;
  for (const TypeMismatch &m : mismatches)
    diffs.push_back(("the output of " + first + " at path [" + Twine(m.index) +
                     "] has type " + m.first +
                     " but the corresponding output of " + second +
                     " has type " + m.second)
                        .str());
  return (name + " branches must have equal output types but they differ.\n\n" +
          joinDifferences(diffs) + "\nRevise " + first + " and/or " + second +
          " so that all output types match.")
      .str();
}
