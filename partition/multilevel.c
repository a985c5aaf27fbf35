/* The multilevel partitioner: size-constrained label propagation coarsens
 * the symmetrised graph level by level (every balance constraint a vector
 * weight summed per cluster, capped), METIS partitions only the coarsest
 * graph, and each level is projected back and refined by balance-aware
 * label propagation over the boundary. Sequential sweeps in a fixed order
 * make the result a function of the graph and the seed alone. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <metis.h>

#include "cgraph.h"
#include "dglpart/buf.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/memory.h"
#include "dglpart/parse.h"
#include "dglpart/progress.h"
#include "dglpart/thread.h"
#include "ml.h"

/* Coarsening stops at this many nodes per part, and at most COARSEST_MAX
 * nodes in all (METIS takes it from there; DGLPART_ML_NODES_PER_PART
 * overrides both, so tests can coarsen small graphs), or when a level
 * shrinks the graph by less than STALL. KaMinPar's contraction limit too:
 * against 8000, rmat21 K = 4 spent 0.7 s in METIS, not 2.5 s, for a cut
 * 0.09% lower over four seeds (K = 16: 17.4 s, not 21.9 s, +0.09%), and
 * meshes and rmat19 at K = 2..16 cut 0.7% less (geomean, 48 runs). */
#define NODES_PER_PART 2000
#define COARSEST_MAX 65536
#define STALL 0.9
#define MAX_LEVELS 40
#define LP_ROUNDS 4
/* label propagation batches: about n / LP_BATCHES nodes, within
 * [LP_BATCH_MIN, LP_BATCH_MAX]; a second thread from LP_THREAD_MIN
 * adjacency entries a batch */
#define LP_BATCHES 256
#define LP_BATCH_MIN 256
#define LP_BATCH_MAX (1 << 14)
#define LP_THREAD_MIN (1 << 14)
#define LEVEL_GROWTH 8.0
/* A level keeps at most about SHED of the adjacency entries of the one
 * before (unless its degree stays low, see unit_share): beyond that its
 * unit-weight edges are sampled. Graphs without community structure
 * (rmat) otherwise keep 85-95% of their entries a level until a few tens
 * of thousands of nodes are left (rmat25: levels of 762M, 752M, 686M and
 * 277M of 806M entries); heavier edges, the ones clusters form around,
 * all stay. */
#define SHED 0.5
#define NCUTS_MAX_ENTRIES (4 << 20)
#define REFINE_ROUNDS 4
/* FM: a pass stops after FM_STALL_MIN + n / FM_STALL_DIV moves that do not
 * improve on its best cut; passes stop when one saves less than 1 /
 * FM_MIN_GAIN of the cut, on graphs of more than FM_SMALL entries (on
 * rmat21 these bounds take a third off the refinement time of n / 30 and
 * 1 / 1000, for 0.03% more cut). Without a gain cache, nodes above
 * FM_DEGREE_MAX are not re-keyed when a neighbour moves (their key is
 * checked when they come up). */
#define FM_STALL_MIN 300
#define FM_STALL_DIV 100
#define FM_PASSES 8
#define FM_MIN_GAIN 300
/* On levels of FM_BIG nodes and more a pass must save 1 / FM_MIN_GAIN_BIG
 * of the cut for another to follow: there each second pass saved about a
 * tenth of the first, and on rmat 27 x 12 they took 160 s for 0.25% of the
 * cut (levels 2 to 0). */
#define FM_BIG (1 << 22)
#define FM_MIN_GAIN_BIG 30
#define FM_SMALL ((size_t)1 << 23)
#define FM_DEGREE_MAX 1000
/* FM's passes, the clustering's and the contraction's steps are logged
 * (-vv) on levels of this many nodes and more */
#define LOG_MIN (1 << 20)
/* on levels of this many nodes and more the heap is far out of cache, and
 * FM leaves keys that fall where they are (see fm_update): on rmat 23 x 12
 * levels 1 and 0 took 10-20% less time for 0.02% more cut; the small
 * graphs of t0206 keep every key fresh */
#define FM_LAZY_MIN (1 << 20)
/* loops reading an array at neighbours' ids ask for the entry this many
 * neighbours ahead */
#define AHEAD 16
/* FM's move loop asks for a neighbour's entries this many ahead */
#define FM_AHEAD 16
/* FM's heap is 4-ary: a node's children fill one cache line */
#define HEAP_D 4
/* and after scanning FM_WORK times the adjacency entries */
#define FM_WORK 2
#define FM_WORK_MIN (1 << 25)
/* a gain cache up to this many node-part entries */
#define FM_CACHE_MAX ((size_t)1 << 25)
/* Levels of this many nodes and more, with K >= 4 and a gain table, refine
 * in pairwise rounds: each round pairs the parts off, and each pair's FM
 * moves nodes between its two parts only. A move there changes only its
 * pair's table columns and part weights, so the pairs of a round run on
 * both threads with no locks, and the result does not depend on the
 * threads. Smaller levels keep k-way FM, whose moves may go anywhere. */
#define FM_PAIR_MIN (1 << 22)
/* Where the constraints count nodes, a pair's moves on the finest level
 * may fill a part past its bound by 1/FM_PAIR_OVER of it (only prefixes
 * within the bounds are kept), and that level refines in pairs from
 * FM_PAIR_MIN_COUNTS nodes, K >= 2. On rmat 21 (nodes only, K = 4, 8, 16)
 * the cut fell 34-55% below k-way FM's; pairs on the coarse levels too
 * made K = 8 cut 14% more than k-way, and rmat 23's level 1 save 1% of
 * what k-way FM saved. */
#define FM_PAIR_OVER 128
#define FM_PAIR_MIN_COUNTS (1 << 20)

struct level {
    struct ml_graph g; /* owned, except the finest level's arrays */
    idx_t *map;        /* [finer n] coarse id of each node of the finer level */
    struct dp_spill spill; /* adj and adjw, when spilled (fd >= 0) */
};

/* Coarsening and refinement read each level's file once or twice, and its
 * pages would stay in this process until the level goes: at rmat 27, 11 of
 * the 19.9 GiB peak RSS were the fine graph's pages. Past this many bytes
 * of file pages a thread unmaps the built levels' (they stay in the page
 * cache for the next read). */
#define LEVEL_RSS_CAP ((size_t)1 << 30)

size_t ml_level_rss_cap(void)
{
    return LEVEL_RSS_CAP;
}

struct level_pages {
    pthread_mutex_t mu;
    struct level *lv;
    struct dp_spill *fine;
    int top; /* lv[1..top] are built and mapped */
};

static void drop_level_pages(void *arg)
{
    struct level_pages *d = arg;
    int i;

    pthread_mutex_lock(&d->mu);
    if (d->fine)
        dp_spill_drop(d->fine);
    for (i = 1; i <= d->top; i++)
        if (d->lv[i].spill.fd >= 0)
            dp_spill_drop(&d->lv[i].spill);
    pthread_mutex_unlock(&d->mu);
}

static void set_top(struct level_pages *d, int top)
{
    pthread_mutex_lock(&d->mu);
    d->top = top;
    pthread_mutex_unlock(&d->mu);
}

int64_t ml_idx_max(void)
{
    int64_t x = INT32_MAX;

    dp_env_int("DGLPART_TEST_IDX_MAX", &x);
    return x;
}

/* Node-part entries up to which FM keeps a gain cache on g: FM_CACHE_MAX,
 * or a quarter of g's adjacency entries (a byte an entry, below what
 * coarsening held). On rmat25's finest level (33.5M nodes, 806M entries,
 * K = 4) the cache took refinement from 66 s (label propagation, then FM
 * without it) to 53 s, and the cut from 69.15% to 68.91%. The test knob
 * takes the large-graph path (label propagation, FM without cache) on
 * small graphs. */
static size_t fm_cache_max(int64_t m)
{
    int64_t x = -1;
    size_t quarter = (size_t)m / 4;

    if (!dp_env_int("DGLPART_TEST_FM_CACHE_MAX", &x) && x >= 0)
        return (size_t)x;
    return quarter > FM_CACHE_MAX ? quarter : FM_CACHE_MAX;
}

/* Whether FM keeps its gain table on n nodes, K parts and m entries. A
 * level's compressed rows serve only FM with its table, so every caller
 * that chooses between the two paths asks here. */
static int fm_table_fits(idx_t n, int K, int64_t m)
{
    return (size_t)n * (size_t)K <= fm_cache_max(m);
}

void ml_graph_release(struct ml_graph *g)
{
    free(g->xadj);
    free(g->adj);
    free(g->adjw);
    free(g->vw);
    memset(g, 0, sizeof(*g));
}

static inline idx_t ew(const struct ml_graph *g, int64_t k)
{
    return g->adjw ? g->adjw[k] : 1;
}

/* g's adjacency entries, in xadj or in its compressed graph. */
static inline int64_t g_entries(const struct ml_graph *g)
{
    return g->cg ? g->cg->m : g->xadj[g->n];
}

/* Where v's row starts: an entry, or a byte of the compressed graph (for
 * splitting work by size). */
static inline int64_t g_start(const struct ml_graph *g, idx_t v)
{
    return g->cg ? (int64_t)ml_cg_off(g->cg, v) : g->xadj[v];
}

/* Does adding node v's weights to cluster weights cw stay within cap? */
static inline int fits(const int64_t *cw, const idx_t *vw, const int64_t *cap,
                       int ncon)
{
    int j;

    for (j = 0; j < ncon; j++)
        if (vw[j] && cw[j] + vw[j] > cap[j])
            return 0;
    return 1;
}

static inline void add_w(int64_t *cw, const idx_t *vw, int ncon, int sign)
{
    int j;

    for (j = 0; j < ncon; j++)
        cw[j] += sign * (int64_t)vw[j];
}

/* fits and add_w for clusters, whose weights are idx_t: a cluster stays
 * within its cap (or is one node), and every cap and node weight fits
 * idx_t, as the coarse levels' node weights must (at rmat 27 int64
 * cluster weights took 2.1 GB more) */
static inline int fits_c(const idx_t *cw, const idx_t *vw, const int64_t *cap,
                         int ncon)
{
    int j;

    for (j = 0; j < ncon; j++)
        if (vw[j] && (int64_t)cw[j] + vw[j] > cap[j])
            return 0;
    return 1;
}

static inline void add_c(idx_t *cw, const idx_t *vw, int ncon, int sign)
{
    int j;

    for (j = 0; j < ncon; j++)
        cw[j] += sign * vw[j];
}

/* The ratings of the clusters around one node, summed edge weights by
 * cluster id. Over RMAP_DENSE ids, a hash table sized to the node's
 * degree: it stays in the caches however many clusters there are, where
 * an array over all of them, with its list of touched ids, takes 12 bytes
 * a node a thread (3.2 GB at rmat 27). Below, that array itself, which is
 * then faster: coarse levels are few nodes of high degree. used[] lists
 * the slots taken in first-touch order, the order the choice sees them
 * in, so the choices do not depend on the mode (DGLPART_TEST_RMAP_DENSE
 * moves the line, so tests hash small graphs too). */
#define RMAP_DENSE ((int64_t)1 << 22)

struct rmap {
    idx_t *key;   /* hashed: [cap] cluster, -1 free */
    int64_t *val; /* [cap]; dense: 0 free (edge weights are positive) */
    idx_t *used;  /* [cap] */
    idx_t n;
    int dense; /* slot = id */
    uint32_t shift, mask;
    size_t cap;
    int64_t dense_max; /* dense up to this many ids */
};

static void rmap_init(struct rmap *m)
{
    memset(m, 0, sizeof(*m));
    m->dense_max = RMAP_DENSE;
    dp_env_int("DGLPART_TEST_RMAP_DENSE", &m->dense_max);
}

static void rmap_release(struct rmap *m)
{
    int64_t dense_max = m->dense_max;

    free(m->key);
    free(m->val);
    free(m->used);
    memset(m, 0, sizeof(*m));
    m->dense_max = dense_max;
}

/* Ready for a row of deg entries with ids below nkeys, empty: hashed, the
 * first power of two at least twice deg of the slots (16 at least), so
 * small rows hash into a few cache lines. 0, or DP_ENOMEM (m is then
 * released). */
static int rmap_start(struct rmap *m, int64_t deg, int64_t nkeys)
{
    int dense = nkeys <= m->dense_max;
    uint32_t bits;
    size_t i, need;

    if (deg > nkeys)
        deg = nkeys;
    bits = ml_table_bits(deg);
    need = dense ? (size_t)nkeys + 1 : (size_t)1 << bits;
    if (m->cap < need || m->dense != dense) {
        rmap_release(m);
        m->dense = dense;
        m->cap = need;
        m->val = dense ? dp_calloc(need, sizeof(*m->val))
                       : dp_malloc_array(need, sizeof(*m->val));
        m->used = dp_malloc_array(need, sizeof(*m->used));
        if (!dense && (m->key = dp_malloc_array(need, sizeof(*m->key))))
            for (i = 0; i < need; i++)
                m->key[i] = -1;
        if (!m->val || !m->used || (!dense && !m->key)) {
            rmap_release(m);
            return DP_ENOMEM;
        }
    }
    m->mask = ((uint32_t)1 << bits) - 1;
    m->shift = 32 - bits;
    m->n = 0;
    return 0;
}

static inline idx_t rmap_key(const struct rmap *m, idx_t slot)
{
    return m->dense ? slot : m->key[slot];
}

/* Free one slot. */
static inline void rmap_drop(struct rmap *m, idx_t slot)
{
    if (m->dense)
        m->val[slot] = 0;
    else
        m->key[slot] = -1;
}

/* Empty again after the row, slot by slot. */
static inline void rmap_clear(struct rmap *m)
{
    idx_t t;

    for (t = 0; t < m->n; t++)
        rmap_drop(m, m->used[t]);
    m->n = 0;
}

/* c's slot, or the free one where it would go. */
static inline idx_t rmap_slot(const struct rmap *m, idx_t c)
{
    uint32_t i = ml_table_slot(c, m->shift);

    while (m->key[i] != c && m->key[i] >= 0)
        i = (i + 1) & m->mask;
    return (idx_t)i;
}

static inline void rmap_add(struct rmap *m, idx_t c, int64_t w)
{
    idx_t i;

    if (m->dense) {
        if (!m->val[c])
            m->used[m->n++] = c;
        m->val[c] += w;
        return;
    }
    i = rmap_slot(m, c);
    if (m->key[i] < 0) {
        m->key[i] = c;
        m->val[i] = w;
        m->used[m->n++] = i;
    } else {
        m->val[i] += w;
    }
}

static inline int64_t rmap_get(const struct rmap *m, idx_t c)
{
    idx_t i;

    if (m->dense)
        return m->val[c];
    i = rmap_slot(m, c);
    return m->key[i] < 0 ? 0 : m->val[i];
}

/* The largest degree of g's nodes. */
static int64_t max_degree(const struct ml_graph *g)
{
    int64_t d = 0;
    idx_t v;

    for (v = 0; v < g->n; v++)
        if (g->xadj[v + 1] - g->xadj[v] > d)
            d = g->xadj[v + 1] - g->xadj[v];
    return d;
}

static int64_t g_start_at(const void *g, int64_t v)
{
    return g_start(g, (idx_t)v);
}

/* The node in [v0, v1] that splits the adjacency entries of v0..v1-1 in
 * half: two threads then get about the same work. */
static idx_t half_entries(const struct ml_graph *g, idx_t v0, idx_t v1)
{
    return (idx_t)dp_half_by(g_start_at, g, v0, v1);
}

/* Nodes in a label-propagation batch: fixed by n alone, so the result does
 * not depend on the number of threads. */
static idx_t lp_batch(idx_t n)
{
    idx_t batch = n / LP_BATCHES;

    if (batch < LP_BATCH_MIN)
        batch = LP_BATCH_MIN;
    return batch > LP_BATCH_MAX ? LP_BATCH_MAX : batch;
}

struct lp_job {
    const struct ml_graph *g;
    const struct ml_cgraph *cg; /* g's lists compressed, or NULL */
    int ncon;
    const int64_t *cap;
    const idx_t *cw, *clus;
    uint64_t seed;
    struct rmap *rate; /* own */
    idx_t *want;       /* [batch], shared, own slots only */
    idx_t base, v0, v1;
};

/* Sum into rate the edge weight from v to each cluster. */
static inline void rate_plain(const struct ml_graph *g, idx_t v,
                              const idx_t *clus, struct rmap *rate)
{
    int64_t k, k1 = g->xadj[v + 1], end = g->xadj[g->n] - 2 * AHEAD;

    if (!rate->dense) {
        for (k = g->xadj[v]; k < k1; k++) {
            /* clus[] is read at random: ask for a later entry's early,
             * past the row's end too (the next rows come next) */
            if (k < end)
                __builtin_prefetch(clus + g->adj[k + AHEAD]);
            rmap_add(rate, clus[g->adj[k]], ew(g, k));
        }
        return;
    }
    /* dense, the rating of a cluster is read at random too: ask for
     * clus[] twice as far ahead, and for the rating at the cluster of
     * the entry AHEAD on, whose clus[] was asked for AHEAD entries ago
     * (on level 1 of rmat 23 x 12, half the time of the choice was
     * waiting on the two) */
    for (k = g->xadj[v]; k < k1; k++) {
        if (k < end) {
            __builtin_prefetch(clus + g->adj[k + 2 * AHEAD]);
            __builtin_prefetch(rate->val + clus[g->adj[k + AHEAD]]);
        }
        rmap_add(rate, clus[g->adj[k]], ew(g, k));
    }
}

/* rate_plain from v's compressed list: the same sums. Its ids come
 * sorted, so the clusters may be met in another order; the choice does
 * not depend on it (the best rating, ties to the larger seeded hash)
 * unless two clusters tie on both. */
static inline void rate_cg(const struct ml_cgraph *cg, idx_t v,
                           const idx_t *clus, struct rmap *rate)
{
    struct ml_cg_it it;

    ml_cg_begin(&it, cg, v);
    while (ml_cg_next(&it))
        rmap_add(rate, clus[it.u], it.w);
}

/* One thread's share of a label-propagation batch: for nodes [v0, v1) the
 * cluster each would join, read from clus[] and cw[] as they were when the
 * batch began (want[v - base], -1: stay). Nothing shared is written, so
 * the choice does not depend on the other thread's timing. */
static void *lp_choose(void *arg)
{
    struct lp_job *j = arg;
    const struct ml_graph *g = j->g;
    const idx_t *clus = j->clus;
    struct rmap *rate = j->rate;
    int ncon = j->ncon;
    uint64_t seed = j->seed;
    idx_t v;

    for (v = j->v0; v < j->v1; v++) {
        const idx_t *vwv = g->vw + (size_t)v * ncon;
        idx_t own = clus[v], best = own, t;
        int64_t best_r, own_r;
        uint32_t best_h = 0;

        /* room for the largest row was made up front */
        (void)rmap_start(rate, g->xadj[v + 1] - g->xadj[v], g->n);
        if (j->cg)
            rate_cg(j->cg, v, clus, rate);
        else
            rate_plain(g, v, clus, rate);
        own_r = rmap_get(rate, own);
        best_r = own_r;
        /* the candidates' weights are read at random: ask for them all
         * first, so their misses overlap */
        for (t = 0; t < rate->n; t++)
            __builtin_prefetch(j->cw +
                               (size_t)rmap_key(rate, rate->used[t]) * ncon);
        for (t = 0; t < rate->n; t++) {
            idx_t s = rate->used[t], c = rmap_key(rate, s);
            int64_t r = rate->val[s];

            if (c == own || r < best_r)
                continue;
            if (!fits_c(j->cw + (size_t)c * ncon, vwv, j->cap, ncon))
                continue;
            /* ties: a seeded hash, so no id order is favoured */
            if (r > best_r || ml_mix(seed ^ ((uint64_t)c << 20) ^ v) > best_h) {
                best = c;
                best_r = r;
                best_h = ml_mix(seed ^ ((uint64_t)c << 20) ^ v);
            }
        }
        rmap_clear(rate);
        j->want[v - j->base] = best != own && best_r > own_r ? best : (idx_t)-1;
    }
    return NULL;
}

/* Size-constrained label propagation: each node joins the neighbouring
 * cluster it is most strongly tied to when that cluster stays within cap
 * on every constraint. clus[n] gets cluster ids in [0, n).
 * Nodes go in batches: two threads choose for the halves of a batch from
 * the state before it, then the moves are made in node order, each one
 * only if its cluster still has room. The result is the same with one
 * thread or two, whatever their timing. */
/* Move v from its cluster into cluster to. */
static void join(const struct ml_graph *g, int ncon, idx_t *cw, idx_t *clus,
                 idx_t v, idx_t to)
{
    const idx_t *vwv = g->vw + (size_t)v * ncon;

    add_c(cw + (size_t)clus[v] * ncon, vwv, ncon, -1);
    add_c(cw + (size_t)to * ncon, vwv, ncon, 1);
    clus[v] = to;
}

/* Label propagation rounds in batches, both threads choosing, one
 * applying in node order (so the clusters do not depend on timing);
 * returns the rounds run. */
static int lp_rounds(const struct ml_graph *g, struct lp_job *jb, idx_t batch,
                     idx_t *cw, idx_t *clus, double *t_apply)
{
    idx_t n = g->n, v;
    int round, ncon = jb[0].ncon;

    *t_apply = 0;
    for (round = 0; round < LP_ROUNDS; round++) {
        idx_t moved = 0, b0;

        for (b0 = 0; b0 < n; b0 += batch) {
            idx_t b1 = n - b0 < batch ? n : b0 + batch;
            idx_t mid = half_entries(g, b0, b1);
            double t0;

            jb[0].base = jb[1].base = b0;
            jb[0].v0 = b0;
            jb[0].v1 = jb[1].v0 = mid;
            jb[1].v1 = b1;
            dp_run_pair(lp_choose, &jb[0], &jb[1],
                        g->xadj[b1] - g->xadj[b0] >= LP_THREAD_MIN);
            t0 = dp_now();
            for (v = b0; v < b1; v++) {
                idx_t to = jb[0].want[v - b0];

                /* the clusters a move takes from and adds to lie anywhere
                 * in cw (3.2 GB at rmat 27): asked for ahead */
                if (v + AHEAD < b1 && jb[0].want[v + AHEAD - b0] >= 0) {
                    __builtin_prefetch(
                        cw + (size_t)jb[0].want[v + AHEAD - b0] * ncon, 1);
                    __builtin_prefetch(cw + (size_t)clus[v + AHEAD] * ncon, 1);
                }

                if (to < 0 ||
                    !fits_c(cw + (size_t)to * ncon, g->vw + (size_t)v * ncon,
                            jb[0].cap, ncon))
                    continue;
                join(g, ncon, cw, clus, v, to);
                moved++;
            }
            *t_apply += dp_now() - t0;
        }
        if (moved < n / 100 + 1)
            return round + 1;
    }
    return LP_ROUNDS;
}

/* Two-hop clustering (KaMinPar): a node left alone because the cluster it
 * prefers is full joins another lone node that prefers the same cluster.
 * size[] (zero) serves as cluster sizes, lead[] as each favourite's first
 * lone node. */
static void two_hop(const struct ml_graph *g, int ncon, const int64_t *cap,
                    idx_t *cw, idx_t *clus, idx_t *size, idx_t *lead)
{
    idx_t n = g->n, v;
    int64_t k;

    for (v = 0; v < n; v++)
        size[clus[v]]++;
    for (v = 0; v < n; v++)
        lead[v] = -1;
    for (v = 0; v < n; v++) {
        idx_t fav = -1, l;
        int64_t best = 0;

        if (size[clus[v]] != 1 || clus[v] != v)
            continue;
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            if (ew(g, k) > best ||
                (ew(g, k) == best && clus[g->adj[k]] < fav)) {
                best = ew(g, k);
                fav = clus[g->adj[k]];
            }
        if (fav < 0)
            continue;
        l = lead[fav];
        if (l < 0 || !fits_c(cw + (size_t)l * ncon, g->vw + (size_t)v * ncon,
                             cap, ncon)) {
            lead[fav] = v;
            continue;
        }
        join(g, ncon, cw, clus, v, l);
        size[v] = 0;
        size[l]++;
    }
}

/* Nodes with no neighbour never move: group them in id order up to the
 * cap, or they would stall coarsening (rmat graphs have many). */
static void group_isolated(const struct ml_graph *g, int ncon,
                           const int64_t *cap, idx_t *cw, idx_t *clus)
{
    idx_t group = -1, v;

    for (v = 0; v < g->n; v++) {
        if (g->xadj[v] != g->xadj[v + 1])
            continue;
        if (group >= 0 && fits_c(cw + (size_t)group * ncon,
                                 g->vw + (size_t)v * ncon, cap, ncon))
            join(g, ncon, cw, clus, v, group);
        else
            group = v;
    }
}

int ml_cluster(const struct ml_graph *g, const struct ml_cgraph *cg, int ncon,
               const int64_t *cap, uint64_t seed, idx_t *clus, int *rounds)
{
    idx_t n = g->n, v, batch = lp_batch(n);
    int64_t deg = max_degree(g);
    idx_t *cw = dp_calloc((size_t)n * (size_t)ncon + 1, sizeof(*cw));
    idx_t *want = dp_malloc_array((size_t)batch, sizeof(*want));
    idx_t *size = NULL, *lead = NULL;
    struct rmap rate[2];
    struct lp_job jb[2];
    int r, rc = DP_ENOMEM;
    double t[3], t_apply;

    rmap_init(&rate[0]);
    rmap_init(&rate[1]);
    if (!cw || !want || rmap_start(&rate[0], deg, n) ||
        rmap_start(&rate[1], deg, n))
        goto out;
    for (v = 0; v < n; v++) {
        clus[v] = v;
        add_c(cw + (size_t)v * ncon, g->vw + (size_t)v * ncon, ncon, 1);
    }
    jb[0] = (struct lp_job){ .g = g,
                             .cg = cg,
                             .ncon = ncon,
                             .cap = cap,
                             .cw = cw,
                             .clus = clus,
                             .seed = seed,
                             .rate = &rate[0],
                             .want = want };
    jb[1] = jb[0];
    jb[1].rate = &rate[1];
    t[0] = dp_now();
    r = lp_rounds(g, jb, batch, cw, clus, &t_apply);
    t[1] = dp_now();
    if (rounds)
        *rounds = r;
    rmap_release(&rate[0]);
    rmap_release(&rate[1]);
    size = dp_calloc((size_t)n + 1, sizeof(*size));
    lead = dp_malloc_array((size_t)n + 1, sizeof(*lead));
    if (!size || !lead)
        goto out;
    two_hop(g, ncon, cap, cw, clus, size, lead);
    t[2] = dp_now();
    group_isolated(g, ncon, cap, cw, clus);
    if (n >= LOG_MIN)
        dp_log(DP_LOG_VV,
               "clustering of %" PRId64 " nodes: label propagation %.2f s"
               " (applying %.2f s), two-hop %.2f s, isolated %.2f s",
               (int64_t)n, t[1] - t[0], t_apply, t[2] - t[1], dp_now() - t[2]);
    rc = 0;
out:
    free(cw);
    free(want);
    free(size);
    free(lead);
    rmap_release(&rate[0]);
    rmap_release(&rate[1]);
    return rc;
}

/* A thread's rows on their way to a scratch file: CT_BUF entries at a
 * time by pwrite, so the coarse level never sits in this process's memory
 * (on rmat 25 x 12 three levels of 690-760M entries each held about 6 GB
 * while being built). */
#define CT_BUF (1 << 15)

struct ct_file {
    struct dp_spill *sp;
    size_t adj_off, w_off; /* byte offsets of entry 0 of adj and adjw */
    int down;              /* rows go below lo, last row first */
    int64_t lo;            /* up: first entry buffered; down: end of them */
    int n, err;
    idx_t a[CT_BUF], w[CT_BUF];
};

static void ct_flush(struct ct_file *f)
{
    int64_t at = f->down ? f->lo - f->n : f->lo;
    const idx_t *a = f->down ? f->a + CT_BUF - f->n : f->a;
    const idx_t *w = f->down ? f->w + CT_BUF - f->n : f->w;
    size_t len = (size_t)f->n * sizeof(idx_t);

    if (!f->err && f->n)
        f->err = dp_spill_write(f->sp, f->adj_off + (size_t)at * sizeof(idx_t),
                                a, len) ||
                 dp_spill_write(f->sp, f->w_off + (size_t)at * sizeof(idx_t), w,
                                len);
    f->lo = f->down ? at : at + f->n;
    f->n = 0;
}

/* One thread's rows of a contraction: coarse nodes [c0, c1), written
 * from entry out on (c->xadj[cv] absolute), or with f->down, ending at
 * entry out, last row first; kept gets their entry count. */
struct ct_job {
    const struct ml_graph *g;
    struct ml_graph *c;
    int ncon;
    const idx_t *map, *start, *members;
    idx_t c0, c1;
    int64_t out, kept;
    int64_t wmax;        /* ml_idx_max() */
    struct rmap *acc;    /* own */
    struct ct_file *f;   /* NULL: into c->adj and c->adjw */
    uint64_t seed, keep; /* unit edges kept when their hash < keep */
    int err;
};

/* Row cv's unit edges in j->acc sampled: the hash of the unordered pair,
 * so both rows keep or drop it. With no branch on the outcome: about
 * half the unit edges go, at random, and the mispredicted branch cost
 * more than hashing every entry. A dropped slot is freed at once (no
 * lookup follows before the row is cleared): its weight 1 becomes 0, or
 * its key -1. */
static void ct_sample(struct ct_job *j, idx_t cv)
{
    struct rmap *acc = j->acc;
    idx_t nk = 0, t, n = acc->n, *used = acc->used;
    int64_t *val = acc->val;
    uint64_t keep = j->keep, seed = j->seed;

    if (keep >= ((uint64_t)1 << 32))
        return;
    for (t = 0; t < n; t++) {
        idx_t s = used[t], tt = rmap_key(acc, s), a = tt < cv ? tt : cv,
              b = tt < cv ? cv : tt;
        int drop = (val[s] == 1) &
                   (ml_mix(seed ^ ((uint64_t)a << 32) ^ (uint64_t)b) >= keep);

        if (acc->dense)
            val[s] -= drop;
        else
            acc->key[s] |= -drop;
        used[nk] = s;
        nk += !drop;
    }
    acc->n = nk;
}

/* One entry into f's buffer: after the others, or with f->down before
 * them. */
static inline void ct_file_put(struct ct_file *f, idx_t a, idx_t w)
{
    size_t at;

    if (f->n == CT_BUF)
        ct_flush(f);
    at = f->down ? CT_BUF - 1 - (size_t)f->n : (size_t)f->n;
    f->a[at] = a;
    f->w[at] = w;
    f->n++;
}

/* A summed edge weight as stored: past 2^31 fine edges one pair of
 * clusters could outweigh idx_t; at that weight the pair is tied either
 * way. */
static inline idx_t ct_weight(const struct ct_job *j, int64_t w)
{
    return (idx_t)(w < j->wmax ? w : j->wmax);
}

/* Row cv from the entries summed in j->acc: its unit edges sampled, then
 * placed at *m (moved past it; with f->down, before it) and j->acc
 * emptied. */
static void ct_put(struct ct_job *j, idx_t cv, int64_t *m)
{
    struct ml_graph *c = j->c;
    struct ct_file *f = j->f;
    struct rmap *acc = j->acc;
    int down = f && f->down;
    idx_t nt, t;

    ct_sample(j, cv);
    nt = acc->n;
    if (down)
        *m -= nt;
    c->xadj[cv] = *m;
    for (t = 0; t < nt; t++) {
        idx_t s = acc->used[down ? nt - 1 - t : t], tt = rmap_key(acc, s);
        idx_t wc = ct_weight(j, acc->val[s]);

        if (f) {
            ct_file_put(f, tt, wc);
        } else {
            c->adj[*m + t] = tt;
            c->adjw[*m + t] = wc;
        }
    }
    if (!down)
        *m += nt;
    rmap_clear(acc);
}

/* Member u's row, mapped to coarse ids, into acc; cv's own entries (the
 * cluster's inside edges) left out. */
static inline void ct_add_row(const struct ml_graph *g, const idx_t *map,
                              idx_t u, idx_t cv, struct rmap *acc)
{
    int64_t k, k1 = g->xadj[u + 1];

    for (k = g->xadj[u]; k < k1; k++) {
        idx_t cu = map[g->adj[k]];

        if (k + AHEAD < k1)
            __builtin_prefetch(map + g->adj[k + AHEAD]);
        if (cu != cv)
            rmap_add(acc, cu, ew(g, k));
    }
}

static void *ct_rows(void *arg)
{
    struct ct_job *j = arg;
    const struct ml_graph *g = j->g;
    struct ml_graph *c = j->c;
    struct ct_file *f = j->f;
    int64_t m = j->out;
    idx_t r;
    int ncon = j->ncon, down = f && f->down;

    for (r = j->c0; r < j->c1; r++) {
        idx_t cv = down ? j->c1 - 1 - (r - j->c0) : r, i;

        /* c->xadj[cv] holds its members' fine entries until set below */
        if (rmap_start(j->acc, c->xadj[cv], c->n)) {
            j->err = DP_ENOMEM;
            break;
        }
        for (i = j->start[cv]; i < j->start[cv + 1]; i++) {
            idx_t u = j->members[i];
            int x;

            /* members lie anywhere: the next one's row is asked for now */
            if (i + 1 < j->start[j->c1])
                __builtin_prefetch(g->adj + g->xadj[j->members[i + 1]]);
            for (x = 0; x < ncon; x++)
                c->vw[(size_t)cv * ncon + x] += g->vw[(size_t)u * ncon + x];
            ct_add_row(g, j->map, u, cv, j->acc);
        }
        ct_put(j, cv, &m);
    }
    if (f)
        ct_flush(f);
    j->kept = down ? j->out - m : m - j->out;
    return NULL;
}

/* The sample unit_share rates: fine entries of the rows taken, their
 * coarse entries, and those of weight 1. */
struct ct_count {
    int64_t fine, tot, unit;
};

/* Count the row summed in acc (d fine entries) and empty acc. */
static void ct_count_row(struct ct_count *n, struct rmap *acc, int64_t d)
{
    idx_t t;

    n->fine += d;
    n->tot += acc->n;
    for (t = 0; t < acc->n; t++)
        n->unit += acc->val[acc->used[t]] == 1;
    rmap_clear(acc);
}

/* A contraction whose fine rows lie in a scratch file reads them in order,
 * never at random: under the cap on mapped file pages a random read of a
 * member's row faulted again and again (rmat 27's first contraction: 850
 * s at 26,000 faults a second; rmat 23 with a 64 MiB cap: 58.8 s against
 * about 2). The coarse nodes go in bands of at most band_bytes: one sweep
 * of the fine rows copies the entries of a band's members, mapped, into
 * each coarse node's slice (members in id order, as ct_rows reads them, so
 * the sums meet the ids in the same order and the rows come out the
 * same); its rows are summed from there. One thread sums the band before
 * from its first row on, the other from its last row back, each of those
 * rows written over its own slice (rmat 27's first contraction: summing
 * took 59 s on one thread, gathering 36 s on two); they follow the others
 * into the file. Both then gather, one from the first fine rows on, the
 * other from the last back, filling each slice from its end, so the slice
 * reads in id order whichever thread took which rows. Only coarse ids
 * that are multiples of step are taken (a sample). */
struct ct_band {
    idx_t b0, b1;      /* its coarse ids: b0, b0 + step, ... below b1 */
    int64_t *at;       /* each slice's start: the rows before it, a fine row
                        * count each (nk + 1: the last one's end too) */
    int64_t *end;      /* each slice's first unfilled entry from the front */
    int64_t *beg;      /* and the first filled from the back (its end) */
    idx_t *ids, *ws;   /* the slices; ws only when g has edge weights */
    int64_t *put;      /* each row summed from the back: its entries, -1 to
                        * be summed again when put, or -2 - its entries when
                        * all its weights are 1 on a unit-weight level */
    idx_t *rw;         /* its half of the sweep's buffer (ct_w_after) */
    size_t rcap, rpos; /* room in rw; its rows' weights start at rpos */
    size_t room, nend;
    idx_t nk; /* its slices */
    idx_t kb; /* the first row summed from the back */
};

/* Fine rows are claimed in chunks of this many nodes, from the front by
 * one thread and from the back by the other. */
#define CT_CHUNK (1 << 16)

struct ct_sweep {
    const struct ml_graph *g;
    const idx_t *map;
    const int64_t *deg; /* each coarse node's fine entries, until summed */
    idx_t nc, step;
    size_t band_bytes;
    struct ct_job *j;     /* rows summed into j->acc and put, or */
    struct ct_count *cnt; /* counted there */
    struct ct_job *j2;    /* rows summed from the back into j2->acc */
    idx_t *rw;            /* weights of some of those (ct_w_after) */
    size_t rcap;          /* room in rw, split between the bands */
    /* between two steps (ct_ready): the rows from the back of pb to put,
     * then band gp to plan from coarse id g0 (plan_rc its result) */
    struct ct_band *pb, *gp;
    idx_t g0;
    int ready, busy, plan_rc;
    pthread_cond_t done;
    struct ct_band bd[2];
    pthread_mutex_t mu;
    idx_t lo, hi;           /* chunks [lo, hi) not yet claimed */
    idx_t sa, sb;           /* slices [sa, sb) of the band summed not yet
                             * claimed */
    int nbands;             /* out, for the log: bands, */
    double t_gather, t_sum; /* and thread-seconds gathering and summing */
};

/* The next band from coarse id b0 (rounded up to a multiple of step),
 * its slices' ends at their starts; 1 when none is left, DP_ENOMEM. */
static int ct_plan(struct ct_sweep *s, struct ct_band *b, idx_t b0)
{
    size_t per = s->g->adjw ? 2 * sizeof(idx_t) : sizeof(idx_t), k = 0;
    int64_t ent = 0;
    idx_t cv = (b0 + s->step - 1) / s->step * s->step;

    b->b0 = cv;
    if (cv >= s->nc)
        return 1;
    for (; cv < s->nc; cv += s->step) {
        if (k &&
            (size_t)(ent + s->deg[cv]) * per + (k + 1) * 2 * sizeof(int64_t) >
                s->band_bytes)
            break;
        ent += s->deg[cv];
        k++;
    }
    b->b1 = cv < s->nc ? cv : s->nc;
    if ((size_t)ent > b->room) {
        idx_t *ids = realloc(b->ids, ((size_t)ent + 1) * sizeof(idx_t)), *ws;

        if (ids)
            b->ids = ids;
        ws = s->g->adjw && ids
                 ? realloc(b->ws, ((size_t)ent + 1) * sizeof(idx_t))
                 : b->ws;
        if (ws)
            b->ws = ws;
        if (!ids || (s->g->adjw && !ws))
            return DP_ENOMEM;
        b->room = (size_t)ent;
    }
    if (k > b->nend) {
        int64_t *end = realloc(b->end, (k + 1) * sizeof(*end)), *beg, *at, *put;

        if (end)
            b->end = end;
        beg = end ? realloc(b->beg, (k + 1) * sizeof(*beg)) : NULL;
        if (beg)
            b->beg = beg;
        at = beg ? realloc(b->at, (k + 1) * sizeof(*at)) : NULL;
        if (at)
            b->at = at;
        put = at ? realloc(b->put, (k + 1) * sizeof(*put)) : NULL;
        if (!put)
            return DP_ENOMEM;
        b->put = put;
        b->nend = k;
    }
    b->nk = (idx_t)k;
    ent = 0;
    for (k = 0, cv = b->b0; cv < b->b1; cv += s->step, k++) {
        b->at[k] = b->end[k] = ent;
        ent += s->deg[cv];
        b->beg[k] = ent;
    }
    b->at[k] = ent;
    s->lo = 0;
    s->hi = (idx_t)(((int64_t)s->g->n + CT_CHUNK - 1) / CT_CHUNK);
    return 0;
}

/* The next chunk of fine rows, from the front or the back; -1: none. */
static idx_t ct_claim(struct ct_sweep *s, int back)
{
    idx_t c = -1;

    pthread_mutex_lock(&s->mu);
    if (s->lo < s->hi)
        c = back ? --s->hi : s->lo++;
    pthread_mutex_unlock(&s->mu);
    return c;
}

/* Row u's entries, mapped, into its slice if u's coarse node is in the
 * band, self-loops left out: forward from end[], or with back the row's
 * last entry first, backward from beg[]. */
static inline void ct_gather_row(const struct ct_sweep *s, struct ct_band *b,
                                 idx_t u, int back)
{
    const struct ml_graph *g = s->g;
    const idx_t *map = s->map;
    idx_t cv = map[u], i;
    int64_t k, k0, k1, p;

    if (cv < b->b0 || cv >= b->b1 || cv % s->step)
        return;
    i = (cv - b->b0) / s->step;
    k0 = g->xadj[u];
    k1 = g->xadj[u + 1];
    if (!back) {
        p = b->end[i];
        for (k = k0; k < k1; k++) {
            idx_t cu = map[g->adj[k]];

            if (k + AHEAD < k1)
                __builtin_prefetch(map + g->adj[k + AHEAD]);
            if (cu == cv)
                continue;
            b->ids[p] = cu;
            if (b->ws)
                b->ws[p] = ew(g, k);
            p++;
        }
        b->end[i] = p;
        return;
    }
    p = b->beg[i];
    for (k = k1 - 1; k >= k0; k--) {
        idx_t cu = map[g->adj[k]];

        if (k - AHEAD >= k0)
            __builtin_prefetch(map + g->adj[k - AHEAD]);
        if (cu == cv)
            continue;
        p--;
        b->ids[p] = cu;
        if (b->ws)
            b->ws[p] = ew(g, k);
    }
    b->beg[i] = p;
}

/* Sweeps of fine rows in chunks as claimed: the band's members' entries
 * into their slices. */
static void ct_gather(struct ct_sweep *s, struct ct_band *b, int back)
{
    idx_t c, u;

    while ((c = ct_claim(s, back)) >= 0) {
        idx_t u0 = (idx_t)((int64_t)c * CT_CHUNK),
              u1 = (int64_t)u0 + CT_CHUNK < s->g->n ? u0 + CT_CHUNK : s->g->n;

        if (back)
            for (u = u1; u-- > u0;)
                ct_gather_row(s, b, u, 1);
        else
            for (u = u0; u < u1; u++)
                ct_gather_row(s, b, u, 0);
    }
}

/* Slice k's entries: its row's, less the cluster's inside edges (from
 * the band alone: the other thread's puts overwrite deg). */
static inline int64_t ct_slice_len(const struct ct_band *b, idx_t k)
{
    return b->end[k] - b->at[k] + (b->at[k + 1] - b->beg[k]);
}

/* Slice k summed into j->acc; 0 or DP_ENOMEM. */
static int ct_sum_slice(const struct ct_sweep *s, const struct ct_band *b,
                        struct ct_job *j, idx_t k)
{
    int64_t p;

    if (rmap_start(j->acc, ct_slice_len(b, k), s->nc))
        return DP_ENOMEM;
    for (p = b->at[k]; p < b->end[k]; p++)
        rmap_add(j->acc, b->ids[p], b->ws ? b->ws[p] : 1);
    for (p = b->beg[k]; p < b->at[k + 1]; p++)
        rmap_add(j->acc, b->ids[p], b->ws ? b->ws[p] : 1);
    return 0;
}

/* Slices a claim takes at most. */
#define CT_SUM_CHUNK 64

/* The band's rows summed from their slices, from the first on as claimed,
 * then put or counted. */
static void ct_sum(struct ct_sweep *s, struct ct_band *b)
{
    struct ct_job *j = s->j;
    idx_t k, k1;

    for (;;) {
        pthread_mutex_lock(&s->mu);
        k = s->sa;
        k1 = s->sb - k > CT_SUM_CHUNK ? k + CT_SUM_CHUNK : s->sb;
        s->sa = k1;
        pthread_mutex_unlock(&s->mu);
        if (k >= k1)
            return;
        for (; k < k1; k++) {
            /* put sets c->xadj[cv], which may be deg */
            idx_t cv = b->b0 + k * s->step;
            int64_t d = s->deg[cv];

            if (ct_sum_slice(s, b, j, k)) {
                j->err = DP_ENOMEM;
                return;
            }
            if (s->cnt)
                ct_count_row(s->cnt, j->acc, d);
            else
                ct_put(j, cv, &j->out);
        }
    }
}

/* Where row k's weights wait once summed from the back: in ws, after
 * its ids in its slice, or (a unit-weight level, the row's ids and
 * weights past its slice) in the buffer. */
static inline int ct_w_after(const struct ct_band *b, idx_t k, int64_t nt)
{
    return !b->ws && 2 * nt <= b->at[k + 1] - b->at[k];
}

/* The band's rows summed from the last back as claimed, each written in
 * place: its ids over its own slice, its weights (none when all are 1 on
 * a unit-weight level) as ct_w_after says. After a row whose weights
 * find no room in the buffer (summed again when put), no more rows are
 * claimed. */
static void ct_sum_back(struct ct_sweep *s, struct ct_band *b)
{
    struct ct_job *j = s->j2;
    struct rmap *acc = j->acc;
    idx_t k0, k, t;
    int full = 0, ones;

    while (!full) {
        pthread_mutex_lock(&s->mu);
        k = s->sb;
        k0 = k - s->sa > CT_SUM_CHUNK ? k - CT_SUM_CHUNK : s->sa;
        s->sb = k0;
        pthread_mutex_unlock(&s->mu);
        if (k0 >= k)
            return;
        while (k-- > k0) {
            idx_t cv = b->b0 + k * s->step, *ids = b->ids + b->at[k], *ws;
            int64_t nt;

            if (ct_sum_slice(s, b, j, k)) {
                j->err = DP_ENOMEM;
                return;
            }
            ct_sample(j, cv);
            nt = acc->n;
            for (t = 0; !b->ws && t < nt && acc->val[acc->used[t]] == 1; t++)
                ;
            ones = !b->ws && t == nt;
            ws = b->ws                   ? b->ws + b->at[k]
                 : ones                  ? NULL
                 : ct_w_after(b, k, nt)  ? ids + nt
                 : (size_t)nt <= b->rpos ? b->rw + (b->rpos -= (size_t)nt)
                                         : NULL;
            b->put[k] = ones ? -2 - nt : ws ? nt : -1;
            full |= b->put[k] == -1;
            for (t = 0; b->put[k] != -1 && t < nt; t++) {
                idx_t sl = acc->used[t];

                ids[t] = rmap_key(acc, sl);
                if (ws)
                    ws[t] = ct_weight(j, acc->val[sl]);
            }
            rmap_clear(acc);
        }
    }
}

/* The rows ct_sum_back summed, after the others into the file (those it
 * could not keep summed again here); the band's buffer is then empty. */
static void ct_put_back(struct ct_sweep *s, struct ct_band *b)
{
    struct ct_job *j = s->j;
    struct ct_file *f = j->f;
    size_t p = b->rpos;
    idx_t k;

    for (k = b->kb; k < b->nk && !j->err; k++) {
        idx_t cv = b->b0 + k * s->step;
        const idx_t *ids = b->ids + b->at[k], *ws;
        int64_t t, nt = b->put[k];

        if (nt == -1) {
            if (ct_sum_slice(s, b, j, k))
                j->err = DP_ENOMEM;
            else
                ct_put(j, cv, &j->out);
            continue;
        }
        if (nt < 0)
            ws = NULL, nt = -2 - nt;
        else if (b->ws)
            ws = b->ws + b->at[k];
        else if (ct_w_after(b, k, nt))
            ws = ids + nt;
        else
            ws = b->rw + (p += (size_t)nt) - nt;
        j->c->xadj[cv] = j->out;
        for (t = 0; t < nt; t++)
            ct_file_put(f, ids[t], ws ? ws[t] : 1);
        j->out += nt;
    }
    b->rpos = b->rcap;
}

/* What lies between two steps, done once by the thread that comes first
 * while the other waits: the rows from the back of the band before put
 * (before the first row of the next is), then the next band planned in
 * that band's place (before it is gathered). Both threads thus sum before
 * they wait, and the puts' writes, which the page cache throttles on
 * large levels, overlap the other thread's sums (rmat 27's second
 * contraction: 52.4 s with them between the steps on one thread, 38.3 s
 * with one thread summing). */
static void ct_ready(struct ct_sweep *s)
{
    pthread_mutex_lock(&s->mu);
    if (!s->ready && !s->busy) {
        s->busy = 1;
        pthread_mutex_unlock(&s->mu);
        if (s->pb)
            ct_put_back(s, s->pb);
        if (s->gp)
            s->plan_rc = ct_plan(s, s->gp, s->g0);
        pthread_mutex_lock(&s->mu);
        s->pb = NULL;
        s->ready = 1;
        s->busy = 0;
        pthread_cond_broadcast(&s->done);
    }
    while (!s->ready)
        pthread_cond_wait(&s->done, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

/* A thread's share of a step: sum band sb (the one before), then gather
 * band gb. With back, it sums from the first row on and gathers from the
 * last fine rows back; without, it sums from the last row back (not when
 * the rows are only counted) and gathers from the first fine rows on. */
struct ct_step {
    struct ct_sweep *s;
    struct ct_band *gb, *sb; /* NULL: nothing */
    int back;
    double t_gather, t_sum; /* out */
};

static void *ct_step(void *arg)
{
    struct ct_step *t = arg;
    struct ct_job *j = t->back ? t->s->j : t->s->j2;
    double t0 = dp_now(), t1;

    if (t->sb && t->back) {
        ct_ready(t->s);
        ct_sum(t->s, t->sb);
    } else if (t->sb && j) {
        ct_sum_back(t->s, t->sb);
    }
    ct_ready(t->s);
    t1 = dp_now();
    /* each thread reads only the error its own sum may set */
    if (t->gb && !t->s->plan_rc && !(t->sb && j && j->err))
        ct_gather(t->s, t->gb, t->back);
    t->t_sum = t1 - t0;
    t->t_gather = dp_now() - t1;
    return NULL;
}

/* Every band, gathered and summed: 0 or DP_ENOMEM. */
static int ct_bands(struct ct_sweep *s)
{
    struct ct_step st[2] = { { .s = s }, { .s = s, .back = 1 } };
    struct ct_band *last = NULL;
    idx_t b0 = 0;
    int i = 0, rc = 0, two = s->g->xadj[s->g->n] >= LP_THREAD_MIN;

    memset(s->bd, 0, sizeof(s->bd));
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->done, NULL);
    s->pb = NULL;
    s->busy = 0;
    s->nbands = 0;
    s->t_gather = s->t_sum = 0;
    for (;;) {
        /* the next band, if a coarse id is left from b0 (planned within
         * the step, once its place is free) */
        struct ct_band *gb =
            (b0 + s->step - 1) / s->step * s->step < s->nc ? &s->bd[i] : NULL;

        if (!gb && !last)
            break;
        s->gp = gb;
        s->g0 = b0;
        s->plan_rc = 0;
        s->ready = 0;
        st[0].gb = st[1].gb = gb;
        /* gathered last step: summed now */
        st[0].sb = st[1].sb = last;
        if (last) {
            s->sa = 0;
            s->sb = last->nk;
            last->rw = s->rw + (size_t)(last - s->bd) * (s->rcap / 2);
            last->rcap = last->rpos = s->rcap / 2;
        }
        /* alone, the rows are summed from the back until one finds no
         * room, the rest from the front (tests take both ways so) */
        dp_run_pair(ct_step, &st[0], &st[1], two);
        s->nbands += gb != NULL;
        s->t_gather += st[0].t_gather + st[1].t_gather;
        s->t_sum += st[0].t_sum + st[1].t_sum;
        if (s->plan_rc || s->j->err || (s->j2 && s->j2->err)) {
            rc = s->plan_rc ? s->plan_rc : s->j->err ? s->j->err : s->j2->err;
            break;
        }
        if (gb)
            b0 = gb->b1;
        if (last && s->j2) {
            last->kb = s->sb;
            s->pb = last;
        }
        last = gb;
        i ^= 1;
    }
    if (!rc && s->pb) {
        s->gp = NULL;
        s->ready = 0;
        ct_ready(s);
        rc = s->j->err;
    }
    for (i = 0; i < 2; i++) {
        free(s->bd[i].at);
        free(s->bd[i].put);
        free(s->bd[i].end);
        free(s->bd[i].beg);
        free(s->bd[i].ids);
        free(s->bd[i].ws);
    }
    pthread_cond_destroy(&s->done);
    pthread_mutex_destroy(&s->mu);
    return rc;
}

/* Build the rows into a scratch file in dir: the first half's rows end
 * at entry sum (written last row first), the second's start there, so the
 * level is one run of entries with nothing to move, and the holes around
 * it cost no disk. Small levels (below spill_min entries) are then read
 * into memory. Nonzero when the file cannot be made or written (nothing
 * is left behind; c->vw is to be cleared before another try). */
static int ct_file(struct ct_job *jb, const struct ml_graph *g,
                   struct ml_graph *c, idx_t nc, const char *dir,
                   size_t spill_min, struct ct_sweep *sw, struct dp_spill *sp)
{
    size_t bytes = ((size_t)g->xadj[g->n] + 1) * sizeof(idx_t), len;
    struct ct_file *f = dp_calloc(2, sizeof(*f));
    int64_t lo, m;
    const idx_t *adj, *adjw;
    idx_t cv;
    int rc = DP_EIO;

    if (!f)
        return DP_ENOMEM;
    if (dp_spill_open(sp, dir))
        goto out;
    f[0].sp = f[1].sp = sp;
    if ((f[0].adj_off = dp_spill_room(sp, bytes)) == (size_t)-1 ||
        (f[0].w_off = dp_spill_room(sp, bytes)) == (size_t)-1)
        goto out;
    f[1].adj_off = f[0].adj_off;
    f[1].w_off = f[0].w_off;
    if (sw) {
        /* one run of rows from entry 0, put by the thread summing from
         * the front (those summed from the back follow) */
        sw->j = &jb[1];
        sw->j2 = &jb[0];
        jb[1].f = &f[1];
        jb[1].out = 0;
        rc = ct_bands(sw);
        ct_flush(&f[1]);
        jb[1].f = NULL;
        if (rc == DP_ENOMEM)
            jb[1].err = rc;
        rc = DP_EIO;
        if (jb[1].err || f[1].err)
            goto out;
        lo = 0;
        m = jb[1].out;
    } else {
        f[0].down = 1;
        f[0].lo = f[1].lo = jb[0].out = jb[1].out;
        jb[0].f = &f[0];
        jb[1].f = &f[1];
        dp_run_pair(ct_rows, &jb[0], &jb[1], g->xadj[g->n] >= LP_THREAD_MIN);
        jb[0].f = jb[1].f = NULL;
        jb[0].out = 0;
        if (f[0].err || f[1].err || jb[0].err || jb[1].err)
            goto out;
        lo = jb[1].out - jb[0].kept;
        m = jb[0].kept + jb[1].kept;
    }
    for (cv = 0; cv < nc; cv++)
        c->xadj[cv] -= lo;
    c->xadj[nc] = m;
    len = (size_t)m * sizeof(idx_t);
    if (!(adj = dp_spill_map(sp, f[0].adj_off + (size_t)lo * sizeof(idx_t),
                             len)) ||
        !(adjw =
              dp_spill_map(sp, f[0].w_off + (size_t)lo * sizeof(idx_t), len)))
        goto out;
    if ((size_t)m + 1 >= spill_min) {
        /* read-only: refinement only reads the graph */
        c->adj = (idx_t *)(uintptr_t)adj;
        c->adjw = (idx_t *)(uintptr_t)adjw;
        rc = 0;
        goto out;
    }
    c->adj = dp_malloc_array((size_t)m + 1, sizeof(idx_t));
    c->adjw = dp_malloc_array((size_t)m + 1, sizeof(idx_t));
    if (!c->adj || !c->adjw) {
        free(c->adj);
        free(c->adjw);
        c->adj = c->adjw = NULL;
        rc = DP_ENOMEM;
        goto out;
    }
    memcpy(c->adj, adj, len);
    memcpy(c->adjw, adjw, len);
    dp_spill_close(sp);
    rc = 0;
out:
    if (rc)
        dp_spill_close(sp);
    free(f);
    return rc;
}

/* The share of unit-weight coarse edges to keep so that the contraction
 * keeps about shed of g's entries, or DEGREE_GROWTH times g's average
 * degree if that is more (1: all), at least SAMPLE_MIN. Meshes keep
 * 60-80% of their entries a level (small clusters of low-degree nodes)
 * at a barely higher degree, and sampling them cost 1-4% of the cut on
 * mdual and wing; rmat's degree grows 3-5x a level. The coarse entries
 * are estimated from n, the count of every SAMPLE_STRIDE-th coarse
 * row, scaled by the fine entries those rows stand for; *est gets them,
 * after sampling. */
#define SAMPLE_STRIDE 16
#define SAMPLE_MIN 0.25
#define DEGREE_GROWTH 2.0
static double unit_share(const struct ml_graph *g, const struct ct_count *n,
                         idx_t nc, double shed, double *est)
{
    double scale, want, p;

    scale = n->fine ? (double)g->xadj[g->n] / (double)n->fine : 0.0;
    *est = (double)n->tot * scale;
    want = shed * (double)g->xadj[g->n];
    if (want < DEGREE_GROWTH * (double)g->xadj[g->n] / g->n * nc)
        want = DEGREE_GROWTH * (double)g->xadj[g->n] / g->n * nc;
    if (shed >= 1.0 || !n->unit || *est <= want)
        return 1.0;
    p = (want - (double)(n->tot - n->unit) * scale) / ((double)n->unit * scale);
    if (p < SAMPLE_MIN)
        p = SAMPLE_MIN;
    *est = (double)(n->tot - n->unit) * scale + p * (double)n->unit * scale;
    return p;
}

/* The sample's rows, read at random: 0 or DP_ENOMEM. */
static int sample_rows(const struct ml_graph *g, const idx_t *map,
                       const idx_t *start, const idx_t *members,
                       const int64_t *deg, idx_t nc, idx_t step,
                       struct rmap *acc, struct ct_count *n)
{
    idx_t cv, i;

    for (cv = 0; cv < nc; cv += step) {
        if (rmap_start(acc, deg[cv], nc))
            return DP_ENOMEM;
        for (i = start[cv]; i < start[cv + 1]; i++)
            ct_add_row(g, map, members[i], cv, acc);
        ct_count_row(n, acc, deg[cv]);
    }
    return 0;
}

/* Contract g by clus into *c: coarse ids in order of cluster id, summed
 * vertex and edge weights, no self-loops. map[n] gets each coarse id.
 * Two threads build the rows of the two halves of the coarse nodes (split
 * at half the fine entries), in memory the second half after an upper
 * bound of the first, then moved down: the same graph either way. */
/* Coarse ids in order of cluster id into map, and over clus (map serves
 * as the ids' table first: no third array of n, 512 MiB at rmat 27);
 * returns their count. */
static idx_t coarse_ids(idx_t n, idx_t *clus, idx_t *map)
{
    idx_t v, nc = 0;

    for (v = 0; v < n; v++)
        map[v] = -1;
    for (v = 0; v < n; v++)
        map[clus[v]] = 0;
    for (v = 0; v < n; v++)
        if (map[v] == 0)
            map[v] = nc++;
    for (v = 0; v < n; v++)
        clus[v] = map[clus[v]];
    memcpy(map, clus, (size_t)n * sizeof(*map));
    return nc;
}

/* Members of each coarse node (counting sort: members[start[c] ..
 * start[c + 1]]), their fine entries deg[c] (read in order here, where
 * the rows' own loops would read them at random: on a fine graph in a
 * scratch file, a fault each), and the coarse node where the second
 * thread starts: half the fine entries in the first half's members (*sum
 * of them). */
static void member_entries(const struct ml_graph *g, const idx_t *map, idx_t nc,
                           int64_t *deg)
{
    idx_t v;

    memset(deg, 0, (size_t)nc * sizeof(*deg));
    for (v = 0; v < g->n; v++)
        deg[map[v]] += g->xadj[v + 1] - g->xadj[v];
}

static idx_t group_members(const struct ml_graph *g, const idx_t *map, idx_t nc,
                           idx_t *start, idx_t *members, int64_t *deg,
                           int64_t *sum)
{
    idx_t v, cv, mid;
    int64_t half = g->xadj[g->n] / 2;

    member_entries(g, map, nc, deg);
    for (v = 0; v < g->n; v++)
        start[map[v] + 2]++;
    for (cv = 0; cv < nc; cv++)
        start[cv + 2] += start[cv + 1];
    for (v = 0; v < g->n; v++)
        members[start[map[v] + 1]++] = v;
    *sum = 0;
    for (mid = 0; mid < nc && *sum < half; mid++)
        *sum += deg[mid];
    return mid;
}

/* Both threads' rows into c in memory, the second half moved up behind
 * the first, the arrays shrunk to the entries kept. */
static int contract_in_memory(const struct ml_graph *g, struct ml_graph *c,
                              struct ct_job *jb, idx_t mid)
{
    idx_t nc = c->n, cv;
    size_t m;
    idx_t *a, *w;

    c->adj = dp_malloc_array((size_t)g->xadj[g->n] + 1, sizeof(idx_t));
    c->adjw = dp_malloc_array((size_t)g->xadj[g->n] + 1, sizeof(idx_t));
    if (!c->adj || !c->adjw)
        return DP_ENOMEM;
    dp_run_pair(ct_rows, &jb[0], &jb[1], g->xadj[g->n] >= LP_THREAD_MIN);
    if (jb[1].out != jb[0].kept) {
        memmove(c->adj + jb[0].kept, c->adj + jb[1].out,
                (size_t)jb[1].kept * sizeof(idx_t));
        memmove(c->adjw + jb[0].kept, c->adjw + jb[1].out,
                (size_t)jb[1].kept * sizeof(idx_t));
        for (cv = mid; cv < nc; cv++)
            c->xadj[cv] = c->xadj[cv] - jb[1].out + jb[0].kept;
    }
    c->xadj[nc] = jb[0].kept + jb[1].kept;
    m = (size_t)c->xadj[nc] + 1;
    if ((a = realloc(c->adj, m * sizeof(idx_t))))
        c->adj = a;
    if ((w = realloc(c->adjw, m * sizeof(idx_t))))
        c->adjw = w;
    return 0;
}

int ml_contract(const struct ml_graph *g, int ncon, idx_t *clus, double shed,
                double stall, uint64_t seed, const char *scratch,
                size_t spill_min, size_t band_bytes, struct dp_spill *spill,
                struct ml_graph *c, idx_t *map)
{
    idx_t n = g->n, nc, mid, v;
    idx_t *start = NULL, *members = NULL;
    int64_t sum = 0;
    double sample, est;
    struct rmap acc[2];
    struct ct_job jb[2];
    struct ct_count cnt = { 0, 0, 0 };
    struct ct_sweep sw = { .g = NULL };
    int rc = DP_ENOMEM, x;
    int64_t room = -1;
    double t[5] = { dp_now() }; /* then the ends of: ids, members, sample,
                                 * weights */

    memset(c, 0, sizeof(*c));
    rmap_init(&acc[0]);
    rmap_init(&acc[1]);
    if (spill)
        spill->fd = -1;
    nc = coarse_ids(n, clus, map);
    t[1] = dp_now();
    start = dp_calloc((size_t)nc + 2, sizeof(*start));
    members = dp_malloc_array((size_t)n + 1, sizeof(*members));
    c->xadj = dp_malloc_array((size_t)nc + 1, sizeof(*c->xadj));
    c->vw = dp_calloc((size_t)nc * (size_t)ncon + 1, sizeof(idx_t));
    if (!start || !members || !c->xadj || !c->vw)
        goto out;
    /* c->xadj holds each coarse node's fine entries until its row is
     * made, to size the row's map by */
    mid = group_members(g, map, nc, start, members, c->xadj, &sum);
    t[2] = dp_now();
    /* built in a file from rows in one: read in order (ct_bands) */
    band_bytes = spill && scratch && (size_t)g->xadj[n] + 1 >= spill_min
                     ? band_bytes
                     : 0;
    sw = (struct ct_sweep){ .g = g,
                            .map = map,
                            .deg = c->xadj,
                            .nc = nc,
                            .step = nc > 64 * SAMPLE_STRIDE ? SAMPLE_STRIDE : 1,
                            .band_bytes = band_bytes,
                            .j = &jb[0],
                            .cnt = &cnt };
    jb[0] = (struct ct_job){ .acc = &acc[0] };
    if (band_bytes ? ct_bands(&sw)
                   : sample_rows(g, map, start, members, c->xadj, nc, sw.step,
                                 &acc[0], &cnt))
        goto out;
    sample = unit_share(g, &cnt, nc, shed, &est);
    t[3] = t[4] = dp_now();
    if (stall < 1.0 && est > stall * (double)g->xadj[n]) {
        ml_graph_release(c); /* c->n 0: not built */
        rc = 0;
        goto out;
    }
    jb[0] = (struct ct_job){ .g = g,
                             .c = c,
                             .ncon = ncon,
                             .map = map,
                             .start = start,
                             .members = members,
                             .c0 = 0,
                             .c1 = mid,
                             .out = 0,
                             .wmax = ml_idx_max(),
                             .acc = &acc[0],
                             .seed = seed,
                             .keep = sample >= 1.0
                                         ? (uint64_t)1 << 32
                                         : (uint64_t)(sample * 4294967296.0) };
    jb[1] = jb[0];
    jb[1].c0 = mid;
    jb[1].c1 = nc;
    jb[1].out = sum;
    jb[1].acc = &acc[1];
    c->n = nc;
    /* the level would rest in a scratch file anyway: build it there */
    if (spill && scratch && (size_t)g->xadj[n] + 1 >= spill_min) {
        sw.step = 1;
        sw.cnt = NULL;
        /* the members' weights, summed as ct_rows would */
        for (v = 0; band_bytes && v < n; v++)
            for (x = 0; x < ncon; x++)
                c->vw[(size_t)map[v] * ncon + x] += g->vw[(size_t)v * ncon + x];
        /* on unit-weight levels some rows summed from a band's back keep
         * their weights in an eighth of its bytes, or in
         * DGLPART_TEST_CT_SUM_ROOM entries */
        sw.rcap = g->adjw ? 0 : band_bytes / 8 / sizeof(idx_t);
        if (!g->adjw && !dp_env_size("DGLPART_TEST_CT_SUM_ROOM", &room) &&
            room >= 0)
            sw.rcap = (size_t)room;
        if (sw.rcap && !(sw.rw = dp_malloc_array(sw.rcap, sizeof(idx_t))))
            sw.rcap = 0;
        t[4] = dp_now();
        if (!ct_file(jb, g, c, nc, scratch, spill_min, band_bytes ? &sw : NULL,
                     spill)) {
            rc = 0;
            goto out;
        }
        if (jb[0].err || jb[1].err)
            goto out;
        /* in memory after all, as when the file cannot be made (the
         * rows' sizes went where their offsets are) */
        memset(c->vw, 0, ((size_t)nc * (size_t)ncon + 1) * sizeof(idx_t));
        member_entries(g, map, nc, c->xadj);
        jb[1].out = sum;
    }
    rc = contract_in_memory(g, c, jb, mid);
    if (!rc && (jb[0].err || jb[1].err))
        rc = DP_ENOMEM;
out:
    if (!rc && c->n && n >= LOG_MIN)
        dp_log(DP_LOG_VV,
               "contraction of %" PRId64 " nodes: ids %.2f s, members %.2f s,"
               " sample %.2f s, weights %.2f s, rows %.2f s (%d bands:"
               " gathering %.2f s, summing %.2f s)",
               (int64_t)n, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3],
               dp_now() - t[4], sw.nbands, sw.t_gather, sw.t_sum);
    free(start);
    free(members);
    free(sw.rw);
    rmap_release(&acc[0]);
    rmap_release(&acc[1]);
    if (rc)
        ml_graph_release(c);
    return rc;
}

/* Part weights pw[K][ncon] of part[] on g. */
static void part_weights(const struct ml_graph *g, int ncon, int K,
                         const idx_t *part, int64_t *pw)
{
    idx_t v;

    memset(pw, 0, (size_t)K * (size_t)ncon * sizeof(*pw));
    for (v = 0; v < g->n; v++)
        add_w(pw + (size_t)part[v] * ncon, g->vw + (size_t)v * ncon, ncon, 1);
}

struct rf_job {
    const struct ml_graph *g;
    int ncon, K;
    const int64_t *maxw, *pw;
    const idx_t *part;
    int64_t *conn; /* [K] zero, own */
    idx_t *want;   /* [batch], shared, own slots only */
    idx_t base, v0, v1;
};

/* For each boundary node of [v0, v1): the part it is most connected to, if
 * more than to its own and within maxw, or -1. */
static void *rf_choose(void *arg)
{
    struct rf_job *j = arg;
    const struct ml_graph *g = j->g;
    const idx_t *part = j->part;
    int64_t *conn = j->conn;
    int ncon = j->ncon, p;
    idx_t v;
    int64_t k;

    for (v = j->v0; v < j->v1; v++) {
        const idx_t *vwv = g->vw + (size_t)v * ncon;
        idx_t own = part[v], best = own;
        int64_t best_c;
        int boundary = 0;

        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
            idx_t q = part[g->adj[k]];

            conn[q] += ew(g, k);
            boundary |= q != own;
        }
        best_c = conn[own];
        if (boundary)
            for (p = 0; p < j->K; p++)
                if (p != own && conn[p] > best_c &&
                    fits(j->pw + (size_t)p * ncon, vwv,
                         j->maxw + (size_t)p * ncon, ncon)) {
                    best = p;
                    best_c = conn[p];
                }
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            conn[part[g->adj[k]]] = 0;
        j->want[v - j->base] = best != own ? best : (idx_t)-1;
    }
    return NULL;
}

/* Balance-aware label propagation over the boundary: a node moves to the
 * part it is most connected to when that cuts fewer edges and keeps every
 * constraint of the target within maxw. In batches as ml_cluster does:
 * two threads choose from the state before the batch, the moves are made
 * in node order if the target still has room. conn[2][K] zero scratch. */
static int refine(const struct ml_graph *g, int ncon, int K,
                  const int64_t *maxw, idx_t *part, int64_t *pw, int64_t *conn)
{
    idx_t v, b0, batch = lp_batch(g->n);
    idx_t *want = dp_malloc_array((size_t)batch, sizeof(*want));
    struct rf_job jb[2];
    int round;

    if (!want)
        return DP_ENOMEM;
    jb[0] = (struct rf_job){ .g = g,
                             .ncon = ncon,
                             .K = K,
                             .maxw = maxw,
                             .pw = pw,
                             .part = part,
                             .conn = conn,
                             .want = want };
    jb[1] = jb[0];
    jb[1].conn = conn + K;
    for (round = 0; round < REFINE_ROUNDS; round++) {
        idx_t moved = 0;

        for (b0 = 0; b0 < g->n; b0 += batch) {
            idx_t b1 = g->n - b0 < batch ? g->n : b0 + batch;

            jb[0].base = jb[1].base = b0;
            jb[0].v0 = b0;
            jb[0].v1 = jb[1].v0 = half_entries(g, b0, b1);
            jb[1].v1 = b1;
            dp_run_pair(rf_choose, &jb[0], &jb[1],
                        g->xadj[b1] - g->xadj[b0] >= LP_THREAD_MIN);
            for (v = b0; v < b1; v++) {
                const idx_t *vwv = g->vw + (size_t)v * ncon;
                idx_t to = want[v - b0];

                if (to < 0 || !fits(pw + (size_t)to * ncon, vwv,
                                    maxw + (size_t)to * ncon, ncon))
                    continue;
                add_w(pw + (size_t)part[v] * ncon, vwv, ncon, -1);
                add_w(pw + (size_t)to * ncon, vwv, ncon, 1);
                part[v] = to;
                moved++;
            }
        }
        if (moved < g->n / 1000 + 1)
            break;
    }
    free(want);
    return 0;
}

/* A heap entry holds its key beside its node: a comparison reads the
 * entry, not key[node] elsewhere in memory. */
struct fm_ent {
    int64_t key; /* gain << 32 | seeded tie-break */
    idx_t v;
};

/* FM refinement (Fiduccia-Mattheyses, k-way): boundary nodes sit in a max
 * heap keyed by the gain of their best move that keeps the target within
 * maxw; the best is moved and locked even when its gain is negative, its
 * neighbours' keys are brought up to date, and after a run of moves that
 * do not beat the best cut so far, the moves past the best prefix are
 * undone. This climbs out of the local minima label propagation stops in. */
struct fm_move {
    idx_t v, from; /* a node moved, its part before */
};

/* FM's gain table: each node's edge weight to each part, so that a move
 * costs its degree times K and not the sum of its neighbours' degrees.
 * Rows of nodes whose weighted degree is below the narrow bound hold
 * 16-bit entries: half the memory, 1 GiB at rmat 27 x 12's finest level
 * with K = 4, where it made the peak. The other rows ("wide", a few hubs
 * on a fine level) hold idx_t in a table of their own; a wide node's
 * 16-bit row holds GT_ESC plus its index's high bits in entry 0, which a
 * narrow row never reaches, and the low 16 bits in entry 1. */
#define GT_ESC 0xFF00u
#define GT_WIDE_CAP ((size_t)(0x10000u - GT_ESC) << 16)
/* levels with more than this share of wide rows (coarse levels with heavy
 * edges) keep every row wide: the escapes would cost a miss a row */
#define GT_WIDE_SHARE 8

struct gtab {
    uint16_t *h; /* [n][K], or NULL: every row in w, at the node's id */
    idx_t *w;    /* [wide rows][K] */
    int K;
};

/* A node's row in the gain table: h or w. */
struct grow {
    uint16_t *h;
    idx_t *w;
};

static inline int gt_on(const struct gtab *t)
{
    return t->h || t->w;
}

/* Parts and table entries the other pair's thread may be reading while
 * this one writes them: relaxed atomics, plain moves on x86, so that the
 * compiler cannot rely on a value staying put. A thread reads another
 * pair's entries only to see that they are not its own (the part of a
 * neighbour, entry 0's escape, which a narrow row never reaches). */
static inline idx_t part_get(const idx_t *part, idx_t u)
{
    return __atomic_load_n(part + u, __ATOMIC_RELAXED);
}

static inline void part_set(idx_t *part, idx_t v, idx_t p)
{
    __atomic_store_n(part + v, p, __ATOMIC_RELAXED);
}

static inline struct grow gt_row(const struct gtab *t, idx_t v)
{
    struct grow r = { NULL, NULL };

    if (!t->h) {
        r.w = t->w + (size_t)v * t->K;
        return r;
    }
    r.h = t->h + (size_t)v * t->K;
    if (__atomic_load_n(r.h, __ATOMIC_RELAXED) >= GT_ESC) {
        r.w = t->w + ((size_t)(r.h[0] - GT_ESC) << 16 | r.h[1]) * t->K;
        r.h = NULL;
    }
    return r;
}

static inline idx_t gr_get(struct grow r, int p)
{
    return r.h ? r.h[p] : r.w[p];
}

static inline void gr_add(struct grow r, int p, idx_t d)
{
    if (r.h)
        __atomic_store_n(r.h + p, (uint16_t)(r.h[p] + d), __ATOMIC_RELAXED);
    else
        r.w[p] += d;
}

static void gt_release(struct gtab *t)
{
    free(t->h);
    free(t->w);
    t->h = NULL;
    t->w = NULL;
}

struct fm {
    struct fm_ent *heap; /* [hcap] HEAP_D-ary max heap, grown as keyed:
                            a pass keys the boundary, a small share of
                            the nodes on the finest levels */
    void *heap_mem;      /* heap's block, to free */
    size_t hcap;
    idx_t *pos;            /* [n] place in heap, -1 out, -2 moved this pass */
    struct fm_move *moved; /* this pass's moves in order, grown as made:
                              a pass moves a small share of the nodes */
    size_t capm;
    idx_t hn;
    int64_t work; /* adjacency entries scanned this pass */
    int K;
    struct gtab gt; /* the gain table, or none (gt_on) */
    idx_t nfree;    /* nodes from nfree on never move (a rank's ghosts) */
    int lazy;       /* keys that fall are left in the heap (big levels) */
    /* a pairwise round: [K] the part each part trades with (-1: none this
     * round), and [K] its pair's index; NULL: k-way */
    const idx_t *mate, *pair;
    /* pairwise: [K][ncon] the bounds a kept prefix keeps (maxw, or a part's
     * weight at the round's start when above it); the moves may pass them
     * by a little (the maxw the round is given), so that two full parts
     * can trade nodes. NULL: every move keeps maxw */
    const int64_t *keep;
    /* pairwise: this heap holds the nodes of part side, twin's those of
     * its mate; the pair's moves, work and figures are the lower part's */
    struct fm *twin;
    idx_t side;
    /* g's rows, when in this file beyond the pages a level may keep
     * mapped, are read with pread into rbuf: a move's row is a few
     * hundred bytes somewhere in gigabytes, and faulting it in cost a
     * page fault a row and the unmapping that kept the cap */
    const struct dp_spill *sp;
    idx_t *rbuf[2]; /* [0]: a moved node's row; [1]: best_move's */
    size_t rcap[2];
    /* the last pass, for the log */
    idx_t nheap, nmoves, nkept;
    int64_t nupd;
    const char *why;
    double t_keys, t_moves, t_idle; /* t_idle: pairwise, a thread's wait */
};

/* A node's row as FM reads it. */
struct fm_row {
    int64_t deg;
    const idx_t *adj, *w; /* w NULL: every weight 1 */
};

static inline idx_t row_w(const struct fm_row *r, int64_t i)
{
    return r->w ? r->w[i] : 1;
}

/* v's degree; through the file when xadj is in it. */
static int64_t fm_degree(const struct fm *f, const struct ml_graph *g, idx_t v)
{
    int64_t x[2];

    if (g->cg)
        return ml_cg_degree(g->cg, v);
    if (f->sp && !dp_spill_read(f->sp, g->xadj + v, x, sizeof(x)))
        return x[1] - x[0];
    return g->xadj[v + 1] - g->xadj[v];
}

/* v's row decoded from g->cg into rbuf[slot], which fm_refine made room
 * for (the longest row's ids and weights). */
static struct fm_row fm_crow(struct fm *f, const struct ml_graph *g, idx_t v,
                             int slot)
{
    struct fm_row r;
    struct ml_cg_it it = { 0 }; /* gcc misses that the first next sets it */
    idx_t *b = f->rbuf[slot];
    int64_t i = 0;

    ml_cg_begin(&it, g->cg, v);
    r.deg = it.left;
    while (ml_cg_next(&it)) {
        b[i] = it.u;
        b[r.deg + i++] = it.w;
    }
    r.adj = b;
    r.w = it.weighted ? b + r.deg : NULL;
    return r;
}

/* v's row: in place, or read from f->sp's file into rbuf[slot] (in place
 * still when the buffer cannot grow or the read fails). */
static struct fm_row fm_row(struct fm *f, const struct ml_graph *g, idx_t v,
                            int slot)
{
    struct fm_row r;
    int64_t x[2];
    size_t bytes;

    if (g->cg)
        return fm_crow(f, g, v, slot);
    if (!f->sp || dp_spill_read(f->sp, g->xadj + v, x, sizeof(x))) {
        x[0] = g->xadj[v];
        x[1] = g->xadj[v + 1];
    }
    r.deg = x[1] - x[0];
    r.adj = g->adj + x[0];
    r.w = g->adjw ? g->adjw + x[0] : NULL;
    bytes = (size_t)r.deg * sizeof(idx_t);
    if (f->sp && r.deg &&
        !DP_ALLOC_GROW(f->rbuf[slot], (size_t)r.deg * (r.w ? 2 : 1),
                       f->rcap[slot])) {
        idx_t *b = f->rbuf[slot];

        if (!dp_spill_read(f->sp, r.adj, b, bytes) &&
            (!r.w || !dp_spill_read(f->sp, r.w, b + r.deg, bytes))) {
            r.adj = b;
            r.w = r.w ? b + r.deg : NULL;
        }
    }
    return r;
}

/* a above b in the heap: a larger key, or the same and a smaller id, so
 * the order pops come in depends neither on the order keys were set in
 * nor on the heap's shape */
static inline int heap_above(const struct fm_ent *a, const struct fm_ent *b)
{
    return a->key > b->key || (a->key == b->key && a->v < b->v);
}

static void heap_up(struct fm *f, idx_t i)
{
    struct fm_ent e = f->heap[i];

    while (i > 0) {
        idx_t up = (i - 1) / HEAP_D;

        if (!heap_above(&e, &f->heap[up]))
            break;
        f->heap[i] = f->heap[up];
        f->pos[f->heap[i].v] = i;
        i = up;
    }
    f->heap[i] = e;
    f->pos[e.v] = i;
}

static void heap_down(struct fm *f, idx_t i)
{
    struct fm_ent e = f->heap[i];

    for (;;) {
        int64_t c = HEAP_D * (int64_t)i + 1, end, b, x;

        if (c >= f->hn)
            break;
        end = c + HEAP_D < f->hn ? c + HEAP_D : f->hn;
        for (b = c, x = c + 1; x < end; x++)
            if (heap_above(&f->heap[x], &f->heap[b]))
                b = x;
        if (!heap_above(&f->heap[b], &e))
            break;
        f->heap[i] = f->heap[b];
        f->pos[f->heap[i].v] = i;
        i = (idx_t)b;
    }
    f->heap[i] = e;
    f->pos[e.v] = i;
}

/* n entries whose groups of four children start on a cache line: the
 * block is 64-byte aligned and entry 0 sits 48 bytes in; *mem to free. */
static struct fm_ent *heap_alloc(size_t n, void **mem)
{
    *mem = NULL;
    if (n > SIZE_MAX / sizeof(struct fm_ent) - 3 ||
        posix_memalign(mem, 64, (n + 3) * sizeof(struct fm_ent))) {
        *mem = NULL;
        return NULL;
    }
    return (struct fm_ent *)*mem + 3;
}

/* Room for n entries in f's heap, its hn entries kept: 0 or DP_ENOMEM. */
static int heap_reserve(struct fm *f, size_t n)
{
    void *mem;
    struct fm_ent *h;

    if (n <= f->hcap)
        return 0;
    n = dp_alloc_nr(f->hcap, n);
    if (!(h = heap_alloc(n, &mem)))
        return DP_ENOMEM;
    if (f->hn)
        memcpy(h, f->heap, (size_t)f->hn * sizeof(*h));
    free(f->heap_mem);
    f->heap = h;
    f->heap_mem = mem;
    f->hcap = n;
    return 0;
}

/* Put v in the heap with key, or move it there: 0 or DP_ENOMEM. */
static int heap_set(struct fm *f, idx_t v, int64_t key)
{
    idx_t i = f->pos[v];

    if (i < 0) {
        if (heap_reserve(f, (size_t)f->hn + 1))
            return DP_ENOMEM;
        i = f->hn++;
        f->heap[i].v = v;
        f->heap[i].key = key;
        heap_up(f, i);
    } else if (key > f->heap[i].key) {
        f->heap[i].key = key;
        heap_up(f, i);
    } else {
        f->heap[i].key = key;
        heap_down(f, i);
    }
    return 0;
}

static void heap_remove(struct fm *f, idx_t v)
{
    idx_t i = f->pos[v];
    struct fm_ent last;

    f->pos[v] = -1;
    last = f->heap[--f->hn];
    if (last.v == v)
        return;
    f->heap[i] = last;
    f->pos[last.v] = i;
    heap_up(f, i);
    heap_down(f, f->pos[last.v]);
}

/* The heap of the hn entries in heap[], built bottom up. */
static void heap_build(struct fm *f)
{
    idx_t i;

    for (i = 0; i < f->hn; i++)
        f->pos[f->heap[i].v] = i;
    for (i = f->hn / HEAP_D + 1; i-- > 0;)
        if (i < f->hn)
            heap_down(f, i);
}

int ml_fm_heap_order(const int64_t *keys, idx_t n, const idx_t *drop,
                     idx_t ndrop, idx_t *out)
{
    struct fm f = { 0 };
    idx_t v, i;
    int rc = 0;

    /* the heap starts with room for half: the rest grows it */
    f.pos = dp_malloc_array((size_t)n + 1, sizeof(*f.pos));
    if (!f.pos || heap_reserve(&f, (size_t)n / 2 + 1)) {
        free(f.pos);
        free(f.heap_mem);
        return DP_ENOMEM;
    }
    /* the first half built bottom up, the rest set one by one; then every
     * key moved once (down for even ids) and back, and drop[] removed */
    for (v = 0; v < n; v++) {
        f.pos[v] = -1;
        if (v < n / 2)
            f.heap[f.hn++] = (struct fm_ent){ keys[v], v };
    }
    heap_build(&f);
    for (v = n / 2; v < n && !rc; v++)
        rc = heap_set(&f, v, keys[v]);
    for (v = 0; v < n && !rc; v++)
        if (!(rc = heap_set(&f, v, keys[v] + (v % 2 ? 1000 : -1000))))
            rc = heap_set(&f, v, keys[v]);
    if (rc) {
        free(f.pos);
        free(f.heap_mem);
        return rc;
    }
    for (i = 0; i < ndrop; i++)
        if (f.pos[drop[i]] >= 0)
            heap_remove(&f, drop[i]);
    for (i = 0; f.hn; i++) {
        out[i] = f.heap[0].v;
        heap_remove(&f, out[i]);
    }
    free(f.pos);
    free(f.heap_mem);
    return (int)i;
}

/* v's best move: the part other than its own it is most tied to among
 * those that can take it within maxw (ties: the lighter on constraint 0).
 * Returns the gain in edge weight and sets *to, or *to = -1 when v has no
 * neighbour elsewhere or no such part. conn[K] zero on entry and return. */
static int64_t best_move(const struct ml_graph *g, int ncon,
                         const int64_t *maxw, const idx_t *part,
                         const int64_t *pw, int64_t *conn, struct fm *f,
                         idx_t v, idx_t *to)
{
    const idx_t *vwv = g->vw + (size_t)v * ncon;
    idx_t own = part[v], best = -1;
    int64_t k, own_c, best_c = 0;
    struct fm_row row;

    if (gt_on(&f->gt)) {
        struct grow c = gt_row(&f->gt, v);
        int p;

        f->work += f->K;
        if (f->mate) {
            idx_t m = f->mate[own], cm;

            *to = -1;
            if (m < 0 || !(cm = gr_get(c, m)) ||
                !fits(pw + (size_t)m * ncon, vwv, maxw + (size_t)m * ncon,
                      ncon))
                return 0;
            *to = m;
            return cm - gr_get(c, own);
        }
        for (p = 0; p < f->K; p++) {
            idx_t cp = gr_get(c, p);

            if (p == own || !cp)
                continue;
            if (best >= 0 &&
                (cp < best_c || (cp == best_c && pw[(size_t)p * ncon] >=
                                                     pw[(size_t)best * ncon])))
                continue;
            if (!fits(pw + (size_t)p * ncon, vwv, maxw + (size_t)p * ncon,
                      ncon))
                continue;
            best = p;
            best_c = cp;
        }
        *to = best;
        return best_c - gr_get(c, own);
    }
    row = fm_row(f, g, v, 1);
    f->work += row.deg;
    for (k = 0; k < row.deg; k++)
        conn[part[row.adj[k]]] += row_w(&row, k);
    own_c = conn[own];
    conn[own] = 0;
    for (k = 0; k < row.deg; k++) {
        idx_t p = part[row.adj[k]];
        int64_t c = conn[p];

        if (!c)
            continue; /* own, or seen */
        conn[p] = 0;
        /* ties to the lighter part, then the lower id, as with the gain
         * cache: the same move whatever the order of v's neighbours */
        if (best >= 0 &&
            (c < best_c ||
             (c == best_c &&
              (pw[(size_t)p * ncon] > pw[(size_t)best * ncon] ||
               (pw[(size_t)p * ncon] == pw[(size_t)best * ncon] && p > best)))))
            continue;
        if (!fits(pw + (size_t)p * ncon, vwv, maxw + (size_t)p * ncon, ncon))
            continue;
        best = p;
        best_c = c;
    }
    *to = best;
    return best_c - own_c;
}

static inline int64_t fm_key(int64_t gain, uint64_t seed, idx_t v)
{
    return gain * ((int64_t)1 << 32) + (int64_t)ml_mix(seed ^ (uint64_t)v);
}

/* Bring v's heap entry up to date (out of the heap when it has no move;
 * with f->lazy, only when its key rose): 0 or DP_ENOMEM. */
static int fm_update(const struct ml_graph *g, int ncon, const int64_t *maxw,
                     const idx_t *part, const int64_t *pw, int64_t *conn,
                     struct fm *f, uint64_t seed, idx_t v)
{
    idx_t to;
    int64_t gain = best_move(g, ncon, maxw, part, pw, conn, f, v, &to);
    int64_t key = fm_key(gain, seed, v);

    /* lazy: a key that fell, or a node left without a move, stays as it
     * was; the move loop checks each key it pops, and most never come up */
    if (f->lazy && f->pos[v] >= 0 && (to < 0 || key <= f->heap[f->pos[v]].key))
        return 0;
    if (to >= 0)
        return heap_set(f, v, key);
    if (f->pos[v] >= 0)
        heap_remove(f, v);
    return 0;
}

struct fm_job {
    const struct ml_graph *g;
    int ncon;
    const int64_t *maxw, *pw;
    const idx_t *part;
    int64_t *conn; /* [K] zero, own */
    struct fm f;   /* a copy: work is own; pos own slots only */
    uint64_t seed;
    idx_t v0, v1;
    struct fm_ent *out; /* out: [cnt] entries, room for ocap (owned) */
    size_t cnt, ocap;
    int rc; /* out: 0 or DP_ENOMEM */
};

/* The nodes of [v0, v1) with a move, keyed, into out[] in node order; pos
 * -1 for the others. */
static void *fm_keys(void *arg)
{
    struct fm_job *j = arg;
    idx_t v, to;

    j->cnt = 0;
    j->rc = 0;
    for (v = j->v0; v < j->v1; v++) {
        int64_t gain;

        if (v >= j->f.nfree) {
            j->f.pos[v] = -2; /* as if moved: never keyed, never moved */
            continue;
        }
        gain = best_move(j->g, j->ncon, j->maxw, j->part, j->pw, j->conn, &j->f,
                         v, &to);
        j->f.pos[v] = -1;
        if (to < 0)
            continue;
        if (DP_ALLOC_GROW(j->out, j->cnt + 1, j->ocap)) {
            j->rc = DP_ENOMEM;
            break;
        }
        j->out[j->cnt++] = (struct fm_ent){ fm_key(gain, j->seed, v), v };
    }
    return NULL;
}

/* Every node's best move, on two threads, keyed into the heaps of fs[nf] in
 * node order: f's (nf = 1), or pairwise (nf = K) its part's; pos -1 for
 * the nodes with no move. 0 or DP_ENOMEM. */
static int fm_key_all(const struct ml_graph *g, int ncon, const int64_t *maxw,
                      const idx_t *part, const int64_t *pw, int64_t *conn,
                      const struct fm *f, struct fm *fs, int nf, uint64_t seed)
{
    idx_t n = g->n;
    struct fm_job jb[2] = { { .g = g,
                              .ncon = ncon,
                              .maxw = maxw,
                              .part = part,
                              .pw = pw,
                              .conn = conn,
                              .f = *f,
                              .seed = seed,
                              .v0 = 0,
                              .v1 = half_entries(g, 0, n) } };
    size_t t, e;
    int i, rc;

    /* a sweep in node order: the rows read in place, or decoded into
     * each thread's buffer (rbuf[0] waits for the moves) */
    jb[0].f.sp = NULL;
    jb[1] = jb[0];
    jb[1].f.rbuf[1] = f->rbuf[0];
    jb[1].conn = conn + f->K;
    jb[1].v0 = jb[0].v1;
    jb[1].v1 = n;
    dp_run_pair(fm_keys, &jb[0], &jb[1], g_entries(g) >= LP_THREAD_MIN);
    rc = jb[0].rc ? jb[0].rc : jb[1].rc;
    for (i = 0; i < nf; i++)
        fs[i].hn = 0;
    /* each heap's size, then its entries */
    for (t = 0; t < 2 && !rc && nf > 1; t++)
        for (e = 0; e < jb[t].cnt; e++)
            fs[part[jb[t].out[e].v]].hn++;
    for (i = 0; i < nf && !rc; i++) {
        size_t want = nf > 1 ? (size_t)fs[i].hn : jb[0].cnt + jb[1].cnt;

        fs[i].hn = 0;
        rc = heap_reserve(&fs[i], want + 1);
    }
    for (t = 0; t < 2 && !rc; t++)
        for (e = 0; e < jb[t].cnt; e++) {
            struct fm *h = nf > 1 ? &fs[part[jb[t].out[e].v]] : fs;

            h->heap[h->hn++] = jb[t].out[e];
        }
    free(jb[0].out);
    free(jb[1].out);
    for (i = 0; i < nf && !rc; i++) {
        heap_build(&fs[i]);
        fs[i].nheap = fs[i].hn;
    }
    return rc;
}

/* Whether parts a and b are within the bounds a pairwise pass keeps (or
 * k-way, where every move keeps maxw). */
static int pair_kept(const struct fm *f, const int64_t *pw, int ncon, idx_t a,
                     idx_t b)
{
    int c;

    for (c = 0; f->keep && c < ncon; c++)
        if (pw[(size_t)a * ncon + c] > f->keep[(size_t)a * ncon + c] ||
            pw[(size_t)b * ncon + c] > f->keep[(size_t)b * ncon + c])
            return 0;
    return 1;
}

/* The heap holding a node of part p: f's, or pairwise its twin's. */
static inline struct fm *fm_heap_of(struct fm *f, idx_t p)
{
    return f->twin && p != f->side ? f->twin : f;
}

/* Over how much of its bound part p is on its fullest constraint (<= 0:
 * within every one). */
static double pair_over(const struct fm *f, const int64_t *pw, int ncon,
                        idx_t p)
{
    double over = 0;
    int c;

    for (c = 0; c < ncon; c++) {
        int64_t w = pw[(size_t)p * ncon + c], b = f->keep[(size_t)p * ncon + c];
        double o = (double)(w - b) / (double)(b ? b : 1);

        if (o > over)
            over = o;
    }
    return over;
}

/* The heap of the next move: k-way f's; pairwise, the fuller part's when
 * a part is past its bounds, so that the pair comes back within them,
 * else the one whose best key is higher. */
static struct fm *fm_pick(struct fm *f, const int64_t *pw, int ncon)
{
    struct fm *t = f->twin;

    if (!t || !t->hn)
        return f;
    if (!f->hn)
        return t;
    if (f->keep) {
        double oa = pair_over(f, pw, ncon, f->side),
               ob = pair_over(f, pw, ncon, t->side);

        if (oa > 0 || ob > 0)
            return oa >= ob ? f : t;
    }
    return heap_above(&f->heap[0], &t->heap[0]) ? f : t;
}

/* An FM pass's moves from f's heap, as keyed: a pass ends after stall_max
 * moves that do not beat its best cut, or after budget adjacency entries;
 * the moves past the best prefix are undone. The cut saved (>= 0) in
 * *saved; 0 or DP_ENOMEM. Pairwise, only nodes of f's pair are re-keyed,
 * and only its parts' table columns and weights change. */
static int fm_moves(const struct ml_graph *g, int ncon, const int64_t *maxw,
                    idx_t *part, int64_t *pw, int64_t *conn, struct fm *f,
                    uint64_t seed, idx_t stall_max, int64_t budget,
                    int64_t *saved)
{
    idx_t v, nm = 0, best_nm = 0, stall = 0;
    int64_t k;
    struct fm_row row;
    int64_t cur = 0, best = 0, nupd = 0;
    int gt = gt_on(&f->gt);
    double t1 = dp_now();
    struct fm *f2 = f->twin;
    int rc = 0;

    *saved = 0;
    f->work = 0;
    if (f2)
        f2->work = 0;
    while ((f->hn || (f2 && f2->hn)) && stall < stall_max &&
           f->work + (f2 ? f2->work : 0) < budget) {
        idx_t to, own;
        int64_t gain, key, old;
        const idx_t *vwv;
        struct fm *h = fm_pick(f, pw, ncon);

        v = h->heap[0].v;
        old = h->heap[0].key;
        heap_remove(h, v);
        /* keys of hubs' neighbours are not kept fresh: check this one */
        gain = best_move(g, ncon, maxw, part, pw, conn, h, v, &to);
        if (to < 0)
            continue;
        key = fm_key(gain, seed, v);
        if (key < old && h->hn && key < h->heap[0].key) {
            heap_set(h, v, key); /* cannot grow: v has just left */
            continue;
        }
        /* no room to note the move: the pass ends here */
        if (DP_ALLOC_GROW(f->moved, (size_t)nm + 1, f->capm))
            break;
        own = part[v];
        vwv = g->vw + (size_t)v * ncon;
        add_w(pw + (size_t)own * ncon, vwv, ncon, -1);
        add_w(pw + (size_t)to * ncon, vwv, ncon, 1);
        part_set(part, v, to);
        f->pos[v] = -2;
        f->moved[nm++] = (struct fm_move){ v, own };
        cur += gain;
        if (cur > best && pair_kept(f, pw, ncon, own, to)) {
            best = cur;
            best_nm = nm;
            stall = 0;
        } else {
            stall++;
        }
        row = fm_row(f, g, v, 0);
        for (k = 0; k < row.deg; k++) {
            idx_t u = row.adj[k];
            struct fm *hu = f;

            /* neighbours lie anywhere in arrays of gigabytes: their table
             * rows, weights and heap places are asked for ahead, the heap
             * entry once its place has arrived */
            if (gt && k + FM_AHEAD < row.deg) {
                idx_t a = row.adj[k + FM_AHEAD];

                if (f->gt.h)
                    __builtin_prefetch(f->gt.h + (size_t)a * f->K, 1);
                else
                    __builtin_prefetch(f->gt.w + (size_t)a * f->K, 1);
                __builtin_prefetch(part + a);
                __builtin_prefetch(f->pos + a);
                __builtin_prefetch(g->vw + (size_t)a * ncon);
            }
            if (gt && k + FM_AHEAD / 2 < row.deg) {
                idx_t a = row.adj[k + FM_AHEAD / 2], i, pa = own;

                /* another pair's node has its place in that pair's heap */
                if (!f->mate || (pa = part_get(part, a)) == own || pa == to) {
                    i = f->pos[a];
                    if (i >= 0)
                        __builtin_prefetch(fm_heap_of(f, pa)->heap + i, 1);
                }
            }
            if (gt) {
                struct grow c;
                idx_t pu;

                /* a ghost never moves, and its row lacks the edges this
                 * would take away: a 16-bit entry would wrap to an escape */
                if (u >= f->nfree)
                    continue;
                c = gt_row(&f->gt, u);
                gr_add(c, own, -row_w(&row, k));
                gr_add(c, to, row_w(&row, k));
                pu = part_get(part, u);
                /* another pair's node: its keys are that pair's */
                if (f->mate && pu != own && pu != to)
                    continue;
                /* u's part gained the edge, so each move of u lost it:
                 * a lazy key that falls stays as it is */
                if (f->lazy && pu == to)
                    continue;
                hu = fm_heap_of(f, pu);
            } else if (fm_degree(f, g, u) > FM_DEGREE_MAX) {
                continue;
            }
            if (f->pos[u] != -2) {
                if ((rc =
                         fm_update(g, ncon, maxw, part, pw, conn, hu, seed, u)))
                    break;
                nupd++;
            }
        }
        if (rc)
            break;
        if (gt)
            f->work += row.deg;
    }
    f->nmoves = nm;
    f->nkept = best_nm;
    f->nupd = nupd;
    if (f2)
        f->work += f2->work;
    f->why = !f->hn && !(f2 && f2->hn) ? "no move left"
             : stall >= stall_max      ? "stalled"
             : f->work >= budget       ? "work budget"
                                       : "no memory";
    f->t_moves = dp_now() - t1;
    /* undo the moves after the best prefix */
    while (nm > best_nm) {
        const idx_t *vwv;
        idx_t from = f->moved[--nm].from;

        v = f->moved[nm].v;
        vwv = g->vw + (size_t)v * ncon;
        add_w(pw + (size_t)part[v] * ncon, vwv, ncon, -1);
        add_w(pw + (size_t)from * ncon, vwv, ncon, 1);
        if (gt) {
            row = fm_row(f, g, v, 0);
            for (k = 0; k < row.deg; k++) {
                struct grow c;

                if (row.adj[k] >= f->nfree)
                    continue;
                c = gt_row(&f->gt, row.adj[k]);
                gr_add(c, part[v], -row_w(&row, k));
                gr_add(c, from, row_w(&row, k));
            }
        }
        part_set(part, v, from);
    }
    *saved = best;
    return rc;
}

/* One k-way FM pass: the cut it saved (>= 0) in *saved; 0 or DP_ENOMEM. */
static int fm_pass(const struct ml_graph *g, int ncon, const int64_t *maxw,
                   idx_t *part, int64_t *pw, int64_t *conn, struct fm *f,
                   uint64_t seed, int64_t *saved)
{
    double t0 = dp_now();
    int rc;

    *saved = 0;
    if ((rc = fm_key_all(g, ncon, maxw, part, pw, conn, f, f, 1, seed)))
        return rc;
    f->t_keys = dp_now() - t0;
    /* moves on dense coarse graphs re-key many heavy neighbours */
    return fm_moves(g, ncon, maxw, part, pw, conn, f, seed,
                    FM_STALL_MIN + g->n / FM_STALL_DIV,
                    FM_WORK * g_entries(g) + FM_WORK_MIN, saved);
}

/* A thread's share of a pairwise round: the pairs it claims next, in
 * turn with the other thread (a pair's work varies a lot). */
struct fm_pairs {
    const struct ml_graph *g;
    int ncon;
    const int64_t *maxw;
    idx_t *part;
    int64_t *pw, *conn;
    struct fm *fs;   /* [K] a heap per part */
    const idx_t *lo; /* [nf] each pair's lower part, whose fm runs it */
    int nf, *next;   /* next: the next pair to claim, shared */
    uint64_t seed;
    idx_t stall_max;
    int64_t budget;
    idx_t *rbuf; /* the thread's row buffer, lent to each pair's FM */
    size_t rcap;
    int64_t saved;
    double busy;
    int rc;
};

static void *fm_pairs_run(void *arg)
{
    struct fm_pairs *j = arg;
    double t0 = dp_now();
    int i;

    j->saved = 0;
    j->rc = 0;
    while (!j->rc &&
           (i = __atomic_fetch_add(j->next, 1, __ATOMIC_RELAXED)) < j->nf) {
        struct fm *f = &j->fs[j->lo[i]];
        int64_t s;

        f->rbuf[0] = j->rbuf;
        f->rcap[0] = j->rcap;
        j->rc = fm_moves(j->g, j->ncon, j->maxw, j->part, j->pw, j->conn, f,
                         j->seed, j->stall_max, j->budget, &s);
        j->rbuf = f->rbuf[0];
        j->rcap = f->rcap[0];
        f->rbuf[0] = NULL;
        j->saved += s;
    }
    j->busy = dp_now() - t0;
    return NULL;
}

/* Round r of K parts' pairings (the circle method: every two parts meet
 * once in K - 1 rounds, K rounded up to even; a part paired with the
 * missing one rests): mate[K], pair[K] (-1 for a resting part). Returns
 * the pairs. */
static int fm_pairing(int K, int r, idx_t *mate, idx_t *pair)
{
    int E = K + (K & 1), i, np = 0;

    for (i = 0; i < K; i++)
        mate[i] = pair[i] = -1;
    for (i = 0; i < E / 2; i++) {
        int a = i ? (r + i) % (E - 1) : E - 1;
        int b = (r - i + (E - 1)) % (E - 1);

        if (a >= K || b >= K)
            continue;
        mate[a] = (idx_t)b;
        mate[b] = (idx_t)a;
        pair[a] = pair[b] = (idx_t)np++;
    }
    return np;
}

/* One pairwise FM pass: K - 1 rounds (K for odd K), each keying every node
 * toward its mate and running the pairs' moves on two threads. fs[K] hold
 * a heap per part, each pair's moves are its lower part's; f sums their
 * figures for the log. */
static int fm_pair_pass(const struct ml_graph *g, int ncon, const int64_t *maxw,
                        idx_t *part, int64_t *pw, int64_t *conn, struct fm *f,
                        struct fm *fs, int counts, uint64_t seed,
                        int64_t *saved)
{
    int K = f->K, rounds = K - 1 + (K & 1), r, i, rc = 0;
    size_t kc = (size_t)K * (size_t)ncon, j;
    idx_t *mate = dp_malloc_array(3 * (size_t)K, sizeof(*mate)),
          *lo = mate + 2 * K;
    int64_t *keep = dp_malloc_array(2 * kc, sizeof(*keep)), *room = keep + kc;

    *saved = 0;
    f->nheap = f->nmoves = f->nkept = 0;
    f->nupd = 0;
    f->t_keys = f->t_moves = f->t_idle = 0;
    if (!mate || !keep) {
        free(mate);
        free(keep);
        return DP_ENOMEM;
    }
    for (r = 0; r < rounds && !rc; r++) {
        int np = fm_pairing(K, r, mate, mate + K);
        uint64_t s = seed * (uint64_t)rounds + (uint64_t)r;
        double t0 = dp_now(), t1;
        struct fm_pairs jb[2];
        int next;

        /* Two parts at their bound could not trade a node, and FM leaves
         * most parts there: such a pair stood idle while the round waited
         * on the other. Where the constraints count nodes, a pair's moves
         * may overfill a part a little, and only prefixes within the
         * bounds are kept: a node of the same kind moved back evens it.
         * Edge counts rarely come back within their bounds with the
         * others, and such passes kept less than before (rmat 21). */
        for (j = 0; counts && j < kc; j++) {
            keep[j] = pw[j] > maxw[j] ? pw[j] : maxw[j];
            room[j] = keep[j] + keep[j] / FM_PAIR_OVER;
        }
        f->mate = mate;
        f->pair = mate + K;
        rc = fm_key_all(g, ncon, counts ? room : maxw, part, pw, conn, f, fs, K,
                        s);
        f->mate = f->pair = NULL;
        if (rc)
            break;
        t1 = dp_now();
        for (i = 0; i < K; i++) {
            fs[i].mate = mate;
            fs[i].pair = mate + K;
            fs[i].keep = counts ? keep : NULL;
            fs[i].side = (idx_t)i;
            fs[i].twin = mate[i] >= 0 ? &fs[mate[i]] : NULL;
            if (mate[i] > i)
                lo[mate[K + i]] = (idx_t)i;
        }
        next = 0;
        jb[0] = (struct fm_pairs){
            .g = g,
            .ncon = ncon,
            .maxw = counts ? room : maxw,
            .part = part,
            .pw = pw,
            .conn = conn,
            .fs = fs,
            .lo = lo,
            .nf = np,
            .next = &next,
            .seed = s,
            .stall_max = FM_STALL_MIN + g->n / FM_STALL_DIV / np,
            .budget = (FM_WORK * g_entries(g) + FM_WORK_MIN) / np,
            .rbuf = f->rbuf[0],
            .rcap = f->rcap[0]
        };
        jb[1] = jb[0];
        jb[1].conn = conn + K;
        jb[1].rbuf = f->rbuf[1];
        jb[1].rcap = f->rcap[1];
        dp_run_pair(fm_pairs_run, &jb[0], &jb[1], np > 1);
        f->rbuf[0] = jb[0].rbuf;
        f->rcap[0] = jb[0].rcap;
        f->rbuf[1] = jb[1].rbuf;
        f->rcap[1] = jb[1].rcap;
        rc = jb[0].rc ? jb[0].rc : jb[1].rc;
        *saved += jb[0].saved + jb[1].saved;
        for (i = 0; i < np; i++) {
            const struct fm *m = &fs[lo[i]];

            f->nmoves += m->nmoves;
            f->nkept += m->nkept;
            f->nupd += m->nupd;
            f->why = m->why;
        }
        for (i = 0; i < K; i++) {
            f->nheap += fs[i].nheap;
            fs[i].mate = fs[i].pair = NULL;
            fs[i].keep = NULL;
            fs[i].twin = NULL;
        }
        f->t_keys += t1 - t0;
        f->t_moves += dp_now() - t1;
        if (np > 1)
            f->t_idle += fabs(jb[0].busy - jb[1].busy);
    }
    free(mate);
    free(keep);
    return rc;
}

struct cut_job {
    const struct ml_graph *g;
    const idx_t *part;
    struct gtab *gt;   /* the table to fill (own rows only), or NULL */
    int64_t narrow;    /* weighted degrees below it go to gt->h */
    int64_t *acc;      /* [K] a row as summed */
    idx_t *wid, *wrow; /* wide nodes in order and their rows (owned) */
    size_t nw, cap_id, cap_row;
    int K, rc; /* out: 0 or DP_ENOMEM */
    idx_t v0, v1;
    int64_t cut, deg_max, len_max; /* out; len_max: the longest row */
    /* rows decoded from a compressed graph, a batch at a time (owned) */
    idx_t *bid, *bw;
    int64_t *bat;
    size_t cap_bid, cap_bw, cap_bat;
};

/* A batch of compressed rows to decode before their parts are looked up
 * (ahead, across rows): at most this many rows, stopped past this many
 * entries. */
#define CUT_BATCH_ROWS 4096
#define CUT_BATCH_ENTRIES 65536

/* Row v of the gain table from acc: into j->gt's 16-bit or idx_t rows,
 * or noted as wide (its escape is written once every thread is done). */
static void cut_put(struct cut_job *j, idx_t v, int64_t deg)
{
    struct gtab *t = j->gt;
    size_t K = (size_t)j->K, p;

    if (!t->h) {
        for (p = 0; p < K; p++)
            t->w[v * K + p] = (idx_t)j->acc[p];
        return;
    }
    /* a wide row's 16-bit entries are zero until it is escaped */
    for (p = 0; p < K; p++)
        t->h[v * K + p] = deg < j->narrow ? (uint16_t)j->acc[p] : 0;
    if (deg < j->narrow)
        return;
    if (DP_ALLOC_GROW(j->wid, j->nw + 1, j->cap_id) ||
        DP_ALLOC_GROW(j->wrow, (j->nw + 1) * K, j->cap_row)) {
        j->rc = DP_ENOMEM;
        return;
    }
    for (p = 0; p < K; p++)
        j->wrow[j->nw * K + p] = (idx_t)j->acc[p];
    j->wid[j->nw++] = v;
}

/* Rows [v0, v1), row v's entries ids[at[v - v0]] to ids[at[v - v0 + 1]]
 * with weights ws (NULL: 1), into the job's cut and table rows. Whether
 * an edge is cut is a coin toss on most levels: it is added without a
 * branch, into locals the table row's stores cannot alias. */
static void cut_block(struct cut_job *j, idx_t v0, idx_t v1, const int64_t *at,
                      const idx_t *ids, const idx_t *ws)
{
    int64_t k, end = at[v1 - v0] - AHEAD, cut = j->cut;
    int64_t *acc = j->gt ? j->acc : NULL;
    const idx_t *part = j->part;
    idx_t v;

    for (v = v0; v < v1 && !j->rc; v++) {
        int64_t deg = 0, len = at[v - v0 + 1] - at[v - v0];
        idx_t pv = part[v];

        if (acc)
            memset(acc, 0, (size_t)j->K * sizeof(*acc));
        for (k = at[v - v0]; k < at[v - v0 + 1]; k++) {
            idx_t q = part[ids[k]];
            int64_t w = ws ? ws[k] : 1;

            if (k < end)
                __builtin_prefetch(part + ids[k + AHEAD]);
            if (acc)
                acc[q] += w;
            cut += w & -(int64_t)(q != pv);
            deg += w;
        }
        if (acc)
            cut_put(j, v, deg);
        if (deg > j->deg_max)
            j->deg_max = deg;
        if (len > j->len_max)
            j->len_max = len;
    }
    j->cut = cut;
}

/* The cut edges' weight (each counted from both ends), the heaviest
 * weighted degree and the longest row of [v0, v1), filling their gain
 * table rows. */
static void *cut_rows(void *arg)
{
    struct cut_job *j = arg;
    const struct ml_graph *g = j->g;
    struct ml_cg_it it;
    idx_t v = j->v0, b;

    j->cut = j->deg_max = j->len_max = 0;
    if (!g->cg) {
        cut_block(j, j->v0, j->v1, g->xadj + j->v0, g->adj, g->adjw);
        return NULL;
    }
    if (DP_ALLOC_GROW(j->bat, CUT_BATCH_ROWS + 1, j->cap_bat)) {
        j->rc = DP_ENOMEM;
        return NULL;
    }
    while (v < j->v1 && !j->rc) {
        int64_t k = 0;

        for (b = v;
             b < j->v1 && b - v < CUT_BATCH_ROWS && k < CUT_BATCH_ENTRIES;
             b++) {
            ml_cg_begin(&it, g->cg, b);
            if (DP_ALLOC_GROW(j->bid, (size_t)(k + it.left), j->cap_bid) ||
                DP_ALLOC_GROW(j->bw, (size_t)(k + it.left), j->cap_bw)) {
                j->rc = DP_ENOMEM;
                return NULL;
            }
            j->bat[b - v] = k;
            while (ml_cg_next(&it)) {
                j->bid[k] = it.u;
                j->bw[k++] = it.w;
            }
        }
        j->bat[b - v] = k;
        cut_block(j, v, b, j->bat, j->bid, j->bw);
        v = b;
    }
    return NULL;
}

/* Run cut_rows on g's two halves (split at half its entries) with the jobs'
 * own fields as set: 0 and the cut in *cut, or the first job's error. */
static int cut_pair(struct cut_job *jb, const struct ml_graph *g,
                    const idx_t *part, int64_t *cut)
{
    int j;

    for (j = 0; j < 2; j++) {
        jb[j].g = g;
        jb[j].part = part;
    }
    jb[0].v1 = jb[1].v0 = half_entries(g, 0, g->n);
    jb[1].v1 = g->n;
    dp_run_pair(cut_rows, &jb[0], &jb[1], g_entries(g) >= LP_THREAD_MIN);
    *cut = (jb[0].cut + jb[1].cut) / 2;
    return jb[0].rc ? jb[0].rc : jb[1].rc;
}

/* Free what the two jobs own. */
static void cut_pair_free(struct cut_job *jb)
{
    int j;

    for (j = 0; j < 2; j++) {
        free(jb[j].acc);
        free(jb[j].wid);
        free(jb[j].wrow);
        free(jb[j].bid);
        free(jb[j].bw);
        free(jb[j].bat);
    }
}

/* The wide rows the two threads noted, into t->w in node order, their
 * 16-bit rows escaped to them; or, when they are too many for escapes to
 * pay, every row moved to t->w: 0 or DP_ENOMEM. */
static int gt_finish(struct gtab *t, const struct cut_job *jb, idx_t n)
{
    size_t nw = jb[0].nw + jb[1].nw, K = (size_t)t->K, at = 0, i;
    int j;

    if (!t->h)
        return 0;
    if (nw < GT_WIDE_CAP && nw <= (size_t)n / GT_WIDE_SHARE) {
        if (!(t->w = dp_malloc_array(nw * K + 1, sizeof(*t->w))))
            return DP_ENOMEM;
        for (j = 0; j < 2; j++)
            for (i = 0; i < jb[j].nw; i++, at++) {
                uint16_t *h = t->h + (size_t)jb[j].wid[i] * K;

                memcpy(t->w + at * K, jb[j].wrow + i * K, K * sizeof(*t->w));
                h[0] = (uint16_t)(GT_ESC + (at >> 16));
                h[1] = (uint16_t)(at & 0xFFFF);
            }
        return 0;
    }
    if (!(t->w = dp_malloc_array((size_t)n * K + 1, sizeof(*t->w))))
        return DP_ENOMEM;
    for (i = 0; i < (size_t)n * K; i++)
        t->w[i] = t->h[i];
    for (j = 0; j < 2; j++)
        for (i = 0; i < jb[j].nw; i++)
            memcpy(t->w + (size_t)jb[j].wid[i] * K, jb[j].wrow + i * K,
                   K * sizeof(*t->w));
    free(t->h);
    t->h = NULL;
    return 0;
}

/* Weighted degrees from which a gain table row is wide: GT_ESC, or the
 * test knob's bound (0: every row wide). */
static int64_t gt_narrow(void)
{
    int64_t x = -1;

    if (!dp_env_int("DGLPART_TEST_FM_NARROW_MAX", &x) && x >= 0 && x < GT_ESC)
        return x;
    return GT_ESC;
}

/* FM_LAZY_MIN; the test knob takes the lazy path on small graphs. */
static int64_t fm_lazy_min(void)
{
    int64_t x = -1;

    if (!dp_env_int("DGLPART_TEST_FM_LAZY_MIN", &x) && x >= 0)
        return x;
    return FM_LAZY_MIN;
}

/* The fewest nodes of a level refined in pairwise rounds: FM_PAIR_MIN, or
 * FM_PAIR_MIN_COUNTS where the constraints count nodes; the test knob sets
 * it for both. */
static int64_t fm_pair_min(int counts)
{
    int64_t x = -1;

    if (!dp_env_int("DGLPART_TEST_FM_PAIR_MIN", &x) && x >= 0)
        return x;
    return counts ? FM_PAIR_MIN_COUNTS : FM_PAIR_MIN;
}

/* FM passes until one saves too little. */
static int fm_refine(const struct ml_graph *g, const struct dp_spill *sp,
                     idx_t nfree, int ncon, int K, int counts,
                     const int64_t *maxw, idx_t *part, int64_t *pw,
                     int64_t *conn, uint64_t seed, int64_t *cut_out)
{
    struct fm f, *fs = NULL;
    size_t n1 = (size_t)g->n + 1;
    int64_t cut = 0, wmax = ml_idx_max();
    int pass, i, rc = 0;

    memset(&f, 0, sizeof(f));
    f.pos = dp_malloc_array(n1, sizeof(*f.pos));
    f.K = K;
    f.nfree = nfree;
    f.lazy = g->n >= fm_lazy_min();
    f.sp = sp;
    if (!f.pos)
        return DP_ENOMEM;
    {
        /* the gain table, when wanted: 16-bit rows, or idx_t rows only
         * (K = 1 has no room for an escape) */
        struct cut_job jb[2];
        int want = fm_table_fits(g->n, K, g_entries(g)), j;
        int64_t narrow = K >= 2 ? gt_narrow() : 0;
        size_t rows = (size_t)g->n * (size_t)K + 1;

        f.gt.K = K;
        if (want && narrow)
            f.gt.h = dp_malloc_array(rows, sizeof(*f.gt.h));
        else if (want)
            f.gt.w = dp_malloc_array(rows, sizeof(*f.gt.w));
        rc = want && !gt_on(&f.gt) ? DP_ENOMEM : 0;
        memset(jb, 0, sizeof(jb));
        for (j = 0; j < 2; j++) {
            jb[j].gt = want ? &f.gt : NULL;
            jb[j].narrow = narrow;
            jb[j].K = K;
            if (want &&
                !(jb[j].acc = dp_malloc_array((size_t)K, sizeof(*jb[j].acc))))
                rc = DP_ENOMEM;
        }
        if (!rc)
            rc = cut_pair(jb, g, part, &cut);
        if (!rc)
            rc = gt_finish(&f.gt, jb, g->n);
        /* wide rows hold idx_t: a node tied by more (only past 2^31 fine
         * entries) is served without the table */
        if (jb[0].deg_max > wmax || jb[1].deg_max > wmax)
            gt_release(&f.gt);
        /* rows decoded from a compressed graph go to rbuf: room for the
         * longest one's ids and weights, so a decode never fails */
        for (j = 0; j < 2 && !rc && g->cg; j++)
            if (DP_ALLOC_GROW(f.rbuf[j],
                              2 * (size_t)(jb[0].len_max > jb[1].len_max
                                               ? jb[0].len_max
                                               : jb[1].len_max) +
                                  1,
                              f.rcap[j]))
                rc = DP_ENOMEM;
        cut_pair_free(jb);
        if (rc) {
            gt_release(&f.gt);
            free(f.pos);
            free(f.rbuf[0]);
            free(f.rbuf[1]);
            return rc;
        }
    }
    /* pairwise: one FM for each pair of a round, sharing f's table and
     * places, each with a heap and moves of its own */
    if (gt_on(&f.gt) && K >= (counts ? 2 : 4) && nfree == g->n &&
        g->n >= fm_pair_min(counts)) {
        if (!(fs = dp_calloc((size_t)K, sizeof(*fs))))
            rc = DP_ENOMEM;
        for (i = 0; fs && i < K; i++) {
            fs[i] = f;
            fs[i].heap = NULL;
            fs[i].heap_mem = NULL;
            fs[i].hcap = 0;
            fs[i].moved = NULL;
            fs[i].capm = 0;
            fs[i].rbuf[0] = fs[i].rbuf[1] = NULL;
            fs[i].rcap[0] = fs[i].rcap[1] = 0;
        }
    }
    for (pass = 0; pass < FM_PASSES && !rc; pass++) {
        double t_pass = dp_now();
        int64_t saved;

        if (fs)
            rc = fm_pair_pass(g, ncon, maxw, part, pw, conn, &f, fs, counts,
                              seed + (uint64_t)pass, &saved);
        else
            rc = fm_pass(g, ncon, maxw, part, pw, conn, &f,
                         seed + (uint64_t)pass, &saved);
        if (rc)
            break;
        cut -= saved;
        if (g->n >= LOG_MIN)
            dp_log(DP_LOG_VV,
                   "FM pass %d on %" PRId64 " nodes%s: %" PRId64
                   " keyed, %" PRId64 " moved, %" PRId64 " kept, %" PRId64
                   " re-keys, %s; saved %" PRId64 " of %" PRId64
                   "; keys %.2f s, moves %.2f s (a thread waiting %.2f s), "
                   "undo %.2f s",
                   pass, (int64_t)g->n, fs ? " (pairwise)" : "",
                   (int64_t)f.nheap, (int64_t)f.nmoves, (int64_t)f.nkept,
                   f.nupd, f.why, saved, cut + saved, f.t_keys, f.t_moves,
                   fs ? f.t_idle : 0.0,
                   dp_now() - t_pass - f.t_keys - f.t_moves);
        /* small graphs take every pass that saves something */
        if (!saved ||
            ((size_t)g_entries(g) > FM_SMALL &&
             saved * (g->n >= FM_BIG ? FM_MIN_GAIN_BIG : FM_MIN_GAIN) <= cut))
            break;
    }
    if (!rc && cut_out)
        *cut_out = cut;
    for (i = 0; fs && i < K; i++) {
        free(fs[i].heap_mem);
        free(fs[i].moved);
    }
    free(fs);
    free(f.pos);
    free(f.heap_mem);
    free(f.moved);
    gt_release(&f.gt);
    free(f.rbuf[0]);
    free(f.rbuf[1]);
    return rc;
}

/* The constraint most over its bound: 0 when none is. */
static int64_t overweight(const int64_t *pw, const int64_t *maxw, int ncon,
                          int K, int *part_out, int *con_out)
{
    int64_t worst = 0;
    int p, j;

    for (p = 0; p < K; p++)
        for (j = 0; j < ncon; j++)
            if (pw[(size_t)p * ncon + j] - maxw[(size_t)p * ncon + j] > worst) {
                worst = pw[(size_t)p * ncon + j] - maxw[(size_t)p * ncon + j];
                *part_out = p;
                *con_out = j;
            }
    return worst;
}

/* How far part weights w[ncon] are above their bounds, each constraint
 * relative to its bound. */
static double overload(const int64_t *w, const int64_t *maxw, int ncon)
{
    double o = 0;
    int j;

    for (j = 0; j < ncon; j++)
        if (w[j] > maxw[j])
            o += (double)(w[j] - maxw[j]) / (double)maxw[j];
    return o;
}

/* Move nodes out of parts above a bound: each move must lower the summed
 * overload of the two parts it touches (so this ends), and among those the
 * one that cuts fewest edges wins. With several constraints a target may
 * go over on one to relieve another more. */
/* v's edge weight to each part added into conn. */
static void conn_add(const struct ml_graph *g, idx_t v, const idx_t *part,
                     int64_t *conn)
{
    struct ml_cg_it it;
    int64_t k;

    if (g->cg) {
        ml_cg_begin(&it, g->cg, v);
        while (ml_cg_next(&it))
            conn[part[it.u]] += it.w;
        return;
    }
    for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
        conn[part[g->adj[k]]] += ew(g, k);
}

static void rebalance(const struct ml_graph *g, int ncon, int K,
                      const int64_t *maxw, idx_t *part, int64_t *pw,
                      int64_t *conn)
{
    int64_t a[64], b[64];
    int pass, p, j;

    for (pass = 0; pass < 8; pass++) {
        int over_p = -1, over_j = -1;
        idx_t v, moved = 0;

        if (!overweight(pw, maxw, ncon, K, &over_p, &over_j))
            return;
        for (v = 0; v < g->n; v++) {
            const idx_t *vwv = g->vw + (size_t)v * ncon;
            idx_t own = part[v];
            int64_t *po = pw + (size_t)own * ncon;
            double before_o = overload(po, maxw + (size_t)own * ncon, ncon);
            double best_d = -1e-12;
            int64_t best_c = INT64_MIN;
            int best = -1;

            if (before_o == 0)
                continue;
            for (j = 0; j < ncon; j++)
                a[j] = po[j] - vwv[j];
            conn_add(g, v, part, conn);
            for (p = 0; p < K; p++) {
                int64_t *pq = pw + (size_t)p * ncon;
                double d;

                if (p == own)
                    continue;
                for (j = 0; j < ncon; j++)
                    b[j] = pq[j] + vwv[j];
                d = overload(a, maxw + (size_t)own * ncon, ncon) +
                    overload(b, maxw + (size_t)p * ncon, ncon) - before_o -
                    overload(pq, maxw + (size_t)p * ncon, ncon);
                if (d < best_d - 1e-12 ||
                    (d <= best_d + 1e-12 && best >= 0 && conn[p] > best_c)) {
                    best = p;
                    best_d = d;
                    best_c = conn[p];
                }
            }
            memset(conn, 0, (size_t)K * sizeof(*conn));
            if (best >= 0) {
                add_w(po, vwv, ncon, -1);
                add_w(pw + (size_t)best * ncon, vwv, ncon, 1);
                part[v] = best;
                moved++;
            }
        }
        if (!moved)
            return;
    }
}

/* Refine level L's partition: rebalance, label propagation where FM has
 * no gain cache (with one, FM finds all it would, and faster), then FM. */
static int refine_level(const struct ml_graph *g, const struct dp_spill *sp,
                        int ncon, int K, int counts, const int64_t *maxw,
                        idx_t *part, int64_t *pw, int64_t *conn, uint64_t seed,
                        int L, int64_t *cut)
{
    double t0 = dp_now(), t1;
    int rc;

    rebalance(g, ncon, K, maxw, part, pw, conn);
    if (!fm_table_fits(g->n, K, g_entries(g)) &&
        (rc = refine(g, ncon, K, maxw, part, pw, conn)))
        return rc;
    t1 = dp_now();
    /* only the finest level's nodes weigh 1 each: a coarse node moved
     * back rarely evens the weights, and k-way FM does better there */
    if ((rc = fm_refine(g, sp, g->n, ncon, K, counts && L == 0, maxw, part, pw,
                        conn, seed, cut)))
        return rc;
    dp_log(DP_LOG_VV, "level %d refined: label propagation %.2f s, FM %.2f s",
           L, t1 - t0, dp_now() - t1);
    return 0;
}

/* A level's cluster cap: a cluster holds at most about LEVEL_GROWTH of
 * this level's average node (twice its heaviest, for sparse columns such
 * as a train mask), and never more than cap. Gentle levels keep the shapes
 * that label-propagation refinement then has to work with. */
static void level_cap(const struct ml_graph *g, int ncon, const int64_t *cap,
                      int64_t *lcap)
{
    int64_t tot[64] = { 0 }, mx[64] = { 0 };
    idx_t v;
    int j;

    for (v = 0; v < g->n; v++)
        for (j = 0; j < ncon; j++) {
            idx_t w = g->vw[(size_t)v * ncon + j];

            tot[j] += w;
            if (w > mx[j])
                mx[j] = w;
        }
    for (j = 0; j < ncon; j++) {
        int64_t c = (int64_t)(LEVEL_GROWTH * (double)tot[j] / (double)g->n);

        if (c < 2 * mx[j])
            c = 2 * mx[j];
        lcap[j] = c < cap[j] ? c : cap[j];
    }
}

/* The coarsest graph in METIS's own 32-bit arrays: xadj narrowed, and the
 * edge weights, when they add up to more than idx_t holds (METIS sums them
 * in idx_t), divided by one factor, rounded up so no edge vanishes. The
 * relative weights, which are what METIS's choices rest on, barely move;
 * refinement then works on the true ones. *xadj32 (and *adjw32 when
 * scaled) are the caller's to free. */
static int metis_arrays(const struct ml_graph *g, idx_t **xadj32,
                        idx_t **adjw32)
{
    int64_t m = g->xadj[g->n], lim = ml_idx_max(), tw = 0, div, k;
    idx_t v;

    *xadj32 = *adjw32 = NULL;
    if (m > lim)
        return dp_error(DP_ETOOBIG,
                        "the coarsest graph has %" PRId64 " adjacency "
                        "entries, more than METIS's 32-bit idx_t takes "
                        "(%" PRId64 ")",
                        m, lim);
    for (k = 0; g->adjw && k < m; k++)
        tw += g->adjw[k];
    if (tw > lim && m >= lim)
        return dp_error(DP_ETOOBIG,
                        "the coarsest graph's edge weights add up to "
                        "%" PRId64 " over %" PRId64 " entries, more than "
                        "METIS's 32-bit idx_t takes (%" PRId64 ")",
                        tw, m, lim);
    *xadj32 = dp_malloc_array((size_t)g->n + 1, sizeof(idx_t));
    if (!*xadj32)
        return DP_ENOMEM;
    for (v = 0; v <= g->n; v++)
        (*xadj32)[v] = (idx_t)g->xadj[v];
    if (tw <= lim)
        return 0;
    /* each weight rounds up by less than 1: the sum stays within lim */
    div = (tw + (lim - m) - 1) / (lim - m);
    *adjw32 = dp_malloc_array((size_t)m + 1, sizeof(idx_t));
    if (!*adjw32) {
        free(*xadj32);
        *xadj32 = NULL;
        return DP_ENOMEM;
    }
    for (k = 0; k < m; k++)
        (*adjw32)[k] = (idx_t)((g->adjw[k] + div - 1) / div);
    return 0;
}

static int metis_coarsest(const struct ml_graph *g, int ncon, int K,
                          double imbalance, int64_t seed, idx_t *part)
{
    idx_t options[METIS_NOPTIONS], nv = g->n, nc = ncon, np = K, obj = 0;
    idx_t *xadj32 = NULL, *adjw32 = NULL;
    real_t ub[64];
    int j, st, rc;

    /* the whole slack: where METIS overshoots on a coarse multi-constraint
     * graph, rebalancing pulls it back, and with half (as before FM) the
     * cuts were 2-8% worse on meshes and 8% on rgg with four constraints */
    for (j = 0; j < ncon; j++)
        ub[j] = (real_t)imbalance;
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_NUMBERING] = 0;
    /* on a small coarsest graph several tries cost little, and the
     * refinement cannot undo a poor start (facebook K=2: 2.7x the cut of
     * METIS alone with one try, 0.9x with four); hub-heavy graphs keep
     * most of their edges to the coarsest level, where one try will do */
    options[METIS_OPTION_NCUTS] = g->xadj[g->n] <= NCUTS_MAX_ENTRIES ? 4 : 1;
    if (seed >= 0)
        options[METIS_OPTION_SEED] = (idx_t)seed;
    if (g->n <= K) {
        idx_t v;

        for (v = 0; v < g->n; v++)
            part[v] = v;
        return 0;
    }
    if ((rc = metis_arrays(g, &xadj32, &adjw32)))
        return rc;
    st = METIS_PartGraphKway(&nv, &nc, xadj32, g->adj, g->vw, NULL,
                             adjw32 ? adjw32 : g->adjw, &np, NULL, ub, options,
                             &obj, part);
    free(xadj32);
    free(adjw32);
    if (st != METIS_OK)
        return dp_error(DP_EMETIS,
                        "METIS_PartGraphKway failed (status %d) on the "
                        "coarsest graph of %d nodes",
                        st, (int)g->n);
    return 0;
}

static void level_release(struct level *l)
{
    if (l->spill.fd >= 0) {
        l->g.adj = l->g.adjw = NULL;
        dp_spill_close(&l->spill);
    }
    ml_graph_release(&l->g);
    free(l->map);
    l->map = NULL;
}

/* One multilevel run: the levels, the bounds, and the part ids of the
 * level being refined. */
struct ml_run {
    const struct ml_params *pr;
    const struct ml_policy *pol;
    struct level lv[MAX_LEVELS + 1];
    struct level_pages pages;
    void *watch;
    int stop; /* coarsen to about stop * K nodes */
    int64_t total[64], cap[64];
    int64_t *maxw; /* [K][ncon] each part's bound */
    uint64_t seed;
    int L;        /* the coarsest level built so far, or being refined */
    int dropped;  /* the finest level went and is to be made again */
    int64_t m0;   /* its entries, then */
    int64_t cut;  /* the last level refined's cut, as FM kept it */
    int counts;   /* every constraint counts nodes (fine_counts) */
    idx_t *cpart; /* part ids of lv[L] */
    int64_t *pw, *conn;
};

/* Whether each node weighs 1 on one constraint and 0 on the others: the
 * constraints count nodes (of each kind), not edges. */
static int fine_counts(const struct ml_graph *g, int ncon)
{
    idx_t v;
    int c;

    for (v = 0; v < g->n; v++) {
        const idx_t *w = g->vw + (size_t)v * ncon;
        idx_t sum = 0;

        /* a node weighing 0 everywhere is fine too */
        for (c = 0; c < ncon; c++) {
            if (w[c] < 0 || w[c] > 1)
                return 0;
            sum += w[c];
        }
        if (sum > 1)
            return 0;
    }
    return 1;
}

/* Clusters no heavier than twice an average node of the coarsest graph
 * METIS gets: it keeps enough nodes to balance and cut well (KaMinPar's
 * eps * W / k alone lets one level swallow the graph when only label
 * propagation refines it); parts no heavier than imbalance * W / k. */
static void run_bounds(struct ml_run *r, const struct ml_graph *fine)
{
    int ncon = r->pr->ncon, K = r->pr->K, j, b;
    int64_t m;
    double imb = r->pr->imbalance, eps = imb - 1.0 > 0.01 ? imb - 1.0 : 0.01;
    idx_t v;

    for (j = 0; j < ncon; j++)
        r->total[j] = 0;
    for (v = 0; v < fine->n; v++)
        for (j = 0; j < ncon; j++)
            r->total[j] += fine->vw[(size_t)v * ncon + j];
    for (j = 0; j < ncon; j++) {
        double cw = 2.0 * (double)r->total[j] / ((double)r->stop * K);
        double ew = eps * (double)r->total[j] / K;

        r->cap[j] = (int64_t)(cw < ew ? cw : ew);
        if (r->cap[j] < 1)
            r->cap[j] = 1;
        m = (int64_t)(imb * (double)r->total[j] / K);
        /* never below the average part (tiny totals round down) */
        if (m * K < r->total[j])
            m = (r->total[j] + K - 1) / K;
        for (b = 0; b < K; b++)
            r->maxw[(size_t)b * ncon + j] = m;
    }
}

static int run_init(struct ml_run *r, const struct ml_graph *fine,
                    const struct ml_params *pr, const struct ml_policy *pol)
{
    int L;

    memset(r, 0, sizeof(*r));
    if (pr->ncon > 64)
        return dp_error(DP_EINVAL, "%d balance constraints (at most 64)",
                        pr->ncon);
    r->pr = pr;
    r->pol = pol;
    r->seed = pr->seed < 0 ? 1 : (uint64_t)pr->seed;
    if (!(r->maxw = dp_malloc_array((size_t)pr->K * (size_t)pr->ncon + 1,
                                    sizeof(*r->maxw))))
        return DP_ENOMEM;
    for (L = 0; L <= MAX_LEVELS; L++)
        r->lv[L].spill.fd = -1;
    r->lv[0].g = *fine;
    pthread_mutex_init(&r->pages.mu, NULL);
    r->pages.lv = r->lv;
    r->pages.fine = pol->fine_spill;
    /* METIS's time on the coarsest graph grows with K and its edges:
     * rmat21, K = 64 at 8000 a part (one level, 444K nodes) spent 215 of
     * 235 s and 5.4 GiB there; at 1000 a part, 141 s, 2.7 GiB and no
     * worse a cut */
    r->stop = pol->nodes_per_part ? pol->nodes_per_part : NODES_PER_PART;
    if (!pol->nodes_per_part && (int64_t)r->stop * pr->K > COARSEST_MAX)
        r->stop = COARSEST_MAX / pr->K > 1 ? COARSEST_MAX / pr->K : 1;
    if (pol->scratch)
        r->watch =
            dp_file_watch(pol->level_rss_cap, drop_level_pages, &r->pages);
    run_bounds(r, fine);
    r->counts = fine_counts(fine, pr->ncon);
    return 0;
}

/* The finest level's arrays rest (in their file) or go (to be made again)
 * once level 1 is built; a coarse level's rest while coarser ones are. */
static void rest_finer(struct ml_run *r)
{
    const struct ml_policy *pol = r->pol;

    if (r->L == 0 && pol->fine_spill)
        dp_spill_drop(pol->fine_spill);
    if (r->L == 0 && pol->again) {
        /* the copy reads the whole graph: its pages are still watched
         * (rmat 27: 13 GB of them mapped at once without) */
        if (pol->again->keep)
            pol->again->keep(pol->again->arg);
        pthread_mutex_lock(&r->pages.mu);
        r->pages.fine = NULL;
        pthread_mutex_unlock(&r->pages.mu);
        r->m0 = r->lv[0].g.xadj[r->lv[0].g.n];
        pol->again->drop(pol->again->arg);
        r->lv[0].g.xadj = NULL;
        r->lv[0].g.adj = NULL;
        r->dropped = 1;
    }
    if (r->L > 0 && r->lv[r->L].spill.fd >= 0)
        dp_spill_drop(&r->lv[r->L].spill);
}

/* Cluster level g, through a compressed copy of its lists when the policy
 * asks (issue 36's first step: the parts are the same either way). */
static int cluster_level(struct ml_run *r, const struct ml_graph *g,
                         const int64_t *lcap, idx_t *clus, int *rounds)
{
    struct ml_cgraph cg;
    int rc;

    if (r->pol->compress &&
        (rc = ml_cg_build(&cg, g->n, g->xadj, g->adj, g->adjw, 1)))
        return rc;
    rc = ml_cluster(g, r->pol->compress ? &cg : NULL, r->pr->ncon, lcap,
                    r->seed + (uint64_t)r->L, clus, rounds);
    if (r->pol->compress) {
        dp_log(DP_LOG_VV, "level %d compressed: %.2f bytes an entry", r->L,
               (double)ml_cg_size(&cg) / (double)(cg.m ? cg.m : 1));
        ml_cg_release(&cg);
    }
    return rc;
}

/* The scratch file level r->L's rows (g) are in, or NULL. */
static const struct dp_spill *level_spill(const struct ml_run *r)
{
    const struct dp_spill *sp = r->L ? &r->lv[r->L].spill : r->pol->fine_spill;

    return sp && sp->fd >= 0 ? sp : NULL;
}

/* g's rows' bytes are beyond the cap on the levels' mapped pages. */
static int rows_past_cap(const struct ml_run *r, const struct ml_graph *g)
{
    size_t rows = ((size_t)g->n + 1) * sizeof(int64_t) +
                  (size_t)g->xadj[g->n] * (g->adjw ? 8 : 4);

    return rows > r->pol->level_rss_cap;
}

/* The file FM reads coarse level r->L's moved rows from with pread, when
 * they are in one beyond the cap; else NULL. Not the finest level: its
 * rows are in ascending degree order, so the low-degree nodes most moves
 * are of share pages, and the mapping served them faster (FM on rmat 25,
 * 256 MiB cap: level 1 108 s mapped, 34 s read; level 2 32 s, 19 s;
 * level 0 57 s, 83 s; rmat 23 with 64 MiB alike). Its compressed copy
 * (--no_cache) too: 26.8-27.7 s mapped, 32.4-33.2 s read. */
static const struct dp_spill *level_file(const struct ml_run *r,
                                         const struct ml_graph *g)
{
    return r->L && rows_past_cap(r, g) ? level_spill(r) : NULL;
}

/* Bands of a contraction of g (ct_bands): when its rows are in a file
 * and larger than the cap on mapped file pages, half the cap a band (two
 * are made at once); else 0, rows read at random. DGLPART_TEST_CT_BAND
 * sets the bytes for any level in a file (tests). */
static size_t band_bytes(const struct ml_run *r, const struct ml_graph *g)
{
    int64_t test = -1;

    if (!level_spill(r))
        return 0;
    if (!dp_env_size("DGLPART_TEST_CT_BAND", &test) && test > 0)
        return (size_t)test;
    return rows_past_cap(r, g) ? r->pol->level_rss_cap / 2 : 0;
}

/* Build level L + 1 from level L: 0 and r->L advanced, 1 when the level
 * would not shrink the graph enough (not built), or an error. */
static int coarsen_level(struct ml_run *r, idx_t *clus)
{
    const struct ml_params *pr = r->pr;
    struct level *lv = r->lv;
    int L = r->L, ncon = pr->ncon, rounds = 0, rc;
    struct ml_graph *g = &lv[L].g;
    int64_t lcap[64], m0 = g->xadj[g->n], near = (int64_t)r->stop * pr->K;
    idx_t nc = 0, v, *mark = lv[L + 1].map;
    double t1 = dp_now(), t2;

    level_cap(g, ncon, r->cap, lcap);
    if ((rc = dp_check_interrupt()) ||
        (rc = cluster_level(r, g, lcap, clus, &rounds)))
        return rc;
    t2 = dp_now();
    /* a level that would keep most of its nodes is not built */
    memset(mark, 0, (size_t)g->n * sizeof(*mark));
    for (v = 0; v < g->n; v++)
        if (!mark[clus[v]]++)
            nc++;
    if ((double)nc > STALL * (double)g->n) {
        dp_log(DP_LOG_VV, "level %d would keep %d of %d nodes: not built",
               L + 1, (int)nc, (int)g->n);
        return 1;
    }
    /* near the goal, a level that would keep most of its entries is not
     * built either: METIS does as well on the finer graph (rmat's last
     * level shed 1-3% of them) */
    if ((rc = ml_contract(g, ncon, clus, SHED, g->n <= 2 * near ? STALL : 1.0,
                          r->seed + (uint64_t)L, r->pol->scratch,
                          r->pol->spill_min, band_bytes(r, g), &lv[L + 1].spill,
                          &lv[L + 1].g, lv[L + 1].map)))
        return rc;
    if (!lv[L + 1].g.n) {
        dp_log(DP_LOG_VV,
               "level %d would keep over %.0f%% of %" PRId64
               " entries: not built",
               L + 1, 100 * STALL, m0);
        return 1;
    }
    rest_finer(r);
    r->L = ++L;
    set_top(&r->pages, L);
    dp_log(DP_LOG_VV,
           "level %d: %d nodes, %" PRId64 " edges (%.2f of the level "
           "before); clustering %d rounds %.2f s, contraction %.2f s",
           L, (int)lv[L].g.n, lv[L].g.xadj[lv[L].g.n],
           (double)lv[L].g.xadj[lv[L].g.n] / (double)(m0 ? m0 : 1), rounds,
           t2 - t1, dp_now() - t2);
    return 0;
}

/* Coarsen until about stop nodes a part are left, or a level stalls. */
static int coarsen(struct ml_run *r)
{
    struct dp_progress bar;
    int64_t n0 = r->lv[0].g.n, goal = (int64_t)r->stop * r->pr->K;
    int rc = 0;

    /* nodes merged away, out of those between the graph and the goal */
    dp_progress_start(&bar, "coarsening", n0 > goal ? (uint64_t)(n0 - goal) : 0,
                      0);
    while (r->L < MAX_LEVELS && r->lv[r->L].g.n > goal) {
        idx_t *clus =
            dp_malloc_array((size_t)r->lv[r->L].g.n + 1, sizeof(*clus));
        struct level *next = &r->lv[r->L + 1];

        next->map = dp_malloc_array((size_t)r->lv[r->L].g.n + 1, sizeof(idx_t));
        rc = clus && next->map ? coarsen_level(r, clus) : DP_ENOMEM;
        free(clus);
        if (rc) {
            /* a level not built, or one that failed to */
            free(next->map);
            next->map = NULL;
            break;
        }
        dp_progress_update(&bar, (uint64_t)(n0 - r->lv[r->L].g.n));
    }
    dp_progress_end(&bar);
    return rc < 0 || rc > 1 ? rc : 0;
}

/* METIS on the coarsest level, then its refinement; with no level, METIS
 * writes the caller's array directly. */
static int initial(struct ml_run *r, idx_t *part)
{
    const struct ml_params *pr = r->pr;
    struct level *c = &r->lv[r->L];
    struct dp_ticker tick;
    double t0 = dp_now();
    int rc;

    r->cpart = r->L ? dp_malloc_array((size_t)c->g.n + 1, sizeof(idx_t)) : part;
    r->pw =
        dp_malloc_array((size_t)pr->K * (size_t)pr->ncon + 1, sizeof(*r->pw));
    r->conn = dp_calloc(2 * (size_t)pr->K + 1, sizeof(*r->conn));
    if (!r->cpart || !r->pw || !r->conn)
        return DP_ENOMEM;
    /* METIS reads its input at the start and the end, as the whole-graph
     * path's: the pages leave while it allocates (rmat23: 1.0 GiB of a
     * 134M-entry coarsest graph beside METIS's 1.4 GiB) */
    dp_spill_watch(&c->spill, 1);
    dp_ticker_start(&tick, "METIS on the coarsest graph");
    rc = metis_coarsest(&c->g, pr->ncon, pr->K, pr->imbalance, pr->seed,
                        r->cpart);
    dp_ticker_stop(&tick);
    dp_spill_watch(&c->spill, 0);
    if (rc)
        return rc;
    if (dp_verbose)
        dp_timer_report("METIS on the coarsest graph", t0);
    part_weights(&c->g, pr->ncon, pr->K, r->cpart, r->pw);
    return refine_level(&c->g, NULL, pr->ncon, pr->K, r->counts, r->maxw,
                        r->cpart, r->pw, r->conn, r->seed + (uint64_t)r->L,
                        r->L, &r->cut);
}

/* Project onto each finer level and refine it, down to part. */
static int uncoarsen_levels(struct ml_run *r, idx_t *part,
                            struct dp_progress *bar)
{
    const struct ml_params *pr = r->pr;
    const struct ml_policy *pol = r->pol;
    int rc;

    while (r->L > 0) {
        struct ml_graph *f = &r->lv[r->L - 1].g;
        idx_t v, *fpart = r->L == 1 ? part
                                    : dp_malloc_array((size_t)f->n + 1,
                                                      sizeof(idx_t));

        if (!fpart)
            return DP_ENOMEM;
        for (v = 0; v < f->n; v++)
            fpart[v] = r->cpart[r->lv[r->L].map[v]];
        free(r->cpart);
        r->cpart = fpart;
        set_top(&r->pages, r->L - 1);
        level_release(&r->lv[r->L]);
        r->L--;
        if (r->L == 0 && r->dropped) {
            /* a compressed graph serves FM with its gain table only */
            int cg_ok = fm_table_fits(f->n, pr->K, r->m0);

            if ((rc = pol->again->make(pol->again->arg, &r->lv[0].g, cg_ok)))
                return rc;
            r->dropped = 0;
            pthread_mutex_lock(&r->pages.mu);
            r->pages.fine = pol->fine_spill && pol->fine_spill->fd >= 0
                                ? pol->fine_spill
                                : NULL;
            pthread_mutex_unlock(&r->pages.mu);
        }
        if ((rc = dp_check_interrupt()) ||
            (rc = refine_level(f, level_file(r, f), pr->ncon, pr->K, r->counts,
                               r->maxw, r->cpart, r->pw, r->conn,
                               r->seed + (uint64_t)r->L, r->L, &r->cut)))
            return rc;
        dp_progress_update(bar, bar->total - (uint64_t)r->L);
    }
    return 0;
}

static int uncoarsen(struct ml_run *r, idx_t *part)
{
    struct dp_progress bar;
    int rc;

    if (!r->L)
        return 0;
    dp_progress_start(&bar, "refining levels", (uint64_t)r->L, 0);
    rc = uncoarsen_levels(r, part, &bar);
    dp_progress_end(&bar);
    return rc;
}

/* DP_EMETIS naming the first constraint a part still breaks. */
static int check_balance(const struct ml_run *r)
{
    const struct ml_params *pr = r->pr;
    int over_p = -1, over_j = -1;
    int64_t over =
        overweight(r->pw, r->maxw, pr->ncon, pr->K, &over_p, &over_j);

    if (!over)
        return 0;
    return dp_error(DP_EMETIS,
                    "balance constraint %d cannot be met: part %d holds "
                    "%" PRId64 ", %" PRId64 " over its bound of %" PRId64
                    " (--imbalance %.3f)",
                    over_j, over_p, r->pw[(size_t)over_p * pr->ncon + over_j],
                    over, r->maxw[(size_t)over_p * pr->ncon + over_j],
                    pr->imbalance);
}

static void run_release(struct ml_run *r, const idx_t *part)
{
    dp_file_watch_stop(r->watch);
    while (r->L > 0)
        level_release(&r->lv[r->L--]);
    if (r->cpart != part)
        free(r->cpart);
    free(r->pw);
    free(r->conn);
    free(r->maxw);
    pthread_mutex_destroy(&r->pages.mu);
}

int ml_partition(const struct ml_graph *fine, const struct ml_params *pr,
                 const struct ml_policy *pol, idx_t *part, int *levels,
                 int64_t *cut)
{
    struct ml_run r;
    double t0 = dp_now();
    int rc;

    if ((rc = run_init(&r, fine, pr, pol)))
        return rc;
    rc = coarsen(&r);
    if (levels)
        *levels = r.L;
    if (!rc && dp_verbose)
        dp_timer_report("coarsening", t0);
    t0 = dp_now();
    if (!rc && !(rc = initial(&r, part)) && !(rc = uncoarsen(&r, part))) {
        r.cpart = part; /* it is part now */
        /* the finest level is always the last refined */
        if (cut)
            *cut = r.cut;
        if (dp_verbose)
            dp_timer_report("uncoarsening and refinement", t0);
        rc = check_balance(&r);
    }
    run_release(&r, part);
    return rc;
}

int ml_fm_fixed(const struct ml_graph *g, idx_t nfree, int ncon, int K,
                const int64_t *maxw, idx_t *part, int64_t *pw, uint64_t seed)
{
    int64_t *conn = dp_calloc(2 * (size_t)K + 1, sizeof(*conn));
    int rc;

    if (!conn)
        return DP_ENOMEM;
    rc =
        fm_refine(g, NULL, nfree, ncon, K, 0, maxw, part, pw, conn, seed, NULL);
    free(conn);
    return rc;
}

int ml_cut(const struct ml_graph *g, const idx_t *part, int64_t *cut)
{
    struct cut_job jb[2];
    int rc;

    memset(jb, 0, sizeof(jb));
    rc = cut_pair(jb, g, part, cut);
    cut_pair_free(jb);
    return rc;
}
