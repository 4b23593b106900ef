/* Rooted trees generated with their elementary weights: the order conditions of Runge-Kutta
 * tableaus (Butcher's trees, tableau.c) and of Runge-Kutta-Nystrom ones (the Nystrom trees,
 * rkn.c). Private to the library.
 *
 * A tree's root is a fat vertex (f). A fat vertex's children are any number of
 *     meagre leaves                  weight c                          (a derivative of f by x)
 *     meagre vertices with a fat son weight meagre . Phi(son's subtree) (that son: x'' = f)
 *     fat children                   weight fat . Phi(child's subtree)  (a derivative by v)
 * and its elementary weight Phi (a vector over the stages) is the elementwise product of its
 * children's weights (1 for a leaf root). order counts the vertices; gamma is the density of the
 * tree with the colours ignored: order times the product of the children's subtrees' gammas.
 * Butcher's trees are the trees of fat vertices alone (fat = A, and a leaf's weight A 1 taken as
 * c), the special Nystrom trees of x'' = f(x) those without fat children (meagre = abar), the
 * general ones of x'' = f(x, v) all (fat = a, meagre = abar). Each tree is generated once (its
 * children a multiset), in increasing order. */
#ifndef OSC_TREES_H
#define OSC_TREES_H

#include <math.h>
#include <stdbool.h>

#include "stage_vec.h"
#include "tableau.h"

/* Which children the trees' vertices may have, and the matrices and vectors their weights are
 * made of; NULL leaves a kind out. */
typedef struct osc_tree_kinds {
    int s;                                        /* stages */
    const double (*fat)[OSC_STAGE_VEC_MAX];       /* fat children: weight fat Phi */
    const double (*meagre)[OSC_STAGE_VEC_MAX];    /* meagre vertices with a fat son: meagre Phi */
    const double *c;                              /* meagre leaves' weight */
    const double *fat_leaf;                       /* a fat leaf's weight instead of fat 1 */
} osc_tree_kinds;

typedef struct osc_tree {
    int order;
    double gamma;
    bool velocity;      /* has a fat child somewhere (the force reads v) */
    bool nystrom;       /* fat vertices only, labellable x' = v / v' = f (tableau.h) */
    osc_svec phi, phi_abs; /* Phi with the coefficients as given and in absolute value */
} osc_tree;

/* Whether an order condition of this order holds for s stages: |phi - want| within
 * OSC_TABLEAU_TREE_TOL(order, s) of phi_abs, the same sum over the coefficients' magnitudes
 * (tableau.h); false when either side is NaN or inf: an overflowed sum proves nothing. */
static inline bool osc_tree_condition_holds(double phi, double phi_abs, double want, int order,
                                            int s)
{
    return isfinite(phi_abs) && fabs(phi - want) <= OSC_TABLEAU_TREE_TOL(order, s) * phi_abs;
}

/* Calls visit(tree, ctx) for every tree of order 1, 2, ... up to *max_order, which visit may
 * lower as it goes (no tree beyond the bound is visited, even one of the order being visited
 * when visit lowered it, and none beyond it is generated). kinds gives the weights,
 * kinds_abs the same kinds with the coefficients in absolute value. false when memory for the
 * trees could not be had (the visits made stand). */
bool osc_trees_visit(const osc_tree_kinds *kinds, const osc_tree_kinds *kinds_abs,
                     int *max_order, void (*visit)(const osc_tree *t, void *ctx), void *ctx);

#endif
