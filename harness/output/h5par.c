/* The parallel /points writer: see h5par.h. Parallel HDF5 (1.10) rules this follows: every call
 * that touches metadata (creating the file, groups, datasets, types) is made by every rank with
 * the same arguments, in the same order; filtered datasets are written collectively only
 * (independent writes with filters fail), a rank without rows taking part with an empty
 * selection; variable-length data (the method names) cannot be written in parallel at all, so
 * that column is only created here; H5Fclose does not sync under MPI-IO, so the file is flushed
 * first. */
#include "h5par.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "diag.h"
#include "h5layout.h"

_Static_assert(sizeof(bool) == 1, "bool columns go to the file straight from memory as int8 0/1");

typedef struct par_file {
    const char *path;
    size_t rows;
    hid_t file, group, dxpl, bool_type;
    hid_t rows_here; /* this rank's rows, selected in a column's dataspace */
    bool failed;
    char *err;
    size_t errlen;
} par_file;

static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data)
{
    if (n == 0)
        snprintf(data, 160, "%s", e->desc ? e->desc : "");
    return 0;
}

/* Keeps the first failure of this rank: "PATH: WHAT NAME: HDF5's innermost description". */
static void fail(par_file *pf, const char *what, const char *name)
{
    if (pf->failed)
        return;
    char detail[160] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, detail);
    error_line(pf->err, pf->errlen, "%s: parallel HDF5: %s %s: %s", pf->path, what, name,
               detail[0] ? detail : "failed");
    pf->failed = true;
}

static hid_t access_plist(MPI_Comm comm)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    /* HDF5's own flock is off as in the serial writer (rank 0 holds the commit's lock). */
    if (H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0 ||
        H5Pset_file_locking(fapl, false, true) < 0 ||
        H5Pset_fclose_degree(fapl, H5F_CLOSE_SEMI) < 0 ||
        H5Pset_all_coll_metadata_ops(fapl, true) < 0 || H5Pset_coll_metadata_write(fapl, true) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

/* This rank's rows over a column's dataspace: its items' row ranges, adjacent ones merged. */
static hid_t select_rows(size_t rows, const sweep_item *items, size_t n)
{
    hid_t space = h5_layout_column_space(rows);
    if (space < 0 || H5Sselect_none(space) < 0)
        return -1;
    for (size_t i = 0; i < n;) {
        hsize_t start = items[i].row0, count = items[i].lanes;
        for (i++; i < n && items[i].row0 == start + count; i++)
            count += items[i].lanes;
        if (H5Sselect_hyperslab(space, H5S_SELECT_OR, &start, NULL, &count, NULL) < 0) {
            H5Sclose(space);
            return -1;
        }
    }
    return space;
}

/* Creates column `name` as the serial writer does and, if data is given, writes this rank's
 * rows of it collectively (the arrays hold every row at its own index, so the memory selection
 * is the file's). Called after a failure too: the other ranks wait in the collective calls. */
static void write_column(par_file *pf, const char *name, hid_t ftype, hid_t mtype, bool filtered,
                         const void *data)
{
    hid_t space = h5_layout_column_space(pf->rows);
    hid_t dcpl = h5_layout_column_plist(pf->rows, H5Tget_size(ftype), filtered), dset = -1;
    if (space >= 0 && dcpl >= 0)
        dset = H5Dcreate2(pf->group, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0)
        fail(pf, "creating column", name);
    else if (data && pf->rows &&
             H5Dwrite(dset, mtype, pf->rows_here, pf->rows_here, pf->dxpl, data) < 0)
        fail(pf, "writing column", name);
    H5E_BEGIN_TRY {
        H5Dclose(dset);
        H5Pclose(dcpl);
        H5Sclose(space);
    } H5E_END_TRY;
}

/* The bool type, committed at its first use as in the serial writer (its group made by the
 * link creation property). */
static hid_t shared_bool_type(par_file *pf)
{
    if (pf->bool_type < 0) {
        pf->bool_type = h5_layout_bool_type();
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        if (pf->bool_type < 0 || lcpl < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0 ||
            H5Tcommit2(pf->file, H5_LAYOUT_BOOL_PATH, pf->bool_type, lcpl, H5P_DEFAULT,
                       H5P_DEFAULT) < 0)
            fail(pf, "committing type", H5_LAYOUT_BOOL_PATH);
        H5E_BEGIN_TRY {
            H5Pclose(lcpl);
        } H5E_END_TRY;
    }
    return pf->bool_type;
}

static void write_numeric_columns(par_file *pf, const sweep_points *p)
{
    for (size_t i = 0; i < sweep_points_ncolumns; i++) {
        const sweep_column *c = &sweep_points_columns[i];
        const void *data = sweep_column_data(p, c);
        if (c->type == SWEEP_F64)
            write_column(pf, c->name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, true, data);
        else if (c->type == SWEEP_I64)
            write_column(pf, c->name, H5T_STD_I64LE, H5T_NATIVE_INT64, true, data);
        else {
            hid_t bool_type = shared_bool_type(pf); /* stored as read: no conversion */
            write_column(pf, c->name, bool_type, bool_type, true, data);
        }
    }
}

/* The row scale's values (this rank's rows), `method` (created only), the numeric columns. */
static void write_points(par_file *pf, const sweep_points *p, const sweep_item *items, size_t n)
{
    int64_t *row_index = calloc(pf->rows ? pf->rows : 1, sizeof *row_index);
    if (!row_index) {
        error_line(pf->err, pf->errlen, "%s: out of memory for the row scale", pf->path);
        pf->failed = true;
    }
    for (size_t i = 0; row_index && i < n; i++)
        for (size_t r = items[i].row0; r < items[i].row0 + items[i].lanes; r++)
            row_index[r] = (int64_t)r;
    /* Every rank goes on after a failure of its own: the others are in the collective calls. */
    write_column(pf, "row", H5T_STD_I64LE, H5T_NATIVE_INT64, true, row_index);
    hid_t string_type = h5_layout_string_type();
    if (string_type < 0)
        fail(pf, "making the string type for", "method");
    write_column(pf, "method", string_type, string_type, false, NULL);
    H5E_BEGIN_TRY {
        H5Tclose(string_type);
    } H5E_END_TRY;
    free(row_index);
    write_numeric_columns(pf, p);
}

static void open_points(par_file *pf, MPI_Comm comm, const sweep_item *items, size_t n)
{
    hid_t fcpl = h5_layout_file_plist(), fapl = access_plist(comm), gcpl = h5_layout_group_plist();
    if (fcpl >= 0 && fapl >= 0)
        pf->file = H5Fcreate(pf->path, H5F_ACC_TRUNC, fcpl, fapl);
    if (pf->file < 0)
        fail(pf, "creating", "the file");
    else if (gcpl < 0 || (pf->group = H5Gcreate2(pf->file, "points", H5P_DEFAULT, gcpl,
                                                 H5P_DEFAULT)) < 0)
        fail(pf, "creating group", "points");
    pf->dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (pf->dxpl < 0 || H5Pset_dxpl_mpio(pf->dxpl, H5FD_MPIO_COLLECTIVE) < 0)
        fail(pf, "setting up", "collective transfers");
    if ((pf->rows_here = select_rows(pf->rows, items, n)) < 0)
        fail(pf, "selecting this rank's rows of", "points");
    H5E_BEGIN_TRY {
        H5Pclose(fcpl);
        H5Pclose(fapl);
        H5Pclose(gcpl);
    } H5E_END_TRY;
}

static void close_points(par_file *pf)
{
    H5E_BEGIN_TRY {
        H5Tclose(pf->bool_type);
        H5Sclose(pf->rows_here);
        H5Pclose(pf->dxpl);
        H5Gclose(pf->group);
    } H5E_END_TRY;
    if (pf->file >= 0 && H5Fflush(pf->file, H5F_SCOPE_GLOBAL) < 0)
        fail(pf, "flushing", "the file");
    if (pf->file >= 0 && H5Fclose(pf->file) < 0)
        fail(pf, "closing", "the file");
}

int h5par_write_points(MPI_Comm comm, const char *path, const sweep_points *p,
                       const sweep_item *items, size_t nitems, char *err, size_t errlen)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    par_file pf = {.path = path, .rows = p->rows, .file = -1, .group = -1, .dxpl = -1,
                   .bool_type = -1, .rows_here = -1, .err = err, .errlen = errlen};
    open_points(&pf, comm, items, nitems);
    if (pf.group >= 0 && pf.rows_here >= 0 && pf.dxpl >= 0)
        write_points(&pf, p, items, nitems);
    close_points(&pf);
    if (!pf.failed && test_fail("write")) {
        error_line(err, errlen, "%s: parallel HDF5: writing this rank's rows: failed "
                                "(OSCBENCH_TEST_FAIL=write)", path);
        pf.failed = true;
    }
    int failed = pf.failed, any_failed = 1;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
    return any_failed ? -1 : 0;
}
