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
    /* convert into a scratch folder removed when the run ends (a valid
     * cached copy is still used) */
    int no_cache;
};

void dp_run_opts_init(struct dp_run_opts *o);

/* Convert (cached by the sha256 of the inputs) then partition; prints the
 * config path on stdout. */
int dp_run(struct dp_run_opts *o);

/* Resolve, download when needed and convert o->dataset into its cache
 * folder (reused when its stamp matches the inputs): *dir (owned) gets
 * the converted dataset. */
int dp_run_convert(const struct dp_run_opts *o, char **dir);

/* dp_run under mpirun: the lowest rank that writes into each cache
 * folder converts there, then every rank takes part in one distributed
 * partition (dp_partition_dist); rank 0 prints the config path. */
int dp_run_mpi(struct dp_run_opts *o);

#endif
