/* The convert stage: a raw dataset (OGB layout, edge list, METIS .graph,
 * .npy folder, LINQS, .npz; typed: OGB's heterogeneous layout, DGL's
 * chunked format, a typed npy folder) in, a dataset folder (dataset.h) out. */
#ifndef DGLPART_CONVERT_H
#define DGLPART_CONVERT_H

#include <stdint.h>

#include "dglpart/dataset.h"

struct dp_convert_opts {
    const char *input;  /* file, folder or .zip */
    const char *out;    /* dataset folder to create (written as out.tmp) */
    const char *format; /* "auto", "ogb", "edgelist", "metis", "npy", "linqs",
                           "npz", "chunked", "typed-npy" */
    const char *name;   /* graph name; NULL: derived from the input */
    int name_fallback;  /* name is used only when the input names no graph
                           (chunked metadata.json's graph_name) */
    int undirected;     /* add the reverse of every edge (2k, 2k+1) */
    int no_self_loops;  /* drop u->u edges */
    int dedup;          /* drop repeated (u, v) pairs */
    int64_t num_nodes;  /* -1: max id + 1 or the input's own count */
    int overwrite;      /* replace an existing output folder */
    const char *labels; /* optional "<node> <label>" text file (e.g. SNAP's
                           email-Eu-core-department-labels.txt); NULL: none */
    int defer_feat;     /* OGB: leave raw/node-feat to dp_convert_feat */
    int ids64;          /* indices/eids as int64 even where int32 fits */
    int no_eids;        /* no eids.npy, unless edge weights or types need it */
    int add_reverse_edges; /* typed: dst:rel-rev:src for each src:rel:dst */
    /* copy per-type data from .npy chunks into the folder; else the folder
     * names the chunks and readers take the rows from them */
    int copy_data;
    /* edge arrays past this many bytes move to scratch files (0: at once);
     * -1: DGLPART_EDGE_SPILL's value */
    int64_t edge_spill;
    /* record no sha256 of the inputs, only their sizes: for a conversion
     * removed after the run (--no_cache), where hashing would read every
     * input a second time beside the conversion's own read */
    int no_input_hash;
};

/* Defaults: format "auto", num_nodes and edge_spill -1, everything else
 * off. */
void dp_convert_opts_init(struct dp_convert_opts *o);

/* Convert o->input into o->out. 0, or an error code with a one-line
 * message naming the file and line; nothing is left at o->out on failure. */
int dp_convert(const struct dp_convert_opts *o);

/* The same under mpirun, every rank of c reading a share of the input and
 * writing its part of o->out, a folder every rank sees (the ranks share
 * one cache): DGL's chunked format, whose chunks each go to one rank.
 * Collective. DP_EUNSUPPORTED on every rank, with nothing written and no
 * message, for any other input or for options that change the edges
 * (dp_convert then converts alone); otherwise as dp_convert, the message
 * naming the failing rank. */
struct dp_comm;
int dp_convert_dist(const struct dp_convert_opts *o, struct dp_comm *c);

/* What converting will give and take, estimated before converting. */
struct dp_convert_estimate {
    struct dp_dataset_shape shape; /* of the dataset convert will write */
    int64_t mem;                   /* convert's peak anonymous memory, bytes */
    int64_t scratch; /* its edge scratch files beside the output, bytes */
    /* the same with the edge arrays in scratch files (edge_spill 0) */
    int64_t mem_lean, scratch_lean;
    int exact;       /* the counts are the input's own, not sampled */
    const char *how; /* where they come from, for messages (static) */
};

/* Estimate o's convert from the input's headers, or from its first MiB
 * where it has none (edge lists; how close: convert/estimate.c), never
 * reading it whole. 0 and *est; DP_EUNSUPPORTED for layouts with no cheap
 * estimate (an OGB zip, typed OGB, typed npy folders) or a zip whose
 * directory cannot be read, or the error of an input the sampling cannot
 * read. */
int dp_convert_estimate(const struct dp_convert_opts *o,
                        struct dp_convert_estimate *est);

/* After dp_convert with defer_feat: read the OGB node features of o->input
 * into the dataset folder o->out (feat.npy, then meta.json's feat_dim and
 * inputs). 0 with nothing done when the input has none or is not OGB.
 * Safe to run beside a reader of the folder's other arrays. */
int dp_convert_feat(const struct dp_convert_opts *o);

#endif
