/* Runge-Kutta-Nystrom tableaus: validation and order conditions (rkn.h). */
#include "rkn.h"

#include <math.h>

#include "rkn_internal.h"
#include "stage_vec.h"
#include "trees.h"

#define S_MAX OSC_RKN_MAX_STAGES
_Static_assert(S_MAX == OSC_STAGE_VEC_MAX, "stage vectors hold every stage");

static bool stages_ok(const osc_rkn_tableau *t)
{
    return t && t->stages >= 1 && t->stages <= S_MAX;
}

static osc_rkn_error located(osc_rkn_error e, osc_rkn_field field, int row, int col,
                             osc_rkn_where *where)
{
    if (where)
        *where = (osc_rkn_where){field, row, col};
    return e;
}

/* ---- validation ------------------------------------------------------------------------------ */

static bool not_finite(double x) { return !isfinite(x); }
static bool too_large(double x) { return fabs(x) > OSC_TABLEAU_COEF_MAX; }

static osc_rkn_error matrix_check(const double m[][S_MAX], int s, bool (*bad)(double),
                                  osc_rkn_error e, osc_rkn_field field, osc_rkn_where *where)
{
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++)
            if (bad(m[i][j]))
                return located(e, field, i, j, where);
    return OSC_RKN_OK;
}

/* A weight vector's entry i is at (-1, i), the nodes' at (i, -1), as in osc_tableau_where. */
static osc_rkn_error vector_check(const double *x, int s, bool (*bad)(double), osc_rkn_error e,
                                  osc_rkn_field field, bool is_nodes, osc_rkn_where *where)
{
    for (int i = 0; i < s; i++)
        if (bad(x[i]))
            return located(e, field, is_nodes ? i : -1, is_nodes ? -1 : i, where);
    return OSC_RKN_OK;
}

/* The first entry of abar, a, bbar, b, c (in that order) that is `bad`, as error e. */
static osc_rkn_error check_entries(const osc_rkn_tableau *t, bool (*bad)(double),
                                   osc_rkn_error e, osc_rkn_where *where)
{
    const int s = t->stages;
    osc_rkn_error r;
    if ((r = matrix_check(t->abar, s, bad, e, OSC_RKN_FIELD_ABAR, where)) ||
        (r = matrix_check(t->a, s, bad, e, OSC_RKN_FIELD_A, where)) ||
        (r = vector_check(t->bbar, s, bad, e, OSC_RKN_FIELD_BBAR, false, where)) ||
        (r = vector_check(t->b, s, bad, e, OSC_RKN_FIELD_B, false, where)) ||
        (r = vector_check(t->c, s, bad, e, OSC_RKN_FIELD_C, true, where)))
        return r;
    return OSC_RKN_OK;
}

static osc_rkn_error check_values(const osc_rkn_tableau *t, osc_rkn_where *where)
{
    osc_rkn_error e = check_entries(t, not_finite, OSC_RKN_NOT_FINITE, where);
    return e ? e : check_entries(t, too_large, OSC_RKN_TOO_LARGE, where);
}

/* Whether the order checks can judge t (rkn.h): stages in range, coefficients finite and within
 * OSC_TABLEAU_COEF_MAX. */
static bool judgeable(const osc_rkn_tableau *t)
{
    return stages_ok(t) && check_values(t, NULL) == OSC_RKN_OK;
}

static osc_rkn_error check_explicit(const double m[][S_MAX], int s, osc_rkn_field field,
                                    osc_rkn_where *where)
{
    for (int i = 0; i < s; i++)
        for (int j = i; j < s; j++)
            if (m[i][j] != 0)
                return located(OSC_RKN_NOT_EXPLICIT, field, i, j, where);
    return OSC_RKN_OK;
}

/* |sum_i x_i - want| within the tableau's tolerance of the terms' magnitude. */
static bool sums_to(const double *x, int s, double want)
{
    double sum = 0, mag = 0;
    for (int i = 0; i < s; i++)
        sum += x[i], mag += fabs(x[i]);
    return fabs(sum - want) <= OSC_TABLEAU_SUM_TOL(s) * fmax(1, mag);
}

osc_rkn_error osc_rkn_validate(const osc_rkn_tableau *t, osc_rkn_where *where)
{
    if (!stages_ok(t))
        return located(OSC_RKN_BAD_STAGES, OSC_RKN_FIELD_NONE, -1, -1, where);
    const int s = t->stages;
    osc_rkn_error e;
    if ((e = check_values(t, where)) ||
        (e = check_explicit(t->abar, s, OSC_RKN_FIELD_ABAR, where)) ||
        (e = check_explicit(t->a, s, OSC_RKN_FIELD_A, where)))
        return e;
    for (int i = 0; i < s; i++) {
        double sum = 0, mag = fabs(t->c[i]);
        for (int j = 0; j < i; j++)
            sum += t->a[i][j], mag += fabs(t->a[i][j]);
        if (fabs(t->c[i] - sum) > OSC_TABLEAU_SUM_TOL(s) * fmax(1, mag))
            return located(OSC_RKN_C_NOT_ROW_SUM, OSC_RKN_FIELD_C, i, -1, where);
    }
    if (!sums_to(t->bbar, s, 0.5))
        return located(OSC_RKN_BBAR_SUM, OSC_RKN_FIELD_BBAR, -1, -1, where);
    if (!sums_to(t->b, s, 1))
        return located(OSC_RKN_B_SUM, OSC_RKN_FIELD_B, -1, -1, where);
    return located(OSC_RKN_OK, OSC_RKN_FIELD_NONE, -1, -1, where);
}

const char *osc_rkn_error_text(osc_rkn_error e)
{
    switch (e) {
    case OSC_RKN_OK: return "valid";
    case OSC_RKN_BAD_STAGES: return "the number of stages is not between 1 and 8";
    case OSC_RKN_NOT_FINITE: return "a coefficient is not a finite number";
    case OSC_RKN_NOT_EXPLICIT: return "abar or a is not strictly lower triangular (not explicit)";
    case OSC_RKN_C_NOT_ROW_SUM: return "c is not the row sum of a";
    case OSC_RKN_BBAR_SUM: return "the position weights bbar do not sum to 1/2";
    case OSC_RKN_B_SUM: return "the velocity weights b do not sum to 1";
    case OSC_RKN_TOO_LARGE:
        return "a coefficient exceeds 1000 in magnitude";
    }
    return "unknown RKN tableau error";
}

const char *osc_rkn_field_name(osc_rkn_field f)
{
    switch (f) {
    case OSC_RKN_FIELD_NONE: return "stages";
    case OSC_RKN_FIELD_ABAR: return "abar";
    case OSC_RKN_FIELD_A: return "a";
    case OSC_RKN_FIELD_BBAR: return "bbar";
    case OSC_RKN_FIELD_B: return "b";
    case OSC_RKN_FIELD_C: return "c";
    }
    return "unknown";
}

/* ---- the Nystrom trees ----------------------------------------------------------------------- */

/* The coefficients as given or in absolute value; entries outside the stages (and on or above
 * the diagonal) 0. */
typedef struct coefs {
    int s;
    double abar[S_MAX][S_MAX], a[S_MAX][S_MAX], bbar[S_MAX], b[S_MAX], c[S_MAX];
} coefs;

static coefs coefs_of(const osc_rkn_tableau *t, bool absolute)
{
    coefs k = {.s = t->stages};
    for (int i = 0; i < k.s; i++) {
        for (int j = 0; j < i; j++) {
            k.abar[i][j] = absolute ? fabs(t->abar[i][j]) : t->abar[i][j];
            k.a[i][j] = absolute ? fabs(t->a[i][j]) : t->a[i][j];
        }
        k.bbar[i] = absolute ? fabs(t->bbar[i]) : t->bbar[i];
        k.b[i] = absolute ? fabs(t->b[i]) : t->b[i];
        k.c[i] = absolute ? fabs(t->c[i]) : t->c[i];
    }
    return k;
}

/* What a visit of the Nystrom trees (trees.h) checks; a failure lowers the bound. */
typedef struct tree_check {
    const coefs *k, *kabs;
    int *order;
} tree_check;

/* b.Phi(t) = 1/gamma(t) is of order rho(t), bbar.Phi(t) = 1/((rho + 1) gamma) of order rho(t) + 1
 * (it enters x' with one more factor h). The order is one less than the lowest order of a
 * condition that fails. */
static void check_tree(const osc_tree *t, void *ctx)
{
    const tree_check *ch = ctx;
    const int rho = t->order, s = ch->k->s;
    if (!osc_tree_condition_holds(osc_svec_dot(s, ch->k->b, t->phi), osc_svec_dot(s, ch->kabs->b, t->phi_abs),
                         1 / t->gamma, rho, s))
        *ch->order = rho - 1;
    else if (rho + 1 <= *ch->order &&
             !osc_tree_condition_holds(osc_svec_dot(s, ch->k->bbar, t->phi),
                              osc_svec_dot(s, ch->kabs->bbar, t->phi_abs),
                              1 / ((rho + 1) * t->gamma), rho + 1, s))
        *ch->order = rho;
}

/* Checked up to the linear order, which bounds the coefficient order (the linear problem is one
 * of those the trees cover): the order found is the tableau's, never a cap. */
int osc_rkn_coefficient_order(const osc_rkn_tableau *t, bool velocity_dependent)
{
    int order = osc_rkn_linear_order(t, velocity_dependent);
    if (order < 0)
        return -1;
    const coefs k = coefs_of(t, false), kabs = coefs_of(t, true);
    const osc_tree_kinds kinds = {.s = k.s, .fat = velocity_dependent ? k.a : NULL,
                                  .meagre = k.abar, .c = k.c},
                         kinds_abs = {.s = k.s, .fat = velocity_dependent ? kabs.a : NULL,
                                      .meagre = kabs.abar, .c = kabs.c};
    tree_check ch = {.k = &k, .kabs = &kabs, .order = &order};
    return osc_trees_visit(&kinds, &kinds_abs, &order, check_tree, &ch) ? order : -1;
}

/* ---- the linear problem ---------------------------------------------------------------------- */

/* Polynomials in k = -w2 h^2 and d = -gam h: p[m][n] is the coefficient of k^m d^n. The maps
 * are checked to order 2 S_MAX + 1 (where an s-stage method fails at the latest, rkn.h), which
 * needs every monomial with 2m + n <= 2 S_MAX + 2 (order 2m + n - 1 in the (v, x) entry). */
enum { LIN_MAX_ORDER = 2 * S_MAX + 1, PK = S_MAX + 2, PD = 2 * S_MAX + 3 };
typedef struct poly {
    double p[PK][PD];
} poly;
/* A linear form in the scaled state: x-coefficient and (h v)-coefficient. */
typedef struct form {
    poly x, hv;
} form;

static void poly_axpy(poly *y, double alpha, const poly *x)
{
    for (int m = 0; m < PK; m++)
        for (int n = 0; n < PD; n++)
            y->p[m][n] += alpha * x->p[m][n];
}

/* y += k x (kd false) or d x (kd true), dropping what falls outside the array */
static void poly_add_shifted(poly *y, const poly *x, bool by_d)
{
    for (int m = 0; m + !by_d < PK; m++)
        for (int n = 0; n + by_d < PD; n++)
            y->p[m + !by_d][n + by_d] += x->p[m][n];
}

static void form_axpy(form *y, double alpha, const form *x)
{
    poly_axpy(&y->x, alpha, &x->x);
    poly_axpy(&y->hv, alpha, &x->hv);
}

/* G = h^2 F = k X + d H for the linear force (with gravity 0). */
static form force(const form *X, const form *H)
{
    form g = {0};
    poly_add_shifted(&g.x, &X->x, false), poly_add_shifted(&g.x, &H->x, true);
    poly_add_shifted(&g.hv, &X->hv, false), poly_add_shifted(&g.hv, &H->hv, true);
    return g;
}

/* The method's map on (x, h v) = the unit forms: x' into out[0], h v' into out[1]. With the
 * absolute coefficients (and k, d taken positive) it bounds the sums' magnitudes. The forms of
 * the stages are large (3 kB each): static storage would not be thread-safe, so they are
 * built on the stack one at a time, keeping only the forces. */
static void method_map(const coefs *k, form out[2])
{
    form G[S_MAX];
    form x = {0}, hv = {0};
    x.x.p[0][0] = 1, hv.hv.p[0][0] = 1;
    for (int i = 0; i < k->s; i++) {
        form X = x, H = hv;
        form_axpy(&X, k->c[i], &hv);
        for (int j = 0; j < i; j++) {
            form_axpy(&X, k->abar[i][j], &G[j]);
            form_axpy(&H, k->a[i][j], &G[j]);
        }
        G[i] = force(&X, &H);
    }
    out[0] = x, out[1] = hv;
    form_axpy(&out[0], 1, &hv);
    for (int i = 0; i < k->s; i++) {
        form_axpy(&out[0], k->bbar[i], &G[i]);
        form_axpy(&out[1], k->b[i], &G[i]);
    }
}

/* exp(S), S = [[0, 1], [k, d]], as its series: (x, h v) after one step of the exact flow. All
 * terms are positive: the sum is accurate to a few roundings. */
static void exact_map(form out[2])
{
    static const form zero;
    form term[2] = {zero, zero}; /* S^q / q! applied to the unit forms */
    term[0].x.p[0][0] = 1, term[1].hv.p[0][0] = 1;
    out[0] = term[0], out[1] = term[1];
    /* every entry of S is of order 1 in h (monomial_order: 1 at (x, h v), k at (h v, x), d at
     * (h v, h v)), so S^q / q! is the part of order q */
    for (int q = 1; q <= LIN_MAX_ORDER; q++) {
        form next[2];
        /* (S T)_x = T_hv; (S T)_hv = k T_x + d T_hv */
        next[0] = term[1];
        next[1] = force(&term[0], &term[1]);
        for (int r = 0; r < 2; r++) {
            term[r] = zero;
            form_axpy(&term[r], 1.0 / q, &next[r]);
            form_axpy(&out[r], 1, &term[r]);
        }
    }
}

/* The order in h of monomial k^m d^n in row r (0: x', 1: v' scaled by h), column q (0: x,
 * 1: h v): x' = ... + k^m d^n h^(2m+n) x, + k^m d^n h^(2m+n) (h v); v' loses one h. */
static int monomial_order(int r, int q, int m, int n)
{
    return 2 * m + n + q - r;
}

static const poly *entry(const form out[2], int r, int q)
{
    return q == 0 ? &out[r].x : &out[r].hv;
}

int osc_rkn_linear_order(const osc_rkn_tableau *t, bool damped)
{
    if (!judgeable(t))
        return -1;
    const coefs k = coefs_of(t, false), kabs = coefs_of(t, true);
    form got[2], mag[2], want[2];
    method_map(&k, got);
    method_map(&kabs, mag);
    exact_map(want);
    int order = LIN_MAX_ORDER;
    for (int r = 0; r < 2; r++)
        for (int q = 0; q < 2; q++)
            for (int m = 0; m < PK; m++)
                for (int n = 0; n < (damped ? PD : 1); n++) {
                    const int o = monomial_order(r, q, m, n);
                    if (o < 1 || o > LIN_MAX_ORDER)
                        continue;
                    const double g = entry(got, r, q)->p[m][n], w = entry(want, r, q)->p[m][n];
                    const double bound = entry(mag, r, q)->p[m][n] + fabs(w);
                    if (!osc_tree_condition_holds(g, bound, w, o, k.s) && o - 1 < order)
                        order = o - 1;
                }
    return order;
}

/* sum_{m,n} p[m][n] k^m d^n, the powers by repeated products */
static double poly_at(const poly *p, double k, double d)
{
    double sum = 0, km = 1;
    for (int m = 0; m < PK; m++, km *= k) {
        double kmdn = km;
        for (int n = 0; n < PD; n++, kmdn *= d)
            sum += p->p[m][n] * kmdn;
    }
    return sum;
}

int osc_rkn_linear_map(const osc_rkn_tableau *t, double k, double d, double M[2][2])
{
    if (!judgeable(t))
        return -1;
    const coefs c = coefs_of(t, false);
    form map[2];
    method_map(&c, map);
    for (int r = 0; r < 2; r++)
        for (int q = 0; q < 2; q++)
            M[r][q] = poly_at(entry(map, r, q), k, d);
    return 0;
}
