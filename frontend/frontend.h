/*
 * calltrace, the front end: one command for recording a program and
 * reading its trace (record, report, tree, dump, export, cflags).  Each verb
 * is a file of its own; this header is what they share.
 */
#ifndef CT_FRONTEND_H
#define CT_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef CALLTRACE_VERSION
#define CALLTRACE_VERSION "0.1.0"
#endif

#define CT_FE_DEFAULT_TRACE "calltrace.raw"

/* Exit statuses of the front end's own failures (a recorded program's
 * status is passed through instead). */
#define CT_FE_USAGE 1
#define CT_FE_FAILED 2

/* ------------------------------------------------------------ verbs */
int ct_fe_record(int argc, char **argv);
/* calltrace PROGRAM [ARGS...]: record, then the report. */
int ct_fe_run(int argc, char **argv);
/* report, tree, dump and export: extra = the analyzer option the verb
 * stands for ("--tree", "--dump", "--export"), NULL for report. */
int ct_fe_report(int argc, char **argv, const char *verb, const char *extra);
/* diff: report's form of two runs (report.c with verb "diff"); diff.c
 * gives the trace a recording passed to --diff stands for (malloc'ed;
 * exits naming a folder of several processes) and the verb's usage. */
char *ct_fe_diff_base(const char *path, const char *verb);
void ct_fe_diff_usage(void);
/* calltrace slowest FUNC [-n N] [FILE] (slowest.c) */
int ct_fe_slowest(int argc, char **argv);
/* calltrace pack [-l N] [-o OUT] [FILE...] (pack.c) */
int ct_fe_pack(int argc, char **argv);
int ct_fe_cflags(int argc, char **argv);
int ct_fe_control(int argc, char **argv);
/* calltrace recv: stores streamed traces (recv.c). */
int ct_fe_recv(int argc, char **argv);
/* top: watch a trace while it is written (top.c). */
int ct_fe_top(int argc, char **argv);

/* ------------------------------------------------------------ messages */
void ct_fe_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line, then "Try 'calltrace VERB --help'", exit CT_FE_USAGE. */
void ct_fe_usage_error(const char *verb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
void ct_fe_version(void) __attribute__((noreturn));

/* ------------------------------------------------------------ paths.c */
/* Absolute paths of the installed (or built) parts, found relative to the
 * running executable; malloc'ed, NULL (with a message) when absent. */
char *ct_fe_find_library(void);
char *ct_fe_find_analyzer(void);
/* The folder holding calltrace.h, or NULL. */
char *ct_fe_find_include(void);
/* PATH lookup as execvp does it; malloc'ed, NULL if not found. */
char *ct_fe_which(const char *prog);

/* ------------------------------------------------------------ spawn.c */
/* What to wait for once the program has exited: its traced descendants
 * (those with lib mapped), for up to timeout_s seconds (< 0: no limit). */
struct ct_fe_wait {
    const char *lib;
    double timeout_s;
    bool quiet;
    void (*tick)(void *);     /* called every TICK_S while waiting, or NULL */
    void *tick_arg;
};
/* How often ct_fe_wait's tick runs, in seconds. */
#define CT_FE_TICK_S 0.2
/* Runs argv with the extra environment entries ("NAME=value", NULL-ended)
 * added, the standard streams shared, and SIGINT/SIGQUIT left to reach the
 * child from the terminal while SIGTERM/SIGHUP sent to us are passed on;
 * then, with tree, waits for the descendants it left running (reap.c).
 * Returns the child's exit status, 128+signal when killed, or -1 when it
 * could not be started (message printed). */
int ct_fe_spawn(char *const argv[], char *const env_add[],
                const struct ct_fe_wait *tree);
/* Runs argv and waits; same return as ct_fe_spawn, no signal handling. */
int ct_fe_run_tool(char *const argv[]);

/* ------------------------------------------------------------ diskwatch.c */
/* The warning that the staged traces will fill their file system. */
struct ct_fe_diskwatch {
    const char *staging;      /* the folder the traces are written in    */
    uint64_t cap;             /* each trace's most (--limit, --flight), 0 */
    bool quiet;               /* -q: watch, but say nothing              */
    bool seen, told;
    double t0;                /* when a trace was first seen             */
    uint64_t used0;           /* the bytes the traces took then          */
    uint64_t min_free;        /* the least free space seen, bytes        */
    uint64_t block;           /* a block of the tracer's, bytes          */
    char fs[256];             /* the file system's mount point           */
};
void ct_fe_diskwatch_init(struct ct_fe_diskwatch *w, const char *staging,
                          uint64_t cap, uint64_t block);
/* One look at the traces and the free space; says it at most once. */
void ct_fe_diskwatch_tick(struct ct_fe_diskwatch *w);
/* The last look, once the processes are gone: the free space only (a
 * warning now would come too late to help). */
void ct_fe_diskwatch_end(struct ct_fe_diskwatch *w);
/* Whether the free space was seen short of one block of the tracer's. */
bool ct_fe_diskwatch_full(const struct ct_fe_diskwatch *w);
/* The same, as ct_fe_wait's tick. */
void ct_fe_diskwatch_tick_cb(void *w);

/* ------------------------------------------------------------ reap.c */
/* Makes us the reaper of the program's orphaned descendants. */
void ct_fe_reap_begin(void);
/* Waits for our traced descendants (lib mapped) until none is left, the
 * timeout (< 0: none) passes, or SIGINT/SIGTERM/SIGHUP/SIGQUIT arrives;
 * those still running are named. */
void ct_fe_reap_wait(const char *lib, double timeout_s, bool quiet,
                     void (*tick)(void *), void *tick_arg);

/* ------------------------------------------------------------ elfscan.c */
/* YES: the hooks (-finstrument-functions); PATCHABLE: patchable entries
 * (the tracer patches them, and keeps the values CALLTRACE_ARGS asks of
 * the program's own functions). */
enum ct_fe_instr { CT_INSTR_YES, CT_INSTR_NO, CT_INSTR_UNKNOWN,
                   CT_INSTR_PATCHABLE };
/* Whether an ELF file refers to __cyg_profile_func_enter (an import in its
 * dynamic symbols, or a symbol of a static link).  UNKNOWN for anything
 * that is not a readable ELF file (a script, damage). */
enum ct_fe_instr ct_fe_elf_instrumented(const char *path);
/* The same on a file in memory; exposed for the unit tests. */
enum ct_fe_instr ct_fe_elf_scan(const uint8_t *data, size_t size);
/* What a program needs to be traced: whether ld.so runs at all (a static
 * program has no interpreter, so LD_PRELOAD is never read), and the
 * sanitizer runtime among its DT_NEEDED that must be loaded first
 * ("libasan.so.8"; empty when none). */
struct ct_fe_elf_deps {
    bool is_static;
    char first[64];
};
/* 0, or -1 when the file is not a readable ELF file (a script). */
int ct_fe_elf_deps(const char *path, struct ct_fe_elf_deps *o);
int ct_fe_elf_deps_scan(const uint8_t *data, size_t size,
                        struct ct_fe_elf_deps *o);

/* ------------------------------------------------------------ stats.c */
struct ct_fe_stats {
    uint64_t events;          /* as the report's "Events:" counts them   */
    uint64_t lost;
    uint32_t threads;
    uint64_t pid;
    char program[1024];
    uint64_t size;            /* file size in bytes                       */
    int64_t first_epoch_ns;   /* wall-clock time of the first event, 0 if
                                 unknown                                  */
    bool damaged;             /* the reader stopped early                 */
};
/* Reads a calltrace trace without naming functions.  0, or -1 when the
 * file is not a readable trace (message printed unless quiet). */
int ct_fe_trace_stats(const char *path, struct ct_fe_stats *st, bool quiet);

/* ------------------------------------------------------------ recording.c */
/* A recording is a trace file (one process) or a folder of them, one per
 * process (calltrace-<pid>.raw, with .N for an exec). */
struct ct_fe_trace {
    char *path;
    struct ct_fe_stats stats;
};
struct ct_fe_recording {
    struct ct_fe_trace *traces;
    size_t n;
};
/* Lists the traces of a recording in start order; path may be a file.
 * 0, or -1 with a message. */
int ct_fe_recording_open(struct ct_fe_recording *r, const char *path);
void ct_fe_recording_free(struct ct_fe_recording *r);
/* tidpick.c: with --tid among the analyzer options args, which traces of
 * rec hold a thread named (malloc'ed, rec->n entries); NULL for all. */
bool *ct_fe_tid_pick(char **args, const struct ct_fe_recording *rec);
/* Whether a folder entry name is one of the tracer's files. */
bool ct_fe_is_trace_name(const char *name);
/* How many of them a folder holds (0 when it cannot be read). */
size_t ct_fe_count_traces(const char *dir);

/* ------------------------------------------------------------ stage.c */
/* A fresh staging folder for a recording whose output is `output` in the
 * folder `parent` (absolute): beside it, or under $TMPDIR when parent is
 * the working directory.  It holds a note naming the output's absolute
 * path.  malloc'ed path, or NULL with a message. */
char *ct_fe_stage_create(const char *parent, const char *output);
/* The output a staging folder's note names (malloc'ed), or NULL. */
char *ct_fe_stage_output(const char *staging);
/* Removes the note (before the folder becomes the recording). */
void ct_fe_stage_unnote(const char *staging);
/* rename(), or a copy across file systems; 0, or -1 with errno. */
int ct_fe_stage_move(const char *from, const char *to);

/* ------------------------------------------------------------ livepack.c */
/* record --pack: a thread that packs the staged traces' closed blocks
 * into their side files while the program runs; stop joins it (NULL is
 * allowed to both: no thread could be started, or none was wanted). */
struct ct_fe_livepack;
struct ct_fe_livepack *ct_fe_livepack_start(const char *staging);
void ct_fe_livepack_stop(struct ct_fe_livepack *lp);

/* ------------------------------------------------------------ merge.c */
/* Writes the traces as one OpenLaszlo raw log (--dump form) on a common
 * time origin, each process's threads numbered after the previous ones.
 * 0, or -1 with a message. */
int ct_fe_merge(const struct ct_fe_recording *r, const char *analyzer,
                const char *out_path);

/* ------------------------------------------------------- args_dwarf.c */
/* Whether a CALLTRACE_ARGS spec has rules the program's debug information
 * makes (`FUNC@args`, `auto`). */
bool ct_fe_args_need_dwarf(const char *spec);
/* The spec with those rules made from exe's debug information: a rule
 * for each function `FUNC@args` names, and with `auto` for each function
 * no rule of the user's names.  A malloc'd string, or NULL with err set
 * (`FUNC@args` for a program without debug information); *own: the
 * rules made for the program's own functions.  at_hooks: exe calls the
 * hooks of -finstrument-functions, so the rules name where each parameter
 * is at the enter hook's call, and keep no return value. */
char *ct_fe_args_dwarf(const char *exe, const char *spec, bool at_hooks,
                       char *err, size_t errlen, size_t *own);

#endif /* CT_FRONTEND_H */
