/*
 * A progress bar on stderr for long analyses: bytes of the trace read and
 * an estimate of the time left.  Only when stderr is a terminal, only after
 * about a second, and never mixed into redirected output.
 */
#ifndef CT_PROGRESS_H
#define CT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* Starts counting towards total bytes of path; enabled = not --no-progress.
 * The bar shows once the analysis has run CT_PROGRESS_AFTER_MS (environment,
 * for the tests; default 1000) and stderr is a terminal. */
void ct_progress_start(const char *path, uint64_t total, bool enabled);
/* bytes more of the input are done; cheap enough for every block. */
void ct_progress_advance(uint64_t bytes);
/* Clears the bar, if one was drawn. */
void ct_progress_end(void);

#endif /* CT_PROGRESS_H */
