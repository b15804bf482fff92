/* Address to function name, file and line, through libbfd: the maps of
 * a trace's objects over time, and the look-ups in them (the objects'
 * functions are read by symbolize_load.c). */
#include "analyzer/model/symbolize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/model/symbolize_private.h"
#include "analyzer/util.h"

/* From libiberty's demangle.h, which binutils-dev does not install. */
#ifndef DMGL_PARAMS
#define DMGL_PARAMS (1 << 0)
#define DMGL_ANSI (1 << 1)
#endif

/*
 * libbfd 2.40's DWARF line reader drops one buffer per object it reads; in
 * sanitizer builds that would fail every run that resolves file:line.  The
 * hook is read by LeakSanitizer only and ignored elsewhere.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libbfd\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

struct map {
    uint64_t base, start, end;
    struct object *obj;
};

/* One object at one place, and when it was there. */
struct span {
    uint32_t place;         /* index in places                            */
    uint64_t from, until;   /* snapshot times; until UINT64_MAX = still   */
    bool live, seen;
};

/* Bytes of one library-call stub a name entry names. */
#define NAMED_SIZE 16

struct named {
    uint64_t addr, target;
    char *name;
};

struct ct_symbolizer {
    struct named *named;    /* sorted by addr                             */
    size_t nnamed, named_cap;
    struct map *maps;       /* sorted by start, not overlapping           */
    size_t nmaps, maps_cap;
    struct map *places;     /* every (object, base, range) ever loaded    */
    bool *ambiguous;        /* per place: overlaps a different place      */
    size_t nplaces, places_cap;
    struct span *spans;
    size_t nspans, spans_cap;
    bool in_snapshot, generations_known, any_ambiguous;
    uint64_t snapshot_time;
    struct object **objs;
    size_t nobjs, objs_cap;
    uint64_t *libcalls;     /* library calls' functions (CT_MAP_LIBCALLS,
                               named stubs), sorted, unique             */
    size_t nlibcalls, libcalls_cap;
};

struct ct_symbolizer *ct_symbolizer_new(void)
{
    static bool bfd_ready;
    if (!bfd_ready) {
        bfd_init();
        bfd_ready = true;
    }
    return ct_xcalloc(1, sizeof(struct ct_symbolizer));
}

void ct_symbolizer_free(struct ct_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nobjs; i++) {
        struct object *o = s->objs[i];
        free(o->syms);
        free(o->starts);
        free(o->symtab);
        free(o->synth);
        if (o->abfd)
            bfd_close(o->abfd);
        free(o->path);
        free(o);
    }
    for (size_t i = 0; i < s->nnamed; i++)
        free(s->named[i].name);
    free(s->named);
    free(s->libcalls);
    free(s->objs);
    free(s->maps);
    free(s->places);
    free(s->ambiguous);
    free(s->spans);
    free(s);
}

static struct object *find_object(struct ct_symbolizer *s, const char *path,
                                  size_t len, const uint8_t *bid,
                                  size_t bid_len)
{
    for (size_t i = 0; i < s->nobjs; i++)
        if (strlen(s->objs[i]->path) == len &&
            memcmp(s->objs[i]->path, path, len) == 0)
            return s->objs[i];
    struct object *o = ct_xcalloc(1, sizeof *o);
    o->path = ct_xstrndup(path, len);
    if (bid_len > sizeof o->build_id)
        bid_len = sizeof o->build_id;
    if (bid_len)
        memcpy(o->build_id, bid, bid_len);
    o->build_id_len = bid_len;
    ct_grow(&s->objs, &s->objs_cap, s->nobjs, sizeof *s->objs);
    s->objs[s->nobjs++] = o;
    return o;
}

void ct_symbolizer_snapshot_begin(struct ct_symbolizer *s, uint64_t time)
{
    s->in_snapshot = true;
    s->snapshot_time = time;
    for (size_t i = 0; i < s->nspans; i++)
        s->spans[i].seen = false;
}

void ct_symbolizer_snapshot_end(struct ct_symbolizer *s)
{
    for (size_t i = 0; i < s->nspans; i++) {
        struct span *sp = &s->spans[i];
        if (sp->live && !sp->seen) {
            sp->live = false;
            sp->until = s->snapshot_time;
        }
    }
    s->in_snapshot = false;
}

static bool same_place(const struct map *a, const struct map *b)
{
    return a->base == b->base && a->start == b->start && a->end == b->end &&
           a->obj == b->obj;
}

/* Records that the object is at its place now (in the snapshot). */
static void note_place(struct ct_symbolizer *s, struct map m)
{
    s->generations_known = false;
    uint32_t place = UINT32_MAX;
    for (size_t i = 0; i < s->nplaces && place == UINT32_MAX; i++)
        if (same_place(&s->places[i], &m))
            place = (uint32_t)i;
    if (place == UINT32_MAX) {
        ct_grow(&s->places, &s->places_cap, s->nplaces, sizeof *s->places);
        place = (uint32_t)s->nplaces;
        s->places[s->nplaces++] = m;
    }
    for (size_t i = 0; i < s->nspans; i++)
        if (s->spans[i].place == place && s->spans[i].live) {
            s->spans[i].seen = true;
            return;
        }
    ct_grow(&s->spans, &s->spans_cap, s->nspans, sizeof *s->spans);
    s->spans[s->nspans++] = (struct span){
        .place = place, .from = s->in_snapshot ? s->snapshot_time : 0,
        .until = UINT64_MAX, .live = true, .seen = true};
}

/* Places that share addresses with a different place: only their
 * functions need telling apart by time. */
static void find_generations(struct ct_symbolizer *s)
{
    if (s->generations_known)
        return;
    s->generations_known = true;
    free(s->ambiguous);
    s->ambiguous = ct_xcalloc(s->nplaces + 1, sizeof *s->ambiguous);
    s->any_ambiguous = false;
    for (size_t i = 0; i < s->nplaces; i++)
        for (size_t j = i + 1; j < s->nplaces; j++) {
            const struct map *a = &s->places[i], *b = &s->places[j];
            if (a->start < b->end && b->start < a->end) {
                s->ambiguous[i] = s->ambiguous[j] = true;
                s->any_ambiguous = true;
            }
        }
}

bool ct_symbolizer_has_generations(struct ct_symbolizer *s)
{
    find_generations(s);
    return s->any_ambiguous;
}

uint32_t ct_symbolizer_generation(struct ct_symbolizer *s, uint64_t addr,
                                  uint64_t t)
{
    find_generations(s);
    if (!s->any_ambiguous)
        return 0;
    const struct span *at = NULL, *after = NULL, *last = NULL;
    bool involved = false;
    for (size_t i = 0; i < s->nspans; i++) {
        const struct span *sp = &s->spans[i];
        const struct map *m = &s->places[sp->place];
        if (addr < m->start || addr >= m->end)
            continue;
        involved |= s->ambiguous[sp->place];
        if (sp->from <= t && t < sp->until)
            at = sp;
        else if (sp->from > t && (!after || sp->from < after->from))
            after = sp;
        if (!last || sp->from >= last->from)
            last = sp;
    }
    if (!involved)
        return 0;
    const struct span *sp = at ? at : after ? after : last;
    return sp ? sp->place + 1 : 0;
}

void ct_symbolizer_add_map(struct ct_symbolizer *s, uint64_t base,
                           uint64_t start, uint64_t end,
                           const uint8_t *build_id, size_t build_id_len,
                           const char *path, size_t path_len)
{
    if (end <= start || path_len == 0)
        return;
    struct object *obj = find_object(s, path, path_len, build_id,
                                     build_id_len);
    note_place(s, (struct map){base, start, end, obj});
    /* Drop what the new entry overlaps, keep the rest in order. */
    size_t kept = 0, at = 0;
    for (size_t i = 0; i < s->nmaps; i++) {
        struct map *m = &s->maps[i];
        if (m->end > start && m->start < end)
            continue;
        s->maps[kept++] = *m;
        if (m->start < start)
            at = kept;
    }
    s->nmaps = kept;
    ct_grow(&s->maps, &s->maps_cap, s->nmaps, sizeof *s->maps);
    memmove(&s->maps[at + 1], &s->maps[at],
            (s->nmaps - at) * sizeof *s->maps);
    s->maps[at] = (struct map){base, start, end, obj};
    s->nmaps++;
}

void ct_symbolizer_add_name(struct ct_symbolizer *s, uint64_t addr,
                            uint64_t target, const char *name,
                            size_t name_len)
{
    size_t at = 0;
    while (at < s->nnamed && s->named[at].addr < addr)
        at++;
    if (name_len == 0 || (at < s->nnamed && s->named[at].addr == addr))
        return;  /* every MAPS block repeats the names */
    ct_grow(&s->named, &s->named_cap, s->nnamed, sizeof *s->named);
    memmove(&s->named[at + 1], &s->named[at],
            (s->nnamed - at) * sizeof *s->named);
    s->named[at] = (struct named){addr, target, ct_xstrndup(name, name_len)};
    s->nnamed++;
    /* a named stub is a library call's function too */
    ct_symbolizer_add_libcalls(s, &addr, 1);
}

static const struct named *find_named(const struct ct_symbolizer *s,
                                      uint64_t addr)
{
    size_t lo = 0, hi = s->nnamed;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->named[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr - s->named[lo - 1].addr >= NAMED_SIZE)
        return NULL;
    return &s->named[lo - 1];
}

static struct map *find_map(struct ct_symbolizer *s, uint64_t addr)
{
    size_t lo = 0, hi = s->nmaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->maps[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    struct map *m = &s->maps[lo - 1];
    return addr < m->end ? m : NULL;
}

/* The last of the n sorted starts that is <= a, or NULL. */
static const uint64_t *start_before(const uint64_t *v, size_t n, uint64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &v[lo - 1] : NULL;
}

/* The symbol containing ELF address a, or NULL.  Where no symbol holds a
 * (stripped code, static functions without .symtab), an unnamed one at
 * the start of the function from the unwind tables, so that the addresses
 * of one function are one function. */
static const struct sym *find_sym(struct object *o, uint64_t a)
{
    if (!o->opened)
        ct_sym_load_object(o);
    size_t lo = 0, hi = o->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->syms[mid].addr <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct sym *sym = lo ? &o->syms[lo - 1] : NULL;
    if (sym && sym->size && a - sym->addr >= sym->size)
        sym = NULL;
    const uint64_t *fde = start_before(o->starts, o->nstarts, a);
    /* A symbol without a size reaches to the next symbol; an unwind
     * table's start after it ends it sooner. */
    if (fde && (!sym || (!sym->size && *fde > sym->addr))) {
        static __thread struct sym unnamed;
        unnamed = (struct sym){.addr = *fde, .size = 0, .name = NULL};
        return &unnamed;
    }
    return sym;
}

static asection *section_of(bfd *abfd, uint64_t a)
{
    for (asection *sec = abfd->sections; sec; sec = sec->next) {
        uint64_t vma = bfd_section_vma(sec);
        if ((bfd_section_flags(sec) & SEC_ALLOC) && a >= vma &&
            a < vma + bfd_section_size(sec))
            return sec;
    }
    return NULL;
}

/* The map of gen (0: the latest object at addr). */
static struct map *map_of(struct ct_symbolizer *s, uint64_t addr,
                          uint32_t gen)
{
    if (gen && gen <= s->nplaces) {
        struct map *m = &s->places[gen - 1];
        return addr >= m->start && addr < m->end ? m : NULL;
    }
    return find_map(s, addr);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

void ct_symbolizer_add_libcalls(struct ct_symbolizer *s, const uint64_t *addr,
                                size_t n)
{
    /* every MAPS block repeats the list: only what is new is added, and
     * the list sorted again only then */
    size_t known = s->nlibcalls;
    for (size_t i = 0; i < n; i++) {
        if (in_sorted(s->libcalls, known, addr[i]))
            continue;
        ct_grow(&s->libcalls, &s->libcalls_cap, s->nlibcalls,
                sizeof *s->libcalls);
        s->libcalls[s->nlibcalls++] = addr[i];
    }
    if (s->nlibcalls == known)
        return;
    qsort(s->libcalls, s->nlibcalls, sizeof *s->libcalls, cmp_u64);
    size_t k = 0;  /* one copy of each: a block may name one twice */
    for (size_t i = 0; i < s->nlibcalls; i++)
        if (k == 0 || s->libcalls[k - 1] != s->libcalls[i])
            s->libcalls[k++] = s->libcalls[i];
    s->nlibcalls = k;
}

bool ct_symbolizer_is_libcall(void *ctx, uint64_t addr)
{
    const struct ct_symbolizer *s = ctx;
    return in_sorted(s->libcalls, s->nlibcalls, addr);
}

bool ct_symbolizer_func_start(struct ct_symbolizer *s, uint64_t addr,
                              uint64_t *start)
{
    return ct_symbolizer_func_start_gen(s, addr, 0, start);
}

bool ct_symbolizer_func_start_gen(struct ct_symbolizer *s, uint64_t addr,
                                  uint32_t gen, uint64_t *start)
{
    const struct named *nd = find_named(s, addr);
    if (nd) {
        *start = nd->addr;
        return true;
    }
    struct map *m = map_of(s, addr, gen);
    if (!m)
        return false;
    const struct sym *sym = find_sym(m->obj, addr - m->base);
    if (!sym)
        return false;
    *start = sym->addr + m->base;
    return true;
}

/* The library-call mark a name may end in. */
size_t ct_libcall_mark_len(const char *name, size_t len)
{
    static const char *const marks[] = {"@plt", "@dlsym", "@got"};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        size_t n = strlen(marks[i]);
        if (len > n && strcmp(name + len - n, marks[i]) == 0)
            return n;
    }
    return 0;
}

/* --demangle: one setting for the whole run of the command, as a locale
 * is, so every view of it names functions alike. */
static enum ct_demangle demangle_mode = CT_DEMANGLE_FULL;

void ct_symbolizer_set_demangle(enum ct_demangle mode)
{
    demangle_mode = mode;
}

/* A C++ name demangled; a library call's keeps its mark: `operator
 * new(unsigned long)@plt`. */
static char *demangle(bfd *abfd, const char *name)
{
    if (demangle_mode == CT_DEMANGLE_NO)
        return ct_xstrdup(name);
    size_t len = strlen(name);
    size_t mark = ct_libcall_mark_len(name, len);
    char *base = mark ? ct_xstrndup(name, len - mark) : NULL;
    int flags = demangle_mode == CT_DEMANGLE_FULL ? DMGL_PARAMS | DMGL_ANSI
                                                  : DMGL_ANSI;
    char *dem = bfd_demangle(abfd, mark ? base : name, flags);
    char *out;
    if (dem && mark) {
        out = ct_xmalloc(strlen(dem) + mark + 1);
        strcpy(out, dem);
        strcat(out, name + len - mark);
        free(dem);
    } else {
        out = dem ? dem : ct_xstrdup(name);
    }
    free(base);
    return out;
}

bool ct_symbolizer_name_at(void *ctx, uint64_t addr, char *buf, size_t cap)
{
    struct ct_symbolizer *s = ctx;
    struct map *m = find_map(s, addr);
    if (!m || !cap)
        return false;
    const struct sym *sym = find_sym(m->obj, addr - m->base);
    if (!sym || !sym->name || sym->addr + m->base != addr)
        return false;
    char *name = demangle(m->obj->abfd, sym->name);
    snprintf(buf, cap, "%s", name);
    free(name);
    return true;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void ct_symbolizer_resolve(void *ctx, struct ct_func *f)
{
    struct ct_symbolizer *s = ctx;
    const struct named *nd = find_named(s, f->addr);
    if (nd) {
        struct map *tm = find_map(s, nd->target);
        if (!tm)
            tm = find_map(s, f->addr);
        if (tm && !tm->obj->opened)
            ct_sym_load_object(tm->obj);
        f->name = demangle(tm ? tm->obj->abfd : NULL, nd->name);
        f->object = tm ? ct_xstrdup(tm->obj->path) : NULL;
        return;
    }
    struct map *m = map_of(s, f->addr, f->gen);
    if (!m)
        return;
    struct object *o = m->obj;
    uint64_t a = f->addr - m->base;
    const struct sym *sym = find_sym(o, a);
    f->object = ct_xstrdup(o->path);
    if (sym && !sym->name) {
        char buf[64 + 32];
        snprintf(buf, sizeof buf, "%.64s+0x%" PRIx64, base_name(o->path),
                 sym->addr);
        f->name = ct_xstrdup(buf);
        f->unnamed = true;
    } else if (sym) {
        f->name = demangle(o->abfd, sym->name);
    } else {
        char buf[64 + 32];
        snprintf(buf, sizeof buf, "%.64s+0x%" PRIx64, base_name(o->path), a);
        f->name = ct_xstrdup(buf);
        f->unnamed = true;
    }
    if (!o->abfd)
        return;
    asection *sec = section_of(o->abfd, a);
    const char *file = NULL, *func = NULL;
    unsigned line = 0;
    if (sec && bfd_find_nearest_line(o->abfd, sec, o->symtab,
                                     a - bfd_section_vma(sec), &file, &func,
                                     &line) &&
        file) {
        f->file = ct_xstrdup(file);
        f->line = line;
    }
}

bool ct_symbolizer_line(void *ctx, uint64_t pc, char **file, uint32_t *line)
{
    struct ct_symbolizer *s = ctx;
    *file = NULL;
    *line = 0;
    struct map *m = find_map(s, pc);
    if (!m)
        return false;
    struct object *o = m->obj;
    if (!o->opened)
        ct_sym_load_object(o);
    if (!o->abfd)
        return true;
    uint64_t a = pc - m->base;
    asection *sec = section_of(o->abfd, a);
    const char *f = NULL, *func = NULL;
    unsigned l = 0;
    if (!sec || !bfd_find_nearest_line(o->abfd, sec, o->symtab,
                                       a - bfd_section_vma(sec), &f, &func,
                                       &l))
        return true;
    /* Inlined code: walk out to the call in the function itself. */
    const char *of = f, *ofunc = func;
    unsigned ol = l;
    while (bfd_find_inliner_info(o->abfd, &of, &ofunc, &ol)) {
        f = of;
        l = ol;
    }
    if (f) {
        *file = ct_xstrdup(f);
        *line = l;
    }
    return true;
}

size_t ct_symbolizer_nobjects(const struct ct_symbolizer *s)
{
    return s->nobjs;
}

void ct_symbolizer_object(struct ct_symbolizer *s, size_t i,
                          struct ct_object_info *oi)
{
    struct object *o = s->objs[i];
    if (!o->opened)
        ct_sym_load_object(o);
    *oi = (struct ct_object_info){
        .path = o->path,
        .build_id = o->build_id,
        .build_id_len = o->build_id_len,
        .opened = o->abfd != NULL,
        .build_id_differs = o->abfd && o->build_id_differs,
        .symbols = o->abfd ? o->symbols : NULL,
        .lines = o->abfd &&
                 bfd_get_section_by_name(o->abfd, ".debug_line") != NULL,
    };
}
