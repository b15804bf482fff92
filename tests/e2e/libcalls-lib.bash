# Helpers for the library-call tests (tests/e2e/libcalls_*.sh); source
# after lib.sh.

# thread_trees RAW: the call tree of every thread from --dump, one line per
# call, "<thread> <two spaces per level><name>"; thread "1" is the first
# thread (main), the others are numbered as --dump numbers them.
thread_trees() {
    "$REPORT_SAN" --dump "$1" | awk '
        {
            key = $2; kind = substr(key, 1, 1); th = substr(key, 2)
            if (th == "") th = 1
            if (kind != "C" && kind != "R") next
            name = $0; sub(/^[^ ]+ [^ ]+ /, "", name)
            if (kind == "C") {
                pad = ""; for (i = 0; i < depth[th]; i++) pad = pad "  "
                print th, pad name
                depth[th]++
            } else if (depth[th] > 0) {
                depth[th]--
            }
        }'
}

# tree_of TREES THREAD: one thread's tree, thread field removed.
tree_of() {
    awk -v th="$2" '$1 == th { sub(/^[^ ]+ /, ""); print }' "$1"
}

# report_calls RAW NAME: the calls column of NAME in the flat profile.
report_calls() {
    "$REPORT_SAN" -b -p "$1" | awk -v n="$2" '
        NF >= 7 && $4 ~ /^[0-9]+$/ {
            name = $0
            for (i = 0; i < 6; i++) sub(/^ *[^ ]+/, "", name)
            sub(/^ +/, "", name); sub(/ \[[0-9]+\]$/, "", name)
            if (name == n) { print $4; found = 1 }
        }
        END { if (!found) print 0 }'
}
