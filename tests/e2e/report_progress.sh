#!/usr/bin/env bash
# The progress bar: on a terminal only (a pseudo-terminal from script(1)),
# gone with --no-progress, never in redirected output, and the report's
# own output the same either way.  CT_PROGRESS_AFTER_MS=0 shows it at once
# instead of after a second, so a small trace is enough.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || fail "script(1) missing (bsdutils)"
cat > "$T/calls.c" <<'C'
static volatile int s;
__attribute__((noinline)) static void leaf(void) { s++; }
int main(void) { for (int i = 0; i < 200000; i++) leaf(); return 0; }
C
build_traced "$T/calls" "$T/calls.c"
run_traced "$T/t.raw" "$T/calls"
cd "$T"
on_tty() { # on_tty COMMAND: its stderr as a terminal saw it
    CT_PROGRESS_AFTER_MS=0 script -qec "$1" /dev/null
}
on_tty "'$REPORT' -b t.raw >tty.txt" > bar.txt
grep -aq $'reading t.raw \\[[#.]*\\] *[0-9]*% [0-9.]* MiB of [0-9.]* MiB' bar.txt ||
    fail "no progress bar on a terminal: $(od -c bar.txt | head -n 5)"
# The bar is erased at the end: the last thing written is "\r" + erase line.
expect_eq "bar erased" '\r033[K' "$(tail -c 4 bar.txt | od -An -c | tr -d ' ')"
"$REPORT" -b t.raw > plain.txt
cmp -s tty.txt plain.txt || fail "the report differs on a terminal"

on_tty "'$REPORT' -b --no-progress t.raw >/dev/null" > none.txt
[ ! -s none.txt ] || fail "--no-progress still drew: $(od -c none.txt | head -n 3)"
on_tty "'$FRONT' report -b --no-progress t.raw >/dev/null" > none.txt
[ ! -s none.txt ] || fail "calltrace report --no-progress still drew"
CT_PROGRESS_AFTER_MS=0 "$REPORT" -b t.raw >/dev/null 2>err.txt
[ ! -s err.txt ] || fail "a bar in redirected stderr: $(head -c 100 err.txt)"
# Without the test's override, a short analysis shows nothing.
script -qec "'$REPORT' -b t.raw >/dev/null" /dev/null > quick.txt
[ ! -s quick.txt ] || fail "a bar for an analysis under a second"
echo "report_progress: ok"
