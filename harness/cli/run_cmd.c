/* `oscbench run CONFIG.yaml [-o OUT.h5] [--threads N] [--quiet] [--resume]`: load the config,
 * run the sweep and its analyses, write one HDF5 file (complete or absent), print a summary.
 * With --resume, finished work items are kept in a checkpoint beside the output as they finish
 * and a rerun of the same line computes only the missing ones (checkpoint.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyses.h"
#include "checkpoint.h"
#include "cli.h"
#include "commit.h"
#include "config.h"
#include "options.h"
#include "h5out.h"
#include "report.h"
#include "results.h"
#include "run_mpi.h"
#include "sweep.h"
#include "whole.h"

typedef struct run_args {
    const char *config, *out;
    int threads;
    bool quiet;
    bool resume; /* keep finished items in OUT.h5.ckpt/ and reuse those already there */
} run_args;

/* One entry per option (options.h): its index is its case in parse_args. */
enum { RUN_OUTPUT, RUN_THREADS, RUN_QUIET, RUN_RESUME, RUN_NOPTIONS };
static const cli_option run_options[RUN_NOPTIONS] = {
    [RUN_OUTPUT] = {"output", 'o', "PATH",
                    "the results file (default: results/<name>.h5, <name> from the config);\n"
                    "missing directories on its path are created, as plot -o does"},
    [RUN_THREADS] = {"threads", 0, "N", "OpenMP threads, 1 to 4096 (default: OMP_NUM_THREADS,\n"
                                        "else every core)"},
    [RUN_QUIET] = {"quiet", 'q', NULL, "no progress line and no summary (default: both; the\n"
                                       "progress line only when stderr is a terminal)"},
    [RUN_RESUME] = {"resume", 0, NULL,
                    "keep finished work items in OUT.h5.ckpt/ and reuse those an earlier,\n"
                    "killed run of the same config left there (default: no checkpoint)"},
};

static const cli_command run_command = {
    .name = "run",
    .usage = "run CONFIG.yaml [options]",
    .about = "Sweep the methods, dt, mass, stiffness and drag that CONFIG.yaml lists, audit\n"
             "every lane against the closed-form solution, write one HDF5 file (complete or\n"
             "absent) and print a summary (oscbench summary prints it again from the file).",
    .options = run_options,
    .noptions = RUN_NOPTIONS,
    .min_args = 1,
    .max_args = 1,
};

enum { MAX_THREADS = 4096 }; /* beyond it libgomp fails to start them, or crashes */

static int parse_threads(const char *s, int *threads)
{
    long n;
    if (!s || !whole_in(s, 1, MAX_THREADS, &n))
        return -1;
    *threads = (int)n;
    return 0;
}

/* OMP_NUM_THREADS, when --threads is not given: a whole number of threads, 1 to MAX_THREADS, or
 * a list of them (one per nesting level; a run's threads are the first), blanks around each as
 * libgomp allows. libgomp ignores a malformed value with a warning and takes every core, and a
 * huge one crashed it: a run refuses both as bad input, an empty value too (libgomp warns of it
 * as of any other). Unset: every core. */
static bool omp_num_threads_valid(const char *s)
{
    if (!s)
        return true;
    for (;;) {
        long n;
        const char *end = whole_prefix(s, 1, MAX_THREADS, &n);
        if (!end)
            return false;
        while (isspace((unsigned char)*end))
            end++;
        if (*end == '\0')
            return true;
        if (*end != ',')
            return false;
        s = end + 1;
    }
}

/* 0 to run, else the exit status (help, version, or a bad command line). */
static int parse_args(int argc, char **argv, run_args *a)
{
    *a = (run_args){0};
    cli_parser p;
    cli_begin(&p, &run_command, argc, argv);
    const char *arg;
    for (int opt; (opt = cli_next(&p, &arg)) != CLI_DONE;) {
        switch (opt) {
        case CLI_EXIT:
            return p.status ? p.status : -1;
        case RUN_OUTPUT:
            if (!*arg)
                return cli_error(&run_command, "-o: expected an output file name");
            a->out = arg;
            break;
        case RUN_THREADS:
            if (parse_threads(arg, &a->threads))
                return cli_error(&run_command, "--threads: expected a whole number from 1 to "
                                               "4096");
            break;
        case RUN_QUIET:
            a->quiet = true;
            break;
        case RUN_RESUME:
            a->resume = true;
            break;
        }
    }
    int n;
    a->config = cli_args(&p, &n)[0];
    return 0;
}

/* results/ is made only once every rank agreed to run: a refused run leaves nothing. */
static int make_results_dir(void)
{
    if (mkdir("results", 0777) != 0 && errno != EEXIST) {
        print_line(stderr, "oscbench run: results: cannot create directory: %s", strerror(errno));
        return EXIT_RUNTIME;
    }
    return 0;
}

/* With --resume, the output's checkpoint, opened or created (a foreign one is refused: 2).
 * Without, nothing touches checkpoints; one that exists is only mentioned. */
static int open_checkpoint(const run_args *a, const osc_config *cfg, const char *out_path,
                           ckpt **ck)
{
    *ck = NULL;
    if (!a->resume) {
        ckpt_mention(out_path);
        return 0;
    }
    char err[ERROR_LINE_BYTES];
    int rc = ckpt_open(ck, out_path, cfg, err, sizeof err);
    if (rc)
        print_line(stderr, "oscbench run: %s", err);
    return rc == CKPT_EFOREIGN ? EXIT_BADINPUT : rc ? EXIT_RUNTIME : 0;
}

/* Fills the items the checkpoint holds, then runs the others, each saved as it finishes. */
static int sweep_resumed(const run_args *a, const osc_config *cfg, ckpt *ck, sweep_result *res,
                         char *err, size_t errlen)
{
    bool *done = calloc(res->nitems ? res->nitems : 1, sizeof *done);
    size_t restored = 0, ignored = 0;
    int rc = done ? ckpt_restore(ck, cfg, res, done, &restored, &ignored, err, errlen) : 1;
    if (!done)
        error_line(err, errlen, "%s: out of memory", ckpt_dir(ck));
    if (!rc && !a->quiet) {
        print_shown(stdout, "checkpoint %s: %zu of %zu work items restored, %zu to compute",
                    ckpt_dir(ck), restored, res->nitems, res->nitems - restored);
        if (ignored)
            printf(" (%zu damaged or foreign item files ignored)", ignored);
        printf("\n");
        fflush(stdout);
    }
    if (!rc && restored < res->nitems) { /* (all restored: no empty progress line) */
        sweep_plan plan = {.skip = done, .item_done = ckpt_item_done, .ctx = ck};
        rc = sweep_run_items(cfg, &plan, !a->quiet, res, err, errlen);
        char sync_err[ERROR_LINE_BYTES];
        if (ckpt_sync(ck, sync_err, sizeof sync_err) && !rc)
            rc = 1, snprintf(err, errlen, "%s", sync_err);
    }
    free(done);
    return rc;
}

static int run_sweep(const run_args *a, const osc_config *cfg, ckpt *ck, sweep_result *res,
                     char *err, size_t errlen)
{
    if (!ck)
        return sweep_run(cfg, !a->quiet, res, err, errlen);
    int rc = sweep_alloc(cfg, res, err, errlen);
    if (!rc)
        rc = sweep_resumed(a, cfg, ck, res, err, errlen);
    if (!rc)
        rc = sweep_finish(cfg, res, err, errlen);
    return rc;
}

static int run(const run_args *a, const osc_config *cfg, const char *out_path)
{
    char err[ERROR_LINE_BYTES] = "";
    if (cli_make_parent(out_path, err, sizeof err)) { /* as plot -o creates its directory */
        print_line(stderr, "oscbench run: %s", err);
        return EXIT_RUNTIME;
    }
    ckpt *ck = NULL;
    int rc = open_checkpoint(a, cfg, out_path, &ck);
    if (rc)
        return rc; /* a refused checkpoint is bad input: nothing is touched */
    h5_out_cleanup_stale(out_path);
    h5_out *out = NULL;
    /* Open the output before the sweep, so that an unwritable place fails in a second rather
     * than after an hour of stepping. */
    if (h5_out_open(&out, out_path, err, sizeof err)) {
        print_line(stderr, "oscbench run: %s", err);
        ckpt_close(ck);
        return EXIT_RUNTIME;
    }
    sweep_result res = {0};
    analysis_result ana = {0};
    rc = run_sweep(a, cfg, ck, &res, err, sizeof err);
    if (!rc)
        rc = analyses_run(cfg, &res, !a->quiet, &ana, err, sizeof err);
    if (!rc)
        rc = results_write(out, cfg, &res, &ana, err, sizeof err);
    if (rc) {
        h5_out_abort(out);
        print_line(stderr, "oscbench run: %s", err);
    } else if (h5_out_commit(out, err, sizeof err)) {
        print_line(stderr, "oscbench run: %s", err);
        rc = EXIT_RUNTIME;
    } else {
        /* The results are safe: the checkpoint has done its work. */
        if (ck && ckpt_remove(ck, err, sizeof err))
            print_line(stderr, "oscbench run: note: %s (the results file is complete)", err);
        if (!a->quiet)
            report_print(stdout, cfg, &res, &ana, out_path);
    }
    ckpt_close(ck);
    analyses_free(&ana);
    sweep_result_free(&res);
    return rc ? EXIT_RUNTIME : 0;
}

/* What the config asks for that the run will not do, one located line each on stderr (the run
 * goes on: these are not errors, but they were silent). */
static void warn_skips(const osc_config *cfg)
{
    char line[ERROR_LINE_BYTES];
    const char *dt_key = cfg->rate_hz.count ? "rate_hz" : "dt";
    if (cfg->convergence && cfg->dt.count < 2) {
        config_error(cfg, "analyses", line, sizeof line,
                     "convergence needs 2 or more %s values, the sweep has 1: no fits "
                     "(/convergence will be empty)", dt_key);
        print_line(stderr, "oscbench run: warning: %s", line);
    } else if (cfg->convergence && cfg->dt.count < 4) {
        config_error(cfg, "analyses", line, sizeof line,
                     "convergence with %zu %s values: a verdict needs at least 4 fitted points, "
                     "so every fit will be inconclusive", cfg->dt.count, dt_key);
        print_line(stderr, "oscbench run: warning: %s", line);
    }
    if (cfg->convergence && cfg->dt.count >= 2 && cfg->steps > 0) {
        config_error(cfg, "steps", line, sizeof line,
                     "convergence with a fixed step count: each %s ends at a different time "
                     "(steps * dt), so the errors are not comparable and every fit will be "
                     "inconclusive; give t_end instead", dt_key);
        print_line(stderr, "oscbench run: warning: %s", line);
    }
    if (cfg->t_end > 0 && cfg->dt.values) {
        double largest = 0;
        for (size_t i = 0; i < cfg->dt.count; i++)
            largest = fmax(largest, cfg->dt.values[i]);
        if (largest > cfg->t_end) {
            config_error(cfg, dt_key, line, sizeof line,
                         "a dt of %g exceeds t_end %g: such lanes take one step, to t = dt", largest,
                         cfg->t_end);
            print_line(stderr, "oscbench run: warning: %s", line);
        }
    }
    if (cfg->has_stability_zeta && !cfg->stability) {
        config_error(cfg, "stability", line, sizeof line,
                     "ignored: analyses does not list stability");
        print_line(stderr, "oscbench run: warning: %s", line);
    }
}

/* The flags, the kernel path and the config: 0 with cfg loaded, else the exit code (-1: help or
 * version printed), having said why on stderr. */
static int load_run(int argc, char **argv, run_args *a, osc_config *cfg)
{
    int rc = parse_args(argc, argv, a);
    if (rc)
        return rc;
    if (osc_isa_env_status() != OSC_OK) {
        print_line(stderr, "oscbench run: %s=%s: expected %s", OSC_ISA_ENV, getenv(OSC_ISA_ENV),
                   OSC_ISA_ENV_VALUES);
        return EXIT_BADINPUT;
    }
    if (cost_probe_lanes_env() < 0) {
        print_line(stderr, "oscbench run: %s=%s: expected a whole number from 128 to 1048576",
                   COST_PROBE_LANES_ENV, getenv(COST_PROBE_LANES_ENV));
        return EXIT_BADINPUT;
    }
    if (a->threads) {
        omp_set_num_threads(a->threads);
    } else if (!omp_num_threads_valid(getenv("OMP_NUM_THREADS"))) {
        print_line(stderr, "oscbench run: OMP_NUM_THREADS=%s: expected 1 to %d threads, or a "
                   "list of such counts (or --threads N)", getenv("OMP_NUM_THREADS"), MAX_THREADS);
        return EXIT_BADINPUT;
    } else if (omp_get_max_threads() > MAX_THREADS) {
        fprintf(stderr, "oscbench run: %d cores: at most %d threads (--threads N)\n",
                omp_get_max_threads(), MAX_THREADS);
        return EXIT_BADINPUT;
    }
    char err[CONFIG_ERRORS_BYTES];
    if (config_load(a->config, cfg, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BADINPUT;
    }
    warn_skips(cfg);
    return 0;
}

/* An output that replacing would destroy something other than a results file: a directory,
 * device, FIFO or socket (commit_check_target, for the plain and the MPI path alike), or the
 * config itself or a file it includes. 0, or the exit code having said why: bad input, before
 * anything is made. */
static int check_output(const char *out_path, const osc_config *cfg)
{
    if (strlen(out_path) >= PATH_MAX) {
        fprintf(stderr, "oscbench run: -o: the path has %zu bytes, at most %d\n", strlen(out_path),
                PATH_MAX - 1);
        return EXIT_BADINPUT;
    }
    char err[ERROR_LINE_BYTES];
    if (commit_check_target(out_path, err, sizeof err)) {
        print_line(stderr, "oscbench run: %s", err);
        return EXIT_BADINPUT;
    }
    struct stat out;
    if (stat(out_path, &out) != 0)
        return 0;
    for (size_t i = 0; i < cfg->nread_files; i++)
        if (cfg->read_files[i].dev == (unsigned long long)out.st_dev &&
            cfg->read_files[i].ino == (unsigned long long)out.st_ino) {
            print_line(stderr, "oscbench run: %s: is %s: not overwritten", out_path,
                       i == 0 ? "the config file itself" : "a method file the config includes");
            return EXIT_BADINPUT;
        }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    /* a file size limit (ulimit -f) then fails the write with EFBIG, reported and cleaned up as
     * a full disk is, instead of killing the run silently and leaving its temporary */
    signal(SIGXFSZ, SIG_IGN);
    const run_launch launch = run_mpi_launch(); /* mpirun, srun: see run_mpi.h */
    const run_muted muted = run_mpi_mute(&launch);
    run_args a;
    osc_config cfg = {0};
    int rc = load_run(argc, argv, &a, &cfg); /* under a launcher told by rank 0 only */
    char default_path[512];
    const char *out_path = a.out;
    if (!rc && !out_path) {
        /* stays inside results/ whatever the config's name says: config_load reduces the name
         * to a safe file name (no '/', no leading '.') */
        snprintf(default_path, sizeof default_path, "results/%s.h5", cfg.name);
        out_path = default_path;
    }
    if (!rc)
        rc = check_output(out_path, &cfg);
    if (run_mpi_applies(&launch)) {
        /* every rank must have read the same config (and flags) as rank 0: checked here, before
         * anything is made */
        const run_setup setup = {.cfg = &cfg, .out_path = out_path, .resume = a.resume};
        rc = run_mpi_agree(&launch, rc, &muted, &setup);
    }
    run_mpi_unmute(muted);
    if (rc) {
        config_free(&cfg);
        return rc < 0 ? 0 : rc;
    }
    if (!a.out)
        rc = make_results_dir();
    if (!rc)
        rc = run_mpi_applies(&launch) ? run_mpi(&launch, &cfg, out_path, a.quiet, a.resume)
                                      : run(&a, &cfg, out_path);
    config_free(&cfg);
    return rc;
}
