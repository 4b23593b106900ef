/* HDF5 results: tables built in memory, written to a temporary file that is renamed into place
 * only when complete (README, "Results file").
 *
 * A table is a group of 1-D datasets of equal length, one per column (a "_2d" column is rows x
 * width). Each dataset is chunked with shuffle + deflate(4) + fletcher32, except string columns:
 * HDF5 1.10.8 refuses filters on variable-length data, so those are chunked only. Every table
 * also gets a dimension-scale dataset "row" (int64 0..rows-1) attached to dimension 0 of each
 * column, and 2-D columns a scale "axis" (0..width-1; "axis_<width>" for a second width), so that
 * xarray (h5netcdf or netCDF4 engine) sees shared named dimensions. Groups track the creation
 * order of links and attributes, so readers list columns in the order they were added.
 *
 * Types: float64 and int64 little-endian; strings variable-length UTF-8 (h5py 3 returns bytes,
 * .asstr() gives str; xarray gives str); bools the enum of int8 {FALSE=0, TRUE=1} that h5py and
 * xarray/h5netcdf read as numpy bool, committed once as the named type "/types/bool" because
 * netCDF-C skips variables of an anonymous enum type (xarray's netcdf4 engine then reads int8
 * 0/1); in a group, so that the root holds only tables (it was "/bool" before).
 *
 * Columns carry CF attributes when the table is described (h5_table_describe): `units` (a UDUNITS
 * string, "1" for dimensionless, "" for text), `long_name`, and `coordinates` where given; the
 * scales get units "1" and a long_name.
 *
 * h5_out_open turns off HDF5's automatic error printing for the whole process
 * (H5Eset_auto2(H5E_DEFAULT, NULL, NULL)): failures come back as one line instead.
 *
 * Usage:
 *     h5_out_cleanup_stale(path);          // temporaries left by a killed run
 *     h5_out_open(&o, path, err, sizeof err);
 *     h5_out_attr_str(o, "config", text); ...
 *     h5_out_write_table(o, t); ...
 *     h5_out_commit(o, err, sizeof err);   // or h5_out_abort(o)
 * Only open and commit take an error buffer: the attribute and table writers return nonzero on
 * failure and keep the first error, which h5_out_error() shows and commit reports (a commit after
 * any failure aborts). All int-returning functions return 0 on success. Not thread-safe (the
 * serial HDF5 library is not). */
#ifndef OSCBENCH_H5OUT_H
#define OSCBENCH_H5OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- tables (memory only; no HDF5 calls) -------------------------------------------------- */

typedef struct h5_table h5_table;

/* path: "points", "traces/rk4/3" (a leading '/' is allowed; intermediate groups are created on
 * write). NULL on a malformed path (empty, empty or "."/".." component) or out of memory. */
h5_table *h5_table_new(const char *path, size_t rows);

/* Each copies `rows` values (rows x width for _2d). A column name is non-empty, has no '/', is
 * not ".", is unique in the table and is none of the scale names "row", "axis", "axis_*". The
 * string columns copy the strings; a NULL entry is stored as "". Nonzero on a bad name, width 0
 * or out of memory (the table is unchanged then). */
int h5_table_f64(h5_table *t, const char *col, const double *v);
int h5_table_i64(h5_table *t, const char *col, const int64_t *v);
int h5_table_bool(h5_table *t, const char *col, const bool *v);
int h5_table_str(h5_table *t, const char *col, const char *const *v);
int h5_table_f64_2d(h5_table *t, const char *col, const double *v, size_t width);

/* The same without a copy: the column is a view of v, which must stay unchanged until the
 * table is written or freed (for the large tables: /points of a big sweep would otherwise be
 * held twice). A string view's entries must all be non-NULL (else nonzero). */
int h5_table_f64_view(h5_table *t, const char *col, const double *v);
int h5_table_i64_view(h5_table *t, const char *col, const int64_t *v);
int h5_table_bool_view(h5_table *t, const char *col, const bool *v);
int h5_table_str_view(h5_table *t, const char *col, const char *const *v);

/* A variable-length UTF-8 string attribute on the table's group; a repeated name replaces. */
int h5_table_attr_str(h5_table *t, const char *name, const char *value);

/* CF attributes of a column, by its name. The strings are not copied: they must outlive the
 * table (static tables). */
typedef struct h5_column_doc {
    const char *name, *units, *long_name;
    const char *coordinates; /* NULL: none */
} h5_column_doc;

/* Attach to each column of t the doc of its name; returns how many columns have none. */
size_t h5_table_describe(h5_table *t, const h5_column_doc *docs, size_t ndocs);

size_t h5_table_rows(const h5_table *t);
void h5_table_free(h5_table *t);

/* ---- the results file --------------------------------------------------------------------- */

typedef struct h5_out h5_out;

/* Opens a commit (commit.h: an exclusive, locked temporary beside final_path) and creates the
 * HDF5 file on that very inode (through /proc/self/fd when available; the inode is checked
 * either way). On failure *out is NULL and err holds one line naming final_path. */
int h5_out_open(h5_out **out, const char *final_path, char *err, size_t errlen);

/* Root attributes; a repeated name replaces. */
int h5_out_attr_str(h5_out *o, const char *name, const char *value);
int h5_out_attr_i64(h5_out *o, const char *name, int64_t value);
int h5_out_attr_f64(h5_out *o, const char *name, double value);

/* Writes the table as a new group (an existing group of that path is an error). */
int h5_out_write_table(h5_out *o, const h5_table *t);

/* The first error since open ("" if none). */
const char *h5_out_error(const h5_out *o);

/* Closes the HDF5 file and commits it (commit_finish: fsync, rename to final_path replacing a
 * file there atomically, fsync of the directory). On any failure (including an earlier one) the
 * temporary is removed and final_path is left as it was. Frees o either way. */
int h5_out_commit(h5_out *o, char *err, size_t errlen);

/* Closes and removes the temporary; frees o. NULL is allowed. */
void h5_out_abort(h5_out *o);

/* A root attribute holding n int64 values (n >= 1). */
int h5_out_attr_i64_array(h5_out *o, const char *name, const int64_t *values, size_t n);

/* ---- finishing a file another writer began (the parallel /points writer, h5par.c) ----------- */

typedef struct file_commit file_commit;

/* Like h5_out_open, but the HDF5 file already exists in the commit's temporary (commit.h): it
 * is opened for writing, and o owns the commit from now on (on failure it is aborted). */
int h5_out_reopen(h5_out **out, file_commit *commit, char *err, size_t errlen);

/* Completes a table whose group and datasets another writer created (with the layout of
 * h5layout.h, the values of "row" and of every numeric column included): t lists every column
 * (1-D only) as h5_out_write_table would take it; this writes the string columns' data (which
 * parallel HDF5 cannot write), makes "row" the dimension scale, gives every dataset of the
 * group, in creation order, its CF attributes and the scale, and writes t's attributes: the
 * same file as h5_out_write_table of t. */
int h5_out_complete_table(h5_out *o, const h5_table *t);

/* commit_cleanup_stale: the temporaries a killed run left beside final_path. */
int h5_out_cleanup_stale(const char *final_path);

#endif
