# bash completion for calltrace and calltrace-report.
# Options and formats are read from the commands' own --help when completing,
# so they are always those of the installed version.
# Installed as share/bash-completion/completions/{calltrace,calltrace-report}.

# Long and short options in COMMAND's --help ("--name=" when it takes a value).
_calltrace_help_opts()
{
    "$@" --help 2>/dev/null |
        grep -oE '(^|[ ,])(-[A-Za-z0-9]|--[a-z0-9-]+(\[?=)?)' |
        sed -E 's/^[ ,]//; s/\[=$/=/' | sort -u
}

# The formats --export writes, from calltrace-report --help.
_calltrace_export_formats()
{
    "$1" --help 2>/dev/null | awk '
        /--export=FORMAT/ { on = 1; sub(/.*FORMAT:/, ""); print; next }
        on && /^ +-/ { on = 0 }
        on && /^          +\(/ { on = 0 }
        on && /^          / { print; next }
        on { on = 0 }' | tr ',' '\n' | tr -d ' ' | grep -v '^$'
}

# The formats read, from the "Formats read:" list of calltrace-report --help.
_calltrace_read_formats()
{
    "$1" --help 2>/dev/null |
        awk '/^Formats read:/ { on = 1; next } on && /^$/ { exit }
             on { print $1 }'
}

# The analyzer next to the calltrace being completed, or the one on PATH.
_calltrace_analyzer()
{
    local self; self=$(type -P "$1" 2>/dev/null)
    if [ -n "$self" ] && [ -x "${self%/*}/calltrace-report" ]; then
        echo "${self%/*}/calltrace-report"
    else
        echo calltrace-report
    fi
}

# The word being completed as typed: bash splits "--export=lms" at "=" in
# COMP_WORDS, the line does not lie.
_calltrace_cur()
{
    local line=${COMP_LINE:0:COMP_POINT}
    printf '%s\n' "${line##*[[:space:]]}"
}

# Values of "--x=": with "=" a word break (the default) bash replaces only
# what follows it, else the whole word.
_calltrace_values()
{
    local cur=$1 words=$2 prefix=${1%%=*}=
    [[ $COMP_WORDBREAKS == *=* ]] && prefix=
    COMPREPLY=($(compgen -P "$prefix" -W "$words" -- "${cur#*=}"))
}

# Options and files; option values after "--x=".
_calltrace_complete_words()
{
    local cur=$1 analyzer=$2; shift 2
    case $cur in
        --export=*) _calltrace_values "$cur" "$(_calltrace_export_formats "$analyzer")"; return;;
        --format=*) _calltrace_values "$cur" "$(_calltrace_read_formats "$analyzer")"; return;;
        --clock=*) _calltrace_values "$cur" "tsc tsc-fenced monotonic"; return;;
        --sample-clock=*) _calltrace_values "$cur" "cpu wall"; return;;
        --cputime=*) _calltrace_values "$cur" "switch clock off"; return;;
        --sort=*) _calltrace_values "$cur" "self calls total avg name min p50 p90 p99 max"; return;;
        --demangle=*) _calltrace_values "$cur" "full simple no"; return;;
        --slowest=*) return;;
        --filter=*|--args=*|--trigger=*|--depth=*|--profile-paths=*|--min-duration=*|--timeout=*|--threshold=*|--tid=*) return;;
        --*=*)
            COMPREPLY=($(compgen -f -- "${cur#*=}")); return;;
        -*)
            COMPREPLY=($(compgen -W "$(_calltrace_help_opts "$@")" -- "$cur"))
            [[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace 2>/dev/null
            return;;
    esac
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}

_calltrace()
{
    local cur cmd=${COMP_WORDS[0]}
    cur=$(_calltrace_cur)
    local analyzer; analyzer=$(_calltrace_analyzer "$cmd")
    local verbs="record report tree dump info export diff slowest pack cflags control recv top help"
    if [ "$COMP_CWORD" -eq 1 ]; then
        if [[ $cur == -* ]]; then
            _calltrace_complete_words "$cur" "$analyzer" "$cmd" record
        else
            # Verbs first, then programs to record without a verb.
            COMPREPLY=($(compgen -W "$verbs" -- "$cur")
                       $(compgen -c -- "$cur" | sort -u))
            [[ $cur == */* ]] && COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return
    fi
    local verb=${COMP_WORDS[1]} i
    case $verb in
        report|tree|dump|diff|info)
            _calltrace_complete_words "$cur" "$analyzer" "$cmd" "$verb"
            ;;
        export)
            if [ "$COMP_CWORD" -eq 2 ]; then
                COMPREPLY=($(compgen -W "$(_calltrace_export_formats "$analyzer")" -- "$cur"))
            else
                _calltrace_complete_words "$cur" "$analyzer" "$cmd" report
            fi
            ;;
        slowest)    # FUNC first, then the report's options and a trace
            if [ "$COMP_CWORD" -eq 2 ]; then
                COMPREPLY=()
            else
                _calltrace_complete_words "$cur" "$analyzer" "$cmd" report
            fi
            ;;
        cflags) COMPREPLY=() ;;
        control)
            if [ "$COMP_CWORD" -eq 2 ]; then
                COMPREPLY=($(compgen -W "$(ls /tmp/calltrace-"$(id -u)" 2>/dev/null | sed -n 's/\.ctl$//p')" -- "$cur"))
            elif [ "$COMP_CWORD" -eq 3 ]; then
                COMPREPLY=($(compgen -W "on off snapshot status filter" -- "$cur"))
            else
                COMPREPLY=()
            fi
            ;;
        recv|pack) _calltrace_complete_words "$cur" "$analyzer" "$cmd" "$verb" ;;
        top)    # a trace or a pid; after --, a program to start and watch
            for ((i = 2; i < COMP_CWORD; i++)); do
                [ "${COMP_WORDS[i]}" = -- ] && break
            done
            if [ "$i" -lt "$COMP_CWORD" ] && [ "$i" -eq $((COMP_CWORD - 1)) ]; then
                COMPREPLY=($(compgen -c -- "$cur"))
            elif [ "$i" -lt "$COMP_CWORD" ]; then
                COMPREPLY=($(compgen -f -- "$cur"))
                compopt -o filenames 2>/dev/null
            else
                _calltrace_complete_words "$cur" "$analyzer" "$cmd" top
            fi
            ;;
        *)  # record, or a program without a verb: options until the program
            local start=1
            [ "$verb" = record ] && start=2
            for ((i = start; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                    -o|--output|--host|--port|=) ((i++)) ;;
                    --) ((i++)); break ;;
                    -*) ;;
                    *) break ;;
                esac
            done
            if [ "$i" -lt "$COMP_CWORD" ]; then
                COMPREPLY=($(compgen -f -- "$cur"))      # the program's arguments
                compopt -o filenames 2>/dev/null
            elif [[ $cur == -* ]]; then
                _calltrace_complete_words "$cur" "$analyzer" "$cmd" record
            else
                COMPREPLY=($(compgen -c -- "$cur"))
                [[ $cur == */* || -z $cur ]] && COMPREPLY+=($(compgen -f -- "$cur"))
                compopt -o filenames 2>/dev/null
            fi
            ;;
    esac
}

_calltrace_report()
{
    local cur; cur=$(_calltrace_cur)
    _calltrace_complete_words "$cur" "${COMP_WORDS[0]}" "${COMP_WORDS[0]}"
}

complete -F _calltrace calltrace
complete -F _calltrace_report calltrace-report
