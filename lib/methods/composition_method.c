/* Compositions of a built-in method, run by the batch like any method (composition.h). As
 * tableau_method.c: the weights in slots with their own entry points (method_slots.h). The
 * kernels hand the substep sizes to the base's composed kernels (kernel_loops.h), which keep
 * a register block through all substeps; a base without them would have its own kernel called
 * once per substep, over chunks of 128 lanes (the lane ranges' alignment) so that a chunk's
 * state stays in L1 between the substeps: the same bits. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "composition.h"
#include "lane_kernels.h"
#include "method_slots.h"

_Static_assert(OSC_COMPOSITION_METHOD_SLOTS == OSC_COEF_SLOTS &&
                   OSC_COMPOSITION_NAME_MAX == OSC_COEF_NAME_MAX,
               "compositions take the shared slots");

#define COMP_CHUNK ((size_t)OSC_LANE_ALIGN)

typedef struct comp_slot {
    const osc_method *base;
    int substeps;
    /* as given (double), in long double for the long double reference */
    long double w[OSC_COMPOSITION_MAX_SUBSTEPS];
    char summary[OSC_COEF_NAME_MAX + 64];
} comp_slot;

static comp_slot comp_slots[OSC_COMPOSITION_METHOD_SLOTS];
static osc_slot_pool comp_pool;

/* ---- validation ------------------------------------------------------------------------------- */

int osc_composition_substeps(int nweights, bool symmetric)
{
    return nweights < 1 ? 0 : symmetric ? 2 * nweights - 1 : nweights;
}

double osc_composition_substep_weight(const double *weights, int nweights, int k)
{
    return weights[k < nweights ? k : 2 * (nweights - 1) - k];
}

/* The state is (x, v) as given when the reference's init stores (x0, v0) and its readout gives
 * them back: a method with another state (stormer's x and x_n - x_{n-1}) changes them at any
 * dt != 0. The kernels' init and readout are built from the same lane functions. */
static bool state_is_xv(const osc_method *m)
{
    const double x0 = 0.625, v0 = -0.375, dt = 0.125;
    const osc_coef_d c = {1.5, 0.25, 0.75};
    double s[OSC_MAX_STATE] = {0, 0, 0}, x, v;
    m->ref_d.init(s, x0, v0, c, dt);
    m->ref_d.readout(s, c, dt, &x, &v);
    return s[0] == x0 && s[1] == v0 && x == x0 && v == v0;
}

bool osc_composition_base_ok(const osc_method *base)
{
    return base && base->name && osc_method_find(base->name) == base && base->nstate == 2 &&
           state_is_xv(base);
}

osc_composition_error osc_composition_validate(const osc_method *base, const double *weights,
                                               int nweights, bool symmetric, int *where)
{
    if (where)
        *where = -1;
    if (!osc_composition_base_ok(base))
        return OSC_COMPOSITION_BAD_BASE;
    const int n = osc_composition_substeps(nweights, symmetric);
    if (!weights || n < 1 || n > OSC_COMPOSITION_MAX_SUBSTEPS)
        return OSC_COMPOSITION_BAD_COUNT;
    for (int k = 0; k < nweights; k++)
        if (!isfinite(weights[k])) {
            if (where)
                *where = k;
            return OSC_COMPOSITION_NOT_FINITE;
        }
    for (int k = 0; k < nweights; k++)
        if (fabs(weights[k]) > OSC_TABLEAU_COEF_MAX) {
            if (where)
                *where = k;
            return OSC_COMPOSITION_TOO_LARGE;
        }
    double sum = 0, mag = 0;
    for (int k = 0; k < n; k++) {
        const double w = osc_composition_substep_weight(weights, nweights, k);
        sum += w, mag += fabs(w);
    }
    if (fabs(sum - 1) > OSC_TABLEAU_SUM_TOL(n) * fmax(1, mag))
        return OSC_COMPOSITION_SUM;
    return OSC_COMPOSITION_OK;
}

const char *osc_composition_error_text(osc_composition_error e)
{
    switch (e) {
    case OSC_COMPOSITION_OK: return "valid";
    case OSC_COMPOSITION_BAD_BASE:
        return "the base is not a built-in method whose state is (x, v) (stormer and "
               "verlet-zero-start are not)";
    case OSC_COMPOSITION_BAD_COUNT: return "the number of substeps is not between 1 and 32";
    case OSC_COMPOSITION_NOT_FINITE: return "a weight is not a finite number";
    case OSC_COMPOSITION_SUM: return "the weights of the substeps do not sum to 1";
    case OSC_COMPOSITION_TOO_LARGE:
        return "a weight exceeds 1000 in magnitude";
    }
    return "unknown composition error";
}

/* ---- the kernels ------------------------------------------------------------------------------ */

static void comp_substep_sizes(const comp_slot *sl, double dt, double h[])
{
    for (int k = 0; k < sl->substeps; k++)
        h[k] = (double)sl->w[k] * dt;
}

/* advance: each chunk of lanes through every step's substeps, by the base's kernel. */
static void comp_advance_base(const comp_slot *sl,
                              void (*base)(const osc_soa *, size_t, size_t, long, double),
                              const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt)
{
    double h[OSC_COMPOSITION_MAX_SUBSTEPS];
    comp_substep_sizes(sl, dt, h);
    for (size_t i = i0; i < i1; i += COMP_CHUNK)
        for (long n = 0; n < nsteps; n++)
            for (int k = 0; k < sl->substeps; k++)
                base(a, i, i + COMP_CHUNK, 1, h[k]);
}

#define real double
#define coef osc_coef_d
#define F(name) name##_d
#define COMP_REF ref_d
#define COMP_PREC OSC_DOUBLE
#include "composition_kernel.h"
#undef real
#undef coef
#undef F
#undef COMP_REF
#undef COMP_PREC

#define real float
#define coef osc_coef_f
#define F(name) name##_f
#define COMP_REF ref_f
#define COMP_PREC OSC_FLOAT
#include "composition_kernel.h"
#undef real
#undef coef
#undef F
#undef COMP_REF
#undef COMP_PREC

#define COMP_REF_ONLY
#define real long double
#define coef osc_coef_ld
#define F(name) name##_ld
#define COMP_REF ref_ld
#include "composition_kernel.h"
#undef real
#undef coef
#undef F
#undef COMP_REF
#undef COMP_REF_ONLY

OSC_SLOT_ENTRIES(comp)

/* ---- the method ------------------------------------------------------------------------------- */

static void fill_slot(comp_slot *sl, const osc_method *base, const double *weights, int nweights,
                      bool symmetric)
{
    sl->base = base;
    sl->substeps = osc_composition_substeps(nweights, symmetric);
    for (int k = 0; k < sl->substeps; k++)
        sl->w[k] = osc_composition_substep_weight(weights, nweights, k);
    snprintf(sl->summary, sizeof sl->summary, "composition of %d %s steps", sl->substeps,
             base->name);
}

static bool is_palindrome(const comp_slot *sl)
{
    for (int k = 0; k < sl->substeps / 2; k++)
        if (sl->w[k] != sl->w[sl->substeps - 1 - k])
            return false;
    return true;
}

int osc_method_from_composition(const osc_method *base, const double *weights, int nweights,
                                bool symmetric, const char *name, int declared_order,
                                osc_method *out)
{
    if (!out || declared_order < 1 ||
        osc_composition_validate(base, weights, nweights, symmetric, NULL) != OSC_COMPOSITION_OK)
        return OSC_EINVAL;
    const int k = osc_slot_claim(&comp_pool, name);
    if (k < 0)
        return k;
    comp_slot *sl = &comp_slots[k];
    fill_slot(sl, base, weights, nweights, symmetric);
    *out = osc_slot_method(&comp_pool, k, &comp_entries[k]);
    out->summary = sl->summary;
    out->order = out->order_damped = declared_order;
    out->force_evals = sl->substeps * base->force_evals;
    out->fma_per_step = sl->substeps * base->fma_per_step;
    out->symplectic = base->symplectic;
    /* a palindrome of symmetric steps is symmetric: its adjoint is the reversed composition of
     * the steps' adjoints, the same steps */
    out->symmetric = base->symmetric && is_palindrome(sl);
    out->symmetric_damped = base->symmetric_damped && is_palindrome(sl);
    return OSC_OK;
}

int osc_composition_method_release(const osc_method *m)
{
    return osc_slot_release(&comp_pool, comp_entries, m);
}
