/*
 * --tree's output: the queue of lines that wait for their call to be
 * decided, and the lines' format (docs/report-format.md, "--tree").
 *
 * Indentation is two columns a level up to TREE_INDENT_MAX levels; deeper
 * lines keep that indentation and name their level, `(5000) f() {`, so
 * that no line grows with the depth.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/tree_private.h"
#include "analyzer/util.h"

#define TREE_INDENT_MAX 64u

void tq_init(struct tqueue *q, FILE *out, const struct ct_trace_info *info)
{
    memset(q, 0, sizeof *q);
    q->cap = 64;
    q->items = ct_xcalloc(q->cap, sizeof *q->items);
    q->out = out;
    q->info = info;
}

void tq_free(struct tqueue *q)
{
    for (uint64_t s = q->head; s < q->tail; s++) {
        free(tq_at(q, s)->text);
        free(tq_at(q, s)->args);
        free(tq_at(q, s)->ret);
    }
    free(q->items);
    q->items = NULL;
}

static void duration(char *buf, size_t len, double ns)
{
    if (ns < 1e3)
        snprintf(buf, len, "%7.3f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%7.3f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%7.3f ms", ns / 1e6);
    else
        snprintf(buf, len, "%7.3f  s", ns / 1e9);
}

static const char *mark_text(uint8_t mark)
{
    switch (mark) {
    case TM_NEVER: return "never returned";
    case TM_NO_RETURN: return "no return";
    case TM_WINDOW: return "window ends";
    default: return NULL;
    }
}

/* A call is shown as `f()`; a demangled C++ name has its parentheses
 * already: `shapes::area(int, int)`, not `shapes::area(int, int)()`. */
static const char *call_parens(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && name[n - 1] == ')' ? "" : "()";
}

/* The length of a name before its parameter list, which a call's values
 * take the place of (uftrace's `C::C(0x7ff..., 1)` for
 * `C<int>::C(int, char const*)`); the whole name when it has none. */
static int before_params(const char *name)
{
    size_t n = strlen(name);
    static const char *const quals[] = {" const", " volatile", " &&", " &"};
    for (size_t q = 0; q < sizeof quals / sizeof quals[0]; q++) {
        size_t l = strlen(quals[q]);
        if (n > l && !strncmp(name + n - l, quals[q], l)) {
            n -= l;
            q = (size_t)-1;  /* `f() const &`: look again */
        }
    }
    if (n == 0 || name[n - 1] != ')')
        return (int)strlen(name);
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
        if (depth == 0)
            return (int)i;
    }
    return (int)strlen(name);
}

static void print_item(struct tqueue *q, const struct titem *it)
{
    const struct ct_trace_info *info = q->info;
    FILE *out = q->out;
    char dur[48] = "";
    if (it->kind == TI_CLOSE || it->kind == TI_LEAF) {
        duration(dur, sizeof dur, ct_ticks_to_ns(info, it->dur));
        if (q->oncpu) {
            size_t l = strlen(dur);
            dur[l++] = ' ';
            duration(dur + l, sizeof dur - l,
                     ct_ticks_to_ns(info, it->oncpu));
        }
    }
    const struct ct_thread_info *ti =
        it->thread < info->nthreads ? &info->threads[it->thread] : NULL;
    uint64_t tid = ti ? ti->tid : it->thread;
    /* A coroutine's frames: tid:context, their own stack's depth. */
    if (ti && ti->context)
        fprintf(out, "%*s [%6" PRIu64 ":%" PRIu64 "] | ", q->oncpu ? 21 : 10,
                dur, tid, ti->context);
    else
        fprintf(out, "%*s [%6" PRIu64 "] | ", q->oncpu ? 21 : 10, dur, tid);
    if (it->depth < TREE_INDENT_MAX)
        fprintf(out, "%*s", (int)(2 * it->depth), "");
    else
        fprintf(out, "%*s(%" PRIu32 ") ", (int)(2 * TREE_INDENT_MAX), "",
                it->depth);
    const char *name = "";
    if (it->kind != TI_TEXT) {
        name = ct_functab_name(info->funcs, it->func);
        if (!name)
            name = "?";
    }
    const char *mark = mark_text(it->mark);
    /* uftrace's spelling: `f(3, "a") {`, `f(3) = 4;`, `} = 4;` and the
     * name in a comment */
    const char *ret = it->ret ? " = " : "", *rv = it->ret ? it->ret : "";
    int shown = it->args ? before_params(name) : (int)strlen(name);
    const char *open = it->args ? "(" : call_parens(name);
    const char *vals = it->args ? it->args : "";
    const char *close = it->args ? ")" : "";
    switch (it->kind) {
    case TI_OPEN:
        fprintf(out, "%.*s%s%s%s {%s\n", shown, name, open, vals, close,
                it->inherited ? " /* already open */" : "");
        return;
    case TI_LEAF:
        fprintf(out, "%.*s%s%s%s%s%s;", shown, name, open, vals, close, ret,
                rv);
        if (mark)
            fprintf(out, " /* %s */", mark);
        break;
    case TI_CLOSE:
        fprintf(out, "}%s%s%s /* %s%s%s */", ret, rv, it->ret ? ";" : "",
                name, mark ? ": " : "", mark ? mark : "");
        break;
    case TI_TEXT:
        fprintf(out, "/* %s */\n", it->text ? it->text : "");
        return;
    }
    if (it->overhead) {
        char ovh[32];
        duration(ovh, sizeof ovh, ct_ticks_to_ns(info, it->overhead));
        const char *o = ovh;
        while (*o == ' ')
            o++;
        fprintf(out, " [tracer %s]", o);
    }
    fputc('\n', out);
}

static void pop_front(struct tqueue *q)
{
    struct titem *it = tq_at(q, q->head++);
    if (!it->dropped)
        print_item(q, it);
    free(it->text);
    free(it->args);
    free(it->ret);
    it->text = it->args = it->ret = NULL;
}

void tq_drain(struct tqueue *q)
{
    while (q->head < q->tail) {
        struct titem *it = tq_at(q, q->head);
        if (!it->dropped && (it->pending_leaf || it->pending_min))
            return;
        pop_front(q);
    }
}

/* The oldest waiting call is printed open, whatever it turns out to be. */
static void force_front(struct tqueue *q)
{
    struct titem *it = tq_at(q, q->head);
    it->pending_leaf = it->pending_min = false;
    pop_front(q);
    tq_drain(q);
}

void tq_flush(struct tqueue *q)
{
    while (q->head < q->tail)
        force_front(q);
}

uint64_t tq_add(struct tqueue *q, const struct titem *it)
{
    if (q->tail - q->head == q->cap) {
        if (q->cap >= TREE_LOOKAHEAD) {
            force_front(q);
        } else {
            struct titem *old = q->items;
            size_t oldcap = q->cap;
            q->cap *= 2;
            q->items = ct_xcalloc(q->cap, sizeof *q->items);
            for (uint64_t s = q->head; s < q->tail; s++)
                q->items[s & (q->cap - 1)] = old[s & (oldcap - 1)];
            free(old);
        }
    }
    uint64_t seq = q->tail++;
    *tq_at(q, seq) = *it;
    return seq;
}
