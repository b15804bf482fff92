#!/usr/bin/env python3
"""Reads calltrace-report's --tree and --dump output back, so that the
views_*.sh tests can compare them call by call.

  views_check.py tree-calls TREE [KEEP]   calls in the tree, in order
  views_check.py dump-calls DUMP [KEEP]   calls in the dump, in order
  views_check.py tree-durations TREE NAME durations (ns) of NAME's calls
  views_check.py dump-durations DUMP NAME the same from the dump: return
                                          minus call minus S..E inside
  views_check.py thread-trees TREE [KEEP] one line per thread: its calls
                                          ("depth name;" each), sorted

TREE may also be `uftrace replay` output, whose lines have the same form.

A call is printed as "T<k> <depth> <name> <call|open>": T<k> numbers the
threads in the order their first call appears (the same in both views, as
both are in time order), depth counts the calls it is nested in, "open"
is a frame already open when its thread's data began.  KEEP, a comma-
separated list, leaves out every other function and nests its callees in
its caller (as --hide would), so that calls the test does not control
(library calls, if recorded) do not matter.
"""
import re
import sys

# calltrace's lines and uftrace replay's (whose duration column is wider)
# (and the ON-CPU column that follows the duration when the trace has
# context switches)
TREE_LINE = re.compile(
    r'^ *((?:[0-9.]+ +[a-z]+)?)(?: +[0-9.]+ +[a-z]+)? +\[ *(\d+)\] \| (.*)$')
UNITS = {'ns': 1.0, 'us': 1e3, 'ms': 1e6, 's': 1e9}


def tree_lines(path):
    """(tid, depth, kind, name, duration ns or None, mark) per line."""
    out = []
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = TREE_LINE.match(line)
        if not m:
            continue
        dur, tid, body = m.group(1).strip(), int(m.group(2)), m.group(3)
        ns = None
        if dur:
            v, u = dur.split()
            ns = float(v) * UNITS[u]
        indent = len(body) - len(body.lstrip(' '))
        body = body[indent:]
        depth = indent // 2
        lm = re.match(r'^\((\d+)\) (.*)$', body)
        if indent == 128 and lm:
            depth, body = int(lm.group(1)), lm.group(2)
        body = re.sub(r' \[tracer [^]]*\]$', '', body)
        mark = None
        if body.startswith('} /* '):
            inner = body[5:-3]
            for mk in ('never returned', 'no return', 'window ends'):
                if inner.endswith(': ' + mk):
                    inner, mark = inner[:-len(mk) - 2], mk
            out.append((tid, depth, 'close', shown(inner), ns, mark))
        elif body.endswith(') { /* already open */'):
            out.append((tid, depth, 'open', body[:-len(' { /* already open */')],
                        ns, None))
        elif body.endswith(') {'):
            out.append((tid, depth, 'call', body[:-2], ns, None))
        elif body.startswith('/* '):
            out.append((tid, depth, 'text', body[3:-3], ns, None))
        else:
            mm = re.match(r'^(.*\));( /\* (.*) \*/)?$', body)
            if not mm:
                sys.exit('cannot read tree line: ' + line)
            out.append((tid, depth, 'leaf', mm.group(1), ns, mm.group(3)))
    return out


def shown(name):
    """A function as --tree shows it: f(), and a C++ name as it is.  Both
    views' names are compared in this form."""
    return name if name.endswith(')') else name + '()'


def bare(name):
    """The name printed in results: f, ns::g(int); g() is printed g."""
    return name[:-2] if name.endswith('()') else name


def keep_only(calls, keep):
    """calls: (thread, depth, name, kind); drops names not in keep and
    renumbers depths as the number of kept ancestors."""
    if not keep:
        return calls
    out, kept_path = [], {}
    for th, depth, name, kind in calls:
        path = kept_path.setdefault(th, [])
        del path[depth:]
        below = sum(path)
        ok = name in keep
        path.append(1 if ok else 0)
        if ok:
            out.append((th, below, name, kind))
    return out


def label(calls):
    names, out = {}, []
    for th, depth, name, kind in calls:
        names.setdefault(th, 'T%d' % (len(names) + 1))
        out.append('%s %d %s %s' % (names[th], depth, bare(name), kind))
    return out


def tree_calls(path, keep):
    calls = []
    for tid, depth, kind, name, _, _ in tree_lines(path):
        if kind in ('call', 'leaf', 'open'):
            calls.append((tid, depth, name, 'open' if kind == 'open' else 'call'))
    return label(keep_only(calls, keep))


def dump_lines(path):
    for line in open(path, encoding='utf-8', errors='replace'):
        m = re.match(r'^(\S+) ([CRSEV])(\d*) (.*)$', line.rstrip('\n'))
        if m:
            name = m.group(4)
            if m.group(2) in 'CR':
                name = shown(name)
            elif name.startswith('already open: '):
                name = 'already open: ' + shown(name[len('already open: '):])
            yield float(m.group(1)) * 1e6, int(m.group(3) or 1), m.group(2), name


def dump_calls(path, keep):
    stacks, calls = {}, []
    for _, th, key, name in dump_lines(path):
        st = stacks.setdefault(th, [])
        if key == 'C':
            calls.append((th, len(st), name, 'call'))
            st.append(name)
        elif key == 'R' and st:
            st.pop()
        elif key == 'V' and name.startswith('already open: '):
            calls.append((th, len(st), name[len('already open: '):], 'open'))
            st.append(name)
    return label(keep_only(calls, keep))


def tree_durations(path, name):
    return ['%.3f' % ns for _, _, kind, n, ns, _ in tree_lines(path)
            if n == name and kind in ('leaf', 'close')]


def dump_durations(path, name):
    """Net ns of each call of name: its span minus the S..E inside."""
    stacks, over, start, out = {}, {}, {}, []
    for ns, th, key, n in dump_lines(path):
        st = stacks.setdefault(th, [])
        if key == 'C':
            st.append((n, ns, over.get(th, 0.0)))
        elif key == 'R' and st:
            f, t0, o0 = st.pop()
            if f == name:
                out.append('%.3f' % (ns - t0 - (over.get(th, 0.0) - o0)))
        elif key == 'S':
            start[th] = ns
        elif key == 'E' and th in start:
            over[th] = over.get(th, 0.0) + ns - start.pop(th)
    return out


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    arg = sys.argv[3] if len(sys.argv) > 3 else ''
    keep = set(shown(n) for n in arg.split(',')) if arg else None
    if cmd == 'tree-calls':
        rows = tree_calls(path, keep)
    elif cmd == 'dump-calls':
        rows = dump_calls(path, keep)
    elif cmd == 'thread-trees':
        per = {}
        for row in tree_calls(path, keep):
            th, depth, rest = row.split(' ', 2)
            name, kind = rest.rsplit(' ', 1)
            per.setdefault(th, []).append('%s %s %s;' % (depth, name, kind))
        rows = sorted(''.join(v) for v in per.values())
    elif cmd == 'tree-durations':
        rows = tree_durations(path, shown(arg))
    elif cmd == 'dump-durations':
        rows = dump_durations(path, shown(arg))
    else:
        sys.exit('unknown command ' + cmd)
    for r in rows:
        print(r)


if __name__ == '__main__':
    main()
