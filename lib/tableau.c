/* Butcher tableaus: validation and order conditions (tableau.h). */
#include "tableau.h"

#include <math.h>

#include "stage_vec.h"
#include "trees.h"

#define S_MAX OSC_TABLEAU_MAX_STAGES
_Static_assert(S_MAX == OSC_STAGE_VEC_MAX, "stage vectors hold every stage");

static bool stages_ok(const osc_tableau *t)
{
    return t && t->stages >= 1 && t->stages <= S_MAX;
}

static osc_tableau_error located(osc_tableau_error e, int row, int col, osc_tableau_where *where)
{
    if (where)
        where->row = row, where->col = col;
    return e;
}

static bool not_finite(double x) { return !isfinite(x); }
static bool too_large(double x) { return fabs(x) > OSC_TABLEAU_COEF_MAX; }

/* The first entry of a, b, c (in that order) that is `bad`, as error e. */
static osc_tableau_error check_entries(const osc_tableau *t, bool (*bad)(double),
                                       osc_tableau_error e, osc_tableau_where *where)
{
    const int s = t->stages;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++)
            if (bad(t->a[i][j]))
                return located(e, i, j, where);
    for (int i = 0; i < s; i++)
        if (bad(t->b[i]))
            return located(e, -1, i, where);
    for (int i = 0; i < s; i++)
        if (bad(t->c[i]))
            return located(e, i, -1, where);
    return located(OSC_TABLEAU_OK, -1, -1, where);
}

static osc_tableau_error check_values(const osc_tableau *t, osc_tableau_where *where)
{
    osc_tableau_error e = check_entries(t, not_finite, OSC_TABLEAU_NOT_FINITE, where);
    return e ? e : check_entries(t, too_large, OSC_TABLEAU_TOO_LARGE, where);
}

/* Whether the order checks can judge t (tableau.h): stages in range, coefficients finite and
 * within OSC_TABLEAU_COEF_MAX. */
static bool judgeable(const osc_tableau *t)
{
    return stages_ok(t) && check_values(t, NULL) == OSC_TABLEAU_OK;
}

osc_tableau_error osc_tableau_validate(const osc_tableau *t, osc_tableau_where *where)
{
    if (!stages_ok(t))
        return located(OSC_TABLEAU_BAD_STAGES, -1, -1, where);
    osc_tableau_error e = check_values(t, where);
    if (e != OSC_TABLEAU_OK)
        return e;
    const int s = t->stages;
    for (int i = 0; i < s; i++)
        for (int j = i; j < s; j++)
            if (t->a[i][j] != 0)
                return located(OSC_TABLEAU_NOT_EXPLICIT, i, j, where);
    for (int i = 0; i < s; i++) {
        double sum = 0, mag = fabs(t->c[i]);
        for (int j = 0; j < i; j++)
            sum += t->a[i][j], mag += fabs(t->a[i][j]);
        if (fabs(t->c[i] - sum) > OSC_TABLEAU_SUM_TOL(s) * fmax(1, mag))
            return located(OSC_TABLEAU_C_NOT_ROW_SUM, i, -1, where);
    }
    double bsum = 0, bmag = 0;
    for (int i = 0; i < s; i++)
        bsum += t->b[i], bmag += fabs(t->b[i]);
    if (fabs(bsum - 1) > OSC_TABLEAU_SUM_TOL(s) * fmax(1, bmag))
        return located(OSC_TABLEAU_B_SUM, -1, -1, where);
    return located(OSC_TABLEAU_OK, -1, -1, where);
}

const char *osc_tableau_error_text(osc_tableau_error e)
{
    switch (e) {
    case OSC_TABLEAU_OK: return "valid";
    case OSC_TABLEAU_BAD_STAGES: return "the number of stages is not between 1 and 8";
    case OSC_TABLEAU_NOT_FINITE: return "a coefficient is not a finite number";
    case OSC_TABLEAU_NOT_EXPLICIT: return "a is not strictly lower triangular (not explicit)";
    case OSC_TABLEAU_C_NOT_ROW_SUM: return "c is not the row sum of a";
    case OSC_TABLEAU_B_SUM: return "the weights b do not sum to 1";
    case OSC_TABLEAU_TOO_LARGE:
        return "a coefficient exceeds 1000 in magnitude";
    }
    return "unknown tableau error";
}

/* ---- the elementary weights --------------------------------------------------------------- */

/* The tableau's a, b, c either as given or in absolute value. */
typedef osc_svec vec;
typedef struct coefs { int s; double a[S_MAX][S_MAX], b[S_MAX], c[S_MAX]; } coefs;

static coefs coefs_of(const osc_tableau *t, bool absolute)
{
    coefs k = {.s = t->stages};
    for (int i = 0; i < k.s; i++) {
        for (int j = 0; j < i; j++) /* strictly lower: the rest stays 0 */
            k.a[i][j] = absolute ? fabs(t->a[i][j]) : t->a[i][j];
        k.b[i] = absolute ? fabs(t->b[i]) : t->b[i];
        k.c[i] = absolute ? fabs(t->c[i]) : t->c[i];
    }
    return k;
}

static vec ones(const coefs *k) { return osc_svec_ones(k->s); }
/* A x */
static vec amul(const coefs *k, vec x) { return osc_svec_mul(k->s, k->a, x); }
/* b^T x */
static double bdot(const coefs *k, vec x) { return osc_svec_dot(k->s, k->b, x); }

/* What a visit of the trees (trees.h) checks: b.Phi(t) = 1/gamma(t) for every tree, or only the
 * Nystrom ones; a failure lowers the bound to one below its order. */
typedef struct tree_check {
    const coefs *k, *kabs;
    bool nystrom_only;
    int *order;
} tree_check;

static void check_tree(const osc_tree *t, void *ctx)
{
    const tree_check *ch = ctx;
    if (ch->nystrom_only && !t->nystrom)
        return;
    if (!osc_tree_condition_holds(bdot(ch->k, t->phi), bdot(ch->kabs, t->phi_abs), 1 / t->gamma, t->order,
                         ch->k->s))
        *ch->order = t->order - 1;
}

/* The trees are checked up to the linear order, which bounds the coefficient order (the linear
 * problem y' = lambda y is one of the problems the trees' conditions cover, and its condition
 * of order p is the tall tree's): so the order found is the tableau's, never a cap. */
static int order_of_trees(const osc_tableau *t, bool nystrom_only)
{
    int order = osc_tableau_linear_order(t);
    if (order < 0)
        return -1;
    const coefs k = coefs_of(t, false), kabs = coefs_of(t, true);
    const osc_tree_kinds kinds = {.s = k.s, .fat = k.a, .fat_leaf = k.c},
                         kinds_abs = {.s = k.s, .fat = kabs.a, .fat_leaf = kabs.c};
    tree_check ch = {.k = &k, .kabs = &kabs, .nystrom_only = nystrom_only, .order = &order};
    return osc_trees_visit(&kinds, &kinds_abs, &order, check_tree, &ch) ? order : -1;
}

int osc_tableau_coefficient_order(const osc_tableau *t) { return order_of_trees(t, false); }

int osc_tableau_nystrom_coefficient_order(const osc_tableau *t)
{
    return order_of_trees(t, true);
}

/* b^T A^(p-1) 1 = 1/p! for p = 1, 2, ...: the coefficients of R(z) against exp(z)'s. */
int osc_tableau_linear_order(const osc_tableau *t)
{
    if (!judgeable(t))
        return -1;
    const coefs k = coefs_of(t, false), kabs = coefs_of(t, true);
    vec w = ones(&k), wabs = ones(&kabs);
    double factorial = 1;
    for (int p = 1; p <= k.s + 1; p++) {
        factorial *= p;
        if (!osc_tree_condition_holds(bdot(&k, w), bdot(&kabs, wabs), 1 / factorial, p, k.s))
            return p - 1;
        w = amul(&k, w), wabs = amul(&kabs, wabs);
    }
    return k.s; /* not reached for an explicit tableau: b^T A^s 1 = 0 */
}
