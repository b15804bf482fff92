/*
 * Choosing functions by a name the user typed (match.h), for --focus,
 * --hide, --notrace, --slowest: a glob, a plain name matching C and C++
 * names alike (namespaces, templates and parameter lists may be left
 * out), and the pick of one function among several of a name.
 */
#include "analyzer/model/match.h"

#include <fnmatch.h>
#include <string.h>

static bool is_glob(const char *p)
{
    return strpbrk(p, "*?[") != NULL;
}

/* Length of name without a trailing C++ parameter list (and the
 * qualifiers after it, " const" and the like): "ns::f(int) const" -> 5. */
static size_t base_len(const char *name)
{
    size_t len = strlen(name);
    const char *close = strrchr(name, ')');
    if (!close || close == name)
        return len;
    int depth = 0;
    for (const char *c = close; c >= name; c--) {
        if (*c == ')')
            depth++;
        else if (*c == '(' && --depth == 0)
            /* "(anonymous namespace)::f" has no parameter list to drop */
            return c == name ? len : (size_t)(c - name);
    }
    return len;
}

/* Where the name proper starts: after a template function's return type
 * ("int ns::f<int>(int)" -> "ns::f<int>..."), at depth 0 of <> and (). */
static size_t name_start(const char *name, size_t blen)
{
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i < blen; i++) {
        if (name[i] == '<' || name[i] == '(')
            depth++;
        else if ((name[i] == '>' || name[i] == ')') && depth > 0)
            depth--;
        else if (name[i] == ' ' && depth == 0 && i + 1 < blen)
            start = i + 1;
    }
    return start;
}

/* blen without trailing template arguments: "ns::f<int>" -> "ns::f". */
static size_t untemplated_len(const char *name, size_t blen)
{
    if (blen == 0 || name[blen - 1] != '>')
        return blen;
    int depth = 0;
    for (size_t i = blen; i-- > 0;) {
        if (name[i] == '>')
            depth++;
        else if (name[i] == '<' && --depth == 0)
            return i > 0 ? i : blen;
    }
    return blen;
}

/* pattern equals name[0..len) or its last qualified part(s): "f", "b::f"
 * and "a::b::f" all name "a::b::f". */
static bool names_tail(const char *pattern, const char *name, size_t len)
{
    size_t plen = strlen(pattern);
    if (plen > len || strncmp(name + len - plen, pattern, plen) != 0)
        return false;
    if (plen == len)
        return true;
    char before = name[len - plen - 1];
    return before == ' ' ||
           (before == ':' && len - plen >= 2 && name[len - plen - 2] == ':');
}

/* The part of a name that tells functions apart when overloads and
 * template instances count as one: "int ns::f<int>(int)" -> "ns::f". */
static void core(const char *name, size_t *start, size_t *len)
{
    size_t blen = base_len(name);
    size_t ulen = untemplated_len(name, blen);
    *start = name_start(name, ulen);
    *len = ulen - *start;
}

enum ct_match ct_name_match(const char *pattern, const char *name)
{
    if (!pattern || !name || !*pattern)
        return CT_MATCH_NO;
    if (is_glob(pattern)) {
        if (fnmatch(pattern, name, 0) == 0)
            return CT_MATCH_EXACT;
        /* "ns::*" or "*::f" should not have to spell "(int)" */
        size_t blen = base_len(name);
        char base[blen + 1];
        memcpy(base, name, blen);
        base[blen] = 0;
        return fnmatch(pattern, base, 0) == 0 ? CT_MATCH_EXACT : CT_MATCH_NO;
    }
    size_t blen = base_len(name);
    if (strcmp(pattern, name) == 0 || names_tail(pattern, name, blen) ||
        names_tail(pattern, name, untemplated_len(name, blen)))
        return CT_MATCH_EXACT;
    size_t plen = strlen(pattern), start = name_start(name, blen);
    if (strncmp(pattern, name, plen) == 0 ||
        strncmp(pattern, name + start, plen) == 0)
        return CT_MATCH_PREFIX;
    return CT_MATCH_NO;
}

bool ct_name_match_any(const char *const *patterns, size_t n,
                       const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (ct_name_match(patterns[i], name) == CT_MATCH_EXACT)
            return true;
    return false;
}

static bool same_function(const char *a, const char *b)
{
    size_t sa, la, sb, lb;
    core(a, &sa, &la);
    core(b, &sb, &lb);
    return la == lb && memcmp(a + sa, b + sb, la) == 0;
}

enum ct_select ct_name_select(const char *pattern, const char *const *names,
                              size_t n, bool *chosen)
{
    bool exact = false, prefix = false, several = false;
    const char *first_prefix = NULL;
    for (size_t i = 0; i < n; i++) {
        chosen[i] = false;
        if (!names[i])
            continue;
        enum ct_match m = ct_name_match(pattern, names[i]);
        if (m == CT_MATCH_EXACT) {
            chosen[i] = true;
            exact = true;
        } else if (m == CT_MATCH_PREFIX) {
            prefix = true;
            if (!first_prefix)
                first_prefix = names[i];
            else if (!same_function(first_prefix, names[i]))
                several = true;
        }
    }
    if (exact)
        return CT_SELECT_FOUND;
    if (!prefix)
        return CT_SELECT_NONE;
    for (size_t i = 0; i < n; i++)
        chosen[i] = names[i] &&
                    ct_name_match(pattern, names[i]) == CT_MATCH_PREFIX;
    return several ? CT_SELECT_AMBIGUOUS : CT_SELECT_FOUND;
}
