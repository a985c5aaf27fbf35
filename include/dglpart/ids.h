/* An array of node or edge ids held as int32 where every id fits, else as
 * int64: half the memory below 2^31 nodes (or edges), one type to pass
 * around. Read and written through dp_ids_get/dp_ids_set. */
#ifndef DGLPART_IDS_H
#define DGLPART_IDS_H

#include <stddef.h>
#include <stdint.h>

struct dp_ids {
    void *a;  /* int32_t[] or int64_t[] (owned) */
    int wide; /* int64 */
};

/* Room for n ids, int64 when wide (else int32). 0 or DP_ENOMEM/ETOOBIG. */
int dp_ids_alloc(struct dp_ids *x, size_t n, int wide);
void dp_ids_release(struct dp_ids *x);

/* The range of ascending starts[0..n] holding id: i with starts[i] <= id
 * < starts[i + 1] (empty ranges share a start: the later one holds it).
 * Owners of id ranges, parts' blocks, chunks' rows. */
static inline int64_t dp_range_of(const int64_t *starts, int64_t n, int64_t id)
{
    int64_t lo = 0, hi = n;

    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;

        if (starts[mid] <= id)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static inline int64_t dp_ids_get(const struct dp_ids *x, size_t i)
{
    return x->wide ? ((const int64_t *)x->a)[i]
                   : (int64_t)((const int32_t *)x->a)[i];
}

static inline void dp_ids_set(struct dp_ids *x, size_t i, int64_t v)
{
    if (x->wide)
        ((int64_t *)x->a)[i] = v;
    else
        ((int32_t *)x->a)[i] = (int32_t)v;
}

#endif
