/* What config_load promises, checked from the outside: the libFuzzer target checks it on every
 * input, and the regression replay (tests/test_fuzz_regress.c) on every saved finding. */
#ifndef OSCBENCH_CONFIG_CHECK_H
#define OSCBENCH_CONFIG_CHECK_H

#include <stddef.h>

#include "config.h"

/* The outcome of config_load(path, cfg, err, errlen) (or config_load_text) that returned
 * `status`, for the config whose bytes are text[0, len) (those config_load read; NULL: none):
 * NULL if it keeps every promise of config.h, else the first broken one (a static string). On 0
 * the config's invariants (finite, in-range values, whole step counts, trace rows inside the
 * sweep, ...); on 2 a zeroed config and one non-empty line per error, with no control
 * character (shown_text shows each as '?'), that starts with path, or with the file an include
 * reads, when the line ends "(included from PATH:LINE:COL)": the file that the include at
 * LINE:COL of text names (as given if absolute, else in path's directory). Any other status is
 * broken. (path holds no control character, as the fuzz target's do: a line would show it with
 * '?'.) */
const char *config_check_outcome(int status, const char *path, const char *text, size_t len,
                                 const osc_config *cfg, const char *err, size_t errlen);

#endif
