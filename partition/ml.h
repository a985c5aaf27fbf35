/* The multilevel partitioner's pieces (partition/multilevel.c), for
 * metis.c and the unit tests; not a public API. */
#ifndef DGLPART_ML_H
#define DGLPART_ML_H

#include <stdint.h>

#include <metis.h>

#include "dglpart/memory.h"

/* A symmetric graph in METIS's arrays: xadj[n+1], adj[m], adjw[m] (NULL:
 * every edge weighs 1) and vw[n][ncon]. Node ids fit idx_t (int32). */
struct ml_graph {
    idx_t n;
    idx_t *xadj, *adj, *adjw, *vw;
};

/* Levels (and a fine graph) with this many adjacency entries rest in a
 * scratch file while other levels are worked on; smaller ones stay. */
#define ML_SPILL_MIN_ENTRIES ((size_t)8 << 20)

/* Free the arrays (for graphs the partitioner built). */
void ml_graph_release(struct ml_graph *g);

/* Size-constrained label propagation: clus[n] gets each node's cluster (a
 * node id), no cluster above cap[j] on any constraint j except a single
 * node that alone exceeds it. Deterministic for a seed. */
int ml_cluster(const struct ml_graph *g, int ncon, const int64_t *cap,
               uint64_t seed, idx_t *clus);

/* Contract g by clus into *c (coarse ids in order of cluster id; vertex and
 * edge weights summed, no self-loops); map[n] gets each node's coarse id.
 * c is owned by the caller (ml_graph_release). */
int ml_contract(const struct ml_graph *g, int ncon, const idx_t *clus,
                struct ml_graph *c, idx_t *map);

/* Partition fine into K parts: coarsen until about 8000 nodes a part (or a
 * stall), METIS_PartGraphKway on the coarsest graph, then project and
 * refine level by level (FM), no constraint above imbalance * total / K.
 * Big coarse levels rest in a scratch file in scratch (dp_spill; NULL:
 * none) while other levels are worked on; fine_spill, when the caller
 * spilled fine's arrays, is dropped once the first level is built.
 * part[n] gets the parts, *levels the number of coarse levels. DP_EMETIS
 * with the constraint, part and excess when balance cannot be met. */
int ml_partition(const struct ml_graph *fine, int ncon, int K, double imbalance,
                 int64_t seed, const char *scratch, struct dp_spill *fine_spill,
                 idx_t *part, int *levels);

#endif
