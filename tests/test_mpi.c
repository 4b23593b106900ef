/* MPI runs end to end (built only with -Dmpi): `mpirun -n R oscbench run` against a plain run of
 * the same config: every dataset identical for 2 and 3 ranks, /points stored with the same
 * chunking and filters, the root's mpi_ranks and threads_per_rank; a bad config under
 * `mpirun -q` giving one line and exit 2 and no file; the temporary of a run killed in its
 * write phase removed by the next run; a rank killed mid-sweep, then --resume with another rank
 * count recomputing only the missing items into the uninterrupted run's file; one rank's failed
 * write (injected) failing the whole run under --resume and leaving the checkpoint, which the
 * resubmitted run restores in full; damaged, foreign and missing item files recomputed under
 * --resume; ranks that see different checkpoints; one rank's failed restore (injected)
 * stopping every rank; ranks that read different configs (or were given another -o or
 * --resume) refused in one line; a bad config or flag on another rank than 0 shown by rank 0
 * as that rank's own line; the summary's sweep seconds the slowest rank's.
 *
 * OSCBENCH_EXE names oscbench, MPIRUN mpirun. Every rank runs one OpenMP thread
 * (OMP_NUM_THREADS=1), more ranks than cores are allowed (oversubscribe), and mpirun may run as
 * root (containers, CI). LeakSanitizer would report Open MPI's own allocations at
 * MPI_Finalize, so leak detection is off for the processes these tests start (only). */
#define _XOPEN_SOURCE 700 /* realpath */

#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "test_files.h"

#define PATHLEN 4096

static char exe[PATHLEN], mpirun[PATHLEN];

typedef struct fixture {
    char dir[256]; /* the runs' working directory */
    char out[300], err[300];
} fixture;

/* ---- processes ------------------------------------------------------------------------------- */

/* Starts argv (NULL-terminated) in f->dir, stdout and stderr into f->out and f->err. */
static pid_t start(const fixture *f, char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int o = open(f->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(f->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 ||
            chdir(f->dir) != 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    assert_true(pid > 0);
    return pid;
}

/* The exit code, or -1 if killed by a signal. */
static int wait_for(pid_t pid)
{
    const int status = wait_child(pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The argv of `[mpirun -q -n RANKS] oscbench ARGS...` (ranks 0: no mpirun; ARGS up to a NULL);
 * n holds RANKS in digits. */
typedef struct command {
    char *argv[32];
    char n[16];
} command;

static void command_of(command *c, int ranks, va_list args)
{
    int argc = 0;
    snprintf(c->n, sizeof c->n, "%d", ranks);
    if (ranks > 0) {
        c->argv[argc++] = mpirun, c->argv[argc++] = "-q", c->argv[argc++] = "-n";
        c->argv[argc++] = c->n;
    }
    c->argv[argc++] = exe;
    for (char *a; (a = va_arg(args, char *)) && argc < 31;)
        c->argv[argc++] = a;
    c->argv[argc] = NULL;
}

/* `[mpirun -q -n RANKS] oscbench ARGS...` (ranks 0: no mpirun), waited for. */
static int run(const fixture *f, int ranks, ...)
{
    command c;
    va_list ap;
    va_start(ap, ranks);
    command_of(&c, ranks, ap);
    va_end(ap);
    return wait_for(start(f, c.argv));
}

static char *read_err(const fixture *f)
{
    char *s = slurp(f->err, NULL);
    assert_non_null(s);
    return s;
}

static void write_file(const fixture *f, const char *name, const char *text)
{
    char path[PATHLEN];
    snprintf(path, sizeof path, "%.256s/%.1000s", f->dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

/* Entries of f->dir (not . and ..), and how many are results temporaries (".X.tmp.XXXXXX"). */
static int count_entries(const fixture *f, int *temporaries)
{
    DIR *d = opendir(f->dir);
    assert_non_null(d);
    int n = 0;
    *temporaries = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        *temporaries += e->d_name[0] == '.' && strstr(e->d_name, ".tmp.") != NULL;
    }
    closedir(d);
    return n;
}

/* ---- fixture --------------------------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    const char *e = getenv("OSCBENCH_EXE"), *m = getenv("MPIRUN");
    if (!e || !m || !realpath(e, exe) || access(exe, X_OK) || access(m, X_OK)) {
        fprintf(stderr, "test_mpi: OSCBENCH_EXE (%s) and MPIRUN (%s) must be executables\n",
                e ? e : "unset", m ? m : "unset");
        return -1;
    }
    snprintf(mpirun, sizeof mpirun, "%s", m);
    /* for every process the tests start (see the top of this file) */
    const char *asan = getenv("ASAN_OPTIONS");
    char asan_opts[1024];
    snprintf(asan_opts, sizeof asan_opts, "%s%sdetect_leaks=0", asan ? asan : "",
             asan && *asan ? ":" : "");
    setenv("ASAN_OPTIONS", asan_opts, 1);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    if (!make_temp_dir(f->dir, sizeof f->dir, "test_mpi")) {
        free(f);
        return -1;
    }
    snprintf(f->out, sizeof f->out, "%.256s.stdout", f->dir);
    snprintf(f->err, sizeof f->err, "%.256s.stderr", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove_tree(f->dir);
    unlink(f->out);
    unlink(f->err);
    free(f);
    return 0;
}

/* ---- checks ---------------------------------------------------------------------------------- */

static int64_t attr_i64(hid_t f, const char *name, int64_t *values, size_t n)
{
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    if (a < 0)
        fail_msg("root attribute %s is missing", name);
    hid_t s = H5Aget_space(a);
    hssize_t count = H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    if (count < 1 || (size_t)count != n)
        fail_msg("root attribute %s has %lld values, expected %zu", name, (long long)count, n);
    assert_true(H5Aread(a, H5T_NATIVE_INT64, values) >= 0);
    H5Aclose(a);
    return values[0];
}

/* The run's spread as the root records it: R ranks of one thread each. */
static void check_ranks(const fixture *f, const char *file, int ranks)
{
    hid_t h = open_h5(f->dir, file);
    int64_t v[8] = {0};
    assert_int_equal(attr_i64(h, "mpi_ranks", v, 1), ranks);
    assert_int_equal(attr_i64(h, "threads", v, 1), ranks);
    attr_i64(h, "threads_per_rank", v, (size_t)ranks);
    for (int r = 0; r < ranks; r++)
        assert_int_equal(v[r], 1);
    H5Fclose(h);
}

/* Chunk shape and filter pipeline of a dataset, as one comparable record. */
typedef struct storage {
    int layout, nfilters;
    hsize_t chunk[2];
    H5Z_filter_t filter[8];
    unsigned flags[8];
} storage;

static storage storage_of(hid_t f, const char *path)
{
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    if (d < 0)
        fail_msg("%s is missing", path);
    hid_t dcpl = H5Dget_create_plist(d);
    storage s;
    memset(&s, 0, sizeof s);
    s.layout = H5Pget_layout(dcpl);
    if (s.layout == H5D_CHUNKED)
        H5Pget_chunk(dcpl, 2, s.chunk);
    s.nfilters = H5Pget_nfilters(dcpl);
    assert_true(s.nfilters >= 0 && s.nfilters <= 8);
    for (int i = 0; i < s.nfilters; i++) {
        size_t nvalues = 0;
        s.filter[i] = H5Pget_filter2(dcpl, (unsigned)i, &s.flags[i], &nvalues, NULL, 0, NULL,
                                     NULL);
    }
    H5Pclose(dcpl);
    H5Dclose(d);
    return s;
}

/* A string attribute of a dataset ("" if it has none; free() it). */
static char *dataset_attr(hid_t f, const char *path, const char *name)
{
    if (H5Aexists_by_name(f, path, name, H5P_DEFAULT) <= 0)
        return strdup("");
    hid_t a = H5Aopen_by_name(f, path, name, H5P_DEFAULT, H5P_DEFAULT), t = vlen_str_type();
    char *raw = NULL;
    assert_true(a >= 0 && H5Aread(a, t, &raw) >= 0);
    char *s = strdup(raw ? raw : "");
    H5free_memory(raw);
    H5Tclose(t);
    H5Aclose(a);
    return s;
}

/* Every /points column stored alike in both files (chunks, filters, the numeric ones with
 * shuffle, deflate and fletcher32 as the results file promises) and described alike (CF units
 * and long_name, which every column has). */
static void compare_points_storage(const fixture *f, const char *a, const char *b)
{
    hid_t fa = open_h5(f->dir, a), fb = open_h5(f->dir, b);
    static name_list cols;
    list_datasets(fa, "/points", &cols);
    assert_true(cols.n >= 26); /* row, method and 24 numeric columns */
    for (size_t i = 0; i < cols.n; i++) {
        char path[300];
        snprintf(path, sizeof path, "/points/%s", cols.names[i]);
        storage sa = storage_of(fa, path), sb = storage_of(fb, path);
        if (memcmp(&sa, &sb, sizeof sa) != 0)
            fail_msg("%s: chunking or filters differ", path);
        assert_int_equal(sa.layout, H5D_CHUNKED);
        if (strcmp(cols.names[i], "method") != 0)
            assert_int_equal(sa.nfilters, 3);
        static const char *const attrs[] = {"units", "long_name"};
        for (size_t k = 0; k < sizeof attrs / sizeof *attrs; k++) {
            char *va = dataset_attr(fa, path, attrs[k]), *vb = dataset_attr(fb, path, attrs[k]);
            char why[512] = ""; /* freed before failing: a failed test leaks nothing */
            if (strcmp(va, vb) != 0)
                snprintf(why, sizeof why, "attribute %s differs: '%.200s' and '%.200s'",
                         attrs[k], va, vb);
            else if (!va[0] && strcmp(cols.names[i], "method") != 0)
                snprintf(why, sizeof why, "no attribute %s", attrs[k]);
            free(va), free(vb);
            if (why[0])
                fail_msg("%s: %s", path, why);
        }
    }
    H5Fclose(fa), H5Fclose(fb);
}

/* ---- tests ----------------------------------------------------------------------------------- */

/* 1200 lanes per batch (three items of at most 512 lanes), 3 x 3 batches: 27 items, so 2 and 3
 * ranks each run several, of different batches and sizes, and no rank's rows are contiguous. */
static const char ranks_config[] = "name: ranks\n"
                                   "methods: [semi-implicit, verlet, rk4]\n"
                                   "stiffness: {from: 0.5, to: 8, count: 600, spacing: log}\n"
                                   "drag: [0, 0.3]\n"
                                   "dt: [0.02, 0.01, 0.005]\n"
                                   "t_end: 3\n"
                                   "analyses: [convergence, stability]\n"
                                   "stability: {zeta: [0]}\n"
                                   "trace: {every: 7, points: [0, 301, 1799]}\n";

static void test_ranks_identical(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    if (run(f, 0, "run", "ranks.yaml", "-o", "serial.h5", "--quiet", NULL) != 0)
        fail_msg("serial run: %s", read_err(f));
    const char *files[] = {NULL, NULL, "r2.h5", "r3.h5"};
    for (int ranks = 2; ranks <= 3; ranks++) {
        int code = run(f, ranks, "run", "ranks.yaml", "-o", files[ranks], "--quiet", NULL);
        if (code != 0) {
            char *err = read_err(f);
            fail_msg("mpirun -n %d: exit %d: %s", ranks, code, err);
        }
        size_t n = compare_files(f->dir, "serial.h5", files[ranks]);
        print_message("serial vs %d ranks: %zu datasets identical\n", ranks, n);
        /* /points' 25 columns, /convergence's 16, /work_precision's 8 of 10 (+ row scales) */
        assert_true(n >= 25 + 16 + 8 + 3 * 7);
        compare_points_storage(f, "serial.h5", files[ranks]);
        check_ranks(f, files[ranks], ranks);
    }
    check_ranks(f, "serial.h5", 1);
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 4);
    assert_int_equal(temporaries, 0);
}

static void test_bad_config_one_line(void **state)
{
    fixture *f = *state;
    write_file(f, "bad.yaml", "name: bad\nmethods: [rk4]\nstiffness: 1\ndt:   -1\nt_end: 2\n");
    assert_int_equal(run(f, 3, "run", "bad.yaml", "--quiet", NULL), 2);
    char *err = read_err(f);
    const char *want = "bad.yaml:4:7: dt:";
    size_t lines = 0;
    for (const char *c = err; *c; c++)
        lines += *c == '\n';
    if (lines != 1 || strncmp(err, want, strlen(want)) != 0)
        fail_msg("expected one line starting with %s, got:\n%s", want, err);
    free(err);
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 1); /* bad.yaml: no results/, no file */
}

/* --help and --version print once, from rank 0, not once per rank; a bad flag's line likewise. */
static void test_help_printed_once(void **state)
{
    fixture *f = *state;
    const char *const flags[] = {"--help", "--version"};
    const char *const want[] = {"usage: oscbench run", "oscbench "};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(run(f, 3, "run", flags[i], NULL), 0);
        char *text = slurp(f->out, NULL);
        assert_non_null(text);
        int count = 0;
        for (const char *c = text; (c = strstr(c, want[i])) != NULL; c++)
            count++;
        if (count != 1)
            fail_msg("%s under 3 ranks: '%s' printed %d times:\n%s", flags[i], want[i], count,
                     text);
        free(text);
    }
    assert_int_equal(run(f, 3, "run", "--no-such-flag", NULL), 2);
    char *err = read_err(f);
    size_t lines = 0;
    for (const char *c = err; *c; c++)
        lines += *c == '\n';
    if (lines != 1)
        fail_msg("a bad flag under 3 ranks: expected one line, got:\n%s", err);
    free(err);
}

/* A directory as the output is bad input under MPI as in a plain run: exit 2, one line from rank
 * 0, nothing made (the directory stays empty, no temporary beside it). */
static void test_directory_output_one_line(void **state)
{
    fixture *f = *state;
    write_file(f, "ok.yaml", "name: ok\nmethods: [rk4]\nstiffness: 1\ndt: 0.1\nt_end: 2\n");
    char dir[PATHLEN];
    snprintf(dir, sizeof dir, "%s/out.h5", f->dir);
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(run(f, 3, "run", "ok.yaml", "-o", "out.h5", "--quiet", NULL), 2);
    char *err = read_err(f);
    const char *want = "oscbench run: out.h5: is a directory, expected a file name\n";
    if (strcmp(err, want) != 0)
        fail_msg("expected '%s', got:\n%s", want, err);
    free(err);
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 2); /* ok.yaml, out.h5/ */
    assert_int_equal(temporaries, 0);
    assert_int_equal(rmdir(dir), 0); /* still empty */
}

/* Ranks that read different configs (MPMD: one program line per rank group): the run stops
 * before any work, with exit 2 and one line from rank 0, whichever rank was refused. */
static void test_ranks_disagree_one_line(void **state)
{
    fixture *f = *state;
    write_file(f, "good.yaml", "name: good\nmethods: [rk4]\nstiffness: 1\ndt: 0.1\nt_end: 2\n");
    write_file(f, "bad.yaml", "name: bad\nmethods: [rk4]\nstiffness: 1\ndt:   -1\nt_end: 2\n");
    /* rank 0 good: the lowest bad rank's own line, which rank 0 prints (it said only that
     * "another rank could not read the flags or the config") */
    const char *wants[] = {"oscbench run: rank 1: bad.yaml:4:7: dt:", "bad.yaml:4:7: dt:"};
    for (int rank0_bad = 0; rank0_bad < 2; rank0_bad++) {
        const char *first = rank0_bad ? "bad.yaml" : "good.yaml";
        const char *rest = rank0_bad ? "good.yaml" : "bad.yaml";
        assert_int_equal(run(f, 1, "run", first, "--quiet", ":", "-n", "2", exe, "run", rest,
                             "--quiet", NULL),
                         2);
        char *err = read_err(f);
        size_t lines = 0;
        for (const char *c = err; *c; c++)
            lines += *c == '\n';
        const char *want = wants[rank0_bad];
        if (lines != 1 || strncmp(err, want, strlen(want)) != 0)
            fail_msg("rank 0 %s: expected one line with '%s', got:\n%s",
                     rank0_bad ? "bad" : "good", want, err);
        free(err);
        int temporaries;
        assert_int_equal(count_entries(f, &temporaries), 2); /* the configs: no results/ */
    }
    /* a bad flag given to rank 2 alone: its line, as a plain run prints it */
    assert_int_equal(run(f, 2, "run", "good.yaml", "--quiet", ":", "-n", "1", exe, "run",
                         "good.yaml", "--quiet", "--threads", "0", NULL),
                     2);
    char *err = read_err(f);
    const char *want = "oscbench run: rank 2: --threads: expected a whole number from 1 to 4096 "
                       "(see oscbench run --help)\n";
    if (strcmp(err, want) != 0)
        fail_msg("rank 2 --threads 0: expected '%s', got:\n%s", want, err);
    free(err);
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 2);
}

/* `mpirun -q -n 1 oscbench run CONFIG0 ARGS : -n 1 oscbench run CONFIG1 ARGS1` (ARGS up to a
 * NULL, then ARGS1 up to a NULL), waited for. */
static int run_mpmd(const fixture *f, const char *config0, const char *config1, ...)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = mpirun, argv[argc++] = "-q", argv[argc++] = "-n", argv[argc++] = "1";
    argv[argc++] = exe, argv[argc++] = "run", argv[argc++] = (char *)config0;
    va_list ap;
    va_start(ap, config1);
    for (char *a; (a = va_arg(ap, char *)) && argc < 30;)
        argv[argc++] = a;
    argv[argc++] = ":", argv[argc++] = "-n", argv[argc++] = "1";
    argv[argc++] = exe, argv[argc++] = "run", argv[argc++] = (char *)config1;
    for (char *a; (a = va_arg(ap, char *)) && argc < 63;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    return wait_for(start(f, argv));
}

/* Ranks that read different configs under the same -o (a file edited between the ranks'
 * starts, another copy on another node): exit 2 before anything is made, one line from rank 0
 * naming the rank and its config. Before, a variant with the same row count (t_end 3 for 2)
 * exited 0 with a file mixing both configs' rows, and one with another row count crashed in
 * H5Dwrite (exit 139), leaving its temporary. The same text from another path runs; so does a
 * different --threads. Another -o or --resume on one rank is refused as well. */
static void test_ranks_read_different_configs(void **state)
{
    fixture *f = *state;
    const char *base = "name: ok\nmethods: [rk4, verlet]\nstiffness: {from: 1, to: 4, count: "
                       "700}\ndt: [0.1, 0.05, 0.025, 0.0125]\nt_end: %s\n"
                       "analyses: [convergence]\n";
    char text[256];
    snprintf(text, sizeof text, base, "2");
    write_file(f, "ok.yaml", text);
    write_file(f, "copy.yaml", text);
    snprintf(text, sizeof text, base, "3");
    write_file(f, "ok3.yaml", text);
    write_file(f, "rows.yaml", "name: ok\nmethods: [rk4, verlet]\nstiffness: {from: 1, to: 4, "
                               "count: 900}\ndt: [0.1, 0.05, 0.025, 0.0125]\nt_end: 2\n"
                               "analyses: [convergence]\n");
    const char *variants[] = {"ok3.yaml", "rows.yaml"};
    for (int i = 0; i < 2; i++) {
        int code = run_mpmd(f, "ok.yaml", variants[i], "-o", "out.h5", "--quiet", NULL, "-o",
                            "out.h5", "--quiet", NULL);
        char *err = read_err(f);
        char want[256];
        snprintf(want, sizeof want, "oscbench run: rank 1 read a different config from %s than "
                 "rank 0 (is it the same file on every node?)\n", variants[i]);
        if (code != 2 || strcmp(err, want) != 0)
            fail_msg("rank 1 reading %s: expected exit 2 and '%s', got exit %d:\n%s",
                     variants[i], want, code, err);
        free(err);
        int temporaries;
        assert_int_equal(count_entries(f, &temporaries), 4); /* the configs: no file */
        assert_int_equal(temporaries, 0);
    }
    /* rank 2 of 3 differs (ranks 0 and 1 agree): that rank is named */
    assert_int_equal(run(f, 2, "run", "ok.yaml", "-o", "out.h5", "--quiet", ":", "-n", "1", exe,
                         "run", "ok3.yaml", "-o", "out.h5", "--quiet", NULL),
                     2);
    char *err = read_err(f);
    if (!strstr(err, "oscbench run: rank 2 read a different config from ok3.yaml than rank 0"))
        fail_msg("rank 2 reading ok3.yaml: %s", err);
    free(err);
    /* another -o, or --resume on one rank only */
    int code = run_mpmd(f, "ok.yaml", "ok.yaml", "-o", "out.h5", "--quiet", NULL, "-o", "b.h5",
                        "--quiet", NULL);
    err = read_err(f);
    if (code != 2 || !strstr(err, "oscbench run: rank 1 was given another -o or --resume than "
                                  "rank 0 (-o b.h5):"))
        fail_msg("rank 1 given -o b.h5: exit %d: %s", code, err);
    free(err);
    code = run_mpmd(f, "ok.yaml", "ok.yaml", "-o", "out.h5", "--quiet", NULL, "-o", "out.h5",
                    "--quiet", "--resume", NULL);
    err = read_err(f);
    if (code != 2 || !strstr(err, "rank 1 was given another -o or --resume than rank 0 (-o "
                                  "out.h5 --resume)"))
        fail_msg("rank 1 given --resume: exit %d: %s", code, err);
    free(err);
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 4);
    /* the same text from another path, and other --threads: the run goes on */
    code = run_mpmd(f, "ok.yaml", "copy.yaml", "-o", "out.h5", "--quiet", NULL, "-o", "out.h5",
                    "--quiet", "--threads", "2", NULL);
    if (code != 0)
        fail_msg("rank 1 reading copy.yaml: exit %d: %s", code, read_err(f));
    hid_t h = open_h5(f->dir, "out.h5");
    int64_t v[2] = {0};
    assert_int_equal(attr_i64(h, "mpi_ranks", v, 1), 2);
    assert_int_equal(attr_i64(h, "threads", v, 1), 3);
    H5Fclose(h);
}

/* Starts `[mpirun -q -n RANKS] oscbench ARGS...` (as run() does) with OSCBENCH_TEST_PAUSE=PHASE,
 * kills the process that says it paused there and waits for the run, which must fail. Phases:
 * "stepping", once a process has finished its first item (under --resume: saved it); "write",
 * the /points columns in the results temporary (under --resume every item saved in OUT.ckpt). */
static void killed_at(const fixture *f, const char *phase, int ranks, ...)
{
    command c;
    va_list ap;
    va_start(ap, ranks);
    command_of(&c, ranks, ap);
    va_end(ap);
    unlink(f->err); /* an earlier run's "paused at" must not count for this one */
    setenv("OSCBENCH_TEST_PAUSE", phase, 1);
    pid_t pid = start(f, c.argv);
    unsetenv("OSCBENCH_TEST_PAUSE");
    signal_paused(wait_paused(f->err, pid, phase, 120), SIGKILL);
    assert_int_not_equal(wait_for(pid), 0);
}

/* The summary's sweep seconds are the sweep's wall clock, the slowest rank's stepping: rank 1 is
 * held at its first finished item (OSCBENCH_TEST_PAUSE=stepping, given to it alone) for 3 s,
 * then resumed (SIGCONT at the waiting thread). Before, the summary showed rank 0's own
 * stepping, a fraction of a second. */
static void test_sweep_seconds_slowest_rank(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    char *argv[] = {mpirun, "-q", "-n", "1", exe, "run", "ranks.yaml", "-o", "out.h5", ":", "-n",
                    "1", "/usr/bin/env", "OSCBENCH_TEST_PAUSE=stepping", exe, "run",
                    "ranks.yaml", "-o", "out.h5", NULL};
    unlink(f->err);
    pid_t pid = start(f, argv);
    paused_process rank1 = wait_paused(f->err, pid, "stepping", 120);
    struct timespec held = {3, 0};
    nanosleep(&held, NULL);
    signal_paused(rank1, SIGCONT);
    int code = wait_for(pid);
    if (code != 0)
        fail_msg("exit %d: %s", code, read_err(f));
    char *text = slurp(f->out, NULL);
    assert_non_null(text);
    const char *at = strstr(text, "wrote out.h5 (sweep ");
    if (!at)
        fail_msg("no 'wrote' line:\n%s", text);
    double sweep = strtod(at + strlen("wrote out.h5 (sweep "), NULL);
    if (sweep < 3.0)
        fail_msg("rank 1 stepped for 3 s or more, the summary says sweep %.2f s:\n%s", sweep,
                 text);
    free(text);
    check_ranks(f, "out.h5", 2);
}

/* Rank 0 killed in the write phase (the numeric columns written in parallel, the rest not):
 * no results file, its temporary left behind; the next run, with another rank count, removes
 * it and commits a complete file. */
static void test_killed_write_cleaned(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    killed_at(f, "write", 2, "run", "ranks.yaml", "-o", "out.h5", "--quiet", NULL);
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 2); /* the config, the temporary */
    assert_int_equal(temporaries, 1);
    if (run(f, 3, "run", "ranks.yaml", "-o", "out.h5", "--quiet", NULL) != 0)
        fail_msg("the run after the kill failed: %s", read_err(f));
    assert_int_equal(count_entries(f, &temporaries), 2); /* the config, out.h5 */
    assert_int_equal(temporaries, 0);
    check_ranks(f, "out.h5", 3);
}

/* A value no analysis reads, forged into a restored item (its CRC made right): it reaches the
 * file only if the item is taken from the checkpoint, not computed again by some rank. */
#define FORGED_COLUMN "/points/last_stable_drift"
static const double forged_value = 12345.0;

/* Forges lane 3 of the first item file in out.h5.ckpt (ranks_config: 1200 lanes per batch, items
 * of 512, 512, 176 lanes); returns its row. */
static size_t forge_first_item(const fixture *f)
{
    enum { ITEMS = 27, BATCH = 1200, ITEM = 512 };
    for (size_t i = 0; i < ITEMS; i++) {
        char path[PATHLEN];
        struct stat st;
        snprintf(path, sizeof path, "%s/out.h5.ckpt/item-%06zu", f->dir, i);
        if (stat(path, &st) != 0)
            continue;
        forge_item(path, &FORGED_COLUMN[strlen("/points/")], i % 3 < 2 ? ITEM : BATCH - 2 * ITEM,
                   3, &forged_value, sizeof forged_value);
        return i / 3 * BATCH + i % 3 * ITEM + 3;
    }
    fail_msg("no item file in the checkpoint");
    return 0;
}

/* The forged column of out.h5 is full.h5's but for the forged row, which holds the forgery. */
static void assert_forged_kept(const fixture *f, size_t forged_row)
{
    hid_t out = open_h5(f->dir, "out.h5"), full = open_h5(f->dir, "full.h5");
    hid_t a = H5Dopen2(out, FORGED_COLUMN, H5P_DEFAULT);
    hid_t b = H5Dopen2(full, FORGED_COLUMN, H5P_DEFAULT);
    assert_true(a >= 0 && b >= 0);
    hid_t space = H5Dget_space(a);
    const size_t rows = (size_t)H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    double *got = malloc(rows * sizeof *got), *want = malloc(rows * sizeof *want);
    assert_true(got && want && forged_row < rows);
    assert_true(H5Dread(a, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
    assert_true(H5Dread(b, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, want) >= 0);
    H5Dclose(a), H5Dclose(b), H5Fclose(out), H5Fclose(full);
    if (!(got[forged_row] == forged_value && want[forged_row] != forged_value))
        fail_msg("row %zu: %g in the file: the restored item was computed again", forged_row,
                 got[forged_row]);
    want[forged_row] = forged_value;
    assert_memory_equal(got, want, rows * sizeof *got);
    free(got), free(want);
}

/* A rank killed mid-sweep under --resume (after each rank saved its first item), then the same
 * line with another rank count: the finished items are restored, only the others computed (a
 * value forged into a restored item reaches the file), and the file is the uninterrupted plain
 * run's, every other dataset; the checkpoint is gone after. */
static void test_killed_rank_resumed(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    if (run(f, 0, "run", "ranks.yaml", "-o", "full.h5", "--quiet", NULL) != 0)
        fail_msg("plain run: %s", read_err(f));
    killed_at(f, "stepping", 2, "run", "ranks.yaml", "-o", "out.h5", "--quiet", "--resume", NULL);
    char path[PATHLEN];
    struct stat st;
    snprintf(path, sizeof path, "%s/out.h5.ckpt", f->dir);
    assert_int_equal(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/out.h5", f->dir);
    assert_int_not_equal(stat(path, &st), 0);
    const size_t forged_row = forge_first_item(f);
    int code = run(f, 3, "run", "ranks.yaml", "-o", "out.h5", "--resume", NULL);
    if (code != 0)
        fail_msg("resumed with 3 ranks: exit %d: %s", code, read_err(f));
    char *text = slurp(f->out, NULL);
    assert_non_null(text);
    unsigned long restored = 0, total = 0, todo = 0;
    const char *line = strstr(text, "checkpoint out.h5.ckpt: ");
    if (!line || sscanf(line, "checkpoint out.h5.ckpt: %lu of %lu work items restored, %lu to "
                              "compute", &restored, &total, &todo) != 3)
        fail_msg("no checkpoint line in:\n%s", text);
    free(text);
    print_message("resumed: %lu of %lu items restored, %lu computed\n", restored, total, todo);
    assert_int_equal(total, 27);
    assert_true(restored >= 1 && restored < total);
    assert_int_equal(restored + todo, total);
    size_t compared = compare_files_except(f->dir, "full.h5", "out.h5", FORGED_COLUMN);
    assert_true(compared >= 25 + 16 + 8 + 3 * 7 - 1);
    assert_forged_kept(f, forged_row);
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 3); /* ranks.yaml, full.h5, out.h5 */
    assert_int_equal(temporaries, 0);
}

/* Rank 1 of 2 fails its share of the parallel write (OSCBENCH_TEST_FAIL=write, given to that
 * rank alone through an MPMD line), under --resume: the ranks' vote fails the whole run (exit
 * 1, rank 1's line), no results file nor temporary is left, and the checkpoint survives with
 * every item; the same line resubmitted restores them all and commits the plain run's file. */
static void test_failed_write_keeps_checkpoint(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    if (run(f, 0, "run", "ranks.yaml", "-o", "full.h5", "--quiet", NULL) != 0)
        fail_msg("plain run: %s", read_err(f));
    char one[] = "1", out[] = "out.h5", quiet[] = "--quiet", resume[] = "--resume",
         run_cmd[] = "run", cfg[] = "ranks.yaml", o[] = "-o", q[] = "-q", nflag[] = "-n",
         colon[] = ":", env[] = "/usr/bin/env", inject[] = "OSCBENCH_TEST_FAIL=write";
    char *argv[] = {mpirun, q, nflag, one, exe, run_cmd, cfg, o, out, quiet, resume,
                    colon, nflag, one, env, inject, exe, run_cmd, cfg, o, out, quiet, resume,
                    NULL};
    int code = wait_for(start(f, argv));
    char *err = read_err(f);
    if (code != 1 || !strstr(err, "rank 1: ") || !strstr(err, "OSCBENCH_TEST_FAIL=write"))
        fail_msg("rank 1's failed write: expected exit 1 and its line, got exit %d:\n%s", code,
                 err);
    free(err);
    char path[PATHLEN];
    struct stat st;
    snprintf(path, sizeof path, "%s/out.h5", f->dir);
    if (stat(path, &st) == 0)
        fail_msg("a run in which rank 1 failed committed out.h5");
    int temporaries;
    snprintf(path, sizeof path, "%s/out.h5.ckpt", f->dir);
    if (stat(path, &st) != 0)
        fail_msg("the failed run removed its checkpoint");
    assert_int_equal(count_entries(f, &temporaries), 3); /* ranks.yaml, full.h5, the checkpoint */
    assert_int_equal(temporaries, 0);

    code = run(f, 2, "run", "ranks.yaml", "-o", "out.h5", "--resume", NULL);
    if (code != 0)
        fail_msg("resubmitted: exit %d: %s", code, read_err(f));
    char *text = slurp(f->out, NULL);
    assert_non_null(text);
    if (!strstr(text, "checkpoint out.h5.ckpt: 27 of 27 work items restored, 0 to compute"))
        fail_msg("the resubmitted run did not restore every item:\n%s", text);
    free(text);
    size_t compared = compare_files(f->dir, "full.h5", "out.h5");
    assert_true(compared >= 25 + 16 + 8 + 3 * 7);
    assert_int_equal(count_entries(f, &temporaries), 3); /* ranks.yaml, full.h5, out.h5 */
    assert_int_equal(temporaries, 0);
}

/* A checkpoint that is not this run's (here: a manifest of another format) is refused under
 * mpirun as in a plain run: one line, from rank 0, exit 2, nothing touched, no file. */
static void test_foreign_checkpoint_refused(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    char path[PATHLEN];
    snprintf(path, sizeof path, "%s/out.h5.ckpt", f->dir);
    assert_int_equal(mkdir(path, 0777), 0);
    write_file(f, "out.h5.ckpt/manifest", "not a manifest\n");
    assert_int_equal(run(f, 2, "run", "ranks.yaml", "-o", "out.h5", "--resume", NULL), 2);
    /* the config's own warning (3 dt: every convergence fit inconclusive) aside */
    char *err = read_err(f);
    size_t lines = 0;
    for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, "oscbench run: warning: ", 23) != 0) {
            lines++;
            if (!strstr(line, "out.h5.ckpt"))
                fail_msg("expected a line naming the checkpoint, got: %s", line);
        }
    assert_int_equal(lines, 1);
    free(err);
    snprintf(path, sizeof path, "%s/out.h5.ckpt/manifest", f->dir);
    char *kept = slurp(path, NULL);
    assert_non_null(kept);
    assert_string_equal(kept, "not a manifest\n");
    free(kept);
    unlink(path);
    snprintf(path, sizeof path, "%s/out.h5.ckpt", f->dir);
    assert_int_equal(rmdir(path), 0); /* nothing else was put in it */
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 1); /* ranks.yaml */
}

/* ranks_config's work items: 3 methods x 3 dt batches of 1200 lanes, 3 items each. */
enum { RANKS_ITEMS = 3 * 3 * 3 };

/* The one line rank 0 prints about the checkpoint (dir as the run names it) must give these
 * counts, and the ignored note only when some item file was ignored. */
static void assert_resumed(const fixture *f, const char *dir, int restored, int ignored)
{
    char want[PATHLEN + 256], note[128] = "";
    if (ignored)
        fmt(note, sizeof note, " (%d damaged or foreign item files ignored)", ignored);
    fmt(want, sizeof want, "checkpoint %s: %d of %d work items restored, %d to compute%s\n", dir,
        restored, RANKS_ITEMS, RANKS_ITEMS - restored, note);
    char *text = slurp(f->out, NULL);
    assert_non_null(text);
    const char *line = strstr(text, "checkpoint ");
    const char *end = line ? strchr(line, '\n') : NULL;
    char got[PATHLEN + 256] = "";
    if (end)
        fmt(got, sizeof got, "%.*s", (int)(end + 1 - line), line);
    free(text);
    if (strcmp(got, want) != 0)
        fail_msg("expected '%s', got '%s'", want, got);
}

/* A finished run: out.h5 there, no temporary of it nor its checkpoint left in f->dir. */
static void assert_finished(const fixture *f)
{
    char path[PATHLEN];
    struct stat st;
    fmt(path, sizeof path, "%s/out.h5", f->dir);
    assert_int_equal(stat(path, &st), 0);
    fmt(path, sizeof path, "%s/out.h5.ckpt", f->dir);
    if (lstat(path, &st) == 0)
        fail_msg("out.h5.ckpt is still there after a finished run");
    assert_int_equal(count_prefixed(f->dir, ".out.h5.tmp."), 0);
}

/* The serial test_resume_damaged_items (test_cli.c) under mpirun: 2 ranks killed in their
 * write phase under --resume (every item saved), then in the checkpoint one item file damaged
 * (a flipped byte), one replaced by the same item of another config's checkpoint (its CRC
 * right, its manifest not ours) and one removed; resumed with 2 ranks: exit 0, rank 0's line
 * counts the others restored and the first two ignored, and the file is the uninterrupted
 * plain run's, every dataset (a restored foreign item, of t_end 2, would show). */
static void test_damaged_items_resumed(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    char other[sizeof ranks_config];
    fmt(other, sizeof other, "%s", ranks_config);
    char *t_end = strstr(other, "t_end: 3");
    assert_non_null(t_end);
    t_end[strlen("t_end: ")] = '2';
    write_file(f, "other.yaml", other);
    if (run(f, 0, "run", "ranks.yaml", "-o", "full.h5", "--quiet", NULL) != 0)
        fail_msg("plain run: %s", read_err(f));
    killed_at(f, "write", 2, "run", "ranks.yaml", "-o", "out.h5", "--quiet", "--resume", NULL);
    killed_at(f, "write", 0, "run", "other.yaml", "-o", "other.h5", "--quiet", "--resume", NULL);
    char ck[PATHLEN], path[PATHLEN], from[PATHLEN];
    fmt(ck, sizeof ck, "%s/out.h5.ckpt", f->dir);
    assert_int_equal(count_prefixed(ck, "item-"), RANKS_ITEMS);

    fmt(path, sizeof path, "%s/item-000004", ck);
    flip_byte(path, 5000);
    fmt(from, sizeof from, "%s/other.h5.ckpt/item-000013", f->dir);
    fmt(path, sizeof path, "%s/item-000013", ck);
    assert_int_equal(rename(from, path), 0);
    fmt(path, sizeof path, "%s/item-000020", ck);
    assert_int_equal(unlink(path), 0);
    const int ignored = 2, missing = 1;

    int code = run(f, 2, "run", "ranks.yaml", "-o", "out.h5", "--resume", NULL);
    if (code != 0)
        fail_msg("resumed with 2 ranks: exit %d: %s", code, read_err(f));
    assert_resumed(f, "out.h5.ckpt", RANKS_ITEMS - ignored - missing, ignored);
    size_t compared = compare_files(f->dir, "full.h5", "out.h5");
    assert_true(compared >= 25 + 16 + 8 + 3 * 7);
    assert_finished(f);
}

/* Ranks that see different checkpoints (as nodes may, one of them served an older listing of a
 * shared file system): an item counts as restored only if every rank restored it, the others
 * are computed, and the file is the plain run's. Each process sees its own: out.h5.ckpt is a
 * symbolic link to /proc/self/cwd/ck; rank 0 runs in the test directory, rank 1 (an MPMD line)
 * in its subdirectory view/, whose ck holds the same files (links) but for two items, and one
 * of them its own copy, damaged. One file both see is damaged too: rank 0 ignores one file,
 * rank 1 two, and the note gives the most a rank ignored (rank 0's count would be 1, the sum
 * 3). (Paths absolute, so that the ranks share the config and the results file. Rank 0 cannot
 * remove a checkpoint that is a link: its note on stderr is not checked.) */
static void test_resume_ranks_see_other_items(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    if (run(f, 0, "run", "ranks.yaml", "-o", "full.h5", "--quiet", NULL) != 0)
        fail_msg("plain run: %s", read_err(f));
    killed_at(f, "write", 2, "run", "ranks.yaml", "-o", "out.h5", "--quiet", "--resume", NULL);
    char ck[PATHLEN], mine[PATHLEN], theirs[PATHLEN], a[PATHLEN], b[PATHLEN];
    fmt(ck, sizeof ck, "%s/out.h5.ckpt", f->dir);
    fmt(mine, sizeof mine, "%s/ck", f->dir);
    fmt(theirs, sizeof theirs, "%s/view", f->dir);
    assert_int_equal(rename(ck, mine), 0);
    assert_int_equal(symlink("/proc/self/cwd/ck", ck), 0);
    assert_int_equal(mkdir(theirs, 0777), 0);
    fmt(theirs, sizeof theirs, "%s/view/ck", f->dir);
    assert_int_equal(mkdir(theirs, 0777), 0);
    static name_list files;
    list_prefixed(mine, "", &files);
    assert_int_equal(files.n, RANKS_ITEMS + 1); /* and the manifest */
    const char *unseen[] = {"item-000005", "item-000017"};
    for (size_t i = 0; i < files.n; i++) {
        if (!strcmp(files.names[i], unseen[0]) || !strcmp(files.names[i], unseen[1]))
            continue;
        fmt(a, sizeof a, "%s/%s", mine, files.names[i]);
        fmt(b, sizeof b, "%s/%s", theirs, files.names[i]);
        assert_int_equal(link(a, b), 0);
    }
    const int unseen_by_rank1 = 2;
    fmt(a, sizeof a, "%s/item-000010", mine); /* theirs too: a link */
    flip_byte(a, 5000);
    fmt(a, sizeof a, "%s/item-000022", mine);
    fmt(b, sizeof b, "%s/item-000022", theirs);
    assert_int_equal(unlink(b), 0);
    copy_file(a, b);
    flip_byte(b, 5000);
    const int ignored_by_rank1 = 2;

    char config[PATHLEN], out[PATHLEN], view[PATHLEN];
    fmt(config, sizeof config, "%s/ranks.yaml", f->dir);
    fmt(out, sizeof out, "%s/out.h5", f->dir);
    fmt(view, sizeof view, "--chdir=%s/view", f->dir);
    int code = run(f, 1, "run", config, "-o", out, "--resume", ":", "-n", "1", "/usr/bin/env",
                   view, exe, "run", config, "-o", out, "--resume", NULL);
    if (code != 0)
        fail_msg("resumed with 2 views: exit %d: %s", code, read_err(f));
    assert_resumed(f, ck, RANKS_ITEMS - unseen_by_rank1 - ignored_by_rank1, ignored_by_rank1);
    size_t compared = compare_files(f->dir, "full.h5", "out.h5");
    assert_true(compared >= 25 + 16 + 8 + 3 * 7);
    assert_int_equal(count_prefixed(f->dir, ".out.h5.tmp."), 0);
}

/* `mpirun -n 1 ... : -n 1 ...` of `oscbench run CONFIG -o out.h5 --resume`, rank `failing`
 * alone given FAIL (OSCBENCH_TEST_FAIL=PHASE, through its MPMD line), each rank in a shell that
 * writes its exit code to code.RANK. mpirun would kill the other rank as soon as one exits 1,
 * sometimes before that rank's own exit 1 is written down: it waits for every rank here instead
 * (and exits 0 itself), and a rank that hangs fails the test by the timeout (exit 124, no code
 * file). Returns timeout's exit code. */
static int run_one_rank_failing(const fixture *f, const char *config, const char *fail,
                                int failing)
{
    char wrap[] = "\"$@\"; code=$?; echo $code > code.$OMPI_COMM_WORLD_RANK; exit $code";
    char inject[64], none[] = "OSCBENCH_TEST_FAIL=", cfg[PATHLEN];
    fmt(inject, sizeof inject, "%s", fail);
    fmt(cfg, sizeof cfg, "%s", config);
    char env[] = "/usr/bin/env", sh[] = "/bin/sh", c[] = "-c", name[] = "rank", q[] = "-q",
         nflag[] = "-n", one[] = "1", colon[] = ":", run_cmd[] = "run", o[] = "-o",
         out[] = "out.h5", resume[] = "--resume", timeout[] = "/usr/bin/timeout", secs[] = "120",
         wait_all[] = "OMPI_MCA_orte_abort_on_non_zero_status=0";
    char *argv[] = {timeout, secs, env, wait_all, mpirun, q, nflag, one,
                    env, failing == 0 ? inject : none, sh, c, wrap, name,
                    exe, run_cmd, cfg, o, out, resume, colon, nflag, one,
                    env, failing == 1 ? inject : none, sh, c, wrap, name,
                    exe, run_cmd, cfg, o, out, resume, NULL};
    return wait_for(start(f, argv));
}

/* After run_one_rank_failing: both ranks' code files say exit 1 (each removed once read). */
static void assert_both_ranks_exit_1(const fixture *f, int failing)
{
    for (int r = 0; r < 2; r++) {
        char path[PATHLEN];
        fmt(path, sizeof path, "%s/code.%d", f->dir, r);
        char *text = slurp(path, NULL);
        if (!text || strcmp(text, "1\n") != 0)
            fail_msg("rank %d of the run where rank %d failed: exit %s", r, failing,
                     text ? text : "(none: killed?)\n");
        free(text);
        assert_int_equal(unlink(path), 0);
    }
}

/* A rank whose restore fails (OSCBENCH_TEST_FAIL=restore, given to that rank alone through an
 * MPMD line; only running out of memory makes ckpt_restore fail) stops the run on every rank,
 * rank 0 or rank 1 alike: each rank exits 1 (a shell around each writes its code to
 * code.RANK), the failing rank's one line names it and the checkpoint, no results file nor
 * temporary is left (the killed run's removed too), and the checkpoint is left as it was. */
static void test_failed_restore_stops_every_rank(void **state)
{
    fixture *f = *state;
    write_file(f, "ranks.yaml", ranks_config);
    killed_at(f, "write", 2, "run", "ranks.yaml", "-o", "out.h5", "--quiet", "--resume", NULL);
    char ck[PATHLEN];
    fmt(ck, sizeof ck, "%s/out.h5.ckpt", f->dir);
    size_t len;
    char *before = dir_bytes(ck, &len);
    for (int failing = 0; failing < 2; failing++) {
        int code = run_one_rank_failing(f, "ranks.yaml", "OSCBENCH_TEST_FAIL=restore", failing);
        char want[128];
        fmt(want, sizeof want, "oscbench run: rank %d: out.h5.ckpt: ", failing);
        char *err = read_err(f), *copy = strdup(err);
        assert_non_null(copy);
        size_t lines = 0, theirs = 0;
        for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n"))
            if (strncmp(line, "oscbench run: warning: ", 23) != 0) /* the config's own */
                lines++, theirs += !strncmp(line, want, strlen(want));
        free(copy);
        if (code == 124 || lines != 1 || theirs != 1) /* each rank's exit: its code file */
            fail_msg("rank %d's failed restore: expected one line starting '%s', got (exit %d, "
                     "124: timed out):\n%s", failing, want, code, err);
        free(err);
        assert_both_ranks_exit_1(f, failing);
        int temporaries;
        assert_int_equal(count_entries(f, &temporaries), 2); /* ranks.yaml, the checkpoint */
        assert_int_equal(temporaries, 0);
        assert_dir_unchanged(ck, before, len);
    }
    free(before);
}

/* 40 work items of rk4 (512 lanes x 1e5 steps: about 0.1 s each on one thread in release), 20
 * a rank of 2. */
static const char slow_items_config[] = "name: slow\n"
                                        "methods: [rk4]\n"
                                        "stiffness: {from: 0.5, to: 8, count: 20480}\n"
                                        "dt: [0.001]\n"
                                        "t_end: 100\n"
                                        "analyses: []\n";

/* A rank whose work item fails (OSCBENCH_TEST_FAIL=item, given to rank 1 alone through an MPMD
 * line) stops the other before its next item, not after its share: under --resume, rank 0 has
 * saved at most half of its 20 items (it saved all 20 before ranks told each other) when both
 * exit 1 (a shell around each writes its code to code.RANK), and rank 1's is the one line. */
static void test_failed_item_stops_the_others(void **state)
{
    fixture *f = *state;
    write_file(f, "slow.yaml", slow_items_config);
    int code = run_one_rank_failing(f, "slow.yaml", "OSCBENCH_TEST_FAIL=item", 1);
    char *err = read_err(f);
    if (code == 124 || !strstr(err, "oscbench run: rank 1: slow.yaml: work item ") ||
        strstr(err, "rank 0: "))
        fail_msg("rank 1's failed item: expected its line alone (exit %d, 124: timed out):\n%s",
                 code, err);
    free(err);
    assert_both_ranks_exit_1(f, 1);
    char ck[PATHLEN];
    fmt(ck, sizeof ck, "%s/out.h5.ckpt", f->dir);
    size_t saved = count_prefixed(ck, "item-");
    if (saved > 10)
        fail_msg("rank 0 saved %zu of its 20 items after rank 1 failed", saved);
}

/* Methods defined by their coefficients, inline and from an included file: every rank reads
 * the config and its include, and the file equals a plain run's. */
static const char tableau_config[] = "name: tab\n"
                                     "methods:\n"
                                     "  - rk4\n"
                                     "  - {name: heun, family: rk, order: 2, a: [[0], [1]],\n"
                                     "     b: [\"1/2\", \"1/2\"]}\n"
                                     "  - include: tab_methods.yaml\n"
                                     "stiffness: {from: 0.5, to: 8, count: 300, spacing: log}\n"
                                     "drag: [0, 0.3]\n"
                                     "dt: [0.02, 0.01, 0.005]\n"
                                     "t_end: 2\n"
                                     "analyses: [convergence, stability]\n"
                                     "stability: {zeta: [0]}\n"
                                     "trace: {every: 7, points: [0, 301, 1799]}\n";

static void test_tableau_methods_identical(void **state)
{
    fixture *f = *state;
    write_file(f, "tab.yaml", tableau_config);
    write_file(f, "tab_methods.yaml", "- name: kutta3\n  family: rk\n  order: 3\n"
                                      "  a: [[0], [\"1/2\"], [-1, 2]]\n"
                                      "  b: [\"1/6\", \"2/3\", \"1/6\"]\n");
    assert_int_equal(setenv("OSCBENCH_COST_PROBE_LANES", "128", 1), 0); /* timing: not compared */
    int serial = run(f, 0, "run", "tab.yaml", "-o", "serial.h5", "--quiet", NULL);
    int ranked = serial ? -1 : run(f, 2, "run", "tab.yaml", "-o", "r2.h5", "--quiet", NULL);
    assert_int_equal(unsetenv("OSCBENCH_COST_PROBE_LANES"), 0);
    if (serial || ranked)
        fail_msg("exit %d / %d: %s", serial, ranked, read_err(f));
    size_t n = compare_files(f->dir, "serial.h5", "r2.h5");
    print_message("tableau methods, serial vs 2 ranks: %zu datasets identical\n", n);
    assert_true(n >= 25 + 20 + 8 + 3 * 7); /* /convergence has 20 columns now */
    check_ranks(f, "r2.h5", 2);
}

/* An output place that takes no temporary (/proc), and with --resume no checkpoint, under
 * mpirun -n 1 and -n 2: exit 1, one line from rank 0 naming the output, the rank named only
 * when there are several; nothing made. */
static void test_unwritable_output_one_line(void **state)
{
    fixture *f = *state;
    write_file(f, "ok.yaml", "name: ok\nmethods: [rk4]\nstiffness: 1\ndt: 0.1\nt_end: 2\n");
    const char *out = "/proc/oscbench-x.h5";
    for (int ranks = 1; ranks <= 2; ranks++)
        for (int resume = 0; resume < 2; resume++) {
            assert_int_equal(run(f, ranks, "run", "ok.yaml", "-o", out, "--quiet",
                                 resume ? "--resume" : NULL, NULL), 1);
            char want[256];
            snprintf(want, sizeof want, "oscbench run: %s%s%s", ranks > 1 ? "rank 0: " : "",
                     out, resume ? ".ckpt: cannot create the checkpoint: "
                                 : ": cannot create a temporary file in /proc: ");
            char *err = read_err(f);
            size_t lines = 0;
            for (const char *c = err; *c; c++)
                lines += *c == '\n';
            if (lines != 1 || strncmp(err, want, strlen(want)) != 0)
                fail_msg("-n %d%s: expected one line starting with '%s', got:\n%s", ranks,
                         resume ? " --resume" : "", want, err);
            free(err);
        }
    int temporaries;
    assert_int_equal(count_entries(f, &temporaries), 1); /* ok.yaml */
}

/* `mpirun -q -n 1 oscbench ARGS : -n 1 env --chdir=DIR/view oscbench ARGS` under a 120 s
 * timeout (a hang fails, exit 124 from timeout): rank 1 sees relative paths from f->dir/view,
 * as a rank on a node with another working directory or file system would. ARGS up to NULL. */
static int run_two_views(const fixture *f, ...)
{
    char *argv[64], view[PATHLEN + 16];
    int argc = 0;
    const char *tail[32];
    int ntail = 0;
    va_list ap;
    va_start(ap, f);
    for (const char *a; (a = va_arg(ap, const char *)) && ntail < 31;)
        tail[ntail++] = a;
    va_end(ap);
    snprintf(view, sizeof view, "--chdir=%s/view", f->dir);
    argv[argc++] = "/usr/bin/timeout", argv[argc++] = "120";
    argv[argc++] = mpirun, argv[argc++] = "-q", argv[argc++] = "-n", argv[argc++] = "1";
    argv[argc++] = exe;
    for (int i = 0; i < ntail; i++)
        argv[argc++] = (char *)tail[i];
    argv[argc++] = ":", argv[argc++] = "-n", argv[argc++] = "1";
    argv[argc++] = "/usr/bin/env", argv[argc++] = view, argv[argc++] = exe;
    for (int i = 0; i < ntail; i++)
        argv[argc++] = (char *)tail[i];
    argv[argc] = NULL;
    return wait_for(start(f, argv));
}

/* -o DIR/x.h5 makes the missing directory under mpirun as in a plain run; and an existing
 * checkpoint of the output, without --resume, is left alone with the plain run's note. */
static void test_output_dir_made_checkpoint_mentioned(void **state)
{
    fixture *f = *state;
    write_file(f, "ok.yaml", "name: ok\nmethods: [rk4]\nstiffness: 1\ndt: 0.1\nt_end: 2\n");
    if (run(f, 2, "run", "ok.yaml", "-o", "new/sub/x.h5", "--quiet", NULL) != 0)
        fail_msg("-o new/sub/x.h5: %s", read_err(f));
    char path[PATHLEN];
    snprintf(path, sizeof path, "%s/new/sub/x.h5", f->dir);
    assert_int_equal(access(path, R_OK), 0);
    snprintf(path, sizeof path, "%s/y.h5.ckpt", f->dir);
    assert_int_equal(mkdir(path, 0777), 0);
    write_file(f, "y.h5.ckpt/item-000000", "x");
    assert_int_equal(run(f, 2, "run", "ok.yaml", "-o", "y.h5", "--quiet", NULL), 0);
    char *err = read_err(f);
    if (!strstr(err, "oscbench run: note: y.h5.ckpt holds finished work of an earlier run of "
                     "this output; left alone (add --resume to continue from it)\n"))
        fail_msg("no note of the checkpoint: %s", err);
    free(err);
}

/* Ranks that see different places (rank 1 started in view/): an output directory rank 1 cannot
 * reach fails the run in one line naming rank 1 and the temporary, exit 1, no temporary left
 * (it hung in the collective open); a checkpoint rank 1 refuses (a file in its view) is bad
 * input, exit 2, and the checkpoint rank 0 had just made is removed again (it was left, holding
 * only a manifest, and later runs noted it). */
static void test_ranks_see_different_places(void **state)
{
    fixture *f = *state;
    const char *config = "name: ok\nmethods: [rk4]\nstiffness: 1\ndt: 0.1\nt_end: 2\n";
    write_file(f, "ok.yaml", config);
    char path[PATHLEN];
    snprintf(path, sizeof path, "%s/view", f->dir);
    assert_int_equal(mkdir(path, 0777), 0);
    write_file(f, "view/ok.yaml", config);
    snprintf(path, sizeof path, "%s/sub", f->dir);
    assert_int_equal(mkdir(path, 0777), 0);
    int code = run_two_views(f, "run", "ok.yaml", "-o", "sub/x.h5", "--quiet", NULL);
    char *err = read_err(f);
    if (code != 1 || !strstr(err, "oscbench run: rank 1: sub/x.h5: cannot open the results "
                                  "temporary sub/.x.h5.tmp."))
        fail_msg("rank 1 without sub/: exit %d: %s", code, err);
    free(err);
    assert_int_equal(count_prefixed(path, ".x.h5.tmp."), 0);
    write_file(f, "view/c.h5.ckpt", "not a checkpoint\n");
    code = run_two_views(f, "run", "ok.yaml", "-o", "c.h5", "--quiet", "--resume", NULL);
    err = read_err(f);
    if (code != 2 || !strstr(err, "oscbench run: rank 1: c.h5.ckpt: not a checkpoint of this run"))
        fail_msg("rank 1 refusing its checkpoint: exit %d: %s", code, err);
    free(err);
    snprintf(path, sizeof path, "%s/c.h5.ckpt", f->dir);
    assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ranks_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_config_one_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_help_printed_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_output_one_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritable_output_one_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ranks_disagree_one_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ranks_read_different_configs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_write_cleaned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_seconds_slowest_rank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_rank_resumed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_checkpoint_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_write_keeps_checkpoint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tableau_methods_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_items_resumed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_ranks_see_other_items, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_restore_stops_every_rank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_item_stops_the_others, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_dir_made_checkpoint_mentioned, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ranks_see_different_places, setup, teardown),
    };
    if (getenv("TEST_FILTER")) /* e.g. TEST_FILTER='test_resume*' to run those tests alone */
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
