#!/usr/bin/env python3
"""Reads gprof-format reports for the report tests.

  arcs FILE        print "caller -> callee count" for every call-graph arc
  check FILE       every call-graph line must match gprof2dot's GprofParser
                   regular expressions (the same patterns, written out here)
  normalize FILE   the report with run-dependent figures masked and the
                   time-sorted parts put in name order, for golden files
"""
import re
import sys

# The patterns gprof2dot's GprofParser applies to GNU gprof call graphs.
PRIMARY = re.compile(
    r'^\[(?P<index>\d+)\]?' r'\s+(?P<percentage_time>\d+\.\d+)'
    r'\s+(?P<self>\d+\.\d+)' r'\s+(?P<descendants>\d+\.\d+)'
    r'\s+(?:(?P<called>\d+)(?:\+(?P<called_self>\d+))?)?'
    r'\s+(?P<name>\S.*?)' r'(?:\s+<cycle\s(?P<cycle>\d+)>)?' r'\s\[(\d+)\]$')
PARENT = re.compile(
    r'^\s+(?P<self>\d+\.\d+)?' r'\s+(?P<descendants>\d+\.\d+)?'
    r'\s+(?P<called>\d+)(?:/(?P<called_total>\d+))?'
    r'\s+(?P<name>\S.*?)' r'(?:\s+<cycle\s(?P<cycle>\d+)>)?'
    r'\s\[(?P<index>\d+)\]$')
CYCLE_HEADER = re.compile(
    r'^\[(?P<index>\d+)\]?' r'\s+(?P<percentage_time>\d+\.\d+)'
    r'\s+(?P<self>\d+\.\d+)' r'\s+(?P<descendants>\d+\.\d+)'
    r'\s+(?:(?P<called>\d+)(?:\+(?P<called_self>\d+))?)?'
    r'\s+<cycle\s(?P<cycle>\d+)\sas\sa\swhole>' r'\s\[(\d+)\]$')
CYCLE_MEMBER = re.compile(
    r'^\s+(?P<self>\d+\.\d+)?' r'\s+(?P<descendants>\d+\.\d+)?'
    r'\s+(?P<called>\d+)(?:\+(?P<called_self>\d+))?'
    r'\s+(?P<name>\S.*?)' r'(?:\s+<cycle\s(?P<cycle>\d+)>)?'
    r'\s\[(?P<index>\d+)\]$')
IGNORE = re.compile(r'^\s+<spontaneous>\s*$|^.*\((\d+)\)$')
HEADER = re.compile(r'^index\s+%\s+(time\s+)?self\s+children\s+called\s+name\s*$')
SEP = re.compile(r'^--+$')


def graph_entries(lines):
    """The call graph's entries, each a list of lines."""
    i = 0
    while i < len(lines) and not HEADER.match(lines[i]):
        i += 1
    if i == len(lines):
        sys.exit('no call graph header')
    entries, cur = [], []
    for line in lines[i + 1:]:
        if line == '\f':
            break
        if not line.strip():
            continue
        if SEP.match(line):
            entries.append(cur)
            cur = []
        else:
            cur.append(line)
    return entries


def split_entry(entry):
    for k, line in enumerate(entry):
        if line.startswith('['):
            return entry[:k], line, entry[k + 1:]
    sys.exit('entry without a primary line: %r' % entry)


def arcs(lines):
    """Arcs from callee lines, and from caller lines (gprof leaves out
    entries such as main's when they have no time)."""
    out = {}
    for entry in graph_entries(lines):
        parents, primary, children = split_entry(entry)
        if CYCLE_HEADER.match(primary):
            continue
        me = PRIMARY.match(primary).group('name')
        for group, as_caller in ((children, True), (parents, False)):
            for line in group:
                m = PARENT.match(line)
                if not m:
                    continue
                key = (me, m.group('name')) if as_caller else \
                    (m.group('name'), me)
                count = int(m.group('called'))
                if out.get(key, count) != count:
                    sys.exit('arc %s -> %s: %d and %d' % (key + (out[key],
                                                                 count)))
                out[key] = count
    return out


def check(lines):
    bad = 0
    for entry in graph_entries(lines):
        parents, primary, children = split_entry(entry)
        if CYCLE_HEADER.match(primary):
            for line in children:
                if not CYCLE_MEMBER.match(line):
                    print('unparsed cycle member: %r' % line)
                    bad += 1
            continue
        if not PRIMARY.match(primary):
            print('unparsed primary line: %r' % primary)
            bad += 1
        for line in parents + children:
            if not PARENT.match(line) and not IGNORE.match(line):
                print('unparsed arc line: %r' % line)
                bad += 1
    return bad


NUM = re.compile(r'\d+\.\d+')
IDX = re.compile(r' \[\d+\]$')


def normalize(lines):
    out = []
    i = 0
    n = len(lines)
    # summary: only the lines that do not depend on the run
    keep = ('Profiling:', ' Events:', ' Lost events:', ' Unmatched:',
            ' Threads:', ' Measured:', ' Bias: subtracted')
    while i < n and not lines[i].startswith('Flat profile:'):
        line = lines[i]
        if line.startswith(keep):
            line = re.sub(r'tid [0-9, ]+', 'tid #', line)
            line = re.sub(r'Profiling: .*/', 'Profiling: ', line)
            out.append(line)
        i += 1
    # flat profile: names and calls, by name
    rows = []
    while i < n and lines[i] != '\f':
        line = lines[i]
        m = re.match(r'^\s*\d+\.\d+\s+\d+\.\d+\s+\d+\.\d+\s+(\d+)?'
                     r'(?:\s+\d+\.\d+\s+\d+\.\d+)?\s+(\S.*)$', line)
        if m:
            rows.append('%8s  %s' % (m.group(1) or '', IDX.sub('', m.group(2))))
        elif line.startswith('Flat profile:'):
            out.append(line)  # the unit lines below depend on the run
        i += 1
    out += sorted(rows, key=lambda r: r[10:])
    out.append('')
    # call graph: entries by primary name, arc lines by name
    entries = []
    for entry in graph_entries(lines[i:]):
        parents, primary, children = split_entry(entry)
        def fix(l):
            return ' '.join(IDX.sub('', NUM.sub('#', l)).split())
        key = re.sub(r'^\[\d+\]\s+', '', fix(primary))
        prim = re.sub(r'^\[\d+\]', '[#]', fix(primary))
        entries.append((key, sorted(map(fix, parents)), prim,
                        sorted(map(fix, children))))
    for key, parents, prim, children in sorted(entries):
        out += ['  ' + p for p in parents] + [prim] + \
            ['  ' + c for c in children] + ['-' * 47]
    # user events: times and threads masked, in name order (threads race;
    # the tests check the order where it is fixed)
    j = next((k for k in range(i, n) if lines[k].startswith('User events')), n)
    events = []
    for line in lines[j:]:
        if re.match(r'^\s*-?\d+\.\d+\s', line):
            events.append(' '.join(['#', '#'] + line.split()[2:]))
        elif not line.startswith(' ' * 8):
            out.append(line)
    out[-1:-1] = sorted(events)
    return out


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    if cmd == 'arcs':
        for (a, b), c in sorted(arcs(lines).items()):
            print('%s -> %s %d' % (a, b, c))
    elif cmd == 'check':
        sys.exit(1 if check(lines) else 0)
    elif cmd == 'normalize':
        print('\n'.join(normalize(lines)))
    else:
        sys.exit('unknown command ' + cmd)


if __name__ == '__main__':
    main()
