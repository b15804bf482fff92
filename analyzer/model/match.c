#include "match.h"

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

/* pattern equals name's base, or its last qualified part(s): "f", "b::f"
 * and "a::b::f" all name "a::b::f(int)". */
static bool names_base(const char *pattern, const char *name, size_t blen)
{
    size_t plen = strlen(pattern);
    if (plen > blen || strncmp(name + blen - plen, pattern, plen) != 0)
        return false;
    if (plen == blen)
        return true;
    return blen - plen >= 2 && name[blen - plen - 1] == ':' &&
           name[blen - plen - 2] == ':';
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
    if (strcmp(pattern, name) == 0 ||
        names_base(pattern, name, base_len(name)))
        return CT_MATCH_EXACT;
    if (strncmp(pattern, name, strlen(pattern)) == 0)
        return CT_MATCH_PREFIX;
    return CT_MATCH_NO;
}

static bool same_base(const char *a, const char *b)
{
    size_t la = base_len(a), lb = base_len(b);
    return la == lb && memcmp(a, b, la) == 0;
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
            else if (!same_base(first_prefix, names[i]))
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
