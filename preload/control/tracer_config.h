/*
 * The settings: the CALLTRACE_* variables parsed into struct ct_config
 * (settings/config.c, shared with the front end) and the environment
 * captured at start (env.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_CONFIG_H
#define CT_TRACER_CONFIG_H

#include "preload/tracer_base.h"
#include "settings/config.h"

#pragma GCC visibility push(hidden)

/* ---------------------------------------------------------------- config */

/* calltrace_event messages: longer ones keep their first bytes and end in
 * CT_USER_MSG_CUT with the count of bytes left out. */
#define CT_USER_MSG_MAX 1024
#define CT_USER_MSG_CUT "...[%zu more bytes]"

/* The environment the tracer started with (env.c).  ct_env_capture runs
 * first thing at start, before libc may have set `environ`. */
void ct_env_capture(void);
/* A setting: getenv once libc has the environment, else the captured
 * copy (CALLTRACE_* only). */
const char *ct_env_get(const char *name);
/* The captured CALLTRACE_* entries, "NAME=value". */
size_t ct_env_count(void);
const char *ct_env_entry(size_t i);
/* This library's file: absolute when it was loaded by a path with a
 * slash, else the bare name it was loaded by; "" when unknown.  Name: as
 * the loader has it. */
const char *ct_env_self_path(void);
const char *ct_env_self_name(void);
/* msg holds the first cap - 1 bytes (NUL-terminated) of a message of full
 * bytes; marks a cut visibly.  Returns the length to record. */
size_t ct_user_message_cut(char *msg, size_t cap, size_t full);

#pragma GCC visibility pop

#endif /* CT_TRACER_CONFIG_H */
