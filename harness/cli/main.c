/* oscbench: benchmark and verify time integrators on batches of oscillators. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include "cli.h"
#include "oscbench.h"

static const char usage[] =
    "usage: oscbench run CONFIG.yaml [-o OUT.h5] [--threads N] [--quiet] [--resume]\n"
    "       oscbench methods [--config CONFIG.yaml]\n"
    "       oscbench plot RESULTS.h5 [-o DIR]\n"
    "       oscbench summary RESULTS.h5 [--format text|csv|json]\n"
    "       oscbench --help | --version | -V\n"
    "       oscbench COMMAND --help   (its options, their defaults, its exit codes)\n"
    "\n"
    "  run      sweep the methods, dt, mass, stiffness and drag that CONFIG.yaml\n"
    "           lists, audit every lane against the closed-form solution, write one\n"
    "           HDF5 file (default results/<name>.h5) and print a summary per method\n"
    "  methods  list the integrators: declared order, force evaluations, FMAs per step\n"
    "           (--config: also those CONFIG.yaml defines by their coefficients)\n"
    "  plot     draw PNG figures from a results file\n"
    "  summary  which method at each dt, again, from a results file\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure, 2 bad input.\n";

static int run_command(int argc, char **argv)
{
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("oscbench %s\n", OSC_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "methods"))
        return cmd_methods(argc - 1, argv + 1, stdout);
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "plot"))
        return cmd_plot(argc - 1, argv + 1);
    if (!strcmp(cmd, "summary"))
        return cmd_summary(argc - 1, argv + 1);
    print_line(stderr, "oscbench: unknown command '%s' (try oscbench --help)", cmd);
    return EXIT_BADINPUT;
}

/* What went to stdout (a summary, a CSV for a script) reached it, or the exit status says not:
 * `oscbench summary r.h5 -f csv > out.csv` on a full disk exited 0 with the CSV cut short. */
static int stdout_written(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    print_line(stderr, "oscbench: writing to standard output: %s",
               errno ? strerror(errno) : "write error");
    return rc ? rc : EXIT_RUNTIME;
}

int main(int argc, char **argv)
{
    /* HDF5's exit handler closes what is still open, and a file whose H5Fclose failed (a full
     * disk, a file size limit) is still open to it: it crashed there (SIGSEGV, exit 139) after
     * the run had said why and removed its temporary. Every file is closed or abandoned
     * explicitly; the kernel drops an abandoned one at exit. (Before any other HDF5 call.) */
    H5dont_atexit();
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_BADINPUT;
    }
    return stdout_written(run_command(argc, argv));
}
