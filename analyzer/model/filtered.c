/* What record-time filters left out of a trace (filtered.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/filtered.h"
#include "analyzer/model/trace.h"
#include "analyzer/util.h"

static struct ct_filtered *get(struct ct_trace_info *info)
{
    if (!info->filtered)
        info->filtered = ct_xcalloc(1, sizeof *info->filtered);
    return info->filtered;
}

void ct_filtered_rules(struct ct_trace_info *info, uint64_t gen,
                       const char *text, size_t len)
{
    struct ct_filtered *f = get(info);
    for (size_t i = 0; i < f->nrules; i++)
        if (f->rules[i].gen == gen)
            return;
    ct_grow(&f->rules, &f->rules_cap, f->nrules, sizeof *f->rules);
    char *t = ct_xmalloc(len + 1);
    memcpy(t, text, len);
    t[len] = '\0';
    f->rules[f->nrules++] = (struct ct_filter_rules){gen, t};
}

void ct_filtered_unmatched(struct ct_trace_info *info, uint64_t gen,
                           uint32_t index)
{
    struct ct_filtered *f = get(info);
    for (size_t i = 0; i < f->nunmatched; i++)
        if (f->unmatched[i].gen == gen && f->unmatched[i].index == index)
            return;
    ct_grow(&f->unmatched, &f->unmatched_cap, f->nunmatched,
            sizeof *f->unmatched);
    f->unmatched[f->nunmatched++] =
        (struct ct_filter_unmatched){gen, index};
}

void ct_filtered_left(struct ct_trace_info *info, uint64_t gen,
                      uint32_t reason, uint32_t func, uint64_t count)
{
    struct ct_filtered *f = get(info);
    ct_grow(&f->left, &f->left_cap, f->nleft, sizeof *f->left);
    f->left[f->nleft++] = (struct ct_filter_left){gen, reason, func, count};
}

static int cmp_key(const void *a, const void *b)
{
    const struct ct_filter_left *x = a, *y = b;
    if (x->gen != y->gen)
        return x->gen < y->gen ? -1 : 1;
    if (x->reason != y->reason)
        return x->reason < y->reason ? -1 : 1;
    return x->func < y->func ? -1 : x->func > y->func;
}

static int cmp_count(const void *a, const void *b)
{
    const struct ct_filter_left *x = a, *y = b;
    if (x->gen != y->gen)
        return x->gen < y->gen ? -1 : 1;
    if (x->reason != y->reason)
        return x->reason < y->reason ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->func < y->func ? -1 : x->func > y->func;
}

static int cmp_gen(const void *a, const void *b)
{
    const struct ct_filter_rules *x = a, *y = b;
    return x->gen < y->gen ? -1 : x->gen > y->gen;
}

void ct_filtered_merge(struct ct_filtered *f)
{
    qsort(f->rules, f->nrules, sizeof *f->rules, cmp_gen);
    if (!f->nleft)
        return;
    qsort(f->left, f->nleft, sizeof *f->left, cmp_key);
    size_t n = 0;
    for (size_t i = 0; i < f->nleft; i++) {
        if (n && !cmp_key(&f->left[n - 1], &f->left[i]))
            f->left[n - 1].count += f->left[i].count;
        else
            f->left[n++] = f->left[i];
    }
    f->nleft = n;
    qsort(f->left, f->nleft, sizeof *f->left, cmp_count);
}

void ct_filtered_free(struct ct_filtered *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nrules; i++)
        free(f->rules[i].text);
    free(f->rules);
    free(f->left);
    free(f->unmatched);
    free(f);
}

static const char *text_of(const struct ct_filtered *f, uint64_t gen)
{
    for (size_t i = 0; i < f->nrules; i++)
        if (f->rules[i].gen == gen)
            return f->rules[i].text;
    return NULL;
}

/* Calls fn on each item of text (commas escaped as "\,"), unescaped. */
static int next_item(const char **p, char *dst, size_t cap)
{
    if (!**p)
        return 0;
    size_t n = 0;
    for (; **p && **p != ','; (*p)++) {
        if ((*p)[0] == '\\' && (*p)[1] == ',')
            (*p)++;
        if (n + 1 < cap)
            dst[n++] = **p;
    }
    dst[n] = '\0';
    if (**p == ',')
        (*p)++;
    return 1;
}

void ct_filtered_rule_text(const struct ct_filtered *f, uint64_t gen,
                           uint32_t index, char *dst, size_t cap)
{
    const char *p = text_of(f, gen);
    char item[512];
    uint32_t k = 0;
    while (p && next_item(&p, item, sizeof item)) {
        if (!strncmp(item, "depth=", 6) || !strncmp(item, "min=", 4))
            continue;
        if (k++ == index) {
            snprintf(dst, cap, "%s", item);
            return;
        }
    }
    snprintf(dst, cap, "?");
}

void ct_filtered_item(const struct ct_filtered *f, uint64_t gen,
                      const char *prefix, char *dst, size_t cap)
{
    const char *p = text_of(f, gen);
    char item[512];
    size_t k = strlen(prefix);
    dst[0] = '\0';
    while (p && next_item(&p, item, sizeof item))
        if (!strncmp(item, prefix, k))
            snprintf(dst, cap, "%s", item);
}
