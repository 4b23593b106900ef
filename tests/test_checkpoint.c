/* Checkpoints (harness/output/checkpoint.c): finished work items written by the sweep's
 * item_done hook come back, every /points column bit for bit, into a fresh result; damaged,
 * truncated and foreign item files are left out (to be recomputed); a checkpoint of another
 * config or version is refused with one line and left byte for byte alone; temporaries of a
 * killed writer are removed but never a live one; removal takes everything oscbench wrote. */
#define _GNU_SOURCE /* F_OFD_SETLK */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "config.h"
#include "sweep.h"
#include "test_files.h"


/* 1200 lanes per batch: items of 512, 512 and 176 lanes; 2 methods x 2 dt: 12 items. */
static const char config_a[] = "name: ck\n"
                               "methods: [semi-implicit, rk4]\n"
                               "stiffness: {from: 0.5, to: 4000, count: 600, spacing: log}\n"
                               "drag: [0, 0.7]\n"
                               "dt: [0.05, 0.02]\n"
                               "t_end: 2\n";
/* The same layout (so the same items) with one value changed: a different sweep. */
static const char config_b[] = "name: ck\n"
                               "methods: [semi-implicit, rk4]\n"
                               "stiffness: {from: 0.5, to: 4000, count: 600, spacing: log}\n"
                               "drag: [0, 0.8]\n"
                               "dt: [0.05, 0.02]\n"
                               "t_end: 2\n";
enum { NITEMS = 12 };

typedef struct fixture {
    char dir[256];     /* a fresh temporary directory */
    char out[300];     /* the results path in it */
    char ckdir[320];   /* its checkpoint */
    osc_config a, b;
} fixture;

static void load_text(const char *text, osc_config *cfg)
{
    char err[512];
    if (config_load_text("ck.yaml", text, strlen(text), cfg, err, sizeof err))
        fail_msg("%s", err);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    if (!make_temp_dir(f->dir, sizeof f->dir, "test_checkpoint"))
        return -1;
    snprintf(f->out, sizeof f->out, "%s/out.h5", f->dir);
    snprintf(f->ckdir, sizeof f->ckdir, "%s/out.h5.ckpt", f->dir);
    load_text(config_a, &f->a);
    load_text(config_b, &f->b);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove_tree(f->dir);
    config_free(&f->a);
    config_free(&f->b);
    free(f);
    return 0;
}

static void path_in(char *buf, size_t len, const char *dir, const char *name)
{
    if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len)
        fail_msg("path too long");
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static void item_path(const fixture *f, size_t index, char *buf, size_t len)
{
    char name[64];
    snprintf(name, sizeof name, "item-%06zu", index);
    path_in(buf, len, f->ckdir, name);
}

static void assert_one_line(const char *s)
{
    assert_true(*s != '\0');
    assert_null(strchr(s, '\n'));
}

/* Runs cfg's whole sweep through a checkpoint at f->out on `threads` threads (several threads:
 * item_done is called concurrently). */
static void sweep_into_checkpoint(const fixture *f, const osc_config *cfg, int threads,
                                  sweep_result *res)
{
    char err[1024] = "";
    ckpt *c = NULL;
    if (ckpt_open(&c, f->out, cfg, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(sweep_alloc(cfg, res, err, sizeof err), 0);
    sweep_plan plan = {.item_done = ckpt_item_done, .ctx = c};
    omp_set_num_threads(threads);
    if (sweep_run_items(cfg, &plan, false, res, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(ckpt_sync(c, err, sizeof err), 0);
    ckpt_close(c);
}

/* A fresh result restored from f's checkpoint for cfg. */
static void restore(const fixture *f, const osc_config *cfg, sweep_result *res, bool *done,
                    size_t *restored, size_t *ignored)
{
    char err[1024] = "";
    ckpt *c = NULL;
    if (ckpt_open(&c, f->out, cfg, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(sweep_alloc(cfg, res, err, sizeof err), 0);
    assert_int_equal(ckpt_restore(c, cfg, res, done, restored, ignored, err, sizeof err), 0);
    ckpt_close(c);
}

/* Every column's bytes, the method and the item's seconds of item `index` in a and b. */
static void assert_item_equal(const osc_config *cfg, const sweep_result *a, const sweep_result *b,
                              size_t index)
{
    const sweep_item it = sweep_item_at(cfg, index);
    for (size_t k = 0; k < sweep_points_ncolumns; k++) {
        const sweep_column *col = &sweep_points_columns[k];
        const size_t bytes = sweep_column_size(col);
        if (memcmp((const char *)sweep_column_data(&a->points, col) + it.row0 * bytes,
                   (const char *)sweep_column_data(&b->points, col) + it.row0 * bytes,
                   it.lanes * bytes) != 0)
            fail_msg("item %zu: column %s differs", index, col->name);
    }
    for (size_t r = it.row0; r < it.row0 + it.lanes; r++)
        assert_ptr_equal(a->points.method[r], b->points.method[r]);
    assert_memory_equal(&a->item_seconds[index], &b->item_seconds[index], sizeof(double));
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void restores_every_column(void **state)
{
    fixture *f = *state;
    assert_int_equal(sweep_item_count(&f->a), NITEMS);
    sweep_result ran, back;
    sweep_into_checkpoint(f, &f->a, 3, &ran);
    assert_int_equal(count_prefixed(f->ckdir, "item-"), NITEMS);
    assert_int_equal(count_prefixed(f->ckdir, "."), 2); /* "." and "..": no temporary left */
    bool done[NITEMS];
    size_t restored, ignored;
    restore(f, &f->a, &back, done, &restored, &ignored);
    assert_int_equal(restored, NITEMS);
    assert_int_equal(ignored, 0);
    size_t unstable = 0;
    for (size_t i = 0; i < NITEMS; i++) {
        assert_true(done[i]);
        assert_item_equal(&f->a, &ran, &back, i);
    }
    for (size_t r = 0; r < ran.points.rows; r++)
        unstable += !ran.points.stable[r];
    /* omega0 dt reaches sqrt(4000) * 0.05 = 3.2: unstable rows (+inf columns) are restored too */
    assert_true(unstable > 0 && unstable < ran.points.rows);
    sweep_result_free(&ran);
    sweep_result_free(&back);
}

static void damaged_items_are_left_out(void **state)
{
    fixture *f = *state;
    sweep_result ran, back;
    /* Item files of config b, for a foreign item of the same index and size. */
    sweep_into_checkpoint(f, &f->b, 2, &ran);
    sweep_result_free(&ran);
    char foreign[512], path[512];
    path_in(foreign, sizeof foreign, f->dir, "foreign-item-4");
    item_path(f, 4, path, sizeof path);
    copy_file(path, foreign);
    char err[1024];
    ckpt *c = NULL;
    assert_int_equal(ckpt_open(&c, f->out, &f->b, err, sizeof err), 0);
    assert_int_equal(ckpt_remove(c, err, sizeof err), 0);
    ckpt_close(c);

    sweep_into_checkpoint(f, &f->a, 2, &ran);
    item_path(f, 1, path, sizeof path);
    flip_byte(path, 1000); /* in the payload: only the CRC can tell */
    item_path(f, 9, path, sizeof path);
    flip_byte(path, -1); /* in the CRC itself */
    item_path(f, 3, path, sizeof path);
    assert_int_equal(truncate(path, 2000), 0);
    char from[512];
    item_path(f, 6, from, sizeof from); /* 512 lanes, as item 7: only the header tells */
    item_path(f, 7, path, sizeof path);
    copy_file(from, path);
    item_path(f, 4, path, sizeof path);
    copy_file(foreign, path); /* another config's item 4: its manifest CRC tells */
    item_path(f, 10, path, sizeof path);
    assert_int_equal(unlink(path), 0); /* missing: to do, not damaged */
    const unsigned char not_a_bool = 2;
    item_path(f, 0, path, sizeof path);
    forge_item(path, "stable", SWEEP_ITEM_LANES, 5, &not_a_bool, sizeof not_a_bool); /* CRC right, value not */
    /* A forged value with its CRC made right is restored as it stands: the restored rows come
     * from the file, not from a rerun. */
    const double forged = 12345.0;
    item_path(f, 11, path, sizeof path);
    forge_item(path, "max_error", sweep_item_at(&f->a, 11).lanes, 3, &forged, sizeof forged);

    bool done[NITEMS];
    size_t restored, ignored;
    restore(f, &f->a, &back, done, &restored, &ignored);
    const size_t bad[] = {0, 1, 3, 4, 7, 9}, nbad = sizeof bad / sizeof *bad;
    assert_int_equal(ignored, nbad);
    assert_int_equal(restored, NITEMS - nbad - 1);
    for (size_t i = 0; i < NITEMS; i++) {
        bool is_bad = i == 10;
        for (size_t j = 0; j < nbad; j++)
            is_bad |= i == bad[j];
        if (done[i] == is_bad)
            fail_msg("item %zu: done %d", i, done[i]);
        if (done[i] && i != 11)
            assert_item_equal(&f->a, &ran, &back, i);
    }
    const size_t forged_row = sweep_item_at(&f->a, 11).row0 + 3;
    assert_true(back.points.max_error[forged_row] == forged);
    assert_true(ran.points.max_error[forged_row] != forged);
    back.points.max_error[forged_row] = ran.points.max_error[forged_row];
    assert_item_equal(&f->a, &ran, &back, 11);
    /* A left-out item's rows are untouched (zero as allocated), never half-filled. */
    assert_true(back.points.dt[sweep_item_at(&f->a, 1).row0] == 0.0);
    assert_true(isnan(back.item_seconds[1]));
    sweep_result_free(&ran);
    sweep_result_free(&back);
}

/* Overwrites `size` bytes at `at` of an item file's header and makes its CRC right again: a file
 * whose bytes are whole but whose header says it is something else (as a forger or a bug would
 * make). */
static void forge_header(const char *path, size_t at, const void *value, size_t size)
{
    assert_true(at + size <= 56);
    forge_bytes(path, at, value, size);
}

static void append_byte(const char *path)
{
    FILE *fp = fopen(path, "ab");
    assert_non_null(fp);
    fputc(0, fp);
    assert_int_equal(fclose(fp), 0);
}

/* Every field item_valid checks, each wrong in one file with its CRC made right, and files that
 * are one byte too long or short, a bool of 2 in an item's last lane, a symlink to a valid item:
 * each is left out (counted as ignored, to be recomputed), and only the intact items come back.
 * Header offsets: magic 0, format 8, ncolumns 12, index 16, row0 24, lanes 32 (checkpoint.c). */
static void forged_item_headers_are_left_out(void **state)
{
    fixture *f = *state;
    sweep_result ran, back;
    sweep_into_checkpoint(f, &f->a, 2, &ran);
    char path[512], keep[512];
    const uint32_t other_format = 99, ncolumns = (uint32_t)sweep_points_ncolumns + 1;
    const uint64_t index3 = 3, row0 = 0, lanes = 176;
    item_path(f, 0, path, sizeof path);
    forge_header(path, 0, "oscitex", 8);
    item_path(f, 1, path, sizeof path);
    forge_header(path, 8, &other_format, sizeof other_format); /* no format oscbench writes */
    item_path(f, 2, path, sizeof path);
    forge_header(path, 12, &ncolumns, sizeof ncolumns);
    item_path(f, 4, path, sizeof path); /* 512 lanes, as item 3 */
    forge_header(path, 16, &index3, sizeof index3);
    item_path(f, 3, path, sizeof path); /* item 3 starts at row 1200: claims row 0 */
    forge_header(path, 24, &row0, sizeof row0);
    item_path(f, 6, path, sizeof path); /* 512 lanes: claims 176 */
    forge_header(path, 32, &lanes, sizeof lanes);
    item_path(f, 7, path, sizeof path);
    append_byte(path);
    item_path(f, 9, path, sizeof path);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size - 1), 0);
    const unsigned char not_a_bool = 2;
    item_path(f, 10, path, sizeof path); /* 512 lanes: the last one */
    forge_item(path, "stable", SWEEP_ITEM_LANES, SWEEP_ITEM_LANES - 1, &not_a_bool, 1);
    item_path(f, 8, path, sizeof path); /* a symlink is no item file oscbench writes */
    path_in(keep, sizeof keep, f->dir, "item-8-elsewhere");
    assert_int_equal(rename(path, keep), 0);
    assert_int_equal(symlink(keep, path), 0);

    bool done[NITEMS];
    size_t restored, ignored;
    restore(f, &f->a, &back, done, &restored, &ignored);
    assert_int_equal(ignored, 10);
    assert_int_equal(restored, 2);
    for (size_t i = 0; i < NITEMS; i++)
        if (done[i] != (i == 5 || i == 11))
            fail_msg("item %zu: done %d", i, done[i]);
    assert_item_equal(&f->a, &ran, &back, 5);
    assert_item_equal(&f->a, &ran, &back, 11);
    sweep_result_free(&ran);
    sweep_result_free(&back);
}

/* ckpt_open for cfg refuses, in one line naming the directory and `what`. */
static void assert_open_refused(const fixture *f, const osc_config *cfg, const char *what)
{
    char err[1024] = "";
    ckpt *c = NULL;
    int rc = ckpt_open(&c, f->out, cfg, err, sizeof err);
    if (rc != CKPT_EFOREIGN)
        fail_msg("expected a refusal (%s), got %d: %s", what, rc, err);
    assert_null(c);
    assert_one_line(err);
    if (!strstr(err, f->ckdir) || !strstr(err, what))
        fail_msg("the refusal does not name the directory and '%s': %s", what, err);
}

/* Runs ckpt_open for cfg, expecting a refusal that mentions `what`; the directory must stay
 * byte for byte as it was. */
static void expect_refused(const fixture *f, const osc_config *cfg, const char *what)
{
    size_t len;
    char *before = dir_bytes(f->ckdir, &len);
    assert_open_refused(f, cfg, what);
    assert_dir_unchanged(f->ckdir, before, len);
    free(before);
}

/* expect_refused for a manifest that is not a small file (a snapshot would read it): the
 * refusal, and the manifest's type, size and times as they were. */
static void expect_refused_unread(const fixture *f, const char *manifest, const char *what)
{
    struct stat before, after;
    assert_int_equal(lstat(manifest, &before), 0);
    assert_open_refused(f, &f->a, what);
    assert_int_equal(lstat(manifest, &after), 0);
    assert_int_equal(before.st_mode, after.st_mode);
    assert_int_equal(before.st_size, after.st_size);
    assert_memory_equal(&before.st_mtim, &after.st_mtim, sizeof before.st_mtim);
}

static void rewrite_manifest(const fixture *f, const char *from, const char *to)
{
    char path[512];
    path_in(path, sizeof path, f->ckdir, "manifest");
    size_t len;
    char *m = slurp(path, &len);
    assert_non_null(m);
    char *at = strstr(m, from);
    assert_non_null(at);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fwrite(m, 1, (size_t)(at - m), fp);
    fputs(to, fp);
    fputs(at + strlen(from), fp);
    assert_int_equal(fclose(fp), 0);
    free(m);
}

/* The manifest with `from` rewritten as `to` is refused for `what`; then put back. */
static void refused_once(const fixture *f, const char *from, const char *to, const char *what)
{
    rewrite_manifest(f, from, to);
    expect_refused(f, &f->a, what);
    rewrite_manifest(f, to, from);
}

static void foreign_checkpoint_is_refused(void **state)
{
    fixture *f = *state;
    sweep_result ran;
    sweep_into_checkpoint(f, &f->a, 2, &ran);
    sweep_result_free(&ran);
    expect_refused(f, &f->b, "different config");

    /* The same config, opened again: accepted, nothing changed. */
    size_t len;
    char *before = dir_bytes(f->ckdir, &len);
    char err[1024];
    ckpt *c = NULL;
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0);
    ckpt_close(c);
    assert_dir_unchanged(f->ckdir, before, len);
    free(before);

    refused_once(f, "\nversion " OSC_VERSION "\n", "\nversion 0.0.1-old\n",
                 "version differs (0.0.1-old there, " OSC_VERSION " here)");
    refused_once(f, "\nitem_lanes ", "\nitem_lanes 1", "item_lanes differs");
    refused_once(f, "\nformat 2\n", "\nformat 1\n", "format differs");
    /* Another build of the same version: its git revision tells (README promises it). */
    char path[512], revision[128];
    path_in(path, sizeof path, f->ckdir, "manifest");
    char *m = slurp(path, NULL);
    assert_non_null(m);
    const char *rev = strstr(m, "\ngit_revision ");
    assert_non_null(rev);
    snprintf(revision, sizeof revision, "%.*s", (int)(strchr(rev + 1, '\n') - rev + 1), rev);
    free(m);
    refused_once(f, revision, "\ngit_revision 0000000\n", "git_revision differs (0000000 there, ");
    /* Another build of the same revision (every build of a modified tree reads "<rev>-dirty"):
     * its build ids tell. The linker (GNU ld, as Debian's gcc and clang call it) wrote both. */
    char build[300];
    m = slurp(path, NULL);
    assert_non_null(m);
    const char *ids = strstr(m, "\nbuild exe:");
    assert_non_null(ids);
    snprintf(build, sizeof build, "%.*s", (int)(strchr(ids + 1, '\n') - ids + 1), ids);
    free(m);
    assert_null(strstr(build, "none"));
    assert_non_null(strstr(build, " lib:"));
    refused_once(f, build, "\nbuild exe:00 lib:00\n", "build differs (exe:00 lib:00 there, ");
    /* Another /points layout (a column renamed, retyped or added): refused, not half-read. */
    refused_once(f, "\ncolumns dt:f64 ", "\ncolumns dt:i64 ", "columns differs");
    /* ... shown from a little before where it differs, however far along the line that is */
    refused_once(f, " max_rel_error_while_stable:f64\n", " max_rel_error_while_stable:f32\n",
                 "columns differs (...error_while_stable:f32 there, ...error_while_stable:f64 "
                 "here)");
    rewrite_manifest(f, "drag: [0, 0.7]", "drag: [0, 0.70]"); /* the text, not the values */
    expect_refused(f, &f->a, "different config");
    rewrite_manifest(f, "drag: [0, 0.70]", "drag: [0, 0.7]");
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0); /* all restored */
    ckpt_close(c);

    assert_int_equal(truncate(path, 30), 0);
    expect_refused(f, &f->a, "manifest ends");
    assert_int_equal(unlink(path), 0);
    expect_refused(f, &f->a, "manifest cannot be read");

    /* not a file (a FIFO is not waited on), or larger than 16 MiB of config text and 64 KiB of
     * header lines: refused unread */
    assert_int_equal(mkdir(path, 0700), 0);
    expect_refused_unread(f, path, "its manifest is not a regular file; left alone");
    assert_int_equal(rmdir(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_refused_unread(f, path, "its manifest is not a regular file; left alone");
    assert_int_equal(unlink(path), 0);
    const long limit = (16L << 20) + (64L << 10);
    char want[160];
    snprintf(want, sizeof want, "its manifest is larger than any oscbench writes (%ld bytes, at "
                                "most %ld); left alone", limit + 1, limit);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(ftruncate(fileno(fp), limit + 1), 0); /* sparse */
    assert_int_equal(fclose(fp), 0);
    expect_refused_unread(f, path, want);
    assert_int_equal(truncate(path, limit), 0); /* at the limit: read (all NUL: no line 1) */
    expect_refused_unread(f, path, "its manifest ends at line 1; left alone");
    assert_int_equal(unlink(path), 0);
}

/* The manifest's lines one by one: the counts it records, a value that only grows a digit, a
 * renamed key, a changed config_bytes with the same text after it, a byte after the text: each
 * refused, and the manifest put back is accepted again. */
static void manifest_lines_are_compared(void **state)
{
    fixture *f = *state;
    sweep_result ran;
    sweep_into_checkpoint(f, &f->a, 1, &ran);
    sweep_result_free(&ran);
    char path[512];
    path_in(path, sizeof path, f->ckdir, "manifest");
    size_t len = 0;
    char *m = slurp(path, &len);
    assert_non_null(m);
    /* 12 items; 2 methods x 2 dt x 600 stiffness x 2 drag rows */
    assert_non_null(strstr(m, "\nitems 12\n"));
    assert_non_null(strstr(m, "\nrows 4800\n"));
    free(m);

    refused_once(f, "\nitems 12\n", "\nitems 120\n", "items differs (120 there, 12 here)");
    refused_once(f, "\nrows 4800\n", "\nrows 4801\n", "rows differs");
    refused_once(f, "\nversion ", "\nverzion ",
                 "not one oscbench writes (line 3: expected 'version')");
    rewrite_manifest(f, "\nconfig_bytes ", "\nconfig_bytes 0"); /* the same count, other bytes */
    expect_refused(f, &f->a, "different config");
    rewrite_manifest(f, "\nconfig_bytes 0", "\nconfig_bytes ");
    FILE *fp = fopen(path, "ab");
    assert_non_null(fp);
    fputc('\n', fp);
    assert_int_equal(fclose(fp), 0);
    expect_refused(f, &f->a, "different config");
    assert_int_equal(truncate(path, (off_t)len), 0);
    char err[1024];
    ckpt *c = NULL;
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0);
    ckpt_close(c);
}

/* A config that includes a method file: the manifest holds the included text too, so the same
 * files are accepted (every item restored bit for bit) and a changed include, even only a
 * comment of it, is another config. */
static void included_text_is_in_the_manifest(void **state)
{
    fixture *f = *state;
    static const char included[] = "# kutta3, included\n"
                                   "- name: kutta3\n"
                                   "  family: rk\n"
                                   "  order: 3\n"
                                   "  a: [[0], [\"1/2\", 0], [-1, 2, 0]]\n"
                                   "  b: [\"1/6\", \"2/3\", \"1/6\"]\n"
                                   "  c: [0, \"1/2\", 1]\n";
    static const char config[] = "name: ck\n"
                                 "methods: [rk4, include: inc.yaml]\n"
                                 "stiffness: {from: 0.5, to: 40, count: 300, spacing: log}\n"
                                 "drag: [0, 0.7]\n"
                                 "dt: [0.05]\n"
                                 "t_end: 2\n";
    char inc_path[512], cfg_path[512], err[1024] = "";
    path_in(inc_path, sizeof inc_path, f->dir, "inc.yaml");
    path_in(cfg_path, sizeof cfg_path, f->dir, "ck.yaml");
    write_text(inc_path, included);
    write_text(cfg_path, config);
    osc_config cfg, again, changed;
    if (config_load(cfg_path, &cfg, err, sizeof err) || config_load(cfg_path, &again, err, sizeof err))
        fail_msg("%s", err);
    sweep_result ran, back;
    sweep_into_checkpoint(f, &cfg, 2, &ran);
    char path[512];
    path_in(path, sizeof path, f->ckdir, "manifest");
    char *m = slurp(path, NULL);
    assert_non_null(m);
    const char *text = strstr(m, config);
    if (!text || !strstr(text + strlen(config), included))
        fail_msg("the manifest does not end with the config's and the include's text");
    free(m);

    ckpt *c = NULL; /* the same files loaded afresh: the same config */
    if (ckpt_open(&c, f->out, &again, err, sizeof err))
        fail_msg("%s", err);
    ckpt_close(c);
    const size_t n = sweep_item_count(&cfg);
    bool done[8];
    size_t restored, ignored;
    assert_true(n >= 2 && n <= 8);
    restore(f, &cfg, &back, done, &restored, &ignored);
    assert_int_equal(restored, n);
    for (size_t i = 0; i < n; i++)
        assert_item_equal(&cfg, &ran, &back, i);

    char other[sizeof included];
    memcpy(other, included, sizeof included);
    other[2] = 'K'; /* a comment: the same methods, another file */
    write_text(inc_path, other);
    if (config_load(cfg_path, &changed, err, sizeof err))
        fail_msg("%s", err);
    expect_refused(f, &changed, "files it includes");
    sweep_result_free(&ran);
    sweep_result_free(&back);
    config_free(&cfg);
    config_free(&again);
    config_free(&changed);
}

/* A sweep of three masses: the same 1200 lanes per batch (3 masses x 200 omega0 x 2 zeta), so
 * the same 12 items, cut across the masses. Every item, its mass column too, comes back bit for
 * bit; the manifest counts the lanes of every mass; another mass list is another sweep. */
static const char mass_config[] = "name: ck\n"
                                  "methods: [semi-implicit, rk4]\n"
                                  "omega0: {from: 0.5, to: 60, count: 200, spacing: log}\n"
                                  "zeta: [0, 0.35]\n"
                                  "mass: [0.5, 1, 3]\n"
                                  "dt: [0.05, 0.02]\n"
                                  "t_end: 2\n";

static void restores_a_mass_sweep(void **state)
{
    fixture *f = *state;
    osc_config cfg, other;
    load_text(mass_config, &cfg);
    assert_int_equal(sweep_item_count(&cfg), NITEMS);
    sweep_result ran, back;
    sweep_into_checkpoint(f, &cfg, 3, &ran);
    bool done[NITEMS];
    size_t restored, ignored;
    restore(f, &cfg, &back, done, &restored, &ignored);
    assert_int_equal(restored, NITEMS);
    for (size_t i = 0; i < NITEMS; i++)
        assert_item_equal(&cfg, &ran, &back, i);
    const double masses[] = {0.5, 1, 3};
    for (size_t r = 0; r < back.points.rows; r++) /* 400 lanes per mass within each batch */
        assert_true(back.points.mass[r] == masses[r % 1200 / 400]);
    char path[512];
    path_in(path, sizeof path, f->ckdir, "manifest");
    char *m = slurp(path, NULL);
    assert_non_null(m);
    assert_non_null(strstr(m, "\nrows 4800\n")); /* 2 methods x 2 dt x 3 x 200 x 2 */
    assert_non_null(strstr(m, " mass:f64 "));
    free(m);
    char other_text[sizeof mass_config];
    memcpy(other_text, mass_config, sizeof mass_config);
    memcpy(strstr(other_text, "3]"), "4]", 2);
    load_text(other_text, &other);
    expect_refused(f, &other, "different config");
    sweep_result_free(&ran);
    sweep_result_free(&back);
    config_free(&cfg);
    config_free(&other);
}

static void not_a_directory_is_refused(void **state)
{
    fixture *f = *state;
    FILE *fp = fopen(f->ckdir, "w");
    assert_non_null(fp);
    fputs("mine\n", fp);
    assert_int_equal(fclose(fp), 0);
    char err[1024] = "";
    ckpt *c = NULL;
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), CKPT_EFOREIGN);
    assert_non_null(strstr(err, "not a directory"));
    size_t len;
    char *kept = slurp(f->ckdir, &len);
    assert_non_null(kept);
    assert_string_equal(kept, "mine\n");
    free(kept);
}

/* A run killed between ckpt_remove's last two steps leaves an empty directory: it holds no
 * one's work, so the resubmitted run takes it as a new checkpoint rather than refusing it. */
static void empty_directory_is_taken(void **state)
{
    fixture *f = *state;
    assert_int_equal(mkdir(f->ckdir, 0777), 0);
    char err[1024] = "";
    ckpt *c = NULL;
    if (ckpt_open(&c, f->out, &f->a, err, sizeof err))
        fail_msg("an empty checkpoint directory was not taken: %s", err);
    ckpt_close(c);
    assert_int_equal(count_prefixed(f->ckdir, "manifest"), 1);
    assert_int_equal(count_prefixed(f->dir, "."), 2); /* no temporary directory left */
    sweep_result ran;
    sweep_into_checkpoint(f, &f->a, 2, &ran); /* and it is a working checkpoint */
    sweep_result_free(&ran);
    assert_int_equal(count_prefixed(f->ckdir, "item-"), NITEMS);
}

/* A directory where an item file belongs would make the item's rename fail once the sweep is
 * done. An empty one is no one's work: it is removed on open and the item, missing, is computed
 * and saved. One with entries is refused (one line naming it), and it and its entries stay. */
static void directory_in_place_of_an_item(void **state)
{
    fixture *f = *state;
    sweep_result ran, back;
    sweep_into_checkpoint(f, &f->a, 2, &ran);
    char path[512], inner[600];
    item_path(f, 5, path, sizeof path);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(inner, sizeof inner, "%s/mine", path);
    FILE *fp = fopen(inner, "w");
    assert_non_null(fp);
    assert_int_equal(fclose(fp), 0);
    char err[1024] = "";
    ckpt *c = NULL;
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), CKPT_EFOREIGN);
    assert_null(c);
    assert_one_line(err);
    if (!strstr(err, f->ckdir) || !strstr(err, "item-000005 is a directory"))
        fail_msg("the refusal does not name the directory and its item: %s", err);
    struct stat st;
    assert_int_equal(stat(inner, &st), 0);
    assert_int_equal(count_prefixed(f->ckdir, "item-"), NITEMS);

    assert_int_equal(unlink(inner), 0); /* now empty */
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0);
    assert_int_equal(lstat(path, &st), -1);
    assert_int_equal(errno, ENOENT);
    bool done[NITEMS];
    size_t restored, ignored;
    assert_int_equal(sweep_alloc(&f->a, &back, err, sizeof err), 0);
    assert_int_equal(ckpt_restore(c, &f->a, &back, done, &restored, &ignored, err, sizeof err),
                     0);
    assert_int_equal(restored, NITEMS - 1);
    assert_false(done[5]);
    sweep_plan plan = {.skip = done, .item_done = ckpt_item_done, .ctx = c};
    if (sweep_run_items(&f->a, &plan, false, &back, err, sizeof err))
        fail_msg("the missing item could not be saved: %s", err);
    ckpt_close(c);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    sweep_result_free(&back);
    restore(f, &f->a, &back, done, &restored, &ignored);
    assert_int_equal(restored, NITEMS);
    back.item_seconds[5] = ran.item_seconds[5]; /* computed twice: only the time differs */
    assert_item_equal(&f->a, &ran, &back, 5);
    sweep_result_free(&ran);
    sweep_result_free(&back);
}

/* A symlink leading nowhere in the checkpoint's place is someone's (and no place to make one):
 * refused like any foreign checkpoint, one line, and left as it was. */
static void dangling_symlink_is_refused(void **state)
{
    fixture *f = *state;
    char target[512];
    path_in(target, sizeof target, f->dir, "gone");
    assert_int_equal(symlink(target, f->ckdir), 0);
    char err[1024] = "";
    ckpt *c = NULL;
    int rc = ckpt_open(&c, f->out, &f->a, err, sizeof err);
    if (rc != CKPT_EFOREIGN)
        fail_msg("expected a refusal, got %d: %s", rc, err);
    assert_null(c);
    assert_one_line(err);
    assert_non_null(strstr(err, f->ckdir));
    assert_non_null(strstr(err, "symbolic link"));
    char back[512] = "";
    assert_int_equal(readlink(f->ckdir, back, sizeof back - 1), (ssize_t)strlen(target));
    assert_string_equal(back, target);
    assert_int_equal(count_prefixed(f->dir, "."), 2); /* no temporary directory left */
}

/* Where no checkpoint can be made: a runtime failure (1), one line naming the place, nothing
 * left behind. */
static void unwritable_place_fails(void **state)
{
    fixture *f = *state;
    char out[400], err[1024] = "";
    snprintf(out, sizeof out, "%s/no_such_dir/out.h5", f->dir);
    ckpt *c = NULL;
    assert_int_equal(ckpt_open(&c, out, &f->a, err, sizeof err), CKPT_ERUNTIME);
    assert_null(c);
    assert_one_line(err);
    assert_non_null(strstr(err, "no_such_dir/out.h5.ckpt"));
    assert_non_null(strstr(err, strerror(ENOENT)));
    assert_int_equal(count_prefixed(f->dir, "."), 2); /* nothing made */
}

static int touch_in(const char *dir, const char *name)
{
    char path[512];
    path_in(path, sizeof path, dir, name);
    return open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
}

/* A temporary nobody holds is a killed writer's: removed on open. One held with a write lock
 * (as a live writer holds it, here through another open file description) stays. */
static void stale_temporaries_removed_live_ones_kept(void **state)
{
    fixture *f = *state;
    char err[1024];
    ckpt *c = NULL;
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0);
    ckpt_close(c);
    int stale = touch_in(f->ckdir, ".item-000002.tmp.AbCdEf");
    int live = touch_in(f->ckdir, ".item-000003.tmp.GhIjKl");
    int not_ours = touch_in(f->ckdir, ".item-000004.mine"); /* no ".tmp.": no temporary of ours */
    assert_true(stale >= 0 && live >= 0 && not_ours >= 0);
    close(stale);
    close(not_ours);
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    assert_int_equal(fcntl(live, F_OFD_SETLK, &lk), 0);
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0);
    ckpt_close(c);
    assert_int_equal(count_prefixed(f->ckdir, ".item-000002"), 0);
    assert_int_equal(count_prefixed(f->ckdir, ".item-000003"), 1);
    assert_int_equal(count_prefixed(f->ckdir, ".item-000004.mine"), 1);
    close(live); /* the writer died: its lock went with it */
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0);
    assert_int_equal(count_prefixed(f->ckdir, ".item-"), 1);
    char mine[512];
    path_in(mine, sizeof mine, f->ckdir, ".item-000004.mine");
    assert_int_equal(unlink(mine), 0);
    assert_int_equal(ckpt_remove(c, err, sizeof err), 0);
    ckpt_close(c);
}

static void remove_takes_only_what_it_wrote(void **state)
{
    fixture *f = *state;
    sweep_result ran;
    sweep_into_checkpoint(f, &f->a, 2, &ran);
    sweep_result_free(&ran);
    char err[1024] = "";
    ckpt *c = NULL;
    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0);
    int fd = touch_in(f->ckdir, "notes.txt");
    int near_item = touch_in(f->ckdir, "item-00001x"); /* "item-" and not only digits */
    assert_true(fd >= 0 && near_item >= 0);
    close(fd);
    close(near_item);
    assert_int_equal(ckpt_remove(c, err, sizeof err), CKPT_ERUNTIME);
    assert_one_line(err);
    assert_non_null(strstr(err, "holds 2 file(s) oscbench did not write"));
    ckpt_close(c);
    /* The items went, the manifest and the strangers stayed: still a valid, empty checkpoint. */
    assert_int_equal(count_prefixed(f->ckdir, "item-"), 1); /* the stranger alone */
    assert_int_equal(count_prefixed(f->ckdir, "item-00001x"), 1);
    assert_int_equal(count_prefixed(f->ckdir, "manifest"), 1);
    assert_int_equal(count_prefixed(f->ckdir, "notes.txt"), 1);
    char path[512];
    path_in(path, sizeof path, f->ckdir, "notes.txt");
    assert_int_equal(unlink(path), 0);
    path_in(path, sizeof path, f->ckdir, "item-00001x");
    assert_int_equal(unlink(path), 0);

    assert_int_equal(ckpt_open(&c, f->out, &f->a, err, sizeof err), 0);
    assert_int_equal(ckpt_remove(c, err, sizeof err), 0);
    ckpt_close(c);
    struct stat st;
    assert_int_equal(lstat(f->ckdir, &st), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(count_prefixed(f->dir, "."), 2); /* no half-made directory either */
}

/* Ranks open the same checkpoint at once: one creates it, the others validate it, none fails,
 * and no temporary directory is left behind. */
static void concurrent_opens_agree(void **state)
{
    fixture *f = *state;
    enum { ROUNDS = 20, OPENERS = 6 };
    for (int round = 0; round < ROUNDS; round++) {
        char out[400];
        snprintf(out, sizeof out, "%s/r%d.h5", f->dir, round);
        int failures = 0;
        char first_err[1024] = "";
#pragma omp parallel for num_threads(OPENERS) reduction(+ : failures)
        for (int i = 0; i < OPENERS; i++) {
            char err[1024];
            ckpt *c = NULL;
            if (ckpt_open(&c, out, &f->a, err, sizeof err)) {
                failures++;
#pragma omp critical
                snprintf(first_err, sizeof first_err, "%s", err);
            }
            ckpt_close(c);
        }
        if (failures)
            fail_msg("round %d: %d of %d opens failed: %s", round, failures, OPENERS, first_err);
    }
    /* the checkpoints and nothing else */
    assert_int_equal(count_prefixed(f->dir, "r"), ROUNDS);
    assert_int_equal(count_prefixed(f->dir, "."), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(restores_every_column, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_items_are_left_out, setup, teardown),
        cmocka_unit_test_setup_teardown(forged_item_headers_are_left_out, setup, teardown),
        cmocka_unit_test_setup_teardown(foreign_checkpoint_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(manifest_lines_are_compared, setup, teardown),
        cmocka_unit_test_setup_teardown(included_text_is_in_the_manifest, setup, teardown),
        cmocka_unit_test_setup_teardown(restores_a_mass_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(not_a_directory_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_directory_is_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(directory_in_place_of_an_item, setup, teardown),
        cmocka_unit_test_setup_teardown(dangling_symlink_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(unwritable_place_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(stale_temporaries_removed_live_ones_kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(remove_takes_only_what_it_wrote, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_opens_agree, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
