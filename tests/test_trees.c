/* The tree generator (lib/trees.h): it makes each tree once, as many of each order as there are
 * (Butcher's trees, the special and the general Nystrom trees, and the Butcher trees a
 * force of x alone keeps), with the gamma and weight worked by hand for the trees of up to 4
 * vertices, it stops where the visitor lowers the bound, and it says when memory ran out. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "trees.h"

enum { MAX_ORDER = 12 };

typedef struct tally {
    int trees[MAX_ORDER + 1], nystrom[MAX_ORDER + 1], velocity[MAX_ORDER + 1];
    int lower_to; /* the bound a visit of a tree of that order sets (0: none) */
    int *bound;
    int last_order; /* orders come in increasing order */
} tally;

static void count(const osc_tree *t, void *ctx)
{
    tally *y = ctx;
    assert_true(t->order >= y->last_order && t->order <= MAX_ORDER);
    y->last_order = t->order;
    y->trees[t->order]++;
    y->nystrom[t->order] += t->nystrom;
    y->velocity[t->order] += t->velocity;
    if (y->lower_to && t->order == y->lower_to + 1)
        *y->bound = y->lower_to;
}

static tally visit_all(const osc_tree_kinds *kinds, int max_order)
{
    tally y = {0};
    int bound = max_order;
    y.bound = &bound;
    assert_true(osc_trees_visit(kinds, kinds, &bound, count, &y));
    return y;
}

static void assert_counts(const char *what, const int *got, const int *want, int max_order)
{
    for (int n = 1; n <= max_order; n++)
        if (got[n] != want[n - 1])
            fail_msg("%s of order %d: %d, expected %d", what, n, got[n], want[n - 1]);
}

/* Two stages are enough to generate every tree (the weights do not decide which trees come). */
static const double A[OSC_STAGE_VEC_MAX][OSC_STAGE_VEC_MAX] = {{0}, {0.5}};
static const double C[OSC_STAGE_VEC_MAX] = {0, 0.5};

/* The rooted trees, OEIS A000081: 1, 1, 2, 4, 9, 20, 48, 115, 286. Those a force of x alone
 * keeps (labellable x' = v / v' = f, tableau.h) were counted by a separate enumeration (trees
 * as sorted tuples of subtrees, each labelling tried; the script is in the commit that added
 * this): all up to order 4, then 8 of 9, 15 of 20, 29 of 48, 55 of 115. */
static void test_butcher_trees(void **state)
{
    (void)state;
    const osc_tree_kinds k = {.s = 2, .fat = A, .fat_leaf = C};
    const tally y = visit_all(&k, 9);
    assert_counts("trees", y.trees, (const int[]){1, 1, 2, 4, 9, 20, 48, 115, 286}, 9);
    assert_counts("Nystrom trees", y.nystrom, (const int[]){1, 1, 2, 4, 8, 15, 29, 55}, 8);
}

/* The special Nystrom trees of x'' = f(x) (HNW I, II.14): 1, 1, 2, 3, 6, 10, 20, 36, 72, 137; the
 * general ones of x'' = f(x, v) 1, 2, 6, 18, 60, 204 (the count of multisets of children, the
 * Euler transform of the kinds: a meagre leaf, a tree under a meagre vertex, a fat child).
 * Without fat children no tree reads v; with them all but the special ones do. */
static void test_nystrom_trees(void **state)
{
    (void)state;
    const osc_tree_kinds special = {.s = 2, .meagre = A, .c = C};
    tally y = visit_all(&special, 10);
    assert_counts("special trees", y.trees, (const int[]){1, 1, 2, 3, 6, 10, 20, 36, 72, 137},
                  10);
    assert_counts("special trees reading v", y.velocity, (const int[10]){0}, 10);
    const osc_tree_kinds general = {.s = 2, .fat = A, .meagre = A, .c = C};
    y = visit_all(&general, 6);
    assert_counts("general trees", y.trees, (const int[]){1, 2, 6, 18, 60, 204}, 6);
    assert_counts("general trees reading v", y.velocity, (const int[]){0, 1, 4, 15, 54, 194},
                  6);
    assert_counts("general trees labelled Nystrom", y.nystrom, (const int[6]){0}, 6);
}

/* Gammas and weights by hand, 3 stages with a = (1/2 below the diagonal), abar = (1/8 below),
 * c = (0, 1/2, 1): every tree of up to 3 vertices of the general kinds (rkn.c used to list them
 * by hand: c, Ae; c^2, c Ae, Ae^2, A c, A Ae, Ab e) with its gamma. */
typedef struct want_tree {
    int order;
    double gamma, phi[3];
} want_tree;

typedef struct match {
    const want_tree *want;
    int n, found[8];
} match;

static void find(const osc_tree *t, void *ctx)
{
    match *m = ctx;
    for (int i = 0; i < m->n; i++) {
        const want_tree *w = &m->want[i];
        if (w->order == t->order && w->gamma == t->gamma && w->phi[0] == t->phi.v[0] &&
            w->phi[1] == t->phi.v[1] && w->phi[2] == t->phi.v[2])
            m->found[i]++;
    }
}

static void test_gammas_and_weights(void **state)
{
    (void)state;
    static const double a[OSC_STAGE_VEC_MAX][OSC_STAGE_VEC_MAX] = {{0}, {0.5}, {0.5, 0.5}};
    static const double abar[OSC_STAGE_VEC_MAX][OSC_STAGE_VEC_MAX] = {{0}, {0.125},
                                                                       {0.125, 0.125}};
    static const double c[OSC_STAGE_VEC_MAX] = {0, 0.5, 1};
    /* Ae = (0, 1/2, 1) = c, A c = (0, 0, 1/4), Ab e = (0, 1/8, 1/4) */
    static const want_tree want[] = {
        {1, 1, {1, 1, 1}},                /* f */
        {2, 2, {0, 0.5, 1}},              /* c (and Ae: the same numbers) */
        {3, 3, {0, 0.25, 1}},             /* c^2, c Ae, Ae^2 */
        {3, 6, {0, 0, 0.25}},             /* A c, A Ae */
        {3, 6, {0, 0.125, 0.25}},         /* Ab e */
    };
    const osc_tree_kinds k = {.s = 3, .fat = a, .meagre = abar, .c = c};
    match m = {.want = want, .n = 5};
    int bound = 3;
    assert_true(osc_trees_visit(&k, &k, &bound, find, &m));
    const int times[] = {1, 2, 3, 2, 1};
    for (int i = 0; i < 5; i++)
        if (m.found[i] != times[i])
            fail_msg("tree %d (order %d, gamma %g): %d times, expected %d", i, want[i].order,
                     want[i].gamma, m.found[i], times[i]);
}

/* A visitor that lowers the bound on the first tree of order 4 sees no tree of order 5. */
static void test_lowered_bound_stops(void **state)
{
    (void)state;
    const osc_tree_kinds k = {.s = 2, .fat = A, .fat_leaf = C};
    tally y = {.lower_to = 3};
    int bound = 8;
    y.bound = &bound;
    assert_true(osc_trees_visit(&k, &k, &bound, count, &y));
    assert_int_equal(bound, 3);
    assert_int_equal(y.trees[4], 1);
    assert_int_equal(y.trees[5], 0);
}

/* realloc fails on its call number fail_at (0: never). */
static int realloc_calls, fail_at;
void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n)
{
    return ++realloc_calls == fail_at ? NULL : __real_realloc(p, n);
}

static void test_out_of_memory_said(void **state)
{
    (void)state;
    const osc_tree_kinds k = {.s = 2, .fat = A, .fat_leaf = C};
    for (fail_at = 1; fail_at <= 2; fail_at++) { /* the first array, and its growth */
        realloc_calls = 0;
        tally y = {0};
        int bound = 8;
        y.bound = &bound;
        assert_false(osc_trees_visit(&k, &k, &bound, count, &y));
    }
    fail_at = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_butcher_trees),     cmocka_unit_test(test_nystrom_trees),
        cmocka_unit_test(test_gammas_and_weights), cmocka_unit_test(test_lowered_bound_stops),
        cmocka_unit_test(test_out_of_memory_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
