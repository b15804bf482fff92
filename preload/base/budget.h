/*
 * The tracer's share of the address space (budget.c).  Under an address
 * space limit (RLIMIT_AS, `ulimit -v`) every mapping of the tracer's takes
 * room the program may need: thread stacks, malloc arenas.  So the
 * tracer's own mappings that grow with the run (event blocks, thread
 * states, library-call stacks) are counted here, and together they never
 * pass an eighth of what the limit leaves beside the program.  What does
 * not fit is dropped and counted as lost, never taken from the program.
 */
#ifndef CT_BUDGET_H
#define CT_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* The largest size from want down by halves (pages, at least least) that
 * the tracer may map now; want when there is no limit, 0 when not even
 * least fits. */
size_t ct_budget_fit(size_t want, size_t least);
/* The same for an event block, which is also held below half of the last
 * size that could not be mapped (ENOMEM, no disk space) until a block of
 * that smaller size could. */
size_t ct_budget_block(size_t want, size_t least);
/* Whether an address-space limit is set: only then is a smaller block
 * worth trying at once after one that could not be mapped. */
int ct_budget_limited(void);
/* A block of size bytes was mapped (ok) or could not be (for now). */
void ct_budget_block_result(size_t size, int ok);
/* The rule itself, for the tests: limit 0 for none; vm the process's
 * size, 0 when unknown; used what the tracer holds. */
size_t ct_budget_fit_in(uint64_t limit, uint64_t vm, uint64_t used,
                        size_t want, size_t least);
/* The tracer mapped (bytes > 0) or unmapped (bytes < 0) memory that
 * ct_budget_fit counts. */
void ct_budget_add(int64_t bytes);
/* Bytes the tracer holds now, as counted. */
uint64_t ct_budget_used(void);
/* Says once that the limit made the tracer drop events. */
void ct_budget_refused(void);
/* Whether the calling thread may try again for memory that was refused
 * to it: not within 10 ms of the last refusal, so a thread at the limit
 * does not pay system calls for each of its events. */
int ct_budget_retry_ok(void);
void ct_budget_retry_later(void);

#endif /* CT_BUDGET_H */
