/* Helpers for the tests of methods made from coefficients (method_check.h). */
#include "method_check.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "audit.h"
#include "exact.h"
#include "rkn.h"

double check_lane_k(size_t i)
{
    static const double ks[] = {0.25, 1, 4};
    return ks[i % 3];
}

double check_lane_c(size_t i, bool undamped)
{
    static const double cs[] = {0, 0.3, 1};
    return undamped ? 0 : cs[(i / 3) % 3];
}

static double lane_x0(size_t i, int a) { return sin(1.7 * (double)i + a); }
static double lane_v0(size_t i, int a) { return cos(2.3 * (double)i + 0.5 * a); }

/* omega0 in [0.5, 2]: omega0 dt <= 0.02, every method tested is stable; the energy norm and the
 * max norm differ by at most the factor 2. */
static void set_lanes(osc_batch *b, int dim, bool undamped)
{
    for (size_t i = 0; i < CHECK_LANES; i++) {
        double x0[OSC_MAX_DIM], v0[OSC_MAX_DIM];
        for (int a = 0; a < dim; a++)
            x0[a] = lane_x0(i, a), v0[a] = lane_v0(i, a);
        assert_int_equal(osc_batch_set_lane(b, i, check_lane_k(i), check_lane_c(i, undamped), 1,
                                            x0, v0),
                         OSC_OK);
    }
}

static void run_lanes(const osc_method *m, osc_precision p, int dim, bool undamped, double dt,
                      long steps, double *out, osc_audit_summary *sum)
{
    osc_batch *b = NULL;
    assert_int_equal(osc_batch_create(&b, m, p, dim, CHECK_LANES, CHECK_GRAVITY), OSC_OK);
    set_lanes(b, dim, undamped);
    assert_int_equal(osc_batch_start(b, dt), OSC_OK);
    if (sum) {
        osc_audit *a = NULL;
        assert_int_equal(osc_audit_create(&a, b), OSC_OK);
        assert_int_equal(osc_audit_run(a, b, steps, 50, NULL, NULL), OSC_OK);
        *sum = osc_audit_summarize(a, 0, CHECK_LANES);
        osc_audit_free(a);
    } else {
        assert_int_equal(osc_batch_run(b, steps, 0, NULL, NULL), OSC_OK);
    }
    osc_batch_readout(b, 0, CHECK_LANES, out, out + dim * CHECK_LANES);
    osc_batch_free(b);
}

void check_run(const osc_method *m, osc_precision p, int dim, bool undamped, bool audited,
               double *out, osc_audit_summary *sum)
{
    assert_true(!audited || sum);
    run_lanes(m, p, dim, undamped, CHECK_DT, CHECK_STEPS, out, audited ? sum : NULL);
}

void check_run_steps(const osc_method *m, osc_precision p, int dim, bool undamped, double dt,
                     long steps, double *out)
{
    run_lanes(m, p, dim, undamped, dt, steps, out, NULL);
}

void check_matches(const osc_method *m, const osc_method *ref, bool undamped, int dim_step,
                   bool same_errors)
{
    static const osc_precision precisions[] = {OSC_DOUBLE, OSC_FLOAT};
    static double got[2 * OSC_MAX_DIM * CHECK_LANES], want[2 * OSC_MAX_DIM * CHECK_LANES];
    static double audited[2 * OSC_MAX_DIM * CHECK_LANES];
    for (size_t k = 0; k < 2; k++)
        for (int dim = 1; dim <= OSC_MAX_DIM; dim += dim_step) {
            const char *prec = osc_precision_name(precisions[k]);
            osc_audit_summary s = {0}, sr = {0};
            check_run(m, precisions[k], dim, undamped, false, got, NULL);
            check_run(ref, precisions[k], dim, undamped, false, want, NULL);
            const double tol = check_roundoff_tol(precisions[k], check_state_scale(want, dim));
            const double d = check_max_diff(got, want, dim);
            if (!(d <= tol))
                fail_msg("%s against %s, %s dim %d: differs by %g > %g", m->name, ref->name, prec,
                         dim, d, tol);
            check_run(m, precisions[k], dim, undamped, true, audited, &s);
            assert_memory_equal(audited, got, 2 * (size_t)dim * CHECK_LANES * sizeof(double));
            assert_int_equal(s.unstable, 0);
            if (!same_errors)
                continue;
            check_run(ref, precisions[k], dim, undamped, true, want, &sr);
            assert_true(s.max_error > 0);
            if (!(fabs(s.max_error - sr.max_error) <= sqrt(dim) * tol))
                fail_msg("%s against %s, %s dim %d: largest error %g, the other's %g", m->name,
                         ref->name, prec, dim, s.max_error, sr.max_error);
        }
}

void check_method_names(int name_max, int (*make)(const char *name, osc_method *out),
                        int (*release)(const osc_method *m))
{
    char *long_name = malloc((size_t)name_max + 1);
    assert_non_null(long_name);
    memset(long_name, 'x', (size_t)name_max), long_name[name_max] = 0;
    osc_method m;
    assert_int_equal(make(NULL, &m), OSC_EINVAL);
    assert_int_equal(make("", &m), OSC_EINVAL);
    assert_int_equal(make(long_name, &m), OSC_EINVAL);
    long_name[name_max - 1] = 0; /* the longest that fits */
    assert_int_equal(make(long_name, &m), OSC_OK);
    assert_string_equal(m.name, long_name);
    assert_int_equal(release(&m), OSC_OK);
    assert_int_equal(make("a", NULL), OSC_EINVAL);
    free(long_name);
}

void check_differs(const osc_method *a, const osc_method *b, bool undamped)
{
    static double got[2 * CHECK_LANES], want[2 * CHECK_LANES];
    check_run(a, OSC_DOUBLE, 1, undamped, false, got, NULL);
    check_run(b, OSC_DOUBLE, 1, undamped, false, want, NULL);
    const double d = check_max_diff(got, want, 1);
    const double tol = check_roundoff_tol(OSC_DOUBLE, check_state_scale(want, 1));
    if (!(d > 100 * tol))
        fail_msg("%s and %s differ by only %g (tolerance %g)", a->name, b->name, d, tol);
}

void check_slot_pool(int nslots, int (*make)(const char *name, osc_method *out),
                     int (*release)(const osc_method *m))
{
    osc_method *ms = calloc((size_t)nslots, sizeof *ms), extra;
    assert_non_null(ms);
    const int freed = nslots / 2;
    for (int k = 0; k < nslots; k++)
        assert_int_equal(make("slot", &ms[k]), OSC_OK);
    assert_int_equal(make("one-too-many", &extra), OSC_ENOMEM);
    assert_int_equal(release(&ms[freed]), OSC_OK);
    assert_int_equal(release(&ms[freed]), OSC_EINVAL); /* already free */
    assert_int_equal(make("reused", &extra), OSC_OK);
    assert_string_equal(extra.name, "reused");
    assert_string_equal(ms[freed - 1].name, "slot");
    const osc_method *builtin = osc_method_find("verlet");
    assert_non_null(builtin);
    assert_int_equal(release(builtin), OSC_EINVAL);
    assert_int_equal(release(NULL), OSC_EINVAL);
    for (int k = 0; k < nslots; k++)
        if (k != freed)
            assert_int_equal(release(&ms[k]), OSC_OK);
    assert_int_equal(release(&extra), OSC_OK);
    free(ms);
}

void check_at_every_level(void (*check)(void))
{
    static const int caps[] = {OSC_ISA_V4, OSC_ISA_V3, OSC_ISA_BASE};
    for (size_t c = 0; c < 3; c++) {
        if (caps[c] > osc_isa_cpu_level())
            continue;
        assert_int_equal(osc_isa_set_cap(caps[c]), caps[c]);
        check();
    }
    osc_isa_set_cap(OSC_ISA_NATIVE);
}

void check_reference_run(const osc_method *m, bool long_double, double *out)
{
    for (size_t i = 0; i < CHECK_LANES; i++) {
        const double k = check_lane_k(i), c = check_lane_c(i, false);
        if (long_double) {
            const osc_coef_ld cl = {k, c, CHECK_GRAVITY};
            long double s[OSC_MAX_STATE], x, v;
            m->ref_ld.init(s, lane_x0(i, 0), lane_v0(i, 0), cl, CHECK_DT);
            for (int n = 0; n < CHECK_STEPS; n++)
                m->ref_ld.step(s, cl, CHECK_DT);
            m->ref_ld.readout(s, cl, CHECK_DT, &x, &v);
            out[i] = (double)x, out[i + CHECK_LANES] = (double)v;
        } else {
            const osc_coef_d cd = {k, c, CHECK_GRAVITY};
            double s[OSC_MAX_STATE];
            m->ref_d.init(s, lane_x0(i, 0), lane_v0(i, 0), cd, CHECK_DT);
            for (int n = 0; n < CHECK_STEPS; n++)
                m->ref_d.step(s, cd, CHECK_DT);
            m->ref_d.readout(s, cd, CHECK_DT, &out[i], &out[i + CHECK_LANES]);
        }
    }
}

void check_matches_reference(const osc_method *m)
{
    static double got[2 * CHECK_LANES], want[2 * CHECK_LANES], want_ld[2 * CHECK_LANES];
    check_run(m, OSC_DOUBLE, 1, false, false, got, NULL);
    check_reference_run(m, false, want);
    const double tol = check_roundoff_tol(OSC_DOUBLE, check_state_scale(want, 1));
    const double d = check_max_diff(got, want, 1);
    if (!(d <= tol))
        fail_msg("%s: kernel and reference differ by %g > %g", m->name, d, tol);
    check_reference_run(m, true, want_ld);
    const double d_ld = check_max_diff(want_ld, want, 1);
    if (!(d_ld <= tol))
        fail_msg("%s: long double and double references differ by %g > %g", m->name, d_ld, tol);
}

double check_unit_roundoff(osc_precision p)
{
    return p == OSC_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
}

double check_state_scale(const double *xv, int dim)
{
    double s = 0;
    for (size_t i = 0; i < (size_t)dim * CHECK_LANES; i++)
        s = fmax(s, fabs(xv[i]) + fabs(xv[i + (size_t)dim * CHECK_LANES]));
    return s;
}

double check_max_diff(const double *a, const double *b, int dim)
{
    double d = 0;
    for (size_t i = 0; i < 2 * (size_t)dim * CHECK_LANES; i++)
        d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* Two codings of the same one-step map (a tableau form against a built-in, or a kernel against
 * its reference) round differently: each step's results differ by the roundings of the ~10
 * operations deep chain of each side, at most ~32 u S with S the state's scale (gravity 3.5 dt
 * included); the difference is then carried by the method's map, non-expansive in the energy
 * norm for these stable lanes, which differs from the max norm by <= 2 (omega0 in [0.5, 2]).
 * Over N steps: |diff| <= 64 N u S. A coding of another map differs by its truncation error,
 * ~dt^3 t = 4e-6 for a second-order method: far above 64 N u S = 3e-12. */
double check_roundoff_tol(osc_precision p, double scale)
{
    return 64.0 * CHECK_STEPS * check_unit_roundoff(p) * (scale + CHECK_GRAVITY * CHECK_DT);
}

static osc_conv_point run_point(const osc_method *m, double c, long steps)
{
    const double t_end = 4, x0 = 1, v0 = 0.5, dt = t_end / (double)steps;
    osc_batch *b;
    assert_int_equal(osc_batch_create(&b, m, OSC_DOUBLE, 1, 1, 0), OSC_OK);
    assert_int_equal(osc_batch_set_lane(b, 0, 1, c, 1, &x0, &v0), OSC_OK);
    assert_int_equal(osc_batch_start(b, dt), OSC_OK);
    assert_int_equal(osc_batch_run(b, steps, 0, NULL, NULL), OSC_OK);
    double x, v, xe, ve;
    osc_batch_readout(b, 0, 1, &x, &v);
    osc_batch_free(b);
    osc_exact e;
    osc_exact_prepare(&e, 1, c, 1, 0, x0, v0);
    osc_exact_eval(&e, t_end, &xe, &ve);
    return (osc_conv_point){dt, fabs(x - xe), steps, isfinite(x), t_end};
}

osc_order_fit check_measure_order(const osc_method *m, double c)
{
    osc_conv_point pts[8];
    for (int i = 0; i < 8; i++)
        pts[i] = run_point(m, c, 50L << i);
    osc_fit_params par = {.eps = DBL_EPSILON, .scale = hypot(1, 0.5), .omega_t = 4,
                          .declared_order = osc_method_declared_order(m, c)};
    osc_order_fit f;
    assert_int_equal(osc_fit_order(pts, 8, &par, &f, NULL), OSC_OK);
    return f;
}

/* A valid RKN tableau of s stages with zeros scattered in abar, a, bbar and b, and a node c_i = 0
 * beyond the first (row 3 of a sums to 0), so that every mask the kernels branch on has both
 * kinds of bits (c the row sums of a, bbar summing to 1/2, b to 1; the order does not matter
 * here). */
osc_rkn_tableau check_rkn_with_zeros(int s)
{
    osc_rkn_tableau t = {.stages = s};
    int nbbar = 0, nb = 0;
    for (int i = 0; i < s; i++) {
        for (int j = 0; j < i; j++) {
            t.abar[i][j] = (i + j) % 2 ? 0.1 / (1 + i * j) : 0;
            t.a[i][j] = (i + 2 * j) % 3 ? 0.3 / (1 + i + j) : 0;
        }
        if (i == 3)
            t.a[i][0] = 0.5, t.a[i][1] = 0, t.a[i][2] = -0.5;
        for (int j = 0; j < i; j++)
            t.c[i] += t.a[i][j];
        nbbar += s == 1 || i != 1, nb += s == 1 || i != s - 2;
    }
    for (int i = 0; i < s; i++) {
        t.bbar[i] = s == 1 || i != 1 ? 0.5 / nbbar : 0;
        t.b[i] = s == 1 || i != s - 2 ? 1.0 / nb : 0;
    }
    return t;
}

osc_rkn_tableau check_rkn_dense(int s, bool nystrom)
{
    osc_rkn_tableau t = {.stages = s};
    const int skip = nystrom ? 1 : 0;
    for (int i = 0; i < s; i++) {
        for (int j = 0; j < i; j++) {
            t.a[i][j] = 0.3 / (1 + i + j);
            t.abar[i][j] = j < i - skip ? 0.1 / (1 + i * j) : 0;
            t.c[i] += t.a[i][j];
        }
        t.b[i] = 1.0 / s;
        t.bbar[i] = i < s - skip ? 0.5 / (s - skip) : 0;
    }
    return t;
}
