/* The partition stage's phases and what passes between them (private to
 * partition/): assignment (phase_assign.c) gives each node a part;
 * reshuffle (reshuffle.c) numbers nodes and edges contiguously by part;
 * the part writers (part_build.c, part_write.c) build each part's halo
 * subgraph and write its files; summary.c writes the config and the
 * stats. partition.c runs them in order. */
#ifndef DGLPART_PHASES_H
#define DGLPART_PHASES_H

#include <stdint.h>

#include "dglpart/dataset.h"
#include "dglpart/ids.h"
#include "dglpart/memory.h"
#include "dglpart/parse.h"
#include "dglpart/partition.h"

/* The single edge type of an untyped set, in DGL's canonical form. */
#define DP_ETYPE_HOM "_N:_E:_N"

/* ---- assignment ---- */

struct assign_in {
    const struct dp_partition_opts *o;
    const struct dp_dataset *d;
    int lean;     /* dp_partition_budget's: graphs in scratch files */
    int one_band; /* and its room to symmetrise in one band */
};

struct assign_out {
    int32_t *part; /* [n] part of each input node */
    int32_t *fine; /* [n] trainer-level part, or NULL (one trainer) */
    int64_t objval;
    int has_objval; /* METIS ran */
    int levels;     /* the multilevel path's levels; -1: METIS on all */
    struct dp_vweights vw;
};

int phase_assign(const struct assign_in *in, struct assign_out *out);
void assign_out_release(struct assign_out *a);

/* ---- reshuffle (reference/dgl.md 1b) ---- */

/* The graph in shuffled ids: nodes by part (typed: part then type), edges
 * by destination. Ids are int32 below 2^31 nodes (edges), unless wide. */
struct shuffle {
    int K, T, ET;
    int64_t n, e;
    int64_t *nstart, *estart;  /* [K+1] node and edge ranges */
    int64_t *tstart, *etstart; /* typed: [K*T+1], [K*ET+1] per (part,
                                  type) */
    struct dp_ids orig;        /* [n] shuffled node -> input node */
    int64_t *nptr;             /* [n+1] in-edge offsets by shuffled node */
    struct dp_ids esrc;        /* [e] (K > 1) shuffled source of each
                                  shuffled CSC entry */
    int esrc_in_file;          /* esrc is a read-only mapping of
                                  esrc_file, not anonymous memory */
    struct dp_spill esrc_file;
    int64_t cut;           /* edges whose ends lie in different parts */
    struct dp_ids pos2eid; /* typed, K > 1: shuffled CSC entry ->
                              shuffled edge id; a NULL: the same */
    const int64_t *ip;     /* the dataset's in-edge offsets (borrowed;
                              NULL once a scratch dataset let them go) */
};

/* Number d's nodes and edges by parts part[n] (K parts); wide keeps every
 * id array int64 (a test switch for graphs past 2^31). With scratch (may
 * be NULL), esrc goes to a scratch file there (in memory where none can
 * be made): the largest array of the step, read in order by the writers,
 * whose pages the caller lets go. */
int phase_reshuffle(const struct dp_dataset *d, const int32_t *part, int K,
                    int wide, const char *scratch, struct shuffle *sh);
void shuffle_release(struct shuffle *sh);

/* partition_graph's return_mapping (dp_partition_opts.orig_nids). */
int shuffle_orig_maps(const struct dp_dataset *d, const struct shuffle *sh,
                      int64_t *orig_nids, int64_t *orig_eids);

/* The shuffled edge id of shuffled CSC entry j. */
static inline int64_t shuffle_eid(const struct shuffle *sh, int64_t j)
{
    return sh->pos2eid.a ? dp_ids_get(&sh->pos2eid, (size_t)j) : j;
}

/* ---- data names (--ndata_name, --edata_name) ---- */

struct names {
    /* the names renames may name: the fixed ones and the dataset's own,
     * NULL-terminated (borrowed strings) */
    const char **nknown, **eknown;
    struct dp_rename nren, eren;
};

int names_init(struct names *nm, const struct dp_dataset *d,
               const char *ndata_name, const char *edata_name);
void names_release(struct names *nm);
/* "<prefix>/<name after the renames>" into buf. */
const char *names_key(char *buf, size_t n, const char *prefix,
                      const struct dp_rename *r, const char *name);

/* ---- the parts ---- */

/* What the part writers read. */
struct part_job {
    const struct dp_partition_opts *o;
    const struct dp_dataset *d;
    const struct shuffle *sh;
    const int32_t *fine; /* trainer-level parts, or NULL */
    const struct names *nm;
    const char *tmp; /* the output being written (OUT.tmp) */
};

struct part_stats {
    int64_t nodes, edges, halo_nodes, halo_edges;
};

/* One part's local graph (part_build.c): see struct local there. */
struct local;

/* Build part p's halo subgraph into a new *lp; lid is the thread's
 * shuffled id -> local id map, all -1 (n + 1 entries, int32 below 2^31
 * nodes), left all -1 by local_free. */
int local_build(const struct part_job *j, int p, void *lid, struct local **lp);
void local_free(struct local *l);
/* An edge of a part written under mpirun, in shuffled ids; k its place
 * among its destination's in-edges (the CSC order DGL numbers halo nodes
 * in). Sent and held as struct part_edge32 when every node and edge id is
 * below 2^31: half the bytes. */
struct part_edge {
    int64_t src, dst, eid;
    int64_t orig; /* input edge id */
    int64_t k;
};

struct part_edge32 {
    int32_t src, dst, eid, orig, k;
};

/* n records, struct part_edge32 when narrow, else struct part_edge. */
struct part_edges {
    void *v;
    int64_t n;
    int narrow;
};

static inline struct part_edge part_edge_at(const struct part_edges *e,
                                            int64_t i)
{
    const struct part_edge32 *x;

    if (!e->narrow)
        return ((const struct part_edge *)e->v)[i];
    x = (const struct part_edge32 *)e->v + i;
    return (struct part_edge){ x->src, x->dst, x->eid, x->orig, x->k };
}

/* Part p's local graph from the in-edges of its nodes, in, as the rank
 * writing it holds them: they are left in edge id order. */
int local_from_edges(const struct part_job *jb, int p, void *lid,
                     struct part_edges *in, struct local **lp);
/* Or, untyped with halos (where id order is DGL's (dst, place) order),
 * from the n inner edges put in place as they come, in any order:
 * local_set_inner gives edge i (id estart[p] + i) its shuffled source and
 * destination (DP_EPROTO: it has them already), local_end_inner numbers
 * the halo sources (DP_EPROTO: an edge never came). */
int local_begin_inner(const struct part_job *jb, int p, void *lid, int64_t n,
                      struct local **lp);
int local_set_inner(struct local *l, int64_t i, int64_t s, int64_t d);
int local_end_inner(struct local *l);
/* Then (untyped, --halo_edges all, one hop) room for the n edges leaving
 * the part, set in any order with local_set_leaving: edge i of them in id
 * order, its shuffled ends and id (DP_EPROTO: set already); the ends
 * numbered by local_end_leaving (DP_EPROTO: an edge never came). */
int local_begin_leaving(struct local *l, int64_t n);
int local_set_leaving(struct local *l, int64_t i, int64_t s, int64_t d,
                      int64_t eid);
int local_end_leaving(struct local *l);
/* Or (typed) the edges leaving the part as held records (reordered). */
int local_add_leaving(struct local *l, struct part_edges *out);
/* Write part p's graph.dgl from l and fill *ps. */
int local_write_graph(struct local *l, const char *path, struct part_stats *ps);

/* Write every part into j->tmp (two at a time); ps[K] gets their sizes. */
int phase_write_parts(const struct part_job *j, struct part_stats *ps);

/* part<p>/file under the output being written, or the part's folder when
 * file is NULL (owned). */
char *part_path(const struct part_job *j, int p, const char *file);

/* ---- the config and the stats ---- */

struct summary {
    const struct dp_partition_opts *o;
    const struct dp_dataset *d;
    const struct shuffle *sh;
    const struct assign_out *as;
    const struct names *nm;
    const struct part_stats *ps;
    const char *name; /* graph name */
    const char *tmp;
    int64_t edge_cut;
    /* more for partition-stats.json (the ranks of an mpirun), or NULL;
     * root is a cJSON object */
    void (*extra)(void *arg, void *root);
    void *extra_arg;
};

/* Write the config JSON (DGL's) into s->tmp; *cfg_rel gets its file name
 * (owned). */
int write_config(const struct summary *s, char **cfg_rel);
/* Write partition-stats.json and, unless quiet, the summary on stdout. */
int write_stats(const struct summary *s, const char *cfg_rel);

#endif
