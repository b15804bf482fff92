/*
 * Regular expressions with a bound on what compiling them costs.  glibc's
 * regcomp copies a repeated expression's tree once per repetition: `a+`
 * becomes `aa*`, `a{3}` `aaa`.  Stacked or nested repetitions multiply
 * the copies, so the tree grows exponentially: `re:^yy` followed by 60
 * `+` took more than 2 GB (16 took 42 MB, 18 took 172 MB), and a
 * CALLTRACE_FILTER is compiled in the traced program at its start.  The
 * copies are counted here first, and a pattern over CT_RE_MAX_COPIES
 * (about 10 MB of tree) is refused with a message, as a bad one is.
 * Time has a bound too: regcomp's epsilon closures span the parts that
 * may match nothing (`y*`, `a?`, `(a|b?)`), growing as the square of
 * their copies (20000 `a?` in a row: 4.4 s; `(y*){16000}`: 1.4 s), and a
 * loop over such a part makes a cycle of them, far slower
 * (`^yy+?+++++++++++`: 39 s, and 2 s with two such loops among 55
 * `?`).  So those copies are counted and bounded (CT_RE_MAX_CLOSURE),
 * and a loop over a part that may match nothing, which matches what the
 * loop over the part's non-empty matches would, is refused.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/regex_bound.h"

#define LIMIT ((uint64_t)CT_RE_MAX_COPIES + 1)
#define CLOSURE_LIMIT ((uint64_t)CT_RE_MAX_CLOSURE + 1)

/* Sums and products saturated at lim, which stays far below overflow. */
static uint64_t sat_add_at(uint64_t a, uint64_t b, uint64_t lim)
{
    return a + b > lim ? lim : a + b;
}

static uint64_t sat_mul_at(uint64_t a, uint64_t b, uint64_t lim)
{
    return b && a > lim / b ? lim : (a * b > lim ? lim : a * b);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return sat_add_at(a, b, LIMIT);
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return sat_mul_at(a, b, LIMIT);
}

/* After a `[`: past its bracket expression (`[]a]`, `[^]a]`, classes
 * `[:alpha:]` and the like inside). */
static const char *skip_bracket(const char *p)
{
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    while (*p && *p != ']') {
        if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            char end = p[1];
            p += 2;
            while (*p && !(*p == end && p[1] == ']'))
                p++;
            if (*p)
                p += 2;
            continue;
        }
        p++;
    }
    return *p ? p + 1 : p;
}

/* At a `{`: the copies a bound `{m}`, `{m,}` or `{m,n}` makes, its end in
 * *end; 0 when it is no bound (regcomp judges it). */
static uint64_t bound_copies(const char *p, const char **end)
{
    char *q;
    unsigned long m = strtoul(p + 1, &q, 10), n = m;
    if (q == p + 1)
        return 0;
    int open = 0;
    if (*q == ',') {
        char *r;
        n = strtoul(q + 1, &r, 10);
        open = r == q + 1;
        q = r;
    }
    if (*q != '}')
        return 0;
    *end = q + 1;
    uint64_t copies = open ? (uint64_t)m + 1 : (uint64_t)(n > m ? n : m);
    return copies ? copies : 1;
}

/* At a `{`: whether the bound lets the part be absent (`{0,n}`). */
static bool bound_optional(const char *p)
{
    return p[1] == '0' && (p[2] == ',' || p[2] == '}');
}

/* At a `{`: whether the bound has no end (`{m,}`): a loop. */
static bool bound_open(const char *p)
{
    const char *c = p + 1 + strspn(p + 1, "0123456789");
    return c > p + 1 && c[0] == ',' && c[1] == '}';
}

/* The copies of pat's parts, and the copies of parts that may match
 * nothing (ct_re_closure). */
static void measure(const char *pat, uint64_t *copies, uint64_t *closure)
{
    /* per open group: the copies of what it holds so far, and of its
     * last part (what a repetition after it repeats); the same counted
     * for parts that may match nothing alone (nsum, nlast); whether the
     * last part may match nothing, whether all the parts before it in
     * this alternative may, and whether a finished alternative may */
    enum { DEPTH = 64 };
    uint64_t sum[DEPTH] = {0}, last[DEPTH] = {0};
    uint64_t nsum[DEPTH] = {0}, nlast[DEPTH] = {0};
    bool last_null[DEPTH] = {true}, before_null[DEPTH] = {true};
    bool alt_null[DEPTH] = {false};
    int d = 0;
    *copies = *closure = LIMIT;
    for (const char *p = pat; *p;) {
        uint64_t factor = 0;
        bool optional = false, loop = false;
        if (*p == '+') {
            factor = 2;
            loop = true;
            p++;
        } else if (*p == '{' && (optional = bound_optional(p),
                                 loop = bound_open(p),
                                 factor = bound_copies(p, &p)) != 0) {
            /* p is past the bound */
        } else if (*p == '*' || *p == '?') {
            loop = *p++ == '*';
            factor = 1;  /* a loop over the same copy, or an optional one */
            optional = true;
        } else if (*p == '|') {
            alt_null[d] |= before_null[d] && last_null[d];
            last[d] = nlast[d] = 0;  /* separates parts; nothing to repeat */
            last_null[d] = before_null[d] = true;
            p++;
            continue;
        } else if (*p == '(') {
            if (++d == DEPTH)
                return;
            sum[d] = last[d] = nsum[d] = nlast[d] = 0;
            last_null[d] = before_null[d] = true;
            alt_null[d] = false;
            p++;
            continue;
        } else if (*p == ')' && d > 0) {
            uint64_t g = sum[d] ? sum[d] : 1, ng = nsum[d];
            bool g_null = alt_null[d] || (before_null[d] && last_null[d]);
            d--;
            before_null[d] = before_null[d] && last_null[d];
            last[d] = g;
            nlast[d] = ng;
            last_null[d] = g_null;
            sum[d] = sat_add(sum[d], g);
            nsum[d] = sat_add_at(nsum[d], ng, CLOSURE_LIMIT);
            p++;
            continue;
        } else {
            /* one part: a character, an escaped one, a bracket */
            if (*p == '\\' && p[1])
                p += 2;
            else if (*p == '[')
                p = skip_bracket(p + 1);
            else
                p++;
            before_null[d] = before_null[d] && last_null[d];
            last[d] = 1;
            nlast[d] = 0;
            last_null[d] = false;
            sum[d] = sat_add(sum[d], 1);
            continue;
        }
        /* a loop over a part that may match nothing: an epsilon cycle */
        if (loop && last_null[d])
            nsum[d] = CLOSURE_LIMIT;
        /* a repetition of the last part: factor copies of it in all */
        uint64_t more = sat_mul(last[d], factor - 1);
        sum[d] = sat_add(sum[d], more);
        last[d] = sat_mul(last[d], factor);
        more = sat_mul_at(nlast[d], factor - 1, CLOSURE_LIMIT);
        nsum[d] = sat_add_at(nsum[d], more, CLOSURE_LIMIT);
        nlast[d] = sat_mul_at(nlast[d], factor, CLOSURE_LIMIT);
        if (optional && nlast[d] < last[d]) {
            /* all its copies now lie where nothing may be matched */
            uint64_t all = last[d] < CLOSURE_LIMIT ? last[d] : CLOSURE_LIMIT;
            nsum[d] = sat_add_at(nsum[d], all - nlast[d], CLOSURE_LIMIT);
            nlast[d] = all;
        }
        last_null[d] = last_null[d] || optional;
    }
    uint64_t total = 0, ntotal = 0;
    for (int i = 0; i <= d; i++) {
        total = sat_add(total, sum[i]);
        ntotal = sat_add_at(ntotal, nsum[i], CLOSURE_LIMIT);
    }
    *copies = total;
    *closure = ntotal;
}

uint64_t ct_re_copies(const char *pat)
{
    uint64_t copies, closure;
    measure(pat, &copies, &closure);
    return copies;
}

uint64_t ct_re_closure(const char *pat)
{
    uint64_t copies, closure;
    measure(pat, &copies, &closure);
    return closure;
}

int ct_re_compile(regex_t *re, const char *pat)
{
    uint64_t copies, closure;
    measure(pat, &copies, &closure);
    if (copies > CT_RE_MAX_COPIES)
        return CT_RE_TOO_COSTLY;
    if (closure > CT_RE_MAX_CLOSURE)
        return CT_RE_TOO_NESTED;
    return regcomp(re, pat, REG_EXTENDED | REG_NOSUB);
}

void ct_re_error(int rc, const regex_t *re, char *buf, size_t cap)
{
    if (rc == CT_RE_TOO_COSTLY) {
        snprintf(buf, cap, "repetitions too deep: compiling it would "
                 "copy its parts more than %u times", CT_RE_MAX_COPIES);
        return;
    }
    if (rc == CT_RE_TOO_NESTED) {
        snprintf(buf, cap, "repetitions too deep: it repeats a part that "
                 "may match nothing in a loop (*, + or {m,}), or holds more "
                 "than %u such parts", CT_RE_MAX_CLOSURE);
        return;
    }
    regerror(rc, re, buf, cap);
}
