/* The ceiling rule of oscbench-bench (bench.c's header explains the counters it sets). */
#ifndef OSC_BENCH_CEILING_H
#define OSC_BENCH_CEILING_H

#include <math.h>

/* Seconds per oscillator-step at most speed for a step of fma_pipe operations that run on the
 * FMA pipes (FMAs, multiplies, divisions) and add operations (adds, subtracts), at the measured
 * rates r_fma (FMAs alone), r_add (adds alone) and r_mix (a 1:1 mix of FMAs and adds), all in
 * operations per second:
 *     max(fma_pipe / r_fma, add / r_add, (fma_pipe + add) / r_mix).
 * The floors: a mix never runs slower than FMAs alone (an add takes no longer than an FMA), and
 * adds alone no slower than within the mix (r_mix / 2, beside as many FMAs); a probe that read
 * under them was disturbed, and would lower the ceiling. 0 (no ceiling) without an FMA rate. */
static inline double osc_ceiling_step_seconds(double fma_pipe, double add, double r_fma,
                                              double r_add, double r_mix)
{
    if (!(r_fma > 0))
        return 0;
    r_mix = fmax(r_mix, r_fma);
    r_add = fmax(r_add, r_mix / 2);
    return fmax(fmax(fma_pipe / r_fma, add / r_add), (fma_pipe + add) / r_mix);
}

#endif
