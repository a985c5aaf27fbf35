/* Counter-based random choice for the sampler: the neighbours picked for a
 * node are a pure function of (seed, epoch, layer, node id, degree, fanout),
 * so every process that owns the node picks the same ones, whatever the
 * number of parts, servers or trainers. */
#include <stdlib.h>
#include <string.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/runtime.h"

#define GOLDEN 0x9E3779B97F4A7C15ull

uint64_t dp_mix64(uint64_t x)
{
    x += GOLDEN;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Uniform in [0, bound) from 64 random bits (Lemire's multiply-shift; the
 * bias is below 2^-40 for any degree we can hold). */
static int64_t below(uint64_t r, int64_t bound)
{
    return (int64_t)(((unsigned __int128)r * (uint64_t)bound) >> 64);
}

/* Floyd's algorithm: k distinct positions of [0, n), kept sorted. */
static void floyd(uint64_t base, int64_t n, int64_t k, int64_t *out)
{
    int64_t j, m = 0, i = 0;

    for (j = n - k; j < n; j++, i++) {
        int64_t t = below(dp_mix64(base + (uint64_t)i * GOLDEN), j + 1);
        int64_t lo = 0, hi = m;
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (out[mid] < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < m && out[lo] == t) {
            t = j; /* already taken: j is new and the largest so far */
            lo = m;
        }
        memmove(out + lo + 1, out + lo, (size_t)(m - lo) * 8);
        out[lo] = t;
        m++;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int dp_sample_choose(const struct dp_sample_key *key, int64_t v, int64_t n,
                     int64_t k, int64_t *out, int64_t **scratch,
                     size_t *scratch_cap)
{
    uint64_t base = dp_mix64(
        key->seed ^ dp_mix64(((uint64_t)key->epoch << 32) | key->layer) ^
        dp_mix64((uint64_t)v * 3 + 1));
    int64_t drop = n - k, small = k < drop ? k : drop, i, j, o;
    int64_t *s;

    if (k <= 0)
        return 0;
    if (k >= n) {
        for (i = 0; i < n; i++)
            out[i] = i;
        return 0;
    }
    if ((size_t)small > *scratch_cap || !*scratch) {
        size_t cap = (size_t)small + 16;
        int64_t *ns = dp_malloc_array(cap, 8);
        if (!ns)
            return DP_ENOMEM;
        free(*scratch);
        *scratch = ns;
        *scratch_cap = cap;
    }
    s = *scratch;
    if (small <= 1024) {
        floyd(base, n, small, s);
    } else {
        /* Large picks: a sparse Fisher-Yates would need a map; a full one
         * over n is O(n), no worse than the output itself here. */
        int64_t *perm = dp_malloc_array((size_t)n, 8);
        if (!perm)
            return DP_ENOMEM;
        for (i = 0; i < n; i++)
            perm[i] = i;
        for (i = 0; i < small; i++) {
            int64_t t = i + below(dp_mix64(base + (uint64_t)i * GOLDEN), n - i);
            int64_t x = perm[i];
            perm[i] = perm[t];
            perm[t] = x;
        }
        memcpy(s, perm, (size_t)small * 8);
        free(perm);
        qsort(s, (size_t)small, 8, cmp_i64);
    }
    if (small == k) {
        memcpy(out, s, (size_t)k * 8);
        return 0;
    }
    /* More than half picked: s holds the dropped positions. */
    for (i = 0, j = 0, o = 0; i < n; i++) {
        if (j < small && s[j] == i) {
            j++;
            continue;
        }
        out[o++] = i;
    }
    return 0;
}
