/* The config's methods key: built-in methods by name, methods defined by their coefficients
 * and {include: PATH} lists of such definitions, read into the run's methods. */
#define _POSIX_C_SOURCE 200809L
#include "composition.h"
#include "config_loader.h"
#include "rkn.h"
#include "tableau.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The registry name a typo most likely meant: within 2 edits, or the only name it begins. */
static const char *nearest_method(const char *typed)
{
    const char *best = NULL, *prefixed = NULL;
    size_t dist = 3, nprefixed = 0;
    for (size_t i = 0; i < osc_method_count(); i++) {
        const char *name = osc_method_at(i)->name;
        size_t d = cfg_edit_distance(typed, name);
        if (d < dist) {
            dist = d;
            best = name;
        }
        if (*typed && strncmp(name, typed, strlen(typed)) == 0) {
            prefixed = name;
            nprefixed++;
        }
    }
    return best ? best : nprefixed == 1 ? prefixed : NULL;
}

static int method_of(const loader *L, const ynode *n, const osc_method **out)
{
    char buf[48], valid[512] = "";
    if (n->kind == YN_SCALAR && (*out = osc_method_find(n->text)))
        return 0;
    for (size_t i = 0; i < osc_method_count(); i++) {
        size_t used = strlen(valid);
        snprintf(valid + used, sizeof valid - used, "%s%s", i ? ", " : "",
                 osc_method_at(i)->name);
    }
    if (n->kind != YN_SCALAR)
        return fail_node(&L->c, n, "methods", "expected a method name, not %s (valid: %s)",
                         cfg_kind_name(n->kind), valid);
    const char *near = nearest_method(n->text);
    if (near)
        return fail_node(&L->c, n, "methods", "unknown method '%s' (did you mean '%s'?)",
                         cfg_excerpt(n, buf), near);
    return fail_node(&L->c, n, "methods", "unknown method '%s' (valid: %s)", cfg_excerpt(n, buf),
                     valid);
}

/* ---- methods defined by their coefficients ------------------------------------------------
 *
 * A `methods:` item that is a mapping defines a method: {name, family, order} and the family's
 * own keys. Each family is one entry of `families` below, with its keys and one function that
 * reads them into a config_user_method (a new family, e.g. Runge-Kutta-Nystrom, is one more
 * entry and one more function). {include: PATH} reads a YAML list of such definitions from
 * PATH (relative to the including config's directory); its errors name that file and line. */

_Static_assert(CONFIG_MAX_USER_METHODS <= OSC_TABLEAU_METHOD_SLOTS,
               "a config's tableau methods fit the library's slots");
#define CONFIG_MAX_DECLARED_ORDER 32

/* One definition being read: where it is, its name and declared order, its node. */
typedef struct definition {
    const ctx *c;
    const ynode *map;
    char prefix[48]; /* "methods[2]": the item's place in its file's list */
    const char *name;
    int order;
} definition;

/* "methods[2].b" */
static const char *def_key(const definition *d, const char *sub, char buf[96])
{
    snprintf(buf, 96, "%s%s%s", d->prefix, sub ? "." : "", sub ? sub : "");
    return buf;
}

/* A coefficient: a number or an exact fraction "A/B", quoted or not ("1/6" is the usual way to
 * write one in YAML); never NaN or Inf. */
static int coefficient(const ctx *c, const ynode *n, const char *key, double *out)
{
    if (n->kind != YN_SCALAR)
        return cfg_number(c, n, key, NUM_ANY, out);
    ynode plain = *n;
    plain.plain = true; /* quoting a coefficient does not make it a string */
    return cfg_number(c, &plain, key, NUM_ANY, out);
}

/* A list of at most `max` coefficients into v (count in *count), each node into at. */
static int coefficient_list(const definition *d, const ynode *n, const char *sub, size_t max,
                            double *v, const ynode **at, size_t *count)
{
    char key[96];
    def_key(d, sub, key);
    if (n->kind != YN_SEQ)
        return fail_node(d->c, n, key, "expected a list of coefficients, not %s",
                         n->kind == YN_MAP ? "a mapping" : "a single value");
    if (n->nkids > max)
        return fail_node(d->c, n, key, "%zu entries, more than the %zu allowed here", n->nkids,
                         max);
    int bad = 0;
    for (size_t i = 0; i < n->nkids; i++) {
        at[i] = n->kids[i];
        bad |= coefficient(d->c, n->kids[i], key, &v[i]);
    }
    *count = n->nkids;
    return bad;
}

/* What osc_method_from_tableau, _rkn or _composition returned (rc): 0 when it made the
 * method, else CONFIG_BAD after saying why at the definition: every one of the family's `slots`
 * (`what`, in the message) is taken, or the library refused this `of` the loader read as valid. */
static int method_made(const definition *d, int rc, int slots, const char *what, const char *of)
{
    if (rc == OSC_ENOMEM)
        return fail_node(d->c, d->map, d->prefix, "no free method slot: at most %d %s per process",
                         slots, what);
    if (rc != OSC_OK)
        return fail_node(d->c, d->map, d->prefix, "cannot make a method of this %s", of);
    return 0;
}

/* ---- family rk: explicit Runge-Kutta by its Butcher tableau ---- */

enum { RK_A, RK_B, RK_C, RK_NKEYS };
static const char *const rk_keys[RK_NKEYS] = {"a", "b", "c"};

/* Nodes of a tableau's entries, for locating osc_tableau_validate's errors (NULL: not given,
 * i.e. 0 or, for c, the row sum of a). */
typedef struct rk_nodes {
    const ynode *a[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES], *a_rows,
        *b[OSC_TABLEAU_MAX_STAGES], *b_list, *c[OSC_TABLEAU_MAX_STAGES];
} rk_nodes;

/* A strictly lower triangular matrix `sub` (a; abar): a list of rows, row i of at most as many
 * entries as rows (missing ones are 0). The row count is the stage count (1 to 8): *stages. */
static int read_matrix(const definition *d, const ynode *n, const char *sub, int *stages,
                       double m[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES],
                       const ynode *at[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES],
                       const ynode **rows)
{
    char key[96];
    def_key(d, sub, key);
    if (!n)
        return fail_node(d->c, d->map, key, "missing: a matrix, a list of rows (one per stage)");
    if (n->kind != YN_SEQ || n->nkids == 0)
        return fail_node(d->c, n, key, "expected a list of rows (one per stage), e.g. "
                                       "[[0], [\"1/2\", 0]]");
    if (n->nkids > OSC_TABLEAU_MAX_STAGES)
        return fail_node(d->c, n, key, "%zu stages, at most %d", n->nkids,
                         OSC_TABLEAU_MAX_STAGES);
    *stages = (int)n->nkids;
    *rows = n;
    int bad = 0;
    for (size_t i = 0; i < n->nkids; i++) {
        const ynode *row = n->kids[i];
        size_t count = 0;
        if (row->kind == YN_SEQ && row->nkids > n->nkids) {
            bad |= fail_node(d->c, row, key, "row %zu has %zu entries, more than the %zu stages",
                             i + 1, row->nkids, n->nkids);
            continue;
        }
        bad |= coefficient_list(d, row, sub, n->nkids, m[i], at[i], &count);
    }
    return bad;
}

/* a: a list of s rows (1 <= s <= 8), row i of at most s entries (missing ones are 0). */
static int rk_read_a(const definition *d, const ynode *n, osc_tableau *t, rk_nodes *at)
{
    return read_matrix(d, n, "a", &t->stages, t->a, at->a, &at->a_rows);
}

/* b (exactly s weights) and c (optional, exactly s nodes; default the row sums of a). */
static int rk_read_bc(const definition *d, const ynode *const *v, osc_tableau *t, rk_nodes *at)
{
    char key[96];
    size_t s = (size_t)t->stages, count = 0;
    int bad = 0;
    if (!v[RK_B])
        bad = fail_node(d->c, d->map, def_key(d, "b", key), "missing: the weights, a list of %zu",
                        s);
    else if (coefficient_list(d, v[RK_B], "b", OSC_TABLEAU_MAX_STAGES, t->b, at->b, &count))
        bad = CONFIG_BAD;
    else if (count != s)
        bad = fail_node(d->c, v[RK_B], def_key(d, "b", key),
                        "%zu weights for %zu stages (a has %zu rows)", count, s, s);
    at->b_list = v[RK_B];
    if (!v[RK_C]) {
        for (size_t i = 0; i < s; i++) /* the row sums, as osc_tableau_validate forms them */
            for (size_t j = 0; j < s; j++)
                t->c[i] += t->a[i][j];
        return bad;
    }
    if (coefficient_list(d, v[RK_C], "c", OSC_TABLEAU_MAX_STAGES, t->c, at->c, &count))
        return CONFIG_BAD;
    if (count != s)
        return fail_node(d->c, v[RK_C], def_key(d, "c", key),
                         "%zu nodes for %zu stages (a has %zu rows)", count, s, s);
    return bad;
}

/* Why coefficients are bounded (OSC_TABLEAU_COEF_MAX, tableau.h), after the entry's value. */
#define TOO_LARGE_WHY "(the sum and order checks cannot resolve their conditions beyond it)"

/* x in the fewest significant digits that read back as x: a coefficient just past the bound
 * (1000.0000000000001) shown as %g would read "1000". Returns buf. */
static const char *exactly(double x, char buf[32])
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}
/* A c the definition does not give is a's row sums: the user wrote no such entry. */
#define C_NOT_GIVEN " (not given: the row sum of a)"

/* OSC_TABLEAU_TOO_LARGE at the entry of a, b or c (a default c: the definition) it names. */
static int rk_too_large(const definition *d, const osc_tableau *t, const rk_nodes *at,
                        osc_tableau_where w, const char *why)
{
    char key[96], num[32];
    if (w.row >= 0 && w.col >= 0)
        return fail_node(d->c, at->a[w.row][w.col] ? at->a[w.row][w.col] : at->a_rows,
                         def_key(d, "a", key), "%s: row %d, entry %d is %s " TOO_LARGE_WHY, why,
                         w.row + 1, w.col + 1, exactly(t->a[w.row][w.col], num));
    if (w.row < 0)
        return fail_node(d->c, at->b[w.col] ? at->b[w.col] : at->b_list, def_key(d, "b", key),
                         "%s: entry %d is %s " TOO_LARGE_WHY, why, w.col + 1,
                         exactly(t->b[w.col], num));
    return fail_node(d->c, at->c[w.row] ? at->c[w.row] : d->map, def_key(d, "c", key),
                     "%s: c of stage %d%s is %s " TOO_LARGE_WHY, why, w.row + 1,
                     at->c[w.row] ? "" : C_NOT_GIVEN, exactly(t->c[w.row], num));
}

/* osc_tableau_validate's verdict, located at the entry it names. */
static int rk_validate(const definition *d, const osc_tableau *t, const rk_nodes *at)
{
    osc_tableau_where w;
    osc_tableau_error e = osc_tableau_validate(t, &w);
    if (e == OSC_TABLEAU_OK)
        return 0;
    char key[96];
    const char *why = osc_tableau_error_text(e);
    if (e == OSC_TABLEAU_NOT_EXPLICIT) {
        const ynode *n = at->a[w.row][w.col] ? at->a[w.row][w.col] : at->a_rows;
        return fail_node(d->c, n, def_key(d, "a", key),
                         "%s: row %d, entry %d is %g (a stage may read only earlier stages)",
                         why, w.row + 1, w.col + 1, t->a[w.row][w.col]);
    }
    if (e == OSC_TABLEAU_C_NOT_ROW_SUM) {
        double sum = 0;
        for (int j = 0; j < t->stages; j++)
            sum += t->a[w.row][j];
        const ynode *n = at->c[w.row] ? at->c[w.row] : d->map;
        return fail_node(d->c, n, def_key(d, "c", key),
                         "%s: c of stage %d is %.17g, the sum of a's row %d is %.17g", why,
                         w.row + 1, t->c[w.row], w.row + 1, sum);
    }
    if (e == OSC_TABLEAU_B_SUM) {
        double sum = 0;
        for (int i = 0; i < t->stages; i++)
            sum += t->b[i];
        return fail_node(d->c, at->b_list, def_key(d, "b", key), "%s: they sum to %.17g", why,
                         sum);
    }
    if (e == OSC_TABLEAU_TOO_LARGE)
        return rk_too_large(d, t, at, w, why);
    if (e == OSC_TABLEAU_NOT_FINITE && w.col < 0) /* a c not given: a's row sum overflowed */
        return fail_node(d->c, d->map, def_key(d, "c", key), "%s: c of stage %d" C_NOT_GIVEN
                         " is %g", why, w.row + 1, t->c[w.row]);
    return fail_node(d->c, d->map, d->prefix, "%s", why); /* stages and finiteness: read above */
}

static int define_rk(const definition *d, const ynode *const *v, config_user_method *out)
{
    osc_tableau t = {0};
    rk_nodes at = {0};
    if (rk_read_a(d, v[RK_A], &t, &at) | (t.stages ? rk_read_bc(d, v, &t, &at) : 0))
        return CONFIG_BAD;
    if (rk_validate(d, &t, &at))
        return CONFIG_BAD;
    int rc = osc_method_from_tableau(&t, d->name, d->order, &out->method);
    if (method_made(d, rc, OSC_TABLEAU_METHOD_SLOTS, "methods defined by coefficients", "tableau"))
        return CONFIG_BAD;
    out->family = "rk";
    out->release = osc_tableau_method_release;
    out->coefficient_order = osc_tableau_coefficient_order(&t);
    out->coefficient_order_undamped = osc_tableau_nystrom_coefficient_order(&t);
    out->linear_order = out->linear_order_undamped = osc_tableau_linear_order(&t);
    return 0;
}

/* ---- family rkn: explicit Runge-Kutta-Nystrom (rkn.h's form) ---- */

enum { RKN_ABAR, RKN_A, RKN_BBAR, RKN_B, RKN_C, RKN_NKEYS };
static const char *const rkn_keys[RKN_NKEYS] = {"abar", "a", "bbar", "b", "c"};

typedef struct rkn_nodes {
    const ynode *abar[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES], *abar_rows;
    const ynode *a[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES], *a_rows;
    const ynode *bbar[OSC_RKN_MAX_STAGES], *bbar_list, *b[OSC_RKN_MAX_STAGES], *b_list;
    const ynode *c[OSC_RKN_MAX_STAGES], *c_list;
} rkn_nodes;

_Static_assert(OSC_RKN_MAX_STAGES == OSC_TABLEAU_MAX_STAGES, "one matrix reader for both");

/* A list of exactly s coefficients `sub` (required unless v is NULL and optional). */
static int rkn_read_list(const definition *d, const ynode *n, const char *sub, int s, double *v,
                         const ynode **at, const ynode **list)
{
    char key[96];
    size_t count = 0;
    *list = n;
    if (!n)
        return fail_node(d->c, d->map, def_key(d, sub, key), "missing: a list of %d coefficients",
                         s);
    if (coefficient_list(d, n, sub, OSC_RKN_MAX_STAGES, v, at, &count))
        return CONFIG_BAD;
    if (count != (size_t)s)
        return fail_node(d->c, n, def_key(d, sub, key), "%zu entries for %d stages (abar has %d "
                         "rows)", count, s, s);
    return 0;
}

/* OSC_RKN_TOO_LARGE: the entry w names, and its value. */
static int rkn_too_large(const definition *d, const osc_rkn_tableau *t, osc_rkn_where w,
                         const ynode *n, bool c_given, const char *key, const char *why)
{
    char num[32];
    switch (w.field) {
    case OSC_RKN_FIELD_ABAR:
    case OSC_RKN_FIELD_A:
        return fail_node(d->c, n, key, "%s: row %d, entry %d is %s " TOO_LARGE_WHY, why,
                         w.row + 1, w.col + 1,
                         exactly((w.field == OSC_RKN_FIELD_A ? t->a : t->abar)[w.row][w.col],
                                 num));
    case OSC_RKN_FIELD_BBAR:
    case OSC_RKN_FIELD_B:
        return fail_node(d->c, n, key, "%s: entry %d is %s " TOO_LARGE_WHY, why, w.col + 1,
                         exactly((w.field == OSC_RKN_FIELD_B ? t->b : t->bbar)[w.col], num));
    default:
        return fail_node(d->c, n, key, "%s: c of stage %d%s is %s " TOO_LARGE_WHY, why, w.row + 1,
                         c_given ? "" : C_NOT_GIVEN, exactly(t->c[w.row], num));
    }
}

/* osc_rkn_validate's verdict, located at the entry (or list) it names. */
static int rkn_validate(const definition *d, const osc_rkn_tableau *t, const rkn_nodes *at)
{
    osc_rkn_where w;
    osc_rkn_error e = osc_rkn_validate(t, &w);
    if (e == OSC_RKN_OK)
        return 0;
    char key[96];
    const ynode *n = d->map;
    switch (w.field) {
    case OSC_RKN_FIELD_ABAR:
        n = w.row >= 0 && w.col >= 0 && at->abar[w.row][w.col] ? at->abar[w.row][w.col]
                                                                : at->abar_rows;
        break;
    case OSC_RKN_FIELD_A:
        n = w.row >= 0 && w.col >= 0 && at->a[w.row][w.col] ? at->a[w.row][w.col] : at->a_rows;
        break;
    case OSC_RKN_FIELD_BBAR:
        n = w.col >= 0 && at->bbar[w.col] ? at->bbar[w.col] : at->bbar_list;
        break;
    case OSC_RKN_FIELD_B:
        n = w.col >= 0 && at->b[w.col] ? at->b[w.col] : at->b_list;
        break;
    case OSC_RKN_FIELD_C:
        n = w.row >= 0 && at->c[w.row] ? at->c[w.row] : at->c_list;
        break;
    default:
        break;
    }
    const char *why = osc_rkn_error_text(e);
    def_key(d, osc_rkn_field_name(w.field), key);
    if (e == OSC_RKN_BBAR_SUM || e == OSC_RKN_B_SUM) {
        double sum = 0;
        for (int i = 0; i < t->stages; i++)
            sum += e == OSC_RKN_B_SUM ? t->b[i] : t->bbar[i];
        return fail_node(d->c, n ? n : d->map, key, "%s: they sum to %.17g", why, sum);
    }
    if (e == OSC_RKN_TOO_LARGE)
        return rkn_too_large(d, t, w, n ? n : d->map, at->c_list != NULL, key, why);
    if (e == OSC_RKN_NOT_FINITE && w.field == OSC_RKN_FIELD_C && !at->c_list) /* as in rk */
        return fail_node(d->c, d->map, key, "%s: c of stage %d" C_NOT_GIVEN " is %g", why,
                         w.row + 1, t->c[w.row]);
    if (e == OSC_RKN_NOT_EXPLICIT) { /* the library's text names both matrices; say which */
        const double(*m)[OSC_RKN_MAX_STAGES] = w.field == OSC_RKN_FIELD_A ? t->a : t->abar;
        return fail_node(d->c, n ? n : d->map, key,
                         "%s is not strictly lower triangular (not explicit): row %d, entry %d is "
                         "%g (a stage may read only earlier stages)",
                         osc_rkn_field_name(w.field), w.row + 1, w.col + 1, m[w.row][w.col]);
    }
    if (w.row >= 0 && w.col >= 0)
        return fail_node(d->c, n ? n : d->map, key, "%s: row %d, entry %d", why, w.row + 1,
                         w.col + 1);
    if (w.row >= 0 || w.col >= 0)
        return fail_node(d->c, n ? n : d->map, key, "%s: entry %d", why,
                         (w.row >= 0 ? w.row : w.col) + 1);
    return fail_node(d->c, n ? n : d->map, key, "%s", why);
}

static int define_rkn(const definition *d, const ynode *const *v, config_user_method *out)
{
    osc_rkn_tableau t = {0};
    rkn_nodes at = {0};
    int stages_a = 0;
    int bad = read_matrix(d, v[RKN_ABAR], "abar", &t.stages, t.abar, at.abar, &at.abar_rows);
    if (!t.stages)
        return CONFIG_BAD;
    bad |= read_matrix(d, v[RKN_A], "a", &stages_a, t.a, at.a, &at.a_rows);
    char key[96];
    if (stages_a && stages_a != t.stages)
        bad |= fail_node(d->c, v[RKN_A], def_key(d, "a", key),
                         "%d rows, but abar has %d (one row per stage in each)", stages_a,
                         t.stages);
    bad |= rkn_read_list(d, v[RKN_BBAR], "bbar", t.stages, t.bbar, at.bbar, &at.bbar_list);
    bad |= rkn_read_list(d, v[RKN_B], "b", t.stages, t.b, at.b, &at.b_list);
    if (v[RKN_C])
        bad |= rkn_read_list(d, v[RKN_C], "c", t.stages, t.c, at.c, &at.c_list);
    else /* the row sums of a, as osc_rkn_validate forms them */
        for (int i = 0; i < t.stages; i++)
            for (int j = 0; j < t.stages; j++)
                t.c[i] += t.a[i][j];
    if (bad || rkn_validate(d, &t, &at))
        return CONFIG_BAD;
    int rc = osc_method_from_rkn(&t, d->name, d->order, &out->method);
    if (method_made(d, rc, OSC_RKN_METHOD_SLOTS, "Runge-Kutta-Nystrom methods", "tableau"))
        return CONFIG_BAD;
    out->family = "rkn";
    out->release = osc_rkn_method_release;
    /* with drag the force depends on v: the general (velocity-dependent) conditions */
    out->coefficient_order = osc_rkn_coefficient_order(&t, true);
    out->linear_order = osc_rkn_linear_order(&t, true);
    out->coefficient_order_undamped = osc_rkn_coefficient_order(&t, false);
    out->linear_order_undamped = osc_rkn_linear_order(&t, false);
    return 0;
}

/* ---- family composition: substeps of a built-in method (composition.h) ---- */

enum { COMP_BASE, COMP_WEIGHTS, COMP_SYMMETRIC, COMP_NKEYS };
static const char *const comp_keys[COMP_NKEYS] = {"base", "weights", "symmetric"};

/* symmetric: true or false (default false). */
static int comp_symmetric(const definition *d, const ynode *n, bool *out)
{
    char key[96];
    *out = false;
    if (!n)
        return 0;
    if (n->kind == YN_SCALAR && n->plain && (!strcmp(n->text, "true") || !strcmp(n->text, "false"))) {
        *out = n->text[0] == 't';
        return 0;
    }
    return fail_node(d->c, n, def_key(d, "symmetric", key), "expected true or false");
}

/* base: a built-in method whose state is (x, v) (composition.h lists them). */
static int comp_base(const definition *d, const ynode *n, const osc_method **out)
{
    char key[96], buf[48], valid[512] = "";
    def_key(d, "base", key);
    if (!n)
        return fail_node(d->c, d->map, key, "missing: the built-in method to compose");
    for (size_t i = 0, used = 0; i < osc_method_count() && used < sizeof valid; i++)
        if (osc_composition_base_ok(osc_method_at(i)))
            used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s", used ? ", " : "",
                                     osc_method_at(i)->name);
    if (n->kind != YN_SCALAR)
        return fail_node(d->c, n, key, "expected a method name (valid: %s)", valid);
    *out = osc_method_find(n->text);
    if (!*out)
        return fail_node(d->c, n, key, "unknown built-in method '%s' (valid: %s)",
                         cfg_excerpt(n, buf), valid);
    if (!osc_composition_base_ok(*out))
        return fail_node(d->c, n, key, "'%s' cannot be composed: its state is not (x, v) as "
                         "given (valid: %s)", n->text, valid);
    return 0;
}

static int define_composition(const definition *d, const ynode *const *v, config_user_method *out)
{
    const osc_method *base = NULL;
    double w[OSC_COMPOSITION_MAX_SUBSTEPS];
    const ynode *at[OSC_COMPOSITION_MAX_SUBSTEPS];
    size_t count = 0;
    bool symmetric = false;
    char key[96];
    int bad = comp_base(d, v[COMP_BASE], &base);
    bad |= comp_symmetric(d, v[COMP_SYMMETRIC], &symmetric);
    if (!v[COMP_WEIGHTS])
        bad |= fail_node(d->c, d->map, def_key(d, "weights", key),
                         "missing: the substeps' weights, a list");
    else
        bad |= coefficient_list(d, v[COMP_WEIGHTS], "weights", OSC_COMPOSITION_MAX_SUBSTEPS, w,
                                at, &count);
    if (bad)
        return CONFIG_BAD;
    int where = -1;
    osc_composition_error e =
        osc_composition_validate(base, w, (int)count, symmetric, &where);
    if (e == OSC_COMPOSITION_SUM) {
        double sum = 0;
        for (int k = 0; k < osc_composition_substeps((int)count, symmetric); k++)
            sum += osc_composition_substep_weight(w, (int)count, k);
        return fail_node(d->c, v[COMP_WEIGHTS], def_key(d, "weights", key),
                         "%s: the %d substeps' weights sum to %.17g%s", osc_composition_error_text(e),
                         osc_composition_substeps((int)count, symmetric), sum,
                         symmetric ? " (symmetric: the list mirrored about its last entry)" : "");
    }
    char num[32];
    if (e == OSC_COMPOSITION_TOO_LARGE)
        return fail_node(d->c, at[where], def_key(d, "weights", key),
                         "%s: entry %d is %s " TOO_LARGE_WHY, osc_composition_error_text(e),
                         where + 1, exactly(w[where], num));
    if (e == OSC_COMPOSITION_BAD_COUNT)
        return fail_node(d->c, v[COMP_WEIGHTS], def_key(d, "weights", key), "%s: %d%s",
                         osc_composition_error_text(e),
                         osc_composition_substeps((int)count, symmetric),
                         symmetric ? " (symmetric: the list mirrored about its last entry)" : "");
    if (e != OSC_COMPOSITION_OK) /* the base and finiteness: read above */
        return fail_node(d->c, where >= 0 ? at[where] : v[COMP_WEIGHTS],
                         def_key(d, "weights", key), "%s", osc_composition_error_text(e));
    int rc = osc_method_from_composition(base, w, (int)count, symmetric, d->name, d->order,
                                         &out->method);
    if (method_made(d, rc, OSC_COMPOSITION_METHOD_SLOTS, "compositions", "composition"))
        return CONFIG_BAD;
    out->family = "composition";
    out->release = osc_composition_method_release;
    out->base = base;
    out->substeps = osc_composition_substeps((int)count, symmetric);
    /* With drag the base's damped order and symmetry (verlet: 1, not symmetric), without its
     * own. On the linear problem: measured from the base's reference (composition.h). */
    out->coefficient_order = osc_composition_coefficient_order(
        w, (int)count, symmetric, base->order_damped, base->symmetric_damped);
    out->coefficient_order_undamped =
        base->order == base->order_damped && base->symmetric == base->symmetric_damped
            ? out->coefficient_order
            : osc_composition_coefficient_order(w, (int)count, symmetric, base->order,
                                                base->symmetric);
    out->linear_order = osc_composition_linear_order(base, w, (int)count, symmetric, true);
    out->linear_order_undamped =
        osc_composition_linear_order(base, w, (int)count, symmetric, false);
    return 0;
}

/* ---- the families ---- */

typedef struct family_spec {
    const char *name;
    const char *about; /* for messages */
    const char *const *keys;
    size_t nkeys;
    /* Read the family's keys (v[i]: the value of keys[i] or NULL) into out->method (which
     * then holds a library slot) and out's orders; CONFIG_BAD after reporting. */
    int (*define)(const definition *d, const ynode *const *v, config_user_method *out);
} family_spec;

static const family_spec families[] = {
    {"rk", "explicit Runge-Kutta by its Butcher tableau (a, b, c)", rk_keys, RK_NKEYS, define_rk},
    {"rkn", "explicit Runge-Kutta-Nystrom (abar, a, bbar, b, c)", rkn_keys, RKN_NKEYS,
     define_rkn},
    {"composition", "substeps of a built-in method (base, weights, symmetric)", comp_keys,
     COMP_NKEYS, define_composition},
};
#define NFAMILIES (sizeof families / sizeof families[0])

enum { D_NAME, D_FAMILY, D_ORDER, D_COMMON };
static const char *const def_common_keys[D_COMMON] = {"name", "family", "order"};
#define DEF_MAX_KEYS 16

static const ynode *map_value(const ynode *map, const char *key)
{
    for (size_t p = 0; p + 1 < map->nkids; p += 2)
        if (map->kids[p]->kind == YN_SCALAR && strcmp(map->kids[p]->text, key) == 0)
            return map->kids[p + 1];
    return NULL;
}

static const family_spec *family_of(const definition *d)
{
    char key[96], buf[48], valid[256] = "";
    const ynode *n = map_value(d->map, "family");
    for (size_t i = 0; i < NFAMILIES; i++) {
        if (n && n->kind == YN_SCALAR && strcmp(n->text, families[i].name) == 0)
            return &families[i];
        size_t used = strlen(valid);
        snprintf(valid + used, sizeof valid - used, "%s%s (%s)", i ? ", " : "", families[i].name,
                 families[i].about);
    }
    def_key(d, "family", key);
    if (!n)
        fail_node(d->c, d->map, key, "missing (valid: %s)", valid);
    else if (n->kind != YN_SCALAR)
        fail_node(d->c, n, key, "expected a family name, not %s (valid: %s)",
                  cfg_kind_name(n->kind), valid);
    else {
        size_t best = 0, dist = SIZE_MAX;
        for (size_t i = 0; i < NFAMILIES; i++)
            if (cfg_edit_distance(n->text, families[i].name) < dist)
                dist = cfg_edit_distance(n->text, families[best = i].name);
        if (dist <= 2)
            fail_node(d->c, n, key, "unknown family '%s' (did you mean '%s'?)", cfg_excerpt(n, buf),
                      families[best].name);
        else
            fail_node(d->c, n, key, "unknown family '%s' (valid: %s)", cfg_excerpt(n, buf), valid);
    }
    return NULL;
}

/* The definition's name: like a run name, 1 to OSC_TABLEAU_NAME_MAX - 1 characters, and not
 * the name of a registry method or of another definition. */
static int def_name(loader *L, definition *d, const ynode *n)
{
    char key[96], buf[48];
    def_key(d, "name", key);
    if (!n)
        return fail_node(d->c, d->map, key, "missing: the method's name");
    if (n->kind != YN_SCALAR)
        return fail_node(d->c, n, key, "expected a string, not %s", cfg_kind_name(n->kind));
    size_t len = strlen(n->text);
    bool ok = len >= 1 && len < OSC_TABLEAU_NAME_MAX && n->text[0] != '.';
    for (size_t i = 0; ok && i < len; i++)
        ok = cfg_name_char_ok(n->text[i]);
    if (!ok && len >= OSC_TABLEAU_NAME_MAX)
        return fail_node(d->c, n, key, "%zu characters, at most %d: '%s'", len,
                         OSC_TABLEAU_NAME_MAX - 1, cfg_excerpt(n, buf));
    if (!ok)
        return fail_node(d->c, n, key,
                         "expected 1 to %d of A-Z a-z 0-9 . _ - + not starting with '.', got "
                         "'%s'", OSC_TABLEAU_NAME_MAX - 1, cfg_excerpt(n, buf));
    if (osc_method_find(n->text))
        return fail_node(d->c, n, key, "'%s' is a built-in method (oscbench methods): choose "
                                       "another name", n->text);
    for (size_t i = 0; i < L->cfg->nuser_methods; i++)
        if (strcmp(L->cfg->user_methods[i].method.name, n->text) == 0)
            return fail_node(d->c, n, key, "'%s' is defined twice (first at %s)", n->text,
                             L->defined_at[i]);
    d->name = n->text;
    return 0;
}

/* Append m to the run's methods; a method listed twice is an error at `at`. */
static int add_method(loader *L, const ctx *c, const osc_method *m, const ynode *at)
{
    osc_config *cfg = L->cfg;
    for (size_t j = 0; j < cfg->nmethods; j++)
        if (cfg->methods[j] == m)
            return fail_node(c, at, "methods", "'%s' listed twice", m->name);
    const osc_method **grown = realloc(cfg->methods, (cfg->nmethods + 1) * sizeof *grown);
    if (!grown)
        return cfg_fail_at(c, 0, 0, NULL, "out of memory");
    cfg->methods = grown;
    cfg->methods[cfg->nmethods++] = m;
    return 0;
}

/* One definition (item `index` of its file's method list): define it and add it to the run. */
static int define_method(loader *L, const ctx *c, const ynode *map, size_t index)
{
    definition d = {.c = c, .map = map};
    snprintf(d.prefix, sizeof d.prefix, "methods[%zu]", index);
    const family_spec *fam = family_of(&d);
    if (!fam)
        return CONFIG_BAD;
    const char *names[DEF_MAX_KEYS];
    const ynode *keys[DEF_MAX_KEYS], *v[DEF_MAX_KEYS];
    size_t nnames = D_COMMON + fam->nkeys;
    memcpy(names, def_common_keys, sizeof def_common_keys);
    memcpy(names + D_COMMON, fam->keys, fam->nkeys * sizeof *names);
    char prefix[64], key[96];
    snprintf(prefix, sizeof prefix, "%s.", d.prefix);
    int bad = cfg_fields(c, map, prefix, names, nnames, keys, v);
    bad |= def_name(L, &d, v[D_NAME]);
    long order = 0;
    if (!v[D_ORDER])
        bad |= fail_node(c, map, def_key(&d, "order", key),
                         "missing: the declared order (a whole number >= 1)");
    else
        bad |= cfg_whole(c, v[D_ORDER], def_key(&d, "order", key), 1, CONFIG_MAX_DECLARED_ORDER,
                         &order);
    d.order = (int)order;
    if (bad && L->cfg->nuser_methods == CONFIG_MAX_USER_METHODS) /* no slot to check it in */
        return fail_node(c, map, d.prefix, "more than %d methods defined by coefficients",
                         CONFIG_MAX_USER_METHODS);
    if (bad) { /* the coefficients' errors too, in the same run: define, then give it back */
        config_user_method scratch = {0};
        d.name = "unnamed", d.order = 1;
        if (!fam->define(&d, v + D_COMMON, &scratch) && scratch.release)
            scratch.release(&scratch.method);
        return CONFIG_BAD;
    }
    if (L->cfg->nuser_methods == CONFIG_MAX_USER_METHODS)
        return fail_node(c, map, d.prefix, "more than %d methods defined by coefficients",
                         CONFIG_MAX_USER_METHODS);
    if (!L->cfg->user_methods &&
        !(L->cfg->user_methods = calloc(CONFIG_MAX_USER_METHODS, sizeof *L->cfg->user_methods)))
        return cfg_fail_at(c, 0, 0, NULL, "out of memory");
    config_user_method *um = &L->cfg->user_methods[L->cfg->nuser_methods];
    if (fam->define(&d, v + D_COMMON, um))
        return CONFIG_BAD;
    char buf[sizeof L->defined_at[0] - 12]; /* leaves room for ":LINE" */
    snprintf(L->defined_at[L->cfg->nuser_methods], sizeof L->defined_at[0], "%s:%d",
             cfg_shortened(c->path, buf, sizeof buf), map->line);
    L->cfg->nuser_methods++;
    return add_method(L, c, &um->method, map);
}

/* The included file's path: as given if absolute, else relative to the config's directory. */
static char *include_path(const char *config_path, const char *given)
{
    const char *slash = strrchr(config_path, '/');
    size_t dir = given[0] == '/' || !slash ? 0 : (size_t)(slash - config_path) + 1;
    size_t len = dir + strlen(given) + 1;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%.*s%s", (int)dir, config_path, given);
    return path;
}

/* A regular file (never a FIFO or a device, which could block or never end), whole; *id its
 * identity. */
static int read_include(const ctx *c, char **out, size_t *len, config_file_id *id)
{
    int fd = open(c->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return cfg_fail_at(c, 0, 0, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : 0;
    if (!e && !S_ISREG(st.st_mode)) {
        close(fd);
        return cfg_fail_at(c, 0, 0, NULL, "cannot include: not a regular file");
    }
    if (!e)
        *id = (config_file_id){(unsigned long long)st.st_dev, (unsigned long long)st.st_ino};
    if (!e && st.st_size > (off_t)CONFIG_MAX_BYTES)
        e = EFBIG;
    if (!e)
        e = cfg_read_capped(fd, (size_t)st.st_size, out, len);
    close(fd);
    if (!e && *len > CONFIG_MAX_BYTES) { /* grown since fstat: the caller frees *out too */
        free(*out);
        *out = NULL;
        e = EFBIG;
    }
    if (e == EFBIG)
        return cfg_fail_at(c, 0, 0, NULL, "larger than %u MiB", CONFIG_MAX_BYTES >> 20);
    return e ? cfg_fail_at(c, 0, 0, NULL, "cannot read: %s", strerror(e)) : 0;
}

/* The provenance line that heads an included file's text: "--- include PATH (N bytes)\n", the
 * path whole, as the config gives it (malloc'd; NULL if out of memory). */
static char *include_header(const char *path, size_t len)
{
    const char *fmt = "--- include %s (%zu bytes)\n";
    int n = snprintf(NULL, 0, fmt, path, len);
    char *head = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (head)
        snprintf(head, (size_t)n + 1, fmt, path, len);
    return head;
}

/* Record what was read, for provenance (results file) and for --resume's manifest: its header
 * line, then the text. */
static int keep_included(loader *L, const char *head, const char *text, size_t len)
{
    size_t old = L->cfg->included_text ? strlen(L->cfg->included_text) : 0, n = strlen(head);
    char *grown = realloc(L->cfg->included_text, old + n + len + 1);
    if (!grown)
        return -1;
    memcpy(grown + old, head, n);
    memcpy(grown + old + n, text, len);
    grown[old + n + len] = '\0';
    L->cfg->included_text = grown;
    return 0;
}

/* The definitions of an included file's list, each defined and added to the run. */
static int define_included(loader *L, const ctx *ic, const ynode *root)
{
    if (!root || root->kind != YN_SEQ || root->nkids == 0)
        return cfg_fail_at(ic, root ? root->line : 1, root ? root->col : 1, NULL,
                           "expected a list of method definitions (mappings with name, family, "
                           "order and the family's coefficients)");
    int bad = 0;
    for (size_t i = 0; i < root->nkids; i++) {
        const ynode *item = root->kids[i];
        char key[48];
        snprintf(key, sizeof key, "methods[%zu]", i);
        if (item->kind != YN_MAP)
            bad |= fail_node(ic, item, key, "expected a method definition (a mapping)");
        else if (map_value(item, "include"))
            bad |= fail_node(ic, item, key, "an included file cannot include another");
        else
            bad |= define_method(L, ic, item, i);
    }
    return bad;
}

static bool has_control_char(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* {include: PATH}: every definition of PATH's list. */
static int include_methods(loader *L, const ynode *map, size_t index)
{
    char prefix[64], key[80], from[64], buf[48];
    snprintf(prefix, sizeof prefix, "methods[%zu].", index);
    snprintf(key, sizeof key, "%sinclude", prefix);
    static const char *const include_key[] = {"include"};
    const ynode *k, *v;
    if (cfg_fields(&L->c, map, prefix, include_key, 1, &k, &v))
        return CONFIG_BAD;
    if (v->kind != YN_SCALAR || v->text[0] == '\0')
        return fail_node(&L->c, v, key, "expected a file name");
    /* errors inside the file are prefixed with its name: a newline there would split them */
    if (has_control_char(v->text))
        return fail_node(&L->c, v, key, "expected a file name without control characters, got "
                                        "'%s'", cfg_excerpt(v, buf));
    if (++L->includes > CONFIG_MAX_INCLUDES)
        return fail_node(&L->c, v, key, "more than %d includes", CONFIG_MAX_INCLUDES);
#ifdef OSC_CONFIG_FUZZ /* the fuzz target's files are its own directory's, none elsewhere */
    if (v->text[0] == '/' || strstr(v->text, ".."))
        return fail_node(&L->c, v, key, "'%s' not read: the fuzz target reads only its own "
                                        "directory", cfg_excerpt(v, buf));
#endif
    snprintf(from, sizeof from, "%d:%d", v->line, v->col);
    char *path = include_path(L->c.path, v->text), *where = NULL;
    size_t where_len = path ? strlen(L->c.path) + strlen(from) + 2 : 0;
    if (path && (where = malloc(where_len)))
        snprintf(where, where_len, "%s:%s", L->c.path, from);
    if (!path || !where) {
        free(path), free(where);
        return cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    }
    ctx ic = {.path = path, .err = L->c.err, .errlen = L->c.errlen, .collect = true, .from = where,
              .tally = L->c.tally};
    char *text = NULL;
    size_t len = 0;
    ynode *root = NULL;
    config_file_id id;
    int rc = read_include(&ic, &text, &len, &id);
    if (!rc && L->cfg->nread_files < sizeof L->cfg->read_files / sizeof *L->cfg->read_files)
        L->cfg->read_files[L->cfg->nread_files++] = id;
    if (!rc)
        rc = cfg_reject_nul(&ic, text, len) || cfg_parse_tree(&ic, text, len, &root);
    char *head = rc ? NULL : include_header(v->text, len); /* as written: the same from any cwd */
    if (!rc && !head)
        rc = cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    size_t kept = strlen(L->cfg->text) + (L->cfg->included_text ? strlen(L->cfg->included_text)
                                                                    : 0);
    /* all of it, header lines too, goes to the checkpoint's manifest */
    if (!rc && kept + strlen(head) + len > CONFIG_MAX_BYTES)
        rc = fail_node(&L->c, v, key, "the config and the files it includes exceed %u MiB "
                                      "together", CONFIG_MAX_BYTES >> 20);
    if (!rc && keep_included(L, head, text, len))
        rc = cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    free(head);
    if (!rc)
        rc = define_included(L, &ic, root);
    cfg_ynode_free(root);
    free(text), free(path), free(where);
    return rc ? CONFIG_BAD : 0;
}

int cfg_load_methods(loader *L)
{
    const ynode *n = L->vals[K_METHODS];
    bool all = !n || (n->kind == YN_SCALAR && strcmp(n->text, "all") == 0);
    if (n && n->kind == YN_MAP)
        return fail_node(&L->c, n, "methods", "expected a list of method names, not a mapping");
    if (n && n->kind == YN_SEQ && n->nkids == 0)
        return fail_node(&L->c, n, "methods", "expected at least one method");
    if (all) {
        for (size_t i = 0; i < osc_method_count(); i++)
            if (add_method(L, &L->c, osc_method_at(i), n))
                return CONFIG_BAD;
        return 0;
    }
    size_t count = n->kind == YN_SEQ ? n->nkids : 1;
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        const ynode *item = n->kind == YN_SEQ ? n->kids[i] : n;
        const osc_method *m = NULL;
        if (item->kind == YN_MAP)
            bad |= map_value(item, "include") ? include_methods(L, item, i)
                                              : define_method(L, &L->c, item, i);
        else if (method_of(L, item, &m))
            bad = CONFIG_BAD; /* each unknown name its own line, as each bad definition */
        else if (add_method(L, &L->c, m, item))
            return CONFIG_BAD;
    }
    return bad;
}
