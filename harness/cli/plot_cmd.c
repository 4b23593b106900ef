/* `oscbench plot RESULTS.h5 [-o DIR]`: the figures are drawn by a Python script (h5py and
 * matplotlib from Debian); this finds the script and hands over to it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *plot_script(void)
{
    const char *candidates[] = {getenv("OSCBENCH_PLOT_SCRIPT"), OSC_PLOT_SCRIPT_INSTALLED,
                                OSC_PLOT_SCRIPT_SOURCE};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
        if (candidates[i] && access(candidates[i], R_OK) == 0)
            return candidates[i];
    return NULL;
}

int cmd_plot(int argc, char **argv)
{
    const char *script = plot_script();
    if (!script) {
        fprintf(stderr, "oscbench plot: cannot find oscbench_plot.py (set OSCBENCH_PLOT_SCRIPT)\n");
        return EXIT_RUNTIME;
    }
    /* Debian's interpreter first: it is the one with python3-h5py and python3-matplotlib. */
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args)
        return EXIT_RUNTIME;
    args[0] = (char *)python;
    args[1] = (char *)script;
    for (int i = 1; i < argc; i++)
        args[i + 1] = argv[i];
    execvp(python, args);
    fprintf(stderr, "oscbench plot: cannot run %s: %s\n", python, strerror(errno));
    free(args);
    return EXIT_RUNTIME;
}
