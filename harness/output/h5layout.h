/* How the results writer (h5out.c) lays out what it creates: the property lists and types, for
 * a second writer that must make the same file (the parallel /points writer, h5par.c). Needs
 * <hdf5.h>; every function returns a new id for the caller to close, or -1. */
#ifndef OSCBENCH_H5LAYOUT_H
#define OSCBENCH_H5LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include <hdf5.h>

/* The named type the bool columns share, committed on first use in a group of its own (made
 * then, as an intermediate group of the link). */
#define H5_LAYOUT_TYPES_GROUP "types"
#define H5_LAYOUT_BOOL_PATH H5_LAYOUT_TYPES_GROUP "/bool"

/* File creation: links and attributes tracked and indexed in creation order. */
hid_t h5_layout_file_plist(void);

/* A table's group: the same creation-order tracking. */
hid_t h5_layout_group_plist(void);

/* A 1-D column of `rows` elements of elem_size bytes: chunked, and shuffle + deflate(4) +
 * fletcher32 when filtered (strings are not: HDF5 refuses filters on variable-length data). */
hid_t h5_layout_column_plist(size_t rows, size_t elem_size, bool filtered);

/* The dataspace of a 1-D column of `rows` (a 0-row one unlimited, as its chunk needs). */
hid_t h5_layout_column_space(size_t rows);

/* The bool enum (int8 FALSE=0, TRUE=1) and the variable-length UTF-8 string type. */
hid_t h5_layout_bool_type(void);
hid_t h5_layout_string_type(void);

#endif
