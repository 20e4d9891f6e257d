//===- SymbolicShapeFuzzer.cpp - fuzz the symbolic-shape library ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The input is a few lines:
//
//   b, 2*d + 1, mod(b, 3)      a shape spec (JAX's grammar)
//   >= max(b, 4)               a comparison of the spec's first dimension
//   c: b >= 16                 any number of explicit constraints
//   s: 3, 7, 0                 a concrete shape to solve the spec against
//   v: b=3, d=2                bindings to evaluate every dimension with
//
// Everything is run twice, with JAX's decision procedure and with Tessera's
// stronger one. Besides crashes, hangs and sanitizer reports, the target
// checks the contract between the two: where JAX's procedure answers a
// comparison, the strong procedure gives the same answer (it may decide more,
// never less and never differently).
//
//===----------------------------------------------------------------------===//

#include "FuzzerUtils.h"

#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/Evaluate.h"
#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Scope.h"
#include "tessera/SymbolicShape/Solve.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>

using namespace mlir::tessera;
using namespace mlir::tessera::symbolic;

namespace {
struct Input {
  std::string spec;
  std::optional<CompareOp> op;
  std::string rhs;
  std::vector<std::string> constraints;
  std::optional<ConcreteShape> shape;
  DimBindings bindings;
};

/// What one decision mode answered.
struct Answers {
  bool valid = false;
  /// The comparison's answer, if it had one.
  std::optional<bool> comparison;
};
} // namespace

static std::optional<CompareOp> parseOp(llvm::StringRef &text) {
  for (CompareOp op : {CompareOp::GE, CompareOp::LE, CompareOp::EQ,
                       CompareOp::NE, CompareOp::GT, CompareOp::LT}) {
    if (text.consume_front(getCompareOpSpelling(op)))
      return op;
  }
  return std::nullopt;
}

static Input parseInput(llvm::StringRef text) {
  Input in;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  if (lines.empty())
    return in;
  in.spec = lines[0].str();
  for (llvm::StringRef line : llvm::ArrayRef(lines).drop_front()) {
    if (line.consume_front("c:")) {
      if (in.constraints.size() < 64)
        in.constraints.push_back(line.trim().str());
    } else if (line.consume_front("s:")) {
      ConcreteShape shape;
      llvm::SmallVector<llvm::StringRef> items;
      line.split(items, ',');
      for (llvm::StringRef item : items) {
        int64_t v;
        if (item.trim().getAsInteger(10, v))
          break;
        shape.push_back(v);
      }
      in.shape = shape;
    } else if (line.consume_front("v:")) {
      llvm::SmallVector<llvm::StringRef> items;
      line.split(items, ',');
      for (llvm::StringRef item : items) {
        auto [name, value] = item.split('=');
        int64_t v;
        if (!value.trim().getAsInteger(10, v))
          in.bindings[name.trim()] = v;
      }
    } else if (!in.op) {
      llvm::StringRef rest = line.trim();
      in.op = parseOp(rest);
      in.rhs = rest.trim().str();
    }
  }
  return in;
}

static Answers run(const Input &in, DecisionMode mode) {
  Answers answers;
  DimContext ctx;
  ScopeOptions options;
  options.mode = mode;
  auto scope = SymbolicScope::create(ctx, in.constraints, options);
  if (scope.failed() || (*scope)->verifyConstraints().failed())
    return answers;
  auto shape = parseShapeSpec(in.spec, **scope);
  if (shape.failed())
    return answers;
  answers.valid = true;
  for (const DimExpr &dim : *shape) {
    (void)getBounds(dim);
    (void)evaluate(dim, in.bindings);
  }
  if (in.op && !shape->empty()) {
    auto rhs = parseDimExpr(in.rhs, **scope);
    if (rhs.succeeded()) {
      auto result = compare((*shape)[0], *in.op, *rhs);
      if (result.succeeded())
        answers.comparison = *result;
    }
  }
  if (in.shape) {
    ArgShapeSpec arg{"x", *shape};
    auto solution = solveDimVars(arg);
    if (solution.succeeded())
      (void)solution->checkConcreteShapes(*in.shape);
  }
  return answers;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text = fuzz::toText(data, size, 1 << 12);
  Input in = parseInput(text);
  Answers jax = run(in, DecisionMode::JaxExact);
  Answers strong = run(in, DecisionMode::Strong);
  // The strong procedure may reject constraints JAX accepts (it also checks
  // integer satisfiability); only compare answers when both accepted them.
  if (jax.valid && strong.valid && jax.comparison &&
      strong.comparison != jax.comparison)
    fuzz::fail(strong.comparison
                   ? "the strong decision procedure contradicts JAX's"
                   : "the strong decision procedure decides less than JAX's",
               text);
  return 0;
}
