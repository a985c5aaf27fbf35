/* NumPy .npy arrays: mapped readers and streaming atomic writers. The
 * converted dataset and many inputs are plain .npy files. */
#ifndef DGLPART_NPY_H
#define DGLPART_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "dglpart/file.h"

#define DP_NPY_MAXDIM 8

enum dp_dtype {
    DP_BOOL,
    DP_I8,
    DP_U8,
    DP_I16,
    DP_U16,
    DP_I32,
    DP_U32,
    DP_I64,
    DP_U64,
    DP_F16,
    DP_F32,
    DP_F64
};

/* Bytes per element. */
size_t dp_dtype_size(enum dp_dtype t);
int dp_dtype_is_int(enum dp_dtype t);
/* The dtype numpy calls name ("int64", "float32", "bool"): 0, or
 * DP_EUNSUPPORTED naming it. */
int dp_dtype_from_name(const char *name, enum dp_dtype *t);
/* The element of type t at p (any alignment) as int64: floats truncated,
 * saturating, NaN and float16 give 0. */
int64_t dp_dtype_get_i64(enum dp_dtype t, const void *p);
/* The element of type t at p (any alignment) as double: float16 too, and
 * integers as dp_dtype_get_i64 reads them. */
double dp_dtype_get_f64(enum dp_dtype t, const void *p);

/* Parsed header of an .npy (little-endian, C order only). */
struct dp_npy_header {
    enum dp_dtype dtype;
    int ndim;
    int64_t shape[DP_NPY_MAXDIM];
    size_t data_offset; /* bytes before the first element */
    uint64_t count;     /* product of shape */
};

/* Parse the header at the start of buf (len bytes available; the header is
 * at most a few KiB). name is used in messages. 0 or DP_EFORMAT. */
int dp_npy_parse_header(const void *buf, size_t len, const char *name,
                        struct dp_npy_header *h);

/* A read-only mapped .npy; data points into the mapping. */
struct dp_npy {
    struct dp_map map;
    struct dp_npy_header h;
    const void *data;
};

/* Map and check a file: the data size must equal the header's shape. */
int dp_npy_open(struct dp_npy *a, const char *path);
void dp_npy_release(struct dp_npy *a);
/* Element i of an integer or bool array as int64. */
int64_t dp_npy_get_i64(const struct dp_npy *a, uint64_t i);

/* Check dtype and shape; a shape entry of -1 matches anything. On mismatch
 * DP_EFORMAT: "'path': expected int64 [2708], found float32 [2708, 3]". */
int dp_npy_expect(const struct dp_npy *a, const char *path, int ndtypes,
                  const enum dp_dtype *dtypes, int ndim, const int64_t *shape);

/* Streaming writer to path.tmp, renamed on commit. shape[0] may be -1: it is
 * then taken from the number of items written (rows of the other dims). */
struct dp_npy_writer {
    struct dp_afile af;
    enum dp_dtype dtype;
    int ndim;
    int64_t shape[DP_NPY_MAXDIM];
    uint64_t row_items; /* product of shape[1..] */
    uint64_t written;   /* items written */
    size_t header_len;
};

int dp_npy_writer_open(struct dp_npy_writer *w, const char *path,
                       enum dp_dtype dtype, int ndim, const int64_t *shape);
/* Append n items (not bytes). */
int dp_npy_writer_write(struct dp_npy_writer *w, const void *data, uint64_t n);
/* Put n items at item index first, straight to the file, from any thread;
 * a writer filled this way is never given dp_npy_writer_write, and its
 * shape is known up front. */
int dp_npy_writer_pwrite(struct dp_npy_writer *w, uint64_t first,
                         const void *data, uint64_t n);
/* Check the item count against the shape, patch the header, rename. */
int dp_npy_writer_commit(struct dp_npy_writer *w);
void dp_npy_writer_abort(struct dp_npy_writer *w);

/* The header dp_npy_writer_open writes for the shape (shape[0] >= 0), for
 * a file filled by other means: *len bytes (128 or 256) of out. */
int dp_npy_header(enum dp_dtype dtype, int ndim, const int64_t *shape,
                  char out[256], size_t *len);

/* Write a whole array at once. */
int dp_npy_write(const char *path, enum dp_dtype dtype, int ndim,
                 const int64_t *shape, const void *data);

/* "int64 [2708, 3]" into out. */
void dp_npy_describe(enum dp_dtype t, int ndim, const int64_t *shape, char *out,
                     size_t len);

#endif
