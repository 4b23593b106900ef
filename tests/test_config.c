/* The config loader: valid configs load with their defaults and expanded sweeps; every bad
 * input gets exit code 2 and one line "FILE:LINE:COL: key: what" at the right place.
 * Fixtures are written into a fresh temporary directory. */
#define _XOPEN_SOURCE 700 /* S_IFDIR */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <errno.h>
#include <float.h>

#include "config.h"
#include "composition.h"
#include "config_check.h"
#include "diag.h"
#include "layout.h"
#include "rkn.h"
#include "sweep.h"
#include "tableau.h"

/* fstat, wrapped at link time (tests/meson.build): when fstat_fails is set it fails with EIO
 * after scribbling a directory's mode into *st, as nothing forbids a failed call to do; the
 * loader must report the failure and never read st. */
static bool fstat_fails;
/* when set, fstat succeeds but says size 0: a file that grows after it was looked at */
static bool fstat_says_empty;
/* like fstat_fails, for the file it names only (an include, the config read before it) */
static const char *fstat_fails_for;
int __real_fstat(int fd, struct stat *st);
int __real_fstat64(int fd, struct stat *st);
int __wrap_fstat(int fd, struct stat *st);
int __wrap_fstat64(int fd, struct stat *st);
static int failing_fstat(struct stat *st)
{
    st->st_mode = S_IFDIR;
    errno = EIO;
    return -1;
}
static bool fd_names(int fd, const char *path)
{
    char link[64], target[512];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, target, sizeof target - 1);
    if (len < 0)
        return false;
    target[len] = '\0';
    return strcmp(target, path) == 0;
}
static bool fails(int fd)
{
    return fstat_fails || (fstat_fails_for && fd_names(fd, fstat_fails_for));
}
static int sized(int rc, struct stat *st)
{
    if (rc == 0 && fstat_says_empty)
        st->st_size = 0;
    return rc;
}
int __wrap_fstat(int fd, struct stat *st)
{
    return fails(fd) ? failing_fstat(st) : sized(__real_fstat(fd, st), st);
}
int __wrap_fstat64(int fd, struct stat *st)
{
    return fails(fd) ? failing_fstat(st) : sized(__real_fstat64(fd, st), st);
}

/* read, wrapped too: a read of the file read_fails_for names fails with EINVAL, as a read of
 * /proc/self/pagemap (a regular file to fstat) does for a length it does not take. */
static const char *read_fails_for;
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n)
{
    if (!read_fails_for || !fd_names(fd, read_fails_for))
        return __real_read(fd, buf, n);
    errno = EINVAL;
    return -1;
}

/* osc_method_from_tableau, _rkn and _composition, wrapped too: while library_refuses is set
 * they return OSC_EINVAL, as for a definition the loader read as valid and the library did
 * not (no input reaches that today: the loader checks all the library does, first). */
static bool library_refuses;
int __real_osc_method_from_tableau(const osc_tableau *t, const char *name, int declared_order,
                                   osc_method *out);
int __wrap_osc_method_from_tableau(const osc_tableau *t, const char *name, int declared_order,
                                   osc_method *out);
int __real_osc_method_from_rkn(const osc_rkn_tableau *t, const char *name, int declared_order,
                               osc_method *out);
int __wrap_osc_method_from_rkn(const osc_rkn_tableau *t, const char *name, int declared_order,
                               osc_method *out);
int __real_osc_method_from_composition(const osc_method *base, const double *weights,
                                       int nweights, bool symmetric, const char *name,
                                       int declared_order, osc_method *out);
int __wrap_osc_method_from_composition(const osc_method *base, const double *weights,
                                       int nweights, bool symmetric, const char *name,
                                       int declared_order, osc_method *out);
/* The coefficients the makers were given since `nmade` was last set to 0, as the loader read
 * them (minus_zero_reads_as_zero_everywhere compares them bit for bit). */
static double made[2 * OSC_RKN_MAX_STAGES * OSC_RKN_MAX_STAGES + 3 * OSC_RKN_MAX_STAGES];
static size_t nmade;
static bool made_overflow; /* more than `made` holds: the other tests' many definitions */
static void keep_made(const double *v, size_t n)
{
    made_overflow |= nmade + n > sizeof made / sizeof made[0];
    if (made_overflow)
        return;
    memcpy(made + nmade, v, n * sizeof *v);
    nmade += n;
}
int __wrap_osc_method_from_tableau(const osc_tableau *t, const char *name, int declared_order,
                                   osc_method *out)
{
    keep_made(&t->a[0][0], OSC_TABLEAU_MAX_STAGES * OSC_TABLEAU_MAX_STAGES);
    keep_made(t->b, OSC_TABLEAU_MAX_STAGES);
    keep_made(t->c, OSC_TABLEAU_MAX_STAGES);
    return library_refuses ? OSC_EINVAL
                           : __real_osc_method_from_tableau(t, name, declared_order, out);
}
int __wrap_osc_method_from_rkn(const osc_rkn_tableau *t, const char *name, int declared_order,
                               osc_method *out)
{
    keep_made(&t->abar[0][0], OSC_RKN_MAX_STAGES * OSC_RKN_MAX_STAGES);
    keep_made(&t->a[0][0], OSC_RKN_MAX_STAGES * OSC_RKN_MAX_STAGES);
    keep_made(t->bbar, OSC_RKN_MAX_STAGES);
    keep_made(t->b, OSC_RKN_MAX_STAGES);
    keep_made(t->c, OSC_RKN_MAX_STAGES);
    return library_refuses ? OSC_EINVAL : __real_osc_method_from_rkn(t, name, declared_order, out);
}
int __wrap_osc_method_from_composition(const osc_method *base, const double *weights,
                                       int nweights, bool symmetric, const char *name,
                                       int declared_order, osc_method *out)
{
    if (nweights > 0 && nweights <= OSC_COMPOSITION_MAX_SUBSTEPS)
        keep_made(weights, (size_t)nweights);
    return library_refuses ? OSC_EINVAL
                           : __real_osc_method_from_composition(base, weights, nweights,
                                                                symmetric, name,
                                                                declared_order, out);
}

static char tmpdir[] = "/tmp/oscbench-config-XXXXXX";
static char cfgpath[256];
static char err[16384];

static int make_dir(void **state)
{
    (void)state;
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(cfgpath, sizeof cfgpath, "%s/c.yaml", tmpdir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    char path[300];
    const char *names[] = {"c.yaml", "my run.v2.yaml", "sub", "m.yaml"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        unlink(path);
        rmdir(path);
    }
    return rmdir(tmpdir);
}

static void write_bytes(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static int load_bytes(const char *bytes, size_t len, osc_config *cfg)
{
    write_bytes(cfgpath, bytes, len);
    return config_load(cfgpath, cfg, err, sizeof err);
}

static int load_text(const char *text, osc_config *cfg)
{
    return load_bytes(text, strlen(text), cfg);
}

/* The first error names the file, then `where` (":LINE:COL: key: start of message"), and the
 * config is left zeroed; with `one_line`, it is the only error. */
static void expect_errors_bytes(const char *bytes, size_t len, const char *where, bool one_line)
{
    osc_config cfg;
    int rc = load_bytes(bytes, len, &cfg);
    if (rc != 2 || strncmp(err, cfgpath, strlen(cfgpath)) != 0 ||
        strncmp(err + strlen(cfgpath), where, strlen(where)) != 0 ||
        (one_line && strchr(err, '\n')))
        fail_msg("rc %d, error '%s', wanted '%s%s...'", rc, err, cfgpath, where);
    osc_config zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&cfg, &zero, sizeof cfg);
}

static void expect_error_bytes(const char *bytes, size_t len, const char *where)
{
    expect_errors_bytes(bytes, len, where, true);
}

static void expect_error(const char *text, const char *where)
{
    expect_error_bytes(text, strlen(text), where);
}

static void expect_in_error(const char *needle)
{
    if (!strstr(err, needle))
        fail_msg("error '%s' lacks '%s'", err, needle);
}

static const char base[] = "stiffness: 1\ndt: 0.1\nsteps: 10\n";

/* base with one more line appended (line 4). */
static void expect_error_extra(const char *line, const char *where)
{
    char text[512];
    snprintf(text, sizeof text, "%s%s", base, line);
    expect_error(text, where);
}

/* ---- the user's terms: omega0/zeta, fractions, rates ----------------------------------- */

/* omega0 and zeta give k = m omega0^2 and c = 2 zeta sqrt(k m): each one or two roundings, so
 * within 4 ulp (4 * 2^-52 relative) of the exact values; zeta recovered from (k, c, m) the same. */
static void omega0_and_zeta_axes(void **state)
{
    (void)state;
    osc_config cfg;
    if (load_text("omega0: [1, 6.2831853]\nzeta: [0, 0.05, 1]\nmass: 2\ndt: 0.01\nsteps: 4\n",
                  &cfg))
        fail_msg("%s", err);
    const double w[] = {1, 6.2831853}, z[] = {0, 0.05, 1}, m = 2, tol = 4 * 0x1p-52;
    assert_int_equal(cfg.stiffness.count, 2);
    assert_int_equal(cfg.drag.count, 3);
    assert_int_equal(cfg.omega0_axis.count, 2);
    assert_int_equal(cfg.zeta_axis.count, 3);
    assert_int_equal(config_lane_count(&cfg), 6 * osc_method_count());
    for (size_t i = 0; i < 2; i++) {
        double k = cfg.stiffness.values[i];
        assert_true(fabs(k - m * w[i] * w[i]) <= tol * k);
        for (size_t j = 0; j < 3; j++) {
            double c = config_drag(&cfg, i, j, 0), want = 2 * z[j] * m * w[i];
            assert_true(fabs(c - want) <= tol * want);
            assert_true(fabs(c / (2 * sqrt(k * m)) - z[j]) <= tol * z[j]);
            assert_true(isnan(cfg.drag.values[j])); /* no single c per drag index */
        }
    }
    config_free(&cfg);
    /* tiny and huge masses: k m = m^2 omega0^2 is 1e-400 (underflows to 0), 1e-320 (subnormal,
     * few bits) and 9e600 (overflows), yet c = 2 zeta m omega0 is a normal double, within the
     * same 4 ulp */
    if (load_text("omega0: 3\nzeta: 0.5\nmass: [1e-200, 1e-160, 1e300]\ndt: 0.01\nsteps: 4\n",
                  &cfg))
        fail_msg("%s", err);
    for (size_t j = 0; j < 3; j++) {
        double want = 2 * 0.5 * cfg.mass.values[j] * 3, c = config_drag(&cfg, 0, 0, j);
        if (!(fabs(c - want) <= tol * want))
            fail_msg("mass %g: c %g, want 2 zeta m omega0 = %g", cfg.mass.values[j], c, want);
    }
    config_free(&cfg);
    /* stiffness with zeta mixes the two: c = 2 zeta sqrt(k m) */
    assert_int_equal(load_text("stiffness: 4\nzeta: 0.5\ndt: 0.1\nsteps: 1\n", &cfg), 0);
    assert_true(config_drag(&cfg, 0, 0, 0) == 2.0); /* 2 * 0.5 * sqrt(4 * 1), exact */
    config_free(&cfg);
    /* the old keys read as before */
    assert_int_equal(load_text("stiffness: 4\ndrag: 0.3\ndt: 0.1\nsteps: 1\n", &cfg), 0);
    assert_true(config_drag(&cfg, 0, 0, 0) == 0.3 && cfg.zeta_axis.count == 0);
    config_free(&cfg);
}

static void omega0_and_zeta_errors(void **state)
{
    (void)state;
    expect_error("stiffness: 1\nomega0: 1\ndt: 0.1\nsteps: 1\n",
                 ":2:1: omega0: give stiffness or omega0, not both");
    expect_error("omega0: 1\ndrag: 0\nzeta: 1\ndt: 0.1\nsteps: 1\n",
                 ":3:1: zeta: give drag or zeta, not both");
    expect_error("omega0: [1, 0]\nzeta: 0.1\ndt: 0.1\nsteps: 1\n",
                 ":2:7: zeta: zeta = c / (2 sqrt(k m)) needs every stiffness > 0 (omega0 0");
    expect_error("omega0: 1\nmass: 0\ndt: 0.1\nsteps: 1\n", ":2:7: mass: expected a mass > 0");
    expect_error("zeta: 1\ndt: 0.1\nsteps: 1\n",
                 ":1:1: stiffness: missing, a required key (or give omega0 instead)");
    expect_error("omega0: -1\ndt: 0.1\nsteps: 1\n", ":1:9: omega0: expected a number >= 0");
}

/* mass as an axis, a list or a range like stiffness. With omega0 and zeta, k = m omega0^2 and
 * c = 2 zeta sqrt(k m) per lane, rounded as written ((m * omega0) * omega0, then 2 zeta sqrt(k
 * m)): the same roundings as with one scalar mass, so the values are compared exactly. */
static void mass_axis(void **state)
{
    (void)state;
    osc_config cfg;
    if (load_text("methods: [rk4]\nomega0: [1, 7]\nzeta: [0, 0.1]\nmass: [0.5, 1, 3]\n"
                  "dt: 0.01\nsteps: 4\n", &cfg))
        fail_msg("%s", err);
    const double w[] = {1, 7}, z[] = {0, 0.1}, m[] = {0.5, 1, 3};
    assert_int_equal(cfg.mass.count, 3);
    assert_int_equal(config_lane_count(&cfg), 2 * 2 * 3);
    for (size_t j = 0; j < 3; j++) {
        assert_true(cfg.mass.values[j] == m[j]);
        for (size_t i = 0; i < 2; i++) {
            double k = config_stiffness(&cfg, i, j);
            assert_true(k == m[j] * w[i] * w[i]);
            assert_true(isnan(cfg.stiffness.values[i])); /* no single k per stiffness index */
            for (size_t d = 0; d < 2; d++)
                assert_true(config_drag(&cfg, i, d, j) == 2.0 * z[d] * sqrt(k * m[j]));
        }
    }
    config_free(&cfg);
    /* a range; k given as stiffness does not depend on m, and stiffness.values keeps it */
    if (load_text("stiffness: [1, 4]\nmass: {from: 1, to: 4, count: 4}\ndt: 0.1\nsteps: 1\n",
                  &cfg))
        fail_msg("%s", err);
    assert_int_equal(cfg.mass.count, 4);
    for (size_t j = 0; j < 4; j++)
        assert_true(cfg.mass.values[j] == 1.0 + (double)j);
    assert_true(config_stiffness(&cfg, 1, 3) == 4 && cfg.stiffness.values[1] == 4);
    config_free(&cfg);
    /* mass 0 pins lanes: allowed in a list when nothing divides by it */
    if (load_text("stiffness: 1\ndrag: 0.5\nmass: [0, 2]\ndt: 0.1\nsteps: 1\n", &cfg))
        fail_msg("%s", err);
    assert_true(cfg.mass.values[0] == 0 && config_drag(&cfg, 0, 0, 0) == 0.5);
    config_free(&cfg);
}

/* A bad mass list: exit 2, one line at the offending value. */
static void bad_mass_lists(void **state)
{
    (void)state;
    expect_error_extra("mass: []\n", ":4:7: mass: expected at least one value");
    expect_error_extra("mass: [1, -2]\n", ":4:11: mass: expected a number >= 0, got -2");
    expect_error_extra("mass: [1, x]\n", ":4:11: mass: expected a number, got 'x'");
    expect_error_extra("mass: {from: -1, to: 2, count: 3}\n",
                       ":4:14: mass.from: expected a number >= 0");
    expect_error_extra("mass: {from: 1, to: 2}\n", ":4:7: mass: a range needs from, to and count");
    expect_error("omega0: 1\nmass: [1, 0]\ndt: 0.1\nsteps: 1\n",
                 ":2:11: mass: expected a mass > 0 with omega0 (mass 0 pins a lane)");
    expect_error("stiffness: 1\nzeta: 0.1\nmass: {from: 0, to: 1, count: 3}\ndt: 0.1\nsteps: 1\n",
                 ":3:7: mass: expected every mass > 0 with zeta (mass 0 pins a lane), but the "
                 "range reaches 0");
    /* k = m omega0^2 must stay finite for every mass: 1e100 * 1e150^2 overflows */
    expect_error("omega0: 1e150\nmass: [1, 1e100]\ndt: 0.1\nsteps: 1\n",
                 ":1:9: omega0: k = m omega0^2 overflows a double (omega0 1e+150, mass 1e+100)");
    /* c = 2 zeta sqrt(k m) too: 4 sqrt(1e308 * 1e308) = 4e308 overflows at the second mass */
    expect_error("stiffness: 1e308\nzeta: [0, 2]\nmass: [1, 1e308]\ndt: 0.1\nsteps: 1\n",
                 ":2:7: zeta: c = 2 zeta sqrt(k m) overflows a double (zeta 2, stiffness 1e+308, "
                 "mass 1e+308)");
    /* with another mistake: both reported, each on its own line */
    expect_errors_bytes("stiffness: 1\nmass: [-1]\ndt: 0\nsteps: 1\n", 39,
                        ":3:5: dt: expected a positive number, got 0", false);
    expect_in_error(":2:8: mass: expected a number >= 0, got -1");
}

/* 1/60 is the double nearest 1/60: one division of two exact operands. */
static void fractions_and_rates(void **state)
{
    (void)state;
    osc_config cfg;
    if (load_text("stiffness: 1/4\ndt: [1/60, 1/120, 0.5]\nt_end: 3/2\n", &cfg))
        fail_msg("%s", err);
    assert_true(cfg.stiffness.values[0] == 0.25 && cfg.t_end == 1.5);
    assert_true(cfg.dt.values[0] == 1.0 / 60 && cfg.dt.values[1] == 1.0 / 120);
    assert_true(cfg.dt.values[2] == 0.5);
    config_free(&cfg);
    if (load_text("stiffness: 1\nrate_hz: [60, 120]\nt_end: 1\n", &cfg))
        fail_msg("%s", err);
    assert_int_equal(cfg.dt.count, 2);
    assert_true(cfg.dt.values[0] == 1.0 / 60 && cfg.dt.values[1] == 1.0 / 120);
    assert_int_equal(cfg.rate_hz.count, 2);
    assert_true(cfg.rate_hz.values[0] == 60 && cfg.rate_hz.values[1] == 120);
    config_free(&cfg);
    expect_error("stiffness: 1\ndt: 1/0\nsteps: 1\n", ":2:5: dt: expected a number, '1/0' divides");
    expect_error("stiffness: 1\ndt: 1/x\nsteps: 1\n", ":2:5: dt: expected a number, got '1/x'");
    expect_error("stiffness: 1\ndt: '1/60'\nsteps: 1\n", ":2:5: dt: expected a number");
    expect_error("stiffness: 1\ndt: -1/60\nsteps: 1\n", ":2:5: dt: expected a positive number");
    expect_error("stiffness: 1\ndt: 1e300/1e-300\nsteps: 1\n", ":2:5: dt: expected a finite");
    /* a part that overflows: inf/inf would be a NaN gravity (and 1/inf a silent 0) */
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 1\ngravity: 1e400/1e400\n",
                 ":4:10: gravity: expected a finite number, '1e400/1e400' overflows a double");
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 1\nx0: 1/1e400\n",
                 ":4:5: x0: expected a finite number, '1/1e400' overflows a double");
    expect_error("methods: [{name: q, family: rk, order: 1, a: [[0]], b: [-1e999/-1e999]}]\n"
                 "stiffness: 1\ndt: 0.1\nsteps: 1\n",
                 ":1:57: methods[0].b: expected a finite number, '-1e999/-1e999' overflows");
    expect_error("stiffness: 1\ndt: 0.1\nrate_hz: 60\nsteps: 1\n",
                 ":3:1: rate_hz: give dt or rate_hz, not both");
    expect_error("stiffness: 1\nrate_hz: 0\nsteps: 1\n", ":2:10: rate_hz: expected a positive");
    /* positive and finite, but 1/rate_hz is not (found by the fuzzer) */
    expect_error("stiffness: 1\nrate_hz: [60, 1e-321]\nsteps: 1\n",
                 ":2:10: rate_hz: dt = 1/rate_hz overflows a double (rate_hz 9.98013e-322)");
    expect_error("stiffness: 1\nsteps: 1\n",
                 ":1:1: dt: missing, a required key (or give rate_hz instead)");
}

static double loaded_dt(const char *text)
{
    osc_config cfg;
    if (load_text(text, &cfg) != 0)
        fail_msg("refused: %s", err);
    double dt = cfg.dt.values[0];
    config_free(&cfg);
    return dt;
}

/* dt below the smallest normal number of the run's precision (DBL_MIN, or FLT_MIN with
 * precision: float) is refused on its key and item, by dt, rate_hz or a range's end; the bound
 * itself is accepted, and a dt subnormal in float is fine in double. */
static void subnormal_dt_refused(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: 1e-310\nsteps: 1\n",
                 ":2:5: dt: expected a dt >= 2.22507e-308, the smallest normal double (the run's "
                 "precision), got 1e-310");
    expect_error("stiffness: 1\ndt: [0.1, 2e-308]\nsteps: 1\n",
                 ":2:11: dt: expected a dt >= 2.22507e-308");
    expect_error("stiffness: 1\ndt: {from: 1e-320, to: 1, count: 3, spacing: log}\nsteps: 1\n",
                 ":2:5: dt: expected a dt >= 2.22507e-308");
    expect_error("stiffness: 1\nrate_hz: [60, 1e308]\nsteps: 1\n",
                 ":2:15: rate_hz: expected dt = 1/rate_hz >= 2.22507e-308, the smallest normal "
                 "double (the run's precision), got 1e-308");
    expect_error("precision: float\nstiffness: 1\ndt: [1, 1e-39]\nsteps: 1\n",
                 ":3:9: dt: expected a dt >= 1.17549e-38, the smallest normal float (the run's "
                 "precision), got 1e-39");
    /* the bounds, written to 17 digits, are exactly DBL_MIN and FLT_MIN */
    assert_true(loaded_dt("stiffness: 1\ndt: 2.2250738585072014e-308\nsteps: 1\n") == DBL_MIN);
    assert_true(loaded_dt("precision: float\nstiffness: 1\ndt: 1.1754943508222875e-38\n"
                          "steps: 1\n") == FLT_MIN);
    assert_true(loaded_dt("stiffness: 1\ndt: 1e-39\nsteps: 1\n") == 1e-39);
}

/* A dt listed twice (equal in the run's precision, however written) is refused on its second
 * listing, naming the first; values that differ only in double are distinct there. */
static void repeated_dt_refused(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: [0.01, 0.02, 1/100]\nsteps: 1\n",
                 ":2:18: dt: value 3 (0.01) repeats value 1 in the run's precision: list each dt "
                 "once");
    expect_error("stiffness: 1\ndt: [0.04, 0.02, 0.04, 0.02]\nsteps: 1\n",
                 ":2:18: dt: value 3 (0.04) repeats value 1");
    expect_error("stiffness: 1\nrate_hz: [100, 50, 100.0]\nsteps: 1\n",
                 ":2:20: rate_hz: value 3 (dt = 1/rate_hz = 0.01) repeats value 1");
    expect_error("precision: float\nstiffness: 1\ndt: [0.1, 0.1000000001]\nsteps: 1\n",
                 ":3:11: dt: value 2 (0.1) repeats value 1 in the run's precision");
    osc_config cfg;
    if (load_text("stiffness: 1\ndt: [0.1, 0.1000000001]\nsteps: 1\n", &cfg))
        fail_msg("distinct in double: %s", err);
    assert_int_equal(cfg.dt.count, 2);
    config_free(&cfg);
}

/* Independent mistakes come back together, one located line each, in the file's key order of
 * checking; the count is capped at CONFIG_MAX_ERRORS. */
static void several_errors_reported_together(void **state)
{
    (void)state;
    osc_config cfg;
    assert_int_equal(load_text("methods: [rk4, semi-implict]\n"
                               "stifness: 1\n"
                               "dt: -0.1\n"
                               "steps: 10\n"
                               "precision: quad\n"
                               "maxima: sometimes\n"
                               "unstable_factor: 0.5\n",
                               &cfg),
                     2);
    const char *want[] = {
        ":2:1: stifness: unknown key (did you mean 'stiffness'?)",
        ":1:16: methods: unknown method 'semi-implict' (did you mean 'semi-implicit'?)",
        ":5:12: precision: unknown precision 'quad'",
        ":1:1: stiffness: missing",
        ":3:5: dt: expected a positive number",
        ":6:9: maxima: unknown maxima mode 'sometimes'",
        ":7:18: unstable_factor: expected a number >= 1",
    };
    const char *line = err;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        if (!line || strncmp(line, cfgpath, strlen(cfgpath)) != 0 ||
            strncmp(line + strlen(cfgpath), want[i], strlen(want[i])) != 0)
            fail_msg("line %zu of '%s': wanted '%s'", i + 1, err, want[i]);
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    assert_null(line);
    /* many bad keys: CONFIG_MAX_ERRORS lines, then how many more there were */
    char text[4096] = "stiffness: 1\ndt: 0.1\nsteps: 1\n";
    for (int i = 0; i < 2 * CONFIG_MAX_ERRORS; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "bad%d: 1\n", i);
    assert_int_equal(load_text(text, &cfg), 2);
    size_t n = 1;
    for (const char *s = err; *s; s++)
        n += *s == '\n';
    assert_int_equal(n, CONFIG_MAX_ERRORS + 1);
}

/* The line after the last one shown. */
static const char *after_lines(const char *s, size_t lines)
{
    for (size_t i = 0; s && i < lines; i++)
        s = strchr(s, '\n'), s = s ? s + 1 : NULL;
    return s;
}

/* Past CONFIG_MAX_ERRORS, the errors left out are counted on a last line naming the config,
 * within CONFIG_ERRORS_BYTES: 25 bad keys show 20 lines and "5 more". With a path so long that
 * fewer lines fit in the buffer (700 bytes: each line ~960), the count still fits and counts
 * every line left out. */
static void errors_beyond_the_cap_counted(void **state)
{
    (void)state;
    char text[1024] = "stiffness: 1\ndt: 0.1\nsteps: 1\n";
    for (int i = 0; i < 25; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "bad%d: 1\n", i);
    static char path[701], buf[CONFIG_ERRORS_BYTES], want[800];
    const char *paths[] = {"many.yaml", path};
    memset(path, 'p', sizeof path - 1);
    for (size_t i = 0; i < 2; i++) {
        osc_config cfg;
        assert_int_equal(config_load_text(paths[i], text, strlen(text), &cfg, buf, sizeof buf), 2);
        assert_true(strlen(buf) < sizeof buf);
        size_t shown = 0; /* the lines before the last, each a bad key's */
        for (const char *line = buf; after_lines(line, 1); line = after_lines(line, 1), shown++) {
            char key[16];
            snprintf(key, sizeof key, ":%zu:1: bad%zu:", shown + 4, shown);
            if (!strstr(line, key) || strstr(line, key) > strchr(line, '\n'))
                fail_msg("line %zu is not bad%zu's error: %.200s", shown + 1, shown, line);
        }
        if (i == 0)
            assert_int_equal(shown, CONFIG_MAX_ERRORS);
        else
            assert_true(shown >= 1 && shown < CONFIG_MAX_ERRORS); /* the bytes bind */
        snprintf(want, sizeof want, "%s: %zu more error%s not shown", paths[i], 25 - shown,
                 25 - shown == 1 ? "" : "s");
        const char *last = after_lines(buf, shown);
        if (!last || strcmp(last, want) != 0)
            fail_msg("after %zu lines, expected '%.80s...', got '%.200s'", shown, want,
                     last ? last : "(nothing)");
    }
}

/* Exactly one error beyond the 20 shown is "1 more error", singular (README: "N more errors
 * not shown"). */
static void one_more_error_is_singular(void **state)
{
    (void)state;
    char text[1024] = "stiffness: 1\ndt: 0.1\nsteps: 1\n";
    for (int i = 0; i < CONFIG_MAX_ERRORS + 1; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "bad%d: 1\n", i);
    static char buf[CONFIG_ERRORS_BYTES];
    osc_config cfg;
    assert_int_equal(config_load_text("many.yaml", text, strlen(text), &cfg, buf, sizeof buf), 2);
    const char *last = after_lines(buf, CONFIG_MAX_ERRORS);
    if (!last || strcmp(last, "many.yaml: 1 more error not shown") != 0)
        fail_msg("after %d lines, got '%.200s'", CONFIG_MAX_ERRORS, last ? last : "(nothing)");
}

static void method_typos_get_did_you_mean(void **state)
{
    (void)state;
    expect_error_extra("methods: rk5\n",
                       ":4:10: methods: unknown method 'rk5' (did you mean 'rk4'?)");
    expect_error_extra("methods: [forest]\n",
                       ":4:11: methods: unknown method 'forest' (did you mean 'forest-ruth'?)");
    /* nothing near: the list of valid names */
    expect_error_extra("methods: leapfrogging\n",
                       ":4:10: methods: unknown method 'leapfrogging' (valid: euler,");
    /* two edits away (a transposition) still gets its suggestion */
    expect_error_extra("methods: vrelet\n",
                       ":4:10: methods: unknown method 'vrelet' (did you mean 'verlet'?)");
    /* a prefix of several names suggests none */
    expect_error_extra("methods: ve\n", ":4:10: methods: unknown method 've' (valid:");
    /* every unknown name has its line, not only the first */
    const char *two = "stiffness: 1\ndt: 0.1\nsteps: 10\nmethods: [eulr, verlet, rk5]\n";
    expect_errors_bytes(two, strlen(two),
                        ":4:11: methods: unknown method 'eulr' (did you mean 'euler'?)\n", false);
    expect_in_error(":4:25: methods: unknown method 'rk5' (did you mean 'rk4'?)");
}

/* trace.where: the nearest grid point, for each method or those listed; after points' rows,
 * each row once. Layout (2 methods, 2 dt, 3 stiffness, 2 drag): row = ((m * 2 + dt) * 3 + k)
 * * 2 + c, so (dt 0.032, k 10, c 0.05) is row 9 for euler and 21 for rk4. */
static void traces_chosen_by_value(void **state)
{
    (void)state;
    const char *grid = "methods: [euler, rk4]\nstiffness: [1, 10, 100]\ndrag: [0, 0.05]\n"
                       "dt: [0.1, 0.032]\nsteps: 1\n";
    const struct {
        const char *trace;
        size_t rows[4], n;
    } cases[] = {
        {"trace: {every: 5, where: {stiffness: 9, drag: 0.06, dt: 0.03}}\n", {9, 21}, 2},
        {"trace: {where: {stiffness: 10, drag: 0.05, dt: 0.032}, methods: rk4}\n", {21}, 1},
        {"trace: {points: [0, 21], where: {stiffness: 10, drag: 0.05, dt: 0.032}}\n", {0, 21, 9},
         3},
        {"trace: {where: [{stiffness: 1, drag: 0, dt: 0.1}, {stiffness: 2, drag: 0.01, dt: 0.09}],"
         " methods: [euler]}\n", {0}, 1},
        /* each row where it is first listed, not sorted */
        {"trace: {where: [{stiffness: 100, drag: 0, dt: 0.1}, {stiffness: 1, drag: 0, dt: 0.1}, "
         "{stiffness: 100, drag: 0, dt: 0.1}, {stiffness: 1, drag: 0.05, dt: 0.1}], methods: "
         "[euler]}\n", {4, 0, 1}, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s", grid, cases[i].trace);
        osc_config cfg;
        if (load_text(text, &cfg))
            fail_msg("%s: %s", cases[i].trace, err);
        assert_int_equal(cfg.ntrace_points, cases[i].n);
        for (size_t j = 0; j < cases[i].n; j++)
            assert_int_equal(cfg.trace_points[j], cases[i].rows[j]);
        config_free(&cfg);
    }
    /* the user's units: omega0 (sqrt(k/m), here k = 4 omega0^2 with mass 4) and rate_hz */
    osc_config cfg;
    if (load_text("methods: [rk4]\nmass: 4\nomega0: [1, 3, 9]\nzeta: [0, 1]\n"
                  "rate_hz: [60, 120]\nsteps: 1\n"
                  "trace: {where: {omega0: 2.9, zeta: 0.9, rate_hz: 100}}\n",
                  &cfg))
        fail_msg("%s", err);
    assert_int_equal(cfg.ntrace_points, 1);
    assert_int_equal(cfg.trace_points[0], (1 * 3 + 1) * 2 + 1); /* 120 Hz, omega0 3, zeta 1 */
    config_free(&cfg);
    if (load_text("methods: [rk4]\nstiffness: [1, 9]\nrate_hz: 60\nsteps: 1\n"
                  "trace: {where: {omega0: 2.9}}\n", &cfg))
        fail_msg("%s", err);
    assert_int_equal(cfg.trace_points[0], 1); /* omega0 = sqrt(9/1) = 3; one dt, one drag */
    config_free(&cfg);
    /* several masses: mass is an axis of where too. Layout (1 method, 1 dt, 2 mass, 2 omega0,
     * 2 zeta): row = (mass * 2 + omega0) * 2 + zeta, so (mass 2, omega0 3, zeta 1) is row 7 */
    if (load_text("methods: [rk4]\nomega0: [1, 3]\nzeta: [0, 1]\nmass: [0.5, 2]\ndt: 0.1\n"
                  "steps: 1\ntrace: {where: {omega0: 3, zeta: 1, mass: 1.9}}\n", &cfg))
        fail_msg("%s", err);
    assert_int_equal(cfg.ntrace_points, 1);
    assert_int_equal(cfg.trace_points[0], 7);
    sweep_index at = layout_index(layout_of(&cfg), 7);
    assert_true(at.mass == 1 && at.stiffness == 1 && at.drag == 1);
    config_free(&cfg);
}

static void bad_trace_where(void **state)
{
    (void)state;
    const char *grid = "methods: [euler, rk4]\nstiffness: [1, 10]\ndrag: [0, 0.05]\n"
                       "dt: [0.1, 0.032]\nsteps: 1\n";
    const char *cases[][2] = {
        {"trace: {where: {stiffness: 1, drag: 0}}\n", ":6:16: trace.where: missing dt (the sweep "
                                                      "has 2 values of it)"},
        {"trace: {where: {stiffness: 1, omega0: 1, drag: 0, dt: 1}}\n",
         ":6:31: trace.where: give stiffness or omega0, not both"},
        {"trace: {where: {stiffness: 1, zeta: 0, dt: 1}}\n",
         ":6:31: trace.where.zeta: the sweep gives the damping as drag: use drag"},
        {"trace: {where: {stiffness: 1, drag: 0, dt: 1}, methods: [verlet]}\n",
         ":6:58: trace.methods: 'verlet' is not one of the run's methods"},
        {"trace: {methods: [rk4]}\n", ":6:9: trace.methods: chooses the methods of trace.where"},
        {"trace: {where: []}\n", ":6:16: trace.where: expected a mapping"},
        {"trace: {where: {stiffness: 1, drag: 0, dt: -1}}\n",
         ":6:44: trace.where.dt: expected a number >= 0"},
        {"trace: {where: {stifness: 1}}\n",
         ":6:17: trace.where.stifness: unknown key (did you mean 'stiffness'?)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s", grid, cases[i][0]);
        expect_errors_bytes(text, strlen(text), cases[i][1], false);
    }
    /* with several masses: mass is required, and k = m omega0^2 is no axis of its own */
    const char *masses = "methods: [rk4]\nomega0: [1, 3]\nmass: [0.5, 2]\ndt: 0.1\nsteps: 1\n";
    const char *mass_cases[][2] = {
        {"trace: {where: {omega0: 1}}\n", ":6:16: trace.where: missing mass (the sweep has 2 "
                                          "values of it)"},
        {"trace: {where: {stiffness: 1, mass: 2}}\n",
         ":6:17: trace.where.stiffness: with several masses the sweep gives the spring as omega0: "
         "use omega0"},
        {"trace: {where: {omega0: 1, mass: -2}}\n",
         ":6:34: trace.where.mass: expected a number >= 0"},
    };
    for (size_t i = 0; i < sizeof mass_cases / sizeof *mass_cases; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s", masses, mass_cases[i][0]);
        expect_errors_bytes(text, strlen(text), mass_cases[i][1], false);
    }
    /* 100 mappings over 10^6 + 3 grid values: each scans the stiffnesses (found by fuzzing) */
    char many[2048] = "methods: [euler]\nstiffness: {from: 1, to: 2, count: 1000000}\ndt: 0.1\n"
                      "steps: 1\ntrace: {where: [{stiffness: 1.5}";
    for (int i = 1; i < 100; i++)
        strcat(many, ", {stiffness: 1}");
    strcat(many, "]}\n");
    expect_error(many, ":5:16: trace.where: 100 mappings over a grid of 1000003 values: more than "
                       "1e+08 comparisons");
}

/* The shipped configs trace what their comments promise (the suite runs in the source root).
 * default.yaml: per method, k = 1, drag 0.05, dt 0.032, the rows it used to list by number.
 * damping.yaml: the regimes, k = 1 with drag 0.5, 2 and 8, and the free particle (k = 0) under
 * drag 0.5, by semi-implicit and rk4 at dt 0.02 (it used to trace four k = 0 lanes). */
static void shipped_configs_trace_their_promise(void **state)
{
    (void)state;
    osc_config cfg;
    if (config_load("configs/default.yaml", &cfg, err, sizeof err))
        fail_msg("%s", err);
    const size_t old_rows[] = {5461, 11605, 17749, 23893, 30037, 36181, 42325, 48469, 54613};
    assert_int_equal(cfg.ntrace_points, sizeof old_rows / sizeof *old_rows);
    for (size_t i = 0; i < cfg.ntrace_points; i++)
        assert_int_equal(cfg.trace_points[i], old_rows[i]);
    config_free(&cfg);
    if (config_load("configs/damping.yaml", &cfg, err, sizeof err))
        fail_msg("%s", err);
    const double want[][2] = {{1, 0.5}, {1, 2}, {1, 8}, {0, 0.5}}; /* (k, c) */
    assert_int_equal(cfg.ntrace_points, 8);
    sweep_layout lay = layout_of(&cfg);
    for (size_t i = 0; i < cfg.ntrace_points; i++) {
        sweep_index at = layout_index(lay, cfg.trace_points[i]);
        const char *method = cfg.methods[at.method]->name;
        assert_string_equal(method, i % 2 ? "rk4" : "semi-implicit"); /* per point, each method */
        assert_true(cfg.dt.values[at.dt] == 0.02);
        assert_true(cfg.stiffness.values[at.stiffness] == want[i / 2][0]);
        assert_true(config_drag(&cfg, at.stiffness, at.drag, at.mass) == want[i / 2][1]);
    }
    config_free(&cfg);
}

/* ---- valid configs ---------------------------------------------------------------------- */

static void minimal_config_gets_defaults(void **state)
{
    (void)state;
    osc_config cfg;
    assert_int_equal(load_text(base, &cfg), 0);
    assert_string_equal(cfg.path, cfgpath);
    assert_string_equal(cfg.name, "c");
    assert_string_equal(cfg.text, base);
    assert_int_equal(cfg.nmethods, osc_method_count());
    for (size_t i = 0; i < cfg.nmethods; i++)
        assert_ptr_equal(cfg.methods[i], osc_method_at(i));
    assert_int_equal(cfg.precision, OSC_DOUBLE);
    assert_int_equal(cfg.dim, 1);
    assert_int_equal(cfg.stiffness.count, 1);
    assert_true(cfg.stiffness.values[0] == 1.0);
    assert_int_equal(cfg.drag.count, 1);
    assert_true(cfg.drag.values[0] == 0.0);
    assert_true(cfg.dt.values[0] == 0.1);
    assert_true(cfg.gravity == 0.0 && cfg.mass.count == 1 && cfg.mass.values[0] == 1.0);
    assert_true(cfg.x0[0] == 1.0 && cfg.v0[0] == 0.0);
    assert_int_equal(cfg.steps, 10);
    assert_true(cfg.t_end == 0.0);
    assert_false(cfg.trace || cfg.convergence || cfg.stability || cfg.has_stability_zeta);
    assert_int_equal(cfg.audit_every, 0);
    assert_false(cfg.maxima_sampled);
    assert_true(cfg.unstable_factor == 1000.0 && isinf(cfg.unstable_drift));
    assert_int_equal(config_lane_count(&cfg), osc_method_count());
    config_free(&cfg);
}

static const char full[] =
    "# every key\n"
    "name: full-run\n"
    "methods: [semi-implicit]\n"
    "precision: float\n"
    "x0: [0.5, -2]\n" /* before dim: order in the file does not matter */
    "dim: 2\n"
    "v0: 3\n"
    "stiffness: {from: 1, to: 100, count: 3, spacing: log}\n"
    "drag: [0, 0.5]\n"
    "dt: {from: 0.1, to: 0.2, count: 5}\n"
    "gravity: -9.81\n"
    "mass: 2.5\n"
    "t_end: 10\n"
    "trace: {every: 4, points: [0, 29]}\n"
    "analyses: [convergence, stability]\n"
    "stability: {zeta: [0, 0.5, 1e0]}\n"
    "audit_every: 1e3\n"
    "maxima: audits\n"
    "unstable_factor: 50\n"
    "unstable_drift: 0.1\n";

static void full_config_loads_every_key(void **state)
{
    (void)state;
    osc_config cfg;
    if (load_text(full, &cfg))
        fail_msg("%s", err);
    assert_string_equal(cfg.name, "full-run");
    assert_int_equal(cfg.nmethods, 1);
    assert_string_equal(cfg.methods[0]->name, "semi-implicit");
    assert_int_equal(cfg.precision, OSC_FLOAT);
    assert_int_equal(cfg.dim, 2);
    assert_true(cfg.x0[0] == 0.5 && cfg.x0[1] == -2.0);
    assert_true(cfg.v0[0] == 3.0 && cfg.v0[1] == 3.0);
    assert_int_equal(cfg.stiffness.count, 3);
    assert_true(cfg.stiffness.values[0] == 1.0 && cfg.stiffness.values[2] == 100.0);
    assert_true(fabs(cfg.stiffness.values[1] - 10.0) < 1e-12);
    assert_int_equal(cfg.drag.count, 2);
    assert_true(cfg.drag.values[1] == 0.5);
    assert_int_equal(cfg.dt.count, 5);
    assert_true(cfg.dt.values[0] == 0.1 && cfg.dt.values[4] == 0.2);
    assert_true(fabs(cfg.dt.values[2] - 0.15) < 1e-15);
    assert_true(cfg.gravity == -9.81 && cfg.mass.count == 1 && cfg.mass.values[0] == 2.5);
    assert_true(cfg.t_end == 10.0);
    assert_int_equal(cfg.steps, -1);
    assert_true(cfg.trace);
    assert_int_equal(cfg.trace_every, 4);
    assert_int_equal(cfg.ntrace_points, 2);
    assert_int_equal(cfg.trace_points[1], 29);
    assert_true(cfg.convergence && cfg.stability);
    assert_true(cfg.has_stability_zeta);
    assert_int_equal(cfg.stability_zeta.count, 3);
    assert_true(cfg.stability_zeta.values[2] == 1.0);
    assert_int_equal(cfg.audit_every, 1000);
    assert_true(cfg.maxima_sampled);
    assert_true(cfg.unstable_factor == 50.0 && cfg.unstable_drift == 0.1);
    assert_int_equal(config_lane_count(&cfg), 1 * 5 * 3 * 2);
    config_free(&cfg);
}

static void range_of_one_is_from_and_scalar_methods_work(void **state)
{
    (void)state;
    osc_config cfg;
    const char *text = "stiffness: {from: 4, to: 9, count: 1}\ndt: 0.1\nsteps: 1\n"
                       "methods: semi-implicit\nanalyses: stability\ntrace: {}\n";
    if (load_text(text, &cfg))
        fail_msg("%s", err);
    assert_int_equal(cfg.stiffness.count, 1);
    assert_true(cfg.stiffness.values[0] == 4.0);
    assert_int_equal(cfg.nmethods, 1);
    assert_true(cfg.stability && !cfg.convergence);
    assert_true(cfg.trace);
    assert_int_equal(cfg.trace_every, 1);
    assert_int_equal(cfg.ntrace_points, 0);
    config_free(&cfg);
}

static void default_name_is_sanitized_stem(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/my run.v2.yaml", tmpdir);
    write_bytes(path, base, strlen(base));
    osc_config cfg;
    assert_int_equal(config_load(path, &cfg, err, sizeof err), 0);
    assert_string_equal(cfg.name, "my_run.v2");
    config_free(&cfg);
}

static void later_errors_are_located_by_key(void **state)
{
    (void)state;
    osc_config cfg;
    assert_int_equal(load_text(base, &cfg), 0);
    char msg[300], want[300];
    assert_int_equal(config_error(&cfg, "dt", msg, sizeof msg, "too many steps (%d)", 7), 2);
    snprintf(want, sizeof want, "%s:2:5: dt: too many steps (7)", cfgpath);
    assert_string_equal(msg, want);
    config_error(&cfg, "gravity", msg, sizeof msg, "not given");
    snprintf(want, sizeof want, "%s: gravity: not given", cfgpath);
    assert_string_equal(msg, want);
    config_free(&cfg);
}

/* ---- the file itself -------------------------------------------------------------------- */

static void missing_file(void **state)
{
    (void)state;
    osc_config cfg;
    assert_int_equal(config_load("no/such/x.yaml", &cfg, err, sizeof err), 2);
    assert_string_equal(err, "no/such/x.yaml: cannot open: No such file or directory");
}

static void directory_instead_of_file(void **state)
{
    (void)state;
    char path[300], want[400];
    snprintf(path, sizeof path, "%s/sub", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    osc_config cfg;
    assert_int_equal(config_load(path, &cfg, err, sizeof err), 2);
    snprintf(want, sizeof want, "%s: cannot read: Is a directory", path);
    assert_string_equal(err, want);
    rmdir(path);
}

static void file_too_large(void **state)
{
    (void)state;
    FILE *f = fopen(cfgpath, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)CONFIG_MAX_BYTES + 1), 0); /* sparse */
    fclose(f);
    osc_config cfg;
    assert_int_equal(config_load(cfgpath, &cfg, err, sizeof err), 2);
    expect_in_error(": larger than 16 MiB");
    /* not a regular file: read until the cap */
    assert_int_equal(config_load("/dev/zero", &cfg, err, sizeof err), 2);
    assert_string_equal(err, "/dev/zero: larger than 16 MiB, not a config");
}

static void empty_and_comment_only_files(void **state)
{
    (void)state;
    expect_error("", ":1:1: empty config");
    expect_error("# nothing here\n\n", ":1:1: empty config");
    expect_error("---\n", ":1:1: empty config");
}

static void malformed_yaml(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: [0.1, 0.2\nsteps: 3\n",
                 ":3:6: malformed YAML: did not find expected");
    expect_error("a: b: c\n", ":1:5: malformed YAML");
    expect_error("stiffness: 1\n  dt: 2\n", ":2:5: malformed YAML");
    expect_error("stiffness: 1\n---\ndt: 1\n", ":2:1: expected one YAML document");
    expect_error("stiffness: 1\ndt: 0.1 \xff\n", ":2:9: malformed YAML: invalid leading UTF-8");
}

static void top_level_not_a_mapping(void **state)
{
    (void)state;
    expect_error("- stiffness\n- dt\n", ":1:1: expected a mapping of config keys at the top, "
                                        "not a list");
    expect_error("just words\n", ":1:1: expected a mapping of config keys at the top, "
                                 "not a scalar");
}

static void nul_byte(void **state)
{
    (void)state;
    static const char text[] = "stiffness: 1\ndt: 0.\0 1\nsteps: 3\n";
    expect_error_bytes(text, sizeof text - 1, ":2:7: NUL byte");
}

/* A \0 escape puts a NUL inside a quoted scalar: it must not silently cut the string short
 * ("rk4\0evil" loading as rk4, a key "stiffness\0junk" as stiffness). Found by fuzzing. */
static void nul_escape(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 3\nmethods: [\"rk4\\x00evil\"]\n",
                 ":4:11: NUL character");
    expect_error("\"stiffness\\0junk\": 1\ndt: 0.1\nsteps: 3\n", ":1:1: NUL character");
}

/* t_end / dt becomes a step count: beyond 2^53 it is no longer a whole number of steps (and
 * converting it to an integer overflowed). Found by fuzzing. */
static void steps_overflow(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: [1e300, 1e-300]\nt_end: 1e300\n",
                 ":3:8: t_end: t_end / dt = inf steps for dt = 1e-300, more than 2^53");
    expect_error("stiffness: 1\ndt: 0.01\nt_end: 1e17\n", ":3:8: t_end: t_end / dt = 1e+19");
}

/* ---- keys ------------------------------------------------------------------------------- */

static void unknown_keys(void **state)
{
    (void)state;
    expect_error_extra("maxima: sometimes\n",
                       ":4:9: maxima: unknown maxima mode 'sometimes' (valid: every_step, audits)");
    expect_error_extra("unstable_factor: 0.5\n", ":4:18: unstable_factor: expected a number >= 1");
    /* 0 and negatives break the same rule as 0.5 and say so (not "a positive number") */
    expect_error_extra("unstable_factor: 0\n", ":4:18: unstable_factor: expected a number >= 1");
    expect_error_extra("unstable_factor: -3\n", ":4:18: unstable_factor: expected a number >= 1");
    expect_error_extra("unstable_drift: -0.1\n", ":4:17: unstable_drift: expected a positive number");
    expect_error_extra("unstable_drift: [1]\n", ":4:17: unstable_drift: expected a number, not a list");
    expect_error_extra("stifness: 2\n", ":4:1: stifness: unknown key (did you mean 'stiffness'?)");
    expect_error_extra("colour: red\n", ":4:1: colour: unknown key (known keys: name, methods");
    expect_error_extra("[a]: 1\n", ":4:1: expected a key name, not a list");
    expect_error_extra("drag: {from: 0, to: 1, cont: 3}\n",
                       ":4:24: drag.cont: unknown key (did you mean 'count'?)");
    expect_error_extra("trace: {every: 2, pionts: [0]}\n",
                       ":4:19: trace.pionts: unknown key (did you mean 'points'?)");
    expect_error_extra("stability: {zetas: [0]}\n", ":4:13: stability.zetas: unknown key");
    expect_error_extra("stability: {zeta: {from: 0, to: 1, count: 10001}}\n",
                       ":4:19: stability.zeta: at most 10000 damping ratios, got 10001");
    expect_error_extra("stability: {zeta: [0, -1]}\n",
                       ":4:23: stability.zeta: expected a number >= 0");
    expect_error_extra("stability: [0.5]\n", ":4:12: stability: expected a mapping {zeta");
}

/* A key that takes a mapping says what it got instead, whole: a scalar quoted back, a list as
 * a list. */
static void not_a_mapping_says_what_it_got(void **state)
{
    (void)state;
    const char *want[] = {":4:8: trace: expected a mapping {every: N, points: [row, ...]}, got '5'",
                          ":4:12: stability: expected a mapping {zeta: ...}, not a list"};
    expect_error_extra("trace: 5\n", want[0]);
    assert_string_equal(err + strlen(cfgpath), want[0]);
    expect_error_extra("stability: [0.5]\n", want[1]);
    assert_string_equal(err + strlen(cfgpath), want[1]);
}

static void duplicate_keys(void **state)
{
    (void)state;
    expect_error_extra("dt: 0.2\n", ":4:1: dt: duplicate key (first at line 2)");
    expect_error_extra("drag: {from: 0, to: 1, from: 3, count: 2}\n",
                       ":4:24: drag.from: duplicate key (first at line 4)");
}

static void missing_required_keys(void **state)
{
    (void)state;
    expect_error("dt: 0.1\nsteps: 10\n", ":1:1: stiffness: missing, a required key");
    expect_error("stiffness: 1\nsteps: 10\n", ":1:1: dt: missing, a required key");
    expect_error("stiffness: 1\ndt: 0.1\n", ":1:1: t_end: missing: give t_end or steps");
}

static void both_t_end_and_steps(void **state)
{
    (void)state;
    expect_error_extra("t_end: 5\n", ":4:1: t_end: give t_end or steps, not both");
    expect_error("stiffness: 1\ndt: 0.1\nt_end: 5\nsteps: 3\n",
                 ":4:1: steps: give t_end or steps, not both");
}

/* ---- values ----------------------------------------------------------------------------- */

static void wrong_types(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: fast\nsteps: 3\n", ":2:5: dt: expected a number, got 'fast'");
    expect_error("stiffness: 1\ndt: \"0.1\"\nsteps: 3\n",
                 ":2:5: dt: expected a number, got the string '0.1' (quoted or !!str)");
    expect_error("stiffness: 1\ndt: !!str 0.1\nsteps: 3\n",
                 ":2:5: dt: expected a number, got the string '0.1' (quoted or !!str)");
    /* a tag the loader would drop, reading the value as if untagged, is refused where it is */
    const char *const dropped[][2] = {{"!!null 0.1", "!!null"}, {"!!int 0.1", "!!int"},
                                      {"!custom 0.1", "!custom"}, {"! 0.1", "!"},
                                      {"!!set [0.1]", "!!set"}, {"!!seq {from: 1}", "!!seq"}};
    for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++) {
        char text[96], want[96];
        snprintf(text, sizeof text, "stiffness: 1\ndt: %s\nsteps: 3\n", dropped[i][0]);
        snprintf(want, sizeof want, ":2:5: dt: YAML tag %s not supported here (only !!str, ",
                 dropped[i][1]);
        expect_error(text, want);
    }
    /* named by the key they sit under, dotted as the loader's other errors are; a tagged key
     * (or a tag at the top) has none */
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 3\nx0: [!custom 1]\n",
                 ":4:6: x0: YAML tag !custom not supported here");
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 3\nstability: {zeta: [!!bool 1]}\n",
                 ":4:20: stability.zeta: YAML tag !!bool not supported here");
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 3\n!custom x0: 1\n",
                 ":4:1: YAML tag !custom not supported here");
    /* the tags that say what the node is read as */
    osc_config cfg;
    if (load_text("stiffness: !!float 1\ndt: !!seq [!!float 0.1]\nsteps: !!int 3\n"
                  "trace: !!map {every: !!int +1}\n", &cfg))
        fail_msg("tags of the nodes' own kinds: %s", err);
    assert_true(cfg.dt.values[0] == 0.1 && cfg.steps == 3 && cfg.trace_every == 1);
    config_free(&cfg);
    expect_error("stiffness: 1\ndt:\nsteps: 3\n", ":2:4: dt: expected a number, got ''");
    expect_error("stiffness: 1\ndt: [0.1, [0.2]]\nsteps: 3\n",
                 ":2:11: dt: expected a number, not a list");
    expect_error_extra("mass: [1, [2]]\n", ":4:11: mass: expected a number, not a list");
    expect_error_extra("gravity: {down: 1}\n", ":4:10: gravity: expected a number, not a mapping");
    expect_error("stiffness: 1\ndt: 0.1\nsteps: many\n",
                 ":3:8: steps: expected a number, got 'many'");
    expect_error_extra("name: [a]\n", ":4:7: name: expected a string, not a list");
    expect_error_extra("trace: 5\n", ":4:8: trace: expected a mapping {every: N");
    expect_error_extra("analyses: {convergence: 1}\n", ":4:11: analyses: expected a list");
    expect_error_extra("methods: {euler: 1}\n", ":4:10: methods: expected a list of method names");
}

static void out_of_range_numbers(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: 0\nsteps: 3\n", ":2:5: dt: expected a positive number, got 0");
    expect_error("stiffness: 1\ndt: -0.1\nsteps: 3\n",
                 ":2:5: dt: expected a positive number, got -0.1");
    expect_error("stiffness: 1\ndt: [0.1, -0.0]\nsteps: 3\n",
                 ":2:11: dt: expected a positive number");
    expect_error("stiffness: -1\ndt: 0.1\nsteps: 3\n",
                 ":1:12: stiffness: expected a number >= 0, got -1");
    expect_error_extra("drag: [0, -0.5]\n", ":4:11: drag: expected a number >= 0");
    expect_error_extra("mass: -1\n", ":4:7: mass: expected a number >= 0");
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 0\n",
                 ":3:8: steps: expected a whole number from 1 to");
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 2.5\n",
                 ":3:8: steps: expected a whole number from 1 to");
    expect_error("stiffness: 1\ndt: 0.1\nt_end: 0\n", ":3:8: t_end: expected a positive number");
    expect_error("stiffness: 1\ndt: 0.1\nt_end: -3\n", ":3:8: t_end: expected a positive number");
}

/* 2^53 + 1 has no double: read as one it is 2^53, the top of the range, but as written it is
 * beyond it. 2^53 itself is taken. */
static void whole_numbers_beyond_2_53_as_written(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 9007199254740993\n",
                 ":3:8: steps: expected a whole number from 1 to 9007199254740992");
    expect_error("stiffness: 1\ndt: 0.1\nsteps: +9007199254740993\n",
                 ":3:8: steps: expected a whole number from 1 to 9007199254740992");
    expect_error_extra("audit_every: 9007199254740993\n",
                       ":4:14: audit_every: expected a whole number from 1 to 9007199254740992");
    expect_error_extra("trace: {every: 9007199254740993}\n",
                       ":4:16: trace.every: expected a whole number from 1 to 9007199254740992");
    expect_error_extra("audit_every: 18446744073709551617\n", /* beyond unsigned long long */
                       ":4:14: audit_every: expected a whole number from 1 to 9007199254740992");
    osc_config cfg;
    assert_int_equal(load_text("stiffness: 1\ndt: 0.1\nsteps: 9007199254740992\n", &cfg), 0);
    assert_true(cfg.steps == 9007199254740992L);
    config_free(&cfg);
}

/* A whole number is read from its text, exactly: a double rounds these to whole numbers in range
 * (2^53, 2, 0), and a fraction to the quotient of two rounded numbers. */
static void whole_numbers_read_exactly(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "9007199254740993.0", "9.007199254740993e15", "90071992547409930e-1", "2.0000000000000001",
        "1e-400", "6/4", "1/3", "18014398509481986/2", "2e20/1e4", "12345678901234567890123",
        "1e25", "-2/-0.5e-99",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char text[128];
        snprintf(text, sizeof text, "stiffness: 1\ndt: 0.1\nsteps: %s\n", refused[i]);
        expect_error(text, ":3:8: steps: expected a whole number from 1 to 9007199254740992");
    }
    static const struct {
        const char *text;
        long steps;
    } taken[] = {
        {"10/0.01", 1000}, {"120/2", 60}, {"2.50e1", 25}, {"-10/-2", 5}, {"0.0007e4", 7},
        {"1e20/95367431640625", 1048576}, /* 10^20 / 5^20 = 2^20 */
        {"5.000000000000000000000000e3", 5000}, {"18014398509481984/2", 9007199254740992L},
        {"+9007199254740992e0", 9007199254740992L}, {"1001", 1001}, {"3/0.75", 4},
    };
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        char text[128];
        snprintf(text, sizeof text, "stiffness: 1\ndt: 0.1\nsteps: %s\n", taken[i].text);
        osc_config cfg;
        if (load_text(text, &cfg) != 0)
            fail_msg("steps: %s refused", taken[i].text);
        if (cfg.steps != taken[i].steps)
            fail_msg("steps: %s read as %ld, not %ld", taken[i].text, (long)cfg.steps, taken[i].steps);
        config_free(&cfg);
    }
    expect_error_extra("trace: {points: [1e-400]}\n",
                       ":4:18: trace.points: expected a whole number");
}

static void nan_and_inf_in_every_spelling(void **state)
{
    (void)state;
    const char *spellings[] = {".nan", ".NaN", ".NAN", "nan", "NaN", "NAN", ".inf", ".Inf",
                               ".INF", "-.inf", "+.inf", "-.Inf", "+.INF", "inf", "-inf",
                               "+inf", "Inf", "INF", "infinity", "-Infinity", "nan(1)"};
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        char text[200];
        snprintf(text, sizeof text, "stiffness: 1\ndt: %s\nsteps: 3\n", spellings[i]);
        expect_error(text, ":2:5: dt: expected a finite number");
        snprintf(text, sizeof text, "%sgravity: %s\n", base, spellings[i]);
        expect_error(text, ":4:10: gravity: expected a finite number");
        snprintf(text, sizeof text, "%sdrag: [0, %s]\n", base, spellings[i]);
        expect_error(text, ":4:11: drag: expected a finite number");
        snprintf(text, sizeof text, "%sdrag: {from: 0, to: %s, count: 2}\n", base, spellings[i]);
        expect_error(text, ":4:21: drag.to: expected a finite number");
    }
}

static void overflow_and_garbage(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: 1e999\nsteps: 3\n",
                 ":2:5: dt: expected a finite number, '1e999' overflows a double");
    expect_error_extra("gravity: -1e999\n", ":4:10: gravity: expected a finite number");
    expect_error("stiffness: 1\ndt: 1.5x\nsteps: 3\n", ":2:5: dt: expected a number, got '1.5x'");
    expect_error("stiffness: 1\ndt: 1.5 x\nsteps: 3\n", ":2:5: dt: expected a number");
    expect_error("stiffness: 1\ndt: 0x10\nsteps: 3\n", ":2:5: dt: expected a number");
    expect_error("stiffness: 1\ndt: 1e\nsteps: 3\n", ":2:5: dt: expected a number");
    expect_error("stiffness: 1\ndt: .\nsteps: 3\n", ":2:5: dt: expected a number");
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 1e300\n", ":3:8: steps: expected a whole number");
}

/* ---- -0 reads as +0 wherever a number is read ------------------------------------------ */

/* k = -0 would give omega0 = sqrt(-0) = -0 (IEEE 754) and zeta = c / (2 sqrt(k m)) = -inf for
 * c > 0, and "-0" in the results file. A number is written as 0 and as each spelling of -0 into
 * the base config: `replaces` names the base key (if any) the case's lines take the place of,
 * `text` holds "@" where the number goes (last on its line, so that no later column moves), and
 * `loads` says whether the config with 0 loads (else 0 is out of range there). */
typedef struct zero_case {
    const char *key, *replaces, *text;
    bool loads;
} zero_case;

static const char *const zero_base[][2] = {
    {"methods", "methods: [euler]"}, {"stiffness", "stiffness: 1"}, {"dt", "dt: 0.1"},
    {"steps", "steps: 3"}};

#define RK "methods:\n  - {name: m, family: rk, "
#define RKN "methods:\n  - {name: m, family: rkn, order: 1, "
#define RKN_A "a: [[], [0]], bbar: [0.5, 0], b: [1, 0], "
static const zero_case zero_cases[] = {
    {"dim", "", "dim: @", false},
    {"stiffness", "stiffness", "stiffness: @", true},
    {"stiffness.from", "stiffness", "stiffness: {to: 1, count: 2, from: @}", true},
    {"stiffness.from, log", "stiffness", "stiffness: {to: 1, count: 2, spacing: log, from: @}",
     false},
    {"omega0", "stiffness", "omega0: @", true},
    {"drag", "", "drag: @", true},
    {"drag[1]", "", "drag: [1, @]", true},
    {"drag.to", "", "drag: {from: 1, count: 2, to: @}", true},
    {"drag.count", "", "drag: {from: 0, to: 1, count: @}", false},
    {"zeta", "", "zeta: @", true},
    {"dt", "dt", "dt: @", false},
    {"rate_hz", "dt", "rate_hz: @", false},
    {"gravity", "", "gravity: @", true},
    {"mass", "", "mass: @", true},
    {"mass[1]", "", "mass: [1, @]", true},
    {"mass[1], with omega0", "stiffness", "omega0: 1\nmass: [1, @]", false},
    {"x0", "", "x0: @", true},
    {"x0[1]", "", "dim: 2\nx0: [1, @]", true},
    {"v0", "", "v0: @", true},
    {"v0[2]", "", "dim: 3\nv0: [1, 1, @]", true},
    {"t_end", "steps", "t_end: @", false},
    {"steps", "steps", "steps: @", false},
    {"trace.every", "", "trace: {every: @}", false},
    {"trace.points", "", "trace: {points: [@]}", true},
    {"trace.where.stiffness", "stiffness", "stiffness: [0, 1]\ntrace: {where: {stiffness: @}}",
     true},
    {"trace.where.omega0", "stiffness", "omega0: [0, 1]\ntrace: {where: {omega0: @}}", true},
    {"trace.where.drag", "", "drag: [0, 1]\ntrace: {where: {drag: @}}", true},
    {"trace.where.zeta", "", "zeta: [0, 1]\ntrace: {where: {zeta: @}}", true},
    {"trace.where.dt", "dt", "dt: [0.1, 0.2]\ntrace: {where: {dt: @}}", true},
    {"trace.where.rate_hz", "dt", "rate_hz: [10, 20]\ntrace: {where: {rate_hz: @}}", true},
    {"trace.where.mass", "", "mass: [0, 1]\ntrace: {where: {mass: @}}", true},
    {"stability.zeta", "", "stability: {zeta: @}", true},
    {"stability.zeta[1]", "", "stability: {zeta: [1, @]}", true},
    {"audit_every", "", "audit_every: @", false},
    {"unstable_factor", "", "unstable_factor: @", false},
    {"unstable_drift", "", "unstable_drift: @", false},
    {"methods[0].order", "methods", RK "a: [[0]], b: [1], order: @}", false},
    {"methods[0].a", "methods", RK "order: 1, b: [0.5, 0.5], a: [[0], [1, @]]}", true},
    {"methods[0].b", "methods", RK "order: 1, a: [[0], [1]], b: [1, @]}", true},
    {"methods[0].b, quoted", "methods", RK "order: 1, a: [[0], [1]], b: [1, \"@\"]}", true},
    {"methods[0].c", "methods", RK "order: 1, a: [[0], [0]], b: [0.5, 0.5], c: [0, @]}", true},
    {"methods[0].abar", "methods", RKN RKN_A "abar: [[], [@]]}", true},
    {"methods[0].a, rkn", "methods", RKN "abar: [[], [0]], bbar: [0.5, 0], b: [1, 0], "
                                         "a: [[], [@]]}", true},
    {"methods[0].bbar", "methods", RKN "abar: [[], [0]], a: [[], [0]], b: [1, 0], "
                                       "bbar: [0.5, @]}", true},
    {"methods[0].b, rkn", "methods", RKN "abar: [[], [0]], a: [[], [0]], bbar: [0.5, 0], "
                                         "b: [1, @]}", true},
    {"methods[0].c, rkn", "methods", RKN "abar: [[], [0]], " RKN_A "c: [0, @]}", true},
    {"methods[0].weights", "methods",
     "methods:\n  - {name: m, family: composition, order: 1, base: euler, weights: [1, @]}",
     true},
};
#undef RK
#undef RKN
#undef RKN_A

/* The loader's keys that hold no number (their values are names and choices); the numbers
 * inside `methods`, `trace` and `stability` have cases of their own above. */
static const char *const keys_without_numbers[] = {"name", "precision", "analyses", "maxima"};

/* What a config loaded to: its status, error, and every number of it (the makers' coefficients
 * included), in a fixed order. */
typedef struct zero_load {
    int rc;
    char message[sizeof err];
    double v[512];
    size_t n;
} zero_load;

static void add_numbers(zero_load *z, const double *v, size_t n)
{
    assert_true(z->n + n <= sizeof z->v / sizeof z->v[0]);
    if (n)
        memcpy(z->v + z->n, v, n * sizeof *v);
    z->n += n;
}

static void config_numbers(const osc_config *cfg, zero_load *z)
{
    const sweep *sweeps[] = {&cfg->stiffness,   &cfg->drag, &cfg->dt,   &cfg->omega0_axis,
                             &cfg->zeta_axis,   &cfg->rate_hz, &cfg->mass,
                             &cfg->stability_zeta};
    for (size_t i = 0; i < sizeof sweeps / sizeof sweeps[0]; i++)
        add_numbers(z, sweeps[i]->values, sweeps[i]->count);
    const double scalars[] = {cfg->gravity,         cfg->t_end,           cfg->unstable_factor,
                              cfg->unstable_drift,  (double)cfg->dim,     (double)cfg->steps,
                              (double)cfg->trace_every, (double)cfg->audit_every};
    add_numbers(z, scalars, sizeof scalars / sizeof scalars[0]);
    add_numbers(z, cfg->x0, OSC_MAX_DIM);
    add_numbers(z, cfg->v0, OSC_MAX_DIM);
    for (size_t i = 0; i < cfg->ntrace_points; i++) {
        const double row = (double)cfg->trace_points[i];
        add_numbers(z, &row, 1);
    }
    add_numbers(z, made, nmade);
}

/* text with each "@" replaced by `number`, loaded into *z. */
static void load_with(const char *text, const char *number, zero_load *z)
{
    char yaml[1024];
    size_t len = 0;
    for (const char *s = text; *s; s++) {
        const char *piece = *s == '@' ? number : s;
        size_t n = *s == '@' ? strlen(number) : 1;
        assert_true(len + n < sizeof yaml);
        memcpy(yaml + len, piece, n);
        len += n;
    }
    yaml[len] = '\0';
    osc_config cfg;
    *z = (zero_load){0};
    nmade = 0;
    made_overflow = false;
    z->rc = load_text(yaml, &cfg);
    assert_false(made_overflow);
    if (z->rc)
        memcpy(z->message, err, sizeof err);
    if (z->rc == 0) {
        config_numbers(&cfg, z);
        config_free(&cfg);
    }
}

/* The error with `number` written as 0 where the message quotes it (after a space or a quote,
 * never inside the file's path). */
static void quoted_as_zero(char *msg, const char *number)
{
    size_t n = strlen(number);
    for (char *at = msg; (at = strstr(at, number)); at++)
        if (at > msg && (at[-1] == ' ' || at[-1] == '\'' || at[-1] == '"')) {
            memmove(at + 1, at + n, strlen(at + n) + 1);
            at[0] = '0';
        }
}

/* `text` (with its "@") loads with each spelling of -0 exactly as with 0: refused with the
 * same message, or loaded to the same numbers, bit for bit, none of them -0. */
static void expect_zero_everywhere(const char *what, const char *text, bool loads)
{
    static const char *const minus_zeros[] = {"-0", "-0.0", "-0/3", "-0e5", "-.0"};
    zero_load zero, minus;
    load_with(text, "0", &zero);
    if ((zero.rc == 0) != loads)
        fail_msg("%s: 0 %s, which this case does not expect: %s", what,
                 zero.rc ? "is refused" : "loads", zero.message);
    for (size_t s = 0; s < sizeof minus_zeros / sizeof minus_zeros[0]; s++) {
        load_with(text, minus_zeros[s], &minus);
        quoted_as_zero(minus.message, minus_zeros[s]);
        if (minus.rc != zero.rc || strcmp(minus.message, zero.message) != 0)
            fail_msg("%s: %s gives rc %d '%s', 0 gives rc %d '%s'", what, minus_zeros[s],
                     minus.rc, minus.message, zero.rc, zero.message);
        for (size_t i = 0; i < minus.n; i++)
            if (minus.v[i] == 0 && signbit(minus.v[i]))
                fail_msg("%s: %s loads as -0 (number %zu of the config)", what,
                         minus_zeros[s], i);
        if (minus.n != zero.n || memcmp(minus.v, zero.v, zero.n * sizeof zero.v[0]) != 0)
            fail_msg("%s: %s loads to other numbers than 0", what, minus_zeros[s]);
    }
}

/* The base without the keys `replaces` names, then the case's lines. */
static void case_text(const zero_case *c, char *text, size_t size)
{
    size_t len = 0;
    text[0] = '\0';
    for (size_t i = 0; i < sizeof zero_base / sizeof zero_base[0]; i++)
        if (strcmp(c->replaces, zero_base[i][0]) != 0)
            len += (size_t)snprintf(text + len, size - len, "%s\n", zero_base[i][1]);
    assert_true(len + strlen(c->text) + 2 <= size);
    snprintf(text + len, size - len, "%s\n", c->text);
}

/* Whether a case reads a number inside top-level key `key` ("mass[1], ...", "trace.every"). */
static bool case_of_key(const zero_case *c, const char *key)
{
    size_t n = strlen(key);
    return strncmp(c->key, key, n) == 0 && strchr(".[, ", c->key[n]);
}

/* README: "-0 is read as +0 wherever a number is read". Every top-level key of the loader's own
 * table (cfg.loc, as record_locations fills it: a key added to the table is checked here) holds
 * no number or has a case above that writes a number where it reads one; then every case. */
static void minus_zero_reads_as_zero_everywhere(void **state)
{
    (void)state;
    osc_config cfg;
    if (load_text(base, &cfg))
        fail_msg("%s", err);
    for (int k = 0; k < CONFIG_NKEYS; k++) {
        const char *key = cfg.loc[k].key;
        assert_non_null(key);
        bool covered = false;
        for (size_t i = 0; i < sizeof zero_cases / sizeof zero_cases[0]; i++)
            covered |= case_of_key(&zero_cases[i], key);
        for (size_t i = 0; i < sizeof keys_without_numbers / sizeof keys_without_numbers[0]; i++)
            covered |= strcmp(key, keys_without_numbers[i]) == 0;
        if (!covered)
            fail_msg("config key %s: no case writes a number into it (add one to zero_cases, "
                     "or the key to keys_without_numbers)", key);
    }
    config_free(&cfg);
    for (size_t i = 0; i < sizeof zero_cases / sizeof zero_cases[0]; i++) {
        char text[1024];
        case_text(&zero_cases[i], text, sizeof text);
        expect_zero_everywhere(zero_cases[i].key, text, zero_cases[i].loads);
    }
}

/* The cap is "at most 16 MiB" (README): a config of exactly CONFIG_MAX_BYTES bytes loads. */
static void file_of_the_cap_loads(void **state)
{
    (void)state;
    size_t len = CONFIG_MAX_BYTES;
    char *text = malloc(len);
    assert_non_null(text);
    size_t head = strlen(base);
    memcpy(text, base, head);
    text[head] = '#'; /* the rest one comment line */
    memset(text + head + 1, 'x', len - head - 2);
    text[len - 1] = '\n';
    osc_config cfg;
    int rc = load_bytes(text, len, &cfg);
    free(text);
    if (rc)
        fail_msg("a file of %zu bytes refused: %s", len, err);
    config_free(&cfg);
}

static void bad_choices(void **state)
{
    (void)state;
    expect_error_extra("methods: [semi-implicit, nosuch]\n",
                       ":4:26: methods: unknown method 'nosuch' (valid: ");
    expect_in_error("semi-implicit");
    expect_error_extra("methods: [semi-implicit, semi-implicit]\n",
                       ":4:26: methods: 'semi-implicit' listed twice");
    expect_error_extra("methods: []\n", ":4:10: methods: expected at least one method");
    expect_error_extra("precision: quad\n",
                       ":4:12: precision: unknown precision 'quad' (valid: double, float)");
    expect_error_extra("dim: 4\n", ":4:6: dim: expected a whole number from 1 to 3");
    expect_error_extra("dim: 0\n", ":4:6: dim: expected a whole number from 1 to 3");
    expect_error_extra("analyses: [convergence, speed]\n",
                       ":4:25: analyses: unknown analysis 'speed' (valid: convergence, stability)");
    expect_error_extra("name: ../../etc/x\n", ":4:7: name: expected 1 to 128 of");
    expect_error_extra("name: .hidden\n", ":4:7: name: expected 1 to 128 of");
}

static void vectors_of_the_wrong_length(void **state)
{
    (void)state;
    expect_error_extra("dim: 2\nx0: [1, 2, 3]\n", ":5:5: x0: expected 2 numbers (dim is 2), got 3");
    expect_error_extra("v0: [1, 2]\n", ":4:5: v0: expected 1 number (dim is 1), got 2");
    expect_error_extra("v0: [1, 2]\ndim: 3\n", ":4:5: v0: expected 3 numbers (dim is 3), got 2");
    expect_error_extra("dim: 2\nx0: [1, .nan]\n", ":5:9: x0: expected a finite number");
    expect_error_extra("x0: []\n", ":4:5: x0: expected 1 number (dim is 1), got 0");
    expect_error_extra("drag: []\n", ":4:7: drag: expected at least one value");
}

static void bad_ranges(void **state)
{
    (void)state;
    expect_error_extra("drag: {from: 0, to: 1, count: 0}\n",
                       ":4:31: drag.count: expected a whole number from 1 to 10000000");
    expect_error_extra("drag: {from: 0, to: 1, count: 10000001}\n",
                       ":4:31: drag.count: expected a whole number from 1 to 10000000");
    expect_error_extra("drag: {from: 0, to: 1}\n",
                       ":4:7: drag: a range needs from, to and count");
    expect_error_extra("drag: {to: 1, count: 3}\n",
                       ":4:7: drag: a range needs from, to and count");
    expect_error_extra("drag: {from: 0, to: 1, count: 3, spacing: log}\n",
                       ":4:14: drag.from: log spacing needs a positive number");
    expect_error_extra("drag: {from: -1, to: 1, count: 3}\n",
                       ":4:14: drag.from: expected a number >= 0");
    expect_error_extra("drag: {from: 1, to: 2, count: 3, spacing: cubic}\n",
                       ":4:43: drag.spacing: unknown spacing 'cubic' (valid: linear, log)");
    expect_error("stiffness: 1\ndt: {from: 0, to: 1, count: 3}\nsteps: 3\n",
                 ":2:12: dt.from: expected a positive number");
}

static void bad_trace(void **state)
{
    (void)state;
    expect_error_extra("trace: {every: 0}\n", ":4:16: trace.every: expected a whole number from 1");
    expect_error_extra("trace: {every: -3}\n", ":4:16: trace.every: expected a whole number");
    /* lanes: every method x 1 x 1 x 1 */
    char line[100], where[200];
    size_t lanes = osc_method_count();
    snprintf(line, sizeof line, "trace: {points: [0, %zu]}\n", lanes);
    snprintf(where, sizeof where, ":4:21: trace.points: row %zu is beyond the sweep's %zu lanes",
             lanes, lanes);
    expect_error_extra(line, where);
    expect_error_extra("trace: {points: [-1]}\n", ":4:18: trace.points: expected a whole number");
    /* a row twice is one /traces group twice: the run used to fail writing it, exit 1 */
    expect_error_extra("trace: {points: [3, 1, 2, 1.0, 3]}\n",
                       ":4:27: trace.points: row 1 listed twice");
}

static void sweep_too_large_for_memory(void **state)
{
    (void)state;
    expect_error("stiffness: {from: 0, to: 1, count: 10000000}\n"
                 "dt: {from: 0.1, to: 1, count: 1000000}\nsteps: 3\n",
                 ":1:12: stiffness: sweep of ");
    expect_in_error("lanes needs ~");
    expect_in_error("GiB, more than the ");
}

/* A trace of every step of 10^14 steps (56 bytes a sample per method): the sweep itself is
 * small, the traces are not; the error sits on trace, not on a swept key. */
static void traces_too_large_for_memory(void **state)
{
    (void)state;
    expect_error("stiffness: 1\ndt: 0.1\nsteps: 100000000000000\ntrace: {every: 1}\n",
                 ":4:8: trace: with every 1 the traces and the sweep need ~");
    expect_in_error("GiB, more than the ");
    /* the same trace every 10^9 steps fits */
    char *text = "stiffness: 1\ndt: 0.1\nsteps: 100000000000000\ntrace: {every: 1000000000}\n";
    osc_config cfg;
    char e[2048];
    assert_int_equal(config_load_text("t.yaml", text, strlen(text), &cfg, e, sizeof e), 0);
    config_free(&cfg);
}

/* The rows trace.where chooses count as trace.points' do: steps such that one trace (56 bytes a
 * sample, one method) takes half the machine's memory, so that one row fits and three do not
 * (the check once ran before trace.where had added its rows, counting one trace per method). */
static void traced_rows_chosen_by_value_count_for_memory(void **state)
{
    (void)state;
    const char *source;
    double steps = floor(sweep_memory_limit(&source) / 2 / 56);
    char text[512];
    snprintf(text, sizeof text,
             "stiffness: [1, 2, 3]\ndt: 0.001\nsteps: %.0f\ntrace: {every: 1, where: [{stiffness: "
             "1}, {stiffness: 2}, {stiffness: 3}]}\nmethods: [euler]\n", steps);
    expect_error(text, ":4:8: trace: with every 1 the traces and the sweep need ~");
    snprintf(text, sizeof text,
             "stiffness: [1, 2, 3]\ndt: 0.001\nsteps: %.0f\ntrace: {every: 1, points: [0, 1, 2]}\n"
             "methods: [euler]\n", steps);
    expect_error(text, ":4:8: trace: with every 1 the traces and the sweep need ~");
    snprintf(text, sizeof text,
             "stiffness: [1, 2, 3]\ndt: 0.001\nsteps: %.0f\ntrace: {every: 1, where: {stiffness: "
             "2}}\nmethods: [euler]\n", steps);
    osc_config cfg;
    if (load_text(text, &cfg))
        fail_msg("one traced row: %s", err);
    assert_int_equal(cfg.ntrace_points, 1);
    config_free(&cfg);
}

/* ---- hostile YAML ----------------------------------------------------------------------- */

static void alias_bomb(void **state)
{
    (void)state;
    expect_error("a: &a [x, x, x, x, x, x, x, x, x]\n"
                 "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                 "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n",
                 ":2:8: b: YAML aliases (*a) are not supported");
    expect_error("stiffness: &k 1\ndt: 0.1\nsteps: 3\ndrag: *k\n", ":4:7: drag: YAML aliases");
}

static void deep_nesting(void **state)
{
    (void)state;
    enum { depth = 200000 };
    static char text[depth + 8];
    memcpy(text, "dt: ", 4);
    memset(text + 4, '[', depth);
    text[4 + depth] = '\0';
    expect_error(text, ":1:");
    expect_in_error("nested deeper than 16 levels");

    char block[4096] = "";
    for (int level = 0; level < 40; level++) {
        size_t used = strlen(block);
        snprintf(block + used, sizeof block - used, "%*sk%d:\n", 2 * level, "", level);
    }
    expect_error(block, ":17:33: nested deeper than 16 levels");
}

static void huge_sequence(void **state)
{
    (void)state;
    size_t n = CONFIG_MAX_LIST + 1;
    char *text = malloc(2 * n + 16);
    assert_non_null(text);
    size_t len = (size_t)sprintf(text, "drag: [");
    for (size_t i = 0; i < n; i++) {
        memcpy(text + len, "0,", 2);
        len += 2;
    }
    text[len - 1] = ']';
    text[len] = '\0';
    expect_error(text, ":1:7: list or mapping longer than 1000000 items");
    free(text);
}

static void too_many_nodes(void **state)
{
    (void)state;
    /* lists of 9 under the list cap, over the node cap in total */
    size_t lists = CONFIG_MAX_NODES / 10 + 1;
    static const char item[] = "[0,0,0,0,0,0,0,0,0],";
    char *text = malloc(lists * (sizeof item - 1) + 16);
    assert_non_null(text);
    size_t len = (size_t)sprintf(text, "drag: [");
    for (size_t i = 0; i < lists; i++) {
        memcpy(text + len, item, sizeof item - 1);
        len += sizeof item - 1;
    }
    text[len - 1] = ']';
    text[len] = '\0';
    expect_error(text, ":1:");
    expect_in_error("too many YAML nodes (more than 1100000)");
    free(text);
}

/* Exactly CONFIG_MAX_NODES nodes are allowed, one more is not: the root mapping, base's 6
 * scalars, keys x and y with their lists (4) and N + M items, 11 + N + M nodes in all. */
static void node_limit_is_inclusive(void **state)
{
    (void)state;
    size_t items = (size_t)CONFIG_MAX_NODES - 11, cap = 2 * items + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    for (size_t extra = 0; extra < 2; extra++) {
        size_t n = (size_t)snprintf(text, cap, "%sx: [", base);
        for (size_t i = 0; i + 1 < items + extra; i++) { /* then one more, the last */
            if (i == items / 2)
                n += (size_t)snprintf(text + n, cap - n, "0]\ny: [");
            else
                text[n++] = '0', text[n++] = ',';
        }
        n += (size_t)snprintf(text + n, cap - n, "0]\n");
        osc_config cfg;
        assert_int_equal(config_load_text("n.yaml", text, n, &cfg, err, sizeof err), 2);
        if ((strstr(err, "too many YAML nodes") != NULL) != (extra == 1))
            fail_msg("%zu nodes: %.200s", (size_t)CONFIG_MAX_NODES + extra, err);
    }
    free(text);
}

static void random_bytes(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15u;
    char bytes[2048];
    for (int round = 0; round < 50; round++) {
        size_t len = 1 + (size_t)(x % sizeof bytes);
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* half the rounds printable, so the parser gets past the reader */
            bytes[i] = round % 2 ? (char)(x >> 24) : (char)(32 + (x >> 24) % 95);
        }
        expect_errors_bytes(bytes, len, ":", false);
    }
}

static void failed_fstat_reports_its_error(void **state)
{
    (void)state;
    fstat_fails = true;
    expect_error(base, ": cannot read: Input/output error");
    fstat_fails = false;
}

/* An include that outgrows the cap after fstat saw it small (a file being written) is refused
 * like one that was large from the start; it was freed twice (abort). */
static void include_growing_past_the_cap(void **state)
{
    (void)state;
    char inc[300], text[512];
    snprintf(inc, sizeof inc, "%s/m.yaml", tmpdir);
    FILE *f = fopen(inc, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)CONFIG_MAX_BYTES + 1), 0); /* sparse */
    fclose(f);
    snprintf(text, sizeof text, "%smethods: [include: m.yaml]\n", base);
    fstat_says_empty = true;
    osc_config cfg;
    int rc = load_text(text, &cfg);
    fstat_says_empty = false;
    assert_int_equal(rc, 2);
    char want[800];
    snprintf(want, sizeof want, "%s: larger than 16 MiB (included from %s:4:20)", inc, cfgpath);
    assert_string_equal(err, want);
    unlink(inc);
}

/* Loads a config that includes one definition's file while *fails_for names that file (the
 * wrapped read or fstat then fails for it alone, with errno errnum): the error must be that one
 * line, the system's reason at the include's place. */
static void expect_include_fails_with(const char **fails_for, int errnum)
{
    char inc[300], text[512];
    snprintf(inc, sizeof inc, "%s/m.yaml", tmpdir);
    const char *defs = "- {name: h, family: rk, order: 2, a: [[0], [1]], b: [0.5, 0.5]}\n";
    write_bytes(inc, defs, strlen(defs));
    snprintf(text, sizeof text, "%smethods: [include: m.yaml]\n", base);
    *fails_for = inc;
    osc_config cfg;
    int rc = load_text(text, &cfg);
    *fails_for = NULL;
    unlink(inc);
    char want[800];
    snprintf(want, sizeof want, "%s: cannot read: %s (included from %s:4:20)", inc,
             strerror(errnum), cfgpath);
    if (rc != 2 || strcmp(err, want) != 0)
        fail_msg("rc %d, error '%s', wanted '%s'", rc, err, want);
}

/* A regular file whose read fails says that its read failed (with the system's reason), not that
 * it is no regular file: read_include coded both as EINVAL. */
static void include_read_error_is_a_read_error(void **state)
{
    (void)state;
    expect_include_fails_with(&read_fails_for, EINVAL);
}

/* An include whose fstat fails is reported with fstat's reason, and the st it may have scribbled
 * on (a directory's mode here) is not read: not 'not a regular file'. */
static void include_failed_fstat_reports_its_error(void **state)
{
    (void)state;
    expect_include_fails_with(&fstat_fails_for, EIO);
}

/* An include's size is judged by fstat before any byte is read (read fails here if it is
 * read), and "at most 16 MiB" is inclusive: an include of exactly 16 MiB is read, and refused
 * only for what it adds to the config (together over 16 MiB), not as "larger than 16 MiB". */
static void include_size_cap_before_reading(void **state)
{
    (void)state;
    char inc[300], text[512];
    snprintf(inc, sizeof inc, "%s/m.yaml", tmpdir);
    snprintf(text, sizeof text, "%smethods: [include: m.yaml]\n", base);
    FILE *f = fopen(inc, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)CONFIG_MAX_BYTES + 1), 0); /* sparse */
    fclose(f);
    read_fails_for = inc;
    osc_config cfg;
    int rc = load_text(text, &cfg);
    read_fails_for = NULL;
    char want[800];
    snprintf(want, sizeof want, "%s: larger than 16 MiB (included from %s:4:20)", inc, cfgpath);
    if (rc != 2 || strcmp(err, want) != 0)
        fail_msg("rc %d, error '%s', wanted '%s'", rc, err, want);

    char *comment = malloc(CONFIG_MAX_BYTES);
    assert_non_null(comment);
    memset(comment, '#', CONFIG_MAX_BYTES);
    write_bytes(inc, comment, CONFIG_MAX_BYTES);
    free(comment);
    expect_error(text, ":4:20: methods[0].include: the config and the files it includes exceed "
                       "16 MiB together");
    unlink(inc);
}

/* The descriptors open in this process. */
static size_t open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    size_t n = 0;
    for (const struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Loading closes every file it opened, whether the load succeeds or fails where it read: a
 * config and its include; an include whose fstat fails, one too large, one that is a directory;
 * a config that is a directory, one whose fstat fails. */
static void loads_close_their_files(void **state)
{
    (void)state;
    char inc[300], sub[300], text[512];
    snprintf(inc, sizeof inc, "%s/m.yaml", tmpdir);
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    assert_int_equal(mkdir(sub, 0700), 0);
    const char *defs = "- {name: h, family: rk, order: 2, a: [[0], [1]], b: [0.5, 0.5]}\n";
    write_bytes(inc, defs, strlen(defs));
    snprintf(text, sizeof text, "%smethods: [include: m.yaml]\n", base);
    const char *loads[] = {"include", "include, fstat fails", "include, 16 MiB + 1",
                           "include of a directory", "config, a directory", "config, fstat fails"};
    int rc[6];
    size_t fds[6], before = open_fds();
    osc_config cfg;
    rc[0] = load_text(text, &cfg);
    if (rc[0] == 0)
        config_free(&cfg);
    fds[0] = open_fds();
    fstat_fails_for = inc;
    rc[1] = load_text(text, &cfg);
    fstat_fails_for = NULL;
    fds[1] = open_fds();
    FILE *f = fopen(inc, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)CONFIG_MAX_BYTES + 1), 0); /* sparse */
    fclose(f);
    rc[2] = load_text(text, &cfg);
    fds[2] = open_fds();
    unlink(inc);
    snprintf(text, sizeof text, "%smethods: [include: sub]\n", base);
    rc[3] = load_text(text, &cfg);
    fds[3] = open_fds();
    rc[4] = config_load(sub, &cfg, err, sizeof err);
    fds[4] = open_fds();
    rmdir(sub);
    fstat_fails_for = cfgpath;
    rc[5] = config_load(cfgpath, &cfg, err, sizeof err);
    fstat_fails_for = NULL;
    fds[5] = open_fds();
    for (size_t i = 0; i < 6; i++)
        if (rc[i] != (i ? 2 : 0) || fds[i] != before)
            fail_msg("%s: rc %d, %zu descriptors open after, %zu before", loads[i], rc[i],
                     fds[i], before);
}

/* The errors of an included file join those of the config before it, and past the 20 shown
 * they are counted on the config's last line like the config's own: a bad key, then 25
 * definitions with an order of 0 show the key's line, 19 of the definitions', "6 more". */
static void include_errors_collected_and_counted(void **state)
{
    (void)state;
    char inc[300], text[512], defs[2048] = "";
    snprintf(inc, sizeof inc, "%s/m.yaml", tmpdir);
    for (int i = 0; i < 25; i++)
        snprintf(defs + strlen(defs), sizeof defs - strlen(defs),
                 "- {name: e%d, family: rk, order: 0, a: [[0]], b: [1]}\n", i);
    write_bytes(inc, defs, strlen(defs));
    snprintf(text, sizeof text, "%sbad: 1\nmethods: [include: m.yaml]\n", base);
    osc_config cfg;
    int rc = load_text(text, &cfg);
    unlink(inc);
    assert_int_equal(rc, 2);
    char want[800];
    const char *line = err;
    snprintf(want, sizeof want, "%s:4:1: bad: unknown key", cfgpath);
    if (strncmp(line, want, strlen(want)) != 0)
        fail_msg("line 1: '%.300s', wanted '%s...'", line, want);
    for (int i = 0; i < CONFIG_MAX_ERRORS - 1; i++) {
        line = after_lines(line, 1);
        int col = i < 10 ? 33 : 34; /* of the 0 after "- {name: e%d, family: rk, order: " */
        snprintf(want, sizeof want, "%s:%d:%d: methods[%d].order: expected a whole number from "
                 "1 to 32 (included from %s:5:20)\n", inc, i + 1, col, i, cfgpath);
        if (!line || strncmp(line, want, strlen(want)) != 0)
            fail_msg("line %d: '%.300s', wanted '%s'", i + 2, line ? line : "(none)", want);
    }
    line = after_lines(line, 1);
    snprintf(want, sizeof want, "%s: 6 more errors not shown", cfgpath);
    if (!line || strcmp(line, want) != 0)
        fail_msg("last line: '%.300s', wanted '%s'", line ? line : "(none)", want);
}

/* An include names a file: an empty name (which would name the config's own directory) and a
 * list are refused at the include, before anything is opened. */
static void include_needs_a_file_name(void **state)
{
    (void)state;
    expect_error_extra("methods: [include: \"\"]\n",
                       ":4:20: methods[0].include: expected a file name");
    assert_string_equal(err + strlen(cfgpath), ":4:20: methods[0].include: expected a file name");
    expect_error_extra("methods: [include: [m.yaml]]\n",
                       ":4:20: methods[0].include: expected a file name");
    assert_string_equal(err + strlen(cfgpath), ":4:20: methods[0].include: expected a file name");
}

/* ---- methods defined by their coefficients ---------------------------------------------------- */

/* base, then `count` one-stage definitions (explicit Euler as a tableau) named e0, e1, ... */
static void euler_definitions(char *text, size_t size, int count)
{
    snprintf(text, size, "%smethods:\n", base);
    for (int i = 0; i < count; i++) {
        size_t used = strlen(text);
        snprintf(text + used, size - used,
                 "  - {name: e%d, family: rk, order: 1, a: [[0]], b: [\"2/2\"]}\n", i);
    }
}

/* A definition's shape mistakes (line 5 of base + "methods:" + the definition): one line at the
 * entry or list that is wrong ("at" marks it in the definition; NULL: the definition's '{'),
 * naming methods[0].KEY and saying what was expected. The column is found here from the text. */
static const struct {
    const char *def, *at, *key, *says;
} shape_cases[] = {
    {"{name: m, family: rk, order: 1, b: [1]}", NULL, "a",
     "missing: a matrix, a list of rows (one per stage)"},
    {"{name: m, family: rk, order: 1, a: 0, b: [1]}", "0, b", "a",
     "expected a list of rows (one per stage)"},
    {"{name: m, family: rk, order: 1, a: [], b: [1]}", "[], b", "a",
     "expected a list of rows (one per stage)"},
    {"{name: m, family: rk, order: 1, a: [[0],[0],[0],[0],[0],[0],[0],[0],[0]], b: [1]}",
     "[[0]", "a", "9 stages, at most 8"},
    {"{name: m, family: rk, order: 1, a: [[0, 0]], b: [1]}", "[0, 0]", "a",
     "row 1 has 2 entries, more than the 1 stages"},
    {"{name: m, family: rk, order: 1, a: [[0]]}", NULL, "b", "missing: the weights, a list of 1"},
    {"{name: m, family: rk, order: 1, a: [[0]], b: 1}", "1}", "b",
     "expected a list of coefficients, not a single value"},
    {"{name: m, family: rk, order: 1, a: [[0]], b: {w: 1}}", "{w", "b",
     "expected a list of coefficients, not a mapping"},
    {"{name: m, family: rk, order: 1, a: [[0]], b: [1, 0, 0, 0, 0, 0, 0, 0, 0]}", "[1, 0", "b",
     "9 entries, more than the 8 allowed here"},
    {"{name: m, family: rk, order: 1, a: [[0]], b: [[1]]}", "[1]]", "b",
     "expected a number, not a list"},
    {"{name: m, family: rk, order: 2, a: [[0], [1]], b: [0.5, 0.5], c: [0]}", "[0]}", "c",
     "1 nodes for 2 stages (a has 2 rows)"},
    {"{name: m, family: rkn, order: 2, abar: [[0], [0.5]], a: [[0], [1]], bbar: [0.5, 0],"
     " b: [1]}", "[1]}", "b", "1 entries for 2 stages (abar has 2 rows)"},
    {"{name: m, family: rkn, order: 2, abar: [[0], [0.5]], a: [[0], [1, 2]], bbar: [0.5, 0],"
     " b: [0.5, 0.5]}", "2]]", "a",
     "a is not strictly lower triangular (not explicit): row 2, entry 2 is 2 (a stage may read"
     " only earlier stages)"},
    {"{name: m, family: rkn, order: 2, abar: [[0], [0.5, 0.25]], a: [[0], [1]], bbar: [0.5, 0],"
     " b: [0.5, 0.5]}", "0.25]]", "abar",
     "abar is not strictly lower triangular (not explicit): row 2, entry 2 is 0.25 (a stage may"
     " read only earlier stages)"},
    {"{name: m, family: composition, order: 2, weights: [1]}", NULL, "base",
     "missing: the built-in method to compose"},
    {"{name: m, family: composition, order: 2, base: [verlet], weights: [1]}", "[verlet]", "base",
     "expected a method name (valid: "},
    /* too few weights: b = (1, 0) would sum to 1 and pass */
    {"{name: m, family: rk, order: 1, a: [[0], [1]], b: [1]}", "[1]}", "b",
     "1 weights for 2 stages (a has 2 rows)"},
    /* row 2 of a sums to 0.5 (its column 2 to 0) */
    {"{name: m, family: rk, order: 1, a: [[0], [0.5, 0]], b: [0, 1], c: [0, 1]}", "1]}", "c",
     "c is not the row sum of a: c of stage 2 is 1, the sum of a's row 2 is 0.5"},
    /* a row of a missing: it would be a row of zeros */
    {"{name: m, family: rkn, order: 2, abar: [[0], [0.5]], a: [[0]], bbar: [0.5, 0],"
     " b: [0.5, 0.5]}", "[[0]], bbar", "a", "1 rows, but abar has 2 (one row per stage in each)"},
    {"{name: m, family: composition, order: 1, base: verlet, weights: [1], symmetric: 'true'}",
     "'true'", "symmetric", "expected true or false"},
    {"{name: m, family: composition, order: 2, base: stormer, weights: [1]}", "stormer,", "base",
     "'stormer' cannot be composed: its state is not (x, v)"},
    /* mirrored: 0.5, 0.5, 0.5, three substeps summing to 1.5 */
    {"{name: m, family: composition, order: 1, base: verlet, symmetric: true, weights: [0.5, 0.5]}",
     "[0.5", "weights",
     "the weights of the substeps do not sum to 1: the 3 substeps' weights sum to 1.5 (symmetric"},
    /* README: a non-positive declared order is an error */
    {"{name: m, family: rk, order: 0, a: [[0]], b: [1]}", "0, a", "order",
     "expected a whole number from 1 to 32"},
};

static void definition_shape_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shape_cases / sizeof shape_cases[0]; i++) {
        const char *def = shape_cases[i].def, *at = shape_cases[i].at;
        const char *mark = at ? strstr(def, at) : def;
        assert_non_null(mark);
        char text[512], where[160];
        snprintf(text, sizeof text, "%smethods:\n  - %s\n", base, def);
        snprintf(where, sizeof where, ":5:%d: methods[0].%s: %s", (int)(mark - def) + 5,
                 shape_cases[i].key, shape_cases[i].says);
        expect_error(text, where);
    }
    /* a list entry or a choice that is not a plain value */
    expect_error_extra("methods: [[rk4]]\n",
                       ":4:11: methods: expected a method name, not a list (valid: ");
    expect_error_extra("precision: [double]\n",
                       ":4:12: precision: expected one precision, not a list (valid: double, float)");
}

/* The whole error line of base + "methods:" + `def` (line 5): ":5:COL: methods[0].KEY: says",
 * COL that of `at` in the definition (NULL: its '{'), found here from the text. */
static void expect_definition_error(const char *def, const char *at, const char *key,
                                    const char *says)
{
    const char *mark = at ? strstr(def, at) : def;
    assert_non_null(mark);
    char text[1024], where[1024];
    snprintf(text, sizeof text, "%smethods:\n  - %s\n", base, def);
    snprintf(where, sizeof where, ":5:%d: methods[0].%s: %s", (int)(mark - def) + 5, key, says);
    expect_error(text, where);
    assert_string_equal(err + strlen(cfgpath), where);
}

#define HUGE_WHY "(the sum and order checks cannot resolve their conditions beyond it)"

/* A coefficient beyond 1000 in magnitude (tableau.h's bound) in b or c of an rk tableau, or in
 * abar, a or c of an rkn one, is named with its value at its entry; a c not given is a's row
 * sum (600 + 600 = 1200 here, each entry within the bound, or an overflow to inf) and is said
 * to be one: it was "methods[0]: a coefficient is not a finite number" at the definition. */
static void huge_coefficients_located(void **state)
{
    (void)state;
    static const struct {
        const char *def, *at, *key, *says;
    } cases[] = {
        {"{name: m, family: rk, order: 1, a: [[0], [1]], b: [1001, -1000]}", "1001", "b",
         "a coefficient exceeds 1000 in magnitude: entry 1 is 1001 " HUGE_WHY},
        /* just past the bound: shown in the digits that read back as it (%g said "1000") */
        {"{name: m, family: rk, order: 1, a: [[0], [\"1000.0000000000001\"]], b: [0.5, 0.5]}",
         "\"1000.0000000000001\"", "a",
         "a coefficient exceeds 1000 in magnitude: row 2, entry 1 is 1000.0000000000001 "
         HUGE_WHY},
        {"{name: m, family: rk, order: 1, a: [[0], [1]], b: [0.5, 0.5], c: [0, -1001]}", "-1001",
         "c", "a coefficient exceeds 1000 in magnitude: c of stage 2 is -1001 " HUGE_WHY},
        {"{name: m, family: rk, order: 1, a: [[0], [600], [600, 600]], b: [1, 0, 0]}", NULL, "c",
         "a coefficient exceeds 1000 in magnitude: c of stage 3 (not given: the row sum of a) is "
         "1200 " HUGE_WHY},
        {"{name: m, family: rkn, order: 1, abar: [[0], [-1500]], a: [[0], [1]], bbar: [0.5, 0],"
         " b: [0.5, 0.5]}", "-1500", "abar",
         "a coefficient exceeds 1000 in magnitude: row 2, entry 1 is -1500 " HUGE_WHY},
        {"{name: m, family: rkn, order: 1, abar: [[0], [0.5]], a: [[0], [2000]], bbar: [0.5, 0],"
         " b: [0.5, 0.5]}", "2000", "a",
         "a coefficient exceeds 1000 in magnitude: row 2, entry 1 is 2000 " HUGE_WHY},
        {"{name: m, family: rkn, order: 1, abar: [[0], [0.5]], a: [[0], [1]], bbar: [0.5, 0],"
         " b: [0.5, 0.5], c: [0, 1001]}", "1001", "c",
         "a coefficient exceeds 1000 in magnitude: c of stage 2 is 1001 " HUGE_WHY},
        {"{name: m, family: rkn, order: 1, abar: [[0], [0], [0]], a: [[0], [600], [600, 600]],"
         " bbar: [0.5, 0, 0], b: [1, 0, 0]}", NULL, "c",
         "a coefficient exceeds 1000 in magnitude: c of stage 3 (not given: the row sum of a) is "
         "1200 " HUGE_WHY},
        /* 1e308 + 1e308 overflows (DBL_MAX = 1.8e308): finiteness is checked before magnitude */
        {"{name: m, family: rk, order: 1, a: [[0], [0], [1e308, 1e308]], b: [1, 0, 0]}", NULL,
         "c", "a coefficient is not a finite number: c of stage 3 (not given: the row sum of a) "
         "is inf"},
        {"{name: m, family: rkn, order: 1, abar: [[0], [0], [0]], a: [[0], [0], [1e308, 1e308]],"
         " bbar: [0.5, 0, 0], b: [1, 0, 0]}", NULL, "c",
         "a coefficient is not a finite number: c of stage 3 (not given: the row sum of a) is "
         "inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_definition_error(cases[i].def, cases[i].at, cases[i].key, cases[i].says);
}

/* A composition of no substeps, or of more than 32 (17 weights mirrored: 2 * 17 - 1 = 33), is
 * refused at its weights with the count. */
static void composition_substep_count(void **state)
{
    (void)state;
    expect_definition_error("{name: m, family: composition, order: 1, base: verlet, weights: []}",
                            "[]", "weights",
                            "the number of substeps is not between 1 and 32: 0");
    char def[512] = "{name: m, family: composition, order: 1, base: verlet, symmetric: true, "
                    "weights: [0";
    for (int i = 1; i < 17; i++)
        strcat(def, ", 0");
    strcat(def, "]}");
    expect_definition_error(def, "[0", "weights",
                            "the number of substeps is not between 1 and 32: 33 (symmetric: the "
                            "list mirrored about its last entry)");
}

#define FAMILIES "rk (explicit Runge-Kutta by its Butcher tableau (a, b, c)), rkn (explicit " \
    "Runge-Kutta-Nystrom (abar, a, bbar, b, c)), composition (substeps of a built-in method " \
    "(base, weights, symmetric))"

/* A definition's family missing, not a string, or unknown (and not near a family's name), and
 * a name that is not a string or not a name: one line each, listing what is valid. */
static void definition_family_and_name_errors(void **state)
{
    (void)state;
    expect_definition_error("{name: m, order: 1, a: [[0]], b: [1]}", NULL, "family",
                            "missing (valid: " FAMILIES ")");
    expect_definition_error("{name: m, family: [rk], order: 1, a: [[0]], b: [1]}", "[rk]",
                            "family", "expected a family name, not a list (valid: " FAMILIES ")");
    expect_definition_error("{name: m, family: butcher, order: 1, a: [[0]], b: [1]}", "butcher",
                            "family", "unknown family 'butcher' (valid: " FAMILIES ")");
    expect_definition_error("{name: m, family: compostiion, order: 1, a: [[0]], b: [1]}",
                            "compostiion", "family",
                            "unknown family 'compostiion' (did you mean 'composition'?)");
    expect_definition_error("{name: {m: 1}, family: rk, order: 1, a: [[0]], b: [1]}", "{m:",
                            "name", "expected a string, not a mapping");
    expect_definition_error("{name: .m, family: rk, order: 1, a: [[0]], b: [1]}", ".m", "name",
                            "expected 1 to 63 of A-Z a-z 0-9 . _ - + not starting with '.', got "
                            "'.m'");
    char def[256], name[70];
    memset(name, 'x', 64); /* one more than the 63 a name may have */
    name[64] = '\0';
    snprintf(def, sizeof def, "{name: %s, family: rk, order: 1, a: [[0]], b: [1]}", name);
    /* shown cut to its first 40 characters */
    expect_definition_error(def, name, "name",
                            "64 characters, at most 63: "
                            "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'");
    /* README: a name that clashes with another definition's */
    char text[512], where[512];
    const char *q = "{name: q, family: rk, order: 1, a: [[0]], b: [1]}";
    snprintf(text, sizeof text, "%smethods:\n  - %s\n  - %s\n", base, q, q);
    snprintf(where, sizeof where, ":6:12: methods[1].name: 'q' is defined twice (first at %s:5)",
             cfgpath);
    expect_error(text, where);
}

/* A composition's orders with and without drag follow its base's: Yoshida's triple jump over
 * verlet (order 2 and symmetric undamped; order 1, not symmetric, with drag): 4 and 1; over
 * verlet-implicit-drag (symmetric order 2 both ways): 4 and 4; over rk4 (order 4, not symmetric:
 * sum w^5 != 0): 4. On the linear problem (measured from the base's reference) the same. */
static void composition_orders_follow_the_base(void **state)
{
    (void)state;
    static const struct {
        const char *base;
        int damped, undamped;
    } want[] = {{"verlet", 1, 4}, {"verlet-implicit-drag", 4, 4}, {"rk4", 4, 4}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "%smethods:\n  - {name: y, family: composition, order: 4, base: %s, "
                 "weights: [1.3512071919596578, -1.7024143839193153], symmetric: true}\n",
                 base, want[i].base);
        osc_config cfg;
        if (load_text(text, &cfg) != 0)
            fail_msg("%s", err);
        const config_user_method *um = config_user_method_of(&cfg, cfg.methods[0]);
        assert_non_null(um);
        if (um->coefficient_order != want[i].damped ||
            um->coefficient_order_undamped != want[i].undamped)
            fail_msg("over %s: coefficient orders %d (drag) / %d, expected %d / %d", want[i].base,
                     um->coefficient_order, um->coefficient_order_undamped, want[i].damped,
                     want[i].undamped);
        assert_int_equal(um->linear_order, want[i].damped);
        assert_int_equal(um->linear_order_undamped, want[i].undamped);
        config_free(&cfg);
    }
}

/* Orders of definitions whose orders differ, derived by hand. rk: a = [[0], [1], [0, 1]],
 * b = (1/2, 1/3, 1/6), c = (0, 1, 1): sum b = 1, b.c = 1/2, but b.c^2 = 1/2 != 1/3, so its
 * coefficient order is 2; R(z) = 1 + z + (b.c) z^2 + (b.Ac) z^3 with b.Ac = 1/6 matches exp(z)
 * to z^3 (the z^4 term is 0, not 1/24): linear order 3. rkn (2 stages, c2 = 2/3, b = (1/4, 3/4),
 * abar21 = 2/9, bbar = (1/4, 1/4)): without drag b.c = 1/2, b.c^2 = 1/3, b.abar1 = 1/6,
 * bbar.c = 1/6 (order 3; b.c^3 = 2/9 != 1/4); with drag v''' holds f_v f_v f, whose weight
 * b.(a c) = 0 is not 1/6: order 2. */
static void definition_orders_by_hand(void **state)
{
    (void)state;
    char text[1024];
    /* README: 1 to 8 stages; 8 stages of explicit Euler (b = e1) load */
    osc_config cfg8;
    if (load_text("stiffness: 1\ndt: 0.1\nsteps: 1\nmethods:\n  - {name: e8, family: rk, "
                  "order: 1, a: [[0], [0], [0], [0], [0], [0], [0], [0]], "
                  "b: [1, 0, 0, 0, 0, 0, 0, 0]}\n", &cfg8) != 0)
        fail_msg("%s", err);
    config_free(&cfg8);
    snprintf(text, sizeof text,
             "%smethods:\n"
             "  - {name: r, family: rk, order: 2, a: [[0], [1], [0, 1]], b: [1/2, 1/3, 1/6]}\n"
             "  - {name: n, family: rkn, order: 2, abar: [[0], [2/9]], a: [[0], [2/3]],\n"
             "     bbar: [1/4, 1/4], b: [1/4, 3/4]}\n", base);
    osc_config cfg;
    if (load_text(text, &cfg) != 0)
        fail_msg("%s", err);
    const config_user_method *rk = config_user_method_of(&cfg, cfg.methods[0]);
    const config_user_method *rkn = config_user_method_of(&cfg, cfg.methods[1]);
    assert_non_null(rk), assert_non_null(rkn);
    assert_int_equal(rk->coefficient_order, 2);
    assert_int_equal(rk->coefficient_order_undamped, 2);
    assert_int_equal(rk->linear_order, 3);
    assert_int_equal(rk->linear_order_undamped, 3);
    assert_int_equal(rkn->coefficient_order, 2);
    assert_int_equal(rkn->coefficient_order_undamped, 3);
    config_free(&cfg);
}

/* An rk tableau's order without drag is that of its Nystrom form: tests/test_tableau.c's
 * c_ac2_missed (every condition to order 5 but b.(c A c^2) = 1/15, which drops out on x'' = f(x))
 * loads as coefficient order 4 with drag and 5 without (it was 4 both ways, a lower bound). */
static void rk_order_without_drag_is_nystroms(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "%smethods:\n"
             "  - name: c5\n"
             "    family: rk\n"
             "    order: 4\n"
             "    a: [[], [0.15482697695885981],\n"
             "        [-0.045290252581173479, 0.35618984564351981],\n"
             "        [1.0286292860602683, -3.6221393965660129, 3.6907016916612696],\n"
             "        [3.1355895607883810, -11.410257106670382, 10.021000211268946,\n"
             "         -0.28766366874596868],\n"
             "        [3.0021585969288932, -10.611106381249175, 9.0486310546920255,\n"
             "         0.44803290864592759, -0.26427546812361808],\n"
             "        [0.14790758174865901, 0.037502670827426246, 0.47218340436780455,\n"
             "         0.70563238924275174, -0.17745865619624342, 0.0090079947928162177]]\n"
             "    b: [0.00014509203097968583, 0.15431933957162651, 0.49457959553977073,\n"
             "        0.72262165224005296, -0.39140690084638531, 0.17924239765662080,\n"
             "        -0.15950117619266537]\n",
             base);
    osc_config cfg;
    if (load_text(text, &cfg) != 0)
        fail_msg("%s", err);
    const config_user_method *rk = config_user_method_of(&cfg, cfg.methods[0]);
    assert_non_null(rk);
    assert_int_equal(rk->coefficient_order, 4);
    assert_int_equal(rk->coefficient_order_undamped, 5);
    assert_int_equal(rk->linear_order, 5);
    assert_int_equal(rk->linear_order_undamped, 5);
    config_free(&cfg);
}

/* A 17th definition that is also wrong (a built-in's name) gets its own error and the count's,
 * not the library's "no free method slot" (its coefficients were checked in a scratch slot,
 * and none is left). */
static void seventeenth_bad_definition(void **state)
{
    (void)state;
    char text[4096];
    euler_definitions(text, sizeof text, CONFIG_MAX_USER_METHODS);
    strcat(text, "  - {name: rk4, family: rk, order: 1, a: [[0]], b: [1]}\n");
    expect_errors_bytes(text, strlen(text), ":21:12: methods[16].name: 'rk4' is a built-in "
                        "method", false);
    expect_in_error(":21:5: methods[16]: more than 16 methods defined by coefficients");
    if (strstr(err, "no free method slot"))
        fail_msg("the library's slot message: %s", err);
}

/* Every slot a config takes is given back by config_free, and by a load that fails: else the
 * second load of 16 definitions would find no free slot. */
static void user_method_slots_given_back(void **state)
{
    (void)state;
    char text[4096];
    euler_definitions(text, sizeof text, CONFIG_MAX_USER_METHODS);
    osc_config cfg;
    for (int round = 0; round < 3; round++) {
        if (load_text(text, &cfg) != 0)
            fail_msg("round %d: %s", round, err);
        assert_int_equal(cfg.nuser_methods, CONFIG_MAX_USER_METHODS);
        assert_int_equal(cfg.nmethods, CONFIG_MAX_USER_METHODS);
        for (size_t i = 0; i < cfg.nmethods; i++) {
            const config_user_method *um = config_user_method_of(&cfg, cfg.methods[i]);
            assert_non_null(um);
            char name[32];
            snprintf(name, sizeof name, "e%zu", i);
            assert_string_equal(cfg.methods[i]->name, name);
            assert_string_equal(um->family, "rk");
            /* Euler: order 1 both ways; 2 (the force) + 2 (the one weight) operations */
            assert_int_equal(um->coefficient_order, 1);
            assert_int_equal(um->linear_order, 1);
            assert_int_equal(cfg.methods[i]->fma_per_step, 4);
            assert_int_equal(cfg.methods[i]->force_evals, 1);
        }
        assert_null(config_user_method_of(&cfg, osc_method_find("rk4")));
        config_free(&cfg);
        /* a failed load (a mistake after the definitions) */
        char bad[4200];
        snprintf(bad, sizeof bad, "%sdrag: -1\n", text);
        expect_errors_bytes(bad, strlen(bad), ":", true);
        expect_in_error("drag");
    }
    /* a slot held elsewhere in the process: the 16th definition finds none, says so, and the
     * other 15 are given back */
    osc_tableau one = {.stages = 1, .b = {1}};
    osc_method held;
    assert_int_equal(osc_method_from_tableau(&one, "held", 1, &held), OSC_OK);
    static const char says[] = ":20:5: methods[15]: no free method slot: at most 16 methods "
                               "defined by coefficients per process";
    expect_error(text, says);
    assert_string_equal(err + strlen(cfgpath), says);
    euler_definitions(text, sizeof text, CONFIG_MAX_USER_METHODS - 1);
    assert_int_equal(load_text(text, &cfg), 0);
    config_free(&cfg);
    assert_int_equal(osc_tableau_method_release(&held), OSC_OK);
}

/* The error of an include (path inc, from line 4, column `col` of the config), whole, and the
 * outcome as config_check (the fuzzer's and the regression replay's judge) sees it: a line that
 * names the included file passes it only by its "(included from CONFIG:...)". */
static void expect_include_error(const char *text, const char *inc, const char *at, int col)
{
    char want[1024];
    osc_config cfg;
    assert_int_equal(load_text(text, &cfg), 2);
    snprintf(want, sizeof want, "%s%s (included from %s:4:%d)", inc, at, cfgpath, col);
    assert_string_equal(err, want);
    assert_null(config_check_outcome(2, cfgpath, text, strlen(text), &cfg, err, sizeof err));
}

/* An included file that includes another, one larger than 16 MiB, and a 17th include (16 allowed)
 * are refused, each in one line at its place; a config given as text beyond 16 MiB too. */
static void include_limits(void **state)
{
    (void)state;
    char text[1024], inc[300], want[400];
    snprintf(inc, sizeof inc, "%s/m.yaml", tmpdir);
    snprintf(text, sizeof text, "%smethods: [include: m.yaml]\n", base);
    write_bytes(inc, "- {include: other.yaml}\n", 24);
    expect_include_error(text, inc, ":1:3: methods[0]: an included file cannot include another",
                         20);
    write_bytes(inc, "[]\n", 3); /* a list of no definitions: a mistake, not a no-op */
    expect_include_error(text, inc, ":1:1: expected a list of method definitions (mappings "
                         "with name, family, order and the family's coefficients)", 20);
    FILE *f = fopen(inc, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), (off_t)(16u << 20) + 1), 0); /* sparse */
    fclose(f);
    expect_include_error(text, inc, ": larger than 16 MiB", 20);
    unlink(inc);
    /* a control character in the name is refused before any read: errors inside the file would
     * carry it in their FILE:LINE prefix, and a newline would split each into two lines */
    snprintf(text, sizeof text, "%smethods: [include: \"m\\nyaml\"]\n", base);
    static const char control[] = ":4:20: methods[0].include: expected a file name without "
                                  "control characters, got 'm?yaml'";
    expect_error(text, control);
    assert_string_equal(err + strlen(cfgpath), control);

    /* 17 includes of files i0.yaml ... i16.yaml, each defining one method: the 17th is named */
    snprintf(text, sizeof text, "%smethods: [", base);
    for (int i = 0; i < 17; i++) {
        char path[300], def[80];
        snprintf(path, sizeof path, "%s/i%d.yaml", tmpdir, i);
        snprintf(def, sizeof def, "- {name: e%d, family: rk, order: 1, a: [[0]], b: [1]}\n", i);
        write_bytes(path, def, strlen(def));
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "%sinclude: i%d.yaml", i ? ", " : "", i);
    }
    strcat(text, "]\n");
    int col = (int)(strstr(text, "i16.yaml") - (text + strlen(base))) + 1;
    snprintf(want, sizeof want, ":4:%d: methods[16].include: more than 16 includes", col);
    expect_error(text, want);
    assert_string_equal(err + strlen(cfgpath), want);
    for (int i = 0; i < 17; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/i%d.yaml", tmpdir, i);
        unlink(path);
    }

    /* text never read from a file (config_load_text) is held to the same 16 MiB */
    size_t len = (16u << 20) + 1;
    char *big = malloc(len);
    assert_non_null(big);
    memset(big, '#', len);
    osc_config cfg;
    assert_int_equal(config_load_text("t.yaml", big, len, &cfg, err, sizeof err), 2);
    assert_string_equal(err, "t.yaml: larger than 16 MiB, not a config");
    assert_int_equal(config_load_text("t.yaml", big, len - 1, &cfg, err, sizeof err), 2);
    /* 16 MiB of comment: within the limit, read, and empty */
    assert_string_equal(err, "t.yaml:1:1: empty config, expected a mapping of config keys");
    free(big);
}

/* config_check's verdict on err, a failed load of the config at path whose text is `text`. */
static void expect_verdict(const char *path, const char *text, const char *err_text, bool passes)
{
    static const osc_config zero;
    const char *broken = config_check_outcome(2, path, text, text ? strlen(text) : 0, &zero,
                                              err_text, strlen(err_text) + 1);
    if ((broken == NULL) != passes)
        fail_msg("'%s': %s", err_text, broken ? broken : "passed");
}

/* config_check passes a line that names another file only when it ends "(included from
 * CONFIG:LINE:COL)" for this config: not any other config, nor a path that merely starts so;
 * and only when that file is the one the include at LINE:COL of the config reads (relative to
 * the config's directory unless absolute): an error inside an included file is never named
 * after the config, nor after a file the config does not include there. */
static void config_check_knows_included_lines(void **state)
{
    (void)state;
    static const char text[] = "stiffness: 1\ndt: 0.1\nsteps: 2\nmethods: [include: m.yaml]\n";
    static const struct {
        const char *err;
        bool passes;
    } cases[] = {
        {"c.yaml:1:1: x", true},
        {"m.yaml:1:3: x (included from c.yaml:4:20)", true},
        {"m.yaml: larger than 16 MiB (included from c.yaml:4:20)", true},
        {"m.yaml:1:3: x", false},
        {"m.yaml:1:3: x (included from d.yaml:4:20)", false},
        {"m.yaml:1:3: x (included from c.yaml.bak:4:20)", false},
        {"m.yaml:1:3: x (included from c.yaml:4:20) and more", false},
        {"c.yaml:1:1: x\nm.yaml:1:3: y (included from c.yaml:4:20)", true},
        {"m.yaml:1:3: y (included from c.yaml:4:20)\nm.yaml:2:3: z", false},
        {"m.yaml:1:3: y (included from c.yaml:4:20)\nc.yaml:5:1: z", true},
        {"m.yaml:1:3: y\nc.yaml:5:1: z (included from c.yaml:4:20)", false}, /* line by line */
        /* the error of m.yaml under the config's name */
        {"c.yaml:1:3: x (included from c.yaml:4:20)", false},
        {"c.yaml:1:1: x\nc.yaml:1:3: y (included from c.yaml:4:20)", false},
        /* a file that merely starts so; no include at the place (a key, a column off, past
         * the text) */
        {"m.yaml.bak:1:3: x (included from c.yaml:4:20)", false},
        {"m.yaml:1:3: x (included from c.yaml:4:11)", false},
        {"m.yaml:1:3: x (included from c.yaml:4:21)", false},
        {"m.yaml:1:3: x (included from c.yaml:9:20)", false},
        {"m.yaml:1:3: x (included from c.yaml:4:20x)", false},
        /* a lone line that fills err shows the file's start and "..." (cfg_shortened); a line
         * that does not is whole */
        {"m.y...ml:1:3: x (included from c.yaml:4:20)", true},
        {"c.y...ml:1:3: x (included from c.yaml:4:20)", false},
        {"c.yaml:1:1: x\nm.y...ml:1:3: y (included from c.yaml:4:20)", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_verdict("c.yaml", text, cases[i].err, cases[i].passes);
    /* no text, no include to name a file */
    expect_verdict("c.yaml", NULL, "m.yaml:1:3: x (included from c.yaml:4:20)", false);
    expect_verdict("c.yaml", NULL, "c.yaml:1:1: x", true);
    /* a config in a directory: a relative include is read there, an absolute one as given */
    expect_verdict("run/c.yaml", text, "run/m.yaml:1:3: x (included from run/c.yaml:4:20)", true);
    expect_verdict("run/c.yaml", text, "m.yaml:1:3: x (included from run/c.yaml:4:20)", false);
    static const char absolute[] = "steps: 2\nstiffness: 1\ndt: 0.1\nmethods: [include: /m/n.yaml]";
    expect_verdict("run/c.yaml", absolute, "/m/n.yaml: x (included from run/c.yaml:4:20)", true);
    expect_verdict("run/c.yaml", absolute, "run//m/n.yaml: x (included from run/c.yaml:4:20)",
                 false);
    /* the include's text as YAML gives it: quoted, escaped, in a block mapping */
    expect_verdict("c.yaml", "methods:\n  - include: \"m\\x2eyaml\"\n", "m.yaml: x (included from "
                 "c.yaml:2:14)", true);
    expect_verdict("c.yaml", "methods:\n  - include: \"m\\x2eyaml\"\n", "\"m\\x2eyaml\": x "
                 "(included from c.yaml:2:14)", false);
}

/* 16 definitions of family rkn or composition while a slot of that family is held elsewhere in
 * the process: the 16th finds none and says how many there are; the other 15 are given back
 * (the same 15 load again). */
static void family_slots_exhausted(void **state)
{
    (void)state;
    /* explicit Euler both ways: rkn (bbar sums to 1/2, b to 1) and composition (one substep) */
    static const char *const family_def[] = {
        "{name: d%d, family: rkn, order: 1, abar: [[0]], a: [[0]], bbar: [0.5], b: [1]}",
        "{name: d%d, family: composition, order: 1, base: euler, weights: [1]}"};
    static const char *const says[] = {
        ":20:5: methods[15]: no free method slot: at most 16 Runge-Kutta-Nystrom methods per "
        "process",
        ":20:5: methods[15]: no free method slot: at most 16 compositions per process"};
    osc_rkn_tableau euler = {.stages = 1, .bbar = {0.5}, .b = {1}};
    const double one[] = {1};
    for (int k = 0; k < 2; k++) {
        osc_method held;
        if (k == 0)
            assert_int_equal(osc_method_from_rkn(&euler, "held", 1, &held), OSC_OK);
        else
            assert_int_equal(osc_method_from_composition(osc_method_find("euler"), one, 1, false,
                                                         "held", 1, &held),
                             OSC_OK);
        char text[4096];
        for (int count = CONFIG_MAX_USER_METHODS; count >= CONFIG_MAX_USER_METHODS - 1; count--) {
            snprintf(text, sizeof text, "%smethods:\n", base);
            for (int i = 0; i < count; i++) {
                size_t used = strlen(text);
                snprintf(text + used, sizeof text - used, "  - ");
                used = strlen(text);
                snprintf(text + used, sizeof text - used, family_def[k], i);
                strcat(text, "\n");
            }
            if (count == CONFIG_MAX_USER_METHODS) {
                expect_error(text, says[k]);
                assert_string_equal(err + strlen(cfgpath), says[k]);
                continue;
            }
            osc_config cfg;
            if (load_text(text, &cfg) != 0)
                fail_msg("15 with one slot held: %s", err);
            config_free(&cfg);
        }
        assert_int_equal(k == 0 ? osc_rkn_method_release(&held)
                                : osc_composition_method_release(&held),
                         OSC_OK);
    }
}

/* A definition of each family that the library refuses though the loader read it as valid
 * (library_refuses) is one error at the definition, which names what could not be made; the
 * same text loads once the library takes it. */
static void library_refusal_located(void **state)
{
    (void)state;
    static const struct {
        const char *def, *says;
    } cases[] = {
        {"{name: e, family: rk, order: 1, a: [[0]], b: [1]}",
         ":5:5: methods[0]: cannot make a method of this tableau"},
        {"{name: e, family: rkn, order: 1, abar: [[0]], a: [[0]], bbar: [0.5], b: [1]}",
         ":5:5: methods[0]: cannot make a method of this tableau"},
        {"{name: e, family: composition, order: 1, base: euler, weights: [1]}",
         ":5:5: methods[0]: cannot make a method of this composition"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "%smethods:\n  - %s\n", base, cases[i].def);
        library_refuses = true;
        osc_config cfg;
        int rc = load_text(text, &cfg);
        library_refuses = false;
        assert_int_equal(rc, 2);
        assert_memory_equal(err, cfgpath, strlen(cfgpath));
        assert_string_equal(err + strlen(cfgpath), cases[i].says);
        static const osc_config zero;
        assert_memory_equal(&cfg, &zero, sizeof cfg);
        if (load_text(text, &cfg) != 0)
            fail_msg("%s", err);
        config_free(&cfg);
    }
}

/* ---- long paths ------------------------------------------------------------------------- */

/* tmpdir/././.../name, `len` bytes or one less: a legal path of any length below PATH_MAX. */
static char *long_path(size_t len, const char *name)
{
    char *p = malloc(len + 1);
    assert_non_null(p);
    size_t n = (size_t)snprintf(p, len + 1, "%s/", tmpdir);
    for (; n + 2 + strlen(name) <= len; n += 2)
        memcpy(p + n, "./", 2);
    snprintf(p + n, len + 1 - n, "%s", name);
    return p;
}

/* The error line for a config or include reached through a path of 1500 or 4000 bytes keeps
 * ":LINE:COL: key: message" (and an include's "(included from CONFIG:LINE:COL)"): whole in
 * room for it, and in 1024 bytes too (oscbench-bench's old buffer), where the paths lose their
 * middle instead of the line its end. */
static void long_paths_keep_the_location(void **state)
{
    (void)state;
    const char *defs = "- 5\n";
    char inc[300], text[512];
    snprintf(inc, sizeof inc, "%s/m.yaml", tmpdir);
    write_bytes(inc, defs, strlen(defs));
    const size_t lens[] = {1500, 4000};
    for (size_t i = 0; i < 2; i++) {
        char *path = long_path(lens[i], "c.yaml"), *ipath = long_path(lens[i], "m.yaml");
        size_t want_len = 2 * lens[i] + 200;
        char *want = malloc(want_len), *small = malloc(1024);
        assert_non_null(want), assert_non_null(small);
        osc_config cfg;
        const char *tails[] = {":4:1: dtt: unknown key (did you mean 'dt'?)",
                               ":1:3: methods[0]: expected a method definition (a mapping) "
                               "(included from "};
        for (size_t k = 0; k < 2; k++) {
            snprintf(text, sizeof text, "%s%s", base, k ? "methods: [include: m.yaml]\n"
                                                        : "dtt: 1\n");
            write_bytes(cfgpath, text, strlen(text));
            if (k)
                snprintf(want, want_len, "%s%s%s:4:20)", ipath, tails[k], path);
            else
                snprintf(want, want_len, "%s%s", path, tails[k]);
            assert_int_equal(config_load(path, &cfg, err, sizeof err), 2);
            if (strcmp(err, want) != 0)
                fail_msg("%zu bytes: error ...%s, wanted ...%s", lens[i], err + strlen(err) - 150, want + strlen(want) - 150);
            assert_int_equal(config_load(path, &cfg, small, 1024), 2);
            const char *end = k ? ":4:20)" : tails[k] + strlen(tails[k]) - 8;
            if (strncmp(small, tmpdir, strlen(tmpdir)) != 0 || !strstr(small, "/./...") ||
                !strstr(small, tails[k]) || strcmp(small + strlen(small) - strlen(end), end))
                fail_msg("%zu bytes, in 1024: '%s'", lens[i], small);
        }
        free(path), free(ipath), free(want), free(small);
    }
}

/* An error line of L bytes in a buffer of errlen: whole while L < errlen; from errlen = L down,
 * the path loses its middle and the line keeps its start (tmpdir) and its whole tail, at most
 * errlen - 1 bytes. errlen = L is the boundary: the whole path needs one byte more than there
 * is. */
static void error_line_at_the_buffer_boundary(void **state)
{
    (void)state;
    const char *tail = ":4:1: dtt: unknown key (did you mean 'dt'?)";
    char text[512], small[400];
    snprintf(text, sizeof text, "%sdtt: 1\n", base);
    write_bytes(cfgpath, text, strlen(text));
    char *path = long_path(300, "c.yaml");
    size_t whole = strlen(path) + strlen(tail);
    osc_config cfg;
    for (size_t errlen = whole - 3; errlen <= whole + 1; errlen++) {
        assert_true(errlen <= sizeof small);
        assert_int_equal(config_load(path, &cfg, small, errlen), 2);
        size_t n = strlen(small);
        bool fits = errlen > whole;
        bool ok = fits ? n == whole && strncmp(small, path, strlen(path)) == 0
                       : n < errlen && strncmp(small, tmpdir, strlen(tmpdir)) == 0 &&
                             strstr(small, "...") != NULL;
        if (!ok || n < strlen(tail) || strcmp(small + n - strlen(tail), tail) != 0)
            fail_msg("line of %zu bytes in %zu: '%s'", whole, errlen, small);
    }
    free(path);
}

/* Lines of err: its newlines, and one. */
static size_t err_lines(const char *text)
{
    size_t n = 1;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* shown_text, the one rule by which every message shows the user's text (cfg_excerpt's values,
 * the config's FILE prefix, error_line's paths, the command line's arguments): each byte of a
 * control character (C0, DEL, C1 as UTF-8) or of malformed UTF-8 (an overlong form, a
 * surrogate, beyond U+10FFFF, a byte no character starts with, a cut sequence) becomes '?';
 * printable ASCII and UTF-8 of one to four bytes stay as they are. */
static void shown_text_rules(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"plain name-1.yaml", "plain name-1.yaml"},
        {"a\nb\rc\td\x1b[2J\x7f" "e\x01", "a?b?c?d?[2J?e?"},
        {"\xc2\x80\xc2\x9b" "1\xc2\x9f", "????1??"},          /* C1: U+0080, U+009B, U+009F */
        /* U+00A0, u-umlaut, the euro sign, U+1F600, U+10FFFF */
        {"\xc2\xa0\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf",
         "\xc2\xa0\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"},
        {"\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf", "?????????"}, /* '/' overlong in 2, 3, 4 */
        {"\xed\xa0\x80\xf4\x90\x80\x80", "???????"},           /* a surrogate, U+110000 */
        {"\x80" "a\xf5\x80" "b\xff", "?a??b?"},                /* no character starts so */
        {"x\xe2\x82" "y\xe2\x82", "x??y??"},                   /* cut, by a byte and the end */
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(buf, sizeof buf, "%s", cases[i][0]);
        assert_ptr_equal(shown_text(buf), buf);
        if (strcmp(buf, cases[i][1]) != 0)
            fail_msg("case %zu: '%s', wanted '%s'", i, buf, cases[i][1]);
    }
    error_line(buf, sizeof buf, "%s: %s", "o\nut.h5", "cannot \x1b[2Jcreate");
    assert_string_equal(buf, "o?ut.h5: cannot ?[2Jcreate");
}

/* A config or an included file whose path holds a control character (a directory "d\ne", a
 * config "c\x1b[2J.yaml") is read by its real name, and each of its errors (the closing count
 * too) is one line that shows each byte of the character as '?', as an include name's refusal
 * does: a newline would split the line, an ESC would reach the terminal. A printable UTF-8 name
 * or value shows unchanged; a C1 control in UTF-8 (U+009B, CSI) does not, nor a character that
 * the cut of a long value at 40 bytes splits. */
static void control_characters_in_paths_shown(void **state)
{
    (void)state;
    char dir[300], path[320], want[1024], text[512];
    snprintf(dir, sizeof dir, "%s/d\ne", tmpdir);
    assert_int_equal(mkdir(dir, 0700), 0);
    /* octal escapes end by themselves, where "\xc3\xbc" "ber" needs a concatenation */
    const char *names[] = {"c\033[2J.yaml", "c\177.yaml", "c\302\2332J.yaml", "\303\274ber.yaml"};
    const char *shown[] = {"c?[2J.yaml", "c?.yaml", "c??2J.yaml", "\303\274ber.yaml"};
    osc_config cfg;
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(text, sizeof text, "%sdtt: 1\n", base);
        write_bytes(path, text, strlen(text));
        assert_int_equal(config_load(path, &cfg, err, sizeof err), 2);
        snprintf(want, sizeof want, "%s/d?e/%s:4:1: dtt: unknown key (did you mean 'dt'?)", tmpdir,
                 shown[i]);
        assert_string_equal(err, want);
        write_bytes(path, base, strlen(base)); /* without the mistake: read, and loaded */
        if (config_load(path, &cfg, err, sizeof err) != 0)
            fail_msg("%s", err);
        config_free(&cfg);
        unlink(path);
    }
    /* an included file's errors: its path and the including config's, both shown */
    char inc[320];
    snprintf(path, sizeof path, "%s/c.yaml", dir);
    snprintf(inc, sizeof inc, "%s/m.yaml", dir);
    write_bytes(inc, "- 5\n", 4);
    snprintf(text, sizeof text, "%smethods: [include: m.yaml]\n", base);
    write_bytes(path, text, strlen(text));
    assert_int_equal(config_load(path, &cfg, err, sizeof err), 2);
    snprintf(want, sizeof want, "%s/d?e/m.yaml:1:3: methods[0]: expected a method definition (a "
             "mapping) (included from %s/d?e/c.yaml:4:20)", tmpdir, tmpdir);
    assert_string_equal(err, want);
    unlink(inc), unlink(path), rmdir(dir);
    /* the fuzz target's judge holds every line to it */
    snprintf(want, sizeof want, "%s:4:1: dtt: unknown key\n%s:5:1: dt: got \x1b[2J", cfgpath,
             cfgpath);
    expect_verdict(cfgpath, NULL, want, false);
    want[strlen(want) - 4] = '?';
    expect_verdict(cfgpath, NULL, want, true);
    /* UTF-8 ends a line as it is; a character the newline cuts does not, nor a C1 control */
    snprintf(want, sizeof want, "%s:4:1: k\303\274\n%s:5:1: x", cfgpath, cfgpath);
    expect_verdict(cfgpath, NULL, want, true);
    snprintf(want, sizeof want, "%s:4:1: k\303\n%s:5:1: x", cfgpath, cfgpath);
    expect_verdict(cfgpath, NULL, want, false);
    snprintf(want, sizeof want, "%s:4:1: k\n%s:5:1: \302\233x", cfgpath, cfgpath);
    expect_verdict(cfgpath, NULL, want, false);
    /* the closing count names the config too */
    snprintf(text, sizeof text, "%s", base);
    for (int i = 0; i <= CONFIG_MAX_ERRORS; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "bad%d: 1\n", i);
    assert_int_equal(config_load_text("m\x1b]0;x\a.yaml", text, strlen(text), &cfg, err,
                                      sizeof err), 2);
    assert_int_equal(err_lines(err), CONFIG_MAX_ERRORS + 1);
    const char *first = "m?]0;x?.yaml:4:1: bad0: unknown key";
    assert_true(strncmp(err, first, strlen(first)) == 0);
    assert_string_equal(after_lines(err, CONFIG_MAX_ERRORS),
                        "m?]0;x?.yaml: 1 more error not shown");
    /* values quoted in a message: UTF-8 as it is, U+009B's two bytes as '?' */
    snprintf(text, sizeof text, "%smethods: [\"k\\u00fc\"]\n", base);
    expect_error(text, ":4:11: methods: unknown method 'k\xc3\xbc' (valid: ");
    snprintf(text, sizeof text, "%smethods: [\"a\\x9b[2J\"]\n", base);
    expect_error(text, ":4:11: methods: unknown method 'a??[2J' (valid: ");
    /* a value cut at 40 bytes inside a character: each byte of it before the cut as '?' */
    const char *cut[] = {"\303\274", "\342\202\254"}; /* u-umlaut, the euro sign */
    for (size_t i = 0; i < 2; i++) {
        char value[48], shown_value[48];
        size_t keep = 41 - strlen(cut[i]); /* then the character's last byte is the 41st */
        memset(value, 'a', keep);
        snprintf(value + keep, sizeof value - keep, "%sxx", cut[i]);
        snprintf(shown_value, sizeof shown_value, "%.*s%.*s...", (int)keep, value,
                 (int)(40 - keep), "??");
        snprintf(text, sizeof text, "%smethods: [\"%s\"]\n", base, value);
        snprintf(want, sizeof want, ":4:11: methods: unknown method '%s' (valid: ", shown_value);
        expect_error(text, want);
    }
}

/* An include names a regular file: a FIFO (which would block) or a directory is refused, and
 * the path is relative to the including config's directory. */
static void includes_are_regular_files(void **state)
{
    (void)state;
    char fifo[300], sub[300], inc[320], text[512];
    snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(text, sizeof text, "%smethods: [include: fifo]\n", base);
    osc_config cfg;
    int rc = load_text(text, &cfg);
    unlink(fifo);
    char want[700];
    snprintf(want, sizeof want, "%s: cannot include: not a regular file (included from %s:4:20)",
             fifo, cfgpath);
    if (rc != 2 || strcmp(err, want) != 0)
        fail_msg("rc %d, error '%s', wanted '%s'", rc, err, want);
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(text, sizeof text, "%smethods: [include: sub]\n", base);
    assert_int_equal(load_text(text, &cfg), 2);
    expect_in_error("/sub: cannot include: not a regular file");
    snprintf(inc, sizeof inc, "%s/m.yaml", sub);
    const char *defs = "- {name: h, family: rk, order: 2, a: [[0], [1]], b: [0.5, 0.5]}\n";
    write_bytes(inc, defs, strlen(defs));
    snprintf(text, sizeof text, "%smethods: [rk4, include: sub/m.yaml]\n", base);
    if (load_text(text, &cfg) != 0)
        fail_msg("%s", err);
    assert_int_equal(cfg.nmethods, 2);
    assert_string_equal(cfg.methods[1]->name, "h");
    snprintf(want, sizeof want, "--- include sub/m.yaml (%zu bytes)\n%s", strlen(defs), defs);
    assert_string_equal(cfg.included_text, want); /* what was read, for provenance */
    config_free(&cfg);
    /* an include that fits alone but not with the config: the manifest of a --resume
     * checkpoint holds both, within the loader's limit */
    size_t big = CONFIG_MAX_BYTES - 16;
    char *filler = malloc(big);
    assert_non_null(filler);
    memset(filler, '#', big);
    for (size_t i = 79; i < big; i += 80)
        filler[i] = '\n';
    write_bytes(inc, filler, big);
    free(filler);
    assert_int_equal(load_text(text, &cfg), 2);
    expect_in_error(":4:25: methods[1].include: the config and the files it includes exceed 16 "
                    "MiB together");
    unlink(inc);
    rmdir(sub);
}

/* Every included file is kept for provenance and --resume's manifest under the line
 * "--- include PATH (N bytes)", the path whole however long (it was cut at 80 bytes), and those
 * lines count toward the 16 MiB that the config and its includes may hold together: the
 * manifest holds them too. */
static void include_provenance_is_whole_and_counted(void **state)
{
    (void)state;
    char dir[200], sub[460], inc[480], rel[300], text[512], head[400];
    memset(dir, 'd', 150);
    dir[150] = '\0';
    snprintf(sub, sizeof sub, "%s/%s", tmpdir, dir);
    snprintf(inc, sizeof inc, "%s/m.yaml", sub);
    snprintf(rel, sizeof rel, "%s/m.yaml", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    const char *defs = "- {name: h, family: rk, order: 2, a: [[0], [1]], b: [0.5, 0.5]}\n";
    write_bytes(inc, defs, strlen(defs));
    snprintf(text, sizeof text, "%smethods: [rk4, include: %s]\n", base, rel);
    osc_config cfg;
    if (load_text(text, &cfg) != 0)
        fail_msg("%s", err);
    snprintf(head, sizeof head, "--- include %s (%zu bytes)\n", rel, strlen(defs));
    assert_int_equal(strncmp(cfg.included_text, head, strlen(head)), 0);
    assert_string_equal(cfg.included_text + strlen(head), defs);
    config_free(&cfg);
    /* an include that fills the 16 MiB exactly, its header line counted, then one byte more */
    for (size_t extra = 0; extra < 2; extra++) {
        size_t len = CONFIG_MAX_BYTES - strlen(text) + extra;
        len -= (size_t)snprintf(head, sizeof head, "--- include %s (%zu bytes)\n", rel, len);
        char *file = malloc(len);
        assert_non_null(file);
        memset(file, '#', len);
        memcpy(file, defs, strlen(defs));
        for (size_t i = strlen(defs) + 79; i < len; i += 80)
            file[i] = '\n';
        file[len - 1] = '\n';
        write_bytes(inc, file, len);
        free(file);
        int rc = load_text(text, &cfg);
        if (extra == 0 && rc != 0)
            fail_msg("%zu bytes with its header fill the limit: %s", len, err);
        if (extra == 0)
            config_free(&cfg);
        else if (rc != 2 || !strstr(err, "exceed 16 MiB together"))
            fail_msg("%zu bytes with its header pass the limit by one: rc %d, %s", len, rc, err);
    }
    unlink(inc);
    rmdir(sub);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(minimal_config_gets_defaults),
        cmocka_unit_test(failed_fstat_reports_its_error),
        cmocka_unit_test(include_growing_past_the_cap),
        cmocka_unit_test(include_read_error_is_a_read_error),
        cmocka_unit_test(include_failed_fstat_reports_its_error),
        cmocka_unit_test(include_size_cap_before_reading),
        cmocka_unit_test(loads_close_their_files),
        cmocka_unit_test(include_errors_collected_and_counted),
        cmocka_unit_test(include_needs_a_file_name),
        cmocka_unit_test(full_config_loads_every_key),
        cmocka_unit_test(range_of_one_is_from_and_scalar_methods_work),
        cmocka_unit_test(default_name_is_sanitized_stem),
        cmocka_unit_test(later_errors_are_located_by_key),
        cmocka_unit_test(missing_file),
        cmocka_unit_test(directory_instead_of_file),
        cmocka_unit_test(file_too_large),
        cmocka_unit_test(empty_and_comment_only_files),
        cmocka_unit_test(malformed_yaml),
        cmocka_unit_test(top_level_not_a_mapping),
        cmocka_unit_test(nul_byte),
        cmocka_unit_test(nul_escape),
        cmocka_unit_test(steps_overflow),
        cmocka_unit_test(unknown_keys),
        cmocka_unit_test(not_a_mapping_says_what_it_got),
        cmocka_unit_test(duplicate_keys),
        cmocka_unit_test(missing_required_keys),
        cmocka_unit_test(both_t_end_and_steps),
        cmocka_unit_test(wrong_types),
        cmocka_unit_test(out_of_range_numbers),
        cmocka_unit_test(whole_numbers_beyond_2_53_as_written),
        cmocka_unit_test(whole_numbers_read_exactly),
        cmocka_unit_test(nan_and_inf_in_every_spelling),
        cmocka_unit_test(overflow_and_garbage),
        cmocka_unit_test(bad_choices),
        cmocka_unit_test(vectors_of_the_wrong_length),
        cmocka_unit_test(bad_ranges),
        cmocka_unit_test(bad_trace),
        cmocka_unit_test(sweep_too_large_for_memory),
        cmocka_unit_test(traces_too_large_for_memory),
        cmocka_unit_test(traced_rows_chosen_by_value_count_for_memory),
        cmocka_unit_test(alias_bomb),
        cmocka_unit_test(deep_nesting),
        cmocka_unit_test(huge_sequence),
        cmocka_unit_test(too_many_nodes),
        cmocka_unit_test(node_limit_is_inclusive),
        cmocka_unit_test(random_bytes),
        cmocka_unit_test(omega0_and_zeta_axes),
        cmocka_unit_test(omega0_and_zeta_errors),
        cmocka_unit_test(mass_axis),
        cmocka_unit_test(bad_mass_lists),
        cmocka_unit_test(fractions_and_rates),
        cmocka_unit_test(subnormal_dt_refused),
        cmocka_unit_test(repeated_dt_refused),
        cmocka_unit_test(several_errors_reported_together),
        cmocka_unit_test(errors_beyond_the_cap_counted),
        cmocka_unit_test(method_typos_get_did_you_mean),
        cmocka_unit_test(traces_chosen_by_value),
        cmocka_unit_test(bad_trace_where),
        cmocka_unit_test(shipped_configs_trace_their_promise),
        cmocka_unit_test(user_method_slots_given_back),
        cmocka_unit_test(seventeenth_bad_definition),
        cmocka_unit_test(composition_orders_follow_the_base),
        cmocka_unit_test(includes_are_regular_files),
        cmocka_unit_test(include_provenance_is_whole_and_counted),
        cmocka_unit_test(long_paths_keep_the_location),
        cmocka_unit_test(definition_shape_errors),
        cmocka_unit_test(huge_coefficients_located),
        cmocka_unit_test(composition_substep_count),
        cmocka_unit_test(definition_family_and_name_errors),
        cmocka_unit_test(include_limits),
        cmocka_unit_test(family_slots_exhausted),
        cmocka_unit_test(library_refusal_located),
        cmocka_unit_test(config_check_knows_included_lines),
        cmocka_unit_test(one_more_error_is_singular),
        cmocka_unit_test(minus_zero_reads_as_zero_everywhere),
        cmocka_unit_test(file_of_the_cap_loads),
        cmocka_unit_test(error_line_at_the_buffer_boundary),
        cmocka_unit_test(shown_text_rules),
        cmocka_unit_test(control_characters_in_paths_shown),
        cmocka_unit_test(definition_orders_by_hand),
        cmocka_unit_test(rk_order_without_drag_is_nystroms),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
