/* rt_invariants CFG [FEAT] [LABEL]: open a partition set standalone and print
 * facts that do not depend on how nodes were numbered or partitioned, so two
 * partitionings of one graph (DGL's or ours, any formats) must print the same
 * line: node and edge counts, the sorted in-degree sequence, the multiset of
 * (feature row, label) and the multiset of edges as (source row, destination
 * row) pairs, all hashed. It also checks that sampling with fanout 2 returns
 * min(degree, 2) distinct edges drawn from each node's full in-edge list;
 * the number of violations is printed (0 expected). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/runtime.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t hash_bytes(const unsigned char *p, uint64_t n)
{
    uint64_t h = 0x243F6A8885A308D3ull ^ n;
    uint64_t i;

    for (i = 0; i < n; i++)
        h = dp_mix64(h ^ p[i]);
    return h;
}

int main(int argc, char **argv)
{
    struct dp_rt rt;
    struct dp_edges all, some;
    struct dp_sample_key key = { 5, 0, 0 };
    const char *feat = argc > 2 ? argv[2] : "feat";
    const char *label = argc > 3 ? argv[3] : "label";
    int64_t n, i, k, j, *ids, *deg, *sorted, *start, bad = 0, pos = 0;
    uint64_t *hrow, rb, lb, deghash = 0, rowsum = 0, edgesum = 0;
    void *rows = NULL, *labs = NULL;
    enum dp_dtype dt;
    int rc;

    if (argc < 2) {
        fprintf(stderr, "usage: rt_invariants CFG [FEAT] [LABEL]\n");
        return 2;
    }
    if ((rc = dp_rt_open_standalone(&rt, argv[1]))) {
        fprintf(stderr, "rt_invariants: %s\n", dp_errmsg());
        return 1;
    }
    n = rt.cfg.num_nodes;
    ids = dp_malloc_array((size_t)n + 1, 8);
    deg = dp_malloc_array((size_t)n + 1, 8);
    sorted = dp_malloc_array((size_t)n + 1, 8);
    start = dp_malloc_array((size_t)n + 1, 8);
    hrow = dp_malloc_array((size_t)n + 1, 8);
    if (!ids || !deg || !sorted || !start || !hrow) {
        fprintf(stderr, "rt_invariants: %s\n", dp_errmsg());
        return 1;
    }
    for (i = 0; i < n; i++)
        ids[i] = i;
    if ((rc = dp_rt_in_degree(&rt, ids, n, deg)) ||
        (rc = dp_rt_gather(&rt, 0, feat, ids, n, &rows, &rb, &dt)) ||
        (rc = dp_rt_gather(&rt, 0, label, ids, n, &labs, &lb, &dt)) ||
        (rc = dp_rt_sample(&rt, ids, n, -1, &key, &all)) ||
        (rc = dp_rt_sample(&rt, ids, n, 2, &key, &some))) {
        fprintf(stderr, "rt_invariants: %s\n", dp_errmsg());
        return 1;
    }
    memcpy(sorted, deg, (size_t)n * 8);
    qsort(sorted, (size_t)n, 8, cmp_i64);
    for (i = 0; i < n; i++)
        deghash = dp_mix64(deghash ^ (uint64_t)sorted[i]);
    for (i = 0; i < n; i++) {
        hrow[i] = hash_bytes((unsigned char *)rows + (uint64_t)i * rb, rb);
        rowsum += dp_mix64(
            hrow[i] ^ hash_bytes((unsigned char *)labs + (uint64_t)i * lb, lb));
    }
    for (i = 0; i < n; i++) {
        bad += all.counts[i] != deg[i];
        start[i] = pos;
        for (k = 0; k < all.counts[i]; k++, pos++)
            edgesum += dp_mix64(hrow[all.src[pos]] * 3 + hrow[i]);
    }
    bad += pos != rt.cfg.num_edges;
    for (i = 0, pos = 0; i < n; i++) {
        bad += some.counts[i] != (deg[i] < 2 ? deg[i] : 2);
        for (k = 0; k < some.counts[i]; k++, pos++) {
            int found = 0;
            for (j = 0; j < all.counts[i]; j++)
                found |= all.eid[start[i] + j] == some.eid[pos] &&
                         all.src[start[i] + j] == some.src[pos];
            bad += !found;
            bad += k && some.eid[pos] == some.eid[pos - 1];
        }
    }
    printf("nodes %" PRId64 " edges %" PRId64 " degrees %016" PRIx64
           " rows %016" PRIx64 " edges %016" PRIx64 " violations %" PRId64 "\n",
           n, rt.cfg.num_edges, deghash, rowsum, edgesum, bad);
    dp_edges_release(&all);
    dp_edges_release(&some);
    free(rows);
    free(labs);
    free(ids);
    free(deg);
    free(sorted);
    free(start);
    free(hrow);
    dp_rt_close(&rt);
    return 0;
}
