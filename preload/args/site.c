/*
 * CALLTRACE_ARGS for the program's own functions under -finstrument-
 * functions.  The enter hook is called after the function's prologue, when
 * the argument registers hold the hook's own arguments; calltrace record
 * reads where each parameter is at that call from the DWARF (a
 * callee-saved register, or memory from the stack pointer or the frame
 * pointer: frontend/dwarf_site.c) and writes it into the rules as `%rbx`
 * or `%rbp-20`.  Here, in each object that calls the hooks and has a
 * function some rule names, the GOT slot of __cyg_profile_func_enter is
 * pointed at site_tramp.S, which keeps every register as the call left it
 * and comes to ct_site_enter; the call is recorded as the hook records it,
 * then its ARGS record is read from those registers (args.c).  With no
 * rule nothing changes: the hook is called as before, at its cost.
 *
 * The exit hook is called before the return value is in %rax, and no
 * debug information says where it is then; so a rule that keeps it names
 * where the function's return address is at the enter hook's call
 * (`retval%rsp+40`, from the CFI), the return is caught on its way out by
 * the patchable-entry mode's trampoline, and the exit hook of such an
 * object (ct_site_exit) leaves that call's EXIT to it (docs/tracer.md).
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>

#include "preload/args/args.h"
#include "preload/filters/filter.h"
#include "preload/libcalls/plt.h"
#include "preload/patch/patch.h"
#include "preload/tracer.h"

/* site_tramp.S */
void ct_site_enter_tramp(void);

/* Functions with a rule, by address: open addressing, written under
 * site_lock (at start, after a dlopen or a dlclose), read by the hooks
 * without it.  An entry is never taken out, as a reader may be probing
 * past it: the functions of an object dlclose unloaded keep their
 * addresses with rule 0, which a function loaded there later may take. */
#define TABLE_BITS 14
#define TABLE_SIZE (1u << TABLE_BITS)
struct entry {
    uintptr_t fn;   /* published last, with release */
    uint32_t rule;
};
static struct entry *table;
static uint32_t used;
static int full_told;
static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t slot_of(uintptr_t fn)
{
    return (uint32_t)((fn * 0x9e3779b97f4a7c15ull) >> (64 - TABLE_BITS));
}

static uint32_t rule_of(uintptr_t fn)
{
    const struct entry *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    if (!t)
        return 0;
    for (uint32_t i = slot_of(fn), k = 0; k < TABLE_SIZE;
         i = (i + 1) & (TABLE_SIZE - 1), k++) {
        uintptr_t f = __atomic_load_n(&t[i].fn, __ATOMIC_ACQUIRE);
        if (f == fn)
            return t[i].rule;
        if (!f)
            return 0;
    }
    return 0;
}

/* Whether fn has rule now.  Keeps three quarters of the table at most,
 * so that a miss ends soon. */
static int put(uintptr_t fn, uint32_t rule)
{
    uint32_t i = slot_of(fn);
    for (; table[i].fn; i = (i + 1) & (TABLE_SIZE - 1))
        if (table[i].fn == fn) {  /* seen before, or where one was */
            __atomic_store_n(&table[i].rule, rule, __ATOMIC_RELAXED);
            return 1;
        }
    if (used >= TABLE_SIZE / 4 * 3) {
        if (!full_told++)
            ct_message("calltrace: CALLTRACE_ARGS names more than %u of the "
                       "program's functions; the others keep no arguments",
                       TABLE_SIZE / 4 * 3);
        return 0;
    }
    table[i].rule = rule;
    __atomic_store_n(&table[i].fn, fn, __ATOMIC_RELEASE);
    used++;
    return 1;
}

struct scan {
    uint32_t found;
    uint32_t returns;   /* functions whose rule keeps the return value */
    int places_hold;    /* the object is the one the rules' places are of */
};

static void each_function(void *arg, const char *name, uintptr_t addr,
                          uint64_t size)
{
    (void)size;
    struct scan *sc = arg;
    uint32_t rule = ct_args_rule_for(name, 0);
    if (rule && !sc->places_hold && ct_args_site_at(rule))
        rule = 0;  /* another program's places */
    if (rule && put(addr, rule)) {
        sc->found++;
        sc->returns += ct_args_keeps_return(rule);
    }
}

/* Whether the places of the rules record wrote (`at+N`) hold in the
 * object at path: they were read from one file, which CALLTRACE_ARGS_EXE
 * names (device:inode), and hold in it alone; not in a program it
 * executes, whose functions may have the same names.  Without the
 * variable (rules written by hand) they hold everywhere. */
static int places_hold(const char *path)
{
    const char *want = ct_env_get("CALLTRACE_ARGS_EXE");
    struct stat st;
    char id[64];
    if (!want)
        return 1;
    if (stat(path, &st) != 0)
        return 0;
    snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    return strcmp(id, want) == 0;
}

/* An object, at start or after a dlopen: its functions with a rule go in
 * the table, and if it has any, its calls of the enter hook go through
 * the trampoline.  An object seen before finds its functions there. */
static int site_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *name = info->dlpi_name;
    if (!name || !*name)
        name = "/proc/self/exe";
    if (ct_elf_is_loader(name))
        return 0;
    struct scan sc = {0, 0, places_hold(name)};
    if (ct_elf_functions(name, info->dlpi_addr, 1, each_function, &sc) < 0)
        return 0;
    if (sc.returns) {
        /* before any call may take its return */
        __atomic_store_n(&ct_patch_returns_taken, 1, __ATOMIC_RELEASE);
        ct_plt_point_import(info, "__cyg_profile_func_exit",
                            (uintptr_t)ct_site_exit);
    }
    if (sc.found)
        ct_plt_point_import(info, "__cyg_profile_func_enter",
                            (uintptr_t)ct_site_enter_tramp);
    return 0;
}

static void scan_all(void)
{
    if (!ct_args_any())
        return;
    int saved = errno;
    pthread_mutex_lock(&site_lock);
    if (!table) {
        void *m = mmap(NULL, TABLE_SIZE * sizeof *table,
                       PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m != MAP_FAILED)
            __atomic_store_n(&table, (struct entry *)m, __ATOMIC_RELEASE);
    }
    if (table)
        dl_iterate_phdr(site_object, NULL);
    pthread_mutex_unlock(&site_lock);
    errno = saved;
}

void ct_args_site_start(void)
{
    scan_all();
}

void ct_args_site_after_load(void)
{
    scan_all();
}

/* The executable segments of the objects loaded now. */
#define MAX_SEGS 1024
struct segs {
    uintptr_t lo[MAX_SEGS], hi[MAX_SEGS];
    uint32_t n;
    int overflow;
};

static int note_segs(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct segs *sg = arg;
    for (uint16_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        if (sg->n == MAX_SEGS) {
            sg->overflow = 1;
            return 1;
        }
        sg->lo[sg->n] = info->dlpi_addr + ph->p_vaddr;
        sg->hi[sg->n++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    return 0;
}

void ct_args_site_after_unload(void)
{
    if (!__atomic_load_n(&table, __ATOMIC_ACQUIRE))
        return;
    static struct segs sg;  /* under site_lock: off the program's stack */
    pthread_mutex_lock(&site_lock);
    sg.n = 0;
    sg.overflow = 0;
    dl_iterate_phdr(note_segs, &sg);
    for (uint32_t i = 0; i < TABLE_SIZE && !sg.overflow; i++) {
        uintptr_t fn = table[i].fn;
        int there = 0;
        for (uint32_t k = 0; k < sg.n && !there && fn; k++)
            there = fn >= sg.lo[k] && fn < sg.hi[k];
        if (fn && !there)
            __atomic_store_n(&table[i].rule, 0, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&site_lock);
}

uint32_t ct_args_site_rule(uintptr_t fn)
{
    return rule_of(fn);
}

/* From site_tramp.S, in place of the enter hook: a function with no rule
 * is recorded as the hook records it; one with a rule by args.c. */
void ct_site_enter(void *fn, void *site, const struct ct_site_regs *regs)
{
    uint32_t rule = rule_of((uintptr_t)fn);
    if (rule)
        ct_args_site_call(rule, fn, site, regs);
    else
        ct_enter_at(fn, site, regs->gpr[7]);
}

/* In place of the exit hook, in an object with a rule that keeps a return
 * value: the exit of a call whose return was taken is the trampoline's. */
void ct_site_exit(void *fn, void *site)
{
    if (ct_patch_return_taken((uintptr_t)fn, (uintptr_t)site))
        return;
    ct_exit_at(fn, site);
}
