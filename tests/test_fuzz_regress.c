/* Fuzz regressions: every file kept under tests/fuzz/crashes/ (inputs that once crashed, hung or
 * blew the memory of oscbench-fuzz-config) and tests/fuzz/seeds/ (hand-made hostile configs) is
 * fed to config_load and held to the same promises the fuzzer checks (config_check_outcome):
 * 0 with a config that satisfies every invariant of config.h, or 2 with one line naming the file
 * and a zeroed config. The same bytes through config_load_text must give the same outcome. An
 * input split at "#@file" lines (a config and the files it includes, fuzz_files.h) is replayed as
 * the fuzzer runs it: its pieces written to a temporary directory, the config loaded from there.
 * Runs from the source root (meson's workdir); a missing or empty directory fails. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_check.h"
#include "fuzz_files.h"
#include "test_files.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of `dir`, sorted, dotfiles and README* skipped; the directory must exist. */
static size_t list_files(const char *dir, char ***out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("%s: cannot open the directory (run from the source root)", dir);
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

/* One outcome of the config text[0, len) held to config.h's promises; returns the status. */
static int check_outcome(const char *path, const char *text, size_t len, int status,
                         const osc_config *cfg, const char *err, size_t errlen)
{
    const char *broken = config_check_outcome(status, path, text, len, cfg, err, errlen);
    if (broken)
        fail_msg("%s: status %d breaks '%s' (error '%s')", path, status, broken,
                 status ? err : "");
    return status;
}

/* config_load of the file and config_load_text of its bytes keep every promise, alike. */
static int load_one(const char *path)
{
    osc_config cfg;
    char err[1024], err_text[1024];
    size_t len = 0;
    struct stat st;
    char *bytes = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? slurp(path, &len) : NULL;
    int status = check_outcome(path, bytes, len, config_load(path, &cfg, err, sizeof err), &cfg,
                               err, sizeof err);
    if (status == 0)
        config_free(&cfg);
    if (bytes) {
        int again = config_load_text(path, bytes, len, &cfg, err_text, sizeof err_text);
        check_outcome(path, bytes, len, again, &cfg, err_text, sizeof err_text);
        if (again != status || (status && strcmp(err, err_text) != 0))
            fail_msg("%s: from memory %d '%s', from the file %d '%s'", path, again, err_text,
                     status, err);
        if (again == 0)
            config_free(&cfg);
        free(bytes);
    }
    print_message("%s\n", status ? err : "loads");
    return status;
}

/* A split input from its pieces in a temporary directory, else the file where it is. */
static int load_input(const char *path)
{
    size_t len = 0, config_len;
    char *bytes = slurp(path, &len);
    assert_non_null(bytes);
    if (!fuzz_input_is_split(bytes, len)) {
        free(bytes);
        return load_one(path);
    }
    fuzz_dir d;
    if (fuzz_dir_make(&d) != 0 || fuzz_dir_write(&d, bytes, len, &config_len) != 0)
        fail_msg("%s: cannot write its pieces to a temporary directory", path);
    print_message("%s, split: ", path);
    int status = load_one(d.config);
    if (status) { /* the same loader, again, for its error's places */
        osc_config cfg;
        char err[1024];
        config_load(d.config, &cfg, err, sizeof err);
        const char *broken = fuzz_check_places(&d, bytes, len, err);
        if (broken)
            fail_msg("%s: '%s' breaks '%s'", path, err, broken);
    }
    fuzz_dir_remove(&d);
    free(bytes);
    return status;
}

static void feed_dir(const char *dir, size_t at_least)
{
    char **files;
    size_t n = list_files(dir, &files), bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += load_input(files[i]) == 2;
        free(files[i]);
    }
    free(files);
    print_message("%s: %zu files, %zu rejected with exit 2\n", dir, n, bad);
    if (n < at_least)
        fail_msg("%s: %zu files, expected at least %zu", dir, n, at_least);
}

static void test_crashes(void **state)
{
    (void)state;
    feed_dir("tests/fuzz/crashes", 3);
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

/* The seed include_absolute.yaml, as this (normal) build loads it: an absolute include is read
 * as given, so its errors name that path, and config_check passes them (its rule's branch for
 * an absolute include, which the fuzz build, refusing such includes, never reaches). */
static void test_absolute_include(void **state)
{
    (void)state;
    size_t len, config_len;
    char *bytes = slurp("tests/fuzz/seeds/include_absolute.yaml", &len);
    assert_non_null(bytes);
    fuzz_dir d;
    assert_int_equal(fuzz_dir_make(&d), 0);
    assert_int_equal(fuzz_dir_write(&d, bytes, len, &config_len), 0);
    osc_config cfg;
    char err[1024], want[1024];
    int status = config_load(d.config, &cfg, err, sizeof err);
    const char *broken = config_check_outcome(status, d.config, bytes, config_len, &cfg, err,
                                              sizeof err);
    fmt(want, sizeof want,
        "/dev/null: cannot include: not a regular file (included from %s:2:14)\n"
        "/nonexistent-oscbench-fuzz/a.yaml: cannot open: %s (included from %s:3:14)",
        d.config, strerror(ENOENT), d.config);
    fuzz_dir_remove(&d);
    free(bytes);
    assert_int_equal(status, 2);
    assert_string_equal(err, want);
    assert_null(broken);
}

/* A fuzz_dir as a process that then dies leaves it: its pieces written (and `extra`, a file of
 * that name, unless NULL), never removed; its path in dir. */
static void leave_dir(const char *extra, char *dir, size_t size)
{
    int pipe_fds[2];
    assert_int_equal(pipe(pipe_fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static const char input[] = "methods: [include: a.yaml]\n#@file\n- rk4\n#@file\n";
        fuzz_dir d;
        size_t config_len;
        char path[sizeof d.config];
        int bad = fuzz_dir_make(&d) != 0 ||
                  fuzz_dir_write(&d, input, sizeof input - 1, &config_len) != 0;
        snprintf(path, sizeof path, "%s/%s", d.dir, extra ? extra : "a.yaml");
        bad |= extra && !fopen(path, "w");
        bad |= write(pipe_fds[1], d.dir, sizeof d.dir) != (ssize_t)sizeof d.dir;
        _exit(bad);
    }
    char got[sizeof ((fuzz_dir *)0)->dir];
    assert_int_equal(read(pipe_fds[0], got, sizeof got), (ssize_t)sizeof got);
    close(pipe_fds[0]), close(pipe_fds[1]);
    assert_int_equal(wait_child(pid), 0);
    fmt(dir, size, "%s", got);
}

static bool exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    fmt(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

static char sweep_root[256];
static char *saved_tmpdir;

/* TMPDIR set to a new directory of the test's own, for the fuzz_dirs of a test. */
static int tmpdir_setup(void **state)
{
    (void)state;
    const char *was = getenv("TMPDIR");
    saved_tmpdir = was ? strdup(was) : NULL;
    if (!make_temp_dir(sweep_root, sizeof sweep_root, "oscbench-fuzz-sweep"))
        return -1;
    return setenv("TMPDIR", sweep_root, 1);
}

static int tmpdir_teardown(void **state)
{
    (void)state;
    remove_tree(sweep_root);
    int rc = saved_tmpdir ? setenv("TMPDIR", saved_tmpdir, 1) : unsetenv("TMPDIR");
    free(saved_tmpdir);
    return rc;
}

/* fuzz_dir_sweep removes the directory a dead process left, and nothing else: not a living
 * one's (this process's), not one that holds a file the target never writes (beside the pieces
 * or in d), not the directory a link of that name points to, not an older target's
 * oscbench-fuzz-XXXXXX. */
static void test_sweep_stale_dirs(void **state)
{
    (void)state;
    char dead[256], foreign[256], inner[256], left[256], old[300], kept[300], link[300];
    leave_dir(NULL, dead, sizeof dead);
    leave_dir("core", foreign, sizeof foreign);
    leave_dir("d/core", inner, sizeof inner);
    leave_dir(NULL, left, sizeof left);
    fmt(old, sizeof old, "%s/oscbench-fuzz-Ab12Cd", sweep_root);
    assert_int_equal(rename(left, old), 0);
    leave_dir(NULL, left, sizeof left);
    fmt(kept, sizeof kept, "%s/kept", sweep_root);
    assert_int_equal(rename(left, kept), 0);
    fmt(link, sizeof link, "%s/oscbench-fuzz-1-abcdef", sweep_root);
    assert_int_equal(symlink(kept, link), 0);
    fuzz_dir live;
    assert_int_equal(fuzz_dir_make(&live), 0);
    assert_true(exists(dead, "a.yaml") && exists(dead, "d"));

    assert_int_equal(fuzz_dir_sweep(), 1);
    assert_false(exists(dead, ""));
    assert_true(exists(live.dir, "d"));
    assert_true(exists(foreign, "core") && exists(foreign, "a.yaml") && exists(foreign, "d"));
    assert_true(exists(inner, "d/core") && exists(inner, "a.yaml"));
    assert_true(exists(old, "a.yaml") && exists(old, "d"));
    assert_true(exists(link, "") && exists(kept, "a.yaml") && exists(kept, "d"));
    assert_int_equal(fuzz_dir_sweep(), 0);
    fuzz_dir_remove(&live);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crashes),
        cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_configs_load),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_absolute_include),
        cmocka_unit_test_setup_teardown(test_sweep_stale_dirs, tmpdir_setup, tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
