/*
 * What a trace's record-time filters left out (CT_EXT_FILTER_SPEC and
 * CT_EXT_FILTER_DROPS records, docs/trace-format.md): the rules in force
 * and the calls not recorded, by rule and function.
 */
#ifndef CT_FILTERED_H
#define CT_FILTERED_H

#include <stddef.h>
#include <stdint.h>

struct ct_trace_info;

/* Reasons, as the tracer writes them (reason & 7; exclude: >> 3 = rule). */
#define CT_LEFT_EXCLUDED 0u
#define CT_LEFT_OUTSIDE  1u
#define CT_LEFT_DEPTH    2u
#define CT_LEFT_SHORT    3u
#define CT_LEFT_TRIGGER  4u
#define CT_LEFT_NOTRACE  5u  /* >> 3: the :notrace rule                   */
#define CT_LEFT_CALLER   6u
#define CT_LEFT_FINISHED 7u
/* CT_LEFT_DEPTH, CT_LEFT_SHORT: >> 3 is 0 for depth= and min=, else 1 +
 * the index of the :depth=N or :time=T rule. */

struct ct_filter_rules {
    uint64_t gen;
    char *text;       /* "" when the rules were removed                    */
};

struct ct_filter_left {
    uint64_t gen;
    uint32_t reason;
    uint32_t func;    /* functab id                                        */
    uint64_t count;
};

/* A pattern rule that matched no function (CT_EXT_FILTER_UNMATCHED). */
struct ct_filter_unmatched {
    uint64_t gen;
    uint32_t index;   /* among the generation's pattern items             */
};

struct ct_filtered {
    struct ct_filter_rules *rules;
    size_t nrules, rules_cap;
    struct ct_filter_unmatched *unmatched;
    size_t nunmatched, unmatched_cap;
    struct ct_filter_left *left;
    size_t nleft, left_cap;
};

void ct_filtered_rules(struct ct_trace_info *info, uint64_t gen,
                       const char *text, size_t len);
void ct_filtered_unmatched(struct ct_trace_info *info, uint64_t gen,
                           uint32_t index);
void ct_filtered_left(struct ct_trace_info *info, uint64_t gen,
                      uint32_t reason, uint32_t func, uint64_t count);
/* Sorts and merges the counts: by generation, reason, then count down. */
void ct_filtered_merge(struct ct_filtered *f);
void ct_filtered_free(struct ct_filtered *f);
/* The text of pattern rule `index` (0-based) of a generation's rules, into
 * dst; "?" when unknown. */
void ct_filtered_rule_text(const struct ct_filtered *f, uint64_t gen,
                           uint32_t index, char *dst, size_t cap);
/* The min=DURATION item of a generation's rules, or "" */
void ct_filtered_item(const struct ct_filtered *f, uint64_t gen,
                      const char *prefix, char *dst, size_t cap);

#endif
