/* `oscbench run CONFIG.yaml [-o OUT.h5] [--threads N] [--quiet]`: load the config, run the
 * sweep and its analyses, write one HDF5 file (complete or absent), print a summary. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "config.h"
#include "h5out.h"
#include "report.h"
#include "results.h"
#include "sweep.h"

typedef struct run_args {
    const char *config, *out;
    int threads;
    bool quiet;
} run_args;

static const char run_usage[] = "usage: oscbench run CONFIG.yaml [-o OUT.h5] [--threads N] [--quiet]\n";

/* One line, as every error: the usage is one `--help` away. */
static int bad_flag(const char *what)
{
    fprintf(stderr, "oscbench run: %s (see oscbench run --help)\n", what);
    return EXIT_BADINPUT;
}

static int parse_threads(const char *s, int *threads)
{
    char *end;
    errno = 0;
    long n = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || *end || n < 1 || n > 4096)
        return -1;
    *threads = (int)n;
    return 0;
}

static int parse_args(int argc, char **argv, run_args *a)
{
    *a = (run_args){0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(run_usage, stdout);
            exit(0);
        } else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (++i >= argc || !*argv[i])
                return bad_flag("-o: expected an output file name");
            a->out = argv[i];
        } else if (!strcmp(arg, "--threads") || !strncmp(arg, "--threads=", 10)) {
            const char *v = arg[9] == '=' ? arg + 10 : (++i < argc ? argv[i] : NULL);
            if (parse_threads(v, &a->threads))
                return bad_flag("--threads: expected a whole number from 1 to 4096");
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = true;
        } else if (arg[0] == '-' && arg[1]) {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown option '%s'", arg);
            return bad_flag(msg);
        } else if (!a->config) {
            a->config = arg;
        } else {
            return bad_flag("expected one config file");
        }
    }
    return a->config ? 0 : bad_flag("missing CONFIG.yaml");
}

/* The default output stays inside results/ whatever the config's name says: config_load
 * reduces the name to a safe file name (no '/', no leading '.'). */
static int default_output(const osc_config *cfg, char *path, size_t len)
{
    if (mkdir("results", 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "oscbench run: results: cannot create directory: %s\n", strerror(errno));
        return EXIT_RUNTIME;
    }
    snprintf(path, len, "results/%s.h5", cfg->name);
    return 0;
}

static int run(const run_args *a, const osc_config *cfg, const char *out_path)
{
    char err[1024] = "";
    struct stat st;
    if (stat(out_path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "oscbench run: %s: is a directory, expected a file name\n", out_path);
        return EXIT_RUNTIME;
    }
    h5_out_cleanup_stale(out_path);
    h5_out *out = NULL;
    /* Open the output before the sweep, so that an unwritable place fails in a second rather
     * than after an hour of stepping. */
    if (h5_out_open(&out, out_path, err, sizeof err)) {
        fprintf(stderr, "oscbench run: %s\n", err);
        return EXIT_RUNTIME;
    }
    sweep_result res;
    analysis_result ana = {0};
    int rc = sweep_run(cfg, !a->quiet, &res, err, sizeof err);
    if (!rc)
        rc = analyses_run(cfg, &res, !a->quiet, &ana, err, sizeof err);
    if (!rc)
        rc = results_write(out, cfg, &res, &ana, err, sizeof err);
    if (rc) {
        h5_out_abort(out);
        fprintf(stderr, "oscbench run: %s\n", err);
    } else if (h5_out_commit(out, err, sizeof err)) {
        fprintf(stderr, "oscbench run: %s\n", err);
        rc = EXIT_RUNTIME;
    } else if (!a->quiet) {
        report_print(stdout, cfg, &res, &ana, out_path);
    }
    analyses_free(&ana);
    sweep_result_free(&res);
    return rc ? EXIT_RUNTIME : 0;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    if (osc_isa_env_status() != OSC_OK) {
        fprintf(stderr, "oscbench run: %s=%s: expected %s\n", OSC_ISA_ENV, getenv(OSC_ISA_ENV),
                OSC_ISA_ENV_VALUES);
        return EXIT_BADINPUT;
    }
    if (a.threads)
        omp_set_num_threads(a.threads);
    osc_config cfg;
    char err[CONFIG_MAX_ERRORS * 640];
    if (config_load(a.config, &cfg, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BADINPUT;
    }
    char default_path[512];
    const char *out_path = a.out;
    if (!out_path) {
        rc = default_output(&cfg, default_path, sizeof default_path);
        out_path = default_path;
    }
    if (!rc)
        rc = run(&a, &cfg, out_path);
    config_free(&cfg);
    return rc;
}
