/* The FMA-peak probe: every OpenMP thread runs chains of fma() on many independent accumulators,
 * enough to cover the FMA latency times the number of FMA pipes, and the loop is vectorized by
 * `#pragma omp simd`. Two more kinds of chains measure the add throughput (a <- a + b) and a
 * 1:1 mix of FMAs and adds: where adds have pipes of their own (AMD Zen: 2 FMA + 2 FP-add) the
 * mix runs at up to twice the FMA rate, where they share the FMA ports (Intel) at the FMA rate,
 * so a ceiling built from these rates means the same on both (bench.c); on x86-64-v3 and v4
 * those two kinds are written in assembly (below: why). Built for x86-64-v4 / v3 / baseline
 * (GCC, x86-64) and dispatched by the kernels' level, so it measures the units the kernels
 * actually run on. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */
#include "fma_probe.h"

#include <tgmath.h>
#include <time.h>
#include <unistd.h> /* fma() follows the argument type: fmaf for float */
#include <omp.h>

#include "oscbench.h"

/* The probe runs on the kernels' level (osc_isa_level(): the CPU's, capped by OSCBENCH_ISA), so
 * that under a cap the peak is the capped units' and a fraction of it means the same thing. */
#if defined(OSC_MULTIVERSION) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PROBE_RUNTIME 1
#define PROBE_WIDE() (osc_isa_level() == OSC_ISA_V4)
#define PROBE_MIX_SHAPES() (osc_isa_level() >= OSC_ISA_V3 ? 2 : 1) /* kind 3 is assembly */
#define PROBE_ISA() osc_isa_name(osc_isa_level()) /* the kernels' own name for it (kernel_isa) */
#else
#define PROBE_RUNTIME 0
#define PROBE_WIDE() 0
#define PROBE_MIX_SHAPES() 1
#define PROBE_ISA() "default"
#endif

/* Accumulators: 16 vector registers of 64 bytes where AVX-512 exists (32 registers), 12 of 32
 * bytes otherwise (16 registers): more than latency (4) x pipes (2) chains in flight, with room
 * for the two constants. The chains are a <- a * m + b with m just below 1, so they stay finite. */
#define WIDE_BYTES (16 * 64)
#define NARROW_BYTES (12 * 32)

#define DEFINE_CHAINS(real, suffix, BYTES)                                                       \
    static inline __attribute__((always_inline)) real chains_##suffix(long rounds, real seed)   \
    {                                                                                            \
        enum { N = (BYTES) / sizeof(real) };                                                     \
        real acc[N];                                                                             \
        const real m = (real)0.999999, b = (real)1e-9;                                           \
        _Pragma("omp simd") for (int j = 0; j < N; j++) acc[j] = seed + (real)j;                 \
        for (long r = 0; r < rounds; r++) {                                                      \
            _Pragma("omp simd") for (int j = 0; j < N; j++) acc[j] = fma(acc[j], m, b);          \
        }                                                                                        \
        real sum = 0;                                                                            \
        for (int j = 0; j < N; j++)                                                              \
            sum += acc[j];                                                                       \
        return sum;                                                                              \
    }

/* kind 0: fma chains; 1: add chains (a + b, b tiny: stays finite); 2: FMA and add chains side
 * by side, as many of each as cover the latency (4 for an FMA, 3 for an add; 4 on Intel) times 2
 * pipes: 8 FMA and 6 add vectors in ymm (14 of 16 registers, the constant beside them), 12 and 9
 * in zmm. A round steps every FMA chain 3 times and every add chain 4 times: as many adds as
 * FMAs (a 1:1 mix), and 12 cycles of either kind's latency per round in ymm, so where adds have
 * pipes of their own both kinds can be busy every cycle. One pass of each per round, as this
 * probe ran before 2026-12-06, left the add pipes idle a quarter of the time (8 FMAs take 4
 * cycles, 6 adds 3): at most 1.75x the FMA rate, and it read 1.5x-1.8x on Zen 3 where the
 * machine does 2.0x. The chains cover the latencies with nothing to spare, so their order
 * matters: on x86-64-v3 and v4 the rounds are written in assembly, all FMAs of a pass before its
 * adds (DEFINE_ISA_ROUNDS below: 2.0x on Zen 3; GCC's own order of the same instructions 1.72x,
 * and with a second constant it kept an add chain on the stack, 0.75x).
 * kind 3, on x86-64-v3 and v4 only: the same mix with 10 FMA and 4 add chains, the FMA chains
 * stepped twice a round and the add chains 5 times (20 of each). With no slack on the FMA chains
 * the first shape ran 1.57x-1.60x the FMA rate in ymm on a Zen 5 (2026-12-07), this one 1.9x;
 * its 4 add chains cannot cover a 3-cycle add on 2 pipes (Zen 3: at most 1.67x), so the mix rate
 * is the better of the two shapes: each is a 1:1 mix the machine ran. */
#define MIX_FMA_VECTORS(BYTES) ((BYTES) == WIDE_BYTES ? 12 : 8)
#define MIX_ADD_VECTORS(BYTES) ((BYTES) == WIDE_BYTES ? 9 : 6)
#define MIX_FMA_PASSES 3
#define MIX_ADD_PASSES 4
#define MIX_B_FMA_VECTORS 10
#define MIX_B_ADD_VECTORS 4
#define MIX_B_FMA_PASSES 2
#define MIX_B_ADD_PASSES 5
#define VECTOR_BYTES(BYTES) ((BYTES) == WIDE_BYTES ? 64 : 32)
#define MIX_FMA_BYTES(BYTES) (MIX_FMA_VECTORS(BYTES) * VECTOR_BYTES(BYTES))
#define MIX_ADD_BYTES(BYTES) (MIX_ADD_VECTORS(BYTES) * VECTOR_BYTES(BYTES))
/* One constant for both kinds: a <- a m + m tends to m / (1 - m), a <- a + m grows by about 1. */
#define MIX_FMA_PASS() _Pragma("omp simd") for (int j = 0; j < NF; j++) fa[j] = fma(fa[j], m, m)
#define MIX_ADD_PASS() _Pragma("omp simd") for (int j = 0; j < NA; j++) aa[j] = aa[j] + m
#define DEFINE_KIND_CHAINS(real, suffix, BYTES)                                                  \
    static inline __attribute__((always_inline)) real kchains_##suffix(int kind, long rounds,   \
                                                                       real seed)               \
    {                                                                                            \
        enum { NF = MIX_FMA_BYTES(BYTES) / sizeof(real), NA = MIX_ADD_BYTES(BYTES) / sizeof(real) }; \
        enum { N = (BYTES) / sizeof(real) };                                                     \
        real fa[NF], aa[N];                                                                      \
        const real m = (real)0.999999, b = (real)1e-9;                                           \
        if (kind == 0)                                                                           \
            return chains_##suffix(rounds, seed);                                                \
        _Pragma("omp simd") for (int j = 0; j < NF; j++) fa[j] = seed + (real)j;                 \
        _Pragma("omp simd") for (int j = 0; j < N; j++) aa[j] = seed - (real)j;                  \
        if (kind == 1) {                                                                         \
            for (long r = 0; r < rounds; r++) {                                                  \
                _Pragma("omp simd") for (int j = 0; j < N; j++) aa[j] = aa[j] + b;               \
            }                                                                                    \
        } else {                                                                                 \
            for (long r = 0; r < rounds; r++) { /* F A F A F A A: the passes interleaved */     \
                MIX_FMA_PASS();                                                                  \
                MIX_ADD_PASS();                                                                  \
                MIX_FMA_PASS();                                                                  \
                MIX_ADD_PASS();                                                                  \
                MIX_FMA_PASS();                                                                  \
                MIX_ADD_PASS();                                                                  \
                MIX_ADD_PASS();                                                                  \
            }                                                                                    \
        }                                                                                        \
        real sum = 0;                                                                            \
        for (int j = 0; j < NF; j++)                                                             \
            sum += fa[j];                                                                        \
        for (int j = 0; j < N; j++)                                                              \
            sum += aa[j];                                                                        \
        return sum;                                                                              \
    }

DEFINE_CHAINS(double, d_narrow, NARROW_BYTES)
DEFINE_CHAINS(float, f_narrow, NARROW_BYTES)
DEFINE_KIND_CHAINS(double, d_narrow, NARROW_BYTES)
DEFINE_KIND_CHAINS(float, f_narrow, NARROW_BYTES)
#if PROBE_RUNTIME /* the wide chains serve only the x86-64-v4 path */
DEFINE_CHAINS(double, d_wide, WIDE_BYTES)
DEFINE_CHAINS(float, f_wide, WIDE_BYTES)
DEFINE_KIND_CHAINS(double, d_wide, WIDE_BYTES)
DEFINE_KIND_CHAINS(float, f_wide, WIDE_BYTES)
#endif

/* Operations (of `kind`, as kchains) done by one thread for `rounds` rounds. */
static double ops_per_thread(int kind, int prec, long rounds)
{
    size_t bytes = PROBE_WIDE() ? WIDE_BYTES : NARROW_BYTES;
    if (kind == 2)
        bytes = MIX_FMA_PASSES * MIX_FMA_BYTES(bytes) + MIX_ADD_PASSES * MIX_ADD_BYTES(bytes);
    else if (kind == 3)
        bytes = (MIX_B_FMA_PASSES * MIX_B_FMA_VECTORS + MIX_B_ADD_PASSES * MIX_B_ADD_VECTORS) *
                VECTOR_BYTES(bytes);
    return (double)rounds * (double)(bytes / (prec == OSC_FLOAT ? sizeof(float) : sizeof(double)));
}

#if PROBE_RUNTIME
/* The add chains' and the mix's rounds in assembly on x86-64-v3 and v4 (kinds 1 and 2, above):
 * register 0 holds the constant m; FMA chains a <- a m + m, add chains a <- a + m. The add probe
 * steps 12 ymm (16 zmm) chains once a round (GCC 12 unrolled its C loop by 2 and kept 4 of the
 * chains on the stack in float: 0.75x the add rate); the mix's round is F A F A F A A, each letter
 * a pass over all chains of that kind. T is the vector register's letter (y, z), P the type's
 * suffix (pd, ps), S the scalar one (sd, ss). */
#define ASM_F(T, P, r) "vfmadd132" P " %%" T "mm0, %%" T "mm0, %%" T "mm" #r "\n\t"
#define ASM_A(T, P, r) "vadd" P " %%" T "mm0, %%" T "mm" #r ", %%" T "mm" #r "\n\t"
#define ASM_SET(T, P, r) "vmova" P " %%" T "mm0, %%" T "mm" #r "\n\t"
#define REGS_1_8(X, T, P)                                                                        \
    X(T, P, 1) X(T, P, 2) X(T, P, 3) X(T, P, 4) X(T, P, 5) X(T, P, 6) X(T, P, 7) X(T, P, 8)
#define REGS_9_12(X, T, P) X(T, P, 9) X(T, P, 10) X(T, P, 11) X(T, P, 12)
#define REGS_9_10(X, T, P) X(T, P, 9) X(T, P, 10)
#define REGS_11_14(X, T, P) X(T, P, 11) X(T, P, 12) X(T, P, 13) X(T, P, 14)
#define REGS_13_14(X, T, P) X(T, P, 13) X(T, P, 14)
#define REGS_15_16(X, T, P) X(T, P, 15) X(T, P, 16)
#define REGS_17_21(X, T, P) X(T, P, 17) X(T, P, 18) X(T, P, 19) X(T, P, 20) X(T, P, 21)
/* v3: adds on ymm1-12; the mix's FMAs on ymm1-8, its adds on ymm9-14 */
#define ADD_ROUND_V3(P) REGS_1_8(ASM_A, "y", P) REGS_9_12(ASM_A, "y", P)
#define MIX_F_V3(P) REGS_1_8(ASM_F, "y", P)
#define MIX_A_V3(P) REGS_9_12(ASM_A, "y", P) REGS_13_14(ASM_A, "y", P)
#define SET_V3(P) REGS_1_8(ASM_SET, "y", P) REGS_9_12(ASM_SET, "y", P) REGS_13_14(ASM_SET, "y", P)
/* v4: adds on zmm1-16; the mix's FMAs on zmm1-12, its adds on zmm13-21 */
#define ADD_ROUND_V4(P)                                                                          \
    REGS_1_8(ASM_A, "z", P) REGS_9_12(ASM_A, "z", P) REGS_13_14(ASM_A, "z", P)                    \
        REGS_15_16(ASM_A, "z", P)
#define MIX_F_V4(P) REGS_1_8(ASM_F, "z", P) REGS_9_12(ASM_F, "z", P)
#define MIX_A_V4(P) REGS_13_14(ASM_A, "z", P) REGS_15_16(ASM_A, "z", P) REGS_17_21(ASM_A, "z", P)
#define SET_V4(P)                                                                                \
    REGS_1_8(ASM_SET, "z", P) REGS_9_12(ASM_SET, "z", P) REGS_13_14(ASM_SET, "z", P)              \
        REGS_15_16(ASM_SET, "z", P) REGS_17_21(ASM_SET, "z", P)
#define MIX_ROUND(F, A) F A F A F A A
/* kind 3 in either width: FMAs on registers 1-10, adds on 11-14 */
#define MIX_B_F(T, P) REGS_1_8(ASM_F, T, P) REGS_9_10(ASM_F, T, P)
#define MIX_B_A(T, P) REGS_11_14(ASM_A, T, P)
#define MIX_B_ROUND(F, A) F A A F A A A
#define CLOBBERS_V3                                                                              \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",      \
        "xmm11", "xmm12", "xmm13", "xmm14", "cc"
#define CLOBBERS_V4 CLOBBERS_V3, "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21"
/* Every chain starts at m, so the values stay finite and normal for any round count; the first
 * chain's first element is returned (the probe's sink). The chain counts are what ops_per_thread
 * counts: NARROW_BYTES / WIDE_BYTES of add chains, MIX_*_VECTORS and MIX_*_PASSES for the mix. */
#define DEFINE_ROUNDS_ASM(NAME, ATTR, real, S, T, SET, ROUND, CLOBBERS)                          \
    ATTR static real NAME(long rounds)                                                           \
    {                                                                                            \
        const real m = (real)0.999999;                                                           \
        real out;                                                                                \
        __asm__ volatile("vbroadcast" S " %[m], %%" T "mm0\n\t" SET "test %[n], %[n]\n\t"         \
                         "jle 2f\n\t"                                                             \
                         "1:\n\t" ROUND "dec %[n]\n\t"                                            \
                         "jnz 1b\n\t"                                                             \
                         "2:\n\t"                                                                 \
                         "vmov" S " %%xmm1, %[out]\n\t"                                           \
                         "vzeroupper"                                                            \
                         : [n] "+r"(rounds), [out] "=m"(out)                                     \
                         : [m] "m"(m)                                                            \
                         : CLOBBERS);                                                            \
        return out;                                                                              \
    }
#define V3 __attribute__((target("arch=x86-64-v3")))
#define V4 __attribute__((target("arch=x86-64-v4")))
#define DEFINE_ISA_ROUNDS(ISA, ATTR, T)                                                          \
    DEFINE_ROUNDS_ASM(add_rounds_##ISA##_d, ATTR, double, "sd", T, SET_##ISA("pd"),              \
                      ADD_ROUND_##ISA("pd"), CLOBBERS_##ISA)                                     \
    DEFINE_ROUNDS_ASM(add_rounds_##ISA##_f, ATTR, float, "ss", T, SET_##ISA("ps"),               \
                      ADD_ROUND_##ISA("ps"), CLOBBERS_##ISA)                                     \
    DEFINE_ROUNDS_ASM(mix_rounds_##ISA##_d, ATTR, double, "sd", T, SET_##ISA("pd"),              \
                      MIX_ROUND(MIX_F_##ISA("pd"), MIX_A_##ISA("pd")), CLOBBERS_##ISA)           \
    DEFINE_ROUNDS_ASM(mix_rounds_##ISA##_f, ATTR, float, "ss", T, SET_##ISA("ps"),               \
                      MIX_ROUND(MIX_F_##ISA("ps"), MIX_A_##ISA("ps")), CLOBBERS_##ISA)           \
    DEFINE_ROUNDS_ASM(mix_b_rounds_##ISA##_d, ATTR, double, "sd", T, SET_##ISA("pd"),            \
                      MIX_B_ROUND(MIX_B_F(T, "pd"), MIX_B_A(T, "pd")), CLOBBERS_##ISA)           \
    DEFINE_ROUNDS_ASM(mix_b_rounds_##ISA##_f, ATTR, float, "ss", T, SET_##ISA("ps"),             \
                      MIX_B_ROUND(MIX_B_F(T, "ps"), MIX_B_A(T, "ps")), CLOBBERS_##ISA)
DEFINE_ISA_ROUNDS(V3, V3, "y")
DEFINE_ISA_ROUNDS(V4, V4, "z")
#define KINDS_IN_ASM(ISA)                                                                        \
    if (kind == 1 && prec == OSC_FLOAT)                                                          \
        return add_rounds_##ISA##_f(rounds);                                                     \
    if (kind == 1)                                                                               \
        return add_rounds_##ISA##_d(rounds);                                                     \
    if (kind == 2 && prec == OSC_FLOAT)                                                          \
        return mix_rounds_##ISA##_f(rounds);                                                     \
    if (kind == 2)                                                                               \
        return mix_rounds_##ISA##_d(rounds);                                                     \
    if (kind == 3 && prec == OSC_FLOAT)                                                          \
        return mix_b_rounds_##ISA##_f(rounds);                                                   \
    if (kind == 3)                                                                               \
        return mix_b_rounds_##ISA##_d(rounds);
#endif

/* The chains per ISA: wide on x86-64-v4, narrow on v3 and the baseline; KINDS: the kinds whose
 * rounds are written in assembly there. */
#define DEFINE_RUN_CHAINS(NAME, ATTR, WIDTH, KINDS)                                                \
    ATTR static double NAME(int kind, int prec, long rounds, double seed)                        \
    {                                                                                            \
        KINDS                                                                                    \
        if (prec == OSC_FLOAT)                                                                   \
            return kchains_f_##WIDTH(kind, rounds, (float)seed);                                 \
        return kchains_d_##WIDTH(kind, rounds, seed);                                            \
    }
#if PROBE_RUNTIME
DEFINE_RUN_CHAINS(run_chains_v4, V4, wide, KINDS_IN_ASM(V4))
DEFINE_RUN_CHAINS(run_chains_v3, V3, narrow, KINDS_IN_ASM(V3))
DEFINE_RUN_CHAINS(run_chains_base, , narrow, )
static double run_chains(int kind, int prec, long rounds, double seed)
{
    switch (osc_isa_level()) {
    case OSC_ISA_V4:
        return run_chains_v4(kind, prec, rounds, seed);
    case OSC_ISA_V3:
        return run_chains_v3(kind, prec, rounds, seed);
    default:
        return run_chains_base(kind, prec, rounds, seed);
    }
}
#else
DEFINE_RUN_CHAINS(run_chains, , narrow, )
#endif

static double thread_cpu_seconds(void)
{
#if defined(_POSIX_THREAD_CPUTIME) && _POSIX_THREAD_CPUTIME >= 0
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
    return 0;
}

/* Seconds for every thread to run `rounds` rounds, the team started together; *cpu gets the
 * smallest CPU time any one thread needed for its rounds (0 if unknown). The span runs from
 * before any thread starts its rounds to after the last one ends: no thread starts before t0
 * is stamped (the barrier after it), so with more threads than CPUs a thread that ran its rounds
 * while the master was descheduled still counts in the span (without it, the rate read up to
 * twice the machine's with 4 threads on 2 CPUs). */
static double timed_team(int kind, int prec, long rounds, double *sink, double *cpu)
{
    double t0 = 0, t1 = 0, s = 0, best_cpu = 1e300;
#pragma omp parallel reduction(+ : s) reduction(min : best_cpu)
    {
#pragma omp barrier
#pragma omp master
        t0 = omp_get_wtime();
#pragma omp barrier
        double c0 = thread_cpu_seconds();
        s += run_chains(kind, prec, rounds, (double)omp_get_thread_num());
        double c = thread_cpu_seconds() - c0;
        best_cpu = c > 0 ? c : 1e300;
#pragma omp barrier
#pragma omp master
        t1 = omp_get_wtime();
    }
    *sink += s;
    *cpu = best_cpu < 1e300 ? best_cpu : 0;
    return t1 - t0;
}

static volatile double probe_sink;

/* One kind of chains in one precision: the best of eight team runs, each ~share/10 long, as
 * (wall-clock ops/s of all threads, ops per CPU-second of one thread). */
static void probe_kind(int kind, int prec, double share, int threads, double *sink, double *wall,
                       double *per_cpu)
{
    /* Calibrate: grow the round count until one team run takes ~1/64 of the share, then keep
     * the best of eight such runs: on a shared machine a run that another process interrupted
     * is noise, and the peak is the best the units did. A stalled thread inflates the wall time
     * but not its CPU time: require both to be long enough, or a stall during calibration leaves
     * runs too short to mean anything. */
    double t = 0, cpu = 0;
    long rounds = 1 << 12;
    while (((t = timed_team(kind, prec, rounds, sink, &cpu)) < share / 64 ||
            (cpu > 0 && cpu < share / 64)) &&
           rounds < (1L << 40))
        rounds *= 2;
    double tc = cpu > 0 ? cpu : t;
    if (tc > 0 && (double)rounds * (share / 10) / tc > (double)rounds)
        rounds = (long)((double)rounds * (share / 10) / tc); /* never fewer: a stall is noise */
    double best = 0, best_cpu = 0;
    for (int rep = 0; rep < 8; rep++) {
        double tr = timed_team(kind, prec, rounds, sink, &cpu);
        double rate = tr > 0 ? ops_per_thread(kind, prec, rounds) * threads / tr : 0;
        double cpu_rate = cpu > 0 ? ops_per_thread(kind, prec, rounds) / cpu : 0;
        if (rate > best)
            best = rate;
        if (cpu_rate > best_cpu)
            best_cpu = cpu_rate;
    }
    *wall = best, *per_cpu = best_cpu;
}

osc_fma_peak osc_fma_probe(double seconds)
{
    osc_fma_peak p = {.threads = omp_get_max_threads(), .isa = PROBE_ISA()};
    if (!(seconds > 0))
        seconds = 0.3;
    double sink = 0;
    /* half the time for the FMA peak, a quarter each for the add and mixed rates; the mix is
     * the better of its two shapes where both exist (kind 3: the assembly paths) */
    const int mix_shapes = PROBE_MIX_SHAPES();
    for (int prec = 0; prec < 2; prec++) {
        probe_kind(0, prec, seconds / 4, p.threads, &sink, &p.fma_per_s[prec],
                   &p.fma_per_cpu_s[prec]);
        probe_kind(1, prec, seconds / 8, p.threads, &sink, &p.add_per_s[prec],
                   &p.add_per_cpu_s[prec]);
        for (int shape = 0; shape < mix_shapes; shape++) {
            double wall, per_cpu;
            probe_kind(2 + shape, prec, seconds / 8 / mix_shapes, p.threads, &sink, &wall,
                       &per_cpu);
            if (wall > p.mix_per_s[prec])
                p.mix_per_s[prec] = wall;
            if (per_cpu > p.mix_per_cpu_s[prec])
                p.mix_per_cpu_s[prec] = per_cpu;
        }
    }
    probe_sink = sink;
    return p;
}
