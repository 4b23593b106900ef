/* Methods built from a Butcher tableau (osc_method_from_tableau): euler's and rk4's tableaus match
 * the built-in euler and rk4 to round-off (the built-ins are coded with per-lane coefficients),
 * rk4's measures order 4, the kernels match their scalar reference, fma_per_step counts the kernel,
 * and the slots and argument checks hold. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "audit.h"
#include "known_tableaus.h"
#include "method_check.h"
#include "tableau.h"
#include "tableau_internal.h"

static osc_tableau euler_tableau(void) { return (osc_tableau){.stages = 1, .b = {1}, .c = {0}}; }

static osc_tableau heun_tableau(void)
{
    return (osc_tableau){.stages = 2, .a = {{0}, {1}}, .b = {0.5, 0.5}, .c = {0, 1}};
}

static osc_tableau rk4_tableau(void)
{
    return (osc_tableau){.stages = 4,
                         .a = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}},
                         .b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                         .c = {0, 0.5, 0.5, 1}};
}

/* Linear order 4, coefficient order 3 (built in test_tableau.c). */
static osc_tableau linear4_order3_tableau(void)
{
    return (osc_tableau){.stages = 4,
                         .a = {{0}, {1.0 / 3}, {-1.0 / 3, 1}, {0.25, 0, 0.75}},
                         .b = {1.0 / 12, 0.5, 0.25, 1.0 / 6},
                         .c = {0, 1.0 / 3, 2.0 / 3, 1}};
}

static osc_method make(osc_tableau t, const char *name, int order)
{
    osc_method m;
    assert_int_equal(osc_method_from_tableau(&t, name, order, &m), OSC_OK);
    return m;
}

static const osc_method *builtin(const char *name)
{
    const osc_method *m = osc_method_find(name);
    assert_non_null(m);
    return m;
}

static const osc_precision precisions[] = {OSC_DOUBLE, OSC_FLOAT};

/* Euler's tableau against the built-in euler: the same method, coded differently (the built-in
 * takes per-lane coefficients prepared once per block and applies the drag as a decrement, 3
 * FMAs and an add; the tableau kernel applies the tableau as written, 4 FMAs), so the two agree
 * to round-off (roundoff_tol, below), in double and float, 1-3 axes; the tableau's audited
 * kernel leaves the state its plain kernel does, bit for bit, at every ISA level the CPU has. */
static void euler_matches_builtin_at_level(void);
static void test_euler_matches_builtin(void **state)
{
    (void)state;
    check_at_every_level(euler_matches_builtin_at_level);
}

static void euler_matches_builtin_at_level(void)
{
    osc_method tab = make(euler_tableau(), "tableau-euler", 1);
    check_matches(&tab, builtin("euler"), false, 1, true);
    assert_int_equal(osc_tableau_method_release(&tab), OSC_OK);
}

static void test_rk4_matches_builtin(void **state)
{
    (void)state;
    osc_method tab = make(rk4_tableau(), "tableau-rk4", 4);
    assert_int_equal(tab.fma_per_step, builtin("rk4")->fma_per_step);
    check_matches(&tab, builtin("rk4"), false, 2, true);
    /* the tolerance tells maps apart: Heun's (order 2) differs from rk4's far beyond it */
    osc_method heun = make(heun_tableau(), "tableau-heun", 2);
    check_differs(&heun, builtin("rk4"), false);
    assert_int_equal(osc_tableau_method_release(&heun), OSC_OK);
    assert_int_equal(osc_tableau_method_release(&tab), OSC_OK);
}

/* The kernel against the method's own scalar reference (no fma, every coefficient), one lane
 * at a time, for a tableau with no built-in twin; the same tolerance as above. */
static void test_kernel_matches_reference(void **state)
{
    (void)state;
    osc_method tab = make(kutta3(), "tableau-kutta3", 3);
    check_matches_reference(&tab);
    assert_int_equal(osc_tableau_method_release(&tab), OSC_OK);
}

/* ---- measured order (as tests/test_convergence.c measures the built-in methods) ----------- */

/* rk4's tableau measures 4 and euler's 1 (0.15: the next term's share at the largest dt, as for
 * the built-in methods); the method of linear order 4 but coefficient order 3 also measures 4
 * on this linear problem: what the oscillator can and cannot see. */
static void test_measured_orders(void **state)
{
    (void)state;
    const struct { osc_tableau t; int declared, measured; } cases[] = {
        {euler_tableau(), 1, 1},
        {rk4_tableau(), 4, 4},
        {linear4_order3_tableau(), 4, 4},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        osc_method m = make(cases[k].t, "tableau-order", cases[k].declared);
        osc_order_fit f = check_measure_order(&m, 0);
        assert_int_equal(f.status, OSC_FIT_OK);
        if (!(fabs(f.order - cases[k].measured) < 0.15) || !f.pass)
            fail_msg("case %zu: measured %g, expected %d", k, f.order, cases[k].measured);
        assert_int_equal(osc_tableau_method_release(&m), OSC_OK);
    }
}

/* ---- stability theory (the long double reference) ------------------------------------------ */

static osc_stab_theory theory(const osc_method *m, double zeta)
{
    osc_stab_theory t;
    assert_int_equal(osc_stability_theory(m, zeta, &t), OSC_OK);
    return t;
}

/* rk4's tableau: |R(ih)|^2 = 1 - h^6/72 + h^8/576 is 1 again at h = 2 sqrt(2) undamped; at
 * zeta = 1 the eigenvalues are -h (double), and R(-h) = -1 at h = 2.785293563405282 (the root of
 * 1 - h + h^2/2 - h^3/6 + h^4/24 = -1). To 1e-9, as tests/test_stability.c holds the built-in.
 * Heun's tableau undamped: |R(ih)|^2 = 1 + h^4/4, unstable for every h > 0 (NEVER). */
static void test_stability_theory(void **state)
{
    (void)state;
    osc_method rk4 = make(rk4_tableau(), "tableau-rk4", 4), heun = make(heun_tableau(), "h", 2);
    osc_stab_theory t = theory(&rk4, 0);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_true(fabs(t.limit / (2 * sqrt(2)) - 1) < 1e-9);
    t = theory(&rk4, 1);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_true(fabs(t.limit / 2.785293563405282 - 1) < 1e-9);
    t = theory(&heun, 0);
    assert_int_equal(t.kind, OSC_STAB_NEVER);
    assert_int_equal(osc_tableau_method_release(&rk4), OSC_OK);
    assert_int_equal(osc_tableau_method_release(&heun), OSC_OK);
}

/* ---- fma_per_step, slots, argument checks ---------------------------------------------------- */

/* Per stage 2 + 2 nnz(a_i), plus 2 nnz(b): Heun 2 + 4 + 4 = 10, kutta3 (a: 1 + 2 nonzero)
 * 6 + 6 + 6 = 18, a zero b entry (midpoint: b = (0, 1)) not counted: 4 + 2 + 2 = 8. */
static void test_fma_count(void **state)
{
    (void)state;
    osc_method heun = make(heun_tableau(), "h", 2), kutta = make(kutta3(), "k", 3);
    osc_method mid = make((osc_tableau){.stages = 2, .a = {{0}, {0.5}}, .b = {0, 1}, .c = {0, 0.5}},
                          "m", 2);
    assert_int_equal(heun.fma_per_step, 10);
    assert_int_equal(kutta.fma_per_step, 18);
    assert_int_equal(mid.fma_per_step, 8);
    assert_int_equal(heun.force_evals, 2);
    assert_int_equal(kutta.force_evals, 3);
    assert_int_equal(osc_tableau_method_release(&heun), OSC_OK);
    assert_int_equal(osc_tableau_method_release(&kutta), OSC_OK);
    assert_int_equal(osc_tableau_method_release(&mid), OSC_OK);
}

/* fma_per_step is what the kernels execute: the count of the FMAs the kernels run per lane and
 * step, from the nonzero masks they branch on (osc_tableau_kernel_fma), equals the declared
 * number, in both precisions, for tableaus with zero entries in a and b and for 1 and 8 stages
 * (the 8-stage one: 8 forces, 19 of its 28 a entries nonzero, 7 of 8 weights: 16 + 38 + 14 = 68). */
static void test_fma_count_is_executed(void **state)
{
    (void)state;
    osc_tableau eight = {.stages = 8};
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < i; j++)
            eight.a[i][j] = (i + j) % 3 == 0 ? 0 : 0.25 / (1 + i + j), eight.c[i] += eight.a[i][j];
        eight.b[i] = i == 2 ? 0 : 1.0 / 7;
    }
    const osc_tableau ts[] = {
        euler_tableau(), heun_tableau(), kutta3(), rk4_tableau(),
        (osc_tableau){.stages = 2, .a = {{0}, {0.5}}, .b = {0, 1}, .c = {0, 0.5}}, eight};
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
        osc_method m = make(ts[k], "count", 1);
        for (size_t p = 0; p < 2; p++)
            assert_int_equal(osc_tableau_kernel_fma(&m, precisions[p]), m.fma_per_step);
        if (ts[k].stages == 8)
            assert_int_equal(m.fma_per_step, 68);
        assert_int_equal(osc_tableau_method_release(&m), OSC_OK);
    }
    assert_int_equal(osc_tableau_kernel_fma(builtin("rk4"), OSC_DOUBLE), -1);
}

static int make_slot(const char *name, osc_method *out)
{
    const osc_tableau t = rk4_tableau();
    return osc_method_from_tableau(&t, name, 4, out);
}

/* Needs every slot free: a test above that failed before releasing its method fails this too. */
static void test_slots_and_arguments(void **state)
{
    (void)state;
    check_slot_pool(OSC_TABLEAU_METHOD_SLOTS, make_slot, osc_tableau_method_release);
    check_method_names(OSC_TABLEAU_NAME_MAX, make_slot, osc_tableau_method_release);

    osc_tableau t = rk4_tableau();
    osc_method m;
    assert_int_equal(osc_method_from_tableau(NULL, "a", 4, &m), OSC_EINVAL);
    assert_int_equal(osc_method_from_tableau(&t, "a", 0, &m), OSC_EINVAL);
    t.b[0] = 0.5; /* invalid: b sums to 4/3 */
    assert_int_equal(osc_method_from_tableau(&t, "a", 4, &m), OSC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_euler_matches_builtin),
        cmocka_unit_test(test_rk4_matches_builtin),
        cmocka_unit_test(test_kernel_matches_reference),
        cmocka_unit_test(test_measured_orders),
        cmocka_unit_test(test_stability_theory),
        cmocka_unit_test(test_fma_count),
        cmocka_unit_test(test_fma_count_is_executed),
        cmocka_unit_test(test_slots_and_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
