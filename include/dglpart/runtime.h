/* The runtime: loads partitions written in DGL's format (ours or DGL's),
 * answers neighbour sampling and feature gathers, standalone in one process
 * or through graph servers over a small binary TCP protocol (runtime/proto.c).
 * Global ids are DGL's shuffled ids (the node_map/edge_map ranges). */
#ifndef DGLPART_RUNTIME_H
#define DGLPART_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "dglpart/buf.h"
#include "dglpart/dglfile.h"
#include "dglpart/ipconfig.h"

/* ---- partition book: global id -> (part, local id) ---- */

struct dp_book {
    int num_parts;
    int64_t num_nodes, num_edges;
    int64_t *node_start; /* [num_parts + 1] range starts, then the total */
    int64_t *edge_start; /* [num_parts + 1] */
    /* O(1) owner lookup: bucket b = id >> shift holds the first part whose
     * range reaches into it; at most a few steps forward from there. */
    int shift;
    int64_t nbuckets;
    int32_t *node_bucket, *edge_bucket;
};

/* Build from a loaded config; ranges must be contiguous and cover
 * [0, num_nodes) / [0, num_edges). */
int dp_book_init(struct dp_book *b, const struct dp_part_config *c);
void dp_book_release(struct dp_book *b);
/* Owner part of a global node / edge id, or -1 when out of range. */
int dp_book_node_part(const struct dp_book *b, int64_t gid);
int dp_book_edge_part(const struct dp_book *b, int64_t geid);

/* ---- one loaded partition ---- */

struct dp_part {
    int id;
    int64_t node_start, num_inner; /* inner nodes: [start, start+num_inner) */
    int64_t edge_start, num_inner_edges;
    struct dp_graph_file g;
    struct dp_tensors nfeat, efeat;
    /* The global id of each feature's first row: the part's first id, or
     * in a typed set that of the feature's type ([nfeat.count]). */
    int64_t *nfeat_start, *efeat_start;
    /* In-edges of inner nodes (built at load): for inner local node v,
     * positions indptr[v]..indptr[v+1] of src (global source ids) and eid
     * (global edge ids), in the file's edge order. */
    int64_t *indptr, *src, *eid;
    /* In a typed set, the edge type of each entry; a node's entries are
     * grouped by type (in type id order, file order within a type). */
    uint16_t *etype;
    int num_etypes;
    /* Non-NULL: indptr, src, eid and etype are a read-only mapping of the
     * machine's shared copy (dp_part_load_shared), else private memory. */
    struct dp_shm *shm;
};

/* Load part `part` of config c: graph.dgl, node_feat.dgl, edge_feat.dgl;
 * every size is checked against the book. The in-edge arrays are built in
 * private memory; graph.dgl is unmapped once they are. Features stay
 * mapped read-only from their files (the page cache holds them once for
 * every process). Release with dp_part_release. */
int dp_part_load(struct dp_part *p, const struct dp_part_config *c,
                 const struct dp_book *b, int part);
/* dp_part_load with the in-edge arrays in one copy per machine: a file in
 * folder dir (a tmpfs such as /dev/shm) named from the graph name, the part
 * and a content id of the part's files. The first process to come builds
 * it under a temporary name and renames it once complete; the others wait
 * for that (a lock, not a poll) and map it read-only. A builder that dies
 * leaves nothing half-built in use: the next process builds again. The
 * last process to let go removes the file; copies left by dead runs are
 * reused when their content id matches, removed when it does not and
 * nobody holds them. When dir is unusable (no room, no access) the part is
 * built privately with a warning. *built is 1 when this process built
 * it (or fell back), 0 when it attached. dir NULL: dp_part_load. */
int dp_part_load_shared(struct dp_part *p, const struct dp_part_config *c,
                        const struct dp_book *b, int part, const char *dir,
                        int *built);
/* The shared copies' folder: DGLPART_SHM_DIR, else /dev/shm; NULL when
 * DGLPART_SHM_DIR is "none" (private copies). Borrowed. */
const char *dp_part_shm_dir(void);
/* The file of p's shared copy, or NULL when private. Borrowed. */
const char *dp_part_shm_path(const struct dp_part *p);
void dp_part_release(struct dp_part *p);

/* A feature by name: "feat" or "_N/feat" for nodes ("_N:_E:_N/" for
 * edges). NULL with DP_ENOENT recorded when missing. */
const struct dp_ndarray *dp_part_feature(const struct dp_part *p, int edge,
                                         const char *name);

/* The other name DGL's examples use for a feature ("features" for "feat",
 * "labels" for "label" and back), or NULL. */
const char *dp_feature_twin(const char *name);

/* The global id of row 0 of feature a of p (from dp_part_feature). */
int64_t dp_part_feature_start(const struct dp_part *p, int edge,
                              const struct dp_ndarray *a);

/* Bytes of one row of a feature (product of dims after the first). */
uint64_t dp_feature_row_bytes(const struct dp_ndarray *a);

/* ---- sampling ---- */

/* The key of one random choice: the sampled neighbours of node v depend
 * only on (seed, epoch, layer, v). */
struct dp_sample_key {
    uint64_t seed;
    uint32_t epoch;
    uint32_t layer;
};

/* 64-bit mixing (splitmix64 finaliser); used by the sampler and checksums. */
uint64_t dp_mix64(uint64_t x);

/* Choose k of n positions without replacement (k < n), as a function of
 * (key, v) only; out[k] receives ascending positions. scratch is grown as
 * needed (caller frees *scratch). */
int dp_sample_choose(const struct dp_sample_key *key, int64_t v, int64_t n,
                     int64_t k, int64_t *out, int64_t **scratch,
                     size_t *scratch_cap);

/* Sampled in-edges of a list of seeds: counts[i] edges for seed i, laid out
 * one seed after another in src/eid. All arrays owned. */
struct dp_edges {
    int64_t n;       /* seeds */
    int64_t *counts; /* [n] */
    int64_t total;
    int64_t *src; /* [total] global source ids */
    int64_t *eid; /* [total] global edge ids */
};
void dp_edges_release(struct dp_edges *e);

/* How many in-neighbours to sample: one fanout for every edge type, or in
 * a typed set one per edge type id (-1: all, 0: none). */
struct dp_fanout {
    int64_t all;             /* used when by_etype is NULL */
    const int64_t *by_etype; /* [num_etypes] or NULL */
    int num_etypes;
};
/* The most edges one seed can give (-1: no bound). */
int64_t dp_fanout_max(const struct dp_fanout *f);
/* Sampled edges of each seed (checks that p owns them): counts[n]. */
int dp_part_sample_counts(const struct dp_part *p, const int64_t *seeds,
                          int64_t n, const struct dp_fanout *f,
                          int64_t *counts);
/* dp_part_sample with a fanout per edge type; per type, the picks depend
 * on (seed, epoch, layer, node, type). */
int dp_part_sample_typed(const struct dp_part *p, const int64_t *seeds,
                         int64_t n, const struct dp_fanout *f,
                         const struct dp_sample_key *key, int64_t max_edges,
                         struct dp_edges *out);
/* Sample up to fanout in-neighbours (-1: all) of each seed owned by p.
 * Seeds not inner to p fail with DP_ERANGE; outputs above max_edges fail
 * with DP_ETOOBIG. */
int dp_part_sample(const struct dp_part *p, const int64_t *seeds, int64_t n,
                   int64_t fanout, const struct dp_sample_key *key,
                   int64_t max_edges, struct dp_edges *out);
/* In-degree of each seed owned by p. */
int dp_part_in_degree(const struct dp_part *p, const int64_t *seeds, int64_t n,
                      int64_t *out);
/* Copy rows of feature a (belonging to p, nodes or edges) for global ids
 * into out (n * row_bytes bytes). */
int dp_part_gather(const struct dp_part *p, int edge,
                   const struct dp_ndarray *a, const int64_t *ids, int64_t n,
                   void *out);

/* ---- protocol (runtime/proto.c) ---- */

#define DP_PROTO_MAGIC 0x54525044u /* "DPRT" */
#define DP_PROTO_VERSION 2
#define DP_PROTO_HEADER 24
#define DP_PROTO_MAX_FRAME (64u << 20) /* request payload cap */
#define DP_PROTO_MAX_REPLY (1u << 30)  /* reply payload cap */
#define DP_PROTO_MAX_IDS (1 << 22)     /* ids per request */

enum dp_msg {
    DP_MSG_HELLO = 1,  /* -> u32 version, u32 client id (a trainer's rank,
                          DP_CLIENT_NONE for none); <- u32 part,
                          u64 node start, u64 inner nodes, u64 edge start */
    DP_MSG_SAMPLE = 2, /* -> u64 seed, u32 epoch, u32 layer, i64 fanout,
                          u64 n, i64 ids[n]; <- u64 n, i64 counts[n],
                          u64 total, i64 src[total], i64 eid[total] */
    DP_MSG_GATHER = 3, /* -> u8 edge, u16 len, name, u64 n, i64 ids[n];
                          <- u32 dtype, u64 row_bytes, u64 n, rows */
    DP_MSG_DEGREE = 4, /* -> u64 n, i64 ids[n]; <- u64 n, i64 deg[n] */
    DP_MSG_BYE = 5,    /* -> nothing; <- nothing, then the server closes */
    DP_MSG_SAMPLE_TYPED = 6, /* -> u64 seed, u32 epoch, u32 layer, u16 k,
                                i64 fanout[k] (one per edge type), u64 n,
                                i64 ids[n]; <- as DP_MSG_SAMPLE */
    DP_MSG_ERROR = 0x7f      /* <- u32 code, u16 len, message */
};

/* Frame header: u32 magic, u16 version, u16 type, u64 request id, u64
 * payload length; little-endian. */
struct dp_frame_header {
    uint32_t magic;
    uint16_t version;
    uint16_t type;
    uint64_t id;
    uint64_t len;
};
void dp_frame_header_encode(unsigned char out[DP_PROTO_HEADER],
                            const struct dp_frame_header *h);
/* Decode and check magic, version and len <= max_len: 0, DP_EPROTO. */
int dp_frame_header_decode(const unsigned char in[DP_PROTO_HEADER],
                           uint64_t max_len, struct dp_frame_header *h);

/* A bounded little-endian reader over a payload. Any read past the end sets
 * failed and returns zeros. */
struct dp_rd {
    const unsigned char *p;
    size_t len, pos;
    int failed;
};
uint16_t dp_rd_u16(struct dp_rd *r);
uint32_t dp_rd_u32(struct dp_rd *r);
uint64_t dp_rd_u64(struct dp_rd *r);
/* Pointer to n bytes in place (NULL and failed when short). */
const void *dp_rd_bytes(struct dp_rd *r, uint64_t n);

/* Appenders onto a dp_buf (0 or an error code). */
int dp_wr_u8(struct dp_buf *b, uint8_t v);
int dp_wr_u16(struct dp_buf *b, uint16_t v);
int dp_wr_u32(struct dp_buf *b, uint32_t v);
int dp_wr_u64(struct dp_buf *b, uint64_t v);
/* An error reply frame: u32 code, u16 length, message (cut at 256). */
int dp_wr_error(struct dp_buf *b, uint64_t id, int code, const char *msg);

#define DP_CLIENT_NONE 0xffffffffu

/* Handle one request payload against a part; appends the reply frame
 * (a result or DP_MSG_ERROR) to out. Returns 0, or an error when out could
 * not be written at all. Used by the tests and the fuzzer. */
int dp_serve_request(const struct dp_part *p, const struct dp_frame_header *h,
                     const void *payload, struct dp_buf *out);

/* A reply still being produced: a sample, gather or degree reply is written
 * a piece at a time as the socket drains, so a 1 GiB reply never sits whole
 * in memory (only its request's ids do). Zero it before first use. */
struct dp_reply_stream {
    uint16_t type; /* 0: nothing pending, else the reply's message type */
    int edge;      /* gather: edge features */
    const struct dp_ndarray *a;
    struct dp_sample_key key;
    int64_t fanout;
    int64_t *etf; /* owned: a fanout per edge type, or NULL */
    int netf;
    int64_t *ids, n; /* owned */
    int phase;       /* sample: 0 counts, 1 sources, 2 edge ids */
    int64_t next;    /* first id of the phase not yet written */
};
/* Like dp_serve_request, but leaves the body of a result in s for
 * dp_reply_stream_fill; only the header and what fits in `room` bytes are
 * appended now. Errors still become whole error replies. */
int dp_serve_request_start(const struct dp_part *p,
                           const struct dp_frame_header *h, const void *payload,
                           struct dp_buf *out, struct dp_reply_stream *s,
                           size_t room);
/* Append about `room` more bytes of s's reply (at least one item); s->type
 * turns 0 once the reply is complete. An error here leaves a truncated
 * frame: the connection must be closed. */
int dp_reply_stream_fill(const struct dp_part *p, struct dp_reply_stream *s,
                         struct dp_buf *out, size_t room);
/* Bytes s holds (its ids). */
size_t dp_reply_stream_held(const struct dp_reply_stream *s);
void dp_reply_stream_release(struct dp_reply_stream *s);
/* The client id of a HELLO payload: 0, or DP_EPROTO when malformed. */
int dp_hello_client(const void *payload, uint64_t len, uint32_t *client);

/* ---- the server ---- */

struct dp_server_opts {
    const char *conf_path; /* partition config */
    const char *ip_config; /* ip_config.txt */
    const char *host;      /* bind address; NULL: the ip_config's */
    int server_id;         /* DGL_SERVER_ID */
    int num_servers;       /* DGL_NUM_SERVER: servers per machine */
    int num_clients;       /* DGL_NUM_CLIENT: goodbyes before exit, one
                              from each client id in [0, num_clients) */
    int keep_alive;        /* ignore goodbyes, serve until killed */
    int port;              /* > 0 overrides ip_config port + index */
    int stall_timeout;     /* seconds a client may stall mid-request or
                              mid-reply before it is dropped; 0: the
                              default, < 0: never; also the window over
                              which a reply must drain at DP_MIN_DRAIN */
    size_t out_budget;     /* bytes of replies queued across all clients
                              before requests wait; 0: DP_OUT_BUDGET */
};

#define DP_STALL_TIMEOUT 60
#define DP_MIN_DRAIN (64u << 10)   /* bytes/s a pending reply must move */
#define DP_OUT_BUDGET (256u << 20) /* default out_budget */

/* Load the part and serve until every client said goodbye (or forever
 * with keep_alive). Prints "listening on HOST:PORT" to stderr. */
int dp_serve(const struct dp_server_opts *o);

/* ---- a client runtime: standalone or distributed ---- */

struct dp_rt {
    struct dp_part_config cfg;
    struct dp_book book;
    struct dp_part *parts; /* [num_parts]; loaded ones have g.map.data */
    int *fds;              /* [num_parts] socket of the part's server */
    int *all_fds;          /* [nall] every server connection */
    int nall;
    int num_servers;        /* per machine */
    struct dp_ipconfig ipc; /* machine p serves part p (distributed) */
    int local;              /* this trainer's part (-1 standalone) */
    int local_built;        /* this process built its copy (else attached) */
    uint64_t next_id;
    int64_t max_edges; /* cap of one sampling reply */
    int64_t max_ids;   /* ids in one degree or gather request
                          (DP_PROTO_MAX_IDS; DGLPART_RT_CHUNK lowers
                          it, for tests) */
    /* statistics */
    uint64_t bytes_sent, bytes_recv, requests;
};

/* Standalone: load every part of conf_path in-process. */
int dp_rt_open_standalone(struct dp_rt *rt, const char *conf_path);
/* Distributed: connect to the servers listed in ip_config (num_servers per
 * machine) and load local_part in-process (-1: none). client is this
 * trainer's id for the servers' goodbye count (its rank), or
 * DP_CLIENT_NONE for a client whose goodbye must not count. */
int dp_rt_open_dist(struct dp_rt *rt, const char *conf_path,
                    const char *ip_config, int num_servers, int local_part,
                    uint32_t client);
/* In a process forked from the one that opened rt (a sampler worker):
 * close the inherited server connections without a goodbye (they are the
 * parent's) and connect again as client `client`; the parts loaded stay. */
int dp_rt_reconnect(struct dp_rt *rt, uint32_t client);
/* Keep freed buffers up to 256 MiB in the heap (glibc mallopt): batches
 * allocate and free the same large blocks, and fresh mmaps of them cost a
 * page fault per 4 KiB every time. Called by the trainer and the server. */
void dp_rt_tune_malloc(void);
/* Say goodbye to every server, close, free. */
void dp_rt_close(struct dp_rt *rt);

/* One sampling hop over any global seeds (each routed to its owner). */
int dp_rt_sample(struct dp_rt *rt, const int64_t *seeds, int64_t n,
                 int64_t fanout, const struct dp_sample_key *key,
                 struct dp_edges *out);
/* dp_rt_sample with a fanout per edge type (f->by_etype) or one for all. */
int dp_rt_sample_typed(struct dp_rt *rt, const int64_t *seeds, int64_t n,
                       const struct dp_fanout *f,
                       const struct dp_sample_key *key, struct dp_edges *out);
int dp_rt_in_degree(struct dp_rt *rt, const int64_t *ids, int64_t n,
                    int64_t *out);

/* One block per fanout, as DGL's NeighborSampler builds them: block l
 * samples fanouts[l] in-neighbours of its destination nodes with key
 * (seed, epoch, l). The last block's destinations are the seeds (distinct
 * ids); each block's sources are its destinations followed by the new
 * sampled nodes in order of first appearance, and are the destinations of
 * the block before it; blocks[0].src_nodes are the input nodes. */
struct dp_block {
    int64_t num_dst; /* destinations: src_nodes[0 .. num_dst) */
    int64_t num_src;
    int64_t *src_nodes; /* [num_src] global node ids */
    int64_t num_edges;
    int64_t *edge_src, *edge_dst, *edge_id; /* [num_edges] global ids */
};
struct dp_blocks {
    int num_layers;
    struct dp_block *b; /* [num_layers], input layer first */
};
int dp_rt_sample_blocks(struct dp_rt *rt, const int64_t *seeds, int64_t n,
                        const int64_t *fanouts, int num_fanouts, uint64_t seed,
                        uint32_t epoch, struct dp_blocks *out);
/* dp_rt_sample_blocks with a dp_fanout per layer (per edge type or not). */
int dp_rt_sample_blocks_typed(struct dp_rt *rt, const int64_t *seeds, int64_t n,
                              const struct dp_fanout *fanouts, int num_fanouts,
                              uint64_t seed, uint32_t epoch,
                              struct dp_blocks *out);
void dp_blocks_release(struct dp_blocks *b);
/* Gather a named node/edge feature for global ids. *rows is malloc'd
 * (n * *row_bytes bytes; caller frees); dtype reported. */
int dp_rt_gather(struct dp_rt *rt, int edge, const char *name,
                 const int64_t *ids, int64_t n, void **rows,
                 uint64_t *row_bytes, enum dp_dtype *dtype);

/* ---- environment (DGL's launcher variables) ---- */

struct dp_dist_env {
    int is_server;  /* DGL_ROLE=server */
    int standalone; /* DGL_DIST_MODE=standalone or unset */
    int server_id, num_servers, num_clients;
    const char *ip_config, *conf_path; /* borrowed from the environment */
};
/* Read DGL_ROLE, DGL_DIST_MODE, DGL_SERVER_ID, DGL_NUM_SERVER,
 * DGL_NUM_CLIENT, DGL_IP_CONFIG, DGL_CONF_PATH (missing numbers are -1,
 * strings NULL). Malformed numbers fail with DP_EINVAL. */
int dp_dist_env(struct dp_dist_env *e);
/* DGL's initialize(): a server process serves (dp_serve) and returns its
 * status with *served = 1; a client returns 0 with *served = 0 and the
 * caller opens a runtime. */
int dp_dist_init(int *served);

/* ---- the trainer driver (dglpart sample) ---- */

struct dp_train_opts {
    const char *conf_path;
    int standalone;
    const char *ip_config; /* distributed */
    int num_servers;
    int64_t *fanouts; /* borrowed, input layer first (DGL order) */
    int num_fanouts;
    const char *typed_fanouts; /* "cites=10,has=5;..." per edge type, read
                                  against the set's types; NULL: fanouts */
    int64_t batch_size;
    int epochs;
    uint64_t seed;
    int rank, world_size;   /* trainer rank/count (RANK, WORLD_SIZE) */
    int local_part;         /* -2: rank * num_parts / world_size; -1: none */
    const char *feat_name;  /* "features" */
    const char *label_name; /* "labels" */
    const char *train_name; /* "train_mask" */
    const char *ntype;      /* typed sets: the seeds' node type; NULL: the
                               first type with a train_name feature */
    int num_samplers;       /* sampler processes making batches ahead (0: in
                               the loop); DGL_NUM_SAMPLER */
    int queue_size;         /* batches made ahead across them (0: 4 each) */
    int compute;            /* passes over each batch's features, standing in
                               for a model's work */
};

/* The train nodes of trainer rank among world_size (DGL's node_split with
 * force_even: ascending global ids of train nodes cut in even contiguous
 * pieces, sizes differing by at most one). Caller frees *out. */
int dp_node_split(const int64_t *train, int64_t n, int rank, int world_size,
                  int64_t **out, int64_t *count);

/* Iterate the epochs; prints throughput to stderr and returns the
 * checksum (sum mod 2^64 of a hash of every item fetched). */
int dp_train_run(const struct dp_train_opts *o, uint64_t *checksum);

#endif
