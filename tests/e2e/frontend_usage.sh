#!/usr/bin/env bash
# Bad usage: one line naming the problem, a pointer to --help, exit 1.
# --help and --version work for the command and every verb.
. "$(dirname "$0")/lib.sh"
[ -x "$FRONT" ] || fail "no $FRONT"
cd "$T"

bad() { # bad EXPECTED-WORDS ARGS...: exit 1, two lines, the second "Try ..."
    local want=$1; shift
    set +e; "$FRONT" "$@" >out.txt 2>err.txt; local rc=$?; set -e
    expect_eq "exit status of calltrace $*" 1 "$rc"
    [ ! -s out.txt ] || fail "calltrace $*: wrote on stdout"
    expect_eq "lines of calltrace $*" 2 "$(wc -l < err.txt)"
    grep -qF -- "$want" err.txt || fail "calltrace $*: '$(head -n 1 err.txt)' does not say '$want'"
    grep -q "^Try 'calltrace.* --help' for more information.$" err.txt ||
        fail "calltrace $*: no --help pointer"
}
bad "no program or verb"
bad "no program to record" record
bad "no program to record" record -q
bad "unknown option '--nope'" record --nope ./x
bad "unknown option '--nope'" --nope ./x
bad "wants a value" record -o
bad "--bufsize wants a size" record --bufsize=12Q ./x
bad "--bufsize wants a size" record --bufsize=1K ./x
bad "--clock wants tsc, tsc-fenced or monotonic" record --clock=wall ./x
bad "--signal wants a signal" record --signal=NOPE ./x
bad "--sample wants an interval" record --sample=1h ./x
bad "--sample-clock wants cpu or wall" record --sample-clock=gpu ./x
bad "--cputime wants switch, clock or off" record --cputime=wall ./x
bad "no FORMAT" export
bad "only one recording" report a b
bad "unexpected argument" cflags x

# A missing program: the shell's statuses, no recording left behind.
set +e; "$FRONT" record ./no-such-program 2>err.txt; rc=$?; set -e
expect_eq "missing program" 127 "$rc"
grep -q "cannot run ./no-such-program" err.txt || fail "missing program: $(cat err.txt)"
[ -z "$(ls -A)" ] || [ "$(ls -A | grep -v -e out.txt -e err.txt)" = "" ] ||
    fail "left behind: $(ls -A)"

# A missing or damaged recording: the analyzer's error and status 2.
set +e; "$FRONT" report >/dev/null 2>err.txt; rc=$?; set -e
expect_eq "no calltrace.raw" 2 "$rc"
grep -q "calltrace.raw" err.txt || fail "missing file not named: $(cat err.txt)"

for verb in "" record report tree dump "export lms" diff cflags; do
    # shellcheck disable=SC2086
    "$FRONT" $verb --help > help.txt || fail "calltrace $verb --help"
    grep -q "^Usage: calltrace" help.txt || fail "calltrace $verb --help: no usage"
    # shellcheck disable=SC2086
    expect_eq "calltrace $verb --version" "calltrace $("$REPORT" --version | cut -d' ' -f2)" \
        "$("$FRONT" $verb --version)"
done
echo "frontend_usage: ok"
