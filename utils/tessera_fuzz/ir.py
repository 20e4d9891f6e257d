"""The program representation of tessera-fuzz-partition: the program model
(plain dicts, below), op tables, traversals, and type inference with the
sharding invariants (Invalid for an ill-typed program)."""

import collections


# ----------------------------------------------------------------------------
# Program model
#
# A program is a dict (deep-copied by the shrinker):
#   mesh:      {'axes': [[name, size], ...], 'device_ids': [...] or None,
#               'other_ids': [...] or None (a second mesh @other: the same
#               axes, another device order),
#               'view': bool (a mesh @view = <["v"=N]>: the 1-D view of
#               the same N devices, other axes),
#               'one': k or None (a maximal mesh @one = <[],
#               device_ids=[k]>: device k alone)}
#   run_mesh:  [size per axis] passed as --mesh (None: the declared sizes)
#   dtype:     'f32' or 'i32' (one element type per program)
#   args:      [{'name': 'a0', 'shape': [..], 'sharding': S or None}]
#   ops:       [op]
#   results:   [value name]
#   result_shardings: [S or None] (one per result)
# An op: {'name': 'v3', 'kind': ..., 'operands': [names], 'p': {...},
#         'sharding': S or None} and, for 'for' loops, 'body': [op],
#         'iter': 'i3', 'yield': name.
# A sharding S: {'dims': [{'axes': [[name, pre, size]], 'open': bool,
#                          'prio': int or None}], 'replicated': [names],
#                'on_other': bool (results only: on @other),
#                'on_view': bool (on @view, whose one axis is "v"),
#                'on_one': bool (on @one: 'dims' is empty, `<@one, []>`)}
# An op of kind 'call' calls @<p['fn']>_<shape>, a private function of one
# elementwise step (ir.callee_name), so that calls of one function may get
# operands sharded differently.
# (pre is None for a full axis).
# ----------------------------------------------------------------------------


class Invalid(Exception):
    pass


def prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


F32_UNARY = {'negf': 'arith.negf', 'absf': 'math.absf', 'tanh': 'math.tanh',
             'sin': 'math.sin', 'cos': 'math.cos', 'exp': 'math.exp'}
I32_UNARY = {'absi': 'math.absi'}
F32_BINARY = ['addf', 'subf', 'mulf', 'maximumf', 'minimumf']
I32_BINARY = ['addi', 'subi', 'muli', 'maxsi', 'minsi', 'xori']


# Windowed ops (kind 'window', p['op'] one of these): the linalg op, the
# rank of its input, the input's spatial dimensions, and whether the op
# takes strides and dilations (conv_1d takes neither). p holds 'strides',
# 'dilations', 'window' (the window's size) and 'out' (the output's size)
# per spatial dimension; convolutions take a filter operand, poolings a
# window tensor of their own.
WINDOWED = {'conv2d': ('linalg.conv_2d_nhwc_hwcf', 4, [1, 2], True),
            'conv1d': ('linalg.conv_1d', 1, [0], False),
            'conv1d_nwc': ('linalg.conv_1d_nwc_wcf', 3, [1], True),
            'dwconv': ('linalg.depthwise_conv_2d_nhwc_hwc', 4, [1, 2], True),
            'poolmax': ('linalg.pooling_nhwc_max', 4, [1, 2], True),
            'poolsum': ('linalg.pooling_nhwc_sum', 4, [1, 2], True)}


def infer_window(p, shapes):
    """The result shape of a windowed op; raises Invalid."""
    if p.get('op') not in WINDOWED:
        raise Invalid('window op')
    kind = p['op']
    _, rank, spatial, strided = WINDOWED[kind]
    pooling = kind.startswith('pool')
    if len(shapes) != (1 if pooling else 2) or len(shapes[0]) != rank:
        raise Invalid('window arity')
    x = shapes[0]
    n = len(spatial)
    if any(len(p[key]) != n for key in ('strides', 'dilations', 'window', 'out')):
        raise Invalid('window rank')
    if not strided and (any(s != 1 for s in p['strides']) or any(d != 1 for d in p['dilations'])):
        raise Invalid('window strides')
    for d, st, dl, k, o in zip(spatial, p['strides'], p['dilations'], p['window'], p['out']):
        if st < 1 or dl < 1 or k < 1 or o < 1 or (o - 1) * st + (k - 1) * dl + 1 > x[d]:
            raise Invalid('window bounds')
    out = list(p['out'])
    if pooling:
        return [x[0]] + out + [x[3]]
    w = shapes[1]
    filters = {'conv1d': (1, lambda: list(p['window'])),
               'conv1d_nwc': (3, lambda: list(p['window']) + [x[2], w[-1]]),
               'conv2d': (4, lambda: list(p['window']) + [x[3], w[-1]]),
               'dwconv': (3, lambda: list(p['window']) + [x[3]])}
    frank, expected = filters[kind]
    if len(w) != frank or w != expected():
        raise Invalid('window filter')
    if kind == 'conv1d':
        return out
    if kind == 'conv1d_nwc':
        return [x[0]] + out + [w[-1]]
    if kind == 'conv2d':
        return [x[0]] + out + [w[-1]]
    return [x[0]] + out + [x[3]]


def callee_name(op, shape, dtype):
    """The function a 'call' op calls: one per step and operand type."""
    return '%s_%s' % (op['p']['fn'], 'x'.join([str(n) for n in shape] + [dtype]))


def walk_ops(ops):
    """Every op, loop bodies included, in program order."""
    for op in ops:
        yield op
        if op['kind'] == 'for':
            yield from walk_ops(op['body'])


def all_shardings(prog):
    for a in prog['args']:
        if a['sharding']:
            yield a['sharding']
    for op in walk_ops(prog['ops']):
        if op.get('sharding'):
            yield op['sharding']
        if op['kind'] == 'constraint':
            yield op['p']['sharding']
    for s in prog['result_shardings']:
        if s:
            yield s


def count_ops(prog):
    return sum(1 for _ in walk_ops(prog['ops']))


# ---- type inference ---------------------------------------------------------

def infer_op(op, env, repair):
    """The result shape of op from its operands' shapes (env); raises
    Invalid. With repair, slices are clamped to fit their operand."""
    k = op['kind']
    p = op['p']
    for o in op['operands']:
        if o not in env:
            raise Invalid('%s uses %s out of scope' % (op['name'], o))
    shapes = [env[o] for o in op['operands']]
    if k in ('unary', 'scale', 'constraint', 'call'):
        if len(shapes) != 1:
            raise Invalid('arity')
        if k == 'constraint' and len(p['sharding']['dims']) != len(shapes[0]):
            raise Invalid('constraint rank')
        return list(shapes[0])
    if k == 'binary':
        if len(shapes) != 2 or shapes[0] != shapes[1]:
            raise Invalid('binary shapes')
        return list(shapes[0])
    if k == 'broadcast':
        (x,) = shapes
        rank = len(x) + len(p['dims'])
        if sorted(set(p['dims'])) != p['dims'] or any(d >= rank for d in p['dims']):
            raise Invalid('broadcast dims')
        out, it, sizes = [], iter(x), iter(p['sizes'])
        for i in range(rank):
            out.append(next(sizes) if i in p['dims'] else next(it))
        return out
    if k == 'matmul':
        a, b = shapes
        if len(a) != 2 or len(b) != 2 or a[1] != b[0]:
            raise Invalid('matmul shapes')
        return [a[0], b[1]]
    if k == 'contract':
        ins, out = p['spec'].split('->')
        ia, ib = ins.split(',')
        size = {}
        for letters, shape in ((ia, shapes[0]), (ib, shapes[1])):
            if len(letters) != len(shape):
                raise Invalid('contract rank')
            for c, n in zip(letters, shape):
                if size.setdefault(c, n) != n:
                    raise Invalid('contract sizes')
        if not out:
            raise Invalid('contract rank 0')
        return [size[c] for c in out]
    if k == 'reduce':
        (x,) = shapes
        dims = p['dims']
        if not dims or any(d >= len(x) for d in dims) or len(dims) >= len(x):
            raise Invalid('reduce dims')
        return [n for i, n in enumerate(x) if i not in dims]
    if k == 'argmax':
        (x,) = shapes
        if len(x) < 2 or p['dim'] >= len(x):
            raise Invalid('argmax dim')
        return [n for i, n in enumerate(x) if i != p['dim']]
    if k == 'collapse':
        (x,) = shapes
        if sum(p['groups']) != len(x) or any(g < 1 for g in p['groups']):
            raise Invalid('collapse groups')
        out, i = [], 0
        for g in p['groups']:
            out.append(prod(x[i:i + g]))
            i += g
        return out
    if k == 'expand':
        (x,) = shapes
        d, f = p['dim'], p['factor']
        if d >= len(x) or f < 1 or x[d] % f:
            raise Invalid('expand factor')
        return x[:d] + [f, x[d] // f] + x[d + 1:]
    if k == 'transpose':
        (x,) = shapes
        if sorted(p['perm']) != list(range(len(x))):
            raise Invalid('perm')
        return [x[i] for i in p['perm']]
    if k == 'slice':
        (x,) = shapes
        if not (len(p['offsets']) == len(p['sizes']) == len(p['strides']) == len(x)):
            raise Invalid('slice rank')
        for i, n in enumerate(x):
            o, s, st = p['offsets'][i], p['sizes'][i], p['strides'][i]
            if repair:
                s = max(1, min(s, n))
                if (s - 1) * st > n - 1:
                    st = 1
                o = max(0, min(o, n - 1 - (s - 1) * st))
                p['offsets'][i], p['sizes'][i], p['strides'][i] = o, s, st
            if s < 1 or st < 1 or o < 0 or o + (s - 1) * st > n - 1:
                raise Invalid('slice bounds')
        return list(p['sizes'])
    if k == 'index_add':
        (x,) = shapes
        if p['dim'] >= len(x):
            raise Invalid('index dim')
        return list(x)
    if k == 'bgeneric':
        x, y = shapes
        if sorted(set(p['dims'])) != p['dims'] or any(d >= len(x) for d in p['dims']) or \
                y != [x[d] for d in p['dims']]:
            raise Invalid('bgeneric shapes')
        return list(x)
    if k == 'pad':
        (x,) = shapes
        if len(p['low']) != len(x) or len(p['high']) != len(x):
            raise Invalid('pad rank')
        return [n + lo + hi for n, lo, hi in zip(x, p['low'], p['high'])]
    if k == 'window':
        return infer_window(p, shapes)
    if k == 'concat':
        d = p['dim']
        if len(shapes) < 2:
            raise Invalid('concat arity')
        r = len(shapes[0])
        for s in shapes:
            if len(s) != r or d >= r or s[:d] + s[d + 1:] != shapes[0][:d] + shapes[0][d + 1:]:
                raise Invalid('concat shapes')
        out = list(shapes[0])
        out[d] = sum(s[d] for s in shapes)
        return out
    raise Invalid('unknown kind ' + k)


def infer_block(ops, scope, types, repair):
    """Infers ops in order; scope maps the visible values to shapes, types
    collects every value's shape (loop bodies included, for rendering)."""
    for op in ops:
        if op['kind'] == 'for':
            if len(op['operands']) != 1 or op['operands'][0] not in scope:
                raise Invalid('loop init')
            init = scope[op['operands'][0]]
            if op['p']['trips'] < 1:
                raise Invalid('trips')
            inner = dict(scope)
            inner[op['iter']] = types[op['iter']] = init
            infer_block(op['body'], inner, types, repair)
            if inner.get(op['yield']) != init:
                raise Invalid('loop yield')
            shape = list(init)
        else:
            shape = infer_op(op, scope, repair)
            if any(n < 1 for n in shape):
                raise Invalid('empty dim')
            if prod(shape) > 4096:
                raise Invalid('too big')
        scope[op['name']] = types[op['name']] = shape


def infer(prog, repair=False):
    """name -> shape for every value; raises Invalid if the program is not
    well-typed or a sharding breaks an invariant."""
    scope, types = {}, {}
    for a in prog['args']:
        if any(n < 1 for n in a['shape']):
            raise Invalid('arg dims')
        scope[a['name']] = types[a['name']] = list(a['shape'])
    infer_block(prog['ops'], scope, types, repair)
    if not prog['results']:
        raise Invalid('no results')
    for r in prog['results']:
        if r not in scope:
            raise Invalid('result out of scope')
    if len(prog['result_shardings']) != len(prog['results']):
        raise Invalid('result shardings')
    mesh_sizes = dict(prog['mesh']['axes'])
    view_sizes = {'v': prod(mesh_sizes.values())}

    def check(s, rank, sizes=mesh_sizes):
        if s is not None and s.get('on_one'):
            one = prog['mesh'].get('one')
            if one is None or s['dims'] or s['replicated']:
                raise Invalid('no single-device mesh')
            devices = prod(sizes.values())
            if one >= devices:
                raise Invalid('single device out of the mesh')
            return
        if s is not None and s.get('on_view'):
            if not prog['mesh'].get('view'):
                raise Invalid('no view mesh')
            sizes = view_sizes
        check_sharding(s, rank, sizes)
    for a in prog['args']:
        check(a['sharding'], len(a['shape']))
    for r, s in zip(prog['results'], prog['result_shardings']):
        check(s, len(types[r]))
    for op in walk_ops(prog['ops']):
        check(op.get('sharding'), len(types[op['name']]))
        if op['kind'] == 'constraint':
            check(op['p']['sharding'], len(types[op['name']]))
    if prog.get('run_mesh'):
        run_sizes = {n: s for (n, _), s in zip(prog['mesh']['axes'], prog['run_mesh'])}
        if prog['mesh'].get('view') and prod(run_sizes.values()) != view_sizes['v']:
            raise Invalid('run mesh changes the view')
        for s in all_shardings(prog):
            check(s, len(s['dims']), run_sizes)
        if prog['mesh'].get('one') is not None and \
                prog['mesh']['one'] >= prod(run_sizes.values()):
            raise Invalid('single device out of the run mesh')
    return types


def check_sharding(s, rank, mesh_sizes):
    """Shardy's invariants (the subset the generator can break)."""
    if s is None:
        return
    if len(s['dims']) != rank:
        raise Invalid('sharding rank')
    used_full, subs = set(), collections.defaultdict(list)
    for d in s['dims']:
        if not d['axes'] and not d['open'] and d['prio'] is not None:
            raise Invalid('priority on closed empty dim')
        prev = None
        for name, pre, size in d['axes']:
            if name not in mesh_sizes:
                raise Invalid('unknown axis')
            n = mesh_sizes[name]
            if pre is None:
                if name in used_full or subs[name]:
                    raise Invalid('duplicate axis')
                used_full.add(name)
            else:
                if size <= 1 or pre < 1 or n % (pre * size) or size == n:
                    raise Invalid('bad sub-axis')
                if name in used_full:
                    raise Invalid('sub-axis beside full axis')
                for (p2, s2) in subs[name]:
                    if max(pre, p2) < min(pre * size, p2 * s2):
                        raise Invalid('overlapping sub-axes')
                if prev and prev[0] == name and prev[1] is not None and \
                        prev[1] * prev[2] == pre:
                    raise Invalid('mergeable sub-axes')
                subs[name].append((pre, size))
            prev = (name, pre, size)
    order = [n for n in mesh_sizes]
    rep = s['replicated']
    for r in rep:
        if r not in mesh_sizes or r in used_full or subs[r]:
            raise Invalid('bad replicated')
    if sorted(rep, key=order.index) != rep or len(set(rep)) != len(rep):
        raise Invalid('replicated order')
