/*
 * Regular expressions with a bound on what compiling them costs.  glibc's
 * regcomp copies a repeated expression's tree once per repetition: `a+`
 * becomes `aa*`, `a{3}` `aaa`.  Stacked or nested repetitions multiply
 * the copies, so the tree grows exponentially: `re:^yy` followed by 60
 * `+` took more than 2 GB (16 took 42 MB, 18 took 172 MB), and a
 * CALLTRACE_FILTER is compiled in the traced program at its start.  The
 * copies are counted here first, and a pattern over CT_RE_MAX_COPIES
 * (about 10 MB of tree) is refused with a message, as a bad one is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/regex_bound.h"

#define LIMIT ((uint64_t)CT_RE_MAX_COPIES + 1)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b > LIMIT ? LIMIT : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b && a > LIMIT / b ? LIMIT : (a * b > LIMIT ? LIMIT : a * b);
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

uint64_t ct_re_copies(const char *pat)
{
    /* per open group: the copies of what it holds so far, and of its
     * last part (what a repetition after it repeats) */
    enum { DEPTH = 64 };
    uint64_t sum[DEPTH] = {0}, last[DEPTH] = {0};
    int d = 0;
    for (const char *p = pat; *p;) {
        uint64_t factor = 0;
        if (*p == '+') {
            factor = 2;
            p++;
        } else if (*p == '{' && (factor = bound_copies(p, &p)) != 0) {
            /* p is past the bound */
        } else if (*p == '*' || *p == '?') {
            p++;
            continue;  /* a loop over the same copy */
        } else if (*p == '|') {
            last[d] = 0;  /* separates parts; nothing to repeat */
            p++;
            continue;
        } else if (*p == '(') {
            if (++d == DEPTH)
                return LIMIT;
            sum[d] = last[d] = 0;
            p++;
            continue;
        } else if (*p == ')' && d > 0) {
            uint64_t g = sum[d] ? sum[d] : 1;
            d--;
            last[d] = g;
            sum[d] = sat_add(sum[d], g);
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
            last[d] = 1;
            sum[d] = sat_add(sum[d], 1);
            continue;
        }
        /* a repetition of the last part: factor copies of it in all */
        uint64_t more = sat_mul(last[d], factor - 1);
        sum[d] = sat_add(sum[d], more);
        last[d] = sat_mul(last[d], factor);
    }
    uint64_t total = 0;
    for (int i = 0; i <= d; i++)
        total = sat_add(total, sum[i]);
    return total;
}

int ct_re_compile(regex_t *re, const char *pat)
{
    if (ct_re_copies(pat) > CT_RE_MAX_COPIES)
        return CT_RE_TOO_COSTLY;
    return regcomp(re, pat, REG_EXTENDED | REG_NOSUB);
}

void ct_re_error(int rc, const regex_t *re, char *buf, size_t cap)
{
    if (rc == CT_RE_TOO_COSTLY) {
        snprintf(buf, cap, "repetitions too deep: compiling it would "
                 "copy its parts more than %u times", CT_RE_MAX_COPIES);
        return;
    }
    regerror(rc, re, buf, cap);
}
