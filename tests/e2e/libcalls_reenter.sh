#!/usr/bin/env bash
# A library call re-entered during its own first call, while the loader's
# lazy binding resolves it (tests/programs/libcalls_reenter.c): qsort
# whose instrumented comparator calls qsort, qsort_r whose uninstrumented
# comparator calls qsort_r.  Every call is recorded (2 of each) in every
# binding mode, with and without nested mode, none counted lost, each tree
# whole; output and exit status as untraced.  Then qsort nested 1100 deep
# through its comparator: the 1024 library calls a thread may have open
# are recorded, the 76 past them counted lost, call and return (152).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"

build_traced "$T/lazy" "$PROGRAMS/libcalls_reenter.c"
build_traced "$T/now" "$PROGRAMS/libcalls_reenter.c" -Wl,-z,now,-z,relro
readelf -d "$T/lazy" | has 'BIND_NOW\|FLAGS.*NOW' && skip "the compiler links with -z now: no lazy binding to test"
expected_out=$("$T/lazy")

for mode in plt nested; do
    for variant in lazy now bindnow; do
        name=$mode-$variant bin=$T/lazy envs=(CALLTRACE_LIBCALLS=$mode)
        [ "$variant" = now ] && bin=$T/now
        [ "$variant" = bindnow ] && envs+=(LD_BIND_NOW=1)
        traced_like_untraced "$name" "$T/$name.raw" "$expected_out" \
            "${envs[@]}" "$bin"
        expect_eq "$name: qsort" 2 "$(report_calls "$T/$name.raw" qsort@plt)"
        expect_eq "$name: qsort_r" 2 "$(report_calls "$T/$name.raw" qsort_r@plt)"
        expect_all_matched "$name" "$T/$name.raw"
        has "Lost events: 0" "$T/$name.rep" || fail "$name: $(grep 'Lost events' "$T/$name.rep")"
        # The inner qsort runs inside the comparator the outer one called.
        thread_trees "$T/$name.raw" > "$T/$name.trees"
        tree_of "$T/$name.trees" 1 | grep -v '^ *cmp_int$' | grep -A2 '^    qsort@plt$' > "$T/$name.sort"
        expect_eq "$name: the inner qsort's place" \
            "$(printf '%s\n' "    qsort@plt" "      cmp_outer" "        qsort@plt")" \
            "$(cat "$T/$name.sort")"
    done
done

expected_out=$("$T/lazy" deep)
for variant in lazy bindnow; do
    name=deep-$variant envs=(CALLTRACE_LIBCALLS=plt)
    [ "$variant" = bindnow ] && envs+=(LD_BIND_NOW=1)
    traced_like_untraced "$name" "$T/$name.raw" "$expected_out" "${envs[@]}" "$T/lazy" deep
    expect_eq "$name: qsort recorded" 1024 "$(report_calls "$T/$name.raw" qsort@plt)"
    expect_eq "$name: cmp_deep recorded" 1100 "$(report_calls "$T/$name.raw" cmp_deep)"
    expect_all_matched "$name" "$T/$name.raw"
    expect_eq "$name: lost" "Lost events: 152" "$(grep -o 'Lost events: [0-9]*' "$T/$name.rep")"
done
echo ok
