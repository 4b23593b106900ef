/* The audit: its metrics equal an independent computation from readouts and the exact solution,
 * a lane at rest reads zero, unstable and overflowing lanes are flagged without touching their
 * neighbours, and the result does not depend on the thread count. */
#include <float.h>
#include <malloc.h>
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "audit.h"
#include "audit_internal.h"
#include "exact.h"
#include "oscbench.h"

/* Lane i's metrics by value (osc_audit_lane_metrics must succeed). */
static osc_lane_metrics lane_of(const osc_audit *a, size_t i)
{
    osc_lane_metrics mt;
    assert_int_equal(osc_audit_lane_metrics(a, i, &mt), OSC_OK);
    return mt;
}

#define EPS DBL_EPSILON

typedef struct lane {
    double k, c, m, x0[OSC_MAX_DIM], v0[OSC_MAX_DIM];
} lane;

static osc_batch *make_batch(const osc_method *m, osc_precision p, int dim, double g, double dt,
                             const lane *lanes, size_t n)
{
    osc_batch *b;
    assert_int_equal(osc_batch_create(&b, m, p, dim, n, g), OSC_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(osc_batch_set_lane(b, i, lanes[i].k, lanes[i].c, lanes[i].m, lanes[i].x0,
                                            lanes[i].v0),
                         OSC_OK);
    assert_int_equal(osc_batch_start(b, dt), OSC_OK);
    return b;
}

static osc_audit *run_audited(osc_batch *b, long nsteps, long every)
{
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    assert_int_equal(osc_batch_run(b, nsteps, every, osc_audit_tile, a), OSC_OK);
    return a;
}

/* Mixed regimes in 2-D under gravity; every lane's E(0) is well away from 0, so the drift is
 * relative to |E(0)|. */
static const lane mixed[] = {
    {4, 0, 1, {1, 0.5}, {0, 1}},        /* undamped */
    {1, 0.3, 2, {-0.5, 2}, {1, 0}},     /* underdamped, heavier */
    {9, 6, 1, {1, 1}, {0.5, -1}},       /* critical */
    {1, 5, 1, {2, -1}, {1, 1}},         /* overdamped */
    {0, 0.2, 1, {1, 3}, {2, 1}},        /* ballistic with drag */
    {0, 0, 1.5, {0, 4}, {1, 2}},        /* free flight */
    {2, 0.5, 0, {1, 1}, {3, 3}},        /* pinned */
};
#define NMIXED (sizeof mixed / sizeof mixed[0])

/* The metrics recomputed from scratch: the same lanes stepped in a second batch (results are
 * bit-identical whatever the audit interval), read out every `every` steps, compared with the
 * exact solution prepared here. */
typedef struct expected {
    double drift, max_drift, error, max_error, energy;
    double dx, de; /* how far the propagated exact state may move x_exact and E_exact (audit.h) */
} expected;

/* audit.h's bound on the propagated exact state, in the energy norm with w2e = max(w2, 1/t^2):
 * (16 R + 8 + omega t) eps S, S = ||(x0 - x_rest, v0)|| + ||(x_ex, v_ex)|| (8 eps S: the closed
 * form's own error at the anchor, exact.h's few ulps of the motion's scale). */
static double propagation_bound(double k, double m, double rest_norm, const double *xe,
                                const double *ve, int dim, double t)
{
    double w2 = m > 0 ? k / m : 0, w2e = fmax(w2, 1 / (t * t)), ex2 = 0;
    for (int a = 0; a < dim; a++)
        ex2 += w2e * xe[a] * xe[a] + ve[a] * ve[a];
    double scale = rest_norm + sqrt(ex2);
    return (16.0 * OSC_AUDIT_ANCHOR_EVERY + 8 + sqrt(w2) * t) * EPS * scale;
}

/* |x0 - x_rest|^2 of a 2-D lane (x_rest = (0, -g m/k); k = 0: the anchor; pinned: 0) */
static double x0_rest2(const lane *l, double g)
{
    if (l->m == 0)
        return 0;
    double rest = l->k > 0 ? -g * l->m / l->k : 0;
    return l->x0[0] * l->x0[0] + (l->x0[1] - rest) * (l->x0[1] - rest);
}

static void expected_metrics(const osc_method *m, osc_precision p, double g, double dt,
                             long nsteps, long every, expected out[NMIXED])
{
    const int dim = 2;
    osc_batch *b = make_batch(m, p, dim, g, dt, mixed, NMIXED);
    osc_exact ex[NMIXED][2];
    double e0[NMIXED];
    for (size_t i = 0; i < NMIXED; i++) {
        const lane *l = &mixed[i];
        double gl = l->m > 0 ? g : 0, v0y = l->m > 0 ? l->v0[1] : 0, v0x = l->m > 0 ? l->v0[0] : 0;
        osc_exact_prepare(&ex[i][0], l->k, l->c, l->m, 0, l->x0[0], v0x);
        osc_exact_prepare(&ex[i][1], l->k, l->c, l->m, gl, l->x0[1], v0y);
        e0[i] = l->m * gl * l->x0[1] + 0.5 * l->k * (l->x0[0] * l->x0[0] + l->x0[1] * l->x0[1]) +
                0.5 * l->m * (v0x * v0x + v0y * v0y);
        out[i] = (expected){0, 0, 0, 0, e0[i], 0, 0};
    }
    double x[2 * NMIXED], v[2 * NMIXED];
    for (long done = 0; done < nsteps; done += every) {
        osc_batch_run(b, every, 0, NULL, NULL);
        osc_batch_readout(b, 0, NMIXED, x, v);
        double t = (double)(done + every) * dt;
        for (size_t i = 0; i < NMIXED; i++) {
            const lane *l = &mixed[i];
            double gl = l->m > 0 ? g : 0, xe[2], ve[2], num = 0, exact = 0, err2 = 0;
            for (int a = 0; a < 2; a++) {
                osc_exact_eval(&ex[i][a], t, &xe[a], &ve[a]);
                double xn = x[a * NMIXED + i], vn = v[a * NMIXED + i];
                num += 0.5 * l->m * vn * vn + 0.5 * l->k * xn * xn + (a == 1 ? l->m * gl * xn : 0);
                exact += 0.5 * l->m * ve[a] * ve[a] + 0.5 * l->k * xe[a] * xe[a] +
                         (a == 1 ? l->m * gl * xe[a] : 0);
                err2 += (xn - xe[a]) * (xn - xe[a]);
            }
            /* the exact state's possible shift B (energy norm) moves x_exact by <= B/sqrt(w2e)
             * and E_exact by <= m (||s_ex|| B + B^2/2) + m |g| B/sqrt(w2e) */
            double w2 = l->m > 0 ? l->k / l->m : 0, w2e = fmax(w2, 1 / (t * t));
            double rd2 = x0_rest2(l, gl), rn = sqrt(w2 * rd2 + (l->m > 0 ? l->v0[0] * l->v0[0] + l->v0[1] * l->v0[1] : 0));
            double bnd = propagation_bound(l->k, l->m, rn, xe, ve, 2, t), ex2 = 0;
            for (int a = 0; a < 2; a++)
                ex2 += w2e * xe[a] * xe[a] + ve[a] * ve[a];
            out[i].dx = fmax(out[i].dx, bnd / sqrt(w2e));
            out[i].de = fmax(out[i].de, l->m * (sqrt(ex2) * bnd + bnd * bnd / 2) +
                                            l->m * fabs(gl) * bnd / sqrt(w2e));
            out[i].drift = (num - exact) / fabs(e0[i]);
            out[i].max_drift = fmax(out[i].max_drift, fabs(out[i].drift));
            out[i].error = sqrt(err2);
            out[i].max_error = fmax(out[i].max_error, out[i].error);
            out[i].energy = num;
        }
    }
    osc_batch_free(b);
}

/* Equal up to the rounding of the energy sums taken in another order: a few eps of the energy's
 * terms, relative to |E(0)| (which is of the same size here); plus `shift`, what the
 * propagated exact state may change (0 when every audit uses the closed form). */
static void assert_close_by(double got, double want, double scale, double shift)
{
    if (!(fabs(got - want) <= 64 * EPS * scale + shift))
        print_error("got %.17g want %.17g (tolerance %.3g)\n", got, want,
                    64 * EPS * scale + shift);
    assert_true(fabs(got - want) <= 64 * EPS * scale + shift);
}
static void assert_close(double got, double want, double scale)
{
    assert_close_by(got, want, scale, 0);
}

/* Every method and precision against the metrics recomputed from scratch: with the closed form
 * at every audit (anchor every 1) to the rounding of the sums, and with the default propagation
 * (audits 40 steps apart: propagated from the third audit on) within audit.h's bound. */
static void test_metrics_match_independent(void **state)
{
    (void)state;
    const double g = 9.8, dt = 0.01;
    const long nsteps = 400, every = 40;
    for (size_t mi = 0; mi < osc_method_count(); mi++)
        for (int p = 0; p < OSC_NPRECISION; p++)
            for (int propagate = 0; propagate <= 1; propagate++) {
                const osc_method *m = osc_method_at(mi);
                expected want[NMIXED];
                expected_metrics(m, (osc_precision)p, g, dt, nsteps, every, want);
                osc_batch *b = make_batch(m, (osc_precision)p, 2, g, dt, mixed, NMIXED);
                osc_audit *a;
                assert_int_equal(osc_audit_create(&a, b), OSC_OK);
                if (!propagate)
                    assert_int_equal(osc_audit_set_anchor_every(a, 1), OSC_OK);
                assert_int_equal(osc_batch_run(b, nsteps, every, osc_audit_tile, a), OSC_OK);
                for (size_t i = 0; i < NMIXED; i++) {
                    const osc_lane_metrics mt_v = lane_of(a, i), *mt = &mt_v;
                    double escale = 10 * (1 + fabs(want[i].energy) / mt->energy_scale);
                    double dx = propagate ? want[i].dx : 0;
                    double dd = propagate ? want[i].de / mt->energy_scale : 0;
                    assert_int_equal(mt->unstable_step, -1); /* omega dt <= 0.03: all stable */
                    assert_int_equal(mt->audits, nsteps / every);
                    assert_int_equal(mt->last_step, nsteps);
                    assert_close_by(mt->final_drift, want[i].drift, escale, dd);
                    assert_close_by(mt->max_abs_drift, want[i].max_drift, escale, dd);
                    assert_close_by(mt->final_error, want[i].error, want[i].error, dx);
                    assert_close_by(mt->max_error, want[i].max_error, want[i].max_error, dx);
                    assert_close(mt->final_energy, want[i].energy, fabs(want[i].energy));
                }
                osc_audit_free(a);
                osc_batch_free(b);
            }
}

/* The definitional pieces: rest distance, E(0) and its fallback scale. */
static void test_lane_definitions(void **state)
{
    (void)state;
    const lane ls[] = {
        {4, 0.1, 2, {0, 3}, {0, 0}},  /* k > 0: rest at (0, -g m/k) = (0, -4.9) */
        {0, 0.1, 1, {3, 4}, {0, 0}},  /* k = 0: distance from the anchor; E(0) = g * 4 */
        {2, 0, 0, {3, 4}, {1, 1}},    /* pinned: rest where it is, no gravity, no kinetic */
        {4, 0, 1, {0, 0}, {0, 0}},    /* E(0) = 0: scale is the energy about rest, m g^2/(2k) */
    };
    osc_batch *b = make_batch(osc_method_find("semi-implicit"), OSC_DOUBLE, 2, 9.8, 0.01, ls, 4);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    assert_true(fabs(lane_of(a, 0).rest_distance - 7.9) <= 4 * EPS * 7.9);
    assert_true(fabs(lane_of(a, 0).e0 - (2 * 9 + 2 * 9.8 * 3)) <= 4 * EPS * 60);
    assert_true(lane_of(a, 1).rest_distance == 5);
    assert_true(lane_of(a, 2).rest_distance == 0 && lane_of(a, 2).e0 == 25);
    assert_true(lane_of(a, 3).e0 == 0);
    double scale = 9.8 * 9.8 / 8;
    assert_true(fabs(lane_of(a, 3).energy_scale - scale) <= 4 * EPS * scale);
    assert_int_equal(osc_batch_run(b, 100, 10, osc_audit_tile, a), OSC_OK);
    for (size_t i = 0; i < 4; i++)
        assert_true(isfinite(lane_of(a, i).max_abs_drift));
    assert_true(lane_of(a, 2).max_error == 0 && lane_of(a, 2).max_abs_drift == 0);
    osc_lane_metrics untouched = {.audits = 12345}; /* a lane out of range fills nothing */
    assert_int_equal(osc_audit_lane_metrics(a, 4, &untouched), OSC_EINVAL);
    assert_int_equal(untouched.audits, 12345);
    assert_int_equal(lane_of(a, 3).audits, 10); /* audits at steps 10, 20, ..., 100 */
    double x[2] = {1, 2}, v[2] = {INFINITY, 3};
    assert_true(osc_energy(2, 2, 0, 9.8, x, v) == 5); /* m = 0: no kinetic, no gravity, no NaN */
    osc_audit_free(a);
    osc_batch_free(b);
}

/* One point by hand: lane k = 4, m = 1, c = 0, no gravity, x0 = 1 in 1-D, so x_ex = cos 2t,
 * v_ex = -2 sin 2t, E = 2 throughout. A state off by (0.001, 0) reads error 0.001 and drift
 * (E_num - 2)/2; NaN and a state 1e4 times the motion are unstable. */
static void test_evaluate_point(void **state)
{
    (void)state;
    const lane l = {4, 0, 1, {1}, {0}};
    osc_batch *b = make_batch(osc_method_find("semi-implicit"), OSC_DOUBLE, 1, 0, 0.01, &l, 1);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    double t = 0.7, xe = cos(2 * t), ve = -2 * sin(2 * t);
    double x = xe + 0.001, v = ve;
    osc_audit_point p;
    osc_audit_evaluate(a, 0, t, &x, &v, &p);
    assert_true(fabs(p.x_exact[0] - xe) <= 4 * EPS && fabs(p.v_exact[0] - ve) <= 8 * EPS);
    assert_true(fabs(p.error - 0.001) <= 8 * EPS);
    double energy = 0.5 * v * v + 2 * x * x;
    assert_true(fabs(p.energy - energy) <= 8 * EPS * 2 && fabs(p.exact_energy - 2) <= 8 * EPS * 2);
    assert_true(fabs(p.drift - (energy - 2) / 2) <= 16 * EPS);
    assert_true(p.stable);
    x = NAN;
    osc_audit_evaluate(a, 0, t, &x, &v, &p);
    assert_false(p.stable);
    x = 1e4, v = 0; /* energy-norm distance ~ 2e4 > 1e3 x (2 + 2) */
    osc_audit_evaluate(a, 0, t, &x, &v, &p);
    assert_false(p.stable);
    x = 900, v = 0; /* ~1.8e3 < 4e3: a large error, but not a runaway */
    osc_audit_evaluate(a, 0, t, &x, &v, &p);
    assert_true(p.stable);
    osc_audit_free(a);
    osc_batch_free(b);
}

/* At rest at the rest point (k = 4, m = 1, g = 2: x_rest = -0.5 exactly, so the force is exactly
 * zero and semi-implicit leaves the lane where it is; other methods may move it by their own
 * rounding, held to 1e-12), and at rest at the origin without gravity (exactly zero for all).
 * The exact side evaluates x0 Phi11 - g P, which equals x_rest to a few eps; energy is stationary
 * there, so the drift is second order in that: zero in practice. */
static void test_rest_lane(void **state)
{
    (void)state;
    const lane ls[] = {{4, 0.3, 1, {0, -0.5}, {0, 0}}, {4, 0, 1, {0, -0.5}, {0, 0}}};
    for (size_t mi = 0; mi < osc_method_count(); mi++) {
        osc_batch *b = make_batch(osc_method_at(mi), OSC_DOUBLE, 2, 2, 0.05, ls, 2);
        osc_audit *a = run_audited(b, 1000, 50);
        for (size_t i = 0; i < 2; i++) {
            const osc_lane_metrics mt_v = lane_of(a, i), *mt = &mt_v;
            assert_int_equal(mt->unstable_step, -1);
            bool reference = strcmp(osc_method_at(mi)->name, "semi-implicit") == 0;
            assert_true(mt->max_error <= (reference ? 8 * EPS * 0.5 : 1e-12));
            assert_true(mt->max_abs_drift <= (reference ? 1e-30 : 1e-20));
        }
        osc_audit_free(a);
        osc_batch_free(b);
        const lane origin = {1, 0.5, 1, {0, 0}, {0, 0}};
        b = make_batch(osc_method_at(mi), OSC_FLOAT, 2, 0, 0.05, &origin, 1);
        a = run_audited(b, 100, 10);
        const osc_lane_metrics mt_v = lane_of(a, 0), *mt = &mt_v;
        assert_true(mt->max_error == 0 && mt->max_abs_drift == 0 && mt->unstable_step == -1);
        osc_audit_free(a);
        osc_batch_free(b);
    }
}

static void assert_same_metrics(osc_lane_metrics x, osc_lane_metrics y)
{
    assert_memory_equal(&x, &y, sizeof x);
}

/* Semi-implicit at omega dt = 2.5: one eigenvalue of the step is -4, so the distance from the
 * exact state grows ~4x per step from ~omega; it passes 1e3 x (about 2 omega) after
 * log(2e3)/log(4) ~ 5.5 steps. Its neighbours (omega dt = 0.1) must keep exactly the metrics they
 * have in a batch without it. */
static void test_unstable_lane(void **state)
{
    (void)state;
    const osc_method *si = osc_method_find("semi-implicit");
    lane ls[] = {{0.01, 0, 1, {1}, {0}}, {6.25, 0, 1, {1}, {0}}, {0.01, 0.001, 1, {-1}, {0.2}}};
    osc_batch *b = make_batch(si, OSC_DOUBLE, 1, 0, 1, ls, 3);
    osc_audit *a = run_audited(b, 60, 1);
    ls[1].k = 0.02;
    osc_batch *calm = make_batch(si, OSC_DOUBLE, 1, 0, 1, ls, 3);
    osc_audit *ca = run_audited(calm, 60, 1);
    const osc_lane_metrics mt_v = lane_of(a, 1), *mt = &mt_v;
    assert_true(mt->unstable_step >= 4 && mt->unstable_step <= 9);
    assert_int_equal(mt->last_step, mt->unstable_step - 1);
    assert_int_equal(mt->audits, 60);
    assert_true(isfinite(mt->max_error) && isfinite(mt->max_abs_drift) && isfinite(mt->final_energy));
    assert_same_metrics(lane_of(a, 0), lane_of(ca, 0));
    assert_same_metrics(lane_of(a, 2), lane_of(ca, 2));
    assert_int_equal(lane_of(a, 0).unstable_step, -1);
    osc_audit_summary sum = osc_audit_summarize(a, 0, 3);
    assert_true(sum.lanes == 3 && sum.unstable == 1 && sum.first_unstable_step == mt->unstable_step);
    assert_true(sum.max_error == fmax(lane_of(a, 0).max_error, lane_of(a, 2).max_error));
    osc_audit_free(a), osc_audit_free(ca);
    osc_batch_free(b), osc_batch_free(calm);
}

/* Stable near the limit: semi-implicit at omega dt = 1.9 for 1e5 steps stretches its orbit by
 * 1/sqrt(1 - 0.95^2) ~ 3.2, far inside the bound. Explicit Euler undamped at omega dt = 0.1
 * gains 1 + 0.01 in energy per step: its amplitude passes ~2e3 (1e3 x (|x0| omega + |x_ex|
 * omega)) at n = 2 ln(2e3) / ln(1.01) ~ 1528 steps, flagged at the next audit (every 50). */
static void test_long_runs(void **state)
{
    (void)state;
    const lane one = {1, 0, 1, {1}, {0}};
    osc_batch *b = make_batch(osc_method_find("semi-implicit"), OSC_DOUBLE, 1, 0, 1.9, &one, 1);
    osc_audit *a = run_audited(b, 100000, 1000);
    assert_int_equal(lane_of(a, 0).unstable_step, -1);
    assert_true(lane_of(a, 0).max_error < 5);
    osc_audit_free(a);
    osc_batch_free(b);
    const osc_method *euler = osc_method_find("euler");
    if (!euler)
        skip();
    b = make_batch(euler, OSC_DOUBLE, 1, 0, 0.1, &one, 1);
    a = run_audited(b, 5000, 50);
    long step = lane_of(a, 0).unstable_step;
    assert_true(step >= 1450 && step <= 1650);
    osc_audit_free(a);
    osc_batch_free(b);
}

/* Every method at omega dt = 3, undamped: the audit flags exactly the methods whose own scalar
 * reference blows up there (|x| > 1e8 within 300 steps), and none that stay bounded (|x| < 10).
 * Every method is one or the other there (implicit-midpoint stays on its orbit, |x| <= 1; the
 * others grow by at least ~1.5x per step, rk4 the slowest, to ~1e53 in 300 steps): a method in
 * between would leave the audit's verdict unchecked, so it fails the test (it needs another
 * omega dt). */
static void test_beyond_limit_per_method(void **state)
{
    (void)state;
    const lane one = {9, 0, 1, {1}, {0}};
    for (size_t mi = 0; mi < osc_method_count(); mi++) {
        const osc_method *m = osc_method_at(mi);
        double s[OSC_MAX_STATE], x = 1, v = 0, peak = 0;
        osc_coef_d coef = {9, 0, 0};
        m->ref_d.init(s, 1, 0, coef, 1);
        for (int n = 0; n < 300 && isfinite(x); n++) {
            m->ref_d.step(s, coef, 1);
            m->ref_d.readout(s, coef, 1, &x, &v);
            peak = isfinite(x) ? fmax(peak, fabs(x)) : INFINITY;
        }
        osc_batch *b = make_batch(m, OSC_DOUBLE, 1, 0, 1, &one, 1);
        osc_audit *a = run_audited(b, 300, 10);
        long step = lane_of(a, 0).unstable_step;
        if (peak > 1e8)
            assert_true(step > 0);
        else if (peak < 10)
            assert_int_equal(step, -1);
        else
            fail_msg("%s: |x| peaks at %g in 300 steps at omega dt = 3: neither blown up nor "
                     "bounded, so the audit's verdict is not checked", m->name, peak);
        osc_audit_free(a);
        osc_batch_free(b);
    }
}

/* omega dt = 1e4 (and 1e150, whose w2 is not even a float): the state overflows to Inf and then
 * NaN well before the first audit at step 50; recorded there, metrics left at their t = 0
 * values, neighbours untouched. */
static void test_overflowing_lanes(void **state)
{
    (void)state;
    lane ls[] = {{1, 0.1, 1, {1, 1}, {0, 0}}, {1e8, 0, 1, {1, 1}, {0, 0}},
                 {1e300, 0, 1, {1, 1}, {1, 1}}, {2, 0.2, 1, {0, 1}, {1, 0}}};
    for (int p = 0; p < OSC_NPRECISION; p++) {
        osc_batch *b = make_batch(osc_method_find("semi-implicit"), (osc_precision)p, 2, 9.8, 1, ls, 4);
        osc_audit *a = run_audited(b, 200, 50);
        for (size_t i = 1; i <= 2; i++) {
            const osc_lane_metrics mt_v = lane_of(a, i), *mt = &mt_v;
            assert_int_equal(mt->unstable_step, 50);
            assert_true(mt->max_error == 0 && mt->final_drift == 0 && mt->final_energy == mt->e0);
            assert_int_equal(mt->audits, 4);
        }
        lane calm[] = {ls[0], ls[0], ls[0], ls[3]};
        osc_batch *cb = make_batch(osc_method_find("semi-implicit"), (osc_precision)p, 2, 9.8, 1, calm, 4);
        osc_audit *ca = run_audited(cb, 200, 50);
        assert_same_metrics(lane_of(a, 0), lane_of(ca, 0));
        assert_same_metrics(lane_of(a, 3), lane_of(ca, 3));
        osc_audit_free(a), osc_audit_free(ca);
        osc_batch_free(b), osc_batch_free(cb);
    }
}

/* Several tiles (2 x OSC_TILE_LANES + 300 lanes), some unstable: bit-identical metrics on 1 and
 * 2 threads. */
static void test_thread_independence(void **state)
{
    (void)state;
    const size_t n = 2 * OSC_TILE_LANES + 300;
    size_t unstable_lanes = 0;
    lane *ls = calloc(n, sizeof *ls);
    assert_non_null(ls);
    for (size_t i = 0; i < n; i++) {
        double u = (double)((i * 2654435761u) % 1000) / 1000;
        ls[i] = (lane){0.5 + 40 * u * u, 3 * (1 - u) * (i % 3 == 0), i % 17 ? 1 + u : 0,
                       {u, 1 - u, 0.5}, {0.1, -u, 1}};
        if (i % 101 == 0)
            ls[i].k = 2000; /* omega dt >= 3.1 unless pinned: unstable for semi-implicit */
        /* the rest: omega dt <= 0.64, drag dt <= 0.3, stable */
        unstable_lanes += i % 101 == 0 && ls[i].m > 0;
    }
    osc_lane_metrics *first = calloc(n, sizeof *first);
    assert_non_null(first);
    const osc_method *si = osc_method_find("semi-implicit");
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        osc_batch *b = make_batch(si, OSC_DOUBLE, 3, 9.8, 0.1, ls, n);
        osc_audit *a = run_audited(b, 200, 7);
        for (size_t i = 0; i < n; i++) {
            if (threads == 1)
                first[i] = lane_of(a, i);
            else
                assert_same_metrics(lane_of(a, i), first[i]);
        }
        osc_audit_summary sum = osc_audit_summarize(a, 0, n);
        assert_int_equal(sum.unstable, unstable_lanes); /* 13: lane 0 of the 14 is pinned */
        osc_audit_free(a);
        osc_batch_free(b);
    }
    free(first);
    free(ls);
}


/* ---- the propagated exact state ---------------------------------------------------------- */

/* Every regime, 2-D under gravity: under- and undamped, stiff, critical, just over critical,
 * overdamped, ballistic with drag, free flight, pinned. */
static const lane regimes[] = {
    {4, 0.4, 1, {1, 0.5}, {0, 1}},           /* underdamped, zeta = 0.1 */
    {4, 0, 1, {0.3, -1}, {2, 0}},            /* undamped */
    {900, 1, 1, {0.01, 0.2}, {1, -1}},       /* stiff: omega = 30 */
    {9, 6, 1, {1, 1}, {0.5, -1}},            /* critical */
    {1, 2 + 2e-9, 1, {1, -2}, {0, 3}},       /* overdamped by 1e-9 */
    {1, 5, 2, {2, -1}, {1, 1}},              /* overdamped */
    {0, 0.2, 1, {1, 3}, {2, 1}},             /* k = 0 with drag and gravity */
    {0, 0, 1.5, {0, 4}, {1, 2}},             /* free flight */
    {2, 0.5, 0, {1, 1}, {3, 3}},             /* pinned */
};
#define NREGIMES (sizeof regimes / sizeof regimes[0])

typedef struct prop_check {
    osc_audit *audit;
    const lane *lanes;
    double g, dt, worst; /* worst: largest error / bound seen */
    long checks;
} prop_check;

/* After each audit, the audit's exact state of every lane against osc_exact_eval at t = step dt,
 * in the energy norm, against audit.h's bound. Runs on the tile's thread (one tile here). */
static int check_exact_state(void *ctx, const osc_batch *b, size_t i0, size_t i1, long step)
{
    prop_check *pc = ctx;
    int rc = osc_audit_tile(pc->audit, b, i0, i1, step);
    double t = (double)step * pc->dt;
    for (size_t i = i0; i < i1; i++) {
        const lane *l = &pc->lanes[i];
        double xe[2], ve[2], xc[2], vc[2];
        long at;
        osc_audit_exact_state(pc->audit, i, xe, ve, &at);
        if (at != step)
            return -100;
        for (int a = 0; a < 2; a++)
            osc_exact_eval(osc_audit_exact(pc->audit, i, a), t, &xc[a], &vc[a]);
        double w2 = l->m > 0 ? l->k / l->m : 0, w2e = fmax(w2, 1 / (t * t)), d2 = 0;
        for (int a = 0; a < 2; a++)
            d2 += w2e * (xe[a] - xc[a]) * (xe[a] - xc[a]) + (ve[a] - vc[a]) * (ve[a] - vc[a]);
        double gl = l->m > 0 ? pc->g : 0, rd2 = x0_rest2(l, gl);
        double v02 = l->m > 0 ? l->v0[0] * l->v0[0] + l->v0[1] * l->v0[1] : 0;
        double bound = propagation_bound(l->k, l->m, sqrt(w2 * rd2 + v02), xc, vc, 2, t);
        double ratio = sqrt(d2) / bound;
        if (!(ratio <= 1)) {
            print_error("lane %zu step %ld: exact state off by %.3g, bound %.3g\n", i, step,
                        sqrt(d2), bound);
            return -101;
        }
        pc->worst = fmax(pc->worst, ratio);
        pc->checks++;
    }
    return rc;
}

/* 2000 audits, 7 steps apart (and, in a second run, 1 step apart and 250 steps apart: omega T
 * from 0.002 to 75): the propagated exact state stays within the bound throughout, through
 * 125 long maps and 7 closed-form anchors, in every regime; a pinned lane stays exactly where
 * it is. */
static void test_propagation_accuracy(void **state)
{
    (void)state;
    const double g = 9.8, dt = 0.01;
    const long intervals[] = {7, 1, 250};
    for (size_t r = 0; r < sizeof intervals / sizeof *intervals; r++) {
        long every = intervals[r], nsteps = every * (r == 2 ? 200 : 2000);
        osc_batch *b = make_batch(osc_method_find("semi-implicit"), OSC_DOUBLE, 2, g, dt, regimes,
                                  NREGIMES);
        prop_check pc = {.lanes = regimes, .g = g, .dt = dt};
        assert_int_equal(osc_audit_create(&pc.audit, b), OSC_OK);
        assert_int_equal(osc_batch_run(b, nsteps, every, check_exact_state, &pc), OSC_OK);
        assert_int_equal(pc.checks, (long)NREGIMES * (nsteps / every));
        double x[2], v[2];
        osc_audit_exact_state(pc.audit, NREGIMES - 1, x, v, NULL);
        assert_true(x[0] == 1 && x[1] == 1 && v[0] == 0 && v[1] == 0);
        print_message("propagation every %ld steps: worst error / bound %.3f\n", every, pc.worst);
        osc_audit_free(pc.audit);
        osc_batch_free(b);
    }
}

/* The same lanes audited with propagation and with the closed form at every audit: the same
 * audits, steps and stability verdicts, and metrics within what the exact state's bound allows
 * (error moves by at most |dx_exact|; drift by the exact energy's shift over the scale). Irregular
 * intervals too (a run split in uneven pieces: closed form on each change). */
static void test_propagation_vs_closed(void **state)
{
    (void)state;
    const double g = 9.8, dt = 0.02;
    const long pieces[] = {400, 13, 13, 13, 377, 1000, 5};
    const osc_method *m = osc_method_find("verlet");
    osc_batch *bp = make_batch(m, OSC_DOUBLE, 2, g, dt, regimes, NREGIMES);
    osc_batch *bc = make_batch(m, OSC_DOUBLE, 2, g, dt, regimes, NREGIMES);
    osc_audit *ap, *ac;
    assert_int_equal(osc_audit_create(&ap, bp), OSC_OK);
    assert_int_equal(osc_audit_create(&ac, bc), OSC_OK);
    assert_int_equal(osc_audit_set_anchor_every(ac, 1), OSC_OK);
    assert_int_equal(osc_audit_set_anchor_every(ac, 3), OSC_EINVAL);
    for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
        assert_int_equal(osc_batch_run(bp, pieces[k], 10, osc_audit_tile, ap), OSC_OK);
        assert_int_equal(osc_batch_run(bc, pieces[k], 10, osc_audit_tile, ac), OSC_OK);
    }
    double t = (double)osc_batch_step(bp) * dt;
    for (size_t i = 0; i < NREGIMES; i++) {
        const osc_lane_metrics pv = lane_of(ap, i), cv = lane_of(ac, i), *p = &pv, *c = &cv;
        const lane *l = &regimes[i];
        assert_int_equal(p->audits, c->audits);
        assert_int_equal(p->last_step, c->last_step);
        assert_int_equal(p->unstable_step, c->unstable_step);
        /* the bound at its largest over the run: the motion's scale only decays here, so its
         * value at t = 0 (rest_norm twice) with the final time's omega t is an upper bound */
        double gl = l->m > 0 ? g : 0, w2 = l->m > 0 ? l->k / l->m : 0;
        double v02 = l->m > 0 ? l->v0[0] * l->v0[0] + l->v0[1] * l->v0[1] : 0;
        double rn = sqrt(w2 * x0_rest2(l, gl) + v02);
        double x0[2] = {l->x0[0], l->x0[1]}, v0[2] = {l->m > 0 ? l->v0[0] : 0, l->m > 0 ? l->v0[1] : 0};
        double tmin = 10 * dt; /* the weakest position weight: 1/t^2 at the first audit */
        double w2e = fmax(w2, 1 / (t * t)), big = fmax(w2, 1 / (tmin * tmin));
        double bnd = propagation_bound(l->k, l->m, rn, x0, v0, 2, t) * sqrt(big / fmax(w2e, 1e-300));
        /* ballistic lanes move away: their exact state grows to |v| t + g t^2/2 */
        if (l->k == 0 && l->m > 0)
            bnd += (16.0 * OSC_AUDIT_ANCHOR_EVERY + 8) * EPS * (sqrt(v02) + g * t) * (1 + t) * sqrt(big);
        double dx = bnd / sqrt(w2e);
        assert_close_by(p->max_error, c->max_error, c->max_error, dx);
        assert_close_by(p->final_error, c->final_error, c->final_error, dx);
        double de = l->m * (rn + sqrt(v02) + g * t + w2 * 10) * (bnd + dx) * 4 + l->m * gl * dx;
        assert_close_by(p->final_drift, c->final_drift, fabs(c->final_drift),
                        de / p->energy_scale);
        assert_close_by(p->max_abs_drift, c->max_abs_drift, c->max_abs_drift,
                        de / p->energy_scale);
        assert_true(p->final_energy == c->final_energy); /* the numeric side is the same bits */
    }
    osc_audit_free(ap), osc_audit_free(ac);
    osc_batch_free(bp), osc_batch_free(bc);
}

/* The energy error as a difference of squares: against long double, within a few eps of its
 * terms |m dv (v + ve)| + |k dx (x + xe)| + |m g dx|, where subtracting the two energies (each
 * ~1e8 here) loses all but ~8 of the difference's digits. */
static void test_energy_error_without_cancellation(void **state)
{
    (void)state;
    const double k = 2, m = 3, g = 9.8;
    const double x[2] = {1e4, -7e3}, v[2] = {2e3, 5e3};
    const double xe[2] = {1e4 + 3e-9, -7e3 - 1e-9}, ve[2] = {2e3 - 2e-9, 5e3 + 4e-9};
    long double want = 0, terms = 0;
    for (int a = 0; a < 2; a++) {
        long double dx = (long double)x[a] - xe[a], dv = (long double)v[a] - ve[a];
        want += 0.5L * m * dv * ((long double)v[a] + ve[a]) +
                0.5L * k * dx * ((long double)x[a] + xe[a]);
        terms += fabsl(0.5L * m * dv * ((long double)v[a] + ve[a])) +
                 fabsl(0.5L * k * dx * ((long double)x[a] + xe[a]));
    }
    want += (long double)m * g * ((long double)x[1] - xe[1]);
    terms += fabsl((long double)m * g * ((long double)x[1] - xe[1]));
    double got = osc_energy_error(2, k, m, g, x, v, xe, ve);
    double by_subtraction = osc_energy(2, k, m, g, x, v) - osc_energy(2, k, m, g, xe, ve);
    print_message("dE %.17g, long double %.17Lg, by subtraction %.17g\n", got, want,
                  by_subtraction);
    assert_true(fabsl(got - want) <= 8 * EPS * terms);
    /* the subtraction's error is ~eps E ~ 1e-8, a thousand times this tolerance */
    assert_true(fabsl(by_subtraction - want) > 64 * EPS * terms);
}

/* At t = 0 the exact state is the initial one: evaluated there, a lane is stable with error and
 * drift 0, for a spring and for a free particle (k = 0, where position errors are weighed by
 * 1/t^2 at t > 0: infinite at t = 0, which once made inf * 0 = NaN of an exact state). */
static void test_evaluate_at_t0(void **state)
{
    (void)state;
    const lane ls[] = {{4, 0.3, 1, {1, -2}, {0.5, 1}}, {0, 0.2, 2, {0.3, 1}, {1, 0}}};
    osc_batch *b = make_batch(osc_method_find("rk4"), OSC_DOUBLE, 2, 9.8, 0.01, ls, 2);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    for (size_t i = 0; i < 2; i++) {
        osc_audit_point p;
        osc_audit_evaluate(a, i, 0, ls[i].x0, ls[i].v0, &p);
        assert_true(p.stable);
        assert_true(p.error == 0 && p.drift == 0);
    }
    osc_audit_free(a);
    osc_batch_free(b);
}

/* dt far below ~1.5e-154, where 1/t^2 overflows (once inf * 0 = NaN, every lane "unstable"):
 * every method, a spring, a free particle (k = 0) and lanes starting at the origin stay stable
 * over 40 steps in both maxima modes, with errors of the order of dt's own scale or below. */
static void test_tiny_dt(void **state)
{
    (void)state;
    const lane ls[] = {{1, 0, 1, {1, 1}, {0, 0}}, {0, 0, 1, {1, 0}, {0, 1}},
                       {4, 0.5, 1, {0, 0}, {1, -1}}, {0, 0.2, 2, {0, 0}, {0, 0}}};
    const double dts[] = {1e-150, 1e-160, 1e-200, 1e-300};
    for (size_t mi = 0; mi < osc_method_count(); mi++)
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
            for (int mode = 0; mode < 2; mode++) {
                osc_batch *b = make_batch(osc_method_at(mi), OSC_DOUBLE, 2, 9.8, dts[d], ls, 4);
                osc_audit *a;
                assert_int_equal(osc_audit_create(&a, b), OSC_OK);
                assert_int_equal(osc_audit_set_maxima(a, (osc_maxima)mode), OSC_OK);
                assert_int_equal(osc_audit_run(a, b, 40, 10, NULL, NULL), OSC_OK);
                for (size_t i = 0; i < 4; i++) {
                    const osc_lane_metrics mt = lane_of(a, i);
                    if (mt.unstable_step != -1 || !(mt.max_error <= 1e3 * dts[d]))
                        fail_msg("%s, dt %g, lane %zu, mode %d: unstable_step %ld, max_error %g",
                                 osc_method_at(mi)->name, dts[d], i, mode, mt.unstable_step,
                                 mt.max_error);
                }
                osc_audit_free(a);
                osc_batch_free(b);
            }
}

/* The bound itself at t = 1e-160 (1/t^2 = 1e320, not a double): a free particle from the origin
 * with v = 1 has x_ex = t, rest norm 1, so the bound is 1e3 (1 + sqrt(2)) in the energy norm,
 * where a position error dx counts as dx / t. dx = 100 t is within it, 1e4 t beyond it. */
static void test_bound_at_tiny_t(void **state)
{
    (void)state;
    const lane free = {0, 0, 1, {0}, {1}};
    osc_batch *b = make_batch(osc_method_find("rk4"), OSC_DOUBLE, 1, 0, 1e-160, &free, 1);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    const double t = 1e-160, v = 1;
    osc_audit_point p;
    osc_audit_evaluate(a, 0, t, &t, &v, &p);
    assert_true(p.stable && p.error == 0);
    const double near = t + 100 * t, far = t + 1e4 * t;
    osc_audit_evaluate(a, 0, t, &near, &v, &p);
    assert_true(p.stable);
    osc_audit_evaluate(a, 0, t, &far, &v, &p);
    assert_false(p.stable);
    osc_audit_free(a);
    osc_batch_free(b);
}

/* Heap bytes in use (small blocks and mmapped ones); 0 where the allocator is replaced (the
 * sanitizers' mallinfo2 reports nothing). */
static double heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (double)mi.uordblks + (double)mi.hblkhd;
}

/* osc_batch_bytes and osc_audit_bytes, which memory estimates rely on, count what creating a
 * batch and its audit really allocates: within 2% plus 16 KiB of allocator overhead, for both
 * precisions, a few dims and a lane count that is not a multiple of the padding. */
static void test_bytes_per_batch_counted(void **state)
{
    (void)state;
    if (heap_in_use() == 0)
        skip();
    const size_t n = 20000 + 37;
    for (int dim = 1; dim <= 3; dim++)
        for (int p = 0; p < 2; p++) {
            const osc_precision prec = p ? OSC_FLOAT : OSC_DOUBLE;
            const osc_method *m = osc_method_find("rk4");
            double before = heap_in_use();
            osc_batch *b = NULL;
            osc_audit *a = NULL;
            assert_int_equal(osc_batch_create(&b, m, prec, dim, n, 0.0), OSC_OK);
            double batch = heap_in_use() - before;
            for (size_t i = 0; i < n; i++)
                assert_int_equal(osc_batch_set_lane(b, i, 1.0, 0.1, 1.0, NULL, NULL), OSC_OK);
            assert_int_equal(osc_batch_start(b, 0.01), OSC_OK);
            before = heap_in_use();
            assert_int_equal(osc_audit_create(&a, b), OSC_OK);
            double audit = heap_in_use() - before;
            double want_batch = (double)osc_batch_bytes(m, prec, dim, n);
            double want_audit = (double)osc_audit_bytes(dim, n);
            if (fabs(batch - want_batch) > 0.02 * want_batch + 16384 ||
                fabs(audit - want_audit) > 0.02 * want_audit + 16384)
                fail_msg("dim %d %s: batch %.0f bytes (counted %.0f), audit %.0f (counted %.0f)",
                         dim, p ? "float" : "double", batch, want_batch, audit, want_audit);
            osc_audit_free(a);
            osc_batch_free(b);
        }
}

/* The audit's metrics at t = 0 of one 1-D verlet lane, k = 4, m = 1, g = 2, released from rest at
 * x0: E(0) = 2 x0 (x0 + 1), small near x0 = -1 where its terms of size ~2 cancel. */
static osc_lane_metrics gravity_lane_at_rest_start(double x0)
{
    const lane l = {4, 0, 1, {x0}, {0}};
    osc_batch *b = make_batch(osc_method_find("verlet"), OSC_DOUBLE, 1, 2, 0.01, &l, 1);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    const osc_lane_metrics mt = lane_of(a, 0);
    osc_audit_free(a);
    osc_batch_free(b);
    return mt;
}

/* E(0) small but resolved: k = 4, m = 1, g = 2 (1-D), x0 = -1 + 2^-20, v0 = 0. E(0) =
 * 2 x^2 + 2 x = 2 x (x + 1) = -2^-19 + 2^-39 ~ -1.9e-6, computed exactly (x^2 needs 41 bits), out
 * of terms of size ~2 each: 5e-7 of their magnitude, far above the 16 eps (3.6e-15) that marks an
 * E(0) lost to its rounding. So the scale is |E(0)| (audit.h), not the energy about rest (0.5). */
static void test_energy_scale_small_e0(void **state)
{
    (void)state;
    const double x0 = -1 + 0x1p-20;
    const osc_lane_metrics mt = gravity_lane_at_rest_start(x0);
    const double e0 = -0x1p-19 + 0x1p-39;
    assert_true(2 * x0 * (x0 + 1) == e0);
    assert_true(mt.e0 == e0);
    assert_true(mt.energy_scale == -e0);
}

/* Free flight (k = c = g = 0, m = 1, x0 = v0 = 1): at t = 1 the exact state is (2, 1). A state
 * (2 + 1e5, 1) has the right velocity but has run away in position; with no spring, position
 * errors are weighed by 1/t^2 (audit.h): energy-norm distance 1e5 against the bound
 * 1e3 (||(x0 - x_rest, v0)|| + ||(x_ex, v_ex)||) = 1e3 (1 + sqrt 5) ~ 3.2e3: unstable. An offset
 * of 1e3 (distance 1e3) stays inside. Checked through osc_audit_evaluate and through
 * osc_audit_tile (its vector loop), which reads the runaway state from a batch of the same lanes
 * started 1e5 further on (free flight is stepped exactly by every method: x + v dt, a = 0). */
static void test_free_flight_runaway_unstable(void **state)
{
    (void)state;
    const lane l = {0, 0, 1, {1}, {1}};
    const osc_method *si = osc_method_find("semi-implicit");
    osc_batch *b = make_batch(si, OSC_DOUBLE, 1, 0, 1, &l, 1);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    osc_audit_point p;
    double x = 2 + 1e5, v = 1;
    osc_audit_evaluate(a, 0, 1, &x, &v, &p);
    assert_true(p.x_exact[0] == 2 && p.v_exact[0] == 1);
    assert_false(p.stable);
    x = 2 + 1e3;
    osc_audit_evaluate(a, 0, 1, &x, &v, &p);
    assert_true(p.stable);
    osc_audit_free(a);
    osc_batch_free(b);

    /* lane 0 runs away, lane 1 is off by 1e3 (stable), lane 2 is exact */
    enum { N = 8 };
    lane ls[N], off[N];
    for (size_t i = 0; i < N; i++)
        ls[i] = off[i] = l;
    off[0].x0[0] += 1e5, off[1].x0[0] += 1e3;
    b = make_batch(si, OSC_DOUBLE, 1, 0, 1, ls, N);
    osc_batch *moved = make_batch(si, OSC_DOUBLE, 1, 0, 1, off, N);
    assert_int_equal(osc_batch_run(moved, 1, 0, NULL, NULL), OSC_OK);
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    assert_int_equal(osc_audit_set_maxima(a, OSC_MAXIMA_AUDITS), OSC_OK);
    assert_int_equal(osc_audit_tile(a, moved, 0, N, 1), OSC_OK);
    assert_int_equal(lane_of(a, 0).unstable_step, 1);
    assert_int_equal(lane_of(a, 1).unstable_step, -1);
    assert_true(lane_of(a, 1).final_error == 1e3);
    assert_int_equal(lane_of(a, 2).unstable_step, -1);
    assert_true(lane_of(a, 2).final_error == 0);
    osc_audit_free(a);
    osc_batch_free(b), osc_batch_free(moved);
}

/* The vector loop's sure decisions against the definition (audit.h), evaluated here from the
 * closed form: lanes whose numeric state is placed at a chosen multiple r of the bound,
 *     ||(x - x_ex, v - v_ex)|| = r x 1e3 (||(x0 - x_rest, v0)|| + ||(x_ex, v_ex)||),
 * off in position only or in velocity only, audited once at t = 1 (step 100 of dt 0.01) through
 * osc_audit_tile, which reads the states from a batch started at them (as in
 * test_free_flight_runaway_unstable). r = 0.5 and 0.9 are stable, 1.1, 1.3 (inside the vector
 * loop's factor-2 window in dist^2, where classify decides), 2 and 4 unstable; the margins
 * (10%) dwarf every rounding (the exact state is a few ulps off the one used here). Lanes: a
 * free fall from rest (no rest point, ||(x0 - x_rest, v0)|| = 0: the bound is the exact
 * state's size alone, mostly its velocity g t), a damped spring and an overdamped one, all
 * under gravity. A loop that left the velocity error out of the distance would call every
 * velocity runaway stable; one that left the exact velocity out of the bound would call the
 * free fall's 0.9 unstable. The unstable lanes keep their t = 0 metrics: an audit that finds a
 * lane unstable adds nothing to its maxima. */
static void test_vector_loop_bound_by_definition(void **state)
{
    (void)state;
    const double g = 9.8, dt = 0.01, t = 1, ratios[] = {0.5, 0.9, 1.1, 1.3, 2, 4};
    const long step = 100;
    const lane kinds[] = {{0, 0, 1, {0}, {0}}, {4, 0.3, 1, {1}, {0.5}}, {1, 5, 2, {-1}, {2}}};
    enum { NK = 3, NR = 6, N = NK * 2 * NR };
    lane base[N], moved_lanes[N];
    double want_err[N];
    long want_step[N];
    for (size_t n = 0; n < N; n++) {
        const size_t kind = n / (2 * NR), dir = n / NR % 2, ri = n % NR;
        const lane *l = &kinds[kind];
        osc_exact e;
        osc_exact_prepare(&e, l->k, l->c, l->m, g, l->x0[0], l->v0[0]);
        double xe, ve;
        osc_exact_eval(&e, t, &xe, &ve);
        double w2 = l->k / l->m, w2e = fmax(w2, 1 / (t * t));
        double rest = l->k > 0 ? -g * l->m / l->k : 0;
        double rn = sqrt(w2 * (l->x0[0] - rest) * (l->x0[0] - rest) + l->v0[0] * l->v0[0]);
        double bound = OSC_UNSTABLE_FACTOR * (rn + sqrt(w2e * xe * xe + ve * ve));
        double off = ratios[ri] * bound;
        base[n] = *l;
        moved_lanes[n] = *l;
        moved_lanes[n].x0[0] = dir == 0 ? xe + off / sqrt(w2e) : xe;
        moved_lanes[n].v0[0] = dir == 0 ? ve : ve + off;
        want_err[n] = dir == 0 ? off / sqrt(w2e) : 0;
        want_step[n] = ratios[ri] > 1 ? step : -1;
    }
    const osc_method *si = osc_method_find("semi-implicit");
    osc_batch *b = make_batch(si, OSC_DOUBLE, 1, g, dt, base, N);
    osc_batch *moved = make_batch(si, OSC_DOUBLE, 1, g, dt, moved_lanes, N);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    assert_int_equal(osc_audit_set_maxima(a, OSC_MAXIMA_AUDITS), OSC_OK);
    assert_int_equal(osc_audit_tile(a, moved, 0, N, step), OSC_OK);
    for (size_t n = 0; n < N; n++) {
        const osc_lane_metrics mt = lane_of(a, n);
        if (mt.unstable_step != want_step[n])
            fail_msg("lane kind %zu, %s off by %g x the bound: unstable_step %ld, expected %ld",
                     n / (2 * NR), n / NR % 2 ? "velocity" : "position", ratios[n % NR],
                     mt.unstable_step, want_step[n]);
        if (want_step[n] < 0) /* the state the audit read: the error is the offset placed */
            assert_true(fabs(mt.final_error - want_err[n]) <= 1e-9 * (want_err[n] + 1));
        else /* unstable at its first audit: it keeps its t = 0 values (audit.h) */
            assert_true(mt.max_error == 0 && mt.max_abs_drift == 0 && mt.final_error == 0 &&
                        mt.final_drift == 0 && mt.last_step == 0);
    }
    osc_audit_free(a);
    osc_batch_free(b), osc_batch_free(moved);
}

/* The drift limit bounds |drift| both ways: energy lost counts as much as energy gained.
 * Lane k = 4, m = 1, x0 = 1 (E = 2 throughout, no drag, no gravity); at t = 0.7 the exact
 * state scaled by s has energy 2 s^2, so drift = s^2 - 1: s = 0.9 loses 19%, s = 1.1 gains
 * 21%, s = 1.02 gains 4%. With drift_limit 0.1 the first two are unstable (far inside the
 * distance bound: |s - 1| x 2 against 1e3 x 4), the third stable. Through osc_audit_evaluate
 * and through osc_audit_tile (the vector loop, then classify for the lanes over the limit). */
static void test_drift_limit_both_signs(void **state)
{
    (void)state;
    const double scales[] = {0.9, 1.1, 1.02}, t = 0.7, dt = 0.01;
    const long step = 70;
    const lane l = {4, 0, 1, {1}, {0}};
    const double xe = cos(2 * t), ve = -2 * sin(2 * t);
    lane base[3], moved_lanes[3];
    const osc_method *si = osc_method_find("semi-implicit");
    for (int n = 0; n < 3; n++) {
        base[n] = moved_lanes[n] = l;
        moved_lanes[n].x0[0] = scales[n] * xe, moved_lanes[n].v0[0] = scales[n] * ve;
    }
    osc_batch *b = make_batch(si, OSC_DOUBLE, 1, 0, dt, base, 3);
    osc_batch *moved = make_batch(si, OSC_DOUBLE, 1, 0, dt, moved_lanes, 3);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    assert_int_equal(osc_audit_set_instability(a, OSC_UNSTABLE_FACTOR, 0.1), OSC_OK);
    for (int n = 0; n < 3; n++) {
        osc_audit_point p;
        double x = moved_lanes[n].x0[0], v = moved_lanes[n].v0[0];
        osc_audit_evaluate(a, (size_t)n, t, &x, &v, &p);
        double want = scales[n] * scales[n] - 1;
        assert_true(fabs(p.drift - want) <= 1e-12);
        assert_true(p.stable == (fabs(want) <= 0.1));
    }
    assert_int_equal(osc_audit_set_maxima(a, OSC_MAXIMA_AUDITS), OSC_OK);
    assert_int_equal(osc_audit_tile(a, moved, 0, 3, step), OSC_OK);
    assert_int_equal(lane_of(a, 0).unstable_step, step);
    assert_int_equal(lane_of(a, 1).unstable_step, step);
    assert_int_equal(lane_of(a, 2).unstable_step, -1);
    assert_true(fabs(lane_of(a, 2).final_drift - (1.02 * 1.02 - 1)) <= 1e-12);
    osc_audit_free(a);
    osc_batch_free(b), osc_batch_free(moved);
}

/* The last fallback of the energy scale (audit.h): E(0) = 0 and no energy about rest either (a
 * lane at rest at its rest point without gravity, and a pinned lane): the scale is 1, so the
 * drift is the absolute energy error. */
static void test_energy_scale_fallback_one(void **state)
{
    (void)state;
    const lane ls[] = {{4, 0.5, 1, {0, 0}, {0, 0}}, {2, 0, 0, {0, 0}, {0, 0}},
                       {0, 0, 1, {0, 0}, {0, 0}}};
    osc_batch *b = make_batch(osc_method_find("verlet"), OSC_DOUBLE, 2, 0, 0.01, ls, 3);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    for (size_t i = 0; i < 3; i++) {
        assert_true(lane_of(a, i).e0 == 0);
        assert_true(lane_of(a, i).energy_scale == 1);
    }
    osc_audit_free(a);
    osc_batch_free(b);
}

/* osc_audit_summarize: first_unstable_step is the earliest unstable_step whatever the lanes'
 * order, and the maxima are the stable lanes' only. Semi-implicit, dt = 1: omega dt = 2.5 has a
 * step eigenvalue ~ -4 (trips after ~5.5 steps, test_unstable_lane), omega dt = 4 one of
 * ~ -13.9 (after ~3); the slower one comes first in the batch. */
static void test_summary_earliest_unstable(void **state)
{
    (void)state;
    const lane ls[] = {{6.25, 0, 1, {1}, {0}}, {16, 0, 1, {1}, {0}}, {0.01, 0, 1, {1}, {0}},
                       {0.04, 0.01, 1, {-1}, {0.1}}};
    osc_batch *b = make_batch(osc_method_find("semi-implicit"), OSC_DOUBLE, 1, 0, 1, ls, 4);
    osc_audit *a = run_audited(b, 40, 1);
    long s0 = lane_of(a, 0).unstable_step, s1 = lane_of(a, 1).unstable_step;
    assert_true(s0 > 0 && s1 > 0 && s1 < s0);
    osc_audit_summary sum = osc_audit_summarize(a, 0, 4);
    assert_true(sum.lanes == 4 && sum.unstable == 2);
    assert_int_equal(sum.first_unstable_step, s1);
    assert_true(sum.max_error == fmax(lane_of(a, 2).max_error, lane_of(a, 3).max_error));
    assert_true(sum.max_abs_drift ==
                fmax(lane_of(a, 2).max_abs_drift, lane_of(a, 3).max_abs_drift));
    /* the two unstable lanes alone, and no lane: no error to report, not a perfect 0 */
    sum = osc_audit_summarize(a, 0, 2);
    assert_true(sum.lanes == 2 && sum.unstable == 2);
    assert_true(isnan(sum.max_error) && isnan(sum.max_abs_drift));
    sum = osc_audit_summarize(a, 3, 3);
    assert_true(sum.lanes == 0 && isnan(sum.max_error) && isnan(sum.max_abs_drift));
    osc_audit_free(a);
    osc_batch_free(b);
}

/* Every-step maxima where the batch took steps outside the audit: the audit created after 300
 * plain steps, then two audited runs of 400 steps with 200 plain steps between them. Before each
 * audited run the co-stepped exact motion catches up with the batch's step (the closed form
 * there), so max_error is the largest error over the 800 audited steps: a twin batch stepped one
 * step at a time against the closed form gives it, and the co-stepped motion is within ~1e-13 of
 * the closed form (audit.h's bound, S ~ 1.5) while the errors are ~1e-9. Had it co-stepped on
 * from its state at step 0 (or at the last audit), the errors read would be of the motion's size
 * (0.7 and 1.9 in a reviewer's runs). rk4, omega = 1, dt = 0.01, undamped and damped, gravity. */
static void test_every_step_maxima_after_plain_steps(void **state)
{
    (void)state;
    static const lane ls[] = {{1, 0, 1, {1}, {0}}, {1, 0.1, 1, {-0.5}, {1}}};
    enum { N = 2, SKIP = 300, RUN = 400, GAP = 200 };
    const double dt = 0.01, g = 0.5;
    const osc_method *rk4 = osc_method_find("rk4");
    osc_batch *b = make_batch(rk4, OSC_DOUBLE, 1, g, dt, ls, N);
    osc_batch *twin = make_batch(rk4, OSC_DOUBLE, 1, g, dt, ls, N);
    assert_int_equal(osc_batch_run(b, SKIP, 0, NULL, NULL), OSC_OK);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    assert_int_equal(osc_audit_run(a, b, RUN, 100, NULL, NULL), OSC_OK);
    assert_int_equal(osc_batch_run(b, GAP, 0, NULL, NULL), OSC_OK);
    assert_int_equal(osc_audit_run(a, b, RUN, 100, NULL, NULL), OSC_OK);
    double want[N] = {0, 0};
    for (long step = 1; step <= SKIP + 2 * RUN + GAP; step++) {
        assert_int_equal(osc_batch_run(twin, 1, 0, NULL, NULL), OSC_OK);
        const bool audited = (step > SKIP && step <= SKIP + RUN) || step > SKIP + RUN + GAP;
        double x[N], v[N];
        osc_batch_readout(twin, 0, N, x, v);
        for (size_t i = 0; audited && i < N; i++) {
            osc_exact e;
            osc_exact_prepare(&e, ls[i].k, ls[i].c, ls[i].m, g, ls[i].x0[0], ls[i].v0[0]);
            double xe, ve;
            osc_exact_eval(&e, (double)step * dt, &xe, &ve);
            want[i] = fmax(want[i], fabs(x[i] - xe));
        }
    }
    for (size_t i = 0; i < N; i++) {
        const osc_lane_metrics mt = lane_of(a, i);
        if (!(mt.unstable_step < 0 && fabs(mt.max_error - want[i]) <= 1e-12))
            fail_msg("lane %zu: max_error %.6g, the audited steps' largest error %.6g", i,
                     mt.max_error, want[i]);
    }
    osc_audit_free(a);
    osc_batch_free(twin);
    osc_batch_free(b);
}

/* Every-step maxima when classify decides the audit (the lane's distance lies in the vector
 * loop's undecided window: stable by the definition, but above factor^2 (rn^2 + ex^2)). Explicit
 * Euler, undamped, omega dt = 0.3: its orbit grows by sqrt(1.09) per step, so after 40 steps it is
 * several times the motion away from the exact state. The factor is chosen from that distance
 * d (measured here on a twin batch with the closed form): with rn = ||(x0, v0)|| and ex =
 * ||(x_ex, v_ex)|| (equal: energy is conserved), the lane is stable for factor >= d / (rn + ex)
 * and undecided for factor < d / sqrt(rn^2 + ex^2); the geometric mean of the two lies ~19%
 * inside each. One audit at step 40: max_error must be the largest error over all 40 steps
 * (the twin batch stepped one step at a time against the closed form), which here exceeds the
 * error at the audit itself; the co-stepped exact motion is within ~10 N eps of the closed form
 * (audit.h), hence 1e-12 of the motion's scale. */
static void test_every_step_maxima_when_classify_decides(void **state)
{
    (void)state;
    const lane l = {1, 0, 1, {1}, {0}};
    const double dt = 0.3;
    const long n = 40;
    const osc_method *euler = osc_method_find("euler");
    osc_exact e;
    osc_exact_prepare(&e, l.k, l.c, l.m, 0, l.x0[0], l.v0[0]);
    osc_batch *twin = make_batch(euler, OSC_DOUBLE, 1, 0, dt, &l, 1);
    double max_err = 0, err = 0, dist = 0, ex = 0;
    for (long s = 1; s <= n; s++) {
        double x, v, xe, ve;
        assert_int_equal(osc_batch_run(twin, 1, 0, NULL, NULL), OSC_OK);
        osc_batch_readout(twin, 0, 1, &x, &v);
        osc_exact_eval(&e, (double)s * dt, &xe, &ve);
        err = fabs(x - xe), max_err = fmax(max_err, err);
        dist = hypot(x - xe, v - ve), ex = hypot(xe, ve); /* w2e = max(1, 1/t^2) = 1 from t = 1 */
    }
    osc_batch_free(twin);
    const double rn = 1;
    assert_true(fabs(ex - rn) <= 1e-14);
    assert_true(max_err > 1.01 * err); /* the interval's peak is not at the audit */
    double factor = dist / sqrt((rn + ex) * sqrt(rn * rn + ex * ex));
    assert_true(factor >= 1);
    osc_batch *b = make_batch(euler, OSC_DOUBLE, 1, 0, dt, &l, 1);
    osc_audit *a;
    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
    assert_int_equal(osc_audit_set_instability(a, factor, INFINITY), OSC_OK);
    assert_int_equal(osc_audit_run(a, b, n, n, NULL, NULL), OSC_OK);
    const osc_lane_metrics mt = lane_of(a, 0);
    assert_int_equal(mt.unstable_step, -1);
    assert_true(fabs(mt.final_error - err) <= 1e-12 * (1 + dist));
    if (!(fabs(mt.max_error - max_err) <= 1e-12 * (1 + dist)))
        fail_msg("max_error %.17g, largest error over the steps %.17g", mt.max_error, max_err);
    osc_audit_free(a);
    osc_batch_free(b);
}

/* E(0) small but resolved, closer to the 16 eps line: x0 = -1 + 2^-44 (k = 4, m = 1, g = 2):
 * E(0) = 2 x (x + 1) ~ -2^-43 = -1.1e-13 (to ~2e-16 of rounding in x^2), 2.8e-14 of its terms'
 * magnitude 4: 8x above 16 eps (3.6e-15), so the scale is still |E(0)| (audit.h), not the
 * energy about rest (2 (0.5 - 2^-44)^2 ~ 0.5). */
static void test_energy_scale_near_threshold(void **state)
{
    (void)state;
    const osc_lane_metrics mt = gravity_lane_at_rest_start(-1 + 0x1p-44);
    assert_true(fabs(mt.e0 + 0x1p-43) <= 1e-3 * 0x1p-43);
    assert_true(mt.energy_scale == fabs(mt.e0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_evaluate_at_t0),
        cmocka_unit_test(test_bytes_per_batch_counted),
        cmocka_unit_test(test_metrics_match_independent),
        cmocka_unit_test(test_lane_definitions),
        cmocka_unit_test(test_energy_scale_small_e0),
        cmocka_unit_test(test_free_flight_runaway_unstable),
        cmocka_unit_test(test_evaluate_point),
        cmocka_unit_test(test_rest_lane),
        cmocka_unit_test(test_unstable_lane),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_beyond_limit_per_method),
        cmocka_unit_test(test_overflowing_lanes),
        cmocka_unit_test(test_thread_independence),
        cmocka_unit_test(test_propagation_accuracy),
        cmocka_unit_test(test_propagation_vs_closed),
        cmocka_unit_test(test_energy_error_without_cancellation),
        cmocka_unit_test(test_tiny_dt),
        cmocka_unit_test(test_bound_at_tiny_t),
        cmocka_unit_test(test_vector_loop_bound_by_definition),
        cmocka_unit_test(test_drift_limit_both_signs),
        cmocka_unit_test(test_energy_scale_fallback_one),
        cmocka_unit_test(test_summary_earliest_unstable),
        cmocka_unit_test(test_every_step_maxima_after_plain_steps),
        cmocka_unit_test(test_every_step_maxima_when_classify_decides),
        cmocka_unit_test(test_energy_scale_near_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
