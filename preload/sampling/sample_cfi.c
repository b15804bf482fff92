/*
 * The sampler's fast stack walk.  Nearly every frame of compiled C and C++
 * code has one of a few .eh_frame rules: the caller's stack pointer (the
 * CFA) is rsp or rbp plus a constant, and the return address and rbp are
 * saved at constant offsets from it, or rbp is not saved.  The rule of a
 * pc is read once from its object's .eh_frame (found through
 * .eh_frame_hdr's sorted table) and kept in a cache, so a frame then costs
 * a look-up and two loads from the stack copy.  libunwind's remote walk
 * took about 75-120 ns a frame on the sampler's thread (most of it locking
 * its own cache), half of the sampler's CPU.
 *
 * The walk gives what libunwind's would, or nothing: any frame whose rule
 * is another (an expression, a register rule, a signal frame, a CFA in
 * another register) or whose pc no table covers makes it return 0, and
 * sample_remote.c walks the whole sample with libunwind instead.  Each
 * step follows libunwind's x86-64 unw_step: the first frame's rule is
 * looked up at its pc and a caller's at its return address less one; an
 * undefined return address or rbp ends the walk; a read outside the stack
 * copy ends it where libunwind's accessor would refuse it; a frame that
 * returns to itself at the same CFA ends it.  CALLTRACE_SAMPLE_UNWIND=check
 * walks every sample both ways and counts the differences (tests).
 *
 * Used by the sampler's thread only, under the drain lock and the loader
 * guard (objects cannot go away during a walk).
 */
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/sampling/sample.h"
#include "preload/sampling/sample_cfi.h"

#if defined(__x86_64__)

/* DWARF register numbers */
enum { DW_RBP = 6, DW_RSP = 7, DW_RA = 16 };

/* ---- the objects ----------------------------------------------------- */

/* An executable segment and its object's .eh_frame_hdr. */
struct text {
    uintptr_t lo, hi, hdr;
};
#define MAX_TEXTS 2048
static struct text *g_texts;
static unsigned g_ntexts;
static int (*g_readable)(uintptr_t, size_t);

static int add_texts(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    uintptr_t hdr = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
            hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    if (!hdr)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && g_ntexts < MAX_TEXTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        g_texts[g_ntexts++] = (struct text){lo, lo + ph->p_memsz, hdr};
    }
    return 0;
}

/* ---- the rule cache -------------------------------------------------- */

enum { EMPTY, FOLLOW, END, NEEDS_LIBUNWIND };
struct rule {
    uintptr_t pc;           /* the look-up pc                        */
    uint8_t kind;
    uint8_t cfa_rbp;        /* the CFA is rbp + cfa_off, else rsp +  */
    uint8_t rbp_saved;      /* rbp is at CFA + rbp_off, else kept    */
    int32_t cfa_off, ra_off, rbp_off;
};
#define CACHE_SLOTS 4096u   /* 96 KiB, mapped at the first walk */
static struct rule *g_cache;

void ct_cfi_objects_changed(
    int (*iterate)(int (*)(struct dl_phdr_info *, size_t, void *), void *),
    int (*readable)(uintptr_t addr, size_t len))
{
    if (!g_texts) {
        void *m = mmap(NULL, MAX_TEXTS * sizeof *g_texts +
                                 CACHE_SLOTS * sizeof *g_cache,
                       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (m == MAP_FAILED)
            return;   /* no objects known: every walk is libunwind's */
        g_texts = m;
        g_cache = (struct rule *)(g_texts + MAX_TEXTS);
    }
    g_readable = readable;
    g_ntexts = 0;
    iterate(add_texts, NULL);
    memset(g_cache, 0, CACHE_SLOTS * sizeof *g_cache);
}

/* ---- reading the tables ---------------------------------------------- */

/* A cursor over table bytes already known readable. */
struct in {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t u8(struct in *in)
{
    if (in->p >= in->end) {
        in->bad = 1;
        return 0;
    }
    return *in->p++;
}

static uint64_t fixed(struct in *in, unsigned n)
{
    if ((size_t)(in->end - in->p) < n) {
        in->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    memcpy(&v, in->p, n);   /* little-endian */
    in->p += n;
    return v;
}

static uint64_t uleb(struct in *in)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint64_t b = u8(in);
        if (in->bad || shift > 63) {
            in->bad = 1;
            return 0;
        }
        v |= (b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static int64_t sleb(struct in *in)
{
    uint64_t v = 0, b;
    unsigned shift = 0;
    do {
        b = u8(in);
        if (in->bad || shift > 63) {
            in->bad = 1;
            return 0;
        }
        v |= (b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= ~(uint64_t)0 << shift;
    return (int64_t)v;
}

/* A DW_EH_PE pointer: absolute, pc-relative or relative to base (the
 * header's data); the others mark the input bad. */
static uintptr_t pointer(struct in *in, unsigned enc, uintptr_t base)
{
    uintptr_t at = (uintptr_t)in->p;
    uint64_t v;
    switch (enc & 0x0f) {
    case 0x00: v = fixed(in, 8); break;
    case 0x01: v = uleb(in); break;
    case 0x02: v = fixed(in, 2); break;
    case 0x03: v = fixed(in, 4); break;
    case 0x04: v = fixed(in, 8); break;
    case 0x09: v = (uint64_t)sleb(in); break;
    case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(in, 2); break;
    case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(in, 4); break;
    case 0x0c: v = fixed(in, 8); break;
    default: in->bad = 1; return 0;
    }
    switch (enc & 0x70) {
    case 0x00: return (uintptr_t)v;
    case 0x10: return at + (uintptr_t)v;
    case 0x30: return base + (uintptr_t)v;
    default: in->bad = 1; return 0;
    }
}

/* A CIE or FDE at addr: its body [*body, *end) once the length is read and
 * the whole entry is readable; 0 when it is not. */
static int entry_at(uintptr_t addr, const uint8_t **body, const uint8_t **end)
{
    uint32_t len32;
    if (!g_readable(addr, 4))
        return 0;
    memcpy(&len32, (const void *)addr, 4);
    if (len32 == 0 || len32 >= 0xfffffff0u)   /* none, or 64-bit: not ours */
        return 0;
    if (!g_readable(addr, 4 + (size_t)len32))
        return 0;
    *body = (const uint8_t *)addr + 4;
    *end = *body + len32;
    return 1;
}

/* ---- the rules of a pc ----------------------------------------------- */

/* How a register is found in the caller's frame. */
enum { SAME, UNDEF, AT_CFA, OTHER };
struct row {
    int cfa_reg;            /* DWARF number; -1: an expression */
    int64_t cfa_off;
    uint8_t how[2];         /* rbp, return address */
    int64_t off[2];
};
#define STATES 8            /* DW_CFA_remember_state depth */

struct cie {
    uint64_t code_align;
    int64_t data_align;
    unsigned ra_reg, fde_enc;
    int augmented, signal;
    const uint8_t *insns, *end;
};

static int cie_read(uintptr_t addr, struct cie *c)
{
    const uint8_t *body, *end;
    if (!entry_at(addr, &body, &end))
        return 0;
    struct in in = {body, end, 0};
    if (fixed(&in, 4) != 0)   /* a CIE's id is 0 in .eh_frame */
        return 0;
    unsigned version = (unsigned)u8(&in);
    if (version != 1 && version != 3)
        return 0;
    const char *aug = (const char *)in.p;
    size_t alen = strnlen(aug, (size_t)(end - in.p));
    if (alen == (size_t)(end - in.p))
        return 0;
    in.p += alen + 1;
    c->code_align = uleb(&in);
    c->data_align = sleb(&in);
    c->ra_reg = version == 1 ? (unsigned)u8(&in) : (unsigned)uleb(&in);
    c->fde_enc = 0;
    c->augmented = aug[0] == 'z';
    c->signal = 0;
    if (c->augmented) {
        uint64_t dlen = uleb(&in);
        if (in.bad || dlen > (uint64_t)(end - in.p))
            return 0;
        const uint8_t *after = in.p + dlen;
        for (size_t i = 1; i < alen; i++) {
            switch (aug[i]) {
            case 'R': c->fde_enc = (unsigned)u8(&in); break;
            case 'L': u8(&in); break;
            case 'P': {
                unsigned enc = (unsigned)u8(&in);
                pointer(&in, enc & 0x7f, 0);   /* skipped, not followed */
                break;
            }
            case 'S': c->signal = 1; break;
            default: return 0;
            }
        }
        in.p = after;
    } else if (alen != 0) {
        return 0;
    }
    c->insns = in.p;
    c->end = end;
    return !in.bad && c->ra_reg == DW_RA;
}

/* A factored offset, wrapping as the hardware would (a corrupt table's
 * huge factor is refused later, by the 32-bit range of a rule). */
static int64_t factored(uint64_t v, int64_t factor)
{
    return (int64_t)(v * (uint64_t)factor);
}

static int tracked(uint64_t reg)
{
    return reg == DW_RBP ? 0 : reg == DW_RA ? 1 : -1;
}

/* Runs a CFA program until the location passes pc (CIE's initial
 * instructions: pc 0 runs them all, with loc beyond every pc).  0 when an
 * instruction is one the fast walk does not follow. */
static int run(struct in *in, const struct cie *c, uintptr_t loc, uintptr_t pc,
               struct row *r, const struct row *initial)
{
    struct row saved[STATES];
    unsigned depth = 0;
    while (in->p < in->end) {
        unsigned op = (unsigned)u8(in), low = op & 0x3f;
        uint64_t reg = 0, delta = 0;
        int64_t off = 0;
        int t;
        switch (op >> 6) {
        case 1:   /* DW_CFA_advance_loc */
            delta = low;
            goto advance;
        case 2:   /* DW_CFA_offset */
            reg = low;
            off = factored(uleb(in), c->data_align);
            goto at_cfa;
        case 3:   /* DW_CFA_restore */
            reg = low;
            goto restore;
        }
        switch (op) {
        case 0x00: break;                                   /* nop */
        case 0x02: delta = u8(in); goto advance;
        case 0x03: delta = fixed(in, 2); goto advance;
        case 0x04: delta = fixed(in, 4); goto advance;
        case 0x05: reg = uleb(in); off = factored(uleb(in), c->data_align); goto at_cfa;
        case 0x11: reg = uleb(in); off = factored((uint64_t)sleb(in), c->data_align); goto at_cfa;
        case 0x06: reg = uleb(in); goto restore;
        case 0x07:   /* undefined */
        case 0x08:   /* same value */
            reg = uleb(in);
            if (reg == DW_RSP)
                return 0;
            if ((t = tracked(reg)) >= 0)
                r->how[t] = op == 0x07 ? UNDEF : SAME;
            break;
        case 0x09:   /* register */
            reg = uleb(in);
            uleb(in);
            if (reg == DW_RSP)
                return 0;
            if ((t = tracked(reg)) >= 0)
                r->how[t] = OTHER;
            break;
        case 0x0a:   /* remember_state: the whole row, CFA included */
            if (depth == STATES)
                return 0;
            saved[depth++] = *r;
            break;
        case 0x0b:   /* restore_state */
            if (depth == 0)
                return 0;
            *r = saved[--depth];
            break;
        case 0x0c: r->cfa_reg = (int)uleb(in); r->cfa_off = (int64_t)uleb(in); break;
        case 0x12: r->cfa_reg = (int)uleb(in); r->cfa_off = factored((uint64_t)sleb(in), c->data_align); break;
        case 0x0d: r->cfa_reg = (int)uleb(in); break;
        case 0x0e: r->cfa_off = (int64_t)uleb(in); break;
        case 0x13: r->cfa_off = factored((uint64_t)sleb(in), c->data_align); break;
        case 0x0f: {   /* def_cfa_expression */
            uint64_t n = uleb(in);
            if (n > (uint64_t)(in->end - in->p))
                return 0;
            in->p += n;
            r->cfa_reg = -1;
            break;
        }
        case 0x10:     /* expression */
        case 0x16: {   /* val_expression */
            reg = uleb(in);
            uint64_t n = uleb(in);
            if (n > (uint64_t)(in->end - in->p) || reg == DW_RSP)
                return 0;
            in->p += n;
            if ((t = tracked(reg)) >= 0)
                r->how[t] = OTHER;
            break;
        }
        case 0x14:     /* val_offset */
        case 0x15:     /* val_offset_sf */
            reg = uleb(in);
            if (op == 0x14)
                uleb(in);
            else
                sleb(in);
            if (reg == DW_RSP)
                return 0;
            if ((t = tracked(reg)) >= 0)
                r->how[t] = OTHER;
            break;
        case 0x2e: uleb(in); break;                         /* GNU_args_size */
        case 0x2f:     /* GNU_negative_offset_extended */
            reg = uleb(in);
            off = factored(-uleb(in), c->data_align);
            goto at_cfa;
        default:
            return 0;   /* set_loc, window_save, vendor ones */
        }
        if (in->bad)
            return 0;
        continue;
    advance:
        loc += delta * c->code_align;
        if (loc > pc)
            return !in->bad;
        continue;
    at_cfa:
        if (reg == DW_RSP)
            return 0;
        if ((t = tracked(reg)) >= 0) {
            r->how[t] = AT_CFA;
            r->off[t] = off;
        }
        continue;
    restore:
        if (!initial || reg == DW_RSP)
            return 0;
        if ((t = tracked(reg)) >= 0) {
            r->how[t] = initial->how[t];
            r->off[t] = initial->off[t];
        }
        continue;
    }
    return !in->bad;
}

/* The FDE of pc through its object's .eh_frame_hdr: 0 when none. */
static int fde_of(uintptr_t pc, uintptr_t hdr, struct cie *c,
                  uintptr_t *start, struct in *insns)
{
    if (!g_readable(hdr, 4))
        return 0;
    const uint8_t *h = (const uint8_t *)hdr;
    if (h[0] != 1 || h[3] != 0x3b)   /* datarel sdata4 pairs, sorted */
        return 0;
    struct in in = {h + 4, h + 4 + 16, 0};
    if (!g_readable(hdr, 4 + 16))
        return 0;
    pointer(&in, h[1], hdr);                  /* .eh_frame itself */
    uint64_t count = pointer(&in, h[2], hdr);
    if (in.bad || count == 0 || count > (1u << 24))
        return 0;
    const uint8_t *table = in.p;
    if (!g_readable((uintptr_t)table, (size_t)count * 8))
        return 0;
    /* the last entry starting at or below pc */
    uint64_t lo = 0, hi = count;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        int32_t v;
        memcpy(&v, table + mid * 8, 4);
        if (hdr + (intptr_t)v <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    int32_t fde_rel;
    memcpy(&fde_rel, table + (lo - 1) * 8 + 4, 4);
    uintptr_t fde = hdr + (intptr_t)fde_rel;
    const uint8_t *body, *end;
    if (!entry_at(fde, &body, &end))
        return 0;
    struct in f = {body, end, 0};
    uint32_t cie_rel = (uint32_t)fixed(&f, 4);
    if (f.bad || cie_rel == 0 || !cie_read((uintptr_t)body - cie_rel, c))
        return 0;
    uintptr_t begin = pointer(&f, c->fde_enc, 0);
    uintptr_t range = pointer(&f, c->fde_enc & 0x0f, 0);
    if (c->augmented) {
        uint64_t n = uleb(&f);
        if (f.bad || n > (uint64_t)(f.end - f.p))
            return 0;
        f.p += n;
    }
    if (f.bad || pc < begin || pc - begin >= range)
        return 0;
    *start = begin;
    *insns = f;
    return 1;
}

/* The rule of look-up pc, from its object's tables. */
static void rule_make(uintptr_t pc, struct rule *out)
{
    out->pc = pc;
    out->kind = NEEDS_LIBUNWIND;
    const struct text *t = NULL;
    for (unsigned i = 0; i < g_ntexts; i++)   /* few objects; misses only */
        if (pc >= g_texts[i].lo && pc < g_texts[i].hi)
            t = &g_texts[i];
    struct cie c;
    uintptr_t start;
    struct in insns;
    if (!t || !fde_of(pc, t->hdr, &c, &start, &insns) || c.signal)
        return;
    struct row r = {DW_RSP, 8, {SAME, SAME}, {0, 0}};
    struct in ci = {c.insns, c.end, 0};
    if (!run(&ci, &c, 0, UINTPTR_MAX, &r, NULL))
        return;
    struct row initial = r;
    if (!run(&insns, &c, start, pc, &r, &initial))
        return;
    if (r.how[0] == UNDEF || r.how[1] == UNDEF) {
        out->kind = END;
        return;
    }
    if ((r.cfa_reg != DW_RSP && r.cfa_reg != DW_RBP) || r.how[1] != AT_CFA ||
        (r.how[0] != SAME && r.how[0] != AT_CFA) ||
        r.cfa_off != (int32_t)r.cfa_off || r.off[0] != (int32_t)r.off[0] ||
        r.off[1] != (int32_t)r.off[1])
        return;
    out->kind = FOLLOW;
    out->cfa_rbp = r.cfa_reg == DW_RBP;
    out->cfa_off = (int32_t)r.cfa_off;
    out->ra_off = (int32_t)r.off[1];
    out->rbp_saved = r.how[0] == AT_CFA;
    out->rbp_off = (int32_t)r.off[0];
}

static const struct rule *rule_for(uintptr_t pc)
{
    struct rule *r = &g_cache[((pc >> 1) ^ (pc >> 13)) & (CACHE_SLOTS - 1)];
    if (r->kind == EMPTY || r->pc != pc)
        rule_make(pc, r);
    return r;
}

/* ---- the walk -------------------------------------------------------- */

unsigned ct_cfi_walk(const struct ct_perf_regs *regs, const uint8_t *stack,
                     size_t stack_len, uintptr_t tramp,
                     uintptr_t (*real_return)(const void *, uintptr_t),
                     const void *plt_slot, uintptr_t *pcs, unsigned max,
                     size_t *used)
{
    *used = 0;
    if (!g_cache || max == 0)
        return 0;
    const uintptr_t lo = (uintptr_t)regs->r[7];
    uintptr_t pc = (uintptr_t)regs->r[16], sp = lo, bp = (uintptr_t)regs->r[6];
    int bp_known = 1;   /* read, or still the sample's register */
    int bp_beyond = 0;  /* not read: saved past the copy's end  */
    unsigned n = 0, back = 0;
    pcs[n++] = pc;
    while (n < max) {
        const struct rule *r = rule_for(pc - back);
        if (r->kind == NEEDS_LIBUNWIND)
            return 0;
        if (r->kind == END)
            break;
        if (r->cfa_rbp && !bp_known) {
            /* libunwind's read of rbp fails: its step ends the walk */
            *used = bp_beyond ? SIZE_MAX : *used;
            break;
        }
        uintptr_t cfa = (r->cfa_rbp ? bp : sp) + (intptr_t)r->cfa_off;
        uintptr_t at = cfa + (intptr_t)r->ra_off;
        if (at < lo || at - lo > stack_len || stack_len - (at - lo) < 8) {
            /* outside the copy: the accessor refuses it */
            *used = ct_sample_past_copy(at, lo, stack_len) ? SIZE_MAX : *used;
            break;
        }
        uint64_t ra;
        memcpy(&ra, stack + (at - lo), 8);
        *used = at - lo + 8 > *used ? at - lo + 8 : *used;
        if (r->rbp_saved) {
            uintptr_t b = cfa + (intptr_t)r->rbp_off;
            bp_known = b >= lo && b - lo <= stack_len && stack_len - (b - lo) >= 8;
            bp_beyond = !bp_known && ct_sample_past_copy(b, lo, stack_len);
            if (bp_known) {
                memcpy(&bp, stack + (b - lo), 8);
                *used = b - lo + 8 > *used ? b - lo + 8 : *used;
            }
        }
        if ((uintptr_t)ra == pc && cfa == sp)
            break;   /* no progress: libunwind's bad frame */
        if (ra == 0)
            break;
        if (tramp && (uintptr_t)ra == tramp) {
            uintptr_t real = real_return(plt_slot, cfa);
            if (!real)
                return 0;
            ra = real;
        }
        pcs[n++] = (uintptr_t)ra;
        pc = (uintptr_t)ra;
        sp = cfa;
        back = 1;
    }
    return n;
}

#else /* !__x86_64__ */

void ct_cfi_objects_changed(
    int (*iterate)(int (*)(struct dl_phdr_info *, size_t, void *), void *),
    int (*readable)(uintptr_t addr, size_t len))
{
    (void)iterate, (void)readable;
}

unsigned ct_cfi_walk(const struct ct_perf_regs *regs, const uint8_t *stack,
                     size_t stack_len, uintptr_t tramp,
                     uintptr_t (*real_return)(const void *, uintptr_t),
                     const void *plt_slot, uintptr_t *pcs, unsigned max,
                     size_t *used)
{
    (void)regs, (void)stack, (void)stack_len, (void)tramp, (void)real_return;
    (void)plt_slot, (void)pcs, (void)max;
    *used = 0;
    return 0;
}

#endif
