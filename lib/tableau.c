/* Butcher tableaus: validation and order conditions (tableau.h). */
#include "tableau.h"

#include <math.h>

#include "stage_vec.h"

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
static vec nodes(const coefs *k) { return osc_svec_of(k->s, k->c); }
/* A x */
static vec amul(const coefs *k, vec x) { return osc_svec_mul(k->s, k->a, x); }
/* x .* y, elementwise */
static vec emul(const coefs *k, vec x, vec y) { return osc_svec_emul(k->s, x, y); }
/* b^T x */
static double bdot(const coefs *k, vec x) { return osc_svec_dot(k->s, k->b, x); }

/* The 17 rooted trees of up to 5 nodes: order, gamma(t), and Phi(t) = b^T (stage weights). In
 * the comments c^2 is c .* c and products are elementwise unless written A(...). */
enum { NTREES = 17 };
static const int tree_order[NTREES] = {1, 2, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5};
static const double tree_gamma[NTREES] = {1,  2,  3,  6,  4,  8,  12, 24, 5,
                                          10, 15, 30, 20, 20, 40, 60, 120};

static void elementary_weights(const coefs *k, double phi[NTREES])
{
    const vec e = ones(k), c = nodes(k);
    const vec c2 = emul(k, c, c), c3 = emul(k, c2, c), ac = amul(k, c), ac2 = amul(k, c2);
    const vec aac = amul(k, ac), c_ac = emul(k, c, ac);
    int n = 0;
    phi[n++] = bdot(k, e);                      /* 1:  b.1 = 1 */
    phi[n++] = bdot(k, c);                      /* 2:  b.c = 1/2 */
    phi[n++] = bdot(k, c2);                     /* 3:  b.c^2 = 1/3 */
    phi[n++] = bdot(k, ac);                     /*     b.Ac = 1/6 */
    phi[n++] = bdot(k, c3);                     /* 4:  b.c^3 = 1/4 */
    phi[n++] = bdot(k, c_ac);                   /*     b.(c Ac) = 1/8 */
    phi[n++] = bdot(k, ac2);                    /*     b.A c^2 = 1/12 */
    phi[n++] = bdot(k, aac);                    /*     b.AAc = 1/24 */
    phi[n++] = bdot(k, emul(k, c3, c));         /* 5:  b.c^4 = 1/5 */
    phi[n++] = bdot(k, emul(k, c2, ac));        /*     b.(c^2 Ac) = 1/10 */
    phi[n++] = bdot(k, emul(k, c, ac2));        /*     b.(c A c^2) = 1/15 */
    phi[n++] = bdot(k, emul(k, c, aac));        /*     b.(c AAc) = 1/30 */
    phi[n++] = bdot(k, emul(k, ac, ac));        /*     b.(Ac Ac) = 1/20 */
    phi[n++] = bdot(k, amul(k, c3));            /*     b.A c^3 = 1/20 */
    phi[n++] = bdot(k, amul(k, c_ac));          /*     b.A(c Ac) = 1/40 */
    phi[n++] = bdot(k, amul(k, ac2));           /*     b.AA c^2 = 1/60 */
    phi[n++] = bdot(k, amul(k, aac));           /*     b.AAAc = 1/120 */
}

/* false when either side is NaN or inf: an overflowed sum proves nothing */
static bool condition_holds(double phi, double phi_abs, double want, int order, int s)
{
    return isfinite(phi_abs) && fabs(phi - want) <= OSC_TABLEAU_TREE_TOL(order, s) * phi_abs;
}

/* The tree that x'' = f(x) does not check: b.(c A c^2) = 1/15 (see tableau.h). */
enum { TREE_C_AC2 = 10 };

/* The order to which every tree but `skip` (-1: none) holds. */
static int order_of_trees(const osc_tableau *t, int skip)
{
    if (!judgeable(t))
        return -1;
    const coefs k = coefs_of(t, false), kabs = coefs_of(t, true);
    double phi[NTREES], phi_abs[NTREES];
    elementary_weights(&k, phi);
    elementary_weights(&kabs, phi_abs);
    int order = OSC_TABLEAU_MAX_TREE_ORDER;
    for (int n = 0; n < NTREES; n++)
        if (n != skip &&
            !condition_holds(phi[n], phi_abs[n], 1 / tree_gamma[n], tree_order[n], k.s) &&
            tree_order[n] - 1 < order)
            order = tree_order[n] - 1;
    return order;
}

int osc_tableau_coefficient_order(const osc_tableau *t) { return order_of_trees(t, -1); }

int osc_tableau_nystrom_coefficient_order(const osc_tableau *t)
{
    return order_of_trees(t, TREE_C_AC2);
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
        if (!condition_holds(bdot(&k, w), bdot(&kabs, wabs), 1 / factorial, p, k.s))
            return p - 1;
        w = amul(&k, w), wabs = amul(&kabs, wabs);
    }
    return k.s; /* not reached for an explicit tableau: b^T A^s 1 = 0 */
}
