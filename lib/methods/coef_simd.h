/* The SIMD kernels of the methods made from coefficients (the rk and rkn families): the framework
 * a family instantiates with its own chain, one step of one vector of lanes.
 *
 * Included by a family's kernel header once per precision and ISA path (x86-64-v4 and v3; through
 * coef_simd_paths.h, which includes it for both and undefines the family's parameters), with
 * `real` and F(name) defined and
 *     CS_LEVEL           3 or 4 (x86-64-v3: AVX2, 16 ymm; v4: AVX-512, 32 zmm)
 *     CS_PD, CS_SUF      1 and d for double, 0 and f for float
 *     CS_PFX             the family's name prefix (tabv, rknv): its kernels are
 *                        CS_PFX_blk_<isa>_s<s>_<p> (advance's register blocks, read by
 *                        tests/check_kernels.py), CS_PFX_aud_<isa>_s<s>_<p> (the audited chunks),
 *                        CS_PFX_advance_<isa>_<p> and CS_PFX_audited_<isa>_<p> (their dispatch)
 *     CS_SCALED          the family's coefficients times dt (a struct with `int stages`)
 *     CS_CHAIN_HEADER    the header that defines the chain (after this file's ISA macros):
 *                            void CS_FN(chain)(const CS_SCALED *k, int s, int nv, CS_VT *x,
 *                                              CS_VT *v, const CS_VT *w2, const CS_VT *gam,
 *                                              const CS_VT *g)
 *                        one step of nv vectors of lanes by an s-stage method (s and nv
 *                        compile-time constants after inlining), coefficient by coefficient: each
 *                        coefficient's mask test and broadcast once, then its FMA on each of
 *                        the nv vectors; always_inline, each lane's operations those of the
 *                        plain kernel in its order (the same bits)
 *     CS_BLOCK_VECTORS(s, level), CS_MAX_BLOCK_VECTORS, CS_MAX_STAGES (8)
 *     CS_CHAIN_VECTORS(s, level)  the vectors one chain call steps (a power of two dividing the
 *                        block's vectors and the audited chunk's CS_AV)
 *
 * One kernel per stage count s = 1..CS_MAX_STAGES: the chain's stage loops have s as a constant
 * and unroll completely, so its stage vectors are registers (as many as fit). Coefficients are
 * the same for every lane: the chain broadcasts each (a register), never stores it per lane; the
 * lane coefficients (w2, gam, g) are vectors of lanes.
 *
 * Blocks. A register block is a few vectors of lanes; per step the kernel runs the chain on
 * CS_CHAIN_VECTORS of them at a time, group after group (one dependency chain of a few FMAs per
 * stage, 4 cycles each), and the CPU's out-of-order window overlaps the chains of consecutive
 * groups. A wider group pays each coefficient's mask test and broadcast once for more FMAs but
 * holds more vectors and steps them in lockstep (its step's latency less hidden): the widths are
 * per family, stage count and ISA, where they were measured. The vectors per block are per stage
 * count and ISA too (the family's CS_BLOCK_VECTORS), powers of two that divide every lane range
 * (a multiple of OSC_LANE_ALIGN).
 *
 * The audited chunk steps CS_AV vectors of lanes of every axis, the axes in a loop. Per stage
 * count two builds: dim = 1 a constant (its state and sums stay in registers) and dim 2 or 3
 * known at run time only (one build for both: with a constant dim each axis would be a copy of
 * the unrolled chain, and one build per dim made the audited chunks most of the compile time). */

#include <immintrin.h>

#if CS_LEVEL == 4
#define CS_ISA v4
#define CS_ATTR __attribute__((target("arch=x86-64-v4")))
#if CS_PD
#define CS_VT __m512d
#define CS_W 8
#define CS_LOAD _mm512_loadu_pd
#define CS_STORE _mm512_storeu_pd
#define CS_SET1 _mm512_set1_pd
#define CS_FMA _mm512_fmadd_pd
#define CS_FNMA _mm512_fnmadd_pd
#else
#define CS_VT __m512
#define CS_W 16
#define CS_LOAD _mm512_loadu_ps
#define CS_STORE _mm512_storeu_ps
#define CS_SET1 _mm512_set1_ps
#define CS_FMA _mm512_fmadd_ps
#define CS_FNMA _mm512_fnmadd_ps
#endif
#else
#define CS_ISA v3
#define CS_ATTR __attribute__((target("arch=x86-64-v3")))
#if CS_PD
#define CS_VT __m256d
#define CS_W 4
#define CS_LOAD _mm256_loadu_pd
#define CS_STORE _mm256_storeu_pd
#define CS_SET1 _mm256_set1_pd
#define CS_FMA _mm256_fmadd_pd
#define CS_FNMA _mm256_fnmadd_pd
#else
#define CS_VT __m256
#define CS_W 8
#define CS_LOAD _mm256_loadu_ps
#define CS_STORE _mm256_storeu_ps
#define CS_SET1 _mm256_set1_ps
#define CS_FMA _mm256_fmadd_ps
#define CS_FNMA _mm256_fnmadd_ps
#endif
#endif

#define CS_CAT5_(a, b, c, d, e) a##_##b##_##c##_s##d##_##e
#define CS_CAT5(a, b, c, d, e) CS_CAT5_(a, b, c, d, e)
#define CS_NAME(kind, S) CS_CAT5(CS_PFX, kind, CS_ISA, S, CS_SUF)
#define CS_CAT4_(a, b, c, d) a##_##b##_##c##_##d
#define CS_CAT4(a, b, c, d) CS_CAT4_(a, b, c, d)
#define CS_FN(kind) CS_CAT4(CS_PFX, kind, CS_ISA, CS_SUF)

_Static_assert(OSC_LANE_ALIGN % CS_W == 0, "lane ranges are whole vectors");
_Static_assert(CS_MAX_STAGES == 8, "one kernel per stage count 1..8 below");

#include CS_CHAIN_HEADER

/* The audited chunk's vectors per axis (see advance_audited below). */
#define CS_AV (CS_W == 4 ? 4 : 2)
#define CS_AW (CS_AV * CS_W)

/* NV vectors of lanes from lane i, stepped nsteps times, CV of them per chain call (NV and CV
 * constants after inlining). */
CS_ATTR static inline __attribute__((always_inline)) void CS_FN(block)(
    const CS_SCALED *restrict k, const int s, const int nv, const int cv, real *restrict xs,
    real *restrict vs,
    const real *restrict w2, const real *restrict gam, const real *restrict g, long nsteps)
{
    CS_VT x[CS_MAX_BLOCK_VECTORS], v[CS_MAX_BLOCK_VECTORS];
    CS_VT w2v[CS_MAX_BLOCK_VECTORS], gamv[CS_MAX_BLOCK_VECTORS], gv[CS_MAX_BLOCK_VECTORS];
#pragma GCC unroll 16
    for (int q = 0; q < nv; q++) {
        x[q] = CS_LOAD(xs + q * CS_W), v[q] = CS_LOAD(vs + q * CS_W);
        w2v[q] = CS_LOAD(w2 + q * CS_W), gamv[q] = CS_LOAD(gam + q * CS_W);
        gv[q] = CS_LOAD(g + q * CS_W);
    }
    for (long n = 0; n < nsteps; n++) {
#pragma GCC unroll 16
        for (int q = 0; q < nv; q += cv)
            CS_FN(chain)(k, s, cv, x + q, v + q, w2v + q, gamv + q, gv + q);
    }
#pragma GCC unroll 16
    for (int q = 0; q < nv; q++)
        CS_STORE(xs + q * CS_W, x[q]), CS_STORE(vs + q * CS_W, v[q]);
}

/* Per stage count: the block of CS_BLOCK_VECTORS(s) vectors. */
#define CS_DEFINE_BLOCK(S)                                                                         \
    _Static_assert(OSC_LANE_ALIGN % (CS_BLOCK_VECTORS(S, CS_LEVEL) * CS_W) == 0 &&                 \
                       CS_BLOCK_VECTORS(S, CS_LEVEL) <= CS_MAX_BLOCK_VECTORS,                     \
                   "register blocks divide every lane range");                                    \
    _Static_assert(CS_BLOCK_VECTORS(S, CS_LEVEL) % CS_CHAIN_VECTORS(S, CS_LEVEL) == 0 &&           \
                       CS_AV % CS_CHAIN_VECTORS(S, CS_LEVEL) == 0,                                 \
                   "chain calls divide the blocks and the audited chunks");                       \
    CS_ATTR __attribute__((noinline)) static void CS_NAME(blk, S)(                                 \
        const CS_SCALED *restrict k, real *restrict xs, real *restrict vs,                         \
        const real *restrict w2, const real *restrict gam, const real *restrict g, long nsteps)    \
    {                                                                                              \
        CS_FN(block)(k, S, CS_BLOCK_VECTORS(S, CS_LEVEL), CS_CHAIN_VECTORS(S, CS_LEVEL), xs, vs,  \
                     w2, gam, g, nsteps);                                                          \
    }
CS_DEFINE_BLOCK(1)
CS_DEFINE_BLOCK(2)
CS_DEFINE_BLOCK(3)
CS_DEFINE_BLOCK(4)
CS_DEFINE_BLOCK(5)
CS_DEFINE_BLOCK(6)
CS_DEFINE_BLOCK(7)
CS_DEFINE_BLOCK(8)

typedef void (*CS_FN(blk_fn))(const CS_SCALED *restrict, real *restrict, real *restrict,
                              const real *restrict, const real *restrict, const real *restrict,
                              long);
#define CS_ROW(S) CS_NAME(blk, S)
static const CS_FN(blk_fn) CS_FN(blks)[CS_MAX_STAGES] = {
    CS_ROW(1), CS_ROW(2), CS_ROW(3), CS_ROW(4), CS_ROW(5), CS_ROW(6), CS_ROW(7), CS_ROW(8)};
#undef CS_ROW

/* Pattern blocks (a family that defines CS_PATTERNS(X), X(P, S) per nonzero pattern P = 1, 2,
 * ... of S stages, with CS_PATTERN_OF(k), the pattern of k's masks or 0, and
 * CS_PATTERN_SET(k, P), which writes pattern P's masks into k): the block of S stages run on a
 * copy of k whose masks are pattern P's, constants once inlined, so that the chain's tests of
 * them fold away and its step loop is straight-line code: the same operations in the same order
 * as the masked block's for a tableau of that pattern (the same bits), without the tests, which
 * on 16 registers cost more than the FMAs they skip (rkn_method.c says what was measured). Named
 * CS_PFX_pat<P>_<isa>_s<S>_<p>. */
#ifdef CS_PATTERNS
#define CS_DEFINE_PATTERN_BLOCK(P, S)                                                              \
    CS_ATTR __attribute__((noinline)) static void CS_NAME(pat##P, S)(                              \
        const CS_SCALED *restrict k, real *restrict xs, real *restrict vs,                         \
        const real *restrict w2, const real *restrict gam, const real *restrict g, long nsteps)    \
    {                                                                                              \
        CS_SCALED kp = *k;                                                                         \
        CS_PATTERN_SET(&kp, P);                                                                    \
        CS_FN(block)(&kp, S, CS_BLOCK_VECTORS(S, CS_LEVEL), CS_CHAIN_VECTORS(S, CS_LEVEL), xs, vs, \
                     w2, gam, g, nsteps);                                                          \
    }
CS_PATTERNS(CS_DEFINE_PATTERN_BLOCK)
#undef CS_DEFINE_PATTERN_BLOCK
#define CS_ROW(P, S) CS_NAME(pat##P, S),
static const CS_FN(blk_fn) CS_FN(pats)[] = {CS_PATTERNS(CS_ROW)};
#undef CS_ROW
#endif

/* advance() on this path: whole blocks (they divide every lane range), the pattern's block where
 * k's masks are one of the family's patterns. */
static void CS_FN(advance)(const CS_SCALED *k, const osc_soa *a, size_t i0, size_t i1, long nsteps)
{
    const int s = k->stages;
    const size_t bl = (size_t)CS_BLOCK_VECTORS(s, CS_LEVEL) * CS_W;
    CS_FN(blk_fn) blk = CS_FN(blks)[s - 1];
#ifdef CS_PATTERNS
    const int p = CS_PATTERN_OF(k);
    if (p > 0)
        blk = CS_FN(pats)[p - 1];
#endif
    real *xs = a->s[0], *vs = a->s[1];
    const real *w2 = a->w2, *gam = a->gam, *g = a->g;
    for (size_t i = i0; i < i1; i += bl)
        blk(k, xs + i, vs + i, w2 + i, gam + i, g + i, nsteps);
}

/* ---- advance_audited on this path --------------------------------------------------------
 * CS_AV vectors of lanes of every axis together, each step: the method's step of each axis by
 * the chain (advance()'s bits), then the exact motion's co-step, the error sums and the running
 * maxima exactly as lane_kernels.h's audited body (costep_lane.h) and kernel_loops.h's fused
 * block compute them, as `omp simd` loops over the chunk (all in L1). */

/* The method's step of axis a of the chunk's lanes (gravity on the last axis only). */
CS_ATTR static inline __attribute__((always_inline)) void CS_FN(audited_axis_step)(
    const CS_SCALED *restrict k, const int s, const int cv, real *restrict xs, real *restrict vs,
    const real *restrict w2, const real *restrict gam, const real *restrict g, bool last)
{
#pragma GCC unroll 16
    for (int q0 = 0; q0 < CS_AV; q0 += cv) {
        CS_VT x[CS_AV], v[CS_AV], w2v[CS_AV], gamv[CS_AV], gv[CS_AV];
#pragma GCC unroll 16
        for (int q = 0; q < cv; q++) {
            const int o = (q0 + q) * CS_W;
            x[q] = CS_LOAD(xs + o), v[q] = CS_LOAD(vs + o);
            w2v[q] = CS_LOAD(w2 + o), gamv[q] = CS_LOAD(gam + o);
            gv[q] = last ? CS_LOAD(g + o) : CS_SET1(0);
        }
        CS_FN(chain)(k, s, cv, x, v, w2v, gamv, gv);
#pragma GCC unroll 16
        for (int q = 0; q < cv; q++)
            CS_STORE(xs + (q0 + q) * CS_W, x[q]), CS_STORE(vs + (q0 + q) * CS_W, v[q]);
    }
}

/* The exact motion's co-step of one axis of the chunk's lanes and its error sums (first: the
 * sums start; last: gravity's terms), exactly as costep_lane.h's osc_costep_axis. */
CS_ATTR static inline __attribute__((always_inline)) void CS_FN(costep_axis)(
    const osc_costep *cs, size_t i, const bool first, const bool last, const real *restrict xs,
    const real *restrict vs, double *restrict xe, double *restrict ve, double *restrict err2,
    double *restrict sum_v, double *restrict sum_x, double *restrict dx_last)
{
    const double *restrict d11 = cs->d11 + i, *restrict p12 = cs->p12 + i;
    const double *restrict p21 = cs->p21 + i, *restrict d22 = cs->d22 + i;
    const double *restrict q1 = cs->q1 + i, *restrict q2 = cs->q2 + i;
#pragma omp simd
    for (int j = 0; j < CS_AW; j++) {
        const double x = (double)xs[j], v = (double)vs[j], xo = xe[j], vo = ve[j];
        const double c1 = last ? q1[j] : 0.0, c2 = last ? q2[j] : 0.0;
        const double xn = xo + fma(d11[j], xo, fma(p12[j], vo, c1));
        const double vn = vo + fma(p21[j], xo, fma(d22[j], vo, c2));
        xe[j] = xn, ve[j] = vn;
        const double ddx = x - xn, ddv = v - vn;
        err2[j] = first ? ddx * ddx : fma(ddx, ddx, err2[j]);
        sum_v[j] = first ? ddv * (v + vn) : fma(ddv, v + vn, sum_v[j]);
        sum_x[j] = first ? ddx * (x + xn) : fma(ddx, x + xn, sum_x[j]);
        dx_last[j] = ddx;
    }
}

CS_ATTR static inline __attribute__((always_inline)) void CS_FN(audited_chunk)(
    const CS_SCALED *restrict k, const int s, const osc_soa *ax, int dim, size_t i, long nsteps,
    const osc_costep *cs)
{
    real xs[OSC_MAX_DIM][CS_AW], vs[OSC_MAX_DIM][CS_AW];
    double xe[OSC_MAX_DIM][CS_AW], ve[OSC_MAX_DIM][CS_AW], me2[CS_AW], mde[CS_AW];
    double err2[CS_AW], sum_v[CS_AW], sum_x[CS_AW], dx_last[CS_AW];
    const real *restrict w2 = (const real *)ax[0].w2 + i, *restrict gam = (const real *)ax[0].gam + i;
    const real *restrict g = (const real *)ax[dim - 1].g + i;
    const double *restrict hm = cs->half_m + i, *restrict hk = cs->half_k + i;
    const double *restrict mg = cs->mg + i;
    for (int a = 0; a < dim; a++)
        for (int j = 0; j < CS_AW; j++) {
            xs[a][j] = ((const real *)ax[a].s[0])[i + j], vs[a][j] = ((const real *)ax[a].s[1])[i + j];
            xe[a][j] = cs->xe[a][i + j], ve[a][j] = cs->ve[a][i + j];
        }
    for (int j = 0; j < CS_AW; j++)
        me2[j] = 0, mde[j] = 0;
    for (long n = 0; n < nsteps; n++) {
        for (int a = 0; a < dim; a++) {
            const bool last = a == dim - 1;
            CS_FN(audited_axis_step)(k, s, CS_CHAIN_VECTORS(s, CS_LEVEL), xs[a], vs[a], w2, gam,
                                     g, last);
            /* the co-step with first and last constants in each call: its loop vectorizes */
            if (a == 0 && last)
                CS_FN(costep_axis)(cs, i, true, true, xs[a], vs[a], xe[a], ve[a], err2, sum_v,
                                   sum_x, dx_last);
            else if (a == 0)
                CS_FN(costep_axis)(cs, i, true, false, xs[a], vs[a], xe[a], ve[a], err2, sum_v,
                                   sum_x, dx_last);
            else if (last)
                CS_FN(costep_axis)(cs, i, false, true, xs[a], vs[a], xe[a], ve[a], err2, sum_v,
                                   sum_x, dx_last);
            else
                CS_FN(costep_axis)(cs, i, false, false, xs[a], vs[a], xe[a], ve[a], err2, sum_v,
                                   sum_x, dx_last);
        }
#pragma omp simd
        for (int j = 0; j < CS_AW; j++) {
            const double de = fma(mg[j], dx_last[j], fma(hk[j], sum_x[j], hm[j] * sum_v[j]));
            const double ade = fabs(de);
            me2[j] = isgreater(me2[j], err2[j]) ? me2[j] : err2[j];
            mde[j] = isgreater(mde[j], ade) ? mde[j] : ade;
        }
    }
    for (int a = 0; a < dim; a++)
        for (int j = 0; j < CS_AW; j++)
            ((real *)ax[a].s[0])[i + j] = xs[a][j], ((real *)ax[a].s[1])[i + j] = vs[a][j];
    for (int j = 0; j < CS_AW; j++)
        cs->max_err2[i + j] = me2[j], cs->max_de[i + j] = mde[j];
}

_Static_assert(OSC_LANE_ALIGN % CS_AW == 0, "audited chunks divide every lane range");

#define CS_DEFINE_AUDITED(S)                                                                       \
    CS_ATTR __attribute__((noinline)) static void CS_NAME(aud, S)(                                 \
        const CS_SCALED *restrict k, const osc_soa *ax, int dim, size_t i0, size_t i1,             \
        long nsteps, const osc_costep *cs)                                                         \
    {                                                                                              \
        /* one axis with dim a constant (the chunk's state in registers); 2 and 3 in one    */  \
        for (size_t i = i0; i < i1; i += CS_AW)                                                    \
            if (dim == 1)                                                                          \
                CS_FN(audited_chunk)(k, S, ax, 1, i, nsteps, cs);                                  \
            else                                                                                   \
                CS_FN(audited_chunk)(k, S, ax, dim, i, nsteps, cs);                                \
    }
CS_DEFINE_AUDITED(1)
CS_DEFINE_AUDITED(2)
CS_DEFINE_AUDITED(3)
CS_DEFINE_AUDITED(4)
CS_DEFINE_AUDITED(5)
CS_DEFINE_AUDITED(6)
CS_DEFINE_AUDITED(7)
CS_DEFINE_AUDITED(8)

typedef void (*CS_FN(aud_fn))(const CS_SCALED *restrict, const osc_soa *, int, size_t, size_t,
                              long, const osc_costep *);
#define CS_ROW(S) CS_NAME(aud, S)
static const CS_FN(aud_fn) CS_FN(auds)[CS_MAX_STAGES] = {
    CS_ROW(1), CS_ROW(2), CS_ROW(3), CS_ROW(4), CS_ROW(5), CS_ROW(6), CS_ROW(7), CS_ROW(8)};
#undef CS_ROW

static void CS_FN(audited)(const CS_SCALED *k, const osc_soa *ax, int dim, size_t i0, size_t i1,
                           long nsteps, const osc_costep *cs)
{
    CS_FN(auds)[k->stages - 1](k, ax, dim, i0, i1, nsteps, cs);
}

#undef CS_AV
#undef CS_AW
#undef CS_DEFINE_AUDITED
#undef CS_DEFINE_BLOCK
#undef CS_ISA
#undef CS_ATTR
#undef CS_VT
#undef CS_W
#undef CS_LOAD
#undef CS_STORE
#undef CS_SET1
#undef CS_FMA
#undef CS_FNMA
#undef CS_CAT5_
#undef CS_CAT5
#undef CS_NAME
#undef CS_CAT4_
#undef CS_CAT4
#undef CS_FN
