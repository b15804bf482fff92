/*
 * A perf_event ring of the tracer's own, with no descriptor left behind
 * (perf_ring.c): the on/off-CPU switch ring (hot/cputime.c) and the
 * sampler's rings (sampling/sample_perf.c) are opened the same way.
 */
#ifndef CT_PERF_RING_H
#define CT_PERF_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Opens the event a describes on thread tid (0: the calling thread), maps
 * len bytes of its ring and closes the descriptor (the mapping keeps the
 * event alive; the ring is not copied into a forked child).  0 with *ring
 * and the event's identifier in *id, or an errno. */
int ct_perf_ring_open(struct perf_event_attr *a, pid_t tid, size_t len,
                      void **ring, uint64_t *id);

/* The same, the descriptor kept in *fd: only for a thread whose
 * descriptor table is its own (the sampler's, sample_perf.c), where no
 * other thread of the program can see or close it. */
int ct_perf_ring_open_kept(struct perf_event_attr *a, pid_t tid, size_t len,
                           void **ring, uint64_t *id, int *fd);

#endif
