/* The profile model: stack rebuilding, every unmatched case, overhead,
 * recursion, bias, time range, threads, user events and samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "profile_fixture.h"

static void assert_sum(struct fx *x)
{
    const struct ct_totals *t = &x->p->totals;
    assert_int_equal(t->cpu + t->overhead + t->unmetered + t->unknown,
                     t->elapsed);
}

static void nested_calls(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 10, "f");
    FX_RET(&x, 0, 30, "f");
    FX_CALL(&x, 0, 40, "f");
    FX_RET(&x, 0, 45, "f");
    FX_RET(&x, 0, 100, "main");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "main")->self_ticks, 75);
    assert_int_equal(fx_f(&x, "main")->child_ticks, 25);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 25);
    assert_int_equal(fx_f(&x, "f")->calls, 2);
    const struct ct_arc *a = fx_arc(&x, "main", "f");
    assert_non_null(a);
    assert_int_equal(a->count, 2);
    assert_int_equal(a->self_ticks, 25);
    assert_int_equal(a->child_ticks, 0);
    a = fx_arc(&x, NULL, "main");
    assert_int_equal(a->self_ticks, 75);
    assert_int_equal(a->child_ticks, 25);
    assert_int_equal(x.p->totals.cpu, 100);
    assert_int_equal(x.p->totals.elapsed, 100);
    assert_int_equal(x.p->counts.calls, 3);
    assert_int_equal(x.p->counts.unmatched_calls, 0);
    assert_sum(&x);
    fx_free(&x);
}

/* Binary traces pair returns by nesting. */
static void return_without_name_pops(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    FX_CALL(&x, 0, 0, "f");
    FX_CALL(&x, 0, 2, "g");
    FX_POP(&x, 0, 7);
    FX_POP(&x, 0, 9);
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "g")->self_ticks, 5);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 4);
    assert_int_equal(fx_f(&x, "f")->child_ticks, 5);
    assert_int_equal(x.p->counts.open_at_end, 0);
    fx_free(&x);
}

/* R main while g is still open: g's return is missing. */
static void call_without_return(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 10, "g");
    FX_RET(&x, 0, 50, "main");
    ct_profile_finish(x.p);
    assert_int_equal(x.p->counts.unmatched_calls, 1);
    assert_int_equal(x.p->counts.unmatched_returns, 0);
    assert_int_equal(fx_f(&x, "g")->self_ticks, 0);
    assert_int_equal(fx_f(&x, "main")->self_ticks, 10);
    assert_int_equal(x.p->totals.unknown, 40);
    assert_int_equal(x.p->totals.cpu, 10);
    assert_sum(&x);
    fx_free(&x);
}

/* R f with nothing open: f ran since the thread's data began. */
static void return_without_call_empty_stack(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    fx_user(&x, 0, 0, "start");
    FX_RET(&x, 0, 20, "f");
    FX_CALL(&x, 0, 30, "g");
    FX_RET(&x, 0, 40, "g");
    ct_profile_finish(x.p);
    assert_int_equal(x.p->counts.unmatched_returns, 1);
    assert_int_equal(x.p->totals.unknown, 20);
    assert_int_equal(x.p->totals.unmetered, 10);
    assert_int_equal(x.p->totals.cpu, 10);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 0);
    assert_sum(&x);
    fx_free(&x);
}

/* R f with g open: g was called inside f and its return is missing too;
 * the unmetered time before g was in f. */
static void return_without_call_open_stack(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    fx_user(&x, 0, 0, "start");
    FX_CALL(&x, 0, 5, "g");
    FX_RET(&x, 0, 15, "f");
    ct_profile_finish(x.p);
    assert_int_equal(x.p->counts.unmatched_returns, 1);
    assert_int_equal(x.p->counts.unmatched_calls, 1);
    assert_int_equal(x.p->totals.unknown, 15);
    assert_int_equal(x.p->totals.unmetered, 0);
    assert_int_equal(x.p->totals.cpu, 0);
    assert_sum(&x);
    fx_free(&x);
}

/* A block's leading STACK names frames opened before the data. */
static void stack_record_opens_frames(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    uint32_t st[2] = {fx_fn(&x, "main"), fx_fn(&x, "f")};
    fx_stack(&x, CT_EV_STACK, 0, 100, st, 2, 0);
    FX_POP(&x, 0, 110);
    /* the same frames again (next block): nothing changes */
    fx_stack(&x, CT_EV_STACK, 0, 120, st, 1, 0);
    FX_CALL(&x, 0, 130, "g");
    FX_POP(&x, 0, 135);
    FX_POP(&x, 0, 150);
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 10);
    assert_int_equal(fx_f(&x, "f")->calls, 0);
    assert_int_equal(fx_f(&x, "main")->self_ticks, 35);
    assert_int_equal(fx_f(&x, "main")->child_ticks, 15);
    assert_int_equal(fx_arc(&x, "main", "f")->count, 0);
    assert_int_equal(fx_arc(&x, "main", "g")->count, 1);
    assert_int_equal(x.p->totals.elapsed, 50);
    assert_int_equal(x.p->counts.unmatched_calls, 0);
    assert_sum(&x);
    fx_free(&x);
}

static void thread_end_and_end_of_data_close_frames(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    FX_CALL(&x, 0, 0, "f");
    FX_CALL(&x, 0, 10, "g");
    fx_ev(&x, CT_EV_THREAD_END, 0, 20, CT_FUNC_NONE);
    FX_CALL(&x, 1, 5, "h");
    FX_CALL(&x, 1, 8, "h2");
    ct_profile_finish(x.p);
    assert_int_equal(x.p->counts.open_at_end, 4);
    assert_int_equal(fx_f(&x, "g")->self_ticks, 10);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 10);
    assert_int_equal(fx_f(&x, "h")->self_ticks, 3);
    assert_int_equal(fx_f(&x, "h2")->self_ticks, 0);
    assert_int_equal(x.p->totals.elapsed, 23);
    assert_sum(&x);
    fx_free(&x);
}

static void overhead_is_nobodys_time(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    FX_CALL(&x, 0, 0, "f");
    fx_ev(&x, CT_EV_OVERHEAD_START, 0, 10, CT_FUNC_NONE);
    fx_ev(&x, CT_EV_OVERHEAD_END, 0, 30, CT_FUNC_NONE);
    FX_RET(&x, 0, 40, "f");
    fx_ev(&x, CT_EV_OVERHEAD_START, 0, 50, CT_FUNC_NONE);
    fx_ev(&x, CT_EV_OVERHEAD_END, 0, 55, CT_FUNC_NONE);
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 20);
    assert_int_equal(x.p->totals.overhead, 25);
    assert_int_equal(x.p->totals.unmetered, 10);
    assert_int_equal(fx_arc(&x, NULL, "f")->self_ticks, 20);
    assert_sum(&x);
    fx_free(&x);
}

static void direct_recursion_counted_once(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 0, "f");
    FX_CALL(&x, 0, 10, "f");
    FX_CALL(&x, 0, 12, "f");
    FX_CALL(&x, 0, 15, "leaf");
    FX_RET(&x, 0, 19, "leaf");
    FX_RET(&x, 0, 20, "f");
    FX_RET(&x, 0, 25, "f");
    FX_RET(&x, 0, 30, "f");
    FX_RET(&x, 0, 30, "main");
    ct_profile_finish(x.p);
    const struct ct_fstats *f = fx_f(&x, "f");
    assert_int_equal(f->calls, 1);
    assert_int_equal(f->self_calls, 2);
    assert_int_equal(f->self_ticks, 26);
    assert_int_equal(f->child_ticks, 4);
    assert_int_equal(fx_arc(&x, "f", "f")->count, 2);
    assert_int_equal(fx_arc(&x, "f", "f")->self_ticks, 0);
    assert_int_equal(fx_arc(&x, "main", "f")->self_ticks, 26);
    assert_int_equal(fx_arc(&x, "main", "f")->child_ticks, 4);
    assert_int_equal(fx_f(&x, "main")->child_ticks, 30);
    assert_int_equal(x.p->ncycles, 0);
    fx_free(&x);
}

static void bias_moves_to_overhead(void **state)
{
    (void)state;
    struct fx x;
    struct ct_profile_opts o = {.subtract_bias = true};
    ct_trace_info_init(&x.info, "t", "calltrace");
    x.info.ns_per_tick = 1.0;
    x.info.bias_ns_per_call = 5;
    ct_trace_thread(&x.info, 1);
    x.p = ct_profile_new(&x.info, &o);
    x.sink = ct_profile_sink(x.p);
    FX_CALL(&x, 0, 0, "f");
    FX_CALL(&x, 0, 10, "g");
    FX_RET(&x, 0, 30, "g");
    FX_CALL(&x, 0, 31, "tiny");
    FX_RET(&x, 0, 33, "tiny");
    FX_RET(&x, 0, 100, "f");
    ct_profile_finish(x.p);
    assert_true(x.p->bias_subtracted);
    assert_int_equal(fx_f(&x, "g")->self_ticks, 15);
    assert_int_equal(fx_f(&x, "tiny")->self_ticks, 0); /* never below 0 */
    assert_int_equal(fx_f(&x, "f")->self_ticks, 73);
    assert_int_equal(fx_f(&x, "f")->child_ticks, 15);
    assert_int_equal(x.p->totals.overhead, 5 + 2 + 5);
    assert_sum(&x);
    fx_free(&x);
}

static void time_range_clips(void **state)
{
    (void)state;
    struct fx x;
    struct ct_profile_opts o = {.have_range = true, .range_from_ns = 10,
                                .range_to_ns = 40};
    fx_init_opts(&x, &o);
    FX_CALL(&x, 0, 0, "f");
    FX_CALL(&x, 0, 20, "g");
    FX_RET(&x, 0, 30, "g");
    FX_CALL(&x, 0, 50, "h");
    FX_RET(&x, 0, 60, "h");
    FX_RET(&x, 0, 100, "f");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 20);
    assert_int_equal(fx_f(&x, "f")->calls, 0);
    assert_int_equal(fx_f(&x, "g")->self_ticks, 10);
    assert_int_equal(fx_f(&x, "g")->calls, 1);
    assert_int_equal(fx_f(&x, "h")->calls, 0);
    assert_int_equal(x.p->totals.elapsed, 30);
    assert_sum(&x);
    fx_free(&x);
}

static void threads_interleave(void **state)
{
    (void)state;
    struct fx x;
    struct ct_profile_opts o = {.per_thread = true};
    fx_init_opts(&x, &o);
    FX_CALL(&x, 0, 0, "f");
    FX_CALL(&x, 1, 5, "f");
    FX_CALL(&x, 1, 6, "g");
    fx_user(&x, 1, 50, "late");
    FX_RET(&x, 0, 10, "f");
    fx_user(&x, 0, 20, "early");
    FX_RET(&x, 1, 60, "g");
    FX_RET(&x, 1, 65, "f");
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "f")->self_ticks, 10 + 6);
    assert_int_equal(fx_f(&x, "f")->calls, 2);
    assert_int_equal(fx_f(&x, "g")->self_ticks, 54);
    assert_int_equal(x.p->totals.elapsed, 20 + 60);
    assert_int_equal(x.p->nevents, 2);
    assert_string_equal(x.p->events[0].text, "early");
    assert_int_equal(x.p->events[0].func, CT_FUNC_NONE);
    assert_string_equal(x.p->events[1].text, "late");
    assert_int_equal(x.p->events[1].func, fx_fn(&x, "g"));
    assert_int_equal(x.p->nthreads, 2);
    assert_int_equal(x.p->threads[0]->funcs[fx_fn(&x, "f")].self_ticks, 10);
    assert_int_equal(x.p->threads[1]->funcs[fx_fn(&x, "f")].self_ticks, 6);
    assert_int_equal(x.p->threads[1]->totals.elapsed, 60);
    assert_sum(&x);
    fx_free(&x);
}

static void stack_samples(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    x.info.sampled = true;
    x.info.sample_interval_ns = 1000;
    uint32_t leaf = fx_fn(&x, "leaf"), mid = fx_fn(&x, "mid"),
             root = fx_fn(&x, "root");
    uint32_t s1[3] = {leaf, mid, root};
    uint32_t s2[2] = {mid, root};
    uint32_t s3[3] = {mid, mid, root};
    fx_stack(&x, CT_EV_SAMPLE, 0, 1, s1, 3, 2);
    fx_stack(&x, CT_EV_SAMPLE, 0, 2, s2, 2, 1);
    fx_stack(&x, CT_EV_SAMPLE, 0, 3, s3, 3, 1);
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "leaf")->samples_self, 2);
    assert_int_equal(fx_f(&x, "mid")->samples_self, 2);
    assert_int_equal(fx_f(&x, "mid")->samples_total, 4);
    assert_int_equal(fx_f(&x, "root")->samples_total, 4);
    assert_int_equal(fx_f(&x, "leaf")->self_ticks, 2000);
    assert_int_equal(fx_f(&x, "mid")->self_ticks, 2000);
    assert_int_equal(fx_f(&x, "mid")->child_ticks, 2000);
    assert_int_equal(fx_f(&x, "root")->child_ticks, 4000);
    assert_int_equal(fx_arc(&x, "root", "mid")->self_ticks, 2000);
    assert_int_equal(fx_arc(&x, "root", "mid")->child_ticks, 2000);
    assert_int_equal(fx_arc(&x, "mid", "mid")->count, 1);
    assert_int_equal(fx_arc(&x, "mid", "leaf")->self_ticks, 2000);
    assert_int_equal(x.p->totals.cpu, 4000);
    assert_sum(&x);
    fx_free(&x);
}

static void aggregated_samples(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    x.info.sampled = true;
    x.info.sample_runtime_ms = 1.0; /* 10 samples in 1 ms: 100 us each */
    uint32_t a = fx_fn(&x, "a"), b = fx_fn(&x, "b"), c = fx_fn(&x, "c");
    ct_trace_add_sample_count(&x.info, a, 2, 10);
    ct_trace_add_sample_count(&x.info, b, 6, 6);
    ct_trace_add_sample_count(&x.info, c, 2, 2);
    ct_trace_add_sample_arc(&x.info, CT_FUNC_NONE, a, 10);
    ct_trace_add_sample_arc(&x.info, a, b, 4);
    ct_trace_add_sample_arc(&x.info, c, b, 2);
    ct_trace_add_sample_arc(&x.info, a, c, 2);
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "a")->self_ticks, 200000);
    assert_int_equal(fx_f(&x, "a")->child_ticks, 800000);
    assert_int_equal(fx_f(&x, "b")->self_ticks, 600000);
    assert_int_equal(fx_arc(&x, "a", "b")->self_ticks, 400000);
    assert_int_equal(fx_arc(&x, "c", "b")->self_ticks, 200000);
    assert_int_equal(x.p->totals.cpu, 1000000);
    fx_free(&x);
}

/* CALLTRACE_MODE=both: calls timed and stacks sampled in one trace.  The
 * calls give every count and time; the samples stay apart. */
static void samples_apart_from_calls(void **state)
{
    (void)state;
    struct fx x;
    struct ct_profile_opts o = {.per_thread = true};
    fx_init_opts(&x, &o);
    x.info.sampled = true;
    x.info.sample_interval_ns = 1000;
    uint32_t work = fx_fn(&x, "work"), main_ = fx_fn(&x, "main"),
             start = fx_fn(&x, "_start");
    uint32_t stack[3] = {work, main_, start};
    FX_CALL(&x, 0, 0, "main");
    for (uint64_t i = 0; i < 4; i++) {
        FX_CALL(&x, 0, 10 + 100 * i, "work");
        fx_stack(&x, CT_EV_SAMPLE, 0, 50 + 100 * i, stack, 3, 1);
        FX_RET(&x, 0, 90 + 100 * i, "work");
    }
    /* a thread with samples and no calls of its own */
    fx_stack(&x, CT_EV_SAMPLE, 1, 60, stack + 1, 2, 1);
    FX_RET(&x, 0, 400, "main");
    ct_profile_finish(x.p);
    assert_true(x.p->samples_apart);
    assert_int_equal(fx_f(&x, "work")->calls, 4);
    assert_int_equal(fx_f(&x, "work")->self_ticks, 4 * 80);
    assert_int_equal(fx_f(&x, "main")->calls, 1);
    assert_int_equal(fx_f(&x, "main")->self_ticks, 400 - 4 * 80);
    assert_int_equal(fx_f(&x, "_start")->calls, 0);
    assert_int_equal(fx_f(&x, "_start")->self_ticks, 0);
    assert_int_equal(fx_f(&x, "work")->samples_self, 4);
    assert_int_equal(fx_f(&x, "_start")->samples_total, 5);
    assert_int_equal(x.p->totals.cpu, 400);
    assert_int_equal(x.p->totals.elapsed, 400);
    /* arcs only samples made are gone */
    assert_null(fx_arc(&x, "_start", "main"));
    assert_int_equal(fx_arc(&x, "main", "work")->count, 4);
    /* the per-thread profiles follow the whole trace's rule */
    assert_true(x.p->threads[1]->samples_apart);
    assert_int_equal(x.p->threads[1]->totals.cpu, 0);
    assert_int_equal(x.p->threads[1]->narcs, 0);
    assert_sum(&x);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nested_calls),
        cmocka_unit_test(return_without_name_pops),
        cmocka_unit_test(call_without_return),
        cmocka_unit_test(return_without_call_empty_stack),
        cmocka_unit_test(return_without_call_open_stack),
        cmocka_unit_test(stack_record_opens_frames),
        cmocka_unit_test(thread_end_and_end_of_data_close_frames),
        cmocka_unit_test(overhead_is_nobodys_time),
        cmocka_unit_test(direct_recursion_counted_once),
        cmocka_unit_test(bias_moves_to_overhead),
        cmocka_unit_test(time_range_clips),
        cmocka_unit_test(threads_interleave),
        cmocka_unit_test(stack_samples),
        cmocka_unit_test(aggregated_samples),
        cmocka_unit_test(samples_apart_from_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
