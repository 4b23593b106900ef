/* The per-precision framework around a method's one-lane step; included by method_template.h
 * once per precision. It knows nothing of the method beyond F(fast_step) and F(ref_step).
 *
 * Register blocks. advance() walks its lane range in blocks of OSC_BL lanes; a block's state and
 * coefficients are loaded once, stepped nsteps times, and stored once. The step loop over a block
 * is a `#pragma omp simd` loop of constant trip count that GCC unrolls completely, so the block
 * lives in vector registers (or, for the coefficients, in L1 as memory operands) and the
 * per-lane constants a method computes from the coefficients (reciprocals) are hoisted out of
 * the step loop. How many lanes fit is a trade-off per method, precision and ISA: enough
 * independent vectors to cover the FMA latency times the FMA pipes (a step's dependency chain is
 * 3 (euler) to 21 (forest-ruth) operations deep, 4 cycles each), few enough that the state stays
 * in the 32 zmm (AVX-512) or 16 ymm (AVX2) registers. The sizes per method and ISA are ONE
 * table, lib/meson.build's method_tuning (with where each was measured), which compiles each
 * method file with
 *     -DOSC_BLOCK_LANES_V4_D=64   (x86-64-v4, double; _F for float, default twice _D)
 *     -DOSC_BLOCK_LANES_V3_D=32   (x86-64-v3, double; _F likewise)
 * (the defaults below serve a method built without the table, as the tests' own method is).
 * Measured on Sapphire Rapids (2 FMA pipes of 512 bits): on AVX-512, 8 zmm per array (64
 * doubles, 128 floats) was best for every method: fewer leave the FMA latency exposed, more spill
 * the state; on Zen 5, in tiles of whole blocks (tile_lanes.h), 12 zmm (96 doubles) is best for
 * four of them (semi-implicit, verlet, forest-ruth, verlet-implicit-drag); for stormer and
 * implicit-midpoint 8 zmm is, by 10-16% on Zen 4 and within 6% of 12 on Zen 5 (at 8 GCC steps
 * each block twice per load of its coefficients). On Zen 3 (AVX2, 16 ymm, 2 FMA + 2 FP-add
 * pipes): 6-10 ymm per array, per method (lib/meson.build's table says which and why); beyond
 * that GCC keeps the block's state in stack copies, which tests/check_kernels.py detects in the
 * assembly.
 * Any multiple of 4 lanes works: lane ranges are multiples of OSC_LANE_ALIGN, and what is left
 * of a range after whole blocks is stepped in power-of-two blocks (128, 64, ..., 4 lanes). A
 * block need not be a power of two: on 16 ymm, 7 vectors per array (28 double lanes) fill the
 * registers exactly for a two-array state with one temporary.
 *
 * ISAs. With OSC_MULTIVERSION (GCC, x86-64) advance() is compiled three times, for x86-64-v4,
 * x86-64-v3 and the x86-64 baseline, each with its own block size, and picks one per call by
 * osc_isa_dispatch() (isa.h: a cached load and a test; it is called once per tile per
 * audit interval): the CPU's best level, capped at run time by OSCBENCH_ISA or osc_isa_set_cap,
 * so that the AVX2 and baseline kernels are measured and tested on an AVX-512 machine (this
 * replaces the former compile-time -DOSC_FORCE_ISA). fma() gives the same bits in all three (in
 * the baseline it is a libm call). Without OSC_MULTIVERSION there is one advance(), built for
 * whatever the compiler targets. */

#ifndef OSC_BLOCK_LANES_V4_D
#define OSC_BLOCK_LANES_V4_D 64
#endif
#ifndef OSC_BLOCK_LANES_V4_F
#define OSC_BLOCK_LANES_V4_F (2 * OSC_BLOCK_LANES_V4_D)
#endif
#ifndef OSC_BLOCK_LANES_V3_D
#define OSC_BLOCK_LANES_V3_D 32
#endif
#ifndef OSC_BLOCK_LANES_V3_F
#define OSC_BLOCK_LANES_V3_F (2 * OSC_BLOCK_LANES_V3_D)
#endif
#ifndef OSC_BLOCK_LANES_BASE_D
#define OSC_BLOCK_LANES_BASE_D 16
#endif
#ifndef OSC_BLOCK_LANES_BASE_F
#define OSC_BLOCK_LANES_BASE_F (2 * OSC_BLOCK_LANES_BASE_D)
#endif

#define OSC_IS_DOUBLE (sizeof(real) == sizeof(double))
#define OSC_BL_V4 (OSC_IS_DOUBLE ? OSC_BLOCK_LANES_V4_D : OSC_BLOCK_LANES_V4_F)
#define OSC_BL_V3 (OSC_IS_DOUBLE ? OSC_BLOCK_LANES_V3_D : OSC_BLOCK_LANES_V3_F)
#define OSC_BL_BASE (OSC_IS_DOUBLE ? OSC_BLOCK_LANES_BASE_D : OSC_BLOCK_LANES_BASE_F)

_Static_assert(OSC_LANE_ALIGN % 128 == 0, "the remainder blocks below assume 128-lane ranges");
_Static_assert(OSC_BL_V4 % 4 == 0 && OSC_BL_V3 % 4 == 0 && OSC_BL_BASE % 4 == 0,
               "register blocks must be multiples of 4 lanes");
_Static_assert(OSC_BL_V4 <= 512 && OSC_BL_V3 <= 512 && OSC_BL_BASE <= 512,
               "register blocks of more than 512 lanes cannot live in registers");

#include "costep_lane.h"      /* the exact motion's co-step and maxima of the fused blocks */
#include "method_reference.h" /* lane_init/readout defaults, ref_init/readout */

/* Per-lane coefficients, prepared once per register block (that is, once per batch run and
 * block, never per step) from the lane's (w2, gam, g) and dt: F(fast_step) receives k[0..3]
 * in place of (w2, gam, g, unused). A method that saves an operation per step with dt-scaled
 * coefficients (semi_implicit.c: v' = q v + p x + r), or whose step needs a lane constant with
 * a division (stormer.c, implicit_midpoint.c), defines OSC_LANE_COEFS and
 *     static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF]);
 * the default passes (w2, gam, g, 0) through. Computing them here, not in F(fast_step), is what
 * keeps a division out of the step loop on every path: the compiler hoists a lane constant out
 * of a fully unrolled block at best (tests/check_kernels.py checks the assembly). The fused kernel prepares them twice per lane, with
 * the lane's g (its last axis) and with g = 0 (the others), through the same function, so that
 * advance() and advance_audited() step a lane with the same bits. */
#ifndef OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    (void)dt;
    k[0] = w2, k[1] = gam, k[2] = g, k[3] = 0;
}
#endif

/* Scheduling. GCC emits the fully unrolled block step by step of each vector in turn: one
 * vector's whole dependency chain, then the next one's, and the out-of-order window then fills
 * with a few chains' waiting operations. Pre-allocation, register-pressure-aware scheduling
 * (-fschedule-insns -fsched-pressure) interleaves the chains instead, which the long chains
 * need on 32 zmm (forest-ruth 0.70-0.77 -> 0.84-0.87 of the FMA peak) but which on 16 ymm
 * raises register pressure until the block spills. It is chosen per method file by lib/meson.build's
 * tuning table (compiler flags, not GCC's optimize attribute, which GCC documents as meant
 * for debugging rather than production code), beside the block sizes. */

/* One register block of BL lanes starting at lane i, stepped nsteps times. NAME is the function,
 * ATTR its target attribute. noinline keeps each block loop (and its register allocation) on
 * its own, and the assembly readable. */
#define OSC_DEFINE_BLOCK(NAME, BL, ATTR)                                                           \
    ATTR __attribute__((noinline)) static void NAME(                               \
        real *restrict s0, real *restrict s1, real *restrict s2, const real *restrict w2,          \
        const real *restrict gam, const real *restrict g, size_t i, long nsteps, real dt)          \
    {                                                                                              \
        real b0[BL], b1[BL], b2[BL], k0[BL], k1[BL], k2[BL], k3[BL];                               \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                      \
        {                                                                                          \
            b0[j] = s0[i + j], b1[j] = s1[i + j], b2[j] = OSC_NSTATE > 2 ? s2[i + j] : 0;          \
            real k[OSC_NCOEF];                                                                     \
            F(lane_coefs)(w2[i + j], gam[i + j], g[i + j], dt, k);                                 \
            k0[j] = k[0], k1[j] = k[1], k2[j] = k[2], k3[j] = k[3];                                \
        }                                                                                          \
        for (long n = 0; n < nsteps; n++) {                                                        \
            _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                  \
                F(fast_step)(&b0[j], &b1[j], &b2[j], k0[j], k1[j], k2[j], k3[j], dt);              \
        }                                                                                          \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                      \
        {                                                                                          \
            s0[i + j] = b0[j], s1[i + j] = b1[j];                                                  \
            if (OSC_NSTATE > 2)                                                                    \
                s2[i + j] = b2[j];                                                                 \
        }                                                                                          \
    }

/* An advance() for one ISA: whole blocks of BL lanes, then the rest (a multiple of 4 lanes, as
 * ranges are multiples of OSC_LANE_ALIGN and BL of 4) in power-of-two blocks. The remainder
 * blocks exist only when BL does not divide OSC_LANE_ALIGN; the constant conditions fold away
 * otherwise. */
#define OSC_REM_NEEDED(BL, L) ((L) < (BL) && OSC_LANE_ALIGN % (BL) != 0)
#define OSC_DEFINE_ADVANCE(NAME, BL, ATTR)                                                         \
    OSC_DEFINE_BLOCK(F(NAME##_blk), BL, ATTR)                                                      \
    OSC_DEFINE_BLOCK(F(NAME##_r128), 128, ATTR)                                                    \
    OSC_DEFINE_BLOCK(F(NAME##_r64), 64, ATTR)                                                      \
    OSC_DEFINE_BLOCK(F(NAME##_r32), 32, ATTR)                                                      \
    OSC_DEFINE_BLOCK(F(NAME##_r16), 16, ATTR)                                                      \
    OSC_DEFINE_BLOCK(F(NAME##_r8), 8, ATTR)                                                        \
    OSC_DEFINE_BLOCK(F(NAME##_r4), 4, ATTR)                                                        \
    ATTR static void F(NAME)(const osc_soa *a, size_t i0, size_t i1, long nsteps, real dt)         \
    {                                                                                              \
        real *s0 = a->s[0], *s1 = a->s[1], *s2 = OSC_NSTATE > 2 ? a->s[2] : NULL;                  \
        const real *w2 = a->w2, *gam = a->gam, *g = a->g;                                          \
        size_t i = i0;                                                                             \
        for (; i1 - i >= (BL); i += (BL))                                                          \
            F(NAME##_blk)(s0, s1, s2, w2, gam, g, i, nsteps, dt);                                  \
        if (OSC_REM_NEEDED(BL, 128))                                                               \
            for (; i1 - i >= 128; i += 128)                                                        \
                F(NAME##_r128)(s0, s1, s2, w2, gam, g, i, nsteps, dt);                             \
        if (OSC_REM_NEEDED(BL, 64))                                                                \
            for (; i1 - i >= 64; i += 64)                                                          \
                F(NAME##_r64)(s0, s1, s2, w2, gam, g, i, nsteps, dt);                              \
        if (OSC_REM_NEEDED(BL, 32))                                                                \
            for (; i1 - i >= 32; i += 32)                                                          \
                F(NAME##_r32)(s0, s1, s2, w2, gam, g, i, nsteps, dt);                              \
        if (OSC_REM_NEEDED(BL, 16))                                                                \
            for (; i1 - i >= 16; i += 16)                                                          \
                F(NAME##_r16)(s0, s1, s2, w2, gam, g, i, nsteps, dt);                              \
        if (OSC_REM_NEEDED(BL, 8))                                                                 \
            for (; i1 - i >= 8; i += 8)                                                            \
                F(NAME##_r8)(s0, s1, s2, w2, gam, g, i, nsteps, dt);                               \
        if (OSC_REM_NEEDED(BL, 4))                                                                 \
            for (; i1 - i >= 4; i += 4)                                                            \
                F(NAME##_r4)(s0, s1, s2, w2, gam, g, i, nsteps, dt);                               \
    }

#include "tile_lanes.h" /* osc_tile_for_block: the tile for a block (osc_kernels.tile_lanes) */

#if defined(OSC_MULTIVERSION) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

OSC_DEFINE_ADVANCE(advance_v4, OSC_BL_V4, __attribute__((target("arch=x86-64-v4"))))
OSC_DEFINE_ADVANCE(advance_v3, OSC_BL_V3, __attribute__((target("arch=x86-64-v3"))))
OSC_DEFINE_ADVANCE(advance_base, OSC_BL_BASE, )

static void F(advance)(const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt)
{
    switch (osc_isa_dispatch()) {
    case 4:
        F(advance_v4)(a, i0, i1, nsteps, (real)dt);
        break;
    case 3:
        F(advance_v3)(a, i0, i1, nsteps, (real)dt);
        break;
    default:
        F(advance_base)(a, i0, i1, nsteps, (real)dt);
        break;
    }
}

static size_t F(tile_lanes)(void)
{
    const int level = osc_isa_dispatch();
    return osc_tile_for_block(level == 4 ? OSC_BL_V4 : level == 3 ? OSC_BL_V3 : OSC_BL_BASE);
}

#else

/* The one block size of the target the compiler builds for (the same definition in both
 * precision passes: OSC_BL_* follow `real` where used). */
#if defined(__AVX512F__)
#define OSC_BL_ANY OSC_BL_V4
#elif defined(__AVX2__) || defined(__AVX__)
#define OSC_BL_ANY OSC_BL_V3
#else
#define OSC_BL_ANY OSC_BL_BASE
#endif

OSC_DEFINE_ADVANCE(advance_any, OSC_BL_ANY, )

static void F(advance)(const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt)
{
    F(advance_any)(a, i0, i1, nsteps, (real)dt);
}

static size_t F(tile_lanes)(void) { return osc_tile_for_block(OSC_BL_ANY); }

#endif

/* ---- the fused, audited kernel ------------------------------------------------------------------
 *
 * advance_audited() steps every axis of a register block together and co-steps the exact motion
 * beside the method, so that the error and the energy error are seen at EVERY step (osc_costep in
 * oscbench.h defines the arrays). Per step and lane, after F(fast_step) of each axis (the same
 * call as in advance(): the method's bits do not change), per axis a:
 *     (x, v)  = F(fused_readout) of the state (F(lane_readout) unless the method declares its
 *               own, below), converted to double (exact for float)
 *     (xe, ve) <- (xe + fma(d11, xe, fma(p12, ve, q1)), ve + fma(p21, xe, fma(d22, ve, q2)))
 *                 [q: last axis; d11 = p11 - 1, d22 = p22 - 1: the increment form keeps the map's
 *                  roundings from adding up over the interval, see "Round-off" below]
 *     dx = x - xe, dv = v - ve;  err2 += dx dx;  A += dv (v + ve);  B += dx (x + xe)
 * then dE = fma(mg, dx_last, fma(half_k, B, half_m A)) and the running maxima
 *     max_err2 = max(max_err2, err2), max_de = max(max_de, |dE|),
 * kept in registers (or L1) for the whole interval and stored once at its end. Everything after the
 * readout is double, also for float batches: a float co-step would bury the float method's own
 * error in the yardstick's round-off. Every operation is explicit (fma(), no contraction), so the
 * maxima are the same bits on every ISA path and thread count.
 *
 * Operation count per lane, step and axis (each fma/mul/add/sub/max/abs/convert one op; checked in
 * the x86-64-v3 assembly): co-step 6 (2 fma + 2 fma-or-mul + 2 add), dx dv 2, sums 2, err2/A/B 3
 * (fma, or mul on the first axis) = 13 per axis; per lane 3 for dE (mul, fma, fma), 1 abs, 2 max:
 *     audit_ops = 13 D + 6 in double (D = 1: 19, 2: 32, 3: 45), plus the method's readout (0
 *     for most; stormer's: 7 per axis).
 * In vector instructions a double op covers half as many lanes as a float one, so against a float
 * method the audit weighs 2 (13 D + 6) + 4 D conversions (cvtps2pd of x and v, each in two
 * halves; plus 2 D extractions of the upper halves, not counted) per vector of floats: 42, 72, 102
 * for D = 1, 2, 3. The x86-64-v3 and v4 assembly of every method (objdump -d of the method's
 * object, the loop of audited_v3_d1_d and friends) has exactly method_ops D + audit_ops
 * arithmetic instructions per vector and step.
 *
 * Round-off of the co-step. It starts each interval from the audit's exact state (re-anchored at
 * every audit from the closed form or its maps, accurate to (16 R + 8 + omega t) eps of the
 * motion's scale S, audit.h) and applies the one-step map N times (N = the interval), as
 * increments: d11 = p11 - 1 and d22 = p22 - 1 to a few ulps of themselves (osc_exact_step_map).
 * Why: a short step's p11, p22 lie within (omega dt)^2 of 1, and rounding them is a fixed
 * relative error of up to eps/2 that N steps of a slowly turning state add up coherently, to
 * ~N eps S/2 (rk4 at k 0.11, c 0.2, dt 1e-3 over 4688 steps: max_error 2.7e-13 against a true
 * 1.7e-15). As increments, the map's own error is a few ulps of the increment, ~eps (omega +
 * gam) dt S per step, and what is left is the rounding of x + increment, at most eps S/2 per step
 * and random while the increment changes by more than an ulp of x from step to step: a walk of
 * ~sqrt(N) eps S (measured against osc_exact_eval at every step over N = 8192: at most 10 eps S,
 * where the product form was 100-1200 eps S off; tests/test_maxima.c). Its bound, for an
 * increment constant to an ulp over many steps, stays N eps S/2 + eps (omega + gam) N dt S.
 * Against a method at its round-off floor the co-step's own roundings are of the method's size,
 * so there `max_error` is right to within a few eps S (the method shares the last add's
 * rounding when its state and increment match the co-step's to an ulp). The convergence fits'
 * round-off floor is 10 eps S (sqrt(steps) + omega t).
 *
 * NaN. The running max is written max = isgreater(max, e) ? max : e, which lets a NaN e through (a
 * NaN max is replaced by the next finite e). A non-finite state stays non-finite (the steps are
 * linear), so a lane that became non-finite inside an interval ends it with NaN maxima, and the
 * audit calls such a lane unstable: its maxima are never committed.
 *
 * Registers. A block holds per lane the method's state (nstate x D), the exact state (2 D) and two
 * maxima in registers; the maps and the energy coefficients stay in L1 as memory operands. Block
 * sizes (lanes, powers of two from 8 to 128, so that they divide every lane range) per ISA and
 * precision for D = 1, halved for D = 2 and quartered for D = 3 (at least 8); a method file may set
 *     #define OSC_FUSED_LANES_V3_D 8    (and _V4_D, _BASE_D, _F likewise)
 * Measured on AVX2 (Zen 3, 16 ymm, default config, one thread): 16 double lanes (4 ymm per array;
 * part of the exact state and maxima live in L1) are best overall: rk4 and forest-ruth, whose
 * step is a 12-21 fma deep chain, need 4 vectors to cover its latency (0.79 -> 0.87 and
 * 0.69 -> 0.90-0.97 of the op-count ceiling against 8 lanes), while the short-chain methods keep
 * 1.2-2x their ceiling at either size (the co-step's chains are 2 fma deep and independent of the
 * method's; the adds, subs and maxima also use the FP add pipes). Float: 16 lanes too (2 ymm of
 * floats, 4 of doubles per exact quantity: rk4 0.64 -> 0.95, forest-ruth 0.50 -> 0.91 of the
 * ceiling against 8 lanes, the others 1.0-1.2 at either). Stormer sets 8 double lanes: beyond that GCC no
 * longer hoists its reciprocal and divides every step. The AVX-512 sizes (32 double, 16 float
 * lanes) follow the register count (32 zmm) and are not measured. */
#ifndef OSC_FUSED_LANES_V4_D
#define OSC_FUSED_LANES_V4_D 32
#endif
#ifndef OSC_FUSED_LANES_V4_F
#define OSC_FUSED_LANES_V4_F 16
#endif
#ifndef OSC_FUSED_LANES_V3_D
#define OSC_FUSED_LANES_V3_D 16
#endif
#ifndef OSC_FUSED_LANES_V3_F
#define OSC_FUSED_LANES_V3_F 16
#endif
#ifndef OSC_FUSED_LANES_BASE_D
#define OSC_FUSED_LANES_BASE_D 8
#endif
#ifndef OSC_FUSED_LANES_BASE_F
#define OSC_FUSED_LANES_BASE_F 8
#endif
#define OSC_FBL_V4 (OSC_IS_DOUBLE ? OSC_FUSED_LANES_V4_D : OSC_FUSED_LANES_V4_F)
#define OSC_FBL_V3 (OSC_IS_DOUBLE ? OSC_FUSED_LANES_V3_D : OSC_FUSED_LANES_V3_F)
#define OSC_FBL_BASE (OSC_IS_DOUBLE ? OSC_FUSED_LANES_BASE_D : OSC_FUSED_LANES_BASE_F)
#define OSC_FBL_POW2(L) ((L) >= 8 && (L) <= 128 && ((L) & ((L) - 1)) == 0)
_Static_assert(OSC_FBL_POW2(OSC_FBL_V4) && OSC_FBL_POW2(OSC_FBL_V3) && OSC_FBL_POW2(OSC_FBL_BASE),
               "fused blocks must be powers of two from 8 to 128 lanes");
/* the block for D axes: BL, BL/2, BL/4 lanes for D = 1, 2, 3, at least 8 */
#define OSC_FBL_DIM(BL, D)                                                                         \
    ((D) == 1 ? (BL) : (D) == 2 ? ((BL) / 2 >= 8 ? (BL) / 2 : 8) : ((BL) / 4 >= 8 ? (BL) / 4 : 8))

/* The readout inside the fused step. A method whose F(lane_readout) divides by lane constants
 * (a division per step the compiler may not turn into a multiplication) declares
 *     #define OSC_FUSED_READOUT
 *     static inline void F(readout_consts)(coef c, real dt, real k[2]);   (once per lane)
 *     static inline void F(fused_readout)(const real s[OSC_MAX_STATE], coef c, real dt,
 *                                         const real k[2], real *x, real *v);
 * giving lane_readout's x and v to within a few roundings (reciprocals instead of divisions): the
 * audit points themselves still read out by lane_readout. */
#ifndef OSC_FUSED_READOUT
static inline void F(readout_consts)(coef c, real dt, real k[2])
{
    (void)c, (void)dt;
    k[0] = k[1] = 0;
}
static inline void F(fused_readout)(const real s[OSC_MAX_STATE], coef c, real dt, const real k[2],
                                    real *x, real *v)
{
    (void)k;
    F(lane_readout)(s, c, dt, x, v);
}
#endif

/* One axis A of D in the fused step of lane j (in OSC_DEFINE_FUSED_BLOCK's loop; A a constant,
 * called only for A < D: OSC_AXIS keeps the indices in bounds where the call is dead code). */
#define OSC_AXIS(A, D) ((A) < (D) ? (A) : 0)
#define OSC_FUSED_AXIS(A, D)                                                                       \
    F(fused_axis)(&b0[OSC_AXIS(A, D)][j], &b1[OSC_AXIS(A, D)][j], &b2[OSC_AXIS(A, D)][j], bw[j],   \
                  bc[j], (A) == (D) - 1 ? bg[j] : (real)0, dt, d11[j], p12[j], p21[j], d22[j],     \
                  (A) == (D) - 1 ? q1[j] : 0.0, (A) == (D) - 1 ? q2[j] : 0.0,                      \
                  &xe[OSC_AXIS(A, D)][j], &ve[OSC_AXIS(A, D)][j], (A) == 0, &err2, &sum_v, &sum_x, \
                  &dx_last, (A) == (D) - 1 ? rl[0][j] : r0[0][j],                           \
                  (A) == (D) - 1 ? rl[1][j] : r0[1][j],                                           \
                  (A) == (D) - 1 ? kl[0][j] : kz[0][j], (A) == (D) - 1 ? kl[1][j] : kz[1][j],     \
                  (A) == (D) - 1 ? kl[2][j] : kz[2][j], (A) == (D) - 1 ? kl[3][j] : kz[3][j])

/* The pieces the fused block and the composed fused block share (macros, as the blocks are: the
 * same tokens in both, so the same code). The co-step's per-lane arrays at the block's first
 * lane i; */
#define OSC_COSTEP_ARRAYS                                                                          \
    const double *restrict d11 = cs->d11 + i, *restrict p12 = cs->p12 + i;                         \
    const double *restrict p21 = cs->p21 + i, *restrict d22 = cs->d22 + i;                         \
    const double *restrict q1 = cs->q1 + i, *restrict q2 = cs->q2 + i;                             \
    const double *restrict hm = cs->half_m + i, *restrict hk = cs->half_k + i;                     \
    const double *restrict mg = cs->mg + i
/* lane j's co-step of the D axes, AXIS(A, D) the one of axis A (OSC_FUSED_AXIS: the method's step
 * and the co-step; OSC_COMPOSED_COSTEP: the co-step alone), then dE and the maxima; */
#define OSC_COSTEP_LANE(AXIS, D)                                                                   \
    do {                                                                                           \
        double err2 = 0, sum_v = 0, sum_x = 0, dx_last = 0;                                        \
        AXIS(0, D);                                                                                \
        if ((D) > 1)                                                                               \
            AXIS(1, D);                                                                            \
        if ((D) > 2)                                                                               \
            AXIS(2, D);                                                                            \
        OSC_COSTEP_MAXIMA(mg[j], hk[j], hm[j], err2, sum_v, sum_x, dx_last, me2[j], mde[j]);      \
    } while (0)
/* the block's maxima into the co-step's arrays. */
#define OSC_COSTEP_STORE_MAXIMA(BL)                                                                \
    double *restrict oe2 = cs->max_err2 + i, *restrict ode = cs->max_de + i;                       \
    _Pragma("omp simd") for (size_t j = 0; j < (BL); j++) oe2[j] = me2[j], ode[j] = mde[j]

/* The method's step of one axis, its readout, the exact motion's step, and the error sums. */
static inline __attribute__((always_inline)) void F(fused_axis)(
    real *restrict s0, real *restrict s1, real *restrict s2, real w2, real gam, real g, real dt,
    double d11, double p12, double p21, double d22, double q1, double q2, double *restrict xe,
    double *restrict ve, bool first, double *restrict err2, double *restrict sum_v,
    double *restrict sum_x, double *restrict dx_last, real rk0, real rk1, real k0, real k1,
    real k2, real k3)
{
    F(fast_step)(s0, s1, s2, k0, k1, k2, k3, dt);
    const real rk[2] = {rk0, rk1};
    real st[OSC_MAX_STATE] = {*s0, *s1, *s2}, xr, vr;
    F(fused_readout)(st, (coef){w2, gam, g}, dt, rk, &xr, &vr);
    const double x = (double)xr, v = (double)vr, xo = *xe, vo = *ve;
    const double xn = xo + fma(d11, xo, fma(p12, vo, q1));
    const double vn = vo + fma(p21, xo, fma(d22, vo, q2));
    *xe = xn, *ve = vn;
    const double dx = x - xn, dv = v - vn;
    *err2 = first ? dx * dx : fma(dx, dx, *err2);
    *sum_v = first ? dv * (v + vn) : fma(dv, v + vn, *sum_v);
    *sum_x = first ? dx * (x + xn) : fma(dx, x + xn, *sum_x);
    *dx_last = dx; /* the last axis's, as the last call leaves it */
}

/* One fused register block of BL lanes starting at lane i, D axes, stepped nsteps times. */
#define OSC_DEFINE_FUSED_BLOCK(NAME, BL, D, ATTR)                                                  \
    ATTR __attribute__((noinline)) static void NAME(                               \
        const osc_soa *ax, const osc_costep *cs, size_t i, long nsteps, real dt)                   \
    {                                                                                              \
        real b0[D][BL], b1[D][BL], b2[D][BL], bw[BL], bc[BL], bg[BL];                              \
        /* Readout constants (r) and step coefficients (k), each for the axes without gravity    \
         * (z) and the last axis (l); one array per constant, like the state: laid out lane-major \
         * ([BL][OSC_NCOEF]) they made GCC shuffle or scalarize the step loop (the fused kernel   \
         * of rk4, stormer and the implicit-drag methods ran 1.3-1.6x slower on Zen 3). */        \
        real r0[2][BL], rl[2][BL], kz[OSC_NCOEF][BL], kl[OSC_NCOEF][BL];                           \
        double xe[D][BL], ve[D][BL], me2[BL], mde[BL];                                             \
        const real *restrict w2 = (const real *)ax[0].w2 + i;                                      \
        const real *restrict gam = (const real *)ax[0].gam + i;                                    \
        const real *restrict g = (const real *)ax[(D) - 1].g + i;                                  \
        OSC_COSTEP_ARRAYS;                                                                         \
        for (int a = 0; a < (D); a++) {                                                            \
            const real *restrict s0 = (const real *)ax[a].s[0] + i;                                \
            const real *restrict s1 = (const real *)ax[a].s[1] + i;                                \
            const real *restrict s2 = OSC_NSTATE > 2 ? (const real *)ax[a].s[2] + i : NULL;        \
            const double *restrict xs = cs->xe[a] + i, *restrict vs = cs->ve[a] + i;               \
            _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                  \
            {                                                                                      \
                b0[a][j] = s0[j], b1[a][j] = s1[j], b2[a][j] = OSC_NSTATE > 2 ? s2[j] : 0;         \
                xe[a][j] = xs[j], ve[a][j] = vs[j];                                                \
            }                                                                                      \
        }                                                                                          \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                      \
        {                                                                                          \
            bw[j] = w2[j], bc[j] = gam[j], bg[j] = g[j];                                           \
            real rzj[2], rlj[2], kzj[OSC_NCOEF], klj[OSC_NCOEF];                                   \
            F(readout_consts)((coef){bw[j], bc[j], 0}, dt, rzj);                                   \
            F(readout_consts)((coef){bw[j], bc[j], bg[j]}, dt, rlj);                               \
            F(lane_coefs)(bw[j], bc[j], 0, dt, kzj);                                               \
            F(lane_coefs)(bw[j], bc[j], bg[j], dt, klj);                                           \
            r0[0][j] = rzj[0], r0[1][j] = rzj[1], rl[0][j] = rlj[0], rl[1][j] = rlj[1];            \
            for (int c = 0; c < OSC_NCOEF; c++)                                                    \
                kz[c][j] = kzj[c], kl[c][j] = klj[c];                                              \
            me2[j] = 0, mde[j] = 0;                                                                \
        }                                                                                          \
        for (long n = 0; n < nsteps; n++) {                                                        \
            _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                  \
                OSC_COSTEP_LANE(OSC_FUSED_AXIS, D);                                                \
        }                                                                                          \
        for (int a = 0; a < (D); a++) {                                                            \
            real *restrict s0 = (real *)ax[a].s[0] + i, *restrict s1 = (real *)ax[a].s[1] + i;     \
            real *restrict s2 = OSC_NSTATE > 2 ? (real *)ax[a].s[2] + i : NULL;                    \
            _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                  \
            {                                                                                      \
                s0[j] = b0[a][j], s1[j] = b1[a][j];                                                \
                if (OSC_NSTATE > 2)                                                                \
                    s2[j] = b2[a][j];                                                              \
            }                                                                                      \
        }                                                                                          \
        OSC_COSTEP_STORE_MAXIMA(BL);                                                               \
    }

/* An advance_audited() for one ISA: blocks for D = 1, 2, 3; each divides every lane range. */
#define OSC_DEFINE_ADVANCE_AUDITED(NAME, BL, ATTR)                                                 \
    OSC_DEFINE_FUSED_BLOCK(F(NAME##_d1), OSC_FBL_DIM(BL, 1), 1, ATTR)                              \
    OSC_DEFINE_FUSED_BLOCK(F(NAME##_d2), OSC_FBL_DIM(BL, 2), 2, ATTR)                              \
    OSC_DEFINE_FUSED_BLOCK(F(NAME##_d3), OSC_FBL_DIM(BL, 3), 3, ATTR)                              \
    ATTR static void F(NAME)(const osc_soa *ax, int dim, size_t i0, size_t i1, long nsteps,        \
                             real dt, const osc_costep *cs)                                        \
    {                                                                                              \
        if (dim == 1)                                                                              \
            for (size_t i = i0; i < i1; i += OSC_FBL_DIM(BL, 1))                                   \
                F(NAME##_d1)(ax, cs, i, nsteps, dt);                                               \
        else if (dim == 2)                                                                         \
            for (size_t i = i0; i < i1; i += OSC_FBL_DIM(BL, 2))                                   \
                F(NAME##_d2)(ax, cs, i, nsteps, dt);                                               \
        else                                                                                       \
            for (size_t i = i0; i < i1; i += OSC_FBL_DIM(BL, 3))                                   \
                F(NAME##_d3)(ax, cs, i, nsteps, dt);                                               \
    }

#if defined(OSC_MULTIVERSION) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

OSC_DEFINE_ADVANCE_AUDITED(audited_v4, OSC_FBL_V4, __attribute__((target("arch=x86-64-v4"))))
OSC_DEFINE_ADVANCE_AUDITED(audited_v3, OSC_FBL_V3, __attribute__((target("arch=x86-64-v3"))))
OSC_DEFINE_ADVANCE_AUDITED(audited_base, OSC_FBL_BASE, )

static void F(advance_audited)(const osc_soa *ax, int dim, size_t i0, size_t i1, long nsteps,
                               double dt, const osc_costep *cs)
{
    switch (osc_isa_dispatch()) {
    case 4:
        F(audited_v4)(ax, dim, i0, i1, nsteps, (real)dt, cs);
        break;
    case 3:
        F(audited_v3)(ax, dim, i0, i1, nsteps, (real)dt, cs);
        break;
    default:
        F(audited_base)(ax, dim, i0, i1, nsteps, (real)dt, cs);
        break;
    }
}

#else

#if defined(__AVX512F__)
OSC_DEFINE_ADVANCE_AUDITED(audited_any, OSC_FBL_V4, )
#elif defined(__AVX2__) || defined(__AVX__)
OSC_DEFINE_ADVANCE_AUDITED(audited_any, OSC_FBL_V3, )
#else
OSC_DEFINE_ADVANCE_AUDITED(audited_any, OSC_FBL_BASE, )
#endif

static void F(advance_audited)(const osc_soa *ax, int dim, size_t i0, size_t i1, long nsteps,
                               double dt, const osc_costep *cs)
{
    F(audited_any)(ax, dim, i0, i1, nsteps, (real)dt, cs);
}

#endif

/* ---- the composed kernels ------------------------------------------------------------------------
 *
 * advance_composed() and advance_audited_composed() (osc_kernels in oscbench.h) step a method
 * composed with itself: one step is nsub steps of F(fast_step) of sizes h_1, ..., h_nsub
 * (composition.h). A register block is loaded once, stepped nsteps x nsub times and stored once,
 * as advance() steps it; the per-lane coefficients of every substep, F(lane_coefs) with h_k, are
 * prepared once per block and held coefficient-major, kc[k][c][lane], as memory operands (as
 * the fused kernel's kz). Each substep is F(fast_step) with the coefficients and the step
 * (real)h_k that advance(a, i0, i1, 1, h_k) would use: the same bits as that call once per
 * substep (tests/test_composition.c checks it on every ISA path). The substep loop has a run-time
 * trip count; the lane loop inside it is unrolled over the block as in advance().
 *
 * L1: the coefficients take nsub x OSC_NCOEF x BL reals per block (twice that in the audited
 * form, with and without gravity): 3 substeps of a 24-lane double block 2.3 KB, the limit of 32
 * substeps 24 KB (16-lane audited blocks: 32 KB). Beyond a few substeps they come from L1 and L2
 * in turn (Yoshida's triple jump has 3 substeps, Suzuki's fractal 5; not measured beyond).
 *
 * Blocks: advance()'s lane count per ISA (or the method's comp_v3/comp_v4 in lib/meson.build's
 * table; at most 128), whole blocks within each 128-lane piece of the range and, where BL does
 * not divide 128, one block of the remaining 128 mod BL lanes (a constant: one more
 * instantiation, not the power-of-two ladder advance() uses); the audited form takes the fused
 * kernel's blocks per dim. Only methods whose state is
 * (x, v) as given have them (OSC_COMPOSABLE, method_template.h).
 *
 * Three substeps. The triple jump (Yoshida's, Forest-Ruth's: the composition in use) has its own
 * advance block, the substep loop of constant trip count: GCC unrolls it and keeps the block's
 * state in registers through the step, where the run-time substep loop stores the state to the
 * stack at every substep (without reloading it: LIM does not sink those stores out of the
 * nest) and leaves fewer registers to the block. Measured on Zen 3 (one thread, 65536 lanes,
 * step/yoshida-verlet/double, cpu_roof_fraction, medians of 3 on a shared machine): 24 lanes
 * generic 0.46, 16 generic 0.51, 16 specialized 0.53, 24 specialized 0.61, 32 specialized 0.65
 * (hence verlet's comp_v3 32). One more instantiation per ISA and precision; the audited form
 * is not specialized (its co-step dominates).
 *
 * Five, seven and nine substeps (Suzuki's fractal; Yoshida's sixth order; Kahan and Li's
 * s9odr6a) have their blocks too, their substep loop unrolled by `#pragma GCC unroll` (past
 * three substeps the body outgrows GCC's complete-unrolling limits and the loop stays rolled,
 * storing the state each substep as the run-time loop does; 3's block is left as it was, the
 * pragma changes its code). Measured on Zen 5 (2026-12-02, one thread, 65536 lanes,
 * cpu_roof_fraction, medians of 3, 2 rounds, while a .ci/run loaded both cores), Suzuki's
 * 5 substeps over semi-implicit, verlet, forest-ruth, rk4, v4 path: run-time loop 0.42, 0.61,
 * 0.77, 0.79 -> 0.81, 0.89, 0.83, 0.81; v3 path (OSCBENCH_ISA=v3): 0.54, 0.71, 0.52, 0.65 ->
 * 0.61, 0.68, 0.51, 0.72. Fifteen and seventeen (Yoshida's and Kahan and Li's eighth order,
 * s17odr8a) too, unrolled by `#pragma GCC unroll 32`: measured on Zen 4 (2026-12-02, 2 threads,
 * 2^20 lanes, roof_fraction, 3 interleaved rounds of medians of 3, double/float) with s17odr8a
 * over verlet, v4 path: run-time loop 0.58/0.57 -> 0.68/0.72 (1.19x/1.25x); v3 path 0.57/0.54
 * -> 0.63/0.60 (1.09x/1.11x). Less than at 5 substeps while 17 substeps' coefficients of a
 * 64-lane block, 35 KB, outgrew L1: with the blocks halved past 24 KB (OSC_CBL_N below) the v4
 * path then read 0.83/0.83 (1.19x/1.17x, another 3 rounds). Other counts take the run-time
 * loop (one instantiation per count). Stepping it in unrolled chunks of 4 substeps
 * instead made GCC carry the whole block's state through the stack at every chunk
 * (kernels_asm's spill check fails).
 *
 * Inlining: the blocks are `flatten`, so that the step is inlined into them early, whatever
 * GCC's inliner decides. Left to it, the copies of a long step (rk4, forest-ruth) in these blocks
 * used up the file's unit-growth budget and the step was no longer inlined into the fused blocks
 * compiled last (their step loops called it per lane, scalar: tests/check_kernels.py failed).
 * Inlined early, they count in the unit's initial size instead, and advance() and the fused
 * blocks compile as before (the same instructions, checked with objdump). */
#if OSC_COMPOSABLE

/* The composed blocks' lanes per ISA in double (float: twice), advance()'s unless lib/meson.build's
 * tuning table sets them (comp_v3, comp_v4: where advance()'s block spills in the composed
 * form, whose substep loop holds more live values). */
#ifndef OSC_COMPOSED_LANES_V4_D
#define OSC_COMPOSED_LANES_V4_D OSC_BLOCK_LANES_V4_D
#endif
#ifndef OSC_COMPOSED_LANES_V3_D
#define OSC_COMPOSED_LANES_V3_D OSC_BLOCK_LANES_V3_D
#endif
#define OSC_CBL_V4 (OSC_IS_DOUBLE ? OSC_COMPOSED_LANES_V4_D : 2 * OSC_COMPOSED_LANES_V4_D)
#define OSC_CBL_V3 (OSC_IS_DOUBLE ? OSC_COMPOSED_LANES_V3_D : 2 * OSC_COMPOSED_LANES_V3_D)
_Static_assert(OSC_COMPOSED_LANES_V4_D % 8 == 0 && OSC_COMPOSED_LANES_V3_D % 8 == 0,
               "composed blocks must be multiples of 8 lanes");
#define OSC_CBL(BL) ((BL) <= 128 ? (BL) : 128)
#define OSC_CREM(BL) (128 % OSC_CBL(BL) ? 128 % OSC_CBL(BL) : 8)
/* Coefficient sets an N-substep block holds: one per substep, or, where the substep sizes read
 * the same backwards (PAL 1: a palindrome, as every symmetric composition is; F(palindrome)
 * below), one per distinct size, (N + 1) / 2, substep k >= (N + 1) / 2 reading set N - 1 - k.
 * The mirrored sizes are the same bits, so their coefficients are too, and the palindromic
 * block steps the bits of the full one. */
#define OSC_CSETS(N, PAL) ((PAL) ? ((N) + 1) / 2 : (N))
#define OSC_CSET(K, N, PAL) ((PAL) && (K) >= OSC_CSETS(N, 1) ? (N) - 1 - (K) : (K))
/* Lanes of the block specialized to N substeps: the composed lanes, halved (where that stays a
 * multiple of 8) when the block's coefficient sets, OSC_CSETS x OSC_NCOEF x lanes reals, would
 * pass 24 KB: they are read at every step and must stay in L1 (32 KB or more on the x86 cores
 * measured) beside the state. Of the tuned blocks that halves only the 64-lane AVX-512 ones at 15
 * and 17 substeps (30-35 KB), and only when the sizes are not a palindrome (8 and 9 sets: 16-18
 * KB). Measured on Zen 4 (2026-12-02, 2 threads, 2^20 lanes, roof_fraction, 3 interleaved rounds
 * of medians of 3, double/float), s17odr8a over verlet, v4, 17 sets: 64 lanes 0.63/0.61, 32
 * lanes 0.84/0.82 (comp_v4 32 for every count); at 3 and 5 substeps (7-10 KB) 32 lanes read
 * 1.04x/1.01x and 0.99x/0.97x of 64's, and on v3, 17 substeps (17 KB at 32 lanes), 16 lanes
 * 0.90x/0.93x of 32's: hence a budget, not smaller blocks everywhere. The 32 lanes cost the Zen 5
 * (full-width zmm FMAs: 4 vectors a block hide half of verlet's 14-cycle chain) what L1 cost
 * the Zen 4: on a Zen 5 (2026-12-04, 2 threads, 2^20 lanes, roof_fraction, medians of 3, two
 * interleaved rounds) s17odr8a over verlet read 0.50-0.51 at 32 lanes, 0.85-0.86 at 64 with all
 * 17 sets (35 KB: its L1 holds 48) and 0.87-0.88 (float 0.87) at 64 with the palindrome's 9
 * sets, 18 KB, which fit the Zen 4's 32 KB L1 as well (not measured there). */
#define OSC_COMP_L1_BUDGET 24576
#define OSC_CBL_N(BL, N, PAL)                                                                      \
    (OSC_CSETS(N, PAL) * OSC_NCOEF * OSC_CBL(BL) * sizeof(real) > OSC_COMP_L1_BUDGET &&           \
             OSC_CBL(BL) % 16 == 0                                                                 \
         ? OSC_CBL(BL) / 2                                                                         \
         : OSC_CBL(BL))

/* Coefficient sets 0 .. NSETS - 1 of the BL lanes from w2, gam, g (pointers at the block's first
 * lane): set k from substep size HS[k]. */
#define OSC_COMPOSED_COEFS(KC, BL, W2, GAM, G, HS, NSETS)                                          \
    for (int k = 0; k < (NSETS); k++) {                                                            \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                      \
        {                                                                                          \
            real kk[OSC_NCOEF];                                                                    \
            F(lane_coefs)((W2)[j], (GAM)[j], (G)[j], (HS)[k], kk);                                 \
            for (int c = 0; c < OSC_NCOEF; c++)                                                    \
                KC[k][c][j] = kk[c];                                                               \
        }                                                                                          \
    }

/* One register block of BL lanes starting at lane i, stepped nsteps times nsub substeps (NSUB:
 * nsub, or a constant for the blocks of 3, 5, 7, 9, 15 and 17 substeps; PAL: 1 for the block of
 * a palindrome, which holds OSC_CSETS(NSUB, 1) coefficient sets; UNROLL: empty or the pragma that
 * unrolls the substep loop). */
#define OSC_DEFINE_COMPOSED_BLOCK(NAME, BL, ATTR)                                                  \
    OSC_DEFINE_COMPOSED_BLOCK_N(NAME, BL, ATTR, nsub, 0, )
#define OSC_DEFINE_COMPOSED_BLOCK_N(NAME, BL, ATTR, NSUB, PAL, UNROLL)                             \
    ATTR __attribute__((noinline, flatten)) static void NAME(                                      \
        real *restrict s0, real *restrict s1, const real *restrict w2, const real *restrict gam,   \
        const real *restrict g, size_t i, long nsteps, const real *restrict hs, int nsub)          \
    {                                                                                              \
        (void)nsub;                                                                                \
        real b0[BL], b1[BL], b2[BL];                                                               \
        real kc[OSC_COMPOSED_MAX_SUBSTEPS][OSC_NCOEF][BL];                                         \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                      \
            b0[j] = s0[i + j], b1[j] = s1[i + j], b2[j] = 0;                                       \
        OSC_COMPOSED_COEFS(kc, BL, w2 + i, gam + i, g + i, hs, OSC_CSETS(NSUB, PAL))               \
        for (long n = 0; n < nsteps; n++)                                                          \
            UNROLL for (int k = 0; k < (NSUB); k++) {                                              \
                const real h = hs[k];                                                              \
                const int c = OSC_CSET(k, NSUB, PAL);                                              \
                _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                              \
                    F(fast_step)(&b0[j], &b1[j], &b2[j], kc[c][0][j], kc[c][1][j], kc[c][2][j],    \
                                 kc[c][3][j], h);                                                  \
            }                                                                                      \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                      \
            s0[i + j] = b0[j], s1[i + j] = b1[j];                                                  \
    }

/* Whether the substep sizes read the same backwards, bit for bit (a composition given as
 * symmetric always does; one given in full may). */
static inline bool F(palindrome)(const real *hs, int nsub)
{
    for (int k = 0; k < nsub / 2; k++)
        if (memcmp(&hs[k], &hs[nsub - 1 - k], sizeof(real)) != 0)
            return false;
    return true;
}

/* The N-substep block over the OSC_CBL(BL) lanes at i + b, once or twice where it is halved: the
 * palindrome's block where it holds more lanes than the full one (a constant: elsewhere only the
 * full block is called). */
#define OSC_COMPOSED_RUN(BLOCK, BL, N, PAL)                                                        \
    for (size_t h = 0; h < OSC_CBL(BL); h += OSC_CBL_N(BL, N, PAL))                                \
    BLOCK(s0, s1, w2, gam, g, i + b + h, nsteps, hs, nsub)
#define OSC_COMPOSED_CALL_N(NAME, BL, N)                                                           \
    do {                                                                                           \
        if (OSC_CBL_N(BL, N, 1) > OSC_CBL_N(BL, N, 0) && pal)                                      \
            OSC_COMPOSED_RUN(F(NAME##_pal##N), BL, N, 1);                                          \
        else                                                                                       \
            OSC_COMPOSED_RUN(F(NAME##_blk##N), BL, N, 0);                                          \
    } while (0)

/* The blocks of N substeps (full, and the palindrome's), unrolled by UNROLL. */
#define OSC_DEFINE_COMPOSED_BLOCKS_N(NAME, BL, ATTR, N, UNROLL)                                    \
    OSC_DEFINE_COMPOSED_BLOCK_N(F(NAME##_blk##N), OSC_CBL_N(BL, N, 0), ATTR, N, 0, UNROLL)         \
    OSC_DEFINE_COMPOSED_BLOCK_N(F(NAME##_pal##N), OSC_CBL_N(BL, N, 1), ATTR, N, 1, UNROLL)

#define OSC_DEFINE_ADVANCE_COMPOSED(NAME, BL, ATTR)                                                \
    OSC_DEFINE_COMPOSED_BLOCK(F(NAME##_blk), OSC_CBL(BL), ATTR)                                    \
    OSC_DEFINE_COMPOSED_BLOCKS_N(NAME, BL, ATTR, 3, )                                              \
    OSC_DEFINE_COMPOSED_BLOCKS_N(NAME, BL, ATTR, 5, _Pragma("GCC unroll 16"))                      \
    OSC_DEFINE_COMPOSED_BLOCKS_N(NAME, BL, ATTR, 7, _Pragma("GCC unroll 16"))                      \
    OSC_DEFINE_COMPOSED_BLOCKS_N(NAME, BL, ATTR, 9, _Pragma("GCC unroll 16"))                      \
    OSC_DEFINE_COMPOSED_BLOCKS_N(NAME, BL, ATTR, 15, _Pragma("GCC unroll 32"))                     \
    OSC_DEFINE_COMPOSED_BLOCKS_N(NAME, BL, ATTR, 17, _Pragma("GCC unroll 32"))                     \
    OSC_DEFINE_COMPOSED_BLOCK(F(NAME##_rem), OSC_CREM(BL), ATTR)                                   \
    ATTR static void F(NAME)(const osc_soa *a, size_t i0, size_t i1, long nsteps,                  \
                             const real *hs, int nsub)                                             \
    {                                                                                              \
        real *s0 = a->s[0], *s1 = a->s[1];                                                         \
        const real *w2 = a->w2, *gam = a->gam, *g = a->g;                                          \
        const bool pal = F(palindrome)(hs, nsub);                                                  \
        for (size_t i = i0; i < i1; i += 128) {                                                    \
            size_t b = 0;                                                                          \
            for (; 128 - b >= OSC_CBL(BL); b += OSC_CBL(BL))                                       \
                if (nsub == 3)                                                                     \
                    OSC_COMPOSED_CALL_N(NAME, BL, 3);                                              \
                else if (nsub == 5)                                                                \
                    OSC_COMPOSED_CALL_N(NAME, BL, 5);                                              \
                else if (nsub == 7)                                                                \
                    OSC_COMPOSED_CALL_N(NAME, BL, 7);                                              \
                else if (nsub == 9)                                                                \
                    OSC_COMPOSED_CALL_N(NAME, BL, 9);                                              \
                else if (nsub == 15)                                                               \
                    OSC_COMPOSED_CALL_N(NAME, BL, 15);                                             \
                else if (nsub == 17)                                                               \
                    OSC_COMPOSED_CALL_N(NAME, BL, 17);                                             \
                else                                                                               \
                    F(NAME##_blk)(s0, s1, w2, gam, g, i + b, nsteps, hs, nsub);                    \
            if (128 % OSC_CBL(BL))                                                                 \
                F(NAME##_rem)(s0, s1, w2, gam, g, i + b, nsteps, hs, nsub);                        \
        }                                                                                          \
    }

/* Substep k of axis A of D (A a constant; OSC_AXIS keeps dead calls in bounds, as in the fused
 * block, whose explicit per-axis calls these follow: a loop over the axes left GCC a rolled lane
 * loop of scalar code in the 2- and 3-axis blocks), and the co-step of axis A. */
#define OSC_COMPOSED_AXIS(A, D)                                                                    \
    F(fast_step)(&b0[OSC_AXIS(A, D)][j], &b1[OSC_AXIS(A, D)][j], &b2[OSC_AXIS(A, D)][j],           \
                 (A) == (D) - 1 ? kl[k][0][j] : kz[k][0][j],                                       \
                 (A) == (D) - 1 ? kl[k][1][j] : kz[k][1][j],                                       \
                 (A) == (D) - 1 ? kl[k][2][j] : kz[k][2][j],                                       \
                 (A) == (D) - 1 ? kl[k][3][j] : kz[k][3][j], h)
#define OSC_COMPOSED_COSTEP(A, D)                                                                  \
    osc_costep_xv((double)b0[OSC_AXIS(A, D)][j], (double)b1[OSC_AXIS(A, D)][j], d11[j], p12[j],    \
                  p21[j], d22[j], (A) == (D) - 1 ? q1[j] : 0.0, (A) == (D) - 1 ? q2[j] : 0.0,     \
                  &xe[OSC_AXIS(A, D)][j], &ve[OSC_AXIS(A, D)][j], (A) == 0, &err2, &sum_v,        \
                  &sum_x, &dx_last)

/* One fused register block of BL lanes starting at lane i, D axes: per step the nsub substeps of
 * every axis, then the exact motion's step of dt and the maxima, as the fused block takes them
 * (the state's (x, v) is the readout: composable methods carry it as given). */
#define OSC_DEFINE_COMPOSED_FUSED_BLOCK(NAME, BL, D, ATTR)                                         \
    ATTR __attribute__((noinline, flatten)) static void NAME(                                      \
        const osc_soa *ax, const osc_costep *cs, size_t i, long nsteps, const real *restrict hs,   \
        int nsub)                                                                                  \
    {                                                                                              \
        real b0[D][BL], b1[D][BL], b2[D][BL];                                                      \
        /* substep coefficients without gravity (z: axes before the last) and with it (l) */     \
        real kz[OSC_COMPOSED_MAX_SUBSTEPS][OSC_NCOEF][BL];                                         \
        real kl[OSC_COMPOSED_MAX_SUBSTEPS][OSC_NCOEF][BL];                                         \
        double xe[D][BL], ve[D][BL], me2[BL], mde[BL];                                             \
        const real *restrict w2 = (const real *)ax[0].w2 + i;                                      \
        const real *restrict gam = (const real *)ax[0].gam + i;                                    \
        const real *restrict g = (const real *)ax[(D) - 1].g + i;                                  \
        const real zeros[BL] = {0};                                                                \
        OSC_COSTEP_ARRAYS;                                                                         \
        for (int a = 0; a < (D); a++) {                                                            \
            const real *restrict s0 = (const real *)ax[a].s[0] + i;                                \
            const real *restrict s1 = (const real *)ax[a].s[1] + i;                                \
            const double *restrict xs = cs->xe[a] + i, *restrict vs = cs->ve[a] + i;               \
            _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                  \
            {                                                                                      \
                b0[a][j] = s0[j], b1[a][j] = s1[j], b2[a][j] = 0;                                  \
                xe[a][j] = xs[j], ve[a][j] = vs[j];                                                \
            }                                                                                      \
        }                                                                                          \
        if ((D) > 1)                                                                               \
            OSC_COMPOSED_COEFS(kz, BL, w2, gam, zeros, hs, nsub)                                   \
        OSC_COMPOSED_COEFS(kl, BL, w2, gam, g, hs, nsub)                                           \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++) me2[j] = 0, mde[j] = 0;              \
        for (long n = 0; n < nsteps; n++) {                                                        \
            for (int k = 0; k < nsub; k++) {                                                       \
                const real h = hs[k];                                                              \
                _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                              \
                {                                                                                  \
                    OSC_COMPOSED_AXIS(0, D);                                                       \
                    if ((D) > 1)                                                                   \
                        OSC_COMPOSED_AXIS(1, D);                                                   \
                    if ((D) > 2)                                                                   \
                        OSC_COMPOSED_AXIS(2, D);                                                   \
                }                                                                                  \
            }                                                                                      \
            _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                  \
                OSC_COSTEP_LANE(OSC_COMPOSED_COSTEP, D);                                           \
        }                                                                                          \
        for (int a = 0; a < (D); a++) {                                                            \
            real *restrict s0 = (real *)ax[a].s[0] + i, *restrict s1 = (real *)ax[a].s[1] + i;     \
            _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                  \
                s0[j] = b0[a][j], s1[j] = b1[a][j];                                                \
        }                                                                                          \
        OSC_COSTEP_STORE_MAXIMA(BL);                                                               \
    }

#define OSC_DEFINE_AUDITED_COMPOSED(NAME, BL, ATTR)                                                \
    OSC_DEFINE_COMPOSED_FUSED_BLOCK(F(NAME##_d1), OSC_FBL_DIM(BL, 1), 1, ATTR)                     \
    OSC_DEFINE_COMPOSED_FUSED_BLOCK(F(NAME##_d2), OSC_FBL_DIM(BL, 2), 2, ATTR)                     \
    OSC_DEFINE_COMPOSED_FUSED_BLOCK(F(NAME##_d3), OSC_FBL_DIM(BL, 3), 3, ATTR)                     \
    ATTR static void F(NAME)(const osc_soa *ax, int dim, size_t i0, size_t i1, long nsteps,        \
                             const real *hs, int nsub, const osc_costep *cs)                       \
    {                                                                                              \
        if (dim == 1)                                                                              \
            for (size_t i = i0; i < i1; i += OSC_FBL_DIM(BL, 1))                                   \
                F(NAME##_d1)(ax, cs, i, nsteps, hs, nsub);                                         \
        else if (dim == 2)                                                                         \
            for (size_t i = i0; i < i1; i += OSC_FBL_DIM(BL, 2))                                   \
                F(NAME##_d2)(ax, cs, i, nsteps, hs, nsub);                                         \
        else                                                                                       \
            for (size_t i = i0; i < i1; i += OSC_FBL_DIM(BL, 3))                                   \
                F(NAME##_d3)(ax, cs, i, nsteps, hs, nsub);                                         \
    }

/* The substep sizes in the kernel's precision, as advance() rounds its dt; false for an nsub
 * out of range (nothing is stepped). */
static bool F(composed_sizes)(const double *h, int nsub, real hs[OSC_COMPOSED_MAX_SUBSTEPS])
{
    if (nsub < 1 || nsub > OSC_COMPOSED_MAX_SUBSTEPS)
        return false;
    for (int k = 0; k < nsub; k++)
        hs[k] = (real)h[k];
    return true;
}

#if defined(OSC_MULTIVERSION) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

OSC_DEFINE_ADVANCE_COMPOSED(composed_v4, OSC_CBL_V4, __attribute__((target("arch=x86-64-v4"))))
OSC_DEFINE_ADVANCE_COMPOSED(composed_v3, OSC_CBL_V3, __attribute__((target("arch=x86-64-v3"))))
OSC_DEFINE_ADVANCE_COMPOSED(composed_base, OSC_BL_BASE, )
OSC_DEFINE_AUDITED_COMPOSED(caudited_v4, OSC_FBL_V4, __attribute__((target("arch=x86-64-v4"))))
OSC_DEFINE_AUDITED_COMPOSED(caudited_v3, OSC_FBL_V3, __attribute__((target("arch=x86-64-v3"))))
OSC_DEFINE_AUDITED_COMPOSED(caudited_base, OSC_FBL_BASE, )

static void F(advance_composed)(const osc_soa *a, size_t i0, size_t i1, long nsteps,
                                const double *h, int nsub)
{
    real hs[OSC_COMPOSED_MAX_SUBSTEPS];
    if (!F(composed_sizes)(h, nsub, hs))
        return;
    switch (osc_isa_dispatch()) {
    case 4:
        F(composed_v4)(a, i0, i1, nsteps, hs, nsub);
        break;
    case 3:
        F(composed_v3)(a, i0, i1, nsteps, hs, nsub);
        break;
    default:
        F(composed_base)(a, i0, i1, nsteps, hs, nsub);
        break;
    }
}

static void F(advance_audited_composed)(const osc_soa *ax, int dim, size_t i0, size_t i1,
                                        long nsteps, double dt, const double *h, int nsub,
                                        const osc_costep *cs)
{
    (void)dt; /* the co-step's map in cs is made for it */
    real hs[OSC_COMPOSED_MAX_SUBSTEPS];
    if (!F(composed_sizes)(h, nsub, hs))
        return;
    switch (osc_isa_dispatch()) {
    case 4:
        F(caudited_v4)(ax, dim, i0, i1, nsteps, hs, nsub, cs);
        break;
    case 3:
        F(caudited_v3)(ax, dim, i0, i1, nsteps, hs, nsub, cs);
        break;
    default:
        F(caudited_base)(ax, dim, i0, i1, nsteps, hs, nsub, cs);
        break;
    }
}

#else

#if defined(__AVX512F__)
OSC_DEFINE_ADVANCE_COMPOSED(composed_any, OSC_CBL_V4, )
OSC_DEFINE_AUDITED_COMPOSED(caudited_any, OSC_FBL_V4, )
#elif defined(__AVX2__) || defined(__AVX__)
OSC_DEFINE_ADVANCE_COMPOSED(composed_any, OSC_CBL_V3, )
OSC_DEFINE_AUDITED_COMPOSED(caudited_any, OSC_FBL_V3, )
#else
OSC_DEFINE_ADVANCE_COMPOSED(composed_any, OSC_BL_BASE, )
OSC_DEFINE_AUDITED_COMPOSED(caudited_any, OSC_FBL_BASE, )
#endif

static void F(advance_composed)(const osc_soa *a, size_t i0, size_t i1, long nsteps,
                                const double *h, int nsub)
{
    real hs[OSC_COMPOSED_MAX_SUBSTEPS];
    if (F(composed_sizes)(h, nsub, hs))
        F(composed_any)(a, i0, i1, nsteps, hs, nsub);
}

static void F(advance_audited_composed)(const osc_soa *ax, int dim, size_t i0, size_t i1,
                                        long nsteps, double dt, const double *h, int nsub,
                                        const osc_costep *cs)
{
    (void)dt; /* the co-step's map in cs is made for it */
    real hs[OSC_COMPOSED_MAX_SUBSTEPS];
    if (F(composed_sizes)(h, nsub, hs))
        F(caudited_any)(ax, dim, i0, i1, nsteps, hs, nsub, cs);
}

#endif

#undef OSC_CBL
#undef OSC_CBL_V4
#undef OSC_CBL_V3
#undef OSC_CREM
#undef OSC_CBL_N
#undef OSC_CSETS
#undef OSC_CSET
#undef OSC_COMPOSED_RUN
#undef OSC_DEFINE_COMPOSED_BLOCKS_N
#undef OSC_COMP_L1_BUDGET
#undef OSC_COMPOSED_CALL_N
#undef OSC_COMPOSED_COEFS
#undef OSC_DEFINE_COMPOSED_BLOCK
#undef OSC_DEFINE_COMPOSED_BLOCK_N
#undef OSC_DEFINE_ADVANCE_COMPOSED
#undef OSC_DEFINE_COMPOSED_FUSED_BLOCK
#undef OSC_COMPOSED_AXIS
#undef OSC_COMPOSED_COSTEP
#undef OSC_DEFINE_AUDITED_COMPOSED

#endif /* OSC_COMPOSABLE */

static inline coef F(lane_coef)(const osc_soa *a, size_t i)
{
    return (coef){((const real *)a->w2)[i], ((const real *)a->gam)[i], ((const real *)a->g)[i]};
}

static void F(init_soa)(const osc_soa *a, size_t i0, size_t i1, double dt)
{
    real *s[OSC_MAX_STATE] = {a->s[0], a->s[1], OSC_NSTATE > 2 ? a->s[2] : NULL};
    for (size_t i = i0; i < i1; i++) {
        real st[OSC_MAX_STATE];
        F(lane_init)(st, s[0][i], s[1][i], F(lane_coef)(a, i), (real)dt);
        for (int j = 0; j < OSC_NSTATE; j++)
            s[j][i] = st[j];
    }
}

static void F(readout_soa)(const osc_soa *a, size_t i0, size_t i1, double dt, double *x, double *v)
{
    const real *s[OSC_MAX_STATE] = {a->s[0], a->s[1], OSC_NSTATE > 2 ? a->s[2] : NULL};
    for (size_t i = i0; i < i1; i++) {
        real st[OSC_MAX_STATE] = {0, 0, 0}, xi, vi;
        for (int j = 0; j < OSC_NSTATE; j++)
            st[j] = s[j][i];
        F(lane_readout)(st, F(lane_coef)(a, i), (real)dt, &xi, &vi);
        x[i - i0] = xi, v[i - i0] = vi;
    }
}

#undef OSC_IS_DOUBLE
#undef OSC_BL_V4
#undef OSC_BL_V3
#undef OSC_BL_BASE
#undef OSC_REM_NEEDED
#undef OSC_DEFINE_BLOCK
#undef OSC_DEFINE_ADVANCE
#undef OSC_FBL_V4
#undef OSC_FBL_V3
#undef OSC_FBL_BASE
#undef OSC_FBL_POW2
#undef OSC_FBL_DIM
#undef OSC_DEFINE_FUSED_BLOCK
#undef OSC_FUSED_AXIS
#undef OSC_AXIS
#undef OSC_DEFINE_ADVANCE_AUDITED
