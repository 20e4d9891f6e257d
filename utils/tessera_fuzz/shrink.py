"""Delta debugging: smaller variants of a program (candidates) and the
greedy loop keeping the first one still failing the same way (shrink)."""

import copy
import time

from .ir import Invalid, all_shardings, infer, prod, walk_ops
from .render import render


def replace_uses(ops, old, new):
    for op in ops:
        op['operands'] = [new if o == old else o for o in op['operands']]
        if op['kind'] == 'for':
            replace_uses(op['body'], old, new)
            if op['yield'] == old:
                op['yield'] = new


def dead_ops(prog):
    used = set(prog['results'])
    for op in walk_ops(prog['ops']):
        used.update(op['operands'])
        if op['kind'] == 'for':
            used.add(op['yield'])
    return {op['name'] for op in walk_ops(prog['ops']) if op['name'] not in used}


def dce(prog, keep=frozenset()):
    """Drops ops whose results are unused (except those in keep), and
    unused arguments."""
    changed = True
    while changed:
        changed = False
        used = set(prog['results']) | set(keep)
        for op in walk_ops(prog['ops']):
            used.update(op['operands'])
            if op['kind'] == 'for':
                used.add(op['yield'])

        def prune(ops):
            nonlocal changed
            out = []
            for op in ops:
                if op['name'] in used:
                    if op['kind'] == 'for':
                        op['body'] = prune(op['body'])
                    out.append(op)
                else:
                    changed = True
            return out
        prog['ops'] = prune(prog['ops'])
    used = set(prog['results'])
    for op in walk_ops(prog['ops']):
        used.update(op['operands'])
    prog['args'] = [a for a in prog['args'] if a['name'] in used]
    return prog


def find_op(ops, name):
    for op in walk_ops(ops):
        if op['name'] == name:
            return op
    return None


def fresh_arg_name(prog):
    names = {a['name'] for a in prog['args']}
    i = 0
    while 'a%d' % i in names:
        i += 1
    return 'a%d' % i


def op_path(prog, name):
    """The list holding op `name` and the enclosing loop (or None)."""
    def rec(ops, loop):
        for op in ops:
            if op['name'] == name:
                return ops, loop
            if op['kind'] == 'for':
                r = rec(op['body'], op)
                if r:
                    return r
        return None
    return rec(prog['ops'], None)


def op_path_scoped(prog, name):
    """Whether name is defined inside a loop body (or is a loop's iter)."""
    for op in walk_ops(prog['ops']):
        if op['kind'] == 'for':
            if name == op['iter'] or any(b['name'] == name for b in walk_ops(op['body'])):
                return True
    return False


def candidates(prog, env):
    """Smaller variants of prog, coarse first."""
    # Ops that are already dead stay (a predicate on the program's text may
    # need them) unless a candidate deletes them explicitly.
    dead0 = dead_ops(prog)
    # 1. Keep one result.
    if len(prog['results']) > 1:
        for i in range(len(prog['results'])):
            c = copy.deepcopy(prog)
            c['results'] = [prog['results'][i]]
            c['result_shardings'] = [prog['result_shardings'][i]]
            yield c
        for i in range(len(prog['results'])):
            c = copy.deepcopy(prog)
            del c['results'][i]
            del c['result_shardings'][i]
            yield c
    # Return an operand of a result's op instead (of any type).
    for ri, r in enumerate(prog['results']):
        op = find_op(prog['ops'], r)
        if op is None:
            continue
        operands = list(op['operands']) + ([op['yield']] if op['kind'] == 'for' else [])
        for o in dict.fromkeys(operands):
            if o in env and o not in prog['results'] and not op_path_scoped(prog, o):
                c = copy.deepcopy(prog)
                c['results'][ri] = o
                c['result_shardings'][ri] = None
                yield dce(c, dead0)
    # Return a smaller argument instead.
    for ri, r in enumerate(prog['results']):
        for a in prog['args']:
            if a['name'] not in prog['results'] and (
                    len(a['shape']), prod(a['shape'])) < (len(env[r]), prod(env[r])):
                c = copy.deepcopy(prog)
                c['results'][ri] = a['name']
                c['result_shardings'][ri] = None
                yield dce(c, dead0)
    # Merge arguments of the same shape.
    for i, a in enumerate(prog['args']):
        for b in prog['args'][:i]:
            if a['shape'] == b['shape']:
                c = copy.deepcopy(prog)
                replace_uses(c['ops'], a['name'], b['name'])
                c['results'] = [b['name'] if x == a['name'] else x for x in c['results']]
                yield dce(c, dead0)
                break
    # 2. Delete an op nothing uses (a predicate on the text may keep dead
    #    ops alive), then drop unused arguments.
    used = set(prog['results'])
    for op in walk_ops(prog['ops']):
        used.update(op['operands'])
        if op['kind'] == 'for':
            used.add(op['yield'])
    for op in list(walk_ops(prog['ops'])):
        if op['name'] not in used:
            c = copy.deepcopy(prog)
            ops_list, _ = op_path(c, op['name'])
            ops_list[:] = [o for o in ops_list if o['name'] != op['name']]
            yield c
    if any(a['name'] not in used for a in prog['args']):
        c = copy.deepcopy(prog)
        c['args'] = [a for a in c['args'] if a['name'] in used]
        yield c
    # 3. Replace an op's result by one of its operands of the same shape,
    #    or by a fresh argument (later ops first: bigger cuts).
    names = [op['name'] for op in walk_ops(prog['ops'])]
    for name in reversed(names):
        op = find_op(prog['ops'], name)
        shape = env[name]
        for o in dict.fromkeys(op['operands']):
            if env.get(o) == shape:
                c = copy.deepcopy(prog)
                replace_uses(c['ops'], name, o)
                c['results'] = [o if r == name else r for r in c['results']]
                yield dce(c, dead0)
        if op['kind'] == 'for':
            c = copy.deepcopy(prog)
            loop = find_op(c['ops'], name)
            # Inline the body once: iter -> init, result -> yield.
            ops_list, _ = op_path(c, name)
            i = ops_list.index(loop)
            body = loop['body']
            replace_uses(body, loop['iter'], loop['operands'][0])
            y = loop['operands'][0] if loop['yield'] == loop['iter'] else loop['yield']
            ops_list[i:i + 1] = body
            replace_uses(c['ops'], name, y)
            c['results'] = [y if r == name else r for r in c['results']]
            yield dce(c, dead0)
        _, loop = op_path(prog, name)
        if loop is None:
            c = copy.deepcopy(prog)
            a = fresh_arg_name(c)
            c['args'].append({'name': a, 'shape': list(shape), 'sharding': None})
            replace_uses(c['ops'], name, a)
            c['results'] = [a if r == name else r for r in c['results']]
            yield dce(c, dead0)
    # Replace an op by a simple elementwise one (x + 1) on an operand of
    # its result's shape, or on a new argument: simpler reproducers.
    for name in reversed(names):
        op = find_op(prog['ops'], name)
        if op['kind'] in ('scale', 'unary', 'for') or op_path_scoped(prog, name):
            continue
        shape = env[name]
        same = [o for o in op['operands'] if env.get(o) == shape]
        c = copy.deepcopy(prog)
        cop = find_op(c['ops'], name)
        if same:
            src = same[0]
        else:
            src = fresh_arg_name(c)
            c['args'].append({'name': src, 'shape': list(shape), 'sharding': None})
        cop.update({'kind': 'scale', 'operands': [src], 'p': {'c': 1, 'op': 'add'},
                    'sharding': None})
        yield dce(c, dead0)
    # 4. Simpler parameters: one loop trip, no padding, unit strides and
    #    zero offsets.
    for op in walk_ops(prog['ops']):
        simpler = {}
        if op['kind'] == 'for' and op['p']['trips'] > 1:
            simpler = {'trips': 1}
        elif op['kind'] == 'pad' and any(op['p']['low'] + op['p']['high']):
            for key in ('low', 'high'):
                if any(op['p'][key]):
                    c = copy.deepcopy(prog)
                    find_op(c['ops'], op['name'])['p'][key] = [0] * len(op['p'][key])
                    yield c
        elif op['kind'] == 'slice' and any(op['p']['offsets']) or \
                op['kind'] == 'slice' and any(x != 1 for x in op['p']['strides']):
            simpler = {'offsets': [0] * len(op['p']['offsets']),
                       'strides': [1] * len(op['p']['strides'])}
        if simpler:
            c = copy.deepcopy(prog)
            find_op(c['ops'], op['name'])['p'].update(simpler)
            yield c
    # 5. Shardings: drop, then simplify.
    def sharding_slots(p):
        for i, a in enumerate(p['args']):
            if a['sharding']:
                yield ('arg', i)
        for op in walk_ops(p['ops']):
            if op.get('sharding'):
                yield ('op', op['name'])
        for i, s in enumerate(p['result_shardings']):
            if s:
                yield ('res', i)
        for op in walk_ops(p['ops']):
            if op['kind'] == 'constraint':
                yield ('con', op['name'])

    def get_slot(p, slot):
        kind, key = slot
        if kind == 'arg':
            return p['args'][key]['sharding']
        if kind == 'op':
            return find_op(p['ops'], key)['sharding']
        if kind == 'res':
            return p['result_shardings'][key]
        return find_op(p['ops'], key)['p']['sharding']

    def set_slot(p, slot, s):
        kind, key = slot
        if kind == 'arg':
            p['args'][key]['sharding'] = s
        elif kind == 'op':
            find_op(p['ops'], key)['sharding'] = s
        elif kind == 'res':
            p['result_shardings'][key] = s
        else:
            find_op(p['ops'], key)['p']['sharding'] = s

    slots = list(sharding_slots(prog))
    for slot in slots:
        if slot[0] != 'con':
            c = copy.deepcopy(prog)
            set_slot(c, slot, None)
            yield c
    for slot in slots:
        s = get_slot(prog, slot)
        if s['replicated']:
            c = copy.deepcopy(prog)
            get_slot(c, slot)['replicated'] = []
            yield c
        for di, d in enumerate(s['dims']):
            for ai in range(len(d['axes'])):
                c = copy.deepcopy(prog)
                del get_slot(c, slot)['dims'][di]['axes'][ai]
                if not get_slot(c, slot)['dims'][di]['axes'] and \
                        not get_slot(c, slot)['dims'][di]['open']:
                    get_slot(c, slot)['dims'][di]['prio'] = None
                yield c
            if d['prio'] is not None:
                c = copy.deepcopy(prog)
                get_slot(c, slot)['dims'][di]['prio'] = None
                yield c
            if d['open']:
                c = copy.deepcopy(prog)
                dd = get_slot(c, slot)['dims'][di]
                dd['open'] = False
                if not dd['axes']:
                    dd['prio'] = None
                yield c
    # 6. The mesh: run on the declared one, iota order, smaller axes.
    if prog['run_mesh']:
        c = copy.deepcopy(prog)
        c['run_mesh'] = None
        yield c
    if prog['mesh'].get('other_ids'):
        c = copy.deepcopy(prog)
        drop_other_mesh(c)
        yield c
    if prog['mesh'].get('view'):
        c = copy.deepcopy(prog)
        drop_view_mesh(c)
        yield c
    if prog['mesh'].get('one') is not None:
        c = copy.deepcopy(prog)
        drop_one_mesh(c)
        yield c
    if prog['mesh']['device_ids']:
        c = copy.deepcopy(prog)
        c['mesh']['device_ids'] = None
        yield c
    axes = prog['mesh']['axes']
    for ai, (name, size) in enumerate(axes):
        if len(axes) > 1:
            c = copy.deepcopy(prog)
            del c['mesh']['axes'][ai]
            if c['run_mesh']:
                del c['run_mesh'][ai]
            c['mesh']['device_ids'] = None
            drop_other_mesh(c)
            drop_view_mesh(c)
            drop_axis_refs(c, name, 0)
            yield c
        for new in sorted({1, size // 2, size - 1}):
            if 1 <= new < size:
                c = copy.deepcopy(prog)
                c['mesh']['axes'][ai][1] = new
                c['mesh']['device_ids'] = None
                drop_other_mesh(c)
                drop_view_mesh(c)
                drop_axis_refs(c, name, new)
                yield c
    # 7. Dimensions: one size everywhere, then single argument dims.
    sizes = collect_sizes(prog)
    for s in sorted(set(sizes), reverse=True):
        for t in sorted({1, s // 2, s - 1}):
            if 1 <= t < s:
                c = copy.deepcopy(prog)
                replace_size(c, s, t)
                yield c
    for ai, a in enumerate(prog['args']):
        for di, n in enumerate(a['shape']):
            for t in sorted({1, n // 2, n - 1}):
                if 1 <= t < n:
                    c = copy.deepcopy(prog)
                    c['args'][ai]['shape'][di] = t
                    yield c


def drop_other_mesh(prog):
    """Removes the second mesh; results on it move to @mesh."""
    prog['mesh']['other_ids'] = None
    for s in prog['result_shardings']:
        if s:
            s.pop('on_other', None)


def drop_view_mesh(prog):
    """Removes the 1-D view mesh and the shardings on it."""
    prog['mesh']['view'] = False
    for a in prog['args']:
        if a['sharding'] and a['sharding'].get('on_view'):
            a['sharding'] = None
    prog['result_shardings'] = [
        None if s and s.get('on_view') else s for s in prog['result_shardings']]


def drop_one_mesh(prog):
    """Removes the single-device mesh and the shardings on it."""
    prog['mesh']['one'] = None
    for a in prog['args']:
        if a['sharding'] and a['sharding'].get('on_one'):
            a['sharding'] = None
    for op in walk_ops(prog['ops']):
        if op.get('sharding') and op['sharding'].get('on_one'):
            op['sharding'] = None
    prog['result_shardings'] = [
        None if s and s.get('on_one') else s for s in prog['result_shardings']]


def drop_axis_refs(prog, name, new_size):
    """Removes references to axis `name` that are invalid at new_size (0:
    the axis is gone)."""
    for s in all_shardings(prog):
        for d in s['dims']:
            keep = []
            for a in d['axes']:
                if a[0] != name:
                    keep.append(a)
                elif new_size and a[1] is None:
                    keep.append(a)
                elif new_size and a[2] < new_size and new_size % (a[1] * a[2]) == 0:
                    keep.append(a)
            d['axes'] = keep
            if not d['axes'] and not d['open']:
                d['prio'] = None
        if not new_size:
            s['replicated'] = [r for r in s['replicated'] if r != name]


def collect_sizes(prog):
    sizes = []
    for a in prog['args']:
        sizes += a['shape']
    for op in walk_ops(prog['ops']):
        if op['kind'] == 'broadcast':
            sizes += op['p']['sizes']
    return [s for s in sizes if s > 1]


def replace_size(prog, s, t):
    for a in prog['args']:
        a['shape'] = [t if n == s else n for n in a['shape']]
    for op in walk_ops(prog['ops']):
        if op['kind'] == 'broadcast':
            op['p']['sizes'] = [t if n == s else n for n in op['p']['sizes']]


def shrink(prog, interesting, max_tests, deadline):
    """Greedy delta debugging: take the first smaller variant that is still
    interesting, until none is (or the budget is spent)."""
    best = dce(copy.deepcopy(prog))
    if not valid(best) or not interesting(best):
        best = copy.deepcopy(prog)
    tests = 0
    progress = True
    seen = set()
    while progress and tests < max_tests and time.time() < deadline:
        progress = False
        env = infer(best)
        for c in candidates(best, env):
            if not valid(c):
                continue
            key = render(c)
            if key in seen:
                continue
            seen.add(key)
            tests += 1
            if interesting(c):
                best = c
                progress = True
                break
            if tests >= max_tests or time.time() >= deadline:
                break
    return best, tests


def canonical_names(prog):
    """Renames arguments a0, a1, ... and values v0, v1, ... in order."""
    prog = copy.deepcopy(prog)
    m = {}
    for i, a in enumerate(prog['args']):
        m[a['name']] = 'a%d' % i
        a['name'] = m[a['name']]
    for i, op in enumerate(walk_ops(prog['ops'])):
        m[op['name']] = 'v%d' % i
        if op['kind'] == 'for':
            m[op['iter']] = 'i%d' % i
    for op in walk_ops(prog['ops']):
        op['name'] = m[op['name']]
        op['operands'] = [m[o] for o in op['operands']]
        if op['kind'] == 'for':
            op['iter'] = m[op['iter']]
            op['yield'] = m[op['yield']]
    prog['results'] = [m[r] for r in prog['results']]
    return prog


def valid(prog):
    try:
        infer(prog, repair=True)
        return True
    except Invalid:
        return False
