/*
 * Regular expressions of the rule languages (`re:` in filter_spec.c and
 * args_spec.c), compiled with a bound on what compiling may cost.
 */
#ifndef CT_SETTINGS_REGEX_BOUND_H
#define CT_SETTINGS_REGEX_BOUND_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

/* Copies of the pattern's parts that compiling it may make, at most. */
#define CT_RE_MAX_COPIES 16384u
/* ct_re_compile's answer for a pattern over that bound: not one of
 * regcomp's codes, which are positive. */
#define CT_RE_TOO_COSTLY (-1)

/* How many copies of its parts regcomp would make of pattern pat, an
 * extended regular expression: every `+` doubles what it repeats and
 * `{m,n}` copies it n times (m + 1 for `{m,}`), stacked or nested
 * repetitions multiplying; saturated just past CT_RE_MAX_COPIES. */
uint64_t ct_re_copies(const char *pat);
/* regcomp(re, pat, REG_EXTENDED | REG_NOSUB), or CT_RE_TOO_COSTLY (re
 * untouched, nothing to free) for a pattern over the bound. */
int ct_re_compile(regex_t *re, const char *pat);
/* The reason of a code ct_re_compile gave, as regerror's. */
void ct_re_error(int rc, const regex_t *re, char *buf, size_t cap);

#endif /* CT_SETTINGS_REGEX_BOUND_H */
