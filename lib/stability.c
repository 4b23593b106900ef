/* Stability limits in h = omega0*dt: theory from the spectral radius of the one-step
 * amplification matrix, and measurement by stepping lanes of a batch. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "analysis.h"

/* ---- the amplification matrix and its spectral radius ------------------------------------- */

void osc_amplification(const osc_method *m, double zeta, double h,
                       double A[OSC_MAX_STATE][OSC_MAX_STATE])
{
    const osc_coef_d unit = {.w2 = 1, .gam = 2 * zeta, .g = 0};
    for (int i = 0; i < OSC_MAX_STATE; i++)
        for (int j = 0; j < OSC_MAX_STATE; j++)
            A[i][j] = 0;
    for (int j = 0; j < m->nstate; j++) {
        double s[OSC_MAX_STATE] = {0, 0, 0};
        s[j] = 1;
        m->ref_d.step(s, unit, h);
        for (int i = 0; i < m->nstate; i++)
            A[i][j] = s[i];
    }
}

/* a d - b c to within an ulp or so (Kahan): the undamped symplectic methods have det = 1 and
 * rho = sqrt(det) on their whole stable range, so this decides rho <= 1 + tol there. */
static double det2(double a, double b, double c, double d)
{
    double bc = b * c;
    double err = fma(-b, c, bc);
    return fma(a, d, -bc) + err;
}

/* Largest |root| of l^2 + p l + q. */
static double quadratic_radius(double p, double q)
{
    double half = -p / 2, disc = half * half - q;
    return disc >= 0 ? fabs(half) + sqrt(disc) : sqrt(q);
}

/* Eigenvalues (a+d)/2 +- sqrt(((a-d)/2)^2 + bc): this discriminant has no cancellation between
 * the trace and the determinant. Complex pair: |l|^2 = det. */
static double radius2(double a, double b, double c, double d)
{
    double mean = (a + d) / 2, half_diff = (a - d) / 2;
    double disc = half_diff * half_diff + b * c;
    return disc >= 0 ? fabs(mean) + sqrt(disc) : sqrt(fmax(det2(a, b, c, d), 0));
}

static double cubic(double a, double b, double c, double l) { return ((l + a) * l + b) * l + c; }

/* A real root of l^3 + a l^2 + b l + c by bisection from the Cauchy bound (the cubic changes
 * sign there) down to adjacent doubles: slow but it cannot fail. */
static double cubic_real_root(double a, double b, double c)
{
    double lo = -(1 + fmax(fabs(a), fmax(fabs(b), fabs(c)))), hi = -lo;
    for (int it = 0; it < 2200; it++) {
        double mid = lo / 2 + hi / 2;
        if (mid <= lo || mid >= hi)
            break;
        if (cubic(a, b, c, mid) < 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo / 2 + hi / 2;
}

/* 3x3: the characteristic cubic l^3 + a l^2 + b l + c, one real root r by bisection, the other
 * two from the deflated quadratic l^2 + (a + r) l + q. Forward deflation q = b + r (a + r) is
 * accurate when r is the smaller root (e.g. the 0 eigenvalue of a stored-acceleration state),
 * backward q = -c / r when r is the larger one; pick by comparing r^2 with |q|. */
static double radius3(const double A[OSC_MAX_STATE][OSC_MAX_STATE])
{
    double trace = A[0][0] + A[1][1] + A[2][2];
    double minors = det2(A[0][0], A[0][1], A[1][0], A[1][1]) +
                    det2(A[0][0], A[0][2], A[2][0], A[2][2]) +
                    det2(A[1][1], A[1][2], A[2][1], A[2][2]);
    double det = A[0][0] * det2(A[1][1], A[1][2], A[2][1], A[2][2]) -
                 A[0][1] * det2(A[1][0], A[1][2], A[2][0], A[2][2]) +
                 A[0][2] * det2(A[1][0], A[1][1], A[2][0], A[2][1]);
    double a = -trace, b = minors, c = -det;
    double r = cubic_real_root(a, b, c);
    double p = a + r, q = b + r * p;
    if (r != 0 && r * r > fabs(q))
        q = -c / r;
    return fmax(fabs(r), quadratic_radius(p, q));
}

double osc_spectral_radius(int n, const double A[OSC_MAX_STATE][OSC_MAX_STATE])
{
    switch (n) {
    case 1: return fabs(A[0][0]);
    case 2: return radius2(A[0][0], A[0][1], A[1][0], A[1][1]);
    case 3: return radius3(A);
    default: return NAN;
    }
}

/* ---- theory ------------------------------------------------------------------------------- */

/* rho - 1 at h. */
static double excess(const osc_method *m, double zeta, double h)
{
    double A[OSC_MAX_STATE][OSC_MAX_STATE];
    osc_amplification(m, zeta, h, A);
    return osc_spectral_radius(m->nstate, A) - 1;
}

/* The tolerance: rho of an undamped symplectic method is 1 to a few ulps (the entries of A are
 * O(1) to O(h^4) near the limits found here, each rounded once or twice); 1e-12 is ~5000 ulps
 * above that, and shifts a limit where rho - 1 grows linearly by ~1e-12 / slope, or by
 * (1e-12)^2 where it grows like a square root: far below the bisection's resolution. */
static bool stable_at(const osc_method *m, double zeta, double h)
{
    return excess(m, zeta, h) <= OSC_STAB_RHO_TOL; /* NaN counts as unstable */
}

#define GRID_PER_DECADE 100
#define H_PROBE_MIN 1e-9

/* Unstable at H_MIN: probe down by decades. A contracting h (rho < 1 - tol) starts the scan
 * there (*start). Otherwise rho - 1 shrinks below the tolerance (it goes like h^2 for undamped
 * explicit Euler, 5e-9 at 1e-4, 5e-13 at 1e-6) while still positive: never stable, and *start
 * is the smallest h at which the instability was resolved. */
static bool probe_small_h(const osc_method *m, double zeta, double *start)
{
    double h = OSC_STAB_H_MIN;
    *start = h;
    while (h / 10 >= H_PROBE_MIN) {
        double e = excess(m, zeta, h / 10);
        if (e < -OSC_STAB_RHO_TOL) {
            *start = h / 10;
            return true;
        }
        if (!(e > OSC_STAB_RHO_TOL))
            return false;
        h /= 10;
        *start = h;
    }
    return false;
}

static double bisect_theory(const osc_method *m, double zeta, double lo, double hi)
{
    while (hi - lo > 1e-13 * hi) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        if (stable_at(m, zeta, mid))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int osc_stability_theory(const osc_method *m, double zeta, osc_stab_theory *out)
{
    if (!m || !out || !(zeta >= 0 && isfinite(zeta)) || m->nstate < 1 ||
        m->nstate > OSC_MAX_STATE)
        return OSC_EINVAL;
    *out = (osc_stab_theory){.kind = OSC_STAB_ALWAYS, .limit = INFINITY,
                             .h_low = OSC_STAB_H_MIN, .h_high = OSC_STAB_H_MAX};
    double start = OSC_STAB_H_MIN;
    if (!stable_at(m, zeta, start) && !probe_small_h(m, zeta, &start)) {
        out->kind = OSC_STAB_NEVER, out->limit = 0, out->h_low = start;
        return OSC_OK;
    }
    out->h_low = start;
    const double ratio = pow(10, 1.0 / GRID_PER_DECADE);
    for (double lo = start, h = start * ratio; lo < OSC_STAB_H_MAX; lo = h, h *= ratio) {
        h = fmin(h, OSC_STAB_H_MAX);
        if (!stable_at(m, zeta, h)) {
            out->kind = OSC_STAB_BOUNDED;
            out->limit = bisect_theory(m, zeta, lo, h);
            return OSC_OK;
        }
    }
    return OSC_OK;
}

/* ---- measured ----------------------------------------------------------------------------- */

/* A lane is unstable when its energy norm has grown beyond `growth` (1e6) or is not finite.
 * 1. A first scan: coarse_lanes log-spaced over [h_low, h_high], long enough to see undamped
 *    Euler grow at h_low. The first unstable lane after a stable one brackets the limit; none
 *    stable: NEVER (0, unstable down to h_low); none unstable: ALWAYS (INFINITY, up to h_high).
 * 2. A short rerun of the same lanes (256 steps) measures how fast log(rho) grows with h past
 *    the limit (the long run overflowed there).
 * 3. Refining batches of fine_lanes spread linearly over the bracket, each long enough for its
 *    spacing (see refine), until the bracket and the finite-step bias are within rel_tol.
 * The verdict of every lane comes from stepping the batch kernels; nothing uses the theory. */

/* Lane i: omega0 = h[i] with dt = 1 (so omega0*dt = h[i]), c = 2 zeta omega0, m = 1, x0 = 1,
 * v0 = 0. After `steps` steps, log_growth[i] = log of the energy norm sqrt(x^2 + (v/omega0)^2)
 * (1 at the start); +inf when not finite. */
static int step_lanes(const osc_method *m, osc_precision p, double zeta, const double *h,
                      size_t n, long steps, double *log_growth)
{
    osc_batch *b;
    int status = osc_batch_create(&b, m, p, 1, n, 0.0);
    if (status != OSC_OK)
        return status;
    const double x0 = 1, v0 = 0;
    for (size_t i = 0; i < n && status == OSC_OK; i++)
        status = osc_batch_set_lane(b, i, h[i] * h[i], 2 * zeta * h[i], 1.0, &x0, &v0);
    double *x = malloc(n * sizeof *x), *v = malloc(n * sizeof *v);
    if (status == OSC_OK && !(x && v))
        status = OSC_ENOMEM;
    if (status == OSC_OK)
        status = osc_batch_start(b, 1.0);
    if (status == OSC_OK)
        status = osc_batch_run(b, steps, 0, NULL, NULL);
    if (status == OSC_OK) {
        osc_batch_readout(b, 0, n, x, v);
        for (size_t i = 0; i < n; i++) {
            double norm = hypot(x[i], v[i] / h[i]);
            log_growth[i] = isfinite(norm) ? log(norm) : INFINITY;
        }
    }
    free(x), free(v);
    osc_batch_free(b);
    return status;
}

typedef struct scan {
    const osc_method *m;
    osc_precision p;
    double zeta, log_growth_limit;
    osc_stab_measured *out;
    size_t n;
    double *h, *L;
} scan;

/* Step the lanes s->h[0..n) for `steps` and return the first unstable lane (n if none). */
static int run_scan(scan *s, long steps, size_t *first_unstable)
{
    int status = step_lanes(s->m, s->p, s->zeta, s->h, s->n, steps, s->L);
    s->out->lanes += s->n;
    s->out->lane_steps += (double)s->n * (double)steps;
    s->out->max_steps = steps > s->out->max_steps ? steps : s->out->max_steps;
    s->out->batches++;
    size_t i = 0;
    while (i < s->n && !(s->L[i] > s->log_growth_limit))
        i++;
    *first_unstable = i;
    return status;
}

/* d(log rho)/dh beyond the boundary, from the growth rates L/steps of the first unstable lane iu
 * and one a few lanes further (a secant: it cancels the lanes' similar start-up transients).
 * Where the rates grow like a square root of the distance (undamped symplectic methods) the
 * secant underestimates the slope near the boundary, which only makes later batches longer. */
static double growth_slope(const scan *s, size_t iu, long steps)
{
    for (size_t j = iu + 4 < s->n ? iu + 4 : s->n - 1; j > iu; j--)
        if (isfinite(s->L[j]) && s->L[j] > s->L[iu])
            return (s->L[j] - s->L[iu]) / (double)steps / (s->h[j] - s->h[iu]);
    /* Fallback: the first unstable lane alone, measured from the last stable one; an overflowed
     * lane grew at least to the largest finite value of its precision. */
    double dh = s->h[iu] - s->h[iu - 1];
    double overflow = s->p == OSC_FLOAT ? log(FLT_MAX) : log(DBL_MAX);
    return (isfinite(s->L[iu]) ? s->L[iu] : overflow) / (double)steps / dh;
}

/* The first scan runs long, so the lanes past the limit overflow and say nothing of the growth
 * rate. A short rerun of the same lanes does: the secant slope of the rates L/steps between the
 * first two lanes (from iu on) that grew past the threshold, still finite. */
static double short_run_slope(scan *s, size_t iu, int *status)
{
    const long short_steps = 256;
    size_t first;
    *status = run_scan(s, short_steps, &first);
    if (first < iu)
        first = iu;
    for (size_t i = first; *status == OSC_OK && i + 1 < s->n; i++) {
        bool grew = s->L[i] > s->log_growth_limit && s->L[i + 1] > s->L[i];
        if (grew && isfinite(s->L[i + 1]))
            return (s->L[i + 1] - s->L[i]) / (double)short_steps / (s->h[i + 1] - s->h[i]);
    }
    return first > 0 && first < s->n ? growth_slope(s, first, short_steps) : NAN;
}

static void fill_linear(double *h, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++)
        h[i] = lo + (hi - lo) * (double)i / (double)(n - 1);
}

static void fill_log(double *h, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++)
        h[i] = lo * pow(hi / lo, (double)i / (double)(n - 1));
}

static osc_stab_options with_defaults(const osc_stab_options *opt)
{
    osc_stab_options o = opt ? *opt : (osc_stab_options){0};
    o.coarse_lanes = o.coarse_lanes >= 16 ? o.coarse_lanes : 512;
    o.fine_lanes = o.fine_lanes >= 16 ? o.fine_lanes : 256;
    o.growth = o.growth > 1 ? o.growth : 1e6;
    o.h_low = o.h_low > 0 ? o.h_low : 0.05;
    o.h_high = o.h_high > o.h_low ? o.h_high : fmax(1e3, 10 * o.h_low);
    o.rel_tol = o.rel_tol > 0 ? o.rel_tol : 2e-4;
    o.max_steps = o.max_steps > 0 ? o.max_steps : 400000;
    return o;
}

static long clamp_steps(double steps, long max_steps)
{
    const long min_steps = 200; /* lets start-up transients settle */
    if (!(steps < (double)max_steps))
        return max_steps;
    return steps < min_steps ? min_steps : (long)ceil(steps);
}

/* Refine the bracket [a, b] (a stable, b unstable at `steps`): each batch spreads the fine lanes
 * over [a - 1.5 bias, b], where bias = log(growth) / (steps * slope) is how far beyond the true
 * limit a lane must sit to grow by `growth` in `steps` (so the limit lies above a - bias), and
 * runs long enough that a lane one spacing w beyond the limit grows by `growth`:
 * steps = log(growth) / (slope * w). Stops when both the bracket and the bias are below rel_tol
 * of the limit, or when the step cap is reached. */
static int refine(scan *s, const osc_stab_options *o, double a, double b, double slope, long steps)
{
    int status = OSC_OK;
    double bias = s->log_growth_limit / ((double)steps * slope);
    s->out->limit = (a - bias + b) / 2; /* the first scan's verdict, until a batch improves it */
    s->out->resolution = (b - a + bias) / 2 / s->out->limit;
    for (int round = 0; round < 12 && status == OSC_OK; round++) {
        double lo = fmax(a - 1.5 * bias, a / 2), hi = b;
        fill_linear(s->h, s->n, lo, hi);
        double w = (hi - lo) / (double)(s->n - 1);
        steps = clamp_steps(s->log_growth_limit / (slope * w), o->max_steps);
        size_t iu;
        status = run_scan(s, steps, &iu);
        if (iu == 0) { /* the limit is below lo: look lower */
            b = lo + w, a = fmax(lo - (hi - lo), lo / 2), bias = 0;
            continue;
        }
        if (iu == s->n) { /* above hi: look higher */
            a = hi - w, b = hi + (hi - lo), bias = 0;
            continue;
        }
        a = s->h[iu - 1], b = s->h[iu];
        slope = growth_slope(s, iu, steps);
        bias = s->log_growth_limit / ((double)steps * slope);
        /* The limit lies in (a - bias, b]: report the middle and the half width. */
        s->out->limit = (a - bias + b) / 2;
        s->out->resolution = (b - a + bias) / 2 / s->out->limit;
        if ((b - a <= o->rel_tol * a && bias <= o->rel_tol * a) || steps >= o->max_steps)
            break;
    }
    return status;
}

int osc_stability_measured(const osc_method *m, osc_precision p, double zeta,
                           const osc_stab_options *opt, osc_stab_measured *out)
{
    if (!m || !out || !(zeta >= 0 && isfinite(zeta)) || (p != OSC_DOUBLE && p != OSC_FLOAT))
        return OSC_EINVAL;
    osc_stab_options o = with_defaults(opt);
    *out = (osc_stab_measured){.kind = OSC_STAB_BOUNDED, .limit = NAN, .resolution = NAN,
                               .h_low = o.h_low, .h_high = o.h_high};
    size_t cap = o.coarse_lanes > o.fine_lanes ? o.coarse_lanes : o.fine_lanes;
    scan s = {m, p, zeta, log(o.growth), out, o.coarse_lanes, malloc(cap * sizeof(double)),
              malloc(cap * sizeof(double))};
    int status = s.h && s.L ? OSC_OK : OSC_ENOMEM;
    /* First scan: long enough that rho - 1 = h^2 / 2 (undamped explicit Euler, the slowest
     * growth a method of this registry shows) grows by growth^2 at the smallest h: a clear
     * margin over the threshold. */
    long steps = clamp_steps(4 * s.log_growth_limit / (o.h_low * o.h_low), o.max_steps);
    size_t iu = 0;
    if (status == OSC_OK) {
        fill_log(s.h, s.n, o.h_low, o.h_high);
        status = run_scan(&s, steps, &iu);
    }
    if (status == OSC_OK && iu == 0)
        out->kind = OSC_STAB_NEVER, out->limit = 0;
    else if (status == OSC_OK && iu == s.n)
        out->kind = OSC_STAB_ALWAYS, out->limit = INFINITY;
    else if (status == OSC_OK) {
        double a = s.h[iu - 1], b = s.h[iu];
        double slope = short_run_slope(&s, iu, &status);
        if (!(slope > 0)) /* no growth in the short run: the slowest that could pass unseen */
            slope = s.log_growth_limit / (double)steps / (b - a);
        s.n = o.fine_lanes;
        status = refine(&s, &o, a, b, slope, steps);
    }
    free(s.h), free(s.L);
    return status;
}
