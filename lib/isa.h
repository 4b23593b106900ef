/* The ISA dispatch of the kernels (private to the library: the methods' kernel_loops.h and
 * audit.c). Every multiversioned kernel asks osc_isa_dispatch() which of its x86-64-v4, v3 and
 * baseline builds to run; the public side (osc_isa_level, osc_isa_set_cap, the OSCBENCH_ISA
 * environment variable) is in oscbench.h and isa.c.
 *
 * Cost: one relaxed atomic load of a cached int (a plain mov on x86-64) and a compare, per
 * kernel call (once per tile and audit interval, or per chunk of 128 lanes in the audit). The
 * level is resolved (CPU features, environment) on the first call only. */
#ifndef OSC_ISA_H
#define OSC_ISA_H

#include <stdatomic.h>

#if defined(__GNUC__)
#define OSC_HIDDEN __attribute__((visibility("hidden")))
#else
#define OSC_HIDDEN
#endif

/* Whether this build has the per-ISA kernels and picks one at run time. */
#if defined(OSC_MULTIVERSION) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OSC_ISA_RUNTIME 1
#else
#define OSC_ISA_RUNTIME 0
#endif

/* The level the kernels take now (osc_isa_level()); -1 until first resolved. */
extern OSC_HIDDEN _Atomic int osc_isa_current;
OSC_HIDDEN int osc_isa_resolve(void);

static inline int osc_isa_dispatch(void)
{
    const int level = atomic_load_explicit(&osc_isa_current, memory_order_relaxed);
    return level >= 0 ? level : osc_isa_resolve();
}

#endif
