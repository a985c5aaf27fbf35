/* dglpart verify: check a partition set (ours or DGL's) against its config,
 * DGL's layout rules and, optionally, the converted input dataset. */
#ifndef DGLPART_VERIFY_H
#define DGLPART_VERIFY_H

#include <stdint.h>
#include <stdio.h>

struct dp_verify_opts {
    const char *config;  /* the partition config JSON */
    const char *dataset; /* a converted dataset folder (dataset.h), or NULL */
    FILE *err;           /* one line per problem; NULL prints nothing */
    int max_lines;       /* problem lines printed before going quiet; 0: 100 */
    const char *ndata_name; /* "OLD=NEW,..." the parts were written with */
    const char *edata_name; /* likewise for edge data */
};

struct dp_verify_part {
    int64_t inner_nodes, halo_nodes;
    int64_t inner_edges, local_edges;
    int64_t train_nodes; /* -1 when the part has no _N/train_mask */
};

struct dp_verify_stats {
    int num_parts;
    int halo_hops;
    int halo_edges_in; /* the parts hold no out-edge halo: only the in-edges
                          of the nodes within the hops */
    int64_t num_nodes, num_edges;
    int64_t edge_cut; /* edges whose endpoints have different owners */
    struct dp_verify_part *parts;                     /* [num_parts], owned */
    double node_balance, edge_balance, train_balance; /* max / avg */
    int orig_ids;     /* 0 none, 1 DGL's top-level .npy, 2 per part */
    int no_orig_eids; /* node ids only: no orig_eids.npy / .dgl */
    int dataset_checked;
    /* the dataset's edges compared by endpoints, not by input edge id: 1
     * the set has no orig edge ids, 2 the dataset has no eids.npy */
    int edges_by_ends;
    int edge_data_skipped; /* the dataset's edge data, no orig edge ids */
    int64_t problems;      /* problem lines (each may cover many items) */
};

/* Run every check. Returns 0 when all pass; DP_EFORMAT ("N problems
 * found") when some fail, with *s filled either way so the caller can print
 * it; another code when verify itself could not run (out of memory). */
int dp_verify(const struct dp_verify_opts *o, struct dp_verify_stats *s);
/* Print the stats table. */
void dp_verify_print(const struct dp_verify_stats *s, FILE *out);
void dp_verify_stats_release(struct dp_verify_stats *s);

#endif
