/* A growable byte buffer with a hard cap, for anything whose size comes from
 * input (after curl's dynbuf). The buffer owns its data. */
#ifndef DGLPART_BUF_H
#define DGLPART_BUF_H

#include "dglpart/alloc.h"

#include <stdarg.h>
#include <stddef.h>

struct dp_buf {
    char *data; /* NUL-terminated after any add; NULL while empty */
    size_t len;
    size_t cap;
    size_t max; /* adds that would pass this fail with DP_ETOOBIG */
};

/* Start empty with a cap of max bytes (0 means SIZE_MAX / 2). */
void dp_buf_init(struct dp_buf *b, size_t max);
/* Free the contents; the struct may be reused after dp_buf_init. */
void dp_buf_release(struct dp_buf *b);
/* Keep the allocation, drop the contents. */
void dp_buf_reset(struct dp_buf *b);
/* Make room for n more bytes; 0, DP_ENOMEM or DP_ETOOBIG. */
int dp_buf_grow(struct dp_buf *b, size_t n);
/* Append n bytes / a string / a formatted string; 0 or an error code. */
int dp_buf_add(struct dp_buf *b, const void *p, size_t n);
int dp_buf_adds(struct dp_buf *b, const char *s);
int dp_buf_addf(struct dp_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hand the data to the caller (free() it) and leave b empty. */
char *dp_buf_detach(struct dp_buf *b, size_t *len);

/* Overflow-checked size arithmetic: 0 and *out set, or DP_ETOOBIG. */
int dp_mul_size(size_t a, size_t b, size_t *out);

#endif
