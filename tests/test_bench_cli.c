/* oscbench-bench's conventions (OSCBENCH_BENCH_EXE): --help lists oscbench's own environment
 * variables and Google Benchmark's flags; a benchmark's name is a fixed amount of work whatever
 * the machine gives it (steps_per_iter follows from the name alone, here with 1 and with all
 * threads); items_per_second is reported; the methods a config (OSCBENCH_BENCH_CONFIG) defines by
 * their coefficients are benchmarked like the built-in ones, a composition counted as its base's
 * kernel times its substeps; a bad config or environment variable is bad input. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *exe;
enum { PATH_MAX_ENV = 128 };

/* All of a stream, at most 64 KiB, as a string. */
static char *read_all(FILE *f)
{
    size_t cap = 1 << 16, len = 0;
    char *text = calloc(cap, 1);
    assert_non_null(text);
    for (size_t n; (n = fread(text + len, 1, cap - 1 - len, f)) > 0;)
        len += n;
    return text;
}

/* One run of the command: what it writes to stdout, its exit status and, when err is not NULL,
 * what it writes to stderr (else dropped). */
static char *run_split(const char *env, const char *args, char **err, int *status)
{
    char err_path[] = "/tmp/test_bench_cli_err_XXXXXX";
    if (err) {
        int fd = mkstemp(err_path);
        assert_true(fd >= 0);
        close(fd);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s '%s' %s 2>'%s'", env, exe, args, err ? err_path : "/dev/null");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char *out = read_all(p);
    int rc = pclose(p);
    *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    if (err) {
        FILE *e = fopen(err_path, "r");
        assert_non_null(e);
        *err = read_all(e);
        fclose(e);
        unlink(err_path);
    }
    return out;
}

static char *run(const char *env, const char *args, int *status)
{
    return run_split(env, args, NULL, status);
}

static void help_lists_our_flags_and_google_benchmarks(void **state)
{
    (void)state;
    int status;
    char *out = run("", "--help", &status);
    assert_int_equal(status, 0);
    const char *want[] = {"OSCBENCH_BENCH_LARGE", "OSCBENCH_BENCH_AUDIT_EVERY",
                          "OSCBENCH_BENCH_CONFIG", "OSCBENCH_ISA", "items_per_second",
                          "compare.py", "--benchmark_filter"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(out, want[i]))
            fail_msg("--help lacks '%s':\n%s", want[i], out);
    free(out);
}

/* The first value of key in the JSON: a number, or with quote "\"" one the context gives as a
 * string ("key": "1.079e+11"). */
static double json_value(const char *json, const char *key, const char *quote)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\": %s", key, quote);
    const char *at = strstr(json, quoted);
    if (!at)
        fail_msg("no %s in:\n%s", key, json);
    return strtod(at + strlen(quoted), NULL);
}

static double json_number(const char *json, const char *key)
{
    return json_value(json, key, "");
}

/* step/euler/double/4096: 1.6e9 FMA per iteration / (4 FMA x 4096 lanes) = 97656.25 steps,
 * rounded up to a multiple of 128: 97664, with one thread or all. */
static void fixed_work_per_name(void **state)
{
    (void)state;
    const char *args = "--benchmark_filter='^step/euler/double/4096$' "
                       "--benchmark_min_time=0.01 --benchmark_format=json";
    const char *envs[] = {"OMP_NUM_THREADS=1", ""};
    for (size_t i = 0; i < 2; i++) {
        int status;
        char *out = run(envs[i], args, &status);
        assert_int_equal(status, 0);
        assert_true(json_number(out, "steps_per_iter") == 97664);
        double items = json_number(out, "items_per_second");
        assert_true(items > 0);
        free(out);
    }
}

/* Three methods by their coefficients: Heun's (rk), rk4's Nystrom form (rkn) and Yoshida's
 * triple jump over verlet (a composition: the same map as oscbench-bench's own yoshida-verlet). */
static const char family_config[] =
    "name: families\n"
    "methods:\n"
    "  - name: my-heun\n"
    "    family: rk\n"
    "    order: 2\n"
    "    a: [[0], [1]]\n"
    "    b: [\"1/2\", \"1/2\"]\n"
    "  - name: my-nystrom\n"
    "    family: rkn\n"
    "    order: 4\n"
    "    abar: [[], [0], [\"1/4\", 0], [0, \"1/2\", 0]]\n"
    "    a: [[], [\"1/2\"], [0, \"1/2\"], [0, 0, 1]]\n"
    "    bbar: [\"1/6\", \"1/6\", \"1/6\", 0]\n"
    "    b: [\"1/6\", \"1/3\", \"1/3\", \"1/6\"]\n"
    "  - name: my-triple-jump\n"
    "    family: composition\n"
    "    order: 4\n"
    "    base: verlet\n"
    "    weights: [1.3512071919596578, -1.7024143839193153]\n"
    "    symmetric: true\n"
    "stiffness: 1\n"
    "dt: [0.1, 0.05]\n"
    "steps: 10\n";

static char config_path[] = "/tmp/test_bench_cli_XXXXXX";
static char config_env[PATH_MAX_ENV]; /* OSCBENCH_BENCH_CONFIG='config_path' */

static int write_config(void **state)
{
    (void)state;
    strcpy(config_path + strlen(config_path) - 6, "XXXXXX"); /* mkstemp fills them in */
    int fd = mkstemp(config_path);
    if (fd < 0)
        return -1;
    ssize_t len = (ssize_t)strlen(family_config);
    bool ok = write(fd, family_config, (size_t)len) == len;
    close(fd);
    snprintf(config_env, sizeof config_env, "OSCBENCH_BENCH_CONFIG='%s'", config_path);
    return ok ? 0 : -1;
}

static int remove_config(void **state)
{
    (void)state;
    return unlink(config_path);
}

static void config_methods_are_benchmarked(void **state)
{
    (void)state;
    int status;
    char *out = run(config_env, "--benchmark_list_tests", &status);
    assert_int_equal(status, 0);
    const char *want[] = {"step/my-heun/double/4096\n", "step/my-nystrom/float/1048576/threads:1\n",
                          "step/my-triple-jump/double/65536\n",
                          "audited/my-nystrom/double/1048576\n", "default/my-heun\n",
                          "step/yoshida-verlet/double/4096\n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(out, want[i]))
            fail_msg("no %s in the list:\n%s", want[i], out);
    free(out);
}

/* The operation counters of one benchmark, run alone: ops_fma, ops_add, ops_mul. */
enum { NCLASSES = 3 };
static const char *const op_classes[NCLASSES] = {"ops_fma", "ops_add", "ops_mul"};

static void ops_of_bench(const char *bench, double ops[NCLASSES])
{
    char args[256];
    snprintf(args, sizeof args,
             "--benchmark_filter='^%s$' --benchmark_min_time=0.01 --benchmark_format=json", bench);
    int status;
    char *out = run(config_env, args, &status);
    assert_int_equal(status, 0);
    for (int i = 0; i < NCLASSES; i++)
        ops[i] = json_number(out, op_classes[i]);
    free(out);
}

/* Heun's tableau: 2 FMAs per stage for the force and 2 per nonzero a_ij and b_i, 2 + 2 + 2 x 3
 * = 10 (the rk kernel applies exactly those). The triple jump runs verlet's composed kernel 3
 * times per step, as yoshida-verlet does: the same operations, adds included (a composition
 * counted by its declared fma_per_step would show every add as an FMA and no add). */
static void config_methods_count_their_operations(void **state)
{
    (void)state;
    double heun[NCLASSES], mine[NCLASSES], own[NCLASSES];
    ops_of_bench("step/my-heun/double/4096", heun);
    assert_true(heun[0] == 10);
    ops_of_bench("step/my-triple-jump/double/4096", mine);
    ops_of_bench("step/yoshida-verlet/double/4096", own);
    for (int i = 0; i < NCLASSES; i++)
        if (mine[i] != own[i])
            fail_msg("%s: my-triple-jump %g, yoshida-verlet %g", op_classes[i], mine[i], own[i]);
}

/* Every counter a step/ and a default/ benchmark report (the numbers in the JSON's benchmarks
 * that are not Google Benchmark's own fields) is named in --help. */
static void help_lists_every_counter(void **state)
{
    (void)state;
    int status;
    char *help = run("", "--help", &status);
    assert_int_equal(status, 0);
    char *out = run(config_env,
                    "--benchmark_filter='^(step/euler/double/4096|default/my-heun)$' "
                    "--benchmark_min_time=0.01 --benchmark_format=json",
                    &status);
    assert_int_equal(status, 0);
    static const char *const own[] = {"family_index", "per_family_instance_index", "repetitions",
                                       "repetition_index", "threads", "iterations", "real_time",
                                       "cpu_time"};
    const char *at = strstr(out, "\"benchmarks\"");
    assert_non_null(at);
    size_t counters = 0;
    for (const char *q; (q = strchr(at, '"'));) {
        const char *end = strchr(q + 1, '"');
        assert_non_null(end);
        at = end + 1;
        char key[64];
        size_t len = (size_t)(end - q - 1);
        if (strncmp(at, ": ", 2) || len >= sizeof key || !at[2] || !strchr("-0123456789inIN", at[2]))
            continue; /* a string value, or not a key */
        memcpy(key, q + 1, len), key[len] = '\0';
        bool google = false;
        for (size_t i = 0; i < sizeof own / sizeof *own; i++)
            google |= !strcmp(key, own[i]);
        if (google)
            continue;
        counters++;
        if (!strstr(help, key))
            fail_msg("--help does not name the counter %s", key);
    }
    assert_true(counters >= 2 * 10); /* both benchmarks reported their counters */
    free(out), free(help);
}

/* A config that cannot be read: exit 2, no benchmark, one line on stderr naming the file. */
static void bad_config_is_bad_input(void **state)
{
    (void)state;
    const char *env = "OSCBENCH_BENCH_CONFIG=/nonexistent/oscbench.yaml";
    int status;
    char *err;
    char *out = run_split(env, "--benchmark_list_tests", &err, &status);
    assert_int_equal(status, 2);
    assert_string_equal(out, "");
    if (!strstr(err, "/nonexistent/oscbench.yaml") || strchr(err, '\n') != err + strlen(err) - 1)
        fail_msg("expected one line naming the config, got:\n%s", err);
    free(out);
    free(err);
}

/* An environment variable the bench cannot take: exit 2, no benchmark, one line naming it. */
static void bad_environment_is_bad_input(void **state)
{
    (void)state;
    const char *envs[] = {"OSCBENCH_ISA=v9", "OSCBENCH_BENCH_AUDIT_EVERY=1e3",
                          "OSCBENCH_BENCH_AUDIT_EVERY=0", "OSCBENCH_BENCH_AUDIT_EVERY=12x",
                          "OSCBENCH_BENCH_LARGE=no", "OSCBENCH_BENCH_LARGE=2"};
    for (size_t i = 0; i < sizeof envs / sizeof *envs; i++) {
        int status;
        char *err;
        char *out = run_split(envs[i], "--benchmark_list_tests", &err, &status);
        if (status != 2 || *out || !strstr(err, envs[i]) ||
            strchr(err, '\n') != err + strlen(err) - 1)
            fail_msg("%s: exit %d, stdout '%s', stderr:\n%s", envs[i], status, out, err);
        free(out);
        free(err);
    }
    int status;
    char *out = run("OSCBENCH_BENCH_AUDIT_EVERY=64", "--benchmark_list_tests", &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "audited/euler/double/1048576"));
    free(out);
    /* empty is unset, for every variable: the default config's default/ benchmarks */
    out = run("OSCBENCH_BENCH_CONFIG= OSCBENCH_BENCH_LARGE= OSCBENCH_BENCH_AUDIT_EVERY= "
              "OSCBENCH_ISA=",
              "--benchmark_list_tests", &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "default/euler\n"));
    free(out);
}

/* More threads than CPUs take turns: the FMA peak is the probe's wall-clock rate, or one core's
 * rate per CPU-second times the threads that can run at once, never times all the threads (with
 * twice as many threads as CPUs that read twice the machine). The context's numbers have 4
 * digits. */
static void peak_counts_cpus_not_threads(void **state)
{
    (void)state;
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    const int cpus = CPU_COUNT(&set);
    char env[64];
    snprintf(env, sizeof env, "OMP_NUM_THREADS=%d", 2 * cpus);
    int status;
    char *out = run(env, "--benchmark_filter='^step/euler/double/4096$' "
                         "--benchmark_min_time=0.01 --benchmark_format=json", &status);
    assert_int_equal(status, 0);
    const double peak = json_value(out, "fma_peak_double_per_s", "\""),
                 wall = json_value(out, "fma_probe_double_wall_per_s", "\""),
                 core = json_value(out, "fma_peak_double_per_core_cpu_s", "\"");
    if (peak > fmax(wall, cpus * core) * 1.002)
        fail_msg("%d threads on %d CPUs: peak %g, wall %g, one core %g per CPU-second", 2 * cpus,
                 cpus, peak, wall, core);
    free(out);
}

/* On the base path no kernel's operations are counted: a built-in method's step/ benchmark has no
 * ops_* and no ceiling (counting every operation as an FMA let roof_fraction exceed 1). */
static void no_ceiling_without_op_counts(void **state)
{
    (void)state;
    int status;
    char *out = run("OSCBENCH_ISA=base", "--benchmark_filter='^step/verlet/double/4096$' "
                    "--benchmark_min_time=0.01 --benchmark_format=json", &status);
    assert_int_equal(status, 0);
    assert_true(json_number(out, "peak_fraction") > 0);
    static const char *const absent[] = {"\"ops_fma\"", "\"ops_add\"", "\"roof_fraction\"",
                                         "\"cpu_roof_fraction\"", "\"ceiling_osc_steps_per_s\""};
    for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
        if (strstr(out, absent[i]))
            fail_msg("OSCBENCH_ISA=base: %s reported:\n%s", absent[i], out);
    free(out);
}

/* default/'s op_ceiling is per lane-step, the method's operations on every axis against the
 * audit's (13 per axis and 6 per lane in double, README): for euler (fma_per_step 4, per axis)
 * in 3-D, 12 / (12 + 45); counting the method's once would give 4 / 49. */
static void op_ceiling_counts_every_axis(void **state)
{
    (void)state;
    char path[] = "/tmp/test_bench_cli_dim3_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char config[] = "name: dim3\nmethods: [euler]\ndim: 3\nstiffness: 1\n"
                                 "dt: 0.1\nsteps: 200\n";
    assert_true(write(fd, config, strlen(config)) == (ssize_t)strlen(config));
    close(fd);
    char env[128];
    snprintf(env, sizeof env, "OSCBENCH_BENCH_CONFIG='%s'", path);
    int status;
    char *out = run(env,
                    "--benchmark_filter='^(step/euler/double/4096|default/euler)$' "
                    "--benchmark_min_time=0.01 --benchmark_format=json",
                    &status);
    unlink(path);
    assert_int_equal(status, 0);
    const double m = 3 * json_number(out, "fma_per_step"), want = m / (m + 13 * 3 + 6);
    const double got = json_number(out, "op_ceiling");
    if (fabs(got - want) > 1e-12 * want)
        fail_msg("op_ceiling %.17g, expected %.17g", got, want);
    free(out);
}

/* Google Benchmark flags that would run nothing and exit 0 (a format it does not know prints its
 * usage; a filter that selects no benchmark, or does not compile, says so on stderr) are bad
 * input: exit 2, nothing on stdout, the last line saying why. */
static void bad_flags_are_bad_input(void **state)
{
    (void)state;
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"--benchmark_format=xml", "oscbench-bench: --benchmark_format=xml: expected console, "
                                   "json or csv\n"},
        {"--benchmark_out_format=tsv", "oscbench-bench: --benchmark_out_format=tsv: expected "
                                       "console, json or csv\n"},
        {"--benchmark_filter='^no/such/benchmark$'", "oscbench-bench: no benchmark ran"},
        {"--benchmark_filter='step/('", "oscbench-bench: no benchmark ran"},
        /* 0 ran nothing and exited 0, -3 exited 1 without a word, abc printed two lines */
        {"--benchmark_repetitions=0", "oscbench-bench: --benchmark_repetitions=0: expected a "
                                      "whole number of repetitions, 1 or more\n"},
        {"--benchmark_repetitions=-3", "oscbench-bench: --benchmark_repetitions=-3: expected"},
        {"--benchmark_repetitions=1.5", "oscbench-bench: --benchmark_repetitions=1.5: expected"},
        {"--benchmark_repetitions=3 --benchmark_repetitions=abc",
         "oscbench-bench: --benchmark_repetitions=abc: expected"},
        {"BENCHMARK_REPETITIONS=0", "oscbench-bench: BENCHMARK_REPETITIONS=0: expected"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int status;
        char *err;
        /* an environment variable (NAME=...) is given before the command */
        const bool env = !strncmp(cases[i].args, "BENCHMARK_", 10);
        char *out = run_split(env ? cases[i].args : "",
                              env ? "--benchmark_filter='^step/euler/double/4096$'" : cases[i].args,
                              &err, &status);
        const char *last = strstr(err, "oscbench-bench: ");
        if (status != 2 || *out || !last || strncmp(last, cases[i].err, strlen(cases[i].err)) ||
            strchr(last, '\n') != last + strlen(last) - 1)
            fail_msg("%s: exit %d, stdout '%s', stderr:\n%s", cases[i].args, status, out, err);
        free(out);
        free(err);
    }
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#endif

/* A benchmark that fails (here its batch of 2^20 lanes, 24 MiB and more, beyond a 60 MB address
 * space) reports its error and makes the exit status 1: a script reading only the status must not
 * take a run without its figure for a good one. Not under AddressSanitizer or ThreadSanitizer,
 * which reserve terabytes of address space at start-up. */
static void failed_benchmark_exits_1(void **state)
{
    (void)state;
#ifdef UNDER_SANITIZER
    skip();
#else
    int status;
    char *out = run("ulimit -v 60000;",
                    "--benchmark_filter='^step/euler/double/1048576$' --benchmark_min_time=0.01",
                    &status);
    if (status != 1 || !strstr(out, "ERROR OCCURRED"))
        fail_msg("exit %d, stdout:\n%s", status, out);
    free(out);
#endif
}

/* Those variables' values are shown as oscbench shows a message's text: an ESC and a newline
 * each as '?', the error still one line. */
static void bad_environment_shown_on_one_line(void **state)
{
    (void)state;
    static const struct {
        const char *name, *value, *err;
    } cases[] = {
        {"OSCBENCH_ISA", "v3\x1b[2J\nx", "oscbench-bench: OSCBENCH_ISA=v3?[2J?x: expected "},
        {"OSCBENCH_BENCH_AUDIT_EVERY", "12\x1b[2J\nx",
         "oscbench-bench: OSCBENCH_BENCH_AUDIT_EVERY=12?[2J?x: expected a whole number of "
         "steps, 1 to 1073741824\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *saved = getenv(cases[i].name) ? strdup(getenv(cases[i].name)) : NULL;
        assert_int_equal(setenv(cases[i].name, cases[i].value, 1), 0);
        int status;
        char *err;
        char *out = run_split("", "--benchmark_list_tests", &err, &status);
        assert_int_equal(saved ? setenv(cases[i].name, saved, 1) : unsetenv(cases[i].name), 0);
        free(saved);
        if (status != 2 || *out || strncmp(err, cases[i].err, strlen(cases[i].err)) != 0 ||
            strchr(err, '\n') != err + strlen(err) - 1)
            fail_msg("%s: exit %d, stdout '%s', stderr:\n%s", cases[i].name, status, out, err);
        free(out);
        free(err);
    }
}

/* A config defining a method under one of this program's own names (yoshida-verlet) is warned
 * about on one line, its path (here with an ESC and a newline) shown with '?' as messages show
 * it; the run goes on. */
static void own_name_warning_on_one_line(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_bench_cli_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[PATH_MAX_ENV], env[PATH_MAX_ENV + 64];
    snprintf(path, sizeof path, "%s/c\x1b[2J\nx.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("name: own\nmethods:\n  - name: yoshida-verlet\n    family: composition\n"
          "    order: 4\n    base: verlet\n"
          "    weights: [1.3512071919596578, -1.7024143839193153]\n    symmetric: true\n"
          "stiffness: 1\ndt: 0.1\nsteps: 10\n", f);
    assert_int_equal(fclose(f), 0);
    snprintf(env, sizeof env, "OSCBENCH_BENCH_CONFIG='%s'", path);
    int status;
    char *err;
    char *out = run_split(env, "--benchmark_list_tests", &err, &status);
    char want[PATH_MAX_ENV + 256];
    snprintf(want, sizeof want, "oscbench-bench: %s/c?[2J?x.yaml: its method 'yoshida-verlet' "
             "has this program's name: step/yoshida-verlet and audited/yoshida-verlet are this "
             "program's, default/yoshida-verlet the config's\n", dir);
    unlink(path);
    rmdir(dir);
    if (status != 0 || strcmp(err, want) != 0 || !strstr(out, "default/yoshida-verlet\n"))
        fail_msg("exit %d, stderr:\n%s\nwanted:\n%s", status, err, want);
    free(out);
    free(err);
}

int main(void)
{
    exe = getenv("OSCBENCH_BENCH_EXE");
    if (!exe) {
        fprintf(stderr, "test_bench_cli: OSCBENCH_BENCH_EXE is not set\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_lists_our_flags_and_google_benchmarks),
        cmocka_unit_test(fixed_work_per_name),
        cmocka_unit_test_setup_teardown(config_methods_are_benchmarked, write_config,
                                        remove_config),
        cmocka_unit_test_setup_teardown(config_methods_count_their_operations, write_config,
                                        remove_config),
        cmocka_unit_test_setup_teardown(help_lists_every_counter, write_config, remove_config),
        cmocka_unit_test(bad_config_is_bad_input),
        cmocka_unit_test(bad_environment_is_bad_input),
        cmocka_unit_test(bad_environment_shown_on_one_line),
        cmocka_unit_test(bad_flags_are_bad_input),
        cmocka_unit_test(failed_benchmark_exits_1),
        cmocka_unit_test(op_ceiling_counts_every_axis),
        cmocka_unit_test(no_ceiling_without_op_counts),
        cmocka_unit_test(peak_counts_cpus_not_threads),
        cmocka_unit_test(own_name_warning_on_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
