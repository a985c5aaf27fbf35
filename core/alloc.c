/* The allocators every layer uses: failures become a recorded DP_ENOMEM
 * naming the size, so no caller writes its own "out of memory". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/ids.h"

void *dp_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p)
        dp_error(DP_ENOMEM, "out of memory allocating %zu bytes", n);
    return p;
}

void *dp_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);

    if (!p)
        dp_error(DP_ENOMEM, "out of memory allocating %zu x %zu bytes", count,
                 size);
    return p;
}

void *dp_malloc_array(size_t count, size_t size)
{
    size_t n = 0;

    if (dp_mul_size(count, size, &n))
        return NULL;
    return dp_malloc(n);
}

void *dp_realloc_array(void *p, size_t count, size_t size)
{
    size_t n = 0;
    void *q;

    if (dp_mul_size(count, size, &n))
        return NULL;
    q = realloc(p, n ? n : 1);
    if (!q)
        dp_error(DP_ENOMEM, "out of memory allocating %zu bytes", n);
    return q;
}

size_t dp_alloc_nr(size_t alloc, size_t nr)
{
    /* git's alloc_nr: half again, so n pushes cost O(n) copying */
    size_t n = alloc > SIZE_MAX / 3 - 16 ? nr : (alloc + 16) * 3 / 2;

    return n < nr ? nr : n;
}

int dp_grow_array(void *pp, size_t size, size_t nr, size_t *alloc)
{
    size_t n, bytes = 0;
    void *old, *p;
    int rc;

    if (nr <= *alloc)
        return 0;
    n = dp_alloc_nr(*alloc, nr);
    if ((rc = dp_mul_size(n, size, &bytes)) != 0)
        return rc;
    /* the caller's T * is read and written as bytes: no type punning */
    memcpy(&old, pp, sizeof(old));
    if (!(p = realloc(old, bytes ? bytes : 1)))
        return dp_error(DP_ENOMEM, "out of memory allocating %zu bytes", bytes);
    memcpy(pp, &p, sizeof(p));
    *alloc = n;
    return 0;
}

void dp_i64vec_release(struct dp_i64vec *a)
{
    free(a->v);
    a->v = NULL;
    a->n = a->alloc = 0;
}

char *dp_strdup(const char *s)
{
    char *p;

    if (!s)
        return NULL;
    p = strdup(s);
    if (!p)
        dp_error(DP_ENOMEM, "out of memory copying %zu bytes", strlen(s) + 1);
    return p;
}

int dp_ids_alloc(struct dp_ids *x, size_t n, int wide)
{
    x->wide = wide;
    x->a = dp_malloc_array(n + 1, wide ? 8 : 4);
    return x->a ? 0 : DP_ENOMEM;
}

void dp_ids_release(struct dp_ids *x)
{
    free(x->a);
    x->a = NULL;
}
