/* oscbench-bench's conventions (OSCBENCH_BENCH_EXE): --help lists oscbench's own environment
 * variables and Google Benchmark's flags; a benchmark's name is a fixed amount of work whatever
 * the machine gives it (steps_per_iter follows from the name alone, here with 1 and with all
 * threads); items_per_second is reported. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *exe;

/* The command's stdout (at most 64 KiB) and its exit status. */
static char *run(const char *env, const char *args, int *status)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s '%s' %s 2>/dev/null", env, exe, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(cap, 1);
    assert_non_null(out);
    for (size_t n; (n = fread(out + len, 1, cap - 1 - len, p)) > 0;)
        len += n;
    int rc = pclose(p);
    *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    return out;
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

static double json_number(const char *json, const char *key)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\": ", key);
    const char *at = strstr(json, quoted);
    if (!at)
        fail_msg("no %s in:\n%s", key, json);
    return strtod(at + strlen(quoted), NULL);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
