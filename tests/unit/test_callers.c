/* --caller (analyzer/model/callers.c): the calls passed on after the
 * marking reading, for trees whose paths to the named function are known
 * by construction: its callers' frames and the call itself, not what it
 * calls, not the calls that lead nowhere; returns matched as the profile
 * matches them; frames open before the data; values of calls left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/model/callers.h"
#include "analyzer/model/functab.h"

/* What the second reading passed on, as text: "+f" a call, "-f" a return
 * ("-?" naming none), "S:a,b" a STACK, "A" values, "U" anything else. */
struct seen {
    struct ct_sink sink;
    const struct ct_trace_info *info;
    char text[512];
};

static const char *name_of(const struct ct_trace_info *info, uint32_t f)
{
    return f == CT_FUNC_NONE ? "?" : ct_functab_name(info->funcs, f);
}

static int record(struct ct_sink *self, const struct ct_event *ev)
{
    struct seen *s = (struct seen *)self;
    size_t n = strlen(s->text);
    char *p = s->text + n;
    size_t room = sizeof s->text - n;
    switch (ev->kind) {
    case CT_EV_CALL:
        snprintf(p, room, "%s+%s", n ? " " : "", name_of(s->info, ev->func));
        break;
    case CT_EV_RETURN:
        snprintf(p, room, "%s-%s", n ? " " : "", name_of(s->info, ev->func));
        break;
    case CT_EV_STACK:
        snprintf(p, room, "%sS:", n ? " " : "");
        for (uint32_t i = 0; i < ev->depth; i++) {
            size_t m = strlen(s->text);
            snprintf(s->text + m, sizeof s->text - m, "%s%s", i ? "," : "",
                     name_of(s->info, ev->stack[i]));
        }
        break;
    case CT_EV_ARGS:
        snprintf(p, room, "%sA", n ? " " : "");
        break;
    default:
        snprintf(p, room, "%sU", n ? " " : "");
        break;
    }
    return 0;
}

/* A script of events: "+f" call, "-f" return, "-" a return naming no
 * function, "S:a,b" frames open before the data, "A" arguments, "U" a
 * user event; "|" starts thread 1. */
static void feed(struct ct_sink *sink, struct ct_trace_info *info,
                 const char *script)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", script);
    uint32_t thread = 0;
    uint64_t time = 0;
    uint32_t stack[16];
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        struct ct_event ev = {.thread = thread, .time = ++time,
                              .func = CT_FUNC_NONE};
        if (strcmp(tok, "|") == 0) {
            thread = 1;
            continue;
        }
        if (tok[0] == '+' || (tok[0] == '-' && tok[1])) {
            ev.kind = tok[0] == '+' ? CT_EV_CALL : CT_EV_RETURN;
            ev.func = ct_functab_intern_name(info->funcs, tok + 1,
                                             strlen(tok + 1));
        } else if (tok[0] == '-') {
            ev.kind = CT_EV_RETURN;
        } else if (tok[0] == 'S') {
            ev.kind = CT_EV_STACK;
            /* "S:a,b,c", by hand: strtok is in use */
            const char *q = tok + 2;
            while (*q) {
                const char *e = strchr(q, ',');
                size_t len = e ? (size_t)(e - q) : strlen(q);
                stack[ev.depth++] = ct_functab_intern_name(info->funcs, q, len);
                q += len + (e != NULL);
            }
            ev.stack = stack;
        } else if (tok[0] == 'A') {
            ev.kind = CT_EV_ARGS;
        } else {
            ev.kind = CT_EV_USER;
        }
        assert_int_equal(sink->event(sink, &ev), 0);
    }
}

/* The events of script passed on by --caller with the names given. */
static void run(const char *script, const char *const *names, size_t n,
                const char *want)
{
    struct ct_trace_info mark_info, info;
    ct_trace_info_init(&mark_info, "t", "calltrace");
    ct_trace_info_init(&info, "t", "calltrace");
    struct ct_callers_filter c;
    ct_callers_init(&c, &mark_info, names, n);
    feed(&c.sink, &mark_info, script);
    struct seen s = {.sink = {record}, .info = &info};
    ct_callers_pass(&c, &s.sink, &info);
    feed(&c.sink, &info, script);
    assert_string_equal(s.text, want);
    ct_callers_free(&c);
    ct_trace_info_free(&mark_info);
    ct_trace_info_free(&info);
}

static const char *const F[] = {"f"};

/* uftrace's t209: -C mem_alloc keeps main, foo and mem_alloc, not malloc
 * below it, nor bar and mem_free beside it. */
static void test_paths(void **state)
{
    (void)state;
    static const char *const M[] = {"mem_alloc"};
    run("+main +foo +mem_alloc +malloc -malloc -mem_alloc +bar +usleep "
        "-usleep -bar +mem_free +free -free -mem_free -foo -main",
        M, 1, "+main +foo +mem_alloc -mem_alloc -foo -main");
}

/* Two paths into f, one sibling leading nowhere, f called again inside
 * itself (left out with the rest of what f calls), f at the top. */
static void test_several(void **state)
{
    (void)state;
    run("+main +a +f +g +f -f -g -f -a +b +c -c -b +d +e +f -f -e -d "
        "-main +f -f",
        F, 1, "+main +a +f -f -a +d +e +f -f -e -d -main +f -f");
    /* two names: each one's paths */
    static const char *const FG[] = {"f", "g"};
    run("+main +a +f -f -a +b +g +h -h -g -b +c -c -main", FG, 2,
        "+main +a +f -f -a +b +g -g -b -main");
    /* no call of the name: nothing at all */
    run("+main +a -a -main", F, 1, "");
}

/* Returns naming no function close the innermost frame; one of a function
 * not open ends every frame and goes on for the views to count. */
static void test_returns(void **state)
{
    (void)state;
    run("+main +a +f - - +b - -", F, 1, "+main +a +f -? -? -?");
    run("+main +a +f -f -zz +x -x", F, 1, "+main +a +f -f -zz");
}

/* Threads apart; values and other events of a call left out go with it. */
static void test_threads_values(void **state)
{
    (void)state;
    run("+main +a A +f A -f U -a +b A U -b -main | +t +f -f -t",
        F, 1, "+main +a A +f A -f U -a U -main +t +f -f -t");
}

/* Frames open before the data (a forked child, a window's start): kept
 * when a call of f is made below them. */
static void test_stack(void **state)
{
    (void)state;
    run("S:main,a +f -f -a +b -b -main", F, 1, "S:main,a +f -f -a -main");
    run("S:main,f,x +y -y -x -f -main", F, 1, "S:main,f -f -main");
    run("S:main,q +r -r -q -main", F, 1, "S:");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_several),
        cmocka_unit_test(test_returns),
        cmocka_unit_test(test_threads_values),
        cmocka_unit_test(test_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
