/* Multi-layer neighbour sampling into DGL-style blocks: each layer's
 * destination nodes are the previous layer's sources, sources list the
 * destinations first, then new nodes in order of first appearance. */
#include <stdlib.h>
#include <string.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/runtime.h"

/* A set of node ids (open addressing; -1 = empty slot). */
struct idset {
    int64_t *keys;
    size_t mask;
};

static int idset_reset(struct idset *s, size_t want)
{
    size_t cap = 16;

    while (cap < 2 * want + 16)
        cap *= 2;
    if (cap - 1 != s->mask || !s->keys) {
        free(s->keys);
        if (!(s->keys = dp_malloc_array(cap, 8)))
            return DP_ENOMEM;
        s->mask = cap - 1;
    }
    memset(s->keys, 0xff, cap * 8);
    return 0;
}

/* 1 when id was new (and is now in the set). */
static int idset_add(struct idset *s, int64_t id)
{
    size_t h = (size_t)dp_mix64((uint64_t)id) & s->mask;

    while (s->keys[h] != -1) {
        if (s->keys[h] == id)
            return 0;
        h = (h + 1) & s->mask;
    }
    s->keys[h] = id;
    return 1;
}

void dp_blocks_release(struct dp_blocks *b)
{
    int l;

    if (!b)
        return;
    for (l = 0; b->b && l < b->num_layers; l++) {
        free(b->b[l].src_nodes);
        free(b->b[l].edge_src);
        free(b->b[l].edge_dst);
        free(b->b[l].edge_id);
    }
    free(b->b);
    memset(b, 0, sizeof(*b));
}

int dp_rt_sample_blocks(struct dp_rt *rt, const int64_t *seeds, int64_t n,
                        const int64_t *fanouts, int num_fanouts, uint64_t seed,
                        uint32_t epoch, struct dp_blocks *out)
{
    struct dp_fanout *f;
    int l, rc;

    if (num_fanouts < 1)
        return dp_error(DP_EINVAL, "no fanouts");
    if (!(f = dp_calloc((size_t)num_fanouts, sizeof(*f))))
        return DP_ENOMEM;
    for (l = 0; l < num_fanouts; l++)
        f[l].all = fanouts[l];
    rc = dp_rt_sample_blocks_typed(rt, seeds, n, f, num_fanouts, seed, epoch,
                                   out);
    free(f);
    return rc;
}

int dp_rt_sample_blocks_typed(struct dp_rt *rt, const int64_t *seeds, int64_t n,
                              const struct dp_fanout *fanouts, int num_fanouts,
                              uint64_t seed, uint32_t epoch,
                              struct dp_blocks *out)
{
    struct dp_blocks bs = { 0, NULL };
    struct idset set = { NULL, 0 };
    struct dp_edges e = { 0 };
    const int64_t *dst = seeds;
    int64_t ndst = n, i, j, o;
    int l, rc = DP_ENOMEM;

    if (num_fanouts < 1)
        return dp_error(DP_EINVAL, "no fanouts");
    if (!(bs.b = dp_calloc((size_t)num_fanouts, sizeof(*bs.b))))
        return DP_ENOMEM;
    bs.num_layers = num_fanouts;
    /* From the seeds (last layer, last fanout) towards the input. */
    for (l = num_fanouts - 1; l >= 0; l--) {
        struct dp_sample_key key = { seed, epoch, (uint32_t)l };
        struct dp_block *b = &bs.b[l];
        if ((rc = dp_rt_sample_typed(rt, dst, ndst, &fanouts[l], &key, &e)) ||
            (rc = idset_reset(&set, (size_t)(ndst + e.total))))
            goto out;
        rc = DP_ENOMEM;
        b->num_dst = ndst;
        b->num_edges = e.total;
        if (!(b->src_nodes =
                  dp_malloc_array((size_t)(ndst + e.total) + 1, 8)) ||
            !(b->edge_dst = dp_malloc_array((size_t)e.total + 1, 8)))
            goto out;
        memcpy(b->src_nodes, dst, (size_t)ndst * 8);
        for (i = 0; i < ndst; i++)
            idset_add(&set, dst[i]);
        b->num_src = ndst;
        for (i = 0, o = 0; i < ndst; i++)
            for (j = 0; j < e.counts[i]; j++, o++) {
                b->edge_dst[o] = dst[i];
                if (idset_add(&set, e.src[o]))
                    b->src_nodes[b->num_src++] = e.src[o];
            }
        b->edge_src = e.src;
        b->edge_id = e.eid;
        e.src = e.eid = NULL;
        dp_edges_release(&e);
        dst = b->src_nodes;
        ndst = b->num_src;
    }
    *out = bs;
    memset(&bs, 0, sizeof(bs));
    rc = 0;
out:
    free(set.keys);
    dp_edges_release(&e);
    dp_blocks_release(&bs);
    return rc;
}
