/*
 * The flight recorder's ring of slots (flight.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_FLIGHT_H
#define CT_TRACER_FLIGHT_H

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* ---------------------------------------------------------------- flight */

/* CALLTRACE_FLIGHT (flight.c): EVENTS blocks go to a ring of fixed slots
 * right after the header; MAPS blocks after the ring. */
extern uint32_t ct_flight_slots;   /* 0: not a flight recorder */
/* After the header is mapped: lays out the ring. */
void ct_flight_setup(struct ct_file_header *h);
/* A free slot for a block of size bytes: its file offset in *off, the
 * slot emptied.  -1 when none can be had for now (a snapshot is being
 * made), -2 when every slot holds a live thread's block. */
int ct_flight_reserve(uint32_t size, uint64_t *off);
/* Copies the trace as it is now to <trace>.snapN; the name in name.
 * Async-signal-safe.  0, or -1 with errno. */
int ct_flight_snapshot(char *name, size_t cap);
/* At start: the snapshot signal's handler (CALLTRACE_FLIGHT_SIGNAL). */
void ct_flight_start(void);
/* The program takes sig for itself: its handler wins. */

#pragma GCC visibility pop

#endif /* CT_TRACER_FLIGHT_H */
