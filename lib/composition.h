/* Compositions of a built-in one-step method: validation, and the method the batch runs
 * (lib/methods/composition_method.c). Pure computation (no I/O).
 *
 * Given a base method Phi and substep weights w_1, ..., w_N (summing to 1), one step of size dt
 * is N steps of the base, of sizes w_1 dt, ..., w_N dt, in that order:
 *     Psi(dt) = Phi(w_N dt) o ... o Phi(w_2 dt) o Phi(w_1 dt).
 * The weights are given either in full (symmetric false: N = nweights) or, for a symmetric
 * (palindromic) composition of odd length, as its first half up to and including the middle
 * weight (symmetric true: N = 2 nweights - 1):
 *     (w_1, ..., w_m) symmetric -> w_1, ..., w_{m-1}, w_m, w_{m-1}, ..., w_1.
 * E.g. Yoshida's (Forest-Ruth's) triple jump is (w1, w0) symmetric -> w1, w0, w1 with
 * w1 = 1/(2 - 2^(1/3)), w0 = -2^(1/3)/(2 - 2^(1/3)); Suzuki's fractal 5-stage is (p, p, 1 - 4p)
 * symmetric, p = 1/(4 - 4^(1/3)). A palindrome of even length is given in full.
 * A symmetric composition of a symmetric base of order 2 (verlet undamped, verlet-implicit-drag
 * with drag too) gains orders by the weights' conditions (the triple jump: 2 w1^3 + w0^3 = 0
 * for order 4); of a non-symmetric base (verlet with drag: order 1) it keeps the base's order.
 * The declared order is the caller's.
 *
 * The base must be a method of the registry (osc_method_find), so that it outlives the
 * composition, whose state is (x, v) as given at every substep: nstate 2, init and readout the
 * identity (checked on its references). Of the built-in methods these are euler, semi-implicit,
 * verlet, rk4, forest-ruth, implicit-midpoint and verlet-implicit-drag; stormer (state x and the
 * last displacement) and verlet-zero-start (three components) are refused. Substeps of negative
 * size are stepped as the base steps them: a base that divides by a function of the step h that
 * vanishes for some h < 0 (verlet-implicit-drag's 1 + gam h/2, at gam |h| = 2; implicit-midpoint's
 * 1 + gam h/2 + w2 h^2/4, with roots h < 0 when zeta >= 1) turns those lanes non-finite there:
 * data, as any unstable lane. */
#ifndef OSC_COMPOSITION_H
#define OSC_COMPOSITION_H

#include "oscbench.h"
#include "tableau.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSC_COMPOSITION_MAX_SUBSTEPS 32
_Static_assert(OSC_COMPOSITION_MAX_SUBSTEPS == OSC_COMPOSED_MAX_SUBSTEPS,
               "a composition's substeps fit the composed kernels");

typedef enum osc_composition_error {
    OSC_COMPOSITION_OK = 0,
    OSC_COMPOSITION_BAD_BASE = 1,   /* base NULL, not in the registry, or its state not (x, v) */
    OSC_COMPOSITION_BAD_COUNT = 2,  /* weights NULL, nweights < 1, or more than
                                     * OSC_COMPOSITION_MAX_SUBSTEPS substeps */
    OSC_COMPOSITION_NOT_FINITE = 3, /* weights[where] is NaN or infinite */
    OSC_COMPOSITION_SUM = 4,        /* the N substeps' weights do not sum to 1 */
    OSC_COMPOSITION_TOO_LARGE = 5,  /* |weights[where]| > OSC_TABLEAU_COEF_MAX */
} osc_composition_error;

/* The substeps of a step: nweights, or 2 nweights - 1 if symmetric (0 for nweights < 1). */
int osc_composition_substeps(int nweights, bool symmetric);

/* The weight of substep k (0 <= k < osc_composition_substeps) of weights as given: w_k, or past
 * the middle of a symmetric composition the mirrored weight (substep k >= nweights is substep
 * 2 (nweights - 1) - k's; a composition given in full has no such k). */
double osc_composition_substep_weight(const double *weights, int nweights, int k);

/* Whether base can be composed: a registry method whose state is (x, v) as given (above). */
bool osc_composition_base_ok(const osc_method *base);

/* Tolerance of the sum: |sum_k w_k - 1| <= OSC_TABLEAU_SUM_TOL(N) * max(1, sum_k |w_k|) over the
 * N substeps, the tableau's (each weight within a rounding of its exact value, N - 1 roundings
 * of the sum): (N + 1) eps of the terms, 3.9e-15 for the triple jump (sum |w| = 4.4).
 * Weights are bounded as a tableau's coefficients (OSC_TABLEAU_COEF_MAX, tableau.h): with 32
 * substeps of |w| <= 1e3 the sum is checked to 3e-10, and the order checks' series in w stay
 * finite (with 1e300 their powers overflowed and NaN passed the order checks).
 * 0 (OSC_COMPOSITION_OK) or the first error found: base, count, finiteness, magnitude
 * (OSC_COMPOSITION_TOO_LARGE), sum; *where (may be NULL) gets the index into weights of a
 * non-finite or too large weight, -1 otherwise. */
osc_composition_error osc_composition_validate(const osc_method *base, const double *weights,
                                               int nweights, bool symmetric, int *where);
/* One line for an error code, e.g. "the weights do not sum to 1". */
const char *osc_composition_error_text(osc_composition_error e);

/* The order conditions the weights satisfy for a base of order base_order, symmetric
 * (Phi(-h) = Phi(h)^-1) or not: the largest q <= OSC_COMPOSITION_MAX_CHECKED_ORDER such that the
 * composition is of order q for EVERY base of that order and symmetry (OSC_COMPOSITION_MAX_CHECKED_
 * ORDER: that order or higher). E.g. any weights summing to 1: base_order; sum w^(p+1) = 0 as
 * well: p + 1, and p + 2 for a symmetric base in a palindrome (the triple jump over a symmetric
 * order-2 base: 4; over verlet with drag, order 1 and not symmetric: 1). Evaluated on a generic
 * model of the base (composition_order.c explains it and the tolerance). 0 when the weights do
 * not sum to 1 (osc_composition_validate refuses them); -1 for NULL weights, a
 * substep count out of range, a non-finite weight or one beyond OSC_TABLEAU_COEF_MAX (which the
 * checks cannot judge), or base_order < 1. A comparison with a non-finite side fails. Weights
 * as osc_composition_validate reads them. */
#define OSC_COMPOSITION_MAX_CHECKED_ORDER 8
int osc_composition_coefficient_order(const double *weights, int nweights, bool symmetric,
                                      int base_order, bool base_symmetric);

/* The order of the composition's step on the linear problem x'' = -omega^2 x - 2 zeta omega x'
 * (with drag zeta = OSC_COMPOSITION_LINEAR_ZETA, without zeta = 0), which is what the oscillator
 * measures: at least the coefficient order of the base's order and symmetry, higher where the
 * base's linear maps satisfy conditions a generic base does not. Measured in long double from
 * the base's reference step (the local error's decay as the step halves, composition_order.c),
 * not derived. -1 for weights osc_composition_validate refuses, or when the decay does not settle
 * on an order before round-off (an order of about 10 or more). */
#define OSC_COMPOSITION_LINEAR_ZETA 0.3L
int osc_composition_linear_order(const osc_method *base, const double *weights, int nweights,
                                 bool symmetric, bool damped);

/* Fills *out with the composition as a method: kernels that run the base's composed kernels
 * (base->kernels[p].advance_composed and advance_audited_composed: the base's register blocks
 * through every substep of w_k dt, the exact motion co-stepped after each whole step), which
 * give the bits of the base's advance called once per substep, on every ISA and thread count
 * (a base without them would be stepped that way, 128 lanes at a time), and references that
 * step the base's
 * references (in long double with the weights as given in double). fma_per_step and
 * force_evals are N times the base's (the kernels run N whole base steps), symplectic the
 * base's; declared_order is both order and order_damped; the summary names the base and N.
 * The weights go into one of OSC_COMPOSITION_METHOD_SLOTS process-wide slots until
 * osc_composition_method_release; name is copied (at most OSC_COMPOSITION_NAME_MAX bytes with
 * its NUL), not checked against the registry. Returns OSC_OK, OSC_EINVAL (an error of
 * osc_composition_validate, NULL name or out, empty or too long name, declared_order < 1) or
 * OSC_ENOMEM (no free slot). */
#define OSC_COMPOSITION_METHOD_SLOTS 16
#define OSC_COMPOSITION_NAME_MAX 64
int osc_method_from_composition(const osc_method *base, const double *weights, int nweights,
                                bool symmetric, const char *name, int declared_order,
                                osc_method *out);
/* Give back the slot of a method osc_method_from_composition made (no batch may still use it);
 * OSC_EINVAL for another method or a slot already given back. */
int osc_composition_method_release(const osc_method *m);

#ifdef __cplusplus
}
#endif
#endif
