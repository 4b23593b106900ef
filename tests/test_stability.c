/* Stability limits: the spectral radius on matrices with known eigenvalues, the theory limits
 * against closed forms, and the measured limits against theory. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "known_tableaus.h"
#include "tableau.h"

typedef double mat[OSC_MAX_STATE][OSC_MAX_STATE];

static const osc_method *find_or_skip(const char *name)
{
    const osc_method *m = osc_method_find(name);
    if (!m)
        skip();
    return m;
}

static void assert_near(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want))) {
        print_error("got %.17g, want %.17g (rel tol %g)\n", got, want, rel);
        fail();
    }
}

/* ---- spectral radius ---------------------------------------------------------------------- */

static void test_radius_2x2(void **state)
{
    (void)state;
    double c = cos(0.7), s = sin(0.7);
    mat rotation = {{c, -s}, {s, c}};
    assert_near(osc_spectral_radius(2, rotation), 1, 1e-15);
    mat real_pair = {{2, 0}, {0, -0.5}};
    assert_near(osc_spectral_radius(2, real_pair), 2, 1e-15);
    mat jordan = {{-1, 1}, {0, -1}};
    assert_near(osc_spectral_radius(2, jordan), 1, 1e-15);
    mat spiral = {{0.3, -1.2}, {1.2, 0.3}}; /* 0.3 +- 1.2i */
    assert_near(osc_spectral_radius(2, spiral), hypot(0.3, 1.2), 1e-15);
}

static void test_radius_3x3(void **state)
{
    (void)state;
    mat diagonal = {{0.5, 0, 0}, {0, -3, 0}, {0, 0, 1}};
    assert_near(osc_spectral_radius(3, diagonal), 3, 1e-14);
    /* a rotation by 0.4 in the (0, 2) plane and 0 on axis 1: radius exactly 1 */
    double c = cos(0.4), s = sin(0.4);
    mat rot_and_zero = {{c, 0, -s}, {0, 0, 0}, {s, 0, c}};
    assert_near(osc_spectral_radius(3, rot_and_zero), 1, 1e-14);
    /* companion of (l - 0.3)(l^2 + 0.4 l + 1.44): roots 0.3 and -0.2 +- i sqrt(1.4) (|l| = 1.2) */
    double a2 = 0.4 - 0.3, a1 = 1.44 - 0.12, a0 = -0.432;
    mat companion = {{-a2, -a1, -a0}, {1, 0, 0}, {0, 1, 0}};
    assert_near(osc_spectral_radius(3, companion), 1.2, 1e-13);
    /* companion of (l + 2.5)(l - 0.1)(l - 0.7): three real roots, largest |l| = 2.5 */
    double b2 = 2.5 - 0.8, b1 = 0.07 - 2.5 * 0.8, b0 = 2.5 * 0.07;
    mat three_real = {{-b2, -b1, -b0}, {1, 0, 0}, {0, 1, 0}};
    assert_near(osc_spectral_radius(3, three_real), 2.5, 1e-13);
}

/* 1 x 1: |a|; any other size is not handled: NaN. */
static void test_radius_other_sizes(void **state)
{
    (void)state;
    mat negative = {{-0.5}};
    assert_true(osc_spectral_radius(1, negative) == 0.5);
    assert_true(isnan(osc_spectral_radius(0, negative)) && isnan(osc_spectral_radius(4, negative)));
}

/* The matrix semi-implicit Euler has by hand (w2 = 1, gam = 2 zeta):
 *   v' = -h x + (1 - gam h) v,  x' = (1 - h^2) x + h (1 - gam h) v. */
static void test_amplification_semi_implicit(void **state)
{
    (void)state;
    const osc_method *m = find_or_skip("semi-implicit");
    double h = 0.7, gam = 0.2;
    mat A;
    osc_amplification(m, gam / 2, h, A);
    assert_near(A[0][0], 1 - h * h, 1e-15);
    assert_near(A[0][1], h * (1 - gam * h), 1e-15);
    assert_near(A[1][0], -h, 1e-15);
    assert_near(A[1][1], 1 - gam * h, 1e-15);
}

/* ---- theory ------------------------------------------------------------------------------- */

static osc_stab_theory theory(const osc_method *m, double zeta)
{
    osc_stab_theory t;
    assert_int_equal(osc_stability_theory(m, zeta, &t), OSC_OK);
    return t;
}

/* Bisection runs to 1e-13 relative; the rho tolerance moves a limit by ~1e-12 at most, so the
 * known values hold to 1e-9. */
static void assert_limit(const char *name, double zeta, double want)
{
    osc_stab_theory t = theory(find_or_skip(name), zeta);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_near(t.limit, want, 1e-9);
}

static void test_theory_undamped_symplectic_pair(void **state)
{
    (void)state;
    assert_limit("semi-implicit", 0, 2);
    assert_limit("verlet", 0, 2);
    assert_limit("stormer", 0, 2);
}

/* |R(ih)|^2 = 1 - h^6/72 + h^8/576 for rk4: 1 again at h^2 = 8. */
static void test_theory_rk4(void **state)
{
    (void)state;
    assert_limit("rk4", 0, 2 * sqrt(2));
}

/* Explicit Euler: eigenvalues 1 + h l with l = -zeta +- i sqrt(1 - zeta^2), so
 * rho^2 = 1 - 2 zeta h + h^2: never stable undamped (rho^2 = 1 + h^2), stable for h <= 2 zeta. */
static void test_theory_euler(void **state)
{
    (void)state;
    const osc_method *m = find_or_skip("euler");
    osc_stab_theory t = theory(m, 0);
    assert_int_equal(t.kind, OSC_STAB_NEVER);
    assert_true(t.limit == 0);
    assert_true(t.h_low <= 1e-4);
    assert_limit("euler", 0.1, 0.2);
    assert_limit("euler", 0.5, 1.0);
    /* Below the scan's start (found by the probe). Here rho - 1 ~ zeta (h - 2 zeta) grows slowly
     * past the limit, so the 1e-12 tolerance on rho moves it by 1e-12 / zeta = 1e-8, 5e-5 of it. */
    osc_stab_theory t_small = theory(m, 1e-4);
    assert_int_equal(t_small.kind, OSC_STAB_BOUNDED);
    assert_near(t_small.limit, 2e-4, 6e-5);
    assert_true(t_small.limit >= 2e-4);
    /* zeta 1.5e-8: the probe's lowest points (1e-8, 1.8e-8) are resolved stable, the three
     * above them unstable; the limit 3e-8 is read high by the round-off level over the slope,
     * 6.9e-18 / zeta = 4.6e-10 (1.5%), not as "never" (the unstable trend once stood for all
     * of (0, 3e-8]) */
    osc_stab_theory t_tiny = theory(m, 1.5e-8);
    assert_int_equal(t_tiny.kind, OSC_STAB_BOUNDED);
    assert_true(t_tiny.limit >= 3e-8 && t_tiny.limit <= 3e-8 + 2 * 4.6e-10);
}

/* Explicit Euler damped, from the same eigenvalues 1 + h l: for 0 < zeta <= 1, |1 + h l|^2 =
 * 1 - 2 zeta h + h^2 <= 1 up to h = 2 zeta; for zeta > 1 both l are real and the fast one,
 * -(zeta + sqrt(zeta^2 - 1)), leaves through -1 at h = 2 / (zeta + sqrt(zeta^2 - 1)) (README,
 * docs/model.md). Both crossings are linear (slope h - zeta = zeta, and |l| >= 1): 1e-9 as in
 * assert_limit; zeta = 1 exactly: test_theory_critical_damping. */
static void test_theory_euler_overdamped(void **state)
{
    (void)state;
    assert_limit("euler", 0.7, 1.4);
    const double zetas[] = {1.5, 4, 30};
    for (int i = 0; i < 3; i++)
        assert_limit("euler", zetas[i], 2 / (zetas[i] + sqrt(zetas[i] * zetas[i] - 1)));
}

extern const osc_method osc_test_method_heun; /* rk2_heun.c */

/* zeta = 1 exactly: hA = h [[0, 1], [-1, -2]] has the double eigenvalue -h and is defective,
 * and so is R(hA) for a Runge-Kutta method, with the double eigenvalue R(-h): the limit is where
 * |R(-h)| reaches 1, 2 for explicit Euler and Heun (R(-h) = 1 - h and 1 - h + h^2/2), and for
 * rk4 the real root of -h + h^2/2 - h^3/6 + h^4/24 = 0, 2.785293563405282 (mpmath). The
 * discriminant of the 2 x 2 eigenvalue formula is rounding noise there; its square root once
 * added ~3e-10 to rho and moved these limits by ~1e-10. The bisection's 1e-13 relative leaves
 * 1e-12 room. */
static void test_theory_critical_damping(void **state)
{
    (void)state;
    assert_near(theory(find_or_skip("euler"), 1).limit, 2, 1e-12);
    assert_near(theory(find_or_skip("rk4"), 1).limit, 2.785293563405282, 1e-12);
    osc_stab_theory t = theory(&osc_test_method_heun, 1);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_near(t.limit, 2, 1e-12);
    /* the tableaus whose noise happened to come out positive (ralston3 read 2.5127453258) */
    const struct {
        const char *name;
        osc_tableau tab;
        double limit;
    } rk[] = {
        {"ralston", ralston(), 2},
        {"kutta3", kutta3(), 2.512745326618329},
        {"ralston3",
         {.stages = 3, .a = {{0}, {0.5}, {0, 0.75}}, .b = {2.0 / 9, 1.0 / 3, 4.0 / 9},
          .c = {0, 0.5, 0.75}},
         2.512745326618329},
    };
    for (size_t i = 0; i < sizeof rk / sizeof *rk; i++) {
        osc_method m;
        assert_int_equal(osc_method_from_tableau(&rk[i].tab, rk[i].name, 2, &m), OSC_OK);
        double limit = theory(&m, 1).limit;
        assert_int_equal(osc_tableau_method_release(&m), OSC_OK);
        if (fabs(limit - rk[i].limit) > 1e-12 * rk[i].limit)
            fail_msg("%s at zeta 1: limit %.17g, exact %.17g", rk[i].name, limit, rk[i].limit);
    }
}

/* The limit reported is the stable end of the bisected bracket: rho - 1 at it is within the
 * round-off level stability.c allows (OSC_STAB_ROUNDOFF of max(1, max|A|)^2), and 1e-12 further
 * it is resolved above it. At these linear crossings rho - 1 grows by |d rho/dh| h 1e-12 >=
 * 2e-14 there (euler at zeta 0.1: slope 0.1 at h = 0.2), far above the ~1e-17 round-off level,
 * and the bisection's 1e-14 bracket leaves its unstable end ~1e-16 past the edge: also above. */
static void test_theory_limit_is_stable_end(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double zeta;
    } cases[] = {{"euler", 0.1}, {"euler", 1.5}, {"semi-implicit", 0.5}, {"rk4", 0.3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const osc_method *m = find_or_skip(cases[i].name);
        osc_stab_theory t = theory(m, cases[i].zeta);
        assert_int_equal(t.kind, OSC_STAB_BOUNDED);
        const double at[2] = {t.limit, t.limit * (1 + 1e-12)};
        for (int k = 0; k < 2; k++) {
            long double A[OSC_MAX_STATE][OSC_MAX_STATE], norm = 1;
            osc_amplification_ld(m, cases[i].zeta, at[k], A);
            for (int r = 0; r < m->nstate; r++)
                for (int c = 0; c < m->nstate; c++)
                    norm = fmaxl(norm, fabsl(A[r][c]));
            long double e = osc_spectral_radius_ld(m->nstate, A) - 1;
            bool stable = e <= OSC_STAB_ROUNDOFF * norm * norm;
            if (stable != (k == 0))
                fail_msg("%s zeta %g h %.17g: rho - 1 = %Lg", cases[i].name, cases[i].zeta,
                         at[k], e);
        }
    }
}

/* The small-h trend of damped explicit Euler: rho = sqrt(1 - 2 zeta h + h^2), so rho - 1 =
 * -zeta h + (1 - zeta^2) h^2 / 2 + ...: power 1, coefficient -zeta (contracting). It is resolved
 * from the bottom of the scan (1e-8) and fitted over two decades, where the h^2 term is at most
 * (1 - zeta^2) h / (2 zeta) = 2.4e-6 of the first: 1e-5. Undamped verlet is neutral (rho = 1 to
 * round-off): no fit, NaN. */
static void test_theory_small_h_trend(void **state)
{
    (void)state;
    const double zeta = 0.2;
    osc_stab_theory t = theory(find_or_skip("euler"), zeta);
    assert_near(t.small_h_power, 1, 1e-5);
    assert_near(t.small_h_coef, -zeta, 1e-5);
    osc_stab_theory v = theory(find_or_skip("verlet"), 0);
    assert_true(isnan(v.small_h_power) && isnan(v.small_h_coef));
}

static void test_theory_implicit_midpoint(void **state)
{
    (void)state;
    const double zetas[] = {0, 0.3, 2};
    for (int i = 0; i < 3; i++) {
        osc_stab_theory t = theory(find_or_skip("implicit-midpoint"), zetas[i]);
        assert_int_equal(t.kind, OSC_STAB_ALWAYS);
        assert_true(isinf(t.limit) && t.limit > 0);
        assert_true(t.h_high >= 1e3);
    }
}

/* Semi-implicit Euler with drag. From the matrix above: trace T = 2 - h^2 - gam h and
 * det D = 1 - gam h. A real 2x2 map is stable iff |D| <= 1 and |T| <= 1 + D (Jury). |D| <= 1
 * needs h <= 2 / gam = 1 / zeta; T <= 1 + D is -h^2 <= 0; T >= -(1 + D) is
 * h^2 + 2 gam h - 4 <= 0, i.e. h <= 2 (sqrt(1 + zeta^2) - zeta) = 2 / (sqrt(1 + zeta^2) + zeta),
 * which is below 1 / zeta. So the limit is 2 / (sqrt(1 + zeta^2) + zeta): 2 at zeta = 0, where
 * an eigenvalue leaves the unit circle through -1. */
static void test_theory_semi_implicit_damped(void **state)
{
    (void)state;
    const double zetas[] = {0.1, 0.5, 1, 3};
    for (int i = 0; i < 4; i++)
        assert_limit("semi-implicit", zetas[i], 2 / (sqrt(1 + zetas[i] * zetas[i]) + zetas[i]));
}

/* verlet-zero-start carries (x, v, -a): a 3x3 matrix, the cubic path. In the half-step velocity
 * u = v + a dt/2 its step is x' = x + h u, u' = u + h a(x', u): matrix [[1, h], [-h, 1 - gam h
 * - h^2]], with the trace 2 - h^2 - gam h and determinant 1 - gam h of semi-implicit Euler,
 * plus an eigenvalue 0 (the stored acceleration is recomputed each step). Same limit. */
static void test_theory_3x3_zero_start(void **state)
{
    (void)state;
    const double zetas[] = {0, 0.1, 1};
    for (int i = 0; i < 3; i++)
        assert_limit("verlet-zero-start", zetas[i],
                     2 / (sqrt(1 + zetas[i] * zetas[i]) + zetas[i]));
}

/* rho - 1 of m at (zeta, h) from its long double amplification matrix, by
 * osc_spectral_radius_ld (checked above on matrices with known eigenvalues), not by the scan. */
static long double rho_excess(const osc_method *m, double zeta, double h)
{
    long double A[OSC_MAX_STATE][OSC_MAX_STATE];
    osc_amplification_ld(m, zeta, h, A);
    return osc_spectral_radius_ld(m->nstate, A) - 1;
}

static void assert_stable_at(const osc_method *m, double zeta, double h, bool stable)
{
    long double e = rho_excess(m, zeta, h);
    /* stable: rho - 1 within 1e-15 of 0 or below (round-off of rho is ~1e-17 for these O(1)
     * matrices); unstable: resolved above 0 */
    if (stable ? e <= 1e-15L : e > 1e-15L)
        return;
    print_error("%s zeta %g h %.17g: rho - 1 = %Lg, want %s\n", m->name, zeta, h, e,
                stable ? "stable" : "unstable");
    fail();
}

/* Points spread over [lo, hi] (log-spaced, lo > 0), all stable or all unstable. */
static void assert_range(const osc_method *m, double zeta, double lo, double hi, bool stable)
{
    const int npts = 16;
    for (int k = 0; k <= npts; k++)
        assert_stable_at(m, zeta, lo * pow(hi / lo, (double)k / npts), stable);
}

/* Every registry method at zeta 0 and 0.2: the theory's stable set, checked point by point
 * against rho. Inside each interval (17 points, and 1e-9 relative inside each finite edge)
 * rho <= 1; 1e-9 relative outside each edge and through each gap rho > 1 (at every edge here
 * rho - 1 grows at least like the distance, or its square root, so 1e-9 past it is far above
 * round-off; the bisection put the edge within 1e-14). Below the first interval of a NEVER
 * verdict, unstable; from 1e-6 up, where rho - 1 is resolved. A damped method is never less
 * stable than at 0 near 0, and being consistent, stable for small h. */
static void test_theory_every_method(void **state)
{
    (void)state;
    const double zetas[] = {0, 0.2}, near = 1e-9, h_from = 1e-6;
    for (size_t i = 0; i < osc_method_count(); i++) {
        const osc_method *m = osc_method_at(i);
        for (int z = 0; z < 2; z++) {
            osc_stab_theory t = theory(m, zetas[z]);
            assert_false(t.intervals_truncated);
            assert_true(t.kind == OSC_STAB_NEVER ? t.limit == 0 : t.limit > 0);
            if (zetas[z] > 0)
                assert_int_not_equal(t.kind, OSC_STAB_NEVER);
            double below = h_from; /* the end of the last unstable stretch checked */
            for (size_t k = 0; k < t.nintervals; k++) {
                osc_stab_interval iv = t.intervals[k];
                double lo = fmax(iv.lower, h_from), hi = fmin(iv.upper, t.h_high);
                if (iv.lower > 0) {
                    assert_stable_at(m, zetas[z], iv.lower * (1 + near), true);
                    assert_stable_at(m, zetas[z], iv.lower * (1 - near), false);
                    if (iv.lower * (1 - near) > below)
                        assert_range(m, zetas[z], below, iv.lower * (1 - near), false);
                }
                if (isfinite(iv.upper)) {
                    assert_stable_at(m, zetas[z], iv.upper * (1 - near), true);
                    assert_stable_at(m, zetas[z], iv.upper * (1 + near), false);
                }
                assert_range(m, zetas[z], lo * (1 + near), hi * (1 - near), true);
                below = iv.upper * (1 + near);
            }
            if (isfinite(below) && below < t.h_high)
                assert_range(m, zetas[z], below, t.h_high, false);
            if (t.kind == OSC_STAB_BOUNDED)
                assert_true(t.limit == t.intervals[0].upper && t.intervals[0].lower == 0);
            if (t.kind == OSC_STAB_ALWAYS)
                assert_true(t.nintervals == 1 && t.intervals[0].lower == 0 &&
                            isinf(t.intervals[0].upper));
        }
    }
}

/* ---- measured ----------------------------------------------------------------------------- */

static osc_stab_measured measured(const osc_method *m, osc_precision p, double zeta)
{
    osc_stab_measured r;
    assert_int_equal(osc_stability_measured(m, p, zeta, NULL, &r), OSC_OK);
    return r;
}

/* What osc_stability_measured reports beside the limit (analysis.h, with the defaults): the
 * first scan alone steps 1024 lanes for 50000 steps and again for 256, so at least that many
 * lanes and lane-steps, in at least two batches; the slowest log growth per step its trend
 * resolves is TREND_MIN_LOG (2) over the steps after the short run's, 50000 - 256; a bounded
 * limit's range is limit (1 -+ resolution). */
static void assert_measured_accounting(const osc_stab_measured *r)
{
    assert_true(r->lanes >= 2 * 1024 && r->batches >= 2);
    assert_true(r->lane_steps >= 1024.0 * (50000 + 256) && r->max_steps >= 50000);
    assert_near(r->rate_floor, 2.0 / (50000 - 256), 1e-15);
    if (r->kind == OSC_STAB_BOUNDED) {
        assert_near(r->limit_low, r->limit * (1 - r->resolution), 1e-15);
        assert_near(r->limit_high, r->limit * (1 + r->resolution), 1e-15);
    }
}

/* Measured against theory to 1e-3 relative, and the measurement's own resolution
 * claim must be that good too. */
static void assert_measured_matches(const osc_method *m, osc_precision p, double zeta)
{
    osc_stab_theory t = theory(m, zeta);
    osc_stab_measured r = measured(m, p, zeta);
    print_message("    %-20s %-6s zeta %.2f: theory %.9g measured %.9g (res %.1e, %zu lanes, "
                  "max %ld steps, %.3g lane-steps, %d batches)\n",
                  m->name, osc_precision_name(p), zeta, t.limit, r.limit, r.resolution, r.lanes,
                  r.max_steps, r.lane_steps, r.batches);
    assert_int_equal(r.kind, t.kind);
    if (t.kind == OSC_STAB_BOUNDED) {
        assert_near(r.limit, t.limit, 1e-3);
        assert_true(r.resolution < 1e-3);
        /* and the measurement's own uncertainty is honest (within twice its claim) */
        assert_near(r.limit, t.limit, 2 * r.resolution);
        assert_true(r.limit_low < r.limit && r.limit < r.limit_high);
    } else {
        assert_true(r.limit == t.limit);
    }
    assert_true(r.lanes > 0 && r.max_steps > 0 && r.batches > 0);
    assert_measured_accounting(&r);
}

static void test_measured_semi_implicit(void **state)
{
    (void)state;
    const osc_method *m = find_or_skip("semi-implicit");
    assert_measured_matches(m, OSC_DOUBLE, 0);
    assert_measured_matches(m, OSC_DOUBLE, 0.1);
    assert_measured_matches(m, OSC_FLOAT, 0);
}

static void test_measured_rk4(void **state)
{
    (void)state;
    assert_measured_matches(find_or_skip("rk4"), OSC_DOUBLE, 0);
}

/* Undamped explicit Euler: unstable at every tested omega0*dt (down to h_low), so 0. */
static void test_measured_euler_never(void **state)
{
    (void)state;
    osc_stab_measured r = measured(find_or_skip("euler"), OSC_DOUBLE, 0);
    assert_int_equal(r.kind, OSC_STAB_NEVER);
    assert_true(r.limit == 0);
    assert_true(r.h_low > 0 && r.h_low <= 1e-6);
    /* what the steps allow: no stable interval above the smallest h seen growing */
    assert_true(r.limit_low == 0 && r.limit_high > 0 && r.limit_high < 0.05);
    assert_int_equal(r.nintervals, 0);
}

static void test_measured_every_method(void **state)
{
    (void)state;
    for (size_t i = 0; i < osc_method_count(); i++) {
        assert_measured_matches(osc_method_at(i), OSC_DOUBLE, 0);
        if (strcmp(osc_method_at(i)->name, "euler") != 0) /* slow growth: see stability.c */
            assert_measured_matches(osc_method_at(i), OSC_DOUBLE, 0.1);
    }
}

/* Heavily damped: the theory's limit lies inside the range the measurement claims, [limit_low,
 * limit_high] itself (not twice it). From x0 = 1, v0 = 0 alone an overdamped lane holds little of
 * its fast, growing mode (4e-4 at zeta 25), so lanes just past the edge had not grown enough to
 * count and the whole range sat above the limit (euler zeta 25: theory 0.0400160, measured
 * [0.0400165, 0.0400227]); step_lanes' second start holds at least 1/sqrt(2) of it. */
static void test_measured_overdamped_range_holds_theory(void **state)
{
    (void)state;
    const char *const names[] = {"euler", "semi-implicit", "rk4"};
    const double zetas[] = {25, 100};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        for (size_t j = 0; j < sizeof zetas / sizeof *zetas; j++) {
            const osc_method *m = find_or_skip(names[i]);
            osc_stab_theory t = theory(m, zetas[j]);
            osc_stab_measured r = measured(m, OSC_DOUBLE, zetas[j]);
            assert_int_equal(t.kind, OSC_STAB_BOUNDED);
            assert_int_equal(r.kind, OSC_STAB_BOUNDED);
            if (!(r.limit_low <= t.limit && t.limit <= r.limit_high))
                fail_msg("%s zeta %g: theory %.9g outside the measured [%.9g, %.9g]", names[i],
                         zetas[j], t.limit, r.limit_low, r.limit_high);
        }
}

/* ---- extended precision, weak instability, several intervals ------------------------------ */


/* The long double reference is the same map as the double one: one step from a few states
 * agrees to the double one's round-off (a few ulps of O(1) values; 1e-14 leaves room). */
static void test_ref_ld_matches_ref_d(void **state)
{
    (void)state;
    for (size_t i = 0; i < osc_method_count(); i++) {
        const osc_method *m = osc_method_at(i);
        double A[OSC_MAX_STATE][OSC_MAX_STATE];
        long double Al[OSC_MAX_STATE][OSC_MAX_STATE];
        osc_amplification(m, 0.3, 0.7, A);
        osc_amplification_ld(m, 0.3L, 0.7L, Al);
        for (int r = 0; r < m->nstate; r++)
            for (int c = 0; c < m->nstate; c++)
                assert_true(fabs(A[r][c] - (double)Al[r][c]) <= 1e-14 * (1 + fabs(A[r][c])));
    }
}

/* Heun undamped: rho^2 = 1 + h^4/4, so rho - 1 = h^4/8 (1 - h^4/16 + ...). The old double
 * theory with its 1e-12 tolerance read this as stable up to h ~ 2e-3. The trend must read
 * NEVER, with the fitted power 4 and coefficient 1/8 (fitted where rho - 1 > ~1e-17, i.e.
 * h > 1e-4, over two decades: the O(h^8) term moves them by < 1e-5 there; 1e-3 allows for the
 * round-off of the smallest points). */
static void test_theory_weakly_unstable_rk2(void **state)
{
    (void)state;
    osc_stab_theory t = theory(&osc_test_method_heun, 0);
    assert_int_equal(t.kind, OSC_STAB_NEVER);
    assert_true(t.limit == 0);
    assert_int_equal(t.nintervals, 0);
    assert_near(t.small_h_power, 4, 1e-3);
    assert_near(t.small_h_coef, 0.125, 1e-2);
    /* long double resolves what double cannot: rho - 1 at h = 1e-3 */
    long double A[OSC_MAX_STATE][OSC_MAX_STATE];
    osc_amplification_ld(&osc_test_method_heun, 0, 1e-3L, A);
    long double excess = osc_spectral_radius_ld(2, A) - 1;
    assert_near((double)excess, 1.25e-13, 1e-5);
}

/* |R(z)|^2 - 1 for Heun at z = h (-zeta + i sqrt(1 - zeta^2)) (zeta < 1: a complex pair, both
 * of the same modulus), from R(z) = 1 + z + z^2/2 directly. */
static double heun_excess(double zeta, double h)
{
    double re = -zeta * h, im = sqrt(1 - zeta * zeta) * h;
    double rr = 1 + re + (re * re - im * im) / 2, ri = im + re * im;
    return rr * rr + ri * ri - 1;
}

/* The closed-form limit of damped Heun: bisection of heun_excess from the stable side (it is
 * negative for small h when zeta > 0, and positive at h = 3). */
static double heun_limit(double zeta)
{
    double lo = 1e-3, hi = 3;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (heun_excess(zeta, mid) <= 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Damped Heun is stable near 0 (rho - 1 ~ -zeta h): the theory's limit is the closed form's to
 * the bisection (1e-14) plus round-off of rho near a linear crossing (~1e-17 / slope): 1e-10.
 * The measurement agrees with it (kind, and value within twice its resolution), and undamped
 * both read NEVER. */
static void test_rk2_theory_and_measured(void **state)
{
    (void)state;
    const double zetas[] = {0.05, 0.3, 0.9};
    for (int i = 0; i < 3; i++) {
        osc_stab_theory t = theory(&osc_test_method_heun, zetas[i]);
        assert_int_equal(t.kind, OSC_STAB_BOUNDED);
        assert_near(t.limit, heun_limit(zetas[i]), 1e-10);
    }
    assert_measured_matches(&osc_test_method_heun, OSC_DOUBLE, 0.3);
    osc_stab_measured r = measured(&osc_test_method_heun, OSC_DOUBLE, 0);
    assert_int_equal(r.kind, OSC_STAB_NEVER);
    assert_true(r.limit == 0);
}

/* Limits below 0.05, where the old measurement scan started (and read 0): explicit Euler at
 * zeta 0.01 (theory 2 zeta, closed form above) and rk4 at zeta 50, whose fast real eigenvalue
 * l = -(zeta + sqrt(zeta^2 - 1)) leaves |R(h l)| <= 1 at h l = x*, the real root of
 * R(x) = -1... here of R(x) = 1 + x + x^2/2 + x^3/6 + x^4/24 = 1, i.e. of 1 + x/2 + x^2/6 +
 * x^3/24 = 0 (R has no real root of R = -1: its minimum is 0.27). The slow eigenvalue
 * -1/(zeta + sqrt(zeta^2 - 1)) stays stable there. */
static void test_small_limits(void **state)
{
    (void)state;
    const osc_method *euler = find_or_skip("euler"), *rk4 = find_or_skip("rk4");
    assert_near(theory(euler, 0.01).limit, 0.02, 1e-10);
    double lo = -3, hi = -2; /* 1 + x/2 + x^2/6 + x^3/24 changes sign on [-3, -2] */
    for (int i = 0; i < 200; i++) {
        double x = (lo + hi) / 2;
        if (1 + x / 2 + x * x / 6 + x * x * x / 24 < 0)
            lo = x;
        else
            hi = x;
    }
    double zeta = 50, want = -lo / (zeta + sqrt(zeta * zeta - 1));
    osc_stab_theory t = theory(rk4, zeta);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_near(t.limit, want, 1e-10);
    assert_near(t.limit, 0.0279, 2e-3);
    /* Euler's growth past 0.02 is slow (log rho ~ h (h - 0.02) / 2): its measurement stops at
     * the step cap with a resolution of ~2% */
    osc_stab_measured r = measured(euler, OSC_DOUBLE, 0.01);
    assert_int_equal(r.kind, OSC_STAB_BOUNDED);
    assert_true(r.resolution < 0.05);
    assert_near(r.limit, 0.02, 2 * r.resolution);
    assert_measured_matches(rk4, OSC_DOUBLE, zeta);
}

/* Every stable interval, measured in precision p against theory within twice the measurement's
 * resolution, and the first edge as limit_* in both. */
static void assert_intervals_match_in(const osc_method *m, osc_precision p, double zeta,
                                      const osc_stab_theory *t)
{
    assert_true(t->nintervals >= 1);
    assert_true(t->intervals[0].lower == 0);
    assert_true(t->limit == t->intervals[0].upper); /* the first edge, not the last */
    osc_stab_measured r = measured(m, p, zeta);
    assert_int_equal(r.nintervals, t->nintervals);
    assert_true(r.limit == r.intervals[0].upper);
    for (size_t i = 0; i < t->nintervals; i++) {
        print_message("    %s zeta %g interval %zu: theory [%.9g, %.9g] measured [%.9g (%.1e), "
                      "%.9g (%.1e)]\n",
                      m->name, zeta, i, t->intervals[i].lower, t->intervals[i].upper,
                      r.intervals[i].lower, r.lower_resolution[i], r.intervals[i].upper,
                      r.upper_resolution[i]);
        if (t->intervals[i].lower > 0)
            assert_near(r.intervals[i].lower, t->intervals[i].lower,
                        2 * r.lower_resolution[i]);
        assert_near(r.intervals[i].upper, t->intervals[i].upper, 2 * r.upper_resolution[i]);
        assert_true(r.lower_resolution[i] < 1e-3 && r.upper_resolution[i] < 1e-3);
        assert_true(r.intervals[i].lower < r.intervals[i].upper);
    }
}

static void assert_intervals_match(const osc_method *m, double zeta, const osc_stab_theory *t)
{
    assert_intervals_match_in(m, OSC_DOUBLE, zeta, t);
}

/* Velocity Verlet with drag (gam = 2 zeta), its second drag at the half-step velocity
 * u = v + a h/2 (lib/methods/verlet.c), on the unit oscillator: x' = x + h u,
 * v' = v + (a + a(x', u)) h/2, the matrix [[1 - h^2/2, h - gam h^2/2],
 * [-h + gam h^2/4 + h^3/4, 1 - gam h - h^2/2 + gam^2 h^2/4 + gam h^3/4]] with
 *     det D = (1 - zeta h)^2,   trace T = 2 - h^2 - gam h + gam^2 h^2/4 + gam h^3/4.
 * A real 2x2 map is stable iff |D| <= 1 and |T| <= 1 + D (Jury). D <= 1 is h <= 2 / zeta;
 * 1 + D - T = h^2 (4 - gam h)/4 >= 0 is the same; 4 (1 + D + T) = verlet_jury_cubic >= 0. */
static long double verlet_jury_cubic(long double gam, long double h)
{
    return ((gam * h + 2 * gam * gam - 4) * h - 8 * gam) * h + 16;
}

/* The root of verlet_jury_cubic in [lo, hi], where it changes sign, by bisection in long
 * double to its last bit (the root is simple: the error is ~1e-19 relative). */
static double verlet_jury_root(double gam, long double lo, long double hi)
{
    bool rising = verlet_jury_cubic(gam, lo) < 0;
    assert_true(rising == (verlet_jury_cubic(gam, hi) > 0));
    for (int i = 0; i < 200; i++) {
        long double mid = lo / 2 + hi / 2;
        if ((verlet_jury_cubic(gam, mid) < 0) == rising)
            lo = mid;
        else
            hi = mid;
    }
    return (double)lo;
}

/* At zeta 0.3 the cubic 0.6 h^3 - 3.28 h^2 - 4.8 h + 16 is positive at 1 and 6.5, negative at
 * 3: the stable set is (0, r1] and [r2, 2 / zeta] (r1 = 1.8215, r2 = 6.0607, 2 / zeta =
 * 6.6667): a second band where the drag at the half-step velocity brings the eigenvalues back
 * inside the unit circle. The theory's edges are bisected to 1e-14 relative; round-off moves
 * them by ~64 ulps of max|A|^2 (< 200 here) over rho's O(1) slope, ~1e-15: 2e-14. Forest-ruth
 * at zeta 25, whose old drag treatment had two intervals there ((0, 0.0227] and
 * [0.0240, 1.889]), is held to the same agreement of theory and measurement with whatever
 * intervals it has now. */
static void test_two_intervals(void **state)
{
    (void)state;
    const osc_method *verlet = find_or_skip("verlet");
    const double zeta = 0.3, gam = 2 * zeta;
    double r1 = verlet_jury_root(gam, 1, 3), r2 = verlet_jury_root(gam, 3, 6.5);
    assert_true(r1 < r2 && r2 < 2 / zeta);
    osc_stab_theory t = theory(verlet, zeta);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_int_equal(t.nintervals, 2);
    assert_true(t.intervals[0].lower == 0);
    assert_near(t.intervals[0].upper, r1, 2e-14);
    assert_near(t.intervals[1].lower, r2, 2e-14);
    assert_near(t.intervals[1].upper, 2 / zeta, 2e-14);
    assert_intervals_match(verlet, zeta, &t);
    const osc_method *fr = find_or_skip("forest-ruth");
    osc_stab_theory tf = theory(fr, 25);
    assert_intervals_match(fr, 25, &tf);
}

/* ---- test-only maps with a known stable set ----------------------------------------------- */

extern const osc_method osc_test_method_band;    /* stab_band.c */
extern const osc_method osc_test_method_gap;     /* stab_gap.c */
extern const osc_method osc_test_method_tangent; /* stab_tangent.c */

/* A test map stable on (0, lo] and [hi, inf), undamped, in theory: two intervals, each edge to
 * 2e-14 (the maps' edges are linear crossings, so the bisection's 1e-14 decides; 2e-14 allows
 * the last halving's rounding). */
static void assert_theory_band(const osc_method *m, double lo, double hi)
{
    osc_stab_theory t = theory(m, 0);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_int_equal(t.nintervals, 2);
    assert_true(t.intervals[0].lower == 0 && isinf(t.intervals[1].upper));
    assert_near(t.intervals[0].upper, lo, 2e-14);
    assert_near(t.intervals[1].lower, hi, 2e-14);
    assert_near(t.limit, lo, 2e-14);
}

/* The same measured: bounded, two intervals, both edges resolved to better than 1e-3 and found
 * within twice their resolution, the limit the first interval's end. */
static void assert_measured_band(const osc_method *m, double lo, double hi)
{
    osc_stab_measured r = measured(m, OSC_DOUBLE, 0);
    assert_int_equal(r.kind, OSC_STAB_BOUNDED);
    assert_int_equal(r.nintervals, 2);
    assert_true(r.intervals[0].lower == 0 && isinf(r.intervals[1].upper));
    assert_true(r.upper_resolution[0] < 1e-3 && r.lower_resolution[1] < 1e-3);
    assert_near(r.intervals[0].upper, lo, 2 * r.upper_resolution[0]);
    assert_near(r.intervals[1].lower, hi, 2 * r.lower_resolution[1]);
    assert_true(r.limit == r.intervals[0].upper);
}

/* Stable on (0, 0.3] and [0.31, inf), with an unstable band of 3.3% that a grid of 20 points
 * per decade steps over. Its edges are linear crossings (d rho / dh = 1e4 (0.31 - 0.3) = 100),
 * so round-off moves them by ~1e-19: the bisection's 1e-14 decides, and 2e-14 allows the last
 * halving's rounding. */
static void test_theory_narrow_band(void **state)
{
    (void)state;
    assert_theory_band(&osc_test_method_band, 0.3, 0.31);
}

/* Bands between the grid's points, which the scan finds from the grid's values of rho - 1 (a
 * bump of a stable run, a dip of an unstable one) and a golden-section search between them.
 * An unstable gap of 0.33% between grid points (stab_gap.c), to 2e-14 as above. Forest-ruth at
 * zeta 1, whose grid points all lie outside its stable bands past the first interval: [2.77634,
 * 2.80843], as an independent 50-digit eigenvalue scan found it (mpmath, to its 6 digits), and
 * one of 0.01%, [7.6341, 7.6349] to 1e-4 (rho - 1 changes sign, by +-0.03 and more, between
 * 7.6340 and 7.6341 and between 7.6348 and 7.6349, in rho of osc_amplification_ld sampled
 * every 1e-4). */
static void test_theory_bands_between_grid_points(void **state)
{
    (void)state;
    assert_theory_band(&osc_test_method_gap, 0.3, 0.301);
    osc_stab_theory t = theory(find_or_skip("forest-ruth"), 1);
    assert_int_equal(t.nintervals, 3);
    assert_near(t.intervals[0].upper, 0.993811, 1e-6);
    assert_near(t.intervals[1].lower, 2.77634, 1e-5);
    assert_near(t.intervals[1].upper, 2.80843, 1e-5);
    assert_true(t.intervals[2].lower > 7.6340 && t.intervals[2].lower < 7.6341);
    assert_true(t.intervals[2].upper > 7.6348 && t.intervals[2].upper < 7.6349);
}

/* The same map measured. The lowest lanes whose norm changes are the one or two inside the band
 * (they grew) and then decaying ones: not the trend of an instability reaching down to 0, so
 * the verdict is bounded, with both edges found, each within twice its resolution. */
static void test_measured_narrow_band(void **state)
{
    (void)state;
    assert_measured_band(&osc_test_method_band, 0.3, 0.31);
}

/* rho = 1 + 5e3 (h - 1)^2 past h = 1: a tangential crossing, where the local slope of log rho
 * says little about how far past the edge a lane that grew lies (log rho is convex there).
 * Theory: rho - 1 exceeds its round-off level 64 LDBL_EPSILON = 6.9e-18 from (h - 1) =
 * sqrt(6.9e-18 / 5e3) = 3.7e-11 on, so its edge is in [1, 1 + 1e-10]. The measurement must
 * stay honest: within twice its resolution of 1. */
static void test_tangent_edge(void **state)
{
    (void)state;
    osc_stab_theory t = theory(&osc_test_method_tangent, 0);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_true(t.limit >= 1 && t.limit <= 1 + 1e-10);
    osc_stab_measured r = measured(&osc_test_method_tangent, OSC_DOUBLE, 0);
    print_message("    tangent: measured %.9g (res %.1e)\n", r.limit, r.resolution);
    assert_int_equal(r.kind, OSC_STAB_BOUNDED);
    assert_true(r.resolution < 1e-3);
    assert_near(r.limit, 1, 2 * r.resolution);
}

extern const osc_method osc_test_method_blip; /* stab_blip.c */
extern const osc_method osc_test_method_fall; /* stab_fall.c */
extern const osc_method osc_test_method_comb; /* stab_comb.c */

/* The trend probe's point k (stability.c): 0.1 * 10^(-k/4), k = 0 .. 28 (h = 1e-8). */
static double probe_h(int k) { return 0.1 * pow(10, -(double)k / 4); }

/* The premise of test_theory_trend_needs_three_points, from rho directly: at the probe's points
 * 16, 15, ..., 11 the blip map reads (bottom up) unresolved, +, +, -, -, -, against the
 * round-off level of stability.c (64 LDBL_EPSILON: every entry of the map is 1 to 1e-12). */
static void assert_blip_probe_signs(void)
{
    const double level = 64 * LDBL_EPSILON;
    const int want[] = {0, +1, +1, -1, -1, -1}; /* probe points 16, 15, ..., 11 */
    for (int i = 0; i < 6; i++) {
        long double e = rho_excess(&osc_test_method_blip, 0, probe_h(16 - i));
        int sign = e > level ? 1 : e < -level ? -1 : 0;
        if (sign != want[i])
            fail_msg("blip: probe point %d, rho - 1 = %Lg", 16 - i, e);
    }
}

/* Two resolved points of one sign at the bottom of the probe (the blips) are not a trend: the
 * trend starts at the lowest three of one sign, the contracting bulk -2 h^4 from probe point 13
 * (5.6e-5) up, so the verdict is stable near 0, and above that point the scan finds nothing
 * unstable (the blips lie below it): ALWAYS. Reading two or one point as a trend would say
 * unstable near 0 (NEVER). The fit runs over points 13 down to 5 (h <= 5.6e-3, where the
 * 2 h^4 of 1 + 2 h^4 is < 2e-9): power 4, coefficient -2; rho - 1 at point 13 is 2e-17, whose
 * long double round-off (~1e-19, 0.5% of it) moves the fitted power by < 6e-4 and the
 * coefficient by < 5e-3 relative (least squares over 9 points 0.58 apart in log h). */
static void test_theory_trend_needs_three_points(void **state)
{
    (void)state;
    assert_blip_probe_signs();
    osc_stab_theory t = theory(&osc_test_method_blip, 0);
    assert_int_equal(t.kind, OSC_STAB_ALWAYS);
    assert_int_equal(t.nintervals, 1);
    assert_true(t.intervals[0].lower == 0 && isinf(t.intervals[0].upper));
    assert_near(t.small_h_power, 4, 1e-3);
    assert_near(t.small_h_coef, -2, 1e-2);
}

/* Stable on (0, 0.3] and [0.6, inf), unstable between: the band's edges are linear crossings
 * of slope 1e3 and 1 (round-off moves them by ~1e-17), so the bisection's 1e-14 decides:
 * 2e-14. */
static void test_theory_falling_band(void **state)
{
    (void)state;
    assert_theory_band(&osc_test_method_fall, 0.3, 0.6);
}

/* Measured: the lowest lanes that changed are in the band and all grew, but less the larger h
 * (rho - 1 falls from 0.01 to 0.001 across it): not the trend of an instability reaching down
 * to 0 (which grows more the larger h), so bounded, with the band's edges found. */
static void test_measured_falling_band(void **state)
{
    (void)state;
    assert_measured_band(&osc_test_method_fall, 0.3, 0.6);
}

extern const osc_method osc_test_method_inner; /* stab_inner.c */

/* The premise of test_theory_neutral_trend_evaluates_all, from rho directly: of the probe's 29
 * points the inner map's rho - 1 is resolved (above 64 LDBL_EPSILON) at points 2 and 3 alone,
 * both positive: two in a row, not a trend. */
static void assert_inner_probe_signs(void)
{
    for (int k = 0; k <= 28; k++) {
        long double e = rho_excess(&osc_test_method_inner, 0, probe_h(k));
        bool want_unstable = k == 2 || k == 3;
        if (want_unstable ? !(e > 64 * LDBL_EPSILON) : !(fabsl(e) <= 64 * LDBL_EPSILON))
            fail_msg("inner: probe point %d, rho - 1 = %Lg", k, e);
    }
}

/* A neutral trend (no three resolved points of one sign) says only that rho = 1 to round-off
 * where the probe looked: not at the inner map's two bands, one holding two resolved probe
 * points, one between probe points. The scan must evaluate every h above H_MIN: three stable
 * intervals, (0, 2e-6], [2.5e-6, 0.015], [0.035, inf). The edges are linear crossings of slope
 * 1 / lo, where round-off (7e-18) moves them by 7e-18 relative: the bisection's 1e-14 decides,
 * 2e-14 allows its last halving. Neutral: no fit. */
static void test_theory_neutral_trend_evaluates_all(void **state)
{
    (void)state;
    assert_inner_probe_signs();
    osc_stab_theory t = theory(&osc_test_method_inner, 0);
    assert_int_equal(t.kind, OSC_STAB_BOUNDED);
    assert_int_equal(t.nintervals, 3);
    const osc_stab_interval want[3] = {{0, 2e-6}, {2.5e-6, 0.015}, {0.035, INFINITY}};
    assert_true(t.intervals[0].lower == 0 && isinf(t.intervals[2].upper));
    for (int k = 0; k < 3; k++) {
        if (k > 0)
            assert_near(t.intervals[k].lower, want[k].lower, 2e-14);
        if (k < 2)
            assert_near(t.intervals[k].upper, want[k].upper, 2e-14);
    }
    assert_true(t.limit == t.intervals[0].upper);
    assert_true(isnan(t.small_h_power) && isnan(t.small_h_coef));
}

/* The comb's first eight stable intervals, (0, 1] and [1.1 2^(k-1), 2^k] (k = 1 .. 7). */
static osc_stab_interval comb_interval(size_t k)
{
    if (k == 0)
        return (osc_stab_interval){0, 1};
    return (osc_stab_interval){1.1 * ldexp(1, (int)k - 1), ldexp(1, (int)k)};
}

/* Nine stable intervals, of which the first OSC_STAB_MAX_INTERVALS (8) are kept, in order, and
 * intervals_truncated says one was left out. Undamped the ninth, [140.8, inf), is left out at
 * the end of the scan; with drag (zeta 0.5), [140.8, 600], at its upper edge. Edges to 2e-14
 * as in test_theory_narrow_band (slopes of rho 10 / h and more). */
static void test_theory_more_intervals_than_kept(void **state)
{
    (void)state;
    const double zetas[] = {0, 0.5};
    for (int z = 0; z < 2; z++) {
        osc_stab_theory t = theory(&osc_test_method_comb, zetas[z]);
        assert_int_equal(t.kind, OSC_STAB_BOUNDED);
        assert_true(t.intervals_truncated);
        assert_int_equal(t.nintervals, OSC_STAB_MAX_INTERVALS);
        assert_true(t.intervals[0].lower == 0 && t.limit == t.intervals[0].upper);
        for (size_t k = 0; k < OSC_STAB_MAX_INTERVALS; k++) {
            osc_stab_interval want = comb_interval(k);
            if (k > 0)
                assert_near(t.intervals[k].lower, want.lower, 2e-14);
            assert_near(t.intervals[k].upper, want.upper, 2e-14);
        }
    }
}

/* The same measured: the first eight intervals, each edge within twice its resolution, and the
 * ninth left out (undamped: the scan ends inside it; with drag: it closes at 600). */
static void test_measured_more_intervals_than_kept(void **state)
{
    (void)state;
    const double zetas[] = {0, 0.5};
    for (int z = 0; z < 2; z++) {
        osc_stab_measured r = measured(&osc_test_method_comb, OSC_DOUBLE, zetas[z]);
        assert_int_equal(r.kind, OSC_STAB_BOUNDED);
        assert_true(r.intervals_truncated);
        assert_int_equal(r.nintervals, OSC_STAB_MAX_INTERVALS);
        assert_true(r.intervals[0].lower == 0 && r.limit == r.intervals[0].upper);
        for (size_t k = 0; k < OSC_STAB_MAX_INTERVALS; k++) {
            osc_stab_interval want = comb_interval(k);
            if (k > 0) {
                assert_true(r.lower_resolution[k] < 1e-3);
                assert_near(r.intervals[k].lower, want.lower, 2 * r.lower_resolution[k]);
            }
            assert_true(r.upper_resolution[k] < 1e-3);
            assert_near(r.intervals[k].upper, want.upper, 2 * r.upper_resolution[k]);
        }
    }
}

/* Heavy damping puts the limit below every lane the first scan sees change: euler's
 * 2 / (zeta + sqrt(zeta^2 - 1)) is 0.00667 at zeta 150, and below it the lanes decay by less
 * than e^0.03 in 50000 steps while those above overflow. Overflowed lanes are not a trend of
 * growth that reaches down to 0 (they read NEVER, from zeta ~110 on, for every explicit method):
 * bounded, at the theory's limit (itself held to the closed form for euler). */
static void test_measured_limit_is_first_change(void **state)
{
    (void)state;
    const char *const names[] = {"euler", "rk4"};
    const double zetas[] = {150, 1000};
    for (size_t j = 0; j < 2; j++) {
        double euler_limit = 2 / (zetas[j] + sqrt(zetas[j] * zetas[j] - 1));
        assert_near(theory(find_or_skip("euler"), zetas[j]).limit, euler_limit, 1e-9);
        for (size_t i = 0; i < 2; i++)
            assert_measured_matches(find_or_skip(names[i]), OSC_DOUBLE, zetas[j]);
    }
}

/* Stormer and Verlet with the drag implicit at the centred velocity: (1 + zeta h) l^2 -
 * (2 - h^2) l + (1 - zeta h) = 0 on the unit oscillator, whose Jury conditions reduce to h < 2
 * at every zeta. At zeta 3000 the root near -1 + 2 / (zeta h) makes the energy norm jump by up
 * to e^8.5 in the first steps and then stay bounded: a start-up transient, not a growth rate,
 * which the trend near 0 read as unstable (NEVER, no stable interval). */
static void test_measured_transient_is_not_growth(void **state)
{
    (void)state;
    const char *const names[] = {"stormer", "verlet-implicit-drag"};
    for (size_t i = 0; i < 2; i++) {
        osc_stab_measured r = measured(find_or_skip(names[i]), OSC_DOUBLE, 3000);
        assert_int_equal(r.kind, OSC_STAB_BOUNDED);
        if (!(fabs(r.limit - 2) <= 2 * r.resolution * r.limit && r.resolution < 0.01))
            fail_msg("%s zeta 3000: measured %.9g +- %.1e, want 2", names[i], r.limit,
                     r.resolution);
    }
}

/* Bands narrower than the first guess of the bias (how far past an edge a lane must sit to grow
 * in the steps taken): forest-ruth at zeta 1.8 is stable on [3.9523, 3.97672], 0.024 wide, and
 * its upper edge's first batch started 0.07 below, beyond the lower edge: those lanes grew, and
 * the search went on away from the band, to an "upper edge" of 1.84902 below its lower one. In
 * float at zeta 2 ([3.46532, 3.51388]) the lower edge's batch overshot the other way and read
 * 3.512. Every interval matches the theory's. */
static void test_measured_band_narrower_than_bias(void **state)
{
    (void)state;
    const osc_method *m = find_or_skip("forest-ruth");
    osc_stab_theory t = theory(m, 1.8);
    assert_int_equal(t.nintervals, 3);
    assert_near(t.intervals[2].lower, 3.9523, 1e-4);
    assert_near(t.intervals[2].upper, 3.97672, 1e-5);
    assert_intervals_match_in(m, OSC_DOUBLE, 1.8, &t);
    t = theory(m, 2);
    assert_int_equal(t.nintervals, 2);
    assert_intervals_match_in(m, OSC_FLOAT, 2, &t);
}

/* A scan whose lanes cannot be set up (omega0*dt = 1e200: its stiffness h^2 overflows to inf,
 * which the batch refuses) reports the batch's error instead of reading growth it never
 * computed. */
static void test_measured_reports_setup_failure(void **state)
{
    (void)state;
    osc_stab_options o = {.h_high = 1e200};
    osc_stab_measured r;
    assert_int_equal(osc_stability_measured(osc_method_find("semi-implicit"), OSC_DOUBLE, 0, &o,
                                            &r),
                     OSC_EINVAL);
}

/* Arguments neither function can judge: no method or output, zeta negative, NaN or infinite,
 * a state size outside 1..OSC_MAX_STATE, no long double reference (theory), a precision that
 * is neither (measured). OSC_EINVAL, before any work. */
static void test_bad_arguments(void **state)
{
    (void)state;
    const osc_method *m = find_or_skip("verlet");
    osc_stab_theory t;
    osc_stab_measured r;
    const double bad_zetas[] = {-0.1, NAN, INFINITY};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(osc_stability_theory(m, bad_zetas[i], &t), OSC_EINVAL);
        assert_int_equal(osc_stability_measured(m, OSC_DOUBLE, bad_zetas[i], NULL, &r),
                         OSC_EINVAL);
    }
    assert_int_equal(osc_stability_theory(NULL, 0, &t), OSC_EINVAL);
    assert_int_equal(osc_stability_theory(m, 0, NULL), OSC_EINVAL);
    assert_int_equal(osc_stability_measured(NULL, OSC_DOUBLE, 0, NULL, &r), OSC_EINVAL);
    assert_int_equal(osc_stability_measured(m, OSC_DOUBLE, 0, NULL, NULL), OSC_EINVAL);
    assert_int_equal(osc_stability_measured(m, (osc_precision)OSC_NPRECISION, 0, NULL, &r),
                     OSC_EINVAL);
    osc_method odd = *m;
    const int sizes[] = {0, OSC_MAX_STATE + 1};
    for (int i = 0; i < 2; i++) {
        odd.nstate = sizes[i];
        assert_int_equal(osc_stability_theory(&odd, 0, &t), OSC_EINVAL);
    }
    odd = *m;
    odd.ref_ld.step = NULL;
    assert_int_equal(osc_stability_theory(&odd, 0, &t), OSC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measured_reports_setup_failure),
        cmocka_unit_test(test_radius_2x2),
        cmocka_unit_test(test_radius_3x3),
        cmocka_unit_test(test_radius_other_sizes),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_amplification_semi_implicit),
        cmocka_unit_test(test_theory_undamped_symplectic_pair),
        cmocka_unit_test(test_theory_rk4),
        cmocka_unit_test(test_theory_euler),
        cmocka_unit_test(test_theory_euler_overdamped),
        cmocka_unit_test(test_theory_critical_damping),
        cmocka_unit_test(test_theory_limit_is_stable_end),
        cmocka_unit_test(test_theory_small_h_trend),
        cmocka_unit_test(test_theory_implicit_midpoint),
        cmocka_unit_test(test_theory_semi_implicit_damped),
        cmocka_unit_test(test_theory_3x3_zero_start),
        cmocka_unit_test(test_theory_every_method),
        cmocka_unit_test(test_measured_semi_implicit),
        cmocka_unit_test(test_measured_rk4),
        cmocka_unit_test(test_measured_euler_never),
        cmocka_unit_test(test_measured_every_method),
        cmocka_unit_test(test_measured_overdamped_range_holds_theory),
        cmocka_unit_test(test_measured_limit_is_first_change),
        cmocka_unit_test(test_measured_transient_is_not_growth),
        cmocka_unit_test(test_measured_band_narrower_than_bias),
        cmocka_unit_test(test_ref_ld_matches_ref_d),
        cmocka_unit_test(test_theory_weakly_unstable_rk2),
        cmocka_unit_test(test_rk2_theory_and_measured),
        cmocka_unit_test(test_small_limits),
        cmocka_unit_test(test_two_intervals),
        cmocka_unit_test(test_theory_narrow_band),
        cmocka_unit_test(test_theory_bands_between_grid_points),
        cmocka_unit_test(test_measured_narrow_band),
        cmocka_unit_test(test_tangent_edge),
        cmocka_unit_test(test_theory_trend_needs_three_points),
        cmocka_unit_test(test_theory_falling_band),
        cmocka_unit_test(test_measured_falling_band),
        cmocka_unit_test(test_theory_neutral_trend_evaluates_all),
        cmocka_unit_test(test_theory_more_intervals_than_kept),
        cmocka_unit_test(test_measured_more_intervals_than_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
