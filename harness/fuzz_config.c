/* libFuzzer target for the config loader (issue 6): every input is written to one file in a
 * per-process temporary directory and handed to config_load, which must return 0 (then the
 * config must satisfy the documented invariants) or 2 with a one-line error, and never crash,
 * leak, hang or blow the memory budget. Built only with -Dfuzz=true and clang:
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_lundef=false
 *   ninja -C build-fuzz oscbench-fuzz-config
 *   build-fuzz/oscbench-fuzz-config -dict=tests/fuzz/yaml.dict -max_len=4096 \
 *       -rss_limit_mb=2048 -timeout=5 CORPUS_DIR configs tests/fuzz/seeds
 *
 * config.c has no in-memory entry point (it reads, fstat()s and size-checks a path), so the
 * bytes go through a real file: one path, created once in a mkdtemp() directory and rewritten
 * for each input, removed at exit. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[4096];
static char fuzz_path[4200];

static void fuzz_cleanup(void)
{
    if (fuzz_path[0])
        unlink(fuzz_path);
    if (fuzz_dir[0])
        rmdir(fuzz_dir);
}

static void die(const char *what)
{
    fprintf(stderr, "oscbench-fuzz-config: %s: %s\n", what, strerror(errno));
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/oscbench-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_dir)) {
        fuzz_dir[0] = '\0';
        die("mkdtemp");
    }
    /* The stem becomes the default run name: keep it a valid one. */
    snprintf(fuzz_path, sizeof fuzz_path, "%s/fuzz.yaml", fuzz_dir);
    atexit(fuzz_cleanup);
    return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
    int fd = open(fuzz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        die("open");
    while (size > 0) {
        ssize_t put = write(fd, data, size);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            die("write");
        data += put;
        size -= (size_t)put;
    }
    if (close(fd) != 0)
        die("close");
}

/* An invariant of config.h broken: report it as a crash with the reason. */
#define CHECK(cond)                                                                              \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "oscbench-fuzz-config: invariant failed: %s (%s:%d)\n", #cond,      \
                    __FILE__, __LINE__);                                                         \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

static void check_sweep(const sweep *s, bool positive)
{
    CHECK(s->count >= 1 && s->values != NULL);
    for (size_t i = 0; i < s->count; i++) {
        CHECK(isfinite(s->values[i]));
        CHECK(positive ? s->values[i] > 0 : s->values[i] >= 0);
    }
}

static void check_config(const osc_config *cfg)
{
    CHECK(cfg->path && strcmp(cfg->path, fuzz_path) == 0);
    CHECK(cfg->text != NULL);
    size_t len = cfg->name ? strlen(cfg->name) : 0;
    CHECK(len >= 1 && len <= 128 && cfg->name[0] != '.');
    for (size_t i = 0; i < len; i++)
        CHECK(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-+",
                     cfg->name[i]) != NULL);
    CHECK(strchr(cfg->name, '/') == NULL);
    CHECK(cfg->nmethods >= 1 && cfg->methods != NULL);
    for (size_t i = 0; i < cfg->nmethods; i++) {
        CHECK(cfg->methods[i] != NULL);
        for (size_t j = 0; j < i; j++)
            CHECK(cfg->methods[j] != cfg->methods[i]);
    }
    CHECK(cfg->precision == OSC_DOUBLE || cfg->precision == OSC_FLOAT);
    CHECK(cfg->dim >= 1 && cfg->dim <= OSC_MAX_DIM);
    check_sweep(&cfg->stiffness, false);
    check_sweep(&cfg->drag, false);
    check_sweep(&cfg->dt, true);
    CHECK(isfinite(cfg->gravity));
    CHECK(isfinite(cfg->mass) && cfg->mass >= 0);
    for (int a = 0; a < OSC_MAX_DIM; a++)
        CHECK(isfinite(cfg->x0[a]) && isfinite(cfg->v0[a]));
    CHECK((cfg->steps == -1) != (cfg->t_end == 0));
    if (cfg->steps == -1) {
        CHECK(isfinite(cfg->t_end) && cfg->t_end > 0);
        /* The harness runs nearbyint(t_end / dt) steps as a long: it must be a valid count. */
        for (size_t i = 0; i < cfg->dt.count; i++)
            CHECK(cfg->t_end / cfg->dt.values[i] <= CONFIG_MAX_STEPS);
    }
    else
        CHECK(cfg->steps >= 1 && cfg->steps <= (long)CONFIG_MAX_STEPS);
    CHECK(cfg->trace_every >= 1);
    size_t lanes = config_lane_count(cfg);
    CHECK(lanes >= 1);
    for (size_t i = 0; i < cfg->ntrace_points; i++)
        CHECK(cfg->trace_points[i] < lanes);
    if (cfg->has_stability_zeta) {
        check_sweep(&cfg->stability_zeta, false);
        CHECK(cfg->stability_zeta.count <= CONFIG_MAX_ZETA);
    }
    CHECK(cfg->audit_every >= 0);
    CHECK(cfg->unstable_factor >= 1 && isfinite(cfg->unstable_factor));
    CHECK(cfg->unstable_drift > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_input(data, size);
    osc_config cfg;
    char err[1024];
    memset(err, 'x', sizeof err);
    int status = config_load(fuzz_path, &cfg, err, sizeof err);
    if (status == 0) {
        check_config(&cfg);
        config_free(&cfg);
        return 0;
    }
    CHECK(status == 2);
    /* One line, non-empty, prefixed by the path. */
    size_t len = strnlen(err, sizeof err);
    CHECK(len > 0 && len < sizeof err);
    CHECK(strncmp(err, fuzz_path, strlen(fuzz_path)) == 0);
    CHECK(strchr(err, '\n') == NULL && strchr(err, '\r') == NULL);
    /* config_load leaves cfg zeroed on failure. */
    static const osc_config zero;
    CHECK(memcmp(&cfg, &zero, sizeof cfg) == 0);
    return 0;
}
