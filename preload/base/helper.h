/*
 * The tracer's helper processes (the stream's sender, the block supplier)
 * share the program's memory (CLONE_VM) but are never its children: the
 * program's wait() and SIGCHLD handler must not meet them, nor its
 * /proc/PID/task/TID/children list them.  helper.c starts them through a
 * short-lived middle process, so they are orphans from their first
 * instruction, and gives them a pidfd of the program to tell when it is
 * gone.
 */
#ifndef CT_HELPER_H
#define CT_HELPER_H

#include <stddef.h>
#include <stdint.h>

struct ct_helper {
    int (*fn)(void *);   /* the helper's code (raw system calls only)      */
    void *arg;
    uint8_t *stack;      /* its stack, stack_size bytes, lowest address    */
    size_t stack_size;
    uint32_t parent;     /* the program's pid                              */
    int pidfd;           /* in the helper's descriptor table; -1: none,
                          * the helper is the program's child (old kernel) */
    uint32_t *ctid;      /* NULL, or where the helper's tid is kept while it
                          * lives: cleared, and futex-woken, when it ends */
};

/* Starts h->fn(h->arg) on h->stack with every signal blocked, fills
 * parent and pidfd.  0, or an errno value. */
int ct_helper_start(struct ct_helper *h);
/* From the helper: 1 once the program has ended (exit, crash, SIGKILL). */
int ct_helper_program_gone(const struct ct_helper *h);
/* From the helper: closes every descriptor but keep (-1: none) and its
 * pidfd. */
void ct_helper_close_others(const struct ct_helper *h, int keep);

#endif /* CT_HELPER_H */
