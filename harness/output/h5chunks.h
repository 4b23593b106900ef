/* Writing a filtered dataset's chunks compressed on every OpenMP thread.
 *
 * Deflate is most of the time spent writing a large results file (zlib, single-threaded inside
 * H5Dwrite: ~2/3 of a run of a million cheap lanes), so the results writer does the filter
 * pipeline itself, a batch of chunks at a time in parallel, and hands the encoded chunks to HDF5
 * in order with H5Dwrite_chunk. The datasets are exactly those H5Dwrite would make (the same
 * chunking and filters in the dataset's pipeline; any reader decodes and checks them). */
#ifndef OSCBENCH_H5CHUNKS_H
#define OSCBENCH_H5CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

/* HDF5's Fletcher-32 checksum of len bytes (what its fletcher32 filter stores and checks). */
uint32_t h5_fletcher32(const void *data, size_t len);

/* Writes rows x width elements of elem_size bytes (row-major, the file type's byte layout)
 * into dset, whose chunks are rows_per_chunk x width with the filters shuffle, deflate(level),
 * fletcher32 in that order. 0 or -1 (HDF5's error stack then says why). */
int h5_write_filtered_chunks(hid_t dset, const void *data, size_t rows, size_t width,
                             size_t elem_size, size_t rows_per_chunk, int level);

#endif
