/*
 * Streaming output: CALLTRACE_OUTPUT=tcp:HOST:PORT or unix:PATH
 * (docs/tracer.md "Streaming", docs/trace-format.md "Streams").
 *
 * The trace is written exactly as into a file, but into a shared anonymous
 * window instead of a file mapping.  A sender process of the tracer's own,
 * cloned at start (and by every forked child), holds the connection and
 * sends the header, then each block once it is closed, snapshots of open
 * blocks that grew (each second), and a trailer with the final header.
 * The program never touches the socket and holds no descriptor for it.
 */
#ifndef CT_STREAM_H
#define CT_STREAM_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* 1 when the output setting names a connection, not a file. */
int ct_stream_wanted(const char *output);
/* Connects, maps the window and the header, starts the sender.  0, or -1
 * after one line on stderr (tracing stops; the program runs on). */
int ct_stream_open(uint32_t ppid);
/* The block at offset off of the window, or NULL after a failure. */
void *ct_stream_block(uint64_t off, uint32_t size);

/* Shared by file.c: maps the header block at offset 0 and fills it. */
int ct_file_map_header(uint32_t ppid);

/* Counts the events (calls, returns, samples, user events) in len bytes
 * of a block's records.  *complete: the length of the whole records among
 * them; *last_switch: payload offset + 1 of the last SWITCH record among
 * those, 0 if none.  Pure, for the sender and the tests. */
uint64_t ct_stream_count_events(const uint8_t *p, size_t len,
                                size_t *complete, uint32_t *last_switch);

#pragma GCC visibility pop

#endif
