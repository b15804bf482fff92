#!/usr/bin/env bash
# The patchable-entry mode in shared libraries: a library built with
# `calltrace cflags --patchable` and linked at start, and another
# dlopen'ed, closed, and opened again (tests/programs/patch_lib.c,
# patch_libmain.c), have their entries patched like the program's, with
# counts known by construction, every call returned, the output as
# without the tracer; CALLTRACE_PATCH chooses in every object, the ones
# dlopen'ed later too; and a library built without the flag is left alone.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "the patchable-entry mode is x86-64 only"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"

calls() { awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
    f && NF > 2 && $(NF-1) == n { print $4 }' "$1"; }

# run NAME WANT [VAR=VALUE...]: the program traced, its counts.
run() {
    local name=$1 want=$2 got="" fn out rc
    shift 2
    set +e
    out=$(env "$@" CALLTRACE_OUTPUT="$T/$name.raw" LD_PRELOAD="$LIB" \
          "$T/main" "$T/libpopen.so" 2> "$T/$name.err")
    rc=$?
    set -e
    expect_eq "$name: exit status" 0 "$rc"
    expect_eq "$name: output" "$plain_out" "$out"
    expect_eq "$name: stderr" "" "$(cat "$T/$name.err")"
    "$REPORT_SAN" -b "$T/$name.raw" > "$T/$name.txt" || fail "$name: report"
    for fn in main lib_entry lib_leaf dl_entry dl_leaf; do
        got+="$fn=$(calls "$T/$name.txt" "$fn") "
    done
    expect_eq "$name: calls" "$want" "$got"
    expect_eq "$name: nesting" \
        " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
        "$(grep '^ Unmatched:' "$T/$name.txt")"
    expect_eq "$name: lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/$name.txt")"
}

for cc in gcc clang; do
    command -v $cc > /dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    $cc -O1 -fPIC -shared "${flags[@]}" -o "$T/libplink.so" "$PROGRAMS/patch_lib.c"
    $cc -O1 -fPIC -shared "${flags[@]}" -Dlib_entry=dl_entry -Dlib_leaf=dl_leaf \
        -o "$T/libpopen.so" "$PROGRAMS/patch_lib.c"
    $cc -O1 "${flags[@]}" -o "$T/main" "$PROGRAMS/patch_libmain.c" \
        -L"$T" -lplink -Wl,-rpath,"$T" -ldl
    plain_out=$("$T/main" "$T/libpopen.so")
    run "$cc-all" "main=1 lib_entry=2 lib_leaf=6 dl_entry=2 dl_leaf=9 "
    run "$cc-chosen" "main=1 lib_entry=2 lib_leaf= dl_entry=2 dl_leaf= " \
        CALLTRACE_PATCH='-*_leaf'
done

# The library linked at start built without the flag: the program's and
# the dlopen'ed library's entries are patched, it is left as it is.
gcc -O1 -fPIC -shared -o "$T/libplink.so" "$PROGRAMS/patch_lib.c"
run "unbuilt" "main=1 lib_entry= lib_leaf= dl_entry=2 dl_leaf=9 "
echo ok
