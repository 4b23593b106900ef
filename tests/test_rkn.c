/* Runge-Kutta-Nystrom tableaus (rkn.h): known methods give their known coefficient and linear
 * orders, perturbed ones drop, every validation error is found and located, and the methods run
 * by the batch match rk4 (the Nystrom form of rk4) or their own reference to round-off, measure
 * their orders against the closed form, and have rk4's stability limits. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "known_tableaus.h"
#include "method_check.h"
#include "rkn.h"
#include "rkn_internal.h"

/* ---- the known tableaus ---------------------------------------------------------------------- */

/* The Nystrom form of an explicit RK method (A, b, c) applied to (x, v)' = (v, f): stage i's
 * X_i = x + h sum_j A_ij V_j with V_j = v + h sum_k A_jk F_k gives abar = A^2 (and the nodes
 * c = A 1), bbar = b^T A, a = A, and the velocity weights b: the same map, computed here in
 * double. */
static osc_rkn_tableau nystrom_of(int s, const double A[][OSC_RKN_MAX_STAGES], const double *b,
                                  const double *c)
{
    osc_rkn_tableau t = {.stages = s};
    for (int i = 0; i < s; i++) {
        for (int j = 0; j < i; j++) {
            t.a[i][j] = A[i][j];
            for (int k = j + 1; k < i; k++)
                t.abar[i][j] += A[i][k] * A[k][j];
        }
        for (int k = i + 1; k < s; k++)
            t.bbar[i] += b[k] * A[k][i];
        t.b[i] = b[i], t.c[i] = c[i];
    }
    return t;
}

/* rk4's: abar_31 = a_32 a_21 = 1/4, abar_42 = a_43 a_32 = 1/2, bbar = (1/6, 1/6, 1/6, 0). */
static osc_rkn_tableau rk4n(void)
{
    static const double A[][OSC_RKN_MAX_STAGES] = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}};
    return nystrom_of(4, A, (const double[]){1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                      (const double[]){0, 0.5, 0.5, 1});
}

/* Butcher's order-6 method's (known_tableaus.h): a Nystrom form keeps its RK method's order on
 * x'' = f(x, v), so every general Nystrom tree of up to 6 vertices holds (291 conditions on b
 * and 87 on bbar); its map is R(hL) with R of order 6 (linear order 6 damped and undamped). */
static osc_rkn_tableau butcher6n(void)
{
    const osc_tableau t = butcher6();
    return nystrom_of(t.stages, t.a, t.b, t.c);
}

/* The Nystrom form of the tableau that misses only b.(c A c^2) = 1/15 (known_tableaus.h): order
 * 4 on x'' = f(x, v), but 5 on x'' = f(x), where that tree drops out; R of order 5. */
static osc_rkn_tableau c_ac2_missed_n(void)
{
    const osc_tableau t = c_ac2_missed();
    return nystrom_of(t.stages, t.a, t.b, t.c);
}

/* Kutta's third-order method's. */
static osc_rkn_tableau kutta3n(void)
{
    static const double A[][OSC_RKN_MAX_STAGES] = {{0}, {0.5}, {-1, 2}};
    return nystrom_of(3, A, (const double[]){1.0 / 6, 2.0 / 3, 1.0 / 6},
                      (const double[]){0, 0.5, 1});
}

/* The 3/8 rule's: thirds, rounded as double computes them. */
static osc_rkn_tableau rule38n(void)
{
    static const double A[][OSC_RKN_MAX_STAGES] = {{0}, {1.0 / 3}, {-1.0 / 3, 1}, {1, -1, 1}};
    return nystrom_of(4, A, (const double[]){0.125, 0.375, 0.375, 0.125},
                      (const double[]){0, 1.0 / 3, 2.0 / 3, 1});
}

/* x' = x + h v + h^2 F_1 / 2, v' = v + h (F_1 + F_2) / 2 with
 * F_2 = f(x + h v + h^2 F_1 / 2, v + h F_1): velocity Verlet with its second force at Heun's
 * predicted velocity (order 2); without drag exactly velocity Verlet. */
static osc_rkn_tableau verlet_heun(void)
{
    return (osc_rkn_tableau){.stages = 2, .abar = {{0}, {0.5}}, .a = {{0}, {1}},
                             .bbar = {0.5, 0}, .b = {0.5, 0.5}, .c = {0, 1}};
}

/* Heun's method's Nystrom form: abar = A^2 = 0, bbar = b^T A = (1/2, 0); Heun's map. */
static osc_rkn_tableau heunn(void)
{
    static const double A[][OSC_RKN_MAX_STAGES] = {{0}, {1}};
    return nystrom_of(2, A, (const double[]){0.5, 0.5}, (const double[]){0, 1});
}

/* x' = x + h v + h^2 F / 2, v' = v + h F: order 1 (b.c = 0, not 1/2). */
static osc_rkn_tableau euler_taylor(void)
{
    return (osc_rkn_tableau){.stages = 1, .bbar = {0.5}, .b = {1}, .c = {0}};
}

/* Nystrom's classical 3-stage method of order 4 for x'' = f(x) (abar, bbar, b, c as HNW I,
 * II.14 give it), with a = Kutta's third-order a for the velocity stages (c = a 1 as required):
 * the classical conditions all hold (order 4 without drag), b.(c A c) = 1/6 != 1/8 breaks a
 * velocity-dependent one (order 3 with drag). */
static osc_rkn_tableau rkn4_kutta_a(void)
{
    return (osc_rkn_tableau){.stages = 3,
                             .abar = {{0}, {0.125}, {0, 0.5}},
                             .a = {{0}, {0.5}, {-1, 2}},
                             .bbar = {1.0 / 6, 1.0 / 3, 0},
                             .b = {1.0 / 6, 2.0 / 3, 1.0 / 6},
                             .c = {0, 0.5, 1}};
}

typedef struct known {
    const char *name;
    osc_rkn_tableau (*make)(void);
    int order, order_fx, linear_damped, linear_undamped;
} known;

/* Linear orders: a Nystrom form's map is its RK method's R(hL), of rk4's order 4 (its degree),
 * Kutta's 3, Heun's 2; verlet_heun's is velocity Verlet's undamped (order 2; s = 2 bounds it
 * damped). euler_taylor: v' misses the (v, v) entry's k / 2 (order 2). Nystrom's
 * 3-stage method undamped: its (v, x) entry k + k^2/6 + k^3/96 misses exp's k^3/120 (order 5),
 * so 4; damped at most s = 3 (rkn.h) and at least its coefficient order 3. */
static const known knowns[] = {
    {"rk4", rk4n, 4, 4, 4, 4},
    {"3/8 rule", rule38n, 4, 4, 4, 4},
    {"kutta3", kutta3n, 3, 3, 3, 3},
    {"heun", heunn, 2, 2, 2, 2},
    {"verlet-heun", verlet_heun, 2, 2, 2, 2},
    {"euler-taylor", euler_taylor, 1, 1, 1, 1},
    {"rkn4 (kutta a)", rkn4_kutta_a, 3, 4, 3, 4},
    {"butcher6", butcher6n, 6, 6, 6, 6},
    {"b.(c A c^2) missed", c_ac2_missed_n, 4, 5, 5, 5},
};

static void test_known_orders(void **state)
{
    (void)state;
    for (size_t n = 0; n < sizeof knowns / sizeof knowns[0]; n++) {
        const known *k = &knowns[n];
        osc_rkn_tableau t = k->make();
        osc_rkn_where where;
        if (osc_rkn_validate(&t, &where) != OSC_RKN_OK)
            fail_msg("%s: invalid at %s (%d, %d)", k->name, osc_rkn_field_name(where.field),
                     where.row, where.col);
        const int p = osc_rkn_coefficient_order(&t, true);
        const int pf = osc_rkn_coefficient_order(&t, false);
        const int ld = osc_rkn_linear_order(&t, true), lu = osc_rkn_linear_order(&t, false);
        if (p != k->order || pf != k->order_fx || ld != k->linear_damped ||
            lu != k->linear_undamped)
            fail_msg("%s: orders %d / %d, linear %d / %d; expected %d / %d, %d / %d", k->name, p,
                     pf, ld, lu, k->order, k->order_fx, k->linear_damped, k->linear_undamped);
    }
}

/* Changes far above the tolerance (~1e-14) but small: the order drops to the first condition
 * they break (coefficient order with and without velocity dependence, linear order damped and
 * undamped), from rk4's Nystrom form: c = (0, 1/2, 1/2, 1), Ab e = A c = (0, 0, 1/4, 1/2). */
static void test_perturbed_drops(void **state)
{
    (void)state;
    const double d = 1e-9;
    struct { const char *what; osc_rkn_tableau t; int p, pf, ld, lu; } cases[5];
    /* abar_41 -= d, abar_42 += d keeps abar's row sums; b.(Ab c) (a tree, and a chain of the
     * linear problem, of order 4) moves by b_4 d c_2 = d/12 */
    cases[0].what = "abar", cases[0].t = rk4n();
    cases[0].t.abar[3][0] -= d, cases[0].t.abar[3][1] += d;
    cases[0].p = cases[0].pf = cases[0].ld = cases[0].lu = 3;
    /* bbar_2 += d, bbar_3 -= d keeps bbar.1, bbar.c, bbar.c^2 (c_2 = c_3), moves bbar.(Ab e)
     * = 1/24 (order 4 for x') by -d/4 */
    cases[1].what = "bbar", cases[1].t = rk4n();
    cases[1].t.bbar[1] += d, cases[1].t.bbar[2] -= d;
    cases[1].p = cases[1].pf = cases[1].ld = cases[1].lu = 3;
    /* a_42 += d, a_43 -= d keeps c; b.(A A c) moves by b_4 d (A c)_2 - ... = -d/24: a velocity
     * condition, so without drag (a unused) the order stays 4 */
    cases[2].what = "a", cases[2].t = rk4n();
    cases[2].t.a[3][1] += d, cases[2].t.a[3][2] -= d;
    cases[2].p = 3, cases[2].pf = 4, cases[2].ld = 3, cases[2].lu = 4;
    /* b_1 += d, b_4 -= d keeps sum b, breaks b.c = 1/2 */
    cases[3].what = "b", cases[3].t = rk4n();
    cases[3].t.b[0] += d, cases[3].t.b[3] -= d;
    cases[3].p = cases[3].pf = cases[3].ld = cases[3].lu = 1;
    /* bbar += d (1, 0, -2, 1), orthogonal to e, c and Ab e (bbar's conditions of orders 2, 3 and
     * 4 on chains, all the linear problem reads below order 5), moves bbar.c^2 = 1/12 (of order 4:
     * a bushy tree, which the linear problem never sees) by d/2: order 3 both ways, linear 4 */
    cases[4].what = "bbar, a bushy tree", cases[4].t = rk4n();
    cases[4].t.bbar[0] += d, cases[4].t.bbar[2] -= 2 * d, cases[4].t.bbar[3] += d;
    cases[4].p = cases[4].pf = 3, cases[4].ld = cases[4].lu = 4;
    for (size_t n = 0; n < 5; n++) {
        const osc_rkn_tableau *t = &cases[n].t;
        assert_int_equal(osc_rkn_validate(t, NULL), OSC_RKN_OK);
        const int p = osc_rkn_coefficient_order(t, true);
        const int pf = osc_rkn_coefficient_order(t, false);
        const int ld = osc_rkn_linear_order(t, true), lu = osc_rkn_linear_order(t, false);
        if (p != cases[n].p || pf != cases[n].pf || ld != cases[n].ld || lu != cases[n].lu)
            fail_msg("%s: orders %d / %d, linear %d / %d; expected %d / %d, %d / %d",
                     cases[n].what, p, pf, ld, lu, cases[n].p, cases[n].pf, cases[n].ld,
                     cases[n].lu);
    }
}

/* Tableaus that satisfy every condition of order <= 4 but one, worked by hand (exact in binary):
 *
 * one_classical_miss: c = (0, 1/2, 1/2, 1) as rk4's, bbar = rk4's (1/6, 1/6, 1/6, 0), b =
 * (1/6, 1/6, 1/2, 1/6) (rk4's with weight moved between the equal nodes: b.c^q = 1/(q+1) for
 * q <= 3 still), abar_21 = 1/4, abar_41 = 1/4, abar_42 = 1/2, so Ab e = (0, 1/4, 0, 3/4),
 * Ab c = (0, 0, 0, 1/4): b.(Ab e) = 1/24 + 1/8 = 1/6, b.(Ab c) = 1/24, bbar.(Ab e) = 1/24,
 * bbar.c^q = 1/((q+1)(q+2)) for q <= 2, all as wanted, but b.(c Ab e) = 1/48 + 1/8 = 7/48, not
 * 1/8. Without drag (the 7 classical trees) order 3; with drag rk4's a gives
 * b.(A c) = 1/8 + 1/12 = 5/24, not 1/6: order 2.
 *
 * one_velocity_miss: rk4's Nystrom form with a stage inserted second, c_2 = 0 but a_21 = 1
 * (Ae != c: no longer a valid tableau, but the order conditions take c as given, rkn.h), its
 * force read only by rk4's third stage through abar, which moves its abar weight 1/4 from stage
 * 1 to it: Ab e and Ab c (c_1 = c_2 = 0) keep their values, Ab Ae gains (Ae)_2 / 4 = 1/4 at
 * rk4's third stage (b = 1/3), so b.(Ab Ae) = 1/24 + 1/12 = 1/8, not 1/24: order 3 with drag;
 * without drag (Ab Ae has a derivative by v) rk4's 4. */
static osc_rkn_tableau one_classical_miss(void)
{
    return (osc_rkn_tableau){.stages = 4,
                             .abar = {{0}, {0.25}, {0}, {0.25, 0.5}},
                             .a = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}},
                             .bbar = {1.0 / 6, 1.0 / 6, 1.0 / 6, 0},
                             .b = {1.0 / 6, 1.0 / 6, 0.5, 1.0 / 6},
                             .c = {0, 0.5, 0.5, 1}};
}

static osc_rkn_tableau one_velocity_miss(void)
{
    return (osc_rkn_tableau){.stages = 5,
                             .abar = {{0}, {0}, {0}, {0, 0.25}, {0, 0, 0.5}},
                             .a = {{0}, {1}, {0.5}, {0, 0, 0.5}, {0, 0, 0, 1}},
                             .bbar = {1.0 / 6, 0, 1.0 / 6, 1.0 / 6, 0},
                             .b = {1.0 / 6, 0, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                             .c = {0, 0, 0.5, 0.5, 1}};
}

static void test_one_condition_missed(void **state)
{
    (void)state;
    osc_rkn_tableau t = one_classical_miss();
    assert_int_equal(osc_rkn_validate(&t, NULL), OSC_RKN_OK);
    assert_int_equal(osc_rkn_coefficient_order(&t, false), 3);
    assert_int_equal(osc_rkn_coefficient_order(&t, true), 2);
    t = one_velocity_miss();
    assert_int_equal(osc_rkn_validate(&t, NULL), OSC_RKN_C_NOT_ROW_SUM);
    assert_int_equal(osc_rkn_coefficient_order(&t, false), 4);
    assert_int_equal(osc_rkn_coefficient_order(&t, true), 3);
}

/* ---- the linear map against closed forms ------------------------------------------------------
 *
 * On the scaled state (x, u = h v) the force times h^2 is G = h^2 f(X, V) = k X + d U with
 * k = -w2 h^2, d = -gam h, U = h V (gravity 0). Worked by hand from the tableaus above:
 *   euler_taylor: G_1 = k x + d u; x' = x + u + G_1 / 2, u' = u + G_1:
 *     M = [[1 + k/2, 1 + d/2], [k, 1 + d]].
 *   verlet_heun: G_1 = k x + d u; X_2 = x + u + G_1 / 2, U_2 = u + G_1, so
 *     G_2 = k X_2 + d U_2 = (k + k^2/2 + k d) x + (k + d + k d/2 + d^2) u;
 *     x' = x + u + G_1 / 2, u' = u + (G_1 + G_2) / 2:
 *     M = [[1 + k/2, 1 + d/2], [k + k^2/4 + k d/2, 1 + d + k/2 + k d/4 + d^2/2]]
 *     (d = 0, k = -h^2: velocity Verlet's map, as test_stability_theory has it).
 *   rk4n: a Nystrom form computes its RK method's stages, so its map is rk4's
 *     R(S) = I + S + S^2/2 + S^3/6 + S^4/24, S = [[0, 1], [k, d]] (hL in the scaled state).
 * Every coefficient of these polynomials is positive, and so are the tableaus' (no
 * cancellation): the map at (|k|, |d|) bounds the terms, and the library's few roundings per term
 * (the coefficients' products and sums, the powers, a sum of at most ~15 terms) stay below
 * 32 eps of it. A force that took the drag as a second k (k X + k U) moves M by ~|d - k|. */
typedef void (*closed_map)(double k, double d, double M[2][2]);

static void euler_taylor_map(double k, double d, double M[2][2])
{
    M[0][0] = 1 + k / 2, M[0][1] = 1 + d / 2;
    M[1][0] = k, M[1][1] = 1 + d;
}

static void verlet_heun_map(double k, double d, double M[2][2])
{
    M[0][0] = 1 + k / 2, M[0][1] = 1 + d / 2;
    M[1][0] = k + k * k / 4 + k * d / 2;
    M[1][1] = 1 + d + k / 2 + k * d / 4 + d * d / 2;
}

static void rk4_map(double k, double d, double M[2][2])
{
    double term[2][2] = {{1, 0}, {0, 1}}; /* S^q / q! */
    for (int r = 0; r < 2; r++)
        for (int q = 0; q < 2; q++)
            M[r][q] = term[r][q];
    for (int q = 1; q <= 4; q++) {
        /* S T: row x is T's row u; row u is k (row x) + d (row u) */
        double next[2][2];
        for (int col = 0; col < 2; col++) {
            next[0][col] = term[1][col] / q;
            next[1][col] = (k * term[0][col] + d * term[1][col]) / q;
        }
        for (int r = 0; r < 2; r++)
            for (int col = 0; col < 2; col++)
                term[r][col] = next[r][col], M[r][col] += next[r][col];
    }
}

static void test_linear_map_closed_form(void **state)
{
    (void)state;
    const struct { const char *name; osc_rkn_tableau (*make)(void); closed_map map; } methods[] = {
        {"euler-taylor", euler_taylor, euler_taylor_map},
        {"verlet-heun", verlet_heun, verlet_heun_map},
        {"rk4", rk4n, rk4_map},
    };
    /* (h, w2, gam): light and heavy drag, a small step, a negative drag (d > 0) */
    const double hwg[][3] = {{0.1, 1, 0.3}, {0.5, 4, 1.5}, {1, 2, 3}, {0.25, 9, -0.8}};
    for (size_t n = 0; n < sizeof methods / sizeof methods[0]; n++)
        for (size_t c = 0; c < sizeof hwg / sizeof hwg[0]; c++) {
            const double h = hwg[c][0], k = -hwg[c][1] * h * h, d = -hwg[c][2] * h;
            const osc_rkn_tableau t = methods[n].make();
            double got[2][2], want[2][2], mag[2][2];
            assert_int_equal(osc_rkn_linear_map(&t, k, d, got), 0);
            methods[n].map(k, d, want);
            methods[n].map(fabs(k), fabs(d), mag);
            for (int r = 0; r < 2; r++)
                for (int q = 0; q < 2; q++)
                    if (!(fabs(got[r][q] - want[r][q]) <= 32 * DBL_EPSILON * mag[r][q]))
                        fail_msg("%s, k %g, d %g: M[%d][%d] = %.17g, closed form %.17g",
                                 methods[n].name, k, d, r, q, got[r][q], want[r][q]);
        }
    osc_rkn_tableau bad = rk4n();
    bad.stages = 0;
    double M[2][2];
    assert_int_equal(osc_rkn_linear_map(&bad, 0, 0, M), -1);
}

/* The linear check's bound on a monomial is the method's magnitude there plus the exact
 * coefficient's |w| (whose own series sum is rounded): twice the magnitude where the two match.
 * abar_41 = delta in rk4's Nystrom form (abar is free of the validation's sums) adds
 * b_4 delta = delta / 6 to u''s k^2 x coefficient b.(Ab e) = 1/6 (order 3); the tolerance
 * there is OSC_TABLEAU_TREE_TOL(3, 4) = 76 eps of 1/6 + 1/6 (with |w|) or of 1/6 (without):
 * 25.3 eps or 12.7 eps. delta / 6 = 19 eps lies between, the rounding of either side (a few eps
 * of 1/6) far inside the margins: linear order 4. The coefficient check has no exact term, and
 * the same condition b.(Ab e) = 1/6 fails its 12.7 eps there: order 2. */
static void test_linear_bound_counts_exact_term(void **state)
{
    (void)state;
    osc_rkn_tableau t = rk4n();
    t.abar[3][0] = 6 * 19 * DBL_EPSILON;
    assert_int_equal(osc_rkn_validate(&t, NULL), OSC_RKN_OK);
    assert_int_equal(osc_rkn_linear_order(&t, false), 4);
    assert_int_equal(osc_rkn_linear_order(&t, true), 4);
    assert_int_equal(osc_rkn_coefficient_order(&t, false), 2);
}

/* ---- validation ------------------------------------------------------------------------------ */

static void assert_error(const osc_rkn_tableau *t, osc_rkn_error want, osc_rkn_field field, int row,
                         int col)
{
    osc_rkn_where where = {-2, -2, -2};
    osc_rkn_error got = osc_rkn_validate(t, &where);
    if (got != want || where.field != field || where.row != row || where.col != col)
        fail_msg("error %d at %s (%d, %d), expected %d at %s (%d, %d)", (int)got,
                 osc_rkn_field_name(where.field), where.row, where.col, (int)want,
                 osc_rkn_field_name(field), row, col);
    assert_non_null(osc_rkn_error_text(got));
    assert_string_not_equal(osc_rkn_error_text(got), "unknown RKN tableau error");
}

static void test_bad_stages(void **state)
{
    (void)state;
    osc_rkn_tableau t = rk4n();
    t.stages = 0;
    assert_error(&t, OSC_RKN_BAD_STAGES, OSC_RKN_FIELD_NONE, -1, -1);
    t.stages = OSC_RKN_MAX_STAGES + 1;
    assert_error(&t, OSC_RKN_BAD_STAGES, OSC_RKN_FIELD_NONE, -1, -1);
    assert_int_equal(osc_rkn_validate(NULL, NULL), OSC_RKN_BAD_STAGES);
    assert_int_equal(osc_rkn_coefficient_order(&t, true), -1);
    assert_int_equal(osc_rkn_linear_order(&t, true), -1);
    assert_int_equal(osc_rkn_coefficient_order(NULL, false), -1);
    assert_int_equal(osc_rkn_linear_order(NULL, false), -1);
}

static void test_not_finite(void **state)
{
    (void)state;
    osc_rkn_tableau t = rk4n();
    t.abar[2][1] = NAN;
    assert_error(&t, OSC_RKN_NOT_FINITE, OSC_RKN_FIELD_ABAR, 2, 1);
    t = rk4n(), t.a[3][0] = -INFINITY;
    assert_error(&t, OSC_RKN_NOT_FINITE, OSC_RKN_FIELD_A, 3, 0);
    t = rk4n(), t.bbar[2] = INFINITY;
    assert_error(&t, OSC_RKN_NOT_FINITE, OSC_RKN_FIELD_BBAR, -1, 2);
    t = rk4n(), t.b[3] = NAN;
    assert_error(&t, OSC_RKN_NOT_FINITE, OSC_RKN_FIELD_B, -1, 3);
    t = rk4n(), t.c[1] = NAN;
    assert_error(&t, OSC_RKN_NOT_FINITE, OSC_RKN_FIELD_C, 1, -1);
    t = rk4n(), t.abar[0][3] = NAN; /* not finite comes before not explicit */
    assert_error(&t, OSC_RKN_NOT_FINITE, OSC_RKN_FIELD_ABAR, 0, 3);
    t = rk4n(), t.b[5] = NAN; /* beyond the stage count: ignored */
    assert_error(&t, OSC_RKN_OK, OSC_RKN_FIELD_NONE, -1, -1);
}

/* Coefficients beyond OSC_TABLEAU_COEF_MAX: refused and located, after finiteness, before
 * explicitness; no order claimed. b = (1e300, -1e300) sums to 0 exactly, yet once passed
 * sum b = 1 (a tolerance of 2e300 eps) and gave overflowed sums to the order checks. */
static void test_too_large(void **state)
{
    (void)state;
    osc_rkn_tableau t = {.stages = 2, .a = {{0}, {1}}, .bbar = {0.5, 0}, .b = {1e300, -1e300},
                         .c = {0, 1}};
    assert_error(&t, OSC_RKN_TOO_LARGE, OSC_RKN_FIELD_B, -1, 0);
    for (int velocity = 0; velocity < 2; velocity++) {
        assert_int_equal(osc_rkn_coefficient_order(&t, velocity), -1);
        assert_int_equal(osc_rkn_linear_order(&t, velocity), -1);
    }
    t = rk4n(), t.abar[3][1] = -2e3;
    assert_error(&t, OSC_RKN_TOO_LARGE, OSC_RKN_FIELD_ABAR, 3, 1);
    t = rk4n(), t.a[0][2] = 5e3; /* too large comes before not explicit */
    assert_error(&t, OSC_RKN_TOO_LARGE, OSC_RKN_FIELD_A, 0, 2);
    t = rk4n(), t.bbar[1] = 1e7;
    assert_error(&t, OSC_RKN_TOO_LARGE, OSC_RKN_FIELD_BBAR, -1, 1);
    t = rk4n(), t.c[2] = 1001;
    assert_error(&t, OSC_RKN_TOO_LARGE, OSC_RKN_FIELD_C, 2, -1);
    t = rk4n(), t.c[2] = 1001, t.b[0] = NAN; /* not finite comes first */
    assert_error(&t, OSC_RKN_NOT_FINITE, OSC_RKN_FIELD_B, -1, 0);
    assert_int_equal(osc_rkn_coefficient_order(&t, true), -1);
    assert_int_equal(osc_rkn_linear_order(&t, false), -1);
}

static void test_not_explicit(void **state)
{
    (void)state;
    osc_rkn_tableau t = rk4n();
    t.abar[1][1] = 0.25; /* diagonal: implicit */
    assert_error(&t, OSC_RKN_NOT_EXPLICIT, OSC_RKN_FIELD_ABAR, 1, 1);
    t = rk4n(), t.a[0][3] = 1e-300; /* upper triangle, however small */
    assert_error(&t, OSC_RKN_NOT_EXPLICIT, OSC_RKN_FIELD_A, 0, 3);
    t = rk4n(), t.a[5][0] = 7, t.abar[4][4] = 1; /* beyond the stage count: ignored */
    assert_error(&t, OSC_RKN_OK, OSC_RKN_FIELD_NONE, -1, -1);
}

/* The tolerance is the tableau's, (s + 1) eps = 1.1e-15 of the terms for 4 stages. */
static void test_c_not_row_sum(void **state)
{
    (void)state;
    osc_rkn_tableau t = rk4n();
    t.c[2] = 0.5 + 1e-12;
    assert_error(&t, OSC_RKN_C_NOT_ROW_SUM, OSC_RKN_FIELD_C, 2, -1);
    t = rk4n(), t.a[3][2] = 0.75; /* c_4 = 1 no longer a_4's row sum */
    assert_error(&t, OSC_RKN_C_NOT_ROW_SUM, OSC_RKN_FIELD_C, 3, -1);
    t = rule38n(), t.c[1] = 0.333333333333333; /* 15 digits: 3.3e-16 off */
    assert_error(&t, OSC_RKN_OK, OSC_RKN_FIELD_NONE, -1, -1);
    t.c[1] = 0.33333333333333; /* 14 digits: 3.3e-15 off */
    assert_error(&t, OSC_RKN_C_NOT_ROW_SUM, OSC_RKN_FIELD_C, 1, -1);
    /* abar's row sums are free: rk4's Nystrom form has (0, 0, 1/4, 1/2), not c^2/2 */
    t = rk4n(), t.abar[3][0] = 0.25;
    assert_error(&t, OSC_RKN_OK, OSC_RKN_FIELD_NONE, -1, -1);
}

static void test_weight_sums(void **state)
{
    (void)state;
    osc_rkn_tableau t = rk4n();
    t.bbar[3] = 0.5; /* sum 1 */
    assert_error(&t, OSC_RKN_BBAR_SUM, OSC_RKN_FIELD_BBAR, -1, -1);
    t = rk4n(), t.bbar[0] += 1e-13;
    assert_error(&t, OSC_RKN_BBAR_SUM, OSC_RKN_FIELD_BBAR, -1, -1);
    t = rk4n(), t.b[0] = 0.2;
    assert_error(&t, OSC_RKN_B_SUM, OSC_RKN_FIELD_B, -1, -1);
    t = rk4n(), t.b[0] += 1e-13;
    assert_error(&t, OSC_RKN_B_SUM, OSC_RKN_FIELD_B, -1, -1);
    /* bbar is checked before b */
    t = rk4n(), t.b[0] = 0.2, t.bbar[0] = 0.2;
    assert_error(&t, OSC_RKN_BBAR_SUM, OSC_RKN_FIELD_BBAR, -1, -1);
}

static void test_texts(void **state)
{
    (void)state;
    assert_string_equal(osc_rkn_field_name(OSC_RKN_FIELD_ABAR), "abar");
    assert_string_equal(osc_rkn_field_name(OSC_RKN_FIELD_A), "a");
    assert_string_equal(osc_rkn_field_name(OSC_RKN_FIELD_BBAR), "bbar");
    assert_string_equal(osc_rkn_field_name(OSC_RKN_FIELD_B), "b");
    assert_string_equal(osc_rkn_field_name(OSC_RKN_FIELD_C), "c");
    assert_string_equal(osc_rkn_error_text(OSC_RKN_C_NOT_ROW_SUM), "c is not the row sum of a");
    assert_string_equal(osc_rkn_error_text((osc_rkn_error)99), "unknown RKN tableau error");
}

/* ---- the methods ----------------------------------------------------------------------------- */

static osc_method make(osc_rkn_tableau t, const char *name, int order)
{
    osc_method m;
    assert_int_equal(osc_method_from_rkn(&t, name, order, &m), OSC_OK);
    return m;
}

static void release(osc_method *m) { assert_int_equal(osc_rkn_method_release(m), OSC_OK); }

static const osc_method *builtin(const char *name)
{
    const osc_method *m = osc_method_find(name);
    assert_non_null(m);
    return m;
}

/* rk4's Nystrom form is rk4's map, coded otherwise: the two agree to round-off
 * (check_roundoff_tol, method_check.c), with drag and gravity, double and float, 1-3 axes; the
 * audited kernel leaves the state the plain one does, bit for bit, at every ISA level the CPU
 * has. Heun's Nystrom form, another map, differs far beyond the tolerance. */
static void rk4_matches_at_level(void)
{
    osc_method rkn = make(rk4n(), "rkn-rk4", 4);
    check_matches(&rkn, builtin("rk4"), false, 1, true);
    osc_method heun = make(heunn(), "rkn-heun", 2);
    check_differs(&heun, builtin("rk4"), false);
    release(&heun);
    release(&rkn);
}

static void test_rk4_matches_builtin(void **state)
{
    (void)state;
    check_at_every_level(rk4_matches_at_level);
}

/* The kernel against the method's own scalar references (no fma, every coefficient), for a
 * method with no built-in twin; the tolerance of check_roundoff_tol. */
static void test_kernel_matches_reference(void **state)
{
    (void)state;
    osc_method m = make(rkn4_kutta_a(), "rkn4", 4);
    check_matches_reference(&m);
    release(&m);
}

/* Measured orders (as the built-in methods are measured; 0.15: the next term's share at the
 * largest dt), without drag and with drag 0.3: Nystrom's 3-stage method measures its order 4
 * for x'' = f(x) undamped and 3 with drag, where its velocity stages (Kutta's) limit it. */
static void test_measured_orders(void **state)
{
    (void)state;
    const struct { osc_rkn_tableau (*make)(void); double drag; int measured; } cases[] = {
        {rk4n, 0, 4},           {rk4n, 0.3, 4},         {kutta3n, 0.3, 3},
        {heunn, 0.3, 2},        {verlet_heun, 0, 2},    {verlet_heun, 0.3, 2},
        {euler_taylor, 0.3, 1}, {rkn4_kutta_a, 0, 4},   {rkn4_kutta_a, 0.3, 3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        osc_method m = make(cases[k].make(), "rkn-order", cases[k].measured);
        osc_order_fit f = check_measure_order(&m, cases[k].drag);
        assert_int_equal(f.status, OSC_FIT_OK);
        if (!(fabs(f.order - cases[k].measured) < 0.15) || !f.pass)
            fail_msg("case %zu: measured %g (%s), expected %d", k, f.order,
                     osc_verdict_name(f.verdict), cases[k].measured);
        release(&m);
    }
}

/* rk4's map: |R(ih)|^2 = 1 - h^6/72 + h^8/576 is 1 again at h = 2 sqrt(2) undamped (to 1e-9, as
 * tests/test_tableau_method.c holds rk4's tableau); at zeta = 1 R(-h) = -1 at h =
 * 2.785293563405282, where the eigenvalue -h of L is double: there a perturbation delta of the
 * map's entries moves its eigenvalues by ~sqrt(delta), and the long double reference's round-off,
 * delta ~ 64 eps_ld |A|^2 ~ 1e-16 (analysis.h), by ~1e-8 (this coding's limit lies 6e-9 from
 * the value, the tableau's 1e-10): to 1e-7 there. Heun's Nystrom form, Heun's map undamped:
 * |R(ih)|^2 = 1 + h^4/4, unstable for every h > 0 (NEVER); verlet_heun undamped is velocity
 * Verlet, [[1 - h^2/2, h], [-h (1 - h^2/4), 1 - h^2/2]] with det 1 and trace 2 - h^2: bounded
 * up to h = 2. */
static void test_stability_theory(void **state)
{
    (void)state;
    osc_method m = make(rk4n(), "rkn-rk4", 4);
    osc_stab_theory t;
    assert_int_equal(osc_stability_theory(&m, 0, &t), OSC_OK);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_true(fabs(t.limit / (2 * sqrt(2)) - 1) < 1e-9);
    assert_int_equal(osc_stability_theory(&m, 1, &t), OSC_OK);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_true(fabs(t.limit / 2.785293563405282 - 1) < 1e-7);
    release(&m);
    m = make(heunn(), "rkn-heun", 2);
    assert_int_equal(osc_stability_theory(&m, 0, &t), OSC_OK);
    assert_int_equal(t.kind, OSC_STAB_NEVER);
    release(&m);
    m = make(verlet_heun(), "rkn-verlet-heun", 2);
    assert_int_equal(osc_stability_theory(&m, 0, &t), OSC_OK);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_true(fabs(t.limit / 2 - 1) < 1e-9);
    release(&m);
}

/* Per stage 2 + [c_i != 0] + nnz(abar_i) + nnz(a_i), then 1 + nnz(bbar) + nnz(b): rk4's form
 * 2 + 4 + 5 + 5 + 1 + 3 + 4 = 24; verlet_heun's 2 + 5 + 1 + 1 + 2 = 11; euler_taylor
 * 2 + 1 + 1 + 1 = 5. */
static void test_fma_count(void **state)
{
    (void)state;
    osc_method r = make(rk4n(), "r", 4), h = make(verlet_heun(), "h", 2);
    osc_method e = make(euler_taylor(), "e", 1);
    assert_int_equal(r.fma_per_step, 24);
    assert_int_equal(h.fma_per_step, 11);
    assert_int_equal(e.fma_per_step, 5);
    assert_int_equal(r.force_evals, 4);
    assert_int_equal(h.force_evals, 2);
    assert_int_equal(r.order, 4);
    assert_int_equal(r.order_damped, 4);
    assert_false(r.symplectic);
    assert_int_equal(r.nstate, 2);
    release(&r), release(&h), release(&e);
}

/* fma_per_step is what the kernels execute: the count of the FMAs the kernels run per lane and
 * step, from the nonzero masks they branch on (osc_rkn_kernel_fma), equals the declared number,
 * in both precisions, for 1 to 8 stages with zeros in every coefficient array (the 8-stage one:
 * 16 forces + 6 nonzero c_i + 16 abar_ij + 21 a_ij + 1 + 7 bbar_i + 7 b_i = 74), and for a
 * coefficient that scales to 0 in float (abar_21 = 1e-50: counted, so applied, as an fma by 0). */
static void test_fma_count_is_executed(void **state)
{
    (void)state;
    static const osc_precision precisions[] = {OSC_DOUBLE, OSC_FLOAT};
    osc_rkn_tableau ts[OSC_RKN_MAX_STAGES + 2];
    for (int s = 1; s <= OSC_RKN_MAX_STAGES; s++)
        ts[s - 1] = check_rkn_with_zeros(s);
    ts[OSC_RKN_MAX_STAGES] = rk4n();
    ts[OSC_RKN_MAX_STAGES + 1] = kutta3n();
    ts[OSC_RKN_MAX_STAGES + 1].abar[2][1] = 1e-50;
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
        osc_method m = make(ts[k], "count", 1);
        for (size_t p = 0; p < 2; p++)
            if (osc_rkn_kernel_fma(&m, precisions[p]) != m.fma_per_step)
                fail_msg("tableau %zu, %s: the kernel executes %d FMAs, fma_per_step says %d", k,
                         osc_precision_name(precisions[p]), osc_rkn_kernel_fma(&m, precisions[p]),
                         m.fma_per_step);
        if (ts[k].stages == 8)
            assert_int_equal(m.fma_per_step, 74);
        release(&m);
    }
    assert_int_equal(osc_rkn_kernel_fma(builtin("rk4"), OSC_DOUBLE), -1);
}

static int make_slot(const char *name, osc_method *out)
{
    const osc_rkn_tableau t = rk4n();
    return osc_method_from_rkn(&t, name, 4, out);
}

/* Needs every slot free: a test above that failed before releasing its method fails this too. */
static void test_slots_and_arguments(void **state)
{
    (void)state;
    check_slot_pool(OSC_RKN_METHOD_SLOTS, make_slot, osc_rkn_method_release);
    check_method_names(OSC_RKN_NAME_MAX, make_slot, osc_rkn_method_release);

    osc_rkn_tableau t = rk4n();
    osc_method m;
    assert_int_equal(osc_method_from_rkn(NULL, "a", 4, &m), OSC_EINVAL);
    assert_int_equal(osc_method_from_rkn(&t, "a", 0, &m), OSC_EINVAL);
    t.b[0] = 0.5; /* invalid: b sums to 4/3 */
    assert_int_equal(osc_method_from_rkn(&t, "a", 4, &m), OSC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_orders),
        cmocka_unit_test(test_perturbed_drops),
        cmocka_unit_test(test_linear_map_closed_form),
        cmocka_unit_test(test_one_condition_missed),
        cmocka_unit_test(test_linear_bound_counts_exact_term),
        cmocka_unit_test(test_bad_stages),
        cmocka_unit_test(test_not_finite),
        cmocka_unit_test(test_not_explicit),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_c_not_row_sum),
        cmocka_unit_test(test_weight_sums),
        cmocka_unit_test(test_texts),
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
