/*
 * Record-time filters (docs/tracer.md, "Record-time filters").
 *
 *   settings/filter_spec.c  the rule language: parsing, matching a name
 *                  (pure; shared with calltrace record)
 *   filter_elf.c   function symbols of the loaded objects
 *   filter.c       rules in force, per-thread decisions, drop counts
 */
#ifndef CT_FILTER_H
#define CT_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <regex.h>

#include "settings/filter_spec.h"

#pragma GCC visibility push(hidden)

/* Why a call was left out (CT_EXT_FILTER_DROPS reason & 7). */
#define CT_DROP_EXCLUDED 0u  /* an exclude rule: reason >> 3 is its index  */
#define CT_DROP_OUTSIDE  1u  /* not below an included function             */
#define CT_DROP_DEPTH    2u  /* deeper than depth=N                        */
#define CT_DROP_SHORT    3u  /* shorter than min=DURATION                  */
#define CT_DROP_TRIGGER  4u  /* recording stopped by a trigger             */
#define CT_DROP_NOTRACE  5u  /* in (or is) a :notrace function: >> 3 rule  */
#define CT_DROP_CALLER   6u  /* on no path to a :caller function           */
#define CT_DROP_FINISHED 7u  /* after a :finish function returned          */
/* CT_DROP_DEPTH and CT_DROP_SHORT: reason >> 3 is 0 for depth= and min=,
 * else 1 + the index of the :depth= or :time= rule in force. */

/* ELF function symbols of one loaded object (filter_elf.c): calls fn for
 * each defined function with its run-time address; with hooked_only, none
 * of an object that does not call the hooks.  Returns -1 when the file
 * cannot be read. */
typedef void (*ct_sym_fn)(void *arg, const char *name, uintptr_t addr,
                          uint64_t size);
int ct_elf_functions(const char *path, uintptr_t base, int hooked_only,
                     ct_sym_fn fn, void *arg);
/* Whether a loaded object's name (NULL allowed) is the dynamic loader's
 * or the vDSO's, which the tracer neither reads nor patches. */
int ct_elf_is_loader(const char *name);

/* ------------------------------------------------------------ run time */

struct ct_thread;
/* Settings read at start (lifecycle.c), and after each dlopen (wrap.c). */
void ct_filter_start(void);
void ct_filter_after_dlopen(void);
/* After a library-call stub was added outside a dlopen (a pointer dlsym
 * returned, plt_dlsym.c): its name goes into the rules' table. */
void ct_filter_after_new_stub(void);
/*
 * Replaces the rules in force, for every thread, from any thread (the
 * control channel).  An empty spec removes them.  A bad spec changes
 * nothing: -1 and one line in err.
 */
int ct_filter_reload(const char *spec, char *err, size_t errcap);

/* CT_STOP_FILTER while any rule is in force (thread.c's update_stop). */
extern uint32_t ct_filter_stop;

/* Slow-path hooks (thread.c): off says tracing is off here.  Enter
 * returns 1 when the frame at level d is not to be written now. */
int ct_filter_enter(struct ct_thread *t, uintptr_t fn, uintptr_t site,
                    uint32_t d, int off);
/* Frame d ends: 1 when it was a pending frame, now written or dropped. */
int ct_filter_pop(struct ct_thread *t, uint32_t d);
/* Whether frame d waits on its duration (min=, :caller) to be written or
 * left out: its ARGS and RETVAL records are then held (filter_held.c). */
int ct_filter_pending(const struct ct_thread *t, uint32_t d);
/* Holds an ARGS or RETVAL record (sub) of pending frame d, the frame on
 * top, until its entry is written; dropped with the frame if it is left
 * out.  -1 when there is no room: the values are not shown. */
int ct_filter_hold(struct ct_thread *t, uint32_t d, uint8_t sub,
                   const void *payload, size_t len);
/* Before the thread's last block closes (exit, crash, thread end):
 * pending frames and drop counts go into the trace. */
void ct_filter_thread_close(struct ct_thread *t);
void ct_filter_thread_release(struct ct_thread *t);
/* A new generation of the global word seen by thread t (thread.c): the
 * skip table its hooks read (t->skip_tab) let go, its counts written,
 * when the rules in force have another; the next entry under the rules
 * takes that one (ct_filter_enter). */
void ct_filter_sync_skips(struct ct_thread *t);
/* filter_context.c: a coroutine switch (hot/context.c) keeps the
 * filters' state of the context left, its levels [0, levels), in a
 * buffer of ct_filter_context_bytes, and takes up that of the context
 * entered (NULL: one with no frame of its own yet).  Nothing to do, and
 * 0 bytes, while no rule ever ran on the thread. */
size_t ct_filter_context_bytes(const struct ct_thread *t, uint32_t levels);
void ct_filter_context_out(const struct ct_thread *t, void *buf,
                           uint32_t levels);
void ct_filter_context_in(struct ct_thread *t, const void *buf);
/* Frames of a saved context that wait on their duration. */
uint32_t ct_filter_context_pending(const void *buf);
/* In a forked child: its trace is a new file, which gets the rules again
 * and none of the parent's counts. */
void ct_filter_after_fork(struct ct_thread *self);
/* Bytes for, and the writing of, another thread's unwritten drop counts
 * into a block of its own (ct_threads_end_others). */
size_t ct_filter_drops_size(const struct ct_thread *t);
void ct_filter_drops_into(const struct ct_thread *from, struct ct_thread *to);

#pragma GCC visibility pop

#endif
