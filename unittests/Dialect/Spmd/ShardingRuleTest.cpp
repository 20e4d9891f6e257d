//===- ShardingRuleTest.cpp - #spmd.op_sharding_rule and its builder ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SpmdTestBase.h"

#include "tessera/Dialect/Spmd/IR/OpShardingRuleBuilder.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <functional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::tessera::spmd;

namespace {

constexpr int64_t kNull = OpShardingRuleBuilder::kNullDim;

class ShardingRuleTest : public SpmdTest {
protected:
  OpShardingRuleAttr rule(const std::string &body) {
    return parse<OpShardingRuleAttr>("#spmd.op_sharding_rule" + body);
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(&context));
  }

  /// Runs `fn` and returns the messages of the errors it emitted.
  std::vector<std::string> collectErrors(const std::function<void()> &fn) {
    std::vector<std::string> errors;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      errors.push_back(diag.str());
      return success();
    });
    fn();
    return errors;
  }

  /// Creates an unregistered op `test.op` with the given types; the caller
  /// destroys it.
  Operation *createOp(TypeRange operandTypes, TypeRange resultTypes) {
    context.allowUnregisteredDialects();
    OpBuilder builder(&context);
    Location loc = UnknownLoc::get(&context);
    OperationState argState(loc, "test.source");
    argState.addTypes(operandTypes);
    Operation *source = builder.create(argState);
    OperationState state(loc, "test.op");
    state.addOperands(source->getResults());
    state.addTypes(resultTypes);
    Operation *op = builder.create(state);
    sources.push_back(source);
    return op;
  }

  ~ShardingRuleTest() override {
    for (Operation *source : sources)
      source->destroy();
  }

  std::vector<Operation *> sources;
};

//===----------------------------------------------------------------------===//
// Factor names
//===----------------------------------------------------------------------===//

TEST_F(ShardingRuleTest, FactorSymbolStrings) {
  EXPECT_EQ(factorSymbolString(0), "i");
  EXPECT_EQ(factorSymbolString(1), "j");
  EXPECT_EQ(factorSymbolString(8), "q");
  EXPECT_EQ(factorSymbolString(17), "z");
  EXPECT_EQ(factorSymbolString(18), "z_1");
  EXPECT_EQ(factorSymbolString(19), "z_2");
  EXPECT_EQ(factorSymbolString(27), "z_10");
  EXPECT_EQ(factorSymbolString(1017), "z_1000");
}

TEST_F(ShardingRuleTest, FactorSymbolsRoundTrip) {
  for (int64_t index = 0; index < 500; ++index)
    EXPECT_EQ(parseFactorSymbol(factorSymbolString(index)), index) << index;
}

TEST_F(ShardingRuleTest, InvalidFactorSymbols) {
  for (StringRef symbol :
       {"", "a", "h", "I", "ij", "zz", "z_", "z_0", "z_01", "i_1", "z_1i",
        "z_1z_2", "z_-1", "z_x", "z_9223372036854775807"})
    EXPECT_EQ(parseFactorSymbol(symbol), std::nullopt) << symbol.str();
  // The largest index that fits in int64_t.
  EXPECT_EQ(parseFactorSymbol("z_9223372036854775790"),
            std::numeric_limits<int64_t>::max());
}

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

TEST_F(ShardingRuleTest, PrintIsCanonical) {
  struct Case {
    const char *input;
    const char *printed;
  };
  const Case cases[] = {
      {"<([i, k],[k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>",
       "#spmd.op_sharding_rule<([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} "
       "reduction={k}>"},
      {"<([],[])->([])>", "#spmd.op_sharding_rule<([], [])->([])>"},
      {"<([i, j])->([ij]) {i=2, j=4}>",
       "#spmd.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>"},
      {"<([i]) -> ([i]) {i=8} reduction={} , custom>",
       "#spmd.op_sharding_rule<([i])->([i]) {i=8}, custom>"},
      {"<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} reduction={j} "
       "need_replication={i} permutation={k} blocked_propagation={j, l}>",
       "#spmd.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, "
       "l=7} reduction={j} need_replication={i} permutation={k} "
       "blocked_propagation={j, l}>"},
  };
  for (const Case &c : cases) {
    OpShardingRuleAttr parsed = rule(c.input);
    ASSERT_TRUE(parsed) << c.input;
    EXPECT_EQ(print(parsed), c.printed);
    EXPECT_EQ(parse<OpShardingRuleAttr>(c.printed), parsed);
  }
}

TEST_F(ShardingRuleTest, DimAndTensorMappings) {
  auto dim = parse<DimMappingAttr>("#spmd.dim_mapping<zz_1z_2>");
  ASSERT_TRUE(dim);
  EXPECT_EQ(dim.getFactorIndices(), (ArrayRef<int64_t>{17, 18, 19}));
  EXPECT_EQ(print(dim), "#spmd.dim_mapping<zz_1z_2>");
  EXPECT_TRUE(dim.isMinorMost(19));
  EXPECT_FALSE(dim.isMinorMost(17));
  EXPECT_TRUE(dim.contains(18));

  auto tensorMapping =
      parse<TensorMappingAttr>("#spmd.tensor_mapping<[i, jk]>");
  ASSERT_TRUE(tensorMapping);
  EXPECT_EQ(tensorMapping.getRank(), 2);
  EXPECT_EQ(tensorMapping.getDimOfFactor(2), 1);
  EXPECT_EQ(tensorMapping.getDimOfFactor(3), std::nullopt);
  EXPECT_EQ(print(tensorMapping), "#spmd.tensor_mapping<[i, jk]>");
  EXPECT_EQ(print(parse<TensorMappingAttr>("#spmd.tensor_mapping<[]>")),
            "#spmd.tensor_mapping<[]>");
}

TEST_F(ShardingRuleTest, FactorsBeyondZ) {
  // 20 factors: i..z, z_1, z_2; the last two result dims are `zz_1`, `z_2`.
  std::string names;
  std::string sizes;
  for (int64_t f = 0; f < 20; ++f) {
    names += (f ? ", " : "") + factorSymbolString(f);
    sizes += (f ? ", " : "") + factorSymbolString(f) + "=2";
  }
  std::string text = "<([" + names + "])->([i, j, k, l, m, n, o, p, q, r, " +
                     "s, t, u, v, w, x, y, zz_1, z_2]) {" + sizes + "}>";
  OpShardingRuleAttr parsed = rule(text);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed.getNumFactors(), 20);
  EXPECT_EQ(parsed.getResultMapping(0).getDimMapping(17).getFactorIndices(),
            (ArrayRef<int64_t>{17, 18}));
  EXPECT_EQ(print(parsed), "#spmd.op_sharding_rule" + text);
}

TEST_F(ShardingRuleTest, ParseErrorsAreReported) {
  for (const char *text :
       {"<([i])->([i]) {j=2}>", "<([a])->([i]) {i=2}>",
        "<([i])->([i]) {i=2} reduce={i}>", "<([i])->([i]) {i=2},>",
        "<()->([i]) {i=2}>", "<([i j])->([i]) {i=2}>", "<([z_0])->([i]) {i=2}>",
        "<([i])->([i]) {ij=2}>",
        "<([i])->([i]) {i=2} permutation={i} reduction={i}>"}) {
    std::vector<std::string> errors =
        collectErrors([&] { EXPECT_FALSE(rule(text)) << text; });
    EXPECT_FALSE(errors.empty()) << text;
  }
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

TEST_F(ShardingRuleTest, ContextFreeErrors) {
  struct Case {
    const char *input;
    const char *error;
  };
  const Case cases[] = {
      {"<([i, i])->([i]) {i=2}>",
       "operand - cannot reuse factors for the same tensor value: i"},
      {"<([i, j])->([i]) {i=2, j=4, k=2}>",
       "has factor k=2 that isn't used in operand and result mappings"},
      {"<([i], [ij])->([i]) {i=2, j=1}>",
       "operand 1 - dim mapping can't have a factor of size 1 if there are "
       "multiple factors: ij with j=1"},
      {"<([i, k])->([i]) {i=2, j=4}>",
       "operand - expecting factor indices to be within 0<=...<num_factors; "
       "received: 2, num_factors: 2"},
      {"<([i, j])->([i]) {i=2, j=4} reduction={j} permutation={j}>",
       "a factor can only be in one of the reduction, need replication, or "
       "permutation factor sets: j"},
      {"<([i, j])->([i]) {i=2, j=4} reduction={i}>",
       "reduction factor cannot be in result mappings: i"},
      {"<([i])->([i]) {i=-2}>", "factor size must be non-negative, got: i=-2"},
  };
  // As in Shardy, parsing does not check these (the rule is checked against
  // the op it is attached to); the attribute's own verifier does.
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  for (const Case &c : cases) {
    OpShardingRuleAttr parsed = rule(c.input);
    ASSERT_TRUE(parsed) << c.input;
    std::vector<std::string> errors = collectErrors([&] {
      EXPECT_TRUE(failed(OpShardingRuleAttr::verify(
          emitError, parsed.getFactorSizes(), parsed.getOperandMappings(),
          parsed.getResultMappings(), parsed.getReductionFactors(),
          parsed.getNeedReplicationFactors(), parsed.getPermutationFactors(),
          parsed.getBlockedPropagationFactors(), parsed.getIsCustomRule())))
          << c.input;
    });
    ASSERT_EQ(errors.size(), 1u) << c.input;
    EXPECT_EQ(errors.front(), c.error);
  }
}

TEST_F(ShardingRuleTest, ErrorsFromTheApi) {
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  TensorMappingAttr scalar = TensorMappingAttr::get(&context, {});
  TensorMappingAttr vector =
      TensorMappingAttr::get(&context, {DimMappingAttr::get(&context, {0})});
  // No operand mapping.
  std::vector<std::string> errors = collectErrors([&] {
    EXPECT_FALSE(OpShardingRuleAttr::getChecked(
        emitError, &context, {}, {}, {scalar}, {}, {}, {}, {}, false));
  });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.front(),
            "number of operands mappings cannot be 0. Op sharding rules can "
            "only be defined on operations with at least one operand and "
            "result.");
  // An empty dimension mapping.
  errors = collectErrors([&] {
    EXPECT_FALSE(OpShardingRuleAttr::getChecked(
        emitError, &context, {}, {scalar},
        {TensorMappingAttr::get(&context, {DimMappingAttr::get(&context, {})})},
        {}, {}, {}, {}, false));
  });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.front(),
            "result - dim mapping must have at least one factor: dim 0");
  // A negative index in a factor set (factor names are never negative).
  errors = collectErrors([&] {
    EXPECT_FALSE(OpShardingRuleAttr::getChecked(
        emitError, &context, {4}, {vector}, {vector}, {}, {}, {-1}, {}, false));
  });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.front(),
            "permutation factor index must be non-negative, got: -1");
}

TEST_F(ShardingRuleTest, VerifyAgainstOp) {
  Operation *op =
      createOp({tensor({8, 32}), tensor({32, 16})}, {tensor({8, 16})});
  OpShardingRuleAttr dot =
      rule("<([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>");
  ASSERT_TRUE(dot);
  EXPECT_TRUE(succeeded(verifyShardingRule(dot, op)));

  OpShardingRuleAttr wrongSize =
      rule("<([i, k], [k, j])->([i, j]) {i=8, j=16, k=16} reduction={k}>");
  ASSERT_TRUE(wrongSize);
  std::vector<std::string> errors = collectErrors(
      [&] { EXPECT_TRUE(failed(verifyShardingRule(wrongSize, op))); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.front(),
            "'test.op' op operand 0 - dim 1 size must match the "
            "product of its factor sizes: 32 != 16 (k=16)");

#ifdef NDEBUG
  // A rule made with `get` skips the attribute's verifier in release builds
  // (it asserts otherwise); verifyShardingRule re-checks it.
  DimMappingAttr i = DimMappingAttr::get(&context, {0});
  TensorMappingAttr ii = TensorMappingAttr::get(&context, {i, i});
  OpShardingRuleAttr unchecked = OpShardingRuleAttr::get(
      &context, ArrayRef<int64_t>{8}, ArrayRef<TensorMappingAttr>{ii, ii},
      ArrayRef<TensorMappingAttr>{ii}, {}, {}, {}, {}, false);
  errors = collectErrors(
      [&] { EXPECT_TRUE(failed(verifyShardingRule(unchecked, op))); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.front(), "'test.op' op operand 0 - cannot reuse factors "
                            "for the same tensor value: i");
#endif
  op->destroy();
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

TEST_F(ShardingRuleTest, Queries) {
  OpShardingRuleAttr r =
      rule("<([i, j, k, l], [i, mn])->([i, k, l], [mn]) {i=2, j=3, k=5, l=7, "
           "m=2, n=4} reduction={j} need_replication={l} permutation={k} "
           "blocked_propagation={i, k}, custom>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r.getNumFactors(), 6);
  EXPECT_EQ(r.getNumOperands(), 2);
  EXPECT_EQ(r.getNumResults(), 2);
  EXPECT_EQ(r.getNumTensors(), 4);
  EXPECT_EQ(r.getFactorSize(3), 7);
  EXPECT_TRUE(r.isCustom());
  EXPECT_EQ(r.getTensorMapping(3), r.getResultMapping(1));
  EXPECT_EQ(r.getTensorMapping(1), r.getOperandMapping(1));

  EXPECT_EQ(r.getFactorType(0), FactorType::PassThrough);
  EXPECT_EQ(r.getFactorType(1), FactorType::Reduction);
  EXPECT_EQ(r.getFactorType(2), FactorType::Permutation);
  EXPECT_EQ(r.getFactorType(3), FactorType::NeedReplication);
  EXPECT_TRUE(r.isPassThrough(0));
  EXPECT_TRUE(r.isPassThrough(4));
  EXPECT_FALSE(r.isPassThrough(1));
  EXPECT_TRUE(r.isReduction(1));
  EXPECT_FALSE(r.isReduction(0));
  EXPECT_TRUE(r.isNeedReplication(3));
  EXPECT_TRUE(r.isPermutation(2));
  EXPECT_TRUE(r.isBlocked(0));
  EXPECT_TRUE(r.isBlocked(2));
  EXPECT_FALSE(r.isBlocked(1));

  EXPECT_TRUE(r.hasDimensionsWithMultipleFactors());
  EXPECT_EQ(r.getTensorsWithFactor(0), (SmallVector<int64_t>{0, 1, 2}));
  EXPECT_EQ(r.getTensorsWithFactor(1), (SmallVector<int64_t>{0}));
  EXPECT_EQ(r.getTensorsWithFactor(5), (SmallVector<int64_t>{1, 3}));
  EXPECT_EQ(r.getOperandMapping(1).getDimOfFactor(5), 1);
  EXPECT_FALSE(rule("<([i, j])->([i, j]) {i=2, j=4}>")
                   .hasDimensionsWithMultipleFactors());
  EXPECT_FALSE(rule("<([i])->([i]) {i=2}>").isCustom());
  EXPECT_EQ(stringifyFactorType(FactorType::NeedReplication),
            "need_replication");
}

//===----------------------------------------------------------------------===//
// OpShardingRuleBuilder
//===----------------------------------------------------------------------===//

TEST_F(ShardingRuleTest, BuilderDot) {
  OpShardingRuleBuilder builder({tensor({8, 32}), tensor({32, 16})},
                                {tensor({8, 16})}, &context);
  EXPECT_EQ(builder.addFactor({0, kNull}, {0}, 8), 0);
  EXPECT_EQ(builder.addFactor({kNull, 1}, {1}, 16), 1);
  EXPECT_EQ(builder.addFactor({1, 0}, {kNull}, 32, FactorType::Reduction), 2);
  EXPECT_EQ(builder.getNumFactors(), 3);
  OpShardingRuleAttr built = builder.build();
  EXPECT_EQ(print(built), "#spmd.op_sharding_rule<([i, k], [k, j])->([i, j]) "
                          "{i=8, j=16, k=32} reduction={k}>");
  EXPECT_EQ(built, rule("<([i, k], [k, j])->([i, j]) {i=8, j=16, k=32} "
                        "reduction={k}>"));
}

TEST_F(ShardingRuleTest, BuilderCompoundDims) {
  // tensor<2x4> -> tensor<8>: the result dim is the compound `ij`.
  OpShardingRuleBuilder builder({tensor({2, 4})}, {tensor({8})}, &context);
  builder.addFactor({0}, {0}, 2);
  builder.addFactor({1}, {0}, 4);
  EXPECT_EQ(print(builder.build()),
            "#spmd.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>");
}

TEST_F(ShardingRuleTest, BuilderDropsSizeOneFactorsFromCompoundDims) {
  // tensor<2x1x4> -> tensor<8>: `j` stays on its own operand dim only.
  OpShardingRuleBuilder builder({tensor({2, 1, 4})}, {tensor({8})}, &context);
  builder.addFactor({0}, {0}, 2);
  builder.addFactor({1}, {0}, 1);
  builder.addFactor({2}, {0}, 4);
  EXPECT_EQ(print(builder.build()),
            "#spmd.op_sharding_rule<([i, j, k])->([ik]) {i=2, j=1, k=4}>");

  // A size-1 factor used only inside compound dims disappears and the later
  // factors are renumbered.
  OpShardingRuleBuilder dropped({tensor({8})}, {tensor({8})}, &context);
  dropped.addFactor({0}, {kNull}, 1);
  dropped.addFactor({0}, {0}, 8, FactorType::PassThrough, /*isBlocked=*/true);
  EXPECT_EQ(print(dropped.build()), "#spmd.op_sharding_rule<([i])->([i]) {i=8} "
                                    "blocked_propagation={i}>");
}

TEST_F(ShardingRuleTest, BuilderFillsUnmappedDims) {
  // top-k along dim 1: only the batch dim corresponds.
  OpShardingRuleBuilder builder({tensor({16, 8})},
                                {tensor({16, 1}), tensor({16, 1})}, &context);
  builder.addFactor({0}, {0, 0}, 16);
  EXPECT_EQ(print(builder.build()),
            "#spmd.op_sharding_rule<([i, j])->([i, k], [i, l]) {i=16, j=1, "
            "k=1, l=1}>");
}

TEST_F(ShardingRuleTest, BuilderFactorKindsAndCustom) {
  OpShardingRuleBuilder builder({tensor({2, 3, 5, 7})}, {tensor({2, 5, 7})},
                                &context);
  builder.addFactor({0}, {0}, 2, FactorType::NeedReplication);
  builder.addFactor({1}, {kNull}, 3, FactorType::Reduction);
  builder.addFactor({2}, {1}, 5, FactorType::Permutation, /*isBlocked=*/true);
  builder.addFactor({3}, {2}, 7, FactorType::PassThrough, /*isBlocked=*/true);
  builder.setCustom();
  OpShardingRuleAttr built = builder.build();
  EXPECT_EQ(print(built),
            "#spmd.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, "
            "k=5, l=7} reduction={j} need_replication={i} permutation={k} "
            "blocked_propagation={k, l}, custom>");
  EXPECT_EQ(parse<OpShardingRuleAttr>(print(built)), built);
}

TEST_F(ShardingRuleTest, BuilderPointwiseSkipsScalars) {
  Type f32 = Float32Type::get(&context);
  OpShardingRuleBuilder builder({tensor({4, 8}), tensor({}), f32},
                                {tensor({4, 8})}, &context);
  builder.addPointwise({4, 8});
  EXPECT_EQ(print(builder.build()),
            "#spmd.op_sharding_rule<([i, j], [], [])->([i, j]) {i=4, j=8}>");
}

TEST_F(ShardingRuleTest, BuildPointwiseFromOp) {
  Operation *op =
      createOp({tensor({2, 1, 4}), tensor({2, 1, 4})}, {tensor({2, 1, 4})});
  OpShardingRuleAttr built = OpShardingRuleBuilder::buildPointwise(op);
  EXPECT_EQ(print(built), "#spmd.op_sharding_rule<([i, j, k], [i, j, k])->"
                          "([i, j, k]) {i=2, j=1, k=4}>");
  EXPECT_TRUE(succeeded(verifyShardingRule(built, op)));
  op->destroy();

  // Mismatched shapes have no pointwise rule, nor have values that disagree
  // on which dimensions are dynamic.
  Operation *mismatch = createOp({tensor({2, 4})}, {tensor({4, 2})});
  EXPECT_FALSE(OpShardingRuleBuilder::buildPointwise(mismatch));
  mismatch->destroy();
  Operation *mixed =
      createOp({tensor({ShapedType::kDynamic, 4})}, {tensor({8, 4})});
  EXPECT_FALSE(OpShardingRuleBuilder::buildPointwise(mixed));
  mixed->destroy();

  // Dynamic dimensions become factors of size `?`.
  Operation *dynamic = createOp({tensor({ShapedType::kDynamic, 4})},
                                {tensor({ShapedType::kDynamic, 4})});
  OpShardingRuleAttr dynamicRule =
      OpShardingRuleBuilder::buildPointwise(dynamic);
  EXPECT_EQ(print(dynamicRule),
            "#spmd.op_sharding_rule<([i, j])->([i, j]) {i=?, j=4}>");
  EXPECT_TRUE(dynamicRule.isDynamicFactor(0));
  EXPECT_FALSE(dynamicRule.isDynamicFactor(1));
  EXPECT_TRUE(succeeded(verifyShardingRule(dynamicRule, dynamic)));
  dynamic->destroy();
}

} // namespace
