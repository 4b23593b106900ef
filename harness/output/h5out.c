/* HDF5 results writer: see h5out.h. The temporary file, its lock and the commit are commit.c's. */
#include "h5out.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h"
#include "h5chunks.h"
#include "h5layout.h"

#include <hdf5.h>
#include <hdf5_hl.h>

enum { DEFLATE_LEVEL = 4 };
#define BOOL_TYPE_PATH H5_LAYOUT_BOOL_PATH /* the committed bool enum (see h5out.h) */
#define CHUNK_BYTES ((size_t)1 << 17) /* target bytes per chunk */
#define PROC_PATH_LEN 64        /* "/proc/self/fd/" and an int */

/* ---- tables --------------------------------------------------------------------------------- */

typedef enum col_kind { COL_F64, COL_I64, COL_BOOL, COL_STR } col_kind;

typedef struct h5_column {
    char *name;
    col_kind kind;
    size_t width; /* 0: 1-D; else the second dimension of a 2-D dataset */
    void *data;   /* rows (x width) values: double, int64_t, int8_t (or bool), or char * */
    bool borrowed; /* a view of the caller's array: not freed here */
    const h5_column_doc *doc; /* CF attributes (h5_table_describe), NULL: none */
} h5_column;

typedef struct h5_attr {
    char *name, *value;
} h5_attr;

struct h5_table {
    char *path;
    size_t rows;
    h5_column *cols;
    size_t ncols;
    h5_attr *attrs;
    size_t nattrs;
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

/* Components separated by single '/', none empty, "." or "..". */
static bool valid_group_path(const char *path)
{
    if (!*path)
        return false;
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, "/");
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        p += len;
        if (*p == '/' && !*++p)
            return false;
    }
    return true;
}

static bool is_scale_name(const char *name)
{
    return !strcmp(name, "row") || !strcmp(name, "axis") || !strncmp(name, "axis_", 5);
}

static bool valid_column_name(const h5_table *t, const char *name)
{
    if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || is_scale_name(name))
        return false;
    for (size_t i = 0; i < t->ncols; i++)
        if (!strcmp(t->cols[i].name, name))
            return false;
    return true;
}

h5_table *h5_table_new(const char *path, size_t rows)
{
    if (!path)
        return NULL;
    if (*path == '/')
        path++;
    if (!valid_group_path(path))
        return NULL;
    h5_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->path = dup_str(path);
    if (!t->path) {
        free(t);
        return NULL;
    }
    t->rows = rows;
    return t;
}

size_t h5_table_describe(h5_table *t, const h5_column_doc *docs, size_t ndocs)
{
    size_t undescribed = 0;
    for (size_t i = 0; i < t->ncols; i++) {
        h5_column *c = &t->cols[i];
        for (size_t d = 0; d < ndocs && !c->doc; d++)
            if (!strcmp(docs[d].name, c->name))
                c->doc = &docs[d];
        undescribed += !c->doc;
    }
    return undescribed;
}

size_t h5_table_rows(const h5_table *t)
{
    return t->rows;
}

static void free_column(h5_column *c, size_t rows)
{
    if (c->borrowed) {
        free(c->name);
        return;
    }
    if (c->kind == COL_STR && c->data)
        for (size_t i = 0; i < rows; i++)
            free(((char **)c->data)[i]);
    free(c->data);
    free(c->name);
}

void h5_table_free(h5_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->ncols; i++)
        free_column(&t->cols[i], t->rows);
    for (size_t i = 0; i < t->nattrs; i++) {
        free(t->attrs[i].name);
        free(t->attrs[i].value);
    }
    free(t->cols);
    free(t->attrs);
    free(t->path);
    free(t);
}

/* Appends a column whose data buffer (already filled, owned from now on) is `data`. */
static int add_column(h5_table *t, const char *name, col_kind kind, size_t width, void *data)
{
    h5_column *cols = realloc(t->cols, (t->ncols + 1) * sizeof *cols);
    if (!cols)
        return -1;
    t->cols = cols;
    char *name_copy = dup_str(name);
    if (!name_copy)
        return -1;
    cols[t->ncols++] = (h5_column){name_copy, kind, width, data, false, NULL};
    return 0;
}

/* Appends a column that points at the caller's array. */
static int add_view(h5_table *t, const char *name, col_kind kind, const void *v)
{
    if (!valid_column_name(t, name) || (t->rows && !v))
        return -1;
    if (add_column(t, name, kind, 0, (void *)(uintptr_t)v))
        return -1;
    t->cols[t->ncols - 1].borrowed = true;
    return 0;
}

int h5_table_f64_view(h5_table *t, const char *col, const double *v)
{
    return add_view(t, col, COL_F64, v);
}

int h5_table_i64_view(h5_table *t, const char *col, const int64_t *v)
{
    return add_view(t, col, COL_I64, v);
}

/* A C bool is one byte holding 0 or 1: the bytes the int8 enum FALSE/TRUE stores. */
_Static_assert(sizeof(bool) == sizeof(int8_t), "bool columns are written as int8");
int h5_table_bool_view(h5_table *t, const char *col, const bool *v)
{
    return add_view(t, col, COL_BOOL, v);
}

int h5_table_str_view(h5_table *t, const char *col, const char *const *v)
{
    for (size_t i = 0; v && i < t->rows; i++)
        if (!v[i])
            return -1;
    return add_view(t, col, COL_STR, v);
}

/* malloc(count * size), never NULL for count 0, NULL on overflow. */
static void *alloc_array(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    return malloc(bytes ? bytes : 1);
}

static int add_copied_column(h5_table *t, const char *name, col_kind kind, size_t width,
                             const void *v, size_t elem_size)
{
    if (!valid_column_name(t, name) || (t->rows && !v))
        return -1;
    size_t count = t->rows * (width ? width : 1);
    if (width && count / width != t->rows)
        return -1;
    void *data = alloc_array(count, elem_size);
    if (!data)
        return -1;
    if (count)
        memcpy(data, v, count * elem_size);
    if (add_column(t, name, kind, width, data)) {
        free(data);
        return -1;
    }
    return 0;
}

int h5_table_f64(h5_table *t, const char *col, const double *v)
{
    return add_copied_column(t, col, COL_F64, 0, v, sizeof *v);
}

int h5_table_i64(h5_table *t, const char *col, const int64_t *v)
{
    return add_copied_column(t, col, COL_I64, 0, v, sizeof *v);
}

int h5_table_f64_2d(h5_table *t, const char *col, const double *v, size_t width)
{
    if (width == 0)
        return -1;
    return add_copied_column(t, col, COL_F64, width, v, sizeof *v);
}

int h5_table_bool(h5_table *t, const char *col, const bool *v)
{
    if (!valid_column_name(t, col) || (t->rows && !v))
        return -1;
    int8_t *data = alloc_array(t->rows, sizeof *data);
    if (!data)
        return -1;
    for (size_t i = 0; i < t->rows; i++)
        data[i] = v[i] ? 1 : 0;
    if (add_column(t, col, COL_BOOL, 0, data)) {
        free(data);
        return -1;
    }
    return 0;
}

static void free_strings(char **s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

int h5_table_str(h5_table *t, const char *col, const char *const *v)
{
    if (!valid_column_name(t, col) || (t->rows && !v))
        return -1;
    char **data = alloc_array(t->rows, sizeof *data);
    if (!data)
        return -1;
    for (size_t i = 0; i < t->rows; i++) {
        data[i] = dup_str(v[i] ? v[i] : "");
        if (!data[i]) {
            free_strings(data, i);
            return -1;
        }
    }
    if (add_column(t, col, COL_STR, 0, data)) {
        free_strings(data, t->rows);
        return -1;
    }
    return 0;
}

int h5_table_attr_str(h5_table *t, const char *name, const char *value)
{
    if (!name || !*name || !value)
        return -1;
    char *value_copy = dup_str(value);
    if (!value_copy)
        return -1;
    for (size_t i = 0; i < t->nattrs; i++) {
        if (!strcmp(t->attrs[i].name, name)) {
            free(t->attrs[i].value);
            t->attrs[i].value = value_copy;
            return 0;
        }
    }
    h5_attr *attrs = realloc(t->attrs, (t->nattrs + 1) * sizeof *attrs);
    char *name_copy = attrs ? dup_str(name) : NULL;
    if (attrs)
        t->attrs = attrs;
    if (!name_copy) {
        free(value_copy);
        return -1;
    }
    attrs[t->nattrs++] = (h5_attr){name_copy, value_copy};
    return 0;
}

/* ---- error messages ------------------------------------------------------------------------- */

struct h5_out {
    hid_t file;
    file_commit *commit; /* the temporary the file is written to, until commit or abort */
    char *final_path;
    hid_t bool_type; /* the named enum "/bool" that bool columns share, made on first use */
    bool failed;
    char err[ERROR_LINE_BYTES];
};

typedef struct h5_err_detail {
    char sys[160];   /* the system error HDF5 quoted ("error message = '...'"), if any */
    char inner[160]; /* the innermost description: where HDF5 found the problem */
    char outer[160]; /* the outermost (API-level) description */
} h5_err_detail;

static herr_t collect_error(unsigned n, const H5E_error2_t *e, void *data)
{
    h5_err_detail *d = data;
    const char *desc = e->desc ? e->desc : "";
    const char *quoted = strstr(desc, "error message = '");
    if (quoted && !d->sys[0]) {
        quoted += strlen("error message = '");
        size_t len = strcspn(quoted, "'");
        snprintf(d->sys, sizeof d->sys, "%.*s", (int)len, quoted);
    }
    if (n == 0)
        snprintf(d->inner, sizeof d->inner, "%s", desc);
    snprintf(d->outer, sizeof d->outer, "%s", desc);
    return 0;
}

/* Records the first failure: "FINAL_PATH: WHAT: DETAIL" with the detail taken from HDF5's
 * error stack (must be called right after the failing HDF5 call: the next one clears it). */
static int fail_h5(h5_out *o, const char *what, const char *name)
{
    if (o->failed)
        return -1;
    h5_err_detail d = {{0}, {0}, {0}};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_error, &d);
    if (d.sys[0])
        error_line(o->err, sizeof o->err, "%s: %s %s: %s", o->final_path, what, name, d.sys);
    else if (d.inner[0] && strcmp(d.inner, d.outer))
        error_line(o->err, sizeof o->err, "%s: %s %s: %s: %s", o->final_path, what, name, d.outer,
                d.inner);
    else
        error_line(o->err, sizeof o->err, "%s: %s %s: %s", o->final_path, what, name,
                d.outer[0] ? d.outer : "HDF5 error");
    o->failed = true;
    return -1;
}

static int fail_msg(h5_out *o, const char *what, const char *name)
{
    if (!o->failed)
        error_line(o->err, sizeof o->err, "%s: %s %s", o->final_path, what, name);
    o->failed = true;
    return -1;
}

/* Every HDF5 call clears the error stack: cleanup after a failure goes between these two. */
static hid_t errors_save(void)
{
    return H5Eget_current_stack();
}

static void errors_restore(hid_t saved)
{
    if (saved >= 0)
        H5Eset_current_stack(saved);
}

const char *h5_out_error(const h5_out *o)
{
    return o->err;
}

/* ---- HDF5 pieces ---------------------------------------------------------------------------- */

static hid_t utf8_string_type(void)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0)
        return -1;
    if (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0) {
        H5Tclose(type);
        return -1;
    }
    return type;
}

/* h5py's numpy-bool convention: an enum over int8 with exactly FALSE=0 and TRUE=1. */
static hid_t bool_type(void)
{
    hid_t type = H5Tenum_create(H5T_NATIVE_INT8);
    if (type < 0)
        return -1;
    int8_t no = 0, yes = 1;
    if (H5Tenum_insert(type, "FALSE", &no) < 0 || H5Tenum_insert(type, "TRUE", &yes) < 0) {
        H5Tclose(type);
        return -1;
    }
    return type;
}

/* A new type id (the caller closes it) for storing and for reading a column of this kind. */
static hid_t file_type(col_kind kind)
{
    switch (kind) {
    case COL_F64: return H5Tcopy(H5T_IEEE_F64LE);
    case COL_I64: return H5Tcopy(H5T_STD_I64LE);
    case COL_BOOL: return bool_type();
    case COL_STR: return utf8_string_type();
    }
    return -1;
}

static hid_t mem_type(col_kind kind)
{
    switch (kind) {
    case COL_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case COL_I64: return H5Tcopy(H5T_NATIVE_INT64);
    case COL_BOOL: return bool_type();
    case COL_STR: return utf8_string_type();
    }
    return -1;
}

/* Groups that list links and attributes in creation order (column order for readers; netCDF-C
 * also prefers it). */
static hid_t ordered_group_plist(void)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (gcpl < 0)
        return -1;
    unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
    if (H5Pset_link_creation_order(gcpl, order) < 0 || H5Pset_attr_creation_order(gcpl, order) < 0) {
        H5Pclose(gcpl);
        return -1;
    }
    return gcpl;
}

/* Chunked, shuffle + deflate + fletcher32 (filtered = false: chunked only). A 0-row dataset
 * gets an unlimited first dimension, since a chunk (>= 1) may not exceed a fixed maximum of 0. */
static hid_t dataset_plist(int rank, const hsize_t *dims, size_t elem_size, bool filtered)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl < 0)
        return -1;
    hsize_t width = rank > 1 ? dims[1] : 1;
    hsize_t rows_per_chunk = CHUNK_BYTES / (elem_size * width);
    if (rows_per_chunk < 1)
        rows_per_chunk = 1;
    if (dims[0] && rows_per_chunk > dims[0])
        rows_per_chunk = dims[0];
    hsize_t chunk[2] = {rows_per_chunk, width};
    if (H5Pset_chunk(dcpl, rank, chunk) < 0 ||
        (filtered && (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0 ||
                      H5Pset_fletcher32(dcpl) < 0))) {
        H5Pclose(dcpl);
        return -1;
    }
    return dcpl;
}

hid_t h5_layout_group_plist(void) { return ordered_group_plist(); }
hid_t h5_layout_bool_type(void) { return bool_type(); }
hid_t h5_layout_string_type(void) { return utf8_string_type(); }

hid_t h5_layout_column_plist(size_t rows, size_t elem_size, bool filtered)
{
    hsize_t dims[1] = {rows};
    return dataset_plist(1, dims, elem_size, filtered);
}

hid_t h5_layout_column_space(size_t rows)
{
    hsize_t dims[1] = {rows}, maxdims[1] = {rows ? rows : H5S_UNLIMITED};
    return H5Screate_simple(1, dims, maxdims);
}

/* Fills a new dataset; true on failure. Filtered numeric columns are encoded on every thread
 * (h5chunks.h): their memory layout is the file's little-endian one on this host. */
static bool write_data(hid_t dset, hid_t dcpl, hid_t mtype, int rank, const hsize_t *dims,
                       const void *data, bool filtered)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    hsize_t chunk[2] = {0, 0};
    if (filtered && H5Pget_chunk(dcpl, rank, chunk) == rank)
        return h5_write_filtered_chunks(dset, data, dims[0], rank > 1 ? dims[1] : 1,
                                        H5Tget_size(mtype), chunk[0], DEFLATE_LEVEL) < 0;
#else
    (void)dcpl, (void)rank, (void)filtered;
#endif
    return H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0;
}

/* Creates and fills dataset `name` in `group`, stored as `named_type` if that is >= 0; returns
 * its id (the caller closes it) or -1. */
static hid_t write_dataset(hid_t group, const char *name, col_kind kind, int rank,
                           const hsize_t *dims, const void *data, hid_t named_type)
{
    hsize_t maxdims[2] = {dims[0] ? dims[0] : H5S_UNLIMITED, rank > 1 ? dims[1] : 0};
    hid_t ftype = named_type >= 0 ? named_type : file_type(kind), mtype = mem_type(kind);
    hid_t space = H5Screate_simple(rank, dims, maxdims);
    /* HDF5 >= 1.10.8 refuses (mandatory) filters on variable-length data; they would only have
     * covered the heap references anyway, the string bytes live unfiltered in the global heap. */
    bool filtered = kind != COL_STR;
    hid_t dcpl = ftype < 0 ? -1 : dataset_plist(rank, dims, H5Tget_size(ftype), filtered);
    hid_t dset = -1;
    if (ftype >= 0 && mtype >= 0 && space >= 0 && dcpl >= 0)
        dset = H5Dcreate2(group, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    bool write_failed = dset >= 0 && dims[0] && write_data(dset, dcpl, mtype, rank, dims, data,
                                                         filtered);
    /* The write's error stack (e.g. the system's "File too large") is what the user must see:
     * save it before closing anything, as every HDF5 call replaces it. */
    hid_t errors = errors_save();
    H5E_BEGIN_TRY {
        if (write_failed)
            H5Dclose(dset);
        H5Pclose(dcpl);
        H5Sclose(space);
        H5Tclose(mtype);
        if (ftype != named_type)
            H5Tclose(ftype);
    } H5E_END_TRY;
    errors_restore(errors);
    return write_failed ? -1 : dset;
}

/* A dimension-scale dataset `name` holding 0..n-1; returns its id or -1. */
static int write_attr_str(hid_t loc, const char *name, const char *value);

static hid_t write_scale(hid_t group, const char *name, size_t n)
{
    int64_t *index = alloc_array(n, sizeof *index);
    if (!index)
        return -1;
    for (size_t i = 0; i < n; i++)
        index[i] = (int64_t)i;
    hsize_t dims[1] = {n};
    hid_t dset = write_dataset(group, name, COL_I64, 1, dims, index, -1);
    free(index);
    /* CF: a coordinate's units and long_name too ("1": a dimensionless index) */
    if (dset >= 0 && (H5DSset_scale(dset, name) < 0 || write_attr_str(dset, "units", "1") ||
                      write_attr_str(dset, "long_name", !strcmp(name, "row")
                                                            ? "row index of the table"
                                                            : "axis index (0: x, 1: y, 2: z)"))) {
        hid_t errors = errors_save();
        H5Dclose(dset);
        errors_restore(errors);
        return -1;
    }
    return dset;
}

static int write_attr_str(hid_t loc, const char *name, const char *value)
{
    if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0)
        return -1;
    hid_t type = utf8_string_type(), space = H5Screate(H5S_SCALAR), attr = -1;
    int rc = -1;
    if (type >= 0 && space >= 0)
        attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0 && H5Awrite(attr, type, &value) >= 0)
        rc = 0;
    hid_t errors = errors_save();
    H5E_BEGIN_TRY {
        H5Aclose(attr);
        H5Sclose(space);
        H5Tclose(type);
    } H5E_END_TRY;
    errors_restore(errors);
    return rc;
}

/* A scalar attribute of a numeric type (file type ftype, memory type mtype). */
static int write_attr_scalar(hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                             const void *value)
{
    if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0)
        return -1;
    hid_t space = H5Screate(H5S_SCALAR), attr = -1;
    int rc = -1;
    if (space >= 0)
        attr = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0 && H5Awrite(attr, mtype, value) >= 0)
        rc = 0;
    hid_t errors = errors_save();
    H5E_BEGIN_TRY {
        H5Aclose(attr);
        H5Sclose(space);
    } H5E_END_TRY;
    errors_restore(errors);
    return rc;
}

int h5_out_attr_str(h5_out *o, const char *name, const char *value)
{
    if (o->failed)
        return -1;
    if (!name || !*name || !value)
        return fail_msg(o, "bad root attribute", name ? name : "(null)");
    if (write_attr_str(o->file, name, value))
        return fail_h5(o, "writing attribute", name);
    return 0;
}

/* A numeric root attribute, after the checks every root attribute gets. */
static int root_attr_scalar(h5_out *o, const char *name, hid_t ftype, hid_t mtype,
                            const void *value)
{
    if (o->failed)
        return -1;
    if (!name || !*name)
        return fail_msg(o, "bad root attribute", "(empty)");
    if (write_attr_scalar(o->file, name, ftype, mtype, value))
        return fail_h5(o, "writing attribute", name);
    return 0;
}

int h5_out_attr_i64(h5_out *o, const char *name, int64_t value)
{
    return root_attr_scalar(o, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

int h5_out_attr_f64(h5_out *o, const char *name, double value)
{
    return root_attr_scalar(o, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

/* ---- tables into groups --------------------------------------------------------------------- */

/* Opens or creates each intermediate group of `path` and creates its last component; returns
 * the new group's id or -1. */
static hid_t create_table_group(h5_out *o, const char *path)
{
    hid_t gcpl = ordered_group_plist();
    if (gcpl < 0)
        return fail_h5(o, "creating group", path);
    char *prefix = dup_str(path);
    if (!prefix) {
        H5Pclose(gcpl);
        return fail_msg(o, "out of memory for group", path);
    }
    hid_t group = -1;
    for (char *slash = prefix;; slash++) {
        slash = strchr(slash, '/');
        if (slash)
            *slash = '\0';
        htri_t exists = slash ? H5Lexists(o->file, prefix, H5P_DEFAULT) : 0;
        if (exists < 0) {
            fail_h5(o, "looking up group", prefix);
            break;
        }
        if (!exists) {
            group = H5Gcreate2(o->file, prefix, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            if (group < 0) {
                fail_h5(o, "creating group", prefix);
                break;
            }
        }
        if (!slash)
            break;
        if (group >= 0)
            H5Gclose(group);
        group = -1;
        *slash = '/';
    }
    free(prefix);
    H5Pclose(gcpl);
    return group;
}

/* The scale for a 2-D column's second dimension: "axis" for the table's first width,
 * "axis_<width>" for any other. */
static void axis_scale_name(const h5_table *t, size_t width, char *name, size_t len)
{
    size_t first = 0;
    for (size_t i = 0; i < t->ncols && !first; i++)
        first = t->cols[i].width;
    if (width == first)
        snprintf(name, len, "axis");
    else
        snprintf(name, len, "axis_%zu", width);
}

/* Opens the axis scale for `width`, writing it on first use. */
static hid_t axis_scale(h5_out *o, hid_t group, const h5_table *t, size_t width)
{
    char name[32];
    axis_scale_name(t, width, name, sizeof name);
    htri_t exists = H5Lexists(group, name, H5P_DEFAULT);
    hid_t scale = exists > 0 ? H5Dopen2(group, name, H5P_DEFAULT)
                  : exists == 0 ? write_scale(group, name, width) : -1;
    if (scale < 0)
        fail_h5(o, "writing dimension scale", name);
    return scale;
}

/* netCDF-C (so xarray's netcdf4 engine) skips datasets of an anonymous enum type: bool columns
 * use one committed type. */
static hid_t shared_bool_type(h5_out *o)
{
    if (o->bool_type >= 0)
        return o->bool_type;
    hid_t type = bool_type();
    /* in a group of its own, /types, not at the root, where a loop over the tables would meet
     * a datatype; the link creation property makes the intermediate group */
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    bool ok = type >= 0 && lcpl >= 0 && H5Pset_create_intermediate_group(lcpl, 1) >= 0 &&
              H5Tcommit2(o->file, BOOL_TYPE_PATH, type, lcpl, H5P_DEFAULT, H5P_DEFAULT) >= 0;
    hid_t errors = errors_save();
    if (lcpl >= 0)
        H5Pclose(lcpl);
    if (!ok && type >= 0)
        H5Tclose(type);
    errors_restore(errors);
    if (!ok)
        return -1;
    o->bool_type = type;
    return type;
}

static int write_column(h5_out *o, hid_t group, hid_t row_scale, const h5_table *t,
                        const h5_column *c)
{
    hid_t named_type = c->kind == COL_BOOL ? shared_bool_type(o) : -1;
    if (c->kind == COL_BOOL && named_type < 0)
        return fail_h5(o, "creating the bool type for", c->name);
    hsize_t dims[2] = {t->rows, c->width};
    hid_t dset =
        write_dataset(group, c->name, c->kind, c->width ? 2 : 1, dims, c->data, named_type);
    if (dset < 0)
        return fail_h5(o, "writing column", c->name);
    int rc = 0;
    if (c->doc && (write_attr_str(dset, "units", c->doc->units) ||
                   write_attr_str(dset, "long_name", c->doc->long_name) ||
                   (c->doc->coordinates &&
                    write_attr_str(dset, "coordinates", c->doc->coordinates))))
        rc = fail_h5(o, "writing the units and long_name of", c->name);
    if (H5DSattach_scale(dset, row_scale, 0) < 0)
        rc = fail_h5(o, "attaching dimension scale to", c->name);
    if (!rc && c->width) {
        hid_t scale = axis_scale(o, group, t, c->width);
        if (scale < 0)
            rc = -1;
        else if (H5DSattach_scale(dset, scale, 1) < 0)
            rc = fail_h5(o, "attaching dimension scale to", c->name);
        if (scale >= 0)
            H5Dclose(scale);
    }
    H5Dclose(dset);
    return rc;
}

static int write_table_body(h5_out *o, hid_t group, const h5_table *t)
{
    hid_t row_scale = write_scale(group, "row", t->rows);
    if (row_scale < 0)
        return fail_h5(o, "writing dimension scale row of", t->path);
    int rc = 0;
    for (size_t i = 0; i < t->ncols && !rc; i++)
        rc = write_column(o, group, row_scale, t, &t->cols[i]);
    for (size_t i = 0; i < t->nattrs && !rc; i++)
        if (write_attr_str(group, t->attrs[i].name, t->attrs[i].value))
            rc = fail_h5(o, "writing table attribute", t->attrs[i].name);
    H5Dclose(row_scale);
    return rc;
}

int h5_out_write_table(h5_out *o, const h5_table *t)
{
    if (o->failed)
        return -1;
    hid_t group = create_table_group(o, t->path);
    if (group < 0)
        return -1;
    int rc = write_table_body(o, group, t);
    H5Gclose(group);
    return rc;
}

/* ---- the file: created in the commit's temporary ------------------------------------------ */

static void free_out(h5_out *o)
{
    free(o->final_path);
    free(o);
}

static hid_t create_plist(hid_t cls)
{
    hid_t plist = H5Pcreate(cls);
    if (plist < 0)
        return -1;
    unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
    herr_t rc = 0;
    if (cls == H5P_FILE_CREATE) {
        rc = H5Pset_link_creation_order(plist, order);
        if (rc >= 0)
            rc = H5Pset_attr_creation_order(plist, order);
    } else {
        /* Our own lock guards the file; HDF5's flock() would only fail on file systems
         * without it. SEMI: H5Fclose fails (rather than lingering) if an object is open. */
        rc = H5Pset_file_locking(plist, false, true);
        if (rc >= 0)
            rc = H5Pset_fclose_degree(plist, H5F_CLOSE_SEMI);
    }
    if (rc < 0) {
        H5Pclose(plist);
        return -1;
    }
    return plist;
}

hid_t h5_layout_file_plist(void) { return create_plist(H5P_FILE_CREATE); }

/* True if HDF5's descriptor refers to the same inode as ours. */
static bool same_file(hid_t file, int fd)
{
    void *handle = NULL;
    struct stat ours, theirs;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle)
        return false;
    if (fstat(fd, &ours) < 0 || fstat(*(int *)handle, &theirs) < 0)
        return false;
    return ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
}

/* The name HDF5 opens the commit's temporary by: /proc/self/fd/N where that exists, so that no
 * one can swap the name in between; else its path, which check_opened's inode check covers. */
static const char *temp_name(const h5_out *o, char proc_path[static PROC_PATH_LEN])
{
    snprintf(proc_path, PROC_PATH_LEN, "/proc/self/fd/%d", commit_fd(o->commit));
    return access(proc_path, F_OK) == 0 ? proc_path : commit_tmp_path(o->commit);
}

/* Right after H5Fcreate or H5Fopen on temp_name() (fail_h5 reads HDF5's error stack): fails o
 * when the file did not open (what says which) or is not the inode the commit holds. */
static void check_opened(h5_out *o, const char *what)
{
    const char *tmp_path = commit_tmp_path(o->commit);
    if (o->file < 0)
        fail_h5(o, what, tmp_path);
    else if (!same_file(o->file, commit_fd(o->commit)))
        fail_msg(o, "temporary file replaced while opening:", tmp_path);
}

/* Creates the HDF5 file on the inode mkstemp made. */
static int create_hdf5(h5_out *o, char *err, size_t errlen)
{
    char proc_path[PROC_PATH_LEN];
    const char *name = temp_name(o, proc_path);
    hid_t fcpl = create_plist(H5P_FILE_CREATE), fapl = create_plist(H5P_FILE_ACCESS);
    if (fcpl >= 0 && fapl >= 0)
        o->file = H5Fcreate(name, H5F_ACC_TRUNC, fcpl, fapl);
    check_opened(o, "cannot create HDF5 file");
    H5E_BEGIN_TRY {
        H5Pclose(fcpl);
        H5Pclose(fapl);
    } H5E_END_TRY;
    if (o->failed)
        error_line(err, errlen, "%s", o->err);
    return o->failed ? -1 : 0;
}

int h5_out_open(h5_out **out, const char *final_path, char *err, size_t errlen)
{
    *out = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    h5_out *o = calloc(1, sizeof *o);
    if (!o) {
        error_line(err, errlen, "%s: out of memory", final_path ? final_path : "output");
        return -1;
    }
    o->file = -1;
    o->bool_type = -1;
    if (commit_open(&o->commit, final_path, err, errlen) ||
        !(o->final_path = dup_str(final_path))) {
        if (o->commit)
            error_line(err, errlen, "%s: out of memory", final_path);
        h5_out_abort(o);
        return -1;
    }
    if (create_hdf5(o, err, errlen)) {
        h5_out_abort(o);
        return -1;
    }
    *out = o;
    return 0;
}

static void close_bool_type(h5_out *o)
{
    if (o->bool_type >= 0)
        H5Tclose(o->bool_type);
    o->bool_type = -1;
}

static int close_hdf5(h5_out *o)
{
    if (o->file < 0)
        return 0;
    close_bool_type(o);
    herr_t rc = H5Fclose(o->file);
    if (rc < 0)
        fail_h5(o, "closing", commit_tmp_path(o->commit));
    o->file = -1;
    return rc < 0 ? -1 : 0;
}

/* HDF5 1.10.8: an H5Fclose that fails (its flush hits a full disk) frees the file but keeps its
 * id; a second close, or H5close at exit (or at MPI_Finalize, which main.c's H5dont_atexit does
 * not cover), then dereferences NULL. No API call can drop that id, so it is not retried here. */
void h5_out_abort(h5_out *o)
{
    if (!o)
        return;
    close_bool_type(o);
    if (o->file >= 0)
        H5Fclose(o->file);
    commit_abort(o->commit);
    free_out(o);
}

int h5_out_commit(h5_out *o, char *err, size_t errlen)
{
    if (!o->failed)
        close_hdf5(o);
    if (o->failed) {
        error_line(err, errlen, "%s", o->err);
        h5_out_abort(o);
        return -1;
    }
    int rc = commit_finish(o->commit, err, errlen);
    o->commit = NULL;
    free_out(o);
    return rc;
}

/* ---- a file another writer began (h5par.c) --------------------------------------------------- */

/* Opens the HDF5 file in the commit's temporary, and the shared bool type if the file has it. */
static int open_hdf5(h5_out *o, char *err, size_t errlen)
{
    char proc_path[PROC_PATH_LEN];
    const char *name = temp_name(o, proc_path);
    hid_t fapl = create_plist(H5P_FILE_ACCESS);
    if (fapl >= 0)
        o->file = H5Fopen(name, H5F_ACC_RDWR, fapl);
    check_opened(o, "cannot reopen HDF5 file");
    H5E_BEGIN_TRY {
        H5Pclose(fapl);
    } H5E_END_TRY;
    htri_t has_bool = o->failed ? 0 : H5Lexists(o->file, H5_LAYOUT_TYPES_GROUP, H5P_DEFAULT);
    if (has_bool > 0)
        has_bool = H5Lexists(o->file, BOOL_TYPE_PATH, H5P_DEFAULT);
    if (has_bool > 0 && (o->bool_type = H5Topen2(o->file, BOOL_TYPE_PATH, H5P_DEFAULT)) < 0)
        fail_h5(o, "opening type", BOOL_TYPE_PATH);
    if (o->failed)
        error_line(err, errlen, "%s", o->err);
    return o->failed ? -1 : 0;
}

int h5_out_reopen(h5_out **out, file_commit *commit, char *err, size_t errlen)
{
    *out = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    h5_out *o = calloc(1, sizeof *o);
    const char *final_path = commit_final_path(commit);
    if (!o || !(o->final_path = dup_str(final_path))) {
        error_line(err, errlen, "%s: out of memory", final_path);
        free(o);
        commit_abort(commit);
        return -1;
    }
    o->file = -1;
    o->bool_type = -1;
    o->commit = commit;
    if (open_hdf5(o, err, errlen)) {
        h5_out_abort(o);
        return -1;
    }
    *out = o;
    return 0;
}

typedef struct completion {
    h5_out *o;
    const h5_table *t;
    hid_t row_scale;
    size_t written; /* of t's columns */
} completion;

static const h5_column *find_column(const h5_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (!strcmp(t->cols[i].name, name))
            return &t->cols[i];
    return NULL;
}

/* One dataset of the group, in creation order, as write_column would have left it: the data
 * of a string column (the numeric ones are in the file already), the CF attributes, the row
 * scale. */
static herr_t complete_dataset(hid_t group, const char *name, const H5L_info_t *info, void *op)
{
    (void)info;
    completion *c = op;
    if (!strcmp(name, "row"))
        return 0;
    const h5_column *col = find_column(c->t, name);
    if (!col)
        return fail_msg(c->o, "a dataset the table does not list:", name);
    hid_t dset = H5Dopen2(group, name, H5P_DEFAULT);
    if (dset < 0)
        return fail_h5(c->o, "opening column", name);
    int rc = 0;
    if (col->kind == COL_STR) {
        hid_t mtype = mem_type(col->kind);
        if (mtype < 0 || (c->t->rows &&
                          H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, col->data) < 0))
            rc = fail_h5(c->o, "writing column", name);
        H5E_BEGIN_TRY {
            H5Tclose(mtype);
        } H5E_END_TRY;
    }
    c->written++;
    if (!rc && col->doc && (write_attr_str(dset, "units", col->doc->units) ||
                            write_attr_str(dset, "long_name", col->doc->long_name) ||
                            (col->doc->coordinates &&
                             write_attr_str(dset, "coordinates", col->doc->coordinates))))
        rc = fail_h5(c->o, "writing the units and long_name of", name);
    if (!rc && H5DSattach_scale(dset, c->row_scale, 0) < 0)
        rc = fail_h5(c->o, "attaching dimension scale to", name);
    H5Dclose(dset);
    return rc;
}

int h5_out_complete_table(h5_out *o, const h5_table *t)
{
    if (o->failed)
        return -1;
    for (size_t i = 0; i < t->ncols; i++)
        if (t->cols[i].width)
            return fail_msg(o, "cannot complete a 2-D column:", t->cols[i].name);
    hid_t group = H5Gopen2(o->file, t->path, H5P_DEFAULT);
    if (group < 0)
        return fail_h5(o, "opening group", t->path);
    completion c = {o, t, H5Dopen2(group, "row", H5P_DEFAULT), 0};
    int rc = 0;
    if (c.row_scale < 0 || H5DSset_scale(c.row_scale, "row") < 0 ||
        write_attr_str(c.row_scale, "units", "1") ||
        write_attr_str(c.row_scale, "long_name", "row index of the table"))
        rc = fail_h5(o, "writing dimension scale row of", t->path);
    if (!rc && H5Literate(group, H5_INDEX_CRT_ORDER, H5_ITER_INC, NULL, complete_dataset, &c) < 0)
        rc = fail_h5(o, "completing table", t->path);
    if (!rc && c.written != t->ncols)
        rc = fail_msg(o, "a column was not created in parallel in", t->path);
    for (size_t i = 0; i < t->nattrs && !rc; i++)
        if (write_attr_str(group, t->attrs[i].name, t->attrs[i].value))
            rc = fail_h5(o, "writing table attribute", t->attrs[i].name);
    if (c.row_scale >= 0)
        H5Dclose(c.row_scale);
    H5Gclose(group);
    return rc;
}

int h5_out_attr_i64_array(h5_out *o, const char *name, const int64_t *values, size_t n)
{
    if (o->failed)
        return -1;
    if (!name || !*name || !n)
        return fail_msg(o, "bad root attribute", name ? name : "(null)");
    hsize_t dims[1] = {n};
    hid_t space = -1, attr = -1;
    int rc = -1;
    if (H5Aexists(o->file, name) > 0 && H5Adelete(o->file, name) < 0)
        return fail_h5(o, "writing attribute", name);
    if ((space = H5Screate_simple(1, dims, NULL)) >= 0)
        attr = H5Acreate2(o->file, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0 && H5Awrite(attr, H5T_NATIVE_INT64, values) >= 0)
        rc = 0;
    if (rc)
        fail_h5(o, "writing attribute", name);
    H5E_BEGIN_TRY {
        H5Aclose(attr);
        H5Sclose(space);
    } H5E_END_TRY;
    return rc;
}

int h5_out_cleanup_stale(const char *final_path)
{
    return commit_cleanup_stale(final_path);
}
