/* The exact solution: it satisfies the ODE, starts where it should, is continuous across
 * zeta = 1 and as k -> 0, loses energy at the rate drag dissipates, stays accurate for long
 * times, and reproduces known closed forms. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "exact.h"

#define EPS DBL_EPSILON

typedef struct lane {
    double k, c, m, g, x0, v0;
} lane;

/* Regimes to sweep: underdamped (light, with gravity, undamped), near and at critical,
 * overdamped (moderate, heavy, k -> 0), ballistic with and without drag. */
static const lane lanes[] = {
    {4, 0.4, 1, 0, 1, 0.5},
    {4, 0.4, 2, 9.8, -0.3, 1},
    {1, 0, 1, 1, 1, 1},
    {1, 2 * (1 - 1e-8), 1, 9.8, 1, -1},
    {1, 2, 1, 9.8, 1, -1},
    {1, 2 * (1 + 1e-8), 1, 9.8, 1, -1},
    {1, 10, 1, 9.8, 1, -1},
    {2, 300, 3, -4, 0.5, 7},
    {1e-12, 0.5, 1, 9.8, 1, 2},
    {1e-12, 0, 1, 9.8, 1, 2},
    {0, 0.5, 1, 9.8, 1, 2},
    {0, 0, 1, 9.8, 1, 2},
};
#define NLANES (sizeof lanes / sizeof lanes[0])

static osc_exact prepare(lane l)
{
    osc_exact e;
    osc_exact_prepare(&e, l.k, l.c, l.m, l.g, l.x0, l.v0);
    return e;
}

static double x_at(const osc_exact *e, double t)
{
    double x, v;
    osc_exact_eval(e, t, &x, &v);
    return x;
}

static double v_at(const osc_exact *e, double t)
{
    double x, v;
    osc_exact_eval(e, t, &x, &v);
    return v;
}

/* The fastest rate in the motion (largest root modulus), or 1/t where there is none. */
static double rate_of(lane l, double t)
{
    double w2 = l.k / l.m, gam = l.c / l.m;
    return fmax(fmax(sqrt(w2), gam), 1 / t);
}

/* Eighth-order central differences. Truncation: h^8 f^(10) / 3150 (second derivative) and
 * h^8 f^(9) / 630 (first). */
static const double d2c[5] = {-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560};
static const double d1c[5] = {0, 4.0 / 5, -1.0 / 5, 4.0 / 105, -1.0 / 280};

typedef double (*fn_t)(const osc_exact *, double);

static double deriv2(fn_t f, const osc_exact *e, double t, double h)
{
    double sum = d2c[0] * f(e, t);
    for (int j = 1; j <= 4; j++)
        sum += d2c[j] * (f(e, t + j * h) + f(e, t - j * h));
    return sum / (h * h);
}

static double deriv1(fn_t f, const osc_exact *e, double t, double h)
{
    double sum = 0;
    for (int j = 1; j <= 4; j++)
        sum += d1c[j] * (f(e, t + j * h) - f(e, t - j * h));
    return sum / h;
}

/* The displacement scale the solution and its rounding live on, over the stencil. */
static double x_scale(lane l, const osc_exact *e, double t, double h, double rate)
{
    double big = fabs(l.x0) + fabs(l.v0) / rate + fabs(l.g) / (rate * rate);
    for (int j = -4; j <= 4; j++)
        big = fmax(big, fabs(x_at(e, t + j * h)));
    return big;
}

/* Residual of x'' + gam x' + w2 x + g with both derivatives of x by finite differences, and v
 * against x'. With h = 0.05 / rate, |x^(n)| <= C rate^n X (C ~ 10 near critical, from t e^{-ht}):
 * truncation <= 10 * 0.05^8 / 630 ~ 6e-13 (in units of rate^2 X); rounding, with x accurate to
 * 16 eps X, is 16 eps X (sum |d2c|) / h^2 = 16 eps 6.5 / 0.05^2 ~ 9e-12. Hence 2e-11. A wrong
 * term anywhere in the closed form leaves a residual of order 1. */
static void test_ode_residual(void **state)
{
    (void)state;
    const double times[] = {0.3, 1, 3, 20, 1e3};
    for (size_t i = 0; i < NLANES; i++) {
        lane l = lanes[i];
        osc_exact e = prepare(l);
        double w2 = l.k / l.m, gam = l.c / l.m;
        for (size_t n = 0; n < sizeof times / sizeof times[0]; n++) {
            double t = times[n], rate = rate_of(l, t), h = 0.05 / rate;
            double scale = x_scale(l, &e, t, h, rate);
            double xdot = deriv1(x_at, &e, t, h), xddot = deriv2(x_at, &e, t, h);
            double residual = xddot + gam * xdot + w2 * x_at(&e, t) + l.g;
            double rel = fabs(residual) / (rate * rate * scale);
            double vrel = fabs(v_at(&e, t) - xdot) / (rate * scale);
            if (rel > 2e-11 || vrel > 2e-12)
                print_error("lane %zu t %g: residual %g, v - x' %g\n", i, t, rel, vrel);
            assert_true(rel <= 2e-11);
            /* first derivative: 10 * 0.05^8 / 630 + 16 eps (sum |d1c| = 2.1) / 0.05 ~ 2e-13 */
            assert_true(vrel <= 2e-12);
        }
    }
}

/* Across the switch from series to closed form for P(t) (at t = 1/rho) the ODE still holds. */
static void test_ode_residual_at_series_switch(void **state)
{
    (void)state;
    const lane sw[] = {{4, 0.4, 1, 9.8, 1, 0.5}, {1, 10, 1, 9.8, 1, -1}, {1, 2, 1, 9.8, 0, 0}};
    const double switch_time[] = {0.5, 1 / (5 + sqrt(24)), 1};
    for (size_t i = 0; i < 3; i++) {
        osc_exact e = prepare(sw[i]);
        double t = switch_time[i], rate = rate_of(sw[i], t), h = 0.05 / rate;
        double scale = x_scale(sw[i], &e, t, h, rate);
        double residual = deriv2(x_at, &e, t, h) + sw[i].c / sw[i].m * deriv1(x_at, &e, t, h) +
                          sw[i].k / sw[i].m * x_at(&e, t) + sw[i].g;
        assert_true(fabs(residual) <= 2e-11 * rate * rate * scale); /* as above */
    }
}

static void test_initial_state(void **state)
{
    (void)state;
    for (size_t i = 0; i < NLANES; i++) {
        osc_exact e = prepare(lanes[i]);
        double x, v;
        osc_exact_eval(&e, 0, &x, &v);
        /* x(0) is x0 * 1 + v0 * 0 - g * 0; v(0) may carry a few roundings of (a - b)/(2 mu) */
        assert_true(x == lanes[i].x0);
        assert_true(fabs(v - lanes[i].v0) <= 8 * EPS * fabs(lanes[i].v0));
    }
}

static void test_pinned_lane(void **state)
{
    (void)state;
    osc_exact e;
    osc_exact_prepare(&e, 3, 1, 0, 9.8, 0.25, 5);
    for (double t = 0; t < 100; t += 7.5) {
        double x, v;
        osc_exact_eval(&e, t, &x, &v);
        assert_true(x == 0.25 && v == 0);
    }
}

/* zeta = 1 - d, 1, 1 + d with d = 1e-8. The solution is smooth in zeta, so the symmetric
 * second difference x(1+d) + x(1-d) - 2 x(1) is d^2 x_zz: with |x_zz| <= ~(omega t)^4 X / 4 and
 * omega t <= 3, that is < 3e-15 X, plus 4 x 16 eps X of rounding: 2e-14 X in all. A formula
 * that divides a difference of the two exponentials by mu ~ 1.4e-4 omega loses
 * eps / (mu t) ~ 1e-12 and fails. The first difference must be O(d). */
static void test_continuity_across_critical(void **state)
{
    (void)state;
    const double d = 1e-8, times[] = {0.25, 1, 3};
    const double xs[] = {1, 0, -2}, vs[] = {0, 1, 0.5}, gs[] = {0, 9.8, -3};
    const double km[2][2] = {{2.5, 1.5}, {4, 1}}; /* the second is critical exactly (q = 0) */
    for (int c = 0; c < 6; c++) {
        double k = km[c / 3][0], m = km[c / 3][1], crit = 2 * sqrt(k * m), omega = sqrt(k / m);
        osc_exact lo, mid, hi;
        double x0 = xs[c % 3], v0 = vs[c % 3], g = gs[c % 3];
        osc_exact_prepare(&lo, k, crit * (1 - d), m, g, x0, v0);
        osc_exact_prepare(&mid, k, crit, m, g, x0, v0);
        osc_exact_prepare(&hi, k, crit * (1 + d), m, g, x0, v0);
        for (int n = 0; n < 3; n++) {
            double t = times[n] / omega;
            double scale = fabs(x0) + fabs(v0) / omega + fabs(g) / (omega * omega);
            double xl, vl, xm, vm, xh, vh;
            osc_exact_eval(&lo, t, &xl, &vl);
            osc_exact_eval(&mid, t, &xm, &vm);
            osc_exact_eval(&hi, t, &xh, &vh);
            assert_true(fabs(xh - xm) <= 10 * d * scale && fabs(xl - xm) <= 10 * d * scale);
            assert_true(fabs(xh + xl - 2 * xm) <= 2e-14 * scale);
            assert_true(fabs(vh + vl - 2 * vm) <= 2e-14 * scale * omega);
        }
    }
}

/* k = 1e-12 against k = 0, with gravity, with and without drag. dx/dw2 = -integral of
 * Phi12(t - s) x(s) ds, |Phi12| <= t, so |x(w2) - x(0)| <= w2 t^2 max|x|; plus rounding. A
 * formula through the rest point -g/w2 = -9.8e12 would be off by ~1e-3. */
static void test_continuity_at_zero_stiffness(void **state)
{
    (void)state;
    const double drags[] = {0, 0.5, 30}, times[] = {0.01, 1, 10, 100};
    for (int c = 0; c < 3; c++) {
        osc_exact soft, free_;
        osc_exact_prepare(&soft, 1e-12, drags[c], 1, 9.8, 1, 2);
        osc_exact_prepare(&free_, 0, drags[c], 1, 9.8, 1, 2);
        for (int n = 0; n < 4; n++) {
            double t = times[n], xs, vs, xf, vf;
            osc_exact_eval(&soft, t, &xs, &vs);
            osc_exact_eval(&free_, t, &xf, &vf);
            double xmax = 1 + 2 * t + 9.8 * t * t; /* bounds |x| on [0, t] */
            double tol = 1e-12 * t * t * xmax + 16 * EPS * xmax;
            assert_true(fabs(xs - xf) <= tol);
            assert_true(fabs(vs - vf) <= 1e-12 * t * xmax + 16 * EPS * (2 + 9.8 * t));
        }
    }
}

static double energy_of(lane l, double x, double v)
{
    return 0.5 * l.m * v * v + 0.5 * l.k * x * x + l.m * l.g * x;
}

/* dE/dt = -c v^2, dE/dt by the eighth-order first difference. E oscillates at up to twice the
 * motion's rate, so with h = 0.02 / rate truncation is ~ 10 * 0.04^8 / 630 ~ 1e-13 (units of
 * rate * Emag) and rounding 16 eps * 2.1 / 0.02 ~ 4e-13. Hence 2e-12. */
static lane energy_lane;
static double energy_at(const osc_exact *e, double t)
{
    double x, v;
    osc_exact_eval(e, t, &x, &v);
    return energy_of(energy_lane, x, v);
}

static void test_energy_dissipation(void **state)
{
    (void)state;
    const double times[] = {0.5, 2, 7};
    for (size_t i = 0; i < NLANES; i++) {
        lane l = energy_lane = lanes[i];
        osc_exact e = prepare(l);
        for (int n = 0; n < 3; n++) {
            double t = times[n], rate = rate_of(l, t), h = 0.02 / rate;
            double x, v, xmag = 0, vmag = 0;
            osc_exact_eval(&e, t, &x, &v);
            for (int j = -4; j <= 4; j++) {
                double xj, vj;
                osc_exact_eval(&e, t + j * h, &xj, &vj);
                xmag = fmax(xmag, fabs(xj)), vmag = fmax(vmag, fabs(vj));
            }
            double emag = 0.5 * l.m * vmag * vmag + 0.5 * l.k * xmag * xmag + l.m * fabs(l.g) * xmag;
            double rate_fd = deriv1(energy_at, &e, t, h);
            assert_true(fabs(rate_fd + l.c * v * v) <= 2e-12 * rate * emag);
        }
    }
}

/* Undamped at omega t = 1e6, against an independent reference: the same motion evaluated in
 * long double (64-bit significand: its own phase error at omega t = 1e6 is ~1e6 x 5.4e-20 =
 * 5e-14, far below the tolerance). The closed form in double forms its phase omega t with a
 * relative error of a few eps, i.e. an absolute phase error of ~eps omega t, so it may differ
 * from the truth by (8 + 2 omega t) eps of the motion's scale, and no more. */
static void test_long_time_undamped(void **state)
{
    (void)state;
    const double ks[] = {4, 3, 0.37};
    for (int n = 0; n < 3; n++) {
        double k = ks[n], w = sqrt(k), t = 1e6 / w, x, v;
        long double wl = sqrtl(k), phase = wl * (long double)t;
        long double cs = cosl(phase), sn = sinl(phase);
        double phase_tol = (8 + 2 * 1e6) * EPS;
        osc_exact e;
        osc_exact_prepare(&e, k, 0, 1, 0, 0.75, -2);
        osc_exact_eval(&e, t, &x, &v);
        long double xref = 0.75L * cs - 2 / wl * sn, vref = -0.75L * wl * sn - 2 * cs;
        assert_true(fabsl(x - xref) <= phase_tol * (0.75 + 2 / w));
        assert_true(fabsl(v - vref) <= phase_tol * (0.75 * w + 2));
        /* with gravity: about the rest point -g/k */
        osc_exact_prepare(&e, k, 0, 1, 9.8, 0.75, -2);
        osc_exact_eval(&e, t, &x, &v);
        long double rest = -9.8L / k;
        double scale = fabs((double)rest) + 0.75 + 2 / w;
        assert_true(fabsl(x - (rest + (0.75L - rest) * cs - 2 / wl * sn)) <= phase_tol * scale);
        /* and the error is not trivially small: the test can tell a wrong phase (a frequency
         * off by one part in 1e9 moves x by ~1e-3) */
        osc_exact_prepare(&e, k * (1 + 2e-9), 0, 1, 0, 0.75, -2);
        osc_exact_eval(&e, t, &x, &v);
        assert_true(fabsl(x - xref) > 100 * phase_tol * (0.75 + 2 / w));
    }
}

/* Heavy damping at long and absurd times: finite, no overflow, at the rest point. */
static void test_long_time_overdamped(void **state)
{
    (void)state;
    const double drags[] = {50, 1e4, 1e8}, times[] = {1e4, 1e8, 1e15, 1e300};
    for (int c = 0; c < 3; c++)
        for (int n = 0; n < 4; n++) {
            osc_exact e;
            osc_exact_prepare(&e, 1, drags[c], 1, 9.8, 1, -3);
            double x, v, t = times[n];
            osc_exact_eval(&e, t, &x, &v);
            assert_true(isfinite(x) && isfinite(v));
            /* slow rate b ~ 1 / c: decayed by e^{-t/c} <= e^{-100} except c = 1e8, t = 1e4 */
            if (t / drags[c] > 100) {
                assert_true(fabs(x + 9.8) <= 8 * EPS * 9.8);
                assert_true(fabs(v) <= 1e-30);
            } else {
                assert_true(x > -9.8 && x < 1);
            }
        }
    /* drag past where h^2 overflows (c/m ~ 2.7e154; it made the reference NaN): the lane sheds
     * v0 within 1/c, moving by |v0|/c, then creeps toward rest at the slow rate k/c, so it stays
     * at x0 to 1e-140 over t <= 1e10 */
    const double absurd[] = {1e160, 1e300};
    for (int c = 0; c < 2; c++)
        for (int n = 0; n < 3; n++) {
            osc_exact e;
            osc_exact_prepare(&e, 1, absurd[c], 1, 9.8, 1, -3);
            double x, v, t = n == 0 ? 1e-200 : n == 1 ? 1 : 1e10;
            osc_exact_eval(&e, t, &x, &v);
            if (!(fabs(x - 1) <= 1e-140 && fabs(v) <= 3))
                fail_msg("drag %g at t %g: x %g v %g", absurd[c], t, x, v);
        }
    /* underdamped and critical at absurd times too */
    const double cs[] = {0.1, 2};
    for (int c = 0; c < 2; c++) {
        osc_exact e;
        osc_exact_prepare(&e, 1, cs[c], 1, 9.8, 1, -3);
        double x, v;
        osc_exact_eval(&e, 1e300, &x, &v);
        assert_true(fabs(x + 9.8) <= 8 * EPS * 9.8 && fabs(v) <= 1e-30);
    }
}

/* Overdamped with a soft spring: after the fast mode (rate a) has died, the velocity is the slow
 * mode's, -b/(a - b) e^{-bt} with b ~ w2/gam tiny. It must keep its relative accuracy: written as
 * e^{-bt}(1 - a s) it would cancel 1 against a/(a - b) ~ 1 + 1e-6 and lose 6 digits. Reference
 * from the two roots in long double. */
static void test_overdamped_slow_tail(void **state)
{
    (void)state;
    const double ks[] = {1e-6, 1e-3, 0.2};
    for (int n = 0; n < 3; n++) {
        double k = ks[n], c = 1;
        osc_exact e;
        osc_exact_prepare(&e, k, c, 1, 0, 0, 1);
        long double h = 0.5L * c, mu = sqrtl(h * h - k), a = h + mu, b = k / a;
        for (double t = 20; t < 2e4; t *= 3) {
            double x, v;
            osc_exact_eval(&e, t, &x, &v);
            long double want = (a * expl(-a * t) - b * expl(-b * t)) / (a - b);
            long double xwant = (expl(-b * t) - expl(-a * t)) / (a - b);
            if (b * t > 300) /* e^{-bt} underflows in double */
                break;
            /* b carries a rounding or two, which e^{-bt} amplifies by b t */
            long double tol = 16 * EPS * (4 + b * t);
            assert_true(fabsl(v - want) <= tol * fabsl(want));
            assert_true(fabsl(x - xwant) <= tol * fabsl(xwant));
        }
    }
}

/* Critical, x0 = 1, v0 = 0: x = (1 + w t) e^{-w t}, v = -w^2 t e^{-w t}. */
static void test_known_critical(void **state)
{
    (void)state;
    double k = 9, m = 1, w = 3;
    osc_exact e;
    osc_exact_prepare(&e, k, 2 * sqrt(k * m), m, 0, 1, 0);
    for (double t = 0; t < 10; t += 0.37) {
        double x, v;
        osc_exact_eval(&e, t, &x, &v);
        double decay = exp(-w * t);
        assert_true(fabs(x - (1 + w * t) * decay) <= 4 * EPS * (1 + w * t) * decay);
        assert_true(fabs(v - (-w * w * t * decay)) <= 4 * EPS * w * w * t * decay);
    }
}

/* Free fall x0 + v0 t - g t^2 / 2 (the series of P is exactly t^2/2 here); SPEC's worked trace:
 * thrown up at 3 from 0 under g = 10, the height at t = 1 is -2. */
static void test_known_free_fall(void **state)
{
    (void)state;
    osc_exact e;
    osc_exact_prepare(&e, 0, 0, 1, 10, 0, 3);
    double x, v;
    osc_exact_eval(&e, 1, &x, &v);
    assert_true(x == -2 && v == -7);
    osc_exact_prepare(&e, 0, 0, 2, 9.8, 1.5, 4);
    for (double t = 0; t < 1e6; t = t * 3 + 0.1) {
        osc_exact_eval(&e, t, &x, &v);
        double want = 1.5 + 4 * t - 9.8 * t * t / 2;
        assert_true(fabs(x - want) <= 4 * EPS * (1.5 + 4 * t + 9.8 * t * t / 2));
        assert_true(fabs(v - (4 - 9.8 * t)) <= 2 * EPS * (4 + 9.8 * t));
    }
}

/* Ballistic with drag: x = x0 + (v0 + g/gam)(1 - e^{-gam t})/gam - g t/gam; and the undamped
 * spring from rest under gravity: x = -(g/w2)(1 - cos w t). At gam t >= 0.5 the reference itself
 * cancels by at most a factor ~10, hence 64 eps. */
static void test_known_other(void **state)
{
    (void)state;
    double gam = 0.8, g = 9.8, x0 = 2, v0 = -1;
    osc_exact e;
    osc_exact_prepare(&e, 0, gam, 1, g, x0, v0);
    for (double t = 0.625; t < 100; t *= 1.7) {
        double x, v, s = -expm1(-gam * t) / gam;
        osc_exact_eval(&e, t, &x, &v);
        double want = x0 + (v0 + g / gam) * s - g * t / gam;
        double scale = fabs(x0) + (fabs(v0) + g / gam) * s + g * t / gam;
        assert_true(fabs(x - want) <= 64 * EPS * scale);
        assert_true(fabs(v - ((v0 + g / gam) * exp(-gam * t) - g / gam)) <= 16 * EPS * (fabs(v0) + g / gam));
    }
    osc_exact_prepare(&e, 4, 0, 1, g, 0, 0);
    for (double t = 0.5; t < 100; t *= 1.9) {
        double x, v;
        osc_exact_eval(&e, t, &x, &v);
        assert_true(fabs(x - (-(g / 4) * (1 - cos(2 * t)))) <= 16 * EPS * g / 4);
    }
}

/* osc_motion_scale of a free particle falling from rest: the documented
 * |g| t_end min(t_end/2, 1/gam). It bounds the distance fallen, travel = (g/gam^2)(y - 1 + e^-y)
 * with y = gam t_end (below both g t^2/2 and g t/gam), and overstates it by at most ~1.76 (at
 * y ~ 2; -> 1 as y -> 0 or infinity), so travel <= scale <= 2 travel, where the travel is
 * measured with the closed form. k = c = 0: exactly g t_end^2 / 2. */
static void test_motion_scale_free_fall(void **state)
{
    (void)state;
    const double zero = 0, g = 9.8, t_end = 10;
    /* gam = 1: travel 98 - 9.8 (1 - e^-10) = 88.2, scale 98 (min(5, 1) = 1) */
    double gams[] = {1, 0.01, 0.2, 0.5, 3, 100};
    for (size_t i = 0; i < sizeof gams / sizeof gams[0]; i++) {
        double scale = osc_motion_scale(1, 0, gams[i], 1, g, &zero, &zero, t_end);
        osc_exact e;
        osc_exact_prepare(&e, 0, gams[i], 1, g, 0, 0);
        double x, v;
        osc_exact_eval(&e, t_end, &x, &v); /* falls monotonically: |x(t_end)| is the largest */
        double travel = fabs(x);
        if (!(travel <= scale && scale <= 2 * travel))
            fail_msg("gam %g: scale %g, travel %g", gams[i], scale, travel);
        double want = g * t_end * fmin(t_end / 2, 1 / gams[i]);
        assert_true(fabs(scale - want) <= 4 * EPS * want);
    }
    assert_true(fabs(osc_motion_scale(1, 0, 1, 1, g, &zero, &zero, t_end) - 98) <= 4 * EPS * 98);
    assert_true(osc_motion_scale(1, 0, 0, 1, g, &zero, &zero, t_end) == g * t_end * t_end / 2);
}

/* osc_motion_scale of a soft spring under gravity: k = 1e-4, m = 1, g = 9.81 puts the rest point
 * 98 km below, and the amplitude |x0 - x_rest| + |v0| / omega0 (98150 from rest with v0 = 0.5)
 * would call the motion that large; in 10 s the lane falls ~0.5 km (with drag 0.5, ~0.16 km), so
 * the scale is the travel bound |v0| t + omega0^2 A t min(t/2, 1/gam) instead, and as for free
 * fall travel <= scale <= 2 travel, the travel (the largest |x(t)|, from rest at x0 = 0)
 * measured with the closed form every 0.01 s. k = 1e-12 likewise. */
static void test_motion_scale_soft_spring(void **state)
{
    (void)state;
    const double zero = 0, v0 = 0.5, g = 9.81, t_end = 10;
    const struct { double k, c; } cases[] = {{1e-4, 0}, {1e-4, 0.5}, {1e-12, 0}, {1e-12, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const double scale = osc_motion_scale(1, cases[i].k, cases[i].c, 1, g, &zero, &v0, t_end);
        osc_exact e;
        osc_exact_prepare(&e, cases[i].k, cases[i].c, 1, g, 0, v0);
        double travel = 0;
        for (int j = 1; j <= 1000; j++) {
            double x, v;
            osc_exact_eval(&e, j * 0.01, &x, &v);
            travel = fmax(travel, fabs(x));
        }
        if (!(travel <= scale && scale <= 2 * travel))
            fail_msg("k %g, c %g: scale %g, travel %g", cases[i].k, cases[i].c, scale, travel);
    }
}

/* An independent reference: e^{At} applied to (x0, v0, 1) for the first-order system
 * y' = A y, A = [[0, 1, 0], [-w2, -gam, -g], [0, 0, 0]], in long double (64-bit significand),
 * by Taylor's series on t / 2^s with (omega + gam) t / 2^s <= 2 (40 terms: truncation
 * 2^41 / 41! ~ 4e-38) and s squarings (s <= 9 here; each at most doubles the relative error:
 * 2^9 x 5.4e-20 ~ 0.1 eps). It knows nothing of regimes, roots or P(t). Checked while writing
 * this test against the long double closed form where that is well conditioned (zeta = 0, 0.3,
 * 2; t to 13 / omega): within 0.004 eps S, S as below. */
static void reference_eval(double k, double c, double m, double g, double x0, double v0, double t,
                           long double *x, long double *v)
{
    const long double w2 = (long double)k / m, gam = (long double)c / m;
    const long double a[3][3] = {{0, 1, 0}, {-w2, -gam, -(long double)g}, {0, 0, 0}};
    long double norm = (sqrtl(w2) + gam) * t;
    int s = 0;
    while (norm > 2)
        norm /= 2, s++;
    const long double h = t / ldexpl(1, s);
    long double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, term[3][3];
    memcpy(term, e, sizeof term);
    for (int n = 1; n <= 40; n++) {
        long double next[3][3] = {{0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int l = 0; l < 3; l++)
                    next[i][j] += term[i][l] * a[l][j] * h / n;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                term[i][j] = next[i][j], e[i][j] += next[i][j];
    }
    for (int q = 0; q < s; q++) {
        long double sq[3][3] = {{0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int l = 0; l < 3; l++)
                    sq[i][j] += e[i][l] * e[l][j];
        memcpy(e, sq, sizeof e);
    }
    *x = e[0][0] * x0 + e[0][1] * v0 + e[0][2];
    *v = e[1][0] * x0 + e[1][1] * v0 + e[1][2];
}

/* Every regime against the matrix exponential, to exact.h's "a few ulps of the motion's own
 * scale": |x - x_ref| <= 4 eps S and |v - v_ref| <= 4 eps S rate, with S = |x0| + |v0| / rate +
 * |g| / omega^2 (the rest point's offset) and rate the fastest root modulus, max(omega, gam).
 * Measured: at most 1.5 eps S and 1.7 eps S rate. The zetas straddle critical from both sides
 * (1 -+ 1e-9, 1e-6), the overdamped form's switch at mu = h/3 (zeta = 3/sqrt(8) = 1.0607) and
 * the neighbourhood just above critical where the near-critical Phi22 must be used (zeta 1.0006
 * to 1.01: mu/h ~ 0.035 to 0.14; (a e^{-at} - b e^{-bt})/(2 mu) there loses h/(2 mu) ~ 14 eps of
 * v). The times straddle the switch of P(t) from its series to the closed form at rho t = 1
 * (0.99 and 1) and sit just below rho t = 2 (1.9, 1.99), where a series taken that far would
 * have lost ~10-30 eps. */
static void test_against_matrix_exponential(void **state)
{
    (void)state;
    const double zetas[] = {0,     0.3,         0.9,    1 - 1e-6, 1 - 1e-9, 1,      1 + 1e-9,
                            1 + 1e-6, 1 + 1e-3, 1.0006, 1.0008, 1.002, 1.01,   1.02,
                            1.03,  1.05,        1.06,   1.0607, 1.07,     1.1,    1.2,
                            1.5,   2,           5,      30};
    const double times[] = {0.05, 0.3, 0.7, 0.99, 1, 1.5, 1.9, 1.99, 3, 6, 12}; /* x 1/omega */
    const double x0s[] = {1, 0, -0.5}, v0s[] = {0, 1, 2};
    double worst_x = 0, worst_v = 0;
    for (size_t z = 0; z < sizeof zetas / sizeof zetas[0]; z++)
        for (int gi = 0; gi < 2; gi++)
            for (int ic = 0; ic < 3; ic++) {
                /* k = 2.5, m = 1.5; critical exactly with k = 4, m = 1, c = 4 (q = 0) */
                double k = 2.5, m = 1.5, c = 2 * zetas[z] * sqrt(k * m);
                if (zetas[z] == 1)
                    k = 4, m = 1, c = 4;
                double omega = sqrt(k / m), gam = c / m, rate = fmax(omega, gam);
                double g = gi ? 9.8 : 0, x0 = x0s[ic], v0 = v0s[ic];
                double scale = fabs(x0) + fabs(v0) / rate + fabs(g) / (omega * omega);
                osc_exact e;
                osc_exact_prepare(&e, k, c, m, g, x0, v0);
                for (size_t n = 0; n < sizeof times / sizeof times[0]; n++) {
                    double t = times[n] / omega, x, v;
                    long double xr, vr;
                    osc_exact_eval(&e, t, &x, &v);
                    reference_eval(k, c, m, g, x0, v0, t, &xr, &vr);
                    double ex = (double)fabsl(x - xr) / (EPS * scale);
                    double ev = (double)fabsl(v - vr) / (EPS * scale * rate);
                    worst_x = fmax(worst_x, ex), worst_v = fmax(worst_v, ev);
                    if (ex > 4 || ev > 4)
                        print_error("zeta %.10g g %g x0 %g v0 %g omega t %g: x off %.2f eps S, "
                                    "v off %.2f eps S rate\n",
                                    zetas[z], g, x0, v0, times[n], ex, ev);
                }
            }
    assert_true(worst_x <= 4 && worst_v <= 4);
}

/* osc_exact_map against the same matrix exponential: its columns are the motions from the unit
 * states (1, 0) and (0, 1) without gravity (p11, -w2 p12; p12, p22) and from rest with it
 * (q1, q2), so each is held to the bound above with that start's scale S: 1, 1 / rate and
 * |g| / omega^2. The x0, v0 given to prepare play no part. */
static void check_map(double k, double c, double m, double g, double t, double rate,
                      double g_scale)
{
    osc_exact e;
    osc_exact_prepare(&e, k, c, m, g, 0.25, -3); /* any start: the map ignores it */
    double p11, p12, p22, q1, q2;
    osc_exact_map(&e, t, &p11, &p12, &p22, &q1, &q2);
    long double x[3], v[3];
    reference_eval(k, c, m, 0, 1, 0, t, &x[0], &v[0]);
    reference_eval(k, c, m, 0, 0, 1, t, &x[1], &v[1]);
    reference_eval(k, c, m, g, 0, 0, t, &x[2], &v[2]);
    const double got_x[3] = {p11, p12, q1}, got_v[3] = {-(k / m) * p12, p22, q2};
    const double scale[3] = {1, 1 / rate, g_scale};
    for (int col = 0; col < 3; col++)
        if (!(fabsl(got_x[col] - x[col]) <= 4 * EPS * scale[col] &&
              fabsl(got_v[col] - v[col]) <= 4 * EPS * scale[col] * rate + 2 * EPS * fabs(got_v[col])))
            fail_msg("k %g c %g m %g g %g t %g, column %d: map (%.17g, %.17g), reference "
                     "(%.17Lg, %.17Lg)",
                     k, c, m, g, t, col, got_x[col], got_v[col], x[col], v[col]);
}

/* Every regime: under-, critically and overdamped (both overdamped forms), undamped, and the free
 * particle with and without drag, where the spring's scale g / omega^2 does not exist and the
 * distance fallen from rest, |g| t min(t/2, 1/gam) (exact.h's motion scale) takes its place,
 * with rate max(gam, 1/t). Without gravity q = 0 exactly, even for the free particle without
 * drag, whose closed form P = (1 - Phi11)/w2 is 0/0 there. -w2 p12 carries one more rounding
 * than p12 (2 eps of itself). A pinned lane (m = 0) maps to (1, 0, 0, 0, 0): it stays put and
 * has no velocity. */
static void test_map_against_matrix_exponential(void **state)
{
    (void)state;
    const double zetas[] = {0, 0.3, 1 - 1e-9, 1, 1 + 1e-6, 1.01, 1.1, 5};
    const double times[] = {0.05, 0.7, 1, 1.99, 3, 12}; /* x 1/omega */
    for (size_t z = 0; z < sizeof zetas / sizeof zetas[0]; z++)
        for (size_t n = 0; n < sizeof times / sizeof times[0]; n++) {
            double k = 2.5, m = 1.5, c = 2 * zetas[z] * sqrt(k * m);
            if (zetas[z] == 1)
                k = 4, m = 1, c = 4;
            double omega = sqrt(k / m), gam = c / m, rate = fmax(omega, gam);
            for (int gi = 0; gi < 2; gi++) {
                double g = gi ? 9.8 : 0;
                check_map(k, c, m, g, times[n] / omega, rate, g / (omega * omega));
            }
        }
    const double free_gams[] = {0, 0.5}, free_times[] = {0.3, 2, 40};
    for (int i = 0; i < 2; i++)
        for (int n = 0; n < 3; n++)
            for (int gi = 0; gi < 2; gi++) {
                double gam = free_gams[i], t = free_times[n], g = gi ? -9.8 : 0;
                double fall = fabs(g) * t * (gam > 0 ? fmin(t / 2, 1 / gam) : t / 2);
                check_map(0, gam, 1, g, t, fmax(gam, 1 / t), fall);
                if (g == 0) {
                    osc_exact e;
                    osc_exact_prepare(&e, 0, gam, 1, 0, 1, 1);
                    double p11, p12, p22, q1, q2;
                    osc_exact_map(&e, t, &p11, &p12, &p22, &q1, &q2);
                    assert_true(q1 == 0 && q2 == 0);
                }
            }
    osc_exact e;
    osc_exact_prepare(&e, 3, 0.5, 0, 9.8, 1, 2);
    double p11, p12, p22, q1, q2;
    osc_exact_map(&e, 2.5, &p11, &p12, &p22, &q1, &q2);
    assert_true(p11 == 1 && p12 == 0 && p22 == 0 && q1 == 0 && q2 == 0);
}

/* osc_exact_step_map's increments d11 = p11 - 1 and d22 = p22 - 1 to a few ulps of themselves
 * for short steps (omega T from 1e-6 to 0.5), against the underdamped closed form written so that
 * nothing small is lost, in long double:
 *     d11 = expm1(-hT) (cos + h s) + (cos - 1) + h s,
 *     d22 = expm1(-hT) (cos - h s) + (cos - 1) - h s,
 * s = sin(wd T) / wd, cos - 1 = -2 sin^2(wd T / 2); d11's first-order terms (h T each) cancel
 * to (omega T)^2 / 2, so the reference is good to a few long double ulps of h T, a relative
 * 2 zeta / (omega T) of them (the tolerance: 4 double ulps plus 16 of those; at zeta 0.2 and
 * omega T 1e-6, 7e-13). p11 - 1 from the rounded p11 is off by up to eps / 2 absolute: a
 * relative 2e-4 there, and 1e5 ulps of d11 at omega T = 1e-3. The rest of the map is
 * osc_exact_map's (p12, q1, q2 the same bits); free and
 * pinned lanes give d11 = 0, d22 = expm1(-gam T) and (0, 0, -1, 0, 0). */
static void test_step_map_increments(void **state)
{
    (void)state;
    const double zetas[] = {0, 1e-3, 0.2, 0.5}, steps[] = {1e-6, 1e-4, 1e-3, 0.03, 0.5};
    for (size_t z = 0; z < sizeof zetas / sizeof zetas[0]; z++)
        for (size_t n = 0; n < sizeof steps / sizeof steps[0]; n++)
            for (int gi = 0; gi < 2; gi++) {
                const double k = 2.5, m = 1.5, omega = sqrt(k / m), c = 2 * zetas[z] * sqrt(k * m);
                const double T = steps[n] / omega, g = gi ? 9.8 : 0;
                osc_exact e;
                osc_exact_prepare(&e, k, c, m, g, 0, 0);
                double d11, p12, d22, q1, q2, p11, p12m, p22, q1m, q2m;
                osc_exact_step_map(&e, T, &d11, &p12, &d22, &q1, &q2);
                osc_exact_map(&e, T, &p11, &p12m, &p22, &q1m, &q2m);
                assert_true(p12 == p12m && q1 == q1m && q2 == q2m);
                const long double h = 0.5L * c / m, w2 = (long double)k / m;
                const long double wd = sqrtl(w2 - h * h), s = sinl(wd * T) / wd;
                const long double half = sinl(wd * T / 2), cm1 = -2 * half * half;
                const long double e1 = expm1l(-h * T), cs = 1 + cm1;
                const long double want11 = e1 * (cs + h * s) + cm1 + h * s;
                const long double want22 = e1 * (cs - h * s) + cm1 - h * s;
                const double tol = 4 * EPS + 32 * LDBL_EPSILON * zetas[z] / steps[n];
                if (!(fabsl(d11 - want11) <= tol * fabsl(want11) &&
                      fabsl(d22 - want22) <= tol * fabsl(want22)))
                    fail_msg("zeta %g omega T %g g %g: d11 %.17g want %.17Lg, d22 %.17g want "
                             "%.17Lg (rel tol %.3g)",
                             zetas[z], steps[n], g, d11, want11, d22, want22, tol);
            }
    osc_exact e;
    double d11, p12, d22, q1, q2;
    osc_exact_prepare(&e, 0, 0.5, 1, 0, 1, 1);
    osc_exact_step_map(&e, 0.01, &d11, &p12, &d22, &q1, &q2);
    assert_true(d11 == 0 && fabs(d22 - expm1(-0.005)) <= 4 * EPS * fabs(d22));
    osc_exact_prepare(&e, 3, 0.5, 0, 9.8, 1, 2);
    osc_exact_step_map(&e, 0.01, &d11, &p12, &d22, &q1, &q2);
    assert_true(d11 == 0 && p12 == 0 && d22 == -1 && q1 == 0 && q2 == 0);
}

/* The dimensionless parameters as exact.h defines them: omega0 = sqrt(k/m), zeta =
 * c / (2 sqrt(k m)), with their edge values; zeta = 1 exactly where the closed form is critical
 * (k = 4, m = 1, c = 4: x = (1 + 2t) e^{-2t} from x0 = 1, v0 = 0, see test_known_critical). */
static void test_omega0_and_zeta(void **state)
{
    (void)state;
    assert_true(osc_omega0(4, 1) == 2 && osc_omega0(9, 4) == 1.5 && osc_omega0(0, 1) == 0);
    assert_true(osc_omega0(3, 0) == 0); /* pinned */
    assert_true(osc_zeta(4, 4, 1) == 1);
    assert_true(osc_zeta(9, 3, 4) == 0.25);  /* 3 / (2 x 6) */
    assert_true(osc_zeta(1, 10, 1) == 5);
    assert_true(osc_zeta(4, 0, 1) == 0 && osc_zeta(0, 0, 1) == 0 && osc_zeta(4, 0, 0) == 0);
    assert_true(isinf(osc_zeta(0, 0.5, 1)) && osc_zeta(0, 0.5, 1) > 0); /* drag, no spring */
    assert_true(isinf(osc_zeta(4, 0.5, 0)) && osc_zeta(4, 0.5, 0) > 0); /* drag, no mass */
    /* k m overflows (2^1200) or underflows (2^-1200), sqrt(k m) does not: exact powers of 2 */
    assert_true(osc_zeta(0x1p600, 0x1p601, 0x1p600) == 1);
    assert_true(osc_zeta(0x1p-600, 0x1p-600, 0x1p-600) == 0.5);
    osc_exact e;
    osc_exact_prepare(&e, 4, 4, 1, 0, 1, 0);
    double x, v;
    osc_exact_eval(&e, 0.5, &x, &v);
    assert_true(fabs(x - 2 * exp(-1.0)) <= 4 * EPS);
}

/* osc_motion_scale with a spring (exact.h): |x0 - x_rest| + |v0| / omega0 with the rest point
 * (0, ..., -g m/k) on the last axis. k = 4, m = 1, g = 9.8: x_rest = (0, -2.45); x0 = (3, 1.55)
 * is (3, 4) from it, |v0| / omega0 = 2 / 2: scale 6. And it bounds the undamped motion: the
 * distance from rest stays within sqrt(|x0 - x_rest|^2 + |v0|^2 / omega0^2) <= the scale,
 * checked per axis with the closed form over two periods. */
static void test_motion_scale_with_spring(void **state)
{
    (void)state;
    const double x0[2] = {3, 1.55}, v0[2] = {0, 2}, g = 9.8;
    double scale = osc_motion_scale(2, 4, 0, 1, g, x0, v0, 10);
    assert_true(fabs(scale - 6) <= 8 * EPS * 6);
    /* 1-D: the last axis is the only one and carries gravity */
    double x1 = 1.55, v1 = 2;
    assert_true(fabs(osc_motion_scale(1, 4, 0, 1, g, &x1, &v1, 10) - 5) <= 8 * EPS * 5);
    /* omega0 = 3 (k = 9, m = 1): |v0| / omega0 = 1 */
    double v3[2] = {0, 3}, x3[2] = {0, -9.8 / 9};
    assert_true(fabs(osc_motion_scale(2, 9, 0.1, 1, g, x3, v3, 10) - 1) <= 8 * EPS);
    osc_exact ex[2];
    osc_exact_prepare(&ex[0], 4, 0, 1, 0, x0[0], v0[0]);
    osc_exact_prepare(&ex[1], 4, 0, 1, g, x0[1], v0[1]);
    for (double t = 0; t < 2 * 3.14159; t += 0.01) {
        double xa, va, xb, vb;
        osc_exact_eval(&ex[0], t, &xa, &va);
        osc_exact_eval(&ex[1], t, &xb, &vb);
        assert_true(hypot(xa, xb + 2.45) <= scale * (1 + 8 * EPS));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ode_residual),
        cmocka_unit_test(test_ode_residual_at_series_switch),
        cmocka_unit_test(test_initial_state),
        cmocka_unit_test(test_pinned_lane),
        cmocka_unit_test(test_continuity_across_critical),
        cmocka_unit_test(test_continuity_at_zero_stiffness),
        cmocka_unit_test(test_energy_dissipation),
        cmocka_unit_test(test_long_time_undamped),
        cmocka_unit_test(test_long_time_overdamped),
        cmocka_unit_test(test_overdamped_slow_tail),
        cmocka_unit_test(test_known_critical),
        cmocka_unit_test(test_known_free_fall),
        cmocka_unit_test(test_known_other),
        cmocka_unit_test(test_motion_scale_free_fall),
        cmocka_unit_test(test_motion_scale_soft_spring),
        cmocka_unit_test(test_against_matrix_exponential),
        cmocka_unit_test(test_map_against_matrix_exponential),
        cmocka_unit_test(test_step_map_increments),
        cmocka_unit_test(test_omega0_and_zeta),
        cmocka_unit_test(test_motion_scale_with_spring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
