/* Inside the runtime: how part.c and share.c build a part between them,
 * and the sampler pool trainer.c runs its batches through (loader.c). */
#ifndef DGLPART_RT_INT_H
#define DGLPART_RT_INT_H

#include <stdint.h>

#include "dglpart/runtime.h"

/* ---- building a part (part.c) ---- */

struct dp_shm_build; /* a shared copy being built (share.c) */

/* Zero p and set its id and ranges from the book. */
int dp_part_init(struct dp_part *p, const struct dp_part_config *c,
                 const struct dp_book *b, int part);
/* Read graph.dgl and build p's in-edge arrays: in private memory, or
 * through sb into a shared copy being built (sb != NULL). graph.dgl is
 * unmapped again before returning. On failure the arrays placed in private
 * memory are p's to free (dp_part_release), those in sb are sb's. */
int dp_part_build(struct dp_part *p, const struct dp_part_config *c,
                  const struct dp_book *b, struct dp_shm_build *sb);
/* Map node_feat.dgl and edge_feat.dgl and check them against the config. */
int dp_part_load_feats(struct dp_part *p, const struct dp_part_config *c);

/* ---- the shared copy (share.c) ---- */

/* Size the shared copy for total entries (typed: with edge types), move
 * p->indptr into it and point p->src, p->eid (and p->etype) at it. */
int dp_shm_place(struct dp_shm_build *sb, struct dp_part *p, int64_t total,
                 int typed);
/* Unmap; the last process of the machine to let go removes the file. */
void dp_shm_release(struct dp_shm *s);

/* ---- mini-batches and the sampler pool (loader.c) ---- */

/* One mini-batch as the trainer checks it: each block's edges, the input
 * nodes with their feature rows, the seeds with label rows and in-degrees.
 * All borrowed from whoever made it. */
struct dp_batch_layer {
    int64_t num_edges;
    const int64_t *dst, *src, *eid;
};
struct dp_batch {
    uint64_t index; /* position in the job: epoch-major */
    uint32_t epoch;
    int num_layers;
    struct dp_batch_layer *layers; /* [num_layers] */
    int64_t num_inputs;
    const int64_t *inputs;
    const void *feat;    /* [num_inputs * feat_bytes] */
    uint64_t feat_bytes; /* one row */
    int64_t num_seeds;
    const int64_t *seeds;
    const void *labels; /* [num_seeds * label_bytes] */
    uint64_t label_bytes;
    const int64_t *deg;        /* [num_seeds] */
    double t_sample, t_gather; /* seconds its maker spent */
};

/* Worker statistics, reported as they finish. */
struct dp_pool_stats {
    uint64_t requests, bytes_sent, bytes_recv;
    double waited; /* seconds the trainer waited for batches */
};

/* What the workers run. In each worker, after the fork: setup(arg, w),
 * then for each of its batches make(arg, index, &b) and drop(arg, &b)
 * once b is queued, then finish(arg, st) (0 or an error), which may fill
 * in the requests and bytes of st. */
struct dp_pool_job {
    void *arg;
    int (*setup)(void *arg, int worker);
    int (*make)(void *arg, uint64_t index, struct dp_batch *b);
    void (*drop)(void *arg, struct dp_batch *b);
    int (*finish)(void *arg, struct dp_pool_stats *st);
    uint64_t count;   /* batches in the job */
    int num_layers;   /* of every batch */
    const char *name; /* "sampler", for messages */
};

struct dp_pool;
/* Fork `workers` processes; worker w makes batches w, w + workers, ...
 * and keeps at most `slots` of them made but not yet taken. */
int dp_pool_start(struct dp_pool **out, const struct dp_pool_job *job,
                  int workers, int slots);
/* Batch `index` (taken in order) into *b, valid until the next call. A
 * worker that dies or fails makes this fail, naming it. */
int dp_pool_next(struct dp_pool *p, uint64_t index, struct dp_batch *b);
/* After the last batch: wait for the workers to end (0 when all ended
 * well) and add up their statistics. */
int dp_pool_finish(struct dp_pool *p, struct dp_pool_stats *st);
/* Kill what still runs and free; accepts NULL. */
void dp_pool_free(struct dp_pool *p);

#endif
