/* Fuzz regressions: every file kept under tests/fuzz/crashes/ (inputs that once crashed, hung or
 * blew the memory of oscbench-fuzz-config) and tests/fuzz/seeds/ (hand-made hostile configs) is
 * fed to config_load, which must return 0 or 2, and on 2 leave one non-empty line naming the
 * file and a zeroed config. Runs from the source root (meson's workdir). A missing or empty
 * directory is not an error: crashes/ only holds what the fuzzer has found. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of `dir`, sorted, dotfiles and README* skipped. */
static size_t list_files(const char *dir, char ***out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0, cap = 0;
    char **names = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0)
            continue;
        size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        char *path = malloc(len);
        assert_non_null(path);
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            names = realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        names[n++] = path;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    *out = names;
    return n;
}

/* config_load must answer 0 or 2, and on 2 one line naming the file; returns the status. */
static int load_one(const char *path)
{
    static const osc_config zero;
    osc_config cfg;
    char err[1024];
    int status = config_load(path, &cfg, err, sizeof err);
    if (status != 0 && status != 2)
        fail_msg("%s: config_load returned %d, not 0 or 2", path, status);
    if (status == 0) {
        if (cfg.nmethods < 1 || cfg.dt.count < 1 || cfg.stiffness.count < 1)
            fail_msg("%s: loaded an empty sweep", path);
        print_message("%s: loads\n", path);
        config_free(&cfg);
        return 0;
    }
    if (err[0] == '\0' || strchr(err, '\n') || strchr(err, '\r'))
        fail_msg("%s: error is not one non-empty line: '%s'", path, err);
    if (strncmp(err, path, strlen(path)) != 0)
        fail_msg("%s: error does not name the file: '%s'", path, err);
    if (memcmp(&cfg, &zero, sizeof cfg) != 0)
        fail_msg("%s: config not zeroed after an error", path);
    print_message("%s\n", err);
    return 2;
}

static void feed_dir(const char *dir, size_t at_least)
{
    char **files;
    size_t n = list_files(dir, &files), bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += load_one(files[i]) == 2;
        free(files[i]);
    }
    free(files);
    print_message("%s: %zu files, %zu rejected with exit 2\n", dir, n, bad);
    assert_true(n >= at_least);
}

static void test_crashes(void **state)
{
    (void)state;
    feed_dir("tests/fuzz/crashes", 0);
}

static void test_seeds(void **state)
{
    (void)state;
    feed_dir("tests/fuzz/seeds", 10);
}

/* The shipped configs still load (they seed the fuzzer). */
static void test_configs_load(void **state)
{
    (void)state;
    char **files;
    size_t n = list_files("configs", &files);
    assert_true(n >= 1);
    for (size_t i = 0; i < n; i++) {
        if (load_one(files[i]) != 0)
            fail_msg("%s: a shipped config does not load", files[i]);
        free(files[i]);
    }
    free(files);
}

/* A directory instead of a file: exit 2 and one line. */
static void test_directory(void **state)
{
    (void)state;
    assert_int_equal(load_one("tests/fuzz/seeds"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crashes),
        cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_configs_load),
        cmocka_unit_test(test_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
