/* The promises of config.h, checked (see config_check.h). */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "config_check.h"

#include <math.h>
#include <string.h>

/* Returns the broken condition's text from the enclosing function. */
#define CHECK(cond)                                                                              \
    do {                                                                                         \
        if (!(cond))                                                                             \
            return #cond;                                                                        \
    } while (0)

static const char *check_sweep(const sweep *s, bool positive)
{
    CHECK(s->count >= 1 && s->values != NULL);
    for (size_t i = 0; i < s->count; i++) {
        CHECK(isfinite(s->values[i]));
        CHECK(positive ? s->values[i] > 0 : s->values[i] >= 0);
    }
    return NULL;
}

/* Every lane's k and c are valid library input: finite and >= 0 (omega0 and zeta divide by the
 * mass, zeta by k too, which the loader keeps away from 0). c grows with the drag index's value
 * (drag or zeta), so the largest of them stands for all. */
static const char *check_springs(const osc_config *cfg)
{
    size_t widest = 0;
    for (size_t d = 1; d < cfg->zeta_axis.count; d++)
        if (cfg->zeta_axis.values[d] > cfg->zeta_axis.values[widest])
            widest = d;
    for (size_t m = 0; m < cfg->mass.count; m++) {
        CHECK(!(cfg->omega0_axis.count || cfg->zeta_axis.count) || cfg->mass.values[m] > 0);
        for (size_t s = 0; s < cfg->stiffness.count; s++) {
            double k = config_stiffness(cfg, s, m), c = config_drag(cfg, s, widest, m);
            CHECK(isfinite(k) && k >= 0);
            CHECK(!cfg->zeta_axis.count || k > 0);
            CHECK(isfinite(c) && c >= 0);
        }
    }
    return NULL;
}

static const char *check_name(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    CHECK(len >= 1 && len <= 128 && name[0] != '.');
    for (size_t i = 0; i < len; i++)
        CHECK(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-+",
                     name[i]) != NULL);
    return NULL;
}

static const char *check_methods(const osc_config *cfg)
{
    CHECK(cfg->nmethods >= 1 && cfg->methods != NULL);
    CHECK(cfg->nuser_methods <= CONFIG_MAX_USER_METHODS);
    CHECK((cfg->nuser_methods == 0) == (cfg->user_methods == NULL));
    for (size_t i = 0; i < cfg->nuser_methods; i++) /* each run, and runnable */
        CHECK(config_user_method_of(cfg, &cfg->user_methods[i].method) &&
              cfg->user_methods[i].method.kernels[OSC_DOUBLE].advance &&
              cfg->user_methods[i].method.order >= 1);
    for (size_t i = 0; i < cfg->nmethods; i++) {
        CHECK(cfg->methods[i] != NULL);
        for (size_t j = 0; j < i; j++)
            CHECK(cfg->methods[j] != cfg->methods[i]);
    }
    return NULL;
}

static const char *check_duration(const osc_config *cfg)
{
    CHECK((cfg->steps == -1) != (cfg->t_end == 0));
    if (cfg->steps != -1) {
        CHECK(cfg->steps >= 1 && cfg->steps <= (long)CONFIG_MAX_STEPS);
        return NULL;
    }
    CHECK(isfinite(cfg->t_end) && cfg->t_end > 0);
    /* The harness runs nearbyint(t_end / dt) steps as a long: it must be a valid count. */
    for (size_t i = 0; i < cfg->dt.count; i++)
        CHECK(cfg->t_end / cfg->dt.values[i] <= CONFIG_MAX_STEPS);
    return NULL;
}

static const char *check_rest(const osc_config *cfg)
{
    CHECK(cfg->precision == OSC_DOUBLE || cfg->precision == OSC_FLOAT);
    CHECK(cfg->dim >= 1 && cfg->dim <= OSC_MAX_DIM);
    CHECK(isfinite(cfg->gravity));
    for (int a = 0; a < OSC_MAX_DIM; a++)
        CHECK(isfinite(cfg->x0[a]) && isfinite(cfg->v0[a]));
    CHECK(cfg->trace_every >= 1);
    size_t lanes = config_lane_count(cfg);
    CHECK(lanes >= 1);
    for (size_t i = 0; i < cfg->ntrace_points; i++) {
        CHECK(cfg->trace_points[i] < lanes);
        for (size_t j = 0; j < i; j++) /* each row one /traces group */
            CHECK(cfg->trace_points[j] != cfg->trace_points[i]);
    }
    CHECK(cfg->audit_every >= 0);
    CHECK(cfg->unstable_factor >= 1 && isfinite(cfg->unstable_factor));
    CHECK(cfg->unstable_drift > 0);
    return NULL;
}

static const char *check_config(const char *path, const osc_config *cfg)
{
    CHECK(cfg->path && strcmp(cfg->path, path) == 0);
    CHECK(cfg->text != NULL);
    const char *broken = check_name(cfg->name);
    if (!broken)
        broken = check_methods(cfg);
    const sweep *sweeps[] = {cfg->omega0_axis.count ? &cfg->omega0_axis : &cfg->stiffness,
                             cfg->zeta_axis.count ? &cfg->zeta_axis : &cfg->drag, &cfg->mass,
                             &cfg->dt};
    for (size_t i = 0; i < 4 && !broken; i++)
        broken = check_sweep(sweeps[i], i == 3);
    if (!broken)
        broken = check_springs(cfg);
    if (!broken && cfg->has_stability_zeta) {
        broken = check_sweep(&cfg->stability_zeta, false);
        CHECK(cfg->stability_zeta.count <= CONFIG_MAX_ZETA);
    }
    if (!broken)
        broken = check_duration(cfg);
    return broken ? broken : check_rest(cfg);
}

/* Whether the error line (up to its newline) ends "(included from PATH:...)". */
static bool included_from(const char *line, const char *path)
{
    size_t len = strcspn(line, "\n");
    const char *mark = " (included from ";
    for (const char *at = line; (at = strstr(at, mark)) && at < line + len; at++)
        if (strncmp(at + strlen(mark), path, strlen(path)) == 0 &&
            at[strlen(mark) + strlen(path)] == ':' && line[len - 1] == ')')
            return true;
    return false;
}

static const char *check_error(const char *path, const osc_config *cfg, const char *err,
                               size_t errlen)
{
    static const osc_config zero;
    size_t len = strnlen(err, errlen);
    CHECK(len > 0 && len < errlen);
    CHECK(strchr(err, '\r') == NULL && err[len - 1] != '\n');
    size_t lines = 0; /* one error per line, each naming the file (or a file it includes, and
                       * then the place of the include: "(included from PATH:LINE:COL)") */
    for (const char *line = err; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        CHECK(strncmp(line, path, strlen(path)) == 0 || included_from(line, path));
        lines++;
    }
    CHECK(lines <= CONFIG_MAX_ERRORS + 1); /* + "PATH: N more errors not shown" */
    CHECK(memcmp(cfg, &zero, sizeof *cfg) == 0);
    return NULL;
}

const char *config_check_outcome(int status, const char *path, const osc_config *cfg,
                                 const char *err, size_t errlen)
{
    CHECK(status == 0 || status == 2);
    return status == 0 ? check_config(path, cfg) : check_error(path, cfg, err, errlen);
}
