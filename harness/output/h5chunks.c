/* Filtered chunks compressed on every thread: see h5chunks.h. */
#include "h5chunks.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* HDF5's Fletcher-32 (H5checksum.c): sums of big-endian 16-bit words, folded every 360 words so
 * that the 32-bit sums cannot overflow; an odd last byte counts as the high byte of a word. */
uint32_t h5_fletcher32(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint32_t sum1 = 0, sum2 = 0;
    for (size_t words = len / 2; words;) {
        size_t block = words > 360 ? 360 : words;
        words -= block;
        do {
            sum1 += (uint32_t)p[0] << 8 | p[1];
            sum2 += sum1;
            p += 2;
        } while (--block);
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if (len % 2) {
        sum1 += (uint32_t)p[0] << 8;
        sum2 += sum1;
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    return sum2 << 16 | sum1;
}

/* HDF5's shuffle filter: byte j of element i goes to j * n + i (no-op for 1-byte elements). */
static void shuffle(uint8_t *dst, const uint8_t *src, size_t n, size_t size)
{
    if (size == 1) {
        memcpy(dst, src, n);
        return;
    }
    for (size_t j = 0; j < size; j++)
        for (size_t i = 0; i < n; i++)
            dst[j * n + i] = src[i * size + j];
}

typedef struct chunk_buf {
    uint8_t *raw, *shuffled, *out; /* chunk_bytes, chunk_bytes, bound */
    size_t size;                   /* bytes of out in use */
} chunk_buf;

/* The stored form of one chunk: fletcher32(deflate(shuffle(raw))), the pipeline HDF5 applies
 * on write for shuffle + deflate + fletcher32 (read back in reverse). A partial last chunk is
 * zero-padded to the full chunk, as HDF5 stores edge chunks (the padding is never read). */
static int encode_chunk(chunk_buf *b, const uint8_t *src, size_t bytes, size_t chunk_bytes,
                        size_t elem_size, size_t bound, int level)
{
    memcpy(b->raw, src, bytes);
    memset(b->raw + bytes, 0, chunk_bytes - bytes);
    shuffle(b->shuffled, b->raw, chunk_bytes / elem_size, elem_size);
    uLongf out_len = (uLongf)(bound - 4);
    if (compress2(b->out, &out_len, b->shuffled, (uLong)chunk_bytes, level) != Z_OK)
        return -1;
    uint32_t sum = h5_fletcher32(b->out, out_len);
    for (int k = 0; k < 4; k++) /* little-endian, as the filter decodes it */
        b->out[out_len + (size_t)k] = (uint8_t)(sum >> (8 * k));
    b->size = (size_t)out_len + 4;
    return 0;
}

static void free_bufs(chunk_buf *bufs, size_t n)
{
    for (size_t i = 0; bufs && i < n; i++)
        free(bufs[i].raw), free(bufs[i].shuffled), free(bufs[i].out);
    free(bufs);
}

int h5_write_filtered_chunks(hid_t dset, const void *data, size_t rows, size_t width,
                             size_t elem_size, size_t rows_per_chunk, int level)
{
    if (!rows)
        return 0;
    const size_t row_bytes = width * elem_size, chunk_bytes = rows_per_chunk * row_bytes;
    const size_t nchunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
    const size_t bound = compressBound((uLong)chunk_bytes) + 4;
    /* a few chunks per thread in flight: enough to balance, little memory (~1 MiB each) */
    size_t inflight = 4 * (size_t)omp_get_max_threads();
    inflight = inflight < nchunks ? inflight : nchunks;
    chunk_buf *bufs = calloc(inflight, sizeof *bufs);
    bool ok = bufs != NULL;
    for (size_t i = 0; ok && i < inflight; i++)
        ok = (bufs[i].raw = malloc(chunk_bytes)) && (bufs[i].shuffled = malloc(chunk_bytes)) &&
             (bufs[i].out = malloc(bound));
    for (size_t c0 = 0; ok && c0 < nchunks; c0 += inflight) {
        const size_t n = nchunks - c0 < inflight ? nchunks - c0 : inflight;
        atomic_bool failed = false;
#pragma omp parallel for schedule(dynamic, 1)
        for (size_t i = 0; i < n; i++) {
            const size_t row0 = (c0 + i) * rows_per_chunk;
            const size_t nrows = rows - row0 < rows_per_chunk ? rows - row0 : rows_per_chunk;
            if (encode_chunk(&bufs[i], (const uint8_t *)data + row0 * row_bytes,
                             nrows * row_bytes, chunk_bytes, elem_size, bound, level))
                atomic_store(&failed, true);
        }
        ok = !atomic_load(&failed);
        /* HDF5 is not thread-safe: the chunks go in one by one, in order */
        for (size_t i = 0; ok && i < n; i++) {
            hsize_t offset[2] = {(hsize_t)((c0 + i) * rows_per_chunk), 0};
            ok = H5Dwrite_chunk(dset, H5P_DEFAULT, 0, offset, bufs[i].size, bufs[i].out) >= 0;
        }
    }
    free_bufs(bufs, inflight);
    return ok ? 0 : -1;
}
