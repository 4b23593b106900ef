/* oscbench's own FMA-peak probe: the machine's fused multiply-add throughput, measured in the
 * running process on all OpenMP threads, so that a benchmark's peak_fraction means the same thing
 * on any machine. */
#ifndef OSC_FMA_PROBE_H
#define OSC_FMA_PROBE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct osc_fma_peak {
    double fma_per_s[2]; /* [OSC_DOUBLE], [OSC_FLOAT]: FMA operations per second, all threads */
    /* FMA operations per CPU-second of one thread: one core's peak while it runs, which holds
     * even when other processes take turns on the cores (POSIX thread CPU clocks; 0 without). */
    double fma_per_cpu_s[2];
    /* The same for additions (a + b chains), and for a 1:1 mix of FMAs and adds (operations of
     * either kind per second): up to twice fma_per_s where adds have pipes of their own. */
    double add_per_s[2], add_per_cpu_s[2];
    double mix_per_s[2], mix_per_cpu_s[2];
    int threads;         /* OpenMP threads the probe ran on */
    const char *isa;     /* the code path the probe ran: "x86-64-v4", "x86-64-v3", "x86-64", or
                          * "default" (the compiler's target) in a build without multiversioning */
} osc_fma_peak;

/* Measure the peaks for double and float, spending about `seconds` in total (0.3 is plenty;
 * 0.05 for a sample beside a benchmark). Each rate is the best of eight runs. */
osc_fma_peak osc_fma_probe(double seconds);

#ifdef __cplusplus
}
#endif
#endif
