//===- Passes.td - spmd passes -----------------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_PASSES_TD
#define TESSERA_DIALECT_SPMD_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpmdPrintTypesPass : Pass<"spmd-print-types"> {
  let summary = "Emits a remark with the JAX-style type of every op result";
  let description = [{
    The `jax.typeof` of every value: for each op with results (nested regions
    included), emits one remark at the op's location whose message is exactly
    the JAX-style type of its results, joined by `, ` when there are several.
    A value's sharding is the one `spmd::getSharding` finds (a func argument's
    `spmd.sharding`, the sharding an op such as `spmd.reshard` carries, or the
    op's `spmd.sharding` / `spmd.out_sharding` attribute); a value without one
    prints unsharded. Ops without a source location (such as the implicit
    bodies of named linalg ops) get no remark. The pass changes nothing.

    The type is JAX's `str_short(short_dtypes=True)`: short dtype names,
    `N@axis` / `N@(a,b)` for sharded dimensions, `{U:x}` (`U_max`, `U_min`)
    for unreduced axes, `?` (or a symbolic name, when the dialect that knows
    symbolic shapes provides one) for dynamic dimensions. Like JAX, only
    Explicit mesh axes are shown; `all-axes` shows Auto and Manual axes too.

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, auto]>
    func.func @f(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
      // remark: f32[8@x,4]        (with all-axes=true: f32[8@x,4@y])
      %0 = math.tanh %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"} ]>]>} : tensor<8x4xf32>
      // remark: f32[8,4]
      %1 = arith.negf %0 : tensor<8x4xf32>
      return %1 : tensor<8x4xf32>
    }
    ```

    Tests check the remarks with `--verify-diagnostics` and
    `// expected-remark @+1 {{f32[8@x,4]}}`.
  }];
  let options = [
    Option<"allAxes", "all-axes", "bool", /*default=*/"false",
           "Also show Auto and Manual mesh axes (JAX erases them from types)">
  ];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdAnnotateShardingRulesPass : Pass<"spmd-annotate-sharding-rules"> {
  let summary = "Attaches the sharding rule of every op that has one";
  let description = [{
    Writes the factor-based rule of every op (nested regions included) into
    its `spmd.sharding_rule` attribute, as `spmd::getShardingRule` computes it
    from the op's ShardingRuleOpInterface model. An op that already carries
    a rule keeps it (a user-written rule overrides the model); ops without a
    rule (no model, or a model that has no rule for this instance, such as a
    dynamic shape) are left alone. Useful to see how propagation and
    partitioning will treat each op, and to pin a rule before editing it.

    ```mlir
    // Input:
    %0 = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x16xf32>)
                       outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
    // Output:
    %0 = linalg.matmul {spmd.sharding_rule = #spmd.op_sharding_rule<
        ([i, k], [k, j], [i, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>}
        ins(...) outs(...) -> tensor<8x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdLiftInlinedMeshesPass : Pass<"spmd-lift-inlined-meshes", "ModuleOp"> {
  let summary = "Gives every mesh one symbol (lifts inlined meshes)";
  let description = [{
    The import step that makes equal shardings pointer-equal. Afterwards
    every sharding in the module names its mesh by symbol, and no two
    `spmd.mesh` symbols hold the same mesh:

    - an `spmd.mesh` whose mesh equals an earlier one is erased, and the
      shardings that named it name the earlier one;
    - a mesh inlined in a sharding (`#spmd.sharding<mesh<["x"=2]>, ...>`) is
      replaced by the symbol of an equal `spmd.mesh` if there is one, else
      by a new symbol declared after the existing meshes: `@mesh` (then
      `@mesh_0`, `@mesh_1`, ... if taken), `@empty_mesh` for `mesh<[]>`,
      and `@maximal_mesh_<id>` for a maximal mesh `mesh<[], device_ids=[id]>`.

    Shardings are rewritten wherever they are: function arguments and
    results, `spmd.sharding` attributes and the operands of spmd ops. New
    symbols are named in the order their meshes first appear (pre-order:
    a function's signature before its body).

    ```mlir
    spmd.mesh @mesh = <["x"=2, "y"=4]>
    spmd.mesh @copy = <["x"=2, "y"=4]>                // erased
    func.func @f(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@copy, [{"x"} ]>})
        -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<mesh<["z"=8]>, [{"z"} ]>}) {
      return %a : tensor<8xf32>
    }
    // becomes <@mesh, [{"x"} ]> and <@mesh_0, [{"z"} ]>, with
    // spmd.mesh @mesh_0 = <["z"=8]> declared after @mesh.
    ```
  }];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdFlattenCallGraphPass
    : Pass<"spmd-flatten-call-graph", "ModuleOp"> {
  let summary = "Gives every call site its own copy of its callee "
                "(Shardy's flatten-call-graph)";
  let description = [{
    The import step that lets each call site of a function be sharded on
    its own: the first call of a function (in a walk of the module) keeps
    it, every further call gets a private copy of the function and of all
    the functions it calls, inserted after the module's functions and
    named by the symbol table (`@f_0`, `@f_1`, ...), with
    `spmd.original_func_name = "f"`. Functions on a call cycle (recursive
    ones), external functions and functions whose calls are not
    `CallOpInterface` ops are left alone. `spmd-unflatten-call-graph`
    merges the copies that end up with the same argument and result
    shardings; `tessera-propagate` runs the two around propagation, so a
    function called with different shardings is specialized per sharding
    signature instead of resharded at every call.

    ```mlir
    %0 = call @f(%a) : ...     // stays @f
    %1 = call @f(%b) : ...     // now @f_0, a copy of @f
    ```
  }];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdUnflattenCallGraphPass
    : Pass<"spmd-unflatten-call-graph", "ModuleOp"> {
  let summary = "Merges copies of a function that have the same argument "
                "and result shardings (Shardy's unflatten-call-graph)";
  let description = [{
    The step after propagation that undoes `spmd-flatten-call-graph` where
    it gained nothing: calls to functions with the same origin (their
    `spmd.original_func_name`, or their own name) and the same
    `spmd.sharding` on every argument and result call the first such
    function a walk of the module's calls reaches; copies left without
    calls are erased, and `spmd.original_func_name` is removed. Copies with
    different shardings stay: each is the function specialized for one
    sharding signature.
  }];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdInferExplicitPass : Pass<"spmd-infer-explicit", "ModuleOp"> {
  let summary = "JAX's sharding in types: computes every value's sharding "
                "over Explicit mesh axes";
  let description = [{
    For mesh axes of type `explicit`, a value's sharding is part of its type
    (JAX's explicit sharding mode). This pass computes it for every op of
    every function from the op's operands, with JAX's per-primitive rules,
    writes it into the op's `spmd.sharding` (closed dimensions when the mesh
    has no Auto axes; Auto axes already there are kept for propagation), and
    reports JAX's errors. An error fails the pass.

    How MLIR ops read as JAX primitives: no op is named here. An op that
    implements `ExplicitShardingOpInterface` computes its types itself
    (JAX's special rules: `arith.select` is select; the tensor reshapes are
    reshape, with the greedy split and merge rules; `extract_slice` and
    `pad` the slicing rule; `concat` concatenate; `insert_slice`
    dynamic_update_slice; `gather` and `scatter` JAX's); every other op's
    types follow from its sharding rule (`#spmd.op_sharding_rule`):
    - ops without tensor data inputs (constants, `tensor.empty`,
      `linalg.fill`) are replicated unless they carry `spmd.out_sharding`;
    - without reduction factors, the n-ary rule: per factor the inputs'
      entries must agree, `None` yielding to a sharded entry (scalars and
      size-1 broadcast dimensions take no part), so arith/math ops, casts,
      elementwise linalg ops, `linalg.broadcast` and `linalg.transpose`
      follow JAX's elementwise, broadcast_in_dim and transpose rules;
    - reduction factors with one input: reduce (reduced factors dropped,
      for every result); with two or more inputs: dot_general (a factor
      several inputs share is a batch dimension sharded identically; a
      contracting factor sharded in two inputs is the ambiguity error, in
      one dropped); the `outs` of linalg ops never change the result;
    - a sharded permutation or need-replication factor is not implemented;
    - region-branching ops (`scf.for`, `scf.while`, `scf.if`, ...: their
      data-flow edges) need their carried values and branch results to
      keep their types, sharding included;
    - calls take the callee's declared result shardings, and the operands
      of a function's return must have its declared result shardings;
    - `spmd.reshard` sets a type; `spmd.sharding_constraint` asserts it;
      `spmd.auto_axes`, `spmd.explicit_axes` and `spmd.manual_computation`
      bodies see their own axis types;
    - `spmd.out_sharding` (JAX's `out_sharding=`) overrides the rule after
      JAX's checks (no Auto or Manual axes, divisibility);
    - an op with neither interface nor rule, with an operand on a mesh with
      Explicit axes, is JAX's "sharding rule for <op> is not implemented"
      error.
    Unreduced inputs follow the op's unreduced rule
    (`ExplicitShardingOpInterface::getUnreducedRule`, else add/mul/none,
    dot_general for contractions and reduce for reductions).
    A result that uses a mesh axis twice is JAX's "<op> operation with
    inputs: ... produces an illegally sharded result: ..." error. Ops on
    meshes without Explicit axes are left alone (propagation owns Auto
    axes).
  }];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdApplyShardingConstraintsPass
    : Pass<"spmd-apply-sharding-constraints", "ModuleOp"> {
  let summary = "Copies fully closed sharding constraints onto their "
                "unsharded inputs";
  let description = [{
    The import step before `spmd-propagate` (Shardy's
    `apply-sharding-constraints`): a fully closed `spmd.sharding_constraint`
    whose input has no sharding becomes the input's sharding, so that the
    input's other users see it. Nothing is applied when the constraint has
    an open dimension, when another constraint or a manual computation uses
    the input with a different sharding, or when the input is on a
    data-flow edge (a loop's or conditional's value) or a block argument of
    a region other than a function's. `tessera-propagate` runs it before
    propagation.
  }];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdAutoPartitionPass : Pass<"spmd-auto-partition", "ModuleOp"> {
  let summary = "Chooses shardings for Auto mesh axes with a cost model and "
                "a 0-1 integer linear program (COIN-OR CBC)";
  let description = [{
    Automatic partitioning of a program the user annotated partly or not at
    all, as XLA's auto-sharding and Alpa do it. For every function, the
    decisions are its tensor arguments and the top-level ops with a sharding
    rule (contractions, reductions, reshapes, elementwise ops); each gets
    candidate strategies read from the rule's factors: every Auto axis of
    the mesh assigned to one shardable factor or to none, a sub-axis
    (`"model":(1)2`) where the factor is not divisible by the whole axis.
    A strategy has a compute time (FLOPs of contractions at the machine's
    FLOP/s, bytes of other ops at its memory bandwidth, per device), the
    all-reduce of a sharded reduction factor, and the bytes it keeps live;
    a value between two decisions costs the collectives
    `spmd-reshard-to-collectives` would emit between the producer's and the
    consumer's shardings, priced with an alpha-beta model per mesh axis.
    Arguments used once and elementwise ops follow their neighbour (the
    graph is coarsened first), then CBC minimizes the estimated step time
    with the per-device peak (all arguments plus the largest working set of
    one op) under `memory-limit`.

    The plan is written as ordinary annotations: `spmd.sharding` on the
    arguments, the results and every decided op (closed dimensions), and an
    `spmd.sharding_constraint` where an op wants an operand resharded, so
    that `spmd-propagate` fills in the rest and `spmd-insert-reshards`
    reproduces the plan. User annotations are constraints: an annotated
    argument, result, constraint or op keeps its sharding (an op's
    strategies are limited to those that give it).

    ```mlir
    // spmd-auto-partition on a 2x4 mesh ("data", "model"), no limit:
    func.func @main(%x: tensor<64x128xf32> {spmd.sharding =
        #spmd.sharding<@mesh, [{"data", "model"}, {} ]>}, ...)
    ```

    Options: `memory-limit` (bytes, suffixes KiB/MiB/GiB or KB/MB/GB),
    `machine` (built-in constants: `cpu`, the emulated mesh, or a TPU
    generation `v4`, `v5e`, `v5p`, `v6e`), `calibration` (a file written by
    `tessera-run --calibrate`, overriding `machine`), `time-limit` (CBC's,
    seconds; on expiry the best plan found is used with a warning),
    `max-nodes` (CBC's branch-and-bound node limit, the same fallback;
    CBC starts from a greedy plan, so a stop always leaves one unless
    `mip-start=false`),
    `coarsen`, `mesh` (the mesh to plan for when the module has several),
    and `report`: a remark per decision (strategy, compute, communication,
    memory) and per function the plan's totals next to two baselines,
    pure data parallelism along the largest axis and full replication.
    A memory limit no plan fits is an error naming the smallest peak; ops
    with tensors but no rule are replicated, with a warning.
  }];
  let options = [
    Option<"memoryLimit", "memory-limit", "std::string", /*default=*/"\"\"",
           "Per-device peak memory limit (bytes; KiB/MiB/GiB suffixes)">,
    Option<"machine", "machine", "std::string", /*default=*/"\"cpu\"",
           "Built-in machine constants: cpu, v4, v5e, v5p or v6e">,
    Option<"calibration", "calibration", "std::string", /*default=*/"\"\"",
           "Calibration file of tessera-run --calibrate (overrides machine)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remarks with every decision and the totals next to the "
           "baselines">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"10.0",
           "The ILP solver's time limit in seconds">,
    Option<"maxNodes", "max-nodes", "int64_t", /*default=*/"-1",
           "The ILP solver's branch-and-bound node limit (-1: none)">,
    Option<"mipStart", "mip-start", "bool", /*default=*/"true",
           "Start the ILP solver from a greedy plan, so that a limit that "
           "stops it leaves a plan">,
    Option<"coarsen", "coarsen", "bool", /*default=*/"true",
           "Merge arguments used once and elementwise ops into their "
           "neighbours before solving">,
    Option<"meshName", "mesh", "std::string", /*default=*/"\"\"",
           "The mesh to plan for (needed when the module has several)">
  ];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdPropagatePass : Pass<"spmd-propagate", "ModuleOp"> {
  let summary = "Propagates shardings over Auto mesh axes (Shardy's "
                "factor-based propagation)";
  let description = [{
    Users annotate a few values (function arguments and results, ops'
    `spmd.sharding`, sharding constraints); propagation shards the rest.

    Each op with a sharding rule (`spmd::getShardingRule`) is seen through
    its factors: the shardings of its operands and results are projected
    onto the factors (a compound dimension hands its axes to its factors
    major to minor, splitting an axis into sub-axes where a factor's size
    asks for it; axes that do not divide a non-minor factor are overflow),
    each factor gets the longest list of axes the tensors are compatible
    with, cut where an axis would conflict (used by another factor, an
    explicitly replicated or unreduced axis, a closed dimension, a
    non-minor factor it does not divide), and every open dimension that the
    result extends takes it. Dimensions that had no sharding become open
    (`{"x", ?}`); closed dimensions never change.

    - `strategy=basic`: every tensor gets the same axes (a conflict in one
      tensor stops all); `strategy=aggressive` (the default): each tensor
      takes what it can, and when two factors want one axis the factor whose
      source tensor is larger wins (ties: lower tensor index, then lower
      factor index).
    - `op-priorities` (default on): five sweeps that allow more each time:
      elementwise ops, reshapes, transposes and data-flow edges whose
      operands have one use; the same with any uses; only pass-through
      factors, with `linalg.broadcast` backward only; everything except a
      broadcast forward; everything.
    - `user-priorities` (default on): a dimension written with priority
      `pN`, N > 0, starts out closed and empty (its axes explicitly
      replicated) and is restored in round N (rounds in increasing order,
      each a full propagation), so lower priorities never take axes from
      higher ones. Priorities are dropped from the output.
    - `conservative`: no sub-axes, and nothing along permutation factors or
      need-replication factors an operand and a result share (sliced,
      padded and concatenated dimensions), as in Shardy.
    - `debug-origins`: every sharded value gets `spmd.sharding_origins`, a
      dictionary from each of its axes (`a`, or `c:(1)4` for a sub-axis) to
      where it came from, named as Shardy's debug mode names them: `input:
      N`, `output: N`, `constraint_N` (constraints also get
      `spmd.sharding_origin_name`), `mc_N_input: i` / `mc_N_output: i`,
      `self` for a value's own axes; other ops' own shardings are named by
      the op and its location.
    - `warn-unknown-ops`: warns about ops with tensor operands and results
      but no sharding rule (they are left alone).

    Identities take part as identity rules: `spmd.sharding_constraint`
    (whose open dimensions may grow), `spmd.propagation_barrier` (in its
    allowed direction only), the data-flow edges of `scf.for`, `scf.while`
    and `scf.if`, `spmd.manual_computation` (operands with in_shardings,
    body results with out_shardings; inside the body only free axes move),
    calls (call operands with the callee's arguments, the callee's returned
    values with the call results, all callers at once) and function results
    (returned value with the result's `spmd.sharding`). `spmd.reshard`
    stops propagation. (Copying a fully closed constraint onto its
    unsharded input is `spmd-apply-sharding-constraints`, run before this
    pass by `tessera-propagate`.) Sharding groups are merged transitively (values that share a group id,
    groups that share a value) and every update of a member updates all;
    members with different initial shardings get a warning and an open
    constraint each.

    Only Auto axes move: Explicit axes belong to `spmd-infer-explicit`,
    Manual ones to the manual computation that owns them. Shardings on
    different meshes never mix, and maximal shardings are not propagated.
    The driver is a worklist: each change puts the affected ops back, so one
    sweep per stage converges in time linear in the module.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"aggressive\"",
           "Conflict resolution: basic or aggressive">,
    Option<"conservative", "conservative", "bool", /*default=*/"false",
           "Propagate no sub-axes">,
    Option<"opPriorities", "op-priorities", "bool", /*default=*/"true",
           "Propagate through op kinds in priority order">,
    Option<"userPriorities", "user-priorities", "bool", /*default=*/"true",
           "Honor user priorities pN, one round per priority">,
    Option<"debugOrigins", "debug-origins", "bool", /*default=*/"false",
           "Record where each sharding came from">,
    Option<"warnUnknownOps", "warn-unknown-ops", "bool", /*default=*/"false",
           "Warn about ops without a sharding rule">
  ];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdCheckVmaPass : Pass<"spmd-check-vma", "ModuleOp"> {
  let summary = "Checks that manual computation results declared replicated "
                "over a manual axis are (JAX's check_vma)";
  let description = [{
    JAX's `check_vma` for `spmd.manual_computation` (`shard_map`): each value
    of a body gets the set of manual axes along which it may differ between
    devices. A body argument varies along the manual axes its
    `in_shardings` entry mentions; `comm.axis_index`,
    `comm.reduce_scatter`, `comm.all_to_all` and `comm.permute` add their
    axes; `comm.all_reduce` and `comm.all_gather` remove theirs; every other
    op's results vary along the union of its operands' axes and, for region
    ops, of the values flowing through their regions (to a fixed point).
    A result whose `out_shardings` entry does not mention a manual axis
    (in a dimension or as unreduced) along which it may vary is an error,
    in JAX's words:

    ```
    error: 'spmd.manual_computation' op was given out_shardings which
    require replication which can't be statically inferred given the mesh:
    out_shardings[0] is #spmd.sharding<@mesh, [{} ]> which implies that the
    corresponding output value is replicated across mesh axis 'x', but
    could not infer replication over any axes
    ```

    A note points at the op that defines the value. Making the value
    invariant with a collective (`comm.all_reduce`, `comm.all_gather`)
    fixes it; `spmd.check_vma = false` on a manual computation skips the
    check (JAX's `check_vma=False`); `tessera-run` still compares the devices' copies of
    such a result when it runs.
  }];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdInsertReshardsPass : Pass<"spmd-insert-reshards", "ModuleOp"> {
  let summary = "Makes every op's operands and results agree on one factor "
                "sharding (spmd.reshard) and reduces sharded reduction "
                "factors";
  let description = [{
    The first export step after propagation (Shardy's
    `insert-explicit-reshards`). First, a select reduction (an argmax or
    argmin: every result is a selection between its accumulator and one
    element, or a max or min) over a dimension an input shards is split
    into a reduction of each device's block into one partial result per
    block (a new dimension sharded on the reduced dimension's axes) and a
    second reduction, with the op's body, over those partial results, so
    that only they are gathered. Each op works on one mesh, its results'
    (else its first sharded operand's); an operand on a mesh with the same
    axes in another device order is resharded to it, and meshes with
    other axes are rejected. For every op with a sharding rule, the
    shardings of its operands and results are projected onto the rule's
    factors and one consistent factor sharding is chosen greedily: each
    candidate axis list of a factor is weighed by the total size of the
    tensors that already have it (or a list it is a prefix of); the heaviest
    candidate over all factors wins (ties, as in Shardy: the factor type's
    precedence, pass-through before reduction, then the most devices added,
    then the higher factor index, then the longer list) and its axes are
    taken. The next candidate is chosen among the axes left, so that no
    axis shards two factors; a candidate may also extend the axes its
    factor already has (those a strict prefix of it). A factor that follows
    another in some tensor dimension is not a candidate until that one is
    fully sharded (as in Shardy). An axis that does not divide what is left
    of a factor is cut to its largest major part that does (`"y":(1)2` of
    "y"=4 for a factor of 6), unless the factor may be padded (each device's block padded at the end, as GSPMD does): a
    factor larger than 1 that is the only factor larger than 1 of every
    dimension it appears in, on an elementwise op, a linalg op with
    projected-permutation maps (whose reductions `spmd-partition` cuts to
    the valid part), or a slice, pad, concatenation or reshape, and not on
    an op that divides integers (the padding could trap).
    Permutation and blocked factors stay unsharded; a factor that needs
    replication (a concatenated dimension, a sliced one) may take a
    candidate like any other, but its axes then move, in order, to the
    batching factors (pass-through factors of every non-scalar tensor) with
    room for them, or are dropped when it is not in every non-scalar tensor
    (as in Shardy). A
    factor after a partly sharded one in the same dimension is left
    unsharded so that every tensor's sharding stays expressible.

    Operands whose sharding differs from the chosen one get an
    `spmd.reshard`. A result takes the chosen sharding. When a reduction
    factor is sharded, the op's values are partial over its axes, to be
    combined with the op's reduction kind (`sum` for an `arith.addf`/`addi`
    combiner, `max` and `min` for the max/min combiners; a reduction factor
    whose kind is unknown is not sharded): as in Shardy, an `spmd.all_reduce`
    over those axes follows the op, except over the axes the result's
    previous sharding (propagation's, or a user's) declares `unreduced`
    with the same kind, which stay in the op's `unreduced` list. The
    destination (`outs`) operand of a `sum` reduction is resharded to
    `unreduced` over those axes, so that the sum adds the initial value
    once; a zero splat (constant or `linalg.fill`) that only this operand
    uses is its own unreduced form and takes that sharding where it is
    made, without a reshard. When the result's previous sharding differs
    from the chosen one, an `spmd.reshard` to it follows (after the
    all-reduce). Fully
    replicated shardings on meshes with the same number of devices agree:
    no reshard between them.

    First, `spmd.auto_axes` and `spmd.explicit_axes` are inlined (their
    bodies are global-view code that propagation annotated): an
    explicit_axes operand is resharded to its `in_shardings`, an auto_axes
    result to its `out_shardings`.

    Other ops: `spmd.sharding_constraint` becomes a reshard;
    propagation barriers and sharding groups are removed; the operands of
    `spmd.manual_computation`, `func.return`, `spmd.return`, `func.call`,
    `scf.for`, `scf.while`, `scf.if` and `scf.index_switch` (inits,
    yields and the values `scf.condition` forwards) are resharded to the
    shardings their users declare (in_shardings, the function's result
    shardings, the callee's argument shardings, the loop's or
    conditional's result sharding; the before block of an `scf.while`
    whose arguments do not have the results' types is replicated). Other
    region ops whose results are sharded are rejected. Ops without a sharding rule compute on
    replicated values: their tensor operands are resharded to replicated
    and their results are replicated (a reshard restores a declared
    sharding). `tensor.empty`, `arith.constant` and `tensor.splat` keep
    their result sharding (spmd-partition creates their local blocks).

    With `check-vma=true` (as `tessera-partition` and `tessera-run` run
    it), each `spmd.manual_computation` is first checked as
    `spmd-check-vma` checks it, when the walk reaches it and before
    anything in it changes (nested ones first): the check needs no walk of
    its own.
  }];
  let options = [
    Option<"checkVma", "check-vma", "bool", /*default=*/"false",
           "Check each manual computation as spmd-check-vma does before "
           "resharding it">
  ];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdReshardToCollectivesPass
    : Pass<"spmd-reshard-to-collectives", "ModuleOp"> {
  let summary = "Lowers spmd.reshard to global-view collectives";
  let description = [{
    Replaces every `spmd.reshard` by the collectives that move its input's
    data to its sharding (Shardy's `reshard-to-collectives`), in this order:
    `spmd.all_reduce` of the input's `unreduced` axes that the target does
    not keep (with their kind); when no unreduced axes remain and every
    dimension keeps its number of parts but not its axes (axes reordered,
    swapped between dimensions, replaced by others of the same size), one
    `spmd.collective_permute` (each device sends its block to one device);
    otherwise, per dimension, the longest common prefix
    of the input's and the target's axes stays; an axis list that leaves
    one dimension and is exactly what another dimension gains becomes an
    `spmd.all_to_all`; every other axis that leaves a dimension is
    gathered (`spmd.all_gather`) and every axis that joins one is sliced
    (`spmd.all_slice`, which communicates nothing). A target on another
    mesh with the same axes and a different device order: partial sums are
    reduced on the source mesh, and one `spmd.collective_permute` moves
    each device's block to the device of the target mesh that holds it,
    where the blocks are smaller: after the steps above reach the target's
    dimension shardings on the source mesh when the target is sharded into
    as many parts or more, else first (the steps then run on the target
    mesh). New `sum`
    unreduced axes are introduced with `spmd.replicated_to_unreduced`.
    Every collective carries its `in_sharding`. The collectives'
    canonicalization then runs on the result (and only those patterns, no
    folding): no-ops go, gather/slice pairs cancel, an `all_reduce` followed
    by an `all_slice` becomes one `spmd.reduce_scatter`, and adjacent
    all-to-alls merge, as do adjacent collective_permutes (a relayout on
    the source mesh and the move to the target mesh become one permute).
  }];
  let dependentDialects = ["::mlir::tessera::spmd::SpmdDialect"];
}

def SpmdPartitionPass : Pass<"spmd-partition", "ModuleOp"> {
  let summary = "Turns the global-view program into the per-device program";
  let description = [{
    Runs after `spmd-insert-reshards` and `spmd-reshard-to-collectives`:
    every op's operands and results then agree, so each op computes its
    local block from local blocks. The pass is a set of rewrite patterns
    (one per global-view collective, one for ops with a local form, one
    that gives every other op its local types) with a type converter (a
    value's local type from its sharding), applied to each function's ops
    in order. It

    - gives every value the local type of its sharding (each dimension
      divided by the product of the sizes of its axes; a dimension they do
      not divide is padded at the end to ceil(size / parts) per device, and
      a dynamic dimension stays dynamic);
    - moves a padded dimension whose layout a collective changes through
      the whole dimension: gathered with its padding cut off, then padded
      with zeros and sliced (every gather of the collective before its
      slices); a reduction of a linalg op over a padded dimension reads only
      the valid part of each block (its inputs cut to
      min(block, max(0, size - index * block)) elements);
    - turns the global-view collectives into `comm` collectives over the
      same axes (`all_gather`, `all_to_all`, `all_reduce`,
      `reduce_scatter`); a `collective_permute` becomes a `comm.permute`
      over all the axes of the output's mesh whose pairs send each
      device's block to a device that holds it under the output's sharding
      (on the output's mesh, which may order the devices differently; a
      device that already holds the block it needs keeps it; one that
      moves partial sums to another device order gathers and slices);
      `spmd.all_slice` becomes a `tensor.extract_slice`
      at the offset `comm.axis_index` of the slicing axes gives, and
      `spmd.replicated_to_unreduced` keeps the value on the first device
      of each group and zeros elsewhere;
    - asks the ops whose attributes or operands spell shapes for their
      local form through `PartitionOpInterface` (no op is named in the
      pass; Tessera's external models: `arith.constant` (a splat shrinks;
      other constants are sliced), `tensor.expand_shape`,
      `tensor.extract_slice` / `insert_slice` sizes, and linalg ops, where
      `linalg.index` in a sharded dimension gets the block's global offset
      added and a reduction over a padded dimension is cut);
    - inlines `spmd.manual_computation` bodies (their operands and results
      are already the blocks the body sees);
    - keeps each function's global interface in the attribute
      `tessera.per_device = [#spmd.sharding_per_value<args>,
      #spmd.sharding_per_value<results>]` and each argument's and result's
      global type in `spmd.global_type`, so that a runtime can scatter
      inputs and assemble results.
  }];
  let dependentDialects = [
    "::mlir::tessera::spmd::SpmdDialect",
    "::mlir::tessera::comm::CommDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_PASSES_TD
