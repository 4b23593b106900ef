/* Compositions of a built-in method (composition.h): Yoshida's triple jump over velocity Verlet
 * is forest-ruth's map (to round-off), two half steps are the base at half the step (bit for
 * bit), the measured orders follow the base's symmetry, the stability limit is the one of the
 * composed amplification matrices, and every validation error is found and located. */
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
#include "composition.h"
#include "method_check.h"

/* Yoshida's / Forest-Ruth's weights: w1 = 1/(2 - 2^(1/3)), w0 = -2^(1/3)/(2 - 2^(1/3)), given
 * as the symmetric half (w1, w0) -> w1, w0, w1. */
static const double *yoshida(void)
{
    static double w[2];
    w[0] = 1 / (2 - cbrt(2.0)), w[1] = -cbrt(2.0) / (2 - cbrt(2.0));
    return w;
}

/* Suzuki's fractal: (p, p, 1 - 4p) symmetric -> p, p, 1 - 4p, p, p, p = 1/(4 - 4^(1/3)). */
static const double *suzuki(void)
{
    static double w[3];
    w[0] = w[1] = 1 / (4 - cbrt(4.0)), w[2] = 1 - 4 * w[0];
    return w;
}

static const osc_method *builtin(const char *name)
{
    const osc_method *m = osc_method_find(name);
    assert_non_null(m);
    return m;
}

static osc_method make(const char *base, const double *w, int n, bool symmetric, int order)
{
    osc_method m;
    assert_int_equal(osc_method_from_composition(builtin(base), w, n, symmetric, "comp", order, &m),
                     OSC_OK);
    return m;
}

static void release(osc_method *m) { assert_int_equal(osc_composition_method_release(m), OSC_OK); }

static const osc_precision precisions[] = {OSC_DOUBLE, OSC_FLOAT};

/* Without drag forest-ruth is the triple jump of velocity Verlet (forest_ruth.c; its drag
 * factors are exactly 1), and so is the composition over verlet, coded otherwise: forest-ruth
 * in one fused step (17 operations), the composition as three verlet steps with their own lane
 * constants. Per step the two round differently by at most ~18 roundings at the state's scale S
 * (the x and v updates: forest-ruth 3 + 6, three verlet steps 3 x 3; the roundings of the
 * increments are smaller) and the O(u) differences of the substeps' sizes and coefficients
 * (w dt rounded once in double for the composition, per precision for forest-ruth), which is
 * within check_roundoff_tol's 32 u S per step (method_check.c: 64 N u S over N steps). The
 * lanes have gravity 3.5 on the last axis; 1-3 axes, double and float, at every ISA level the
 * CPU has; the audited kernel leaves the state the plain one does, bit for bit. */
static void matches_forest_ruth_at_level(void)
{
    osc_method comp = make("verlet", yoshida(), 2, true, 4);
    check_matches(&comp, builtin("forest-ruth"), true, 1, true);
    /* the tolerance tells maps apart: verlet itself (order 2) differs far beyond it */
    check_differs(builtin("verlet"), builtin("forest-ruth"), true);
    release(&comp);
}

static void test_matches_forest_ruth(void **state)
{
    (void)state;
    check_at_every_level(matches_forest_ruth_at_level);
}

/* Two substeps of weight 1/2 are the base at dt/2 bit for bit (0.5 dt is exact, and the base's
 * kernel is called with it): verlet with drag, and rk4, double and float, 1-3 axes. */
static void test_half_steps_are_the_base(void **state)
{
    (void)state;
    static const double halves[] = {0.5, 0.5};
    static const char *const bases[] = {"verlet", "rk4"};
    static double got[2 * OSC_MAX_DIM * CHECK_LANES], want[2 * OSC_MAX_DIM * CHECK_LANES];
    for (size_t b = 0; b < 2; b++) {
        osc_method comp = make(bases[b], halves, 2, false, 2);
        for (size_t k = 0; k < 2; k++)
            for (int dim = 1; dim <= OSC_MAX_DIM; dim++) {
                check_run_steps(&comp, precisions[k], dim, false, CHECK_DT, CHECK_STEPS, got);
                check_run_steps(builtin(bases[b]), precisions[k], dim, false, CHECK_DT / 2,
                                2 * CHECK_STEPS, want);
                assert_memory_equal(got, want, 2 * (size_t)dim * CHECK_LANES * sizeof(double));
            }
        release(&comp);
    }
}

/* The substeps run in the order given, the mirrored half after the middle: (0.1, 0.2, 0.4)
 * symmetric is (0.1, 0.2, 0.4, 0.2, 0.1) given in full, bit for bit (not 0.1, 0.2, 0.4, 0.1,
 * 0.2: the weights summing to 1 either way). Verlet's maps of different steps do not commute
 * (a product of split flows), so (0.3, 0.7) is another map than (0.7, 0.3): the kernel follows
 * the base's reference stepped 0.3 dt first to round-off (check_roundoff_tol), and the reverse
 * order differs far beyond it. */
static void test_substep_order(void **state)
{
    (void)state;
    static const double half[] = {0.1, 0.2, 0.4}, full[] = {0.1, 0.2, 0.4, 0.2, 0.1};
    static const double rotated[] = {0.1, 0.2, 0.4, 0.1, 0.2};
    static double got[2 * CHECK_LANES], want[2 * CHECK_LANES];
    osc_method sym = make("verlet", half, 3, true, 2), unsym = make("verlet", full, 5, false, 2);
    osc_method rot = make("verlet", rotated, 5, false, 2);
    check_run(&sym, OSC_DOUBLE, 1, false, false, got, NULL);
    check_run(&unsym, OSC_DOUBLE, 1, false, false, want, NULL);
    assert_memory_equal(got, want, sizeof got);
    check_run(&rot, OSC_DOUBLE, 1, false, false, want, NULL);
    assert_memory_not_equal(got, want, sizeof got);
    release(&sym), release(&unsym), release(&rot);

    static const double forward[] = {0.3, 0.7}, backward[] = {0.7, 0.3};
    const osc_method *verlet = builtin("verlet");
    for (int dir = 0; dir < 2; dir++) {
        osc_method m = make("verlet", dir == 0 ? forward : backward, 2, false, 2);
        check_run(&m, OSC_DOUBLE, 1, false, false, got, NULL);
        release(&m);
        for (size_t i = 0; i < CHECK_LANES; i++) {
            const osc_coef_d c = {check_lane_k(i), check_lane_c(i, false), CHECK_GRAVITY};
            double s[OSC_MAX_STATE];
            verlet->ref_d.init(s, sin(1.7 * (double)i), cos(2.3 * (double)i), c, CHECK_DT);
            for (int n = 0; n < CHECK_STEPS; n++) {
                verlet->ref_d.step(s, c, 0.3 * CHECK_DT);
                verlet->ref_d.step(s, c, 0.7 * CHECK_DT);
            }
            verlet->ref_d.readout(s, c, CHECK_DT, &want[i], &want[i + CHECK_LANES]);
        }
        const double tol = check_roundoff_tol(OSC_DOUBLE, check_state_scale(want, 1));
        const double d = check_max_diff(got, want, 1);
        if (dir == 0 ? !(d <= tol) : !(d > 100 * tol))
            fail_msg("order %s: differs from 0.3 dt first by %g (tolerance %g)",
                     dir == 0 ? "(0.3, 0.7)" : "(0.7, 0.3)", d, tol);
    }
}

/* The kernel against the composition's scalar references (the base's, substep by substep),
 * with drag, over verlet-implicit-drag; check_roundoff_tol as for the tableau methods. */
static void test_kernel_matches_reference(void **state)
{
    (void)state;
    osc_method m = make("verlet-implicit-drag", yoshida(), 2, true, 4);
    check_matches_reference(&m);
    release(&m);
}

/* Measured orders (0.15: the next term's share at the largest dt, as for the built-in
 * methods): the triple jump and Suzuki's 5 substeps over a base symmetric without drag (verlet)
 * measure 4 undamped; with drag 0.3 over verlet-implicit-drag (symmetric with drag) 4, over
 * verlet (first order with drag, not symmetric) 1: a composition cannot raise the order of a
 * non-symmetric base. Two half steps of verlet: 2. */
static void test_measured_orders(void **state)
{
    (void)state;
    static const double halves[] = {0.5, 0.5};
    const struct {
        const char *base;
        const double *w;
        int n;
        bool symmetric;
        double drag;
        int measured;
    } cases[] = {
        {"verlet", yoshida(), 2, true, 0, 4},
        {"verlet", suzuki(), 3, true, 0, 4},
        {"verlet-implicit-drag", yoshida(), 2, true, 0.3, 4},
        {"verlet", yoshida(), 2, true, 0.3, 1},
        {"verlet", halves, 2, false, 0, 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        osc_method m = make(cases[k].base, cases[k].w, cases[k].n, cases[k].symmetric,
                            cases[k].measured);
        osc_order_fit f = check_measure_order(&m, cases[k].drag);
        assert_int_equal(f.status, OSC_FIT_OK);
        if (!(fabs(f.order - cases[k].measured) < 0.15) || !f.pass)
            fail_msg("case %zu: measured %g (%s), expected %d", k, f.order,
                     osc_verdict_name(f.verdict), cases[k].measured);
        release(&m);
    }
}

/* ---- stability ------------------------------------------------------------------------------------ */

/* Velocity Verlet on x'' = -x over a step h: x' = (1 - h^2/2) x + h v,
 * v' = v - h (x + x')/2 = -h (1 - h^2/4) x + (1 - h^2/2) v. */
static void verlet_matrix(long double h, long double m[2][2])
{
    m[0][0] = m[1][1] = 1 - h * h / 2;
    m[0][1] = h;
    m[1][0] = -h * (1 - h * h / 4);
}

/* The trace of the triple jump's matrix M(w1 h) M(w0 h) M(w1 h) (weights exact in long double). */
static long double triple_jump_trace(long double h)
{
    const long double w1 = 1 / (2 - cbrtl(2)), w0 = 1 - 2 * w1;
    long double a[2][2], b[2][2], ab[2][2];
    verlet_matrix(w1 * h, a), verlet_matrix(w0 * h, b);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            ab[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
    return ab[0][0] * a[0][0] + ab[0][1] * a[1][0] + ab[1][0] * a[0][1] + ab[1][1] * a[1][1];
}

/* Each factor has det 1 (1 - h^2 + h^4/4 + h^2 - h^4/4), so the product has eigenvalues
 * l, 1/l: bounded iff |trace| <= 2, and the undamped limit is the first h where |trace| = 2.
 * Found here by a scan (steps of 1e-3: |trace| - 2 changes sign once in the first step past
 * the limit, being smooth) and bisection to 1e-15; the theory (long double reference of the
 * composition, weights rounded to double) must agree to 1e-9 as for the built-in methods, and
 * with forest-ruth's, the same map undamped. */
static void test_stability_limit(void **state)
{
    (void)state;
    long double lo = 0, hi = 0;
    for (long double h = 1e-3L; h < 10; h += 1e-3L)
        if (fabsl(triple_jump_trace(h)) > 2) {
            lo = h - 1e-3L, hi = h;
            break;
        }
    assert_true(hi > 0);
    while (hi - lo > 1e-15L) {
        const long double mid = (lo + hi) / 2;
        *(fabsl(triple_jump_trace(mid)) > 2 ? &hi : &lo) = mid;
    }
    const double limit = (double)((lo + hi) / 2);
    osc_method m = make("verlet", yoshida(), 2, true, 4);
    osc_stab_theory t, fr;
    assert_int_equal(osc_stability_theory(&m, 0, &t), OSC_OK);
    assert_int_equal(osc_stability_theory(builtin("forest-ruth"), 0, &fr), OSC_OK);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    if (!(fabs(t.limit / limit - 1) < 1e-9) || !(fabs(fr.limit / limit - 1) < 1e-9))
        fail_msg("limit %.12g, forest-ruth %.12g, from the matrices %.12g", t.limit, fr.limit,
                 limit);
    release(&m);
}

/* ---- validation ----------------------------------------------------------------------------------- */

static void assert_error(const char *base, const double *w, int n, bool symmetric,
                         osc_composition_error want, int want_where)
{
    int where = -2;
    const osc_method *b = base ? builtin(base) : NULL;
    osc_composition_error got = osc_composition_validate(b, w, n, symmetric, &where);
    if (got != want || where != want_where)
        fail_msg("error %d at %d, expected %d at %d", (int)got, where, (int)want, want_where);
    const char *text = osc_composition_error_text(got);
    assert_string_not_equal(text, "unknown composition error");
    if (got != OSC_COMPOSITION_OK) {
        osc_method m;
        assert_int_equal(osc_method_from_composition(b, w, n, symmetric, "x", 2, &m), OSC_EINVAL);
    }
}

/* The built-in methods whose state is (x, v) qualify; stormer and verlet-zero-start do not, nor
 * does a method outside the registry (a copy of verlet's descriptor), nor NULL. */
static void test_bad_base(void **state)
{
    (void)state;
    static const char *const ok[] = {"euler", "semi-implicit", "verlet", "rk4", "forest-ruth",
                                     "implicit-midpoint", "verlet-implicit-drag"};
    static const double one[] = {1};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_error(ok[i], one, 1, false, OSC_COMPOSITION_OK, -1);
    assert_error("stormer", one, 1, false, OSC_COMPOSITION_BAD_BASE, -1);
    assert_error("verlet-zero-start", one, 1, false, OSC_COMPOSITION_BAD_BASE, -1);
    assert_error(NULL, one, 1, false, OSC_COMPOSITION_BAD_BASE, -1);
    osc_method copy = *builtin("verlet");
    assert_false(osc_composition_base_ok(&copy));
    assert_int_equal(osc_composition_validate(&copy, one, 1, false, NULL), OSC_COMPOSITION_BAD_BASE);
    /* every registry method is either accepted or one of the two refused */
    size_t accepted = 0;
    for (size_t i = 0; i < osc_method_count(); i++)
        accepted += osc_composition_base_ok(osc_method_at(i));
    assert_int_equal(accepted, sizeof ok / sizeof ok[0]);
    assert_int_equal(osc_method_count(), accepted + 2);
}

static void test_bad_count(void **state)
{
    (void)state;
    double w[OSC_COMPOSITION_MAX_SUBSTEPS + 1];
    for (int k = 0; k <= OSC_COMPOSITION_MAX_SUBSTEPS; k++)
        w[k] = 1.0 / 32;
    assert_error("verlet", w, 0, false, OSC_COMPOSITION_BAD_COUNT, -1);
    assert_error("verlet", w, -3, true, OSC_COMPOSITION_BAD_COUNT, -1);
    assert_error("verlet", NULL, 2, false, OSC_COMPOSITION_BAD_COUNT, -1);
    assert_error("verlet", w, 32, false, OSC_COMPOSITION_OK, -1); /* 32 x 1/32: the most */
    assert_error("verlet", w, 33, false, OSC_COMPOSITION_BAD_COUNT, -1);
    /* symmetric: 17 given are 33 substeps; 16 are 31 (31/32 + 1/32 in the middle: sum 1) */
    assert_error("verlet", w, 17, true, OSC_COMPOSITION_BAD_COUNT, -1);
    w[15] = 2.0 / 32;
    assert_error("verlet", w, 16, true, OSC_COMPOSITION_OK, -1);
    assert_int_equal(osc_composition_substeps(16, true), 31);
    assert_int_equal(osc_composition_substeps(16, false), 16);
    assert_int_equal(osc_composition_substeps(0, true), 0);
}

static void test_not_finite(void **state)
{
    (void)state;
    double w[3] = {0.25, 0.5, 0.25};
    w[1] = NAN;
    assert_error("verlet", w, 3, false, OSC_COMPOSITION_NOT_FINITE, 1);
    w[1] = 0.5, w[2] = -INFINITY;
    assert_error("verlet", w, 3, false, OSC_COMPOSITION_NOT_FINITE, 2);
    w[2] = 0.25;
    assert_error("verlet", w, 3, false, OSC_COMPOSITION_OK, -1);
}

/* Weights beyond OSC_TABLEAU_COEF_MAX: refused at the first such weight, and no order claimed.
 * (1e300, -1e300, 1) sums to 1 exactly; its powers overflowed, NaN passed every order check and
 * it was given coefficient order 8 and linear order 5 over verlet (its order is 2). At the
 * bound the checks still resolve: (1000, -1000, 1) keeps the base's order, no more. */
static void test_too_large(void **state)
{
    (void)state;
    const double huge[] = {1e300, -1e300, 1};
    assert_error("verlet", huge, 3, false, OSC_COMPOSITION_TOO_LARGE, 0);
    const double late[] = {0.5, NAN, 2e3}, later[] = {0.5, 0.5, -2e3};
    assert_error("verlet", late, 3, false, OSC_COMPOSITION_NOT_FINITE, 1);
    assert_error("verlet", later, 3, true, OSC_COMPOSITION_TOO_LARGE, 2);
    for (int sym = 0; sym < 2; sym++)
        assert_int_equal(osc_composition_coefficient_order(huge, 3, false, 2 - sym, sym), -1);
    const osc_method *verlet = osc_method_find("verlet");
    for (int damped = 0; damped < 2; damped++)
        assert_int_equal(osc_composition_linear_order(verlet, huge, 3, false, damped), -1);
    const double bound[] = {OSC_TABLEAU_COEF_MAX, -OSC_TABLEAU_COEF_MAX, 1};
    assert_error("verlet", bound, 3, false, OSC_COMPOSITION_OK, -1);
    assert_int_equal(osc_composition_coefficient_order(bound, 3, false, 2, true), 2);
    assert_int_equal(osc_composition_coefficient_order(bound, 3, false, 1, false), 1);
}

/* The sum over the substeps (the mirrored ones included) within (N + 1) eps of sum |w|. */
static void test_sum(void **state)
{
    (void)state;
    const double *y = yoshida();
    assert_error("verlet", y, 2, true, OSC_COMPOSITION_OK, -1);
    /* the same weights unmirrored sum to w1 + w0 = -0.35 */
    assert_error("verlet", y, 2, false, OSC_COMPOSITION_SUM, -1);
    double w[2] = {y[0], y[1] + 1e-13}; /* far above the tolerance, 3.9e-15 */
    assert_error("verlet", w, 2, true, OSC_COMPOSITION_SUM, -1);
    w[1] = y[1] + 4e-16; /* within it */
    assert_error("verlet", w, 2, true, OSC_COMPOSITION_OK, -1);
    assert_error("verlet", suzuki(), 3, true, OSC_COMPOSITION_OK, -1);
    static const double short_sum[] = {0.5, 0.4};
    assert_error("verlet", short_sum, 2, false, OSC_COMPOSITION_SUM, -1);
}

/* ---- the method's description, slots and arguments ------------------------------------------ */

/* N times the base's counts: the triple jump over verlet 3 x 7 FMAs, 3 x 2 force evaluations;
 * Suzuki's over rk4 5 x rk4's. */
static void test_counts(void **state)
{
    (void)state;
    osc_method y = make("verlet", yoshida(), 2, true, 4), s = make("rk4", suzuki(), 3, true, 4);
    assert_int_equal(y.fma_per_step, 3 * builtin("verlet")->fma_per_step);
    assert_int_equal(y.force_evals, 3 * builtin("verlet")->force_evals);
    assert_int_equal(s.fma_per_step, 5 * builtin("rk4")->fma_per_step);
    assert_true(y.symplectic);
    assert_false(s.symplectic);
    assert_int_equal(y.order, 4);
    assert_int_equal(y.order_damped, 4);
    assert_int_equal(y.nstate, 2);
    assert_string_equal(y.summary, "composition of 3 verlet steps");
    assert_string_equal(s.summary, "composition of 5 rk4 steps");
    /* a palindrome of symmetric steps is symmetric (verlet: without drag only); rk4's are not */
    assert_true(y.symmetric);
    assert_false(y.symmetric_damped);
    assert_false(s.symmetric);
    osc_method z = make("verlet-implicit-drag", (const double[]){0.25, 0.75}, 2, false, 2);
    assert_false(z.symmetric); /* not a palindrome */
    release(&y), release(&s), release(&z);
}

/* ---- order conditions from the weights ------------------------------------------------------ */

/* Yoshida's sixth-order triple-jump-of-triple-jumps, his "solution A" (Phys. Lett. A 150, 1990):
 * 7 substeps w3 w2 w1 w0 w1 w2 w3, w0 = 1 - 2 (w1 + w2 + w3), given to 15 digits. */
static const double yoshida6[] = {0.784513610477560, 0.235573213359357, -1.17767998417887,
                                  1 - 2 * (0.784513610477560 + 0.235573213359357 -
                                           1.17767998417887)};
/* Kahan and Li's (Math. Comp. 66, 1997) symmetric compositions s9odr6a (9 substeps, order 6)
 * and s17odr8a (17 substeps, order 8), given as their first halves with the middle weight. */
static const double kahan_li6[] = {0.39216144400731413928, 0.33259913678935943860,
                                   -0.70624617255763935981, 0.08221359629355080023,
                                   0.79854399093482996340};
static const double kahan_li8[] = {0.13020248308889008088, 0.56116298177510838456,
                                   -0.38947496264484728641, 0.15884190655515560090,
                                   -0.39590389413323757734, 0.18453964097831570709,
                                   0.25837438768632204729, 0.29501172360931029887,
                                   -0.60550853383003451170};

/* The orders the composition theory gives (Hairer, Lubich and Wanner, Geometric Numerical
 * Integration, II.4 and III.3): a base of order p composed with weights summing to 1 keeps p;
 * sum w^(p+1) = 0 as well gains one order, two for a symmetric base in a palindrome (whose
 * order is even). The published sixth- and eighth-order compositions have those orders (8 is
 * the highest checked: "8 or more"). */
static void test_coefficient_order_known(void **state)
{
    (void)state;
    const double *y = yoshida();
    assert_int_equal(osc_composition_coefficient_order(y, 2, true, 2, true), 4);
    /* sum w^3 = 0 gains one order over a non-symmetric base of order 2 */
    assert_int_equal(osc_composition_coefficient_order(y, 2, true, 2, false), 3);
    /* order 1: sum w^2 > 0 for real weights, nothing is gained (verlet with drag) */
    assert_int_equal(osc_composition_coefficient_order(y, 2, true, 1, false), 1);
    /* order 4: sum w^5 != 0 */
    assert_int_equal(osc_composition_coefficient_order(y, 2, true, 4, true), 4);
    assert_int_equal(osc_composition_coefficient_order(suzuki(), 3, true, 2, true), 4);
    assert_int_equal(osc_composition_coefficient_order(yoshida6, 4, true, 2, true), 6);
    assert_int_equal(osc_composition_coefficient_order(kahan_li6, 5, true, 2, true), 6);
    assert_int_equal(osc_composition_coefficient_order(kahan_li8, 9, true, 2, true), 8);
    /* two half steps: the base's order, whatever the base */
    const double half[] = {0.5, 0.5};
    assert_int_equal(osc_composition_coefficient_order(half, 2, false, 2, true), 2);
    assert_int_equal(osc_composition_coefficient_order(half, 2, false, 1, false), 1);
    const double one[] = {1}; /* the base itself */
    assert_int_equal(osc_composition_coefficient_order(one, 1, false, 4, false), 4);
    /* one substep of w = 1/2: the weights do not sum to 1, not even order 1 */
    assert_int_equal(osc_composition_coefficient_order(half, 1, false, 2, true), 0);
}

/* The top of the checked range: a condition of degree 8 must still be checked. The triple jump
 * built for order 6, w1 = 1/(2 - 2^(1/7)), w0 = -2^(1/7) w1 (so 2 w1^7 + w0^7 = 0, sum 1),
 * gains one order over a non-symmetric base of order 6 (7; its h^8 term, sum w^8 E_8 among
 * others, does not vanish) and two over a symmetric one (8, the cap); one substep keeps a base
 * of order 7 at 7. */
static void test_coefficient_order_top(void **state)
{
    (void)state;
    const double c = pow(2, 1.0 / 7), w1 = 1 / (2 - c), jump[] = {w1, -c * w1};
    assert_int_equal(osc_composition_coefficient_order(jump, 2, true, 6, false), 7);
    assert_int_equal(osc_composition_coefficient_order(jump, 2, true, 6, true), 8);
    const double one[] = {1};
    assert_int_equal(osc_composition_coefficient_order(one, 1, false, 7, false), 7);
}

/* A composition that is not a palindrome: weights (a, b, c) with a + b + c = 1 and
 * a^3 + b^3 + c^3 = 0 (a = 3/2: b + c = -1/2, b c = -13/6) gain one order over a symmetric base
 * of order 2 (3), but not the fourth: its h^4 term is (1/2) sum_{i<j} (w_i^3 w_j - w_i w_j^3)
 * [A, E_3] (the commutator of the problem's field with the base's third-order error field),
 * which a palindrome cancels and these weights do not. */
static void test_coefficient_order_not_palindrome(void **state)
{
    (void)state;
    const double r = sqrt(0.25 + 4 * 13.0 / 6);
    const double w[] = {1.5, (-0.5 + r) / 2, (-0.5 - r) / 2};
    double h4 = 0;
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            h4 += 0.5 * (w[i] * w[i] * w[i] * w[j] - w[i] * w[j] * w[j] * w[j]);
    assert_true(fabs(h4) > 0.1);
    assert_int_equal(osc_composition_coefficient_order(w, 3, false, 2, true), 3);
    /* reversed, still not a palindrome; the mirror image of a palindrome is itself */
    const double rev[] = {w[2], w[1], w[0]};
    assert_int_equal(osc_composition_coefficient_order(rev, 3, false, 2, true), 3);
}

/* A perturbation of 1e-9 (the sum kept 1) breaks sum w^3 = 0 by ~1e-8, far above the tolerance
 * (~1e-14 of the terms): back to the base's order; and bad arguments give -1. */
static void test_coefficient_order_perturbed(void **state)
{
    (void)state;
    const double w1 = yoshida()[0] * (1 + 1e-9), y[] = {w1, 1 - 2 * w1};
    assert_int_equal(osc_composition_coefficient_order(y, 2, true, 2, true), 2);
    double k[5];
    memcpy(k, kahan_li6, sizeof k);
    k[0] += 1e-9, k[4] -= 2e-9; /* the middle weight takes the change: the sum stays 1 */
    assert_int_equal(osc_composition_coefficient_order(k, 5, true, 2, true), 2);
    assert_int_equal(osc_composition_coefficient_order(NULL, 2, true, 2, true), -1);
    assert_int_equal(osc_composition_coefficient_order(y, 0, true, 2, true), -1);
    assert_int_equal(osc_composition_coefficient_order(y, 2, true, 0, true), -1);
    const double bad[] = {NAN, 1};
    assert_int_equal(osc_composition_coefficient_order(bad, 2, false, 2, true), -1);
    double many[OSC_COMPOSITION_MAX_SUBSTEPS + 1];
    for (int i = 0; i <= OSC_COMPOSITION_MAX_SUBSTEPS; i++)
        many[i] = 1.0 / (OSC_COMPOSITION_MAX_SUBSTEPS + 1);
    assert_int_equal(osc_composition_coefficient_order(many, OSC_COMPOSITION_MAX_SUBSTEPS + 1,
                                                       false, 2, true), -1);
}

/* ---- the order on the linear problem ------------------------------------------------------ */

/* Measured from the base's reference (composition_order.c): the published compositions have
 * their orders on the oscillator too (verlet with drag is order 1 and not symmetric: 1); a
 * perturbation of 1e-3 (the middle weight taking the change) drops the triple jump to the
 * base's 2. A perturbation far smaller is not seen (1e-9 moves the error below round-off at
 * every step where order 2 would show): this is a measurement, unlike the coefficient order. */
static void test_linear_order_known(void **state)
{
    (void)state;
    static const struct {
        const char *base;
        const double *w;
        int nw, undamped, damped;
    } cases[] = {{"verlet", yoshida6, 4, 6, 1},
                 {"verlet", kahan_li6, 5, 6, 1},
                 {"verlet", kahan_li8, 9, 8, 1},
                 {"verlet-implicit-drag", kahan_li6, 5, 6, 6},
                 {"forest-ruth", kahan_li8, 9, 8, 8},
                 {"implicit-midpoint", kahan_li6, 5, 6, 6},
                 {"semi-implicit", kahan_li6, 5, 1, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const osc_method *base = builtin(cases[i].base);
        const int u = osc_composition_linear_order(base, cases[i].w, cases[i].nw, true, false);
        const int d = osc_composition_linear_order(base, cases[i].w, cases[i].nw, true, true);
        if (u != cases[i].undamped || d != cases[i].damped)
            fail_msg("%s, %d weights: linear orders %d / %d (drag), expected %d / %d",
                     cases[i].base, cases[i].nw, u, d, cases[i].undamped, cases[i].damped);
    }
    const osc_method *verlet = builtin("verlet");
    assert_int_equal(osc_composition_linear_order(verlet, yoshida(), 2, true, false), 4);
    const double w1 = yoshida()[0] + 1e-3, off[] = {w1, 1 - 2 * w1};
    assert_int_equal(osc_composition_linear_order(verlet, off, 2, true, false), 2);
    const double bad[] = {NAN, 1}, unsummed[] = {0.5, 0.6};
    assert_int_equal(osc_composition_linear_order(verlet, bad, 2, false, false), -1);
    assert_int_equal(osc_composition_linear_order(verlet, unsummed, 2, false, false), -1);
    assert_int_equal(osc_composition_linear_order(builtin("stormer"), yoshida(), 2, true, false),
                     -1);
}

/* Suzuki's five weights (p, p, 1 - 4p, p, p: 4 p^3 + (1 - 4p)^3 = 0) given in full, as the
 * palindrome and rearranged as (p, p, p, p, 1 - 4p), over verlet, whose maps do not commute.
 * Undamped, verlet on the unit oscillator is M(h) = [[1 - h^2/2, h], [-h + h^3/4, 1 - h^2/2]]
 * (test_stability.c), cos(theta) = 1 - h^2/2, so M(h) = exp(h B(h)) with B = (theta / h)
 * [[0, 1/s], [-s, 0]], s = sqrt(1 - h^2/4): B = A + h^2 E3 + O(h^4), A = [[0, 1], [-1, 0]],
 * E3 = [[0, 1/6], [1/12, 0]], and [A, E3] = diag(1/4, -1/4) != 0. With sum w = 1 and
 * sum w^3 = 0 the composition's logarithm is h A + h^4 K [A, E3] + O(h^5), K = (1/2)
 * sum_{i<j} (w_i^3 w_j - w_i w_j^3) (test_coefficient_order_not_palindrome): K = 0 for the
 * palindrome (order 4), K = 2 p q (p^2 - q^2) = 0.14 for the rearrangement (q = 1 - 4p): order
 * 3. With drag verlet is of order 1 and not symmetric, and sum w^2 > 0: 1 for both. The
 * coefficient orders over a symmetric base of order 2 are the same 4 and 3. */
static void test_linear_order_not_palindrome(void **state)
{
    (void)state;
    const double p = suzuki()[0], q = suzuki()[2];
    const double palindrome[] = {p, p, q, p, p}, rearranged[] = {p, p, p, p, q};
    double k = 0;
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            k += 0.5 * (pow(rearranged[i], 3) * rearranged[j] -
                        rearranged[i] * pow(rearranged[j], 3));
    assert_true(fabs(k - 2 * p * q * (p * p - q * q)) < 1e-15 && fabs(k) > 0.1);
    const osc_method *verlet = builtin("verlet");
    assert_int_equal(osc_composition_linear_order(verlet, palindrome, 5, false, false), 4);
    assert_int_equal(osc_composition_linear_order(verlet, rearranged, 5, false, false), 3);
    assert_int_equal(osc_composition_linear_order(verlet, palindrome, 5, false, true), 1);
    assert_int_equal(osc_composition_linear_order(verlet, rearranged, 5, false, true), 1);
    assert_int_equal(osc_composition_coefficient_order(palindrome, 5, false, 2, true), 4);
    assert_int_equal(osc_composition_coefficient_order(rearranged, 5, false, 2, true), 3);
}

/* A composition of Runge-Kutta steps is a Runge-Kutta method: substep k's stages read the
 * earlier substeps' stages with their weights w_m b_j and their own with w_k a_ij, and b is
 * w_k b_j. Its linear order from the stability polynomial (tableau.c, exact in the
 * coefficients) must be the one measured from the base's reference: euler and rk4 bases. */
static void test_linear_order_matches_tableau(void **state)
{
    (void)state;
    static const osc_tableau euler_t = {.stages = 1, .b = {1}};
    static const osc_tableau rk4_t = {.stages = 4,
                                      .a = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}},
                                      .b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                                      .c = {0, 0.5, 0.5, 1}};
    static const struct {
        const char *base;
        const osc_tableau *t;
        double w[8];
        int nw;
    } cases[] = {{"euler", &euler_t, {0.3, 0.7}, 2},
                 {"euler", &euler_t, {0.2, -0.3, 1.1}, 3},
                 {"rk4", &rk4_t, {0.3, 0.7}, 2},
                 {"rk4", &rk4_t, {0.5, 0.5}, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const osc_tableau *t = cases[i].t;
        const int s = t->stages;
        osc_tableau comp = {.stages = s * cases[i].nw};
        for (int k = 0; k < cases[i].nw; k++)
            for (int p = 0; p < s; p++) {
                const int row = k * s + p;
                for (int m = 0; m < k; m++)
                    for (int j = 0; j < s; j++)
                        comp.a[row][m * s + j] = cases[i].w[m] * t->b[j];
                for (int j = 0; j < p; j++)
                    comp.a[row][k * s + j] = cases[i].w[k] * t->a[p][j];
                for (int j = 0; j < comp.stages; j++)
                    comp.c[row] += comp.a[row][j];
                comp.b[row] = cases[i].w[k] * t->b[p];
            }
        const int want = osc_tableau_linear_order(&comp);
        const osc_method *base = builtin(cases[i].base);
        for (int damped = 0; damped < 2; damped++) {
            const int got =
                osc_composition_linear_order(base, cases[i].w, cases[i].nw, false, damped);
            if (got != want)
                fail_msg("%s, %d weights, drag %d: measured %d, the tableau's %d", cases[i].base,
                         cases[i].nw, damped, got, want);
        }
    }
}

/* ---- the composed kernels: the base's bits, substep by substep ------------------------------ */

/* Lanes of the bit tests: 300 (padded to 384: ranges of 128 and 256 lanes, blocks of 24 lanes
 * leaving 8 of each 128, blocks of 16 and 32 dividing them), varied k, drag and state; gravity
 * on the last axis. */
enum { BITS_LANES = 300, BITS_STEPS = 37 };
#define BITS_DT 0.0625
#define BITS_GRAVITY 2.5

static osc_batch *bits_batch(const osc_method *m, osc_precision p, int dim)
{
    osc_batch *b;
    assert_int_equal(osc_batch_create(&b, m, p, dim, BITS_LANES, BITS_GRAVITY), OSC_OK);
    for (size_t i = 0; i < BITS_LANES; i++) {
        double x0[OSC_MAX_DIM], v0[OSC_MAX_DIM];
        for (int a = 0; a < dim; a++)
            x0[a] = sin(1.3 * (double)(i + 7 * a)), v0[a] = cos(0.7 * (double)(i + 5 * a));
        assert_int_equal(osc_batch_set_lane(b, i, 0.2 + (double)(i % 17) * 0.45,
                                            (double)(i % 5) * 0.15, 1 + (double)(i % 3) * 0.5, x0,
                                            v0),
                         OSC_OK);
    }
    assert_int_equal(osc_batch_start(b, BITS_DT), OSC_OK);
    return b;
}

/* The substep sizes as the composition forms them: w_k dt in double. */
static int bits_sizes(const double *w, int nw, bool symmetric, double h[])
{
    const int n = osc_composition_substeps(nw, symmetric);
    for (int k = 0; k < n; k++)
        h[k] = w[k < nw ? k : 2 * (nw - 1) - k] * BITS_DT;
    return n;
}

static size_t prec_size(osc_precision p) { return p == OSC_FLOAT ? sizeof(float) : sizeof(double); }

/* Every axis's state of a and b, bit for bit, over all padded lanes. */
static void assert_same_state(const osc_batch *a, const osc_batch *b, int dim, osc_precision p)
{
    const size_t bytes = osc_batch_padded_lanes(a) * prec_size(p);
    for (int ax = 0; ax < dim; ax++) {
        const osc_soa sa = osc_batch_soa(a, ax), sb = osc_batch_soa(b, ax);
        assert_memory_equal(sa.s[0], sb.s[0], bytes);
        assert_memory_equal(sa.s[1], sb.s[1], bytes);
    }
}

/* The co-step's arrays over n lanes: a map close to the exact one of each lane (how close does
 * not matter: both sides take the same), energies, exact start near the state. */
typedef struct bits_costep {
    double *arr[17];
    osc_costep cs;
} bits_costep;

static void bits_costep_make(bits_costep *c, size_t n)
{
    for (int j = 0; j < 17; j++) {
        c->arr[j] = aligned_alloc(64, n * sizeof(double));
        assert_non_null(c->arr[j]);
    }
    double **a = c->arr;
    for (size_t i = 0; i < n; i++) {
        const double w = sqrt(0.2 + (double)(i % 17) * 0.45) * 1.001, t = w * BITS_DT;
        a[0][i] = cos(t), a[1][i] = sin(t) / w, a[2][i] = -w * sin(t), a[3][i] = cos(t);
        a[4][i] = -BITS_GRAVITY * (1 - cos(t)) / (w * w), a[5][i] = -BITS_GRAVITY * sin(t) / w;
        a[6][i] = 0.5 * (1 + (double)(i % 3) * 0.5), a[7][i] = 0.5 * w * w, a[8][i] = BITS_GRAVITY;
        for (int ax = 0; ax < OSC_MAX_DIM; ax++) {
            a[9 + ax][i] = sin(1.3 * (double)(i + 7 * ax)) * 0.999;
            a[12 + ax][i] = cos(0.7 * (double)(i + 5 * ax));
        }
        a[15][i] = a[16][i] = -1;
    }
    c->cs = (osc_costep){a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
                         {a[9], a[10], a[11]}, {a[12], a[13], a[14]}, a[15], a[16]};
}

static void bits_costep_free(bits_costep *c)
{
    for (int j = 0; j < 17; j++)
        free(c->arr[j]);
}

static double state_at(const osc_soa *s, int comp, size_t i, osc_precision p)
{
    return p == OSC_FLOAT ? (double)((const float *)s->s[comp])[i]
                          : ((const double *)s->s[comp])[i];
}

/* What advance_audited_composed must give, in plain code: each axis through the base's advance
 * substep by substep, then per lane the exact step and the maxima with the fused kernel's
 * arithmetic (oscbench.h, osc_costep), every operation explicit. */
static void bits_audited_expected(const osc_method *base, osc_batch *b, int dim, osc_precision p,
                                  size_t i0, size_t i1, const double *h, int nsub,
                                  const osc_costep *cs, double *me2, double *mde)
{
    const size_t n = i1 - i0;
    double *xe = malloc(OSC_MAX_DIM * n * sizeof(double)), *ve = malloc(OSC_MAX_DIM * n * sizeof(double));
    assert_true(xe && ve);
    for (int a = 0; a < dim; a++)
        for (size_t l = 0; l < n; l++)
            xe[a * n + l] = cs->xe[a][i0 + l], ve[a * n + l] = cs->ve[a][i0 + l];
    for (size_t l = 0; l < n; l++)
        me2[l] = 0, mde[l] = 0;
    for (long s = 0; s < BITS_STEPS; s++) {
        for (int a = 0; a < dim; a++) {
            const osc_soa soa = osc_batch_soa(b, a);
            for (int k = 0; k < nsub; k++)
                base->kernels[p].advance(&soa, i0, i1, 1, h[k]);
        }
        for (size_t l = 0; l < n; l++) {
            const size_t i = i0 + l;
            double err2 = 0, sum_v = 0, sum_x = 0, dx_last = 0;
            for (int a = 0; a < dim; a++) {
                const osc_soa soa = osc_batch_soa(b, a);
                const bool last = a == dim - 1;
                const double x = state_at(&soa, 0, i, p), v = state_at(&soa, 1, i, p);
                const double xo = xe[a * n + l], vo = ve[a * n + l];
                const double q1 = last ? cs->q1[i] : 0, q2 = last ? cs->q2[i] : 0;
                const double xn = xo + fma(cs->d11[i], xo, fma(cs->p12[i], vo, q1));
                const double vn = vo + fma(cs->p21[i], xo, fma(cs->d22[i], vo, q2));
                xe[a * n + l] = xn, ve[a * n + l] = vn;
                const double dx = x - xn, dv = v - vn;
                err2 = a == 0 ? dx * dx : fma(dx, dx, err2);
                sum_v = a == 0 ? dv * (v + vn) : fma(dv, v + vn, sum_v);
                sum_x = a == 0 ? dx * (x + xn) : fma(dx, x + xn, sum_x);
                dx_last = dx;
            }
            const double de =
                fabs(fma(cs->mg[i], dx_last, fma(cs->half_k[i], sum_x, cs->half_m[i] * sum_v)));
            me2[l] = isgreater(me2[l], err2) ? me2[l] : err2;
            mde[l] = isgreater(mde[l], de) ? mde[l] : de;
        }
    }
    free(xe), free(ve);
}

/* One base, weight set, precision and dim at the ISA level in force: the composition's advance
 * (the base's composed kernel) against the base's advance once per substep, over the ranges
 * [0, 128) and [128, 384); the audited form likewise, its state and its maxima, bit for bit. */
static void composed_bits_case(const char *base_name, const double *w, int nw, bool symmetric,
                               osc_precision p, int dim)
{
    const osc_method *base = builtin(base_name);
    osc_method comp = make(base_name, w, nw, symmetric, 2);
    double h[OSC_COMPOSITION_MAX_SUBSTEPS];
    const int nsub = bits_sizes(w, nw, symmetric, h);
    osc_batch *got = bits_batch(&comp, p, dim), *want = bits_batch(base, p, dim);
    const size_t n = osc_batch_padded_lanes(got), ranges[][2] = {{0, 128}, {128, n}};
    for (int a = 0; a < dim; a++) {
        const osc_soa sg = osc_batch_soa(got, a), sw = osc_batch_soa(want, a);
        for (size_t r = 0; r < 2; r++) {
            comp.kernels[p].advance(&sg, ranges[r][0], ranges[r][1], BITS_STEPS, BITS_DT);
            for (long s = 0; s < BITS_STEPS; s++)
                for (int k = 0; k < nsub; k++)
                    base->kernels[p].advance(&sw, ranges[r][0], ranges[r][1], 1, h[k]);
        }
    }
    assert_same_state(got, want, dim, p);

    bits_costep cg, cw;
    bits_costep_make(&cg, n), bits_costep_make(&cw, n);
    osc_soa axes[OSC_MAX_DIM];
    for (int a = 0; a < dim; a++)
        axes[a] = osc_batch_soa(got, a);
    for (size_t r = 0; r < 2; r++) {
        const size_t i0 = ranges[r][0], i1 = ranges[r][1];
        comp.kernels[p].advance_audited(axes, dim, i0, i1, BITS_STEPS, BITS_DT, &cg.cs);
        bits_audited_expected(base, want, dim, p, i0, i1, h, nsub, &cw.cs, cw.cs.max_err2 + i0,
                              cw.cs.max_de + i0);
    }
    assert_same_state(got, want, dim, p);
    assert_memory_equal(cg.cs.max_err2, cw.cs.max_err2, n * sizeof(double));
    assert_memory_equal(cg.cs.max_de, cw.cs.max_de, n * sizeof(double));
    /* the maxima are there: nonzero errors on the moving lanes */
    assert_true(cg.cs.max_err2[0] > 0 && cg.cs.max_de[1] > 0);
    bits_costep_free(&cg), bits_costep_free(&cw);
    osc_batch_free(got), osc_batch_free(want);
    release(&comp);
}

/* The composed kernels give the bits of the base's advance run once per substep (the path
 * compositions took before they had their own kernels): bases verlet, semi-implicit, rk4,
 * forest-ruth, euler, implicit-midpoint and verlet-implicit-drag; a symmetric weight set
 * (Yoshida's, one negative weight) and an asymmetric one (5 substeps, one negative); double
 * and float; 1 to 3 axes; every ISA level the CPU has. In one axis also every other block of
 * kernel_loops.h's advance_composed: 7, 9, 15 and 17 substeps (Yoshida's sixth order, Kahan and
 * Li's s9odr6a, a symmetric 15 made of s17odr8a's first weights, s17odr8a) and the run-time
 * substep loop (4 substeps). The palindromes of 15 and 17 substeps take blocks of their own on
 * the AVX-512 path (half the coefficient sets, twice the lanes); the same weights given in full
 * with one mirrored pair apart (by 1e-6, which float's sizes keep) take the full blocks. */
static void test_composed_kernels_are_the_base_bits(void **state)
{
    (void)state;
    static const char *const bases[] = {"verlet", "semi-implicit", "rk4", "forest-ruth",
                                        "euler", "implicit-midpoint", "verlet-implicit-drag"};
    static const double asym[] = {0.3, -0.15, 0.4, 0.25, 0.2};
    static const double asym4[] = {0.3, -0.15, 0.6, 0.25};
    static const int caps[] = {OSC_ISA_V4, OSC_ISA_V3, OSC_ISA_BASE};
    double sym15[8]; /* 7 of s17odr8a's weights, the middle one making the sum 1 */
    double half15 = 0;
    for (int k = 0; k < 7; k++)
        sym15[k] = kahan_li8[k], half15 += kahan_li8[k];
    sym15[7] = 1 - 2 * half15;
    double near15[15], near17[17]; /* not palindromes: substeps 0 and 1 moved apart by 1e-6 */
    for (int k = 0; k < 15; k++)
        near15[k] = osc_composition_substep_weight(sym15, 8, k);
    for (int k = 0; k < 17; k++)
        near17[k] = osc_composition_substep_weight(kahan_li8, 9, k);
    near15[0] += 1e-6, near15[1] -= 1e-6, near17[0] += 1e-6, near17[1] -= 1e-6;
    for (size_t c = 0; c < 3; c++) {
        if (caps[c] > osc_isa_cpu_level())
            continue;
        assert_int_equal(osc_isa_set_cap(caps[c]), caps[c]);
        for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++)
            for (size_t k = 0; k < 2; k++)
                for (int dim = 1; dim <= OSC_MAX_DIM; dim++) {
                    composed_bits_case(bases[b], yoshida(), 2, true, precisions[k], dim);
                    composed_bits_case(bases[b], asym, 5, false, precisions[k], dim);
                    if (dim > 1)
                        continue;
                    composed_bits_case(bases[b], yoshida6, 4, true, precisions[k], dim);
                    composed_bits_case(bases[b], kahan_li6, 5, true, precisions[k], dim);
                    composed_bits_case(bases[b], asym4, 4, false, precisions[k], dim);
                    composed_bits_case(bases[b], sym15, 8, true, precisions[k], dim);
                    composed_bits_case(bases[b], kahan_li8, 9, true, precisions[k], dim);
                    composed_bits_case(bases[b], near15, 15, false, precisions[k], dim);
                    composed_bits_case(bases[b], near17, 17, false, precisions[k], dim);
                }
    }
    osc_isa_set_cap(OSC_ISA_NATIVE);
}

/* Which methods have composed kernels: every base a composition accepts (state (x, v)), no
 * other; the methods made from coefficients none. An nsub out of range steps nothing. */
static void test_composed_kernels_exist(void **state)
{
    (void)state;
    for (size_t i = 0; i < osc_method_count(); i++) {
        const osc_method *m = osc_method_at(i);
        for (size_t k = 0; k < 2; k++) {
            const osc_kernels *kk = &m->kernels[precisions[k]];
            assert_int_equal(kk->advance_composed != NULL, osc_composition_base_ok(m));
            assert_int_equal(kk->advance_audited_composed != NULL, osc_composition_base_ok(m));
        }
    }
    osc_method comp = make("verlet", yoshida(), 2, true, 4);
    assert_null(comp.kernels[OSC_DOUBLE].advance_composed);
    assert_null(comp.kernels[OSC_FLOAT].advance_audited_composed);
    release(&comp);

    const osc_method *v = builtin("verlet");
    osc_batch *a = bits_batch(v, OSC_DOUBLE, 1), *b = bits_batch(v, OSC_DOUBLE, 1);
    const osc_soa s = osc_batch_soa(a, 0);
    double h[OSC_COMPOSITION_MAX_SUBSTEPS + 1];
    for (int k = 0; k <= OSC_COMPOSITION_MAX_SUBSTEPS; k++)
        h[k] = BITS_DT / (OSC_COMPOSITION_MAX_SUBSTEPS + 1);
    v->kernels[OSC_DOUBLE].advance_composed(&s, 0, 128, 3, h, 0);
    v->kernels[OSC_DOUBLE].advance_composed(&s, 0, 128, 3, h, OSC_COMPOSITION_MAX_SUBSTEPS + 1);
    assert_same_state(a, b, 1, OSC_DOUBLE);
    osc_batch_free(a), osc_batch_free(b);
}

static int make_slot(const char *name, osc_method *out)
{
    return osc_method_from_composition(builtin("verlet"), yoshida(), 2, true, name, 4, out);
}

/* Needs every slot free: a test above that failed before releasing its method fails this too. */
static void test_slots_and_arguments(void **state)
{
    (void)state;
    check_slot_pool(OSC_COMPOSITION_METHOD_SLOTS, make_slot, osc_composition_method_release);
    check_method_names(OSC_COMPOSITION_NAME_MAX, make_slot, osc_composition_method_release);

    osc_method m;
    assert_int_equal(osc_method_from_composition(builtin("verlet"), yoshida(), 2, true, "a", 0, &m),
                     OSC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_forest_ruth),
        cmocka_unit_test(test_half_steps_are_the_base),
        cmocka_unit_test(test_substep_order),
        cmocka_unit_test(test_kernel_matches_reference),
        cmocka_unit_test(test_measured_orders),
        cmocka_unit_test(test_stability_limit),
        cmocka_unit_test(test_bad_base),
        cmocka_unit_test(test_bad_count),
        cmocka_unit_test(test_not_finite),
        cmocka_unit_test(test_sum),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_coefficient_order_known),
        cmocka_unit_test(test_coefficient_order_top),
        cmocka_unit_test(test_coefficient_order_not_palindrome),
        cmocka_unit_test(test_coefficient_order_perturbed),
        cmocka_unit_test(test_linear_order_known),
        cmocka_unit_test(test_linear_order_not_palindrome),
        cmocka_unit_test(test_linear_order_matches_tableau),
        cmocka_unit_test(test_composed_kernels_are_the_base_bits),
        cmocka_unit_test(test_composed_kernels_exist),
        cmocka_unit_test(test_slots_and_arguments),
        cmocka_unit_test(test_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
