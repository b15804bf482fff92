#!/usr/bin/env bash
# The house keeps its own order (docs/architecture.md, "Layers"): every
# source file is named in its folder's README.md map, and no #include
# crosses a layer it may not.  Includes that do so today are listed, each
# with its reason, in tests/house-allow.txt; a new one fails here, and a
# listed one that no longer exists fails too, so the list only shrinks.
# Reads the tree only: needs no build.
set -u
cd "$(dirname "$0")/../.."
bad=0
say() { echo "FAIL: $*" >&2; bad=1; }

# --- the maps: folder -> the README.md that names its files
check_map() { # README FILE...
    local readme=$1; shift
    [ -f "$readme" ] || { say "$readme is missing"; return; }
    local f
    for f in "$@"; do
        [ -f "$f" ] || continue
        grep -qF "\`$(basename "$f")\`" "$readme" ||
            say "$f is not named in $readme"
    done
}
# preload/ has one map for all its folders: each file is named by its
# path under preload/ (`hot/hot.c`), so the map also says where it lives.
check_tree_map() { # DIR
    local d=$1 readme=$1/README.md f rel
    [ -f "$readme" ] || { say "$readme is missing"; return; }
    while read -r f; do
        rel=${f#"$d"/}
        grep -qF "\`$rel\`" "$readme" ||
            say "$f is not named in $readme (as \`$rel\`)"
    done < <(find "$d" -type f ! -path "$readme" | sort)
}
check_tree_map preload
for d in analyzer analyzer/model analyzer/readers analyzer/read analyzer/report \
         analyzer/writers frontend include settings bench scripts; do
    files=()
    for f in "$d"/*; do
        [ -f "$f" ] && [ "$(basename "$f")" != README.md ] && files+=("$f")
    done
    check_map "$d/README.md" "${files[@]}"
done
check_map tests/README.md tests/*.sh tests/unit/* tests/e2e/* \
    tests/e2e/tools/* tests/fuzz/*

# --- the layers: which folder's code may include which folder's headers
layer() { # path -> layer name
    case $1 in
        include/*) echo include;;
        preload/*) echo preload;;
        settings/*) echo settings;;
        analyzer/util.[ch]|analyzer/progress.[ch]) echo base;;
        analyzer/main.c|analyzer/cli.c|analyzer/options.h) echo cli;;
        analyzer/model/*) echo model;;
        analyzer/readers/*) echo readers;;
        analyzer/read/*) echo read;;
        analyzer/report/*) echo report;;
        analyzer/writers/*) echo writers;;
        frontend/*) echo frontend;;
        *) echo other;;
    esac
}
may_use() { # from to: the layers a layer may include
    case $1 in
        include) [[ $2 == include ]];;
        settings) [[ $2 =~ ^(include|settings)$ ]];;
        preload) [[ $2 =~ ^(include|settings|preload)$ ]];;
        base) [[ $2 =~ ^(include|base)$ ]];;
        model) [[ $2 =~ ^(include|base|model)$ ]];;
        readers) [[ $2 =~ ^(include|base|model|readers)$ ]];;
        read) [[ $2 =~ ^(include|base|model|readers|read)$ ]];;
        report) [[ $2 =~ ^(include|base|model|report)$ ]];;
        writers) [[ $2 =~ ^(include|base|model|writers)$ ]];;
        cli) [[ $2 != preload && $2 != frontend ]];;
        frontend) [[ $2 =~ ^(include|settings|base|model|readers|read|frontend)$ ]];;
        *) false;;
    esac
}
# Headers private to their folder (and the folders below it), whatever the
# layers allow.
private_to() { # header path -> folder only it may be included from
    case $1 in
        preload/*) echo preload;;
        analyzer/model/profile_private.h|analyzer/model/profile_run.h|\
        analyzer/model/symbolize_private.h)
            echo analyzer/model;;
        analyzer/readers/calltrace_reader.h|analyzer/readers/calltrace_record.h)
            echo analyzer/readers;;
        analyzer/report/*_private.h) echo analyzer/report;;
    esac
}

declare -A header_at
while read -r h; do header_at[$(basename "$h")]=$h; done \
    < <(find include settings preload analyzer frontend -name '*.h' | sort)

allow=tests/house-allow.txt
declare -A allowed seen
while read -r from to _; do
    [[ -z $from || $from == \#* ]] && continue
    allowed["$from $to"]=1
done < "$allow"

while read -r src; do
    while read -r name; do
        to=${header_at[$(basename "$name")]:-}
        [ -n "$to" ] || continue            # a system header
        [ "$to" = "$src" ] && continue
        why=
        priv=$(private_to "$to")
        if [ -n "$priv" ] && [[ $src != "$priv"/* ]]; then
            why="$to is private to $priv/"
        elif ! may_use "$(layer "$src")" "$(layer "$to")"; then
            why="layer $(layer "$src") may not include layer $(layer "$to")"
        fi
        [ -n "$why" ] || continue
        if [ -n "${allowed["$src $to"]:-}" ]; then
            seen["$src $to"]=1
        else
            say "$src includes $to: $why (docs/architecture.md, \"Layers\")"
        fi
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$src")
done < <(find include settings preload analyzer frontend \
              \( -name '*.c' -o -name '*.h' -o -name '*.S' \) | sort)

for k in "${!allowed[@]}"; do
    [ -n "${seen[$k]:-}" ] ||
        say "$allow lists '$k', which no longer happens: remove the line"
done

[ "$bad" -eq 0 ] || exit 1
echo "house: every file mapped, every include within its layers"
