/*
 * The block supplier (supply.c, CALLTRACE_SUPPLIER): a process of the
 * tracer's own that reserves, maps and faults in each thread's next block
 * ahead of need and unmaps full ones, so the kernel's page-cache work is
 * off the program's threads.  Every call here is cheap and never waits for
 * the supplier: without a ready block the thread does the work itself.
 */
#ifndef CT_SUPPLY_H
#define CT_SUPPLY_H

#include <stdint.h>

struct ct_thread;

/* At a block switch for a block of size bytes: a block mapped for t, or
 * NULL (map one yourself, then call ct_supply_own_block).  *populated says
 * whether its pages are already faulted in.  Starts the supplier once the
 * process has switched blocks a few times. */
void *ct_supply_take(struct ct_thread *t, uint32_t size, int *populated);
/* t reserved its block itself: nothing reserved before it may follow it. */
void ct_supply_own_block(struct ct_thread *t);
/* A full block of t: 0 when the supplier takes it to unmap, else -1. */
int ct_supply_retire(struct ct_thread *t, void *blk);
/* Wakes the supplier after a take or a retire. */
void ct_supply_kick(void);
/* t ends: its ready block, if any, is given up (it reads as empty). */
void ct_supply_thread_end(struct ct_thread *t);
/* The process closes its trace (exit, exec): the supplier ends and the
 * blocks it had ready are given up. */
void ct_supply_stop(void);
/* A forked child forgets its parent's supplier. */
void ct_supply_after_fork_child(void);

#endif /* CT_SUPPLY_H */
