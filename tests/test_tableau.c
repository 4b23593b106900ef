/* Butcher tableaus: known methods give their known orders (coefficient and linear), perturbed
 * tableaus drop, a method of linear order 4 but coefficient order 3 is told apart, one that
 * misses only the tall tree of order 5 reads 4, one that misses only b.(c A c^2) reads 4 in
 * general and 5 on x'' = f(x) (and a pendulum measures both), an order-6 method reads 6, and
 * every validation error is found and located. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "known_tableaus.h"
#include "tableau.h"

/* ---- the known tableaus ------------------------------------------------------------------- */

static osc_tableau euler(void) { return (osc_tableau){.stages = 1, .b = {1}, .c = {0}}; }

static osc_tableau midpoint(void)
{
    return (osc_tableau){.stages = 2, .a = {{0}, {0.5}}, .b = {0, 1}, .c = {0, 0.5}};
}

static osc_tableau heun(void)
{
    return (osc_tableau){.stages = 2, .a = {{0}, {1}}, .b = {0.5, 0.5}, .c = {0, 1}};
}

static osc_tableau rk4(void)
{
    return (osc_tableau){.stages = 4,
                         .a = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}},
                         .b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                         .c = {0, 0.5, 0.5, 1}};
}

static osc_tableau rule38(void)
{
    return (osc_tableau){.stages = 4,
                         .a = {{0}, {1.0 / 3}, {-1.0 / 3, 1}, {1, -1, 1}},
                         .b = {0.125, 0.375, 0.375, 0.125},
                         .c = {0, 1.0 / 3, 2.0 / 3, 1}};
}

/* Linear order 4, coefficient order 3. Built from the 3/8 rule's nodes c = (0, 1/3, 2/3, 1):
 * b must satisfy the quadrature conditions b.1 = 1, b.c = 1/2, b.c^2 = 1/3; they leave one free
 * direction, the third difference (-1, 3, -3, 1), so b = (1/8, 3/8, 3/8, 1/8) + (1/24) (-1, 3,
 * -3, 1) = (1/12, 1/2, 1/4, 1/6), whose b.c^3 = 7/27 != 1/4 breaks an order-4 tree. Then a is
 * chosen for the two remaining linear conditions with a21 = c2, a32 = 1 (a31 = c3 - 1):
 * b.AAc = b4 a43 a32 c2 = a43 / 18 = 1/24 gives a43 = 3/4, and b.Ac = b3 a32 c2 + b4 (a42 c2 +
 * a43 c3) = 1/12 + (a42 / 3 + 1/2) / 6 = 1/6 gives a42 = 0, a41 = 1 - a43 = 1/4. So R(z) =
 * 1 + z + z^2/2 + z^3/6 + z^4/24 (rk4's) while b.c^3 = 7/27. */
static osc_tableau linear4_order3(void)
{
    return (osc_tableau){.stages = 4,
                         .a = {{0}, {1.0 / 3}, {-1.0 / 3, 1}, {0.25, 0, 0.75}},
                         .b = {1.0 / 12, 0.5, 0.25, 1.0 / 6},
                         .c = {0, 1.0 / 3, 2.0 / 3, 1}};
}

/* Dormand and Prince's DOPRI5 (HNW I, Table II.5.2), its fifth-order weights: every one of the
 * 17 conditions up to order 5 holds, so each order-5 tree's gamma and weight is checked (rk4
 * never reaches them: its linear order, 4, bounds the check). R(z) = e^z's series to z^5 / 120, then
 * z^6 / 600 != 1 / 720 (HNW IV.2): linear order 5. */
static osc_tableau dopri5(void)
{
    return (osc_tableau){
        .stages = 7,
        .a = {{0},
              {1.0 / 5},
              {3.0 / 40, 9.0 / 40},
              {44.0 / 45, -56.0 / 15, 32.0 / 9},
              {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
              {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
              {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}},
        .b = {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0},
        .c = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1}};
}

/* Every condition up to order 5 but the tall tree's: b.A^3 c = 1/100, not 1/120, and so also
 * R(z)'s z^5 coefficient b^T A^4 1 = 1/100: coefficient order 4 and linear order 4 (the tall
 * tree is the linear condition of its order, so the linear order alone stops the check here).
 * No closed form at hand: solved numerically, 21 unknowns (a below the diagonal, b; c = A 1)
 * against the 16 other conditions and b.A^3 c = h, minimum-norm Newton steps in 60-digit mpmath
 * from DOPRI5's first six stages (a 6-stage order-5 method, its b7 = 0) as h moves from 1/120 to
 * 1/100 in ten steps; residuals < 1e-59. b2 stays 0 as in DOPRI5. Checked in exact rationals
 * for the doubles these 17-digit decimals become: the 16 kept conditions miss by at most 9.1e-17,
 * at most 0.32% of TREE_TOL(order, 6) * Phi_abs; the tall tree misses by 1/600 = 1.7e-3, 1.0e12
 * times its tolerance, b^T A^4 1 likewise; c's row sums and sum b are within 1.8% of SUM_TOL.
 * (The script is in the commit that added this.) */
static osc_tableau tall_tree_missed(void)
{
    return (osc_tableau){
        .stages = 6,
        .a = {{0},
              {0.19868810849766140},
              {0.076106888553258201, 0.21867438826452930},
              {0.96026512930764424, -3.7661079930968895, 3.5951482936525419},
              {2.8889371644603903, -11.610199660889441, 9.8738590379889439,
               -0.25773556664205832},
              {2.7109549600600637, -10.655988043234798, 8.9779733044685240,
               0.029184344691054573, -0.099588709627221992}},
        .b = {0.089501098207525414, 0, 0.44181011590346015, 0.64774215780379951,
              -0.45573095409430743, 0.27667758217952235},
        .c = {0, 0.19868810849766140, 0.29478127681778751, 0.78930542986329666,
              0.89486097491783481, 0.96253585635762237}};
}

/* ---- the checks ----------------------------------------------------------------------------- */

/* validate gives error want located at (row, col), and a text for it */
static void assert_error(const osc_tableau *t, osc_tableau_error want, int row, int col)
{
    osc_tableau_where where = {-2, -2};
    osc_tableau_error got = osc_tableau_validate(t, &where);
    if (got != want || where.row != row || where.col != col)
        fail_msg("error %d at (%d, %d), expected %d at (%d, %d)", (int)got, where.row, where.col,
                 (int)want, row, col);
    assert_non_null(osc_tableau_error_text(got));
}

/* t is valid (located nowhere) and has these coefficient orders (in general, on x'' = f(x)) and
 * linear order; name labels a miss */
static void assert_three_orders(const char *name, const osc_tableau *t, int coefficient,
                                int nystrom, int linear)
{
    assert_error(t, OSC_TABLEAU_OK, -1, -1);
    int p = osc_tableau_coefficient_order(t), pn = osc_tableau_nystrom_coefficient_order(t),
        lin = osc_tableau_linear_order(t);
    if (p != coefficient || pn != nystrom || lin != linear)
        print_error("%s: coefficient order %d (on x'' = f(x) %d), linear order %d, expected %d "
                    "(%d) and %d\n", name, p, pn, lin, coefficient, nystrom, linear);
    assert_int_equal(p, coefficient);
    assert_int_equal(pn, nystrom);
    assert_int_equal(lin, linear);
}

/* The same where x'' = f(x) has the general coefficient order: every tableau here but one. */
static void assert_orders(const char *name, const osc_tableau *t, int coefficient, int linear)
{
    assert_three_orders(name, t, coefficient, coefficient, linear);
}

typedef struct known {
    const char *name;
    osc_tableau (*make)(void);
    int order;
} known;

static const known knowns[] = {
    {"euler", euler, 1},  {"midpoint", midpoint, 2}, {"heun", heun, 2},     {"ralston", ralston, 2},
    {"kutta3", kutta3, 3}, {"rk4", rk4, 4},           {"3/8 rule", rule38, 4},
    {"dopri5", dopri5, 5},  {"butcher6", butcher6, 6},
};

static void test_known_orders(void **state)
{
    (void)state;
    for (size_t n = 0; n < sizeof knowns / sizeof knowns[0]; n++) {
        osc_tableau t = knowns[n].make();
        assert_orders(knowns[n].name, &t, knowns[n].order, knowns[n].order);
    }
}

/* Order 4 is not order 5: the linear order of a 4-stage method is at most 4 (b^T A^4 1 = 0, not
 * 1/120), and it bounds the coefficient order (tableau.c). Shown above.
 * Here: changes far above the tolerance (~1e-14) but small make the order drop to the first
 * condition they break. */
static void test_perturbed_drops(void **state)
{
    (void)state;
    /* b1 += d, b4 -= d keeps sum b = 1 but breaks b.c = 1/2 (by -d): order 1 */
    osc_tableau t = rk4();
    t.b[0] += 1e-6, t.b[3] -= 1e-6;
    assert_orders("rk4, b.c broken", &t, 1, 1);
    /* a31 += d, a32 -= d keeps c3 but changes b.Ac by -b3 d c2 = -d/6: order 2 */
    t = rk4();
    t.a[2][0] += 1e-6, t.a[2][1] -= 1e-6;
    assert_orders("rk4, b.Ac broken", &t, 2, 2);
    /* a42 += d, a43 -= d keeps c4, and as c2 = c3 also b.Ac, b.c Ac and b.A c^2; b.AAc =
     * b4 (a42 (Ac)_2 + a43 (Ac)_3) = (1 - d) / 24 with (Ac)_2 = 0, (Ac)_3 = 1/4 misses by
     * d/24 = 4e-11 at d = 1e-9, far above the tolerance 4 (4 + 4 + 16) eps / 24 = 9e-16: order 3 */
    t = rk4();
    t.a[3][1] += 1e-9, t.a[3][2] -= 1e-9;
    assert_orders("rk4, b.AAc broken", &t, 3, 3);
}

/* Rounding alone never drops an order: the 3/8 rule with its thirds rounded differently (the
 * row sums of a and c each as double computes them) is still order 4. */
static void test_rounding_keeps_order(void **state)
{
    (void)state;
    osc_tableau t = rule38();
    t.c[1] = 1 - 2.0 / 3, t.c[2] = 1 - 1.0 / 3; /* 1/3 and 2/3 by another rounding */
    assert_orders("3/8 rule, thirds rounded otherwise", &t, 4, 4);
}

/* Misses just above the tolerance are found. rk4 with a42 += d, a43 -= d (as above) misses
 * b.AAc = b^T A^3 1 = 1/24 by d/24 = 4.2e-14 at d = 1e-12; TREE_TOL(4, 4) * Phi_abs = 96 eps /
 * 24 = 8.9e-16, so the miss is ~47 tolerances: order 3 both ways. */
static void test_small_miss_found(void **state)
{
    (void)state;
    osc_tableau t = rk4();
    t.a[3][1] += 1e-12, t.a[3][2] -= 1e-12;
    assert_orders("rk4, b.AAc missed by 4e-14", &t, 3, 3);
}

/* Cancelling weights: b = (0, 800, -799), c = (0, 0.61, 487.5/799) give b.c = 488 - 487.5 =
 * 1/2, the sum of terms of ~488 whose roundings leave ~6e-14, more than TREE_TOL(2, 3) * |1/2|
 * = 4.9e-15 but far within TREE_TOL(2, 3) * 975 = 9.5e-12 (the magnitude of the terms): order
 * 2 both ways (b.c^2 = 0.238 != 1/3, b^T A^2 1 = -799 c3 c2 != 1/6). */
static void test_cancelling_weights_keep_order(void **state)
{
    (void)state;
    osc_tableau t = {.stages = 3, .a = {{0}, {0.61}, {0, 487.5 / 799}}, .b = {0, 800, -799},
                     .c = {0, 0.61, 487.5 / 799}};
    assert_orders("cancelling weights", &t, 2, 2);
}

static void test_linear_order_beats_coefficient_order(void **state)
{
    (void)state;
    osc_tableau t = linear4_order3();
    assert_orders("linear4_order3", &t, 3, 4);
}

/* The tall tree's condition is the linear one of its order: missing it caps both the linear and
 * the coefficient order at 4 (on x'' = f(x) too: the tall tree is a Nystrom tree). */
static void test_tall_tree_alone_caps_order(void **state)
{
    (void)state;
    osc_tableau t = tall_tree_missed();
    assert_orders("tall tree missed", &t, 4, 4);
}

/* b.(c A c^2) = 1/15 counts in general and not on x'' = f(x); with the skip moved to another
 * order-5 tree (or none) the second order would read 4. */
static void test_c_ac2_only_in_general(void **state)
{
    (void)state;
    osc_tableau t = c_ac2_missed();
    assert_three_orders("b.(c A c^2) missed", &t, 4, 5, 5);
}

/* ---- the orders measured on a nonlinear problem ----------------------------------------------
 *
 * The pendulum x'' = -sin x (a force of x alone) and x'' = -sin x - v^3 / 2 (one that reads v),
 * from (x, v) = (1, 0.5) to t = 4 in steps of h = 0.1 and 0.05, each against the same method at
 * h = 1/2560 (whose error is ~(0.05 * 2560)^-5 = 3e-11 of the h = 0.05 run's at order 5). The
 * measured order log2(e(0.1) / e(0.05)) then reads the order the coefficients have on each
 * problem; its next term is O(h) relative, ~0.05-0.1 at these steps (measured 4.98 and 3.93, and
 * 3.97 for tall_tree_missed on x'' = f(x)):
 * the bounds, 4.7-5.3 and 3.7-4.3, keep it apart from the neighbouring orders. */

typedef void (*field)(const double y[2], double dy[2]);

static void pendulum(const double y[2], double dy[2]) { dy[0] = y[1], dy[1] = -sin(y[0]); }

static void pendulum_cubic_drag(const double y[2], double dy[2])
{
    dy[0] = y[1], dy[1] = -sin(y[0]) - 0.5 * y[1] * y[1] * y[1];
}

static void rk_run(const osc_tableau *t, field f, double h, double y[2])
{
    y[0] = 1, y[1] = 0.5;
    const long steps = lround(4 / h);
    for (long n = 0; n < steps; n++) {
        double k[OSC_TABLEAU_MAX_STAGES][2];
        for (int i = 0; i < t->stages; i++) {
            double stage[2] = {y[0], y[1]};
            for (int j = 0; j < i; j++)
                stage[0] += h * t->a[i][j] * k[j][0], stage[1] += h * t->a[i][j] * k[j][1];
            f(stage, k[i]);
        }
        for (int i = 0; i < t->stages; i++)
            y[0] += h * t->b[i] * k[i][0], y[1] += h * t->b[i] * k[i][1];
    }
}

static double measured_order(const osc_tableau *t, field f)
{
    double ref[2], coarse[2], fine[2];
    rk_run(t, f, 1.0 / 2560, ref);
    rk_run(t, f, 0.1, coarse);
    rk_run(t, f, 0.05, fine);
    double e_coarse = fmax(fabs(coarse[0] - ref[0]), fabs(coarse[1] - ref[1]));
    double e_fine = fmax(fabs(fine[0] - ref[0]), fabs(fine[1] - ref[1]));
    return log2(e_coarse / e_fine);
}

static void test_pendulum_orders(void **state)
{
    (void)state;
    osc_tableau t = c_ac2_missed();
    double of_x = measured_order(&t, pendulum), of_xv = measured_order(&t, pendulum_cubic_drag);
    print_message("b.(c A c^2) missed: measured order %.3f on x'' = f(x), %.3f on x'' = f(x, v)\n",
                  of_x, of_xv);
    assert_true(of_x > 4.7 && of_x < 5.3);
    assert_true(of_xv > 3.7 && of_xv < 4.3);
    /* the problem does not make the order: tall_tree_missed (order 4 both ways) reads 4 on x'' =
     * f(x) */
    t = tall_tree_missed();
    double tall_x = measured_order(&t, pendulum);
    print_message("tall tree missed: measured order %.3f on x'' = f(x)\n", tall_x);
    assert_true(tall_x > 3.7 && tall_x < 4.3);
}

/* ---- validation --------------------------------------------------------------------------- */

static void test_validation_errors(void **state)
{
    (void)state;
    osc_tableau t = rk4();
    t.stages = 0;
    assert_error(&t, OSC_TABLEAU_BAD_STAGES, -1, -1);
    t.stages = OSC_TABLEAU_MAX_STAGES + 1;
    assert_error(&t, OSC_TABLEAU_BAD_STAGES, -1, -1);
    assert_int_equal(osc_tableau_validate(NULL, NULL), OSC_TABLEAU_BAD_STAGES);
    assert_int_equal(osc_tableau_coefficient_order(&t), -1);
    assert_int_equal(osc_tableau_nystrom_coefficient_order(&t), -1);
    assert_int_equal(osc_tableau_linear_order(&t), -1);

    t = rk4(), t.a[2][1] = NAN;
    assert_error(&t, OSC_TABLEAU_NOT_FINITE, 2, 1);
    t = rk4(), t.b[3] = INFINITY;
    assert_error(&t, OSC_TABLEAU_NOT_FINITE, -1, 3);
    t = rk4(), t.c[1] = NAN;
    assert_error(&t, OSC_TABLEAU_NOT_FINITE, 1, -1);

    t = rk4(), t.a[1][1] = 0.5; /* diagonal: implicit */
    assert_error(&t, OSC_TABLEAU_NOT_EXPLICIT, 1, 1);
    t = rk4(), t.a[0][3] = 1e-300; /* upper triangle, however small */
    assert_error(&t, OSC_TABLEAU_NOT_EXPLICIT, 0, 3);
    t = rk4(), t.a[4][0] = 7; /* beyond the stage count: ignored */
    assert_error(&t, OSC_TABLEAU_OK, -1, -1);

    t = rk4(), t.c[2] = 0.5 + 1e-12; /* far above the 1.1e-15 tolerance */
    assert_error(&t, OSC_TABLEAU_C_NOT_ROW_SUM, 2, -1);
    t = rule38(), t.c[1] = 0.333333333333333; /* 15 digits: 3.3e-16 off, tolerance 1.1e-15 */
    assert_error(&t, OSC_TABLEAU_OK, -1, -1);
    t.c[1] = 0.33333333333333; /* 14 digits: 3.3e-15 off */
    assert_error(&t, OSC_TABLEAU_C_NOT_ROW_SUM, 1, -1);

    t = rk4(), t.b[0] = 0.2;
    assert_error(&t, OSC_TABLEAU_B_SUM, -1, -1);
    t = rk4(), t.b[0] += 1e-13;
    assert_error(&t, OSC_TABLEAU_B_SUM, -1, -1);
}

/* Coefficients of 1e300 with b summing to 0 exactly once passed (sum b = 1 within a tolerance
 * of 2e300 eps) and were given orders 2 and 2, their higher conditions comparing inf with inf:
 * now refused, located, and no order is claimed (-1) for a tableau the checks cannot judge. */
static void test_huge_coefficients(void **state)
{
    (void)state;
    osc_tableau t = {.stages = 2, .a = {{0}, {1e300}}, .b = {1e300, -1e300}, .c = {0, 1e300}};
    assert_error(&t, OSC_TABLEAU_TOO_LARGE, 1, 0);
    assert_int_equal(osc_tableau_coefficient_order(&t), -1);
    assert_int_equal(osc_tableau_linear_order(&t), -1);
    t = rk4(), t.b[2] = -OSC_TABLEAU_COEF_MAX * 2;
    assert_error(&t, OSC_TABLEAU_TOO_LARGE, -1, 2);
    t = rk4(), t.c[3] = 1e4; /* too large comes before c is not the row sum */
    assert_error(&t, OSC_TABLEAU_TOO_LARGE, 3, -1);
    t = rk4(), t.a[3][2] = NAN, t.b[0] = 1e9; /* not finite comes first */
    assert_error(&t, OSC_TABLEAU_NOT_FINITE, 3, 2);
    assert_int_equal(osc_tableau_coefficient_order(&t), -1);
    assert_int_equal(osc_tableau_linear_order(&t), -1);
    /* at the bound the checks still resolve: b = (1000, -999), b.c = 1/2 at c2 = -1/1998, but
     * b.c^2 = -999/1998^2, nowhere near 1/3: order 2 both ways */
    t = (osc_tableau){.stages = 2, .a = {{0}, {-1.0 / 1998}}, .b = {OSC_TABLEAU_COEF_MAX, -999},
                      .c = {0, -1.0 / 1998}};
    assert_orders("b at the bound", &t, 2, 2);
}

/* The tolerance scales with the terms' magnitudes as tableau.h states, sum |b_i| and |c_i| +
 * sum_j |a_ij|, not with the sums themselves. b = (1000, -999 + 1e-13): sum b misses 1 by
 * ~1e-13, within 3 eps * 1999 = 1.3e-12 but not within 3 eps * 1 = 6.7e-16. Row 2 of a =
 * (300, 300) with c = 600 + 8e-13: within 4 eps * 1200 = 1.07e-12, not within 4 eps * 600 =
 * 5.3e-13 (the magnitude without |c|). */
static void test_tolerance_scales_with_magnitudes(void **state)
{
    (void)state;
    osc_tableau t = {.stages = 2, .a = {{0}, {0.5}}, .b = {1000, -999 + 1e-13}, .c = {0, 0.5}};
    assert_error(&t, OSC_TABLEAU_OK, -1, -1);
    t.b[1] = -999 + 3e-12; /* 3e-12 > 1.3e-12 */
    assert_error(&t, OSC_TABLEAU_B_SUM, -1, -1);
    t = (osc_tableau){.stages = 3, .a = {{0}, {0.5}, {300, 300}}, .b = {0.25, 0.5, 0.25},
                      .c = {0, 0.5, 600 + 8e-13}};
    assert_error(&t, OSC_TABLEAU_OK, -1, -1);
    t.c[2] = 600 + 2e-12; /* 2e-12 > 1.07e-12 */
    assert_error(&t, OSC_TABLEAU_C_NOT_ROW_SUM, 2, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_orders),
        cmocka_unit_test(test_perturbed_drops),
        cmocka_unit_test(test_rounding_keeps_order),
        cmocka_unit_test(test_small_miss_found),
        cmocka_unit_test(test_cancelling_weights_keep_order),
        cmocka_unit_test(test_linear_order_beats_coefficient_order),
        cmocka_unit_test(test_tall_tree_alone_caps_order),
        cmocka_unit_test(test_c_ac2_only_in_general),
        cmocka_unit_test(test_pendulum_orders),
        cmocka_unit_test(test_validation_errors),
        cmocka_unit_test(test_huge_coefficients),
        cmocka_unit_test(test_tolerance_scales_with_magnitudes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
