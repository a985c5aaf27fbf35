/* A graph held in memory, partitioned without files in between: the entry
 * point of dglpart's Python package (python/dglpart), which passes numpy
 * arrays in place. A flat API of plain C types, so ctypes can call it.
 *
 * Types are added in DGL's type-id order; a graph with the one node type
 * "_N" and the one edge type "_N:_E:_N" is written as DGL writes a
 * homogeneous graph, any other as a typed one. Every array is borrowed:
 * it must stay valid and unchanged until dp_arrays_free. */
#ifndef DGLPART_ARRAYS_H
#define DGLPART_ARRAYS_H

#include <stdint.h>

struct dp_arrays;

/* A new, empty graph; NULL with DP_ENOMEM recorded. */
struct dp_arrays *dp_arrays_new(void);
/* Free g and what it built (never the caller's arrays); NULL is fine. */
void dp_arrays_free(struct dp_arrays *g);

/* Add node type name with count nodes. 0 or an error code. */
int dp_arrays_add_ntype(struct dp_arrays *g, const char *name, int64_t count);

/* Add edge type name ("src:rel:dst", node types already added) with count
 * edges: src[k] -> dst[k], ids within their node types, both of numpy
 * dtype dtype ("int32" or "int64"). Input edge k of the type has the id
 * the type's first id + k. */
int dp_arrays_add_etype(struct dp_arrays *g, const char *name, int64_t count,
                        const char *dtype, const void *src, const void *dst);

/* Add node (edge 0) or edge data name of type type: a C-ordered array of
 * numpy dtype dtype and shape[ndim], shape[0] the type's count. */
int dp_arrays_add_data(struct dp_arrays *g, int edge, int type,
                       const char *name, const char *dtype, int ndim,
                       const int64_t *shape, const void *data);

/* DGL's balance_ntypes for node type type (-1: a homogeneous graph's one
 * array): values[count] of an integer or bool dtype. Homogeneous: each
 * distinct value is a class. Typed: the values must be 0..k-1, one class
 * each; a type given none is one class (DGL's rules). */
int dp_arrays_set_balance(struct dp_arrays *g, int type, const char *dtype,
                          const void *values);

/* One option of `dglpart partition`, by its long name without dashes
 * ("num_parts", "balance_edges"; value NULL for a flag). Checked now. */
int dp_arrays_set_option(struct dp_arrays *g, const char *name,
                         const char *value);

/* Partition g into the folder out (written as out.tmp and renamed; an
 * existing folder is replaced only when it is empty or holds an earlier
 * partition set) with graph name name. orig_nids[N] and orig_eids[E], when
 * not NULL, receive DGL's return_mapping (partition.h: grouped by type).
 * The caller's Ctrl-C reaches it through dp_interrupt() (error.h). A
 * malformed DGLPART_ setting (env.h) is refused first, with its message. */
int dp_arrays_partition(struct dp_arrays *g, const char *name, const char *out,
                        int64_t *orig_nids, int64_t *orig_eids);

/* Totals of the types added so far (to size the mappings). */
int64_t dp_arrays_num_nodes(const struct dp_arrays *g);
int64_t dp_arrays_num_edges(const struct dp_arrays *g);

#endif
