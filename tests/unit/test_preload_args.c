/* CALLTRACE_ARGS's parser (settings/args_spec.c): items, formats and
 * widths, the places its errors name, `auto` after the user's rules, and
 * which rule a name matches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "preload/args/args.h"

static struct ct_args_spec *parse_ok(const char *text)
{
    struct ct_args_spec *s = calloc(1, sizeof *s);
    char err[192] = "";
    int rc = ct_args_parse(s, text, err, sizeof err);
    if (rc != 0)
        fail_msg("'%s': %s", text, err);
    return s;
}

static void release(struct ct_args_spec *s)
{
    ct_args_clear(s);
    free(s);
}

static void expect_error(const char *text, const char *want)
{
    struct ct_args_spec *s = calloc(1, sizeof *s);
    char err[192] = "";
    assert_int_equal(ct_args_parse(s, text, err, sizeof err), -1);
    assert_string_equal(err, want);
    assert_int_equal(s->nrules, 0);
    release(s);
}

static void test_items(void **state)
{
    (void)state;
    struct ct_args_spec *s =
        parse_ok("parse@arg1/i32,arg2/s,retval;send*@arg3/x,fparg1/f32,"
                 "arg8/u16,arg2/s128,arg4/c,arg5/p,arg6;x@retval/f");
    assert_int_equal(s->nrules, 3);
    const struct ct_args_rule *r = &s->rules[0];
    assert_string_equal(r->pattern, "parse");
    assert_int_equal(r->nitems, 2);
    assert_int_equal(r->items[0].src, CT_ARG_INT);
    assert_int_equal(r->items[0].index, 1);
    assert_int_equal(r->items[0].fmt, CT_FMT_SIGNED);
    assert_int_equal(r->items[0].width, 4);
    assert_int_equal(r->items[1].fmt, CT_FMT_STR);
    assert_int_equal(r->items[1].strmax, CT_ARGS_STR_DEFAULT);
    assert_true(r->has_ret);
    assert_int_equal(r->ret.fmt, CT_FMT_AUTO);
    r = &s->rules[1];
    assert_string_equal(r->pattern, "send*");
    assert_int_equal(r->nitems, 7);
    assert_int_equal(r->items[0].fmt, CT_FMT_HEX);
    assert_int_equal(r->items[0].width, 8);
    assert_int_equal(r->items[1].src, CT_ARG_FP);
    assert_int_equal(r->items[1].width, 4);
    assert_int_equal(r->items[2].fmt, CT_FMT_UNSIGNED);
    assert_int_equal(r->items[2].width, 2);
    assert_int_equal(r->items[2].index, 8);
    assert_int_equal(r->items[3].strmax, 128);
    assert_int_equal(r->items[4].fmt, CT_FMT_CHAR);
    assert_int_equal(r->items[5].fmt, CT_FMT_PTR);
    assert_int_equal(r->items[6].fmt, CT_FMT_AUTO);
    assert_false(r->has_ret);
    r = &s->rules[2];
    assert_int_equal(r->nitems, 0);
    assert_int_equal(r->ret.fmt, CT_FMT_FLOAT);
    release(s);
}

/* Where a value is (`%loc`): a register, memory from one, nowhere; the
 * hooks' rules that calltrace record writes (frontend/dwarf_site.c). */
static void test_locations(void **state)
{
    (void)state;
    struct ct_args_spec *s = parse_ok(
        "f@arg1/i32%rbx,fparg2/f32%xmm1,arg3/s%rbp-20,arg4%none,"
        "arg5/u8%rsp+8,arg6%r15,arg7/c%r12-0,fparg8%rsp+16,arg9");
    const struct ct_args_rule *r = &s->rules[0];
    assert_int_equal(r->nitems, 9);
    assert_int_equal(r->items[0].loc, CT_LOC_REG);
    assert_int_equal(r->items[0].reg, 3);
    assert_int_equal(r->items[0].width, 4);
    assert_int_equal(r->items[1].loc, CT_LOC_REG);
    assert_int_equal(r->items[1].reg, CT_REG_XMM0 + 1);
    assert_int_equal(r->items[2].loc, CT_LOC_MEM);
    assert_int_equal(r->items[2].reg, 6);
    assert_int_equal(r->items[2].off, -20);
    assert_int_equal(r->items[2].fmt, CT_FMT_STR);
    assert_int_equal(r->items[3].loc, CT_LOC_NONE);
    assert_int_equal(r->items[4].loc, CT_LOC_MEM);
    assert_int_equal(r->items[4].reg, 7);
    assert_int_equal(r->items[4].off, 8);
    assert_int_equal(r->items[5].reg, 15);  /* not r1 and a 5 */
    assert_int_equal(r->items[6].loc, CT_LOC_MEM);
    assert_int_equal(r->items[6].off, 0);
    assert_int_equal(r->items[7].src, CT_ARG_FP);
    assert_int_equal(r->items[7].loc, CT_LOC_MEM);
    assert_int_equal(r->items[8].loc, CT_LOC_ABI);
    for (unsigned i = 0; i < CT_REG_COUNT; i++)
        if (ct_args_reg_name(i))
            assert_int_equal(strlen(ct_args_reg_name(i)) >= 2, 1);
    assert_null(ct_args_reg_name(16));
    assert_null(ct_args_reg_name(CT_REG_COUNT));
    release(s);
    /* the automatic format of a width: `/32` */
    s = parse_ok("g@arg1/32%rbp-4,arg2/8");
    assert_int_equal(s->rules[0].items[0].fmt, CT_FMT_AUTO);
    assert_int_equal(s->rules[0].items[0].width, 4);
    assert_int_equal(s->rules[0].items[0].loc, CT_LOC_MEM);
    assert_int_equal(s->rules[0].items[1].width, 1);
    release(s);
    expect_error("g@arg1/12", "at offset 7: an integer's width is 8, 16, "
                              "32 or 64");
    expect_error("f@arg1%foo", "at offset 7: expected a register (rax ... "
                               "r15, xmm0 ... xmm7), stack+N or none "
                               "after %");
    /* uftrace's %stack+N and %stackN: the caller's Nth slot */
    s = parse_ok("many@arg1/i32%stack+1,arg2%stack7,fparg9/f64%stack+512");
    assert_int_equal(s->rules[0].items[0].loc, CT_LOC_STACK);
    assert_int_equal(s->rules[0].items[0].off, 1);
    assert_int_equal(s->rules[0].items[1].loc, CT_LOC_STACK);
    assert_int_equal(s->rules[0].items[1].off, 7);
    assert_int_equal(s->rules[0].items[2].off, 512);
    release(s);
    expect_error("f@arg1%stack+0", "at offset 7: expected stack+N, N from 1 "
                                   "to 512");
    expect_error("f@arg1%stack+513", "at offset 7: expected stack+N, N from "
                                     "1 to 512");
    expect_error("f@arg1%xmm0", "at offset 11: an integer is read from rax "
                                "... r15, a float from xmm0 ... xmm7");
    expect_error("f@fparg1%rbx", "at offset 12: an integer is read from rax "
                                 "... r15, a float from xmm0 ... xmm7");
    expect_error("f@fparg1%xmm0+8", "at offset 9: expected a register of rax "
                                    "... r15, + or -, and an offset of at "
                                    "most 1048576 bytes");
    expect_error("f@arg1%rbp-", "at offset 7: expected a register of rax ... "
                                "r15, + or -, and an offset of at most "
                                "1048576 bytes");
    expect_error("f@retval%rax", "at offset 12: a return value's place is "
                                 "where the function's return address is "
                                 "(retval%rsp+8)");
    /* at+N: where the hook's call returns into the function */
    s = parse_ok("f@arg1%rbx,at+23;f@arg2%rbp-8,at+99");
    assert_true(s->rules[0].has_at);
    assert_int_equal(s->rules[0].at, 23);
    assert_int_equal(s->rules[0].nitems, 1);
    const struct ct_args_rule *m = ct_args_rule(s, ct_args_match(s, "f", 0));
    assert_int_equal(m->nitems, 2);
    assert_int_equal(m->at, 23);  /* the first rule's */
    release(s);
    expect_error("f@at+x", "at offset 5: expected at+ and a number of bytes");
    s = parse_ok("f@retval/i32%rsp+40");
    assert_true(s->rules[0].has_ret);
    assert_int_equal(s->rules[0].ret.loc, CT_LOC_MEM);
    assert_int_equal(s->rules[0].ret.reg, 7);
    assert_int_equal(s->rules[0].ret.off, 40);
    release(s);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("f@arg1/q", "at offset 7: expected a format: i, u, x, o "
                             "(with 8, 16, 32 or 64), p, c, s (with a "
                             "maximum), f, t (with a size and :name) or "
                             "e:name");
    expect_error("f@arg1/i12", "at offset 8: an integer's width is 8, 16, "
                               "32 or 64");
    expect_error("f@arg0", "at offset 5: expected the argument's number, "
                           "1 to 32");
    expect_error("f@foo", "at offset 2: expected argN, fpargN or retval");
    expect_error("ok@arg1;f", "at offset 9: expected @ and what to keep "
                              "after the name");
    expect_error("@arg1", "at offset 0: expected a function name or glob "
                          "before @");
    expect_error("f@arg1 arg2", "at offset 6: expected , or ; after an item");
    expect_error("f@arg1/s0", "at offset 8: a string's maximum is 1 to 256 "
                              "bytes");
    expect_error("f@fparg1/i", "at offset 10: fpargN is shown as a float (f)");
    expect_error("f@argsx", "at offset 5: expected the argument's number, "
                            "1 to 32");
    expect_error("f@arg1,arg2,arg3,arg4,arg5,arg6,arg7,arg8,arg9,arg10,"
                 "arg11,arg12,arg13,arg14,arg15,arg16,arg17",
                 "at offset 94: more than 16 arguments in one rule");
}

/* A struct by value (`tSIZE:NAME`, uftrace's spelling): its size and
 * name kept in the spec, a name per item even after a merge; octal. */
static void test_structs(void **state)
{
    (void)state;
    struct ct_args_spec *s = parse_ok(
        "foo@arg1/t16:pair,arg3,fparg1/t8:dbl1,arg4/t0:StringRef,retval/t24:C;"
        "foo@arg5/t,arg6/o32;bar@arg1/t11:Option%stack+1");
    const struct ct_args_rule *r = &s->rules[0];
    assert_int_equal(r->items[0].fmt, CT_FMT_STRUCT);
    assert_int_equal(r->items[0].strmax, 16);
    assert_string_equal(ct_args_type_name(s, &r->items[0]), "pair");
    assert_int_equal(r->items[1].fmt, CT_FMT_AUTO);
    assert_int_equal(r->items[2].src, CT_ARG_FP);
    assert_string_equal(ct_args_type_name(s, &r->items[2]), "dbl1");
    assert_int_equal(r->items[3].strmax, 0);
    assert_string_equal(ct_args_type_name(s, &r->items[3]), "StringRef");
    assert_int_equal(r->ret.fmt, CT_FMT_STRUCT);
    assert_string_equal(ct_args_type_name(s, &r->ret), "C");
    assert_false(r->strings);
    /* no size: one byte, shown {...}; no name: "" */
    assert_int_equal(s->rules[1].items[0].strmax, 1);
    assert_string_equal(ct_args_type_name(s, &s->rules[1].items[0]), "");
    assert_int_equal(s->rules[1].items[1].fmt, CT_FMT_OCT);
    assert_int_equal(s->rules[1].items[1].width, 4);
    assert_int_equal(s->rules[2].items[0].loc, CT_LOC_STACK);
    assert_string_equal(ct_args_type_name(s, &s->rules[2].items[0]),
                        "Option");
    const struct ct_args_rule *m = ct_args_rule(s, ct_args_match(s, "foo", 0));
    assert_int_equal(m->nitems, 6);
    assert_string_equal(ct_args_type_name(s, &m->items[3]), "StringRef");
    release(s);
    /* the table gives a file's mode in octal, as uftrace's */
    s = parse_ok("auto");
    m = ct_args_rule(s, ct_args_match(s, "creat", 1));
    assert_int_equal(m->items[1].fmt, CT_FMT_OCT);
    release(s);
    expect_error("f@arg1/t16:", "at offset 11: a struct's name is 1 to 31 "
                                "bytes after t:");
    expect_error("f@arg1/t16:abcdefghijabcdefghijabcdefghij012",
                 "at offset 11: a struct's name is 1 to 31 bytes after t:");
    expect_error("f@arg1/t70000", "at offset 8: a struct's size is at most "
                                  "65535 bytes");
    /* a refused spec gives its names back */
    s = calloc(1, sizeof *s);
    char err[192];
    assert_int_equal(ct_args_parse(s, "f@arg1/t4:abc,arg2/q", err,
                                   sizeof err), -1);
    assert_int_equal(s->names_used, 0);
    free(s);
}

/* `enum NAME{...}` numbered as C numbers it, `e:NAME` items, a value's
 * text: its name, flags joined by |, nothing for a value no name has. */
static void test_enums(void **state)
{
    (void)state;
    struct ct_args_spec *s = parse_ok(
        "enum color{RED,GREEN=5,BLUE=-2,CYAN};enum  mode { M_R = 0x4 , M_W = 2, "
        "M_X=1 };f@arg1/e:color,arg2/e8:mode,retval/e:color");
    assert_int_equal(s->nenums, 2);
    const struct ct_args_rule *r = &s->rules[0];
    assert_int_equal(r->items[0].fmt, CT_FMT_ENUM);
    assert_int_equal(r->items[0].width, 4);
    assert_int_equal(r->items[1].width, 1);
    assert_int_equal(r->ret.fmt, CT_FMT_ENUM);
    char out[32];
    assert_int_equal(ct_args_enum_text(s, &r->items[0], 5, out, sizeof out), 5);
    assert_string_equal(out, "GREEN");
    ct_args_enum_text(s, &r->items[0], -1, out, sizeof out);
    assert_string_equal(out, "CYAN");  /* after BLUE = -2 */
    assert_int_equal(ct_args_enum_text(s, &r->items[0], 7, out, sizeof out), 0);
    assert_int_equal(ct_args_enum_text(s, &r->items[1], 6, out, sizeof out), 7);
    assert_string_equal(out, "M_R|M_W");
    assert_int_equal(ct_args_enum_text(s, &r->items[1], 8, out, sizeof out), 0);
    assert_int_equal(ct_args_enum_text(s, &r->items[1], 6, out, 5), 0);
    release(s);
    /* defined again: the first definition holds */
    s = parse_ok("enum e{A=1};enum e{B=1};f@arg1/e:e");
    assert_int_equal(s->nenums, 1);
    ct_args_enum_text(s, &s->rules[0].items[0], 1, out, sizeof out);
    assert_string_equal(out, "A");
    release(s);
    /* the table's signals */
    s = parse_ok("auto");
    const struct ct_args_rule *k = ct_args_rule(s, ct_args_match(s, "kill", 1));
    ct_args_enum_text(s, &k->items[1], 9, out, sizeof out);
    assert_string_equal(out, "SIGKILL");
    release(s);
    expect_error("f@arg1/e:nope", "at offset 9: e: names no enum defined "
                                  "before it (enum NAME{A=1,B})");
    expect_error("f@arg1/e", "at offset 8: expected e: and the name of an "
                             "enum");
    expect_error("enum {A}", "at offset 5: expected the enum's name after "
                             "enum");
    expect_error("enum x A}", "at offset 7: expected { after the enum's name");
    expect_error("enum x{A=}", "at offset 9: expected a number after =");
    expect_error("enum x{A B}", "at offset 9: expected , or } after an "
                                "enum's value");
    expect_error("enum x{1}", "at offset 7: expected a value's name, or } to "
                              "end the enum");
    expect_error("enum x{A", "at offset 8: expected , or } after an enum's "
                             "value");
}

/* The user's arguments win over the table's, wherever `auto` is
 * written; the table's return value stays where the user gave none
 * (uftrace's t180: `-A calloc@arg2 --auto-args` shows calloc(14) = 0x..). */
static void test_auto(void **state)
{
    (void)state;
    struct ct_args_spec *s = parse_ok("auto;calloc@arg2");
    assert_true(s->nrules > 20);
    uint32_t k = ct_args_match(s, "calloc", 1);
    assert_true(k > CT_ARGS_MAX_RULES);
    const struct ct_args_rule *r = ct_args_rule(s, k);
    assert_int_equal(r->nitems, 1);
    assert_int_equal(r->items[0].index, 2);
    assert_true(r->has_ret);
    assert_int_equal(r->ret.fmt, CT_FMT_PTR);
    k = ct_args_match(s, "pthread_mutex_lock", 1);
    assert_true(k > 1 && k <= s->nrules);
    assert_int_equal(ct_args_rule(s, k)->items[0].fmt, CT_FMT_PTR);
    assert_true(ct_args_rule(s, k)->has_ret);
    assert_int_equal(ct_args_match(s, "no_such_function", 1), 0);
    /* a user's return value wins over the table's too */
    release(s);
    s = parse_ok("malloc@retval/x;auto");
    r = ct_args_rule(s, ct_args_match(s, "malloc", 1));
    assert_int_equal(r->nitems, 1);
    assert_int_equal(r->items[0].fmt, CT_FMT_UNSIGNED);
    assert_int_equal(r->ret.fmt, CT_FMT_HEX);
    release(s);
}

/* Several rules of a function add up, in the order written, an argument
 * named again keeping its first format (uftrace's t065: int_mul(0x4, 3)),
 * and each set of rules is merged once. */
static void test_merge(void **state)
{
    (void)state;
    struct ct_args_spec *s = parse_ok(
        "int_mul@arg2/x;re:^int_@arg1,arg2;int_add@arg1/i32;"
        "re:^int_@retval/i32;x@arg1/s,arg2,arg3,arg4,arg5,arg6,arg7,arg8,arg9;"
        "x@arg10,arg11,arg12,arg13,arg14,arg15,arg16,arg17/s");
    uint32_t mul = ct_args_match(s, "int_mul", 1);
    const struct ct_args_rule *r = ct_args_rule(s, mul);
    assert_int_equal(r->nitems, 2);
    assert_int_equal(r->items[0].index, 2);
    assert_int_equal(r->items[0].fmt, CT_FMT_HEX);
    assert_int_equal(r->items[1].index, 1);
    assert_int_equal(r->items[1].fmt, CT_FMT_AUTO);
    assert_true(r->has_ret);
    assert_int_equal(r->ret.width, 4);
    r = ct_args_rule(s, ct_args_match(s, "int_add", 1));
    assert_int_equal(r->nitems, 2);
    assert_int_equal(r->items[0].fmt, CT_FMT_AUTO);  /* the first: arg1 */
    assert_int_equal(s->nmerged, 2);
    assert_int_equal(ct_args_match(s, "int_mul", 1), mul);
    assert_int_equal(s->nmerged, 2);
    /* int_sub: the two ^int_ rules; a regex matches anywhere */
    r = ct_args_rule(s, ct_args_match(s, "int_sub", 1));
    assert_int_equal(r->nitems, 2);
    assert_true(r->has_ret);
    assert_int_equal(ct_args_match(s, "print_int_", 1), 0);
    /* at most 16 arguments: the 17th, a string, is left out */
    r = ct_args_rule(s, ct_args_match(s, "x", 1));
    assert_int_equal(r->nitems, CT_ARGS_MAX_ITEMS);
    assert_int_equal(r->items[15].index, 16);
    assert_int_equal(r->strings, 1);
    release(s);
}

/* `args`: a mark for calltrace record, which reads the parameters from
 * the program's debug information; the rule's other items stay. */
static void test_dwarf_mark(void **state)
{
    (void)state;
    struct ct_args_spec *s = parse_ok("f@args;g@args,retval/x;h@arg1");
    assert_int_equal(s->nrules, 3);
    assert_true(s->rules[0].from_dwarf);
    assert_int_equal(s->rules[0].nitems, 0);
    assert_true(s->rules[1].from_dwarf);
    assert_true(s->rules[1].has_ret);
    assert_false(s->rules[2].from_dwarf);
    release(s);
}

static void test_regex(void **state)
{
    (void)state;
    struct ct_args_spec *s = parse_ok("re:getenv|atoi@arg1/s;re:^str@arg1");
    assert_int_equal(ct_args_match(s, "getenv", 1), 1);
    assert_int_equal(ct_args_match(s, "atoi", 1), 1);
    assert_int_equal(ct_args_match(s, "my_atoi_fast", 1), 1);
    assert_int_equal(ct_args_match(s, "strlen", 1), 2);
    assert_int_equal(ct_args_match(s, "mystr", 1), 0);
    release(s);
    expect_error("f@arg1;re:a(b@arg1",
                 "at offset 7: 're:a(b': Unmatched ( or \\(");
}

static void test_match(void **state)
{
    (void)state;
    struct ct_args_spec *s = parse_ok("send*@arg1;read@plt@arg2;[ab]x@arg3");
    assert_int_equal(ct_args_match(s, "sendto", 1), 1);
    assert_int_equal(ct_args_match(s, "send", 1), 1);
    assert_int_equal(ct_args_match(s, "read", 1), 2);
    assert_int_equal(ct_args_match(s, "readv", 1), 0);
    assert_int_equal(ct_args_match(s, "bx", 1), 3);
    assert_int_equal(ct_args_match(s, "cx", 1), 0);
    /* read@plt@: library calls only (uftrace's @plt item); the others
     * name a patched function too */
    assert_int_equal(ct_args_match(s, "read", 0), 0);
    assert_int_equal(ct_args_match(s, "send", 0), 1);
    assert_int_equal(ct_args_match(s, "ax", 0), 3);
    release(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_items),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_structs),
        cmocka_unit_test(test_enums),
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_regex),
        cmocka_unit_test(test_dwarf_mark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
