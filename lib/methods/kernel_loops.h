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
 * in the 32 zmm (AVX-512) or 16 ymm (AVX2) registers. A method file tunes it with, before
 * including method_template.h,
 *     #define OSC_BLOCK_LANES_V4_D 48   (x86-64-v4, double; _F for float, default twice _D)
 *     #define OSC_BLOCK_LANES_V3_D 64   (x86-64-v3, double; _F likewise)
 * Measured here (Sapphire Rapids, 2 FMA pipes of 512 bits or 2 of 256): on AVX-512, 8 zmm per
 * array (64 doubles, 128 floats) is best for every method: fewer leave the FMA latency exposed,
 * more spill the state (reg-reg copies of coefficients are free: move elimination). On AVX2,
 * 8-16 ymm per array; a method with a per-lane reciprocal keeps it at 8-12 (32-48 doubles), as
 * beyond that GCC no longer unrolls or hoists and divides every step.
 * Any multiple of 8 lanes works: lane ranges are multiples of OSC_LANE_ALIGN, and what is left
 * of a range after whole blocks is stepped in power-of-two blocks (128, 64, ..., 8 lanes).
 *
 * ISAs. With OSC_MULTIVERSION (GCC, x86-64) advance() is compiled three times, for x86-64-v4,
 * x86-64-v3 and the x86-64 baseline, each with its own block size, and picks one per call from the
 * CPU's features (a load and a test: it is called once per tile per audit interval). fma() gives
 * the same bits in all three (in the baseline it is a libm call). -DOSC_FORCE_ISA=3 (or 0) caps
 * the choice, to measure and test the AVX2 (or baseline) kernels on an AVX-512 machine. Without
 * OSC_MULTIVERSION there is one advance(), built for whatever the compiler targets. */

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
_Static_assert(OSC_BL_V4 % 8 == 0 && OSC_BL_V3 % 8 == 0 && OSC_BL_BASE % 8 == 0,
               "register blocks must be multiples of 8 lanes");
_Static_assert(OSC_BL_V4 <= 512 && OSC_BL_V3 <= 512 && OSC_BL_BASE <= 512,
               "register blocks of more than 512 lanes cannot live in registers");

#ifndef OSC_CUSTOM_INIT
/* Most methods carry (x, v) as they are. */
static inline void F(lane_init)(real s[OSC_MAX_STATE], real x0, real v0, coef c, real dt)
{
    (void)c, (void)dt;
    s[0] = x0, s[1] = v0, s[2] = 0;
}
static inline void F(lane_readout)(const real s[OSC_MAX_STATE], coef c, real dt, real *x, real *v)
{
    (void)c, (void)dt;
    *x = s[0], *v = s[1];
}
#endif

/* GCC emits the fully unrolled block step by step of each vector in turn: one vector's whole
 * dependency chain, then the next one's. The out-of-order scheduler (~100 entries) then fills
 * with waiting operations of a few chains and the FMA pipes starve, most for the long chains
 * (forest-ruth: 84 cycles per step). Pre-allocation scheduling, register-pressure aware,
 * interleaves the vectors' chains instead (forest-ruth 0.70-0.77 -> 0.84-0.87 of the FMA peak,
 * verlet ~+0.05, the short chains unchanged). It reorders, never changes an operation. A method
 * whose block it makes spill (rk4: 0.91 -> 0.78-0.85) defines OSC_BLOCK_NO_SCHED. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(OSC_BLOCK_NO_SCHED)
#define OSC_BLOCK_SCHED __attribute__((optimize("schedule-insns", "sched-pressure")))
#else
#define OSC_BLOCK_SCHED
#endif

/* One register block of BL lanes starting at lane i, stepped nsteps times. NAME is the function,
 * ATTR its target attribute. noinline keeps each block loop (and its register allocation) on
 * its own, and the assembly readable. */
#define OSC_DEFINE_BLOCK(NAME, BL, ATTR)                                                           \
    ATTR OSC_BLOCK_SCHED __attribute__((noinline)) static void NAME(                               \
        real *restrict s0, real *restrict s1, real *restrict s2, const real *restrict w2,          \
        const real *restrict gam, const real *restrict g, size_t i, long nsteps, real dt)          \
    {                                                                                              \
        real b0[BL], b1[BL], b2[BL], bw[BL], bc[BL], bg[BL];                                       \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                      \
        {                                                                                          \
            b0[j] = s0[i + j], b1[j] = s1[i + j], b2[j] = OSC_NSTATE > 2 ? s2[i + j] : 0;          \
            bw[j] = w2[i + j], bc[j] = gam[i + j], bg[j] = g[i + j];                               \
        }                                                                                          \
        for (long n = 0; n < nsteps; n++) {                                                        \
            _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                  \
                F(fast_step)(&b0[j], &b1[j], &b2[j], bw[j], bc[j], bg[j], dt);                     \
        }                                                                                          \
        _Pragma("omp simd") for (size_t j = 0; j < (BL); j++)                                      \
        {                                                                                          \
            s0[i + j] = b0[j], s1[i + j] = b1[j];                                                  \
            if (OSC_NSTATE > 2)                                                                    \
                s2[i + j] = b2[j];                                                                 \
        }                                                                                          \
    }

/* An advance() for one ISA: whole blocks of BL lanes, then the rest (a multiple of 8 lanes, as
 * ranges are multiples of OSC_LANE_ALIGN) in power-of-two blocks. The remainder blocks exist
 * only when BL does not divide OSC_LANE_ALIGN; the constant conditions fold away otherwise. */
#define OSC_REM_NEEDED(BL, L) ((L) < (BL) && OSC_LANE_ALIGN % (BL) != 0)
#define OSC_DEFINE_ADVANCE(NAME, BL, ATTR)                                                         \
    OSC_DEFINE_BLOCK(F(NAME##_blk), BL, ATTR)                                                      \
    OSC_DEFINE_BLOCK(F(NAME##_r128), 128, ATTR)                                                    \
    OSC_DEFINE_BLOCK(F(NAME##_r64), 64, ATTR)                                                      \
    OSC_DEFINE_BLOCK(F(NAME##_r32), 32, ATTR)                                                      \
    OSC_DEFINE_BLOCK(F(NAME##_r16), 16, ATTR)                                                      \
    OSC_DEFINE_BLOCK(F(NAME##_r8), 8, ATTR)                                                        \
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
    }

#if defined(OSC_MULTIVERSION) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

OSC_DEFINE_ADVANCE(advance_v4, OSC_BL_V4, __attribute__((target("arch=x86-64-v4"))))
OSC_DEFINE_ADVANCE(advance_v3, OSC_BL_V3, __attribute__((target("arch=x86-64-v3"))))
OSC_DEFINE_ADVANCE(advance_base, OSC_BL_BASE, )

static void F(advance)(const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt)
{
    switch (osc_isa_level()) {
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

#else

#if defined(__AVX512F__)
OSC_DEFINE_ADVANCE(advance_any, OSC_BL_V4, )
#elif defined(__AVX2__) || defined(__AVX__)
OSC_DEFINE_ADVANCE(advance_any, OSC_BL_V3, )
#else
OSC_DEFINE_ADVANCE(advance_any, OSC_BL_BASE, )
#endif

static void F(advance)(const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt)
{
    F(advance_any)(a, i0, i1, nsteps, (real)dt);
}

#endif

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

static void F(ref_init)(real s[OSC_MAX_STATE], real x0, real v0, coef c, real dt)
{
    F(lane_init)(s, x0, v0, c, dt);
}

static void F(ref_readout)(const real s[OSC_MAX_STATE], coef c, real dt, real *x, real *v)
{
    F(lane_readout)(s, c, dt, x, v);
}

#undef OSC_IS_DOUBLE
#undef OSC_BL_V4
#undef OSC_BL_V3
#undef OSC_BL_BASE
#undef OSC_REM_NEEDED
#undef OSC_BLOCK_SCHED
#undef OSC_DEFINE_BLOCK
#undef OSC_DEFINE_ADVANCE
