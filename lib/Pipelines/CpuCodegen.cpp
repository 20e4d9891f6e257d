//===- CpuCodegen.cpp - tile and vectorize linalg ops for a CPU -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `tessera-cpu-codegen` rewrites the linalg ops of a function on tensors into
// tiled loops of vector ops, with tile sizes derived from a CpuTarget:
//
// * Contractions (matmul, batch_matmul, generic contractions with any operand
//   layout; f32, f64, i32, i64) follow the GotoBLAS structure. The operand
//   that carries the output's innermost dimension n ("B") is packed into
//   panels of nr columns, contiguous along k; the other operand ("A") and the
//   accumulator ("C") keep their layout (C's packs are reshapes). The packed
//   op is tiled for the caches in the order n, k (a kc x nc block of B,
//   packed there into a buffer allocated once), then m (an mc x kc block of
//   A in half of L2), and then for the registers: for each panel, for each
//   mr rows, a k loop updates an mr x nr tile of C (nr = 4 vectors, mr rows
//   in half the registers) with one `vector.contract` per k. The tile is
//   hoisted out of the k loop, so it stays in registers. The columns that
//   do not fill a panel are a second, padded contraction.
//
// * Every other linalg op (elementwise, reductions, convolutions, pooling,
//   transposes, fills, copies) is tiled to one vector (4 registers) along the
//   loop that indexes the innermost dimension of most of its data and to 1
//   along the others, reductions innermost, so accumulators stay in
//   registers across them. A reduction along the vector loop accumulates
//   partial results in a vector, combined once after the loop. Windowed
//   accesses (convolutions, pooling) become plain ones once the tile's unit
//   parallel dimensions are dropped.
//
// Loops whose trip count the tile size may not divide are peeled: the main
// loop has static tiles; the remainder is vectorized with masks. An op that
// cannot be vectorized stays a (tiled) linalg op and becomes scalar loops
// after bufferization.
//
//===----------------------------------------------------------------------===//

#include "CpuTarget.h"

#include "tessera/Pipelines/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace mlir::tessera {

#define GEN_PASS_DEF_TESSERACPUCODEGENPASS
#include "tessera/Pipelines/Passes.h.inc"

namespace {

//===----------------------------------------------------------------------===//
// Target-derived sizes
//===----------------------------------------------------------------------===//

/// The size of `type` in bytes for the vector registers (at least 1).
int64_t getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return std::max<int64_t>(1,
                             llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
  return 8;
}

/// The number of elements of `bytes` bytes in a vector register.
int64_t getLanes(const CpuTarget &target, int64_t bytes) {
  return std::max<int64_t>(1, target.vectorBits / 8 / bytes);
}

/// The widest element type of `op`'s operands, in bytes.
int64_t getWidestElementBytes(linalg::LinalgOp op) {
  int64_t bytes = 1;
  for (Value operand : op->getOperands())
    bytes = std::max(bytes, getElementBytes(getElementTypeOrSelf(operand)));
  return bytes;
}

/// The register and cache tiles of a contraction on `bytes`-byte elements.
struct ContractionTiles {
  int64_t mr, nr;        // The accumulator tile: mr x nr elements in registers.
  int64_t vectorsPerRow; // nr in vectors.
  int64_t mc, kc;        // The A block (mc x kc) and B micro-panel (kc x nr).
  int64_t nc;            // The B block (kc x nc), in units of elements.
};

ContractionTiles getContractionTiles(const CpuTarget &target, int64_t bytes) {
  ContractionTiles tiles;
  int64_t lanes = getLanes(target, bytes);
  int64_t registers = target.vectorRegisters;
  // nr: as many vectors across n as leave room for enough rows; with 32
  // registers, 4 vectors (one cache line each for f32 on AVX-512).
  int64_t vectorsPerRow = std::max<int64_t>(1, registers / 8);
  tiles.vectorsPerRow = vectorsPerRow;
  tiles.nr = lanes * vectorsPerRow;
  // mr: rows of accumulators in half the registers; the rest hold the B
  // vectors and the broadcast A elements while the loads are in flight.
  tiles.mr = std::max<int64_t>(1, registers / 2 / vectorsPerRow);
  // kc: the B micro-panel (kc x nr), which every strip of an A block
  // reuses, streams from L2; twice the size of L1 keeps it a small part of
  // L2 and makes the passes over C (one per k block) few. The strip of A
  // (mr x kc) stays in a quarter of L1.
  tiles.kc = std::max<int64_t>(
      16, std::min(2 * target.l1CacheBytes / (tiles.nr * bytes),
                   target.l1CacheBytes / 4 / (tiles.mr * bytes)));
  // mc: the A block (mc x kc) in half of L2, a multiple of mr.
  tiles.mc =
      std::max<int64_t>(tiles.mr, target.l2CacheBytes / 2 / (tiles.kc * bytes) /
                                      tiles.mr * tiles.mr);
  // nc: the B block (kc x nc), packed once for all the A blocks, the size of
  // L2, a multiple of nr.
  tiles.nc = std::max<int64_t>(
      tiles.nr, target.l2CacheBytes / (tiles.kc * bytes) / tiles.nr * tiles.nr);
  return tiles;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Tiles `op` by `sizes` (0: not tiled) with loops in the order `order`
/// (outermost first; every loop dimension once) and replaces it.
FailureOr<scf::SCFTilingResult> tile(RewriterBase &rewriter, TilingInterface op,
                                     ArrayRef<int64_t> sizes,
                                     ArrayRef<int64_t> order) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  options.setInterchange(order);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, op, options);
  if (failed(result))
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return result;
}

/// Peels the iterations of `loop` that may not make a full step, and
/// returns the op of type `OpTy` (the tile) of the remainder loop (null when
/// there is none). The tiles of the main loop become static.
template <typename OpTy> OpTy peel(RewriterBase &rewriter, scf::ForOp loop) {
  scf::ForOp remainder;
  if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, remainder)))
    return nullptr;
  OpTy found;
  remainder.walk([&](OpTy op) {
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

/// Vectorizes `op` with the vector shape `sizes` (masked where the op's
/// shape is dynamic) and replaces it. Returns failure, leaving `op`, when the
/// vectorizer does not support it.
LogicalResult vectorizeTile(RewriterBase &rewriter, linalg::LinalgOp op,
                            ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> shape = op.getStaticLoopRanges();
  SmallVector<int64_t> vectorSizes;
  bool masked = false;
  for (auto [size, extent] : llvm::zip_equal(sizes, shape)) {
    if (ShapedType::isDynamic(extent)) {
      masked = true;
      vectorSizes.push_back(size);
    } else {
      vectorSizes.push_back(extent);
    }
  }
  if (!masked)
    vectorSizes.clear();
  // The vectorizer reads one scalable flag per vector dimension.
  SmallVector<bool> scalable(vectorSizes.size(), false);
  if (failed(linalg::vectorizeOpPrecondition(op, vectorSizes, scalable)))
    return failure();
  FailureOr<linalg::VectorizationResult> result =
      linalg::vectorize(rewriter, op, vectorSizes, scalable);
  if (failed(result))
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return success();
}

/// Drops the parallel unit loop dimensions of `op`, so that windowed
/// accesses (`d1 + d4` with unit d1) become plain dimensions. The reductions
/// stay: a multiply-reduction remains a contraction (FMAs).
linalg::LinalgOp dropUnitDims(RewriterBase &rewriter, linalg::GenericOp op) {
  linalg::ControlDropUnitDims control;
  control.controlFn = [](Operation *op) {
    SmallVector<unsigned> parallel;
    for (auto [d, iterator] :
         llvm::enumerate(cast<linalg::LinalgOp>(op).getIteratorTypesArray()))
      if (iterator == utils::IteratorType::parallel)
        parallel.push_back(d);
    return parallel;
  };
  control.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::DropUnitDimsResult> result =
      linalg::dropUnitDims(rewriter, op, control);
  if (failed(result))
    return op;
  rewriter.replaceOp(op, result->replacements);
  return cast<linalg::LinalgOp>(result->resultOp.getOperation());
}

/// Replaces a `linalg.transpose` by the identity permutation with its input.
void foldIdentityTranspose(RewriterBase &rewriter,
                           linalg::TransposeOp transpose) {
  if (transpose &&
      llvm::equal(transpose.getPermutation(),
                  llvm::seq<int64_t>(0, transpose.getPermutation().size())))
    rewriter.replaceOp(transpose, transpose.getInput());
}

/// Replaces a pad of a fill by the fill's value (C's usual initial value,
/// padded to whole panels) with a fill of the padded shape.
void foldPaddedFill(RewriterBase &rewriter, tensor::PadOp pad) {
  auto fill = pad.getSource().getDefiningOp<linalg::FillOp>();
  Value padValue = pad.getConstantPaddingValue();
  if (!fill || !padValue)
    return;
  Attribute fillConstant, padConstant;
  if (fill.value() != padValue &&
      !(matchPattern(fill.value(), m_Constant(&fillConstant)) &&
        matchPattern(padValue, m_Constant(&padConstant)) &&
        fillConstant == padConstant))
    return;
  ReifiedRankedShapedTypeDims shape;
  rewriter.setInsertionPoint(pad);
  if (failed(reifyResultShapes(rewriter, pad, shape)))
    return;
  Value empty = tensor::EmptyOp::create(rewriter, pad.getLoc(), shape[0],
                                        pad.getResultType().getElementType());
  rewriter.replaceOpWithNewOp<linalg::FillOp>(pad, fill.value(), empty);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// A contraction packed for the register kernel, and the role of each of
/// its loops.
struct PackedContraction {
  linalg::LinalgOp op;
  /// The input that is B.
  unsigned bIndex;
  /// The pack of B into panels.
  linalg::PackOp bPack;
  enum Role { Batch, M, N, K, Panel };
  SmallVector<Role> roles;
  /// The loops tiled for the caches and registers: the innermost m loop of
  /// C, the panels of B (the outer part of the innermost n loop), and the
  /// innermost k loop of B.
  unsigned m, n, k;
  /// The loop of each outer dimension of B's panels.
  SmallVector<unsigned> bLoops;
  ContractionTiles tiles;
};

/// The roles of the loops of a contraction the register kernel supports:
/// two inputs and an output of one element type with FMAs, projected
/// permutations, and an innermost output dimension that indexes one input.
FailureOr<PackedContraction> analyzeContraction(linalg::LinalgOp op,
                                                const CpuTarget &target) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return failure();
  // The kernel accumulates in registers of the element type: 16-bit floats
  // (computed in f32 registers) and narrow integers (which widen) would not
  // fit its register tile.
  Type elementType = getElementTypeOrSelf(op->getResult(0));
  for (Value input : op.getDpsInputs())
    if (getElementTypeOrSelf(input) != elementType)
      return failure();
  if (!elementType.isF32() && !elementType.isF64() &&
      !elementType.isInteger(32) && !elementType.isInteger(64))
    return failure();

  // n: the innermost dimension of C; B: the input that has it.
  AffineMap cMap = op.getIndexingMapMatchingResult(op->getResult(0));
  if (cMap.getNumResults() == 0)
    return failure();
  auto nExpr = dyn_cast<AffineDimExpr>(cMap.getResults().back());
  if (!nExpr)
    return failure();
  unsigned n = nExpr.getPosition();
  AffineMap inputMaps[2] = {op.getIndexingMapsArray()[0],
                            op.getIndexingMapsArray()[1]};
  bool nInInput[2] = {inputMaps[0].isFunctionOfDim(n),
                      inputMaps[1].isFunctionOfDim(n)};
  if (nInInput[0] == nInInput[1])
    return failure();
  unsigned bIndex = nInInput[1] ? 1 : 0;
  AffineMap aMap = inputMaps[1 - bIndex], bMap = inputMaps[bIndex];

  PackedContraction packed;
  unsigned numLoops = op.getNumLoops();
  for (unsigned d = 0; d < numLoops; ++d) {
    bool inA = aMap.isFunctionOfDim(d), inB = bMap.isFunctionOfDim(d),
         inC = cMap.isFunctionOfDim(d);
    if (inA && inB && inC)
      packed.roles.push_back(PackedContraction::Batch);
    else if (inA && !inB && inC)
      packed.roles.push_back(PackedContraction::M);
    else if (!inA && inB && inC)
      packed.roles.push_back(PackedContraction::N);
    else if (inA && inB && !inC)
      packed.roles.push_back(PackedContraction::K);
    else
      return failure();
  }
  // The innermost m dimension of C and k dimension of B.
  auto innermost =
      [&](AffineMap map,
          PackedContraction::Role role) -> std::optional<unsigned> {
    for (AffineExpr e : llvm::reverse(map.getResults()))
      if (packed.roles[cast<AffineDimExpr>(e).getPosition()] == role)
        return cast<AffineDimExpr>(e).getPosition();
    return std::nullopt;
  };
  std::optional<unsigned> m = innermost(cMap, PackedContraction::M);
  std::optional<unsigned> k = innermost(bMap, PackedContraction::K);
  if (!m || !k)
    return failure();
  packed.op = op;
  packed.bIndex = bIndex;
  packed.m = *m;
  packed.n = n;
  packed.k = *k;
  packed.tiles = getContractionTiles(target, getElementBytes(elementType));
  return packed;
}

/// Packs the "B" operand of `packed.op` into panels of `nr` columns,
/// contiguous along k, and lowers the pack of C and the unpack to reshapes.
LogicalResult packContraction(RewriterBase &rewriter,
                              PackedContraction &packed) {
  linalg::LinalgOp op = packed.op;
  unsigned numLoops = op.getNumLoops(), n = packed.n, bIndex = packed.bIndex;
  AffineMap bMap = op.getIndexingMapsArray()[bIndex];

  // Pack n by nr: B becomes [..., N/nr, ..., nr] and C [..., N/nr, nr].
  SmallVector<OpFoldResult> packSizes(numLoops, rewriter.getIndexAttr(0));
  packSizes[n] = rewriter.getIndexAttr(packed.tiles.nr);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::PackResult> packResult =
      linalg::pack(rewriter, op, packSizes);
  if (failed(packResult))
    return failure();
  linalg::LinalgOp packedOp = packResult->packedLinalgOp;
  packed.roles.push_back(PackedContraction::Panel);

  // B's panels: batch dimensions, then n, then k, so that a panel is
  // contiguous along k.
  auto bPack = packedOp.getDpsInputs()[bIndex].getDefiningOp<linalg::PackOp>();
  SmallVector<int64_t> outerPerm;
  for (PackedContraction::Role role :
       {PackedContraction::Batch, PackedContraction::N, PackedContraction::K})
    for (unsigned result = 0; result < bMap.getNumResults(); ++result)
      if (packed.roles[bMap.getDimPosition(result)] == role)
        outerPerm.push_back(result);
  if (!llvm::equal(outerPerm, llvm::seq<int64_t>(0, outerPerm.size()))) {
    FailureOr<linalg::PackTransposeResult> transposed = linalg::packTranspose(
        rewriter, bPack, packedOp, /*maybeUnPackOp=*/nullptr, outerPerm,
        /*innerPerm=*/{});
    if (failed(transposed))
      return failure();
    packedOp = transposed->transposedLinalgOp;
    bPack = transposed->transposedPackOp;
  }
  packed.op = packedOp;
  packed.bPack = bPack;
  for (int64_t result : outerPerm)
    packed.bLoops.push_back(bMap.getDimPosition(result));

  // C's pack and unpack only reshape (and pad and slice, when nr does not
  // divide N).
  auto cPack = packedOp.getDpsInits()[0].getDefiningOp<linalg::PackOp>();
  rewriter.setInsertionPoint(cPack);
  FailureOr<linalg::LowerPackResult> loweredPack =
      linalg::lowerPack(rewriter, cPack);
  if (failed(loweredPack))
    return failure();
  foldIdentityTranspose(rewriter, loweredPack->transposeOp);
  if (loweredPack->padOp)
    foldPaddedFill(rewriter, loweredPack->padOp);
  for (Operation *user : llvm::make_early_inc_range(packedOp->getUsers())) {
    auto unpack = dyn_cast<linalg::UnPackOp>(user);
    if (!unpack)
      continue;
    rewriter.setInsertionPoint(unpack);
    FailureOr<linalg::LowerUnPackOpResult> lowered =
        linalg::lowerUnPack(rewriter, unpack);
    if (failed(lowered))
      return failure();
    foldIdentityTranspose(rewriter, lowered->transposeOp);
    // The unpacked value is copied into the unpack's destination, which it
    // covers: the copy is the value.
    Value unpacked = lowered->extractSliceOp
                         ? lowered->extractSliceOp.getResult()
                         : lowered->collapseShapeOp.getResult();
    for (Operation *copyUser : llvm::make_early_inc_range(unpacked.getUsers()))
      if (auto copy = dyn_cast<linalg::CopyOp>(copyUser))
        if (copy->getResult(0).getType() == unpacked.getType())
          rewriter.replaceOp(copy, unpacked);
  }
  return success();
}

/// Packs the contraction `op` for the register kernel. The columns of C
/// that do not fill a panel are split off into a second contraction (whose
/// only panel is padded), so that the first one works on C in place.
SmallVector<PackedContraction> packContraction(RewriterBase &rewriter,
                                               linalg::LinalgOp op,
                                               const CpuTarget &target) {
  FailureOr<PackedContraction> analysis = analyzeContraction(op, target);
  if (failed(analysis))
    return {};
  int64_t nr = analysis->tiles.nr;
  int64_t extent = op.getStaticLoopRanges()[analysis->n];
  SmallVector<linalg::LinalgOp> parts = {op};
  if (ShapedType::isDynamic(extent) || (extent > nr && extent % nr != 0)) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    OpFoldResult size = op.createLoopRanges(rewriter, loc)[analysis->n].size;
    AffineExpr d0 = rewriter.getAffineDimExpr(0);
    OpFoldResult splitPoint = affine::makeComposedFoldedAffineApply(
        rewriter, loc, d0.floorDiv(nr) * nr, {size});
    auto [whole, rest] =
        linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()),
                        analysis->n, splitPoint);
    parts = {cast<linalg::LinalgOp>(whole.getOperation()),
             cast<linalg::LinalgOp>(rest.getOperation())};
  }
  SmallVector<PackedContraction> packed;
  for (linalg::LinalgOp part : parts) {
    PackedContraction contraction = *analysis;
    contraction.op = part;
    if (succeeded(packContraction(rewriter, contraction)))
      packed.push_back(contraction);
  }
  return packed;
}

/// Packs the block of B the tile of `pack` covers into a buffer of the
/// block's static size (which bufferization allocates once, out of the
/// loops), `rows` rows of k at a time, with masked vector transfers.
void vectorizeBlockPack(RewriterBase &rewriter, linalg::PackOp pack,
                        ArrayRef<int64_t> blockShape, unsigned kDim,
                        int64_t rows) {
  Location loc = pack.getLoc();
  RankedTensorType destType = pack.getDestType();
  rewriter.setInsertionPoint(pack);
  Value buffer = bufferization::AllocTensorOp::create(
      rewriter, loc,
      RankedTensorType::get(blockShape, destType.getElementType()),
      ValueRange());
  SmallVector<OpFoldResult> zeros(destType.getRank(), rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(destType.getRank(), rewriter.getIndexAttr(1));
  Value dest = tensor::ExtractSliceOp::create(
      rewriter, loc, destType, buffer, zeros,
      tensor::getMixedSizes(rewriter, loc, pack.getDest()), ones);
  rewriter.modifyOpInPlace(pack, [&] { pack.getDestMutable().assign(dest); });

  int64_t outerRank = pack.getSourceRank();
  SmallVector<int64_t> sizes(outerRank, 1);
  sizes[kDim] = std::min(rows, blockShape[kDim]);
  SmallVector<int64_t> vectorSizes = sizes;
  llvm::append_range(vectorSizes, pack.getStaticInnerTiles());
  SmallVector<int64_t> order =
      llvm::to_vector(llvm::seq<int64_t>(0, outerRank));
  FailureOr<scf::SCFTilingResult> tiled =
      tile(rewriter, cast<TilingInterface>(pack.getOperation()), sizes, order);
  if (failed(tiled))
    return;
  SmallVector<linalg::PackOp> rowPacks = {
      cast<linalg::PackOp>(tiled->tiledOps.back())};
  // The rows of the last block of k that do not make a full step: masked.
  if (auto remainder = peel<linalg::PackOp>(
          rewriter, cast<scf::ForOp>(tiled->loops[kDim].getOperation())))
    rowPacks.push_back(remainder);
  SmallVector<bool> scalable(vectorSizes.size(), false);
  for (linalg::PackOp rowPack : rowPacks) {
    if (failed(linalg::vectorizeOpPrecondition(rowPack, vectorSizes, scalable)))
      continue;
    FailureOr<linalg::VectorizationResult> result =
        linalg::vectorize(rewriter, rowPack, vectorSizes, scalable);
    if (succeeded(result))
      rewriter.replaceOp(rowPack, result->replacements);
  }
}

/// Tiles a packed contraction for the caches and the registers, packs the
/// blocks of B inside the cache loops, and vectorizes the register tiles.
void tileAndVectorizeContraction(RewriterBase &rewriter,
                                 PackedContraction &packed) {
  using Role = PackedContraction::Role;
  const ContractionTiles &tiles = packed.tiles;
  unsigned numLoops = packed.roles.size();
  auto loopsWithRole = [&](Role role, unsigned except) {
    SmallVector<int64_t> loops;
    for (unsigned d = 0; d < numLoops; ++d)
      if (packed.roles[d] == role && d != except)
        loops.push_back(d);
    return loops;
  };
  unsigned m = packed.m, n = packed.n, k = packed.k, panel = numLoops - 1;

  // The blocks of B, GotoBLAS's loop order: n, then k. Each block is packed
  // in the k loop, into a buffer reused by every block.
  SmallVector<int64_t> sizes(numLoops, 0);
  for (unsigned d = 0; d < numLoops; ++d)
    if (packed.roles[d] != Role::M && d != panel)
      sizes[d] = 1;
  sizes[n] = std::max<int64_t>(1, tiles.nc / tiles.nr);
  sizes[k] = tiles.kc;
  SmallVector<int64_t> order = loopsWithRole(Role::Batch, numLoops);
  llvm::append_range(order, loopsWithRole(Role::N, n));
  order.push_back(n);
  llvm::append_range(order, loopsWithRole(Role::K, k));
  order.push_back(k);
  llvm::append_range(order, loopsWithRole(Role::M, numLoops));
  order.push_back(panel);
  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.tilingOptions.setInterchange(order);
  Operation *bPack = packed.bPack;
  RankedTensorType bPackedType = packed.bPack.getDestType();
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (producer.getOwner() != bPack)
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(packed.op);
  FailureOr<scf::SCFTileAndFuseResult> blocks =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(packed.op.getOperation()), options);
  if (failed(blocks))
    return;
  for (auto [original, replacement] : blocks->replacements)
    rewriter.replaceAllUsesWith(original, replacement);
  rewriter.eraseOp(packed.op);
  if (bPack->use_empty())
    rewriter.eraseOp(bPack);
  linalg::LinalgOp blockOp;
  for (Operation *op : blocks->tiledAndFusedOps) {
    if (auto pack = dyn_cast<linalg::PackOp>(op)) {
      // The block: the cache tile of each dimension, or the whole dimension
      // where it is smaller.
      SmallVector<int64_t> blockShape;
      for (auto [dim, loop] : llvm::enumerate(packed.bLoops)) {
        int64_t extent = bPackedType.getDimSize(dim);
        blockShape.push_back(ShapedType::isDynamic(extent)
                                 ? sizes[loop]
                                 : std::min(sizes[loop], extent));
      }
      blockShape.push_back(tiles.nr);
      unsigned kDim = llvm::find(packed.bLoops, k) - packed.bLoops.begin();
      vectorizeBlockPack(rewriter, pack, blockShape, kDim,
                         tiles.nr / tiles.vectorsPerRow);
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      blockOp = linalgOp;
    }
  }
  if (!blockOp)
    return;

  // The blocks of A: mc rows.
  SmallVector<int64_t> mSizes(numLoops, 0);
  for (int64_t d : loopsWithRole(Role::M, m))
    mSizes[d] = 1;
  mSizes[m] = tiles.mc;
  SmallVector<int64_t> mOrder = loopsWithRole(Role::M, m);
  mOrder.push_back(m);
  for (unsigned d = 0; d < numLoops; ++d)
    if (packed.roles[d] != Role::M)
      mOrder.push_back(d);
  FailureOr<scf::SCFTilingResult> aBlocks = tile(
      rewriter, cast<TilingInterface>(blockOp.getOperation()), mSizes, mOrder);
  if (failed(aBlocks))
    return;

  // Register tiles: for each panel of B, for each mr rows of A, the k loop
  // accumulates an mr x nr tile of C.
  SmallVector<int64_t> registerSizes(numLoops, 0);
  registerSizes[m] = tiles.mr;
  registerSizes[n] = 1;
  registerSizes[k] = 1;
  SmallVector<int64_t> registerOrder = {n, m, k};
  for (unsigned d = 0; d < numLoops; ++d)
    if (d != m && d != n && d != k)
      registerOrder.push_back(d);
  FailureOr<scf::SCFTilingResult> registerTiles =
      tile(rewriter, cast<TilingInterface>(aBlocks->tiledOps.back()),
           registerSizes, registerOrder);
  if (failed(registerTiles))
    return;
  auto kernel = cast<linalg::LinalgOp>(registerTiles->tiledOps.back());

  SmallVector<int64_t> vectorSizes(numLoops, 1);
  vectorSizes[m] = tiles.mr;
  vectorSizes[panel] = tiles.nr;
  // The rows that do not fill a register tile: masked.
  auto mLoop = cast<scf::ForOp>(registerTiles->loops[1].getOperation());
  if (linalg::LinalgOp remainder = peel<linalg::LinalgOp>(rewriter, mLoop))
    (void)vectorizeTile(rewriter, remainder, vectorSizes);
  (void)vectorizeTile(rewriter, kernel, vectorSizes);
}

//===----------------------------------------------------------------------===//
// Other linalg ops
//===----------------------------------------------------------------------===//

/// The loop to vectorize along: the one that indexes the innermost
/// dimension of most of the op's data (operands weighted by rank), parallel
/// before reduction on ties, then the innermost.
unsigned getVectorLoop(linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> weight(numLoops, 0);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.getNumResults() == 0)
      continue;
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
      weight[dim.getPosition()] += map.getNumResults();
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned best = numLoops - 1;
  auto key = [&](unsigned d) {
    return std::make_tuple(weight[d],
                           iterators[d] == utils::IteratorType::parallel, d);
  };
  for (unsigned d = 0; d < numLoops; ++d)
    if (key(d) > key(best))
      best = d;
  return best;
}

/// True if every result of the reduction `op` combines into its accumulator
/// with one op that has a neutral element (the form partial-reduction
/// tiling needs; asked first so that the tiling does not report an error
/// when it has none, as for a select on a comparison with the accumulator).
bool hasPartialReductionForm(linalg::LinalgOp op) {
  SmallVector<BlockArgument> outputs(op.getRegionOutputArgs());
  for (unsigned i = 0, e = op.getNumDpsInits(); i < e; ++i) {
    SmallVector<Operation *, 4> combiners;
    if (!matchReduction(outputs, i, combiners) || combiners.size() != 1 ||
        !arith::getNeutralElement(combiners[0]))
      return false;
  }
  return true;
}

/// Tiles `op` to 1 along every loop but `vectorLoop`, a reduction, along
/// which `vector` partial results accumulate (the reduction is reassociated)
/// and are combined after the loop, and vectorizes the tiles. Where the
/// reduction has no partial form (an unknown combiner) or must not be
/// reassociated (floats narrower than f32, whose rounding would differ from
/// the scalar order's far more than f32's), the tiles along `vectorLoop`
/// reduce to one value each, in order.
void tileAndVectorizeReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                               unsigned vectorLoop, int64_t vector,
                               ArrayRef<int64_t> order) {
  Type elementType = getElementTypeOrSelf(op.getDpsInits()[0]);
  bool reassociate = (!isa<FloatType>(elementType) ||
                      elementType.getIntOrFloatBitWidth() >= 32) &&
                     hasPartialReductionForm(op);
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> sizes(numLoops, 1);
  sizes[vectorLoop] = 0;
  FailureOr<scf::SCFTilingResult> rows =
      tile(rewriter, cast<TilingInterface>(op.getOperation()), sizes, order);
  if (failed(rows))
    return;
  auto row = cast<TilingInterface>(rows->tiledOps.back());

  SmallVector<int64_t> vectorSizes(numLoops, 1);
  vectorSizes[vectorLoop] = vector;
  SmallVector<int64_t> partialSizes(numLoops, 0);
  partialSizes[vectorLoop] = vector;
  scf::SCFTilingOptions options;
  options.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), partialSizes));
  options.setReductionTilingStrategy(
      ReductionTilingStrategy::PartialReductionOuterReduction);
  options.setReductionDims({vectorLoop});
  rewriter.setInsertionPoint(row);
  FailureOr<scf::SCFTilingResult> partial =
      reassociate ? scf::tileUsingSCF(rewriter, row, options)
                  : FailureOr<scf::SCFTilingResult>(failure());
  if (failed(partial)) {
    FailureOr<scf::SCFTilingResult> tiled =
        tile(rewriter, row, partialSizes, order);
    if (failed(tiled))
      return;
    partial = tiled;
  } else {
    rewriter.replaceOp(row, partial->replacements);
  }
  SmallVector<linalg::LinalgOp> tiles = {
      cast<linalg::LinalgOp>(partial->tiledOps.back())};
  if (!partial->loops.empty()) {
    auto loop = cast<scf::ForOp>(partial->loops.front().getOperation());
    if (linalg::LinalgOp remainder = peel<linalg::LinalgOp>(rewriter, loop))
      tiles.push_back(remainder);
  }
  for (linalg::LinalgOp tileOp : tiles)
    (void)vectorizeTile(rewriter, tileOp, vectorSizes);
  // The neutral initial partial results, and their combination.
  for (Value init : partial->initialValues)
    if (auto fill = init.getDefiningOp<linalg::FillOp>())
      (void)vectorizeTile(rewriter, fill, vectorSizes);
  for (Operation *merge : partial->mergeOps)
    if (auto mergeOp = dyn_cast<linalg::LinalgOp>(merge))
      (void)vectorizeTile(rewriter, mergeOp,
                          SmallVector<int64_t>(mergeOp.getNumLoops(), vector));
}

/// Tiles `op` to one vector along its vector loop and 1 along the others
/// (reductions innermost) and vectorizes the tiles.
void tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op,
                      const CpuTarget &target) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops == 0 || !op.hasPureTensorSemantics())
    return;
  // Vectors of sub-byte elements (i1) are bit-packed in LLVM's memory
  // accesses, unlike their buffers (a byte each): left to scalar loops.
  if (llvm::any_of(op->getOperands(), [](Value operand) {
        Type type = getElementTypeOrSelf(operand);
        return type.isIntOrFloat() && type.getIntOrFloatBitWidth() < 8;
      }))
    return;
  unsigned vectorLoop = getVectorLoop(op);
  int64_t vector = 4 * getLanes(target, getWidestElementBytes(op));
  int64_t extent = op.getStaticLoopRanges()[vectorLoop];
  if (!ShapedType::isDynamic(extent))
    vector = std::min(vector, extent);

  SmallVector<int64_t> sizes(numLoops, 1);
  sizes[vectorLoop] = vector;
  SmallVector<int64_t> order;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < numLoops; ++d)
    if (iterators[d] == utils::IteratorType::parallel)
      order.push_back(d);
  for (unsigned d = 0; d < numLoops; ++d)
    if (iterators[d] != utils::IteratorType::parallel)
      order.push_back(d);

  // Convolutions and other ops with windowed accesses: generic ops whose
  // unit dimensions can be dropped once tiled.
  bool windowed = !op.hasOnlyProjectedPermutations();
  if (iterators[vectorLoop] == utils::IteratorType::reduction && !windowed)
    return tileAndVectorizeReduction(rewriter, op, vectorLoop, vector, order);
  auto tilingOp = dyn_cast<TilingInterface>(op.getOperation());
  if (!tilingOp)
    return;
  FailureOr<scf::SCFTilingResult> tiled =
      tile(rewriter, tilingOp, sizes, order);
  if (failed(tiled))
    return;
  SmallVector<linalg::LinalgOp> tiles = {
      cast<linalg::LinalgOp>(tiled->tiledOps.back())};
  auto loop = cast<scf::ForOp>(
      tiled->loops[llvm::find(order, vectorLoop) - order.begin()]
          .getOperation());
  if (linalg::LinalgOp remainder = peel<linalg::LinalgOp>(rewriter, loop))
    tiles.push_back(remainder);

  SmallVector<int64_t> vectorSizes(numLoops, 1);
  vectorSizes[vectorLoop] = vector;
  for (linalg::LinalgOp tileOp : tiles) {
    if (!windowed) {
      (void)vectorizeTile(rewriter, tileOp, vectorSizes);
      continue;
    }
    rewriter.setInsertionPoint(tileOp);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, tileOp);
    if (failed(generic))
      continue;
    linalg::LinalgOp reduced = dropUnitDims(rewriter, *generic);
    if (reduced.hasOnlyProjectedPermutations())
      (void)vectorizeTile(rewriter, reduced,
                          SmallVector<int64_t>(reduced.getNumLoops(), vector));
  }
}

//===----------------------------------------------------------------------===//
// Clean-up
//===----------------------------------------------------------------------===//

/// Canonicalization patterns of every loaded dialect and op, plus the vector
/// and loop simplifications the kernels need.
void populateCleanupPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  scf::populateSCFForLoopCanonicalizationPatterns(patterns);
}

/// Hoists loop-invariant code and the accumulators (the slices and vector
/// transfers of loop-carried tensors at invariant positions) out of every
/// loop, innermost first.
void hoistAccumulators(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
    hoistLoopInvariantSubsets(rewriter,
                              cast<LoopLikeOpInterface>(loop.getOperation()));
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct TesseraCpuCodegenPass
    : public impl::TesseraCpuCodegenPassBase<TesseraCpuCodegenPass> {
  using TesseraCpuCodegenPassBase::TesseraCpuCodegenPassBase;

  /// The target: the host's, with the properties the options set replaced.
  LogicalResult initialize(MLIRContext *) override {
    target = CpuTarget::getHost(vectorBits, vectorRegisters, l1CacheBytes,
                                l2CacheBytes);
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    IRRewriter rewriter(context);

    // Contractions first: packing adds the ops that copy B into panels.
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    SmallVector<PackedContraction> contractions;
    DenseSet<Operation *> packedOps;
    for (linalg::LinalgOp op : ops) {
      for (PackedContraction &packed : packContraction(rewriter, op, target)) {
        contractions.push_back(packed);
        packedOps.insert(packed.op);
      }
    }
    ops.clear();
    func.walk([&](linalg::LinalgOp op) {
      if (!packedOps.contains(op))
        ops.push_back(op);
    });
    for (PackedContraction &packed : contractions)
      tileAndVectorizeContraction(rewriter, packed);
    for (linalg::LinalgOp op : ops)
      tileAndVectorize(rewriter, op, target);
    // Packs that are left (written so, or of a contraction that could not be
    // tiled) do not bufferize: pads, reshapes and transposes.
    SmallVector<Operation *> packs;
    func.walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        packs.push_back(op);
    });
    for (Operation *op : packs) {
      rewriter.setInsertionPoint(op);
      if (auto pack = dyn_cast<linalg::PackOp>(op))
        (void)linalg::lowerPack(rewriter, pack);
      else
        (void)linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op));
    }

    // Masked transfers take their masks as operands (canonicalizations of
    // the tensors they access do not preserve `vector.mask` regions).
    RewritePatternSet maskPatterns(context);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(maskPatterns);
    (void)applyPatternsGreedily(func, std::move(maskPatterns));

    // Multiply-reductions become contractions; then the accumulators leave
    // the reduction loops.
    RewritePatternSet patterns(context);
    vector::populateVectorReductionToContractPatterns(patterns);
    populateCleanupPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    (void)applyPatternsGreedily(func, frozen);
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, func);
    hoistAccumulators(rewriter, func);
    (void)applyPatternsGreedily(func, frozen);
  }

  CpuTarget target;
};

} // namespace

} // namespace mlir::tessera
