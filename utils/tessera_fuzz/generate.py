"""Random programs: meshes, shardings and ops drawn from seeded random
streams (program I of seed S depends only on S and I)."""

import random

from .ir import F32_BINARY, I32_BINARY, WINDOWED, Invalid, divisors, infer, \
    infer_op, prod


AXIS_NAMES = [('x', 'y'), ('data', 'model'), ('a', 'b'), ('i', 'j')]
MESH_2D = [(1, 2), (2, 1), (2, 2), (2, 2), (2, 3), (3, 2), (2, 4), (4, 2),
           (1, 4), (4, 1), (2, 2), (1, 8), (4, 2)]
MESH_1D = [1, 2, 2, 3, 4, 4, 5, 6, 7, 8, 8]
# Sub-axis decompositions (pre-size, size) of an axis, as pairs of pieces.
SPLITS = {4: [[(1, 2), (2, 2)]], 6: [[(1, 2), (2, 3)], [(1, 3), (3, 2)]],
          8: [[(1, 2), (2, 4)], [(1, 4), (4, 2)]]}
# Sums (contractions, reductions) only take operands bounded by this (in
# f32 programs), so partial sums stay small and a partitioned program's
# different summation order stays within tessera-run's tolerances.
SUM_BOUND = 8.0
DIM_SIZES = [1, 2, 2, 3, 4, 4, 4, 5, 6, 8, 8]


SPATIAL_SIZES = [4, 6, 8, 8, 9, 10, 12, 16]
# The share of programs that get a windowed op (tessera-fuzz-partition
# --windowed).
WINDOWED_RATE = 0.2


class Gen:
    def __init__(self, rng, max_ops, side, extra, window=None, window_rate=0.0,
                 single=None):
        self.rng = rng
        self.side = side
        self.extra = extra
        self.single = single
        self.window = window
        self.window_rate = window_rate
        self.max_ops = max_ops
        self.nv = 0
        self.prog = None

    # meshes and shardings
    def gen_mesh(self):
        r = self.rng
        names = r.choice(AXIS_NAMES)
        if r.random() < 0.45:
            axes = [[names[0], r.choice(MESH_1D)]]
        else:
            a, b = r.choice(MESH_2D)
            axes = [[names[0], a], [names[1], b]]
        n = prod(s for _, s in axes)
        ids = None
        if n > 1 and r.random() < 0.3:
            ids = list(range(n))
            while ids == sorted(ids):
                r.shuffle(ids)
        # Sometimes results live on a second mesh over the same devices in
        # another order.
        other = None
        if n > 1 and self.side.random() < 0.15:
            other = list(range(n))
            while other == (ids or sorted(other)):
                self.side.shuffle(other)
        return {'axes': axes, 'device_ids': ids, 'other_ids': other}

    def gen_sharding(self, shape, sub_ok=True):
        r = self.rng
        mesh = self.prog['mesh']
        nondiv = r.random() < 0.12
        dims = [{'axes': [], 'open': False, 'prio': None} for _ in shape]
        pieces = []  # (axis name, pre, size, piece size)
        for name, size in mesh['axes']:
            if sub_ok and size in SPLITS and r.random() < 0.5:
                split = r.choice(SPLITS[size])
                chosen = split if r.random() < 0.5 else [r.choice(split)]
                for pre, sz in chosen:
                    pieces.append((name, pre, sz, sz))
            else:
                pieces.append((name, None, None, size))
        r.shuffle(pieces)
        used = set()
        for name, pre, sz, psize in pieces:
            if not shape or r.random() < 0.4:
                continue
            cands = list(range(len(shape)))
            r.shuffle(cands)
            for d in cands:
                if any(a[0] == name for a in dims[d]['axes']):
                    continue  # keep pieces of one axis in different dims
                total = prod(self.mesh_piece(a) for a in dims[d]['axes']) * psize
                if nondiv or shape[d] % total == 0:
                    dims[d]['axes'].append([name, pre, sz])
                    used.add(name)
                    break
        for d in dims:
            d['open'] = r.random() < 0.3
            if (d['axes'] or d['open']) and r.random() < 0.15:
                d['prio'] = r.choice([0, 1, 1, 2, 3])
        replicated = []
        if r.random() < 0.15:
            replicated = [n for n, _ in mesh['axes'] if n not in used and r.random() < 0.7]
        return {'dims': dims, 'replicated': replicated}

    def mesh_piece(self, a):
        name, pre, size = a
        return dict(self.prog['mesh']['axes'])[name] if pre is None else size

    # values
    def new_name(self):
        self.nv += 1
        return 'v%d' % (self.nv - 1)

    def new_arg(self, shape, bound=1.0):
        name = 'a%d' % len(self.prog['args'])
        sh = self.gen_sharding(shape, self.sub_ok) if self.rng.random() < 0.75 else None
        self.prog['args'].append({'name': name, 'shape': list(shape), 'sharding': sh})
        self.pool.append(name)
        self.shape[name] = list(shape)
        self.bound[name] = bound
        return name

    def rand_shape(self, rank=None):
        r = self.rng
        rank = rank or r.choice([1, 2, 2, 2, 3])
        while True:
            s = [r.choice(DIM_SIZES) for _ in range(rank)]
            if prod(s) <= 256:
                return s

    def pick(self, pred=lambda s: True, pool=None, max_bound=None):
        pool = self.pool if pool is None else pool
        cands = [v for v in pool if pred(self.shape[v]) and
                 (max_bound is None or self.bound[v] <= max_bound)]
        if not cands:
            return None
        # Prefer recent values, so programs are chains rather than fans.
        weights = [1 + i for i in range(len(cands))]
        return self.rng.choices(cands, weights)[0]

    def same_shape_value(self, shape, pool=None, exclude=None, p_new=0.4):
        cands = [v for v in (self.pool if pool is None else pool)
                 if self.shape[v] == shape and v != exclude]
        if cands and self.rng.random() > p_new:
            return self.rng.choice(cands)
        return None

    def add_op(self, kind, operands, p, shape, bound, ops=None, sharding=None):
        if self.prog['dtype'] == 'i32':
            bound = 1.0  # integers wrap; magnitudes do not matter
        op = {'name': self.new_name(), 'kind': kind, 'operands': operands,
              'p': p, 'sharding': sharding}
        (self.prog['ops'] if ops is None else ops).append(op)
        self.shape[op['name']] = shape
        self.bound[op['name']] = bound
        return op

    # ops
    def elementwise(self, x, pool, ops, same_pool_args=True):
        """A unary, scale or binary op on x; returns the op."""
        r = self.rng
        shape = self.shape[x]
        b = self.bound[x]
        f32 = self.prog['dtype'] == 'f32'
        sh = self.gen_sharding(shape, self.sub_ok) if r.random() < 0.12 else None
        choice = r.random()
        if choice < 0.4:
            if f32:
                fns = ['negf', 'absf', 'tanh', 'sin', 'cos'] + (['exp'] if b <= 3 else [])
                if b > 20:
                    fns = ['tanh', 'sin', 'cos']
                fn = r.choice(fns)
                nb = 2.72 ** min(b, 3) if fn == 'exp' else b if fn in ('negf', 'absf') else 1.0
            else:
                fn, nb = 'absi', b
            return self.add_op('unary', [x], {'fn': fn}, shape, nb, ops, sh)
        if choice < 0.55:
            if f32:
                c = r.choice([0.5, -0.5, 2.0, 0.25, -1.5, 1.0])
            else:
                c = r.choice([2, 3, -1, 5, -7])
            opk = r.choice(['mul', 'add'])
            nb = b * abs(c) if opk == 'mul' else b + abs(c)
            return self.add_op('scale', [x], {'c': c, 'op': opk}, shape, nb, ops, sh)
        y = self.same_shape_value(shape, pool)
        if y is None:
            if same_pool_args:
                y = self.new_arg(shape)
            else:
                y = x
        fn = r.choice(F32_BINARY if f32 else I32_BINARY)
        b2 = self.bound[y]
        nb = {'mulf': b * b2, 'maximumf': max(b, b2), 'minimumf': max(b, b2)}.get(fn, b + b2)
        return self.add_op('binary', [x, y], {'fn': fn}, shape, nb, ops, sh)

    def gen_op(self, kind):
        r = self.rng
        f32 = self.prog['dtype'] == 'f32'
        if kind == 'elementwise':
            x = self.pick()
            return self.elementwise(x, None, None)
        if kind == 'broadcast':
            x = self.pick(lambda s: len(s) <= 2)
            if x is None:
                return None
            s = self.shape[x]
            pos = r.randrange(len(s) + 1)
            size = r.choice([1, 2, 3, 4])
            out = s[:pos] + [size] + s[pos:]
            if prod(out) > 512:
                return None
            return self.add_op('broadcast', [x], {'dims': [pos], 'sizes': [size]},
                               out, self.bound[x])
        if kind == 'matmul':
            x = self.pick(lambda s: len(s) == 2, max_bound=SUM_BOUND)
            if x is None:
                return None
            m, kk = self.shape[x]
            y = self.pick(lambda s: len(s) == 2 and s[0] == kk, max_bound=SUM_BOUND) \
                if r.random() < 0.4 else None
            if y is None:
                y = self.new_arg([kk, r.choice(DIM_SIZES)])
            n = self.shape[y][1]
            return self.add_op('matmul', [x, y], {}, [m, n],
                               kk * self.bound[x] * self.bound[y])
        if kind == 'contract':
            x = self.pick(lambda s: len(s) in (1, 2, 3), max_bound=SUM_BOUND)
            if x is None:
                return None
            rank = len(self.shape[x])
            specs = {1: ['a,ab->b'],
                     2: ['ab,b->a', 'ab,cb->ac', 'ab,ac->bc', 'ab,ab->a', 'ab,bc->ca'],
                     3: ['abc,acd->abd', 'abc,c->ab', 'abc,cd->abd', 'abc,bc->a']}[rank]
            spec = r.choice(specs)
            ins, out = spec.split('->')
            ia, ib = ins.split(',')
            size = dict(zip(ia, self.shape[x]))
            for c in ib:
                if c not in size:
                    size[c] = r.choice(DIM_SIZES)
            yshape = [size[c] for c in ib]
            oshape = [size[c] for c in out]
            if prod(yshape) > 256 or prod(oshape) > 512:
                return None
            y = self.same_shape_value(yshape, p_new=0.5)
            if y is None or self.bound[y] > SUM_BOUND:
                y = self.new_arg(yshape)
            red = prod(size[c] for c in size if c not in out)
            return self.add_op('contract', [x, y], {'spec': spec}, oshape,
                               red * self.bound[x] * self.bound[y])
        if kind == 'reduce':
            x = self.pick(lambda s: len(s) >= 2, max_bound=SUM_BOUND)
            if x is None:
                return None
            s = self.shape[x]
            nd = r.randint(1, len(s) - 1)
            dims = sorted(r.sample(range(len(s)), nd))
            rk = r.choice(['add', 'add', 'max'])
            red = prod(s[d] for d in dims)
            return self.add_op('reduce', [x], {'dims': dims, 'kind': rk},
                               [n for i, n in enumerate(s) if i not in dims],
                               self.bound[x] * (red if rk == 'add' else 1))
        if kind == 'argmax':
            # A value+index reduction (argmax or argmin) over one dimension.
            x = self.pick(lambda s: len(s) >= 2)
            if x is None:
                return None
            s = self.shape[x]
            d = r.randrange(len(s))
            return self.add_op('argmax', [x], {'dim': d, 'min': r.random() < 0.5},
                               [n for i, n in enumerate(s) if i != d],
                               self.bound[x] + s[d])
        if kind == 'collapse':
            x = self.pick(lambda s: len(s) >= 2)
            if x is None:
                return None
            s = self.shape[x]
            i = r.randrange(len(s) - 1)
            groups = [1] * i + [2] + [1] * (len(s) - i - 2)
            return self.add_op('collapse', [x], {'groups': groups},
                               s[:i] + [s[i] * s[i + 1]] + s[i + 2:], self.bound[x])
        if kind == 'expand':
            x = self.pick(lambda s: len(s) <= 2)
            if x is None:
                return None
            s = self.shape[x]
            d = r.randrange(len(s))
            f = r.choice(divisors(s[d]))
            return self.add_op('expand', [x], {'dim': d, 'factor': f},
                               s[:d] + [f, s[d] // f] + s[d + 1:], self.bound[x])
        if kind == 'transpose':
            x = self.pick(lambda s: len(s) >= 2)
            if x is None:
                return None
            s = self.shape[x]
            perm = list(range(len(s)))
            while perm == sorted(perm):
                r.shuffle(perm)
            return self.add_op('transpose', [x], {'perm': perm},
                               [s[i] for i in perm], self.bound[x])
        if kind == 'slice':
            x = self.pick()
            s = self.shape[x]
            offs, sizes, strides = [], [], []
            for n in s:
                size = r.randint(1, n)
                stride = 2 if r.random() < 0.2 and (size - 1) * 2 <= n - 1 else 1
                off = r.randint(0, n - 1 - (size - 1) * stride)
                offs.append(off)
                sizes.append(size)
                strides.append(stride)
            return self.add_op('slice', [x], {'offsets': offs, 'sizes': sizes,
                                              'strides': strides}, sizes, self.bound[x])
        if kind == 'concat':
            x = self.pick()
            s = self.shape[x]
            d = r.randrange(len(s))
            cands = [v for v in self.pool if len(self.shape[v]) == len(s) and
                     self.shape[v][:d] + self.shape[v][d + 1:] == s[:d] + s[d + 1:]]
            roll = r.random()
            if roll < 0.3:
                y = x
            elif roll < 0.65 and len(cands) > 1:
                y = r.choice([c for c in cands if c != x])
            else:
                t = list(s)
                t[d] = r.choice(DIM_SIZES)
                y = self.new_arg(t)
            operands = [x, y] if r.random() < 0.6 else [y, x]
            out = list(s)
            out[d] = s[d] + self.shape[y][d]
            if prod(out) > 512:
                return None
            return self.add_op('concat', operands, {'dim': d}, out,
                               max(self.bound[x], self.bound[y]))
        if kind == 'index_add':
            x = self.pick()
            d = r.randrange(len(self.shape[x]))
            c = r.choice([0.25, -0.5, 1.0]) if f32 else r.choice([1, 3, -2])
            return self.add_op('index_add', [x], {'dim': d, 'c': c}, self.shape[x],
                               self.bound[x] + abs(c) * self.shape[x][d])
        if kind == 'bgeneric':
            x = self.pick(lambda s: len(s) >= 2)
            if x is None:
                return None
            s = self.shape[x]
            dims = sorted(r.sample(range(len(s)), r.randint(1, len(s) - 1)))
            yshape = [s[d] for d in dims]
            y = self.same_shape_value(yshape, p_new=0.5)
            if y is None:
                y = self.new_arg(yshape)
            fn = r.choice(F32_BINARY if f32 else I32_BINARY)
            b, b2 = self.bound[x], self.bound[y]
            nb = {'mulf': b * b2, 'maximumf': max(b, b2), 'minimumf': max(b, b2)}.get(fn, b + b2)
            return self.add_op('bgeneric', [x, y], {'dims': dims, 'fn': fn}, s, nb)
        if kind == 'pad':
            x = self.pick()
            s = self.shape[x]
            low = [r.choice([0, 0, 1, 2]) for _ in s]
            high = [r.choice([0, 0, 1, 2]) for _ in s]
            out = [n + lo + hi for n, lo, hi in zip(s, low, high)]
            if prod(out) > 512:
                return None
            c = r.choice([0.0, -1.0, 0.5]) if f32 else r.choice([0, -1, 7])
            return self.add_op('pad', [x], {'low': low, 'high': high, 'c': c}, out,
                               max(self.bound[x], abs(c)))
        if kind == 'constraint':
            x = self.pick()
            return self.add_op('constraint', [x],
                               {'sharding': self.gen_sharding(self.shape[x], self.sub_ok)},
                               self.shape[x], self.bound[x])
        if kind == 'for':
            x = self.pick()
            shape = self.shape[x]
            op = self.add_op('for', [x], {'trips': r.randint(1, 4),
                                          'while': r.random() < 0.35}, shape, 1.0)
            op['iter'] = 'i' + op['name'][1:]
            op['body'] = []
            self.shape[op['iter']] = shape
            self.bound[op['iter']] = self.bound[x] if not f32 else max(self.bound[x], 1.0)
            inner_pool = [v for v in self.pool if self.shape[v] == shape] + [op['iter']]
            cur = op['iter']
            for _ in range(r.randint(1, 3)):
                roll = r.random()
                if roll < 0.15:
                    b = self.add_op('constraint', [cur],
                                    {'sharding': self.gen_sharding(shape, self.sub_ok)},
                                    shape, self.bound[cur], op['body'])
                elif roll < 0.3 and len(shape) == 2 and shape[0] == shape[1]:
                    b = self.add_op('transpose', [cur], {'perm': [1, 0]}, shape,
                                    self.bound[cur], op['body'])
                else:
                    b = self.elementwise(cur, inner_pool, op['body'], same_pool_args=False)
                inner_pool.append(b['name'])
                cur = b['name']
            if f32:
                # Keep loop-carried values bounded whatever the trip count.
                cur = self.add_op('unary', [cur], {'fn': r.choice(['tanh', 'sin'])},
                                  shape, 1.0, op['body'])['name']
            op['yield'] = cur
            return op
        raise AssertionError(kind)

    def generate(self):
        r = self.rng
        self.prog = {'mesh': None, 'run_mesh': None,
                     'dtype': 'f32' if r.random() < 0.65 else 'i32',
                     'args': [], 'ops': [], 'results': [], 'result_shardings': []}
        self.prog['mesh'] = self.gen_mesh()
        self.sub_ok = r.random() < 0.35
        self.pool, self.shape, self.bound = [], {}, {}
        for _ in range(r.randint(1, 2)):
            self.new_arg(self.rand_shape())
        kinds = ['elementwise'] * 26 + ['broadcast'] * 7 + ['matmul'] * 7 + \
            ['contract'] * 6 + ['reduce'] * 7 + ['collapse'] * 5 + ['expand'] * 5 + \
            ['transpose'] * 7 + ['slice'] * 6 + ['concat'] * 6 + ['constraint'] * 5 + \
            ['for'] * 5 + ['index_add'] * 3 + ['bgeneric'] * 4 + ['pad'] * 3 + \
            ['argmax'] * 4
        n_ops = r.randint(1, self.max_ops)
        used = set()
        while len(self.prog['ops']) < n_ops:
            kind = r.choice(kinds)
            # Tame large values before contractions and sums make them huge.
            last = self.pool[-1]
            if self.prog['dtype'] == 'f32' and self.bound[last] > 50:
                op = self.elementwise(last, None, None)
            else:
                op = self.gen_op(kind)
            if op is None:
                continue
            used.update(op['operands'])
            for b in op.get('body') or []:
                used.update(b['operands'])
            self.pool.append(op['name'])
        leaves = [op['name'] for op in self.prog['ops'] if op['name'] not in used]
        results = leaves[-4:]
        if self.prog['ops'][-1]['name'] not in results:
            results.append(self.prog['ops'][-1]['name'])
        self.prog['results'] = results
        self.prog['result_shardings'] = [
            self.gen_sharding(self.shape[v], self.sub_ok) if r.random() < 0.2 else None
            for v in results]
        if self.prog['mesh'].get('other_ids'):
            for i, v in enumerate(results):
                if self.side.random() < 0.6:
                    s = self.prog['result_shardings'][i]
                    if not s:
                        # gen_sharding draws from the main stream.
                        saved = self.rng
                        self.rng = self.side
                        s = self.gen_sharding(self.shape[v], self.sub_ok)
                        self.rng = saved
                    s['on_other'] = True
                    self.prog['result_shardings'][i] = s
        # Sometimes run on another mesh shape than declared (--mesh).
        axes = self.prog['mesh']['axes']
        if not self.sub_ok and r.random() < 0.12:
            if len(axes) == 1:
                self.prog['run_mesh'] = [r.choice([1, 2, 3, 4, 8])]
            else:
                self.prog['run_mesh'] = list(r.choice(MESH_2D))
        self.add_calls()
        self.add_view()
        self.add_windowed()
        self.add_single_device()
        infer(self.prog)  # the generator's own invariant
        return self.prog

    # Calls and the 1-D view mesh, drawn from their own stream after the
    # rest, so that a seed's programs keep what they had before these.
    def add_calls(self):
        x = self.extra
        if x.random() >= 0.25:
            return
        v = x.choice(self.pool)
        shape = self.shape[v]
        f32 = self.prog['dtype'] == 'f32'
        fn = x.choice(['tanh', 'sin']) if f32 else 'absi'
        # The same function on a second value of the shape, often sharded
        # otherwise (a new argument with its own sharding).
        others = [w for w in self.pool if w != v and self.shape[w] == shape]
        if others and x.random() < 0.5:
            w = x.choice(others)
        else:
            saved = self.rng
            self.rng = x
            w = self.new_arg(shape)
            self.rng = saved
        for operand in [v, w] + ([v] if x.random() < 0.3 else []):
            if f32 and self.bound[operand] > 50:
                continue
            op = self.add_op('call', [operand], {'fn': fn}, shape,
                             self.bound[operand] + 1.0)
            self.pool.append(op['name'])
            self.prog['results'].append(op['name'])
            self.prog['result_shardings'].append(None)

    # Convolutions and poolings, from their own stream after the rest (a
    # seed's other programs stay what they were): a windowed op on a new
    # argument (or a value of the right rank and size) sharded at random
    # (batch, spatial and feature dimensions), with random strides,
    # dilations and window sizes, and an output sometimes smaller than the
    # input allows (unread rows at the end).
    def add_windowed(self):
        w = self.window
        if w is None or w.random() >= self.window_rate:
            return
        saved = self.rng
        self.rng = w
        try:
            self.gen_windowed()
        finally:
            self.rng = saved

    def gen_windowed(self):
        r = self.rng
        kind = r.choice(sorted(WINDOWED))
        _, rank, spatial, strided = WINDOWED[kind]
        ns = len(spatial)
        strides = [r.choice([1, 1, 2]) if strided else 1 for _ in spatial]
        dilations = [r.choice([1, 1, 2]) if strided else 1 for _ in spatial]
        window = [r.choice([1, 2, 3, 3, 5]) for _ in spatial]
        extent = [(k - 1) * d + 1 for k, d in zip(window, dilations)]
        if kind == 'conv1d':
            xshape = [r.choice(SPATIAL_SIZES)]
        else:
            xshape = [r.choice([1, 2, 2, 4])] + \
                [r.choice(SPATIAL_SIZES) for _ in spatial] + [r.choice([1, 2, 3])]
        if any(xshape[d] < e for d, e in zip(spatial, extent)):
            return
        x = self.pick(lambda s: len(s) == rank and
                      all(s[d] >= e for d, e in zip(spatial, extent)) and
                      prod(s) <= 512, max_bound=SUM_BOUND) \
            if r.random() < 0.3 else None
        if x is None:
            if prod(xshape) > 512:
                return
            x = self.new_arg(xshape)
            if r.random() < 0.75:
                # Mostly spatial shardings, which the halo path handles.
                self.prog['args'][-1]['sharding'] = self.spatial_sharding(xshape, spatial)
        xshape = self.shape[x]
        # The parts of each spatial dimension of the input's sharding, if
        # it is an argument: outputs that they divide take the halo path.
        arg = [a for a in self.prog['args'] if a['name'] == x]
        sharding = arg[0]['sharding'] if arg else None
        if r.random() < 0.3:
            # A "same" op: the input padded first (a pad of its own).
            f32 = self.prog['dtype'] == 'f32'
            low = [r.choice([0, 1, 1, 2]) if d in spatial else 0 for d in range(rank)]
            high = [r.choice([0, 1, 1, 2]) if d in spatial else 0 for d in range(rank)]
            padded = [n + lo + hi for n, lo, hi in zip(xshape, low, high)]
            if prod(padded) <= 512:
                c = r.choice([0.0, -1.0, 0.5]) if f32 else r.choice([0, -1, 7])
                pad = self.add_op('pad', [x], {'low': low, 'high': high, 'c': c},
                                  padded, max(self.bound[x], abs(c)))
                self.pool.append(pad['name'])
                x = pad['name']
                xshape = padded
        out = []
        for d, e, st in zip(spatial, extent, strides):
            full = (xshape[d] - e) // st + 1
            parts = prod(self.mesh_piece(a) for a in sharding['dims'][d]['axes']) \
                if sharding and not sharding.get('on_view') else 1
            roll = r.random()
            if roll < 0.6 and full >= parts > 1:
                out.append(full - full % parts)
            elif roll < 0.85:
                out.append(full)
            else:
                out.append(r.randint(1, full))
        p = {'op': kind, 'strides': strides, 'dilations': dilations,
             'window': window, 'out': out}
        operands = [x]
        red = prod(window)
        if kind.startswith('conv') or kind == 'dwconv':
            if kind == 'conv1d':
                wshape = window
            elif kind == 'conv1d_nwc':
                wshape = window + [xshape[-1], r.choice([1, 2, 3])]
            elif kind == 'conv2d':
                wshape = window + [xshape[-1], r.choice([1, 2, 3])]
            else:
                wshape = window + [xshape[-1]]
            red *= xshape[-1] if kind in ('conv1d_nwc', 'conv2d') else 1
            sh = self.gen_sharding(wshape, self.sub_ok) if r.random() < 0.2 else None
            name = 'a%d' % len(self.prog['args'])
            self.prog['args'].append({'name': name, 'shape': list(wshape), 'sharding': sh})
            self.shape[name] = list(wshape)
            self.bound[name] = 1.0
            operands.append(name)
        try:
            shape = infer_op({'kind': 'window', 'operands': operands, 'p': p,
                              'name': None}, self.shape, False)
        except Invalid:
            return
        if prod(shape) > 1024:
            return
        b = self.bound[x] * (1.0 if kind == 'poolmax' else
                             red * (self.bound[operands[1]] if len(operands) > 1 else 1.0))
        sharding = self.gen_sharding(shape, self.sub_ok) if r.random() < 0.25 else None
        op = self.add_op('window', operands, p, shape, b, sharding=sharding)
        self.pool.append(op['name'])
        self.prog['results'].append(op['name'])
        self.prog['result_shardings'].append(
            self.gen_sharding(shape, self.sub_ok) if r.random() < 0.3 else None)

    def spatial_sharding(self, shape, spatial):
        """A sharding of a windowed op's input: each mesh axis, at random,
        on a spatial dimension it divides (or, less often, any dimension)."""
        r = self.rng
        dims = [{'axes': [], 'open': False, 'prio': None} for _ in shape]
        axes = [(n, size) for n, size in self.prog['mesh']['axes'] if size > 1]
        r.shuffle(axes)
        for name, size in axes:
            roll = r.random()
            if roll < 0.2:
                continue
            cands = list(spatial) if roll < 0.85 else list(range(len(shape)))
            r.shuffle(cands)
            for d in cands:
                parts = prod(self.mesh_piece(a) for a in dims[d]['axes']) * size
                if shape[d] % parts == 0:
                    dims[d]['axes'].append([name, None, None])
                    break
        return {'dims': dims, 'replicated': []}

    def view_sharding(self, shape):
        """A sharding on @view: one dimension over a piece of "v" that is an
        axis or sub-axis of @mesh spelled in the view's digits (so the
        runtime's mesh can spell it back)."""
        x = self.extra
        axes = self.prog['mesh']['axes']
        n = prod(s for _, s in axes)
        stride = {}
        below = 1
        for name, size in reversed(axes):
            stride[name] = below
            below *= size
        pieces = []
        for name, size in axes:
            if size == 1:
                continue
            pieces.append((stride[name], size))
            for split in SPLITS.get(size, []):
                for pre, sz in split:
                    pieces.append((stride[name] * (size // (pre * sz)), sz))
        if len(axes) == 2 and all(size > 1 for _, size in axes):
            pieces.append((1, n))
        if not pieces or not shape:
            return None
        lo, size = x.choice(pieces)
        d = x.randrange(len(shape))
        if shape[d] % size and x.random() < 0.7:
            return None
        ref = ['v', None, size] if size == n else ['v', n // (lo * size), size]
        dims = [{'axes': [], 'open': x.random() < 0.3, 'prio': None} for _ in shape]
        dims[d]['axes'] = [ref]
        return {'dims': dims, 'replicated': [], 'on_view': True}

    def add_view(self):
        x = self.extra
        mesh = self.prog['mesh']
        n = prod(s for _, s in mesh['axes'])
        if n == 1 or mesh.get('other_ids') or x.random() >= 0.2:
            return
        run = self.prog['run_mesh']
        if run and prod(run) != n:
            return
        mesh['view'] = True
        for a in self.prog['args']:
            if x.random() < 0.5:
                a['sharding'] = self.view_sharding(a['shape']) or a['sharding']
        for i, v in enumerate(self.prog['results']):
            if x.random() < 0.3:
                s = self.view_sharding(self.shape[v])
                if s:
                    self.prog['result_shardings'][i] = s
        if not any(s and s.get('on_view') for s in
                   [a['sharding'] for a in self.prog['args']] +
                   self.prog['result_shardings']):
            mesh['view'] = False


    def add_single_device(self):
        """Sometimes a maximal mesh @one = <[], device_ids=[k]> names one of
        the devices, and some arguments, results and ops' results are on
        it (`<@one, []>`)."""
        x = self.single
        if x is None:
            return
        mesh = self.prog['mesh']
        n = prod(s for _, s in mesh['axes'])
        run = self.prog['run_mesh']
        if run:
            n = min(n, prod(run))
        if n == 1 or x.random() >= 0.12:
            return
        one = {'dims': [], 'replicated': [], 'on_one': True}
        used = False
        for a in self.prog['args']:
            if x.random() < 0.3:
                a['sharding'] = dict(one)
                used = True
        # (Top-level ops only, not loops nor constraints.)
        for op in self.prog['ops']:
            if op['kind'] not in ('for', 'constraint') and x.random() < 0.15:
                op['sharding'] = dict(one)
                used = True
        for i in range(len(self.prog['results'])):
            if x.random() < 0.25:
                self.prog['result_shardings'][i] = dict(one)
                used = True
        if used:
            mesh['one'] = x.randrange(n)


def generate(seed, index, max_ops, window_rate=WINDOWED_RATE):
    rng = random.Random('%d:%d' % (seed, index))
    # The second mesh's choices come from their own stream, so that a seed
    # keeps generating the programs it did before they existed; calls and
    # the 1-D view mesh from a third, windowed ops (in a share
    # `window_rate` of the programs) from a fourth.
    side = random.Random('%d:%d:other' % (seed, index))
    extra = random.Random('%d:%d:calls-view' % (seed, index))
    window = random.Random('%d:%d:windowed' % (seed, index))
    # Values on a single-device mesh, from a fifth.
    single = random.Random('%d:%d:single' % (seed, index))
    return Gen(rng, max_ops, side, extra, window, window_rate,
               single).generate()
