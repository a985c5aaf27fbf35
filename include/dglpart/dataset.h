/* The converted dataset folder: convert's output and partition's input.
 *
 * DIR/meta.json      {"format": "dglpart-dataset", "version": 1, "name",
 *                     "num_nodes", "num_edges", "directed", "feat_dim",
 *                     "num_classes", "splits": [...], "node_weights" (ncon),
 *                     "source_format", "inputs": [{"path","size","sha256"}]}
 * DIR/indptr.npy     int64 [N+1]  in-edge CSC: edges grouped by destination
 * DIR/indices.npy    int64 [E]    source of each CSC entry
 * DIR/eids.npy       int64 [E]    input edge id of each CSC entry
 *   (version 2: "index_dtype": "int32" makes both int32, which convert
 *   writes when N and E are below 2^31: half the disk and page cache;
 *   "eids": false means no eids.npy, written by convert --no_eids for
 *   runs that need no input edge ids: a third less disk at int32)
 * DIR/feat.npy       float32 [N, D]            optional
 * DIR/label.npy      int64 [N]                 optional
 * DIR/{train,val,test}_mask.npy uint8 [N]      optional
 * DIR/node_weight.npy int64 [N, ncon]          optional (METIS vertex weights)
 * DIR/edge_weight.npy int64 [E]                optional, by input edge id
 *
 * Typed graphs (version 2; version 1 means untyped with int64 ids):
 * meta.json adds
 *   "ntypes": [{"name": "paper", "num_nodes": N0}, ...]
 *   "etypes": [{"name": "paper:cites:paper", "num_edges": E0}, ...]
 *   "node_data": [{"ntype": "paper", "name": "feat"}, ...]
 *   "edge_data": [{"etype": "paper:cites:paper", "name": "weight"}, ...]
 * Node ids are grouped by type in list order: the homogeneous id of node k
 * of type t is the sum of the counts before t, plus k (DGL's
 * to_homogeneous order); input edge ids likewise by edge type, so
 * eids.npy still names input edges and a type is a range of ids. Every
 * edge of type "s:r:d" goes from a node of type s to one of type d.
 * Per-type data lives in DIR/ndata/<ntype>/<name>.npy and
 * DIR/edata/<src:rel:dst>/<name>.npy, first dimension the type's count,
 * any dtype and trailing shape; the names feat (float32 [n, D]), label
 * (int64 [n]) and train_mask/val_mask/test_mask (uint8 [n]) mean what the
 * top-level files mean. A typed dataset has no top-level feat, label or
 * masks (feat_dim, num_classes 0, "splits" empty); node_weight.npy and
 * edge_weight.npy keep their homogeneous indexing.
 *
 * A per-type array other than label and the masks may instead stay in the
 * input's own .npy chunks ("chunks": [absolute paths] in its node_data or
 * edge_data entry; convert writes them for DGL's chunked format and typed
 * npy folders unless --copy_data): its rows are the chunks' in order, read
 * in place, so features never take a second copy on disk.
 */
#ifndef DGLPART_DATASET_H
#define DGLPART_DATASET_H

#include <stdint.h>

#include "dglpart/npy.h"

#define DP_DATASET_FORMAT "dglpart-dataset"
#define DP_DATASET_VERSION 1
#define DP_DATASET_VERSION_TYPED 2

struct dp_dataset_input {
    char *path; /* as given on the command line (owned) */
    uint64_t size;
    char sha256[65];
};

/* A node or edge type: its ids are [offset, offset + count). */
struct dp_dataset_type {
    char *name; /* "paper"; canonical "src:rel:dst" for edges (owned) */
    int64_t count;
    int64_t offset; /* filled by dp_dataset_read_meta / _set_offsets */
    int src, dst;   /* edge types: node type ids of the endpoints */
};

/* One per-type array: DIR/ndata/<type>/<name>.npy or edata/... */
struct dp_dataset_data {
    int type;      /* index into ntypes (node data) or etypes (edge data) */
    char *name;    /* owned */
    int nchunks;   /* 0: the array is a file of the folder */
    char **chunks; /* [nchunks] the input's .npy files, absolute (owned) */
};

/* What meta.json records; filled by convert, read back by dp_dataset_open. */
struct dp_dataset_meta {
    char *name;          /* owned */
    char *source_format; /* "ogb", "edgelist", ... (owned) */
    int64_t num_nodes;
    int64_t num_edges;
    int directed;        /* 0 when --undirected doubled the edges */
    int ids32;           /* indices.npy and eids.npy are int32 */
    int no_eids;         /* no eids.npy: eids.data stays NULL */
    int64_t feat_dim;    /* 0: no feat.npy */
    int64_t num_classes; /* 0: no label.npy */
    int has_train, has_val, has_test;
    int64_t ncon; /* 0: no node_weight.npy */
    int has_edge_weight;
    int ninputs;
    struct dp_dataset_input *inputs; /* owned array */
    /* typed graphs only (num_ntypes 0: homogeneous, version 1) */
    int num_ntypes, num_etypes;
    struct dp_dataset_type *ntypes, *etypes; /* owned arrays */
    int num_ndata, num_edata;
    struct dp_dataset_data *ndata, *edata; /* owned arrays */
};

void dp_dataset_meta_release(struct dp_dataset_meta *m);
/* Fill the offsets of m's types from their counts and resolve each edge
 * type's endpoint types from its canonical name; checks the counts add
 * up to num_nodes/num_edges. 0 or DP_EFORMAT naming what (what: a path
 * for messages). */
int dp_dataset_set_types(struct dp_dataset_meta *m, const char *what);
/* Relative path of a per-type array ("ndata/paper/feat.npy"); owned. */
char *dp_dataset_data_path(const struct dp_dataset_meta *m, int edge,
                           const struct dp_dataset_data *x);
/* Write DIR/meta.json atomically. */
int dp_dataset_write_meta(const char *dir, const struct dp_dataset_meta *m);
/* Read and check DIR/meta.json; *m owned by the caller (release it). */
int dp_dataset_read_meta(const char *dir, struct dp_dataset_meta *m);

/* A per-type array kept in the input's chunks: each mapped. */
struct dp_dataset_chunks {
    int n;
    struct dp_npy *a; /* [n] */
    int64_t *first;   /* [n + 1] the array's row where chunk i starts */
};

/* An opened dataset: every array mapped read-only and checked against
 * meta.json (dtype, shape, indptr monotone, indices in range). A
 * per-type array in chunks has its whole header in ndata[i].h (shape[0]
 * the type's count) but no data: read its rows through dp_rows. */
struct dp_dataset {
    char *dir; /* owned */
    struct dp_dataset_meta meta;
    struct dp_npy indptr, indices, eids;
    struct dp_npy feat, label, train_mask, val_mask, test_mask;
    struct dp_npy node_weight, edge_weight; /* data NULL when absent */
    struct dp_npy *ndata, *edata;           /* parallel to meta.ndata/edata */
    struct dp_dataset_chunks *nchunks, *echunks; /* parallel; n 0: a file */
};

/* The rows of a data array, wherever they are. */
struct dp_rows {
    size_t rb;        /* bytes a row */
    const char *base; /* one mapping (or memory); NULL: in chunks */
    const struct dp_dataset_chunks *ch;
};

/* Rows of the i-th node (edge: edge) per-type array of d. */
void dp_dataset_rows(const struct dp_dataset *d, int edge, int i,
                     struct dp_rows *r);
/* Rows of a plain array (a file of the folder or memory). */
void dp_rows_of(const struct dp_npy *a, struct dp_rows *r);
const char *dp_rows_chunk(const struct dp_rows *r, int64_t x, int *hint);
/* Take the chunks' pages out of the resident set (as dp_dataset_drop). */
void dp_rows_drop(const struct dp_rows *r);
/* Row x; *hint keeps the last chunk, so rows read in order cost no
 * search (start it at 0). */
static inline const char *dp_rows_at(const struct dp_rows *r, int64_t x,
                                     int *hint)
{
    return r->base ? r->base + (size_t)x * r->rb : dp_rows_chunk(r, x, hint);
}

/* Open DIR; on failure nothing is left mapped and the message names the
 * file and what was expected. */
int dp_dataset_open(struct dp_dataset *d, const char *dir);
/* The same, but the entries (indices.npy, eids.npy and, typed, the
 * types they join) are left for dp_dataset_check_columns: a reader of
 * some columns only, as each rank of an mpirun is, checks those. */
int dp_dataset_open_unchecked(struct dp_dataset *d, const char *dir);
/* The entries of columns [v0, v1) in range: 0 or DP_EFORMAT naming the
 * file and entry. */
int dp_dataset_check_columns(const struct dp_dataset *d, int64_t v0,
                             int64_t v1);
void dp_dataset_release(struct dp_dataset *d);
/* Take every mapped array's pages out of this process's resident set
 * (they stay in the page cache and come back when read); safe beside
 * readers. */
void dp_dataset_drop(const struct dp_dataset *d);
/* For a dataset that is scratch (dglpart run --no_cache): unmap
 * indices.npy and delete it, with all also eids.npy and indptr.npy, so
 * their disk comes back while the parts are written. Their views are
 * invalid after. 0 or DP_EIO. */
int dp_dataset_discard_edges(struct dp_dataset *d, int all);
/* Open feat.npy if meta.json now lists features and it is not open yet
 * (written after dp_dataset_open, by dp_convert_feat). */
int dp_dataset_open_feat(struct dp_dataset *d);

/* The sizes a plan needs: read from an opened dataset (dp_dataset_shape),
 * or estimated from a raw input before it is converted (convert.h's
 * dp_convert_estimate), so one model plans both. */
struct dp_dataset_shape {
    int64_t num_nodes, num_edges;
    int directed; /* 0: both directions held already */
    int typed;
    int64_t ncon;        /* node_weight.npy columns */
    int64_t node_bytes;  /* feat, label and masks: bytes a node */
    int64_t edge_weight; /* bytes of edge_weight.npy */
    int64_t type_data;   /* bytes of the per-type arrays */
    int64_t indices;     /* bytes of indices.npy */
    int64_t total;       /* bytes of the whole folder */
};

/* The shape of an opened dataset. */
void dp_dataset_shape(const struct dp_dataset *d, struct dp_dataset_shape *s);

/* The type of node v / input edge e of a typed dataset (binary search). */
int dp_dataset_ntype_of(const struct dp_dataset *d, int64_t v);
int dp_dataset_etype_of(const struct dp_dataset *d, int64_t e);
/* Index of the named node-type / edge-type array, or -1. Edge types match
 * by canonical name or by a relation name that is unique. */
int dp_dataset_find_ntype(const struct dp_dataset_meta *m, const char *name);
int dp_dataset_find_etype(const struct dp_dataset_meta *m, const char *name);
/* The per-type array named name of node type t (edge: of edge type t), or
 * NULL. */
const struct dp_npy *dp_dataset_ndata(const struct dp_dataset *d, int t,
                                      const char *name);
const struct dp_npy *dp_dataset_edata(const struct dp_dataset *d, int t,
                                      const char *name);

/* Typed views (valid while d is open). indices and eids may be int32
 * (meta.ids32), so entries are read one at a time. */
static inline const int64_t *dp_dataset_indptr(const struct dp_dataset *d)
{
    return (const int64_t *)d->indptr.data;
}
/* The source of CSC entry k. */
static inline int64_t dp_dataset_src(const struct dp_dataset *d, int64_t k)
{
    return d->meta.ids32 ? ((const int32_t *)d->indices.data)[k]
                         : ((const int64_t *)d->indices.data)[k];
}
/* The input edge id of CSC entry k (not for meta.no_eids). */
static inline int64_t dp_dataset_eid(const struct dp_dataset *d, int64_t k)
{
    return d->meta.ids32 ? ((const int32_t *)d->eids.data)[k]
                         : ((const int64_t *)d->eids.data)[k];
}

#endif
