/*
 * Where parameters are at the call of the enter hook (dwarf_site.h).
 *
 * The call is found in the function's own code: the first `call rel32`
 * to the hook's PLT entry, or `call *disp32(%rip)` through its GOT slot
 * (-fno-plt), both known from the file's relocations.  A parameter's
 * DWARF location at that address then says where it is: a register, or
 * memory from a register and an offset (DW_OP_bregN, or DW_OP_fbreg from
 * the frame base, itself often the call frame address that the CFI gives
 * as a register and an offset).  Anything else (a value computed from its
 * entry value, pieces, an expression) is `%none`: never guessed.
 *
 * A location that is one expression for the whole function (no list, as
 * at -O0) is valid after the prologue.  gcc's -O0 stores the parameters
 * in their slots first and then calls the hook.  clang's -O0 calls the
 * hook first, with the parameters in other slots that no debug
 * information names, and fills theirs after the call; even its line
 * table's prologue_end comes before the call.  So such a location counts
 * only in a unit gcc made (DW_AT_producer); clang's are `%none`.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/dwarf_site.h"
#include "frontend/frontend.h"
#include "settings/args_spec.h"

#define HOOK "__cyg_profile_func_enter"
#define MAX_TARGETS 8

struct ct_fe_site {
    Elf *elf;
    Dwarf_CFI *cfi;                 /* .eh_frame's, else .debug_frame's */
    GElf_Addr slots[MAX_TARGETS];   /* GOT slots of the hook           */
    size_t nslots;
    GElf_Addr plts[MAX_TARGETS];    /* PLT entries that jump through them */
    size_t nplts;
};

static bool in(const GElf_Addr *v, size_t n, GElf_Addr a)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == a)
            return true;
    return false;
}

/* The hook's GOT slots: its JUMP_SLOT and GLOB_DAT relocations. */
static void find_slots(struct ct_fe_site *s)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(s->elf, scn))) {
        GElf_Shdr sh, ssh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
            continue;
        Elf_Scn *symscn = elf_getscn(s->elf, sh.sh_link);
        Elf_Data *rd = elf_getdata(scn, NULL);
        Elf_Data *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
        if (!rd || !sd || !gelf_getshdr(symscn, &ssh) || !sh.sh_entsize)
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Rela r;
            GElf_Sym sym;
            if (!gelf_getrela(rd, (int)i, &r))
                break;
            unsigned type = GELF_R_TYPE(r.r_info);
            if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
                !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
                continue;
            const char *name = elf_strptr(s->elf, ssh.sh_link, sym.st_name);
            if (name && !strcmp(name, HOOK) && s->nslots < MAX_TARGETS)
                s->slots[s->nslots++] = r.r_offset;
        }
    }
}

/* The PLT entries that jump through a slot: `[endbr64] [bnd] jmp
 * *disp32(%rip)` in an executable section, taken from the entry's first
 * byte. */
static void find_plts(struct ct_fe_site *s)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(s->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
            sh.sh_type != SHT_PROGBITS)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size < 6 || d->d_size > (64u << 20))
            continue;
        const uint8_t *b = d->d_buf;
        for (size_t i = 0; i + 6 <= d->d_size; i++) {
            if (b[i] != 0xff || b[i + 1] != 0x25)
                continue;
            int32_t disp;
            memcpy(&disp, b + i + 2, 4);
            GElf_Addr to = sh.sh_addr + i + 6 + (GElf_Addr)(int64_t)disp;
            if (!in(s->slots, s->nslots, to) || s->nplts == MAX_TARGETS)
                continue;
            size_t start = i;
            if (start >= 1 && b[start - 1] == 0xf2)
                start--;
            if (start >= 4 && !memcmp(b + start - 4, "\xf3\x0f\x1e\xfa", 4))
                start -= 4;
            s->plts[s->nplts++] = sh.sh_addr + start;
        }
    }
}

struct ct_fe_site *ct_fe_site_open(Dwarf *dw)
{
    Elf *elf = dwarf_getelf(dw);
    GElf_Ehdr eh;
    if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
        return NULL;
    struct ct_fe_site *s = calloc(1, sizeof *s);
    if (!s)
        exit(CT_FE_FAILED);
    s->elf = elf;
    find_slots(s);
    find_plts(s);
    if (!s->nslots) {
        free(s);
        return NULL;
    }
    s->cfi = dwarf_getcfi_elf(elf);
    if (!s->cfi)
        s->cfi = dwarf_getcfi(dw);
    return s;
}

void ct_fe_site_close(struct ct_fe_site *s)
{
    free(s);  /* the CFI belongs to the Elf and the Dwarf */
}

/* The bytes of the code at [lo, hi), from the section that holds them. */
static const uint8_t *code_at(struct ct_fe_site *s, GElf_Addr lo, GElf_Addr hi)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(s->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
            lo < sh.sh_addr || hi > sh.sh_addr + sh.sh_size)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size != sh.sh_size)
            return NULL;
        return (const uint8_t *)d->d_buf + (lo - sh.sh_addr);
    }
    return NULL;
}

/* The first call of the enter hook in [lo, hi): its address, and the
 * address after it (where the hook returns to). */
static bool hook_call_in(struct ct_fe_site *s, Dwarf_Addr lo, Dwarf_Addr hi,
                         Dwarf_Addr *pc, Dwarf_Addr *after)
{
    if (hi <= lo || hi - lo > (16u << 20))
        return false;
    const uint8_t *b = code_at(s, lo, hi);
    if (!b)
        return false;
    for (Dwarf_Addr i = 0; i + 5 <= hi - lo; i++) {
        int32_t rel;
        if (b[i] == 0xe8) {
            memcpy(&rel, b + i + 1, 4);
            if (in(s->plts, s->nplts, lo + i + 5 + (Dwarf_Addr)(int64_t)rel)) {
                *pc = lo + i;
                *after = lo + i + 5;
                return true;
            }
        } else if (b[i] == 0xff && i + 6 <= hi - lo && b[i + 1] == 0x15) {
            memcpy(&rel, b + i + 2, 4);
            if (in(s->slots, s->nslots, lo + i + 6 + (Dwarf_Addr)(int64_t)rel)) {
                *pc = lo + i;
                *after = lo + i + 6;
                return true;
            }
        }
    }
    return false;
}

/* In fn's code: [DW_AT_low_pc, DW_AT_high_pc), or each range of
 * DW_AT_ranges in turn (gcc -O2 moves a function's cold part elsewhere,
 * and the hook is called in the hot one, which starts at the function's
 * symbol). */
bool ct_fe_site_pc(struct ct_fe_site *s, Dwarf_Die *fn, Dwarf_Addr *pc,
                   Dwarf_Addr *at)
{
    Dwarf_Addr lo, hi, base, after;
    if (dwarf_lowpc(fn, &lo) == 0 && dwarf_highpc(fn, &hi) == 0) {
        if (!hook_call_in(s, lo, hi, pc, &after))
            return false;
        *at = after - lo;
        return true;
    }
    for (ptrdiff_t off = 0; (off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0;)
        if (hook_call_in(s, lo, hi, pc, &after)) {
            *at = after - lo;
            return true;
        }
    return false;
}

/* A register and an offset: an address (or a value, for the frame base). */
struct place {
    int reg;            /* DWARF number, -1: none */
    Dwarf_Sword off;
};

/* A breg operation (DW_OP_bregN or DW_OP_bregx) as a place. */
static bool breg(const Dwarf_Op *op, struct place *p)
{
    if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
        p->reg = op->atom - DW_OP_breg0;
        p->off = (Dwarf_Sword)op->number;
        return true;
    }
    if (op->atom == DW_OP_bregx) {
        p->reg = (int)op->number;
        p->off = (Dwarf_Sword)op->number2;
        return true;
    }
    return false;
}

/* The call frame address at pc, from the CFI. */
static bool cfa_at(struct ct_fe_site *s, Dwarf_Addr pc, struct place *p)
{
    Dwarf_Frame *frame = NULL;
    Dwarf_Op *ops;
    size_t n;
    bool ok = s->cfi && dwarf_cfi_addrframe(s->cfi, pc, &frame) == 0 &&
              dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 &&
              breg(&ops[0], p);
    free(frame);
    return ok;
}

/* The frame base of fn at pc, as a register and an offset. */
static bool frame_base(struct ct_fe_site *s, Dwarf_Die *fn, Dwarf_Addr pc,
                       struct place *p)
{
    Dwarf_Attribute at;
    Dwarf_Op *ops;
    size_t n;
    if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &at) ||
        dwarf_getlocation_addr(&at, pc, &ops, &n, 1) != 1 || n != 1)
        return false;
    if (ops[0].atom == DW_OP_call_frame_cfa)
        return cfa_at(s, pc, p);
    if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
        p->reg = ops[0].atom - DW_OP_reg0;
        p->off = 0;
        return true;
    }
    return breg(&ops[0], p);
}

/* Whether gcc made fn's unit: a location that is one expression for the
 * whole function is then good at the hook's call already (see above). */
static bool by_gcc(Dwarf_Die *fn)
{
    Dwarf_Die cu;
    Dwarf_Attribute at;
    const char *producer = NULL;
    if (dwarf_diecu(fn, &cu, NULL, NULL) &&
        dwarf_attr(&cu, DW_AT_producer, &at))
        producer = dwarf_formstring(&at);
    return producer && !strncmp(producer, "GNU ", 4);
}

static bool mem_reg(int reg)
{
    return reg >= 0 && reg < 16;
}

bool ct_fe_site_return_slot(struct ct_fe_site *s, Dwarf_Addr pc, char *out,
                            size_t cap)
{
    struct place p;
    if (!cfa_at(s, pc, &p) || !mem_reg(p.reg) || p.off < 8 ||
        p.off > (1 << 20))
        return false;
    p.off -= 8;  /* the return address, just below the call frame address */
    snprintf(out, cap, "%%%s+%lld", ct_args_reg_name((unsigned)p.reg),
             (long long)p.off);
    return true;
}

void ct_fe_site_loc(struct ct_fe_site *s, Dwarf_Die *fn, Dwarf_Die *param,
                    Dwarf_Addr pc, bool fp, char *out, size_t cap)
{
    snprintf(out, cap, "%%none");
    Dwarf_Attribute at;
    Dwarf_Op *ops;
    size_t n;
    if (!dwarf_attr(param, DW_AT_location, &at) ||
        dwarf_getlocation_addr(&at, pc, &ops, &n, 1) != 1 || n != 1)
        return;
    unsigned form = dwarf_whatform(&at);
    bool one = form == DW_FORM_exprloc || form == DW_FORM_block ||
               form == DW_FORM_block1 || form == DW_FORM_block2 ||
               form == DW_FORM_block4;
    if (one && !by_gcc(fn))
        return;  /* clang's -O0: the slots are filled after the call */
    const Dwarf_Op *op = &ops[0];
    struct place p = {-1, 0};
    int reg = -1;
    if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
        reg = op->atom - DW_OP_reg0;
    else if (op->atom == DW_OP_regx)
        reg = (int)op->number;
    if (reg >= 0) {
        bool ok = fp ? reg >= CT_REG_XMM0 && reg < CT_REG_COUNT
                     : reg < 16;
        if (ok)
            snprintf(out, cap, "%%%s", ct_args_reg_name((unsigned)reg));
        return;
    }
    if (op->atom == DW_OP_fbreg) {
        if (!frame_base(s, fn, pc, &p))
            return;
        p.off += (Dwarf_Sword)op->number;
    } else if (!breg(op, &p)) {
        return;
    }
    if (!mem_reg(p.reg) || p.off > (1 << 20) || p.off < -(1 << 20))
        return;
    snprintf(out, cap, "%%%s%c%lld", ct_args_reg_name((unsigned)p.reg),
             p.off < 0 ? '-' : '+', (long long)(p.off < 0 ? -p.off : p.off));
}
