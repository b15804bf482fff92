/*
 * Choosing functions by a name the user typed (--focus, --hide, ...).
 *
 * A pattern is a shell glob when it holds '*', '?' or '[' and must then
 * match a whole name.  Otherwise it names a function exactly; for C++ the
 * parameter list may be left out ("ns::f" names "ns::f(int)" and every
 * overload) and so may the qualification ("f" names "ns::f(int)").  When
 * nothing is named exactly, a pattern may be the start of one function's
 * name (a unique prefix); docs/report-format.md has the user's view.
 */
#ifndef CT_MATCH_H
#define CT_MATCH_H

#include <stdbool.h>
#include <stddef.h>

enum ct_match {
    CT_MATCH_NO = 0,
    CT_MATCH_PREFIX,   /* pattern is only the start of the name          */
    CT_MATCH_EXACT,    /* a glob matches it, or it names it exactly      */
};

/* How pattern relates to one name. */
enum ct_match ct_name_match(const char *pattern, const char *name);
/* Whether one of the n patterns matches name (CT_MATCH_EXACT): the
 * filters that meet names while reading (--hide, --notrace, --caller). */
bool ct_name_match_any(const char *const *patterns, size_t n,
                       const char *name);

enum ct_select {
    CT_SELECT_NONE = 0,    /* nothing matched                            */
    CT_SELECT_FOUND,       /* chosen[] marks the functions named         */
    CT_SELECT_AMBIGUOUS,   /* a prefix of several functions: chosen[]
                              marks the candidates                        */
};

/*
 * Applies pattern to names[0..n) (NULL entries are skipped) and sets
 * chosen[i] for the names it selects: every exact or glob match; failing
 * those, the names it is a prefix of, when they are one function (its
 * overloads count as one).
 */
enum ct_select ct_name_select(const char *pattern, const char *const *names,
                              size_t n, bool *chosen);

#endif /* CT_MATCH_H */
