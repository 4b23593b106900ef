/* The kernels' ISA level: the CPU's features, the OSCBENCH_ISA cap, osc_isa_set_cap (oscbench.h)
 * and the cached level the kernels dispatch on (isa.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "oscbench.h"

_Atomic int osc_isa_current = -1;

/* The cap (OSC_ISA_NATIVE: none) and where it came from, in one atomic int (source << 8 | cap),
 * so that a first read of the environment racing with osc_isa_set_cap cannot mix the two. */
enum { CAP_UNREAD = 0, CAP_ENV, CAP_API };
static _Atomic int cap_state = CAP_UNREAD << 8;
#define CAP_SOURCE(state) ((state) >> 8)
#define CAP_VALUE(state) ((state) & 0xff)

int osc_isa_parse(const char *text, int *cap)
{
    static const struct {
        const char *text;
        int cap;
    } names[] = {{"v4", OSC_ISA_V4}, {"v3", OSC_ISA_V3}, {"base", OSC_ISA_BASE},
                 {"native", OSC_ISA_NATIVE}, {"", OSC_ISA_NATIVE}};
    if (!text)
        text = "";
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(text, names[i].text)) {
            *cap = names[i].cap;
            return OSC_OK;
        }
    return OSC_EINVAL;
}

int osc_isa_env_status(void)
{
    int cap;
    return osc_isa_parse(getenv(OSC_ISA_ENV), &cap);
}

bool osc_isa_runtime_dispatch(void) { return OSC_ISA_RUNTIME; }

int osc_isa_cpu_level(void)
{
#if OSC_ISA_RUNTIME
    return __builtin_cpu_supports("x86-64-v4")   ? OSC_ISA_V4
           : __builtin_cpu_supports("x86-64-v3") ? OSC_ISA_V3
                                                 : OSC_ISA_BASE;
#elif defined(__AVX512F__)
    return OSC_ISA_V4;
#elif defined(__AVX2__) && defined(__FMA__)
    return OSC_ISA_V3;
#else
    return OSC_ISA_BASE;
#endif
}

/* The cap state, reading OSCBENCH_ISA the first time (an invalid value: no cap, see
 * osc_isa_env_status); an osc_isa_set_cap that came first stands. */
static int current_state(void)
{
    int state = atomic_load(&cap_state);
    if (CAP_SOURCE(state) == CAP_UNREAD) {
        int cap;
        if (osc_isa_parse(getenv(OSC_ISA_ENV), &cap) != OSC_OK)
            cap = OSC_ISA_NATIVE;
        const int from_env = CAP_ENV << 8 | cap;
        if (atomic_compare_exchange_strong(&cap_state, &state, from_env))
            state = from_env;
    }
    return state;
}

static int current_cap(void) { return CAP_VALUE(current_state()); }

int osc_isa_cap(void) { return current_cap(); }

static int level_for(int cap)
{
    const int cpu = osc_isa_cpu_level();
    if (!OSC_ISA_RUNTIME)
        return cpu;
    return cap < cpu ? cap : cpu;
}

int osc_isa_resolve(void)
{
    int level = level_for(current_cap()), unresolved = -1;
    /* an osc_isa_set_cap meanwhile has set the level: it stands */
    if (!atomic_compare_exchange_strong(&osc_isa_current, &unresolved, level))
        level = unresolved;
    return level;
}

int osc_isa_level(void) { return osc_isa_dispatch(); }

int osc_isa_set_cap(int cap)
{
    if (cap != OSC_ISA_BASE && cap != OSC_ISA_V3 && cap != OSC_ISA_V4 && cap != OSC_ISA_NATIVE)
        return OSC_EINVAL;
    atomic_store(&cap_state, CAP_API << 8 | cap);
    const int level = level_for(cap);
    atomic_store(&osc_isa_current, level);
    return level;
}

const char *osc_isa_name(int level)
{
    switch (level) {
    case OSC_ISA_V4:
        return "x86-64-v4";
    case OSC_ISA_V3:
        return "x86-64-v3";
    case OSC_ISA_BASE:
        return "x86-64";
    default:
        return NULL;
    }
}

static const char *cap_text(int cap)
{
    return cap == OSC_ISA_V4 ? "v4" : cap == OSC_ISA_V3 ? "v3" : cap == OSC_ISA_BASE ? "base" : "native";
}

/* What a CPU of this level lacks for the next one up. */
static const char *lacks(int cpu)
{
    return cpu == OSC_ISA_V3 ? "no AVX-512" : "no AVX2/FMA";
}

int osc_isa_describe(char *buf, size_t size)
{
    const int level = osc_isa_level(), cpu = osc_isa_cpu_level(), state = current_state();
    const int cap = CAP_VALUE(state);
    char by[64];
    if (CAP_SOURCE(state) == CAP_API)
        snprintf(by, sizeof by, "osc_isa_set_cap(%s)", cap_text(cap));
    else
        snprintf(by, sizeof by, "%s=%s", OSC_ISA_ENV, cap_text(cap));
    const bool capped = cap != OSC_ISA_NATIVE;
#if !defined(__x86_64__)
    return snprintf(buf, size, "the compiler's target (not x86-64: one build of the kernels%s%s)",
                    capped ? "; " : "", capped ? "the cap has no effect" : "");
#else
    const char *name = osc_isa_name(level);
    if (!OSC_ISA_RUNTIME)
        return snprintf(buf, size, "%s (compiled for it: no runtime dispatch in this build%s%s%s)",
                        name, capped ? ", " : "", capped ? by : "", capped ? " has no effect" : "");
    if (!capped)
        return snprintf(buf, size, "%s", name);
    if (cap > cpu)
        return snprintf(buf, size, "%s (%s asked; the CPU has %s)", name, by, lacks(cpu));
    if (cap < cpu)
        return snprintf(buf, size, "%s (%s; the CPU has %s)", name, by, osc_isa_name(cpu));
    return snprintf(buf, size, "%s (%s)", name, by);
#endif
}
