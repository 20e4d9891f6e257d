//===- SymbolicShapeBench.cpp - throughput of the symbolic-shape library
//---===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Comparisons per second of the `>=` decision procedure, JAX-exact and
// strong, with and without explicit constraints, on a fresh scope per batch
// (cold caches) and on a warm scope; plus parsing and solving throughput.
//
//===----------------------------------------------------------------------===//

#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Solve.h"

#include "benchmark/benchmark.h"

#include <string>
#include <vector>

using namespace mlir::tessera::symbolic;

namespace {

/// Questions a shape-inference pass asks: slices fitting, broadcasting,
/// reshapes; a mix of provable, refutable and inconclusive ones.
const std::pair<const char *, const char *> kQuestions[] = {
    {"b + 15", "16"},
    {"2*b", "1"},
    {"4*a + b + 3", "8"},
    {"max(a, b)", "a"},
    {"floordiv(a, 4)", "0"},
    {"a*b", "b"},
    {"a - b", "8"},
    {"b", "mod(b, 3)"},
    {"mod(a, 128) + 1", "1"},
    {"a + 2*b", "32"},
    {"-a", "0"},
    {"a", "b"},
};

const std::vector<std::string> kConstraints = {"a >= b + 8", "b >= 16",
                                               "mod(a, 128) == 0"};

/// Parses the questions once in `scope`.
std::vector<std::pair<DimExpr, DimExpr>> parseQuestions(SymbolicScope &scope) {
  std::vector<std::pair<DimExpr, DimExpr>> qs;
  for (auto [l, r] : kQuestions)
    qs.push_back({*parseDimExpr(l, scope), *parseDimExpr(r, scope)});
  return qs;
}

/// Comparisons on a fresh scope per iteration batch: every question is
/// decided from scratch (cold bounds cache), as when a pass visits a new
/// function.
void compareCold(benchmark::State &state, DecisionMode mode, bool constraints) {
  DimContext ctx;
  int64_t comparisons = 0;
  for (auto _ : state) {
    ScopeOptions options;
    options.mode = mode;
    auto scope = SymbolicScope::create(
        ctx, constraints ? kConstraints : std::vector<std::string>{}, options);
    for (auto &[l, r] : parseQuestions(**scope)) {
      auto result = compare(l, CompareOp::GE, r);
      benchmark::DoNotOptimize(result.succeeded());
      ++comparisons;
    }
  }
  state.counters["comparisons/s"] =
      benchmark::Counter(comparisons, benchmark::Counter::kIsRate);
}

/// Comparisons on one scope: repeated questions hit the bounds caches, as in
/// a large module where the same shapes recur.
void compareWarm(benchmark::State &state, DecisionMode mode, bool constraints) {
  DimContext ctx;
  ScopeOptions options;
  options.mode = mode;
  auto scope = SymbolicScope::create(
      ctx, constraints ? kConstraints : std::vector<std::string>{}, options);
  auto qs = parseQuestions(**scope);
  int64_t comparisons = 0;
  for (auto _ : state) {
    for (auto &[l, r] : qs) {
      auto result = compare(l, CompareOp::GE, r);
      benchmark::DoNotOptimize(result.succeeded());
      ++comparisons;
    }
  }
  state.counters["comparisons/s"] =
      benchmark::Counter(comparisons, benchmark::Counter::kIsRate);
}

void BM_CompareColdJaxExact(benchmark::State &s) {
  compareCold(s, DecisionMode::JaxExact, false);
}
void BM_CompareColdStrong(benchmark::State &s) {
  compareCold(s, DecisionMode::Strong, false);
}
void BM_CompareColdJaxExactConstraints(benchmark::State &s) {
  compareCold(s, DecisionMode::JaxExact, true);
}
void BM_CompareColdStrongConstraints(benchmark::State &s) {
  compareCold(s, DecisionMode::Strong, true);
}
void BM_CompareWarmJaxExact(benchmark::State &s) {
  compareWarm(s, DecisionMode::JaxExact, false);
}
void BM_CompareWarmStrong(benchmark::State &s) {
  compareWarm(s, DecisionMode::Strong, false);
}
void BM_CompareWarmJaxExactConstraints(benchmark::State &s) {
  compareWarm(s, DecisionMode::JaxExact, true);
}
void BM_CompareWarmStrongConstraints(benchmark::State &s) {
  compareWarm(s, DecisionMode::Strong, true);
}

/// Parsing and normalizing expressions (hash-consed construction).
void BM_ParseAndNormalize(benchmark::State &state) {
  DimContext ctx;
  auto scope = SymbolicScope::create(ctx);
  int64_t exprs = 0;
  for (auto _ : state) {
    auto e = parseDimExpr("3*a*mod(a + 2, b + 2) + 2*b*a - floordiv(c, 8) + 7",
                          **scope);
    benchmark::DoNotOptimize(e.succeeded());
    ++exprs;
  }
  state.counters["exprs/s"] =
      benchmark::Counter(exprs, benchmark::Counter::kIsRate);
}

/// Solving dimension variables and checking concrete shapes.
void BM_SolveAndCheck(benchmark::State &state) {
  DimContext ctx;
  int64_t solves = 0;
  for (auto _ : state) {
    auto scope = SymbolicScope::create(ctx);
    auto shape = parseShapeSpec("b, b, 2*d, b1 + 2*b2, 4*b2", **scope);
    auto sol = solveDimVars({ArgShapeSpec{"args[0]", *shape}});
    auto values = sol->checkConcreteShapes({{3, 3, 4, 7, 8}});
    benchmark::DoNotOptimize(values.succeeded());
    ++solves;
  }
  state.counters["solves/s"] =
      benchmark::Counter(solves, benchmark::Counter::kIsRate);
}

} // namespace

BENCHMARK(BM_CompareColdJaxExact);
BENCHMARK(BM_CompareColdStrong);
BENCHMARK(BM_CompareColdJaxExactConstraints);
BENCHMARK(BM_CompareColdStrongConstraints);
BENCHMARK(BM_CompareWarmJaxExact);
BENCHMARK(BM_CompareWarmStrong);
BENCHMARK(BM_CompareWarmJaxExactConstraints);
BENCHMARK(BM_CompareWarmStrongConstraints);
BENCHMARK(BM_ParseAndNormalize);
BENCHMARK(BM_SolveAndCheck);

/// The chain `v1 >= v0 + 1`, ..., `vN >= v(N-1) + 1`.
std::vector<std::string> chainConstraints(int64_t n) {
  std::vector<std::string> constraints;
  for (int64_t i = 1; i <= n; ++i)
    constraints.push_back("v" + std::to_string(i) + " >= v" +
                          std::to_string(i - 1) + " + 1");
  return constraints;
}

/// What `tessera-poly compare b ">=" c` does with N chained constraints: a
/// new scope, its satisfiability check, and one inconclusive comparison of
/// variables the chain does not mention. Strong and JAX-exact side by side.
void chainCompare(benchmark::State &state, DecisionMode mode) {
  std::vector<std::string> constraints = chainConstraints(state.range(0));
  for (auto _ : state) {
    DimContext ctx;
    ScopeOptions options;
    options.mode = mode;
    auto scope = SymbolicScope::create(ctx, constraints, options);
    (void)(*scope)->verifyConstraints();
    auto b = parseDimExpr("b", **scope);
    auto c = parseDimExpr("c", **scope);
    auto v = parseDimExpr("v" + std::to_string(state.range(0)), **scope);
    auto w = parseDimExpr("v" + std::to_string(state.range(0) - 1) + " + 1",
                          **scope);
    benchmark::DoNotOptimize(compare(*b, CompareOp::GE, *c));
    benchmark::DoNotOptimize(compare(*v, CompareOp::GE, *w));
  }
}
void BM_ChainCompareJaxExact(benchmark::State &state) {
  chainCompare(state, DecisionMode::JaxExact);
}
void BM_ChainCompareStrong(benchmark::State &state) {
  chainCompare(state, DecisionMode::Strong);
}
BENCHMARK(BM_ChainCompareJaxExact)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChainCompareStrong)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
