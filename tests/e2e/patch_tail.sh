#!/usr/bin/env bash
# Tail calls in the patchable-entry mode (tests/programs/patch_tail.c,
# gcc and clang -O2, where `return g(x)` is a jump): a patched function
# that jumps to another leaves it the return address the tracer pointed
# at its trampoline.  The tracer ends the jumping function's call there
# and gives the next one the real return address.  Before, the second
# return through the trampoline found no frame and the program was
# aborted.  The counts are known by construction. A chain of 100001
# calls that only jump to each other never holds more than one frame.
# The output is as without the tracer, and every call has its return;
# with every entry patched, each function's calls are callgrind's; the
# library calls of a patched program are recorded.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "the patchable-entry mode is x86-64 only"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"

calls() { awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
    f && NF > 2 && $(NF-1) == n { print $4 }' "$1"; }

for cc in gcc clang; do
    command -v $cc > /dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    b=$T/tail_$cc
    $cc -std=gnu11 -O2 "${flags[@]}" -o "$b" "$PROGRAMS/patch_tail.c"
    # The test means nothing unless the compiler made the jumps.
    jumps=$(objdump -d --no-show-raw-insn "$b" |
        grep -cE 'jmp +[0-9a-f]+ <(g|h|is_even|is_odd|u|getppid@plt)>' || true)
    [ "$jumps" -ge 5 ] || fail "$cc: only $jumps tail calls compiled as jumps"
    want=$("$b")
    set +e
    out=$(CALLTRACE_PATCH=-u CALLTRACE_OUTPUT="$b.raw" LD_PRELOAD="$LIB" "$b" 2> "$b.err")
    rc=$?
    set -e
    expect_eq "$cc: exit status" 0 "$rc"
    expect_eq "$cc: output" "$want" "$out"
    expect_eq "$cc: stderr" "" "$(cat "$b.err")"
    "$REPORT_SAN" -b "$b.raw" > "$b.txt" || fail "$cc: report"
    got=""
    for fn in f g h is_even is_odd to_unpatched u to_lib; do
        got+="$fn=$(calls "$b.txt" "$fn") "
    done
    expect_eq "$cc: calls" \
        "f=10 g=10 h=10 is_even=50001 is_odd=50000 to_unpatched=3 u= to_lib=2 " "$got"
    expect_eq "$cc: nesting" \
        " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
        "$(grep '^ Unmatched:' "$b.txt")"
    expect_eq "$cc: lost" " Lost events: 0" "$(grep '^ Lost events:' "$b.txt")"
    # A call that jumps ends where the next begins: f, g and h are
    # siblings under main, each with its return.
    "$REPORT_SAN" --tree "$b.raw" | sed -n 's/^[^|]*| //p' | sed -n 2,4p > "$b.tree"
    expect_eq "$cc: tree" "$(printf '  f();\n  g();\n  h();')" "$(cat "$b.tree")"
    # With library calls recorded (a patched object calls no hook, and its
    # library calls are recorded all the same): the jump to getppid too.
    CALLTRACE_LIBCALLS=plt CALLTRACE_OUTPUT="$b.lc.raw" LD_PRELOAD="$LIB" "$b" > /dev/null
    "$REPORT_SAN" -b "$b.lc.raw" > "$b.lc.txt" || fail "$cc: libcalls report"
    expect_eq "$cc: library calls" "to_lib=2 getppid@plt=2 printf@plt=1" \
        "to_lib=$(calls "$b.lc.txt" to_lib) getppid@plt=$(calls "$b.lc.txt" getppid@plt) printf@plt=$(calls "$b.lc.txt" printf@plt)"
    expect_eq "$cc: libcalls nesting" \
        " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
        "$(grep '^ Unmatched:' "$b.lc.txt")"
    # Against callgrind on the same binary, untraced, every entry patched:
    # each function's calls the same (callgrind counts a jump to another
    # function's start as a call too).
    if command -v valgrind > /dev/null; then
        valgrind --tool=callgrind --callgrind-out-file="$b.cg" \
            --compress-strings=no --compress-pos=no "$b" > /dev/null 2>&1 ||
            fail "$cc: callgrind"
        CALLTRACE_OUTPUT="$b.all.raw" LD_PRELOAD="$LIB" "$b" > /dev/null
        "$REPORT_SAN" -b -p "$b.all.raw" > "$b.all.txt"
        python3 - "$b.cg" "$b.all.txt" <<'PY' || fail "$cc: counts differ from callgrind's"
import collections, re, sys
calls, cfn = collections.Counter(), None
for line in open(sys.argv[1]):
    if line.startswith("cfn="):
        cfn = re.sub(r"'\d+$", "", re.sub(r"^\(\d+\) ", "", line[4:].strip()))
    elif line.startswith("calls=") and cfn:
        calls[cfn] += int(line[6:].split()[0])
ours, flat = {}, False
for line in open(sys.argv[2]):
    if line.startswith("Flat profile"):
        flat = True
    elif "Call graph" in line:
        flat = False
    elif flat:
        p = line.split()
        if len(p) >= 6 and p[3].isdigit():
            ours[p[-2] if p[-1].startswith("[") else p[-1]] = int(p[3])
bad = {n: (c, calls.get(n, 0)) for n, c in ours.items() if n != "main" and calls.get(n, 0) != c}
assert len(ours) == 9 and not bad, (ours, bad)
PY
    fi
done
echo ok
