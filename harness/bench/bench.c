/* oscbench-bench: throughput of every method's tiled kernels, in C on Google Benchmark through
 * the shim (bench_shim.h). Names and counters are a public interface (README, "Performance"):
 *
 *   step/<method>/<precision>/<lanes>[/threads:1]   osc_batch_run over all lanes, bare
 *   step/tableau-rk4/<precision>/<lanes>[/threads:1] the same for classical rk4 given by its
 *                                                     Butcher tableau (osc_method_from_tableau:
 *                                                     the generic tableau kernel), beside rk4
 *   step/rkn-rk4/<precision>/<lanes>[/threads:1]     the same for rk4's Nystrom form
 *                                                     (osc_method_from_rkn: the generic RKN
 *                                                     kernel)
 *   step/yoshida-verlet/..., step/yoshida-rk4/...     Yoshida's triple jump over verlet (forest-
 *                                                     ruth's map, beside it) and over rk4, as
 *                                                     compositions (the composed kernels)
 *   step/suzuki-verlet/...                            Suzuki's 5-substep fractal over verlet
 *   step/kahan-li-verlet/...                          Kahan and Li's s17odr8a over verlet (17
 *                                                     substeps, order 8)
 *   step/<name>/...                                   each method the config of default/
 *                                                     defines by its coefficients (audited/ too;
 *                                                     a name of this program's own excepted)
 *   baseline/naive/<precision>/<lanes>               semi-implicit Euler, one pass over all lanes
 *                                                     per step, arrays in memory: the yardstick
 *   audited/<method>/double/1048576                  stepping with the sweep harness's audit
 *                                                     (tableau-rk4, rkn-rk4 and the compositions
 *                                                     too)
 *                                                     (the fused kernel: maxima over every step)
 *   default/<method>                                 configs/default.yaml's batches for one
 *                                                     method, bare, then audited exactly as
 *                                                     `oscbench run` audits them (fused, every
 *                                                     step), then with `maxima: audits`
 *
 * default/ counters: audited_fraction = bare time / audited time (the fused, every-step audit);
 * sampled_fraction = bare time / time audited with maxima at the audits only; op_ceiling =
 * method_ops / (method_ops + audit_ops), what audited_fraction would be if time followed the
 * operation count (fused_audit_ops below); ceiling_fraction = audited_fraction / op_ceiling.
 *
 * Counters: osc_steps_per_s (oscillator-steps per wall-clock second), fma_per_step (the method's
 * FMAs per oscillator-step per axis), peak_fraction (achieved FMA rate over the FMA peak that
 * oscbench's own probe measures at start-up, in this process, on all threads: see machine_peak;
 * float runs are compared with the float peak). A /threads:1 run is still compared with the all-thread peak, so
 * its peak_fraction over the all-thread one is the parallel scaling. cpu_peak_fraction is the same
 * FMA rate per CPU-second of the process against one core's peak per CPU-second: the kernels'
 * efficiency while they run, readable even when other work shares the cores. cpu_share =
 * process CPU seconds / (wall seconds x min(threads, CPUs)) over the timing, at most 1: the
 * share of the cores the benchmark got (under 1 when other work took some).
 *
 * The peak is measured again beside every step/ and baseline/ benchmark (a short probe before
 * its timing and one after): peak_beside_fma_per_s is the lower of the two all-thread wall-clock
 * rates (a core the host took shows there), peak_fraction is taken against the largest peak seen
 * in the run so far (start-up included: a contended sample can only lower a peak, never raise
 * it), and peak_spread = (largest - smallest) / largest over all wall-clock samples of that
 * precision so far (the last benchmark's covers the whole run).
 *
 * The ceiling per operation class. ops_fma, ops_mul, ops_add, ops_div are the operations per
 * oscillator-step that the compiled step loop of the running ISA path executes (kernel_ops.h,
 * read from the kernels by tests/check_kernels.py at build time; the methods made from
 * coefficients, whose generic kernels run FMAs only, their declared fma_per_step, see ops_of).
 * Where kernel_ops.h has no row for a built-in method on the running path (the base path, or a
 * build without the table) its step/ benchmarks have no ops_*, ceiling_osc_steps_per_s,
 * roof_fraction or cpu_roof_fraction: counting every operation as an FMA would not be its
 * ceiling. The probe also measures the FMA rate R_fma, the add
 * rate R_add and the rate R_mix of a 1:1 mix of FMAs and adds; multiplies and divisions run on
 * the FMA pipes (a division counted as one operation: the kernels have none,
 * tests/check_kernels.py checks), adds on the FMA pipes or on pipes of their own, which the mix
 * reveals. Then
 *     ceiling_osc_steps_per_s = 1 / max((fma + mul + div) / R_fma, add / R_add,
 *                                       (fma + mul + div + add) / R_mix)
 * (ceiling.h; all-thread rates; one thread's for /threads:1; R_mix at least R_fma, R_add at
 * least R_mix / 2: the mix ran its adds at R_mix / 2 beside as many FMAs), roof_fraction =
 * osc_steps_per_s / that, and cpu_roof_fraction the same per CPU-second against one core. The add
 * term binds only where a step has more adds than FMA-pipe operations (none of the built-in
 * methods: with no more, add / R_add <= 2 add / R_mix <= the mix term). On Intel (adds on the FMA
 * ports) R_mix = R_fma and the ceiling counts every operation; on AMD Zen (2 FMA + 2 add pipes) an
 * add is free up to the FMA count: the same fraction means the same on both.
 *
 * A failed run (an audit that cannot be created included) fails its benchmark with the reason;
 * an audited benchmark never times bare stepping instead.
 *
 * Lane counts 2^12, 2^16 and 2^20; OSCBENCH_BENCH_LARGE=1 adds 2^24 and 2^26 (several GB).
 * The audited runs audit every 128 steps (OSCBENCH_BENCH_AUDIT_EVERY=N to change). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_PROCESS_CPUTIME_ID */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>
#include <time.h> /* fma() follows the argument type: fmaf for float */

#include "audit.h"
#include "bench_run.h"
#include "bench_shim.h"
#include "ceiling.h"
#include "composition.h"
#include "config.h"
#include "diag.h"
#include "fma_probe.h"
#include "oscbench.h"
#include "whole.h"
#include "layout.h"
#include "sweep.h"
#include "rkn.h"
#include "tableau.h"

/* The compiled kernels' operation counts (generated at build time; absent: an empty table). */
#if defined(__has_include)
#if __has_include("kernel_ops.h")
#include "kernel_ops.h"
#define HAVE_KERNEL_OPS 1
#endif
#endif
#ifndef HAVE_KERNEL_OPS
static const struct kernel_ops {
    const char *method;
    int isa, prec;
    double fma, mul, add, div;
} kernel_ops[] = {{0, 0, 0, 0, 0, 0, 0}};
#endif

/* The work of one iteration (one osc_batch_run), in FMA-unit operations: fixed, so that a
 * benchmark's name always means the same work and two runs compare (compare.py); about 0.02 s at
 * 8e10 FMA/s. Not sized from the FMA probe, whose reading changes with the machine's load. */
#define FMA_PER_ITER 1.6e9
/* ...but never fewer steps than this, so that the lanes' trip to memory and back (once per run)
 * costs little next to the stepping, even when the batch is far bigger than the caches. */
#define MIN_STEPS 1024
/* Steps are a multiple of this, so that audits at AUDIT_EVERY fall evenly. */
#define STEP_QUANTUM 128
/* The audit interval the sweep harness uses (OSCBENCH_BENCH_AUDIT_EVERY overrides it). */
#define AUDIT_EVERY 128
static long audit_every = AUDIT_EVERY;
/* The step: omega0 dt is 0.002 to 0.003 for k in [1, 2.2], far inside every method's stability
 * region (explicit Euler included, with the drag below). */
#define BENCH_DT 0.002
#define BENCH_DRAG 0.01
/* The drag makes every lane decay; restart the batch (untimed) before it has run this many steps,
 * so that no state ever becomes subnormal (exp(-drag/2 * dt * 2^20) ~ 3e-5). */
#define RESTART_STEPS (1L << 20)

static osc_fma_peak peak;
/* The machine's peak per precision: the probe's all-thread wall-clock rate, or its threads times
 * one core's rate per CPU-second if that is higher. On a quiet machine the two agree (within a
 * few %); on a shared one the wall-clock probe only sees the share it got at start-up, and a
 * peak_fraction measured against it could exceed 1. */
static double machine_peak[OSC_NPRECISION];
/* The same for adds alone and for the 1:1 FMA-add mix (operations per second), and the peak
 * samples' extremes. */
static double machine_add[OSC_NPRECISION], machine_mix[OSC_NPRECISION];
static double peak_sample_min[OSC_NPRECISION], peak_sample_max[OSC_NPRECISION];
static double peak_beside[OSC_NPRECISION];

/* The cores `threads` OpenMP threads run on at once: no more than the CPUs this process may use
 * (with more threads than CPUs they take turns). */
static int cores_for(int threads)
{
    const int procs = omp_get_num_procs();
    return threads < procs ? threads : procs;
}

/* A probe's rate as a machine peak: all-thread wall clock, or one core's per CPU-second rate
 * times the cores the threads run on (cores_for) if higher (see machine_peak). */
static double probe_rate(double wall, double per_cpu, int threads)
{
    double per_cores = cores_for(threads) * per_cpu;
    return per_cores > wall ? per_cores : wall;
}

/* Take a peak sample (about `seconds`), and fold it into the run's peaks and spread. The sample
 * beside a benchmark and the spread are the all-thread wall-clock rate: a core the host takes
 * stops a thread's CPU clock too, so the per-CPU-second rate would not show it. */
static void sample_peak(double seconds)
{
    osc_fma_peak p = osc_fma_probe(seconds);
    for (int q = 0; q < OSC_NPRECISION; q++) {
        double fma = probe_rate(p.fma_per_s[q], p.fma_per_cpu_s[q], p.threads);
        double add = probe_rate(p.add_per_s[q], p.add_per_cpu_s[q], p.threads);
        double mix = probe_rate(p.mix_per_s[q], p.mix_per_cpu_s[q], p.threads);
        const double wall = p.fma_per_s[q];
        peak_beside[q] = wall;
        if (fma > machine_peak[q])
            machine_peak[q] = fma;
        if (add > machine_add[q])
            machine_add[q] = add;
        if (mix > machine_mix[q])
            machine_mix[q] = mix;
        if (p.add_per_cpu_s[q] > peak.add_per_cpu_s[q])
            peak.add_per_cpu_s[q] = p.add_per_cpu_s[q];
        if (p.fma_per_cpu_s[q] > peak.fma_per_cpu_s[q])
            peak.fma_per_cpu_s[q] = p.fma_per_cpu_s[q];
        if (p.mix_per_cpu_s[q] > peak.mix_per_cpu_s[q])
            peak.mix_per_cpu_s[q] = p.mix_per_cpu_s[q];
        if (!(peak_sample_min[q] > 0) || wall < peak_sample_min[q])
            peak_sample_min[q] = wall;
        if (wall > peak_sample_max[q])
            peak_sample_max[q] = wall;
    }
}

/* A sample after a timing: the lower of it and the one before the timing is the one beside it,
 * so that a core the host took at either end of the timing shows. */
static void sample_peak_after(osc_precision prec)
{
    const double before = peak_beside[prec];
    sample_peak(0.05);
    if (before < peak_beside[prec])
        peak_beside[prec] = before;
}

/* The compositions benchmarked (make_compositions): each with its base, its symmetric weight
 * list (the first half up to the middle weight) and substeps, whose operation count is the
 * base's composed kernel's per substep, times the substeps. Their counts are the ones the
 * composed kernels unroll (3, 5 and 17; kernel_loops.h), the 17 those of eighth-order methods. */
enum { NCOMPOSITIONS = 4 };
enum composition_weights { YOSHIDA, SUZUKI, KAHAN_LI8 };
static struct bench_composition {
    const char *name, *base;
    enum composition_weights weights;
    osc_method method;
    int substeps;
    bool made;
} compositions[NCOMPOSITIONS] = {
    {.name = "yoshida-verlet", .base = "verlet", .weights = YOSHIDA},
    {.name = "yoshida-rk4", .base = "rk4", .weights = YOSHIDA},
    {.name = "suzuki-verlet", .base = "verlet", .weights = SUZUKI},
    {.name = "kahan-li-verlet", .base = "verlet", .weights = KAHAN_LI8}};

/* The config of default/ (OSCBENCH_BENCH_CONFIG); the methods it defines by their coefficients
 * get step/ and audited/ benchmarks as well. */
static osc_config default_cfg;

/* The operations per oscillator-step of m's compiled step loop on the running ISA path, from
 * kernel_ops.h; for a composition (here or in the config), substeps x its base's composed substep
 * loop ("<base>/composed" in the table). A method with no row on any path runs the generic kernels
 * of the methods made from coefficients (tableau, RKN: tableau-rk4, a config's rk and rkn
 * methods), FMAs only, as many as its declared fma_per_step (tests/check_kernels.py's
 * check_tableau on the v3 and v4 paths, test_tableau_method and test_rkn): that count, as FMAs.
 * Otherwise, without a row for the path (the base path has none), *counted is false (the declared
 * fma_per_step still comes back, as FMAs). A build without the table (sanitizers, coverage, no
 * optimization: no register blocks to count) has no rows at all, so there every method on v3/v4
 * counts its declared fma_per_step. */
static struct kernel_ops ops_of(const osc_method *m, osc_precision p, bool *counted)
{
    *counted = true;
    int isa = osc_isa_level() == OSC_ISA_V4 ? 4 : osc_isa_level() == OSC_ISA_V3 ? 3 : 0;
    char composed[96];
    double times = 1;
    const char *name = m->name;
    for (int c = 0; c < NCOMPOSITIONS; c++)
        if (compositions[c].made && m == &compositions[c].method) {
            snprintf(composed, sizeof composed, "%s/composed", compositions[c].base);
            name = composed, times = compositions[c].substeps;
        }
    const config_user_method *um = config_user_method_of(&default_cfg, m);
    if (um && um->base) {
        snprintf(composed, sizeof composed, "%s/composed", um->base->name);
        name = composed, times = um->substeps;
    }
    bool any_row = false; /* on any path */
    for (size_t i = 0; kernel_ops[i].method; i++) {
        if (strcmp(kernel_ops[i].method, name) != 0)
            continue;
        any_row = true;
        if (kernel_ops[i].isa == isa && kernel_ops[i].prec == (int)p) {
            struct kernel_ops k = kernel_ops[i];
            k.fma *= times, k.mul *= times, k.add *= times, k.div *= times;
            return k;
        }
    }
    *counted = isa != 0 && !any_row;
    return (struct kernel_ops){m->name, isa, (int)p, m->fma_per_step, 0, 0, 0};
}

enum bench_kind { BENCH_STEP, BENCH_NAIVE, BENCH_AUDITED, BENCH_DEFAULT };

typedef struct bench_case {
    enum bench_kind kind;
    const osc_method *method; /* NULL for the naive baseline */
    osc_precision prec;
    size_t lanes;
    bool one_thread;
} bench_case;

static double lane_stiffness(size_t i) { return 1 + (double)(i % 13) * 0.1; }

/* Steps per iteration for `fma` FMAs per oscillator-step on `lanes` lanes: a function of the
 * benchmark's name alone (method, lanes; the same for /threads:1). */
static long steps_for(const bench_case *c, int fma)
{
    double s = FMA_PER_ITER / (fma > 0 ? fma : 1) / (double)c->lanes;
    long steps = s < MIN_STEPS ? MIN_STEPS : s > 1e9 ? 1000000000L : (long)s;
    return (steps + STEP_QUANTUM - 1) / STEP_QUANTUM * STEP_QUANTUM;
}

/* ---- batches: one kept between runs, since a benchmark's function is called several times ---- */

static struct {
    const osc_method *method;
    osc_precision prec;
    size_t lanes;
    osc_batch *b;
} cache;

static void cache_drop(void)
{
    osc_batch_free(cache.b);
    memset(&cache, 0, sizeof cache);
}

static osc_batch *get_batch(const bench_case *c)
{
    if (cache.b && cache.method == c->method && cache.prec == c->prec && cache.lanes == c->lanes)
        return cache.b;
    cache_drop();
    osc_batch *b;
    if (osc_batch_create(&b, c->method, c->prec, 1, c->lanes, 0) != OSC_OK)
        return NULL;
    const double x0 = 1, v0 = 0;
    for (size_t i = 0; i < c->lanes; i++)
        osc_batch_set_lane(b, i, lane_stiffness(i), BENCH_DRAG, 1, &x0, &v0);
    if (osc_batch_start(b, BENCH_DT) != OSC_OK) {
        osc_batch_free(b);
        return NULL;
    }
    cache.method = c->method, cache.prec = c->prec, cache.lanes = c->lanes, cache.b = b;
    return b;
}

/* Seconds per oscillator-step at the ceiling of operations k (ceiling.h), 0 without one. */
static double step_seconds(struct kernel_ops k, double r_fma, double r_add, double r_mix)
{
    return osc_ceiling_step_seconds(k.fma + k.mul + k.div, k.add, r_fma, r_add, r_mix);
}

static void set_counters(osc_bench_state *st, const bench_case *c, int fma, long steps)
{
    double lane_steps = (double)c->lanes * (double)steps * (double)osc_bench_iterations(st);
    osc_bench_counter(st, "osc_steps_per_s", lane_steps, OSC_BENCH_RATE);
    osc_bench_items(st, lane_steps); /* items_per_second, for compare.py */
    osc_bench_counter(st, "fma_per_step", fma, OSC_BENCH_VALUE);
    osc_bench_counter(st, "peak_fraction", lane_steps * fma / machine_peak[c->prec],
                      OSC_BENCH_RATE);
    osc_bench_counter(st, "steps_per_iter", (double)steps, OSC_BENCH_VALUE);
    /* The same over the CPU time the process got, against one core's peak per CPU-second: what
     * the kernels achieve while they run, which stays meaningful on a machine shared with other
     * work (wall-clock rates there depend on who else runs). */
    if (peak.fma_per_cpu_s[c->prec] > 0)
        osc_bench_counter(st, "cpu_peak_fraction", lane_steps * fma / peak.fma_per_cpu_s[c->prec],
                          OSC_BENCH_CPU_RATE);
    /* The CPU the process got over what its threads could have had: process CPU seconds over
     * (wall seconds x the cores its threads ran on: min(threads, CPUs)). Under 1 when other
     * work shared the cores during the timing (or threads waited); the short peak samples
     * beside a benchmark miss a core shared throughout it, this does not. At most 1: in a
     * /threads:1 run the idle OpenMP threads' spinning adds CPU time (1.05 read here). */
    const double wall_s = osc_bench_seconds(st);
    const int used = cores_for(c->one_thread ? 1 : omp_get_max_threads());
    const double got = wall_s > 0 ? osc_bench_cpu_seconds(st) / (wall_s * used) : 0;
    osc_bench_counter(st, "cpu_share", got < 1 ? got : 1, OSC_BENCH_VALUE);
    const int q = c->prec;
    osc_bench_counter(st, "peak_beside_fma_per_s", peak_beside[q], OSC_BENCH_VALUE);
    osc_bench_counter(st, "peak_spread",
                      peak_sample_max[q] > 0
                          ? (peak_sample_max[q] - peak_sample_min[q]) / peak_sample_max[q]
                          : INFINITY,
                      OSC_BENCH_VALUE);
    if (c->kind != BENCH_STEP) /* the counts are advance()'s, not the fused or naive loops' */
        return;
    bool counted;
    const struct kernel_ops k = ops_of(c->method, c->prec, &counted);
    /* Without the compiled loop's counts, a ceiling would count every operation as an FMA (its
     * roof_fraction could exceed 1): no ops_* and no ceiling at all. */
    if (!counted)
        return;
    osc_bench_counter(st, "ops_fma", k.fma, OSC_BENCH_VALUE);
    osc_bench_counter(st, "ops_mul", k.mul, OSC_BENCH_VALUE);
    osc_bench_counter(st, "ops_add", k.add, OSC_BENCH_VALUE);
    osc_bench_counter(st, "ops_div", k.div, OSC_BENCH_VALUE);
    /* One thread's share of the all-thread peak: one core's, the peak being that of the cores
     * the threads ran on (no more than the CPUs: with more threads than CPUs they take turns). */
    const double share = c->one_thread && peak.threads > 0 ? 1.0 / cores_for(peak.threads) : 1.0;
    const double step_s = step_seconds(k, machine_peak[q] * share, machine_add[q] * share,
                                       machine_mix[q] * share);
    if (step_s > 0) {
        osc_bench_counter(st, "ceiling_osc_steps_per_s", 1 / step_s, OSC_BENCH_VALUE);
        osc_bench_counter(st, "roof_fraction", lane_steps * step_s, OSC_BENCH_RATE);
    }
    const double core_s = step_seconds(k, peak.fma_per_cpu_s[q], peak.add_per_cpu_s[q],
                                       peak.mix_per_cpu_s[q]);
    if (core_s > 0)
        osc_bench_counter(st, "cpu_roof_fraction", lane_steps * core_s, OSC_BENCH_CPU_RATE);
}

/* ---- step/ and audited/ ------------------------------------------------------------------- */

/* Start batch b again with a fresh audit (every-step maxima, as `oscbench run` audits). */
static int audit_restart(osc_audit **a, osc_batch *b)
{
    osc_audit_free(*a);
    *a = NULL;
    int rc = osc_batch_start(b, BENCH_DT);
    return rc ? rc : osc_audit_create(a, b);
}

/* Fail the benchmark: what failed and why (osc_strerror of status). */
static void bench_fail(osc_bench_state *st, const char *what, int status)
{
    char message[160];
    snprintf(message, sizeof message, "%s: %s", what, osc_strerror(status));
    osc_bench_error(st, message);
}

static void bench_step(osc_bench_state *st, void *arg)
{
    const bench_case *c = arg;
    const int saved_threads = omp_get_max_threads();
    osc_batch *b = get_batch(c);
    if (!b) {
        osc_bench_error(st, "cannot create the batch (out of memory?)");
        return;
    }
    sample_peak(0.05); /* the peak beside this benchmark */
    const long steps = steps_for(c, c->method->fma_per_step);
    /* An audited benchmark whose audit cannot be had fails: it never steps bare instead. */
    const bool audited = c->kind == BENCH_AUDITED;
    osc_audit *audit = NULL;
    int rc = audited ? audit_restart(&audit, b) : OSC_OK; /* the audit follows from step 0 */
    if (rc) {
        bench_fail(st, "cannot create the audit", rc);
        return;
    }
    if (c->one_thread)
        omp_set_num_threads(1);
    const char *failed = NULL;
    while (!failed && osc_bench_keep_running(st)) {
        if (osc_batch_step(b) + steps > RESTART_STEPS) {
            osc_bench_pause(st);
            rc = audited ? audit_restart(&audit, b) : osc_batch_start(b, BENCH_DT);
            osc_bench_resume(st);
            if (rc) {
                failed = audited ? "cannot create the audit" : "cannot restart the batch";
                break;
            }
        }
        rc = audited ? osc_audit_run(audit, b, steps, audit_every, NULL, NULL)
                     : osc_batch_run(b, steps, steps, NULL, NULL);
        if (rc)
            failed = "the run failed";
    }
    if (c->one_thread)
        omp_set_num_threads(saved_threads);
    osc_audit_free(audit);
    if (failed) {
        cache_drop(); /* its batch may be stopped part way */
        bench_fail(st, failed, rc);
        return;
    }
    sample_peak_after(c->prec);
    set_counters(st, c, c->method->fma_per_step, steps);
}

/* ---- default/<method>: the README's main job, bare against audited ----------------------- */

/* Rounds per benchmark iteration of default/ (each: bare, audited, sampled), whose fastest runs
 * the counters take. */
#define DEFAULT_ROUNDS 3

static double process_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Add to *seconds the wall seconds (and to *cpu the process's CPU seconds) of stepping (and, if
 * audited, auditing: preparing the exact solutions included) every dt batch of the default
 * config for method m, as `oscbench run` does. Returns the first failure, or OSC_OK. */
static int run_default_batches(const osc_method *m, bench_run_kind how, double *seconds,
                               double *osc_steps, double *cpu)
{
    const osc_config *cfg = &default_cfg;
    size_t lanes = layout_lanes(layout_of(cfg));
    for (size_t d = 0; d < cfg->dt.count; d++) {
        double dt = cfg->dt.values[d];
        long steps = sweep_steps_for(cfg, dt);
        osc_batch *b = NULL;
        osc_audit *audit = NULL;
        int rc = sweep_open_batch(cfg, m, dt, &b);
        double t0 = omp_get_wtime(), c0 = process_cpu_seconds();
        if (!rc)
            rc = bench_run_batch(b, how, steps, sweep_audit_interval(cfg, dt), &audit);
        *seconds += omp_get_wtime() - t0;
        *cpu += process_cpu_seconds() - c0;
        *osc_steps += (double)lanes * (double)steps * cfg->dim;
        osc_audit_free(audit);
        osc_batch_free(b);
        if (rc)
            return rc;
    }
    return OSC_OK;
}

/* The fused kernel's operations per oscillator-step beside the method's, in units of the
 * method's vector operations (lib/methods/kernel_loops.h derives the count; the x86-64-v3 and
 * v4 assembly of every method, precision and dim has exactly method_ops D + this): 13 per axis and
 * 6 per lane in double. For float a double vector holds half as many lanes, so each counts 2,
 * plus the conversions of x and v to double (4 per axis per vector of floats; the 2 extractions
 * of upper halves that go with them are not counted). A method's own readout is not counted
 * (stormer's: 7 per axis), so its ceiling is the higher, harder one. */
static double fused_audit_ops(osc_precision p, int dim)
{
    const double double_ops = 13.0 * dim + 6;
    return p == OSC_FLOAT ? 2 * double_ops + 4.0 * dim : double_ops;
}

static void bench_default(osc_bench_state *st, void *arg)
{
    const bench_case *c = arg;
    /* The three runs alternate, and each counter takes the fastest of its iterations: on a
     * machine shared with other work that is the least disturbed one (sums would mix in
     * whatever else ran meanwhile). */
    double bare = INFINITY, audited = INFINITY, sampled = INFINITY, steps = 0;
    double cpu_bare = INFINITY, cpu_audited = INFINITY;
    static const char *const run_names[] = {"bare", "audited", "sampled"};
    int rc = OSC_OK, failed_run = 0;
    while (!rc && osc_bench_keep_running(st)) {
        for (int round = 0; round < DEFAULT_ROUNDS && !rc; round++) {
            double per_run = 0, wall[3] = {0, 0, 0}, cpu[3] = {0, 0, 0};
            /* every run must succeed: a failed one is an error of the benchmark, never a time */
            for (int run = BENCH_RUN_BARE; run <= BENCH_RUN_SAMPLED && !rc; run++)
                if ((rc = run_default_batches(c->method, (bench_run_kind)run, &wall[run],
                                              &per_run, &cpu[run])))
                    failed_run = run;
            if (rc)
                break;
            bare = fmin(bare, wall[BENCH_RUN_BARE]);
            audited = fmin(audited, wall[BENCH_RUN_EVERY_STEP]);
            sampled = fmin(sampled, wall[BENCH_RUN_SAMPLED]);
            cpu_bare = fmin(cpu_bare, cpu[BENCH_RUN_BARE]);
            cpu_audited = fmin(cpu_audited, cpu[BENCH_RUN_EVERY_STEP]);
            steps = per_run / 3;
        }
    }
    if (rc) {
        char what[96];
        snprintf(what, sizeof what, "the default config's %s run failed", run_names[failed_run]);
        bench_fail(st, what, rc);
        return;
    }
    if (!(bare > 0 && audited > 0 && sampled > 0 && isfinite(bare + audited + sampled))) {
        osc_bench_error(st, "no timed run of the default config's batches");
        return;
    }
    /* per lane and step: the method's operations on every axis, the audit's (per axis and lane) */
    const double method_ops = c->method->fma_per_step * (double)default_cfg.dim;
    const double ceiling =
        method_ops / (method_ops + fused_audit_ops(default_cfg.precision, default_cfg.dim));
    osc_bench_counter(st, "bare_osc_steps_per_s", steps / bare, 0);
    osc_bench_counter(st, "audited_osc_steps_per_s", steps / audited, 0);
    osc_bench_counter(st, "audited_fraction", bare / audited, 0);
    osc_bench_counter(st, "sampled_fraction", bare / sampled, 0);
    osc_bench_counter(st, "op_ceiling", ceiling, 0);
    osc_bench_counter(st, "ceiling_fraction", bare / audited / ceiling, 0);
    /* the same two over the process's CPU seconds: less disturbed by other work on the cores */
    osc_bench_counter(st, "audited_cpu_fraction", cpu_bare / cpu_audited, 0);
    osc_bench_counter(st, "ceiling_cpu_fraction", cpu_bare / cpu_audited / ceiling, 0);
}

/* ---- baseline/naive: what one writes first -------------------------------------------------- */

/* Semi-implicit Euler with the kernels' arithmetic (4 FMAs) and ISA path (osc_isa_level(): the
 * CPU's, capped by OSCBENCH_ISA, as the kernels and the probe take it), but one parallel pass over
 * all the lanes' arrays per step, so every step streams the whole batch through memory and pays
 * for a parallel region. (Until 2026-12-07 target_clones chose the path from the CPU alone, so
 * under OSCBENCH_ISA=v3 or base the baseline still ran AVX-512.) */
#if defined(OSC_MULTIVERSION) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NAIVE_RUNTIME 1
#define NAIVE_V4 __attribute__((target("arch=x86-64-v4")))
#define NAIVE_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define NAIVE_RUNTIME 0
#endif
#define DEFINE_NAIVE_AT(real, name, ATTR)                                                        \
    ATTR static void name(size_t n, long steps, real *restrict x, real *restrict v,              \
                          const real *restrict w2, const real *restrict gam,                     \
                          const real *restrict g, real dt)                                       \
    {                                                                                            \
        for (long s = 0; s < steps; s++) {                                                       \
            _Pragma("omp parallel for simd schedule(static)") for (size_t i = 0; i < n; i++)     \
            {                                                                                    \
                real minus_a = fma(w2[i], x[i], fma(gam[i], v[i], g[i]));                        \
                v[i] = fma(-dt, minus_a, v[i]);                                                  \
                x[i] = fma(dt, v[i], x[i]);                                                      \
            }                                                                                    \
        }                                                                                        \
    }
#if NAIVE_RUNTIME
#define DEFINE_NAIVE(real, suffix)                                                               \
    DEFINE_NAIVE_AT(real, naive_run_v4_##suffix, NAIVE_V4)                                       \
    DEFINE_NAIVE_AT(real, naive_run_v3_##suffix, NAIVE_V3)                                       \
    DEFINE_NAIVE_AT(real, naive_run_base_##suffix, )                                             \
    static void naive_run_##suffix(size_t n, long steps, real *restrict x, real *restrict v,     \
                                   const real *restrict w2, const real *restrict gam,            \
                                   const real *restrict g, real dt)                              \
    {                                                                                            \
        switch (osc_isa_level()) {                                                               \
        case OSC_ISA_V4:                                                                         \
            naive_run_v4_##suffix(n, steps, x, v, w2, gam, g, dt);                               \
            break;                                                                               \
        case OSC_ISA_V3:                                                                         \
            naive_run_v3_##suffix(n, steps, x, v, w2, gam, g, dt);                               \
            break;                                                                               \
        default:                                                                                 \
            naive_run_base_##suffix(n, steps, x, v, w2, gam, g, dt);                             \
        }                                                                                        \
    }
#else
#define DEFINE_NAIVE(real, suffix) DEFINE_NAIVE_AT(real, naive_run_##suffix, )
#endif
DEFINE_NAIVE(double, d)
DEFINE_NAIVE(float, f)

enum { NAIVE_FMA = 4 };

typedef struct naive_arrays {
    size_t n;
    osc_precision prec;
    void *x, *v, *w2, *gam, *g;
} naive_arrays;

static void naive_free(naive_arrays *a)
{
    free(a->x), free(a->v), free(a->w2), free(a->gam), free(a->g);
    memset(a, 0, sizeof *a);
}

static bool naive_alloc(naive_arrays *a, size_t n, osc_precision prec)
{
    size_t es = prec == OSC_FLOAT ? sizeof(float) : sizeof(double);
    size_t bytes = (n * es + 63) / 64 * 64;
    memset(a, 0, sizeof *a);
    a->n = n, a->prec = prec;
    void **arrays[] = {&a->x, &a->v, &a->w2, &a->gam, &a->g};
    for (size_t j = 0; j < sizeof arrays / sizeof arrays[0]; j++)
        if (!(*arrays[j] = aligned_alloc(64, bytes))) {
            naive_free(a);
            return false;
        }
    return true;
}

static void naive_start(naive_arrays *a)
{
    for (size_t i = 0; i < a->n; i++) {
        double w2 = lane_stiffness(i);
        if (a->prec == OSC_FLOAT) {
            ((float *)a->x)[i] = 1, ((float *)a->v)[i] = 0, ((float *)a->w2)[i] = (float)w2;
            ((float *)a->gam)[i] = (float)BENCH_DRAG, ((float *)a->g)[i] = 0;
        } else {
            ((double *)a->x)[i] = 1, ((double *)a->v)[i] = 0, ((double *)a->w2)[i] = w2;
            ((double *)a->gam)[i] = BENCH_DRAG, ((double *)a->g)[i] = 0;
        }
    }
}

static void naive_run(naive_arrays *a, long steps)
{
    if (a->prec == OSC_FLOAT)
        naive_run_f(a->n, steps, a->x, a->v, a->w2, a->gam, a->g, (float)BENCH_DT);
    else
        naive_run_d(a->n, steps, a->x, a->v, a->w2, a->gam, a->g, BENCH_DT);
}

static void bench_naive(osc_bench_state *st, void *arg)
{
    const bench_case *c = arg;
    naive_arrays a;
    if (!naive_alloc(&a, c->lanes, c->prec)) {
        osc_bench_error(st, "out of memory");
        return;
    }
    sample_peak(0.05); /* the peak beside this benchmark, as step/'s */
    naive_start(&a);
    /* A fixed number of steps for the name, as every benchmark here: its speed is set by memory
     * and a parallel region per step, ~1/16 of the kernels', so a sixteenth of their work. */
    double s = FMA_PER_ITER / 16 / 4 / (double)c->lanes;
    long steps = s < 1 ? 1 : (long)s;
    long done = 0;
    while (osc_bench_keep_running(st)) {
        if (done + steps > RESTART_STEPS) {
            osc_bench_pause(st);
            naive_start(&a);
            done = 0;
            osc_bench_resume(st);
        }
        naive_run(&a, steps);
        done += steps;
    }
    naive_free(&a);
    sample_peak_after(c->prec);
    set_counters(st, c, NAIVE_FMA, steps);
}

/* ---- the tableau form of rk4 ------------------------------------------------------------------ */

/* Classical rk4 as a Butcher tableau: the generic tableau kernel's figures beside the built-in's.
 * Its fma_per_step (22, the nonzero coefficients' FMAs) is what that kernel executes, all FMAs. */
static osc_method tableau_rk4;

static const osc_method *make_tableau_rk4(void)
{
    const osc_tableau t = {.stages = 4,
                           .a = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}},
                           .b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                           .c = {0, 0.5, 0.5, 1}};
    return osc_method_from_tableau(&t, "tableau-rk4", 4, &tableau_rk4) == OSC_OK ? &tableau_rk4
                                                                                  : NULL;
}

/* ---- compositions ------------------------------------------------------------------------ */

/* Yoshida's triple jump (w1, w0, w1), w1 = 1/(2 - 2^(1/3)), w0 = 1 - 2 w1, over a base
 * (osc_method_from_composition): over verlet it is forest-ruth's map undamped, built in as one
 * fused step, so step/yoshida-verlet beside step/forest-ruth shows what the generic composed
 * kernel costs. Suzuki's fractal (p, p, 1 - 4p, p, p), p = 1/(4 - 4^(1/3)), order 4 in 5
 * substeps, through the composed kernel's block for 5 substeps (kernel_loops.h: 3, 5, 7, 9, 15
 * and 17 have their own; other counts a run-time substep loop). False if one cannot be made. */
static bool make_compositions(void)
{
    /* Yoshida's triple jump (3 substeps, order 4), Suzuki's fractal (5, order 4) and Kahan and
     * Li's s17odr8a (Math. Comp. 66, 1997: 17 substeps, order 8), as first halves with the
     * middle weight. */
    const double y1 = 1 / (2 - cbrt(2.0)), yoshida[2] = {y1, 1 - 2 * y1};
    const double p = 1 / (4 - cbrt(4.0)), suzuki[3] = {p, p, 1 - 4 * p};
    static const double kahan_li8[9] = {
        0.13020248308889008088, 0.56116298177510838456,  -0.38947496264484728641,
        0.15884190655515560090, -0.39590389413323757734, 0.18453964097831570709,
        0.25837438768632204729, 0.29501172360931029887,  -0.60550853383003451170};
    const struct {
        const double *w;
        int half, order;
    } sets[] = {[YOSHIDA] = {yoshida, 2, 4}, [SUZUKI] = {suzuki, 3, 4},
                [KAHAN_LI8] = {kahan_li8, 9, 8}};
    for (int c = 0; c < NCOMPOSITIONS; c++) {
        struct bench_composition *bc = &compositions[c];
        const int half = sets[bc->weights].half;
        if (osc_method_from_composition(osc_method_find(bc->base), sets[bc->weights].w, half,
                                        true, bc->name, sets[bc->weights].order,
                                        &bc->method) != OSC_OK)
            return false;
        bc->made = true;
        bc->substeps = osc_composition_substeps(half, true);
    }
    return true;
}

static void release_compositions(void)
{
    for (int c = 0; c < NCOMPOSITIONS; c++)
        if (compositions[c].made)
            osc_composition_method_release(&compositions[c].method);
}

/* rk4's Nystrom form (abar = A^2, bbar = b^T A, a = A: the same map as the tableau's), the
 * generic RKN kernel's figures beside them. Its fma_per_step (24: 4 forces' 8, c_2..c_4, abar_31,
 * abar_42, the 3 a_ij, x + h v, 3 bbar_i, 4 b_i) is what that kernel executes, all FMAs. */
static osc_method rkn_rk4;

static const osc_method *make_rkn_rk4(void)
{
    const osc_rkn_tableau t = {.stages = 4,
                               .abar = {{0}, {0}, {0.25}, {0, 0.5}},
                               .a = {{0}, {0.5}, {0, 0.5}, {0, 0, 1}},
                               .bbar = {1.0 / 6, 1.0 / 6, 1.0 / 6, 0},
                               .b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
                               .c = {0, 0.5, 0.5, 1}};
    return osc_method_from_rkn(&t, "rkn-rk4", 4, &rkn_rk4) == OSC_OK ? &rkn_rk4 : NULL;
}

/* ---- registration ------------------------------------------------------------------------- */

/* Loads default_cfg: OSCBENCH_BENCH_CONFIG's config, or configs/default.yaml. False (with the
 * config's errors on stderr) when the user's config is bad; without the variable a default config
 * that cannot be read only drops the default/ benchmarks. */
static bool load_bench_config(void)
{
    const char *cfg_path = getenv("OSCBENCH_BENCH_CONFIG");
    if (cfg_path && !*cfg_path) /* empty: unset, as for the other variables */
        cfg_path = NULL;
    char err[CONFIG_ERRORS_BYTES];
    if (config_load(cfg_path ? cfg_path : OSC_DEFAULT_CONFIG, &default_cfg, err, sizeof err) == 0)
        return true;
    if (cfg_path) {
        fprintf(stderr, "oscbench-bench: OSCBENCH_BENCH_CONFIG: %s\n", err);
        return false;
    }
    fprintf(stderr, "oscbench-bench: no default/ benchmarks: %s\n", err);
    return true;
}

/* Every case, allocated once at its final size: the benchmarks keep pointers into it. */
static bench_case *cases;
static size_t ncases, cases_cap;

static bool add_bench(const char *name, bench_case c)
{
    if (ncases == cases_cap)
        return false;
    cases[ncases] = c;
    osc_bench_fn fn = c.kind == BENCH_NAIVE     ? bench_naive
                      : c.kind == BENCH_DEFAULT ? bench_default
                                                : bench_step;
    osc_bench *b = osc_bench_register(name, fn, &cases[ncases]);
    if (!b)
        return false;
    ncases++;
    osc_bench_set_unit_ms(b);
    return true;
}

static const char bench_help[] =
    "oscbench-bench: the throughput of oscbench's kernels, on Google Benchmark.\n"
    "\n"
    "benchmarks (--benchmark_filter=REGEX picks them):\n"
    "  step/<method>/<precision>/<lanes>[/threads:1]  bare stepping; lanes 4096, 65536, 1048576\n"
    "                                                  (method tableau-rk4: rk4 by its tableau,\n"
    "                                                  rkn-rk4: rk4 by its Nystrom form;\n"
    "                                                  yoshida-verlet, yoshida-rk4, suzuki-verlet,\n"
    "                                                  kahan-li-verlet: compositions of 3, 3, 5\n"
    "                                                  and 17 substeps; and every method the\n"
    "                                                  config of default/ defines by its\n"
    "                                                  coefficients)\n"
    "  baseline/naive/<precision>/<lanes>             semi-implicit Euler written the obvious way\n"
    "  audited/<method>/double/1048576                 stepping with the run's audit\n"
    "  default/<method>                                a config's batches: bare, audited, sampled\n"
    "each name is a fixed amount of work (steps per iteration follow from the method's FMAs and\n"
    "the lanes, never from the machine), so two runs compare: compare.py benchmarks A.json B.json\n"
    "\n"
    "counters: items_per_second (oscillator-steps per second of Google Benchmark's time),\n"
    "  osc_steps_per_s (per wall second), fma_per_step, peak_fraction, cpu_peak_fraction,\n"
    "  steps_per_iter, peak_beside_fma_per_s, peak_spread, cpu_share (process CPU seconds\n"
    "  over wall seconds x min(threads, CPUs), at most 1);\n"
    "  step/: ops_fma, ops_mul, ops_add, ops_div (read from the compiled kernel),\n"
    "  ceiling_osc_steps_per_s, roof_fraction, cpu_roof_fraction (against the ceiling of\n"
    "  those operations at the measured FMA and FMA+add rates);\n"
    "  default/: bare_osc_steps_per_s, audited_osc_steps_per_s, audited_fraction,\n"
    "  sampled_fraction, op_ceiling, ceiling_fraction, audited_cpu_fraction,\n"
    "  ceiling_cpu_fraction\n"
    "\n"
    "environment:\n"
    "  OSCBENCH_ISA=v4|v3|base|native   cap the kernels' ISA path (default: the CPU's best)\n"
    "  OSCBENCH_BENCH_LARGE=1           add 2^24 and 2^26 lanes (several GB; 0: not)\n"
    "  OSCBENCH_BENCH_AUDIT_EVERY=N     steps between audits of audited/ (default 128)\n"
    "  OSCBENCH_BENCH_CONFIG=PATH       the config of default/ (default configs/default.yaml);\n"
    "                                   the methods it defines get step/ and audited/ too\n"
    "  OMP_NUM_THREADS=N                threads (default: every core)\n"
    "\n"
    "exit status: 0 success, 1 runtime failure (a benchmark failed: its ERROR line says\n"
    "  why), 2 bad input (a flag, a --benchmark_filter that selects none, OSCBENCH_ISA,\n"
    "  OSCBENCH_BENCH_LARGE, OSCBENCH_BENCH_AUDIT_EVERY, OSCBENCH_BENCH_CONFIG's config)\n"
    "\n"
    "Google Benchmark's own flags follow.\n\n";


/* ---- start-up ---------------------------------------------------------------------------- */

/* The methods beside the registry's, in their benchmarks' order: tableau-rk4, rkn-rk4 and the
 * compositions, then the methods default_cfg defines (a name of this program's own stays this
 * program's). NULL when one of this program's own cannot be built. */
static const osc_method **coef_methods(size_t *count)
{
    static const osc_method *list[2 + NCOMPOSITIONS + CONFIG_MAX_USER_METHODS];
    size_t n = 0;
    if (!(list[n++] = make_tableau_rk4()) || !(list[n++] = make_rkn_rk4())) {
        fputs("oscbench-bench: cannot build rk4 from its tableau or its Nystrom form\n", stderr);
        return NULL;
    }
    if (!make_compositions()) {
        fputs("oscbench-bench: cannot build the compositions\n", stderr);
        return NULL;
    }
    for (int c = 0; c < NCOMPOSITIONS; c++)
        list[n++] = &compositions[c].method;
    const size_t nown = n;
    for (size_t i = 0; i < default_cfg.nuser_methods; i++) {
        const osc_method *m = &default_cfg.user_methods[i].method;
        bool own = false;
        for (size_t k = 0; k < nown; k++)
            own |= strcmp(list[k]->name, m->name) == 0;
        if (own)
            print_line(stderr, "oscbench-bench: %s: its method '%s' has this program's name: "
                       "step/%s and audited/%s are this program's, default/%s the config's",
                       default_cfg.path, m->name, m->name, m->name, m->name);
        else
            list[n++] = m;
    }
    *count = n;
    return list;
}

static void context_number(const char *key, double value)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.4g", value);
    osc_bench_context(key, buf);
}

/* Probes the machine's peaks (the ceilings' start) and puts them in the benchmark context,
 * with what was built and which ISA path the kernels take. */
static void probe_and_describe_machine(void)
{
    peak = osc_fma_probe(0.4);
    for (int p = 0; p < OSC_NPRECISION; p++) {
        machine_peak[p] = probe_rate(peak.fma_per_s[p], peak.fma_per_cpu_s[p], peak.threads);
        machine_add[p] = probe_rate(peak.add_per_s[p], peak.add_per_cpu_s[p], peak.threads);
        machine_mix[p] = probe_rate(peak.mix_per_s[p], peak.mix_per_cpu_s[p], peak.threads);
        peak_sample_min[p] = peak_sample_max[p] = peak_beside[p] = peak.fma_per_s[p];
    }
    context_number("fma_peak_double_per_s", machine_peak[OSC_DOUBLE]);
    context_number("fma_peak_float_per_s", machine_peak[OSC_FLOAT]);
    context_number("fma_probe_double_wall_per_s", peak.fma_per_s[OSC_DOUBLE]);
    context_number("fma_probe_float_wall_per_s", peak.fma_per_s[OSC_FLOAT]);
    context_number("fma_peak_double_per_core_cpu_s", peak.fma_per_cpu_s[OSC_DOUBLE]);
    context_number("fma_peak_float_per_core_cpu_s", peak.fma_per_cpu_s[OSC_FLOAT]);
    context_number("add_peak_double_per_s", machine_add[OSC_DOUBLE]);
    context_number("fma_add_mix_double_per_s", machine_mix[OSC_DOUBLE]);
    context_number("add_peak_float_per_s", machine_add[OSC_FLOAT]);
    context_number("fma_add_mix_float_per_s", machine_mix[OSC_FLOAT]);
    char buf[64];
    snprintf(buf, sizeof buf, "%d", peak.threads);
    osc_bench_context("omp_threads", buf);
    osc_bench_context("fma_probe_isa", peak.isa);
    osc_bench_context("oscbench_version", OSC_VERSION);
    char isa[192];
    osc_isa_describe(isa, sizeof isa);
    osc_bench_context("kernel_isa", isa);
    /* meson setup -Dblocks=...: block sizes under trial, not lib/meson.build's table */
    osc_bench_context("block_overrides", OSC_BLOCK_OVERRIDES[0] ? OSC_BLOCK_OVERRIDES : "none");
}

/* Registers every benchmark, in the order the header comment lists them; false if one could not
 * be. methods[] holds the registry's methods, then coef_methods()'s. */
static bool register_benchmarks(const osc_method *const *methods, size_t nmethods,
                                const size_t *lanes, size_t nlanes)
{
    const size_t big = lanes[2]; /* 2^20: the one-thread, audited and baseline-beside size */
    char name[256];
    bool ok = true;
    for (size_t mi = 0; mi < nmethods; mi++) {
        const osc_method *m = methods[mi];
        for (int p = 0; p < OSC_NPRECISION; p++) {
            const char *prec = osc_precision_name((osc_precision)p);
            for (size_t li = 0; li < nlanes; li++) {
                snprintf(name, sizeof name, "step/%s/%s/%zu", m->name, prec, lanes[li]);
                ok &= add_bench(name, (bench_case){BENCH_STEP, m, (osc_precision)p, lanes[li], false});
            }
            snprintf(name, sizeof name, "step/%s/%s/%zu/threads:1", m->name, prec, big);
            ok &= add_bench(name, (bench_case){BENCH_STEP, m, (osc_precision)p, big, true});
        }
    }
    for (int p = 0; p < OSC_NPRECISION; p++)
        for (size_t li = 0; li < nlanes; li++) {
            snprintf(name, sizeof name, "baseline/naive/%s/%zu",
                     osc_precision_name((osc_precision)p), lanes[li]);
            ok &= add_bench(name, (bench_case){BENCH_NAIVE, NULL, (osc_precision)p, lanes[li], false});
        }
    for (size_t mi = 0; mi < nmethods; mi++) {
        snprintf(name, sizeof name, "audited/%s/double/%zu", methods[mi]->name, big);
        ok &= add_bench(name, (bench_case){BENCH_AUDITED, methods[mi], OSC_DOUBLE, big, false});
    }
    for (size_t mi = 0; mi < default_cfg.nmethods; mi++) {
        const osc_method *m = default_cfg.methods[mi];
        snprintf(name, sizeof name, "default/%s", m->name);
        ok &= add_bench(name, (bench_case){BENCH_DEFAULT, m, default_cfg.precision, 0, false});
    }
    return ok;
}

/* OSCBENCH_BENCH_AUDIT_EVERY: unset or empty keeps AUDIT_EVERY; else a whole number of steps,
 * 1 to 2^30 (atol read "1e3" as 1: audits every step, timed as if asked for). False, said on
 * stderr, when it is not one. */
static bool audit_every_from_env(const char *s)
{
    if (!s || !*s)
        return true;
    long n;
    if (!whole_in(s, 1, 1L << 30, &n)) {
        print_line(stderr, "oscbench-bench: OSCBENCH_BENCH_AUDIT_EVERY=%s: expected a whole "
                   "number of steps, 1 to %ld", s, 1L << 30);
        return false;
    }
    audit_every = n;
    return true;
}

/* 2^12, 2^16 and 2^20 lanes; OSCBENCH_BENCH_LARGE=1 adds 2^24 and 2^26 (0 or empty: not). The
 * count, or 0 for another value (bad input: "no" or "false" must not start a run of several
 * GB). */
static size_t lane_counts(size_t lanes[5])
{
    static const size_t all[5] = {1u << 12, 1u << 16, 1u << 20, 1u << 24, 1u << 26};
    memcpy(lanes, all, sizeof all);
    const char *large = getenv("OSCBENCH_BENCH_LARGE");
    if (!large || !*large || !strcmp(large, "0"))
        return 3;
    if (!strcmp(large, "1"))
        return 5;
    print_line(stderr, "oscbench-bench: OSCBENCH_BENCH_LARGE=%s: expected 1 (or 0)", large);
    return 0;
}

/* Every method's benchmarks: the registry's methods, then coef[]. The exit status. */
static int run_benchmarks(int argc, char **argv, const osc_method *const *coef, size_t ncoef,
                          const size_t *lanes, size_t nlanes)
{
    const size_t nbuiltin = osc_method_count(), nmethods = nbuiltin + ncoef;
    const osc_method **methods = calloc(nmethods, sizeof *methods);
    /* Counted first, so that the array never moves once benchmarks point into it. */
    cases_cap = nmethods * OSC_NPRECISION * (nlanes + 1) + OSC_NPRECISION * nlanes + nmethods +
                default_cfg.nmethods;
    cases = calloc(cases_cap, sizeof *cases);
    int status = 1;
    if (!methods || !cases) {
        fputs("oscbench-bench: out of memory\n", stderr);
    } else {
        for (size_t i = 0; i < nmethods; i++)
            methods[i] = i < nbuiltin ? osc_method_at(i) : coef[i - nbuiltin];
        probe_and_describe_machine();
        if (register_benchmarks(methods, nmethods, lanes, nlanes))
            status = osc_bench_main(argc, argv);
        else
            fputs("oscbench-bench: cannot register the benchmarks\n", stderr);
    }
    free(methods);
    free(cases);
    return status;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(bench_help, stdout);
            fflush(stdout);
            argv[i] = "--help"; /* Google Benchmark prints its flags and exits */
            return osc_bench_main(argc, argv);
        }
    if (osc_isa_env_status() != OSC_OK) {
        print_line(stderr, "oscbench-bench: %s=%s: expected %s", OSC_ISA_ENV, getenv(OSC_ISA_ENV),
                   OSC_ISA_ENV_VALUES);
        return 2;
    }
    size_t lanes[5];
    const size_t nlanes = lane_counts(lanes);
    if (!nlanes || !audit_every_from_env(getenv("OSCBENCH_BENCH_AUDIT_EVERY")))
        return 2;
    if (!load_bench_config())
        return 2;
    size_t ncoef;
    const osc_method **coef = coef_methods(&ncoef);
    const int status = coef ? run_benchmarks(argc, argv, coef, ncoef, lanes, nlanes) : 1;
    cache_drop();
    config_free(&default_cfg);
    osc_tableau_method_release(&tableau_rk4);
    release_compositions();
    osc_rkn_method_release(&rkn_rk4);
    return status;
}
