/* Slots of the methods made from coefficients (method_slots.h). */
#include "method_slots.h"

#include <string.h>

bool osc_slot_name_ok(const char *name)
{
    return name && name[0] != 0 && strlen(name) < OSC_COEF_NAME_MAX;
}

int osc_slot_claim(osc_slot_pool *pool, const char *name)
{
    if (!osc_slot_name_ok(name))
        return OSC_EINVAL;
    for (int k = 0; k < OSC_COEF_SLOTS; k++) {
        bool expected = false;
        if (atomic_compare_exchange_strong(&pool->taken[k], &expected, true)) {
            strcpy(pool->name[k], name);
            return k;
        }
    }
    return OSC_ENOMEM;
}

int osc_slot_release(osc_slot_pool *pool, const osc_slot_entries entries[OSC_COEF_SLOTS],
                     const osc_method *m)
{
    for (int k = 0; m && k < OSC_COEF_SLOTS; k++)
        if (m->kernels[OSC_DOUBLE].advance == entries[k].advance_d) {
            bool expected = true;
            return atomic_compare_exchange_strong(&pool->taken[k], &expected, false) ? OSC_OK
                                                                                     : OSC_EINVAL;
        }
    return OSC_EINVAL;
}

/* ---- the state is (x, v) as given ------------------------------------------------------------ */

static void xv_init(const osc_soa *a, size_t i0, size_t i1, double dt)
{
    (void)a, (void)i0, (void)i1, (void)dt;
}

#define XV_READOUT(S, REAL, COEF)                                                                  \
    static void xv_readout_##S(const osc_soa *a, size_t i0, size_t i1, double dt, double *x,       \
                               double *v)                                                          \
    {                                                                                              \
        (void)dt;                                                                                  \
        const REAL *xs = a->s[0], *vs = a->s[1];                                                   \
        for (size_t i = i0; i < i1; i++)                                                           \
            x[i - i0] = (double)xs[i], v[i - i0] = (double)vs[i];                                  \
    }

#define XV_REF(S, REAL, COEF)                                                                      \
    static void xv_ref_init_##S(REAL s[OSC_MAX_STATE], REAL x0, REAL v0, COEF c, REAL dt)          \
    {                                                                                              \
        (void)c, (void)dt;                                                                         \
        s[0] = x0, s[1] = v0, s[2] = 0;                                                            \
    }                                                                                              \
    static void xv_ref_readout_##S(const REAL s[OSC_MAX_STATE], COEF c, REAL dt, REAL *x, REAL *v) \
    {                                                                                              \
        (void)c, (void)dt;                                                                         \
        *x = s[0], *v = s[1];                                                                      \
    }

XV_READOUT(d, double, osc_coef_d)
XV_READOUT(f, float, osc_coef_f)
XV_REF(d, double, osc_coef_d)
XV_REF(f, float, osc_coef_f)
XV_REF(ld, long double, osc_coef_ld)

osc_method osc_slot_method(const osc_slot_pool *pool, int k, const osc_slot_entries *e)
{
    return (osc_method){
        .name = pool->name[k],
        .nstate = 2,
        /* no composed kernels; tiles of OSC_TILE_LANES (the blocks are powers of two) */
        .kernels = {[OSC_DOUBLE] = {e->advance_d, xv_init, xv_readout_d, e->audited_d, NULL, NULL,
                                    NULL},
                    [OSC_FLOAT] = {e->advance_f, xv_init, xv_readout_f, e->audited_f, NULL, NULL,
                                   NULL}},
        .ref_d = {xv_ref_init_d, e->ref_d, xv_ref_readout_d},
        .ref_f = {xv_ref_init_f, e->ref_f, xv_ref_readout_f},
        .ref_ld = {xv_ref_init_ld, e->ref_ld, xv_ref_readout_ld},
    };
}

osc_method osc_slot_explicit_method(const osc_slot_pool *pool, int k, const osc_slot_entries *e,
                                    const char *summary, int declared_order, int stages, int fma)
{
    osc_method m = osc_slot_method(pool, k, e);
    m.summary = summary;
    m.order = m.order_damped = declared_order;
    m.force_evals = stages;
    m.fma_per_step = fma;
    m.symplectic = false;
    m.symmetric = m.symmetric_damped = false; /* no explicit Runge-Kutta(-Nystrom) method is */
    return m;
}
