/* The partition stage over the ranks of an mpirun (private to partition/):
 * a graph distributed by node ranges, its multilevel partition
 * (dist_graph.c, dist_lp.c, dist_refine.c, dist_ml.c) and the parts each
 * rank writes (dist_write.c). Every step is a sequence of collectives in a
 * fixed order over data in a fixed order, so the result depends on the
 * graph, the seed and the number of ranks, never on message timing. */
#ifndef DGLPART_DIST_H
#define DGLPART_DIST_H

#include <stdint.h>

#include "dglpart/comm.h"
#include "ml.h"

/* A symmetric graph spread over the ranks: rank r owns the nodes of
 * global ids [vtx[r], vtx[r + 1]). Locally, ids [0, n) are the owned
 * nodes, [n, n + ng) the ghosts: neighbours owned elsewhere, by ascending
 * global id (so each owner's are consecutive). */
struct dist_graph {
    struct dp_comm *comm;
    int P, rank;
    int64_t *vtx; /* [P + 1] */
    int64_t N;    /* nodes in all */
    int32_t n, ng;
    int64_t *xadj; /* [n + 1] */
    int32_t *adj;  /* local ids */
    int32_t *adjw; /* [xadj[n]] edge weights; NULL: all 1 */
    int ncon;
    int32_t *vw;    /* [n * ncon] */
    int64_t *ghost; /* [ng] global ids, ascending */
    /* The ghosts as their owners see them: for each rank, the owned nodes
     * that rank holds as ghosts (send lists, local ids ascending) and
     * where they land there (recv: ghost indices [roff[r], roff[r + 1])). */
    int32_t *sidx;
    int64_t *soff;   /* [P + 1] */
    int64_t *roff;   /* [P + 1] */
    int64_t entries; /* adjacency entries in all (every rank's) */
};

void dist_graph_release(struct dist_graph *g);
/* Free all but the node ranges (vtx, N, n). */
void dist_graph_release_edges(struct dist_graph *g);

/* The local id of global id x, owned or ghost; -1 when neither. */
int32_t dist_local(const struct dist_graph *g, int64_t x);
/* The global id of local id i. */
static inline int64_t dist_global(const struct dist_graph *g, int32_t i)
{
    return i < g->n ? g->vtx[g->rank] + i : g->ghost[i - g->n];
}

/* The symmetric graph of dataset d (METIS's input: unit weights, no
 * self-loops, no repeats), this rank's nodes about an equal share of the
 * nodes plus in-edges, read from their in-edges and their owners'. vw is
 * left for the caller ([n * ncon]). Without edges, only the node ranges
 * (vtx, n). */
struct dp_dataset;
int dist_graph_from_dataset(struct dp_comm *c, const struct dp_dataset *d,
                            int ncon, int edges, struct dist_graph *g);

/* Are N's ids held as int64 in the rows built (past 2^31, or under
 * DGLPART_TEST_WIDE_IDS, which takes small graphs that way too). */
int dist_wide(int64_t N);

/* Build the ghost lists and their exchange plan from adj, given as global
 * ids in gadj[xadj[n]] (int64 when wide, else int32), which this takes:
 * g->adj gets local ids (in gadj's memory when int32). */
int dist_graph_localise(struct dist_graph *g, void *gadj, int wide);

/* Send one value of width bytes per owned node in sidx order and receive
 * the ghosts' into ghost_vals[ng * width] (owned values first in vals). */
int dist_halo_exchange(const struct dist_graph *g, const void *vals,
                       size_t width, void *ghost_vals);

/* Rows put in place as counted: every row r of n filled up to
 * xadj[r + 1] (next[r] its fill), else dp_comm_bad: a peer sent fewer. */
void dist_check_filled(struct dp_comm *c, const char *what, const int64_t *next,
                       const int64_t *xadj, int64_t n);

/* Ids [b, e) of a (int64 when wide, else int32) sorted in place. */
void dist_sort_ids(void *a, int wide, int64_t b, int64_t e);

/* Personalised exchange by destination rank: items[n] of width bytes and
 * to[n] their ranks; *out (caller frees) gets what every rank sent here,
 * in rank order then item order, *nout items, from[P] (may be NULL) how
 * many from each rank. */
int dist_route(struct dp_comm *c, const void *items, size_t width,
               const int *to, int64_t n, void **out, int64_t *nout,
               int64_t *from);

/* Ask the owners: req[n] items of req_w bytes go to ranks to[n]; each
 * rank answers what it got with answer (ans_w bytes an item, in the order
 * the items came: rank order, then each asker's order), and ans[n] gets
 * the answer to each of this rank's items. */
typedef int (*dist_answer_fn)(void *arg, const void *reqs, int64_t n,
                              void *ans);
int dist_ask(struct dp_comm *c, const void *req, size_t req_w, const int *to,
             int64_t n, dist_answer_fn answer, void *arg, size_t ans_w,
             void *ans);

/* Global label-propagation clustering of g: clus[n + ng] gets each owned
 * and ghost node's cluster (a global node id); no cluster above cap[j] on
 * any constraint j (but a node alone), enforced by each cluster's owner. */
int dist_cluster(struct dist_graph *g, const int64_t *cap, uint64_t seed,
                 int64_t *clus);

/* Contract g by clus into *c (coarse nodes owned where their cluster id
 * is, numbered in id order); map[n] gets each owned node's coarse global
 * id. Unit-weight coarse edges are sampled (seeded) when the level would
 * keep more than about half of g's entries. */
int dist_contract(const struct dist_graph *g, const int64_t *clus,
                  uint64_t seed, struct dist_graph *c, int64_t *map);

/* Balance-aware label-propagation refinement: part[n] (owned nodes; the
 * ghosts' are fetched) moved to blocks with more edge weight, no block
 * above maxw[K][ncon] on any constraint. pw[K * ncon] the blocks'
 * weights, kept up to date. */
int dist_refine(const struct dist_graph *g, int K, const int64_t *maxw,
                int32_t *part, int64_t *pw, uint64_t seed);

/* The whole multilevel partition: part[n] of g's owned nodes; *levels the
 * distributed levels built. pr as ml_partition's; the coarsest graph is
 * gathered to rank 0 once its entries drop to gather_max, partitioned
 * there by ml_partition (pol), the result scattered back. */
int dist_partition(struct dist_graph *g, const struct ml_params *pr,
                   const struct ml_policy *pol, int64_t gather_max,
                   int32_t *part, int *levels);

#endif
