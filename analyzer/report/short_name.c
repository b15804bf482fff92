/*
 * --short-names: C++ names that fit a line.  Template arguments and
 * parameter lists are elided to <...> and (...), so that
 *   void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, ...>,
 *        long, __gnu_cxx::__ops::_Iter_comp_iter<main::{lambda(int, int)#1}>
 *        >(...)
 * reads void std::__introsort_loop<...>(...).  Operator names keep their
 * symbols (operator<, operator()), "(anonymous namespace)" stays, and a
 * name whose brackets do not balance is left as it is from there on.
 */
#include <stdbool.h>
#include <string.h>

#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* Index of the bracket closing the one at s[i], or 0 if none. */
static size_t closing(const char *s, size_t i)
{
    char open = s[i], close = open == '<' ? '>' : ')';
    int depth = 0;
    for (size_t j = i; s[j]; j++) {
        if (s[j] == open)
            depth++;
        else if (s[j] == close && --depth == 0)
            return j;
    }
    return 0;
}

char *ct_short_name(const char *s)
{
    size_t n = strlen(s);
    /* "<a>" (3 bytes) becomes "<...>" (5): never more than twice the size. */
    char *out = ct_xmalloc(2 * n + 1), *o = out;
    static const char op[] = "operator";
    for (size_t i = 0; i < n;) {
        if (strncmp(s + i, op, sizeof op - 1) == 0 &&
            (i == 0 || !ident_char(s[i - 1])) &&
            !ident_char(s[i + sizeof op - 1])) {
            memcpy(o, op, sizeof op - 1);
            o += sizeof op - 1;
            i += sizeof op - 1;
            if (s[i] == '(' && s[i + 1] == ')') {
                *o++ = s[i++];
                *o++ = s[i++];
            } else {
                while (s[i] && strchr("<>=!+-*/%^&|~[],", s[i]))
                    *o++ = s[i++];
            }
            continue;
        }
        if (s[i] != '<' && s[i] != '(') {
            *o++ = s[i++];
            continue;
        }
        size_t j = closing(s, i);
        if (!j) {
            memcpy(o, s + i, n - i);
            o += n - i;
            break;
        }
        static const char anon[] = "(anonymous namespace)";
        if (j == i + 1 ||
            (j - i + 1 == sizeof anon - 1 &&
             memcmp(s + i, anon, sizeof anon - 1) == 0)) {
            memcpy(o, s + i, j - i + 1);
            o += j - i + 1;
        } else {
            *o++ = s[i];
            memcpy(o, "...", 3);
            o += 3;
            *o++ = s[j];
        }
        i = j + 1;
    }
    *o = 0;
    return out;
}
