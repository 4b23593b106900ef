/* liboscbench: batched integrators for damped, forced oscillators.
 *
 * Pure computation: nothing here touches files or prints. The model, per axis of each lane:
 *     m u'' = -k u - c u' - m g [last axis only]
 * stepped by one of the registry's methods on a structure-of-arrays batch of lanes. */
#ifndef OSCBENCH_H
#define OSCBENCH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OSC_VERSION "0.1.0"
#define OSC_MAX_DIM 3
#define OSC_MAX_STATE 3 /* state components a method may carry per axis */

typedef enum osc_precision { OSC_DOUBLE = 0, OSC_FLOAT = 1 } osc_precision;
#define OSC_NPRECISION 2

typedef enum osc_status {
    OSC_OK = 0,
    OSC_EINVAL = -1, /* a parameter out of its domain (negative k, c or m, dt <= 0, NaN, ...) */
    OSC_ENOMEM = -2,
    OSC_ESTATE = -3, /* call out of order (e.g. run before start) */
} osc_status;

const char *osc_strerror(int status);
const char *osc_precision_name(osc_precision p);

/* ---- the kernels' instruction set ---------------------------------------------------------
 *
 * With runtime dispatch (GCC on x86-64, meson option multiversion, the default) every kernel
 * (the methods' advance and advance_audited, the audit's vector loops) is built for three x86-64
 * levels and runs the one osc_isa_level() names. The results are the same bits on every level
 * (tests/test_methods.c and tests/test_maxima.c run each kernel at each level the CPU has).
 * The level is the CPU's best, capped by the environment variable OSCBENCH_ISA (read once, at
 * the first kernel call: "v4", "v3", "base", or "native" / unset / empty for no cap) or by
 * osc_isa_set_cap(); a cap above the CPU's level has no effect. Without runtime dispatch (clang,
 * or -Dmultiversion=false) the kernels are built once for the compiler's target: the level is
 * that one and the cap changes nothing (osc_isa_describe says so). */
typedef enum osc_isa {
    OSC_ISA_BASE = 0,    /* x86-64: SSE2, fma() a libm call */
    OSC_ISA_V3 = 3,      /* x86-64-v3: AVX2, FMA */
    OSC_ISA_V4 = 4,      /* x86-64-v4: AVX-512 */
    OSC_ISA_NATIVE = 99, /* as a cap: none, the CPU's best */
} osc_isa;
#define OSC_ISA_ENV "OSCBENCH_ISA"
#define OSC_ISA_ENV_VALUES "v4, v3, base or native"

/* The level the kernels run now: min(the CPU's, the cap). */
int osc_isa_level(void);
/* The CPU's best level that this build has kernels for (the compiled level without dispatch). */
int osc_isa_cpu_level(void);
/* Whether this build picks its kernels at run time (if not, caps change nothing). */
bool osc_isa_runtime_dispatch(void);
/* Cap the level (OSC_ISA_BASE, _V3, _V4 or OSC_ISA_NATIVE for none), overriding OSCBENCH_ISA.
 * Returns the level now in force, or OSC_EINVAL for another value. Safe to call while kernels
 * run on other threads (the levels compute the same bits), but call it between runs so that a
 * run's recorded level is the one it took. */
int osc_isa_set_cap(int cap);
/* The cap in force (OSC_ISA_NATIVE: none). */
int osc_isa_cap(void);
/* "x86-64-v4", "x86-64-v3", "x86-64"; NULL for another value. */
const char *osc_isa_name(int level);
/* Parse a cap as OSCBENCH_ISA takes it: "v4", "v3", "base", "native"; NULL or "" is "native".
 * Returns OSC_OK (and *cap) or OSC_EINVAL. */
int osc_isa_parse(const char *text, int *cap);
/* OSC_OK unless OSCBENCH_ISA is set to a value osc_isa_parse rejects (which the library then
 * ignores: no cap). A program that honours the variable reports this and stops. */
int osc_isa_env_status(void);
/* The level in words for a results file, with its reason when it is not simply the CPU's best,
 * e.g. "x86-64-v3 (OSCBENCH_ISA=v4 asked; the CPU has no AVX-512)". Writes at most size bytes
 * (NUL included); returns the length it needed, as snprintf. */
int osc_isa_describe(char *buf, size_t size);

/* ---- methods ------------------------------------------------------------------------------ */

/* Per-lane coefficients of one axis, as the steps see them: a(u, v) = -w2 u - gam v - g. */
typedef struct osc_coef_d { double w2, gam, g; } osc_coef_d;
typedef struct osc_coef_f { float w2, gam, g; } osc_coef_f;
typedef struct osc_coef_ld { long double w2, gam, g; } osc_coef_ld;

/* One axis of a lane range, structure-of-arrays: s[j] is state component j (a method's own
 * layout; readout turns it into x and v), w2/gam/g are per-lane coefficients, all in the
 * kernel's precision. Arrays are 64-byte aligned and padded to whole blocks. */
typedef struct osc_soa {
    void *s[OSC_MAX_STATE];
    const void *w2, *gam, *g;
} osc_soa;

/* The exact motion co-stepped beside a method by the fused kernel (osc_kernels.advance_audited),
 * so that error and energy error are seen at every step, not only at the audits. All arrays are
 * per lane, indexed by the batch's lane number, in double whatever the batch's precision, 64-byte
 * aligned and covering the batch's whole padded lane range (padding lanes all zero). Per lane:
 *   (x, v)(t + dt) = (x, v)(t) + [[d11, p12], [p21, d22]] (x, v)(t) + (q1, q2),  p21 = -w2 p12,
 * the closed form's one-step map as increments (d11 = p11 - 1, d22 = p22 - 1: osc_exact_step_map;
 * q nonzero only on the gravity axis, the last), applied as x + (d11 x + p12 v + q1); the energy
 * error of a numeric state (x, v) against the exact (xe, ve), summed over axes, is
 *   dE = half_m sum (v - ve)(v + ve) + half_k sum (x - xe)(x + xe) + mg (x_last - xe_last),
 * the difference of squares, which keeps its digits where E(x, v) - E(xe, ve) cancels.
 * advance_audited reads the exact state at the start of the interval from xe, ve (it does not
 * write it back: the audit re-anchors from its own, more accurate, exact state) and stores the
 * interval's largest squared error sum_axes (x - xe)^2 and largest |dE| over its steps (the
 * interval's last step included) into max_err2 and max_de. A NaN at the interval's last step
 * stays NaN in them; a lane non-finite somewhere inside an interval is non-finite at its end. */
typedef struct osc_costep {
    const double *d11, *p12, *p21, *d22, *q1, *q2;
    const double *half_m, *half_k, *mg;
    const double *xe[OSC_MAX_DIM], *ve[OSC_MAX_DIM];
    double *max_err2, *max_de;
} osc_costep;

typedef struct osc_kernels {
    /* Advance lanes [i0, i1) by nsteps steps of dt; i0 and i1 are multiples of OSC_LANE_ALIGN. */
    void (*advance)(const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt);
    /* Turn (x0, v0) stored in s[0], s[1] into the method's state, in place. */
    void (*init)(const osc_soa *a, size_t i0, size_t i1, double dt);
    /* Position and velocity of lanes [i0, i1) from the method's state, in double. */
    void (*readout)(const osc_soa *a, size_t i0, size_t i1, double dt, double *x, double *v);
    /* advance() of all dim axes of lanes [i0, i1) together (axes[a] is axis a), with the exact
     * motion co-stepped beside it (osc_costep). The method's state takes the same bits as by
     * advance(). */
    void (*advance_audited)(const osc_soa *axes, int dim, size_t i0, size_t i1, long nsteps,
                            double dt, const osc_costep *cs);
    /* The composed forms, for composing the method with itself in substeps (composition.h):
     * one step is nsub steps of this method, of sizes h[0], ..., h[nsub - 1] in that order
     * (1 <= nsub <= OSC_COMPOSED_MAX_SUBSTEPS; another nsub steps nothing), each exactly as
     * advance(a, i0, i1, 1, h[k]) takes it (h[k] rounded to the batch's precision): the same
     * bits as that call once per substep, on every ISA path. advance_audited_composed is
     * advance_audited for such steps: the exact motion co-stepped (cs, made for the whole
     * step dt) after each step's nsub substeps. NULL for a method whose state is not (x, v)
     * as given (stormer, verlet-zero-start) and for the methods made from coefficients. */
    void (*advance_composed)(const osc_soa *a, size_t i0, size_t i1, long nsteps,
                             const double *h, int nsub);
    void (*advance_audited_composed)(const osc_soa *axes, int dim, size_t i0, size_t i1,
                                     long nsteps, double dt, const double *h, int nsub,
                                     const osc_costep *cs);
    /* Lanes per tile for advance() on the ISA path it takes now: a multiple of OSC_LANE_ALIGN,
     * at most OSC_TILE_LANES_MAX, chosen so that a tile is whole register blocks where that is
     * possible (kernel_loops.h). NULL: OSC_TILE_LANES. */
    size_t (*tile_lanes)(void);
} osc_kernels;
/* The most substeps a composed kernel takes (osc_kernels.advance_composed). */
#define OSC_COMPOSED_MAX_SUBSTEPS 32

/* The plain scalar reference of a method: obviously correct, one lane, one step. */
typedef struct osc_ref_d {
    void (*init)(double s[OSC_MAX_STATE], double x0, double v0, osc_coef_d c, double dt);
    void (*step)(double s[OSC_MAX_STATE], osc_coef_d c, double dt);
    void (*readout)(const double s[OSC_MAX_STATE], osc_coef_d c, double dt, double *x, double *v);
} osc_ref_d;
typedef struct osc_ref_f {
    void (*init)(float s[OSC_MAX_STATE], float x0, float v0, osc_coef_f c, float dt);
    void (*step)(float s[OSC_MAX_STATE], osc_coef_f c, float dt);
    void (*readout)(const float s[OSC_MAX_STATE], osc_coef_f c, float dt, float *x, float *v);
} osc_ref_f;
/* The same reference in long double (x87 extended on x86-64: 64-bit mantissa), for the
 * stability theory, which must see rho - 1 far below double's round-off (analysis.h). */
typedef struct osc_ref_ld {
    void (*init)(long double s[OSC_MAX_STATE], long double x0, long double v0, osc_coef_ld c,
                 long double dt);
    void (*step)(long double s[OSC_MAX_STATE], osc_coef_ld c, long double dt);
    void (*readout)(const long double s[OSC_MAX_STATE], osc_coef_ld c, long double dt,
                    long double *x, long double *v);
} osc_ref_ld;

typedef struct osc_method {
    const char *name;       /* registry name, e.g. "semi-implicit" */
    const char *summary;    /* one line */
    int order;              /* declared order of convergence without drag */
    int order_damped;       /* declared order with drag (c > 0) */
    int force_evals;        /* evaluations of a(x, v) per step */
    int fma_per_step;       /* floating-point operations per oscillator-step per axis in the SoA
                             * kernel's step loop, each fma, mul, add, sub or division counting
                             * 1; per-lane constants the loop hoists (reciprocals) not counted.
                             * Checked against the x86-64-v4 assembly (kernel_loops.h). */
    bool symplectic;        /* symplectic when undamped */
    int nstate;             /* state components carried per axis (2 or 3) */
    osc_kernels kernels[OSC_NPRECISION];
    osc_ref_d ref_d;
    osc_ref_f ref_f;
    osc_ref_ld ref_ld;
    /* Symmetric (self-adjoint, time-reversible): a step of -dt undoes a step of dt, on the
     * state as init sets it up, without drag (symmetric) and with drag (symmetric_damped).
     * A symmetric method's error expansion is odd in dt: compositions of it gain two orders
     * where another gains one (composition.h); tests/test_methods checks both declarations. */
    bool symmetric;
    bool symmetric_damped;
} osc_method;

/* The registry: every method, in a fixed order. */
size_t osc_method_count(void);
const osc_method *osc_method_at(size_t i);
const osc_method *osc_method_find(const char *name); /* NULL if unknown */
/* The order a method declares for a run with drag c. */
int osc_method_declared_order(const osc_method *m, double c);

/* ---- the batch ---------------------------------------------------------------------------- */

/* Lane counts are padded to a multiple of this (the largest register block, 128 floats on
 * AVX-512; a block size that does not divide it is completed by smaller power-of-two blocks, see
 * lib/methods/kernel_loops.h); padding lanes are at rest with zero coefficients. */
#define OSC_LANE_ALIGN 128
/* Lanes per tile: a tile is stepped for a whole audit interval while it sits in cache
 * (osc_kernels.tile_lanes may choose fewer, or up to OSC_TILE_LANES_MAX for register blocks that
 * no tile of at most OSC_TILE_LANES holds whole; osc_batch_tile_lanes says how many). */
#define OSC_TILE_LANES 512
#define OSC_TILE_LANES_MAX 640

typedef struct osc_batch osc_batch;

/* A batch of n lanes of dim axes for one method, precision and gravity g (along the last axis). */
int osc_batch_create(osc_batch **out, const osc_method *m, osc_precision p, int dim, size_t n,
                     double g);
void osc_batch_free(osc_batch *b);

/* The bytes osc_batch_create allocates for such a batch (for memory estimates). */
size_t osc_batch_bytes(const osc_method *m, osc_precision p, int dim, size_t n);

/* Lane i: stiffness k >= 0, drag c >= 0, mass m >= 0 (0 pins the lane: it never moves and its
 * velocity is taken as 0), initial position and velocity (dim values each, NULL for zeros).
 * Returns OSC_EINVAL, leaving the lane unchanged, for a negative or non-finite value. */
int osc_batch_set_lane(osc_batch *b, size_t i, double k, double c, double m, const double *x0,
                       const double *v0);

/* Fix the step and turn the initial conditions into each method's state (step 0). */
int osc_batch_start(osc_batch *b, double dt);

/* Called after each audit interval for a tile [i0, i1) at the batch step `step`, from the thread
 * that steps the tile; must only touch per-lane data of that range. Nonzero stops the run. */
typedef int (*osc_audit_fn)(void *ctx, const osc_batch *b, size_t i0, size_t i1, long step);

/* Advance every lane by nsteps, tile by tile over the OpenMP threads, calling audit (if not NULL)
 * every audit_every steps and at the last step. Each lane's result is bit-identical whatever the
 * thread count, tiling or audit interval. Returns the first nonzero audit result, or OSC_OK;
 * OSC_ESTATE before osc_batch_start, for nsteps < 0, or on a stopped batch.
 * A nonzero audit result stops the run: every tile stops at the end of its current interval, so
 * tiles stand at different steps (which ones depends on the threads' timing). The batch is then
 * stopped (osc_batch_stopped): osc_batch_step is the smallest step any tile reached (every lane
 * has taken at least that many steps, none is known to have taken more), and further runs
 * return OSC_ESTATE until osc_batch_start starts it again. */
int osc_batch_run(osc_batch *b, long nsteps, long audit_every, osc_audit_fn audit, void *ctx);

/* osc_batch_run with the exact motion co-stepped (osc_costep, arrays over the batch's padded
 * lanes, osc_batch_padded_lanes): each audit interval of a tile is stepped by advance_audited,
 * which leaves that interval's maxima in cs->max_err2 and cs->max_de for the audit callback to
 * read. Same lane results, bit for bit, as osc_batch_run, and the same early stop. */
int osc_batch_run_costep(osc_batch *b, long nsteps, long audit_every, const osc_costep *cs,
                         osc_audit_fn audit, void *ctx);
/* Lanes allocated (n rounded up to OSC_LANE_ALIGN): the length of osc_costep's arrays. */
size_t osc_batch_padded_lanes(const osc_batch *b);
/* Lanes per tile of the batch's runs (the last tile may be shorter): the kernels' tile_lanes on
 * the ISA path they take now. */
size_t osc_batch_tile_lanes(const osc_batch *b);

/* Position and velocity of lanes [i0, i1) in double: x[a * (i1 - i0) + j] for axis a. */
void osc_batch_readout(const osc_batch *b, size_t i0, size_t i1, double *x, double *v);

/* Accessors. */
const osc_method *osc_batch_method(const osc_batch *b);
osc_precision osc_batch_precision(const osc_batch *b);
int osc_batch_dim(const osc_batch *b);
size_t osc_batch_lanes(const osc_batch *b);
double osc_batch_dt(const osc_batch *b);
long osc_batch_step(const osc_batch *b); /* -1 before start; see osc_batch_run for a stop */
bool osc_batch_stopped(const osc_batch *b); /* an audit stopped the last run (osc_batch_run) */
double osc_batch_gravity(const osc_batch *b);
/* The inputs of lane i as given (x0, v0: dim values). */
void osc_batch_lane(const osc_batch *b, size_t i, double *k, double *c, double *m, double *x0,
                    double *v0);
/* One axis as the kernels see it (for tests and benchmarks). */
osc_soa osc_batch_soa(const osc_batch *b, int axis);

#ifdef __cplusplus
}
#endif
#endif
