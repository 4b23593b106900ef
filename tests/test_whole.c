/* whole_in and whole_prefix (harness/common/whole.h): what they take (strtol's base-10 reading,
 * leading blanks and a sign, within the caller's range, both ends included) and what they
 * refuse (nothing, trailing text for whole_in, out of range, overflow), leaving *n untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>

#include "whole.h"

static const long UNTOUCHED = -12345;

static void test_taken(void **state)
{
    (void)state;
    static const struct { const char *s; long lo, hi, want; } taken[] = {
        {"128", 128, 1 << 20, 128},      {"1048576", 128, 1 << 20, 1048576},
        {" 7", 1, 10, 7},                {"+7", 1, 10, 7},
        {"\t 007", 1, 10, 7},            {"-3", -5, 5, -3},
        {"0", 0, INT_MAX, 0},            {"2147483647", 0, INT_MAX, INT_MAX},
    };
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        long n = UNTOUCHED;
        if (!whole_in(taken[i].s, taken[i].lo, taken[i].hi, &n) || n != taken[i].want)
            fail_msg("whole_in('%s', %ld, %ld): not %ld (n = %ld)", taken[i].s, taken[i].lo,
                     taken[i].hi, taken[i].want, n);
    }
}

static void test_refused(void **state)
{
    (void)state;
    static const struct { const char *s; long lo, hi; } refused[] = {
        {"127", 128, 1 << 20},  {"1048577", 128, 1 << 20}, {"", 1, 10},        {"", 0, 10},
        {" ", 1, 10},           {"abc", 1, 10},            {"x", -5, 5},       {"+", 1, 10},
        {"7x", 1, 10},          {"7 ", 1, 10},             {"1e3", 1, 10000},  {"0x10", 0, 100},
        {"-1", 0, 10},          {"99999999999999999999999", 0, LONG_MAX},
        {"-99999999999999999999999", LONG_MIN, 0},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        long n = UNTOUCHED;
        if (whole_in(refused[i].s, refused[i].lo, refused[i].hi, &n) || n != UNTOUCHED)
            fail_msg("whole_in('%s', %ld, %ld) took it (n = %ld)", refused[i].s, refused[i].lo,
                     refused[i].hi, n);
    }
}

/* A list's first count, and where its reading stopped. */
static void test_prefix(void **state)
{
    (void)state;
    long n = UNTOUCHED;
    const char *s = " 4,2";
    assert_ptr_equal(whole_prefix(s, 1, 4096, &n), s + 2);
    assert_int_equal(n, 4);
    n = UNTOUCHED;
    assert_null(whole_prefix("4097,1", 1, 4096, &n));
    assert_null(whole_prefix(",1", 1, 4096, &n));
    assert_int_equal(n, UNTOUCHED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taken),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
