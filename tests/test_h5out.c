/* The HDF5 results writer: tables round-trip through the HDF5 C API with filters and dimension
 * scales, and the file is complete or absent (temporaries, abort, commit, stale cleanup). */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include <hdf5.h>
#include <hdf5_hl.h>
#include <zlib.h>

#include "h5chunks.h"
#include "h5out.h"
#include "test_files.h"

/* ---- fixture: a fresh directory per test ------------------------------------------------------ */

typedef struct fixture {
    char dir[64];
    char path[128]; /* <dir>/r.h5 */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/test_h5out.XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/r.h5", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    DIR *d = opendir(f->dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d)
        closedir(d);
    rmdir(f->dir);
    free(f);
    return 0;
}

static int count_entries(const char *dir)
{
    static name_list l;
    list_prefixed(dir, "", &l);
    return (int)l.n;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static void assert_text(const char *path, const char *text)
{
    char buf[64] = {0};
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    assert_string_equal(buf, text);
}

/* ---- reading back ------------------------------------------------------------------------------ */

static hid_t open_results(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    return file;
}

/* Closes a file from open_results; fails the test if anything opened in it is still open. */
static void close_results(hid_t file)
{
    assert_int_equal(H5Fget_obj_count(file, H5F_OBJ_ALL), 1); /* only the file itself */
    H5Fclose(file);
}

/* Rank and dims of a dataset, asserted to be rank `rank`. */
static void assert_dims(hid_t dset, int rank, hsize_t d0, hsize_t d1)
{
    hid_t space = H5Dget_space(dset);
    hsize_t dims[2] = {0, 0};
    assert_int_equal(H5Sget_simple_extent_ndims(space), rank);
    H5Sget_simple_extent_dims(space, dims, NULL);
    assert_int_equal(dims[0], d0);
    if (rank > 1)
        assert_int_equal(dims[1], d1);
    H5Sclose(space);
}

static void read_dataset(hid_t file, const char *name, hid_t memtype, void *buf)
{
    hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    assert_true(dset >= 0);
    assert_true(H5Dread(dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Dclose(dset);
}

static void assert_attr_str(hid_t loc, const char *name, const char *want)
{
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    assert_true(attr >= 0);
    hid_t type = H5Aget_type(attr);
    assert_int_equal(H5Tget_cset(type), H5T_CSET_UTF8);
    assert_true(H5Tis_variable_str(type) > 0);
    char *value = NULL;
    assert_true(H5Aread(attr, type, &value) >= 0);
    assert_string_equal(value, want);
    H5free_memory(value);
    H5Tclose(type);
    H5Aclose(attr);
}

/* Reads the attribute `name` of loc into out as mem, after checking that it is stored as `stored`
 * with `count` elements (a scalar has 1). */
static void read_attr_as(hid_t loc, const char *name, hid_t stored, hid_t mem, hssize_t count,
                         void *out)
{
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    assert_true(attr >= 0);
    hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
    assert_true(H5Tequal(type, stored) > 0);
    assert_int_equal(H5Sget_simple_extent_npoints(space), count);
    assert_true(H5Aread(attr, mem, out) >= 0);
    H5Sclose(space);
    H5Tclose(type);
    H5Aclose(attr);
}

/* Chunked with shuffle + deflate(4) + fletcher32; string columns chunked only (HDF5 1.10.8
 * refuses filters on variable-length data). */
static void assert_filters(hid_t file, const char *name, bool filtered)
{
    hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    assert_true(dset >= 0);
    hid_t dcpl = H5Dget_create_plist(dset);
    assert_int_equal(H5Pget_layout(dcpl), H5D_CHUNKED);
    int n = H5Pget_nfilters(dcpl);
    assert_int_equal(n, filtered ? 3 : 0);
    H5Z_filter_t want[3] = {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32};
    for (int i = 0; i < n; i++) {
        unsigned flags, cd[4];
        size_t ncd = 4;
        char fname[32];
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname,
                                         fname, NULL);
        assert_int_equal(id, want[i]);
        if (id == H5Z_FILTER_DEFLATE)
            assert_int_equal(cd[0], 4);
    }
    H5Pclose(dcpl);
    H5Dclose(dset);
}

static void assert_scale_attached(hid_t file, const char *col, const char *scale, unsigned dim)
{
    hid_t dset = H5Dopen2(file, col, H5P_DEFAULT);
    hid_t sc = H5Dopen2(file, scale, H5P_DEFAULT);
    assert_true(dset >= 0 && sc >= 0);
    assert_true(H5DSis_scale(sc) > 0);
    assert_true(H5DSis_attached(dset, sc, dim) > 0);
    H5Dclose(sc);
    H5Dclose(dset);
}

/* ---- a sample table ---------------------------------------------------------------------------- */

enum { ROWS = 3, WIDTH = 2 };
static const double dt[ROWS] = {0.5, 0.25, 1e-300};
static const int64_t steps[ROWS] = {2, INT64_MAX, -7};
static const bool stable[ROWS] = {true, false, true};
static const char *const method[ROWS] = {"semi-implicit", "rk4", "\xc3\xbc ω"};
static const double x2d[ROWS * WIDTH] = {1, 2, 3, 4, 5, 6};

static h5_table *sample_table(const char *path)
{
    h5_table *t = h5_table_new(path, ROWS);
    assert_non_null(t);
    assert_int_equal(h5_table_str(t, "method", method), 0);
    assert_int_equal(h5_table_f64(t, "dt", dt), 0);
    assert_int_equal(h5_table_i64(t, "steps", steps), 0);
    assert_int_equal(h5_table_bool(t, "stable", stable), 0);
    assert_int_equal(h5_table_f64_2d(t, "x", x2d, WIDTH), 0);
    assert_int_equal(h5_table_attr_str(t, "note", "t_end rounded"), 0);
    return t;
}

static void write_sample(const char *path)
{
    char err[256] = "";
    h5_out *o;
    assert_int_equal(h5_out_open(&o, path, err, sizeof err), 0);
    assert_int_equal(h5_out_attr_str(o, "config", "name: r\ndt: 0.5\n"), 0);
    assert_int_equal(h5_out_attr_str(o, "precision", "float"), 0);
    assert_int_equal(h5_out_attr_str(o, "precision", "double"), 0); /* replaces */
    assert_int_equal(h5_out_attr_i64(o, "threads", 8), 0);
    h5_table *t = sample_table("points");
    assert_int_equal(h5_out_write_table(o, t), 0);
    h5_table_free(t);
    assert_string_equal(h5_out_error(o), "");
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);
}

/* ---- tests ------------------------------------------------------------------------------------- */

static void round_trip_numbers(void **state)
{
    fixture *f = *state;
    write_sample(f->path);
    hid_t file = open_results(f->path);
    double dt_back[ROWS], x_back[ROWS * WIDTH];
    int64_t steps_back[ROWS], row_back[ROWS];
    read_dataset(file, "points/dt", H5T_NATIVE_DOUBLE, dt_back);
    read_dataset(file, "points/steps", H5T_NATIVE_INT64, steps_back);
    read_dataset(file, "points/x", H5T_NATIVE_DOUBLE, x_back);
    read_dataset(file, "points/row", H5T_NATIVE_INT64, row_back);
    assert_memory_equal(dt_back, dt, sizeof dt);
    assert_memory_equal(steps_back, steps, sizeof steps);
    assert_memory_equal(x_back, x2d, sizeof x2d);
    for (int i = 0; i < ROWS; i++)
        assert_int_equal(row_back[i], i);
    hid_t dset = H5Dopen2(file, "points/x", H5P_DEFAULT);
    assert_dims(dset, 2, ROWS, WIDTH);
    H5Dclose(dset);
    dset = H5Dopen2(file, "points/dt", H5P_DEFAULT);
    assert_dims(dset, 1, ROWS, 0);
    H5Dclose(dset);
    close_results(file);
}

static void round_trip_strings_and_bools(void **state)
{
    fixture *f = *state;
    write_sample(f->path);
    hid_t file = open_results(f->path);
    hid_t dset = H5Dopen2(file, "points/method", H5P_DEFAULT);
    hid_t type = H5Dget_type(dset);
    assert_true(H5Tis_variable_str(type) > 0);
    assert_int_equal(H5Tget_cset(type), H5T_CSET_UTF8);
    char *names[ROWS];
    assert_true(H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) >= 0);
    for (int i = 0; i < ROWS; i++) {
        assert_string_equal(names[i], method[i]);
        H5free_memory(names[i]);
    }
    H5Tclose(type);
    H5Dclose(dset);

    dset = H5Dopen2(file, "points/stable", H5P_DEFAULT);
    type = H5Dget_type(dset);
    assert_int_equal(H5Tget_class(type), H5T_ENUM);
    assert_true(H5Tcommitted(type) > 0); /* the named type netCDF-C needs to see the column */
    assert_int_equal(H5Tget_size(type), 1);
    assert_int_equal(H5Tget_nmembers(type), 2);
    char name[8];
    int8_t value = 1;
    assert_true(H5Tenum_nameof(type, &value, name, sizeof name) >= 0);
    assert_string_equal(name, "TRUE");
    value = 0;
    assert_true(H5Tenum_nameof(type, &value, name, sizeof name) >= 0);
    assert_string_equal(name, "FALSE");
    int8_t flags[ROWS];
    assert_true(H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, flags) >= 0);
    for (int i = 0; i < ROWS; i++)
        assert_int_equal(flags[i], stable[i]);
    H5Tclose(type);
    H5Dclose(dset);
    close_results(file);
}

/* A table of views writes the same datasets as a table of copies, reads the caller's arrays
 * when it is written (not when the column was added: no copy is held), and refuses a string
 * view with a NULL entry. */
static void views_write_what_copies_write(void **state)
{
    fixture *f = *state;
    double dt_live[ROWS] = {0.5, 0.25, 1e-300};
    bool stable_live[ROWS] = {true, false, true};
    h5_table *t = h5_table_new("points", ROWS);
    assert_non_null(t);
    assert_int_equal(h5_table_str_view(t, "method", method), 0);
    assert_int_equal(h5_table_f64_view(t, "dt", dt_live), 0);
    assert_int_equal(h5_table_i64_view(t, "steps", steps), 0);
    assert_int_equal(h5_table_bool_view(t, "stable", stable_live), 0);
    assert_int_not_equal(h5_table_f64_view(t, "dt", dt_live), 0); /* names stay unique */
    const char *const with_null[ROWS] = {"a", NULL, "c"};
    assert_int_not_equal(h5_table_str_view(t, "bad", with_null), 0);
    dt_live[1] = 0.125, stable_live[2] = false; /* after adding, before writing */
    char err[256] = "";
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(h5_out_write_table(o, t), 0);
    h5_table_free(t); /* frees nothing of the caller's */
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);
    assert_true(dt_live[0] == 0.5 && stable_live[0]);

    hid_t file = open_results(f->path);
    double dt_back[ROWS];
    int64_t steps_back[ROWS];
    int8_t flags[ROWS];
    read_dataset(file, "points/dt", H5T_NATIVE_DOUBLE, dt_back);
    read_dataset(file, "points/steps", H5T_NATIVE_INT64, steps_back);
    read_dataset(file, "points/stable", H5T_NATIVE_INT8, flags);
    assert_memory_equal(dt_back, dt_live, sizeof dt_live);
    assert_memory_equal(steps_back, steps, sizeof steps);
    for (int i = 0; i < ROWS; i++)
        assert_int_equal(flags[i], stable_live[i]);
    hid_t dset = H5Dopen2(file, "points/method", H5P_DEFAULT);
    hid_t type = H5Dget_type(dset);
    char *names[ROWS];
    assert_true(H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) >= 0);
    for (int i = 0; i < ROWS; i++) {
        assert_string_equal(names[i], method[i]);
        H5free_memory(names[i]);
    }
    H5Tclose(type);
    H5Dclose(dset);
    assert_filters(file, "points/dt", true);
    assert_scale_attached(file, "points/stable", "points/row", 0);
    close_results(file);
}

/* Columns of many chunks (the chunk writer encodes them on the threads), with a partial last
 * chunk, read back through HDF5's own filters (fletcher32 checked, inflated, unshuffled): the
 * same values, for doubles, int64, bools and a 2-D column. */
static void many_chunks_round_trip(void **state)
{
    fixture *f = *state;
    enum { N = 40000 + 7 }; /* ~2.4 chunks of 16384 doubles */
    double *x = malloc(N * sizeof *x), *xy = malloc(2 * N * sizeof *xy), *back = malloc(2 * N * 8);
    int64_t *k = malloc(N * sizeof *k), *kb = malloc(N * sizeof *kb);
    bool *b = malloc(N * sizeof *b);
    int8_t *bb = malloc(N);
    assert_true(x && xy && back && k && kb && b && bb);
    for (size_t i = 0; i < N; i++) {
        x[i] = sin((double)i) * 1e3, k[i] = (int64_t)(i * 2654435761u) - 7, b[i] = i % 3 == 0;
        xy[2 * i] = (double)i, xy[2 * i + 1] = 1.0 / (double)(i + 1);
    }
    h5_table *t = h5_table_new("big", N);
    assert_non_null(t);
    assert_int_equal(h5_table_f64_view(t, "x", x), 0);
    assert_int_equal(h5_table_i64(t, "k", k), 0);
    assert_int_equal(h5_table_bool(t, "b", b), 0);
    assert_int_equal(h5_table_f64_2d(t, "xy", xy, 2), 0);
    char err[256] = "";
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(h5_out_write_table(o, t), 0);
    h5_table_free(t);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);
    hid_t file = open_results(f->path);
    read_dataset(file, "big/x", H5T_NATIVE_DOUBLE, back);
    assert_memory_equal(back, x, N * sizeof *x);
    read_dataset(file, "big/xy", H5T_NATIVE_DOUBLE, back);
    assert_memory_equal(back, xy, 2 * N * sizeof *xy);
    read_dataset(file, "big/k", H5T_NATIVE_INT64, kb);
    assert_memory_equal(kb, k, N * sizeof *k);
    read_dataset(file, "big/b", H5T_NATIVE_INT8, bb);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(bb[i], b[i]);
    assert_filters(file, "big/x", true);
    hid_t d = H5Dopen2(file, "big/x", H5P_DEFAULT);
    hsize_t nchunks = 0;
    hid_t space = H5Dget_space(d);
    assert_true(H5Dget_num_chunks(d, space, &nchunks) >= 0);
    assert_true(nchunks >= 3);
    H5Sclose(space);
    H5Dclose(d);
    close_results(file);
    free(x), free(xy), free(back), free(k), free(kb), free(b), free(bb);
}

/* A partial last chunk is stored zero-padded, as HDF5 pads edge chunks, whatever its buffer held
 * before: with more chunks than buffers in flight (4 per thread: 33 chunks cover up to 8 threads)
 * the last chunk's buffer held a full chunk of ones. The last chunk read raw, its checksum
 * dropped, inflated: the shuffled bytes of its 16384 - 7 padding doubles are all zero. */
static void last_chunk_padded_with_zeros(void **state)
{
    fixture *f = *state;
    enum { PER_CHUNK = 16384, TAIL = 7, FULL = 33, N = FULL * PER_CHUNK + TAIL };
    double *x = malloc(N * sizeof *x);
    uint8_t *plain = malloc(PER_CHUNK * sizeof *x), *raw = NULL;
    assert_true(x && plain);
    for (size_t i = 0; i < N; i++)
        x[i] = 1.0;
    h5_table *t = h5_table_new("big", N);
    assert_non_null(t);
    assert_int_equal(h5_table_f64_view(t, "x", x), 0);
    char err[256] = "";
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(h5_out_write_table(o, t), 0);
    h5_table_free(t);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);
    hid_t file = open_results(f->path), d = H5Dopen2(file, "big/x", H5P_DEFAULT);
    hsize_t offset[2] = {(hsize_t)FULL * PER_CHUNK, 0}, size = 0;
    uint32_t mask = 1;
    assert_true(H5Dget_chunk_storage_size(d, offset, &size) >= 0 && size > 4);
    assert_non_null(raw = malloc(size));
    assert_true(H5Dread_chunk(d, H5P_DEFAULT, offset, &mask, raw) >= 0);
    assert_int_equal(mask, 0); /* every filter applied */
    uLongf len = PER_CHUNK * sizeof *x;
    assert_int_equal(uncompress(plain, &len, raw, (uLong)size - 4), Z_OK);
    assert_int_equal(len, PER_CHUNK * sizeof *x);
    for (size_t j = 0; j < sizeof *x; j++) /* byte j of element i sits at j * PER_CHUNK + i */
        for (size_t i = TAIL; i < PER_CHUNK; i++)
            if (plain[j * PER_CHUNK + i])
                fail_msg("padding element %zu byte %zu is %u, not 0", i, j, plain[j * PER_CHUNK + i]);
    H5Dclose(d);
    H5Fclose(file);
    free(x), free(plain), free(raw);
}

/* h5_fletcher32 computes what HDF5's own fletcher32 filter stores: a chunk written by HDF5
 * (H5Dwrite, fletcher32 only, so the stored bytes are the data and the checksum), for even and
 * odd lengths. */
static void fletcher32_is_hdf5s(void **state)
{
    fixture *f = *state;
    hid_t file = H5Fcreate(f->path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(file >= 0);
    const size_t lengths[] = {1, 7, 720, 721, 5000, 5000, 5001, 6};
    const uint8_t sixth[6] = {0xff, 0xff, 0xff, 0xff, 0x00, 0x01};
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
        hsize_t n = lengths[l];
        uint8_t *data = malloc(n), *raw = malloc(n + 4);
        assert_true(data && raw);
        /* then two all 0xff: the largest sums, which overflow 32 bits unless folded every 360
         * words; last, words summing to 0x1ffff: folded once 0x10000, which only a second fold
         * brings to 16 bits (1) */
        for (size_t i = 0; i < n; i++)
            data[i] = l == 7 ? sixth[i] : l >= 5 ? 0xff : (uint8_t)(i * 37 + 11 + (i >> 8));
        hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        assert_true(H5Pset_chunk(dcpl, 1, &n) >= 0 && H5Pset_fletcher32(dcpl) >= 0);
        char name[16];
        snprintf(name, sizeof name, "d%zu", l);
        hid_t d = H5Dcreate2(file, name, H5T_NATIVE_UINT8, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        assert_true(d >= 0);
        assert_true(H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
        assert_true(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0);
        hsize_t offset = 0, size = 0;
        uint32_t mask = 0;
        assert_true(H5Dget_chunk_storage_size(d, &offset, &size) >= 0);
        assert_int_equal(size, n + 4);
        assert_true(H5Dread_chunk(d, H5P_DEFAULT, &offset, &mask, raw) >= 0);
        assert_memory_equal(raw, data, n);
        uint32_t stored = (uint32_t)raw[n] | (uint32_t)raw[n + 1] << 8 |
                          (uint32_t)raw[n + 2] << 16 | (uint32_t)raw[n + 3] << 24;
        if (stored != h5_fletcher32(data, n))
            fail_msg("%zu bytes: HDF5 stored %08x, h5_fletcher32 says %08x", (size_t)n, stored,
                     h5_fletcher32(data, n));
        H5Dclose(d), H5Pclose(dcpl), H5Sclose(space);
        free(data), free(raw);
    }
    H5Fclose(file);
}

static void filters_scales_and_attributes(void **state)
{
    fixture *f = *state;
    write_sample(f->path);
    hid_t file = open_results(f->path);
    const char *cols[] = {"method", "dt", "steps", "stable", "x", "row", "axis"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        char name[32];
        snprintf(name, sizeof name, "points/%s", cols[i]);
        assert_filters(file, name, i != 0);
        if (i < 5)
            assert_scale_attached(file, name, "points/row", 0);
    }
    assert_scale_attached(file, "points/x", "points/axis", 1);
    assert_attr_str(file, "config", "name: r\ndt: 0.5\n");
    assert_attr_str(file, "precision", "double");
    int64_t threads = 0;
    hid_t attr = H5Aopen(file, "threads", H5P_DEFAULT);
    assert_true(H5Aread(attr, H5T_NATIVE_INT64, &threads) >= 0);
    H5Aclose(attr);
    assert_int_equal(threads, 8);
    hid_t group = H5Gopen2(file, "points", H5P_DEFAULT);
    assert_attr_str(group, "note", "t_end rounded");
    H5Gclose(group);
    close_results(file);
}

static void columns_keep_creation_order(void **state)
{
    fixture *f = *state;
    write_sample(f->path);
    hid_t file = open_results(f->path);
    hid_t group = H5Gopen2(file, "points", H5P_DEFAULT);
    const char *want[] = {"row", "method", "dt", "steps", "stable", "x", "axis"};
    for (hsize_t i = 0; i < sizeof want / sizeof *want; i++) {
        char name[16] = "";
        assert_true(H5Lget_name_by_idx(group, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name,
                                       sizeof name, H5P_DEFAULT) > 0);
        assert_string_equal(name, want[i]);
    }
    H5Gclose(group);
    H5Fclose(file);
}

static void nested_tables_and_zero_rows(void **state)
{
    fixture *f = *state;
    char err[256];
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    h5_table *a = sample_table("/traces/rk4/3");
    h5_table *b = h5_table_new("traces/rk4/5", 0);
    assert_int_equal(h5_table_f64(b, "t", NULL), 0);
    assert_int_equal(h5_table_str(b, "method", NULL), 0);
    assert_int_equal(h5_table_bool(b, "stable", NULL), 0);
    assert_int_equal(h5_table_f64_2d(b, "x", NULL, 3), 0);
    assert_int_equal(h5_out_write_table(o, a), 0);
    assert_int_equal(h5_out_write_table(o, b), 0);
    h5_table_free(a);
    h5_table_free(b);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);

    hid_t file = open_results(f->path);
    double x[ROWS * WIDTH];
    read_dataset(file, "traces/rk4/3/x", H5T_NATIVE_DOUBLE, x);
    assert_memory_equal(x, x2d, sizeof x);
    const char *zero[] = {"traces/rk4/5/t", "traces/rk4/5/method", "traces/rk4/5/stable",
                          "traces/rk4/5/row"};
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++) {
        hid_t dset = H5Dopen2(file, zero[i], H5P_DEFAULT);
        assert_dims(dset, 1, 0, 0);
        H5Dclose(dset);
        assert_filters(file, zero[i], i != 1);
    }
    hid_t dset = H5Dopen2(file, "traces/rk4/5/x", H5P_DEFAULT);
    assert_dims(dset, 2, 0, 3);
    H5Dclose(dset);
    assert_scale_attached(file, "traces/rk4/5/t", "traces/rk4/5/row", 0);
    assert_scale_attached(file, "traces/rk4/5/x", "traces/rk4/5/axis", 1);
    close_results(file);
}

static void table_rejects_bad_names(void **state)
{
    (void)state;
    assert_null(h5_table_new("", 1));
    assert_null(h5_table_new("a//b", 1));
    assert_null(h5_table_new("a/", 1));
    assert_null(h5_table_new("a/../b", 1));
    assert_null(h5_table_new(".", 1));
    assert_null(h5_table_new("a/./b", 1));
    h5_table *t = h5_table_new("points", 1);
    double v = 1;
    assert_int_equal(h5_table_f64(t, "dt", &v), 0);
    assert_int_not_equal(h5_table_f64(t, "dt", &v), 0);
    assert_int_not_equal(h5_table_f64(t, "row", &v), 0);
    assert_int_not_equal(h5_table_f64(t, "axis_2", &v), 0);
    assert_int_not_equal(h5_table_f64(t, "a/b", &v), 0);
    assert_int_not_equal(h5_table_f64(t, "", &v), 0);
    assert_int_not_equal(h5_table_f64_2d(t, "x", &v, 0), 0);
    assert_int_equal(h5_table_rows(t), 1);
    h5_table_free(t);
    /* rows x width wraps to 0 in size_t: refused, not a 1-byte copy of a huge column */
    h5_table *huge = h5_table_new("huge", SIZE_MAX / 2 + 1);
    assert_non_null(huge);
    assert_int_not_equal(h5_table_f64_2d(huge, "x", &v, 2), 0);
    h5_table_free(huge);
}

/* The CF attributes (h5out.h): units and long_name from the doc of the column's name, coordinates
 * where the doc gives it, none on an undescribed column; the scales units "1" and a long_name
 * naming them. */
static void cf_attributes_follow_the_docs(void **state)
{
    fixture *f = *state;
    static const h5_column_doc docs[] = {{"dt", "s", "time step", NULL},
                                         {"x", "m", "position", "t"}};
    h5_table *t = sample_table("points");
    /* method, steps and stable have no doc */
    assert_int_equal(h5_table_describe(t, docs, 2), 3);
    char err[256] = "";
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(h5_out_write_table(o, t), 0);
    h5_table_free(t);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);

    hid_t file = open_results(f->path);
    hid_t dt_set = H5Dopen2(file, "points/dt", H5P_DEFAULT);
    assert_attr_str(dt_set, "units", "s");
    assert_attr_str(dt_set, "long_name", "time step");
    assert_int_equal(H5Aexists(dt_set, "coordinates"), 0);
    H5Dclose(dt_set);
    hid_t x_set = H5Dopen2(file, "points/x", H5P_DEFAULT);
    assert_attr_str(x_set, "units", "m");
    assert_attr_str(x_set, "coordinates", "t");
    H5Dclose(x_set);
    hid_t steps_set = H5Dopen2(file, "points/steps", H5P_DEFAULT);
    assert_int_equal(H5Aexists(steps_set, "units"), 0);
    H5Dclose(steps_set);
    const char *scales[] = {"points/row", "points/axis"}, *words[] = {"row", "axis"};
    for (int i = 0; i < 2; i++) {
        hid_t scale = H5Dopen2(file, scales[i], H5P_DEFAULT);
        assert_attr_str(scale, "units", "1");
        char *long_name = attr_str(scale, "long_name");
        assert_non_null(strstr(long_name, words[i]));
        assert_null(strstr(long_name, words[1 - i]));
        free(long_name);
        H5Dclose(scale);
    }
    close_results(file);
}

/* Writing a table over an existing group fails with HDF5's innermost reason in the one line,
 * not only its outermost "unable to create group". */
static void existing_group_error_says_why(void **state)
{
    fixture *f = *state;
    char err[256];
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    h5_table *t = sample_table("points");
    assert_int_equal(h5_out_write_table(o, t), 0);
    assert_int_not_equal(h5_out_write_table(o, t), 0);
    h5_table_free(t);
    const char *msg = h5_out_error(o);
    if (!strstr(msg, f->path) || !strstr(msg, "points") || !strstr(msg, "name already exists"))
        fail_msg("error '%s' should name the file, the group and why", msg);
    h5_out_abort(o);
}

/* The root lists the tables in the order they were written (h5out.h: groups track creation
 * order; the file's root group is one; no bool column here, which would add /types), and a
 * column of rows > 0 has a fixed size, only a 0-row one an unlimited first dimension. */
static void root_keeps_table_order_and_columns_are_fixed_size(void **state)
{
    fixture *f = *state;
    char err[256];
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    const char *order[] = {"zeta", "alpha", "mid"};
    for (int i = 0; i < 3; i++) {
        h5_table *t = h5_table_new(order[i], ROWS);
        assert_int_equal(h5_table_f64(t, "dt", dt), 0);
        assert_int_equal(h5_table_f64_2d(t, "x", x2d, WIDTH), 0);
        assert_int_equal(h5_out_write_table(o, t), 0);
        h5_table_free(t);
    }
    h5_table *empty = h5_table_new("empty", 0);
    assert_int_equal(h5_table_f64(empty, "t", NULL), 0);
    assert_int_equal(h5_out_write_table(o, empty), 0);
    h5_table_free(empty);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);

    hid_t file = open_results(f->path);
    for (hsize_t i = 0; i < 3; i++) {
        char name[16] = "";
        assert_true(H5Lget_name_by_idx(file, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name,
                                       sizeof name, H5P_DEFAULT) > 0);
        assert_string_equal(name, order[i]);
    }
    const char *cols[] = {"zeta/dt", "zeta/x", "zeta/row", "empty/t"};
    hsize_t want_max[] = {ROWS, ROWS, ROWS, H5S_UNLIMITED};
    for (int i = 0; i < 4; i++) {
        hid_t dset = H5Dopen2(file, cols[i], H5P_DEFAULT), space = H5Dget_space(dset);
        hsize_t dims[2], maxdims[2];
        assert_true(H5Sget_simple_extent_dims(space, dims, maxdims) > 0);
        assert_true(maxdims[0] == want_max[i]);
        H5Sclose(space);
        H5Dclose(dset);
    }
    close_results(file);
}

/* A root int64 array (h5out.h: n >= 1, int64 little-endian): one value per rank, kept exactly
 * beyond 2^31; n = 0 is refused and kept as the error. */
static void root_int64_array_round_trips(void **state)
{
    fixture *f = *state;
    char err[256];
    h5_out *o;
    const int64_t per_rank[2] = {4, (int64_t)1 << 40};
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(h5_out_attr_i64_array(o, "threads_per_rank", per_rank, 2), 0);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);
    hid_t file = open_results(f->path);
    int64_t back[2] = {0, 0};
    read_attr_as(file, "threads_per_rank", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, back);
    assert_memory_equal(back, per_rank, sizeof back);
    close_results(file);

    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_not_equal(h5_out_attr_i64_array(o, "threads_per_rank", per_rank, 0), 0);
    assert_non_null(strstr(h5_out_error(o), "threads_per_rank"));
    assert_int_not_equal(h5_out_commit(o, err, sizeof err), 0);
}

/* Root numbers are stored as the types h5out.h states, float64 and int64 little-endian, so a
 * double comes back bit for bit (0.1 is not a float) and an int64 beyond 2^31 too. */
static void root_numbers_keep_64_bits(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(h5_out_attr_f64(o, "tolerance", 0.1), 0);
    assert_int_equal(h5_out_attr_i64(o, "lanes", (int64_t)1 << 40), 0);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);

    hid_t file = open_results(f->path);
    double tolerance = 0;
    int64_t lanes = 0;
    read_attr_as(file, "tolerance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &tolerance);
    read_attr_as(file, "lanes", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &lanes);
    assert_true(tolerance == 0.1);
    assert_int_equal(lanes, (int64_t)1 << 40);
    close_results(file);
}

static void abort_leaves_nothing(void **state)
{
    fixture *f = *state;
    char err[256];
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(count_entries(f->dir), 1); /* the temporary */
    h5_table *t = sample_table("points");
    assert_int_equal(h5_out_write_table(o, t), 0);
    h5_table_free(t);
    h5_out_abort(o);
    assert_int_equal(count_entries(f->dir), 0);
}

static void failure_is_kept_and_commit_removes_temporary(void **state)
{
    fixture *f = *state;
    write_text(f->path, "old");
    char err[256];
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    h5_table *t = sample_table("points");
    assert_int_equal(h5_out_write_table(o, t), 0);
    assert_int_not_equal(h5_out_write_table(o, t), 0); /* the group exists already */
    h5_table_free(t);
    assert_non_null(strstr(h5_out_error(o), f->path));
    assert_non_null(strstr(h5_out_error(o), "points"));
    assert_int_not_equal(h5_out_attr_i64(o, "threads", 1), 0); /* refused after a failure */
    assert_int_not_equal(h5_out_commit(o, err, sizeof err), 0);
    assert_non_null(strstr(err, f->path));
    assert_null(strchr(err, '\n'));
    assert_text(f->path, "old");
    assert_int_equal(count_entries(f->dir), 1);
}

/* H5Dwrite, wrapped at link time (tests/meson.build): when write_fails is set it fails the way
 * HDF5's file driver does, with the system's reason quoted on the error stack, and writes nothing
 * (so closing the dataset afterwards succeeds, and would clear that stack). */
static bool write_fails;
herr_t __real_H5Dwrite(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t plist,
                       const void *buf);
herr_t __wrap_H5Dwrite(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t plist,
                       const void *buf);
herr_t __wrap_H5Dwrite(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t plist,
                       const void *buf)
{
    if (!write_fails)
        return __real_H5Dwrite(dset, mtype, mspace, fspace, plist, buf);
    H5Epush2(H5E_DEFAULT, __FILE__, "H5Dwrite", __LINE__, H5E_ERR_CLS, H5E_IO, H5E_WRITEERROR,
             "file write failed: errno = 28, error message = 'No space left on device'");
    return -1;
}

herr_t __real_H5Dwrite_chunk(hid_t dset, hid_t dxpl, uint32_t filters, const hsize_t *offset,
                             size_t size, const void *buf);
herr_t __wrap_H5Dwrite_chunk(hid_t dset, hid_t dxpl, uint32_t filters, const hsize_t *offset,
                             size_t size, const void *buf);
herr_t __wrap_H5Dwrite_chunk(hid_t dset, hid_t dxpl, uint32_t filters, const hsize_t *offset,
                             size_t size, const void *buf)
{
    if (!write_fails)
        return __real_H5Dwrite_chunk(dset, dxpl, filters, offset, size, buf);
    H5Epush2(H5E_DEFAULT, __FILE__, "H5Dwrite_chunk", __LINE__, H5E_ERR_CLS, H5E_IO,
             H5E_WRITEERROR, "file write failed: errno = 28, error message = 'No space left on device'");
    return -1;
}

/* Writing table t (freed) fails by the injected error: the message names the file and the
 * system's reason on one line, the commit fails and leaves nothing in the directory. */
static void assert_injected_failure(const fixture *f, h5_table *t)
{
    char err[256];
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    write_fails = true;
    int rc = h5_out_write_table(o, t);
    write_fails = false;
    assert_int_not_equal(rc, 0);
    const char *msg = h5_out_error(o);
    if (!strstr(msg, "No space left on device") || !strstr(msg, f->path) || strchr(msg, '\n'))
        fail_msg("error '%s' should name the file and 'No space left on device'", msg);
    h5_table_free(t);
    assert_int_not_equal(h5_out_commit(o, err, sizeof err), 0);
    assert_int_equal(count_entries(f->dir), 0);
}

static void injected_write_failure_keeps_its_reason(void **state)
{
    assert_injected_failure(*state, sample_table("points"));
}

/* The same through the chunk writer (a table of numbers only: their chunks are encoded on the
 * threads and handed over with H5Dwrite_chunk). */
static void injected_chunk_write_failure_keeps_its_reason(void **state)
{
    h5_table *t = h5_table_new("points", ROWS);
    assert_non_null(t);
    assert_int_equal(h5_table_f64(t, "dt", dt), 0);
    assert_injected_failure(*state, t);
}

/* A write that fails in the middle of a table (here the file size limit, RLIMIT_FSIZE, with
 * SIGXFSZ ignored, so that write(2) fails with EFBIG as on a full disk) is reported with the
 * system's reason, on one line naming the file and the column; the target is left alone. The
 * column (16 MiB of incompressible doubles) outgrows HDF5's chunk cache, so the failure happens
 * inside H5Dwrite. */
static void failed_write_reports_the_system_error(void **state)
{
    fixture *f = *state;
    const size_t rows = (size_t)1 << 21;
    double *col = malloc(rows * sizeof *col);
    assert_non_null(col);
    uint64_t lcg = 12345;
    for (size_t i = 0; i < rows; i++) {
        lcg = lcg * 6364136223846793005u + 1442695040888963407u;
        col[i] = (double)(lcg >> 11) * 0x1p-53;
    }
    char err[256];
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    h5_table *t = h5_table_new("big", rows);
    assert_non_null(t);
    assert_int_equal(h5_table_f64(t, "noise", col), 0);
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    struct rlimit small = {1 << 20, old.rlim_max};
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = h5_out_write_table(o, t);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_handler);
    assert_int_not_equal(rc, 0);
    const char *msg = h5_out_error(o);
    if (!strstr(msg, "File too large") || !strstr(msg, "noise") || !strstr(msg, f->path) ||
        strchr(msg, '\n'))
        fail_msg("error '%s' should name the file, the column and 'File too large'", msg);
    h5_table_free(t);
    h5_out_abort(o);
    free(col);
    assert_int_equal(count_entries(f->dir), 0);
}

static void open_fails_in_missing_directory(void **state)
{
    fixture *f = *state;
    char path[192], err[256] = "";
    h5_out *o = (h5_out *)1;
    snprintf(path, sizeof path, "%s/missing/r.h5", f->dir);
    assert_int_not_equal(h5_out_open(&o, path, err, sizeof err), 0);
    assert_null(o);
    assert_non_null(strstr(err, path));
    assert_null(strchr(err, '\n'));

    char file_as_dir[160];
    snprintf(file_as_dir, sizeof file_as_dir, "%s/plain", f->dir);
    write_text(file_as_dir, "x");
    snprintf(path, sizeof path, "%s/r.h5", file_as_dir);
    err[0] = '\0';
    assert_int_not_equal(h5_out_open(&o, path, err, sizeof err), 0);
    assert_non_null(strstr(err, path));
    assert_int_equal(count_entries(f->dir), 1);
}

static void commit_replaces_existing_file(void **state)
{
    fixture *f = *state;
    write_text(f->path, "old");
    char err[256];
    h5_out *o;
    mode_t old_mask = umask(022);
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(h5_out_attr_i64(o, "threads", 2), 0);
    assert_text(f->path, "old"); /* untouched until commit */
    assert_int_equal(count_entries(f->dir), 2);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);
    umask(old_mask);
    assert_true(H5Fis_hdf5(f->path) > 0);
    assert_int_equal(count_entries(f->dir), 1);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
}

static void commit_replaces_symlink_not_its_target(void **state)
{
    fixture *f = *state;
    char target[160], err[256];
    snprintf(target, sizeof target, "%s/target", f->dir);
    write_text(target, "keep");
    assert_int_equal(symlink(target, f->path), 0);
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(h5_out_commit(o, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(f->path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_text(target, "keep");
}

static void cleanup_removes_only_stale_temporaries(void **state)
{
    fixture *f = *state;
    char path[192], target[160], err[256];
    snprintf(target, sizeof target, "%s/target", f->dir);
    write_text(target, "keep");
    snprintf(path, sizeof path, "%s/.r.h5.tmp.AbC123", f->dir); /* a killed run's */
    write_text(path, "partial");
    snprintf(path, sizeof path, "%s/.r.h5.tmp.SymLnk", f->dir); /* planted symlink */
    assert_int_equal(symlink(target, path), 0);
    snprintf(path, sizeof path, "%s/.r.h5.tmp.toolong", f->dir); /* not a mkstemp name */
    write_text(path, "x");
    snprintf(path, sizeof path, "%s/.q.h5.tmp.AbC123", f->dir); /* another output's */
    write_text(path, "x");
    snprintf(path, sizeof path, "%s/.r.h5.tmp.Dir123", f->dir); /* not a regular file */
    assert_int_equal(mkdir(path, 0700), 0);
    h5_out *live;
    assert_int_equal(h5_out_open(&live, f->path, err, sizeof err), 0); /* a running run's */
    assert_int_equal(count_entries(f->dir), 7);

    assert_int_equal(h5_out_cleanup_stale(f->path), 1);
    assert_int_equal(count_entries(f->dir), 6);
    snprintf(path, sizeof path, "%s/.r.h5.tmp.AbC123", f->dir);
    assert_int_not_equal(access(path, F_OK), 0);
    assert_text(target, "keep");

    assert_int_equal(h5_out_commit(live, err, sizeof err), 0);
    assert_true(H5Fis_hdf5(f->path) > 0);
    snprintf(path, sizeof path, "%s/.r.h5.tmp.Dir123", f->dir);
    rmdir(path);
    assert_int_equal(h5_out_cleanup_stale(f->path), 0);
    char missing[192];
    snprintf(missing, sizeof missing, "%s/missing/r.h5", f->dir);
    assert_int_equal(h5_out_cleanup_stale(missing), -1);
}

/* The committed file has the mode creat(path, 0666) would give it under the caller's umask, not
 * mkstemp's 0600: 0666 & ~umask, by hand for each mask. */
static void commit_mode_follows_umask(void **state)
{
    fixture *f = *state;
    const struct {
        mode_t mask, mode;
    } cases[] = {{0, 0666}, {002, 0664}, {027, 0640}, {077, 0600}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[256];
        h5_out *o;
        mode_t old_mask = umask(cases[i].mask);
        int rc = h5_out_open(&o, f->path, err, sizeof err);
        if (!rc)
            rc = h5_out_commit(o, err, sizeof err);
        umask(old_mask);
        assert_int_equal(rc, 0);
        struct stat st;
        assert_int_equal(stat(f->path, &st), 0);
        if ((st.st_mode & 0777) != cases[i].mode)
            fail_msg("umask %03o: mode %03o, expected %03o", (unsigned)cases[i].mask,
                     (unsigned)(st.st_mode & 0777), (unsigned)cases[i].mode);
    }
}

/* The path of the one temporary in dir (".r.h5.tmp.XXXXXX"), into path. */
static void temporary_in(const char *dir, char *path, size_t len)
{
    static name_list l;
    list_prefixed(dir, ".r.h5.tmp.", &l);
    assert_int_equal(l.n, 1);
    fmt(path, len, "%s/%s", dir, l.names[0]);
}

/* Whether another process can take a lock of this type over [start, start + len) of path. */
static bool lockable_elsewhere(const char *path, short type, off_t start, off_t len)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(path, type == F_WRLCK ? O_RDWR : O_RDONLY);
        struct flock lk = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
        _exit(fd >= 0 && fcntl(fd, F_SETLK, &lk) == 0 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status) == 0;
}

/* A live run's temporary is locked far beyond any data it will hold: MPI-IO's blocking locks on
 * the ranges it writes (here the first TiB) must not meet it, while the stale test's read lock
 * over the whole file must. */
static void live_lock_spares_the_data_ranges(void **state)
{
    fixture *f = *state;
    char err[256], tmp[256];
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    temporary_in(f->dir, tmp, sizeof tmp);
    assert_true(lockable_elsewhere(tmp, F_WRLCK, 0, (off_t)1 << 40));
    assert_false(lockable_elsewhere(tmp, F_RDLCK, 0, 0));
    h5_out_abort(o);
    assert_int_equal(count_entries(f->dir), 0);
}

/* A commit whose rename fails (the target became a directory while the run wrote) reports it in
 * one line naming the file and the system's reason, and leaves no temporary behind. */
static void failed_rename_leaves_no_temporary(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, sizeof err), 0);
    assert_int_equal(mkdir(f->path, 0700), 0);
    assert_int_not_equal(h5_out_commit(o, err, sizeof err), 0);
    if (!strstr(err, f->path) || !strstr(err, strerror(EISDIR)) || strchr(err, '\n'))
        fail_msg("error '%s' should name %s and '%s' in one line", err, f->path, strerror(EISDIR));
    assert_int_equal(count_entries(f->dir), 1); /* the directory alone */
    assert_int_equal(rmdir(f->path), 0);
}

/* Names that only look like a stale temporary of r.h5 stay: no leading dot, another output's
 * (r.h6), a FIFO, and (as root, who can give it away) a file of another user. */
static void cleanup_keeps_lookalikes(void **state)
{
    fixture *f = *state;
    const char *names[] = {"Xr.h5.tmp.AbC123", ".r.h6.tmp.AbC123", ".r.h5.tmp.Fifo12",
                           ".r.h5.tmp.Other1"};
    char path[192];
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", f->dir, names[i]);
        if (i == 2)
            assert_int_equal(mkfifo(path, 0600), 0);
        else
            write_text(path, "x");
    }
    snprintf(path, sizeof path, "%s/%s", f->dir, names[3]);
    bool root = geteuid() == 0;
    if (root)
        assert_int_equal(chown(path, 4242, 4242), 0);
    else
        unlink(path);
    assert_int_equal(h5_out_cleanup_stale(f->path), 0);
    assert_int_equal(count_entries(f->dir), root ? 4 : 3);
}

/* fsync, wrapped at link time (tests/meson.build): fails with EIO, as a disk's write error
 * surfaces there, on a regular file or on a directory as sync_fails says. */
static enum { SYNC_WORKS, FILE_SYNC_FAILS, DIR_SYNC_FAILS } sync_fails;
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __wrap_fsync(int fd)
{
    struct stat st;
    if (sync_fails != SYNC_WORKS && fstat(fd, &st) == 0 &&
        S_ISDIR(st.st_mode) == (sync_fails == DIR_SYNC_FAILS)) {
        errno = EIO;
        return -1;
    }
    return __real_fsync(fd);
}

/* Commits one results file with fsync failing as `how` says; its return value, err filled. */
static int commit_with_sync(const fixture *f, int how, char *err, size_t errlen)
{
    h5_out *o;
    assert_int_equal(h5_out_open(&o, f->path, err, errlen), 0);
    assert_int_equal(h5_out_attr_i64(o, "threads", 1), 0);
    sync_fails = how;
    int rc = h5_out_commit(o, err, errlen);
    sync_fails = SYNC_WORKS;
    return rc;
}

/* A temporary that cannot be synced is not renamed into place: the commit fails in one line
 * naming the file and the system's reason, the old file stays, no temporary is left. A directory
 * that cannot be synced after the rename: the new file is in place, the commit still fails,
 * saying so. */
static void failed_sync_is_reported(void **state)
{
    fixture *f = *state;
    write_text(f->path, "old");
    char err[512] = "";
    assert_int_not_equal(commit_with_sync(f, FILE_SYNC_FAILS, err, sizeof err), 0);
    if (!strstr(err, f->path) || !strstr(err, strerror(EIO)) || strchr(err, '\n'))
        fail_msg("error '%s' should name %s and '%s' in one line", err, f->path, strerror(EIO));
    assert_text(f->path, "old");
    assert_int_equal(count_entries(f->dir), 1);
    err[0] = '\0';
    assert_int_not_equal(commit_with_sync(f, DIR_SYNC_FAILS, err, sizeof err), 0);
    if (!strstr(err, "syncing directory") || !strstr(err, strerror(EIO)) || strchr(err, '\n'))
        fail_msg("error '%s' should say the directory's sync failed, in one line", err);
    assert_true(H5Fis_hdf5(f->path) > 0);
    assert_int_equal(count_entries(f->dir), 1);
}

/* No path, or one that names a directory by its form (nothing of it need exist): refused in
 * one line, no file opened. */
static void refuses_a_path_that_is_no_file_name(void **state)
{
    (void)state;
    char err[512];
    h5_out *o = NULL;
    assert_int_equal(h5_out_open(&o, NULL, err, sizeof err), -1);
    assert_null(o);
    assert_string_equal(err, "no output path");
    const char *paths[] = {"nosuch-h5out-dir/", "nosuch-h5out-dir/..", ".", "/"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "%s: names a directory, expected a file name", paths[i]);
        assert_int_equal(h5_out_open(&o, paths[i], err, sizeof err), -1);
        assert_null(o);
        assert_string_equal(err, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refuses_a_path_that_is_no_file_name),
        cmocka_unit_test_setup_teardown(round_trip_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(round_trip_strings_and_bools, setup, teardown),
        cmocka_unit_test_setup_teardown(filters_scales_and_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(views_write_what_copies_write, setup, teardown),
        cmocka_unit_test_setup_teardown(columns_keep_creation_order, setup, teardown),
        cmocka_unit_test_setup_teardown(nested_tables_and_zero_rows, setup, teardown),
        cmocka_unit_test(table_rejects_bad_names),
        cmocka_unit_test_setup_teardown(cf_attributes_follow_the_docs, setup, teardown),
        cmocka_unit_test_setup_teardown(root_numbers_keep_64_bits, setup, teardown),
        cmocka_unit_test_setup_teardown(root_int64_array_round_trips, setup, teardown),
        cmocka_unit_test_setup_teardown(existing_group_error_says_why, setup, teardown),
        cmocka_unit_test_setup_teardown(root_keeps_table_order_and_columns_are_fixed_size, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(abort_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(failure_is_kept_and_commit_removes_temporary, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(failed_write_reports_the_system_error, setup, teardown),
        cmocka_unit_test_setup_teardown(injected_write_failure_keeps_its_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(injected_chunk_write_failure_keeps_its_reason, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(many_chunks_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(fletcher32_is_hdf5s, setup, teardown),
        cmocka_unit_test_setup_teardown(last_chunk_padded_with_zeros, setup, teardown),
        cmocka_unit_test_setup_teardown(open_fails_in_missing_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(commit_replaces_existing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(commit_replaces_symlink_not_its_target, setup, teardown),
        cmocka_unit_test_setup_teardown(cleanup_removes_only_stale_temporaries, setup, teardown),
        cmocka_unit_test_setup_teardown(commit_mode_follows_umask, setup, teardown),
        cmocka_unit_test_setup_teardown(live_lock_spares_the_data_ranges, setup, teardown),
        cmocka_unit_test_setup_teardown(failed_rename_leaves_no_temporary, setup, teardown),
        cmocka_unit_test_setup_teardown(cleanup_keeps_lookalikes, setup, teardown),
        cmocka_unit_test_setup_teardown(failed_sync_is_reported, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
