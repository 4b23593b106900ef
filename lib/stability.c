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

void osc_amplification_ld(const osc_method *m, long double zeta, long double h,
                          long double A[OSC_MAX_STATE][OSC_MAX_STATE])
{
    const osc_coef_ld unit = {.w2 = 1, .gam = 2 * zeta, .g = 0};
    for (int i = 0; i < OSC_MAX_STATE; i++)
        for (int j = 0; j < OSC_MAX_STATE; j++)
            A[i][j] = 0;
    for (int j = 0; j < m->nstate; j++) {
        long double s[OSC_MAX_STATE] = {0, 0, 0};
        s[j] = 1;
        m->ref_ld.step(s, unit, h);
        for (int i = 0; i < m->nstate; i++)
            A[i][j] = s[i];
    }
}

/* a d - b c. The undamped symplectic methods have det = 1 and rho = sqrt(det) on their whole
 * stable range, so this decides rho - 1 there: in long double its error is a few ulps of
 * max(|a d|, |b c|) (~1e-19 for the O(1) products of small h), inside the round-off level the
 * theory allows (64 ulps times max|A|^2), so it needs no fma (which is software, and slow, for
 * the x87 format). */
static long double det2(long double a, long double b, long double c, long double d)
{
    return a * d - b * c;
}

/* A discriminant within its own rounding (OSC_STAB_ROUNDOFF of `size`, the largest square it
 * is formed from) is 0. At a double eigenvalue it is rounding noise: critical damping makes hA
 * defective, and R(hA) with it, where sqrt(noise) would add ~sqrt(eps) (3e-10) to rho and move
 * a limit at zeta = 1 by as much; at 0 both branches below give rho = |mean| to a few ulps. */
static long double settled(long double disc, long double size)
{
    return fabsl(disc) <= OSC_STAB_ROUNDOFF * size ? 0 : disc;
}

/* Largest |root| of l^2 + p l + q. */
static long double quadratic_radius(long double p, long double q)
{
    long double half = -p / 2, disc = settled(half * half - q, fmaxl(half * half, fabsl(q)));
    return disc >= 0 ? fabsl(half) + sqrtl(disc) : sqrtl(q);
}

/* Eigenvalues (a+d)/2 +- sqrt(((a-d)/2)^2 + bc): this discriminant has no cancellation between
 * the trace and the determinant. Complex pair: |l|^2 = det. */
static long double radius2(long double a, long double b, long double c, long double d)
{
    long double mean = (a + d) / 2, half_diff = (a - d) / 2;
    long double big = fmaxl(fmaxl(fabsl(a), fabsl(b)), fmaxl(fabsl(c), fabsl(d)));
    long double disc = settled(half_diff * half_diff + b * c, big * big);
    return disc >= 0 ? fabsl(mean) + sqrtl(disc) : sqrtl(fmaxl(det2(a, b, c, d), 0));
}

static long double cubic(long double a, long double b, long double c, long double l)
{
    return ((l + a) * l + b) * l + c;
}

/* A real root of l^3 + a l^2 + b l + c: bisection from the Cauchy bound (the cubic changes
 * sign there) for 24 halvings, then Newton kept inside the bracket (a step that leaves it
 * bisects instead), until a step is below LDBL_EPSILON relative, or absolute LDBL_EPSILON^2
 * times the bound for a root at 0 (an error that small moves the deflated quadratic below by
 * ~eps^2 bound^2: nothing). It cannot fail, and ends in ~30 evaluations. */
static long double cubic_real_root(long double a, long double b, long double c)
{
    long double bound = 1 + fmaxl(fabsl(a), fmaxl(fabsl(b), fabsl(c)));
    long double lo = -bound, hi = bound, floor = LDBL_EPSILON * LDBL_EPSILON * bound;
    for (int it = 0; it < 24; it++) {
        long double mid = lo / 2 + hi / 2;
        if (cubic(a, b, c, mid) < 0)
            lo = mid;
        else
            hi = mid;
    }
    long double x = lo / 2 + hi / 2;
    for (int it = 0; it < 200; it++) {
        long double f = cubic(a, b, c, x);
        if (f == 0)
            break;
        if (f < 0)
            lo = x;
        else
            hi = x;
        long double df = (3 * x + 2 * a) * x + b, next = x - f / df;
        if (!(next > lo && next < hi))
            next = lo / 2 + hi / 2;
        long double step = fabsl(next - x);
        x = next;
        if (step <= LDBL_EPSILON * fmaxl(fabsl(x), floor) || !(lo < x && x < hi))
            break;
    }
    return x;
}

/* 3x3: the characteristic cubic l^3 + a l^2 + b l + c, one real root r by bisection, the other
 * two from the deflated quadratic l^2 + (a + r) l + q. Forward deflation q = b + r (a + r) is
 * accurate when r is the smaller root (e.g. the 0 eigenvalue of a stored-acceleration state),
 * backward q = -c / r when r is the larger one; pick by comparing r^2 with |q|. */
static long double radius3(const long double A[OSC_MAX_STATE][OSC_MAX_STATE])
{
    long double trace = A[0][0] + A[1][1] + A[2][2];
    long double minors = det2(A[0][0], A[0][1], A[1][0], A[1][1]) +
                         det2(A[0][0], A[0][2], A[2][0], A[2][2]) +
                         det2(A[1][1], A[1][2], A[2][1], A[2][2]);
    long double det = A[0][0] * det2(A[1][1], A[1][2], A[2][1], A[2][2]) -
                      A[0][1] * det2(A[1][0], A[1][2], A[2][0], A[2][2]) +
                      A[0][2] * det2(A[1][0], A[1][1], A[2][0], A[2][1]);
    long double a = -trace, b = minors, c = -det;
    long double r = cubic_real_root(a, b, c);
    long double p = a + r, q = b + r * p;
    if (r != 0 && r * r > fabsl(q))
        q = -c / r;
    return fmaxl(fabsl(r), quadratic_radius(p, q));
}

long double osc_spectral_radius_ld(int n, const long double A[OSC_MAX_STATE][OSC_MAX_STATE])
{
    switch (n) {
    case 1: return fabsl(A[0][0]);
    case 2: return radius2(A[0][0], A[0][1], A[1][0], A[1][1]);
    case 3: return radius3(A);
    default: return NAN;
    }
}

double osc_spectral_radius(int n, const double A[OSC_MAX_STATE][OSC_MAX_STATE])
{
    long double Al[OSC_MAX_STATE][OSC_MAX_STATE];
    for (int i = 0; i < OSC_MAX_STATE; i++)
        for (int j = 0; j < OSC_MAX_STATE; j++)
            Al[i][j] = A[i][j];
    return (double)osc_spectral_radius_ld(n, Al);
}

/* ---- theory ------------------------------------------------------------------------------- */

/* rho - 1 at h in long double, and the round-off level below which its sign means nothing:
 * the entries of A carry a few ulps each, and rho^2 (from products of two entries) a few ulps
 * of max|A|^2, so rho a few of max|A|^2 / rho; OSC_STAB_ROUNDOFF is 64 ulps of that. */
static long double excess(const osc_method *m, double zeta, double h, long double *roundoff)
{
    long double A[OSC_MAX_STATE][OSC_MAX_STATE];
    osc_amplification_ld(m, zeta, h, A);
    long double norm = 1;
    for (int i = 0; i < m->nstate; i++)
        for (int j = 0; j < m->nstate; j++)
            norm = fmaxl(norm, fabsl(A[i][j]));
    long double rho = osc_spectral_radius_ld(m->nstate, A);
    *roundoff = OSC_STAB_ROUNDOFF * norm * norm / fmaxl(1, rho);
    return rho - 1;
}

/* The verdict as h -> 0: the sign of the leading term of rho - 1 = C h^p + ... . A threshold on
 * rho - 1 cannot give it: a weakly unstable method (two-stage RK2 undamped: rho - 1 = h^4/8 +
 * O(h^8)) has rho - 1 below any fixed tolerance for small enough h, and reads "stable there".
 * Instead: probe h = 0.1 down to OSC_STAB_H_MIN at 4 points per decade; take the smallest h at
 * which rho - 1 is resolved above round-off, with the same sign, at it and the next two points
 * up (h_res), and fit log|rho - 1| against log h over the points from there up (at most two
 * decades, while the sign stays the same). The fit gives p and
 * C; as rho - 1 is analytic in h, its lowest-order term dominates more and more below h_res, so
 * the sign of C holds on all of (0, h_res]: C > 0 unstable for every small h (e.g. the RK2
 * example, p = 4; explicit Euler undamped, p = 2), C < 0 contracting (any damped consistent
 * method, p = 1). No three such points down to H_MIN: neutral (an undamped symplectic method,
 * rho = 1 to round-off), which is stable; but that verdict covers only (0, H_MIN] (h_res =
 * H_MIN), as the probe saw 29 points: one or two resolved points, or an unstable band between
 * points, are no trend yet real, so the scan's grid evaluates every h from H_MIN up. A sign
 * change of C below H_MIN is not seen: e.g. explicit Euler at zeta 1e-12, whose limit 2e-12
 * lies below the scan, reads never. */
#define TREND_H_TOP 0.1
#define TREND_PER_DECADE 4
#define TREND_FIT_MAX 9 /* two decades */

typedef struct trend {
    int sign;         /* +1 unstable near 0, -1 contracting, 0 neutral */
    double h_res;     /* below this the verdict is the trend's */
    double power, coef;
} trend;

static trend small_h_trend(const osc_method *m, double zeta)
{
    const int npts = (int)lround(TREND_PER_DECADE * log10(TREND_H_TOP / OSC_STAB_H_MIN)) + 1;
    double hs[64], es[64];
    bool resolved[64];
    for (int k = 0; k < npts && k < 64; k++) {
        hs[k] = TREND_H_TOP * pow(10, -(double)k / TREND_PER_DECADE);
        long double roundoff, e = excess(m, zeta, hs[k], &roundoff);
        es[k] = (double)e;
        resolved[k] = fabsl(e) > roundoff || isnan(es[k]);
    }
    /* the smallest h that starts three resolved points of one sign (a lone point above the
     * round-off level is not a trend) */
    int k0 = npts - 1;
    while (k0 >= 2 && !(resolved[k0] && resolved[k0 - 1] && resolved[k0 - 2] &&
                        (es[k0] > 0) == (es[k0 - 1] > 0) && (es[k0] > 0) == (es[k0 - 2] > 0)))
        k0--;
    trend t = {0, OSC_STAB_H_MIN, NAN, NAN}; /* neutral: the trend decides below H_MIN only */
    if (k0 < 2)
        return t;
    /* "unstable near 0" claims no stable h below: a resolved contracting point there refutes
     * it (explicit Euler at zeta 1.5e-8: stable at 1e-8 and 1.8e-8, unstable from its limit 3e-8
     * up, read never): neutral, so that the grid evaluates every h from H_MIN. Resolved growing
     * points below a contracting trend are left to it (two are no trend: test-blip). */
    for (int k = k0 + 1; k < npts && es[k0] > 0; k++)
        if (resolved[k] && es[k] < 0)
            return t;
    t.sign = es[k0] > 0 || isnan(es[k0]) ? 1 : -1;
    t.h_res = hs[k0];
    /* least squares of log|e| on log h over the same-signed resolved points from k0 up */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int k = k0; k >= 0 && n < TREND_FIT_MAX && resolved[k] && isfinite(es[k]) &&
                     (es[k] > 0) == (t.sign > 0);
         k--, n++) {
        double x = log(hs[k]), y = log(fabs(es[k]));
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    if (n >= 2) {
        t.power = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        t.coef = t.sign * exp((sy - t.power * sx) / n);
    }
    return t;
}

/* Stable at h: the trend's verdict below h_res, else rho - 1 <= its round-off level (NaN counts
 * as unstable). At the edges found here rho - 1 grows linearly or like a square root, so the
 * round-off level (~1e-17) moves them by ~1e-17 / slope or ~1e-34: far below the bisection. */
static bool stable_at(const osc_method *m, double zeta, double h, const trend *t,
                      long double *rho_excess)
{
    long double roundoff = 0, e = NAN;
    if (h >= t->h_res)
        e = excess(m, zeta, h, &roundoff);
    if (rho_excess) /* rho - 1, NaN where the trend decides */
        *rho_excess = e;
    return h < t->h_res ? t->sign <= 0 : e <= roundoff;
}

#define GRID_PER_DECADE 100

/* The edge between h_a (verdict sa) and h_b (the other verdict), to 1e-14 relative; returns the
 * stable end. */
static double bisect_theory(const osc_method *m, double zeta, const trend *t, double a, double b,
                            bool stable_a)
{
    while (fabs(b - a) > 1e-14 * fmax(a, b)) {
        double mid = a + (b - a) / 2;
        if (mid == a || mid == b)
            break;
        if (stable_at(m, zeta, mid, t, NULL) == stable_a)
            a = mid;
        else
            b = mid;
    }
    return stable_a ? a : b;
}

static void add_interval(osc_stab_interval *iv, size_t *n, bool *truncated, double lo, double hi)
{
    if (*n < OSC_STAB_MAX_INTERVALS)
        iv[(*n)++] = (osc_stab_interval){lo, hi};
    else
        *truncated = true;
}

/* A narrow band between grid points: rho - 1 at the middle of three points of one verdict,
 * closer to the other verdict than at both neighbours (a dip of an unstable run, a bump of a
 * stable one). Golden-section search over [a, b] for the extreme of rho - 1 toward the other
 * verdict; true, with the extreme's h in *at, if it crosses (a band of the other verdict lies
 * in (a, b), its edges then bisected from *at). The grid's 2.3% spacing stepped over forest-ruth
 * at zeta 1's stable band [2.776, 2.808]. */
static bool band_between(const osc_method *m, double zeta, double a, double b, bool stable,
                         double *at)
{
    const double g = 0.38196601125010515; /* 2 - golden ratio */
    double c = a + g * (b - a), d = b - g * (b - a);
    long double rc, rd, ec = excess(m, zeta, c, &rc), ed = excess(m, zeta, d, &rd);
    for (int i = 0; i < 80 && b - a > 1e-14 * b; i++) {
        /* toward the other verdict: smaller rho - 1 in an unstable run, larger in a stable one */
        if (stable ? ec > ed : ec < ed) {
            b = d, d = c, ed = ec, rd = rc;
            c = a + g * (b - a), ec = excess(m, zeta, c, &rc);
        } else {
            a = c, c = d, ec = ed, rc = rd;
            d = b - g * (b - a), ed = excess(m, zeta, d, &rd);
        }
        if (stable ? ec > rc : !(ec > rc)) {
            *at = c;
            return true;
        }
        if (stable ? ed > rd : !(ed > rd)) {
            *at = d;
            return true;
        }
    }
    return false;
}

/* The scan: the trend decides (0, h_res] (h_res = H_MIN when neutral); a log grid of
 * GRID_PER_DECADE points per decade over [H_MIN, H_MAX] finds every change of verdict, each
 * bisected, and a band between grid points where three points of one verdict bend toward the
 * other (band_between). A band narrower than the grid spacing (2.3%) without that sign at its
 * neighbours can still be missed. */
int osc_stability_theory(const osc_method *m, double zeta, osc_stab_theory *out)
{
    if (!m || !out || !(zeta >= 0 && isfinite(zeta)) || m->nstate < 1 ||
        m->nstate > OSC_MAX_STATE || !m->ref_ld.step)
        return OSC_EINVAL;
    *out = (osc_stab_theory){.kind = OSC_STAB_ALWAYS, .limit = INFINITY,
                             .h_low = OSC_STAB_H_MIN, .h_high = OSC_STAB_H_MAX};
    trend t = small_h_trend(m, zeta);
    out->small_h_power = t.power, out->small_h_coef = t.coef;
    bool was_stable = t.sign <= 0;
    double lower = 0, prev = OSC_STAB_H_MIN, prev2 = 0;
    long double e_prev = NAN, e_prev2 = NAN; /* rho - 1 at prev and prev2, NaN below h_res */
    bool same_run = false; /* prev2, prev and h of one verdict, all from rho - 1 */
    const int n = (int)lround(GRID_PER_DECADE * log10(OSC_STAB_H_MAX / OSC_STAB_H_MIN));
    for (int i = 1; i <= n; i++) {
        double h = i == n ? OSC_STAB_H_MAX : OSC_STAB_H_MIN * pow(10, (double)i / GRID_PER_DECADE);
        long double e;
        bool stable = stable_at(m, zeta, h, &t, &e);
        double at;
        if (stable != was_stable) {
            double edge = bisect_theory(m, zeta, &t, prev, h, was_stable);
            if (stable)
                lower = edge;
            else
                add_interval(out->intervals, &out->nintervals, &out->intervals_truncated, lower,
                             edge);
        } else if (same_run && (stable ? e_prev > e_prev2 && e_prev > e : e_prev < e_prev2 &&
                                                                            e_prev < e) &&
                   band_between(m, zeta, prev2, h, stable, &at)) {
            /* the band's edges, each its stable end (bisect_theory) */
            double from = bisect_theory(m, zeta, &t, prev2, at, stable);
            double to = bisect_theory(m, zeta, &t, at, h, !stable);
            if (stable) { /* an unstable gap ends the interval, another starts after it */
                add_interval(out->intervals, &out->nintervals, &out->intervals_truncated, lower,
                             from);
                lower = to;
            } else { /* a stable band [from, to] */
                add_interval(out->intervals, &out->nintervals, &out->intervals_truncated, from,
                             to);
            }
        }
        same_run = stable == was_stable && !isnan(e) && !isnan(e_prev);
        was_stable = stable, prev2 = prev, prev = h, e_prev2 = e_prev, e_prev = e;
    }
    if (was_stable)
        add_interval(out->intervals, &out->nintervals, &out->intervals_truncated, lower, INFINITY);
    if (t.sign > 0)
        out->kind = OSC_STAB_NEVER, out->limit = 0;
    else if (isfinite(out->intervals[0].upper))
        out->kind = OSC_STAB_BOUNDED, out->limit = out->intervals[0].upper;
    return OSC_OK;
}

/* ---- measured ----------------------------------------------------------------------------- */

/* A lane is unstable when its energy norm has grown beyond `growth` (1e6) or is not finite.
 * 1. A first scan: coarse_lanes log-spaced over [h_low, h_high] (1e-6 to 1e3), coarse_steps
 *    steps. Its lanes give the verdict near 0 (see near_zero_verdict) and bracket every edge:
 *    each change between "grew beyond growth" and "did not" along the lanes.
 * 2. A short rerun of the same lanes (SHORT_STEPS) measures how fast log(rho) grows with h past
 *    each edge (the long run overflowed there).
 * 3. Each edge is refined by batches of fine_lanes spread linearly over its bracket, each long
 *    enough for its spacing (see refine), until the bracket and the finite-step bias are within
 *    rel_tol, or the step cap is reached: its resolution says how far it got.
 * The verdict of every lane comes from stepping the batch kernels; nothing uses the theory. */
#define SHORT_STEPS 256 /* the short rerun's */

/* Each h[i] twice: omega0 = h[i] with dt = 1 (so omega0*dt = h[i]), c = 2 zeta omega0, m = 1,
 * from x0 = 1, v0 = 0 and from x0 = 0, v0 = omega0 (energy norm 1). After `steps` steps,
 * log_growth[i] = the larger log of the two energy norms sqrt(x^2 + (v/omega0)^2); +inf when
 * not finite. Two starts because one can hold almost none of the growing mode: from x0 = 1,
 * v0 = 0 an overdamped lane (zeta 25) puts 4e-4 of it into its fast mode, so lanes past the
 * edge grew too late to count and the measured edge sat above the true one. Of two orthogonal
 * starts one holds at least 1/sqrt(2) of any mode (GROWING_MODE_SHARE). */
static int step_lanes(const osc_method *m, osc_precision p, double zeta, const double *h,
                      size_t n, long steps, double *log_growth)
{
    osc_batch *b;
    int status = osc_batch_create(&b, m, p, 1, 2 * n, 0.0);
    if (status != OSC_OK)
        return status;
    for (size_t i = 0; i < 2 * n && status == OSC_OK; i++) {
        const double w = h[i % n], x0 = i < n ? 1 : 0, v0 = i < n ? 0 : w;
        status = osc_batch_set_lane(b, i, w * w, 2 * zeta * w, 1.0, &x0, &v0);
    }
    double *x = malloc(2 * n * sizeof *x), *v = malloc(2 * n * sizeof *v);
    if (status == OSC_OK && !(x && v))
        status = OSC_ENOMEM;
    if (status == OSC_OK)
        status = osc_batch_start(b, 1.0);
    if (status == OSC_OK)
        status = osc_batch_run(b, steps, 0, NULL, NULL);
    if (status == OSC_OK) {
        osc_batch_readout(b, 0, 2 * n, x, v);
        for (size_t i = 0; i < n; i++) {
            double from_x = hypot(x[i], v[i] / h[i]), from_v = hypot(x[n + i], v[n + i] / h[i]);
            log_growth[i] = isfinite(from_x) && isfinite(from_v) ? log(fmax(from_x, from_v))
                                                                 : INFINITY;
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

static bool grew(const scan *s, size_t i) { return s->L[i] > s->log_growth_limit; }

/* The first lane from `from` on that grew (grown) or did not; s->n if none. */
static size_t first_lane(const scan *s, size_t from, bool grown)
{
    while (from < s->n && grew(s, from) != grown)
        from++;
    return from;
}

/* The least share of a lane's growing mode that one of step_lanes' two starts holds: 1/sqrt(2). */
#define GROWING_MODE_SHARE 0.70710678118654752

/* How far (in log rho times steps) a lane must sit past the edge to have grown by `growth`:
 * log(growth), and the growing mode's start at no less than GROWING_MODE_SHARE. */
static double bias_log(const scan *s) { return s->log_growth_limit - log(GROWING_MODE_SHARE); }

/* Step the lanes s->h[0..n) for `steps` and return the first unstable lane (n if none). */
static int run_scan(scan *s, long steps, size_t *first_unstable)
{
    *first_unstable = s->n;
    int status = step_lanes(s->m, s->p, s->zeta, s->h, s->n, steps, s->L);
    if (status != OSC_OK)
        return status; /* s->L was not written */
    s->out->lanes += 2 * s->n; /* two starts each (step_lanes) */
    s->out->lane_steps += 2 * (double)s->n * (double)steps;
    s->out->max_steps = steps > s->out->max_steps ? steps : s->out->max_steps;
    s->out->batches++;
    *first_unstable = first_lane(s, 0, true);
    return status;
}

/* Secant of the growth rates L/steps between lanes i and j (NaN if either overflowed). */
static double rate_secant(const scan *s, size_t i, size_t j, long steps)
{
    if (j >= s->n || !isfinite(s->L[i]) || !isfinite(s->L[j]))
        return NAN;
    return fabs((s->L[j] - s->L[i]) / (double)steps / (s->h[j] - s->h[i]));
}

/* The effective |d(log rho)/dh| between the edge and the first unstable lane iu: the one that
 * makes bias = log(growth) / (steps * slope) the distance from the edge to iu. Secants of the
 * rates L/steps over 16 lanes (long enough that the lanes' O(h) start-up transients do not
 * matter, and those cancel in part), iu to iu + 16 and iu + 16 to iu + 32, give the slope s at
 * iu and the curvature k. Where log rho is convex past the edge (explicit Euler: log rho ~
 * h (h - 2 zeta) / 2) the slope at the edge is smaller, and the bias larger, than the linear
 * estimate: the distance d solves r - s d + k d^2 / 2 = 0 (r = log(growth) / steps, the rate at
 * iu). Where it is concave (a square root: undamped symplectic methods) the linear distance
 * r / s is an upper bound: kept. Near the end of the lanes or past an overflow, shorter secants. */
static double growth_slope(const scan *s, size_t iu, long steps)
{
    size_t span = 16;
    while (span > 1 && !isfinite(rate_secant(s, iu, iu + span, steps)))
        span /= 2;
    double near = rate_secant(s, iu, iu + span, steps);
    if (near > 0) {
        double far = rate_secant(s, iu + span, iu + 2 * span, steps);
        double dist = fabs(s->h[iu + span] - s->h[iu]);
        double k = (far - near) / dist, r = s->log_growth_limit / (double)steps;
        if (k > 0) {
            double slope = fmax(near - k * dist / 2, 0);
            double disc = slope * slope - 2 * k * r;
            double d = disc > 0 ? (slope - sqrt(disc)) / k : fmax(slope / k, r / near);
            return r / d;
        }
        return near;
    }
    /* Fallback: the first unstable lane alone, measured from the last stable one; an overflowed
     * lane grew at least to the largest finite value of its precision. */
    double dh = fabs(s->h[iu] - s->h[iu - 1]);
    double overflow = s->p == OSC_FLOAT ? log(FLT_MAX) : log(DBL_MAX);
    return (isfinite(s->L[iu]) ? s->L[iu] : overflow) / (double)steps / dh;
}

/* The growth slope past the edge between coarse lanes a and b (adjacent, b unstable), from the
 * short rerun's log growth Ls: the secant between the first two lanes from b on, going away
 * from a, that grew past the threshold in SHORT_STEPS and are still finite. NaN if none. */
static double short_run_slope(const scan *s, const double *Ls, size_t b, int dir)
{
    const double short_steps = SHORT_STEPS;
    for (size_t i = b; i < s->n && i + dir < s->n; i += dir) {
        size_t j = i + dir;
        if (Ls[i] > s->log_growth_limit && Ls[j] > Ls[i] && isfinite(Ls[j]))
            return fabs((Ls[j] - Ls[i]) / short_steps / (s->h[j] - s->h[i]));
    }
    return NAN;
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
    o.coarse_lanes = o.coarse_lanes >= 16 ? o.coarse_lanes : 1024;
    o.fine_lanes = o.fine_lanes >= 16 ? o.fine_lanes : 256;
    o.growth = o.growth > 1 ? o.growth : 1e6;
    o.h_low = o.h_low > 0 ? o.h_low : 1e-6;
    o.h_high = o.h_high > o.h_low ? o.h_high : fmax(1e3, 10 * o.h_low);
    o.rel_tol = o.rel_tol > 0 ? o.rel_tol : 2e-4;
    o.max_steps = o.max_steps > 0 ? o.max_steps : 2000000;
    o.coarse_steps = o.coarse_steps <= 0 ? 50000 : o.coarse_steps < 2 * SHORT_STEPS ? 2 * SHORT_STEPS
                                                                               : o.coarse_steps;
    return o;
}

static long clamp_steps(double steps, long max_steps)
{
    const long min_steps = 200; /* lets start-up transients settle */
    if (!(steps < (double)max_steps))
        return max_steps;
    return steps < min_steps ? min_steps : (long)ceil(steps);
}

/* A refined edge: its value and relative half-width. */
typedef struct edge {
    double value, resolution;
} edge;

/* The edge between a (did not grow) and b (grew) when it lies past a - bias dir, but not past
 * `far`: the middle of what is left and the half width. */
static edge bracketed(double a, double b, double bias, double far, double dir)
{
    double stable_end = dir > 0 ? fmax(a - bias, far) : fmin(a + bias, far);
    double value = (stable_end + b) / 2;
    return (edge){value, fabs(b - stable_end) / 2 / value};
}

/* Refine the edge between a (did not grow) and b (grew), adjacent lanes of the first scan; b > a
 * for the upper edge of a stable interval, b < a for a lower one (dir = sign(b - a)); `far` is
 * the interval's other end (its lower edge, or the next lane that grew above it; 0 and +inf
 * when there is none), which the edge never crosses. Each batch spreads the fine lanes from
 * a - 1.5 bias dir to b, where bias = bias_log / (steps * slope) is how far past the true edge
 * a lane must sit to grow by `growth` in `steps` (so the edge lies beyond a - bias dir), and runs
 * long enough that a lane one spacing w past the edge grows by `growth`: steps = log(growth) /
 * (slope * w). The edge lies between a - bias dir and b: report the middle and the half width.
 * The lanes start at most half way from a to `far` (and to 0): in a band narrower than the bias
 * (forest-ruth damped, 0.024 wide with a bias of 0.07) a start beyond the other edge grew, and
 * the search went on away from the band, to an upper edge below its lower one. Stops when both
 * the bracket and the bias are below rel_tol of the edge, or when the step cap is reached. */
static int refine(scan *s, const osc_stab_options *o, double a, double b, double far,
                  double slope, long steps, long cap, edge *out)
{
    const double dir = b > a ? 1 : -1;
    int status = OSC_OK;
    double bias = bias_log(s) / ((double)steps * slope);
    *out = bracketed(a, b, bias, far, dir); /* the first scan's, until a batch improves it */
    for (int round = 0; round < 12 && status == OSC_OK; round++) {
        double room = fmin(fabs(a - far), a);
        double lo = a - dir * fmin(1.5 * bias, room / 2), hi = b;
        fill_linear(s->h, s->n, lo, hi);
        double w = fabs(hi - lo) / (double)(s->n - 1);
        steps = clamp_steps(s->log_growth_limit / (slope * w), cap);
        size_t iu;
        status = run_scan(s, steps, &iu);
        if (status != OSC_OK)
            break;
        if (iu == 0) { /* lanes at the start that grew lie past the interval's other edge (lo
                        * overshot a band narrower than the bias): it is before the first that
                        * did not, and the edge sought is where growth starts again after it */
            size_t stable_from = first_lane(s, 0, false);
            if (stable_from < s->n)
                far = s->h[stable_from - 1], iu = first_lane(s, stable_from, true);
        }
        if (iu == 0) { /* the edge is before lo: look further on the stable side, short of far */
            double left = fmin(fabs(lo - far), lo);
            b = lo + dir * w, a = lo - dir * fmin(fabs(hi - lo), left / 2), bias = 0;
            continue;
        }
        if (iu == s->n) { /* beyond hi: look further on the unstable side */
            a = hi - dir * w, b = hi + dir * fabs(hi - lo), bias = 0;
            continue;
        }
        a = s->h[iu - 1], b = s->h[iu];
        slope = growth_slope(s, iu, steps);
        bias = bias_log(s) / ((double)steps * slope);
        *out = bracketed(a, b, bias, far, dir);
        if ((fabs(b - a) <= o->rel_tol * a && bias <= o->rel_tol * a) || steps >= cap)
            break;
    }
    return status;
}

/* The verdict near 0 from the first scan, by the trend of the lanes' log growth as h -> 0 (the
 * measured counterpart of the theory's trend). The growth counted is the late one, L - Ls: the
 * first scan's less the short run's (SHORT_STEPS), so that a start-up transient, which a rate
 * rho - 1 is not, drops out (stormer at zeta 3000: its alternating mode lifts the energy norm by
 * up to e^8.5 in the first steps, then stays bounded). The lowest lanes whose late growth is
 * more than e^2 either way (TREND_MIN_LOG; a stable lane's norm oscillates by O(h) at small h)
 * say which way rho - 1 leans. If the lowest TREND_LANES such lanes below h = 1 all grew, and
 * grew less the smaller h, rho - 1 > 0 shrinks toward h = 0 with no sign of crossing zero:
 * unstable near 0 (explicit Euler undamped: L = steps h^2/2). A decaying lowest lane means
 * stable near 0; no resolved lane below h = 1 means neutral (rho = 1 as far as the steps show),
 * stable. A lane that overflowed ends the search: it lies past an edge (euler at zeta 150, whose
 * limit 0.0067 is the first change the lanes see), and lanes that all overflowed say nothing of a
 * trend. Returns the first resolved lane in *resolved (n if none). */
#define TREND_MIN_LOG 2.0
#define TREND_LANES 3

static bool unstable_near_zero(const scan *s, const double *Ls, size_t *resolved)
{
    size_t idx[TREND_LANES], k = 0;
    double late[TREND_LANES];
    for (size_t i = 0; i < s->n && s->h[i] < 1 && k < TREND_LANES; i++) {
        double growth = s->L[i] - Ls[i];
        if (!isfinite(growth))
            break;
        if (fabs(growth) > TREND_MIN_LOG)
            idx[k] = i, late[k++] = growth;
    }
    *resolved = k ? idx[0] : s->n;
    if (k < TREND_LANES)
        return false;
    for (size_t j = 0; j < k; j++)
        if (!(late[j] > TREND_MIN_LOG) || (j && !(late[j] >= late[j - 1])))
            return false;
    return true;
}

/* Every change of verdict along the first scan's lanes, refined, as stable intervals. When the
 * method is unstable near 0 the lanes below the first one that grew are not a stable interval
 * (their growth was only too slow to see). */
static int measure_intervals(scan *s, const osc_stab_options *o, const double *hc,
                             const double *Lc, const double *Ls, bool never, long steps)
{
    osc_stab_measured *out = s->out;
    size_t nc = o->coarse_lanes;
    int status = OSC_OK;
    bool in_interval = !(Lc[0] > s->log_growth_limit);
    size_t start = 1;
    if (never) { /* intervals start above the first lane that grew */
        while (start < nc && !(Lc[start - 1] > s->log_growth_limit))
            start++;
        in_interval = false;
    }
    double lower = 0, lower_res = 0;
    for (size_t i = start; i < nc && status == OSC_OK; i++) {
        bool stable = !(Lc[i] > s->log_growth_limit);
        if (stable == in_interval)
            continue;
        /* a: the lane that did not grow, b: the one that did */
        size_t ia = stable ? i : i - 1, ib = stable ? i - 1 : i;
        scan cs = *s;
        cs.h = (double *)hc, cs.L = (double *)Lc, cs.n = nc;
        double slope = short_run_slope(&cs, Ls, ib, stable ? -1 : 1);
        if (!(slope > 0)) /* no growth in the short run: the slowest that could pass unseen */
            slope = s->log_growth_limit / (double)steps / fabs(hc[ib] - hc[ia]);
        /* The first edge (the limit) may take max_steps; the others a fifth, which keeps a
         * method with several slowly growing edges (forest-ruth damped) affordable. */
        bool first = !never && !stable && out->nintervals == 0;
        long cap = first ? o->max_steps : (o->max_steps + 4) / 5;
        double far = lower; /* an upper edge's; a lower edge's: the next lane that grew */
        if (stable) {
            far = INFINITY;
            for (size_t j = i + 1; j < nc && isinf(far); j++)
                far = Lc[j] > s->log_growth_limit ? hc[j] : INFINITY;
        }
        edge e;
        status = refine(s, o, hc[ia], hc[ib], far, slope, steps, cap < 200 ? 200 : cap, &e);
        if (stable) {
            lower = e.value, lower_res = e.resolution, in_interval = true;
            continue;
        }
        if (out->nintervals < OSC_STAB_MAX_INTERVALS) {
            size_t k = out->nintervals++;
            out->intervals[k] = (osc_stab_interval){lower, e.value};
            out->lower_resolution[k] = lower_res, out->upper_resolution[k] = e.resolution;
        } else {
            out->intervals_truncated = true;
        }
        in_interval = false;
    }
    if (in_interval && status == OSC_OK) {
        if (out->nintervals < OSC_STAB_MAX_INTERVALS) {
            size_t k = out->nintervals++;
            out->intervals[k] = (osc_stab_interval){lower, INFINITY};
            out->lower_resolution[k] = lower_res, out->upper_resolution[k] = 0;
        } else {
            out->intervals_truncated = true;
        }
    }
    return status;
}

/* The first edge from the intervals: NEVER when unstable near 0 ([0, h of the lowest lane seen
 * growing] is what the measurement allows), ALWAYS when stable up to h_high, else the upper
 * edge of the interval that starts at 0. */
static void first_edge(osc_stab_measured *out, bool never)
{
    if (never) {
        out->kind = OSC_STAB_NEVER, out->limit = 0, out->limit_low = 0;
        return;
    }
    double upper = out->nintervals ? out->intervals[0].upper : INFINITY;
    if (isinf(upper)) {
        out->kind = OSC_STAB_ALWAYS, out->limit = INFINITY;
        out->limit_low = out->h_high, out->limit_high = INFINITY;
        return;
    }
    out->kind = OSC_STAB_BOUNDED, out->limit = upper;
    out->resolution = out->upper_resolution[0];
    out->limit_low = upper * (1 - out->resolution), out->limit_high = upper * (1 + out->resolution);
}

int osc_stability_measured(const osc_method *m, osc_precision p, double zeta,
                           const osc_stab_options *opt, osc_stab_measured *out)
{
    if (!m || !out || !(zeta >= 0 && isfinite(zeta)) || (p != OSC_DOUBLE && p != OSC_FLOAT))
        return OSC_EINVAL;
    osc_stab_options o = with_defaults(opt);
    *out = (osc_stab_measured){.kind = OSC_STAB_BOUNDED, .limit = NAN, .resolution = NAN,
                               .limit_low = NAN, .limit_high = NAN, .h_low = o.h_low,
                               .h_high = o.h_high};
    const size_t nc = o.coarse_lanes;
    double *hc = malloc(nc * sizeof *hc), *Lc = malloc(nc * sizeof *Lc);
    double *Ls = malloc(nc * sizeof *Ls);
    double *hf = malloc(o.fine_lanes * sizeof *hf), *Lf = malloc(o.fine_lanes * sizeof *Lf);
    scan s = {m, p, zeta, log(o.growth), out, nc, hc, Lc};
    int status = hc && Lc && Ls && hf && Lf ? OSC_OK : OSC_ENOMEM;
    /* A stable lane is one whose norm did not grow by `growth` in coarse_steps: a growth rate
     * below log(growth) / coarse_steps per step (2.8e-4 by default) passes unseen here, and one
     * below TREND_MIN_LOG / (coarse_steps - SHORT_STEPS) (4e-5) is not even resolved for the
     * trend. The refining
     * batches run up to max_steps and say in their resolution how far they got. */
    out->rate_floor = TREND_MIN_LOG / (double)(o.coarse_steps - SHORT_STEPS);
    size_t iu;
    if (status == OSC_OK) {
        fill_log(hc, nc, o.h_low, o.h_high);
        status = run_scan(&s, o.coarse_steps, &iu);
    }
    if (status == OSC_OK) {
        s.L = Ls;
        status = run_scan(&s, SHORT_STEPS, &iu);
        s.L = Lc;
    }
    size_t resolved = nc;
    bool never = status == OSC_OK && unstable_near_zero(&s, Ls, &resolved);
    if (status == OSC_OK && !never && Lc[0] > s.log_growth_limit) /* grew even at h_low */
        never = true, resolved = 0;
    if (never)
        out->limit_high = hc[resolved];
    if (status == OSC_OK) {
        s.h = hf, s.L = Lf, s.n = o.fine_lanes;
        status = measure_intervals(&s, &o, hc, Lc, Ls, never, o.coarse_steps);
    }
    if (status == OSC_OK)
        first_edge(out, never);
    free(hc), free(Lc), free(Ls), free(hf), free(Lf);
    return status;
}
