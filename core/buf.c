/* The capped growable buffer and checked allocation helpers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/error.h"

void dp_buf_init(struct dp_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max ? max : SIZE_MAX / 2;
}

void dp_buf_release(struct dp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void dp_buf_reset(struct dp_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

int dp_buf_grow(struct dp_buf *b, size_t n)
{
    size_t need, cap;
    char *p;

    if (n > b->max || b->len > b->max - n)
        return dp_error(DP_ETOOBIG,
                        "buffer would exceed its limit of %zu bytes", b->max);
    need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (!(p = dp_realloc_array(b->data, cap, 1)))
        return DP_ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int dp_buf_add(struct dp_buf *b, const void *p, size_t n)
{
    int rc = dp_buf_grow(b, n);

    if (rc)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int dp_buf_adds(struct dp_buf *b, const char *s)
{
    return dp_buf_add(b, s, strlen(s));
}

int dp_buf_addf(struct dp_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n, rc;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return dp_error(DP_EINVAL, "bad format string '%s'", fmt);
    rc = dp_buf_grow(b, (size_t)n);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *dp_buf_detach(struct dp_buf *b, size_t *len)
{
    char *p = b->data;

    if (len)
        *len = b->len;
    if (!p)
        p = dp_calloc(1, 1);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return p;
}

int dp_mul_size(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b)
        return dp_error(DP_ETOOBIG, "size %zu x %zu overflows", a, b);
    *out = a * b;
    return 0;
}
