/* Rooted trees generated with their elementary weights (trees.h). */
#include "trees.h"

#include <stdlib.h>

/* A generated tree as a child of later ones: its order, gamma, colours, and the weight it gives
 * its parent as a fat child and as a meagre vertex's fat son (each as given and absolute). */
typedef struct stored {
    int order;
    double gamma;
    bool velocity;
    bool as_f, as_x; /* labellable with its root v' = f, or x' = v (tableau.h) */
    osc_svec fat, fat_abs, meagre, meagre_abs;
} stored;

typedef struct generator {
    const osc_tree_kinds *kinds, *kinds_abs;
    int *max_order;
    void (*visit)(const osc_tree *t, void *ctx);
    void *ctx;
    stored *trees;
    size_t count, capacity;
    bool out_of_memory;
} generator;

/* The children chosen so far for a tree being built: the product of their weights and gammas,
 * and what the labels allow. */
typedef struct partial {
    osc_svec phi, phi_abs;
    double gamma;
    bool velocity;
    int children;
    bool all_children_as_x; /* so the root can be v' = f */
    bool only_child_as_f;   /* so the root can be x' = v, if it has one child */
} partial;

static osc_svec weight_of(int s, const double (*m)[OSC_STAGE_VEC_MAX], const double *leaf,
                          int order, osc_svec phi)
{
    return order == 1 && leaf ? osc_svec_of(s, leaf) : osc_svec_mul(s, m, phi);
}

static void store(generator *g, const osc_tree *t, bool as_f, bool as_x)
{
    if (g->count == g->capacity) {
        size_t capacity = g->capacity ? 2 * g->capacity : 64;
        stored *grown = realloc(g->trees, capacity * sizeof *grown);
        if (!grown) {
            g->out_of_memory = true;
            return;
        }
        g->trees = grown, g->capacity = capacity;
    }
    const osc_tree_kinds *k = g->kinds, *ka = g->kinds_abs;
    stored *st = &g->trees[g->count++];
    *st = (stored){.order = t->order, .gamma = t->gamma, .velocity = t->velocity,
                   .as_f = as_f, .as_x = as_x};
    if (k->fat) {
        st->fat = weight_of(k->s, k->fat, k->fat_leaf, t->order, t->phi);
        st->fat_abs = weight_of(k->s, ka->fat, ka->fat_leaf, t->order, t->phi_abs);
    }
    if (k->meagre) {
        st->meagre = osc_svec_mul(k->s, k->meagre, t->phi);
        st->meagre_abs = osc_svec_mul(k->s, ka->meagre, t->phi_abs);
    }
}

static void finish(generator *g, int order, const partial *p)
{
    const bool as_f = p->all_children_as_x, as_x = p->children <= 1 && p->only_child_as_f;
    const osc_tree t = {.order = order,
                        .gamma = order * p->gamma,
                        .velocity = p->velocity,
                        .nystrom = !g->kinds->c && (as_f || as_x),
                        .phi = p->phi,
                        .phi_abs = p->phi_abs};
    if (order <= *g->max_order)
        g->visit(&t, g->ctx);
    if (order < *g->max_order)
        store(g, &t, as_f, as_x);
}

/* p with one more child: weight w (w_abs), gamma, and its labels */
static partial with_child(int s, const partial *p, osc_svec w, osc_svec w_abs, double gamma,
                          bool velocity, bool as_x, bool as_f)
{
    partial q = *p;
    q.phi = osc_svec_emul(s, p->phi, w), q.phi_abs = osc_svec_emul(s, p->phi_abs, w_abs);
    q.gamma *= gamma;
    q.velocity |= velocity;
    q.children++;
    q.all_children_as_x &= as_x;
    q.only_child_as_f = as_f;
    return q;
}

/* Every multiset of children of total order `remaining` drawn from kinds `kind` on (kind 0: a
 * meagre leaf; 2j + 1: tree j as a fat child; 2j + 2: tree j under a meagre vertex), for trees of
 * `order`. Kinds come in order of their trees, so the first too large tree ends the search. */
static void choose(generator *g, int order, size_t kind, int remaining, const partial *p)
{
    if (remaining == 0) {
        finish(g, order, p);
        return;
    }
    const osc_tree_kinds *k = g->kinds, *ka = g->kinds_abs;
    const int s = k->s;
    if (kind == 0 && k->c) {
        partial q = with_child(s, p, osc_svec_of(s, k->c), osc_svec_of(s, ka->c), 1, false,
                               false, false);
        choose(g, order, 0, remaining - 1, &q);
    }
    for (size_t next = kind ? kind : 1; !g->out_of_memory; next++) {
        const size_t j = (next - 1) / 2;
        if (j >= g->count || g->trees[j].order > remaining)
            return;
        const stored st = g->trees[j]; /* a copy: storing a tree may move the array */
        if (next % 2 == 1 && k->fat) {
            partial q = with_child(s, p, st.fat, st.fat_abs, st.gamma, true, st.as_x, st.as_f);
            choose(g, order, next, remaining - st.order, &q);
        } else if (next % 2 == 0 && k->meagre && st.order + 1 <= remaining) {
            partial q = with_child(s, p, st.meagre, st.meagre_abs, (st.order + 1) * st.gamma,
                                   st.velocity, false, false);
            choose(g, order, next, remaining - st.order - 1, &q);
        }
    }
}

bool osc_trees_visit(const osc_tree_kinds *kinds, const osc_tree_kinds *kinds_abs,
                     int *max_order, void (*visit)(const osc_tree *t, void *ctx), void *ctx)
{
    generator g = {.kinds = kinds, .kinds_abs = kinds_abs, .max_order = max_order,
                   .visit = visit, .ctx = ctx};
    const partial root = {.phi = osc_svec_ones(kinds->s), .phi_abs = osc_svec_ones(kinds->s),
                          .gamma = 1, .all_children_as_x = true, .only_child_as_f = true};
    for (int order = 1; order <= *max_order && !g.out_of_memory; order++)
        choose(&g, order, 0, order - 1, &root);
    free(g.trees);
    return !g.out_of_memory;
}
