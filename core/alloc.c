/* The allocators every layer uses: failures become a recorded DP_ENOMEM
 * naming the size, so no caller writes its own "out of memory". */
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/error.h"

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
