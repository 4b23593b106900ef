/* Explicit Runge-Kutta-Nystrom (RKN) methods for x'' = f(x, v): validation, order conditions, and
 * the method the batch runs. Pure computation (no I/O).
 *
 * The general (velocity-dependent) explicit RKN method of s stages (1 <= s <=
 * OSC_RKN_MAX_STAGES), in the form and notation of Hairer, Norsett and Wanner, Solving Ordinary
 * Differential Equations I, Section II.14: one step of size h = dt from (x, v) is
 *     X_i = x + c_i h v + h^2 sum_{j<i} abar_ij F_j,
 *     V_i = v + h sum_{j<i} a_ij F_j,                  F_i = f(X_i, V_i),
 *     x' = x + h v + h^2 sum_i bbar_i F_i,
 *     v' = v + h sum_i b_i F_i,
 * for the oscillator f(x, v) = -w2 x - gam v - g. abar (positions, times h^2) and a (velocities,
 * times h) are strictly lower triangular; bbar are the position weights (sum 1/2: x' gets
 * h^2 f / 2 at first order), b the velocity weights (sum 1); c the nodes, c_i = sum_j a_ij (V_i,
 * like X_i, stands at t + c_i h). abar's row sums need not be c_i^2 / 2: the Nystrom form of an
 * RK method (abar = A^2, bbar = b^T A, a = A, with A, b the Butcher tableau's) has other ones.
 * Entries beyond the first s rows/columns are ignored. */
#ifndef OSC_RKN_H
#define OSC_RKN_H

#include "oscbench.h"
#include "tableau.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSC_RKN_MAX_STAGES 8
/* The highest order osc_rkn_coefficient_order can give: the linear order bounds it, and is at
 * most 2s without drag (osc_rkn_linear_order). */
#define OSC_RKN_MAX_TREE_ORDER (2 * OSC_RKN_MAX_STAGES)

typedef struct osc_rkn_tableau {
    int stages;
    double abar[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES]; /* X_i reads F_j, times h^2 */
    double a[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES];    /* V_i reads F_j, times h */
    double bbar[OSC_RKN_MAX_STAGES];                     /* x' weights, times h^2 */
    double b[OSC_RKN_MAX_STAGES];                        /* v' weights, times h */
    double c[OSC_RKN_MAX_STAGES];                        /* nodes */
} osc_rkn_tableau;

typedef enum osc_rkn_error {
    OSC_RKN_OK = 0,
    OSC_RKN_BAD_STAGES = 1,    /* stages < 1 or > OSC_RKN_MAX_STAGES */
    OSC_RKN_NOT_FINITE = 2,    /* a NaN or infinite coefficient */
    OSC_RKN_NOT_EXPLICIT = 3,  /* abar_ij or a_ij != 0 with j >= i */
    OSC_RKN_C_NOT_ROW_SUM = 4, /* c_i differs from sum_j a_ij beyond the tolerance */
    OSC_RKN_BBAR_SUM = 5,      /* sum_i bbar_i differs from 1/2 beyond the tolerance */
    OSC_RKN_B_SUM = 6,         /* sum_i b_i differs from 1 beyond the tolerance */
    OSC_RKN_TOO_LARGE = 7,     /* a coefficient beyond OSC_TABLEAU_COEF_MAX in magnitude */
} osc_rkn_error;

/* The coefficient array an error is in. */
typedef enum osc_rkn_field {
    OSC_RKN_FIELD_NONE = 0, /* the stage count */
    OSC_RKN_FIELD_ABAR = 1,
    OSC_RKN_FIELD_A = 2,
    OSC_RKN_FIELD_BBAR = 3,
    OSC_RKN_FIELD_B = 4,
    OSC_RKN_FIELD_C = 5,
} osc_rkn_field;

/* Where a validation error lies: the array, and row and column (0-based; -1 where it does not
 * apply, as for osc_tableau_where: a bbar or b entry has row -1, a c entry column -1, a sum
 * both -1). */
typedef struct osc_rkn_where {
    osc_rkn_field field;
    int row, col;
} osc_rkn_where;

/* The consistency checks' tolerance is the tableau's (OSC_TABLEAU_SUM_TOL, same reasoning):
 *     |c_i - sum_j a_ij| <= OSC_TABLEAU_SUM_TOL(s) * max(1, |c_i| + sum_j |a_ij|),
 *     |sum bbar - 1/2| <= OSC_TABLEAU_SUM_TOL(s) * max(1, sum |bbar_i|), sum b likewise with 1.
 * 0 (OSC_RKN_OK) or the first error found, checked in this order: stages; finiteness of abar,
 * a, bbar, b, c; their magnitude (OSC_RKN_TOO_LARGE: beyond OSC_TABLEAU_COEF_MAX, the tableau's
 * bound and reason); explicitness of abar, then a; c; sum bbar; sum b. where (may be NULL) gets
 * its location ({OSC_RKN_FIELD_NONE, -1, -1} when valid). */
osc_rkn_error osc_rkn_validate(const osc_rkn_tableau *t, osc_rkn_where *where);
/* One line for an error code, e.g. "c is not the row sum of a". */
const char *osc_rkn_error_text(osc_rkn_error e);
/* "abar", "a", "bbar", "b", "c", or "stages" for OSC_RKN_FIELD_NONE. */
const char *osc_rkn_field_name(osc_rkn_field f);

/* The highest p such that the RKN order conditions of every order <= p hold (Hairer, Norsett,
 * Wanner I, Section II.14, the Nystrom trees):
 *     sum_i b_i Phi_i(t) = 1 / gamma(t)                  for the trees t with rho(t) <= p,
 *     sum_i bbar_i Phi_i(t) = 1 / ((rho(t) + 1) gamma(t)) for the trees t with rho(t) <= p - 1,
 * over the Nystrom trees (1, 2, 6, 18, 60, 204, ... of orders 1, 2, ..., generated: lib/trees.h),
 * with c as given. With velocity_dependent false only the trees of x'' = f(x) count (1, 1, 2, 3,
 * 6, 10, ...: the classical RKN conditions, a plays no part): the order on a force without
 * drag. The trees are checked up to osc_rkn_linear_order(t, velocity_dependent), which bounds
 * p (the linear problem is one the trees cover): p is the tableau's order, not a cap. A condition
 * holds when |sum - want| <= OSC_TABLEAU_TREE_TOL(rho, s) * (the same sum over |abar|, |a|,
 * |bbar|, |b|, |c|), the tableau's tolerance; a non-finite side fails it. 0 if even sum b = 1
 * fails; -1 for a NULL tableau, a stage count out of range, a coefficient not finite or
 * beyond OSC_TABLEAU_COEF_MAX (which the checks cannot judge), or no memory for the trees. */
int osc_rkn_coefficient_order(const osc_rkn_tableau *t, bool velocity_dependent);

/* What the oscillator can measure: the order to which the method's one-step map of the linear
 * problem x'' = -w2 x - gam v matches the exact one, exp(h L), L = [[0, 1], [-w2, -gam]]. In
 * the scaled state (x, h v) both maps are polynomials in k = -w2 h^2 and d = -gam h (the
 * exact one a series); a monomial k^m d^n of the entry (row r, column q) is of order
 * 2m + n + [q = v] - [r = v] in h, and the linear order is the highest p such that every
 * monomial of order <= p matches (tolerance as above, by the monomial's order, of the method's
 * magnitude there plus the exact coefficient's, whose series sum is rounded too; on (x, h v) the
 * local error is then O(h^(p+1)): global order p). damped false: the monomials without d only
 * (gam = 0). Can exceed the coefficient order (the linear problem checks fewer conditions).
 * At most s damped and 2s undamped: an explicit method's map is a polynomial of degree s in k
 * and d, the exact one has k d^s (order s + 1) and k^(s+1) (order 2s + 1) in its (v, x) entry.
 * -1 as for osc_rkn_coefficient_order. */
int osc_rkn_linear_order(const osc_rkn_tableau *t, bool damped);

/* ---- an RKN tableau as a method the batch runs (lib/methods/rkn_method.c) --------------------
 *
 * As osc_method_from_tableau (tableau.h), for the formula above: a method on (x, v) in double and
 * float, with scalar references (double, float, long double; no fma, the formula as written)
 * and kernels (fma, the formula in the order written, zero coefficients skipped; the same bits
 * on every ISA and thread count), the coefficients in one of OSC_RKN_METHOD_SLOTS process-wide
 * slots until osc_rkn_method_release. fma_per_step counts the kernel's operations:
 *     per stage i: 2 (the force, fma(w2, X, fma(gam, V, g))) + [c_i != 0] + nnz(abar_i) + nnz(a_i),
 *     then 1 (x + h v) + nnz(bbar) + nnz(b).
 * force_evals = s; declared_order is both order and order_damped; name is copied (at most
 * OSC_RKN_NAME_MAX bytes with its NUL), not checked against the registry. Returns OSC_OK,
 * OSC_EINVAL (NULL argument, invalid tableau, empty or too long name, declared_order < 1) or
 * OSC_ENOMEM (no free slot). */
#define OSC_RKN_METHOD_SLOTS 16
#define OSC_RKN_NAME_MAX 64
int osc_method_from_rkn(const osc_rkn_tableau *t, const char *name, int declared_order,
                        osc_method *out);
/* Give back the slot of a method osc_method_from_rkn made (no batch may still use it);
 * OSC_EINVAL for another method or a slot already given back. */
int osc_rkn_method_release(const osc_method *m);

#ifdef __cplusplus
}
#endif
#endif
