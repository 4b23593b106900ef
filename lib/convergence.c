/* Measured order of convergence: a least-squares slope of log(error) against log(dt) over an
 * asymptotic range chosen from the data.
 *
 * Which points are fitted:
 *  1. usable: finite dt > 0, finite error > 0, stable; of points of equal dt only the one of
 *     smallest error (a run repeated at one dt is one point, not several);
 *  2. above the round-off floor: error >= C eps scale (sqrt(steps) + omega_t), C = 10. Round-off
 *     adds ~eps of the motion's size per step as a random walk (sqrt(steps)), and the rounding
 *     of the coefficients and of dt shifts the phase by ~eps per radian (omega_t). The floors
 *     the one-step methods reach (rk4 and semi-implicit, float and double, measured) sit at
 *     0.1 to 1 times this model, so C = 10 keeps points at least ~10x above their floor, where
 *     round-off moves log(error) by < 0.1 and mostly far less. A method whose round-off grows
 *     faster (stormer's two-step form amplifies each rounding by 1/(omega dt)) flattens above
 *     the model: step 4 catches that;
 *  3. below the ceiling: error <= 0.1 scale. With errors beyond a tenth of the motion the
 *     leading error term no longer dominates (and near the stability limit errors saturate at
 *     the motion's size): not asymptotic;
 *  4. the asymptotic range: sorted by dt, the longest run of consecutive points that lies on one
 *     converging line: every |residual| of log(error) <= 0.15 (a 16% deviation from the power
 *     law, three times a 5% measurement scatter) and slope >= 0.25 (a flatter run is a floor,
 *     not convergence). Each run starts at a point and grows toward larger dt until a point
 *     bends the line (a floor at small dt, the pre-asymptotic bend or the start of instability
 *     at large dt); of equally long runs, the one at smaller dt wins. Any dt spacing works:
 *     nothing assumes ratios between neighbours. Cost O(n^3) for n points: fine for hundreds.
 * The interval is the 95% t interval, slope +/- t(0.975, n - 2) * se with n - 2 >= 1 degrees of
 * freedom (so n >= 3).
 *
 * The verdict on the declared order p (osc_order_verdict), the first rule that applies:
 *  1. inconclusive when there is no range (no 3 usable points on one converging line);
 *  2. inconclusive when the fitted points' errors were measured to end times more than 10%
 *     apart (a config of `steps:` rather than `t_end`: each dt then ends at steps * dt, and an
 *     error that grows with time adds its growth to the slope: rk4 measured 5.2 over dt
 *     0.001-0.05 at 500 steps);
 *  3. inconclusive when fewer than 4 points are fitted: with 1 degree of freedom t = 12.7, and
 *     three points can only lie on a line that bends once, so neither the slope nor its
 *     interval says much (a 3-point range of verlet-zero-start, true order 1, gave [-0.1, 1.8]
 *     and "passed" its declared 2);
 *  4. inconclusive when the half-width t * se exceeds 0.5: the interval then spans more than one
 *     order, the points do not pin an integer order, and a "fail" could as well come from a
 *     range that is not yet asymptotic as from a wrong order;
 *  5. fail when p lies above the widened interval W = [low - 0.25, high + 0.25]: the method
 *     converges more slowly than it declares. The quarter absorbs the slight curvature that the
 *     0.15 residual tolerance lets into the range; declared orders are integers, so it can
 *     never turn order p into a pass of p +/- 1;
 *  6. inconclusive when p lies below W: the errors fall faster than order p over this range.
 *     Before the asymptotic range an error a dt^p + b dt^(p+1) with a small a (verlet's first
 *     order under light drag: a grows with the drag) reads as order p + 1 over any dt where
 *     b dt > a; the data cannot tell that from a method whose true order is higher than it
 *     declares, and neither is the error this test is for (an order lost);
 *  7. inconclusive when W also holds p - 1 or p + 1: the data cannot tell p from a neighbour
 *     (a raw interval of width >= 0.5 placed across p and p +/- 1);
 *  8. inconclusive when the measured order is more than a quarter from p: W holds p only by its
 *     width, and a slope between p and a neighbour (semi-implicit at 1.3-1.4 on stiff springs,
 *     damped verlet at 1.2-1.5: a mix of two error terms) is not yet order p;
 *  9. inconclusive when at least 2 usable points lie just below the fitted range's dt, with no
 *     unusable point among them (above the floor, so they are data the fit left out because
 *     they bend its line) and, with the
 *     range's first point, lie on a line (residuals as in step 4) of slope below p - 1/2 but of
 *     at least 3/4: the errors head for a lower order (>= 1, approached from above) as dt
 *     shrinks. verlet-zero-start from near rest (its first-order
 *     term scales with the initial force) fitted 1.92 over dt 5.9e-4..0.02, a longer run than
 *     the six points below it, whose local orders fell 1.57, 1.39, ..., 1.03: a pass of order 2
 *     for a first-order method. A flatter bend is the onset of a floor (implicit-midpoint at
 *     omega0 1, zeta 0.3: 0.62 then 0.47 below dt 1.5e-5), and points that scatter off a line
 *     are round-off above the floor's model (rk4 at omega0 20 below dt 9e-5: local orders 7.7,
 *     -4.7, 0.8, 1.1);
 * 10. pass otherwise: W holds p and excludes both neighbours, and the slope is within a quarter
 *     of p; but for a method defined by coefficients that give an order below p
 *     (osc_fit_params.coefficient_order), inconclusive: the oscillator is linear and checks only
 *     the linear order conditions, so it measures the linear order (set_verdict).
 * So a pass needs >= 4 points whose 95% interval, widened by a quarter, brackets p alone, a
 * slope within a quarter of p and no lower order below them; a fail, a slope clearly below p. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>

#include "analysis.h"

/* An integer constant's digits, for the reasons' texts */
#define DIGITS_(x) #x
#define DIGITS(x) DIGITS_(x)

double osc_precision_eps(osc_precision p) { return p == OSC_FLOAT ? FLT_EPSILON : DBL_EPSILON; }

double osc_student_t975(int dof)
{
    return dof < 1 ? NAN : gsl_cdf_tdist_Pinv(0.5 + OSC_FIT_CONFIDENCE / 2, dof);
}

typedef struct line_fit {
    double slope, intercept, se, max_resid;
    bool ok; /* at least 2 distinct x */
} line_fit;

/* Ordinary least squares of y on x (GSL's, with centred sums); se is the slope's standard error
 * with n - 2 degrees of freedom, NaN for 2 points. Not ok when every x is the same. */
static line_fit fit_line(const double *x, const double *y, size_t n)
{
    line_fit f = {NAN, NAN, NAN, NAN, false};
    bool spread = false; /* gsl_fit_linear divides by the spread of x */
    for (size_t i = 1; i < n && !spread; i++)
        spread = x[i] != x[0];
    if (!spread)
        return f;
    double cov00, cov01, cov11, rss;
    gsl_fit_linear(x, 1, y, 1, n, &f.intercept, &f.slope, &cov00, &cov01, &cov11, &rss);
    f.ok = true;
    f.max_resid = 0;
    for (size_t i = 0; i < n; i++)
        f.max_resid = fmax(f.max_resid, fabs(y[i] - (f.intercept + f.slope * x[i])));
    f.se = n > 2 ? sqrt(cov11) : NAN;
    return f;
}

static bool on_one_converging_line(const double *x, const double *y, size_t n)
{
    line_fit f = fit_line(x, y, n);
    return f.ok && f.slope >= OSC_FIT_MIN_SLOPE && f.max_resid <= OSC_FIT_RESID_TOL;
}

static bool usable(const osc_conv_point *p, const osc_fit_params *par)
{
    if (!(p->stable && p->dt > 0 && isfinite(p->dt) && p->error > 0 && isfinite(p->error)))
        return false;
    if (!(par->scale > 0 && isfinite(par->scale)))
        return true;
    double walk = sqrt(p->steps > 1 ? (double)p->steps : 1.0);
    double phase = par->omega_t > 0 && isfinite(par->omega_t) ? par->omega_t : 0;
    double floor = OSC_FIT_FLOOR_C * par->eps * par->scale * (walk + phase);
    return p->error >= floor && p->error <= OSC_FIT_CEILING * par->scale;
}

/* Whether a point of dt strictly between lo and hi is not usable: a run of usable points below
 * a fit that passes over one (a floor, an unstable lane) is not one stretch of data. */
static bool unusable_between(const osc_conv_point *pts, size_t n, const osc_fit_params *par,
                             double lo, double hi)
{
    for (size_t i = 0; i < n; i++)
        if (pts[i].dt > lo && pts[i].dt < hi && !usable(&pts[i], par))
            return true;
    return false;
}

/* Sorting by (dt, error) makes the result independent of the input order. */
typedef struct sort_key {
    double dt, error;
    size_t index;
} sort_key;

static int by_dt_then_error(const void *a, const void *b)
{
    const sort_key *p = a, *q = b;
    if (p->dt != q->dt)
        return p->dt < q->dt ? -1 : 1;
    if (p->error != q->error)
        return p->error < q->error ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

/* Sorts keys[0..m) by (dt, error) and keeps each dt's first (its smallest error); returns how
 * many are kept. A run repeated at one dt adds no information, and its copies' zero residuals
 * made two dt a 4-point fit of zero width: a sure "pass". */
static size_t sorted_each_dt_once(sort_key *keys, size_t m)
{
    if (m > 1)
        qsort(keys, m, sizeof *keys, by_dt_then_error);
    size_t kept = 0;
    for (size_t k = 0; k < m; k++)
        if (kept == 0 || keys[k].dt != keys[kept - 1].dt)
            keys[kept++] = keys[k];
    return kept;
}

/* The range [*first, *last] of the sorted points (see step 4 above); false if none. */
static bool asymptotic_range(const double *x, const double *y, size_t n, size_t *first,
                             size_t *last)
{
    size_t best_len = 0;
    for (size_t i = 0; i + OSC_FIT_RANGE_POINTS <= n; i++) {
        if (!on_one_converging_line(x + i, y + i, OSC_FIT_RANGE_POINTS))
            continue;
        size_t j = i + OSC_FIT_RANGE_POINTS - 1;
        while (j + 1 < n && on_one_converging_line(x + i, y + i, j + 2 - i))
            j++;
        if (j - i + 1 > best_len) /* strictly longer: ties keep the smaller dt */
            best_len = j - i + 1, *first = i, *last = j;
    }
    return best_len >= OSC_FIT_RANGE_POINTS;
}

static void set_insufficient(osc_order_fit *out)
{
    *out = (osc_order_fit){.status = OSC_FIT_INSUFFICIENT, .order = NAN, .order_se = NAN,
                           .order_low = NAN, .order_high = NAN, .intercept = NAN,
                           .dt_min = NAN, .dt_max = NAN, .fit_points = 0,
                           .order_below = NAN, .points_below = 0,
                           .verdict = OSC_VERDICT_INCONCLUSIVE, .reason = OSC_REASON_NO_RANGE,
                           .pass = false};
}

static bool holds(double low, double high, double v) { return v >= low && v <= high; }

static bool horizons_differ(const osc_order_fit *fit)
{
    return fit->t_end_min > 0 && fit->t_end_max > fit->t_end_min * (1 + OSC_FIT_HORIZON_TOL);
}

osc_verdict osc_order_verdict(const osc_order_fit *fit, int declared, osc_verdict_reason *why)
{
    osc_verdict_reason r;
    double low = fit->order_low - OSC_FIT_PASS_TOL, high = fit->order_high + OSC_FIT_PASS_TOL;
    double p = declared;
    if (fit->status != OSC_FIT_OK || !isfinite(fit->order_low) || !isfinite(fit->order_high))
        r = OSC_REASON_NO_RANGE;
    else if (horizons_differ(fit))
        r = OSC_REASON_HORIZONS;
    else if (fit->fit_points < OSC_FIT_VERDICT_POINTS)
        r = OSC_REASON_FEW_POINTS;
    else if (!((fit->order_high - fit->order_low) / 2 <= OSC_FIT_MAX_HALF_WIDTH))
        r = OSC_REASON_WIDE;
    else if (p > high)
        r = OSC_REASON_EXCLUDED;
    else if (p < low)
        r = OSC_REASON_ABOVE;
    else if (holds(low, high, p - 1) || holds(low, high, p + 1))
        r = OSC_REASON_NEIGHBOUR;
    else if (!(fabs(fit->order - p) <= OSC_FIT_PASS_TOL))
        r = OSC_REASON_BETWEEN;
    else if (fit->points_below >= OSC_FIT_BELOW_POINTS && fit->order_below >= OSC_FIT_BELOW_MIN &&
             fit->order_below < p - OSC_FIT_BELOW_TOL)
        r = OSC_REASON_BENDS_BELOW;
    else
        r = OSC_REASON_CONFIRMED;
    if (why)
        *why = r;
    return r == OSC_REASON_CONFIRMED ? OSC_VERDICT_PASS
           : r == OSC_REASON_EXCLUDED ? OSC_VERDICT_FAIL
                                      : OSC_VERDICT_INCONCLUSIVE;
}

const char *osc_verdict_name(osc_verdict v)
{
    switch (v) {
    case OSC_VERDICT_PASS:
        return "pass";
    case OSC_VERDICT_FAIL:
        return "fail";
    case OSC_VERDICT_INCONCLUSIVE:
        return "inconclusive";
    }
    return NULL;
}

const char *osc_verdict_reason_text(osc_verdict_reason r)
{
    switch (r) {
    case OSC_REASON_NO_RANGE:
        return "no converging range of " DIGITS(OSC_FIT_RANGE_POINTS) " usable points";
    case OSC_REASON_FEW_POINTS:
        return "fewer than " DIGITS(OSC_FIT_VERDICT_POINTS) " fitted points";
    case OSC_REASON_WIDE:
        return "interval wider than one order";
    case OSC_REASON_EXCLUDED:
        return "declared order above the interval: converges more slowly than declared";
    case OSC_REASON_ABOVE:
        return "converges faster than declared here (not yet asymptotic, or order declared too low)";
    case OSC_REASON_BETWEEN:
        return "measured order more than a quarter from the declared one";
    case OSC_REASON_HORIZONS:
        return "the dt end at different times (steps: fixed; give t_end)";
    case OSC_REASON_NEIGHBOUR:
        return "interval also holds a neighbouring order";
    case OSC_REASON_CONFIRMED:
        return "measured within a quarter of the declared order, the only order inside the "
               "interval widened by a quarter";
    case OSC_REASON_BENDS_BELOW:
        return "the usable points at smaller dt than the fit converge more slowly than declared";
    case OSC_REASON_COEFFICIENTS:
        return "declared above coefficient_order, the order its coefficients give: this linear "
               "problem checks only the linear order conditions";
    }
    return "unknown";
}

/* The oscillator is linear: a method defined by coefficients measures its linear order here, so
 * a declared order its coefficients do not reach is no pass, however well the line fits. */
static void set_verdict(osc_order_fit *out, const osc_fit_params *par)
{
    out->verdict = osc_order_verdict(out, par->declared_order, &out->reason);
    if (out->verdict == OSC_VERDICT_PASS && par->coefficient_order > 0 &&
        par->declared_order > par->coefficient_order)
        out->verdict = OSC_VERDICT_INCONCLUSIVE, out->reason = OSC_REASON_COEFFICIENTS;
    out->pass = out->verdict == OSC_VERDICT_PASS;
}

/* The fit of the npts points keys[0..npts) of pts (its verdict is set_verdict's). */
static void fill_result(osc_order_fit *out, line_fit f, const osc_conv_point *pts,
                        const sort_key *keys, size_t npts)
{
    double half = osc_student_t975((int)npts - 2) * f.se;
    double t_min = INFINITY, t_max = 0;
    for (size_t k = 0; k < npts; k++) {
        double t = pts[keys[k].index].t_end;
        t_min = t > 0 ? fmin(t_min, t) : 0; /* one unknown end time: not checked */
        t_max = fmax(t_max, t);
    }
    *out = (osc_order_fit){.status = OSC_FIT_OK, .order = f.slope, .order_se = f.se,
                           .order_low = f.slope - half, .order_high = f.slope + half,
                           .intercept = f.intercept, .dt_min = keys[0].dt,
                           .dt_max = keys[npts - 1].dt, .t_end_min = t_min > 0 ? t_min : 0,
                           .t_end_max = t_min > 0 ? t_max : 0, .fit_points = npts,
                           .order_below = NAN};
}

int osc_fit_order(const osc_conv_point *pts, size_t n, const osc_fit_params *par,
                  osc_order_fit *out, bool *used)
{
    if (!out || !par || (n > 0 && !pts))
        return OSC_EINVAL;
    set_insufficient(out);
    for (size_t i = 0; used && i < n; i++)
        used[i] = false;
    sort_key *keys = malloc((n ? n : 1) * sizeof *keys);
    double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
    int status = keys && x && y ? OSC_OK : OSC_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; status == OSC_OK && i < n; i++)
        if (usable(&pts[i], par))
            keys[m++] = (sort_key){pts[i].dt, pts[i].error, i};
    if (status == OSC_OK)
        m = sorted_each_dt_once(keys, m);
    size_t first = 0, last = 0; /* set by asymptotic_range (gcc -O2 --coverage cannot see it) */
    if (status == OSC_OK && m >= OSC_FIT_RANGE_POINTS) {
        for (size_t k = 0; k < m; k++)
            x[k] = log(keys[k].dt), y[k] = log(keys[k].error);
        if (asymptotic_range(x, y, m, &first, &last)) {
            size_t npts = last - first + 1;
            fill_result(out, fit_line(x + first, y + first, npts), pts, keys + first, npts);
            size_t from = first; /* the usable points just below the fit, with none between */
            while (from > 0 && !unusable_between(pts, n, par, keys[from - 1].dt, keys[from].dt))
                from--;
            out->points_below = first - from;
            line_fit below = fit_line(x + from, y + from, first - from + 1);
            if (first > from && below.max_resid <= OSC_FIT_RESID_TOL)
                out->order_below = below.slope;
            set_verdict(out, par);
            for (size_t k = first; used && k <= last; k++)
                used[keys[k].index] = true;
        }
    }
    free(keys), free(x), free(y);
    return status;
}

int osc_local_orders(const osc_conv_point *pts, size_t n, const osc_fit_params *par,
                     const bool *used, osc_local_order *local, size_t *nlocal)
{
    if (!par || !nlocal || (n > 0 && (!pts || !local)))
        return OSC_EINVAL;
    *nlocal = 0;
    sort_key *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys)
        return OSC_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const osc_conv_point *p = &pts[i];
        if (p->stable && p->dt > 0 && isfinite(p->dt) && p->error > 0 && isfinite(p->error))
            keys[m++] = (sort_key){p->dt, p->error, i};
    }
    m = sorted_each_dt_once(keys, m); /* the fit's point of each dt */
    for (size_t k = 0; k + 1 < m; k++) {
        const sort_key *a = &keys[k], *b = &keys[k + 1];
        double log_ratio = log(b->dt) - log(a->dt); /* differences of logs: no overflow */
        if (!(log_ratio > 0))                        /* a ulp apart */
            continue;
        local[(*nlocal)++] = (osc_local_order){
            .dt_low = a->dt, .dt_high = b->dt,
            .order = (log(b->error) - log(a->error)) / log_ratio,
            .usable = usable(&pts[a->index], par) && usable(&pts[b->index], par),
            .fitted = used && used[a->index] && used[b->index]};
    }
    free(keys);
    return OSC_OK;
}
