/* The partition stage: a dataset folder (dataset.h) in, a partition set in
 * DGL's own format out (reference/dgl.md §1-2): METIS, random or given
 * assignment, reshuffled contiguous ids, halo subgraphs, features. */
#ifndef DGLPART_PARTITION_H
#define DGLPART_PARTITION_H

#include <stdint.h>

#include "dglpart/dataset.h"

struct dp_partition_opts {
    const char *dataset;     /* dataset folder to read */
    const char *out;         /* output folder (written as out.tmp) */
    const char *graph_name;  /* NULL: the dataset's name */
    const char *part_method; /* "metis" or "random" */
    const char *part_assign; /* file of part ids (text or .npy), or NULL */
    int num_parts;
    int balance_train;
    int balance_edges;
    /* typed: the node type whose train_mask --balance_train balances */
    const char *balance_ntypes;
    int num_hops; /* halo hops, default 1 */
    /* --halo_edges in: only the in-edges of the nodes within num_hops
     * (DGL's dispatch_data layout), no out-edges leaving the part (DGL's
     * partition_graph step (c)); 0: all, partition_graph's layout */
    int halo_in;
    int objtype_vol;          /* METIS objective: 0 edge cut, 1 volume */
    int num_trainers;         /* num_trainers_per_machine, default 1 */
    double imbalance;         /* METIS ubvec per constraint, default 1.03 */
    int64_t seed;             /* METIS and random seed; -1 (default):
                                 METIS's own default seed, 0 for random */
    int graph_formats;        /* DP_FMT_* bits for graph.dgl; 0: COO */
    int no_orig_ids;          /* skip part<i>/orig_{nids,eids}.dgl */
    int no_orig_eids;         /* skip part<i>/orig_eids.dgl */
    int overwrite;            /* replace an existing output folder */
    const char *write_metis;  /* write METIS's input graph here and stop */
    const char *write_assign; /* also write the assignment here */
    const char *ndata_name;   /* "OLD=NEW,..." renames of node data, or NULL */
    const char *edata_name;   /* the same for edge data */
    int metis_mode;           /* DP_METIS_AUTO (default), _EXACT, _MULTILEVEL */
    int quiet;                /* no stats summary on stdout */
    int64_t mem_limit;        /* --mem_limit in bytes; 0: MemAvailable */
    /* Called once the parts are known, before any is written; its error
     * aborts. The dataset's node features are opened after it, so they
     * may be written meanwhile (the pipeline converts them beside METIS). */
    int (*ready)(void *arg);
    void *ready_arg;
    /* The dataset is scratch (dglpart run --no_cache): its edge files are
     * deleted once the parts no longer read them. */
    int discard_edges;
    /* Save disk over time (dglpart run --no_cache): the symmetrised graph
     * is made again for the last refinement rather than kept while the
     * coarse levels are (DP_LEAN_DISK). */
    int lean_disk;
    /* The dataset is what this process's convert has just written (dglpart
     * run): its indices and eids are not read through once more to check
     * their ranges (rmat 27: 12.9 GB of them, 10-15 s). */
    int fresh;
    /* A dataset already open (the arrays of dglpart's Python package, see
     * arrays.h) instead of the folder o->dataset; borrowed, never
     * discarded. */
    const struct dp_dataset *mem;
    /* DGL's balance_ntypes as classes, cls[N] in [0, num_classes), or
     * NULL: replaces --balance_train and the node-type classes of a typed
     * dataset (dp_vweights_classes). Borrowed. */
    const int32_t *balance_class;
    int num_classes;
    /* When not NULL, filled once the ids are shuffled: orig_nids[N] the
     * input id of every shuffled node, orig_eids[E] of every shuffled edge
     * (partition_graph's return_mapping). Typed: grouped by type in type
     * order, each group in shuffled order and counted from the type's
     * first id, so a type's slice is DGL's per-type mapping. */
    int64_t *orig_nids, *orig_eids;
    int no_stats; /* no partition-stats.json (DGL writes none) */
};

/* Defaults: metis, 1 hop, cut, 1 trainer, imbalance 1.03, seed -1. */
void dp_partition_opts_init(struct dp_partition_opts *o);

/* Partition o->dataset into o->out. 0, or an error code with a one-line
 * message; on failure nothing is left at o->out (an existing folder kept
 * with --overwrite stays as it was). */
int dp_partition(const struct dp_partition_opts *o);

/* dp_partition over the ranks of an mpirun (comm.h): every rank gives the
 * same options and sees the same dataset (checked); each maps it and works
 * on its share of the nodes, the distributed multilevel path partitions
 * (or o->part_assign / random assigns), and part p is written by rank
 * p % P into that rank's o->out. Ranks whose o->out is the same folder
 * (one disk) write it together. 0 or the first failing rank's error on
 * every rank; nothing is left at any o->out on failure. */
struct dp_comm;
int dp_partition_dist(const struct dp_partition_opts *o, struct dp_comm *c);

/* Parse "coo,csc,csr" into DP_FMT_* bits. */
int dp_parse_graph_formats(const char *s, int *out);

/* The command-line options of `dglpart partition`, shared with the
 * pipeline command so the two cannot drift: a getopt_long table (values
 * from DP_PARTITION_OPT_FIRST up), its usage text, and the handler that
 * applies one parsed option (0, or an error recorded). */
#define DP_PARTITION_OPT_FIRST 256
struct option;
extern const struct option *const dp_partition_longopts;
extern const char *const dp_partition_usage;
int dp_partition_parse_opt(struct dp_partition_opts *o, int opt,
                           const char *arg);

/* ---- the budget (partition/budget.c) ---- */

/* Lean when the in-memory plan takes more than this share of the budget:
 * the estimates are rough and the page cache needs room too. */
#define DP_BUDGET_HEADROOM 0.5

/* What a run will need, estimated from the dataset's sizes and the options
 * before any long work, and what it has. */
struct dp_budget {
    int64_t mem;        /* peak anonymous memory planned, bytes */
    int64_t mem_limit;  /* o->mem_limit */
    int64_t mem_avail;  /* the limit, else MemAvailable; -1: unknown */
    int64_t disk;       /* output, or scratch files if more, bytes */
    int64_t disk_avail; /* free on the output's file system; -1: unknown */
    int lean;           /* every graph that can go to a scratch file does
                           (the in-memory plan leaves too little room) */
    int sym_one_band;   /* symmetrising in one band keeps below mem */
};

/* The plan alone, from a dataset's sizes (an opened dataset's, or those
 * the pipeline estimates from the raw input before converting): fills b
 * but disk_avail (-1) and compares nothing. 0, or the error of a
 * malformed DGLPART_SPILL. */
int dp_partition_plan(const struct dp_partition_opts *o,
                      const struct dp_dataset_shape *s, struct dp_budget *b);

/* Plan o's run on d into *b: 0, or DP_ETOOBIG with one line giving the
 * memory or the disk needed and available. */
int dp_partition_budget(const struct dp_partition_opts *o,
                        const struct dp_dataset *d, struct dp_budget *b);

/* ---- assignment (partition/assign.c, partition/metis.c) ---- */

/* METIS vertex-weight columns as DGL builds them from the options, plus a
 * node-count column when balance_edges would lose it, plus the dataset's
 * own node_weight columns. A typed dataset balances DGL's classes: each
 * node type, the train type split by its mask (train_ntype names it, NULL:
 * the one type with a train_mask). w is row-major [N][ncon], caller frees;
 * names describe each column for the stats (static strings or namebuf:
 * do not copy the struct). */
struct dp_vweights {
    int ncon;
    int32_t *w; /* NULL when ncon == 1 and every weight is 1;
                   every column sum is checked to fit idx_t */
    const char *names[16];
    char namebuf[16][64];
};
int dp_vweights_build(const struct dp_dataset *d, int balance_train,
                      int balance_edges, const char *train_ntype,
                      struct dp_vweights *vw);
/* The columns of DGL's balance_ntypes given as classes: one 0/1 column a
 * class, and with balance_edges the in-degree of each class (DGL's
 * construction). cls[N] in [0, nclass); for partition_graph's callers,
 * which compute the classes from their own arrays. */
int dp_vweights_classes(const struct dp_dataset *d, const int32_t *cls,
                        int nclass, int balance_edges, struct dp_vweights *vw);
void dp_vweights_release(struct dp_vweights *vw);

/* How dp_metis_assign partitions: METIS on the whole graph (exact), or the
 * multilevel path (partition/multilevel.c: our label-propagation
 * coarsening, METIS on the coarsest graph, our refinement); auto takes the
 * multilevel path for the edge cut above DP_ML_AUTO_ENTRIES symmetrised
 * adjacency entries, where it is several times faster and leaner. */
enum { DP_METIS_AUTO, DP_METIS_EXACT, DP_METIS_MULTILEVEL };
#define DP_ML_AUTO_ENTRIES (16 << 20)

/* Partition the symmetrised graph of d (self-loops and repeated pairs
 * dropped) with METIS as mode says. parts[N] receives ids in [0, nparts).
 * *objval is the edge cut (or METIS's volume). *levels (may be NULL) gets
 * the multilevel path's coarse levels, -1 when METIS ran on the whole
 * graph. All narrowing to idx_t is checked here. scratch, when not NULL,
 * is a path on the output's disk: METIS's copy of the graph goes to a
 * scratch file in it or its nearest existing parent (dp_spill), unless
 * DGLPART_SPILL=0; lean with DP_LEAN_MEM puts every graph there that can
 * go (for a small --mem_limit), else only big ones; with DP_LEAN_DISK the
 * multilevel path drops the symmetrised graph once its first level is
 * built and makes it again for the last refinement, so its scratch file
 * and the levels' are not on the disk at once. The result does not depend
 * on lean. The multilevel path works in its own node order and moves
 * vw->w there and back (the same weights on return, perhaps in another
 * block). */
#define DP_LEAN_MEM 1
#define DP_LEAN_DISK 2
/* The plan has room to symmetrise in one band, one sweep of the CSC, below
 * the run's planned peak (dp_budget.sym_one_band); without it, in two or
 * more. */
#define DP_SYM_ONE_BAND 4
int dp_metis_assign(const struct dp_dataset *d, struct dp_vweights *vw,
                    int nparts, double imbalance, int objtype_vol, int64_t seed,
                    const char *scratch, int lean, int32_t *parts,
                    int64_t *objval, int mode, int *levels);

/* Write the same graph and weights METIS gets, as a METIS .graph file, so
 * gpmetis can be run on exactly the same input. */
int dp_metis_write_graph(const struct dp_dataset *d,
                         const struct dp_vweights *vw, const char *path);

/* Seeded, exactly balanced random assignment (sizes differ by at most 1). */
void dp_random_assign(int64_t n, int nparts, uint64_t seed, int32_t *parts);

/* Read one part id per node from a text file (whitespace separated) or a
 * 1-D integer .npy; checks the length against n and every id < nparts. */
int dp_assign_read(const char *path, int64_t n, int nparts, int32_t *parts);

/* Read DGL's per-type assignment folder (reference/dgl.md 7): one
 * <ntype>.txt per node type of d (line i: the part of node i of that type;
 * "_N.txt" for an untyped dataset) and partition_meta.json, whose
 * num_parts must be nparts. parts[N] is indexed by homogeneous id. */
int dp_assign_read_dir(const char *dir, const struct dp_dataset *d, int nparts,
                       int32_t *parts);

/* Write parts[n] in the same formats (.npy int32, else one id per line), so
 * a rerun with other layout options can skip METIS via --part_assign. */
int dp_assign_write(const char *path, int64_t n, const int32_t *parts);

#endif
