/* libFuzzer target for the config loader: every input goes to config_load_text, whose outcome
 * must keep config.h's promises (config_check_outcome: 0 with a valid config, or 2 with a zeroed
 * config and a one-line error) without crashing, leaking, hanging or blowing the memory budget.
 * An input may carry files for `- include:` to read: split at the line "#@file", the config
 * first, then a.yaml, b.yaml, c.yaml (fuzz_files.h), written to a directory of this process's
 * own, where the config is loaded as fuzz.yaml (that of a run that crashed is removed by the next
 * run: fuzz_dir_sweep). Built only with -Dfuzz=true and clang:
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_lundef=false
 *   ninja -C build-fuzz oscbench-fuzz-config
 *   build-fuzz/oscbench-fuzz-config -dict=tests/fuzz/yaml.dict -max_len=4096 \
 *       -rss_limit_mb=2048 -timeout=5 CORPUS_DIR configs tests/fuzz/seeds
 *
 * tests/test_fuzz_regress.c replays the saved findings through the same checks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_check.h"
#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static fuzz_dir dir;

static void remove_dir(void)
{
    fuzz_dir_remove(&dir);
}

/* The directory, made at the first input and removed at exit; first, those that runs which
 * crashed or were killed left behind are removed. */
static const fuzz_dir *the_dir(void)
{
    static int made;
    if (!made) {
        size_t stale = fuzz_dir_sweep();
        if (stale)
            fprintf(stderr, "oscbench-fuzz-config: removed %zu temporary directories of "
                            "runs that crashed or were killed\n", stale);
        if (fuzz_dir_make(&dir) != 0) {
            perror("oscbench-fuzz-config: cannot make its temporary directory");
            abort();
        }
        atexit(remove_dir);
        made = 1;
    }
    return &dir;
}

/* This build reads no file outside d (config_methods.c refuses an include that is absolute or
 * has ".."), so every error line names a file in d: an absolute include's error is the
 * refusal's, on the config. NULL, or what is broken. */
static const char *check_confined(const fuzz_dir *d, const char *err)
{
    size_t dir_len = strlen(d->dir);
    for (const char *line = err; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, d->dir, dir_len) != 0 || line[dir_len] != '/')
            return "every error names a file in the target's directory (no include outside it "
                   "is read)";
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const fuzz_dir *d = the_dir();
    size_t config_len;
    if (fuzz_dir_write(d, (const char *)data, size, &config_len) != 0) {
        perror("oscbench-fuzz-config: cannot write an input's files");
        abort();
    }
    osc_config cfg;
    char err[1024];
    memset(err, 'x', sizeof err);
    int status = config_load_text(d->config, (const char *)data, config_len, &cfg, err,
                                  sizeof err);
    const char *broken = config_check_outcome(status, d->config, (const char *)data, config_len,
                                              &cfg, err, sizeof err);
    if (!broken && status)
        broken = fuzz_check_places(d, (const char *)data, size, err);
    if (!broken && status)
        broken = check_confined(d, err);
    if (broken) {
        fprintf(stderr, "oscbench-fuzz-config: promise broken: %s (status %d, error '%.200s')\n",
                broken, status, status ? err : "");
        abort();
    }
    if (status == 0)
        config_free(&cfg);
    return 0;
}
