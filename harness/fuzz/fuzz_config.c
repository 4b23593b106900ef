/* libFuzzer target for the config loader: every input goes to config_load_text, whose outcome
 * must keep config.h's promises (config_check_outcome: 0 with a valid config, or 2 with a zeroed
 * config and a one-line error) without crashing, leaking, hanging or blowing the memory budget.
 * Built only with -Dfuzz=true and clang:
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The path the input is reported as; its stem becomes the default run name. */
static const char fuzz_path[] = "fuzz.yaml";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    osc_config cfg;
    char err[1024];
    memset(err, 'x', sizeof err);
    int status = config_load_text(fuzz_path, (const char *)data, size, &cfg, err, sizeof err);
    const char *broken = config_check_outcome(status, fuzz_path, &cfg, err, sizeof err);
    if (broken) {
        fprintf(stderr, "oscbench-fuzz-config: promise broken: %s (status %d, error '%.200s')\n",
                broken, status, status ? err : "");
        abort();
    }
    if (status == 0)
        config_free(&cfg);
    return 0;
}
