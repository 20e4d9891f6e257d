"""Printing a program as MLIR text (the spmd, func, arith, math, linalg,
tensor and scf dialects)."""

from .ir import F32_UNARY, I32_UNARY, WINDOWED, callee_name, infer, prod, walk_ops


def ttype(shape, dtype):
    return 'tensor<%s>' % 'x'.join([str(n) for n in shape] + [dtype])


def render_axis(a):
    name, pre, size = a
    return '"%s"' % name if pre is None else '"%s":(%d)%d' % (name, pre, size)


def render_sharding_body(s):
    if s.get('on_one'):
        return '@one, []'
    dims = []
    for d in s['dims']:
        items = [render_axis(a) for a in d['axes']]
        if d['open']:
            items.append('?')
        txt = '{%s}' % ', '.join(items)
        if d['prio'] is not None:
            txt += 'p%d' % d['prio']
        dims.append(txt)
    mesh = 'other' if s.get('on_other') else 'view' if s.get('on_view') else 'mesh'
    txt = '@%s, [%s]' % (mesh, ', '.join(dims))
    if s['replicated']:
        txt += ', replicated={%s}' % ', '.join('"%s"' % r for r in s['replicated'])
    return txt


def render_sharding(s):
    return '#spmd.sharding<%s>' % render_sharding_body(s)


def render_mesh(mesh):
    txt = 'spmd.mesh @mesh = <[%s]' % ', '.join(
        '"%s"=%d' % (n, s) for n, s in mesh['axes'])
    if mesh['device_ids']:
        txt += ', device_ids=[%s]' % ', '.join(map(str, mesh['device_ids']))
    txt += '>'
    if mesh.get('other_ids'):
        txt += '\nspmd.mesh @other = <[%s], device_ids=[%s]>' % (
            ', '.join('"%s"=%d' % (n, s) for n, s in mesh['axes']),
            ', '.join(map(str, mesh['other_ids'])))
    if mesh.get('view'):
        txt += '\nspmd.mesh @view = <["v"=%d]>' % prod(s for _, s in mesh['axes'])
    if mesh.get('one') is not None:
        txt += '\nspmd.mesh @one = <[], device_ids=[%d]>' % mesh['one']
    return txt


def float_lit(c):
    return repr(float(c))


def render(prog, header=()):
    env = infer(prog)
    dt = prog['dtype']
    lines = ['// ' + h for h in header]
    lines.append(render_mesh(prog['mesh']))
    args = []
    for a in prog['args']:
        t = '%%%s: %s' % (a['name'], ttype(a['shape'], dt))
        if a['sharding']:
            t += ' {spmd.sharding = %s}' % render_sharding(a['sharding'])
        args.append(t)
    res = []
    for r, s in zip(prog['results'], prog['result_shardings']):
        t = ttype(env[r], dt)
        if s:
            t += ' {spmd.sharding = %s}' % render_sharding(s)
        res.append(t)
    lines.append('func.func @main(%s) -> (%s) {' % (', '.join(args), ', '.join(res)))
    render_block(prog['ops'], env, dt, lines, '  ')
    lines.append('  return %s : %s' % (
        ', '.join('%' + r for r in prog['results']),
        ', '.join(ttype(env[r], dt) for r in prog['results'])))
    lines.append('}')
    render_callees(prog, env, dt, lines)
    return '\n'.join(lines) + '\n'


# The callees of 'call' ops: one elementwise step (bounded for f32).
CALLEE_STEPS = {'tanh': ('math.tanh', 'arith.mulf'), 'sin': ('math.sin', 'arith.addf'),
                'absi': ('math.absi', 'arith.addi')}


def render_callees(prog, env, dt, lines):
    done = set()
    for op in walk_ops(prog['ops']):
        if op['kind'] != 'call':
            continue
        shape = env[op['operands'][0]]
        name = callee_name(op, shape, dt)
        if name in done:
            continue
        done.add(name)
        T = ttype(shape, dt)
        fn, comb = CALLEE_STEPS[op['p']['fn']]
        lines.append('func.func private @%s(%%x: %s) -> %s {' % (name, T, T))
        lines.append('  %%0 = %s %%x : %s' % (fn, T))
        lines.append('  %%1 = %s %%0, %%x : %s' % (comb, T))
        lines.append('  return %%1 : %s' % T)
        lines.append('}')


def render_block(ops, env, dt, lines, ind):
    for op in ops:
        render_op(op, env, dt, lines, ind)


def render_op(op, env, dt, lines, ind):
    n = op['name']
    k = op['kind']
    p = op['p']
    T = ttype(env[n], dt)
    ops = ['%' + o for o in op['operands']]
    ots = [ttype(env[o], dt) for o in op['operands']]
    attr = ''
    if op.get('sharding'):
        attr = ' {spmd.sharding = #spmd.sharding_per_value<[<%s>]>}' % \
            render_sharding_body(op['sharding'])
    emit = lambda s: lines.append(ind + s)
    zero = '0.0 : f32' if dt == 'f32' else '0 : i32'
    scalar = dt

    def fill(init_lit):
        emit('%%%s_e = tensor.empty() : %s' % (n, T))
        emit('%%%s_z = arith.constant %s' % (n, init_lit))
        emit('%%%s_f = linalg.fill ins(%%%s_z : %s) outs(%%%s_e : %s) -> %s'
             % (n, n, scalar, n, T, T))
        return '%%%s_f' % n

    if k == 'unary':
        name = (F32_UNARY if dt == 'f32' else I32_UNARY)[p['fn']]
        emit('%%%s = %s %s%s : %s' % (n, name, ops[0], attr, T))
    elif k == 'scale':
        lit = float_lit(p['c']) if dt == 'f32' else str(int(p['c']))
        emit('%%%s_c = arith.constant dense<%s> : %s' % (n, lit, T))
        name = {('f32', 'mul'): 'arith.mulf', ('f32', 'add'): 'arith.addf',
                ('i32', 'mul'): 'arith.muli', ('i32', 'add'): 'arith.addi'}[(dt, p['op'])]
        emit('%%%s = %s %s, %%%s_c%s : %s' % (n, name, ops[0], n, attr, T))
    elif k == 'binary':
        emit('%%%s = arith.%s %s, %s%s : %s' % (n, p['fn'], ops[0], ops[1], attr, T))
    elif k == 'broadcast':
        emit('%%%s_e = tensor.empty() : %s' % (n, T))
        emit('%%%s = linalg.broadcast ins(%s : %s) outs(%%%s_e : %s) dimensions = [%s]'
             % (n, ops[0], ots[0], n, T, ', '.join(map(str, p['dims']))))
    elif k == 'matmul':
        f = fill(zero)
        emit('%%%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s'
             % (n, ops[0], ops[1], ots[0], ots[1], f, T, T))
    elif k == 'contract':
        f = fill(zero)
        ins, out = p['spec'].split('->')
        ia, ib = ins.split(',')
        loops = list(out) + [c for c in dict.fromkeys(ia + ib) if c not in out]
        dims = ', '.join('d%d' % i for i in range(len(loops)))
        amap = lambda letters: 'affine_map<(%s) -> (%s)>' % (
            dims, ', '.join('d%d' % loops.index(c) for c in letters))
        its = ', '.join('"parallel"' if c in out else '"reduction"' for c in loops)
        emit('%%%s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]}'
             % (n, amap(ia), amap(ib), amap(out), its))
        emit('    ins(%s, %s : %s, %s) outs(%s : %s) {' % (ops[0], ops[1], ots[0], ots[1], f, T))
        emit('^bb0(%%x: %s, %%y: %s, %%acc: %s):' % (dt, dt, dt))
        mul, add = ('arith.mulf', 'arith.addf') if dt == 'f32' else ('arith.muli', 'arith.addi')
        emit('  %%m = %s %%x, %%y : %s' % (mul, dt))
        emit('  %%s = %s %%acc, %%m : %s' % (add, dt))
        emit('  linalg.yield %%s : %s' % dt)
        emit('} -> %s' % T)
    elif k == 'reduce':
        if p['kind'] == 'add':
            init = zero
            comb = 'arith.addf' if dt == 'f32' else 'arith.addi'
        else:
            init = '0xFF800000 : f32' if dt == 'f32' else '-2147483648 : i32'
            comb = 'arith.maximumf' if dt == 'f32' else 'arith.maxsi'
        f = fill(init)
        emit('%%%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%s]'
             % (n, ops[0], ots[0], f, T, ', '.join(map(str, p['dims']))))
        emit('  (%%in: %s, %%acc: %s) {' % (dt, dt))
        emit('    %%r = %s %%in, %%acc : %s' % (comb, dt))
        emit('    linalg.yield %%r : %s' % dt)
        emit('  }')
    elif k == 'argmax':
        # The value and the index (from linalg.index) of the max or min
        # along one dimension; the op's value is their sum.
        rank = len(env[op['operands'][0]])
        d = p['dim']
        IT = ttype(env[n], 'i32')
        if dt == 'f32':
            init = '0x7F800000 : f32' if p['min'] else '0xFF800000 : f32'
            cmp = 'arith.cmpf %s, %%x, %%av : f32' % ('olt' if p['min'] else 'ogt')
        else:
            init = '2147483647 : i32' if p['min'] else '-2147483648 : i32'
            cmp = 'arith.cmpi %s, %%x, %%av : i32' % ('slt' if p['min'] else 'sgt')
        fv = fill(init)
        emit('%%%s_ie = tensor.empty() : %s' % (n, IT))
        emit('%%%s_iz = arith.constant 0 : i32' % n)
        emit('%%%s_if = linalg.fill ins(%%%s_iz : i32) outs(%%%s_ie : %s) -> %s'
             % (n, n, n, IT, IT))
        dims = ', '.join('d%d' % i for i in range(rank))
        outs = ', '.join('d%d' % i for i in range(rank) if i != d)
        its = ', '.join('"reduction"' if i == d else '"parallel"' for i in range(rank))
        omap = 'affine_map<(%s) -> (%s)>' % (dims, outs)
        emit('%%%s_r:2 = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>, %s, %s], '
             'iterator_types = [%s]}' % (n, dims, dims, omap, omap, its))
        emit('    ins(%s : %s) outs(%s, %%%s_if : %s, %s) {' % (ops[0], ots[0], fv, n, T, IT))
        emit('^bb0(%%x: %s, %%av: %s, %%ai: i32):' % (dt, dt))
        emit('  %%k = linalg.index %d : index' % d)
        emit('  %kc = arith.index_cast %k : index to i32')
        emit('  %c = ' + cmp)
        emit('  %%nv = arith.select %%c, %%x, %%av : %s' % dt)
        emit('  %ni = arith.select %c, %kc, %ai : i32')
        emit('  linalg.yield %%nv, %%ni : %s, i32' % dt)
        emit('} -> (%s, %s)' % (T, IT))
        if dt == 'f32':
            emit('%%%s_c = arith.sitofp %%%s_r#1 : %s to %s' % (n, n, IT, T))
            emit('%%%s = arith.addf %%%s_c, %%%s_r#0%s : %s' % (n, n, n, attr, T))
        else:
            emit('%%%s = arith.addi %%%s_r#1, %%%s_r#0%s : %s' % (n, n, n, attr, T))
    elif k == 'collapse':
        groups, i = [], 0
        for g in p['groups']:
            groups.append('[%s]' % ', '.join(str(j) for j in range(i, i + g)))
            i += g
        emit('%%%s = tensor.collapse_shape %s [%s] : %s into %s'
             % (n, ops[0], ', '.join(groups), ots[0], T))
    elif k == 'expand':
        src = env[op['operands'][0]]
        groups, j = [], 0
        for i in range(len(src)):
            if i == p['dim']:
                groups.append('[%d, %d]' % (j, j + 1))
                j += 2
            else:
                groups.append('[%d]' % j)
                j += 1
        emit('%%%s = tensor.expand_shape %s [%s] output_shape [%s] : %s into %s'
             % (n, ops[0], ', '.join(groups), ', '.join(map(str, env[n])), ots[0], T))
    elif k == 'transpose':
        emit('%%%s_e = tensor.empty() : %s' % (n, T))
        emit('%%%s = linalg.transpose ins(%s : %s) outs(%%%s_e : %s) permutation = [%s]'
             % (n, ops[0], ots[0], n, T, ', '.join(map(str, p['perm']))))
    elif k == 'slice':
        emit('%%%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s'
             % (n, ops[0], ', '.join(map(str, p['offsets'])), ', '.join(map(str, p['sizes'])),
                ', '.join(map(str, p['strides'])), ots[0], T))
    elif k == 'concat':
        emit('%%%s = tensor.concat dim(%d) %s : (%s) -> %s'
             % (n, p['dim'], ', '.join(ops), ', '.join(ots), T))
    elif k == 'index_add':
        # x + index(dim) * c: an index-dependent value (iota-like), whose
        # partitioned form needs the device's global offset.
        rank = len(env[n])
        dims = ', '.join('d%d' % i for i in range(rank))
        idm = 'affine_map<(%s) -> (%s)>' % (dims, dims)
        emit('%%%s_e = tensor.empty() : %s' % (n, T))
        emit('%%%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]}'
             % (n, idm, idm, ', '.join(['"parallel"'] * rank)))
        emit('    ins(%s : %s) outs(%%%s_e : %s) {' % (ops[0], ots[0], n, T))
        emit('^bb0(%%in: %s, %%out: %s):' % (dt, dt))
        emit('  %%i = linalg.index %d : index' % p['dim'])
        emit('  %ii = arith.index_cast %i : index to i32')
        if dt == 'f32':
            emit('  %if = arith.sitofp %ii : i32 to f32')
            emit('  %%c = arith.constant %s : f32' % float_lit(p['c']))
            emit('  %m = arith.mulf %if, %c : f32')
            emit('  %r = arith.addf %in, %m : f32')
        else:
            emit('  %%c = arith.constant %d : i32' % int(p['c']))
            emit('  %m = arith.muli %ii, %c : i32')
            emit('  %r = arith.addi %in, %m : i32')
        emit('  linalg.yield %%r : %s' % dt)
        emit('} -> %s' % T)
    elif k == 'bgeneric':
        # An elementwise generic whose second operand is broadcast.
        rank = len(env[n])
        dims = ', '.join('d%d' % i for i in range(rank))
        idm = 'affine_map<(%s) -> (%s)>' % (dims, dims)
        ym = 'affine_map<(%s) -> (%s)>' % (dims, ', '.join('d%d' % d for d in p['dims']))
        emit('%%%s_e = tensor.empty() : %s' % (n, T))
        emit('%%%s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]}'
             % (n, idm, ym, idm, ', '.join(['"parallel"'] * rank)))
        emit('    ins(%s, %s : %s, %s) outs(%%%s_e : %s) {' % (ops[0], ops[1], ots[0], ots[1], n, T))
        emit('^bb0(%%x: %s, %%y: %s, %%out: %s):' % (dt, dt, dt))
        emit('  %%r = arith.%s %%x, %%y : %s' % (p['fn'], dt))
        emit('  linalg.yield %%r : %s' % dt)
        emit('} -> %s' % T)
    elif k == 'pad':
        lit = float_lit(p['c']) if dt == 'f32' else str(int(p['c']))
        emit('%%%s_c = arith.constant %s : %s' % (n, lit, dt))
        emit('%%%s = tensor.pad %s low[%s] high[%s] {' % (
            n, ops[0], ', '.join(map(str, p['low'])), ', '.join(map(str, p['high']))))
        emit('^bb0(%s):' % ', '.join('%%p%d: index' % i for i in range(len(env[n]))))
        emit('  tensor.yield %%%s_c : %s' % (n, dt))
        emit('} : %s to %s' % (ots[0], T))
    elif k == 'window':
        opname, _, spatial, strided = WINDOWED[p['op']]
        if p['op'] == 'poolmax':
            init = '0xFF800000 : f32' if dt == 'f32' else '-2147483648 : i32'
        else:
            init = zero
        f = fill(init)
        attrs = []
        if strided:
            vec = lambda xs: 'dense<[%s]> : tensor<%dxi64>' % (', '.join(map(str, xs)), len(xs))
            attrs += ['dilations = ' + vec(p['dilations']), 'strides = ' + vec(p['strides'])]
        if op.get('sharding'):
            attrs.append('spmd.sharding = #spmd.sharding_per_value<[<%s>]>'
                         % render_sharding_body(op['sharding']))
        adict = ' {%s}' % ', '.join(attrs) if attrs else ''
        if p['op'].startswith('pool'):
            WT = ttype(p['window'], dt)
            emit('%%%s_w = tensor.empty() : %s' % (n, WT))
            ins, its = [ops[0], '%%%s_w' % n], [ots[0], WT]
        else:
            ins, its = ops, ots
        emit('%%%s = %s%s ins(%s : %s) outs(%s : %s) -> %s'
             % (n, opname, adict, ', '.join(ins), ', '.join(its), f, T, T))
    elif k == 'call':
        emit('%%%s = func.call @%s(%s)%s : (%s) -> %s'
             % (n, callee_name(op, env[op['operands'][0]], dt), ops[0], attr, ots[0], T))
    elif k == 'constraint':
        emit('%%%s = spmd.sharding_constraint %s <%s> : %s'
             % (n, ops[0], render_sharding_body(p['sharding']), T))
    elif k == 'for' and p.get('while'):
        # The same loop as an scf.while counting its trips.
        emit('%%%s_lo = arith.constant 0 : index' % n)
        emit('%%%s_hi = arith.constant %d : index' % (n, p['trips']))
        emit('%%%s_st = arith.constant 1 : index' % n)
        emit('%%%s, %%%s_k = scf.while (%%%s_b = %s, %%%s_c = %%%s_lo) : (%s, index) -> (%s, index) {'
             % (n, n, op['iter'], ops[0], n, n, T, T))
        emit('  %%%s_p = arith.cmpi slt, %%%s_c, %%%s_hi : index' % (n, n, n))
        emit('  scf.condition(%%%s_p) %%%s_b, %%%s_c : %s, index' % (n, op['iter'], n, T))
        emit('} do {')
        emit('^bb0(%%%s: %s, %%%s_iv: index):' % (op['iter'], T, n))
        render_block(op['body'], env, dt, lines, ind + '  ')
        emit('  %%%s_nx = arith.addi %%%s_iv, %%%s_st : index' % (n, n, n))
        emit('  scf.yield %%%s, %%%s_nx : %s, index' % (op['yield'], n, T))
        emit('}')
    elif k == 'for':
        emit('%%%s_lo = arith.constant 0 : index' % n)
        emit('%%%s_hi = arith.constant %d : index' % (n, p['trips']))
        emit('%%%s_st = arith.constant 1 : index' % n)
        emit('%%%s = scf.for %%%s_iv = %%%s_lo to %%%s_hi step %%%s_st iter_args(%%%s = %s) -> (%s) {'
             % (n, n, n, n, n, op['iter'], ops[0], T))
        render_block(op['body'], env, dt, lines, ind + '  ')
        emit('  scf.yield %%%s : %s' % (op['yield'], T))
        emit('}')
    else:
        raise AssertionError(k)
