/* Bias subtraction (--subtract-bias) on traces built by hand, where the
 * right answer is known exactly: each call loses the part of the hooks
 * inside its interval (3 ticks here), its caller the part outside (2 ticks
 * per call it makes); never below zero; what is taken off moves to the
 * overhead, so functions + overhead + unmetered + unknown stays elapsed.
 * docs/analysis.md describes the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "profile_fixture.h"

enum { SELF = 3, CHILD = 2 };

static void init(struct fx *x)
{
    struct ct_profile_opts o = {.subtract_bias = true};
    fx_init_opts(x, &o);
    x->info.bias_ns_per_call = SELF;
    x->info.bias_child_ns = CHILD;
}

static void assert_sum(struct fx *x)
{
    const struct ct_totals *t = &x->p->totals;
    assert_int_equal(t->cpu + t->overhead + t->unmetered + t->unknown,
                     t->elapsed);
}

static void off(struct fx *x, enum ct_ev_kind kind, uint64_t time)
{
    struct ct_event ev = {.kind = kind, .thread = 0, .time = time,
                          .func = CT_FUNC_NONE, .count = 1};
    x->sink->event(x->sink, &ev);
}

static void leaf(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    FX_CALL(&x, 0, 0, "f");
    FX_RET(&x, 0, 10, "f");
    ct_profile_finish(x.p);
    assert_true(x.p->bias_subtracted);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 10 - SELF);
    /* no traced caller: the outer part is unmetered time, left alone */
    assert_int_equal(x.p->totals.overhead, SELF);
    assert_sum(&x);
    fx_free(&x);
}

static void nested(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 10, "f");
    FX_RET(&x, 0, 30, "f");
    FX_CALL(&x, 0, 40, "f");
    FX_RET(&x, 0, 45, "f");
    FX_RET(&x, 0, 100, "main");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "f")->self_ticks, (20 - SELF) + (5 - SELF));
    assert_int_equal(fx_f(&x, "f")->child_ticks, 0);
    assert_int_equal(fx_arc(&x, "main", "f")->child_ticks, 0);
    assert_int_equal(fx_f(&x, "main")->self_ticks, 75 - SELF - 2 * CHILD);
    assert_int_equal(fx_f(&x, "main")->child_ticks, 19);
    assert_int_equal(fx_arc(&x, "main", "f")->self_ticks, 19);
    assert_int_equal(x.p->totals.cpu, 87);
    assert_int_equal(x.p->totals.overhead, 3 * SELF + 2 * CHILD);
    assert_sum(&x);
    fx_free(&x);
}

/* Never below zero: a call shorter than the bias keeps 0. */
static void clamped(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 1, "tiny");
    FX_RET(&x, 0, 3, "tiny");
    FX_RET(&x, 0, 4, "main");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "tiny")->self_ticks, 0);
    /* main had 1 tick when tiny returned: CHILD takes it; then 1 more,
     * which its own SELF takes */
    assert_int_equal(fx_f(&x, "main")->self_ticks, 0);
    assert_int_equal(x.p->totals.overhead, 4);
    assert_sum(&x);
    fx_free(&x);
}

static void recursion(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    FX_CALL(&x, 0, 0, "r");
    FX_CALL(&x, 0, 10, "r");
    FX_CALL(&x, 0, 20, "r");
    FX_RET(&x, 0, 30, "r");
    FX_RET(&x, 0, 40, "r");
    FX_RET(&x, 0, 50, "r");
    ct_profile_finish(x.p);
    /* 10 - 3; (10 - 2) + 10 - 3; the same for the outermost */
    assert_int_equal(fx_f(&x, "r")->self_ticks, 7 + 15 + 15);
    assert_int_equal(fx_f(&x, "r")->child_ticks, 0);
    assert_int_equal(x.p->totals.overhead, 3 * SELF + 2 * CHILD);
    assert_sum(&x);
    fx_free(&x);
}

/* A cycle: a calls b calls a. */
static void cycle(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    FX_CALL(&x, 0, 0, "a");
    FX_CALL(&x, 0, 10, "b");
    FX_CALL(&x, 0, 20, "a");
    FX_RET(&x, 0, 30, "a");
    FX_RET(&x, 0, 40, "b");
    FX_RET(&x, 0, 50, "a");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "a")->self_ticks, (10 - SELF) + (20 - CHILD - SELF));
    assert_int_equal(fx_f(&x, "b")->self_ticks, 20 - CHILD - SELF);
    assert_int_equal(x.p->totals.overhead, 3 * SELF + 2 * CHILD);
    assert_sum(&x);
    fx_free(&x);
}

/* Each thread's calls are its own: a child on one thread does not take
 * from a frame open on another. */
static void threads(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    FX_CALL(&x, 0, 0, "a");
    FX_CALL(&x, 1, 5, "a");
    FX_CALL(&x, 0, 10, "b");
    FX_RET(&x, 0, 20, "b");
    FX_RET(&x, 1, 25, "a");
    FX_RET(&x, 0, 30, "a");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "b")->self_ticks, 10 - SELF);
    assert_int_equal(fx_f(&x, "a")->self_ticks,
                     (20 - CHILD - SELF) + (20 - SELF));
    assert_int_equal(x.p->totals.overhead, 3 * SELF + CHILD);
    assert_sum(&x);
    fx_free(&x);
}

/* Off-CPU time stays off-CPU: the bias is on-CPU work, so what is left of
 * a call is never more off-CPU than it is long. */
static void off_cpu(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    FX_CALL(&x, 0, 0, "f");
    off(&x, CT_EV_OFFCPU_START, 2);
    off(&x, CT_EV_OFFCPU_END, 6);
    FX_RET(&x, 0, 10, "f");
    FX_CALL(&x, 0, 20, "g");
    off(&x, CT_EV_OFFCPU_START, 21);
    off(&x, CT_EV_OFFCPU_END, 29);
    FX_RET(&x, 0, 30, "g");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 10 - SELF);
    assert_int_equal(fx_f(&x, "f")->off_self_ticks, 4);
    assert_int_equal(fx_f(&x, "g")->self_ticks, 10 - SELF);
    assert_int_equal(fx_f(&x, "g")->off_self_ticks, 10 - SELF);
    assert_sum(&x);
    fx_free(&x);
}

/* The tracer's own work (S..E) is overhead already and loses nothing. */
static void overhead_bracket(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    FX_CALL(&x, 0, 0, "main");
    fx_ev(&x, CT_EV_OVERHEAD_START, 0, 10, CT_FUNC_NONE);
    fx_ev(&x, CT_EV_OVERHEAD_END, 0, 20, CT_FUNC_NONE);
    FX_CALL(&x, 0, 30, "f");
    FX_RET(&x, 0, 40, "f");
    FX_RET(&x, 0, 50, "main");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "main")->self_ticks, 30 - CHILD - SELF);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 10 - SELF);
    assert_int_equal(x.p->totals.overhead, 10 + 2 * SELF + CHILD);
    assert_sum(&x);
    fx_free(&x);
}

/* Lost events: calls the profile never saw lose no bias (their hooks'
 * time stays where it fell); the calls seen lose theirs as usual. */
static void lost_events(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    uint32_t st[1] = {fx_fn(&x, "main")};
    FX_CALL(&x, 0, 0, "main");
    struct ct_event lost = {.kind = CT_EV_LOST, .thread = 0, .time = 10,
                            .func = CT_FUNC_NONE, .count = 4};
    x.sink->event(x.sink, &lost);
    fx_stack(&x, CT_EV_STACK, 0, 50, st, 1, 0);
    FX_CALL(&x, 0, 60, "f");
    FX_RET(&x, 0, 70, "f");
    FX_RET(&x, 0, 100, "main");
    ct_profile_finish(x.p);
    assert_int_equal(x.p->counts.lost, 4);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 10 - SELF);
    assert_int_equal(fx_f(&x, "main")->self_ticks, 90 - CHILD - SELF);
    assert_sum(&x);
    fx_free(&x);
}

/* A trace of an older tracer has one figure: all of it off the call. */
static void unsplit(void **state)
{
    (void)state;
    struct fx x;
    init(&x);
    x.info.bias_ns_per_call = 5;
    x.info.bias_child_ns = 0;
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 10, "f");
    FX_RET(&x, 0, 30, "f");
    FX_RET(&x, 0, 40, "main");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 15);
    assert_int_equal(fx_f(&x, "main")->self_ticks, 15);
    assert_sum(&x);
    fx_free(&x);
}

/* A library call's excess over a hooked call is what its stub costs
 * beyond the hooked call's figures, inside the call and in its caller;
 * none without the tracer's figure (an older trace, library calls not
 * recorded), nor below zero in either part. */
static void library_call_excess(void **state)
{
    (void)state;
    struct ct_trace_info info = {0};
    info.bias_ns_per_call = 20;
    info.bias_child_ns = 25;
    assert_true(ct_bias_lib_extra_ns(&info) == 0);
    info.bias_lib_ns = 80;
    info.bias_lib_self_ns = 50;
    assert_true(ct_bias_lib_extra_ns(&info) == 35);
    assert_true(ct_bias_lib_self_extra_ns(&info) == 30);
    assert_true(ct_bias_lib_child_extra_ns(&info) == 5);
    /* each part never below zero */
    info.bias_lib_self_ns = 10;
    assert_true(ct_bias_lib_self_extra_ns(&info) == 0);
    assert_true(ct_bias_lib_child_extra_ns(&info) == 45);
    info.bias_lib_ns = 40;
    info.bias_lib_self_ns = 30;
    assert_true(ct_bias_lib_extra_ns(&info) == 10);  /* inside alone */
}

static bool is_lib(void *ctx, uint64_t addr)
{
    (void)ctx;
    return addr == 0x1000;
}

/* The library-call stub's excess over a hooked call: inside the call
 * and in its caller. */
enum { LSELF = 4, LCHILD = 1 };

/* A fixture whose calls carry the stub's excess, with a library function
 * (*lib, one the reader knows as such) and a hooked one (*hooked). */
static void init_lib(struct fx *x, uint32_t *lib, uint32_t *hooked)
{
    init(x);
    x->info.bias_lib_ns = SELF + CHILD + LSELF + LCHILD;
    x->info.bias_lib_self_ns = SELF + LSELF;
    ct_functab_set_libcall_test(x->info.funcs, is_lib, NULL);
    *lib = ct_functab_intern_addr(x->info.funcs, 0x1000);
    *hooked = ct_functab_intern_addr(x->info.funcs, 0x2000);
}

/* A library call loses the stub's excess on top of the hooked call's
 * figures: inside the call (LSELF) and in its caller (LCHILD); a hooked
 * call beside it does not; still never below zero. */
static void library_call_subtracted(void **state)
{
    (void)state;
    struct fx x;
    uint32_t lib, hooked;
    init_lib(&x, &lib, &hooked);
    assert_true(ct_functab_is_libcall(x.info.funcs, lib));
    assert_false(ct_functab_is_libcall(x.info.funcs, hooked));
    FX_CALL(&x, 0, 0, "main");
    fx_ev(&x, CT_EV_CALL, 0, 10, lib);
    fx_ev(&x, CT_EV_RETURN, 0, 30, lib);
    fx_ev(&x, CT_EV_CALL, 0, 40, hooked);
    fx_ev(&x, CT_EV_RETURN, 0, 60, hooked);
    fx_ev(&x, CT_EV_CALL, 0, 70, lib);
    fx_ev(&x, CT_EV_RETURN, 0, 75, lib);  /* 5 < SELF + LSELF: keeps 0 */
    FX_RET(&x, 0, 100, "main");
    ct_profile_finish(x.p);
    assert_int_equal(x.p->funcs[lib].self_ticks, 20 - SELF - LSELF);
    assert_int_equal(x.p->funcs[hooked].self_ticks, 20 - SELF);
    assert_int_equal(fx_f(&x, "main")->self_ticks,
                     55 - SELF - 3 * CHILD - 2 * LCHILD);
    assert_int_equal(x.p->totals.overhead,
                     3 * SELF + LSELF + 5 + 3 * CHILD + 2 * LCHILD);
    assert_sum(&x);
    fx_free(&x);
}

/* A profile's call path (CT_EV_PATH): count calls, self ticks, its own
 * calls and, of them, library calls. */
static void fx_path(struct fx *x, const uint32_t *stack, uint32_t depth,
                    uint64_t count, uint64_t self, uint64_t kids,
                    uint64_t lib_kids)
{
    struct ct_event ev = {.kind = CT_EV_PATH, .thread = 0, .time = 0,
                          .func = CT_FUNC_NONE, .count = count,
                          .stack = stack, .depth = depth, .path_self = self,
                          .path_kids = kids, .path_lib_kids = lib_kids};
    x->sink->event(x->sink, &ev);
}

/* The same calls as a profile's paths (CALLTRACE_MODE=profile) lose what
 * the trace's calls lose, by the same rule (ct_path_bias beside
 * ct_call_bias): main makes two library calls of 20 and 10 ticks and one
 * hooked call of 20, and keeps 55 of its own. */
static void library_call_paths(void **state)
{
    (void)state;
    struct fx x;
    uint32_t lib, hooked;
    init_lib(&x, &lib, &hooked);
    uint32_t main_fn = fx_fn(&x, "main");
    struct ct_event start = {.kind = CT_EV_STACK, .thread = 0, .time = 0,
                             .func = CT_FUNC_NONE};
    x.sink->event(x.sink, &start);
    const uint32_t p_main[] = {main_fn}, p_lib[] = {main_fn, lib},
                   p_hooked[] = {main_fn, hooked};
    fx_path(&x, p_main, 1, 1, 55, 3, 2);
    fx_path(&x, p_lib, 2, 2, 30, 0, 0);
    fx_path(&x, p_hooked, 2, 1, 20, 0, 0);
    fx_ev(&x, CT_EV_THREAD_END, 0, 105, CT_FUNC_NONE);
    ct_profile_finish(x.p);
    assert_int_equal(x.p->funcs[lib].self_ticks, 30 - 2 * (SELF + LSELF));
    assert_int_equal(x.p->funcs[hooked].self_ticks, 20 - SELF);
    assert_int_equal(x.p->funcs[main_fn].self_ticks,
                     55 - SELF - 3 * CHILD - 2 * LCHILD);
    assert_int_equal(x.p->totals.overhead,
                     4 * SELF + 2 * LSELF + 3 * CHILD + 2 * LCHILD);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leaf),
        cmocka_unit_test(nested),
        cmocka_unit_test(clamped),
        cmocka_unit_test(recursion),
        cmocka_unit_test(cycle),
        cmocka_unit_test(threads),
        cmocka_unit_test(off_cpu),
        cmocka_unit_test(overhead_bracket),
        cmocka_unit_test(lost_events),
        cmocka_unit_test(unsplit),
        cmocka_unit_test(library_call_excess),
        cmocka_unit_test(library_call_subtracted),
        cmocka_unit_test(library_call_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
