/* Explicit Runge-Kutta methods given by their Butcher tableau: validation and order conditions.
 * Pure computation (no I/O).
 *
 * A tableau of s stages (1 <= s <= OSC_TABLEAU_MAX_STAGES) is a (s x s, strictly lower
 * triangular), b (weights), c (nodes). Applied to y' = f(t, y):
 *     Y_i = y + dt sum_{j<i} a_ij f(t + c_j dt, Y_j),   y_new = y + dt sum_i b_i f(t + c_i dt, Y_i).
 * Entries beyond the first s rows/columns are ignored. */
#ifndef OSC_TABLEAU_H
#define OSC_TABLEAU_H

#include "oscbench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSC_TABLEAU_MAX_STAGES 8
/* The highest order osc_tableau_coefficient_order can give: an explicit tableau's linear order
 * is at most its stage count, and bounds its coefficient order. */
#define OSC_TABLEAU_MAX_TREE_ORDER OSC_TABLEAU_MAX_STAGES

typedef struct osc_tableau {
    int stages;
    double a[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES]; /* a[i][j]: stage i reads stage j */
    double b[OSC_TABLEAU_MAX_STAGES];
    double c[OSC_TABLEAU_MAX_STAGES];
} osc_tableau;

typedef enum osc_tableau_error {
    OSC_TABLEAU_OK = 0,
    OSC_TABLEAU_BAD_STAGES = 1,   /* stages < 1 or > OSC_TABLEAU_MAX_STAGES */
    OSC_TABLEAU_NOT_FINITE = 2,   /* a NaN or infinite coefficient */
    OSC_TABLEAU_NOT_EXPLICIT = 3, /* a_ij != 0 with j >= i */
    OSC_TABLEAU_C_NOT_ROW_SUM = 4, /* c_i differs from sum_j a_ij beyond the tolerance */
    OSC_TABLEAU_B_SUM = 5,        /* sum_i b_i differs from 1 beyond the tolerance */
    OSC_TABLEAU_TOO_LARGE = 6,    /* a coefficient beyond OSC_TABLEAU_COEF_MAX in magnitude */
} osc_tableau_error;

/* Where a validation error lies: row and column (0-based; -1 where it does not apply, e.g. a
 * b entry has row -1, a c entry column -1, the b sum both -1). */
typedef struct osc_tableau_where {
    int row, col;
} osc_tableau_where;

/* Tolerance of the consistency checks (c = row sums of a, sum b = 1), relative to the magnitude
 * of the terms: |c_i - sum_j a_ij| <= OSC_TABLEAU_SUM_TOL(s) * max(1, |c_i| + sum_j |a_ij|),
 * |sum b - 1| likewise with sum |b_i|. Each coefficient given as a fraction or a 17-digit
 * decimal is within one rounding (u = eps/2) of its exact value and the sum of s terms rounds
 * s - 1 times more, so the error is below (s + 1) u times the magnitude; the bound allows twice
 * that, (s + 1) eps (1.1e-15 for 4 stages): a third typed with 15 digits passes, with 14 not. */
#define OSC_TABLEAU_SUM_TOL(s) (((s) + 1) * 2.220446049250313e-16)

/* The largest coefficient magnitude accepted (here, for RKN tableaus and for compositions'
 * weights). The checks' tolerances grow with the terms' magnitudes: with every |coefficient| <=
 * 1e3 the sums are checked to 2e-11 (sum |b| <= 8e3) and the order-2 conditions to 2e-6
 * whatever the signs, and no product the order checks form comes near overflow; with 1e300,
 * b = (1e300, -1e300) (sum 0) passed sum b = 1 and the higher conditions compared inf with inf.
 * Published methods stay far below it (DOPRI5's largest is 11.6, compositions' weights ~2). */
#define OSC_TABLEAU_COEF_MAX 1e3

/* 0 (OSC_TABLEAU_OK) or the first error found, checked in this order: stages, finiteness of a,
 * b, c, their magnitude (OSC_TABLEAU_TOO_LARGE), then explicitness, c, b. where (may be NULL)
 * gets its location. */
osc_tableau_error osc_tableau_validate(const osc_tableau *t, osc_tableau_where *where);
/* One line for an error code, e.g. "c is not the row sum of a". */
const char *osc_tableau_error_text(osc_tableau_error e);

/* The highest p such that the rooted-tree order conditions of every order <= p hold:
 * sum_i b_i Phi_i(t) = 1 / gamma(t) for the trees t of up to p nodes (1, 1, 2, 4, 9, 20, 48, 115
 * of orders 1 to 8, generated: lib/trees.h), with c as given (validated as the row sums of a).
 * The trees are checked up to the linear order (osc_tableau_linear_order), which bounds p: the
 * linear problem y' = lambda y is one the trees cover, and its condition of order k is the tall
 * tree's. So p is the tableau's order, not a cap: a tableau of at most 8 stages can reach 6
 * (order 7 takes 9 stages, Butcher's barrier). A condition holds when |Phi(t) - 1/gamma(t)| <= OSC_TABLEAU_TREE_TOL(|t|, s) * Phi_abs(t),
 * Phi_abs the same sum over |a|, |b|, |c|: a product of |t| coefficients, each within a
 * rounding of its exact value, summed over up to s^(|t|-1) terms carries a relative error of at
 * most (|t| + s + |t| s) u of Phi_abs; the tolerance is 4 times that in eps (8 in u). 0 if even
 * sum b = 1 fails; -1 for a NULL tableau, a stage count out of range, or a coefficient not
 * finite or beyond OSC_TABLEAU_COEF_MAX (which the checks cannot judge), or when memory for the
 * trees could not be had. A comparison with a non-finite side fails: no order is claimed from
 * overflowed arithmetic. */
int osc_tableau_coefficient_order(const osc_tableau *t);
#define OSC_TABLEAU_TREE_TOL(order, s)                                                            \
    (4.0 * ((order) + (s) + (order) * (s)) * 2.220446049250313e-16)

/* The same on x'' = f(x), a force that does not depend on v, stepped as the first-order system
 * (x, v)' = (v, f(x)): the tableau then is the RKN method abar = A^2, bbar = b^T A, a = A (rkn.h),
 * whose conditions (Hairer, Norsett, Wanner I, Section II.14, the special Nystrom trees) are the
 * tableau's rooted-tree conditions for the trees whose vertices can be labelled "x' = v" or
 * "v' = f" so that a v' = f vertex has only x' = v children (f reads x alone) and an x' = v
 * vertex at most one child, a v' = f one (v enters linearly): all 8 trees of order <= 4, 8
 * of the 9 of order 5, then 15 of 20, 29 of 48, 55 of 115. The first left out is b.(c A c^2) =
 * 1/15, whose root has two children, one of them with two children of its own: neither label
 * fits its root. So this is osc_tableau_coefficient_order over fewer trees, equal to it or
 * higher (5 where it is 4 for a tableau that misses only that tree), checked likewise up to
 * the linear order (which x'' = -w2 x reads: R(z) on the imaginary axis). -1 likewise. */
int osc_tableau_nystrom_coefficient_order(const osc_tableau *t);

/* The order to which the stability polynomial R(z) = 1 + z b^T (I - zA)^{-1} 1 matches exp(z):
 * the highest p with b^T A^(k-1) 1 = 1/k! for k = 1..p (same tolerance as the tree of order k
 * it is, the tall tree). This is all a linear problem such as the oscillator measures: a method
 * can have a higher linear order than coefficient order. At most the stage count for an
 * explicit tableau (b^T A^s 1 = 0). -1 as for osc_tableau_coefficient_order. */
int osc_tableau_linear_order(const osc_tableau *t);

/* ---- a tableau as a method the batch runs (lib/methods/tableau_method.c) ----------------------
 *
 * Fills *out with a method that steps the first-order system (x, v)' = (v, -w2 x - gam v - g)
 * by the tableau, in double and float, with its scalar references (double, float, long double;
 * no fma, stage by stage as the formula above reads) and kernels (fma, the same formula; the
 * batch's advance and the fused advance_audited). The coefficients are copied into one of
 * OSC_TABLEAU_METHOD_SLOTS process-wide slots, which the kernels read (osc_kernels carries no
 * context): the method stays valid until osc_tableau_method_release. name (copied, at most
 * OSC_TABLEAU_NAME_MAX bytes with its NUL) is not checked against the registry here, nor is the
 * method added to it. fma_per_step counts the kernel's operations: per stage 2 nnz(a_i) + 2
 * (the two updates from earlier stages and the force, a_i's nonzero entries), plus 2 nnz(b).
 * declared_order is both order and order_damped. Returns OSC_OK, OSC_EINVAL (NULL argument,
 * invalid tableau, empty or too long name, declared_order < 1) or OSC_ENOMEM (no free slot). */
#define OSC_TABLEAU_METHOD_SLOTS 16
#define OSC_TABLEAU_NAME_MAX 64
int osc_method_from_tableau(const osc_tableau *t, const char *name, int declared_order,
                            osc_method *out);
/* Give back the slot of a method osc_method_from_tableau made (no batch may still use it);
 * OSC_EINVAL for another method. */
int osc_tableau_method_release(const osc_method *m);

#ifdef __cplusplus
}
#endif
#endif
