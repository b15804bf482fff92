#!/usr/bin/env bash
# A forked child writes its own file (ppid set, no parent records, open
# frames in its first STACK record); exec is traced again in a new file,
# which starts with no open frame.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/fork" "$PROGRAMS/trace_fork.c" -no-pie
nm "$T/fork" > "$T/nm"
set +e
run_traced "$T/out.raw" "$T/fork" > "$T/stdout"; rc=$?
set -e
expect_eq "exit status" 4 "$rc"
files=$(ls "$T"/out.raw*)
expect_eq "two files" 2 "$(echo "$files" | wc -l)"
child=$(ls "$T"/out.raw.* | sed -n 1p)
"$DEC" -n "$T/nm" "$T/out.raw" > "$T/parent.txt" || fail "decode parent"
"$DEC" -n "$T/nm" "$child" > "$T/child.txt" || fail "decode child: $(tail -n 1 "$T/child.txt")"
ppid=$(head -n 1 "$T/child.txt" | sed 's/.* ppid=\([0-9]*\).*/\1/')
ppid_of_parent=$(head -n 1 "$T/parent.txt" | sed 's/H pid=\([0-9]*\).*/\1/')
expect_eq "child's ppid" "$ppid_of_parent" "$ppid"
expect_eq "child file named by pid" "$T/out.raw.$(head -n 1 "$T/child.txt" | sed 's/H pid=\([0-9]*\).*/\1/')" "$child"
c() { awk -v f="$2" '$3=="C" && $4==f' "$1" | wc -l; }
expect_eq "parent in_parent" 5 "$(c "$T/parent.txt" in_parent)"
expect_eq "parent after_fork" 3 "$(c "$T/parent.txt" after_fork)"
expect_eq "parent in_child" 0 "$(c "$T/parent.txt" in_child)"
expect_eq "child in_child" 7 "$(c "$T/child.txt" in_child)"
expect_eq "child in_parent" 0 "$(c "$T/child.txt" in_parent)"
expect_eq "child main" 0 "$(c "$T/child.txt" main)"
expect_eq "child's first STACK" "K 2 main forker" \
    "$(awk '$3=="K"{print $3, $4, $5, $6; exit}' "$T/child.txt" | sed 's/ *$//')"

# exec keeps the environment: the new image writes the next free name.
cat > "$T/exec.c" <<'C'
#include <unistd.h>
__attribute__((noinline)) static void before(void) {}
int main(int argc, char **argv)
{
    before();
    if (argc > 1)
        return 3;
    execl(argv[0], argv[0], "again", (char *)0);
    return 1;
}
C
build_traced "$T/exec" "$T/exec.c" -no-pie
nm "$T/exec" > "$T/exec.nm"
set +e
run_traced "$T/ex.raw" "$T/exec"; rc=$?
set -e
expect_eq "exec exit status" 3 "$rc"
[ -f "$T/ex.raw" ] && [ -f "$T/ex.raw.1" ] || fail "expected ex.raw and ex.raw.1: $(ls "$T")"
"$DEC" -n "$T/exec.nm" "$T/ex.raw" > "$T/ex0.txt" || fail "decode pre-exec"
"$DEC" -n "$T/exec.nm" "$T/ex.raw.1" > "$T/ex1.txt" || fail "decode post-exec"
case $(head -n 1 "$T/ex0.txt") in *" flags=5 "*) ;; *) fail "pre-exec header not finished: $(head -n 1 "$T/ex0.txt")";; esac
expect_eq "before() in each image" "1 1" "$(c "$T/ex0.txt" before) $(c "$T/ex1.txt" before)"
# main was open at the exec; the new image inherits no frame of the old one.
expect_eq "exec'ed image's first STACK" "K 0" "$(awk '$3=="K"{print $3, $4; exit}' "$T/ex1.txt")"
echo ok
