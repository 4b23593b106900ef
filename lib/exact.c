/* The closed-form motion of one axis: u'' + gam u' + w2 u = -g, u(0) = x0, u'(0) = v0.
 *
 * With h = gam/2 and the fundamental solutions Phi11 (x0 = 1, v0 = 0) and Phi12 (x0 = 0,
 * v0 = 1), Duhamel's formula gives
 *     x(t) = x0 Phi11 + v0 Phi12 - g P,      P(t) = integral_0^t Phi12,
 *     v(t) = v0 Phi22 - (w2 x0 + g) Phi12,   since Phi11' = -w2 Phi12.
 * The rest point x_rest = -g/w2 is never formed: x_rest + (x0 - x_rest) Phi11 loses every digit
 * of the motion when w2 is tiny (k -> 0), while P stays of size t^2/2 there.
 *
 * Regimes by q = h^2 - w2 (computed with one rounding by fma, so that near zeta = 1 its error is
 * that of the inputs, to which the solution is insensitive):
 *   q < 0, underdamped, wd = sqrt(-q): Phi12 = e^{-ht} sin(wd t)/wd,
 *       Phi11 = e^{-ht}(cos + h sin/wd), Phi22 = e^{-ht}(cos - h sin/wd). sin(wd t)/wd keeps its
 *       relative accuracy for tiny wd, so nothing cancels as zeta -> 1 from below.
 *   q = 0, critical: the same with sin/wd -> t, cos -> 1.
 *   q > 0, overdamped, mu = sqrt(q): roots -b and -a with a = h + mu and the slow b = w2/a
 *       (not h - mu, which cancels when w2 << h^2). With E1 = e^{-bt} and
 *       s = (1 - e^{-2 mu t})/(2 mu) = -expm1(-2 mu t)/(2 mu) (accurate for tiny mu t):
 *       Phi12 = E1 s, Phi11 = E1 (1 + b s) (a sum of positive terms). Only decaying exponentials
 *       appear, so e^{-ht} cosh(mu t) is never formed and nothing overflows at long times.
 *       Phi22 = E1 (1 - a s) when mu is small against h (near critical), else
 *       (a e^{-at} - b E1) / (2 mu): the first form cancels at long times when b << a, the second
 *       near zeta = 1; each is used where the other is poor.
 * P(t): while rho t <= 1, with rho the largest root modulus, P's Taylor series from the ODE
 * (terms fall like (rho t)^n / n!, the sum is near t^2/2: no cancellation). Beyond, every closed
 * form loses at most a factor ~4: (1 - Phi11)/w2 oscillating or critical, and
 * (phi1 - Phi12)/a overdamped with phi1 = (1 - e^{-bt})/b = integral of E1 (P = f[0, -b, -a]
 * for f(r) = e^{rt}, ordered so that no node difference is small). */
#include <math.h>
#include <stdbool.h>

#include "exact.h"

enum { PINNED, UNDER, CRITICAL, OVER_NEAR, OVER_FAR };
enum { X0, V0, G, H, W2, FREQ, SLOW, T_SERIES };

#define SERIES_TERMS 20 /* (rho t)^n / n! with rho t <= 1: 20 / 20! ~ 1e-17 */

/* 1/((n+2)(n+1)) and 1/(n+3): the series below multiplies instead of dividing. */
static const double inv_pair[SERIES_TERMS] = {
    1.0 / 2, 1.0 / 6, 1.0 / 12, 1.0 / 20, 1.0 / 30, 1.0 / 42, 1.0 / 56, 1.0 / 72, 1.0 / 90,
    1.0 / 110, 1.0 / 132, 1.0 / 156, 1.0 / 182, 1.0 / 210, 1.0 / 240, 1.0 / 272, 1.0 / 306,
    1.0 / 342, 1.0 / 380, 1.0 / 420};
static const double inv_index[SERIES_TERMS] = {
    1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8, 1.0 / 9, 1.0 / 10, 1.0 / 11, 1.0 / 12,
    1.0 / 13, 1.0 / 14, 1.0 / 15, 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20, 1.0 / 21,
    1.0 / 22};

void osc_exact_prepare(osc_exact *e, double k, double c, double m, double g, double x0, double v0)
{
    for (int j = 0; j < 8; j++)
        e->c[j] = 0;
    e->c[X0] = x0;
    if (m == 0) {
        e->regime = PINNED;
        return;
    }
    double w2 = k / m, h = 0.5 * (c / m);
    /* h^2 overflows from h ~ 1.3e154 (c/m ~ 2.7e154), which made q infinite and the reference
     * NaN (inf * 0); there the motion is overdamped whatever w2 (finite):
     * mu = h sqrt(1 - w2/h^2) */
    const bool huge = h > 0x1p500;
    double q = huge ? INFINITY : fma(h, h, -w2);
    e->c[V0] = v0, e->c[G] = g, e->c[H] = h, e->c[W2] = w2;
    double rho;
    if (q < 0) {
        e->regime = UNDER;
        e->c[FREQ] = sqrt(-q);
        rho = sqrt(w2);
    } else if (q == 0) {
        e->regime = CRITICAL;
        rho = h;
    } else {
        double mu = huge ? h * sqrt(1 - w2 / h / h) : sqrt(q), a = h + mu;
        e->regime = 3 * mu <= h ? OVER_NEAR : OVER_FAR;
        e->c[FREQ] = mu;
        e->c[SLOW] = w2 / a;
        rho = a;
    }
    e->c[T_SERIES] = rho > 0 ? 1 / rho : INFINITY;
}

/* P(t) = integral of Phi12 from its Taylor series: with U_n = a_n t^(n-1) for
 * Phi12 = sum a_n t^n, the ODE gives U_{n+2} = -(gam t (n+1) U_{n+1} + w2 t^2 U_n)/((n+2)(n+1)). */
static double forced_series(double gam, double w2, double t)
{
    double ct = gam * t, wt2 = w2 * t * t;
    double u_prev = 0, u = 1, sum = 0.5;
    for (int n = 0; n < SERIES_TERMS; n++) {
        double u_next = -(ct * (n + 1) * u + wt2 * u_prev) * inv_pair[n];
        sum += u_next * inv_index[n];
        u_prev = u, u = u_next;
    }
    return sum * t * t;
}

/* The fundamental solutions at t and P(t) = integral of Phi12 (see the top); false when pinned. */
static bool fundamental(const osc_exact *e, double t, double *phi11_, double *phi12_,
                        double *phi22_, double *forced_)
{
    const double *p = e->c;
    const double h = p[H], w2 = p[W2];
    double phi11, phi12, phi22, forced; /* forced: P(t) where the series does not apply */
    switch (e->regime) {
    case PINNED:
        return false;
    case UNDER: {
        double decay = exp(-h * t), wd = p[FREQ];
        double sn = sin(wd * t) / wd, cs = cos(wd * t);
        phi12 = decay * sn;
        phi11 = decay * (cs + h * sn);
        phi22 = decay * (cs - h * sn);
        forced = (1 - phi11) / w2;
        break;
    }
    case CRITICAL: {
        double decay = exp(-h * t);
        phi12 = decay * t;
        phi11 = decay * (1 + h * t);
        phi22 = decay * (1 - h * t);
        forced = (1 - phi11) / w2; /* unused when h = 0: the series then covers every t */
        break;
    }
    default: { /* OVER_NEAR, OVER_FAR */
        double mu = p[FREQ], b = p[SLOW], a = h + mu;
        double slow = exp(-b * t), s = -expm1(-2 * mu * t) / (2 * mu);
        phi12 = slow * s;
        phi11 = slow * (1 + b * s);
        phi22 = e->regime == OVER_NEAR ? slow * (1 - a * s) : (a * exp(-a * t) - b * slow) / (2 * mu);
        double phi1 = b > 0 ? -expm1(-b * t) / b : t;
        forced = (phi1 - phi12) / a;
        break;
    }
    }
    if (p[G] != 0 && t < p[T_SERIES])
        forced = forced_series(2 * h, w2, t);
    *phi11_ = phi11, *phi12_ = phi12, *phi22_ = phi22, *forced_ = forced;
    return true;
}

void osc_exact_eval(const osc_exact *e, double t, double *x, double *v)
{
    const double *p = e->c;
    const double w2 = p[W2];
    double phi11, phi12, phi22, forced;
    if (!fundamental(e, t, &phi11, &phi12, &phi22, &forced)) {
        *x = p[X0], *v = 0;
        return;
    }
    double g = p[G];
    *x = p[X0] * phi11 + p[V0] * phi12 - (g != 0 ? g * forced : 0);
    *v = p[V0] * phi22 - (w2 * p[X0] + g) * phi12;
}

void osc_exact_map(const osc_exact *e, double T, double *p11, double *p12, double *p22, double *q1,
                   double *q2)
{
    double phi11, phi12, phi22, forced;
    if (!fundamental(e, T, &phi11, &phi12, &phi22, &forced)) {
        *p11 = 1, *p12 = 0, *p22 = 0, *q1 = 0, *q2 = 0;
        return;
    }
    double g = e->c[G];
    *p11 = phi11, *p12 = phi12, *p22 = phi22;
    *q1 = g != 0 ? -(g * forced) : 0;
    *q2 = -(g * phi12);
}

void osc_exact_step_map(const osc_exact *e, double T, double *d11, double *p12, double *d22,
                        double *q1, double *q2)
{
    double p11, p22;
    osc_exact_map(e, T, &p11, p12, &p22, q1, q2);
    const double h = e->c[H], w2 = e->c[W2];
    if (e->regime == PINNED || !(T < e->c[T_SERIES])) {
        *d11 = p11 - 1, *d22 = p22 - 1; /* exact (Sterbenz) where p is near 1 */
        return;
    }
    /* From Phi11' = -w2 Phi12 and Phi22' = -gam Phi22 - w2 Phi12 (Phi22 = Phi12'):
     *     Phi11 - 1 = -w2 P,   Phi22 - 1 = -(gam Phi12 + w2 P),
     * P = integral of Phi12 by its series (rho T <= 1: no cancellation), both terms of one sign. */
    const double P = forced_series(2 * h, w2, T);
    *d11 = -(w2 * P);
    *d22 = -fma(2 * h, *p12, w2 * P);
}

double osc_omega0(double k, double m) { return m > 0 ? sqrt(k / m) : 0; }

double osc_zeta(double k, double c, double m)
{
    if (c == 0)
        return 0;
    if (!(k > 0 && m > 0))
        return INFINITY;
    return c / (2 * osc_sqrt_km(k, m));
}

double osc_sqrt_km(double k, double m)
{
    const double km = k * m;
    return isnormal(km) ? sqrt(km) : sqrt(k) * sqrt(m);
}

double osc_motion_scale(int dim, double k, double c, double m, double g, const double *x0,
                        const double *v0, double t_end)
{
    double x2 = 0, v2 = 0, start2 = 0;
    for (int a = 0; a < dim; a++) {
        double x = x0[a];
        start2 += x * x;
        if (a == dim - 1 && k > 0 && m > 0)
            x += g * m / k; /* distance from the rest point -g m / k */
        x2 += x * x, v2 += v0[a] * v0[a];
    }
    const double w2 = m > 0 ? k / m : 0, gam = m > 0 ? c / m : 0;
    /* A constant force a moves the lane by at most a t_end hold: hold = t_end / 2 (a t_end^2 / 2),
     * or 1 / gam once drag caps the speed at a / gam */
    const double hold = gam > 0 ? fmin(t_end / 2, 1 / gam) : t_end / 2;
    if (w2 > 0) {
        /* The spring bounds |x - x_rest| by its amplitude; but a soft spring's rest point can
         * lie far beyond where the lane gets by t_end (k = 1e-4 under gravity: 98 km below,
         * against a fall of 0.5 km in 10 s), and the force, at most w2 times the amplitude,
         * bounds how far it goes: the smaller of the two. */
        const double amplitude = sqrt(x2) + sqrt(v2 / w2);
        return fmin(amplitude, sqrt(start2) + sqrt(v2) * t_end + w2 * amplitude * t_end * hold);
    }
    return sqrt(x2) + sqrt(v2) * t_end + fabs(g) * t_end * hold;
}
