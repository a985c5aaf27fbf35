/* The multilevel partitioner's pieces (partition/multilevel.c), for
 * metis.c and the unit tests; not a public API. */
#ifndef DGLPART_ML_H
#define DGLPART_ML_H

#include <stdint.h>

#include <metis.h>

#include "dglpart/memory.h"

struct ml_cgraph;

/* A symmetric graph: xadj[n+1], adj[m], adjw[m] (NULL: every edge weighs
 * 1) and vw[n][ncon]. Node ids, weights and vw fit idx_t (int32); the
 * offsets are 64-bit, since a symmetrised graph of a billion edges holds
 * more than 2^31 entries. Only the coarsest graph is narrowed for METIS. */
struct ml_graph {
    idx_t n;
    int64_t *xadj;
    idx_t *adj, *adjw, *vw;
    /* the rows in a compressed graph instead (xadj, adj, adjw NULL): the
     * finest level made again for FM with its gain table, which reads
     * rows only through fm_row, cut_rows and rebalance */
    const struct ml_cgraph *cg;
};

/* Levels (and a fine graph) with this many adjacency entries rest in a
 * scratch file while other levels are worked on; smaller ones stay. */
#define ML_SPILL_MIN_ENTRIES ((size_t)8 << 20)

/* Disk the finest level's compressed copy (DP_LEAN_DISK) is planned to
 * take, and asked to find free: 3 bytes an entry (rmat 25 and 27 took
 * 2.26 and 2.41) and its 8-byte offsets. A copy that outgrows the room
 * fails, and the graph is symmetrised again instead. */
static inline int64_t ml_fine_copy_bytes(int64_t n, int64_t m)
{
    return 3 * m + 8 * (n + 1);
}

/* The most adjacency entries, and the most summed edge weight, METIS's
 * idx_t takes: INT32_MAX, or less under DGLPART_TEST_IDX_MAX, a test-only
 * switch that sends small graphs down the paths of huge ones. */
int64_t ml_idx_max(void);

/* The order FM's heap pops n nodes keyed keys[n] in, after building,
 * re-keying each node and removing drop[ndrop] (unit tests): the count
 * popped, into out[], or DP_ENOMEM. */
int ml_fm_heap_order(const int64_t *keys, idx_t n, const idx_t *drop,
                     idx_t ndrop, idx_t *out);

/* Free the arrays (for graphs the partitioner built). */
void ml_graph_release(struct ml_graph *g);

struct ml_cgraph;

/* Size-constrained label propagation: clus[n] gets each node's cluster (a
 * node id), no cluster above cap[j] on any constraint j except a single
 * node that alone exceeds it. Deterministic for a seed. With cg (g's lists
 * compressed, partition/cgraph.h; may be NULL), the rounds decode it
 * instead of reading g->adj: the same clusters. *rounds (may be NULL) gets
 * the label-propagation rounds run. */
int ml_cluster(const struct ml_graph *g, const struct ml_cgraph *cg, int ncon,
               const int64_t *cap, uint64_t seed, idx_t *clus, int *rounds);

/* Contract g by clus into *c (coarse ids in order of cluster id; vertex and
 * edge weights summed, no self-loops); map[n] gets each node's coarse id,
 * and so does clus (over the cluster ids).
 * With shed < 1, when c would keep more than shed of g's entries, coarse
 * edges of weight 1 are sampled (by a hash of their two ends and seed, so
 * both directions agree) to bring it near shed; heavier ones all stay.
 * With stall < 1, when c would still keep more than stall of g's entries
 * (estimated from a sample of its rows), nothing is built: c->n is 0.
 * c is owned by the caller (ml_graph_release). When scratch and spill are
 * given and the level could reach spill_min
 * entries, it is built in a scratch file in scratch; if it does reach
 * them, c->adj and c->adjw stay there, read-only (spill->fd >= 0: the
 * caller sets them to NULL and calls dp_spill_close before
 * ml_graph_release); else spill->fd is -1. With band_bytes, a level
 * built in a file reads g's rows in order, in sweeps, never at random
 * (for g's rows in a file beyond the cap on its mapped pages), two bands
 * of about band_bytes at a time. The graph is the same either way. */
int ml_contract(const struct ml_graph *g, int ncon, idx_t *clus, double shed,
                double stall, uint64_t seed, const char *scratch,
                size_t spill_min, size_t band_bytes, struct dp_spill *spill,
                struct ml_graph *c, idx_t *map);

/* A fine graph that can go once the first level is built and be made
 * again, the same, before the last refinement: while the levels are
 * worked on, its scratch file is not on the disk. keep (may be NULL) reads
 * what make will need from it, while its pages are still let go as the
 * levels' are; then drop lets it go. make sets fine's xadj and adj, or,
 * when cg_ok and it has a compressed copy, fine's cg. */
struct ml_fine_again {
    void (*keep)(void *arg);
    void (*drop)(void *arg);
    int (*make)(void *arg, struct ml_graph *fine, int cg_ok);
    void *arg;
};

/* What a run partitions for: ncon balance constraints, K parts, no
 * constraint above imbalance * total / K; the seed (-1: 1). */
struct ml_params {
    int ncon, K;
    double imbalance;
    int64_t seed;
};

/* How a run uses memory, decided by its caller: coarse levels of
 * spill_min adjacency entries or more rest in a scratch file in scratch
 * (dp_spill; NULL: none) while other levels are worked on; fine_spill,
 * when the caller spilled fine's arrays, is dropped once the first level
 * is built; with again, fine is dropped then and made again for its
 * refinement. With scratch, past level_rss_cap resident bytes of the
 * levels' file pages they are let go (0: all along; ml_level_rss_cap
 * gives the usual cap); nodes_per_part (0: 8000, fewer for large K) is
 * where coarsening stops. With compress, label propagation clusters each
 * level through a compressed copy of its lists (issue 36's first step;
 * the parts are the same). */
struct ml_policy {
    const char *scratch;
    size_t spill_min;
    struct dp_spill *fine_spill;
    const struct ml_fine_again *again;
    size_t level_rss_cap;
    int nodes_per_part;
    int compress;
};

/* The usual level_rss_cap: 1 GiB, whatever the memory. A quarter of the
 * machine's memory used to serve runs with room, since unmapping below
 * the working set made the threads fault the pages back. Contractions of
 * a level past the cap now read it in bands, so the cap no longer costs
 * time: rmat 25 x 12 lean, no --mem_limit, 332.8 s at a 4.0 GiB peak
 * against 335.3 s at 4.7 GiB. (At rmat 27 the levels' pages outran a
 * watch every 100 ms; every 10 ms, see design.md.) */
size_t ml_level_rss_cap(void);

/* Partition fine: coarsen until about nodes_per_part nodes a part (or a
 * stall), METIS_PartGraphKway on the coarsest graph, then project and
 * refine level by level (FM). part[n] gets the parts, *levels (may be
 * NULL) the number of coarse levels, *cut (may be NULL) the weight of
 * the edges between parts, as FM kept it (ml_cut's, without its sweep).
 * DP_EMETIS with the constraint, part and excess when balance cannot be
 * met. */
int ml_partition(const struct ml_graph *fine, const struct ml_params *pr,
                 const struct ml_policy *pol, idx_t *part, int *levels,
                 int64_t *cut);

/* The weight of g's edges between parts into *cut, on two threads; 0 or
 * DP_ENOMEM. */
int ml_cut(const struct ml_graph *g, const idx_t *part, int64_t *cut);

/* FM refinement of part[n] where the nodes from nfree on stay put (a
 * rank's ghosts, under mpirun): no part above maxw[K][ncon] on any
 * constraint; pw[K][ncon] the parts' weights, kept up to date. */
int ml_fm_fixed(const struct ml_graph *g, idx_t nfree, int ncon, int K,
                const int64_t *maxw, idx_t *part, int64_t *pw, uint64_t seed);

/* Bits of a hash table for len keys, probed linearly: the smallest power
 * of two at least twice len (short probes), 16 slots at least, 2^31 at
 * most. */
static inline uint32_t ml_table_bits(int64_t len)
{
    uint32_t bits = 4;

    while (bits < 31 && ((int64_t)1 << bits) < 2 * len)
        bits++;
    return bits;
}

/* Key x's first slot in a table of 2^bits slots, shift = 32 - bits
 * (Fibonacci hashing: the top bits of x times 2^32 / phi). */
static inline uint32_t ml_table_slot(int32_t x, uint32_t shift)
{
    return ((uint32_t)x * 2654435769u) >> shift;
}

/* A 64-bit mixer (murmur3's finaliser), cut to 32 bits: seeded ties and
 * samples that depend on ids, never on the order work is done in. */
static inline uint32_t ml_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

#endif
