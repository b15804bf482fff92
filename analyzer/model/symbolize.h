/*
 * Names for run-time addresses of a traced process, from the objects listed
 * in the trace's MAPS blocks, read with libbfd.
 *
 * The calltrace reader adds the map entries, then installs the symbolizer as
 * the function table's resolver, so an address is only looked up when
 * someone asks for its name.  Objects are opened on first use and kept.
 */
#ifndef CT_SYMBOLIZE_H
#define CT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/functab.h"

struct ct_symbolizer;

struct ct_symbolizer *ct_symbolizer_new(void);
void ct_symbolizer_free(struct ct_symbolizer *s);

/*
 * One loaded object: ELF address + base = run-time address; [start, end) is
 * its executable range at run time.  An entry replaces earlier ones whose
 * ranges overlap it (an object loaded where another was unloaded).
 */
void ct_symbolizer_add_map(struct ct_symbolizer *s, uint64_t base,
                           uint64_t start, uint64_t end,
                           const uint8_t *build_id, size_t build_id_len,
                           const char *path, size_t path_len);

/*
 * A name the tracer gave to an address of its own (a MAPS name entry: a
 * library-call stub, CT_MAP_NAME), for the 16 bytes there; target is the
 * function it stands for, whose object is the name's.
 */
void ct_symbolizer_add_name(struct ct_symbolizer *s, uint64_t addr,
                            uint64_t target, const char *name,
                            size_t name_len);

/*
 * The functions the tracer recorded library calls as (a MAPS block's
 * CT_MAP_LIBCALLS entry: PLT entries and stubs of its own), n addresses
 * in any order; blocks may repeat them.
 */
void ct_symbolizer_add_libcalls(struct ct_symbolizer *s, const uint64_t *addr,
                                size_t n);
/* Whether the records' function addr is a library call's (listed so, or a
 * named stub), for ct_functab_set_libcall_test (ctx = the symbolizer). */
bool ct_symbolizer_is_libcall(void *ctx, uint64_t addr);

/*
 * What was loaded when.  Each MAPS block is a snapshot of the objects
 * loaded at one time: bracket its ct_symbolizer_add_map calls with these,
 * oldest snapshot first.  An object missing from a snapshot was unloaded
 * by then (dlclose).
 */
void ct_symbolizer_snapshot_begin(struct ct_symbolizer *s, uint64_t time);
void ct_symbolizer_snapshot_end(struct ct_symbolizer *s);

/* Whether some address was home to different objects over time; if not,
 * ct_symbolizer_generation is always 0 and need not be asked. */
bool ct_symbolizer_has_generations(struct ct_symbolizer *s);

/*
 * Which object was at addr at time t, when several were there in turn:
 * 0 when only one ever was (the common case), else a number > 0 for
 * ct_functab_intern_addr_gen, which the resolver turns back into that
 * object.  An address in no object loaded at t (a constructor running
 * inside dlopen, before the MAPS block that follows it) takes the first
 * object loaded there after t.
 */
uint32_t ct_symbolizer_generation(struct ct_symbolizer *s, uint64_t addr,
                                  uint64_t t);

/* Start (run-time address) of the function containing addr, if known;
 * gen as ct_symbolizer_generation gave it (0 = the latest object). */
bool ct_symbolizer_func_start(struct ct_symbolizer *s, uint64_t addr,
                              uint64_t *start);
bool ct_symbolizer_func_start_gen(struct ct_symbolizer *s, uint64_t addr,
                                  uint32_t gen, uint64_t *start);

/*
 * Source line of a run-time pc, for ct_trace_info.pc_line (ctx = the
 * symbolizer).  For inlined code it is the line of the outermost inlined
 * call, so that the line lies in the function whose symbol contains the pc.
 * *file is malloc'ed, NULL (and *line 0) when the object has no line
 * table for it.  False when the pc is in no known object.
 */
bool ct_symbolizer_line(void *ctx, uint64_t pc, char **file, uint32_t *line);

/* The name of the function that starts at run-time address addr, as the
 * views show it (demangled as set), into buf; for ct_trace_info.addr_name
 * (ctx = the symbolizer).  False when none starts exactly there. */
bool ct_symbolizer_name_at(void *ctx, uint64_t addr, char *buf, size_t cap);

/*
 * The resolver for ct_functab_set_resolver (ctx = the symbolizer): name
 * (demangled), file:line of f->addr, and the object.  Addresses in a known
 * object without a symbol are named "libfoo.so+0x1234" (ELF address);
 * addresses in no known object stay unnamed (the table shows "0x...").
 */
void ct_symbolizer_resolve(void *ctx, struct ct_func *f);

/* The length of the library-call mark a function's name ends in
 * (`@plt`, `@dlsym`, `@got`: a call the tracer recorded through its
 * library-call stubs), 0 if none; len is strlen(name). */
size_t ct_libcall_mark_len(const char *name, size_t len);

/* How C++ names are shown (--demangle): full (parameters too, the
 * default), simple (without parameters: `ns::foo::bar`), or no (the
 * mangled symbol).  Set before the first name is resolved. */
enum ct_demangle { CT_DEMANGLE_FULL, CT_DEMANGLE_SIMPLE, CT_DEMANGLE_NO };
void ct_symbolizer_set_demangle(enum ct_demangle mode);

/* What `calltrace info` says of one loaded object. */
struct ct_object_info {
    const char *path;
    const uint8_t *build_id;    /* as the trace recorded it               */
    size_t build_id_len;
    bool opened;                /* the file was found and read             */
    bool build_id_differs;      /* ... but it is not the traced build      */
    const char *symbols;        /* where names come from, NULL if unread   */
    bool lines;                 /* it has a line table (.debug_line)       */
};

/* The objects the trace's MAPS blocks named, each opened on the call. */
size_t ct_symbolizer_nobjects(const struct ct_symbolizer *s);
void ct_symbolizer_object(struct ct_symbolizer *s, size_t i,
                          struct ct_object_info *oi);

#endif /* CT_SYMBOLIZE_H */
