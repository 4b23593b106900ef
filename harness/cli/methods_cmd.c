/* `oscbench methods`: the registry as a table. */
#include <string.h>

#include "cli.h"
#include "oscbench.h"
#include "options.h"

static const cli_command methods_command = {
    .name = "methods",
    .usage = "methods [options]",
    .about = "List the integrators: declared order without and with drag, force evaluations\n"
             "and FMA-unit operations per step, symplecticity, and what one step does.",
    .exit_codes = "  0  success\n  2  bad input (an option or an argument)\n",
};

int cmd_methods(int argc, char **argv, FILE *out)
{
    cli_parser p;
    cli_begin(&p, &methods_command, argc, argv);
    const char *arg;
    if (cli_next(&p, &arg) == CLI_EXIT)
        return p.status;
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
