/* Allocation that records DP_ENOMEM (with the size asked for) on failure,
 * so callers only return the code. Results are freed with free(). */
#ifndef DGLPART_ALLOC_H
#define DGLPART_ALLOC_H

#include <stddef.h>

void *dp_malloc(size_t n);
void *dp_calloc(size_t count, size_t size);
/* count * size, checked for overflow (DP_ETOOBIG) before allocating. */
void *dp_malloc_array(size_t count, size_t size);
/* A copy of s; NULL for a NULL s (no error recorded then). */
char *dp_strdup(const char *s);

#endif
