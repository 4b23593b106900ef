/* Explicit Runge-Kutta methods from a Butcher tableau, run by the batch like any method
 * (osc_method_from_tableau in tableau.h).
 *
 * osc_kernels' functions carry no context, so the coefficients live in a fixed set of slots and
 * each slot has its own small entry points (method_slots.h) that pass the slot to the generic
 * kernels of tableau_kernel.h. These kernels are scalar loops over a stage count known at run
 * time: correct and reproducible (fma, the same bits on every ISA and thread count), not fast. */
#include <stdbool.h>
#include <stddef.h>
#include <tgmath.h> /* fma on float is fmaf in the float kernel */

#include "lane_kernels.h"
#include "method_slots.h"
#include "tableau.h"

_Static_assert(OSC_TABLEAU_METHOD_SLOTS == OSC_COEF_SLOTS && OSC_TABLEAU_NAME_MAX == OSC_COEF_NAME_MAX,
               "tableau methods take the shared slots");

typedef struct tab_slot {
    int stages;
    /* long double so that the long double reference reads the coefficients as given (in double:
     * the tableau's own type); the kernels round them to their precision once per call */
    long double a[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES], b[OSC_TABLEAU_MAX_STAGES];
} tab_slot;

static tab_slot tab_slots[OSC_TABLEAU_METHOD_SLOTS];
static osc_slot_pool tab_pool;

#define real double
#define coef osc_coef_d
#define F(name) name##_d
#include "tableau_kernel.h"
#undef real
#undef coef
#undef F

#define real float
#define coef osc_coef_f
#define F(name) name##_f
#include "tableau_kernel.h"
#undef real
#undef coef
#undef F

#define TAB_REF_ONLY
#define real long double
#define coef osc_coef_ld
#define F(name) name##_ld
#include "tableau_kernel.h"
#undef real
#undef coef
#undef F
#undef TAB_REF_ONLY

OSC_SLOT_ENTRIES(tab)

/* ---- the method --------------------------------------------------------------------------- */

/* Operations per step of tab_step: per stage two fma per nonzero a_ij (x and v) and two for the
 * force m = fma(w2, X, fma(gam, V, g)); two per nonzero b_i. dt * a_ij is hoisted (per call). */
static int fma_count(const osc_tableau *t)
{
    int count = 0;
    for (int i = 0; i < t->stages; i++) {
        count += 2;
        for (int j = 0; j < i; j++)
            count += t->a[i][j] != 0 ? 2 : 0;
        count += t->b[i] != 0 ? 2 : 0;
    }
    return count;
}

static void fill_slot(tab_slot *sl, const osc_tableau *t)
{
    sl->stages = t->stages;
    for (int i = 0; i < OSC_TABLEAU_MAX_STAGES; i++) {
        for (int j = 0; j < OSC_TABLEAU_MAX_STAGES; j++)
            sl->a[i][j] = i < t->stages && j < i ? t->a[i][j] : 0;
        sl->b[i] = i < t->stages ? t->b[i] : 0;
    }
}

int osc_method_from_tableau(const osc_tableau *t, const char *name, int declared_order,
                            osc_method *out)
{
    if (!t || !out || declared_order < 1 || osc_tableau_validate(t, NULL) != OSC_TABLEAU_OK)
        return OSC_EINVAL;
    const int k = osc_slot_claim(&tab_pool, name);
    if (k < 0)
        return k;
    fill_slot(&tab_slots[k], t);
    *out = osc_slot_method(&tab_pool, k, &tab_entries[k]);
    out->summary = "explicit Runge-Kutta method given by its Butcher tableau, on (x, v)";
    out->order = out->order_damped = declared_order;
    out->force_evals = t->stages;
    out->fma_per_step = fma_count(t);
    out->symplectic = false;
    return OSC_OK;
}

int osc_tableau_method_release(const osc_method *m)
{
    return osc_slot_release(&tab_pool, tab_entries, m);
}
