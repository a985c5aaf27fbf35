/* DGL's on-disk partition format (DGL 1.x/2.x, see reference/dgl.md §2-3):
 * NDArray records, save_tensors files (node_feat.dgl, edge_feat.dgl,
 * orig_nids.dgl), save_graphs v2 (graph.dgl) and the partition config JSON.
 * Writers stream to name.tmp and rename; readers map the file and check
 * every size and offset against its length before use. */
#ifndef DGLPART_DGLFILE_H
#define DGLPART_DGLFILE_H

#include <stdint.h>

#include "dglpart/file.h"
#include "dglpart/npy.h"

/* A typed view of an array. data may be unaligned when it points into a
 * mapped DGL file (DGL writes no padding): read through memcpy or
 * dp_ndarray_i64(). */
struct dp_ndarray {
    enum dp_dtype dtype;
    int ndim;
    int64_t shape[DP_NPY_MAXDIM];
    const void *data;
    uint64_t nbytes;
};

/* Element i of an integer array as int64 (any alignment). */
int64_t dp_ndarray_get_i64(const struct dp_ndarray *a, uint64_t i);
/* An aligned int64 copy of an integer array of any int dtype; the caller
 * frees it. NULL with DP_ENOMEM recorded. */
int64_t *dp_ndarray_i64(const struct dp_ndarray *a);

/* ---- save_tensors files: node_feat.dgl, edge_feat.dgl, orig_*.dgl ---- */

struct dp_tensor_writer {
    struct dp_afile af;
    uint64_t count;     /* entries promised at open */
    uint64_t written;   /* entries finished */
    uint64_t remaining; /* data bytes still owed by the open entry */
    int in_entry;
};

/* Start a tensors file that will hold exactly count entries. */
int dp_tensor_writer_open(struct dp_tensor_writer *w, const char *path,
                          uint64_t count);
/* Add a whole entry. */
int dp_tensor_writer_add(struct dp_tensor_writer *w, const char *name,
                         enum dp_dtype dtype, int ndim, const int64_t *shape,
                         const void *data);
/* Or stream one: begin, then data in pieces adding up to the shape's size,
 * then end (which checks the byte count). */
int dp_tensor_writer_begin(struct dp_tensor_writer *w, const char *name,
                           enum dp_dtype dtype, int ndim, const int64_t *shape);
int dp_tensor_writer_write(struct dp_tensor_writer *w, const void *p,
                           uint64_t n);
int dp_tensor_writer_end(struct dp_tensor_writer *w);
/* Check the entry count and rename into place. */
int dp_tensor_writer_commit(struct dp_tensor_writer *w);
void dp_tensor_writer_abort(struct dp_tensor_writer *w);

/* Keys of part<i>/orig_nids.dgl and orig_eids.dgl (dispatch_data layout):
 * one int64 entry, the input id of every inner node / edge. */
#define DP_ORIG_NIDS_KEY "_N"
#define DP_ORIG_EIDS_KEY "_N:_E:_N"
/* Write a tensors file holding one int64 [n] entry named key. */
int dp_orig_ids_write(const char *path, const char *key, const int64_t *ids,
                      int64_t n);

struct dp_tensor {
    char *name;          /* owned */
    struct dp_ndarray a; /* data points into the mapping */
};

struct dp_tensors {
    struct dp_map map;
    int count;
    struct dp_tensor *items; /* owned array */
};

/* Map and parse a tensors file. */
int dp_tensors_load(struct dp_tensors *t, const char *path);
/* Entry by name, or NULL. */
const struct dp_tensor *dp_tensors_find(const struct dp_tensors *t,
                                        const char *name);
void dp_tensors_release(struct dp_tensors *t);

/* ---- graph.dgl: one homogeneous graph per file ---- */

enum { DP_FMT_COO = 1, DP_FMT_CSR = 2, DP_FMT_CSC = 4 };

/* What the partition stage hands the writer (all borrowed). Local node ids
 * index nid/inner_node/part_id; edges are in local edge order. */
struct dp_graph_part {
    int64_t num_nodes;
    int64_t num_edges;
    const int64_t *src;        /* [num_edges] local source ids */
    const int64_t *dst;        /* [num_edges] local destination ids */
    const int64_t *nid;        /* ndata _ID [num_nodes] */
    const uint8_t *inner_node; /* ndata inner_node [num_nodes] */
    const int64_t *part_id;    /* ndata part_id [num_nodes], or NULL */
    const int64_t *eid;        /* edata _ID [num_edges] */
    const uint8_t *inner_edge; /* edata inner_edge [num_edges] */
    int formats;               /* DP_FMT_* bits to store; 0 means COO */
    /* Optional ndata/edata _TYPE (int32, all 0), as DGL stores them in the
     * num_parts == 1 layout; NULL leaves them out. */
    const int32_t *ntype; /* ndata _TYPE [num_nodes], or NULL */
    const int32_t *etype; /* edata _TYPE [num_edges], or NULL */
};

/* Write graph.dgl (save_graphs v2, one graph); CSR/CSC are built from the
 * COO arrays when asked for. */
int dp_graph_write(const char *path, const struct dp_graph_part *g);

/* The columns of graph.dgl, each with the dtype DGL stores. */
enum {
    DP_COL_SRC,        /* int64 local source ids [num_edges] */
    DP_COL_DST,        /* int64 local destination ids [num_edges] */
    DP_COL_EID,        /* int64 edata _ID */
    DP_COL_INNER_EDGE, /* uint8 edata inner_edge */
    DP_COL_ETYPE,      /* int32 edata _TYPE */
    DP_COL_NID,        /* int64 ndata _ID [num_nodes] */
    DP_COL_PART_ID,    /* int64 ndata part_id */
    DP_COL_INNER_NODE, /* uint8 ndata inner_node */
    DP_COL_NTYPE,      /* int32 ndata _TYPE */
    /* with has_csc: the CSC itself, rows in order (int64) */
    DP_COL_CSC_INDPTR, /* [num_nodes + 1] */
    DP_COL_CSC_INDICES,
    DP_COL_CSC_DATA
};

/* A graph handed to the writer column by column, so no column need exist
 * in memory whole. */
struct dp_graph_src {
    int64_t num_nodes;
    int64_t num_edges;
    int formats; /* DP_FMT_* bits to store; 0 means COO */
    int has_part_id, has_ntype, has_etype; /* optional columns present */
    int has_csc; /* fills the DP_COL_CSC_* columns: no sort in the writer */
    /* with has_csc: DP_COL_CSC_DATA is the identity (local edge ids in CSC
     * order), written as DGL's null array (shape [0]). DGL reads a null
     * CSR data array as "edge id = position": include/dgl/aten/csr.h:45,
     * CheckValidity skips it (:112), CSRToCOODataAsOrder maps it so
     * (src/array/cpu/spmat_op_impl_csr.cc:325-346, used by UnitGraph::GetCOO,
     * src/graph/unit_graph.cc:1495), and DGL itself saves
     * one for dgl.graph(('csc', (indptr, indices, []))) (python/dgl/
     * convert.py:61, UnitGraph::CreateFromCSC, CSRMatrix::Save). */
    int csc_no_data;
    /* Put rows [at, at + n) of column col in out (n of its dtype above).
     * The writer reads a column from row 0 up in consecutive pieces, and
     * may read it again from 0 (CSR/CSC read their row column twice).
     * 0, or an error code with the message recorded. */
    int (*fill)(void *arg, int col, int64_t at, int64_t n, void *out);
    void *arg;
};

/* Write graph.dgl from columns: COO (and a CSC the source fills) streams
 * through a bounded buffer; else CSR and CSC hold each edge's position in
 * row order and its column, 4 bytes each below 2^31 edges / nodes (else
 * 8), plus indptr. Local ids are checked to lie in [0, num_nodes). */
int dp_graph_write_src(const char *path, const struct dp_graph_src *g);

/* A loaded graph.dgl; arrays point into the mapping. A format that was not
 * saved has its arrays' data NULL. */
struct dp_graph_file {
    struct dp_map map;
    int64_t num_nodes;
    int64_t num_edges;
    int saved_formats; /* DP_FMT_* bits present in the file */
    struct dp_ndarray coo_row, coo_col, coo_data;        /* src, dst, eid */
    struct dp_ndarray csr_indptr, csr_indices, csr_data; /* out-edges */
    struct dp_ndarray csc_indptr, csc_indices, csc_data; /* in-edges */
    int n_ndata, n_edata;
    struct dp_tensor *ndata, *edata; /* owned arrays of named views */
};

int dp_graph_load(struct dp_graph_file *g, const char *path);
/* Named node or edge data ("_ID", "inner_node", ...), or NULL. */
const struct dp_ndarray *dp_graph_ndata(const struct dp_graph_file *g,
                                        const char *name);
const struct dp_ndarray *dp_graph_edata(const struct dp_graph_file *g,
                                        const char *name);
void dp_graph_release(struct dp_graph_file *g);

/* ---- the partition config JSON ---- */

/* A part's entry "part-<i>": its string members in the file's order
 * (node_feats, edge_feats, part_graph and any other a writer adds, such as
 * part_graph_graphbolt), as written. */
struct dp_part_files {
    int count;
    char **keys, **paths; /* [count] */
};

struct dp_part_config {
    char *path; /* the JSON file (owned) */
    char *dir;  /* its folder; part paths are relative to it */
    char *graph_name;
    char *part_method; /* "metis", "random", ... */
    int64_t num_nodes;
    int64_t num_edges;
    int num_parts;
    int halo_hops;
    int64_t (*node_map)[2]; /* [num_parts] [start, end) global node ids */
    int64_t (*edge_map)[2]; /* [num_parts] [start, end) global edge ids */
    /* Types (DGL's heterographs). A part's ids are grouped by type in type
     * id order: type t of part p holds [ntype_map[p * num_ntypes + t][0],
     * ...[1]) of node_map[p], and likewise for edges. num_ntypes is 1 and
     * the names are "_N" and "_N:_E:_N" for a homogeneous graph; the typed
     * arrays are NULL when a writer leaves them out (one type). */
    int num_ntypes, num_etypes;
    char **ntypes, **etypes; /* names by type id */
    int64_t (*ntype_map)[2], (*etype_map)[2];
    char **node_feats; /* [num_parts] as written in the JSON */
    char **edge_feats;
    char **part_graph;
    struct dp_part_files *files; /* [num_parts] when read; NULL to write */
};

/* Write with DGL's keys, key order and json.dump(indent=4) layout. */
int dp_config_write(const char *path, const struct dp_part_config *c);
/* Read and check a config (ours or DGL's, including the legacy node_map
 * list of cumulative ends). */
int dp_config_load(struct dp_part_config *c, const char *path);
/* dp_config_load, and from the same read the config as it reads from a
 * folder holding part<i>/ for each part (where dglpart copy puts it):
 * every string member of each "part-<i>" becomes "part<i>/<basename>",
 * the rest is kept, printed by cJSON with four-space indents. *text is
 * the caller's to free; set only on success. */
int dp_config_load_relocated(struct dp_part_config *c, const char *path,
                             char **text, size_t *len);
/* A part file resolved against the JSON's folder; which is "node_feats",
 * "edge_feats" or "part_graph". Caller frees. */
char *dp_config_part_file(const struct dp_part_config *c, int part,
                          const char *which);
void dp_config_release(struct dp_part_config *c);
/* The global ids whose rows a feature holds in part `part`: its type's
 * [*start, *start + *rows), from the type prefix of key ("paper/feat",
 * "paper:cites:paper/weight"); a key without a prefix, or any key of a set
 * with one type, covers the part's whole range. Returns the type id (0 for
 * one type), or -1 with DP_ENOENT recorded when the prefix is no type. */
int dp_config_feature_range(const struct dp_part_config *c, int part, int edge,
                            const char *key, int64_t *start, int64_t *rows);
/* The node type id of global node id (0 in an untyped set; -1 out of
 * range); likewise the edge type of a global edge id. */
int dp_config_ntype_of(const struct dp_part_config *c, int64_t id);
int dp_config_etype_of(const struct dp_part_config *c, int64_t id);

#endif
