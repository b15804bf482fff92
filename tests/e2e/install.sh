#!/usr/bin/env bash
# make install into a temporary DESTDIR, then only the installed tree:
# pkg-config builds a program with calltrace.h, the installed calltrace
# records and reports it, the man pages render without warnings, the
# completion completes; make uninstall removes exactly what was installed.
. "$(dirname "$0")/lib.sh"
for tool in pkg-config man; do
    command -v "$tool" >/dev/null || fail "$tool missing (scripts/install-deps.sh installs it)"
done
D=$T/dest
P=/opt/ct-test
make -s -C "$CT_ROOT" BUILD="$CT_BUILD" install DESTDIR="$D" PREFIX="$P" >/dev/null
R=$D$P
(cd "$R" && find . ! -type d | sort) > "$T/installed"
expect_eq "installed files" "./bin/calltrace
./bin/calltrace-report
./include/calltrace.h
./lib/calltrace/libcalltrace.so
./lib/pkgconfig/calltrace.pc
./share/bash-completion/completions/calltrace
./share/bash-completion/completions/calltrace-report
./share/man/man1/calltrace-report.1
./share/man/man1/calltrace.1
./share/man/man3/calltrace.3" "$(cat "$T/installed")"
if grep -rl -- "$D" "$R"; then fail "DESTDIR inside an installed file"; fi

# From here on nothing of the source or build tree: a copy of the installed
# tree where the prefix says it is, reached by a symlink.
cd "$T"
export PKG_CONFIG_PATH=$R/lib/pkgconfig
expect_eq "pkg-config prefix" "$P" "$(pkg-config --variable=prefix calltrace)"
expect_eq "pkg-config version" "$("$R/bin/calltrace" --version | cut -d' ' -f2)" \
    "$(pkg-config --modversion calltrace)"
# The .pc names the real prefix; build against the staged copy through
# pkg-config's sysroot, as a packager would.
cflags=$(PKG_CONFIG_SYSROOT_DIR=$D pkg-config --cflags calltrace | xargs)
expect_eq "cflags" "-I$R/include" "$cflags"
# shellcheck disable=SC2086
gcc $cflags $(pkg-config --variable=instrument_cflags calltrace) \
    -o app "$PROGRAMS/frontend_app.c"
PATH=$R/bin:/usr/bin:/bin
set +e
calltrace record ./app exit 4 8 >out.txt 2>err.txt; rc=$?
set -e
expect_eq "installed record: status" 4 "$rc"
grep -q "^calltrace: wrote calltrace.raw" err.txt || fail "installed record: $(cat err.txt)"
expect_eq "installed report" 8 \
    "$(calltrace report -b -p | awk 'NF > 1 && $(NF-1) == "work" { print $4 }')"
expect_eq "installed calltrace-report" 8 \
    "$(calltrace-report -b -p calltrace.raw | awk 'NF > 1 && $(NF-1) == "work" { print $4 }')"
expect_eq "installed cflags" "-finstrument-functions -g -I$R/include" "$(calltrace cflags)"

# Man pages: render at 80 columns without a warning, carry the version.
for m in man1/calltrace.1 man1/calltrace-report.1 man3/calltrace.3; do
    MANWIDTH=80 man --warnings -l "$R/share/man/$m" >"$T/page" 2>"$T/warn" ||
        fail "man $m"
    [ ! -s "$T/warn" ] || fail "man $m warns: $(head -n 3 "$T/warn")"
    grep -q "calltrace $(calltrace --version | cut -d' ' -f2)" "$T/page" ||
        fail "man $m: no version"
done
# calltrace-report(1) documents every option of calltrace-report --help.
page=$(MANWIDTH=200 man -l "$R/share/man/man1/calltrace-report.1" 2>/dev/null)
for opt in $(calltrace-report --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
    grep -qF -- "$opt" <<<"$page" || fail "calltrace-report(1) lacks $opt"
done
# calltrace(3) documents every variable of the tracer's table in README.md.
page=$(MANWIDTH=200 man -l "$R/share/man/man3/calltrace.3" 2>/dev/null)
for var in $(grep -oE '^\| `CALLTRACE_[A-Z_]+`' "$CT_ROOT/README.md" | tr -d '|` '); do
    grep -qF -- "$var" <<<"$page" || fail "calltrace(3) lacks $var"
done

# Completion: loads in an interactive bash, completes verbs, options and
# export formats (the formats calltrace-report knows).
comp() { # comp LINE: what TAB offers at its end
    HOME=$T bash --norc -i -c '
        source "$1"
        COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
        read -ra COMP_WORDS <<<"$COMP_LINE"
        [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        fn=$(complete -p "${COMP_WORDS[0]}" | sed -E "s/.*-F ([^ ]+) .*/\1/")
        "$fn"; printf "%s\n" "${COMPREPLY[@]}"' \
        comp "$R/share/bash-completion/completions/calltrace" "$1" 2>/dev/null | sort -u | xargs
}
expect_eq "calltrace rec<TAB>" "record" "$(comp "calltrace rec" | tr ' ' '\n' | grep -x record)"
expect_eq "calltrace rep<TAB>" "report" "$(comp "calltrace rep")"
expect_eq "calltrace record --cl<TAB>" "--clock=" "$(comp "calltrace record --cl")"
expect_eq "calltrace report --mer<TAB>" "--merge" "$(comp "calltrace report --mer")"
formats=$( (calltrace-report --export=none calltrace.raw 2>&1 || true) |
          sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ',' | tr ' ' '\n' | sort | xargs)
[ -n "$formats" ] || fail "no list of export formats from calltrace-report"
expect_eq "calltrace export <TAB>" "$formats" "$(comp "calltrace export ")"
expect_eq "calltrace-report --tr<TAB>" "--tree" "$(comp "calltrace-report --tr")"

# make uninstall removes exactly what was installed, and nothing else.
PATH=/usr/bin:/bin
touch "$R/share/man/man1/other.1"
make -s -C "$CT_ROOT" BUILD="$CT_BUILD" uninstall DESTDIR="$D" PREFIX="$P" >/dev/null
expect_eq "left after uninstall" "./share/man/man1/other.1" "$(cd "$R" && find . ! -type d)"
echo "install: ok"
