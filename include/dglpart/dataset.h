/* The converted dataset folder: convert's output and partition's input.
 *
 * DIR/meta.json      {"format": "dglpart-dataset", "version": 1, "name",
 *                     "num_nodes", "num_edges", "directed", "feat_dim",
 *                     "num_classes", "splits": [...], "node_weights" (ncon),
 *                     "source_format", "inputs": [{"path","size","sha256"}]}
 * DIR/indptr.npy     int64 [N+1]  in-edge CSC: edges grouped by destination
 * DIR/indices.npy    int64 [E]    source of each CSC entry
 * DIR/eids.npy       int64 [E]    input edge id of each CSC entry
 * DIR/feat.npy       float32 [N, D]            optional
 * DIR/label.npy      int64 [N]                 optional
 * DIR/{train,val,test}_mask.npy uint8 [N]      optional
 * DIR/node_weight.npy int64 [N, ncon]          optional (METIS vertex weights)
 * DIR/edge_weight.npy int64 [E]                optional, by input edge id
 */
#ifndef DGLPART_DATASET_H
#define DGLPART_DATASET_H

#include <stdint.h>

#include "dglpart/npy.h"

#define DP_DATASET_FORMAT "dglpart-dataset"
#define DP_DATASET_VERSION 1

struct dp_dataset_input {
    char *path; /* as given on the command line (owned) */
    uint64_t size;
    char sha256[65];
};

/* What meta.json records; filled by convert, read back by dp_dataset_open. */
struct dp_dataset_meta {
    char *name;          /* owned */
    char *source_format; /* "ogb", "edgelist", ... (owned) */
    int64_t num_nodes;
    int64_t num_edges;
    int directed;        /* 0 when --undirected doubled the edges */
    int64_t feat_dim;    /* 0: no feat.npy */
    int64_t num_classes; /* 0: no label.npy */
    int has_train, has_val, has_test;
    int64_t ncon; /* 0: no node_weight.npy */
    int has_edge_weight;
    int ninputs;
    struct dp_dataset_input *inputs; /* owned array */
};

void dp_dataset_meta_release(struct dp_dataset_meta *m);
/* Write DIR/meta.json atomically. */
int dp_dataset_write_meta(const char *dir, const struct dp_dataset_meta *m);
/* Read and check DIR/meta.json; *m owned by the caller (release it). */
int dp_dataset_read_meta(const char *dir, struct dp_dataset_meta *m);

/* An opened dataset: every array mapped read-only and checked against
 * meta.json (dtype, shape, indptr monotone, indices in range). */
struct dp_dataset {
    char *dir; /* owned */
    struct dp_dataset_meta meta;
    struct dp_npy indptr, indices, eids;
    struct dp_npy feat, label, train_mask, val_mask, test_mask;
    struct dp_npy node_weight, edge_weight; /* data NULL when absent */
};

/* Open DIR; on failure nothing is left mapped and the message names the
 * file and what was expected. */
int dp_dataset_open(struct dp_dataset *d, const char *dir);
void dp_dataset_release(struct dp_dataset *d);
/* Open feat.npy if meta.json now lists features and it is not open yet
 * (written after dp_dataset_open, by dp_convert_feat). */
int dp_dataset_open_feat(struct dp_dataset *d);

/* Typed views (valid while d is open). */
static inline const int64_t *dp_dataset_indptr(const struct dp_dataset *d)
{
    return (const int64_t *)d->indptr.data;
}
static inline const int64_t *dp_dataset_indices(const struct dp_dataset *d)
{
    return (const int64_t *)d->indices.data;
}
static inline const int64_t *dp_dataset_eids(const struct dp_dataset *d)
{
    return (const int64_t *)d->eids.data;
}

#endif
