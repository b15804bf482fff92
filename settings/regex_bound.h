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
/* Parts that may match nothing, copies counted, that a pattern may hold
 * (about 0.02 s of regcomp's epsilon closures). */
#define CT_RE_MAX_CLOSURE 2048u
/* ct_re_compile's answers for a pattern over one of the bounds: not one
 * of regcomp's codes, which are positive. */
#define CT_RE_TOO_COSTLY (-1)
#define CT_RE_TOO_NESTED (-2)

/* How many copies of its parts regcomp would make of pattern pat, an
 * extended regular expression: every `+` doubles what it repeats and
 * `{m,n}` copies it n times (m + 1 for `{m,}`), stacked or nested
 * repetitions multiplying; saturated just past CT_RE_MAX_COPIES. */
uint64_t ct_re_copies(const char *pat);
/* The parts of pat that may match nothing (`y*`, `a?`, `(a|b?)`), their
 * copies counted, over which regcomp's epsilon closures grow as their
 * square; saturated just past CT_RE_MAX_CLOSURE, and past it at once for
 * a loop over such a part (`(y*)+`: an epsilon cycle, slower still). */
uint64_t ct_re_closure(const char *pat);
/* regcomp(re, pat, REG_EXTENDED | REG_NOSUB), or CT_RE_TOO_COSTLY or
 * CT_RE_TOO_NESTED (re untouched, nothing to free) for a pattern over
 * either bound. */
int ct_re_compile(regex_t *re, const char *pat);
/* The reason of a code ct_re_compile gave, as regerror's. */
void ct_re_error(int rc, const regex_t *re, char *buf, size_t cap);

#endif /* CT_SETTINGS_REGEX_BOUND_H */
