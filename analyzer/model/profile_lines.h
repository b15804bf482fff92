/*
 * Stack samples by source line: SamplingProf's call elements.
 *
 * The profile keeps every sampled stack that carries pcs in a calling
 * context tree (cheap, no symbols needed); the lines are looked up only
 * when someone asks for this view (--by-line, --export samplingprof).  An
 * element is (function, file, line): the leaf pc's line for the top frame,
 * the call site (return address - 1) for the frames above.  As in
 * SamplingProf, self counts the top element, total counts an element at
 * most once per sample, and the graph links adjacent elements (caller
 * element -> callee element, direct recursion as a -> a, the root to the
 * outermost element), each link at most once per sample.
 */
#ifndef CT_PROFILE_LINES_H
#define CT_PROFILE_LINES_H

#include <stdint.h>

#include "analyzer/model/profile.h"

struct ct_line_elem {
    uint32_t func;           /* functab id of the function holding the line */
    const char *file;        /* NULL if unknown                            */
    uint32_t line;           /* 0 if unknown                               */
    uint64_t self;           /* sample weight with it on top               */
    uint64_t total;          /* ... with it anywhere, once per sample      */
    uint64_t calls;          /* ... entering it from a caller or the root  */
};

struct ct_line_arc {
    uint32_t caller;         /* element index, CT_FUNC_NONE = the root     */
    uint32_t callee;
    uint64_t count;
};

struct ct_line_profile {
    struct ct_line_elem *elems;  /* in order of first appearance        */
    uint32_t nelems;
    struct ct_line_arc *arcs;
    uint32_t narcs;
    uint64_t samples;            /* weight of the samples counted       */
    uint64_t ticks_per_sample;   /* as the function profile charges one */
};

/* The stored stacks (opaque; profile_private.h holds one per profile). */
struct ct_prof_lines;

/* Adds a sample's stack (ev->pcs, ev->stack, ev->depth) with weight w. */
void ct_prof_lines_add(struct ct_prof_lines **pl, const struct ct_event *ev,
                       uint64_t w);
void ct_prof_lines_free(struct ct_prof_lines *pl);

/* The line view of p's samples, resolved through info->pc_line on first
 * use; NULL when no sample carried pcs. */
const struct ct_line_profile *ct_profile_lines(struct ct_profile *p);

#endif /* CT_PROFILE_LINES_H */
