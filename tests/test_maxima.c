/* Maxima over every step: the fused audited kernel (kernel_loops.h) against the method's scalar
 * reference stepped and compared with the closed form at every step, against the audit run at
 * every step, and the bits of the method's state and of the maxima whatever the threads and the
 * ISA path. */
#include <float.h>
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
#include "method_check.h"
#include "oscbench.h"
#include "rkn.h"
#include "tableau.h"

/* Lane i's metrics by value (osc_audit_lane_metrics must succeed). */
static osc_lane_metrics lane_of(const osc_audit *a, size_t i)
{
    osc_lane_metrics mt;
    assert_int_equal(osc_audit_lane_metrics(a, i, &mt), OSC_OK);
    return mt;
}

#define EPS DBL_EPSILON

static double unit_roundoff(osc_precision p)
{
    return p == OSC_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
}

/* ---- (a) a stiff damped lane against the scalar reference, every step --------------------- */

/* The lane: k = 400, c = 4, m = 1 (omega0 = 20, zeta = 0.1, decay rate 2/s), x0 = 1, v0 = 0,
 * stepped at 60 and 120 Hz for 40 s and audited once a second: its error peaks in the first
 * periods, inside the first audit interval, and has decayed by e^-2 at the first audit. */
static const double stiff_k = 400, stiff_c = 4, stiff_m = 1, t_end = 40;

/* The reference's worst error and |dE| over steps 1..nsteps, bracketed: [lo, hi] contains every
 * value the fused kernel may report (see the tolerance below). */
typedef struct bracket {
    double err_lo, err_hi, de_lo, de_hi;
} bracket;

/* One step's state and exact state, for the reference loop in either precision. */
static void fold_step(bracket *br, double x, double v, double xe, double ve, double tol)
{
    /* error: |x - xe| moves by at most tol (numeric state and co-stepped exact state together) */
    double err = fabs(x - xe);
    br->err_lo = fmax(br->err_lo, err - tol), br->err_hi = fmax(br->err_hi, err + tol);
    /* |dE|, in long double so that its own cancellation is negligible; dE moves by at most
     * m (|v| + |ve| + tol) tol + k (|x| + |xe| + tol) tol when x, v, xe, ve move by tol, and the
     * kernel's double dE (difference of squares) rounds to a few eps of its terms */
    long double de = 0.5L * stiff_m * ((long double)v * v - (long double)ve * ve) +
                     0.5L * stiff_k * ((long double)x * x - (long double)xe * xe);
    double ade = fabsl(de);
    double shift = stiff_m * (fabs(v) + fabs(ve) + tol) * tol +
                   stiff_k * (fabs(x) + fabs(xe) + tol) * tol +
                   8 * EPS * (stiff_m * (v * v + ve * ve) + stiff_k * (x * x + xe * xe));
    br->de_lo = fmax(br->de_lo, ade - shift), br->de_hi = fmax(br->de_hi, ade + shift);
}

/* The tolerance at step n. The SoA kernel and the scalar reference round differently (fma), by
 * at most 8 u S per step, S the step's scale (|x| + |v| + dt (w2 |x| + gam |v|), largest at
 * t = 0), adding up over n steps (test_methods.c's kernel_tolerance: 8 (n + 1) u S). The exact
 * state the kernel co-steps is re-anchored at each audit from the audit's exact state (within
 * (16 R + 8 + omega t) eps S of the closed form, audit.h) and then carries one one-step map per
 * step (<= 16 eps S each, kernel_loops.h): with N steps per interval, (16 R + 8 + omega t +
 * 16 N) eps S in all. */
static double step_tolerance(long n, double u, double S, long interval, double omega_t)
{
    return 8 * (double)(n + 1) * u * S +
           (16.0 * OSC_AUDIT_ANCHOR_EVERY + 8 + omega_t + 16.0 * (double)interval) * EPS * S;
}

static bracket reference_maxima(const osc_method *m, osc_precision p, double dt, long nsteps,
                                long interval)
{
    osc_exact ex;
    osc_exact_prepare(&ex, stiff_k, stiff_c, stiff_m, 0, 1, 0);
    const double w2 = stiff_k / stiff_m, gam = stiff_c / stiff_m, u = unit_roundoff(p);
    const double S = 1 + dt * w2; /* the step scale at t = 0: |x| = 1, v = 0 */
    bracket br = {0, 0, 0, 0};
    double ds[OSC_MAX_STATE];
    float fs[OSC_MAX_STATE];
    const osc_coef_d cd = {w2, gam, 0};
    const osc_coef_f cf = {(float)w2, (float)gam, 0};
    if (p == OSC_DOUBLE)
        m->ref_d.init(ds, 1, 0, cd, dt);
    else
        m->ref_f.init(fs, 1, 0, cf, (float)dt);
    for (long n = 1; n <= nsteps; n++) {
        double x, v, xe, ve;
        if (p == OSC_DOUBLE) {
            m->ref_d.step(ds, cd, dt);
            m->ref_d.readout(ds, cd, dt, &x, &v);
        } else {
            float xf, vf;
            m->ref_f.step(fs, cf, (float)dt);
            m->ref_f.readout(fs, cf, (float)dt, &xf, &vf);
            x = xf, v = vf;
        }
        osc_exact_eval(&ex, (double)n * dt, &xe, &ve);
        fold_step(&br, x, v, xe, ve, step_tolerance(n, u, S, interval, sqrt(w2) * t_end));
    }
    return br;
}

static osc_lane_metrics audited_lane(const osc_method *m, osc_precision p, double dt,
                                     long nsteps, long interval, osc_maxima mode, osc_batch **bp,
                                     osc_audit **ap)
{
    const double x0 = 1, v0 = 0;
    assert_int_equal(osc_batch_create(bp, m, p, 1, 1, 0), OSC_OK);
    assert_int_equal(osc_batch_set_lane(*bp, 0, stiff_k, stiff_c, stiff_m, &x0, &v0), OSC_OK);
    assert_int_equal(osc_batch_start(*bp, dt), OSC_OK);
    assert_int_equal(osc_audit_create(ap, *bp), OSC_OK);
    assert_int_equal(osc_audit_set_maxima(*ap, mode), OSC_OK);
    assert_int_equal(osc_audit_run(*ap, *bp, nsteps, interval, NULL, NULL), OSC_OK);
    return lane_of(*ap, 0);
}

/* max_error and max_abs_drift of the audited run (default mode) lie within the bracket of the
 * reference's maxima over every step, in double and float, at 60 and 120 Hz; the maxima sampled
 * at the audits (what the audit reported before the fused kernel) fall below it. */
static void test_stiff_damped_lane_every_step(void **state)
{
    (void)state;
    const char *const methods[] = {"semi-implicit", "verlet", "rk4", "forest-ruth",
                                   "implicit-midpoint", "verlet-implicit-drag"};
    const double dts[] = {1.0 / 60, 1.0 / 120};
    for (size_t mi = 0; mi < sizeof methods / sizeof *methods; mi++)
        for (int p = 0; p < OSC_NPRECISION; p++)
            for (size_t d = 0; d < 2; d++) {
                const osc_method *m = osc_method_find(methods[mi]);
                assert_non_null(m);
                const long nsteps = lround(t_end / dts[d]), interval = lround(1 / dts[d]);
                bracket br = reference_maxima(m, (osc_precision)p, dts[d], nsteps, interval);
                osc_batch *b, *bs;
                osc_audit *a, *as;
                const osc_lane_metrics mt_v = audited_lane(m, (osc_precision)p, dts[d], nsteps,
                                                           interval, OSC_MAXIMA_EVERY_STEP, &b, &a);
                const osc_lane_metrics ms_v = audited_lane(m, (osc_precision)p, dts[d], nsteps,
                                                           interval, OSC_MAXIMA_AUDITS, &bs, &as);
                const osc_lane_metrics *mt = &mt_v, *ms = &ms_v;
                const double scale = mt->energy_scale, de = mt->max_abs_drift * scale;
                print_message("%-20s %-6s dt=1/%.0f: max_error %.6g in [%.6g, %.6g] (at the "
                              "audits %.3g); max |dE| %.6g in [%.6g, %.6g]\n",
                              m->name, osc_precision_name((osc_precision)p), 1 / dts[d],
                              mt->max_error, br.err_lo, br.err_hi, ms->max_error, de, br.de_lo,
                              br.de_hi);
                assert_int_equal(mt->unstable_step, -1);
                assert_true(br.err_lo <= mt->max_error && mt->max_error <= br.err_hi);
                /* max_abs_drift = max |dE| / scale: one more rounding */
                assert_true(br.de_lo * (1 - 2 * EPS) <= de && de <= br.de_hi * (1 + 2 * EPS));
                /* Where the bracket is narrow (double; float where its rounding stays well
                 * below the method's error, not rk4's 4e-4 against float's ~1e-3 S over the
                 * run), the maxima sampled at the audits fall outside it: the every-step
                 * maxima are a different, larger number. */
                const bool narrow = br.err_hi - br.err_lo < 0.1 * br.err_lo;
                assert_true(narrow || p == OSC_FLOAT);
                if (narrow)
                    assert_true(ms->max_error < br.err_lo && ms->max_abs_drift * scale < br.de_lo);
                osc_audit_free(a), osc_audit_free(as);
                osc_batch_free(b), osc_batch_free(bs);
            }
}

/* The drift limit in the every-step mode applies to every step: the stiff lane's |drift| peaks
 * at 0.127 (max |dE| 25.4 of E(0) = 200, semi-implicit at 60 Hz) in its first periods, while at
 * the audits (once a second) it stays below 0.1. A limit of 0.1 makes it unstable at its first
 * audit in the default mode, and leaves it stable when the maxima are sampled at the audits. */
static void test_drift_limit_every_step(void **state)
{
    (void)state;
    const osc_method *m = osc_method_find("semi-implicit");
    const double dt = 1.0 / 60;
    const long nsteps = 2400, interval = 60;
    for (int sampled = 0; sampled <= 1; sampled++) {
        const double x0 = 1, v0 = 0;
        osc_batch *b;
        osc_audit *a;
        assert_int_equal(osc_batch_create(&b, m, OSC_DOUBLE, 1, 1, 0), OSC_OK);
        assert_int_equal(osc_batch_set_lane(b, 0, stiff_k, stiff_c, stiff_m, &x0, &v0), OSC_OK);
        assert_int_equal(osc_batch_start(b, dt), OSC_OK);
        assert_int_equal(osc_audit_create(&a, b), OSC_OK);
        assert_int_equal(osc_audit_set_instability(a, OSC_UNSTABLE_FACTOR, 0.1), OSC_OK);
        assert_int_equal(osc_audit_set_maxima(a, sampled ? OSC_MAXIMA_AUDITS
                                                         : OSC_MAXIMA_EVERY_STEP), OSC_OK);
        assert_int_equal(osc_audit_run(a, b, nsteps, interval, NULL, NULL), OSC_OK);
        const osc_lane_metrics mt_v = lane_of(a, 0), *mt = &mt_v;
        if (sampled) {
            assert_int_equal(mt->unstable_step, -1);
            assert_true(mt->max_abs_drift < 0.1);
        } else {
            assert_int_equal(mt->unstable_step, interval);
            assert_true(mt->max_error == 0 && mt->last_step == 0); /* its t = 0 values */
        }
        osc_audit_free(a);
        osc_batch_free(b);
    }
}

/* A lane that blows up (explicit Euler, undamped, omega dt = 2: |state| x sqrt(5) per step) is
 * audited at step 5 (x 56: stable) and next at step 2000, by when it has overflowed to inf and
 * NaN inside the interval. It is unstable there, and its maxima stay those of every step up to
 * its last stable audit: the same bits as a run stopped at step 5 (a NaN of the interval where it
 * blew up neither leaks into them nor lets a finite value of that interval in). */
static void test_unstable_lane_keeps_last_stable_maxima(void **state)
{
    (void)state;
    const osc_method *m = osc_method_find("euler");
    const double dt = 0.02, k = 1e4, x0 = 1, v0 = 0;
    double max_error = 0, max_drift = 0;
    for (int run = 0; run < 2; run++) {
        osc_batch *b;
        osc_audit *a;
        assert_int_equal(osc_batch_create(&b, m, OSC_DOUBLE, 1, 1, 0), OSC_OK);
        assert_int_equal(osc_batch_set_lane(b, 0, k, 0, 1, &x0, &v0), OSC_OK);
        assert_int_equal(osc_batch_start(b, dt), OSC_OK);
        assert_int_equal(osc_audit_create(&a, b), OSC_OK);
        assert_int_equal(osc_audit_run(a, b, 5, 5, NULL, NULL), OSC_OK);
        if (run == 0)
            assert_int_equal(osc_audit_run(a, b, 1995, 2000, NULL, NULL), OSC_OK);
        const osc_lane_metrics mt_v = lane_of(a, 0), *mt = &mt_v;
        if (run == 0) {
            double x, v;
            osc_batch_readout(b, 0, 1, &x, &v);
            assert_false(isfinite(x) && isfinite(v)); /* it did blow up */
            assert_int_equal(mt->unstable_step, 2000);
            assert_int_equal(mt->last_step, 5);
            max_error = mt->max_error, max_drift = mt->max_abs_drift;
            assert_true(isfinite(max_error) && isfinite(max_drift) && max_error > 0);
        } else {
            assert_int_equal(mt->unstable_step, -1);
            assert_true(mt->max_error == max_error && mt->max_abs_drift == max_drift);
        }
        osc_audit_free(a);
        osc_batch_free(b);
    }
}

/* ---- (b) the fused maxima against the audit at every step --------------------------------- */

typedef struct lane {
    double k, c, m, x0[OSC_MAX_DIM], v0[OSC_MAX_DIM];
} lane;

/* Every regime, stable for every method at dt = 0.01 (omega0 dt <= 0.3). */
static const lane lanes[] = {
    {4, 0.4, 1, {1, 0.5, -0.3}, {0, 1, 0.2}},      /* underdamped */
    {4, 0, 1, {0.3, -1, 1}, {2, 0, -1}},           /* undamped */
    {900, 6, 1, {0.01, 0.2, -0.1}, {1, -1, 0.5}},  /* stiff, damped: omega dt = 0.3 */
    {9, 6, 1, {1, 1, 0.5}, {0.5, -1, 0}},          /* critical */
    {1, 5, 2, {2, -1, 1}, {1, 1, 1}},              /* overdamped */
    {0, 0.2, 1, {1, 3, -2}, {2, 1, 0.5}},          /* k = 0 with drag */
    {0, 0, 1.5, {0, 4, 1}, {1, 2, -1}},            /* free flight */
    {2, 0.5, 0, {1, 1, 1}, {3, 3, 3}},             /* pinned */
};
#define NLANES (sizeof lanes / sizeof lanes[0])

static osc_batch *lanes_batch(const osc_method *m, osc_precision p, int dim, double g, double dt)
{
    osc_batch *b;
    assert_int_equal(osc_batch_create(&b, m, p, dim, NLANES, g), OSC_OK);
    for (size_t i = 0; i < NLANES; i++)
        assert_int_equal(
            osc_batch_set_lane(b, i, lanes[i].k, lanes[i].c, lanes[i].m, lanes[i].x0, lanes[i].v0),
            OSC_OK);
    assert_int_equal(osc_batch_start(b, dt), OSC_OK);
    return b;
}

/* The motion's scale S of lane i over [0, t] in position and velocity units (a bound on |x|,
 * |x_exact|, |v|, |v_exact| of a stable lane): its initial state, its rest offset and, without a
 * spring, the distance gravity carries it. */
static double motion_scale(const lane *l, int dim, double g, double t)
{
    double s = 1;
    for (int a = 0; a < dim; a++)
        s += fabs(l->x0[a]) + fabs(l->v0[a]) * (1 + t);
    double w2 = l->m > 0 ? l->k / l->m : 0;
    return s + (w2 > 0 ? fabs(g) / w2 : fabs(g) * (t + t * t / 2));
}

/* The same lanes audited two ways over nsteps: *af by the fused kernel (audits `every` steps
 * apart, maxima over every step), *ar with the closed form at every step (anchor every 1, maxima
 * sampled at the audits: every step is an audit). */
static void audit_fused_and_every_step(osc_batch *bf, osc_batch *br, long nsteps, long every,
                                       osc_audit **af, osc_audit **ar)
{
    assert_int_equal(osc_audit_create(af, bf), OSC_OK);
    assert_int_equal(osc_audit_create(ar, br), OSC_OK);
    assert_int_equal(osc_audit_set_anchor_every(*ar, 1), OSC_OK);
    assert_int_equal(osc_audit_set_maxima(*ar, OSC_MAXIMA_AUDITS), OSC_OK);
    assert_int_equal(osc_audit_run(*af, bf, nsteps, every, NULL, NULL), OSC_OK);
    assert_int_equal(osc_audit_run(*ar, br, nsteps, 1, NULL, NULL), OSC_OK);
}

/* Every method, double and float, dims 1 to 3, gravity on and off: the fused run (audits 40 steps
 * apart) against the same lanes audited at every step with the closed form at every audit
 * (anchor every 1, maxima sampled at the audits: every step is an audit). The method's state has
 * the same bits in both (so final values agree exactly); the maxima differ only by the exact
 * state each run compares with: the closed form (8 + omega t) eps S, against the co-step
 * (16 R + 8 + omega t + 16 N) eps S (step_tolerance's exact part, N = 40), and the readout
 * (stormer's fused readout multiplies by reciprocals: a few u of |v| in the energy error). */
static void test_fused_equals_every_audit(void **state)
{
    (void)state;
    const double dt = 0.01, gs[] = {0, 9.8};
    const long nsteps = 400, every = 40;
    for (size_t mi = 0; mi < osc_method_count(); mi++)
        for (int p = 0; p < OSC_NPRECISION; p++)
            for (int dim = 1; dim <= 3; dim++)
                for (size_t gi = 0; gi < 2; gi++) {
                    const osc_method *m = osc_method_at(mi);
                    osc_batch *bf = lanes_batch(m, (osc_precision)p, dim, gs[gi], dt);
                    osc_batch *br = lanes_batch(m, (osc_precision)p, dim, gs[gi], dt);
                    osc_audit *af, *ar;
                    audit_fused_and_every_step(bf, br, nsteps, every, &af, &ar);
                    const double u = unit_roundoff((osc_precision)p), t = (double)nsteps * dt;
                    for (size_t i = 0; i < NLANES; i++) {
                        const lane *l = &lanes[i];
                        const osc_lane_metrics f = lane_of(af, i);
                        const osc_lane_metrics r_v = lane_of(ar, i), *r = &r_v;
                        const double S = motion_scale(l, dim, gs[gi], t);
                        const double omega = l->m > 0 ? sqrt(l->k / l->m) : 0;
                        const double tol_x = (16.0 * OSC_AUDIT_ANCHOR_EVERY + 16 + 2 * omega * t +
                                              16.0 * every) * EPS * S * sqrt((double)dim);
                        /* dE moves by (m |v| + k |x| + m |g|) per unit shift, times 2 for the
                         * two states, plus its roundings and the readout's few u of |v| */
                        const double dE_rate = 2 * (l->m * S + l->k * S + l->m * gs[gi]) * dim;
                        const double tol_e = dE_rate * tol_x + 8 * EPS * dE_rate * S +
                                             4 * u * l->m * S * S * dim;
                        assert_int_equal(f.unstable_step, -1);
                        assert_int_equal(r->unstable_step, -1);
                        assert_true(f.final_energy == r->final_energy);
                        if (!(fabs(f.max_error - r->max_error) <= tol_x &&
                              fabs(f.max_abs_drift - r->max_abs_drift) * f.energy_scale <= tol_e))
                            fail_msg("%s/%s dim %d g %g lane %zu: max_error %.17g vs %.17g "
                                     "(tol %.3g), max_abs_drift %.17g vs %.17g (tol %.3g)",
                                     m->name, osc_precision_name((osc_precision)p), dim, gs[gi],
                                     i, f.max_error, r->max_error, tol_x, f.max_abs_drift,
                                     r->max_abs_drift, tol_e / f.energy_scale);
                    }
                    osc_audit_free(af), osc_audit_free(ar);
                    osc_batch_free(bf), osc_batch_free(br);
                }
}

/* Long intervals of short steps over a slowly turning state: the co-step's map is within
 * (omega dt)^2 of the identity, and a rounded p11 or p22 (up to half an ulp of 1) is a fixed
 * relative error that N steps add up to ~N u S; stepped as increments (osc_exact_step_map) only
 * the final add's rounding is left, at random while the increment changes by more than an ulp
 * of the state from step to step. One interval of N = 8192 steps against the closed form at
 * every step: within 2.5 sqrt(N) eps S (about 8 standard deviations of a walk of steps uniform
 * in +-u S, u = eps/2), plus the closed form's own 8 eps S and the increments' few ulps, 4 eps
 * (omega + gam) t S. Measured: at most 10 eps S; the old form was 100-1200 eps S off on five of
 * these lanes (rk4 at k 0.1116, c 0.2, dt 1e-3: 5.3e-13 for 4.7e-15). */
static void test_long_interval_costep(void **state)
{
    (void)state;
    const struct {
        double k, c, g, dt;
    } cases[] = {{0.11158839925077486, 0.2, 0, 1e-3}, {1, 0, 0, 1e-4}, {1, 0.1, 0, 1e-4},
                 {1e-4, 0.01, 9.81, 1e-3},            {25, 0.5, 0, 1e-4}, {4, 0, 9.81, 2e-4}};
    const long nsteps = 8192;
    const osc_method *methods[] = {osc_method_find("rk4"), osc_method_find("implicit-midpoint"),
                                   osc_method_find("semi-implicit")};
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++)
        for (size_t mi = 0; mi < sizeof methods / sizeof *methods; mi++) {
            osc_batch *bf, *br;
            const double x0[1] = {1}, v0[1] = {0.5};
            osc_batch **bs[] = {&bf, &br};
            for (int r = 0; r < 2; r++) {
                assert_int_equal(
                    osc_batch_create(bs[r], methods[mi], OSC_DOUBLE, 1, 1, cases[ci].g), OSC_OK);
                assert_int_equal(osc_batch_set_lane(*bs[r], 0, cases[ci].k, cases[ci].c, 1, x0, v0),
                                 OSC_OK);
                assert_int_equal(osc_batch_start(*bs[r], cases[ci].dt), OSC_OK);
            }
            osc_audit *af, *ar;
            audit_fused_and_every_step(bf, br, nsteps, nsteps, &af, &ar);
            const osc_lane_metrics f = lane_of(af, 0), r = lane_of(ar, 0);
            const lane l = {cases[ci].k, cases[ci].c, 1, {1}, {0.5}};
            const double t = (double)nsteps * cases[ci].dt, S = motion_scale(&l, 1, cases[ci].g, t);
            const double rates = sqrt(cases[ci].k) + cases[ci].c;
            const double tol = (2.5 * sqrt((double)nsteps) + 8 + 4 * rates * t) * EPS * S;
            if (!(fabs(f.max_error - r.max_error) <= tol))
                fail_msg("case %zu, %s: max_error %.17g, closed form every step %.17g (tol %.3g)",
                         ci, methods[mi]->name, f.max_error, r.max_error, tol);
            osc_audit_free(af), osc_audit_free(ar);
            osc_batch_free(bf), osc_batch_free(br);
        }
}

/* ---- the bits: threads, and the method's state against plain stepping --------------------- */

/* Several tiles of mixed, partly unstable lanes in 3-D: the fused run's metrics (maxima included)
 * are bit-identical on 1 and 2 threads, and its method state equals plain osc_batch_run's. */
static void test_fused_bits(void **state)
{
    (void)state;
    const size_t n = 2 * OSC_TILE_LANES + 300;
    const int dim = 3;
    for (size_t mi = 0; mi < osc_method_count(); mi++)
        for (int p = 0; p < OSC_NPRECISION; p++) {
            const osc_method *m = osc_method_at(mi);
            osc_lane_metrics *first = calloc(n, sizeof *first);
            double *x = malloc(4 * n * dim * sizeof *x);
            assert_non_null(first), assert_non_null(x);
            for (int run = 0; run < 3; run++) {
                omp_set_num_threads(run == 1 ? 2 : 1);
                osc_batch *b;
                assert_int_equal(osc_batch_create(&b, m, (osc_precision)p, dim, n, 9.8), OSC_OK);
                for (size_t i = 0; i < n; i++) {
                    double s = (double)((i * 2654435761u) % 1000) / 1000;
                    double x0[3] = {s, 1 - s, 0.5}, v0[3] = {0.1, -s, 1};
                    double k = i % 97 == 0 ? 3e4 : 0.5 + 400 * s * s; /* 3e4: unstable */
                    assert_int_equal(osc_batch_set_lane(b, i, k, 3 * (1 - s) * (i % 3 == 0),
                                                        i % 17 ? 1 + s : 0, x0, v0),
                                     OSC_OK);
                }
                assert_int_equal(osc_batch_start(b, 0.01), OSC_OK);
                if (run < 2) {
                    osc_audit *a;
                    assert_int_equal(osc_audit_create(&a, b), OSC_OK);
                    assert_int_equal(osc_audit_run(a, b, 300, 7, NULL, NULL), OSC_OK);
                    for (size_t i = 0; i < n; i++) {
                        const osc_lane_metrics mt_v = lane_of(a, i), *mt = &mt_v;
                        if (run == 0)
                            first[i] = *mt;
                        else if (memcmp(mt, &first[i], sizeof *mt) != 0)
                            fail_msg("%s/%s lane %zu: metrics differ on 2 threads", m->name,
                                     osc_precision_name((osc_precision)p), i);
                    }
                    osc_audit_free(a);
                } else {
                    assert_int_equal(osc_batch_run(b, 300, 0, NULL, NULL), OSC_OK);
                }
                double *out = x + (run == 2 ? 2 * n * dim : 0);
                if (run != 1)
                    osc_batch_readout(b, 0, n, out, out + n * dim);
                osc_batch_free(b);
            }
            if (memcmp(x, x + 2 * n * dim, 2 * n * dim * sizeof *x) != 0)
                fail_msg("%s/%s: the fused kernel changed the method's state",
                         m->name, osc_precision_name((osc_precision)p));
            free(first), free(x);
        }
    omp_set_num_threads(omp_get_num_procs());
}

/* ---- the bits on every ISA path ----------------------------------------------------------- */

/* The levels this CPU can run, best first (x86-64-v4, v3, the baseline: those at or below the
 * CPU's); one level (the compiled one) in a build without runtime dispatch. */
static int isa_levels(int out[3])
{
    static const int all[] = {OSC_ISA_V4, OSC_ISA_V3, OSC_ISA_BASE};
    const int cpu = osc_isa_cpu_level();
    if (!osc_isa_runtime_dispatch()) {
        out[0] = cpu;
        return 1;
    }
    int n = 0;
    for (int k = 0; k < 3; k++)
        if (all[k] <= cpu)
            out[n++] = all[k];
    return n;
}

/* Mixed lanes over several tiles (drag on every third, pinned every 17th, unstable every 97th),
 * run at the current ISA level: audited (the fused kernel and the audit's vector loops), its
 * metrics into mt and its readout into x (2 n dim values), and plainly stepped (advance), its
 * readout into xp. */
static void run_at_level(const osc_method *m, osc_precision p, int dim, size_t n,
                         osc_lane_metrics *mt, double *x, double *xp)
{
    for (int run = 0; run < 2; run++) {
        osc_batch *b;
        assert_int_equal(osc_batch_create(&b, m, p, dim, n, 9.8), OSC_OK);
        for (size_t i = 0; i < n; i++) {
            double s = (double)((i * 2654435761u) % 1000) / 1000;
            double x0[3] = {s, 1 - s, 0.5}, v0[3] = {0.1, -s, 1};
            double k = i % 97 == 0 ? 3e4 : 0.5 + 400 * s * s;
            assert_int_equal(osc_batch_set_lane(b, i, k, 3 * (1 - s) * (i % 3 == 0),
                                                i % 17 ? 1 + s : 0, x0, v0),
                             OSC_OK);
        }
        assert_int_equal(osc_batch_start(b, 0.01), OSC_OK);
        if (run == 0) {
            osc_audit *a;
            assert_int_equal(osc_audit_create(&a, b), OSC_OK);
            assert_int_equal(osc_audit_run(a, b, 150, 7, NULL, NULL), OSC_OK);
            for (size_t i = 0; i < n; i++)
                mt[i] = lane_of(a, i);
            osc_audit_free(a);
        } else {
            assert_int_equal(osc_batch_run(b, 150, 0, NULL, NULL), OSC_OK);
        }
        double *out = run == 0 ? x : xp;
        osc_batch_readout(b, 0, n, out, out + n * (size_t)dim);
        osc_batch_free(b);
    }
}

/* Method m, double and float, dims 1 to 3, with drag and gravity, at every ISA level the CPU
 * has (osc_isa_set_cap): the method's state (audited and plain) and every metric, the fused
 * maxima included, are the same bits as at the best level. Each kernel writes every operation
 * explicitly (fma(), no contraction), so a level that computes other bits is a defect. */
static void check_isa_levels(const osc_method *m)
{
    /* 895 lanes, padded to 896: the last tile is short of a whole tile (384 of 512 lanes, or
     * 128 of 384: osc_batch_tile_lanes), so a block size that does not divide it ends it with
     * remainder blocks on real lanes (28 lanes in 384: 13 blocks, then 16 and 4; 96 lanes in
     * 128: one block, then 32), the last lane padding. */
    const size_t n = OSC_TILE_LANES + 383;
    int levels[3];
    const int nlevels = isa_levels(levels), saved_cap = osc_isa_cap();
    osc_lane_metrics *mt0 = calloc(n, sizeof *mt0), *mt = calloc(n, sizeof *mt);
    double *x0 = malloc(4 * n * OSC_MAX_DIM * sizeof *x0);
    double *x = malloc(4 * n * OSC_MAX_DIM * sizeof *x);
    assert_non_null(mt0), assert_non_null(mt), assert_non_null(x0), assert_non_null(x);
    for (int p = 0; p < OSC_NPRECISION; p++)
        for (int dim = 1; dim <= 3; dim++) {
            const size_t len = 2 * n * (size_t)dim;
            for (int k = 0; k < nlevels; k++) {
                assert_int_equal(osc_isa_set_cap(levels[k]), levels[k]);
                assert_int_equal(osc_isa_level(), levels[k]);
                run_at_level(m, (osc_precision)p, dim, n, k ? mt : mt0, k ? x : x0,
                             (k ? x : x0) + len);
                if (k == 0)
                    continue;
                const char *where = osc_isa_name(levels[k]);
                for (size_t i = 0; i < n; i++)
                    if (memcmp(&mt[i], &mt0[i], sizeof mt[i]) != 0)
                        fail_msg("%s/%s dim %d lane %zu: metrics at %s differ from %s's "
                                 "(max_error %.17g vs %.17g, max_abs_drift %.17g vs %.17g)",
                                 m->name, osc_precision_name((osc_precision)p), dim, i, where,
                                 osc_isa_name(levels[0]), mt[i].max_error, mt0[i].max_error,
                                 mt[i].max_abs_drift, mt0[i].max_abs_drift);
                if (memcmp(x, x0, len * sizeof *x) != 0)
                    fail_msg("%s/%s dim %d: audited state at %s differs from %s's", m->name,
                             osc_precision_name((osc_precision)p), dim, where,
                             osc_isa_name(levels[0]));
                if (memcmp(x + len, x0 + len, len * sizeof *x) != 0)
                    fail_msg("%s/%s dim %d: stepped state at %s differs from %s's", m->name,
                             osc_precision_name((osc_precision)p), dim, where,
                             osc_isa_name(levels[0]));
            }
        }
    osc_isa_set_cap(saved_cap);
    free(mt0), free(mt), free(x0), free(x);
}

static void test_isa_levels_same_bits(void **state)
{
    (void)state;
    for (size_t mi = 0; mi < osc_method_count(); mi++)
        check_isa_levels(osc_method_at(mi));
}

/* Methods from a Butcher tableau: their SIMD kernels (one per stage count, x86-64-v4 and v3)
 * against the baseline path, which runs the plain scalar kernel (tableau_kernel.h's tab_step):
 * the same bits, plain and audited, for rk4's tableau, one with a zero weight (kutta's third
 * order variant below has b_2 = 0 and is stepped with its zero skipped), and 8 stages with zeros
 * scattered in a (valid: c the row sums, b summing to 1; its order does not matter here). */
static void test_tableau_isa_levels_same_bits(void **state)
{
    (void)state;
    osc_tableau rk4 = {.stages = 4,
                       .a = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}},
                       .b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                       .c = {0, 0.5, 0.5, 1}};
    osc_tableau zero_b = {.stages = 3,
                          .a = {{0}, {2.0 / 3}, {1.0 / 3, 1.0 / 3}},
                          .b = {0.25, 0, 0.75},
                          .c = {0, 2.0 / 3, 2.0 / 3}};
    osc_tableau eight = {.stages = 8};
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < i; j++)
            eight.a[i][j] = (i + j) % 3 == 0 ? 0 : 0.25 / (1 + i + j), eight.c[i] += eight.a[i][j];
        eight.b[i] = i == 2 ? 0 : 1.0 / 7;
    }
    const osc_tableau *ts[] = {&rk4, &zero_b, &eight};
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
        osc_method m;
        assert_int_equal(osc_method_from_tableau(ts[k], "tableau", 1, &m), OSC_OK);
        check_isa_levels(&m);
        assert_int_equal(osc_tableau_method_release(&m), OSC_OK);
    }
}

/* Methods from an RKN tableau likewise: their SIMD kernels (coef_simd.h with rkn_simd.h's chain,
 * one per stage count) against the baseline path's plain kernel (rkn_kernel.h's rkn_step): the
 * same bits, plain and audited (state and maxima), in double and float, 1-3 axes, for every stage
 * count 1..8 with zero coefficients, and the shapes that run pattern blocks of their own
 * (rkn_method.c's rkn_patterns): rk4's Nystrom form, the Nystrom forms of dense RK tableaus and
 * dense RKN tableaus of 2..6 stages (and 7, which has none); the batch's lane count is not a
 * multiple of any block (check_isa_levels). */
static void test_rkn_isa_levels_same_bits(void **state)
{
    (void)state;
    enum { DENSE_MAX = 7 };
    osc_rkn_tableau ts[OSC_RKN_MAX_STAGES + 1 + 2 * (DENSE_MAX - 1)];
    size_t n = 0;
    for (int s = 1; s <= OSC_RKN_MAX_STAGES; s++)
        ts[n++] = check_rkn_with_zeros(s);
    for (int s = 2; s <= DENSE_MAX; s++)
        ts[n++] = check_rkn_dense(s, true), ts[n++] = check_rkn_dense(s, false);
    ts[n++] = (osc_rkn_tableau){.stages = 4,
                                               .abar = {{0}, {0}, {0.25}, {0, 0.5}},
                                               .a = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}},
                                               .bbar = {1.0 / 6, 1.0 / 6, 1.0 / 6, 0},
                                               .b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                                               .c = {0, 0.5, 0.5, 1}};
    assert_int_equal(n, sizeof ts / sizeof ts[0]);
    for (size_t k = 0; k < n; k++) {
        osc_rkn_where where;
        if (osc_rkn_validate(&ts[k], &where) != OSC_RKN_OK)
            fail_msg("rkn tableau %zu invalid at %s (%d, %d)", k,
                     osc_rkn_field_name(where.field), where.row, where.col);
        osc_method m;
        assert_int_equal(osc_method_from_rkn(&ts[k], "rkn", 1, &m), OSC_OK);
        check_isa_levels(&m);
        assert_int_equal(osc_rkn_method_release(&m), OSC_OK);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stiff_damped_lane_every_step),
        cmocka_unit_test(test_drift_limit_every_step),
        cmocka_unit_test(test_unstable_lane_keeps_last_stable_maxima),
        cmocka_unit_test(test_fused_equals_every_audit),
        cmocka_unit_test(test_long_interval_costep),
        cmocka_unit_test(test_fused_bits),
        cmocka_unit_test(test_isa_levels_same_bits),
        cmocka_unit_test(test_tableau_isa_levels_same_bits),
        cmocka_unit_test(test_rkn_isa_levels_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
