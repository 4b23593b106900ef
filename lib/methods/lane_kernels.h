/* The batch's kernels for a method that steps one lane at a time by a function of its
 * coefficients (the tableau and RKN families: tableau_kernel.h, rkn_kernel.h). Included once per
 * precision, with `real` and F(name) defined; OSC_LANE_KERNELS(FAM, SLOT) then defines
 *     F(FAM##_advance)(const SLOT *, const osc_soa *, size_t i0, size_t i1, long nsteps, double dt)
 *     F(FAM##_advance_audited)(const SLOT *, const osc_soa *axes, int dim, size_t i0, size_t i1,
 *                              long nsteps, double dt, const osc_costep *cs)
 * from the family's
 *     F(FAM##_scaled) F(FAM##_scale)(const SLOT *sl, real dt);
 *         the slot's coefficients in the kernel's precision, times powers of dt, once per call;
 *     void F(FAM##_step)(const F(FAM##_scaled) *k, real *x, real *v, real w2, real gam, real g);
 *         one step of one lane, with fma() only: the same bits on every ISA.
 * advance_audited steps each lane's axes by the same F(FAM##_step) calls as advance (the same
 * bits) and co-steps the exact motion beside them (costep_lane.h). Each is built per ISA level as
 * the other kernels are (kernel_loops.h), so that fma is an instruction where the CPU has one (at
 * the baseline it is a libm call): the same bits on every level. Scalar loops over lanes.
 * The macros expand F at their use, so one definition serves every precision. */
#ifndef OSC_LANE_KERNELS_H
#define OSC_LANE_KERNELS_H

#include "costep_lane.h"
#include "isa.h"

#define OSC_LANE_ADVANCE_BODY(FAM, SLOT)                                                           \
    static inline __attribute__((always_inline)) void F(FAM##_advance_body)(                       \
        const SLOT *sl, const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt)            \
    {                                                                                              \
        const F(FAM##_scaled) k = F(FAM##_scale)(sl, (real)dt);                                    \
        real *xs = a->s[0], *vs = a->s[1];                                                         \
        const real *w2 = a->w2, *gam = a->gam, *g = a->g;                                          \
        for (size_t i = i0; i < i1; i++) {                                                         \
            real x = xs[i], v = vs[i];                                                             \
            for (long n = 0; n < nsteps; n++)                                                      \
                F(FAM##_step)(&k, &x, &v, w2[i], gam[i], g[i]);                                    \
            xs[i] = x, vs[i] = v;                                                                  \
        }                                                                                          \
    }

#define OSC_LANE_AUDITED_BODY(FAM, SLOT)                                                           \
    static inline __attribute__((always_inline)) void F(FAM##_audited_body)(                       \
        const SLOT *sl, const osc_soa *ax, int dim, size_t i0, size_t i1, long nsteps, double dt,  \
        const osc_costep *cs)                                                                      \
    {                                                                                              \
        const F(FAM##_scaled) k = F(FAM##_scale)(sl, (real)dt);                                    \
        const real *w2 = ax[0].w2, *gam = ax[0].gam, *g = ax[dim - 1].g;                           \
        for (size_t i = i0; i < i1; i++) {                                                         \
            real xs[OSC_MAX_DIM], vs[OSC_MAX_DIM];                                                 \
            double xe[OSC_MAX_DIM], ve[OSC_MAX_DIM], me2 = 0, mde = 0;                             \
            for (int a = 0; a < dim; a++) {                                                        \
                xs[a] = ((const real *)ax[a].s[0])[i], vs[a] = ((const real *)ax[a].s[1])[i];      \
                xe[a] = cs->xe[a][i], ve[a] = cs->ve[a][i];                                        \
            }                                                                                      \
            for (long n = 0; n < nsteps; n++) {                                                    \
                osc_lane_sums sums = {0, 0, 0, 0};                                                 \
                for (int a = 0; a < dim; a++) {                                                    \
                    const bool last = a == dim - 1;                                                \
                    F(FAM##_step)(&k, &xs[a], &vs[a], w2[i], gam[i], last ? g[i] : (real)0);       \
                    osc_costep_axis(cs, i, a == 0, last, (double)xs[a], (double)vs[a], &xe[a],     \
                                    &ve[a], &sums);                                                \
                }                                                                                  \
                osc_costep_close(cs, i, &sums, &me2, &mde);                                        \
            }                                                                                      \
            for (int a = 0; a < dim; a++)                                                          \
                ((real *)ax[a].s[0])[i] = xs[a], ((real *)ax[a].s[1])[i] = vs[a];                  \
            cs->max_err2[i] = me2, cs->max_de[i] = mde;                                            \
        }                                                                                          \
    }

#define OSC_LANE_ADVANCE_PARAMS                                                                    \
    const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt
#define OSC_LANE_ADVANCE_ARGS a, i0, i1, nsteps, dt
#define OSC_LANE_AUDITED_PARAMS                                                                    \
    const osc_soa *ax, int dim, size_t i0, size_t i1, long nsteps, double dt, const osc_costep *cs
#define OSC_LANE_AUDITED_ARGS ax, dim, i0, i1, nsteps, dt, cs

/* NAME's build per ISA level and the dispatcher F(NAME) over F(BODY). */
#if OSC_ISA_RUNTIME
#define OSC_LANE_DISPATCH(NAME, BODY, SLOT, PARAMS, ARGS)                                          \
    __attribute__((target("arch=x86-64-v4"))) static void F(NAME##_v4)(const SLOT *sl, PARAMS)     \
    {                                                                                              \
        F(BODY)(sl, ARGS);                                                                         \
    }                                                                                              \
    __attribute__((target("arch=x86-64-v3"))) static void F(NAME##_v3)(const SLOT *sl, PARAMS)     \
    {                                                                                              \
        F(BODY)(sl, ARGS);                                                                         \
    }                                                                                              \
    static void F(NAME)(const SLOT *sl, PARAMS)                                                    \
    {                                                                                              \
        const int level = osc_isa_dispatch();                                                      \
        if (level == 4)                                                                            \
            F(NAME##_v4)(sl, ARGS);                                                                \
        else if (level == 3)                                                                       \
            F(NAME##_v3)(sl, ARGS);                                                                \
        else                                                                                       \
            F(BODY)(sl, ARGS);                                                                     \
    }
#else
#define OSC_LANE_DISPATCH(NAME, BODY, SLOT, PARAMS, ARGS)                                          \
    static void F(NAME)(const SLOT *sl, PARAMS)                                                    \
    {                                                                                              \
        F(BODY)(sl, ARGS);                                                                         \
    }
#endif

#define OSC_LANE_KERNELS(FAM, SLOT)                                                                \
    OSC_LANE_ADVANCE_BODY(FAM, SLOT)                                                               \
    OSC_LANE_AUDITED_BODY(FAM, SLOT)                                                               \
    OSC_LANE_DISPATCH(FAM##_advance, FAM##_advance_body, SLOT, OSC_LANE_ADVANCE_PARAMS,            \
                      OSC_LANE_ADVANCE_ARGS)                                                       \
    OSC_LANE_DISPATCH(FAM##_advance_audited, FAM##_audited_body, SLOT, OSC_LANE_AUDITED_PARAMS,    \
                      OSC_LANE_AUDITED_ARGS)

/* For a family with SIMD kernels (coef_simd.h, prefix PFX): F(FAM##_advance) and
 * F(FAM##_advance_audited) run them on x86-64-v4 and v3 with the slot's coefficients scaled once
 * per call (F(FAM##_scale)), and the plain bodies (OSC_LANE_ADVANCE_BODY, OSC_LANE_AUDITED_BODY)
 * on the baseline, where fma is a libm call: the same bits, slowly. */
#if OSC_ISA_RUNTIME
#define OSC_COEF_SIMD_DISPATCH(FAM, PFX, SLOT)                                                     \
    static void F(FAM##_advance)(const SLOT *sl, OSC_LANE_ADVANCE_PARAMS)                          \
    {                                                                                              \
        const int level = osc_isa_dispatch();                                                      \
        if (level < 3) {                                                                           \
            F(FAM##_advance_body)(sl, OSC_LANE_ADVANCE_ARGS);                                      \
            return;                                                                                \
        }                                                                                          \
        const F(FAM##_scaled) k = F(FAM##_scale)(sl, (real)dt);                                    \
        if (level == 4)                                                                            \
            F(PFX##_advance_v4)(&k, a, i0, i1, nsteps);                                            \
        else                                                                                       \
            F(PFX##_advance_v3)(&k, a, i0, i1, nsteps);                                            \
    }                                                                                              \
    static void F(FAM##_advance_audited)(const SLOT *sl, OSC_LANE_AUDITED_PARAMS)                  \
    {                                                                                              \
        const int level = osc_isa_dispatch();                                                      \
        if (level < 3) {                                                                           \
            F(FAM##_audited_body)(sl, OSC_LANE_AUDITED_ARGS);                                      \
            return;                                                                                \
        }                                                                                          \
        const F(FAM##_scaled) k = F(FAM##_scale)(sl, (real)dt);                                    \
        if (level == 4)                                                                            \
            F(PFX##_audited_v4)(&k, ax, dim, i0, i1, nsteps, cs);                                  \
        else                                                                                       \
            F(PFX##_audited_v3)(&k, ax, dim, i0, i1, nsteps, cs);                                  \
    }
#else
#define OSC_COEF_SIMD_DISPATCH(FAM, PFX, SLOT)                                                     \
    static void F(FAM##_advance)(const SLOT *sl, OSC_LANE_ADVANCE_PARAMS)                          \
    {                                                                                              \
        F(FAM##_advance_body)(sl, OSC_LANE_ADVANCE_ARGS);                                          \
    }                                                                                              \
    static void F(FAM##_advance_audited)(const SLOT *sl, OSC_LANE_AUDITED_PARAMS)                  \
    {                                                                                              \
        F(FAM##_audited_body)(sl, OSC_LANE_AUDITED_ARGS);                                          \
    }
#endif

#endif
