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
        for (int j = 0; j < DIM; j++)
            if (fabsl(got[i][j] - want[i][j]) > tol * magnitude[i][j])
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
        if (!isfinite(w[k]))
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
