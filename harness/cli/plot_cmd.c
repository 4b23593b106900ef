/* `oscbench plot RESULTS.h5 [-o DIR]`: the figures are drawn by a Python script (h5py and
 * matplotlib from Debian); this finds the script and hands over to it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "cli.h"
#include "options.h"
#include "results.h"

/* The drawing script: OSCBENCH_PLOT_SCRIPT when set (one that cannot be read is an error, not a
 * reason to draw with another script than the one asked for), else the installed one, else the
 * source tree's. NULL with *why set when there is none. */
static const char *plot_script(const char **why)
{
    const char *chosen = getenv("OSCBENCH_PLOT_SCRIPT");
    if (chosen && *chosen) {
        *why = access(chosen, R_OK) == 0 ? NULL : strerror(errno);
        return *why ? NULL : chosen;
    }
    const char *candidates[] = {OSC_PLOT_SCRIPT_INSTALLED, OSC_PLOT_SCRIPT_SOURCE};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
        if (access(candidates[i], R_OK) == 0)
            return candidates[i];
    *why = NULL;
    return NULL;
}

/* A results file that cannot be read is bad input, reported before -o's directory is made
 * (the script reports what is wrong with one that can). */
static int check_readable(const char *path)
{
    int err = cli_unreadable(path);
    if (!err)
        return 0;
    print_line(stderr, "oscbench plot: %s: cannot open: %s", path, strerror(err));
    return EXIT_BADINPUT;
}

/* Whether path is an HDF5 file with a /points table: only then is -o's directory made before
 * the script runs. Anything else the script refuses (exit 2) before it makes the directory
 * itself, so bad input leaves no directory behind. */
static bool has_points(const char *path)
{
    const char *not_results;
    hid_t f = results_open(path, &not_results);
    if (f < 0)
        return false;
    H5Fclose(f);
    return true;
}

enum { PLOT_OUTPUT, PLOT_OUTPUT_DIR, PLOT_NOPTIONS };
static const cli_option plot_options[PLOT_NOPTIONS] = {
    [PLOT_OUTPUT] = {"output", 'o', "DIR",
                     "directory for the PNG figures (default: the results file's directory);\n"
                     "missing directories are created, as run -o does"},
    [PLOT_OUTPUT_DIR] = {"output-dir", 0, "DIR", "the same as --output (its former name)"},
};

static const cli_command plot_command = {
    .name = "plot",
    .usage = "plot RESULTS.h5 [options]",
    .about = "Draw PNG figures from a results file: convergence per drag value (per zeta in\n"
             "a zeta sweep), stability limits, stability maps over (omega0*dt, zeta) per\n"
             "method, traces, work-precision.\n"
             "Needs python3 with h5py and matplotlib. The drawing script is\n"
             "OSCBENCH_PLOT_SCRIPT if set (bad input if it cannot be read), else the\n"
             "installed oscbench_plot.py, else the source tree's harness/plot/oscbench_plot.py.",
    .options = plot_options,
    .noptions = PLOT_NOPTIONS,
    .min_args = 1,
    .max_args = 1,
    .exit_codes = "  0  success\n  1  runtime failure (no figure made, a directory that cannot be\n"
                  "     created, no python3)\n  2  bad input (an option, an unreadable or damaged "
                  "results file,\n     one that is not an oscbench results file, or an "
                  "OSCBENCH_PLOT_SCRIPT\n     that cannot be read)\n",
};

int cmd_plot(int argc, char **argv)
{
    cli_parser p;
    cli_begin(&p, &plot_command, argc, argv);
    const char *arg, *outdir = NULL;
    for (int opt; (opt = cli_next(&p, &arg)) != CLI_DONE;) {
        if (opt == CLI_EXIT)
            return p.status;
        if (!*arg)
            return cli_error(&plot_command, "-o: expected a directory name");
        outdir = arg;
    }
    int n;
    const char *results = cli_args(&p, &n)[0];
    if (check_readable(results))
        return EXIT_BADINPUT;
    /* before -o's directory is made: bad input leaves nothing */
    const char *why = NULL, *script = plot_script(&why);
    if (why) {
        print_line(stderr, "oscbench plot: OSCBENCH_PLOT_SCRIPT=%s: cannot read: %s",
                   getenv("OSCBENCH_PLOT_SCRIPT"), why);
        return EXIT_BADINPUT;
    }
    if (outdir && has_points(results) && cli_make_dirs(outdir) != 0) {
        print_line(stderr, "oscbench plot: %s: cannot create directory: %s", outdir,
                   strerror(errno));
        return EXIT_RUNTIME;
    }
    if (!script) {
        fprintf(stderr, "oscbench plot: cannot find oscbench_plot.py (set OSCBENCH_PLOT_SCRIPT)\n");
        return EXIT_RUNTIME;
    }
    /* Debian's interpreter first: it is the one with python3-h5py and python3-matplotlib. */
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char *args[] = {(char *)python, (char *)script, (char *)results,
                    outdir ? "--output-dir" : NULL, (char *)outdir, NULL};
    execvp(python, args);
    print_line(stderr, "oscbench plot: cannot run %s: %s", python, strerror(errno));
    return EXIT_RUNTIME;
}
