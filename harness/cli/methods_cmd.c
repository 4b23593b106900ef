/* `oscbench methods`: the registry as a table. */
#include <string.h>

#include "cli.h"
#include "oscbench.h"

int cmd_methods(int argc, char **argv, FILE *out)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "oscbench methods: takes no arguments\n");
        return EXIT_BADINPUT;
    }
    fprintf(out, "%-20s %5s %6s %6s %5s %10s  %s\n", "method", "order", "damped", "forces",
            "fma", "symplectic", "summary");
    for (size_t i = 0; i < osc_method_count(); i++) {
        const osc_method *m = osc_method_at(i);
        fprintf(out, "%-20s %5d %6d %6d %5d %10s  %s\n", m->name, m->order, m->order_damped,
                m->force_evals, m->fma_per_step, m->symplectic ? "yes" : "no", m->summary);
    }
    fprintf(out, "\norder: declared order without drag; damped: with drag; forces: evaluations of "
                 "a(x,v) per step;\nfma: FMA-unit operations per oscillator-step per axis in the "
                 "vector kernel.\n");
    return 0;
}
