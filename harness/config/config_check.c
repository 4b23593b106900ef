/* The promises of config.h, checked (see config_check.h). */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "config_check.h"

#include "config_yaml.h"
#include "diag.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
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

/* If the error line (up to its newline) ends "(included from PATH:...)", where its "LINE:COL)"
 * starts, else NULL. */
static const char *included_from(const char *line, const char *path)
{
    size_t len = strcspn(line, "\n");
    const char *mark = " (included from ";
    for (const char *at = line; (at = strstr(at, mark)) && at < line + len; at++)
        if (strncmp(at + strlen(mark), path, strlen(path)) == 0 &&
            at[strlen(mark) + strlen(path)] == ':' && line[len - 1] == ')')
            return at + strlen(mark) + strlen(path) + 1;
    return NULL;
}

/* Whether line starts "FILE:", FILE the file an include of `given` in the config at path reads
 * (given as it is if absolute, else after path's directory) as shown_text shows it: a C1
 * control's two bytes are "??" there. A line that fills err was shortened (cfg_shortened): it
 * shows FILE's start, "...", its end; `shortened` takes that start. */
static bool names_include(const char *line, const char *path, const char *given, bool shortened)
{
    const char *slash = strrchr(path, '/');
    size_t dir = given[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
    size_t given_len = strlen(given);
    char *file = malloc(dir + given_len + 1);
    if (!file)
        return false;
    memcpy(file, path, dir);
    memcpy(file + dir, given, given_len + 1);
    shown_text(file);
    size_t at = 0;
    bool cut = false; /* at the "..." of a shortened line */
    while (file[at] != '\0' && !(cut = shortened && strncmp(line + at, "...", 3) == 0) &&
           line[at] == file[at])
        at++;
    const bool named = file[at] == '\0' ? line[at] == ':' : cut;
    free(file);
    return named;
}

/* Whether a scalar of the tree at line:col is an include whose file err_line names. */
static bool include_at(const ynode *n, long line, long col, const char *path,
                       const char *err_line, bool shortened)
{
    if (n->kind == YN_SCALAR)
        return n->line == line && n->col == col &&
               names_include(err_line, path, n->text, shortened);
    for (size_t i = 0; i < n->nkids; i++)
        if (include_at(n->kids[i], line, col, path, err_line, shortened))
            return true;
    return false;
}

/* Every line "FILE...: ... (included from PATH:LINE:COL)" names as FILE the file that the
 * include at LINE:COL of the config's text reads, so that an error inside an included file is
 * never reported under the config's name (nor any other file's). */
static const char *check_included_files(const char *path, const char *text, size_t len,
                                        const char *err, bool full)
{
    ynode *root = NULL;
    bool parsed = false, each_names_the_file_its_include_reads = true;
    for (const char *line = err; line && each_names_the_file_its_include_reads;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *place = included_from(line, path);
        if (!place)
            continue;
        if (!parsed) {
            ctx c = {.path = path};
            if (!text || cfg_parse_tree(&c, text, len, &root) != 0)
                root = NULL;
            parsed = true;
        }
        char *end;
        long at_line = strtol(place, &end, 10), at_col = *end == ':' ? strtol(end + 1, &end, 10)
                                                                       : 0;
        each_names_the_file_its_include_reads =
            root && *end == ')' && (end[1] == '\n' || end[1] == '\0') &&
            include_at(root, at_line, at_col, path, line, full);
    }
    cfg_ynode_free(root);
    CHECK(each_names_the_file_its_include_reads);
    return NULL;
}

/* Whether each line of err shows what it quotes as shown_text does: no byte it would make '?'
 * but the newlines between the lines. */
static bool shown_as_text(const char *err)
{
    const char *c = err + shown_span(err);
    while (*c == '\n')
        c += 1 + shown_span(c + 1);
    return *c == '\0';
}

static const char *check_error(const char *path, const char *text, size_t text_len,
                               const osc_config *cfg, const char *err, size_t errlen)
{
    static const osc_config zero;
    size_t len = strnlen(err, errlen);
    CHECK(len > 0 && len < errlen);
    CHECK(strchr(err, '\r') == NULL && err[len - 1] != '\n');
    CHECK(shown_as_text(err));
    size_t lines = 0; /* one error per line, each naming the file (or a file it includes, and
                       * then the place of the include: "(included from PATH:LINE:COL)") */
    for (const char *line = err; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        CHECK(strncmp(line, path, strlen(path)) == 0 || included_from(line, path));
        lines++;
    }
    CHECK(lines <= CONFIG_MAX_ERRORS + 1); /* + "PATH: N more errors not shown" */
    CHECK(memcmp(cfg, &zero, sizeof *cfg) == 0);
    return check_included_files(path, text, text_len, err, lines == 1 && len == errlen - 1);
}

const char *config_check_outcome(int status, const char *path, const char *text, size_t len,
                                 const osc_config *cfg, const char *err, size_t errlen)
{
    CHECK(status == 0 || status == 2);
    return status == 0 ? check_config(path, cfg) : check_error(path, text, len, cfg, err, errlen);
}
