/* Methods made at run time from coefficients (tableau_method.c, rkn_method.c,
 * composition_method.c): the slots that hold their coefficients and names, and the entry points
 * osc_kernels needs per slot (its functions carry no context). Private to the library.
 *
 * A family FAM keeps its coefficients in `static FAM_slot FAM_slots[OSC_COEF_SLOTS]` and defines
 * the functions
 *     FAM_advance_d, FAM_advance_f           (const FAM_slot *, then osc_kernels.advance's)
 *     FAM_advance_audited_d, _f              (const FAM_slot *, then advance_audited's)
 *     FAM_ref_step_d, _f, _ld                (const FAM_slot *, then the osc_ref_*.step's)
 * after which OSC_SLOT_ENTRIES(FAM) generates one set of entry points per slot, each passing its
 * slot to those functions, and the table `FAM_entries` of them. The names and the taken flags
 * live in the family's osc_slot_pool. Every such method carries (x, v) as they are: its init
 * and readout are the shared ones osc_slot_method fills in. */
#ifndef OSC_METHOD_SLOTS_H
#define OSC_METHOD_SLOTS_H

#include <stdatomic.h>
#include <stddef.h>

#include "isa.h" /* OSC_HIDDEN */
#include "oscbench.h"

#define OSC_COEF_SLOTS 16
#define OSC_COEF_NAME_MAX 64 /* bytes of a name, its NUL included */

typedef struct osc_slot_entries {
    void (*advance_d)(const osc_soa *, size_t, size_t, long, double);
    void (*advance_f)(const osc_soa *, size_t, size_t, long, double);
    void (*audited_d)(const osc_soa *, int, size_t, size_t, long, double, const osc_costep *);
    void (*audited_f)(const osc_soa *, int, size_t, size_t, long, double, const osc_costep *);
    void (*ref_d)(double[OSC_MAX_STATE], osc_coef_d, double);
    void (*ref_f)(float[OSC_MAX_STATE], osc_coef_f, float);
    void (*ref_ld)(long double[OSC_MAX_STATE], osc_coef_ld, long double);
} osc_slot_entries;

typedef struct osc_slot_pool {
    atomic_bool taken[OSC_COEF_SLOTS];
    char name[OSC_COEF_SLOTS][OSC_COEF_NAME_MAX];
} osc_slot_pool;

/* Whether name can name a method: not NULL, not empty, shorter than OSC_COEF_NAME_MAX. */
OSC_HIDDEN bool osc_slot_name_ok(const char *name);
/* Claim a free slot of pool and copy name into it: the slot's index, OSC_EINVAL for a name
 * osc_slot_name_ok refuses (nothing claimed), OSC_ENOMEM when every slot is taken. */
OSC_HIDDEN int osc_slot_claim(osc_slot_pool *pool, const char *name);
/* Free the slot whose entry points m runs on (no batch may still use it): OSC_OK, or OSC_EINVAL
 * for NULL, a method of another pool or family, or a slot already free. */
OSC_HIDDEN int osc_slot_release(osc_slot_pool *pool, const osc_slot_entries entries[OSC_COEF_SLOTS],
                                const osc_method *m);
/* The method of slot k: its name, nstate 2, the kernels and references of e with the (x, v)
 * init and readout. The caller fills in summary, orders, force_evals, fma_per_step, symplectic. */
OSC_HIDDEN osc_method osc_slot_method(const osc_slot_pool *pool, int k, const osc_slot_entries *e);
/* The method of slot k of an explicit family whose methods are declared, not measured: as
 * osc_slot_method, with summary, order = order_damped = declared_order, force_evals = stages,
 * fma_per_step = fma (what the family's kernels execute) and symplectic false. */
OSC_HIDDEN osc_method osc_slot_explicit_method(const osc_slot_pool *pool, int k,
                                               const osc_slot_entries *e, const char *summary,
                                               int declared_order, int stages, int fma);

/* ---- the entry points, generated per slot ------------------------------------------------- */

#define OSC_SLOT_LIST(X, FAM)                                                                      \
    X(FAM, 0) X(FAM, 1) X(FAM, 2) X(FAM, 3) X(FAM, 4) X(FAM, 5) X(FAM, 6) X(FAM, 7) X(FAM, 8)      \
    X(FAM, 9) X(FAM, 10) X(FAM, 11) X(FAM, 12) X(FAM, 13) X(FAM, 14) X(FAM, 15)
_Static_assert(OSC_COEF_SLOTS == 16, "OSC_SLOT_LIST lists every slot");

#define OSC_SLOT_PREC_THUNKS(FAM, K, S)                                                            \
    static void FAM##_advance_##S##_##K(const osc_soa *a, size_t i0, size_t i1, long n, double dt) \
    {                                                                                              \
        FAM##_advance_##S(&FAM##_slots[K], a, i0, i1, n, dt);                                      \
    }                                                                                              \
    static void FAM##_audited_##S##_##K(const osc_soa *ax, int dim, size_t i0, size_t i1, long n,  \
                                        double dt, const osc_costep *cs)                           \
    {                                                                                              \
        FAM##_advance_audited_##S(&FAM##_slots[K], ax, dim, i0, i1, n, dt, cs);                    \
    }

#define OSC_SLOT_REF_THUNK(FAM, K, S, REAL, COEF)                                                  \
    static void FAM##_ref_step_##S##_##K(REAL s[OSC_MAX_STATE], COEF c, REAL dt)                   \
    {                                                                                              \
        FAM##_ref_step_##S(&FAM##_slots[K], s, c, dt);                                             \
    }

#define OSC_SLOT_THUNKS(FAM, K)                                                                    \
    OSC_SLOT_PREC_THUNKS(FAM, K, d)                                                                \
    OSC_SLOT_PREC_THUNKS(FAM, K, f)                                                                \
    OSC_SLOT_REF_THUNK(FAM, K, d, double, osc_coef_d)                                              \
    OSC_SLOT_REF_THUNK(FAM, K, f, float, osc_coef_f)                                               \
    OSC_SLOT_REF_THUNK(FAM, K, ld, long double, osc_coef_ld)

#define OSC_SLOT_ROW(FAM, K)                                                                       \
    {FAM##_advance_d_##K,  FAM##_advance_f_##K,  FAM##_audited_d_##K,  FAM##_audited_f_##K,        \
     FAM##_ref_step_d_##K, FAM##_ref_step_f_##K, FAM##_ref_step_ld_##K},

#define OSC_SLOT_ENTRIES(FAM)                                                                      \
    OSC_SLOT_LIST(OSC_SLOT_THUNKS, FAM)                                                            \
    static const osc_slot_entries FAM##_entries[OSC_COEF_SLOTS] = {                                \
        OSC_SLOT_LIST(OSC_SLOT_ROW, FAM)};

#endif
