/*
 * Record-time filters at run time (filter.h, docs/tracer.md).
 *
 * While any rule is in force every thread's `stop` carries CT_STOP_FILTER,
 * so every hook takes the slow path and the unfiltered hot path pays
 * nothing.  The slow path looks the function up in a per-process hash from
 * address to the rule that names it, filled when the rules are installed
 * and after each dlopen from the ELF symbols of the objects built for
 * tracing.  Frames that are not written are hidden frames of thread.c:
 * on the shadow stack, in no record.
 *
 * With min=DURATION a frame is pending until it returns: its entry time
 * is kept here, and when it lasted long enough its entry (and those of
 * its still pending callers, whose times are older than any record since)
 * and its exit are written.  The current block always has room for the
 * pending entries: when it would not, they are written before the switch,
 * so no entry is ever stamped later than it happened.
 *
 * Every call left out is counted per function and reason, and the counts
 * go into the trace as CT_EXT_FILTER_DROPS records; the rules themselves
 * as CT_EXT_FILTER_SPEC, once per set of rules.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/filters/filter_state.h"
#include "preload/libcalls/plt.h"
#include "preload/patch/patch.h"
#include "preload/base/scratch.h"
#include "preload/tracer.h"

uint32_t ct_filter_stop;

struct fslot {
    uintptr_t key;
    uint32_t val;   /* as ct_fspec_match returns it                   */
};

struct fhash {
    size_t mask, used;
    struct fslot s[];
};

#define MAX_OBJECTS 1024

struct fset {
    struct ct_fspec spec;
    uint64_t gen;
    uint64_t min_ticks;
    int have_trigger;
    struct fhash *hash;
    uint64_t scanned[MAX_OBJECTS];  /* objects looked at: base ^ name hash */
    uint32_t nscanned;
    uint32_t slots_named;  /* library-call stubs named so far (plt.c)   */
    uint64_t hits;         /* bit i: rule i named some function         */
    void *demangle;        /* __cxa_demangle, once libstdc++ is there   */
    struct fset *older;  /* kept: a thread may still read it            */
    struct ct_ffast *fast; /* its class tables (filter_fast.c), or NULL  */
};

static struct fset *current;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t spec_written;      /* generation whose SPEC record exists */
static int trigger_on;             /* recording allowed by the triggers   */
static int finished;               /* a :finish function has returned     */

/* ct_filter_flags as the triggers' state now says, for the fast path;
 * read again after the store, so two threads changing the state at once
 * leave the last word. */
static uint32_t flags_now(const struct fset *s)
{
    return (__atomic_load_n(&finished, __ATOMIC_RELAXED) ? FFL_FINISHED : 0) |
           (s && s->have_trigger &&
                    !__atomic_load_n(&trigger_on, __ATOMIC_RELAXED)
                ? FFL_TRIG_OFF
                : 0);
}

static void flags_update(const struct fset *s)
{
    uint32_t v;
    do {
        v = flags_now(s);
        __atomic_store_n(&ct_filter_flags, v, __ATOMIC_RELAXED);
    } while (flags_now(s) != v);
}

/* Per-thread state (struct fthread, filter_state.h), mapped on first use. */
#define DROPS_PER_RECORD 32u

/* A frame's flags (fthread.fl). */
#define FF_TRACE     0x01u  /* kept whatever its duration                 */
#define FF_CALLER    0x02u  /* a :caller function: its callers are kept   */
#define FF_FINISH    0x04u  /* recording ends when it returns             */
#define FF_BACKTRACE 0x08u  /* its left-out callers are kept with it      */
#define FF_WEAK      0x10u  /* left out, unless a backtrace keeps it      */
#define FF_PATH      0x20u  /* kept only on the path to a :caller one     */

static uint32_t lookup(const struct fset *s, uintptr_t fn)
{
    const struct fhash *h = __atomic_load_n(&s->hash, __ATOMIC_ACQUIRE);
    if (!h)
        return 0;
    for (size_t i = ct_fhash_addr(fn) & h->mask;; i = (i + 1) & h->mask) {
        uintptr_t k = __atomic_load_n(&h->s[i].key, __ATOMIC_ACQUIRE);
        if (k == fn)
            return __atomic_load_n(&h->s[i].val, __ATOMIC_RELAXED);
        if (!k)
            return 0;
    }
}

static struct fhash *hash_new(size_t cap)
{
    size_t bytes = sizeof(struct fhash) + cap * sizeof(struct fslot);
    struct fhash *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (h == MAP_FAILED)
        return NULL;
    h->mask = cap - 1;
    return h;
}

static void hash_put(struct fhash *h, uintptr_t key, uint32_t val)
{
    size_t i = ct_fhash_addr(key) & h->mask;
    while (h->s[i].key && h->s[i].key != key)
        i = (i + 1) & h->mask;
    if (h->s[i].key == key) {
        /* Two names for one address: each kind of rule keeps a match. */
        uint32_t old = h->s[i].val;
        for (uint32_t mask = 0xff; mask; mask <<= 8)
            if (!(val & mask))
                val |= old & mask;
        __atomic_store_n(&h->s[i].val, val, __ATOMIC_RELAXED);
        return;
    }
    h->s[i].val = val;
    __atomic_store_n(&h->s[i].key, key, __ATOMIC_RELEASE);
    h->used++;
}

/* Readers may hold the old table: it is never freed, only replaced. */
static void insert(struct fset *s, uintptr_t key, uint32_t val)
{
    struct fhash *h = s->hash;
    if (!h || (h->used + 1) * 2 > h->mask + 1) {
        struct fhash *n = hash_new(h ? (h->mask + 1) * 2 : 1024);
        if (!n)
            return;
        if (h)
            for (size_t i = 0; i <= h->mask; i++)
                if (h->s[i].key)
                    hash_put(n, h->s[i].key, h->s[i].val);
        __atomic_store_n(&s->hash, n, __ATOMIC_RELEASE);
        h = n;
    }
    hash_put(h, key, val);
}

/* ------------------------------------------------------------ scanning */

#define PLT_ENTRY_BYTES 16u

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

struct scan {
    struct fset *set;
    demangle_fn demangle;
    char *buf;
    size_t cap;
};

/* The demangled form of a C++ name, or NULL. */
static const char *demangled(struct scan *sc, const char *name)
{
    if (!sc->demangle || name[0] != '_' || name[1] != 'Z')
        return NULL;
    int status = -1;
    char *out = sc->demangle(name, sc->buf, &sc->cap, &status);
    if (!out || status != 0)
        return NULL;
    sc->buf = out;
    return out;
}

static void scan_symbol(void *arg, const char *name, uintptr_t addr,
                        uint64_t size)
{
    struct scan *sc = arg;
    uint32_t v = ct_fspec_match_hits(&sc->set->spec, name,
                                     demangled(sc, name), "", &sc->set->hits);
    v = ct_fspec_match_size(&sc->set->spec, v, name, demangled(sc, name),
                            size, &sc->set->hits);
    if (v)
        insert(sc->set, addr, v);
}

/* A library-call stub (plt.c): its calls are recorded as calls of fn, the
 * caller's PLT entry or the stub itself, which the report names
 * `name@plt`, `name@dlsym` or `name@got`.  Every slot stays patched
 * whatever the rules say, so a later rule can still name it. */
static void scan_slot(void *arg, const char *name, const char *mark,
                      uintptr_t fn)
{
    struct scan *sc = arg;
    uint32_t v = ct_fspec_match_hits(&sc->set->spec, name,
                                     demangled(sc, name), mark,
                                     &sc->set->hits);
    /* A library call is made through its PLT entry, 16 bytes on x86-64,
     * the size uftrace's -Z sees for it too. */
    v = ct_fspec_match_size(&sc->set->spec, v, name, demangled(sc, name),
                            PLT_ENTRY_BYTES, &sc->set->hits);
    if (v)
        insert(sc->set, fn, v);
}

/* Called with install_lock held. */
static void scan_slots(struct fset *s, struct scan *sc)
{
    s->slots_named = ct_plt_slot_names(s->slots_named, scan_slot, sc);
}

static uint64_t object_key(const struct dl_phdr_info *info)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = info->dlpi_name ? info->dlpi_name : ""; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    return h ^ info->dlpi_addr;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct scan *sc = arg;
    struct fset *s = sc->set;
    uint64_t key = object_key(info);
    for (uint32_t i = 0; i < s->nscanned; i++)
        if (s->scanned[i] == key)
            return 0;
    if (s->nscanned < MAX_OBJECTS)
        s->scanned[s->nscanned++] = key;
    const char *name = info->dlpi_name;
    if (!name || !*name)
        name = "/proc/self/exe";  /* the program */
    if (ct_elf_is_loader(name))
        return 0;
    /* An object with patched entries calls no hook, and its functions
     * are recorded all the same. */
    ct_elf_functions(name, info->dlpi_addr,
                     !ct_patch_has_object(info->dlpi_addr), scan_symbol, sc);
    return 0;
}

/* Called with install_lock held. */
static void scan_all(struct fset *s)
{
    if (!s->spec.nrules)
        return;
    /* The C++ runtime's demangler, when the program has one loaded: a C
     * program has no C++ names to show either (and a failing dlsym would
     * start its heap). */
    if (ct_cxx_runtime_loaded())
        s->demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    struct scan sc = {s, (demangle_fn)s->demangle, NULL, 0};
    int saved = errno;
    dl_iterate_phdr(scan_object, &sc);
    scan_slots(s, &sc);
    free(sc.buf);
    errno = saved;
}

/* ------------------------------------------------------------ installing */

static void each_class(void *arg, void (*fn)(void *, uintptr_t, uint32_t),
                       void *fnarg)
{
    const struct fhash *h = ((const struct fset *)arg)->hash;
    for (size_t i = 0; h && i <= h->mask; i++)
        if (h->s[i].key)
            fn(fnarg, h->s[i].key, h->s[i].val);
}

/* The fast path's tables after the hash of s changed (install lock
 * held): published for the current set only.  The hooks read the skip
 * table a thread took (t->skip_tab) while its `expect` is the global
 * word: when the table ends, a new generation of the word sends each
 * thread to let it go (ct_filter_sync_skips). */
static void fast_update(struct fset *s)
{
    const struct ct_fskips *was = ct_fskips;
    s->fast = ct_ffast_update(s->fast, &s->spec, s->gen, each_class, s);
    if (s == current) {
        struct ct_fskips *k = s->fast ? s->fast->skips : NULL;
        __atomic_store_n(&ct_ffast, s->fast, __ATOMIC_RELEASE);
        __atomic_store_n(&ct_fskips, k, __ATOMIC_RELEASE);
        if (was && k != was)
            __atomic_fetch_add(&ct_global_word, 2, __ATOMIC_RELEASE);
    }
}

static int install(const char *text, char *err, size_t errcap)
{
    struct fset *s = ct_scratch_alloc(sizeof *s);
    if (!s) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    if (ct_fspec_parse(text, &s->spec, err, errcap) != 0) {
        ct_scratch_free(s, sizeof *s);
        return -1;
    }
    for (uint32_t i = 0; i < s->spec.nrules; i++)
        if (s->spec.rules[i].acts & (CT_FACT_ON | CT_FACT_OFF))
            s->have_trigger = 1;
    s->min_ticks = ct_ns_to_ticks(s->spec.min_ns);
    pthread_mutex_lock(&install_lock);
    struct fset *old = current;
    s->gen = old ? old->gen + 1 : 1;
    s->older = old;
    scan_all(s);
    __atomic_store_n(&trigger_on, !s->spec.have_on, __ATOMIC_RELAXED);
    __atomic_store_n(&finished, 0, __ATOMIC_RELAXED);
    flags_update(s);
    /* The fast path stops before the rules change and takes the new
     * tables after: it never decides with a set that is not current. */
    __atomic_store_n(&ct_ffast, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&ct_fskips, NULL, __ATOMIC_RELEASE);
    /* The old set stays mapped: a thread may be reading it right now. */
    __atomic_store_n(&current, s, __ATOMIC_RELEASE);
    fast_update(s);
    __atomic_store_n(&ct_filter_stop,
                     ct_fspec_active(&s->spec) ? CT_STOP_FILTER : 0u,
                     __ATOMIC_RELAXED);
    pthread_mutex_unlock(&install_lock);
    /* A new generation of the global word sends every thread to its slow
     * path once, where its `stop` picks up CT_STOP_FILTER or drops it. */
    __atomic_fetch_add(&ct_global_word, 2, __ATOMIC_RELEASE);
    return 0;
}

static void warn_line(const char *line)
{
    ct_message("%s", line);
}

/* Bit i: pattern rule i of s named no function of the objects scanned.
 * A name@dlsym rule is left out: such a stub is named only when dlsym
 * hands it out, later. */
static uint64_t unmatched(const struct fset *s)
{
    uint64_t none = 0;
    for (uint32_t i = 0; i < s->spec.nrules; i++)
        if (!strstr(s->spec.rules[i].pattern, "@dlsym") &&
            s->spec.rules[i].pattern[0])  /* size=N names nothing */
            none |= 1ull << i;
    return none & ~__atomic_load_n(&s->hits, __ATOMIC_RELAXED);
}

/* Whether every rule of kind k names no function (and there is one). */
static int all_unmatched(const struct fset *s, uint64_t none, uint32_t k)
{
    int any = 0;
    for (uint32_t i = 0; i < s->spec.nrules; i++)
        if (s->spec.rules[i].kind == k) {
            if (!(none >> i & 1))
                return 0;
            any = 1;
        }
    return any;
}

/* One line naming the rules that match no function: a mistyped name
 * would otherwise record nothing (an include, an :on trigger) or leave
 * out nothing (an exclude) without a word. */
static void warn_unmatched(const struct fset *s)
{
    uint64_t none = unmatched(s);
    if (!none)
        return;
    char list[512], item[300];
    size_t n = 0;
    for (uint32_t i = 0; i < s->spec.nrules; i++) {
        if (!(none >> i & 1))
            continue;
        ct_fspec_rule_text(&s->spec.rules[i], item, sizeof item);
        if (n + strlen(item) + 8 >= sizeof list) {
            memcpy(list + n, ", ...", 6);
            n += 5;
            break;
        }
        n += (size_t)snprintf(list + n, sizeof list - n, "%s'%s'",
                              n ? ", " : "", item);
    }
    int nothing = all_unmatched(s, none, CT_FRULE_INCLUDE) ||
                  all_unmatched(s, none, CT_FRULE_ON);
    ct_message("calltrace: filter: no function loaded so far matches %s%s",
               list, nothing ? " (so nothing is recorded)" : "");
}

void ct_filter_start(void)
{
    char text[CT_FILTER_TEXT_MAX];
    if (!ct_fspec_from_env(text, sizeof text, ct_env_get, warn_line))
        return;
    char err[256];
    if (install(text, err, sizeof err) != 0) {
        ct_message("calltrace: filter '%.64s': %s; tracing without it", text,
                   err);
        return;
    }
    warn_unmatched(__atomic_load_n(&current, __ATOMIC_ACQUIRE));
}

void ct_filter_after_dlopen(void)
{
    struct fset *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    if (!s || !s->spec.nrules)
        return;
    pthread_mutex_lock(&install_lock);
    scan_all(current);
    fast_update(current);
    pthread_mutex_unlock(&install_lock);
}

void ct_filter_after_new_stub(void)
{
    struct fset *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    if (!s || !s->spec.nrules)
        return;
    pthread_mutex_lock(&install_lock);
    s = current;
    struct scan sc = {s, (demangle_fn)s->demangle, NULL, 0};
    int saved = errno;
    scan_slots(s, &sc);
    free(sc.buf);
    fast_update(s);
    errno = saved;
    pthread_mutex_unlock(&install_lock);
}

int ct_filter_reload(const char *spec, char *err, size_t errcap)
{
    if (errcap)
        err[0] = '\0';
    return install(spec ? spec : "", err, errcap);
}

/* ------------------------------------------------------------- records */

static void put_ext_now(struct ct_thread *t, uint8_t sub, const uint8_t *pl,
                        size_t len)
{
    uint8_t *p = ct_enc_ext_head(t->pos, ct_tick_delta(t, ct_now()), sub,
                                 len);
    memcpy(p, pl, len);
    t->pos = p + len;
}

static int room_for(struct ct_thread *t, struct fthread *f, size_t len);
static uint64_t unmatched(const struct fset *s);

static void write_spec(struct ct_thread *t, struct fthread *f,
                       const struct fset *s)
{
    uint8_t buf[CT_FILTER_TEXT_MAX + 16];
    uint8_t *p = ct_put_varint(buf, s->gen);
    size_t n = strlen(s->spec.text);
    memcpy(p, s->spec.text, n);
    p += n;
    size_t len = (size_t)(p - buf);
    if (room_for(t, f, len + 24) == 0)
        put_ext_now(t, CT_EXT_FILTER_SPEC, buf, len);
    /* The rules that named no function, for the report to say so too. */
    uint64_t none = unmatched(s);
    if (!none)
        return;
    p = ct_put_varint(buf, s->gen);
    p = ct_put_varint(p, (uint64_t)__builtin_popcountll(none));
    for (uint32_t i = 0; i < s->spec.nrules; i++)
        if (none >> i & 1)
            p = ct_put_varint(p, i);
    len = (size_t)(p - buf);
    if (room_for(t, f, len + 24) == 0)
        put_ext_now(t, CT_EXT_FILTER_UNMATCHED, buf, len);
}

/* One entry of a FILTER_DROPS record. */
static uint8_t *put_drop(uint8_t *p, uint32_t reason, uintptr_t fn,
                         uint64_t count)
{
    p = ct_put_varint(p, reason);
    p = ct_put_varint(p, fn);
    return ct_put_varint(p, count);
}

/* Encodes up to DROPS_PER_RECORD entries from d[*i] on; 0 when done. */
static size_t encode_drops(uint8_t *buf, uint64_t gen, const struct ct_fdrop *d,
                           uint32_t cap, uint32_t *i)
{
    uint8_t *p = ct_put_varint(buf, gen);
    uint8_t *count_at = p++;
    uint32_t n = 0;
    for (; *i < cap && n < DROPS_PER_RECORD; (*i)++) {
        if (!d[*i].count)
            continue;
        p = put_drop(p, d[*i].reason, d[*i].fn, d[*i].count);
        n++;
    }
    *count_at = (uint8_t)n;  /* < 128: a one-byte varint */
    return n ? (size_t)(p - buf) : 0;
}

#define DROPS_RECORD_MAX (12 + DROPS_PER_RECORD * 30)

/* The same for the skip table's counts c[] (one per slot of k): each
 * slot's function and reason, as a drops table's entry would say them. */
static size_t encode_skips(uint8_t *buf, uint64_t gen,
                           const struct ct_fskips *k, const uint64_t *c,
                           uint32_t *i)
{
    uint8_t *p = ct_put_varint(buf, gen);
    uint8_t *count_at = p++;
    uint32_t n = 0;
    for (; *i < CT_FSKIP_SLOTS && n < DROPS_PER_RECORD; (*i)++) {
        uint64_t count = __atomic_load_n(&c[*i], __ATOMIC_RELAXED);
        if (!count)
            continue;
        p = put_drop(p, k->reason[*i], k->fn[*i], count);
        n++;
    }
    *count_at = (uint8_t)n;
    return n ? (size_t)(p - buf) : 0;
}

static void write_pending(struct ct_thread *t, struct fthread *f,
                          uint32_t upto);

/*
 * Room for len bytes while calls may be pending.  Only when the block is
 * short of it does this go through ct_thread_room, whose checkpoint for
 * the context-switch ring would otherwise write a record stamped later
 * than the pending entries; and then the pending entries go first, into
 * this block, so they keep their times.
 */
static int room_for(struct ct_thread *t, struct fthread *f, size_t len)
{
    size_t pending =
        f ? ((size_t)f->npending + 3) * CT_REC_MAX_HOT + ct_fheld_room(f) : 0;
    if (t->blk && ct_thread_room_left(t) >= len + pending)
        return 0;
    if (f && f->npending)
        write_pending(t, f, CT_MAX_DEPTH);
    return ct_thread_room(t, len);
}

static void put_drops(struct ct_thread *t, struct fthread *f,
                      const uint8_t *buf, size_t len)
{
    if (room_for(t, f, len + 24) == 0) {
        put_ext_now(t, CT_EXT_FILTER_DROPS, buf, len);
    } else if (!ct_proc.failed) {
        /* Not silently: what cannot be told is lost, and counted. */
        ct_thread_count_lost(t, 1);
    }
}

/* The skip table's counts into the trace, and zeroed (filter_skip.h). */
static void flush_skips(struct ct_thread *t, struct fthread *f)
{
    if (!t->skip_tab)
        return;
    uint8_t buf[DROPS_RECORD_MAX];
    uint32_t i = 0;
    size_t len;
    while ((len = encode_skips(buf, f->gen, t->skip_tab, f->skipped, &i)))
        put_drops(t, f, buf, len);
    memset(f->skipped, 0, sizeof f->skipped);
}

static void flush_drops(struct ct_thread *t, struct fthread *f)
{
    flush_skips(t, f);
    if (!f->ndrops)
        return;
    uint8_t buf[DROPS_RECORD_MAX];
    uint32_t i = 0;
    size_t len;
    while ((len = encode_drops(buf, f->gen, f->drops, DROP_CAP, &i)) != 0)
        put_drops(t, f, buf, len);
    memset(f->drops, 0, sizeof f->drops);
    f->ndrops = 0;
}

static void count_drop(struct ct_thread *t, struct fthread *f, uintptr_t fn,
                       uint32_t reason)
{
    size_t i = (ct_fhash_addr(fn) ^ reason) & (DROP_CAP - 1);
    while (f->drops[i].count &&
           (f->drops[i].fn != fn || f->drops[i].reason != reason))
        i = (i + 1) & (DROP_CAP - 1);
    if (!f->drops[i].count) {
        f->drops[i].fn = fn;
        f->drops[i].reason = reason;
        f->ndrops++;
    }
    f->drops[i].count++;
    if (f->ndrops >= DROP_CAP * 3 / 4)
        flush_drops(t, f);
}

static uint32_t sized_skips;

size_t ct_filter_drops_size(const struct ct_thread *t)
{
    const struct fthread *f = t->filter;
    if (!f)
        return 0;
    size_t n = DROP_CAP / DROPS_PER_RECORD + 1;
    const struct ct_fskips *k = __atomic_load_n(&t->skip_tab,
                                                __ATOMIC_RELAXED);
    /* ct_filter_drops_into, called next for the same thread (end_other
     * in thread.c, one thread at a time), writes no more skip entries
     * than the slots filled now. */
    sized_skips = k ? __atomic_load_n(&k->filled, __ATOMIC_RELAXED) : 0;
    n += sized_skips / DROPS_PER_RECORD + 1;
    return n * (DROPS_RECORD_MAX + 24);
}

void ct_filter_drops_into(const struct ct_thread *from, struct ct_thread *to)
{
    const struct fthread *f = from->filter;
    if (!f)
        return;
    /* Another thread's table, read while it may still run: a count it
     * adds meanwhile may be missed, never one made up. */
    static struct ct_fdrop copy[DROP_CAP];
    memcpy(copy, f->drops, sizeof copy);
    uint8_t buf[DROPS_RECORD_MAX];
    uint32_t i = 0;
    size_t len;
    while ((len = encode_drops(buf, f->gen, copy, DROP_CAP, &i)) != 0)
        put_ext_now(to, CT_EXT_FILTER_DROPS, buf, len);
    const struct ct_fskips *k = __atomic_load_n(&from->skip_tab,
                                                __ATOMIC_RELAXED);
    i = 0;
    uint32_t records = (sized_skips + DROPS_PER_RECORD - 1) / DROPS_PER_RECORD;
    for (uint32_t r = 0; k && r < records; r++) {
        if ((len = encode_skips(buf, f->gen, k, f->skipped, &i)) == 0)
            break;
        put_ext_now(to, CT_EXT_FILTER_DROPS, buf, len);
    }
}

/* --------------------------------------------------------------- frames */

static void set_hidden(struct ct_thread *t, uint32_t d, int on)
{
    uint64_t bit = 1ull << (d % 64);
    if (on && !(t->hidden[d / 64] & bit)) {
        t->hidden[d / 64] |= bit;
        t->hidden_count++;
    } else if (!on && (t->hidden[d / 64] & bit)) {
        t->hidden[d / 64] &= ~bit;
        t->hidden_count--;
    }
}

static int put_entry(struct ct_thread *t, uint64_t ticks, uintptr_t fn,
                     uintptr_t site)
{
    if (ct_thread_room_left(t) < CT_REC_MAX_HOT) {
        if (!ct_proc.failed)
            ct_thread_count_lost(t, 1);
        return -1;
    }
    t->pos = ct_enc_entry(t->pos, ct_tick_delta(t, ticks), fn, t->prev_fn,
                          site, t->prev_site);
    t->prev_fn = fn;
    t->prev_site = site;
    return 0;
}

/* A pending frame below level upto that is left out after all: a weak
 * one (FF_WEAK) once a call below it is written without a backtrace,
 * since its entry could no longer go before that call's records. */
static void drop_pending(struct ct_thread *t, struct fthread *f, uint32_t i)
{
    f->state[i] = FS_HIDDEN;
    f->npending--;
    count_drop(t, f, ct_frame_fn(t, i), f->why[i]);
}

/* Writes the entries of the pending frames below level upto, outermost
 * first: from now on they are ordinary written frames.  Weak frames are
 * written only under a frame with a backtrace (bt: the writing frame has
 * one), else left out. */
static void write_pending_bt(struct ct_thread *t, struct fthread *f,
                             uint32_t upto, int bt)
{
    for (uint32_t i = upto; i-- > 0 && f->npending;) {
        if (f->fl[i] & FF_BACKTRACE)
            bt = 1;
        if (f->state[i] == FS_PENDING && (f->fl[i] & FF_WEAK) && !bt)
            drop_pending(t, f, i);
    }
    for (uint32_t i = 0; i < upto && f->npending; i++) {
        if (f->state[i] != FS_PENDING)
            continue;
        f->npending--;
        /* An entry that cannot be written leaves its frame hidden, so
         * no exit goes without it. */
        if (put_entry(t, f->ticks[i], ct_frame_fn(t, i), f->site[i]) != 0) {
            f->state[i] = FS_HIDDEN;
            continue;
        }
        f->state[i] = FS_WRITTEN;
        set_hidden(t, i, 0);
        ct_fheld_write(t, f, i);
    }
}

static void write_pending(struct ct_thread *t, struct fthread *f,
                          uint32_t upto)
{
    write_pending_bt(t, f, upto, 0);
}

static struct fthread *thread_state(struct ct_thread *t)
{
    if (t->filter)
        return t->filter;
    void *m = mmap(NULL, sizeof(struct fthread), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    t->filter = m;
    return m;
}

static void new_generation(struct ct_thread *t, struct fthread *f,
                           const struct fset *s)
{
    flush_drops(t, f);
    f->gen = s->gen;
    memset(&f->sc, 0, sizeof f->sc);
}

/* The rules go into the trace once, by the first thread to run under
 * them (again in a forked child's new file). */
static void tell_rules(struct ct_thread *t, struct fthread *f,
                       const struct fset *s)
{
    uint64_t w = __atomic_load_n(&spec_written, __ATOMIC_RELAXED);
    while (w < s->gen)
        if (__atomic_compare_exchange_n(&spec_written, &w, s->gen, 0,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            write_spec(t, f, s);
            break;
        }
}

/* What a decision for a frame is. */
#define FD_WRITE 0  /* written (or pending on its duration)            */
#define FD_DROP  1  /* left out, counted                               */
#define FD_WEAK  2  /* left out unless a backtrace below keeps it      */

/* A frame's triggers (uftrace's -T actions), before the rules decide. */
static void apply_trigger(struct fthread *f, const struct ct_frule *r,
                          uint32_t rule, uint32_t d)
{
    uint32_t a = r->acts;
    if (a & (CT_FACT_ON | CT_FACT_OFF))
        __atomic_store_n(&trigger_on, !!(a & CT_FACT_ON), __ATOMIC_RELAXED);
    if (a & CT_FACT_DEPTH) {
        f->sc.dbase = d;
        f->sc.dmax = r->depth;
        f->sc.drule = rule;
    }
    if (a & CT_FACT_TIME) {
        f->sc.trule = rule;
        f->sc.tmin = ct_ns_to_ticks(r->time_ns);
    }
    f->fl[d] = (uint8_t)((a & CT_FACT_TRACE ? FF_TRACE : 0) |
                         (a & CT_FACT_CALLER ? FF_CALLER : 0) |
                         (a & CT_FACT_FINISH ? FF_FINISH : 0) |
                         (a & CT_FACT_BACKTRACE ? FF_BACKTRACE : 0));
}

/* A left-out frame: counted now, or kept pending as a backtrace's. */
static int left_out(struct ct_thread *t, struct fthread *f,
                    const struct fset *s, uintptr_t fn, uint32_t d,
                    uint32_t reason)
{
    if (s->spec.have_acts & CT_FACT_BACKTRACE) {
        f->why[d] = reason;
        return FD_WEAK;
    }
    count_drop(t, f, fn, reason);
    return FD_DROP;
}

/* The decision for a frame entered at level d while recording. */
static int decide(struct ct_thread *t, struct fthread *f, const struct fset *s,
                  uintptr_t fn, uint32_t d)
{
    const struct ct_fspec *sp = &s->spec;
    uint32_t v = lookup(s, fn);
    uint32_t inc = CT_FMATCH_INCLUDE(v), exc = CT_FMATCH_EXCLUDE(v);
    uint32_t trig = CT_FMATCH_TRIGGER(v);
    f->fl[d] = 0;
    if (__atomic_load_n(&finished, __ATOMIC_RELAXED)) {
        count_drop(t, f, fn, CT_DROP_FINISHED);
        return FD_DROP;
    }
    /* Inside a :notrace function nothing is recorded (uftrace's -N). */
    if (!f->sc.notrace && trig &&
        (sp->rules[trig - 1].acts & CT_FACT_NOTRACE))
        f->sc.notrace = trig;
    if (f->sc.notrace) {
        count_drop(t, f, fn, CT_DROP_NOTRACE | (f->sc.notrace - 1) << 3);
        return FD_DROP;
    }
    if (trig) {
        apply_trigger(f, &sp->rules[trig - 1], trig, d);
        if (sp->rules[trig - 1].acts & (CT_FACT_ON | CT_FACT_OFF))
            flags_update(s);
    }
    /* Levels count from the outermost included frame: a recursive or
     * nested match inside its levels does not extend them.  Included and
     * excluded both: its callees are recorded, it is not ("only below
     * main_loop"); its callees' levels count from it.  An included frame
     * entered while a trigger has recording off still opens its levels,
     * so that an :on trigger inside it records from there (uftrace's
     * `-F outer -T start@trace_on` records start and its callees). */
    if (inc && f->sc.allow == 0) {
        const struct ct_frule *r = &sp->rules[inc - 1];
        uint32_t allow = r->levels ? d + r->levels + (exc ? 1 : 0)
                                   : UINT32_MAX;
        if (allow > f->sc.allow)
            f->sc.allow = allow;
    }
    if (s->have_trigger && !__atomic_load_n(&trigger_on, __ATOMIC_RELAXED)) {
        count_drop(t, f, fn, CT_DROP_TRIGGER);
        return FD_DROP;
    }
    if (exc) {
        count_drop(t, f, fn, CT_DROP_EXCLUDED | (exc - 1) << 3);
        return FD_DROP;
    }
    if (sp->have_include && d >= f->sc.allow)
        return left_out(t, f, s, fn, d, CT_DROP_OUTSIDE);
    if (sp->depth && d >= sp->depth)
        return left_out(t, f, s, fn, d, CT_DROP_DEPTH);
    /* :depth=N counts from the trigger's frame, as uftrace's -D does from
     * each -F match: the frame is level 1. */
    if (f->sc.dmax && d - f->sc.dbase >= f->sc.dmax)
        return left_out(t, f, s, fn, d, CT_DROP_DEPTH | f->sc.drule << 3);
    return FD_WRITE;
}

/* The least duration a frame at this point must last to be kept, in
 * ticks, and the reason it is counted under when shorter. */
static uint64_t least_duration(const struct fthread *f, const struct fset *s,
                               uint32_t *reason)
{
    *reason = CT_DROP_SHORT | f->sc.trule << 3;
    return f->sc.trule ? f->sc.tmin : s->min_ticks;
}

/* Makes frame d pending: its entry waits until it is known to be kept.
 * Keep room in this block for every pending entry and one call; when
 * there is none, the pending entries go in now, at their own times,
 * before a new block is taken. */
static void make_pending(struct ct_thread *t, struct fthread *f, uint32_t d,
                         uintptr_t site, uint64_t fmin, uint32_t why)
{
    room_for(t, f, 3 * CT_REC_MAX_HOT);
    f->state[d] = FS_PENDING;
    f->ticks[d] = ct_now();
    f->site[d] = site;
    f->fmin[d] = fmin;
    f->why[d] = why;
    f->npending++;
}

/*
 * Whether a frame of a function the skip table k holds is open below
 * level d (entered before the rules; there are none after).  The table
 * leaves such a function's calls without a frame, and a call of it from
 * inside that frame (a recursion) would return with the open frame on
 * top, as if that frame's own return: so while one is open the thread
 * takes no skip table, and its calls are left out the class table's way,
 * as hidden frames.  Asked again at each entry the slow path sees.
 */
static bool holds_open_frame(const struct ct_thread *t,
                             const struct ct_fskips *k, uint32_t d)
{
    for (uint32_t i = 0; i < d; i++)
        if (ct_fskip_holds(k, ct_frame_fn(t, i)))
            return true;
    return false;
}

int ct_filter_enter(struct ct_thread *t, uintptr_t fn, uintptr_t site,
                    uint32_t d, int off)
{
    const struct fset *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    if (d >= ct_frames_kept(t) || !s)
        return off;
    struct fthread *f = thread_state(t);
    if (!f)
        return off;
    if (f->gen != s->gen)
        new_generation(t, f, s);
    if (__atomic_load_n(&spec_written, __ATOMIC_RELAXED) < s->gen)
        tell_rules(t, f, s);
    /* The skip table of these rules counts into this drops table. */
    const struct ct_fskips *k = s->fast ? s->fast->skips : NULL;
    if (k && t->skip_tab != k && holds_open_frame(t, k, d))
        k = NULL;
    if (t->skip_tab != k) {
        flush_skips(t, f);
        t->skip_counts = f->skipped;
        t->skip_state = f->state;
        t->skip_tab = k;
    }
    f->saved[d] = f->sc;
    f->state[d] = FS_HIDDEN;
    if (off) {
        f->fl[d] = 0;
        return 1;
    }
    int how = decide(t, f, s, fn, d);
    if (how == FD_DROP)
        return 1;
    if (how == FD_WEAK) {
        f->fl[d] |= FF_WEAK;
        make_pending(t, f, d, site, UINT64_MAX, f->why[d]);
        return 1;
    }
    uint32_t why;
    uint64_t fmin = least_duration(f, s, &why);
    /* With a :caller rule every frame waits, and only the paths to a
     * :caller function are kept (uftrace's -C): the others never last
     * long enough. */
    if ((s->spec.have_acts & CT_FACT_CALLER) && !(f->fl[d] & FF_CALLER)) {
        f->fl[d] |= FF_PATH;
        fmin = UINT64_MAX;
        why = CT_DROP_CALLER;
    }
    if (fmin || (f->fl[d] & FF_CALLER)) {
        make_pending(t, f, d, site, fmin, why);
        return 1;
    }
    /* Written now: the pending frames below it go first. */
    if (f->npending)
        write_pending_bt(t, f, d, !!(f->fl[d] & FF_BACKTRACE));
    f->state[d] = FS_WRITTEN;
    return 0;
}

/* A :finish function returned: nothing more is recorded, in any thread
 * (uftrace's finish trigger; it stops at the entry instead). */
static void finish_if(const struct fthread *f, uint32_t d)
{
    if (f->fl[d] & FF_FINISH) {
        __atomic_store_n(&finished, 1, __ATOMIC_RELAXED);
        flags_update(__atomic_load_n(&current, __ATOMIC_ACQUIRE));
    }
}

int ct_filter_pop(struct ct_thread *t, uint32_t d)
{
    struct fthread *f = t->filter;
    /* A frame of the fast path changed no scope (filter_fast.c). */
    if (d >= ct_frames_kept(t) || f->state[d] == FS_FAST)
        return 0;
    f->sc = f->saved[d];
    /* A frame the fast path entered has no hidden bit: its state here
     * is an older frame's. */
    if (f->state[d] != FS_PENDING || !(t->hidden[d / 64] >> (d % 64) & 1)) {
        if (f->state[d] == FS_WRITTEN)
            finish_if(f, d);
        return 0;
    }
    f->state[d] = FS_HIDDEN;
    f->npending--;
    set_hidden(t, d, 0);
    uint64_t now = ct_now();
    int keep = (f->fl[d] & FF_TRACE) ||
               (f->fmin[d] != UINT64_MAX && now - f->ticks[d] >= f->fmin[d]);
    if (!keep) {
        count_drop(t, f, ct_frame_fn(t, d), f->why[d]);
        return 1;
    }
    size_t need = ((size_t)f->npending + 2) * CT_REC_MAX_HOT + ct_fheld_room(f);
    if (ct_thread_room_left(t) < need)
        ct_thread_room(t, need);
    write_pending_bt(t, f, d,
                     !!(f->fl[d] & (FF_BACKTRACE | FF_CALLER)));
    finish_if(f, d);
    if (put_entry(t, f->ticks[d], ct_frame_fn(t, d), f->site[d]) != 0)
        return 1;
    ct_fheld_write(t, f, d);  /* its ARGS and RETVAL, before its exit */
    if (ct_thread_room_left(t) >= CT_REC_MAX_HOT)
        t->pos = ct_enc_exit(t->pos, ct_tick_delta(t, now));
    else
        ct_thread_count_lost(t, 1);
    return 1;
}

void ct_filter_thread_close(struct ct_thread *t)
{
    struct fthread *f = t->filter;
    if (!f)
        return;
    uint32_t kept = ct_frames_kept(t);
    uint32_t top = t->depth < kept ? t->depth : kept;
    if (f->npending) {
        /* Frames still open: those open for long enough are shown (as
         * never returned), the younger ones counted as short. */
        uint64_t now = ct_now();
        uint32_t upto = 0;
        for (uint32_t i = 0; i < top; i++)
            if (f->state[i] == FS_PENDING &&
                ((f->fl[i] & FF_TRACE) ||
                 (f->fmin[i] != UINT64_MAX &&
                  now - f->ticks[i] >= f->fmin[i])))
                upto = i + 1;
        size_t need = ((size_t)f->npending + 1) * CT_REC_MAX_HOT +
                      ct_fheld_room(f);
        if (ct_thread_room_left(t) < need)
            ct_thread_room(t, need);
        write_pending(t, f, upto);
        for (uint32_t i = upto; i < top && f->npending; i++)
            if (f->state[i] == FS_PENDING) {
                count_drop(t, f, ct_frame_fn(t, i), f->why[i]);
                f->state[i] = FS_HIDDEN;
                f->npending--;
            }
    }
    flush_drops(t, f);
}

void ct_filter_after_fork(struct ct_thread *self)
{
    spec_written = 0;
    struct fthread *f = self ? self->filter : NULL;
    if (f) {
        memset(f->drops, 0, sizeof f->drops);
        memset(f->skipped, 0, sizeof f->skipped);
        f->ndrops = 0;
    }
}

void ct_filter_sync_skips(struct ct_thread *t)
{
    const struct fset *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    const struct ct_fskips *k = s && s->fast ? s->fast->skips : NULL;
    struct fthread *f = t->filter;
    if (!t->skip_tab || t->skip_tab == k || !f)
        return;
    flush_skips(t, f);
    t->skip_tab = NULL;
}

void ct_filter_thread_release(struct ct_thread *t)
{
    t->skip_tab = NULL;
    t->skip_counts = NULL;
    t->skip_state = NULL;
    if (t->filter)
        munmap(t->filter, sizeof(struct fthread));
    t->filter = NULL;
}

int ct_filter_slow_decision(uintptr_t fn, uint32_t d, const struct fscope *sc,
                            int trig_on, int fin, uint32_t *flags,
                            uint32_t *reason)
{
    /* Mapped at the first use, not in .bss: this is for the unit tests,
     * and a 66 KiB thread state there would be every process's address
     * space.  t is count_drop's; its counts never flush. */
    static struct scratch {
        struct fthread f;
        struct ct_thread t;
    } *m;
    const struct fset *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    if (!m)
        m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || !s || d >= CT_MAX_DEPTH)
        return FAST_ASK;
    struct fthread *f = &m->f;
    struct ct_thread *t = &m->t;
    memset(f->drops, 0, sizeof f->drops);
    f->ndrops = 0;
    f->npending = 0;
    f->gen = s->gen;
    f->sc = *sc;
    int old_on = trigger_on, old_fin = finished;
    trigger_on = trig_on;
    finished = fin;
    *flags = flags_now(s);
    int how = decide(t, f, s, fn, d);
    uint32_t why;
    uint64_t fmin = least_duration(f, s, &why);
    trigger_on = old_on;
    finished = old_fin;
    if (how == FD_DROP) {
        for (uint32_t i = 0; i < DROP_CAP; i++)
            if (f->drops[i].count)
                *reason = f->drops[i].reason;
        return FAST_DROP;
    }
    if (how == FD_WRITE && !fmin && !(s->spec.have_acts & CT_FACT_CALLER))
        return FAST_WRITE;
    return FAST_ASK;
}

void ct_filter_add_names(const char *const *names, const uintptr_t *addrs,
                         size_t n)
{
    pthread_mutex_lock(&install_lock);
    struct fset *s = current;
    if (s && s->spec.nrules) {
        struct scan sc = {s, NULL, NULL, 0};
        for (size_t i = 0; i < n; i++)
            scan_symbol(&sc, names[i], addrs[i], 0);
        fast_update(s);
    }
    pthread_mutex_unlock(&install_lock);
}
