#!/usr/bin/env python3
"""Compares the values of a tree made at the hooks' calls with the tree
whose values are known, for the args_*.sh tests.

  args_values.py WANT GOT LEAST

WANT and GOT are --tree texts (the part after `| `) of one program.  Each
line must name the same call with as many values.  A return value (the
last) must be the one wanted.  An argument may be the wanted one or
`<unavailable>` (the hook's call left it in no place the DWARF names),
never another value; a struct by value (`pair{...}`, nothing of it read)
must be the wanted one and does not count as known.  LEAST: how many of
the arguments wanted must be known, as a fraction (`2/3`), or `none`
where the build can keep none (clang -O0).
"""
import re
import sys


def values(line):
    m = re.match(r'\s*(\w+)\((.*)\)( = .*)?;$', line)
    return ((m.group(1), m.group(2).split(', ') + [m.group(3) or ''])
            if m else (line, []))


def main():
    want, got, least = sys.argv[1].splitlines(), sys.argv[2].splitlines(), \
        sys.argv[3]
    assert len(want) == len(got), 'lines differ'
    known = total = 0
    for w, g in zip(want, got):
        wn, wv = values(w)
        gn, gv = values(g)
        assert wn == gn and len(wv) == len(gv), (w, g)
        assert wv[-1:] == gv[-1:], ('return value', w, g)
        for a, b in zip(wv[:-1], gv[:-1]):
            if a == '<unavailable>':
                continue
            if a.endswith('}'):
                assert b == a, ('struct', w, g)
                continue
            total += 1
            assert b in (a, '<unavailable>'), ('wrong value', w, g)
            known += b == a
    if least == 'none':
        assert known == 0, f'{known} known where none can be'
    else:
        num, den = (int(x) for x in least.split('/'))
        assert known >= total * num // den, f'{known} of {total} known'


if __name__ == '__main__':
    main()
