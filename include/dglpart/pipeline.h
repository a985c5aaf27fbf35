/* The whole pipeline, `dglpart run` (or `dglpart` with flags first):
 * download when needed, convert once (cached), partition. It sits above the
 * stages and is the only library code that calls more than one of them. */
#ifndef DGLPART_PIPELINE_H
#define DGLPART_PIPELINE_H

#include "dglpart/partition.h"

/* The pipeline's node data names, those of DGL's distributed examples. */
#define DP_RUN_NDATA_NAME "feat=features,label=labels"

struct dp_run_opts {
    const char *dataset; /* name or path; NULL: bundled Cora */
    const char *cache;   /* where converted datasets live ("dataset") */
    struct dp_partition_opts part; /* part.dataset is filled in by run */
    const char *data_dir; /* download stage's data dir; NULL: its default */
    const char *mirror;   /* download mirror; NULL: $DGLPART_MIRROR */
};

void dp_run_opts_init(struct dp_run_opts *o);

/* A --dataset value resolved to a local raw input. */
struct dp_run_input {
    char *path;     /* file or folder to convert (owned) */
    char *name;     /* short name: cache folder and graph name (owned) */
    char *format;   /* convert --format: "auto" or the registry's (owned) */
    int undirected; /* the registry says: add reverse edges */
    int dedup, no_self_loops; /* and these convert flags (DGL's loading) */
};

/* Resolve o->dataset (NULL: bundled Cora): an existing path, else a name in
 * the dataset registry or a URL, fetched by the download stage (a cached,
 * verified download is reused without any request). */
int dp_run_resolve_dataset(const struct dp_run_opts *o,
                           struct dp_run_input *in);
void dp_run_input_release(struct dp_run_input *in);

/* Convert (cached by the sha256 of the inputs) then partition; prints the
 * config path on stdout. */
int dp_run(struct dp_run_opts *o);

#endif
