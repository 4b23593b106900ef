/* The order of a composition from its weights (osc_composition_coefficient_order, composition.h).
 *
 * Backward error analysis writes any one-step method of order p as the exact flow of a modified
 * vector field, Phi(h) = exp(h A + h^(p+1) E_(p+1) + h^(p+2) E_(p+2) + ...) as operators, with A
 * the problem's vector field and E_n fields of the method (for a symmetric method, Phi(-h) =
 * Phi(h)^-1, the series is odd in h: E_n = 0 for even n). The composition
 *     Psi(h) = Phi(w_N h) ... Phi(w_1 h)
 * has order q when Psi(h) = exp(h A) + O(h^(q+1)) for EVERY such A and E_n: its order conditions
 * are the Lie polynomials in A and the E_n (with the weights in their coefficients) that must
 * vanish, the conditions of e.g. Hairer, Lubich and Wanner, Geometric Numerical Integration,
 * chapters II.4 and III.3 (sum w = 1; sum w^(p+1) = 0 to gain an order; for a symmetric base of
 * order 2 in a palindrome also the order-6 and order-8 conditions).
 *
 * Rather than tabulating those conditions, they are evaluated: A and the E_n are fixed
 * pseudo-random 6 x 6 matrices, and Psi(h) and exp(h A) are expanded as power series in h with
 * matrix coefficients (in long double), term by term. n x n matrices satisfy no polynomial
 * identity of degree below 2n (Amitsur-Levitzki), so a nonzero condition of degree <= 8 < 12
 * does not vanish on generic 6 x 6 matrices: the h^n coefficients agree for n = 1, ..., q exactly
 * when the order-q conditions hold. Agreement is judged per matrix entry against the same series
 * built from |w| and |entries| (the magnitude of its terms): a term of h^n is a product of weights
 * of total degree n, each weight within a rounding u of its exact value as given in double, so
 * exact weights would leave at most about n u of that magnitude. The tolerance, 4 (n + N) eps for
 * N substeps, allows 8 times that plus the N - 1 roundings of a sum in double that
 * osc_composition_validate's check of sum w = 1 allows (so weights that pass it have order >= 1);
 * the long double arithmetic adds ~1e-19, far below. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "composition.h"

#define DIM 6                                   /* matrix size: 2 DIM > the highest degree */
#define DEG OSC_COMPOSITION_MAX_CHECKED_ORDER   /* series truncated after h^DEG */
_Static_assert(2 * DIM > DEG, "no identity of degree DEG holds for DIM x DIM matrices");

typedef long double mat[DIM][DIM];
typedef mat series[DEG + 1]; /* s[n]: the coefficient of h^n */

static void mat_mul_add(mat out, const mat a, const mat b)
{
    for (int i = 0; i < DIM; i++)
        for (int k = 0; k < DIM; k++)
            for (int j = 0; j < DIM; j++)
                out[i][j] += a[i][k] * b[k][j];
}

/* out = a b, truncated after h^DEG (out distinct from a and b). */
static void series_mul(series out, const series a, const series b)
{
    memset(out, 0, sizeof(series));
    for (int n = 0; n <= DEG; n++)
        for (int m = 0; n + m <= DEG; m++)
            mat_mul_add(out[n + m], a[n], b[m]);
}

/* exp(x) for a series without constant term: sum_k x^k / k!, k <= DEG (x^k starts at h^k). */
static void series_exp(series out, const series x)
{
    series term, next;
    memset(out, 0, sizeof(series));
    memset(term, 0, sizeof(series));
    for (int i = 0; i < DIM; i++)
        out[0][i][i] = term[0][i][i] = 1;
    for (int k = 1; k <= DEG; k++) {
        series_mul(next, term, x);
        for (int n = 0; n <= DEG; n++)
            for (int i = 0; i < DIM; i++)
                for (int j = 0; j < DIM; j++)
                    out[n][i][j] += (term[n][i][j] = next[n][i][j] / k);
    }
}

/* The fixed generic fields: A = field[1], E_n = field[n] (n >= 2), entries in [-1, 1) from a
 * linear congruential sequence (any fixed generic choice serves; these are reproducible). */
static void generic_fields(series field)
{
    unsigned long long state = 0x9E3779B97F4A7C15ull;
    for (int n = 0; n <= DEG; n++)
        for (int i = 0; i < DIM; i++)
            for (int j = 0; j < DIM; j++) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                field[n][i][j] = (long double)(state >> 11) / 0x1p52L - 1;
            }
}

/* The modified field of the base at step w h: h w A + sum over the base's error terms n
 * (n > p; odd n only for a symmetric base) of h^n w^n E_n; magnitudes with |w|, |entries|. */
static void base_log(series out, const series field, long double w, int base_order,
                     bool base_symmetric, bool magnitude)
{
    memset(out, 0, sizeof(series));
    long double wn = 1;
    for (int n = 1; n <= DEG; n++) {
        wn *= magnitude ? fabsl(w) : w;
        bool present = n == 1 || (n > base_order && !(base_symmetric && n % 2 == 0));
        if (present)
            for (int i = 0; i < DIM; i++)
                for (int j = 0; j < DIM; j++)
                    out[n][i][j] = wn * (magnitude ? fabsl(field[n][i][j]) : field[n][i][j]);
    }
}

/* psi = Phi(w_N h) ... Phi(w_1 h) (magnitudes: with |w| and |entries|). */
static void composed(series psi, const series field, const long double *w, int substeps,
                     int base_order, bool base_symmetric, bool magnitude)
{
    series log_k, phi_k, product;
    memset(psi, 0, sizeof(series));
    for (int i = 0; i < DIM; i++)
        psi[0][i][i] = 1;
    for (int k = 0; k < substeps; k++) {
        base_log(log_k, field, w[k], base_order, base_symmetric, magnitude);
        series_exp(phi_k, log_k);
        series_mul(product, phi_k, psi); /* substep k acts after the earlier ones */
        memcpy(psi, product, sizeof(series));
    }
}

static bool coefficient_agrees(const mat got, const mat want, const mat magnitude, int n,
                               int substeps)
{
    const long double tol = 4.0L * (n + substeps) * 2.220446049250313e-16L;
    for (int i = 0; i < DIM; i++)
        for (int j = 0; j < DIM; j++) /* a NaN or inf side fails: overflow proves nothing */
            if (!(isfinite(magnitude[i][j]) &&
                  fabsl(got[i][j] - want[i][j]) <= tol * magnitude[i][j]))
                return false;
    return true;
}

int osc_composition_coefficient_order(const double *weights, int nweights, bool symmetric,
                                      int base_order, bool base_symmetric)
{
    const int substeps = osc_composition_substeps(nweights, symmetric);
    if (!weights || substeps < 1 || substeps > OSC_COMPOSITION_MAX_SUBSTEPS || base_order < 1)
        return -1;
    long double w[OSC_COMPOSITION_MAX_SUBSTEPS];
    for (int k = 0; k < substeps; k++) {
        w[k] = osc_composition_substep_weight(weights, nweights, k);
        if (!isfinite(w[k]) || fabsl(w[k]) > OSC_TABLEAU_COEF_MAX)
            return -1;
    }
    series field, psi, psi_abs, exact_log, exact; /* 26 KB */
    generic_fields(field);
    composed(psi, field, w, substeps, base_order, base_symmetric, false);
    composed(psi_abs, field, w, substeps, base_order, base_symmetric, true);
    memset(exact_log, 0, sizeof(series));
    memcpy(exact_log[1], field[1], sizeof(mat));
    series_exp(exact, exact_log); /* exp(h A) */
    for (int n = 1; n <= DEG; n++)
        if (!coefficient_agrees(psi[n], exact[n], psi_abs[n], n, substeps))
            return n - 1;
    return DEG;
}

/* ---- the order on the linear problem ------------------------------------------------------- *
 *
 * osc_composition_linear_order: the coefficient order above holds for every base of the base's
 * order and symmetry; on the oscillator the base is one particular map, M(h) on (x, v), and the
 * composition's order there is that of M(w_N h) ... M(w_1 h) against exp(h A), A = [[0, 1],
 * [-1, -gam]] (omega = 1: only omega h matters). It can be higher (a Runge-Kutta base's maps
 * commute, and every condition with a commutator drops out). The base's M is its reference step
 * (the kernel is code, not a formula), so the order is measured, not derived: the local error
 * e(h) = max |Psi(h) - exp(h A)| over the four entries, in long double, at h = 1, 1/2, 1/4, ...
 * while e(h) >= LIN_FLOOR. Then e(h) = C h^(q+1) (1 + O(h)) and the ratio r(h) = log2(e(h) /
 * e(h/2)) tends to q + 1 linearly in h, so 2 r(h/2) - r(h) (Richardson) is q + 1 to O(h^2).
 * The order is accepted when that extrapolation over the three smallest steps lies within 0.2 of
 * an integer and the last ratio within 0.5 of it. LIN_FLOOR: the 2 N long double roundings of
 * Psi (about 1e-18 for 17 substeps) stay under 1% of e there, moving a ratio by under 0.02. */

#define LIN_FLOOR 1e-15L
#define LIN_HALVINGS 40

typedef long double mat2[2][2];

/* exp(h A) by its Taylor series (|h A| <= 1.2: 40 terms reach far below a rounding). */
static void linear_exact(mat2 out, long double h, long double gam)
{
    const mat2 a = {{0, h}, {-h, -gam * h}};
    mat2 term = {{1, 0}, {0, 1}};
    memcpy(out, term, sizeof(mat2));
    for (int n = 1; n <= 40; n++) {
        mat2 next;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                next[i][j] = (a[i][0] * term[0][j] + a[i][1] * term[1][j]) / n;
        memcpy(term, next, sizeof(mat2));
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                out[i][j] += term[i][j];
    }
}

/* max |Psi(h) - exp(h A)|: the composition applied to the unit states by the base's reference. */
static long double linear_error(const osc_method *base, const long double *w, int substeps,
                                long double h, long double gam)
{
    const osc_coef_ld c = {1, gam, 0};
    mat2 exact;
    linear_exact(exact, h, gam);
    long double worst = 0;
    for (int col = 0; col < 2; col++) {
        long double s[OSC_MAX_STATE] = {col == 0, col == 1};
        for (int k = 0; k < substeps; k++)
            base->ref_ld.step(s, c, w[k] * h);
        for (int row = 0; row < 2; row++) {
            const long double d = fabsl(s[row] - exact[row][col]);
            worst = d > worst || isnan(d) ? d : worst;
        }
    }
    return worst;
}

int osc_composition_linear_order(const osc_method *base, const double *weights, int nweights,
                                 bool symmetric, bool damped)
{
    if (osc_composition_validate(base, weights, nweights, symmetric, NULL) != OSC_COMPOSITION_OK)
        return -1;
    const int substeps = osc_composition_substeps(nweights, symmetric);
    long double w[OSC_COMPOSITION_MAX_SUBSTEPS];
    for (int k = 0; k < substeps; k++)
        w[k] = osc_composition_substep_weight(weights, nweights, k);
    const long double gam = damped ? 2 * OSC_COMPOSITION_LINEAR_ZETA : 0;
    long double e[LIN_HALVINGS];
    int n = 0;
    for (int m = 0; m < LIN_HALVINGS; m++) {
        const long double err = linear_error(base, w, substeps, ldexpl(1, -m), gam);
        if (!isfinite(err)) { /* a substep past the base's stability or its pole: start again */
            n = 0;
            continue;
        }
        if (err < LIN_FLOOR)
            break;
        e[n++] = err;
    }
    if (n < 3)
        return -1;
    const long double r_prev = log2l(e[n - 3] / e[n - 2]), r_last = log2l(e[n - 2] / e[n - 1]);
    const long double extrapolated = 2 * r_last - r_prev, q1 = roundl(extrapolated);
    if (fabsl(extrapolated - q1) > 0.2L || fabsl(r_last - q1) > 0.5L || q1 < 2)
        return -1;
    return (int)q1 - 1;
}
