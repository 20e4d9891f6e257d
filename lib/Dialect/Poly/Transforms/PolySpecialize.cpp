//===- PolySpecialize.cpp - replace symbolic dimensions by values ---------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The `poly-specialize` pass: a polymorphic program made static, as JAX's
// `Exported.call` does for concrete arguments. After `poly-infer`, every
// dynamic tensor of an analyzed function has a symbolic shape and every
// symbolic index value a symbolic value; under concrete values of the
// dimension variables they are a static type and a constant. The pass
//
// 1. finds the values of the dimension variables of the polymorphic entry
//    points (`bindings` or `arg-shapes`, checked with JAX's messages);
// 2. rewrites each specialized function in place: constants for the
//    annotated index values, the static type of every tensor value (function
//    arguments and results, op results, region arguments), calls redirected
//    to per-call-site clones of their polymorphic callees (which are
//    specialized in turn);
// 3. isolates, behind `tensor.cast`s, the ops that do not accept their static
//    types as they are (those whose sizes are operands: `tensor.empty`,
//    slices, `pad`, `expand_shape`, ...), and lets the upstream
//    canonicalization patterns give them static types;
// 4. discharges the shape assertions that became constant, checks that
//    nothing is left dynamic, and removes the `poly.*` annotations.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Transforms/Passes.h"

#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/Dialect/Poly/IR/PolyOps.h"
#include "tessera/Dialect/Poly/IR/PolyUtils.h"
#include "tessera/Dialect/Poly/Transforms/FunctionShapes.h"
#include "tessera/Dialect/Poly/Transforms/Patterns.h"
#include "tessera/SymbolicShape/Evaluate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"

#include <deque>
#include <map>

namespace mlir::tessera::poly {
#define GEN_PASS_DEF_POLYSPECIALIZEPASS
#include "tessera/Dialect/Poly/Transforms/Passes.h.inc"
} // namespace mlir::tessera::poly

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimExpr;
using symbolic::DimResult;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// True for a Python identifier (a dimension variable name).
static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name.drop_front(),
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Parses `b=3,d=2` (spaces allowed around items, names and values).
static FailureOr<std::vector<std::pair<std::string, int64_t>>>
parseBindings(StringRef text, std::string &error) {
  std::vector<std::pair<std::string, int64_t>> bindings;
  if (text.trim().empty())
    return bindings;
  SmallVector<StringRef> items;
  text.split(items, ',');
  for (StringRef item : items) {
    auto [name, value] = item.split('=');
    name = name.trim();
    value = value.trim();
    int64_t number;
    if (!item.contains('=') || !isIdentifier(name) ||
        value.getAsInteger(10, number)) {
      error = ("invalid bindings '" + text +
               "': expected 'name=value' items "
               "separated by commas, such as 'b=3,d=2', got '" +
               item.trim() + "'")
                  .str();
      return failure();
    }
    for (const auto &[other, otherValue] : bindings)
      if (other == name) {
        error =
            ("invalid bindings '" + text + "': two values for '" + name + "'")
                .str();
        return failure();
      }
    bindings.push_back({name.str(), number});
  }
  return bindings;
}

/// Parses `3x3x5,4x2`: one shape per item, sizes separated by `x`; an empty
/// item is a rank-0 shape and the empty text has no shapes.
static FailureOr<std::vector<symbolic::ConcreteShape>>
parseArgShapes(StringRef text, std::string &error) {
  std::vector<symbolic::ConcreteShape> shapes;
  if (text.trim().empty())
    return shapes;
  SmallVector<StringRef> items;
  text.split(items, ',');
  for (StringRef item : items) {
    symbolic::ConcreteShape shape;
    item = item.trim();
    if (!item.empty()) {
      SmallVector<StringRef> sizes;
      item.split(sizes, 'x');
      for (StringRef size : sizes) {
        int64_t value;
        if (size.trim().getAsInteger(10, value) || value < 0) {
          error = ("invalid arg-shapes '" + text +
                   "': expected one shape "
                   "per argument with 'poly.shape', non-negative sizes "
                   "separated by 'x' and shapes by ',', such as "
                   "'3x3x5,4x2', got '" +
                   item + "'")
                      .str();
          return failure();
        }
        shape.push_back(value);
      }
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

/// Python's repr of a list of names: `['b', 'd']`.
static std::string formatNames(ArrayRef<std::string> names) {
  std::string s = "[";
  for (auto [i, name] : llvm::enumerate(names)) {
    if (i)
      s += ", ";
    s += "'" + name + "'";
  }
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// True for a shaped type with a dynamic dimension or no rank.
static bool isDynamic(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && !shaped.hasStaticShape();
}

/// True if `func`'s signature has a dynamic type.
static bool hasDynamicSignature(FunctionOpInterface func) {
  return llvm::any_of(func.getArgumentTypes(), isDynamic) ||
         llvm::any_of(func.getResultTypes(), isDynamic);
}

/// The concrete shape of a call operand of (static) type `type`.
static symbolic::ConcreteShape getConcreteShape(Type type) {
  symbolic::ConcreteShape shape;
  if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank())
    shape.assign(shaped.getShape().begin(), shaped.getShape().end());
  return shape;
}

/// `b=3, d=2` for messages.
static std::string formatBindings(const symbolic::DimBindings &bindings) {
  std::vector<std::string> items;
  for (const auto &entry : bindings)
    items.push_back((entry.getKey() + "=" + Twine(entry.getValue())).str());
  llvm::sort(items);
  return llvm::join(items, ", ");
}

//===----------------------------------------------------------------------===//
// Specializer
//===----------------------------------------------------------------------===//

namespace {

/// A function to specialize and the values of its dimension variables.
struct WorkItem {
  FunctionOpInterface func;
  symbolic::DimBindings bindings;
};

/// The specialization of one module.
class Specializer {
public:
  Specializer(ModuleOp module, const FrozenRewritePatternSet &patterns)
      : module(module), patterns(patterns) {}

  /// Specializes the module; `bindingsText` / `argShapesText` are the
  /// options, null when not given.
  LogicalResult run(const std::string *bindingsText,
                    const std::string *argShapesText);

private:
  // Entry points and their bindings.
  void collectFunctions();
  bool reachesPolymorphic(FunctionOpInterface func);
  LogicalResult
  bindRoots(ArrayRef<FunctionOpInterface> roots,
            const std::vector<std::pair<std::string, int64_t>> *bindings,
            const std::vector<symbolic::ConcreteShape> *argShapes);
  FailureOr<symbolic::DimBindings>
  bindFromValues(FunctionOpInterface func, const FunctionShapes &shapes,
                 const std::vector<std::pair<std::string, int64_t>> &values);
  FailureOr<symbolic::DimBindings>
  bindFromShapes(Operation *where, const FunctionShapes &shapes,
                 ArrayRef<symbolic::ConcreteShape> concrete);
  FailureOr<const FunctionShapes *> getShapes(FunctionOpInterface func);

  // One function.
  LogicalResult specialize(const WorkItem &item);
  FailureOr<Type> getStaticType(Value value, Operation *where,
                                const Twine &what,
                                const symbolic::DimBindings &bindings,
                                SymbolicShapeReader &reader);
  FailureOr<FunctionOpInterface>
  getSpecializedCallee(CallOpInterface call, FunctionOpInterface callee,
                       ArrayRef<Type> operands);
  LogicalResult verifyOrIsolate(FunctionOpInterface func,
                                DenseMap<Value, Type> &originalTypes);
  LogicalResult finish(FunctionOpInterface func);

  ModuleOp module;
  const FrozenRewritePatternSet &patterns;
  ScopeCache scopes;
  SymbolTableCollection symbolTables;
  /// The top-level functions, in module order, and their direct callees.
  SmallVector<FunctionOpInterface> functions;
  DenseMap<Operation *, SmallVector<FunctionOpInterface>> callees;
  DenseMap<Operation *, bool> reachesPolymorphicCache;
  /// The parsed specs and solution of each function (null: failed).
  DenseMap<Operation *, std::unique_ptr<FunctionShapes>> shapesCache;
  /// The clone of a callee for given variable values.
  std::map<std::pair<Operation *, std::string>, FunctionOpInterface> clones;
  /// The last clone of each callee.
  DenseMap<Operation *, Operation *> lastClone;
  std::deque<WorkItem> worklist;
  SmallVector<FunctionOpInterface> specialized;
  /// The callees whose calls were redirected to clones (null once erased).
  SmallVector<Operation *> redirectedCallees;
};

} // namespace

//===----------------------------------------------------------------------===//
// Entry points and their bindings
//===----------------------------------------------------------------------===//

void Specializer::collectFunctions() {
  for (auto func : module.getOps<FunctionOpInterface>())
    functions.push_back(func);
  for (FunctionOpInterface func : functions) {
    SmallVector<FunctionOpInterface> &direct = callees[func];
    func->walk([&](CallOpInterface call) {
      auto callee = dyn_cast_if_present<FunctionOpInterface>(
          call.resolveCallableInTable(&symbolTables));
      if (callee && !llvm::is_contained(direct, callee))
        direct.push_back(callee);
    });
  }
}

bool Specializer::reachesPolymorphic(FunctionOpInterface func) {
  // Iterative search over the call graph (poly-infer rejects recursion, but
  // the search must terminate on any module).
  auto it = reachesPolymorphicCache.find(func);
  if (it != reachesPolymorphicCache.end())
    return it->second;
  DenseSet<Operation *> visited;
  SmallVector<FunctionOpInterface> stack;
  for (FunctionOpInterface callee : callees.lookup(func))
    stack.push_back(callee);
  bool found = false;
  while (!stack.empty() && !found) {
    FunctionOpInterface next = stack.pop_back_val();
    if (!visited.insert(next).second)
      continue;
    if (hasArgumentSpecs(next)) {
      found = true;
      break;
    }
    for (FunctionOpInterface callee : callees.lookup(next))
      stack.push_back(callee);
  }
  reachesPolymorphicCache[func] = found;
  return found;
}

FailureOr<const FunctionShapes *>
Specializer::getShapes(FunctionOpInterface func) {
  auto [it, inserted] = shapesCache.try_emplace(func);
  if (inserted) {
    FailureOr<FunctionShapes> shapes = solveFunctionShapes(func, scopes);
    if (succeeded(shapes))
      it->second = std::make_unique<FunctionShapes>(std::move(*shapes));
  }
  if (!it->second)
    return failure();
  return it->second.get();
}

FailureOr<symbolic::DimBindings>
Specializer::bindFromShapes(Operation *where, const FunctionShapes &shapes,
                            ArrayRef<symbolic::ConcreteShape> concrete) {
  symbolic::DimBindings bindings;
  if (!shapes.solution)
    return bindings;
  DimResult<std::vector<std::pair<std::string, int64_t>>> values =
      shapes.solution->checkConcreteShapes(concrete);
  if (!values)
    return where->emitOpError() << values.getError().getMessage();
  for (const auto &[name, value] : *values)
    bindings[name] = value;
  return bindings;
}

FailureOr<symbolic::DimBindings> Specializer::bindFromValues(
    FunctionOpInterface func, const FunctionShapes &shapes,
    const std::vector<std::pair<std::string, int64_t>> &values) {
  symbolic::DimBindings bindings;
  if (!shapes.solution)
    return bindings;
  SmallVector<std::string> vars = shapes.solution->getDimVars();
  for (const std::string &var : vars) {
    auto it =
        llvm::find_if(values, [&](const auto &v) { return v.first == var; });
    if (it == values.end())
      return func->emitOpError("bindings give no value for the dimension "
                               "variable '")
             << var << "' (the dimension variables are " << formatNames(vars)
             << ")";
    bindings[var] = it->second;
  }
  // The argument shapes the values imply, checked as `Exported.call` checks
  // concrete arguments: JAX's messages for a value < 1, a violated
  // constraint, an inconsistent specification.
  SmallVector<symbolic::ConcreteShape> concrete;
  for (const symbolic::ArgShapeSpec &arg : shapes.args) {
    symbolic::ConcreteShape shape;
    for (const DimExpr &dim : arg.shape) {
      DimResult<int64_t> size = symbolic::evaluate(dim, bindings);
      if (!size)
        return func->emitOpError() << size.getError().getMessage();
      shape.push_back(*size);
    }
    concrete.push_back(std::move(shape));
  }
  FailureOr<symbolic::DimBindings> solved =
      bindFromShapes(func, shapes, concrete);
  if (failed(solved))
    return failure();
  for (auto [i, arg] : llvm::enumerate(shapes.args))
    for (auto [j, dim] : llvm::enumerate(arg.shape))
      if (concrete[i][j] < 0)
        return func->emitOpError("with the bindings ")
               << formatBindings(bindings) << ", dimension " << j << " of "
               << arg.name << " ('" << dim.str() << "') has the negative size "
               << concrete[i][j];
  return bindings;
}

LogicalResult Specializer::bindRoots(
    ArrayRef<FunctionOpInterface> roots,
    const std::vector<std::pair<std::string, int64_t>> *bindings,
    const std::vector<symbolic::ConcreteShape> *argShapes) {
  if (bindings) {
    // Every name must be a variable of some entry point.
    SmallVector<std::string> known;
    for (FunctionOpInterface root : roots) {
      FailureOr<const FunctionShapes *> shapes = getShapes(root);
      if (failed(shapes))
        return failure();
      if ((*shapes)->solution)
        for (const std::string &var : (*shapes)->solution->getDimVars())
          if (!llvm::is_contained(known, var))
            known.push_back(var);
    }
    for (const auto &[name, value] : *bindings) {
      if (llvm::is_contained(known, name))
        continue;
      Operation *where = module;
      if (roots.size() == 1)
        where = roots.front();
      return where->emitOpError("bindings - ")
             << symbolic::formatUnexpectedDimVar(name, known);
    }
  }
  if (argShapes && roots.size() != 1) {
    InFlightDiagnostic diag = module.emitError(
        "poly-specialize: 'arg-shapes' needs exactly one polymorphic entry "
        "point, found ");
    diag << roots.size();
    for (FunctionOpInterface root : roots)
      diag.attachNote(root.getLoc()) << "polymorphic entry point";
    return failure();
  }
  for (FunctionOpInterface root : roots) {
    FailureOr<const FunctionShapes *> shapes = getShapes(root);
    if (failed(shapes))
      return failure();
    FailureOr<symbolic::DimBindings> rootBindings;
    if (bindings) {
      rootBindings = bindFromValues(root, **shapes, *bindings);
    } else {
      // One shape per argument with a spec, in order.
      unsigned numSpecs = llvm::count((*shapes)->hasSpec, true);
      if (argShapes->size() != numSpecs)
        return root->emitOpError("arg-shapes gives ")
               << argShapes->size() << " shapes, but the function has "
               << numSpecs << " arguments with 'poly.shape'";
      SmallVector<symbolic::ConcreteShape> concrete;
      unsigned next = 0;
      for (auto [i, arg] : llvm::enumerate((*shapes)->args)) {
        if ((*shapes)->hasSpec[i]) {
          concrete.push_back((*argShapes)[next++]);
          continue;
        }
        symbolic::ConcreteShape shape;
        for (const DimExpr &dim : arg.shape)
          shape.push_back(*dim.getConstant());
        concrete.push_back(std::move(shape));
      }
      rootBindings = bindFromShapes(root, **shapes, concrete);
    }
    if (failed(rootBindings))
      return failure();
    worklist.push_back({root, std::move(*rootBindings)});
  }
  return success();
}

//===----------------------------------------------------------------------===//
// One function
//===----------------------------------------------------------------------===//

FailureOr<Type>
Specializer::getStaticType(Value value, Operation *where, const Twine &what,
                           const symbolic::DimBindings &bindings,
                           SymbolicShapeReader &reader) {
  Type type = value.getType();
  if (!isDynamic(type))
    return type;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return where->emitOpError("not supported by poly-specialize: ")
           << what << " has the type " << type
           << " (only ranked tensors are specialized)";
  DimResult<SmallVector<DimExpr>> shape = reader.getShape(value);
  if (!shape)
    return where->emitOpError("poly-specialize cannot make ")
           << what << " static: " << shape.getError().getMessage();
  SmallVector<int64_t> sizes;
  for (auto [d, dim] : llvm::enumerate(*shape)) {
    DimResult<int64_t> size = symbolic::evaluate(dim, bindings);
    if (!size)
      return where->emitOpError() << size.getError().getMessage();
    if (*size < 0)
      return where->emitOpError("with the bindings ")
             << formatBindings(bindings) << ", dimension " << d << " of "
             << what << " ('" << dim.str() << "') has the negative size "
             << *size;
    sizes.push_back(*size);
  }
  return RankedTensorType::get(sizes, tensor.getElementType(),
                               tensor.getEncoding());
}

FailureOr<FunctionOpInterface> Specializer::getSpecializedCallee(
    CallOpInterface call, FunctionOpInterface callee, ArrayRef<Type> operands) {
  StringRef calleeName = SymbolTable::getSymbolName(callee).getValue();
  if (callee.isExternal())
    return call->emitOpError("not supported by poly-specialize: @")
           << calleeName
           << " is a declaration, so its dynamic signature cannot be "
              "specialized";
  FailureOr<const FunctionShapes *> shapes = getShapes(callee);
  if (failed(shapes))
    return failure();
  SmallVector<symbolic::ConcreteShape> concrete;
  for (Type type : operands)
    concrete.push_back(getConcreteShape(type));
  FailureOr<symbolic::DimBindings> bindings =
      bindFromShapes(call, **shapes, concrete);
  if (failed(bindings))
    return failure();

  // `@f_b3_d2`, variables sorted by name; `@f_static` without variables.
  std::vector<std::pair<std::string, int64_t>> sorted;
  for (const auto &entry : *bindings)
    sorted.push_back({entry.getKey().str(), entry.getValue()});
  llvm::sort(sorted);
  std::string suffix;
  for (const auto &[name, value] : sorted)
    suffix += "_" + name + std::to_string(value);
  if (suffix.empty())
    suffix = "_static";
  auto [it, inserted] = clones.try_emplace({callee, suffix});
  if (!inserted)
    return it->second;

  auto clone = cast<FunctionOpInterface>(callee->clone());
  SymbolTable::setSymbolName(clone, (calleeName + suffix).str());
  SymbolTable::setSymbolVisibility(clone, SymbolTable::Visibility::Private);
  // After the callee and its earlier clones, in creation order.
  Operation *&previous = lastClone[callee];
  SymbolTable &table = symbolTables.getSymbolTable(module);
  table.insert(clone, std::next(Block::iterator(
                          previous ? previous : callee.getOperation())));
  previous = clone;
  it->second = clone;
  worklist.push_back({clone, std::move(*bindings)});
  return clone;
}

LogicalResult Specializer::specialize(const WorkItem &item) {
  FunctionOpInterface func = item.func;
  const symbolic::DimBindings &bindings = item.bindings;
  SymbolicShapeReader reader(scopes);
  Region &body = func.getFunctionBody();

  // 1. Compute everything from the annotations before changing anything.
  DenseMap<Value, Type> staticTypes;
  auto record = [&](Value value, Operation *where,
                    const Twine &what) -> LogicalResult {
    if (!isDynamic(value.getType()))
      return success();
    FailureOr<Type> type = getStaticType(value, where, what, bindings, reader);
    if (failed(type))
      return failure();
    staticTypes[value] = *type;
    return success();
  };
  for (BlockArgument arg : body.getArguments())
    if (failed(record(arg, func, "arg " + Twine(arg.getArgNumber()))))
      return failure();
  SmallVector<std::pair<OpResult, int64_t>> constants;
  SmallVector<std::pair<CallOpInterface, FunctionOpInterface>> calls;
  WalkResult walk = body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (OpResult result : op->getResults()) {
      if (failed(
              record(result, op, "result #" + Twine(result.getResultNumber()))))
        return WalkResult::interrupt();
      if (!getValueAnnotation(result))
        continue;
      std::optional<DimExpr> expr = reader.getValue(result);
      if (!expr) {
        op->emitOpError("poly-specialize cannot read the 'poly.value' of "
                        "result #")
            << result.getResultNumber();
        return WalkResult::interrupt();
      }
      DimResult<int64_t> value = symbolic::evaluate(*expr, bindings);
      if (!value) {
        op->emitOpError() << value.getError().getMessage();
        return WalkResult::interrupt();
      }
      constants.push_back({result, *value});
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(record(arg, op,
                            "argument #" + Twine(arg.getArgNumber()) +
                                " of region #" +
                                Twine(region.getRegionNumber()))))
            return WalkResult::interrupt();
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      auto callee = dyn_cast_if_present<FunctionOpInterface>(
          call.resolveCallableInTable(&symbolTables));
      if (callee && hasDynamicSignature(callee))
        calls.push_back({call, callee});
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // Calls: the callee specialized for the static operand types.
  SmallVector<std::pair<CallOpInterface, FunctionOpInterface>> redirects;
  for (auto [call, callee] : calls) {
    SmallVector<Type> operandTypes;
    for (Value operand : call.getArgOperands())
      operandTypes.push_back(staticTypes.lookup(operand)
                                 ? staticTypes.lookup(operand)
                                 : operand.getType());
    FailureOr<FunctionOpInterface> clone =
        getSpecializedCallee(call, callee, operandTypes);
    if (failed(clone))
      return failure();
    redirects.push_back({call, *clone});
    if (!llvm::is_contained(redirectedCallees, callee.getOperation()))
      redirectedCallees.push_back(callee);
  }

  // 2. Rewrite: constants, static types, callees, the signature.
  OpBuilder builder(func->getContext());
  for (auto [result, value] : constants) {
    builder.setInsertionPoint(result.getOwner());
    Type type = result.getType();
    unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    if (!llvm::isIntN(width, value) && !llvm::isUIntN(width, value))
      return result.getOwner()->emitOpError("the value ")
             << value << " of result #" << result.getResultNumber()
             << " does not fit in " << type;
    Value constant = arith::ConstantOp::create(
        builder, result.getLoc(), type, builder.getIntegerAttr(type, value));
    result.replaceAllUsesWith(constant);
  }
  DenseMap<Value, Type> originalTypes;
  for (auto [value, type] : staticTypes) {
    originalTypes[value] = value.getType();
    value.setType(type);
  }
  for (auto [call, clone] : redirects)
    call.setCalleeFromCallable(SymbolRefAttr::get(
        func->getContext(), SymbolTable::getSymbolName(clone).getValue()));
  SmallVector<Type> resultTypes;
  bool haveResults = false;
  for (Block &block : body) {
    Operation *terminator = block.getTerminator();
    if (!terminator || !terminator->hasTrait<OpTrait::ReturnLike>())
      continue;
    SmallVector<Type> types(terminator->getOperandTypes());
    if (haveResults && types != resultTypes)
      return terminator->emitOpError(
          "poly-specialize: the returned types differ from the other "
          "returns of the function");
    resultTypes = std::move(types);
    haveResults = true;
  }
  if (!haveResults)
    resultTypes.assign(func.getResultTypes().begin(),
                       func.getResultTypes().end());
  func.setFunctionTypeAttr(
      TypeAttr::get(func.cloneTypeWith(body.getArgumentTypes(), resultTypes)));

  // The annotations describe the polymorphic program: drop them.
  func->removeAttr(PolyDialect::kConstraintsAttrName);
  func->removeAttr(PolyDialect::kAssertionsInsertedAttrName);
  StringAttr shapeName =
      StringAttr::get(func->getContext(), PolyDialect::kShapeAttrName);
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    func.removeArgAttr(i, shapeName);
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    func.removeResultAttr(i, shapeName);
  body.walk([](Operation *op) {
    op->removeAttr(PolyDialect::kShapeAttrName);
    op->removeAttr(PolyDialect::kValueAttrName);
  });

  // 3. Ops that do not accept their static types as they are.
  if (failed(verifyOrIsolate(func, originalTypes)))
    return failure();
  specialized.push_back(func);
  return success();
}

/// Verifies `op` alone (not its nested ops), capturing the first diagnostic.
static LogicalResult verifyQuietly(Operation *op, std::string &message) {
  ScopedDiagnosticHandler handler(op->getContext(), [&](Diagnostic &diag) {
    if (message.empty())
      message = diag.str();
    return success();
  });
  return verify(op, /*verifyRecursively=*/false);
}

/// True if `op` may hold a size in a constant index operand: a tensor result
/// became static, it takes a constant index operand, and its results are
/// not tied to values of its regions (e.g. `tensor.pad` with a constant
/// `high`, but not `scf.index_switch` on a constant).
static bool mayHoldConstantSize(Operation *op,
                                const DenseMap<Value, Type> &originalTypes) {
  if (isa<RegionBranchOpInterface>(op))
    return false;
  if (llvm::none_of(op->getResults(),
                    [&](Value result) { return originalTypes.count(result); }))
    return false;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (originalTypes.count(arg))
          return false;
  return llvm::any_of(op->getOperands(), [](Value operand) {
    return operand.getType().isIndex() && matchPattern(operand, m_Constant());
  });
}

LogicalResult
Specializer::verifyOrIsolate(FunctionOpInterface func,
                             DenseMap<Value, Type> &originalTypes) {
  SmallVector<Operation *> ops;
  func.getFunctionBody().walk([&](Operation *op) { ops.push_back(op); });
  OpBuilder builder(func->getContext());
  for (Operation *op : ops) {
    // An op that holds sizes in constant operands is isolated even when it
    // verifies, so that the canonicalization patterns fold the constants
    // into its static form.
    std::string message;
    if (!mayHoldConstantSize(op, originalTypes) &&
        succeeded(verifyQuietly(op, message)))
      continue;
    // Give the op its original result types back, behind casts that the
    // canonicalization patterns fold once the op is static; if it still does
    // not verify, its original operand types too.
    builder.setInsertionPointAfter(op);
    for (OpResult result : op->getResults()) {
      Type original = originalTypes.lookup(result);
      if (!original || !isa<RankedTensorType>(original))
        continue;
      Type staticType = result.getType();
      result.setType(original);
      auto cast =
          tensor::CastOp::create(builder, op->getLoc(), staticType, result);
      result.replaceAllUsesExcept(cast, cast);
      // The cast stands for the result: an isolated user casts it back.
      originalTypes[cast] = original;
    }
    std::string isolatedMessage;
    if (succeeded(verifyQuietly(op, isolatedMessage)))
      continue;
    builder.setInsertionPoint(op);
    for (OpOperand &operand : op->getOpOperands()) {
      Type original = originalTypes.lookup(operand.get());
      if (!original || !isa<RankedTensorType>(original))
        continue;
      operand.set(tensor::CastOp::create(builder, op->getLoc(), original,
                                         operand.get()));
    }
    isolatedMessage.clear();
    if (failed(verifyQuietly(op, isolatedMessage)))
      return op->emitOpError("poly-specialize cannot give the op static "
                             "types: ")
             << (message.empty() ? isolatedMessage : message);
  }
  return success();
}

/// Fills an assertion message with the constant values of its inputs (`?`
/// for a value that is not constant).
static std::string fillMessage(ShapeAssertionOp op) {
  std::string filled;
  StringRef message = op.getErrorMessage();
  for (size_t i = 0, e = message.size(); i < e; ++i) {
    if (message[i] != '{') {
      filled += message[i];
      continue;
    }
    if (i + 1 < e && message[i + 1] == '{') {
      filled += '{';
      ++i;
      continue;
    }
    size_t end = message.find('}', i);
    unsigned index = 0;
    (void)message.slice(i + 1, end).getAsInteger(10, index);
    APInt value;
    if (index < op.getInputs().size() &&
        matchPattern(op.getInputs()[index], m_ConstantInt(&value)))
      filled += std::to_string(value.getSExtValue());
    else
      filled += "?";
    i = end;
  }
  return filled;
}

LogicalResult Specializer::finish(FunctionOpInterface func) {
  // Shape assertions: true ones are gone; the first false one that runs
  // whenever the function runs (in its entry block, as the assertions of
  // poly-insert-assertions) fails. A false one in a conditional region stays
  // a runtime check.
  SmallVector<ShapeAssertionOp> assertions;
  func.getFunctionBody().walk<WalkOrder::PreOrder>(
      [&](ShapeAssertionOp op) { assertions.push_back(op); });
  Block *entry = &func.getFunctionBody().front();
  for (ShapeAssertionOp op : assertions) {
    APInt pred;
    if (!matchPattern(op.getPred(), m_ConstantInt(&pred)))
      continue;
    if (!pred.isZero()) {
      op.erase();
      continue;
    }
    if (op->getBlock() == entry)
      return op.emitOpError() << fillMessage(op);
  }

  // Nothing may stay dynamic.
  WalkResult walk = func.getFunctionBody().walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      if (isDynamic(result.getType())) {
        op->emitOpError("result #")
            << result.getResultNumber() << " is still dynamic ("
            << result.getType() << ") after poly-specialize";
        return WalkResult::interrupt();
      }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isDynamic(arg.getType())) {
            op->emitOpError("argument #")
                << arg.getArgNumber() << " of region #"
                << region.getRegionNumber() << " is still dynamic ("
                << arg.getType() << ") after poly-specialize";
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  return success();
}

LogicalResult Specializer::run(const std::string *bindingsText,
                               const std::string *argShapesText) {
  if (bindingsText && argShapesText)
    return module.emitError(
        "poly-specialize takes either 'bindings' or 'arg-shapes', not both");
  std::string error;
  std::optional<std::vector<std::pair<std::string, int64_t>>> bindings;
  std::optional<std::vector<symbolic::ConcreteShape>> argShapes;
  if (bindingsText) {
    FailureOr<std::vector<std::pair<std::string, int64_t>>> parsed =
        parseBindings(*bindingsText, error);
    if (failed(parsed))
      return module.emitError("poly-specialize: ") << error;
    bindings = std::move(*parsed);
  }
  if (argShapesText) {
    FailureOr<std::vector<symbolic::ConcreteShape>> parsed =
        parseArgShapes(*argShapesText, error);
    if (failed(parsed))
      return module.emitError("poly-specialize: ") << error;
    argShapes = std::move(*parsed);
  }

  collectFunctions();
  // Polymorphic entry points take the options' values; functions with
  // static arguments that call polymorphic functions are specialized in
  // place (entry points, or functions whose signature stays as it is).
  // The names referenced anywhere in the module (one walk; when the module
  // has ops that may be symbol tables, the conservative query per function).
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(&module.getBodyRegion());
  DenseSet<StringAttr> referenced;
  if (uses)
    for (const SymbolTable::SymbolUse &use : *uses)
      referenced.insert(use.getSymbolRef().getRootReference());
  auto isEntryPoint = [&](FunctionOpInterface func) {
    if (uses)
      return !referenced.contains(SymbolTable::getSymbolName(func));
    return SymbolTable::symbolKnownUseEmpty(func, module);
  };
  SmallVector<FunctionOpInterface> roots;
  SmallVector<FunctionOpInterface> plain;
  for (FunctionOpInterface func : functions) {
    if (func.isExternal())
      continue;
    bool entry = isEntryPoint(func);
    if (hasArgumentSpecs(func)) {
      if (entry)
        roots.push_back(func);
      continue;
    }
    if (llvm::any_of(func.getArgumentTypes(), isDynamic) ||
        !reachesPolymorphic(func))
      continue;
    if (entry || !hasDynamicSignature(func))
      plain.push_back(func);
  }
  if (!roots.empty() && !bindings && !argShapes)
    return roots.front()->emitOpError(
        "poly-specialize needs the values of the dimension variables: give "
        "'bindings' or 'arg-shapes'");
  if (failed(bindRoots(roots, bindings ? &*bindings : nullptr,
                       argShapes ? &*argShapes : nullptr)))
    return failure();
  for (FunctionOpInterface func : plain)
    worklist.push_back({func, {}});

  // Specialize (clones join the worklist), then let the canonicalization
  // patterns make the isolated ops static.
  while (!worklist.empty()) {
    WorkItem item = std::move(worklist.front());
    worklist.pop_front();
    if (failed(specialize(item)))
      return failure();
  }
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  for (FunctionOpInterface func : specialized)
    (void)applyPatternsGreedily(func, patterns, config);
  for (FunctionOpInterface func : specialized)
    if (failed(finish(func)))
      return failure();
  // A private callee whose calls all went to clones is dead (erasing one may
  // leave another without calls).
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *&callee : redirectedCallees) {
      if (!callee ||
          SymbolTable::getSymbolVisibility(callee) !=
              SymbolTable::Visibility::Private ||
          !SymbolTable::symbolKnownUseEmpty(callee, module))
        continue;
      callee->erase();
      callee = nullptr;
      changed = true;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct PolySpecializePass
    : public poly::impl::PolySpecializePassBase<PolySpecializePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    // The canonicalization patterns of every loaded dialect and op, as the
    // canonicalize pass collects them, and the ones they lack.
    RewritePatternSet owning(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(owning);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(owning, context);
    populateStaticSizePatterns(owning);
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(owning));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The symbolic shapes of every value, fresh.
    OpPassManager inference(ModuleOp::getOperationName());
    inference.addPass(createPolyInferPass());
    if (failed(runPipeline(inference, module)))
      return signalPassFailure();
    Specializer specializer(module, *patterns);
    if (failed(specializer.run(
            // An empty option is an absent one (options built in C++ have
            // every value set).
            !bindings.getValue().empty() ? &bindings.getValue() : nullptr,
            !argShapes.getValue().empty() ? &argShapes.getValue() : nullptr)))
      signalPassFailure();
  }

  std::shared_ptr<FrozenRewritePatternSet> patterns;
};
} // namespace
