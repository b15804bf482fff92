#!/usr/bin/env bash
# Structs passed by value, and the parameters after them, as
# `--args FUNC@args` reads them from DWARF (frontend/dwarf_abi.c): a
# struct is shown by its type's name (`pair{...}`, `empty{}`), as uftrace
# shows one, and takes the registers or stack slots the x86-64 ABI gives
# it (two integer registers, two vector ones, one of each, memory when
# too large, packed, or when the registers left are too few; nothing when
# empty); a struct returned in memory moves the arguments one register
# on.  tests/programs/args_struct.c passes values known by construction
# after each struct, so a wrong count shows as a wrong value.  Patched
# entries (the ABI's registers) give the same tree for gcc and clang at
# -O0 and -O2; the hooks' builds each value the true one or
# <unavailable>.  uftrace's `%stack+N` reads the caller's Nth stack slot,
# at a patched entry and, through record, at a hook's call.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "the ABI classified is x86-64's"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"

tree_text() {
    "$REPORT_SAN" --tree "$1" | sed -n 's/^[^|]*| //p' | grep -v '@plt'
}

record() {  # OUT ARGS PROGRAM: records, checks status, output, messages
    local raw=$1 spec=$2 prog=$3 rc
    set +e
    (cd "$T" && "$FRONT" record -q -o "$raw" --args "$spec" -- "$prog" > "$raw.out" 2> "$raw.err")
    rc=$?
    set -e
    expect_eq "$prog: status" 0 "$rc"
    expect_eq "$prog: output" "done" "$(cat "$raw.out")"
    expect_eq "$prog: messages" "" "$(grep -v '^calltrace: --args: no parameter' "$raw.err" || true)"
}

want='main() {
  s_pair(7, pair{...}, 9) = 19;
  s_dbl2(dbl2{...}, 11, 2.500000) = 14.250000;
  s_mix(mix{...}, 4.500000, 13) = 22.000000;
  s_big(15, big{...}, 17) = 42;
  s_odd(odd{...}, 19) = 34;
  s_empty(empty{}, 21) = 21;
  s_range(range_t{...}, 23) = 26;
  s_spill(1, 2, 3, 4, 5, pair{...}, 25) = 43;
  s_stack(1, 2, 3, 4, 5, 6, 27, 29) = 77;
  s_fstack(1.000000, 2.000000, 3.000000, 4.000000, 5.000000, 6.000000, 7.000000, 8.000000, 9.500000, 31) = 76.500000;
  s_ret_big(33) = big{...};
  s_ret_pair(35) = pair{...};
} /* main */'

for cc in gcc clang; do
    command -v $cc > /dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    for opt in 0 2; do
        b=$T/${cc}_O$opt
        $cc -std=gnu11 -O$opt -g "${flags[@]}" -o "$b" "$PROGRAMS/args_struct.c"
        record "$b.raw" 're:^s_@args,retval' "$b"
        expect_eq "$cc -O$opt: tree" "$want" "$(tree_text "$b.raw")"
        h=$T/hooks_${cc}_O$opt
        $cc -std=gnu11 -O$opt -g -finstrument-functions -o "$h" "$PROGRAMS/args_struct.c"
        record "$h.raw" 're:^s_@args,retval' "$h"
        least=1/2
        [ "$cc $opt" = "clang 0" ] && least=none  # it fills the slots after the hook
        [ "$cc $opt" = "gcc 0" ] && least=1/1     # it stores all before it
        python3 "$CT_ROOT/tests/e2e/args_values.py" "$want" "$(tree_text "$h.raw")" "$least" ||
            fail "hooks $cc -O$opt: $(tree_text "$h.raw")"
    done
done

# C++: a class not trivial for calls goes by an invisible reference (one
# register), an empty one takes nothing, a template shows its name alone;
# one returned through the caller's pointer moves the arguments one on.
want_cxx='  c_owned(Owned{...}, 11) = 12;
  c_copied(13, Copied{...}, 15) = 30;
  c_holder(Holder{...}, 17) = 20;
  c_tag(Tag{}, 19) = 19;
  c_box(Box{...}, 21) = 30;
  c_make(23) = Copied{...};'
for cc in g++ clang++; do
    command -v $cc > /dev/null || { [ $cc = clang++ ] && continue; fail "no $cc"; }
    for opt in 0 2; do
        b=$T/cxx_${cc}_O$opt
        $cc -O$opt -g "${flags[@]}" -o "$b" "$PROGRAMS/args_struct_cxx.cpp"
        record "$b.raw" 're:^c_@args,retval' "$b"
        # main's calls alone: c_make's, a leaf at that depth, on one line
        got=$("$REPORT_SAN" --tree --depth=2 "$b.raw" | sed -n 's/^[^|]*| \(  c_\)/\1/p')
        expect_eq "$cc -O$opt: C++ tree" "$want_cxx" "$got"
    done
done

# %stack+N, as uftrace's t086 writes it: the 7th and 8th integers are the
# caller's first two stack slots, at a patched entry and at a hook's call
# (record places them above the return address).
for b in "$T/gcc_O0" "$T/hooks_gcc_O0"; do
    record "$b.stack.raw" 's_stack@arg1/i32%stack+1,arg2/i32%stack2;s_fstack@fparg9/f64%stack+1' "$b"
    expect_eq "$b: %stack+N" '  s_stack(27, 29);
  s_fstack(9.500000);' "$(tree_text "$b.stack.raw" | grep -E '^  s_(f?stack)\(')"
done

# The same values in --dump and in the chrome export's slice args.
"$REPORT_SAN" --dump "$T/gcc_O0.raw" | grep -A1 ' C s_empty$' | has ' V args: empty{}, 21$' ||
    fail "--dump: s_empty's args"
"$REPORT_SAN" --export=chrome -o "$T/chrome.json" "$T/gcc_O0.raw"
python3 - "$T/chrome.json" <<'PY' || fail "chrome: s_pair's args"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d['traceEvents'] if isinstance(d, dict) else d
assert any(e.get('name') == 's_pair' and
           e.get('args', {}).get('args') == '7, pair{...}, 9' for e in ev), \
    [e.get('args') for e in ev if e.get('name') == 's_pair']
PY
echo ok
