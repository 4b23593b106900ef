/* Auditing a batch against the exact solution; the definitions are documented in audit.h.
 *
 * Speed. The harness audits every ~32 steps, and a step of the cheap methods costs ~0.1 ns per
 * lane, so an audit must cost about a nanosecond per lane to keep 70% of bare stepping. An audit
 * streams the tile's per-lane audit data through the cache once, so the design is about bytes
 * per lane and about keeping the work in vector registers:
 *
 * - No allocation: osc_audit_tile works through its range in chunks of CHUNK lanes whose readout
 *   and scratch live on the stack (a few KiB, in L1).
 * - The exact state is advanced, not re-evaluated. Every lane keeps its exact state (xe, ve) per
 *   axis at the step of its last audit. When it is audited again after the same number of steps
 *   T as before, the state is advanced by the one-interval map of the closed form,
 *       (x, v)(t + T) = P (x, v)(t) + q,  P = [[Phi11, Phi12], [-w2 Phi12, Phi22]](T dt),
 *       q = (-g Pf(T dt), -g Phi12(T dt)) on the gravity axis, 0 on the others,
 *   from osc_exact_map (the closed form's fundamental solutions and forced response at T dt,
 *   one evaluation; P is the same for every axis of a lane). Two levels keep chains short:
 *   every R-th audit of a chain (R = the anchor interval, OSC_AUDIT_ANCHOR_EVERY) the state is
 *   instead the map over R intervals, P(R T dt), applied to the state of R audits before (kept as
 *   xa, va), and every R^2-th audit, at the first audit, and whenever the interval differs (the
 *   last partial interval, irregular calls) it is the closed form. So at most R - 1 one-interval
 *   maps follow at most R - 1 R-interval maps after a closed-form anchor (bound in audit.h). The
 *   closed form (~50-100 ns per lane and axis: exp, sin, cos) thus runs once per R^2 audits.
 *   The first audit is one map from the exact initial state (its maps prepared there, for the
 *   first gap); later, a new interval's maps are prepared once it has been seen twice in a row.
 * - The per-lane work is a structure-of-arrays loop that GCC vectorizes (#pragma omp simd, built
 *   for x86-64-v4/v3/baseline and dispatched by the same level as the kernels, AUDIT_PER_ISA):
 *   every load unconditional, choices as selects,
 *   comparisons quiet (isless & co.: under -ftrapping-math a signalling < may not be evaluated
 *   speculatively, which stops if-conversion and with it vectorization), stores masked. No square
 *   root and no division: errors are kept squared and energy errors unscaled (sqrt and division
 *   by a positive constant are monotone and correctly rounded, so max_error = sqrt(max err^2)
 *   and max_abs_drift = max |dE| / scale exactly), and the stability bound is decided by a
 *   comparison of squares with a margin that covers every rounding; the rare lane within that
 *   margin, or whose drift could overflow, is decided by the plain scalar definition (classify).
 * - Maxima over every step (the default mode). osc_audit_run steps the batch with the fused
 *   kernel (kernel_loops.h), which co-steps the exact motion from each lane's exact state xe, ve at
 *   its previous audit by the one-step map (od11 ... oq2, in increment form) and leaves
 *   the interval's largest squared error and |dE| in iv_err2, iv_de. The vector loop folds them
 *   into max_err2, max_de together with the audit point's own values, under the same condition
 *   (the lane is stable at this audit); NaN interval maxima make the lane unstable, and the drift
 *   limit applies to the interval's largest |dE|. In the sampled mode (or when the batch was run
 *   by plain osc_batch_run) iv_err2 and iv_de stay 0 and only the audit points count.
 * - Energy errors are differences of squares (osc_energy_error), like the fused kernel's: the
 *   vector loop, classify and osc_audit_lane_metrics form E_num - E_exact the same way.
 * - Per audit a lane's metrics write only its numeric state (xf, vf) and, when they grow, the
 *   largest energy error and squared error; final energy, drift and error are recomputed from
 *   xf, vf and the exact state (frozen with them when a lane turns unstable) by
 *   osc_audit_lane_metrics, with the same operations, so they are the same bits as if they had
 *   been stored. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audit_internal.h"
#include "isa.h"

#if defined(__GNUC__)
#define AUDIT_INLINE __attribute__((always_inline)) inline /* into each ISA's build */
#else
#define AUDIT_INLINE inline
#endif

/* The vector loops per ISA, like the kernels' (kernel_loops.h): with OSC_MULTIVERSION, BODY (an
 * always-inline function of the given return type and parameters) is compiled into NAME_v4,
 * NAME_v3 and NAME_base, and NAME calls the one osc_isa_dispatch() names, so that OSCBENCH_ISA
 * governs the audit as it does the methods (GCC's target_clones would pick by the CPU alone).
 * ARGS: the parameter names, to pass on. */
#if OSC_ISA_RUNTIME
#define AUDIT_PER_ISA(RET, NAME, BODY, PARAMS, ARGS)                                             \
    __attribute__((target("arch=x86-64-v4"))) static RET NAME##_v4 PARAMS { return BODY ARGS; } \
    __attribute__((target("arch=x86-64-v3"))) static RET NAME##_v3 PARAMS { return BODY ARGS; } \
    static RET NAME##_base PARAMS { return BODY ARGS; }                                          \
    static RET NAME PARAMS                                                                       \
    {                                                                                            \
        switch (osc_isa_dispatch()) {                                                            \
        case 4:                                                                                  \
            return NAME##_v4 ARGS;                                                               \
        case 3:                                                                                  \
            return NAME##_v3 ARGS;                                                               \
        default:                                                                                 \
            return NAME##_base ARGS;                                                             \
        }                                                                                        \
    }
#else
#define AUDIT_PER_ISA(RET, NAME, BODY, PARAMS, ARGS)                                             \
    static RET NAME PARAMS { return BODY ARGS; }
#endif

/* Lanes per chunk of osc_audit_tile: the chunk's readout and scratch (~14 KiB) sit on the stack. */
#define CHUNK 128

/* The stability test sqrt(dist2) <= F (rn + sqrt(ex2)) without square roots: since
 * rn^2 + ex2 <= (rn + sqrt(ex2))^2 <= 2 (rn^2 + ex2), dist2 <= F^2 (rn^2 + ex2) means stable and
 * dist2 > 2 F^2 (rn^2 + ex2) means unstable. The factors 1 -+ 2^-40 cover the few roundings of
 * both sides (each side is within ~4 eps of its exact value), so these decisions always agree
 * with the definition evaluated in floating point; in between, classify() decides. */
#define SURE_STABLE_FACTOR (1 - 0x1p-40)
#define SURE_UNSTABLE_FACTOR (2 * (1 + 0x1p-40))
/* Below this, rn^2 + ex2 may have lost its relative accuracy to underflow: no sure "unstable". */
#define NORMAL_BASE 0x1p-900

/* How a lane's exact state is obtained at an audit. */
enum { BY_MAP, BY_LONG_MAP, BY_CLOSED, BY_FIRST }; /* BY_FIRST: one map from t = 0 */

struct osc_audit {
    size_t n, cap;
    int dim;
    bool gravity;             /* some lane feels gravity */
    double dt;
    long anchor;              /* R: the long map every R audits, the closed form every R^2 */
    double factor;            /* the instability bound's multiple of the motion's scale */
    double drift_limit;       /* |drift| above this is unstable too (INFINITY: no such limit) */
    double sure_stable, sure_unstable; /* factor^2 with the margins above */
    osc_exact *exact;         /* [i * dim + axis], the closed form */
    osc_lane_metrics *lanes;  /* e0, rest_distance, energy_scale (osc_audit_lane_metrics adds the rest) */
    /* per lane: inputs (g is the gravity the lane feels, 0 when pinned) */
    double *k, *c, *m, *g, *w2, *rest_norm;
    /* per lane, for the vector loop */
    double *half_m, *half_k, *mg, *rest2, *drift_lim;
    /* per lane: the maps over `per` steps (p) and over R per steps (r) */
    double *p11, *p12, *p22, *q1, *q2, *r11, *r12, *r22, *s1, *s2;
    /* per lane and axis: the exact state at the last stable audit (at `at` while stable), the
     * state at the chain's last anchor, the numeric state at the last stable audit */
    double *xe[OSC_MAX_DIM], *ve[OSC_MAX_DIM], *xa[OSC_MAX_DIM], *va[OSC_MAX_DIM];
    double *xf[OSC_MAX_DIM], *vf[OSC_MAX_DIM];
    /* per lane: largest |E_num - E_exact| and squared error over the stable audits (and, in the
     * every-step mode, over every step of the intervals up to them) */
    double *max_de, *max_err2;
    /* the every-step mode: the one-step map as increments (o: d11, p12, p21, d22, q1, q2;
     * osc_exact_step_map) the fused kernel co-steps with, and the maxima of the interval just
     * stepped, which it leaves here */
    bool every_step;
    double *od11, *o12, *o21, *od22, *oq1, *oq2, *iv_err2, *iv_de;
    osc_costep costep;
    long *unstable;    /* unstable_step */
    long *audits;
    long *at;          /* step of the last audit */
    long *per;         /* > 0: the maps' interval; < 0: -(interval seen once); 0: none */
    long *chain_base;  /* audits when the chain's closed form was taken */
    long *frozen_last; /* last_step of a lane that became unstable */
    long run_to;       /* the batch step the last osc_audit_run ended at (0 at creation): where
                        * every live lane's exact state stands, so catch_up has nothing to do */
    void *slab;
};

/* The vector loop's sure-stable test on |dE|: below it the drift is finite (|dE| <= scale 2^1000)
 * and within the drift limit; the margin 2^-40 covers the rounding of limit * scale, so a lane
 * it passes also passes the scalar definition |dE / scale| <= limit (classify decides the rest). */
static double drift_bound(const osc_audit *au, double scale)
{
    double lim = scale * 0x1p1000, by_limit = au->drift_limit * scale * (1 - 0x1p-40);
    lim = by_limit < lim ? by_limit : lim;
    return lim < DBL_MAX ? lim : DBL_MAX;
}

double osc_energy(int dim, double k, double m, double g, const double *x, const double *v)
{
    double v2 = 0, x2 = 0;
    for (int a = 0; a < dim; a++)
        v2 += v[a] * v[a], x2 += x[a] * x[a];
    /* m = 0: a pinned lane has v = 0 and feels no gravity; never form 0 * inf. */
    double kinetic = m > 0 ? 0.5 * m * v2 : 0, gravity = m > 0 ? m * g * x[dim - 1] : 0;
    return kinetic + 0.5 * k * x2 + gravity;
}

double osc_energy_error(int dim, double k, double m, double g, const double *x, const double *v,
                        const double *xe, const double *ve)
{
    /* the fused kernel's operations, in its order (kernel_loops.h): the same bits */
    double sum_v = 0, sum_x = 0, dx = 0;
    for (int a = 0; a < dim; a++) {
        const double dv = v[a] - ve[a];
        dx = x[a] - xe[a];
        sum_v = a == 0 ? dv * (v[a] + ve[a]) : fma(dv, v[a] + ve[a], sum_v);
        sum_x = a == 0 ? dx * (x[a] + xe[a]) : fma(dx, x[a] + xe[a], sum_x);
    }
    const double half_m = 0.5 * m, half_k = 0.5 * k, mg = m * g; /* m = 0: v = 0, g = 0 */
    return fma(mg, dx, fma(half_k, sum_x, half_m * sum_v));
}

void osc_audit_free(osc_audit *a)
{
    if (!a)
        return;
    free(a->exact), free(a->lanes), free(a->slab);
    free(a);
}

static double rest_distance(int dim, double k, double m, double g, const double *x0)
{
    if (m == 0)
        return 0;
    double d2 = 0;
    for (int a = 0; a < dim; a++) {
        double rest = a == dim - 1 && k > 0 ? -g * m / k : 0;
        d2 += (x0[a] - rest) * (x0[a] - rest);
    }
    return sqrt(d2);
}

/* |E(0)| unless it is zero up to its own rounding; then the initial energy about rest; then 1. */
static double energy_scale(int dim, double k, double m, double g, const double *x0,
                           const double *v0, double rest_dist)
{
    double v2 = 0, x2 = 0;
    for (int a = 0; a < dim; a++)
        v2 += v0[a] * v0[a], x2 += x0[a] * x0[a];
    double kinetic = m > 0 ? 0.5 * m * v2 : 0, gravity = m > 0 ? m * g * x0[dim - 1] : 0;
    double e0 = kinetic + 0.5 * k * x2 + gravity;
    double magnitude = kinetic + 0.5 * k * x2 + fabs(gravity);
    if (fabs(e0) > 16 * DBL_EPSILON * magnitude)
        return fabs(e0);
    double about_rest = kinetic + (k > 0 ? 0.5 * k * rest_dist * rest_dist : 0);
    return about_rest > 0 ? about_rest : 1;
}

/* Lane i's closed form on its last axis, the one gravity acts on: its maps (osc_exact_map,
 * osc_exact_step_map; the axis's x0, v0 play no part) are the lane's, q on that axis. */
static const osc_exact *lane_motion(const osc_audit *au, size_t i)
{
    return &au->exact[i * (size_t)au->dim + (size_t)au->dim - 1];
}

static void map_over(const osc_audit *au, size_t i, double T, double *p11, double *p12,
                     double *p22, double *q1, double *q2);

static void prepare_lane(osc_audit *au, const osc_batch *b, size_t i, double gravity)
{
    int dim = au->dim;
    double k, c, m, x0[OSC_MAX_DIM], v0[OSC_MAX_DIM];
    osc_batch_lane(b, i, &k, &c, &m, x0, v0);
    double g = m > 0 ? gravity : 0;
    au->k[i] = k, au->c[i] = c, au->m[i] = m, au->g[i] = g, au->w2[i] = m > 0 ? k / m : 0;
    for (int a = 0; a < dim; a++)
        osc_exact_prepare(&au->exact[i * dim + a], k, c, m, a == dim - 1 ? g : 0, x0[a], v0[a]);
    double rd = rest_distance(dim, k, m, g, x0), v2 = 0;
    for (int a = 0; a < dim; a++)
        v2 += v0[a] * v0[a];
    au->rest_norm[i] = sqrt(au->w2[i] * rd * rd + v2);
    double e0 = osc_energy(dim, k, m, g, x0, v0);
    double scale = energy_scale(dim, k, m, g, x0, v0, rd);
    au->lanes[i] = (osc_lane_metrics){
        .e0 = e0,
        .rest_distance = rd,
        .energy_scale = scale,
    };
    /* osc_energy's terms with its own roundings: 0.5 * m * v2 is (0.5 m) v2, m g x is (m g) x.
     * A pinned lane has v = 0 and g = 0, so its products are 0 without osc_energy's selects. */
    au->half_m[i] = 0.5 * m, au->half_k[i] = 0.5 * k, au->mg[i] = m * g;
    au->rest2[i] = au->rest_norm[i] * au->rest_norm[i];
    au->drift_lim[i] = drift_bound(au, scale);
    osc_exact_step_map(lane_motion(au, i), au->dt, &au->od11[i], &au->o12[i], &au->od22[i],
                       &au->oq1[i], &au->oq2[i]);
    au->o21[i] = -(au->w2[i] * au->o12[i]);
    for (int a = 0; a < dim; a++) {
        au->xe[a][i] = au->xa[a][i] = au->xf[a][i] = x0[a];
        au->ve[a][i] = au->va[a][i] = au->vf[a][i] = v0[a];
    }
    au->unstable[i] = -1;
}

static void set_factor(osc_audit *au, double factor)
{
    au->factor = factor;
    au->sure_stable = factor * factor * SURE_STABLE_FACTOR;
    au->sure_unstable = factor * factor * SURE_UNSTABLE_FACTOR;
}

int osc_audit_set_instability(osc_audit *a, double factor, double drift_limit)
{
    if (!(factor >= 1 && factor <= 1e100) || !(drift_limit > 0))
        return OSC_EINVAL;
    set_factor(a, factor);
    a->drift_limit = drift_limit;
    for (size_t i = 0; i < a->n; i++)
        a->drift_lim[i] = drift_bound(a, a->lanes[i].energy_scale);
    return OSC_OK;
}

/* The slab's arrays of cap doubles or longs: per lane, and per lane and axis. */
enum { AUDIT_LANE_ARRAYS = 37, AUDIT_AXIS_ARRAYS = 6 };

size_t osc_audit_bytes(int dim, size_t n)
{
    const size_t cap = (n + OSC_LANE_ALIGN - 1) / OSC_LANE_ALIGN * OSC_LANE_ALIGN;
    const osc_audit *au = NULL;
    return sizeof(osc_audit) + cap * 8 * (AUDIT_LANE_ARRAYS + AUDIT_AXIS_ARRAYS * (size_t)dim) +
           n * ((size_t)dim * sizeof *au->exact + sizeof *au->lanes);
}

int osc_audit_create(osc_audit **out, const osc_batch *b)
{
    *out = NULL;
    if (osc_batch_step(b) < 0 || osc_batch_stopped(b))
        return OSC_ESTATE;
    osc_audit *au = calloc(1, sizeof *au);
    if (!au)
        return OSC_ENOMEM;
    size_t n = osc_batch_lanes(b);
    int dim = osc_batch_dim(b);
    au->n = n, au->dim = dim, au->dt = osc_batch_dt(b);
    au->anchor = OSC_AUDIT_ANCHOR_EVERY;
    au->drift_limit = INFINITY;
    set_factor(au, OSC_UNSTABLE_FACTOR);
    au->cap = osc_batch_padded_lanes(b); /* whole blocks: the fused kernel's range */
    double **dbl[] = {&au->k, &au->c, &au->m, &au->g, &au->w2, &au->rest_norm, &au->half_m,
                      &au->half_k, &au->mg, &au->rest2, &au->drift_lim, &au->p11, &au->p12,
                      &au->p22, &au->q1, &au->q2, &au->r11, &au->r12, &au->r22, &au->s1,
                      &au->s2, &au->max_de, &au->max_err2, &au->od11, &au->o12, &au->o21,
                      &au->od22, &au->oq1, &au->oq2, &au->iv_err2, &au->iv_de};
    long **lng[] = {&au->unstable, &au->audits, &au->at, &au->per, &au->chain_base,
                    &au->frozen_last};
    const size_t ndbl = sizeof dbl / sizeof *dbl, nlng = sizeof lng / sizeof *lng;
    _Static_assert(sizeof dbl / sizeof *dbl + sizeof lng / sizeof *lng == AUDIT_LANE_ARRAYS,
                   "osc_audit_bytes counts every per-lane array");
    const size_t arrays = ndbl + nlng + AUDIT_AXIS_ARRAYS * (size_t)dim;
    au->exact = calloc(n * (size_t)dim, sizeof *au->exact);
    au->lanes = calloc(n, sizeof *au->lanes);
    if (au->cap < n || au->cap > SIZE_MAX / 8 / arrays) {
        osc_audit_free(au);
        return OSC_ENOMEM;
    }
    size_t bytes = au->cap * 8 * arrays;
    au->slab = aligned_alloc(64, bytes);
    if (!au->exact || !au->lanes || !au->slab) {
        osc_audit_free(au);
        return OSC_ENOMEM;
    }
    memset(au->slab, 0, bytes);
    char *p = au->slab;
    for (size_t j = 0; j < ndbl; j++, p += au->cap * 8)
        *dbl[j] = (double *)(void *)p;
    for (size_t j = 0; j < nlng; j++, p += au->cap * 8)
        *lng[j] = (long *)(void *)p;
    for (int a = 0; a < dim; a++) {
        double **axis[] = {&au->xe[a], &au->ve[a], &au->xa[a], &au->va[a], &au->xf[a], &au->vf[a]};
        _Static_assert(sizeof axis / sizeof *axis == AUDIT_AXIS_ARRAYS, "per-axis arrays");
        for (size_t j = 0; j < AUDIT_AXIS_ARRAYS; j++, p += au->cap * 8)
            *axis[j] = (double *)(void *)p;
    }
    /* Each lane's preparation (a closed-form set-up) is independent of the others. */
    const double gravity = osc_batch_gravity(b);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        prepare_lane(au, b, i, gravity);
    /* whether any lane feels gravity: after the parallel loop, which must not write shared
     * fields (it raced here once) */
    for (size_t i = 0; i < n && !au->gravity; i++)
        au->gravity = au->g[i] != 0;
    au->every_step = true;
    au->costep = (osc_costep){au->od11, au->o12, au->o21, au->od22, au->oq1, au->oq2,
                              au->half_m, au->half_k, au->mg, .max_err2 = au->iv_err2,
                              .max_de = au->iv_de};
    for (int a = 0; a < dim; a++)
        au->costep.xe[a] = au->xe[a], au->costep.ve[a] = au->ve[a];
    *out = au;
    return OSC_OK;
}

static bool state_finite(int dim, const double *x, const double *v, double energy)
{
    bool finite = isfinite(energy);
    for (int a = 0; a < dim; a++)
        finite &= isfinite(x[a]) && isfinite(v[a]);
    return finite;
}

/* within_bound's test divided through by s = sqrt(w2e) when s > 1 (r = 1/s = min(t, 1/omega0)),
 * with hypot for the norms: nothing overflows or underflows where the squares would. For where
 * the direct form overflows: a dt below ~1e-154 makes 1/t^2 inf (and inf * 0 = NaN). */
static bool within_bound_scaled(const osc_audit *au, size_t i, const double *x, const double *v,
                                const osc_audit_point *p, double t)
{
    double r = 1 / sqrt(au->w2[i]); /* inf for k = 0 */
    if (t > 0)
        r = fmin(r, t);
    const double wx = r < 1 ? 1 : 1 / r, wv = r < 1 ? r : 1;
    double dist = 0, exact = 0;
    for (int a = 0; a < au->dim; a++) {
        dist = hypot(dist, hypot(wx * (x[a] - p->x_exact[a]), wv * (v[a] - p->v_exact[a])));
        exact = hypot(exact, hypot(wx * p->x_exact[a], wv * p->v_exact[a]));
    }
    return dist <= au->factor * (wv * au->rest_norm[i] + exact); /* false for NaN */
}

/* Stable while the energy-norm distance from the exact state stays within the motion's scale. */
static bool within_bound(const osc_audit *au, size_t i, const double *x, const double *v,
                         const osc_audit_point *p, double t)
{
    /* 1/t^2 weighs position errors where the spring is weak; at t = 0 there is no such scale
     * (and inf * 0 would make an exact state NaN, i.e. unstable) */
    double w2e = t > 0 ? fmax(au->w2[i], 1 / (t * t)) : au->w2[i];
    double dist2 = 0, exact2 = 0;
    for (int a = 0; a < au->dim; a++) {
        double dx = x[a] - p->x_exact[a], dv = v[a] - p->v_exact[a];
        dist2 += w2e * dx * dx + dv * dv;
        exact2 += w2e * p->x_exact[a] * p->x_exact[a] + p->v_exact[a] * p->v_exact[a];
    }
    /* the states are finite here (classify tests them first): a non-finite sum overflowed */
    if (!isfinite(dist2) || !isfinite(exact2))
        return within_bound_scaled(au, i, x, v, p, t);
    double bound = au->factor * (au->rest_norm[i] + sqrt(exact2));
    return sqrt(dist2) <= bound;
}

/* The definitions, given the exact state in p->x_exact, p->v_exact. */
static void classify(const osc_audit *au, size_t i, double t, const double *x, const double *v,
                     osc_audit_point *p)
{
    int dim = au->dim;
    p->energy = osc_energy(dim, au->k[i], au->m[i], au->g[i], x, v);
    p->exact_energy = osc_energy(dim, au->k[i], au->m[i], au->g[i], p->x_exact, p->v_exact);
    double err2 = 0;
    for (int a = 0; a < dim; a++)
        err2 += (x[a] - p->x_exact[a]) * (x[a] - p->x_exact[a]);
    p->error = sqrt(err2);
    p->drift = osc_energy_error(dim, au->k[i], au->m[i], au->g[i], x, v, p->x_exact, p->v_exact) /
               au->lanes[i].energy_scale;
    /* the last test catches a finite state whose energy error overflows the scale */
    p->stable = state_finite(dim, x, v, p->energy) && within_bound(au, i, x, v, p, t) &&
                isfinite(p->drift) && fabs(p->drift) <= au->drift_limit;
}

void osc_audit_evaluate(const osc_audit *au, size_t i, double t, const double *x, const double *v,
                        osc_audit_point *p)
{
    int dim = au->dim;
    for (int a = 0; a < dim; a++)
        osc_exact_eval(&au->exact[i * dim + a], t, &p->x_exact[a], &p->v_exact[a]);
    classify(au, i, t, x, v, p);
}

/* ---- osc_audit_tile ------------------------------------------------------------------------ */

/* How each lane of the chunk gets its exact state (mode[j]); counts this audit (audits, at) and
 * keeps each lane's gap since its previous audit. Returns how many lanes need the closed form;
 * *long_maps: how many take the R-interval map. Unstable lanes are never re-evaluated. */
static AUDIT_INLINE size_t plan_chunk_body(osc_audit *au, size_t c0, size_t len,
                                            long step, long *restrict gap,
                                            long *restrict mode, size_t *long_maps)
{
    long *restrict at = au->at + c0, *restrict audits = au->audits + c0;
    const long *restrict per = au->per + c0, *restrict base = au->chain_base + c0;
    const long *restrict unstable = au->unstable + c0;
    const long r = au->anchor, r2 = r * r;
    size_t closed = 0, longs = 0;
#pragma omp simd reduction(+ : closed, longs)
    for (size_t j = 0; j < len; j++) {
        const long d = step - at[j], count = audits[j] - base[j]; /* audits since the anchor */
        const int chain = (per[j] == d) & (d > 0) & (count < r2);
        const int by_long = chain & ((count & (r - 1)) == 0);
        const int live = unstable[j] < 0;
        const int m = (live & !chain) ? BY_CLOSED : (live & by_long) ? BY_LONG_MAP : BY_MAP;
        mode[j] = m;
        closed += m == BY_CLOSED;
        longs += m == BY_LONG_MAP;
        gap[j] = d;
        at[j] = step;
        audits[j] += 1;
    }
    *long_maps = longs;
    return closed;
}
AUDIT_PER_ISA(size_t, plan_chunk, plan_chunk_body,
              (osc_audit *au, size_t c0, size_t len, long step, long *restrict gap,
               long *restrict mode, size_t *long_maps),
              (au, c0, len, step, gap, mode, long_maps))

/* The closed form's map of lane i over time T: P11, P12, P22 (P21 = -w2 P12) and, for the gravity
 * axis, q = the forced response from rest (0 without gravity). */
static void map_over(const osc_audit *au, size_t i, double T, double *p11, double *p12,
                     double *p22, double *q1, double *q2)
{
    osc_exact_map(lane_motion(au, i), T, p11, p12, p22, q1, q2);
}

/* Lane i (chunk position j) by the closed form into xc, vc: it starts a chain; a gap seen twice
 * in a row gets its maps. The first audit is instead one map from the exact initial state (the
 * chain's anchor, at step 0), the maps prepared for its gap (*mode = BY_FIRST). */
static void closed_lane(osc_audit *au, size_t i, size_t j, size_t len, double t, long gap,
                        double *xc, double *vc, long *mode)
{
    const int dim = au->dim;
    if (au->audits[i] == 1 && gap > 0 && gap <= (1L << 31) && au->anchor > 1) {
        map_over(au, i, (double)gap * au->dt, &au->p11[i], &au->p12[i], &au->p22[i], &au->q1[i],
                 &au->q2[i]);
        map_over(au, i, (double)(gap * au->anchor) * au->dt, &au->r11[i], &au->r12[i],
                 &au->r22[i], &au->s1[i], &au->s2[i]);
        au->per[i] = gap, au->chain_base[i] = -1, *mode = BY_FIRST;
        const double p21 = -(au->w2[i] * au->p12[i]);
        for (int a = 0; a < dim; a++) {
            const double xo = au->xe[a][i], vo = au->ve[a][i];
            const bool forced = a == dim - 1;
            xc[(size_t)a * len + j] = fma(au->p11[i], xo, fma(au->p12[i], vo, forced ? au->q1[i] : 0.0));
            vc[(size_t)a * len + j] = fma(p21, xo, fma(au->p22[i], vo, forced ? au->q2[i] : 0.0));
        }
        return;
    }
    for (int a = 0; a < dim; a++)
        osc_exact_eval(&au->exact[i * (size_t)dim + a], t, &xc[(size_t)a * len + j],
                       &vc[(size_t)a * len + j]);
    au->chain_base[i] = au->audits[i] - 1; /* this audit, counted by plan_chunk */
    long per = au->per[i];
    if (per == gap && gap > 0)
        return; /* a re-anchoring audit: the maps stay */
    if (gap > 0 && per == -gap && gap <= (1L << 31)) {
        map_over(au, i, (double)gap * au->dt, &au->p11[i], &au->p12[i], &au->p22[i], &au->q1[i],
                 &au->q2[i]);
        map_over(au, i, (double)(gap * au->anchor) * au->dt, &au->r11[i], &au->r12[i],
                 &au->r22[i], &au->s1[i], &au->s2[i]);
        au->per[i] = gap;
    } else {
        au->per[i] = gap > 0 && gap <= (1L << 31) ? -gap : 0;
    }
}

/* The vector loop over a chunk, for D axes, G: gravity in the batch, `general`: some lanes take
 * the closed form (xc, vc) or the long map (mode). Decides each live lane as surely stable
 * (metrics updated), surely unstable (frozen) or undecided (slow[j] = 1 and its exact state in
 * xnb, vnb, left for classify). Returns whether any lane is undecided. */
static AUDIT_INLINE int audit_lanes(osc_audit *au, size_t c0, size_t len, const int D,
                                    const bool G, const bool general, const bool E, long step,
                                    double inv_t2,
                                    const double *x, const double *v, const double *xc,
                                    const double *vc, const long *mode, const long *gap,
                                    long *slow, double *xnb, double *vnb)
{
    const double *restrict hm = au->half_m + c0, *restrict hk = au->half_k + c0;
    const double *restrict mg = au->mg + c0, *restrict w2 = au->w2 + c0;
    const double *restrict rest2 = au->rest2 + c0, *restrict dlim = au->drift_lim + c0;
    const double *restrict p11 = au->p11 + c0, *restrict p12 = au->p12 + c0;
    const double *restrict p22 = au->p22 + c0, *restrict q1 = au->q1 + c0, *restrict q2 = au->q2 + c0;
    const double *restrict r11 = au->r11 + c0, *restrict r12 = au->r12 + c0;
    const double *restrict r22 = au->r22 + c0, *restrict s1 = au->s1 + c0, *restrict s2 = au->s2 + c0;
    double *restrict max_de = au->max_de + c0, *restrict max_err2 = au->max_err2 + c0;
    const double *restrict iv_de = au->iv_de + c0, *restrict iv_err2 = au->iv_err2 + c0;
    long *restrict unstable = au->unstable + c0, *restrict frozen = au->frozen_last + c0;
    double *xe[OSC_MAX_DIM], *ve[OSC_MAX_DIM], *xa[OSC_MAX_DIM], *va[OSC_MAX_DIM];
    double *xf[OSC_MAX_DIM], *vf[OSC_MAX_DIM];
    for (int a = 0; a < D; a++) {
        xe[a] = au->xe[a] + c0, ve[a] = au->ve[a] + c0;
        xa[a] = au->xa[a] + c0, va[a] = au->va[a] + c0;
        xf[a] = au->xf[a] + c0, vf[a] = au->vf[a] + c0;
    }
#pragma omp simd
    for (size_t j = 0; j < len; j++) {
        const double w2j = w2[j], w2e = isgreater(w2j, inv_t2) ? w2j : inv_t2; /* fmax */
        const double a11 = p11[j], a12 = p12[j], a22 = p22[j], a21 = -(w2j * a12);
        const double b1 = G ? q1[j] : 0, b2 = G ? q2[j] : 0;
        const int md = general ? mode[j] : BY_MAP;
        double l11 = 0, l12 = 0, l21 = 0, l22 = 0, c1 = 0, c2 = 0;
        if (general) {
            l11 = r11[j], l12 = r12[j], l22 = r22[j], l21 = -(w2j * l12);
            c1 = G ? s1[j] : 0, c2 = G ? s2[j] : 0;
        }
        double XN[OSC_MAX_DIM], VN[OSC_MAX_DIM], X[OSC_MAX_DIM], V[OSC_MAX_DIM];
        double v2 = 0, x2 = 0, err2 = 0, dist2 = 0, ex2 = 0;
        double sum_v = 0, sum_x = 0, dx_last = 0; /* osc_energy_error's sums */
        int finite = 1;
#pragma GCC unroll 3
        for (int a = 0; a < D; a++) {
            const bool forced = G && a == D - 1;
            const double xo = xe[a][j], vo = ve[a][j];
            double xn = fma(a11, xo, fma(a12, vo, forced ? b1 : 0.0));
            double vn = fma(a21, xo, fma(a22, vo, forced ? b2 : 0.0));
            if (general) {
                const double xao = xa[a][j], vao = va[a][j];
                const double xl = fma(l11, xao, fma(l12, vao, forced ? c1 : 0.0));
                const double vl = fma(l21, xao, fma(l22, vao, forced ? c2 : 0.0));
                const double xcl = xc[(size_t)a * len + j], vcl = vc[(size_t)a * len + j];
                xn = md == BY_LONG_MAP ? xl : md >= BY_CLOSED ? xcl : xn;
                vn = md == BY_LONG_MAP ? vl : md >= BY_CLOSED ? vcl : vn;
            }
            const double xq = x[(size_t)a * len + j], vq = v[(size_t)a * len + j];
            XN[a] = xn, VN[a] = vn, X[a] = xq, V[a] = vq;
            v2 += vq * vq, x2 += xq * xq;
            const double dx = xq - xn, dv = vq - vn;
            err2 += dx * dx;
            sum_v = a == 0 ? dv * (vq + vn) : fma(dv, vq + vn, sum_v);
            sum_x = a == 0 ? dx * (xq + xn) : fma(dx, xq + xn, sum_x);
            dx_last = dx;
            dist2 += w2e * dx * dx + dv * dv;
            ex2 += w2e * xn * xn + vn * vn;
            finite &= islessequal(fabs(xq), DBL_MAX) & islessequal(fabs(vq), DBL_MAX);
        }
        double energy = hm[j] * v2 + hk[j] * x2; /* only for its finiteness */
        if (G)
            energy = energy + mg[j] * X[D - 1];
        const double de = fma(mg[j], dx_last, fma(hk[j], sum_x, hm[j] * sum_v));
        finite &= islessequal(fabs(energy), DBL_MAX);
        /* every step: the interval's maxima join the audit point's; a NaN among them (the lane
         * went non-finite inside the interval) makes the lane unstable, never a dropped value */
        const double ive = E ? iv_err2[j] : 0, ivd = E ? iv_de[j] : 0;
        if (E)
            finite &= !isunordered(ive, ivd);
        const double ade = isgreater(ivd, fabs(de)) ? ivd : fabs(de);
        const double err2_all = isgreater(ive, err2) ? ive : err2;
        const double base = rest2[j] + ex2, lo = base * au->sure_stable, hi = base * au->sure_unstable;
        const int sure_stable = finite & islessequal(dist2, lo) & islessequal(lo, DBL_MAX) &
                                islessequal(ade, dlim[j]);
        const int sure_unstable =
            (finite == 0) | (isgreater(dist2, hi) & isgreaterequal(base, NORMAL_BASE));
        const int live = unstable[j] < 0;
        const int update = live & sure_stable, fail = live & sure_unstable;
        const int undecided = live & (sure_stable == 0) & (sure_unstable == 0);
        slow[j] = undecided;
#pragma GCC unroll 3
        for (int a = 0; a < D; a++) {
            if (update) {
                xe[a][j] = XN[a], ve[a][j] = VN[a];
                xf[a][j] = X[a], vf[a][j] = V[a];
            }
            if (general && update & ((md == BY_LONG_MAP) | (md == BY_CLOSED)))
                xa[a][j] = XN[a], va[a][j] = VN[a];
            if (undecided)
                xnb[(size_t)a * len + j] = XN[a], vnb[(size_t)a * len + j] = VN[a];
        }
        if (update & isgreater(ade, max_de[j]))
            max_de[j] = ade;
        if (update & isgreater(err2_all, max_err2[j]))
            max_err2[j] = err2_all;
        if (fail)
            unstable[j] = step, frozen[j] = step - gap[j];
    }
    int any_slow = 0;
    for (size_t j = 0; j < len; j++)
        any_slow |= slow[j];
    return any_slow;
}

static AUDIT_INLINE int audit_chunk_body(osc_audit *au, size_t c0, size_t len,
                                         bool general, long step, double inv_t2,
                                         const double *x, const double *v, const double *xc,
                                         const double *vc, const long *mode, const long *gap,
                                         long *slow, double *xnb, double *vnb)
{
#define AUDIT_CASE_E(D, G, E)                                                                    \
    return general ? audit_lanes(au, c0, len, D, G, true, E, step, inv_t2, x, v, xc, vc, mode,   \
                                 gap, slow, xnb, vnb)                                            \
                   : audit_lanes(au, c0, len, D, G, false, E, step, inv_t2, x, v, xc, vc, mode,  \
                                 gap, slow, xnb, vnb)
#define AUDIT_CASE(D, G)                                                                         \
    do {                                                                                         \
        if (au->every_step)                                                                      \
            AUDIT_CASE_E(D, G, true);                                                            \
        AUDIT_CASE_E(D, G, false);                                                               \
    } while (0)
    if (au->gravity) {
        switch (au->dim) {
        case 1:
            AUDIT_CASE(1, true);
        case 2:
            AUDIT_CASE(2, true);
        default:
            AUDIT_CASE(3, true);
        }
    }
    switch (au->dim) {
    case 1:
        AUDIT_CASE(1, false);
    case 2:
        AUDIT_CASE(2, false);
    default:
        AUDIT_CASE(3, false);
    }
#undef AUDIT_CASE
#undef AUDIT_CASE_E
}
AUDIT_PER_ISA(int, audit_chunk_lanes, audit_chunk_body,
              (osc_audit *au, size_t c0, size_t len, bool general, long step,
               double inv_t2, const double *x, const double *v, const double *xc, const double *vc,
               const long *mode, const long *gap, long *slow, double *xnb, double *vnb),
              (au, c0, len, general, step, inv_t2, x, v, xc, vc, mode, gap, slow, xnb, vnb))

/* A lane the vector loop left undecided: the definitions, in scalar, with the same exact state. */
static void slow_lane(osc_audit *au, size_t i, size_t j, size_t len, long step, double t,
                      long gap, int mode, const double *x, const double *v, const double *xnb,
                      const double *vnb)
{
    const int dim = au->dim;
    double xi[OSC_MAX_DIM], vi[OSC_MAX_DIM];
    osc_audit_point p;
    for (int a = 0; a < dim; a++) {
        xi[a] = x[(size_t)a * len + j], vi[a] = v[(size_t)a * len + j];
        p.x_exact[a] = xnb[(size_t)a * len + j], p.v_exact[a] = vnb[(size_t)a * len + j];
    }
    classify(au, i, t, xi, vi, &p);
    /* every step: the interval's maxima count too (as in the vector loop) */
    const double ive = au->every_step ? au->iv_err2[i] : 0, ivd = au->every_step ? au->iv_de[i] : 0;
    const bool interval_ok =
        !isnan(ive) && !isnan(ivd) && ivd / au->lanes[i].energy_scale <= au->drift_limit;
    if (!p.stable || !interval_ok) {
        au->unstable[i] = step, au->frozen_last[i] = step - gap;
        return;
    }
    /* energy error and squared error as the vector loop forms them (p.error = sqrt(err2)) */
    const double de = osc_energy_error(dim, au->k[i], au->m[i], au->g[i], xi, vi, p.x_exact,
                                       p.v_exact);
    double err2 = 0;
    for (int a = 0; a < dim; a++) {
        err2 += (xi[a] - p.x_exact[a]) * (xi[a] - p.x_exact[a]);
        au->xe[a][i] = p.x_exact[a], au->ve[a][i] = p.v_exact[a];
        au->xf[a][i] = xi[a], au->vf[a][i] = vi[a];
        if (mode == BY_LONG_MAP || mode == BY_CLOSED)
            au->xa[a][i] = p.x_exact[a], au->va[a][i] = p.v_exact[a];
    }
    au->max_de[i] = fmax(au->max_de[i], fmax(fabs(de), ivd));
    au->max_err2[i] = fmax(au->max_err2[i], fmax(err2, ive));
}

static void audit_chunk(osc_audit *au, const osc_batch *b, size_t c0, size_t len, long step)
{
    _Alignas(64) double x[OSC_MAX_DIM * CHUNK], v[OSC_MAX_DIM * CHUNK];
    _Alignas(64) double xc[OSC_MAX_DIM * CHUNK], vc[OSC_MAX_DIM * CHUNK];
    _Alignas(64) double xnb[OSC_MAX_DIM * CHUNK], vnb[OSC_MAX_DIM * CHUNK];
    _Alignas(64) long gap[CHUNK];
    _Alignas(64) long mode[CHUNK], slow[CHUNK];
    /* below t ~ 1e-154 inv_t2 is inf: the vector loop's sums are then inf or NaN, so it
     * decides only non-finite lanes and leaves the rest to classify (within_bound_scaled) */
    const double t = (double)step * au->dt, inv_t2 = 1 / (t * t);
    osc_batch_readout(b, c0, c0 + len, x, v);
    size_t long_maps;
    size_t closed = plan_chunk(au, c0, len, step, gap, mode, &long_maps);
    if (closed)
        for (size_t j = 0; j < len; j++)
            if (mode[j] == BY_CLOSED)
                closed_lane(au, c0 + j, j, len, t, gap[j], xc, vc, &mode[j]);
    const bool general = closed > 0 || long_maps > 0;
    if (audit_chunk_lanes(au, c0, len, general, step, inv_t2, x, v, xc, vc, mode, gap, slow, xnb,
                          vnb))
        for (size_t j = 0; j < len; j++)
            if (slow[j])
                slow_lane(au, c0 + j, j, len, step, t, gap[j], general ? mode[j] : BY_MAP, x, v,
                          xnb, vnb);
}

int osc_audit_tile(void *ctx, const osc_batch *b, size_t i0, size_t i1, long step)
{
    osc_audit *au = ctx; /* the audit writes its lanes' state: ctx is not const */
    if (i1 > au->n)
        i1 = au->n;
    for (size_t c0 = i0; c0 < i1; c0 += CHUNK)
        audit_chunk(au, b, c0, i1 - c0 < CHUNK ? i1 - c0 : CHUNK, step);
    return OSC_OK;
}

/* ---- reading the metrics --------------------------------------------------------------------- */

int osc_audit_lane_metrics(const osc_audit *a, size_t i, osc_lane_metrics *out)
{
    if (i >= a->n)
        return OSC_EINVAL;
    osc_lane_metrics mt = a->lanes[i]; /* e0, rest_distance, energy_scale: fixed at creation */
    const int dim = a->dim;
    double x[OSC_MAX_DIM], v[OSC_MAX_DIM], xe[OSC_MAX_DIM], ve[OSC_MAX_DIM], err2 = 0;
    for (int ax = 0; ax < dim; ax++) {
        x[ax] = a->xf[ax][i], v[ax] = a->vf[ax][i];
        xe[ax] = a->xe[ax][i], ve[ax] = a->ve[ax][i];
        err2 += (x[ax] - xe[ax]) * (x[ax] - xe[ax]);
    }
    /* the last stable audit's values, by the same operations as there (classify) */
    const double scale = mt.energy_scale;
    mt.final_energy = osc_energy(dim, a->k[i], a->m[i], a->g[i], x, v);
    mt.final_exact_energy = osc_energy(dim, a->k[i], a->m[i], a->g[i], xe, ve);
    mt.final_drift = osc_energy_error(dim, a->k[i], a->m[i], a->g[i], x, v, xe, ve) / scale;
    mt.final_error = sqrt(err2);
    mt.max_abs_drift = a->max_de[i] / scale;
    mt.max_error = sqrt(a->max_err2[i]);
    mt.unstable_step = a->unstable[i];
    mt.audits = a->audits[i];
    mt.last_step = a->unstable[i] < 0 ? a->at[i] : a->frozen_last[i];
    *out = mt;
    return OSC_OK;
}

void osc_audit_exact_state(const osc_audit *a, size_t i, double *x, double *v, long *step)
{
    for (int ax = 0; ax < a->dim; ax++) {
        if (x)
            x[ax] = a->xe[ax][i];
        if (v)
            v[ax] = a->ve[ax][i];
    }
    if (step)
        *step = a->unstable[i] < 0 ? a->at[i] : a->frozen_last[i];
}

int osc_audit_set_maxima(osc_audit *a, osc_maxima mode)
{
    if (mode != OSC_MAXIMA_EVERY_STEP && mode != OSC_MAXIMA_AUDITS)
        return OSC_EINVAL;
    a->every_step = mode == OSC_MAXIMA_EVERY_STEP;
    return OSC_OK;
}

osc_maxima osc_audit_maxima(const osc_audit *a)
{
    return a->every_step ? OSC_MAXIMA_EVERY_STEP : OSC_MAXIMA_AUDITS;
}

/* The fused kernel co-steps the exact motion from each lane's exact state at its last audit, so
 * that state must stand at the batch's step. Where the batch was stepped outside the audit (the
 * audit created after steps, or a plain osc_batch_run between audited runs) a live lane's state
 * becomes the closed form at the batch's step, as if an audit had anchored a chain there: the
 * R-interval anchor (xa, va) too, which a lane's first audit maps on from. A lane audited before
 * takes the closed form at its next audit (per = 0: no chain runs on across steps no audit saw). */
static void catch_up(osc_audit *a, long step)
{
    const double t = (double)step * a->dt;
    for (size_t i = 0; i < a->n; i++) {
        if (a->unstable[i] >= 0 || a->at[i] == step)
            continue;
        for (int ax = 0; ax < a->dim; ax++) {
            osc_exact_eval(&a->exact[i * (size_t)a->dim + ax], t, &a->xe[ax][i], &a->ve[ax][i]);
            a->xa[ax][i] = a->xe[ax][i], a->va[ax][i] = a->ve[ax][i];
        }
        a->at[i] = step, a->per[i] = 0;
    }
}

int osc_audit_run(osc_audit *a, osc_batch *b, long nsteps, long audit_every, osc_audit_fn fn,
                  void *ctx)
{
    if (!fn)
        fn = osc_audit_tile, ctx = a;
    if (!a->every_step)
        return osc_batch_run(b, nsteps, audit_every, fn, ctx);
    const long step = osc_batch_step(b);
    if (step >= 0 && !osc_batch_stopped(b) && step != a->run_to)
        catch_up(a, step);
    const int rc = osc_batch_run_costep(b, nsteps, audit_every, &a->costep, fn, ctx);
    a->run_to = osc_batch_stopped(b) ? -1 : osc_batch_step(b);
    return rc;
}

int osc_audit_set_anchor_every(osc_audit *a, long every)
{
    if (every < 1 || every > (1L << 20) || (every & (every - 1)) != 0)
        return OSC_EINVAL;
    a->anchor = every;
    for (size_t i = 0; i < a->n; i++)
        a->per[i] = 0; /* the long maps were for the old interval: learn them again */
    return OSC_OK;
}

size_t osc_audit_lanes(const osc_audit *a) { return a->n; }

const osc_exact *osc_audit_exact(const osc_audit *a, size_t i, int axis)
{
    return i < a->n && axis >= 0 && axis < a->dim ? &a->exact[i * (size_t)a->dim + axis] : NULL;
}

osc_audit_summary osc_audit_summarize(const osc_audit *a, size_t i0, size_t i1)
{
    osc_audit_summary sum = {.first_unstable_step = -1};
    for (size_t i = i0; i < i1 && i < a->n; i++) {
        osc_lane_metrics mt;
        osc_audit_lane_metrics(a, i, &mt); /* i < a->n: cannot fail */
        sum.lanes++;
        if (mt.unstable_step >= 0) {
            sum.unstable++;
            if (sum.first_unstable_step < 0 || mt.unstable_step < sum.first_unstable_step)
                sum.first_unstable_step = mt.unstable_step;
            continue;
        }
        sum.max_abs_drift = fmax(sum.max_abs_drift, mt.max_abs_drift);
        sum.max_error = fmax(sum.max_error, mt.max_error);
    }
    if (sum.unstable == sum.lanes)
        sum.max_abs_drift = sum.max_error = NAN;
    return sum;
}
