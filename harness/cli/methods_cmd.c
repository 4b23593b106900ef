/* `oscbench methods`: the registry as a table, and with --config the methods a config defines
 * by their coefficients. */
#include <string.h>

#include "cli.h"
#include "config.h"
#include "oscbench.h"
#include "options.h"

static const cli_option methods_options[] = {
    {"config", 'c', "FILE",
     "also list the methods FILE (a run config) defines\n"
     "by their coefficients (inline or included): family,\n"
     "declared order, coefficient_order, linear_order,\n"
     "force evaluations and FMAs per step; a bad FILE is\n"
     "exit 2 (default: the registry only)"},
};

static const cli_command methods_command = {
    .name = "methods",
    .usage = "methods [options]",
    .about = "List the integrators: declared order without and with drag, force evaluations\n"
             "and FMA-unit operations per step, symplecticity, symmetry (time-reversibility)\n"
             "without/with drag, and what one step does.",
    .options = methods_options,
    .noptions = 1,
    .exit_codes = "  0  success\n  2  bad input (an option, an argument or the --config file)\n",
};

static void print_registry(FILE *out)
{
    fprintf(out, "%-20s %5s %6s %6s %5s %10s %9s  %s\n", "method", "order", "damped", "forces",
            "fma", "symplectic", "symmetric", "summary");
    for (size_t i = 0; i < osc_method_count(); i++) {
        const osc_method *m = osc_method_at(i);
        char symmetric[16];
        snprintf(symmetric, sizeof symmetric, "%s/%s", m->symmetric ? "yes" : "no",
                 m->symmetric_damped ? "yes" : "no");
        fprintf(out, "%-20s %5d %6d %6d %5d %10s %9s  %s\n", m->name, m->order, m->order_damped,
                m->force_evals, m->fma_per_step, m->symplectic ? "yes" : "no", symmetric,
                m->summary);
    }
    fprintf(out, "\norder: declared order without drag; damped: with drag; forces: evaluations of "
                 "a(x,v) per step;\nfma: FMA-unit operations per oscillator-step per axis in the "
                 "vector kernel;\nsymmetric: a step of -dt undoes a step of dt, without/with drag "
                 "(compositions gain\norders from it).\n");
}

static void print_user_methods(FILE *out, const osc_config *cfg)
{
    fputc('\n', out);
    print_line(out, "methods %s defines by their coefficients:", cfg->path);
    fprintf(out, "%-20s %-11s %8s %17s %12s %6s %5s\n", "method", "family", "declared",
            "coefficient_order", "linear_order", "forces", "fma");
    for (size_t i = 0; i < cfg->nuser_methods; i++) {
        const config_user_method *um = &cfg->user_methods[i];
        fprintf(out, "%-20s %-11s %8d %17d %12d %6d %5d\n", um->method.name, um->family,
                um->method.order, um->coefficient_order, um->linear_order,
                um->method.force_evals, um->method.fma_per_step);
    }
    if (!cfg->nuser_methods)
        fprintf(out, "(none)\n");
    for (size_t i = 0; i < cfg->nuser_methods; i++) {
        const config_user_method *um = &cfg->user_methods[i];
        if (um->coefficient_order_undamped != um->coefficient_order ||
            um->linear_order_undamped != um->linear_order)
            fprintf(out, "%s without drag: coefficient_order %d, linear_order %d\n",
                    um->method.name, um->coefficient_order_undamped, um->linear_order_undamped);
    }
    fprintf(out, "\ncoefficient_order: the order conditions the coefficients satisfy on every "
                 "problem, with drag\n(rk: the rooted trees; rkn: the Nystrom trees; both checked "
                 "up to linear_order,\nwhich bounds them; composition: its conditions to order 8 "
                 "for a base of the\nbase's order and symmetry); linear_order: the order to "
                 "which the one-step map of\nthe linear problem matches the exact one, all a "
                 "linear problem such as the\noscillator checks (composition: measured from the "
                 "base's step); 'without drag':\nthe same for x'' = f(x) where they differ; fma: "
                 "from the nonzero coefficients (a\ncomposition: its substeps times the "
                 "base's).\n");
}

int cmd_methods(int argc, char **argv, FILE *out)
{
    cli_parser p;
    cli_begin(&p, &methods_command, argc, argv);
    const char *arg, *config_path = NULL;
    for (int opt; (opt = cli_next(&p, &arg)) != CLI_DONE;) {
        if (opt == CLI_EXIT)
            return p.status;
        config_path = arg; /* the only option */
    }
    osc_config cfg;
    char err[CONFIG_ERRORS_BYTES];
    if (config_path && config_load(config_path, &cfg, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BADINPUT;
    }
    print_registry(out);
    if (config_path) {
        print_user_methods(out, &cfg);
        config_free(&cfg);
    }
    return 0;
}
