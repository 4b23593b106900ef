/* `oscbench summary RESULTS.h5 [--format text|csv|json]`: the per-dt comparison of the run's
 * summary, again, from the /points table of a results file (read with the HDF5 C API). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "results.h"
#include "report.h"

enum { SUMMARY_FORMAT, SUMMARY_NOPTIONS };
static const cli_option summary_options[SUMMARY_NOPTIONS] = {
    [SUMMARY_FORMAT] = {"format", 'f', "FORMAT",
                        "text, csv or json (default: text); csv and json give every number\n"
                        "to 17 digits, an empty common set's worst values as empty / null"},
};

static const cli_command summary_command = {
    .name = "summary",
    .usage = "summary RESULTS.h5 [options]",
    .about = "Print again, from a results file, which method does what at each dt: per dt and\n"
             "method the share of lanes stable, and the worst error and |drift| over the lanes\n"
             "stable for every method at that dt (the common set, with its size).",
    .options = summary_options,
    .noptions = SUMMARY_NOPTIONS,
    .min_args = 1,
    .max_args = 1,
    .exit_codes = "  0  success\n  1  runtime failure (out of memory)\n"
                  "  2  bad input (an option; a file that cannot be read, with the system's\n"
                  "     reason, or is not an oscbench results file)\n",
};

/* The columns read back; each NULL until read. */
typedef struct points_read {
    size_t rows;
    char **method;
    double *dt, *stiffness, *drag, *max_error, *max_abs_drift;
    bool *stable;
    double *mass; /* NULL for a file written before mass was a column */
} points_read;

static void points_read_free(points_read *p)
{
    if (p->method)
        for (size_t i = 0; i < p->rows; i++)
            H5free_memory(p->method[i]);
    free(p->method), free(p->dt), free(p->stiffness), free(p->drag), free(p->max_error);
    free(p->max_abs_drift), free(p->stable), free(p->mass);
}

/* Room for the reason a column is refused, the line's last part. */
#define WHY_LEN 96

/* A 1-D dataset of /points (which the caller has found) read as `mem_type` into a new buffer of
 * `size`-byte elements, of `rows` rows unless that is SIZE_MAX (the first column read,
 * /points/method, sets it); NULL (with the reason in why) if it is missing or of another
 * length. */
static void *read_column(hid_t f, const char *name, hid_t mem_type, size_t size, size_t *rows,
                         char why[WHY_LEN])
{
    char path[64];
    snprintf(path, sizeof path, "/points/%s", name);
    hid_t d = H5Lexists(f, path, H5P_DEFAULT) > 0 ? H5Dopen2(f, path, H5P_DEFAULT)
                                                  : H5I_INVALID_HID;
    if (d < 0) {
        snprintf(why, WHY_LEN, "missing");
        return NULL;
    }
    hid_t s = H5Dget_space(d);
    hsize_t n = 0;
    int rank = H5Sget_simple_extent_ndims(s);
    if (rank == 1) /* it writes one extent per dimension */
        H5Sget_simple_extent_dims(s, &n, NULL);
    H5Sclose(s);
    void *buf = NULL;
    if (rank != 1) {
        snprintf(why, WHY_LEN, "not a column of /points");
    } else if (*rows != SIZE_MAX && n != *rows) {
        snprintf(why, WHY_LEN, "%llu rows, not %zu as /points/method", (unsigned long long)n,
                 *rows);
    } else if (!(buf = calloc(n ? n : 1, size))) {
        snprintf(why, WHY_LEN, "out of memory");
    } else if (H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        snprintf(why, WHY_LEN, "unreadable (of another type?)");
        free(buf);
        buf = NULL;
    }
    *rows = (size_t)n;
    H5Dclose(d);
    return buf;
}

/* stable: the int8 enum {FALSE, TRUE}, read through a memory enum of the same members. */
static bool *read_stable(hid_t f, size_t *rows, char why[WHY_LEN])
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
    int8_t no = 0, yes = 1;
    H5Tenum_insert(t, "FALSE", &no);
    H5Tenum_insert(t, "TRUE", &yes);
    int8_t *raw = read_column(f, "stable", t, 1, rows, why);
    H5Tclose(t);
    bool *v = raw ? malloc(*rows ? *rows : 1) : NULL;
    for (size_t i = 0; v && i < *rows; i++)
        v[i] = raw[i] == 1;
    if (raw && !v)
        snprintf(why, WHY_LEN, "out of memory");
    free(raw);
    return v;
}

/* Whether every row of a lane coordinate (dt, stiffness, drag, mass) is a finite number: the
 * table groups rows by them, and a NaN equals nothing (each row would be a dt of its own) while
 * oscbench never writes a lane at an infinity. Either is a foreign or damaged file. */
static bool coordinates_finite(const double *col, size_t rows, char why[WHY_LEN])
{
    for (size_t i = 0; i < rows; i++)
        if (!isfinite(col[i])) {
            snprintf(why, WHY_LEN, "row %zu is %g, not a finite number", i, col[i]);
            return false;
        }
    return true;
}

static int read_points(hid_t f, points_read *p, const char **column, char why[WHY_LEN])
{
    size_t rows = SIZE_MAX;
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, H5T_VARIABLE);
    H5Tset_cset(str, H5T_CSET_UTF8);
    *column = "method";
    p->method = read_column(f, "method", str, sizeof(char *), &rows, why);
    H5Tclose(str);
    if (!p->method)
        return -1;
    p->rows = rows;
    for (size_t i = 0; i < rows; i++)
        if (!p->method[i] || !p->method[i][0]) { /* an empty name, or the fill value of a column
                                                      * written without data */
            snprintf(why, WHY_LEN, "a row with no name");
            return -1;
        }
    const char *names[] = {"dt", "stiffness", "drag", "max_error", "max_abs_drift"};
    const bool coordinate[] = {true, true, true, false, false};
    double **cols[] = {&p->dt, &p->stiffness, &p->drag, &p->max_error, &p->max_abs_drift};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        *column = names[i];
        if (!(*cols[i] = read_column(f, names[i], H5T_NATIVE_DOUBLE, sizeof(double), &rows, why)))
            return -1;
        if (coordinate[i] && !coordinates_finite(*cols[i], rows, why))
            return -1;
    }
    *column = "stable";
    if (!(p->stable = read_stable(f, &rows, why)))
        return -1;
    *column = "mass"; /* optional: files of older versions have one mass and no column */
    p->mass = read_column(f, "mass", H5T_NATIVE_DOUBLE, sizeof(double), &rows, why);
    if (!p->mass)
        return strcmp(why, "missing") ? -1 : 0;
    return coordinates_finite(p->mass, rows, why) ? 0 : -1;
}

static int parse_format(const char *s, summary_format *format)
{
    static const char *const names[] = {"text", "csv", "json"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *format = (summary_format)i;
            return 0;
        }
    return cli_error(&summary_command, "--format: expected text, csv or json, got '%s'", s);
}

int cmd_summary(int argc, char **argv)
{
    cli_parser p;
    cli_begin(&p, &summary_command, argc, argv);
    summary_format format = SUMMARY_TEXT;
    const char *arg;
    for (int opt; (opt = cli_next(&p, &arg)) != CLI_DONE;) {
        if (opt == CLI_EXIT)
            return p.status;
        if (parse_format(arg, &format))
            return EXIT_BADINPUT;
    }
    int n;
    const char *path = cli_args(&p, &n)[0];
    int unreadable = cli_unreadable(path);
    if (unreadable) {
        print_line(stderr, "oscbench summary: %s: %s", path, strerror(unreadable));
        return EXIT_BADINPUT;
    }
    const char *not_results;
    hid_t f = results_open(path, &not_results);
    if (f < 0) {
        print_line(stderr, "oscbench summary: %s: %s", path, not_results);
        return EXIT_BADINPUT;
    }
    points_read pts = {0};
    const char *column = "";
    char why[WHY_LEN] = "";
    int rc = read_points(f, &pts, &column, why);
    H5Fclose(f);
    if (rc) {
        print_line(stderr, "oscbench summary: %s: /points/%s: %s", path, column, why);
        points_read_free(&pts);
        return strcmp(why, "out of memory") ? EXIT_BADINPUT : EXIT_RUNTIME;
    }
    points_view v = {pts.rows,      (const char *const *)pts.method, pts.dt,
                     pts.stiffness, pts.drag,          pts.max_error,
                     pts.max_abs_drift, pts.stable,    pts.mass};
    if (format == SUMMARY_TEXT) { /* for a terminal: names are the file writer's, not ours */
        for (size_t i = 0; i < pts.rows; i++)
            shown_text(pts.method[i]);
        print_line(stdout, "oscbench summary of %s: %zu points", path, pts.rows);
    }
    rc = report_per_dt(stdout, &v, format);
    points_read_free(&pts);
    if (rc) {
        fprintf(stderr, "oscbench summary: out of memory\n");
        return EXIT_RUNTIME;
    }
    return 0;
}
