/* The SIMD kernels of tableau methods (tableau_kernel.h includes this once per precision and ISA
 * path, x86-64-v3 and v4, with TS_LEVEL 3 or 4; `real`, F(name) and TAB_SUF (d or f) defined).
 *
 * One kernel per stage count s = 1..8: the stage loops have s as a compile-time constant and are
 * unrolled completely, so the stage vectors V_i, M_i are registers (as many as fit: a step of 8
 * stages holds about 20 vectors, more than AVX2's 16). The tableau's coefficients
 * (times dt, F(tab_scaled)) are the same for every lane: each is broadcast into a vector, never
 * stored per lane; the lane coefficients (w2, gam, g) are vectors of lanes. A zero coefficient
 * is skipped at run time: the step tests the tableau's nonzero mask (a register, the same for
 * every lane, vector and step: a perfectly predicted branch around the two FMAs of the entry),
 * so that the kernel executes 2 per nonzero a_ij, 2 per stage (the force) and 2 per nonzero b_i,
 * the method's fma_per_step (tab_chain_ops below counts it the same way, and
 * tests/test_tableau_method.c checks the two agree).
 *
 * Bits. The step is tab_step's (tableau_kernel.h), operation for operation and in its order:
 * fma(-h, M, v) is written as fnmadd(h, M, v), -(h M) + v rounded once, the same number. So the
 * fast kernel gives the plain kernel's bits on every ISA path (the baseline path runs the plain
 * kernel itself: fma there is a libm call anyway).
 *
 * Blocks. A register block is a few vectors of lanes; per step the kernel runs each vector's
 * whole step in turn (one dependency chain of about 3 s FMAs, 4 cycles each), and the CPU's
 * out-of-order window overlaps the chains of consecutive vectors. The vectors per block are per
 * stage count and ISA (TAB_BLOCK_VECTORS in tableau_method.c, where they were measured), powers of
 * two that divide every lane range (a multiple of OSC_LANE_ALIGN). */

#include <immintrin.h>

#if TS_LEVEL == 4
#define TS_ISA v4
#define TS_ATTR __attribute__((target("arch=x86-64-v4")))
#if TAB_PD
#define TS_VT __m512d
#define TS_W 8
#define TS_LOAD _mm512_loadu_pd
#define TS_STORE _mm512_storeu_pd
#define TS_SET1 _mm512_set1_pd
#define TS_FMA _mm512_fmadd_pd
#define TS_FNMA _mm512_fnmadd_pd
#else
#define TS_VT __m512
#define TS_W 16
#define TS_LOAD _mm512_loadu_ps
#define TS_STORE _mm512_storeu_ps
#define TS_SET1 _mm512_set1_ps
#define TS_FMA _mm512_fmadd_ps
#define TS_FNMA _mm512_fnmadd_ps
#endif
#else
#define TS_ISA v3
#define TS_ATTR __attribute__((target("arch=x86-64-v3")))
#if TAB_PD
#define TS_VT __m256d
#define TS_W 4
#define TS_LOAD _mm256_loadu_pd
#define TS_STORE _mm256_storeu_pd
#define TS_SET1 _mm256_set1_pd
#define TS_FMA _mm256_fmadd_pd
#define TS_FNMA _mm256_fnmadd_pd
#else
#define TS_VT __m256
#define TS_W 8
#define TS_LOAD _mm256_loadu_ps
#define TS_STORE _mm256_storeu_ps
#define TS_SET1 _mm256_set1_ps
#define TS_FMA _mm256_fmadd_ps
#define TS_FNMA _mm256_fnmadd_ps
#endif
#endif

#define TS_CAT4_(a, b, c, d) a##_##b##_s##c##_##d
#define TS_CAT4(a, b, c, d) TS_CAT4_(a, b, c, d)
#define TS_NAME(kind, S) TS_CAT4(kind, TS_ISA, S, TAB_SUF)
#define TS_GEN_(a, b, c) a##_##b##_##c
#define TS_GEN(a, b, c) TS_GEN_(a, b, c)
#define TS_FN(kind) TS_GEN(kind, TS_ISA, TAB_SUF)

_Static_assert(OSC_LANE_ALIGN % TS_W == 0, "lane ranges are whole vectors");

/* One step of one vector of lanes by an s-stage tableau (s a constant after inlining): tab_step. */
TS_ATTR static inline __attribute__((always_inline)) void TS_FN(tabv_chain)(
    const F(tab_scaled) *restrict k, const int s, TS_VT *restrict x, TS_VT *restrict v, TS_VT w2,
    TS_VT gam, TS_VT g)
{
    TS_VT vs[OSC_TABLEAU_MAX_STAGES], ms[OSC_TABLEAU_MAX_STAGES];
    const TS_VT x0 = *x, v0 = *v;
    const unsigned long long nz = k->nz_a;
    const unsigned nzb = k->nz_b;
#pragma GCC unroll 8
    for (int i = 0; i < s; i++) {
        TS_VT xi = x0, vi = v0;
#pragma GCC unroll 8
        for (int j = 0; j < i; j++)
            if (nz >> TAB_NZ_BIT(i, j) & 1) {
                const TS_VT h = TS_SET1(k->ha[i][j]);
                xi = TS_FMA(h, vs[j], xi), vi = TS_FNMA(h, ms[j], vi);
            }
        vs[i] = vi;
        ms[i] = TS_FMA(w2, xi, TS_FMA(gam, vi, g));
    }
    TS_VT xn = x0, vn = v0;
#pragma GCC unroll 8
    for (int i = 0; i < s; i++)
        if (nzb >> i & 1) {
            const TS_VT h = TS_SET1(k->hb[i]);
            xn = TS_FMA(h, vs[i], xn), vn = TS_FNMA(h, ms[i], vn);
        }
    *x = xn, *v = vn;
}

/* NV vectors of lanes from lane i, stepped nsteps times (NV a constant after inlining). */
TS_ATTR static inline __attribute__((always_inline)) void TS_FN(tabv_block)(
    const F(tab_scaled) *restrict k, const int s, const int nv, real *restrict xs,
    real *restrict vs, const real *restrict w2, const real *restrict gam, const real *restrict g,
    long nsteps)
{
    TS_VT x[TAB_MAX_BLOCK_VECTORS], v[TAB_MAX_BLOCK_VECTORS];
#pragma GCC unroll 16
    for (int q = 0; q < nv; q++)
        x[q] = TS_LOAD(xs + q * TS_W), v[q] = TS_LOAD(vs + q * TS_W);
    for (long n = 0; n < nsteps; n++) {
#pragma GCC unroll 16
        for (int q = 0; q < nv; q++)
            TS_FN(tabv_chain)(k, s, &x[q], &v[q], TS_LOAD(w2 + q * TS_W), TS_LOAD(gam + q * TS_W),
                              TS_LOAD(g + q * TS_W));
    }
#pragma GCC unroll 16
    for (int q = 0; q < nv; q++)
        TS_STORE(xs + q * TS_W, x[q]), TS_STORE(vs + q * TS_W, v[q]);
}

/* Per stage count: the block of TAB_BLOCK_VECTORS(s) vectors. */
#define TS_DEFINE_BLOCK(S)                                                                         \
    _Static_assert(OSC_LANE_ALIGN % (TAB_BLOCK_VECTORS(S, TS_LEVEL) * TS_W) == 0 &&               \
                       TAB_BLOCK_VECTORS(S, TS_LEVEL) <= TAB_MAX_BLOCK_VECTORS,                   \
                   "register blocks divide every lane range");                                    \
    TS_ATTR __attribute__((noinline)) static void TS_NAME(tabv_blk, S)(                            \
        const F(tab_scaled) *restrict k, real *restrict xs, real *restrict vs,                     \
        const real *restrict w2, const real *restrict gam, const real *restrict g, long nsteps)    \
    {                                                                                              \
        TS_FN(tabv_block)(k, S, TAB_BLOCK_VECTORS(S, TS_LEVEL), xs, vs, w2, gam, g, nsteps);       \
    }
TS_DEFINE_BLOCK(1)
TS_DEFINE_BLOCK(2)
TS_DEFINE_BLOCK(3)
TS_DEFINE_BLOCK(4)
TS_DEFINE_BLOCK(5)
TS_DEFINE_BLOCK(6)
TS_DEFINE_BLOCK(7)
TS_DEFINE_BLOCK(8)

typedef void (*TS_FN(tabv_blk_fn))(const F(tab_scaled) *restrict, real *restrict, real *restrict,
                                   const real *restrict, const real *restrict,
                                   const real *restrict, long);
#define TS_ROW(S) TS_NAME(tabv_blk, S)
static const TS_FN(tabv_blk_fn) TS_FN(tabv_blks)[OSC_TABLEAU_MAX_STAGES] = {
    TS_ROW(1), TS_ROW(2), TS_ROW(3), TS_ROW(4), TS_ROW(5), TS_ROW(6), TS_ROW(7), TS_ROW(8)};
#undef TS_ROW

/* advance() on this path: whole blocks (they divide every lane range). */
static void TS_FN(tabv_advance)(const F(tab_scaled) *k, const osc_soa *a, size_t i0, size_t i1,
                                long nsteps)
{
    const int s = k->stages;
    const size_t bl = (size_t)TAB_BLOCK_VECTORS(s, TS_LEVEL) * TS_W;
    real *xs = a->s[0], *vs = a->s[1];
    const real *w2 = a->w2, *gam = a->gam, *g = a->g;
    for (size_t i = i0; i < i1; i += bl)
        TS_FN(tabv_blks)[s - 1](k, xs + i, vs + i, w2 + i, gam + i, g + i, nsteps);
}

/* ---- advance_audited on this path --------------------------------------------------------
 * TS_AV vectors of lanes of every axis together, each step: the method's step of each axis by
 * tabv_chain (advance()'s bits), then the exact motion's co-step, the error sums and the running
 * maxima exactly as tab_audited_body (and kernel_loops.h's fused block) computes them, as
 * `omp simd` loops over the chunk (all in L1). */
#define TS_AV (TS_W == 4 ? 4 : 2)
#define TS_AW (TS_AV * TS_W)

TS_ATTR static inline __attribute__((always_inline)) void TS_FN(tabv_audited_chunk)(
    const F(tab_scaled) *restrict k, const int s, const osc_soa *ax, int dim, size_t i,
    long nsteps, const osc_costep *cs)
{
    real xs[OSC_MAX_DIM][TS_AW], vs[OSC_MAX_DIM][TS_AW];
    double xe[OSC_MAX_DIM][TS_AW], ve[OSC_MAX_DIM][TS_AW], me2[TS_AW], mde[TS_AW];
    double err2[TS_AW], sum_v[TS_AW], sum_x[TS_AW], dx_last[TS_AW];
    const real *restrict w2 = (const real *)ax[0].w2 + i, *restrict gam = (const real *)ax[0].gam + i;
    const real *restrict g = (const real *)ax[dim - 1].g + i;
    const double *restrict p11 = cs->p11 + i, *restrict p12 = cs->p12 + i;
    const double *restrict p21 = cs->p21 + i, *restrict p22 = cs->p22 + i;
    const double *restrict q1 = cs->q1 + i, *restrict q2 = cs->q2 + i;
    const double *restrict hm = cs->half_m + i, *restrict hk = cs->half_k + i;
    const double *restrict mg = cs->mg + i;
    for (int a = 0; a < dim; a++)
        for (int j = 0; j < TS_AW; j++) {
            xs[a][j] = ((const real *)ax[a].s[0])[i + j], vs[a][j] = ((const real *)ax[a].s[1])[i + j];
            xe[a][j] = cs->xe[a][i + j], ve[a][j] = cs->ve[a][i + j];
        }
    for (int j = 0; j < TS_AW; j++)
        me2[j] = 0, mde[j] = 0;
    const TS_VT zero = TS_SET1(0);
    for (long n = 0; n < nsteps; n++) {
        for (int a = 0; a < dim; a++) {
            const bool last = a == dim - 1;
#pragma GCC unroll 16
            for (int q = 0; q < TS_AV; q++) {
                TS_VT x = TS_LOAD(xs[a] + q * TS_W), v = TS_LOAD(vs[a] + q * TS_W);
                TS_FN(tabv_chain)(k, s, &x, &v, TS_LOAD(w2 + q * TS_W), TS_LOAD(gam + q * TS_W),
                                  last ? TS_LOAD(g + q * TS_W) : zero);
                TS_STORE(xs[a] + q * TS_W, x), TS_STORE(vs[a] + q * TS_W, v);
            }
#pragma omp simd
            for (int j = 0; j < TS_AW; j++) {
                const double x = (double)xs[a][j], v = (double)vs[a][j], xo = xe[a][j], vo = ve[a][j];
                const double c1 = last ? q1[j] : 0.0, c2 = last ? q2[j] : 0.0;
                const double xn = fma(p11[j], xo, fma(p12[j], vo, c1));
                const double vn = fma(p21[j], xo, fma(p22[j], vo, c2));
                xe[a][j] = xn, ve[a][j] = vn;
                const double ddx = x - xn, ddv = v - vn;
                err2[j] = a == 0 ? ddx * ddx : fma(ddx, ddx, err2[j]);
                sum_v[j] = a == 0 ? ddv * (v + vn) : fma(ddv, v + vn, sum_v[j]);
                sum_x[j] = a == 0 ? ddx * (x + xn) : fma(ddx, x + xn, sum_x[j]);
                dx_last[j] = ddx;
            }
        }
#pragma omp simd
        for (int j = 0; j < TS_AW; j++) {
            const double de = fma(mg[j], dx_last[j], fma(hk[j], sum_x[j], hm[j] * sum_v[j]));
            const double ade = fabs(de);
            me2[j] = isgreater(me2[j], err2[j]) ? me2[j] : err2[j];
            mde[j] = isgreater(mde[j], ade) ? mde[j] : ade;
        }
    }
    for (int a = 0; a < dim; a++)
        for (int j = 0; j < TS_AW; j++)
            ((real *)ax[a].s[0])[i + j] = xs[a][j], ((real *)ax[a].s[1])[i + j] = vs[a][j];
    for (int j = 0; j < TS_AW; j++)
        cs->max_err2[i + j] = me2[j], cs->max_de[i + j] = mde[j];
}

_Static_assert(OSC_LANE_ALIGN % TS_AW == 0, "audited chunks divide every lane range");

#define TS_DEFINE_AUDITED(S)                                                                       \
    TS_ATTR __attribute__((noinline)) static void TS_NAME(tabv_aud, S)(                            \
        const F(tab_scaled) *restrict k, const osc_soa *ax, int dim, size_t i0, size_t i1,         \
        long nsteps, const osc_costep *cs)                                                         \
    {                                                                                              \
        /* dim a constant in each call: the axis loops unroll, the gravity choice folds */       \
        for (size_t i = i0; i < i1; i += TS_AW)                                                    \
            if (dim == 1)                                                                          \
                TS_FN(tabv_audited_chunk)(k, S, ax, 1, i, nsteps, cs);                             \
            else if (dim == 2)                                                                     \
                TS_FN(tabv_audited_chunk)(k, S, ax, 2, i, nsteps, cs);                             \
            else                                                                                   \
                TS_FN(tabv_audited_chunk)(k, S, ax, 3, i, nsteps, cs);                             \
    }
TS_DEFINE_AUDITED(1)
TS_DEFINE_AUDITED(2)
TS_DEFINE_AUDITED(3)
TS_DEFINE_AUDITED(4)
TS_DEFINE_AUDITED(5)
TS_DEFINE_AUDITED(6)
TS_DEFINE_AUDITED(7)
TS_DEFINE_AUDITED(8)

typedef void (*TS_FN(tabv_aud_fn))(const F(tab_scaled) *restrict, const osc_soa *, int, size_t,
                                   size_t, long, const osc_costep *);
#define TS_ROW(S) TS_NAME(tabv_aud, S)
static const TS_FN(tabv_aud_fn) TS_FN(tabv_auds)[OSC_TABLEAU_MAX_STAGES] = {
    TS_ROW(1), TS_ROW(2), TS_ROW(3), TS_ROW(4), TS_ROW(5), TS_ROW(6), TS_ROW(7), TS_ROW(8)};
#undef TS_ROW

static void TS_FN(tabv_audited)(const F(tab_scaled) *k, const osc_soa *ax, int dim, size_t i0,
                                size_t i1, long nsteps, const osc_costep *cs)
{
    TS_FN(tabv_auds)[k->stages - 1](k, ax, dim, i0, i1, nsteps, cs);
}

#undef TS_AV
#undef TS_AW
#undef TS_DEFINE_AUDITED

#undef TS_ISA
#undef TS_ATTR
#undef TS_VT
#undef TS_W
#undef TS_LOAD
#undef TS_STORE
#undef TS_SET1
#undef TS_FMA
#undef TS_FNMA
#undef TS_CAT4_
#undef TS_CAT4
#undef TS_NAME
#undef TS_GEN_
#undef TS_GEN
#undef TS_FN
#undef TS_DEFINE_BLOCK
