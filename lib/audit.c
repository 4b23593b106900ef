/* Auditing a batch against the exact solution; the definitions are documented in audit.h. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "audit.h"

struct osc_audit {
    size_t n;
    int dim;
    double dt;
    osc_exact *exact;         /* [i * dim + axis] */
    osc_lane_metrics *lanes;
    double *k, *m, *g, *w2;   /* per lane; g is the gravity the lane feels (0 when pinned) */
    double *rest_norm;        /* energy-norm distance of the initial state from rest */
};

double osc_energy(int dim, double k, double m, double g, const double *x, const double *v)
{
    double v2 = 0, x2 = 0;
    for (int a = 0; a < dim; a++)
        v2 += v[a] * v[a], x2 += x[a] * x[a];
    /* m = 0: a pinned lane has v = 0 and feels no gravity; never form 0 * inf. */
    double kinetic = m > 0 ? 0.5 * m * v2 : 0, gravity = m > 0 ? m * g * x[dim - 1] : 0;
    return kinetic + 0.5 * k * x2 + gravity;
}

void osc_audit_free(osc_audit *a)
{
    if (!a)
        return;
    free(a->exact), free(a->lanes), free(a->k), free(a->m), free(a->g), free(a->w2);
    free(a->rest_norm);
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

static void prepare_lane(osc_audit *au, const osc_batch *b, size_t i, double gravity)
{
    int dim = au->dim;
    double k, c, m, x0[OSC_MAX_DIM], v0[OSC_MAX_DIM];
    osc_batch_lane(b, i, &k, &c, &m, x0, v0);
    double g = m > 0 ? gravity : 0;
    au->k[i] = k, au->m[i] = m, au->g[i] = g, au->w2[i] = m > 0 ? k / m : 0;
    for (int a = 0; a < dim; a++)
        osc_exact_prepare(&au->exact[i * dim + a], k, c, m, a == dim - 1 ? g : 0, x0[a], v0[a]);
    double rd = rest_distance(dim, k, m, g, x0), v2 = 0;
    for (int a = 0; a < dim; a++)
        v2 += v0[a] * v0[a];
    au->rest_norm[i] = sqrt(au->w2[i] * rd * rd + v2);
    double e0 = osc_energy(dim, k, m, g, x0, v0);
    au->lanes[i] = (osc_lane_metrics){
        .e0 = e0,
        .final_energy = e0,
        .final_exact_energy = e0,
        .rest_distance = rd,
        .energy_scale = energy_scale(dim, k, m, g, x0, v0, rd),
        .unstable_step = -1,
    };
}

int osc_audit_create(osc_audit **out, const osc_batch *b)
{
    *out = NULL;
    if (osc_batch_step(b) < 0)
        return OSC_ESTATE;
    osc_audit *au = calloc(1, sizeof *au);
    if (!au)
        return OSC_ENOMEM;
    size_t n = osc_batch_lanes(b);
    au->n = n, au->dim = osc_batch_dim(b), au->dt = osc_batch_dt(b);
    au->exact = calloc(n * (size_t)au->dim, sizeof *au->exact);
    au->lanes = calloc(n, sizeof *au->lanes);
    au->k = calloc(n, sizeof(double)), au->m = calloc(n, sizeof(double));
    au->g = calloc(n, sizeof(double)), au->w2 = calloc(n, sizeof(double));
    au->rest_norm = calloc(n, sizeof(double));
    if (!au->exact || !au->lanes || !au->k || !au->m || !au->g || !au->w2 || !au->rest_norm) {
        osc_audit_free(au);
        return OSC_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        prepare_lane(au, b, i, osc_batch_gravity(b));
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

/* Stable while the energy-norm distance from the exact state stays within the motion's scale. */
static bool within_bound(const osc_audit *au, size_t i, const double *x, const double *v,
                         const osc_audit_point *p, double t)
{
    double w2e = fmax(au->w2[i], 1 / (t * t));
    double dist2 = 0, exact2 = 0;
    for (int a = 0; a < au->dim; a++) {
        double dx = x[a] - p->x_exact[a], dv = v[a] - p->v_exact[a];
        dist2 += w2e * dx * dx + dv * dv;
        exact2 += w2e * p->x_exact[a] * p->x_exact[a] + p->v_exact[a] * p->v_exact[a];
    }
    double bound = OSC_UNSTABLE_FACTOR * (au->rest_norm[i] + sqrt(exact2));
    return sqrt(dist2) <= bound; /* false for NaN */
}

void osc_audit_evaluate(const osc_audit *au, size_t i, double t, const double *x, const double *v,
                        osc_audit_point *p)
{
    int dim = au->dim;
    for (int a = 0; a < dim; a++)
        osc_exact_eval(&au->exact[i * dim + a], t, &p->x_exact[a], &p->v_exact[a]);
    p->energy = osc_energy(dim, au->k[i], au->m[i], au->g[i], x, v);
    p->exact_energy = osc_energy(dim, au->k[i], au->m[i], au->g[i], p->x_exact, p->v_exact);
    double err2 = 0;
    for (int a = 0; a < dim; a++)
        err2 += (x[a] - p->x_exact[a]) * (x[a] - p->x_exact[a]);
    p->error = sqrt(err2);
    p->drift = (p->energy - p->exact_energy) / au->lanes[i].energy_scale;
    /* the last test catches a finite state whose energy error overflows the scale */
    p->stable = state_finite(dim, x, v, p->energy) && within_bound(au, i, x, v, p, t) &&
                isfinite(p->drift);
}

static void audit_lane(const osc_audit *au, size_t i, const double *x, const double *v, long step,
                       double t)
{
    osc_lane_metrics *mt = &au->lanes[i];
    mt->audits++;
    if (mt->unstable_step >= 0)
        return;
    osc_audit_point p;
    osc_audit_evaluate(au, i, t, x, v, &p);
    if (!p.stable) {
        mt->unstable_step = step;
        return;
    }
    mt->final_energy = p.energy, mt->final_exact_energy = p.exact_energy;
    mt->final_drift = p.drift, mt->final_error = p.error, mt->last_step = step;
    mt->max_abs_drift = fmax(mt->max_abs_drift, fabs(p.drift));
    mt->max_error = fmax(mt->max_error, p.error);
}

int osc_audit_tile(void *ctx, const osc_batch *b, size_t i0, size_t i1, long step)
{
    const osc_audit *au = ctx;
    if (i1 > au->n)
        i1 = au->n;
    if (i0 >= i1)
        return OSC_OK;
    size_t len = i1 - i0, dim = (size_t)au->dim;
    double *x = malloc(2 * len * dim * sizeof(double));
    if (!x)
        return OSC_ENOMEM;
    double *v = x + len * dim;
    osc_batch_readout(b, i0, i1, x, v);
    double t = (double)step * au->dt;
    for (size_t i = i0; i < i1; i++) {
        double xi[OSC_MAX_DIM], vi[OSC_MAX_DIM];
        for (size_t a = 0; a < dim; a++)
            xi[a] = x[a * len + (i - i0)], vi[a] = v[a * len + (i - i0)];
        audit_lane(au, i, xi, vi, step, t);
    }
    free(x);
    return OSC_OK;
}

const osc_lane_metrics *osc_audit_lane(const osc_audit *a, size_t i)
{
    return i < a->n ? &a->lanes[i] : NULL;
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
        const osc_lane_metrics *mt = &a->lanes[i];
        sum.lanes++;
        if (mt->unstable_step >= 0) {
            sum.unstable++;
            if (sum.first_unstable_step < 0 || mt->unstable_step < sum.first_unstable_step)
                sum.first_unstable_step = mt->unstable_step;
            continue;
        }
        sum.max_abs_drift = fmax(sum.max_abs_drift, mt->max_abs_drift);
        sum.max_error = fmax(sum.max_error, mt->max_error);
    }
    return sum;
}
