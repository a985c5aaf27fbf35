/* Allocation that records DP_ENOMEM (with the size asked for) on failure,
 * so callers only return the code. Results are freed with free(). */
#ifndef DGLPART_ALLOC_H
#define DGLPART_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *dp_malloc(size_t n);
void *dp_calloc(size_t count, size_t size);
/* count * size, checked for overflow (DP_ETOOBIG) before allocating. */
void *dp_malloc_array(size_t count, size_t size);
/* p resized to count * size, checked as dp_malloc_array; on failure NULL
 * and p is left as it was (the caller still frees it). */
void *dp_realloc_array(void *p, size_t count, size_t size);
/* A copy of s; NULL for a NULL s (no error recorded then). */
char *dp_strdup(const char *s);

/* The capacity DP_ALLOC_GROW gives an array of capacity alloc that must
 * hold nr items: half again, at least nr. For arrays that grow together
 * or not through realloc (scratch files), so they share its policy. */
size_t dp_alloc_nr(size_t alloc, size_t nr);

/* Make room for nr items of size bytes in the array whose address is pp
 * (a T **) and whose capacity is *alloc: grows by half again (at least to
 * nr), checked for overflow. 0, or DP_ETOOBIG / DP_ENOMEM with the array
 * and *alloc unchanged. Use DP_ALLOC_GROW. */
int dp_grow_array(void *pp, size_t size, size_t nr, size_t *alloc);

/* git's ALLOC_GROW: room for nr items in the array x of capacity alloc
 * (a size_t); returns as dp_grow_array. nr is evaluated twice: the call is
 * made only when the array is full. */
#define DP_ALLOC_GROW(x, nr, alloc)                                            \
    ((size_t)(nr) > (alloc)                                                    \
         ? dp_grow_array(&(x), sizeof(*(x)), (size_t)(nr), &(alloc))           \
         : 0)

/* A growable array of int64_t; { NULL, 0, 0 } is empty. */
struct dp_i64vec {
    int64_t *v; /* [n] items, room for alloc (owned) */
    size_t n, alloc;
};

/* Append x: 0, or DP_ETOOBIG / DP_ENOMEM with the vector unchanged.
 * Inline: some callers push an item per edge. */
static inline int dp_i64vec_push(struct dp_i64vec *a, int64_t x)
{
    int rc = DP_ALLOC_GROW(a->v, a->n + 1, a->alloc);

    if (!rc)
        a->v[a->n++] = x;
    return rc;
}

/* Free the items; the vector is empty after. */
void dp_i64vec_release(struct dp_i64vec *a);

#endif
