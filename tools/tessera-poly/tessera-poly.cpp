//===- tessera-poly.cpp - symbolic shapes from the command line -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// A command-line front end to the symbolic-shape library (JAX's
// `jax.export` shape polymorphism): normalize, compare, bound, evaluate and
// solve dimension expressions. See docs/Tools/tessera-poly.md.
//
// The command line is parsed by hand: expressions are positional and may
// begin with `-` (`tessera-poly bounds "- a + 3"`), so only words starting
// with `--` are options, and `--` ends the options.
//
//===----------------------------------------------------------------------===//

#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/DimExpr.h"
#include "tessera/SymbolicShape/Evaluate.h"
#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Scope.h"
#include "tessera/SymbolicShape/Solve.h"
#include "tessera/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace mlir::tessera::symbolic;

namespace {

constexpr const char *kUsage =
    "usage: tessera-poly <normalize|compare|bounds|eval|solve> <args>... "
    "[options] (see tessera-poly --help)";

constexpr const char *kHelp =
    R"(tessera-poly - symbolic dimension expressions (jax.export shape polymorphism)

USAGE
  tessera-poly normalize <expr-or-shape> [--like <dims>] [--constraint <c>]...
  tessera-poly compare <e1> <op> <e2> [--constraint <c>]...
  tessera-poly bounds <expr> [--constraint <c>]...
  tessera-poly eval <expr> --bind <var>=<int>[,<var>=<int>]... [--constraint <c>]...
  tessera-poly solve [<spec>] --shape <dims> [--arg <spec> --shape <dims>]...
                     [--constraint <c>]... [--caller-constraint <c>]...
  tessera-poly solve [<spec>] [--arg <spec>]... --assertions [--constraint <c>]...

COMMANDS
  normalize  Prints the normal form as JAX prints it: an expression as
             `b + 2*a`, `- b + a` (a constant as an integer), a shape spec as a
             Python tuple `(b, 2*d)`, `(a,)`, `()`. The input is a shape spec
             when it has a comma outside parentheses, starts with `(`, contains
             a placeholder `_` or `...`, is empty, or when --like is given;
             otherwise it is one expression.
  compare    Prints `true` or `false` for <e1> <op> <e2>, <op> one of
             >= <= > < == !=. An inconclusive comparison prints JAX's message
             on stderr and exits with 2. `==` and `!=` use JAX's equality:
             true only when the difference normalizes to 0, never
             inconclusive.
  bounds     Prints `(lo, hi)` with `-inf`/`inf`.
  eval       Prints the integer value with the given variable values.
  solve      Solves the dimension variables of the argument specs from the
             actual shapes and prints `<var> = <value>` per variable, sorted
             by name. The first positional spec is args[0]; every
             `--arg <spec>` adds the next argument; the n-th --shape belongs
             to the n-th argument. Shapes are comma-separated integers; a
             shape with a non-integer entry is a symbolic caller shape (a
             nested export), parsed in its own scope with the
             --caller-constraint constraints, and the values printed are
             expressions. A failing shape check prints JAX's message on
             stderr and exits with 1. With --assertions, prints the solution
             over the synthetic variables `args[i].shape[j]` and every check
             as a runtime assertion (predicate, message template, operands)
             instead of checking shapes.

OPTIONS
  --constraint <c>         An explicit constraint `e1 >= e2`, `e1 <= e2` or
                           `e1 == e2` (repeatable; order matters).
  --like <dims>            The `like` shape for placeholders: comma-separated
                           integers, `?` or `None` for an unknown size.
  --bind <v>=<n>,...       Variable values for eval (repeatable).
  --shape <dims>           An actual argument shape for solve (repeatable).
  --arg <spec>             Another argument spec for solve (repeatable).
  --caller-constraint <c>  A constraint of the symbolic caller shapes.
  --assertions             solve: print the runtime assertions.
  --jax-exact              Decide with JAX's own procedure. The default is
                           the stronger procedure, which answers some of
                           JAX's inconclusive questions exactly (e.g.
                           `b >= mod(b, 3)`) and never contradicts JAX.
  --help                   This text.
  --version                Print Tessera's version.
  --                       Everything after is positional.

EXIT STATUS
  0 success; 1 error (syntax, scope, unsatisfiable constraint, failed shape
  check, usage); 2 inconclusive (JAX's InconclusiveDimensionOperation).

Expressions follow JAX's grammar: integers, variables, + - *, `^` with an
integer exponent, mod(e1, e2), floordiv(e1, e2), max(e1, e2), min(e1, e2);
no parenthesized sub-expressions. `non_negative(e)` is not accepted (JAX
removed it); write max(e, 0).
)";

/// The parsed command line.
struct Options {
  std::string command;
  std::vector<std::string> positional;
  std::vector<std::string> constraints;
  std::vector<std::string> callerConstraints;
  std::vector<std::string> binds;
  std::vector<std::string> shapes;
  std::vector<std::string> extraArgs;
  std::optional<std::string> like;
  bool jaxExact = false;
  bool assertions = false;
  bool help = false;
  bool version = false;
};

int usageError(const llvm::Twine &reason) {
  llvm::errs() << kUsage << "\n"
               << "tessera-poly: error: " << reason << "\n";
  return 1;
}

/// Prints an error of the library; inconclusive errors exit with 2.
int reportError(const DimError &error) {
  llvm::StringRef msg = error.getMessage();
  llvm::errs() << msg;
  if (!msg.ends_with("\n"))
    llvm::errs() << "\n";
  return error.getKind() == DimErrorKind::Inconclusive ? 2 : 1;
}

/// Parses argv; returns a non-negative exit code on a usage error.
std::optional<int> parseCommandLine(int argc, char **argv, Options &opts) {
  bool onlyPositional = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (onlyPositional || !arg.starts_with("--")) {
      if (opts.command.empty())
        opts.command = arg.str();
      else
        opts.positional.push_back(arg.str());
      continue;
    }
    if (arg == "--") {
      onlyPositional = true;
      continue;
    }
    std::pair<llvm::StringRef, llvm::StringRef> nameAndValue = arg.split('=');
    llvm::StringRef name = nameAndValue.first;
    llvm::StringRef inlineValue = nameAndValue.second;
    bool hasInline = arg.contains('=');
    auto flag = [&](bool &target) -> std::optional<int> {
      if (hasInline)
        return usageError("option '" + name + "' takes no value");
      target = true;
      return std::nullopt;
    };
    auto value = [&](std::string &out) -> std::optional<int> {
      if (hasInline) {
        out = inlineValue.str();
        return std::nullopt;
      }
      if (i + 1 >= argc)
        return usageError("option '" + name + "' needs a value");
      out = argv[++i];
      return std::nullopt;
    };
    std::string v;
    std::optional<int> err;
    if (name == "--help") {
      err = flag(opts.help);
    } else if (name == "--version") {
      err = flag(opts.version);
    } else if (name == "--jax-exact") {
      err = flag(opts.jaxExact);
    } else if (name == "--assertions") {
      err = flag(opts.assertions);
    } else if (name == "--constraint") {
      if (!(err = value(v)))
        opts.constraints.push_back(v);
    } else if (name == "--caller-constraint") {
      if (!(err = value(v)))
        opts.callerConstraints.push_back(v);
    } else if (name == "--bind") {
      if (!(err = value(v)))
        opts.binds.push_back(v);
    } else if (name == "--shape") {
      if (!(err = value(v)))
        opts.shapes.push_back(v);
    } else if (name == "--arg") {
      if (!(err = value(v)))
        opts.extraArgs.push_back(v);
    } else if (name == "--like") {
      if (opts.like)
        return usageError("option '--like' given twice");
      if (!(err = value(v)))
        opts.like = v;
    } else {
      return usageError("unknown option '" + name + "'");
    }
    if (err)
      return err;
  }
  return std::nullopt;
}

/// Splits a comma-separated list; the empty string is the empty list.
std::vector<std::string> splitList(llvm::StringRef text) {
  std::vector<std::string> items;
  if (text.trim().empty())
    return items;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  for (llvm::StringRef p : parts)
    items.push_back(p.trim().str());
  return items;
}

std::optional<int64_t> parseInt(llvm::StringRef text) {
  int64_t v;
  text = text.trim();
  if (text.empty() || text.getAsInteger(10, v))
    return std::nullopt;
  return v;
}

/// True if `input` contains a placeholder `...` or a standalone `_`.
bool hasPlaceholder(llvm::StringRef input) {
  if (input.contains("..."))
    return true;
  auto isWord = [](char x) {
    return llvm::isAlnum(x) || x == '_' ||
           static_cast<unsigned char>(x) >= 0x80;
  };
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i] != '_')
      continue;
    bool left = i > 0 && isWord(input[i - 1]);
    bool right = i + 1 < input.size() && isWord(input[i + 1]);
    if (!left && !right)
      return true;
  }
  return false;
}

/// True for a shape spec rather than a single expression.
bool looksLikeShapeSpec(llvm::StringRef input) {
  llvm::StringRef t = input.trim();
  if (t.empty() || t.starts_with("(") || hasPlaceholder(t))
    return true;
  int depth = 0;
  for (char c : t) {
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (c == ',' && depth == 0)
      return true;
  }
  return false;
}

DimResult<std::unique_ptr<SymbolicScope>>
makeScope(DimContext &ctx, const std::vector<std::string> &constraints,
          DecisionMode mode, llvm::StringRef location) {
  ScopeOptions options;
  options.mode = mode;
  options.location = location.str();
  auto scope = SymbolicScope::create(ctx, constraints, options);
  if (scope.failed())
    return scope.getError();
  DimStatus status = (*scope)->verifyConstraints();
  if (status.failed())
    return status.getError();
  return scope;
}

int runNormalize(const Options &opts, SymbolicScope &scope) {
  if (opts.positional.size() != 1)
    return usageError("normalize takes one expression or shape spec");
  const std::string &input = opts.positional[0];
  std::optional<std::vector<LikeDim>> like;
  if (opts.like) {
    like.emplace();
    for (const std::string &item : splitList(*opts.like)) {
      if (item == "?" || item == "None") {
        like->push_back(std::nullopt);
        continue;
      }
      auto v = parseInt(item);
      if (!v)
        return usageError("invalid --like entry '" + item +
                          "' (expected an integer, '?' or 'None')");
      like->push_back(*v);
    }
  }
  if (like || looksLikeShapeSpec(input)) {
    std::optional<llvm::ArrayRef<LikeDim>> likeRef;
    if (like)
      likeRef = llvm::ArrayRef<LikeDim>(*like);
    auto shape = parseShapeSpec(input, scope, likeRef);
    if (shape.failed())
      return reportError(shape.getError());
    llvm::outs() << formatShape(*shape) << "\n";
    return 0;
  }
  auto e = parseDimExpr(input, scope);
  if (e.failed())
    return reportError(e.getError());
  llvm::outs() << *e << "\n";
  return 0;
}

int runCompare(const Options &opts, SymbolicScope &scope) {
  if (opts.positional.size() != 3)
    return usageError("compare takes <e1> <op> <e2>");
  llvm::StringRef opText = opts.positional[1];
  std::optional<CompareOp> op;
  for (CompareOp candidate : {CompareOp::GE, CompareOp::LE, CompareOp::GT,
                              CompareOp::LT, CompareOp::EQ, CompareOp::NE})
    if (getCompareOpSpelling(candidate) == opText.trim())
      op = candidate;
  if (!op)
    return usageError("invalid comparison operator '" + opText +
                      "' (expected one of >= <= > < == !=)");
  auto lhs = parseDimExpr(opts.positional[0], scope);
  if (lhs.failed())
    return reportError(lhs.getError());
  auto rhs = parseDimExpr(opts.positional[2], scope);
  if (rhs.failed())
    return reportError(rhs.getError());
  auto result = compare(*lhs, *op, *rhs);
  if (result.failed())
    return reportError(result.getError());
  llvm::outs() << (*result ? "true" : "false") << "\n";
  return 0;
}

int runBounds(const Options &opts, SymbolicScope &scope) {
  if (opts.positional.size() != 1)
    return usageError("bounds takes one expression");
  auto e = parseDimExpr(opts.positional[0], scope);
  if (e.failed())
    return reportError(e.getError());
  auto b = getBounds(*e);
  if (b.failed())
    return reportError(b.getError());
  llvm::outs() << b->str() << "\n";
  return 0;
}

int runEval(const Options &opts, SymbolicScope &scope) {
  if (opts.positional.size() != 1)
    return usageError("eval takes one expression");
  DimBindings bindings;
  for (const std::string &list : opts.binds) {
    for (const std::string &item : splitList(list)) {
      auto [name, valueText] = llvm::StringRef(item).split('=');
      auto value = parseInt(valueText);
      if (!llvm::StringRef(item).contains('=') || name.trim().empty() || !value)
        return usageError("invalid --bind entry '" + item +
                          "' (expected <var>=<integer>)");
      bindings[name.trim()] = *value;
    }
  }
  auto e = parseDimExpr(opts.positional[0], scope);
  if (e.failed())
    return reportError(e.getError());
  auto v = evaluate(*e, bindings);
  if (v.failed())
    return reportError(v.getError());
  llvm::outs() << *v << "\n";
  return 0;
}

void printAssertions(const DimVarSolution &solution) {
  for (const auto &[var, value] : solution.getSolvedVariables())
    llvm::outs() << var << " = " << value << "\n";
  for (auto [i, check] : llvm::enumerate(solution.getChecks())) {
    llvm::outs() << "check " << i << ": " << check.lhs
                 << (check.cmp == Comparator::EQ ? " == " : " >= ") << check.rhs
                 << "\n";
    AssertionTemplate t = check.getAssertionTemplate();
    llvm::outs() << "  message: " << t.message << "\n";
    for (auto [j, operand] : llvm::enumerate(t.operands))
      llvm::outs() << "  {" << j << "} = " << operand << "\n";
  }
}

int runSolve(const Options &opts, DimContext &ctx, SymbolicScope &scope,
             DecisionMode mode) {
  std::vector<std::string> specs = opts.positional;
  if (specs.size() > 1)
    return usageError("solve takes at most one positional spec; use --arg "
                      "for more arguments");
  specs.insert(specs.end(), opts.extraArgs.begin(), opts.extraArgs.end());
  if (specs.empty())
    return usageError("solve needs at least one argument spec");
  if (!opts.assertions && opts.shapes.size() != specs.size())
    return usageError("solve needs one --shape per argument spec (" +
                      llvm::Twine(specs.size()) + " specs, " +
                      llvm::Twine(opts.shapes.size()) + " shapes)");
  if (opts.assertions && !opts.shapes.empty() &&
      opts.shapes.size() != specs.size())
    return usageError("solve --assertions takes no --shape or one per spec");

  // Concrete shapes when every entry is an integer.
  std::vector<ConcreteShape> concrete;
  bool allConcrete = true;
  for (const std::string &shape : opts.shapes) {
    ConcreteShape dims;
    for (const std::string &item : splitList(shape)) {
      auto v = parseInt(item);
      if (!v) {
        allConcrete = false;
        break;
      }
      dims.push_back(*v);
    }
    concrete.push_back(dims);
  }

  // The caller scope and shapes for symbolic caller shapes.
  std::unique_ptr<SymbolicScope> callerScope;
  std::vector<SymbolicShape> symbolic;
  if (!allConcrete) {
    auto cs = makeScope(ctx, opts.callerConstraints, mode, "<caller shapes>");
    if (cs.failed())
      return reportError(cs.getError());
    callerScope = std::move(*cs);
    for (const std::string &shape : opts.shapes) {
      auto dims = parseShapeSpec(shape, *callerScope);
      if (dims.failed())
        return reportError(dims.getError());
      symbolic.push_back(SymbolicShape(dims->begin(), dims->end()));
    }
  } else if (!opts.callerConstraints.empty()) {
    return usageError("--caller-constraint needs a symbolic --shape");
  }

  std::vector<ArgShapeSpec> args;
  for (auto [i, spec] : llvm::enumerate(specs)) {
    // The actual shapes fill placeholders, as in JAX's `symbolic_args_specs`;
    // a spec without placeholders is parsed on its own (like an exported
    // function called with other shapes).
    std::vector<LikeDim> like;
    bool haveLike = i < opts.shapes.size() && hasPlaceholder(spec);
    if (haveLike) {
      if (allConcrete) {
        for (int64_t d : concrete[i])
          like.push_back(d);
      } else {
        for (const DimExpr &d : symbolic[i])
          like.push_back(d.getConstant());
      }
    }
    std::optional<llvm::ArrayRef<LikeDim>> likeRef;
    if (haveLike)
      likeRef = llvm::ArrayRef<LikeDim>(like);
    auto shape = parseShapeSpec(spec, scope, likeRef);
    if (shape.failed())
      return reportError(shape.getError());
    args.push_back(ArgShapeSpec{"args[" + std::to_string(i) + "]",
                                llvm::SmallVector<DimExpr>(*shape)});
  }
  auto solution = solveDimVars(args);
  if (solution.failed())
    return reportError(solution.getError());
  if (opts.assertions) {
    printAssertions(*solution);
    return 0;
  }
  if (allConcrete) {
    auto values = solution->checkConcreteShapes(concrete);
    if (values.failed())
      return reportError(values.getError());
    for (auto &[name, v] : *values)
      llvm::outs() << name << " = " << v << "\n";
    return 0;
  }
  auto values = solution->checkSymbolicShapes(symbolic, *callerScope);
  if (values.failed())
    return reportError(values.getError());
  for (auto &[name, v] : *values)
    llvm::outs() << name << " = " << v << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  if (auto err = parseCommandLine(argc, argv, opts))
    return *err;
  if (opts.help) {
    llvm::outs() << kHelp;
    return 0;
  }
  if (opts.version) {
    llvm::outs() << "Tessera version " TESSERA_VERSION_STRING "\n";
    return 0;
  }
  if (opts.command.empty())
    return usageError("missing command");
  static const char *const kCommands[] = {"normalize", "compare", "bounds",
                                          "eval", "solve"};
  if (!llvm::is_contained(kCommands, opts.command))
    return usageError("unknown command '" + opts.command + "'");
  if (opts.like && opts.command != "normalize")
    return usageError("--like is only valid with normalize");
  if (!opts.binds.empty() && opts.command != "eval")
    return usageError("--bind is only valid with eval");
  if ((!opts.shapes.empty() || !opts.extraArgs.empty() || opts.assertions ||
       !opts.callerConstraints.empty()) &&
      opts.command != "solve")
    return usageError("--shape, --arg, --assertions and --caller-constraint "
                      "are only valid with solve");

  DecisionMode mode =
      opts.jaxExact ? DecisionMode::JaxExact : DecisionMode::Strong;
  DimContext ctx;
  auto scope = makeScope(ctx, opts.constraints, mode, "<command line>");
  if (scope.failed())
    return reportError(scope.getError());

  if (opts.command == "normalize")
    return runNormalize(opts, **scope);
  if (opts.command == "compare")
    return runCompare(opts, **scope);
  if (opts.command == "bounds")
    return runBounds(opts, **scope);
  if (opts.command == "eval")
    return runEval(opts, **scope);
  return runSolve(opts, ctx, **scope, mode);
}
