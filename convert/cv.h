/* Internals of the convert stage shared by its readers: streamed byte
 * sources (plain, gzip, zip entries) cut into lines, the edge store and the
 * CSC writer. Not a public API; only convert/ includes it. */
#ifndef DGLPART_CONVERT_CV_H
#define DGLPART_CONVERT_CV_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "dglpart/buf.h"
#include "dglpart/convert.h"
#include "dglpart/dataset.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"
#include "dglpart/progress.h"

/* Decompressed bytes per block; two blocks are in flight at a time. */
#define CV_BLOCK (4u << 20)
/* Longest line a text reader accepts. */
#define CV_MAX_LINE (256u << 20)

struct cv_zip; /* an open zip archive, read once front to back */

struct cv_block {
    char *data;
    size_t len;
    int full;
    uint64_t raw_end; /* raw bytes read when the block was filled */
};

/* A stream of bytes from a file, a zip entry or memory, gunzipped when it
 * starts with the gzip magic, read ahead by a producer thread into two
 * blocks while the caller parses the other one. */
struct cv_src {
    char *name;               /* named in messages (owned) */
    int fd;                   /* -1 unless reading a file */
    struct cv_zip *zip;       /* reading the current entry of a zip */
    const unsigned char *mem; /* reading memory */
    size_t memlen, mempos;
    int gz, zend, raw_eof;
    void *zs;           /* ISA-L's inflate_state (igzip stays in cv_stream.c) */
    unsigned char *raw; /* compressed input block */
    uint64_t raw_off;   /* raw bytes read so far */
    struct dp_sha256 *sha; /* sha256 of the raw bytes when hashing */
    char sha_hex[65];
    int ranged; /* reading bytes [off, off + left) of a file */
    uint64_t left;
    pthread_t hash_th; /* hashes a file beside the reader */
    int hashing, hash_rc;
    uint64_t hash_size;
    /* producer */
    int threaded;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    struct cv_block blk[2];
    int prod, next, stop, err;
    char errmsg[1024];
    /* consumer */
    struct cv_block *cur;
    size_t pos;
    struct dp_buf carry;
    int eof;
    uint64_t line;           /* number of the line last returned, 1-based */
    struct dp_progress prog; /* raw bytes of big files, on a TTY */
    int prog_on;
    /* cv_src_blocks: the lines of some blocks only */
    uint64_t blk_lines, blk_left;
    int64_t blk_no;
    int blk_every, blk_mine, blk_own;
    void (*on_block)(void *arg, int64_t block);
    void *blk_arg;
};

/* The layout of in ("ogb", "edgelist", ...), by its files, magic bytes
 * and name; 0 or DP_EFORMAT saying what was expected. */
int cv_detect(const char *in, const char **fmt);
/* The NAME.cites and NAME.content files of a LINQS input (owned). */
int cv_linqs_files(const char *in, char **cites, char **content);
/* Inflate the start of a raw deflate stream (a zip entry's) into out, up
 * to cap bytes; in may stop short of the stream's end. */
int cv_inflate_head(const void *in, size_t inlen, void *out, size_t cap,
                    size_t *len);
/* Decode the first cap bytes of path (gunzipped when it is gzip) into buf,
 * for estimates: *len bytes decoded, *used the raw bytes they came from. */
int cv_sample(const char *path, char *buf, size_t cap, size_t *len,
              uint64_t *used);

/* Open a file; hash != 0 computes its sha256 (cv_src_close hands it out). */
int cv_src_open_file(struct cv_src *s, const char *path, int hash);
/* Read bytes [off, off + len) of a plain file, never gunzipped; hash as
 * cv_src_open_file's, of the whole file. */
int cv_src_open_range(struct cv_src *s, const char *path, int hash,
                      uint64_t off, uint64_t len);
/* Read the current entry of z; name is used in messages. plain: the entry
 * holds no gzip stream itself, so when deflated ISA-L may inflate it. */
int cv_src_open_zip(struct cv_src *s, struct cv_zip *z, const char *name,
                    int plain);
/* Read len bytes of memory (not copied; no thread). */
int cv_src_open_mem(struct cv_src *s, const void *p, size_t len,
                    const char *name);
/* The next line without its "\n" or "\r\n", NUL-terminated and writable
 * until the next call; 0 with *line NULL at the end, or an error. */
int cv_src_line(struct cv_src *s, char **line, size_t *len);
/* A run of whole lines in place: [*p, *end) holds lines that each end in
 * '\n' (CR not stripped), or one line without its end; the caller counts
 * them in s->line. *p NULL at the end. Valid until the next call. */
int cv_src_lines(struct cv_src *s, char **p, char **end);
/* From now on cv_src_lines hands over the lines of block b (lines
 * [b * lines, (b + 1) * lines) of the input) only when b % every == mine,
 * counting the others in s->line; on_block(arg, b) is called as each of
 * those blocks starts (all lines of the blocks before handed over). */
void cv_src_blocks(struct cv_src *s, uint64_t lines, int every, int mine,
                   void (*on_block)(void *arg, int64_t block), void *arg);
/* Read up to n decoded bytes (binary inputs); *got < n only at the end. */
int cv_src_read(struct cv_src *s, void *buf, size_t n, size_t *got);
/* Stop the producer and free everything; sha (65 bytes) and size get the
 * raw input's hash and length when they are not NULL and hashing was on. */
void cv_src_close(struct cv_src *s, char *sha, uint64_t *size);

/* Open path as a zip through libarchive, hashing the raw bytes. */
int cv_zip_open(struct cv_zip **z, const char *path, int hash);
/* Advance to the next regular file entry: 0 and *name (borrowed until the
 * next call) or *name NULL at the end. Directories are skipped; any other
 * entry type, absolute names or ".." are errors. */
int cv_zip_next(struct cv_zip *z, const char **name);
/* Bytes of the current entry's data, as the central directory records
 * them (zip64 sizes included), or -1 when it does not say. */
int64_t cv_zip_entry_size(const struct cv_zip *z);
/* Skip the rest of the zip so the hash covers the whole file. */
int cv_zip_finish(struct cv_zip *z);
void cv_zip_close(struct cv_zip *z, char *sha, uint64_t *size);
/* True when the file starts with the given magic bytes. */
int cv_file_has_magic(const char *path, const void *magic, size_t n);

/* Edges in input order, ids as uint32 until one does not fit. */
/* Node ids are below this: counts (id + 1) and sizes made from them never
 * overflow int64. */
#define CV_MAX_NODES ((int64_t)1 << 62)

/* Labels are below this: num_classes (max label + 1) cannot overflow and
 * meta.json, where it is a JSON number (a double), holds it exactly. */
#define CV_MAX_LABEL ((int64_t)1 << 53)

struct cv_edges {
    int wide; /* 0: u32 arrays, 1: int64 arrays */
    void *src, *dst;
    uint64_t n, cap;
    /* Past spill_at bytes (both arrays), src and dst move to unlinked files
     * in spill_dir, mapped shared: page cache the kernel can write back,
     * not anonymous memory, while the CSC's slices fill (0 in spill_at:
     * 4 GiB; dp_convert sets DGLPART_EDGE_SPILL's value). */
    const char *spill_dir;
    uint64_t spill_at;
    int spilled, sfd, dfd;
    int64_t max_id;    /* -1 while empty */
    uint64_t max_line; /* line (or entry) of the largest id */
    int64_t *weight;   /* one per edge when has_weight */
    int has_weight;
    /* In-degrees (plus out-degrees when deg_und) in an array of ndeg
     * (past every id), counted by cv_parse_edgelist when it knew the node
     * count and by the .npz reader as ids stream in, so the CSC skips its
     * counting pass; only used when counted == n. It counts whatever the
     * arrays hold, so it must be the only reader pushing into such a
     * store. NULL: not counted. */
    int64_t *deg;
    int64_t ndeg;
    uint64_t counted;
    int deg_und;
    /* A thread faulting in the arrays' pages ahead of the parser, while
     * warming (cv_edges_warm). */
    pthread_t warm_tid;
    int warming, warm_stop;
    struct cv_warm *warm; /* bucket mode's, while warming */
    uint64_t sized;       /* edges the last cv_edges_grow asked room for */
    /* Bucket mode (cv_edges_bucket): src and dst hold only the edges since
     * the last cv_edges_flush, from edge id base on; each flush moves them
     * into nbkt buckets by destination, so the CSC fills a bucket at a
     * time from its own edges instead of passing over all of them. */
    struct cv_bucket *bkt;
    int nbkt, bshift;
    uint64_t base;
    /* Bucket mode on a disk: full chunks of the buckets go to a scratch
     * file (cv_chunks_open); NULL: the buckets grow in memory. */
    struct cv_chunks *chunks;
};

/* A bucket: the edges whose destination is in [b << bshift, (b + 1) <<
 * bshift), in input order, as pairs of uint32: the source, then the
 * destination's offset in the bucket (low 24 bits) and the gap to the last
 * edge id less one (high 8 bits); gap 255 says a pair holding the edge id
 * (low, high) follows. Most gaps are below the bucket count, so the
 * buckets take 8 bytes an edge, as src and dst did. */
struct cv_bucket {
    uint32_t *v;
    uint64_t n;     /* uint32 words held */
    size_t cap;     /* and room for */
    uint64_t edges; /* edges held */
    uint64_t last;  /* edge id of the last one; UINT64_MAX: none */
    /* With chunks: the full chunks before v, in order, an entry running
     * over from one chunk into the next. */
    struct cv_chunk *ch;
    size_t nch, chcap;
};

struct cv_chunk {
    uint32_t *mem; /* kept in memory, or NULL: */
    uint64_t at;   /* the chunk's place in the scratch file */
};

/* The scratch file of the chunks, in dir or its nearest parent, written
 * past the page cache by a thread of its own through a queue of queue
 * chunks of bytes. DP_EUNSUPPORTED with the message set where the file
 * system is tmpfs or refuses direct I/O. queue 0 keeps every chunk in
 * memory (tests). */
struct cv_chunks;
int cv_chunks_open(struct cv_chunks **s, const char *dir, size_t bytes,
                   int queue);
/* A page-aligned buffer of a chunk and a page more, reused or new; NULL
 * when out of memory. */
uint32_t *cv_chunks_buf(struct cv_chunks *s);
/* Queue a full chunk for writing: 0 and its place in *at (the buffer is
 * the store's now; UINT64_MAX: the writer is behind and the caller keeps
 * it), or the error of an earlier write naming the folder. */
int cv_chunks_put(struct cv_chunks *s, void *buf, uint64_t *at);
/* Write what is queued and stop the thread; 0 or the first write's error. */
int cv_chunks_sync(struct cv_chunks *s);
/* Read the chunk at at into page-aligned buf. */
int cv_chunks_read(struct cv_chunks *s, uint64_t at, void *buf);
size_t cv_chunks_bytes(const struct cv_chunks *s);
void cv_chunks_close(struct cv_chunks *s);

/* Enter bucket mode when it applies: plain (a directed CSC, nothing
 * filtered, untyped), an empty store without weights, sized up front,
 * node ids checked below n, which fits 32 bits, and a store that stays
 * in memory. 0 with nothing done otherwise. */
int cv_edges_bucket(struct cv_edges *e, int64_t n, int plain);
/* Move the edges since the last flush into the buckets. */
int cv_edges_flush(struct cv_edges *e);

/* Ask for transparent huge pages on a big malloc'd array hit at random
 * (advice only). */
void cv_hugepages(void *p, size_t n);

/* Fault in the pages of src and dst past n on a thread of its own, when
 * the store was sized up front and lives in memory: on a VM the first
 * touch of memory costs the parser more than its parsing. In bucket mode,
 * the buckets' pages a little ahead of their ends instead. Stopped by
 * cv_edges_warm_stop, and before the arrays move. */
void cv_edges_warm(struct cv_edges *e);
void cv_edges_warm_stop(struct cv_edges *e);
int cv_edges_grow(struct cv_edges *e, uint64_t need);
/* The edge count a reader knows before the edges, for an empty store:
 * cv_parse_edgelist sizes the store for it, or the buckets when they
 * apply, so a store past the spill point is not mapped first for
 * nothing. */
void cv_edges_expect(struct cv_edges *e, uint64_t count);
/* Entries [lo, hi) are not read again: their whole pages leave the
 * resident set (a spilled store's stay in its file). */
void cv_edges_drop(const struct cv_edges *e, uint64_t lo, uint64_t hi);
/* e->deg grown, zeroed, to cover every id up to max_id: 0 or DP_ENOMEM. */
int cv_edges_deg_fit(struct cv_edges *e);
int cv_edges_count(struct cv_edges *e, int col, uint64_t from, uint64_t to);
int cv_edges_widen(struct cv_edges *e);
void cv_edges_release(struct cv_edges *e);

static inline int64_t cv_edges_src(const struct cv_edges *e, uint64_t k)
{
    return e->wide ? ((const int64_t *)e->src)[k]
                   : (int64_t)((const uint32_t *)e->src)[k];
}
static inline int64_t cv_edges_dst(const struct cv_edges *e, uint64_t k)
{
    return e->wide ? ((const int64_t *)e->dst)[k]
                   : (int64_t)((const uint32_t *)e->dst)[k];
}

/* Append one edge (ids already checked non-negative); line is remembered
 * for the largest id so a late range check can name it. */
static inline int cv_edges_push(struct cv_edges *e, int64_t s, int64_t d,
                                uint64_t line)
{
    int64_t m = s > d ? s : d;
    int rc;

    if (e->n - e->base == e->cap && (rc = cv_edges_grow(e, e->n + 1)))
        return rc;
    if (m > e->max_id) {
        e->max_id = m;
        e->max_line = line;
        if (!e->wide && m > (int64_t)UINT32_MAX && (rc = cv_edges_widen(e)))
            return rc;
    }
    if (e->wide) {
        ((int64_t *)e->src)[e->n - e->base] = s;
        ((int64_t *)e->dst)[e->n - e->base] = d;
    } else {
        ((uint32_t *)e->src)[e->n - e->base] = (uint32_t)s;
        ((uint32_t *)e->dst)[e->n - e->base] = (uint32_t)d;
    }
    e->n++;
    return 0;
}

/* What a reader hands to the writer. Readers write node arrays (feat,
 * label, masks, node weights) straight into dir and set the meta fields. */
struct cv_graph {
    const struct dp_convert_opts *o;
    char *dir; /* the OUT.tmp folder (owned) */
    struct cv_edges edges;
    int64_t num_nodes;    /* -1: max id + 1 */
    char *edge_src;       /* file the edges came from (owned) */
    char nodes_from[256]; /* what fixed num_nodes, for messages */
    struct dp_dataset_meta meta;
    /* Typed layouts: while cur_etype >= 0 (typed != 0), edge-list ids are
     * per-type ids of that edge type's endpoint types, checked against
     * their counts and shifted by their offsets (cv_typed.c). */
    int typed;
    int cur_etype;
    uint64_t etype_start;           /* edges.n when cur_etype began */
    int64_t end_off[2], end_cnt[2]; /* source, destination type */
    struct cv_share *share; /* under mpirun: this rank's part; NULL: all */
};

/* Record an input file in meta.json. */
int cv_graph_add_input(struct cv_graph *g, const char *path, uint64_t size,
                       const char *sha);
/* Whether g's inputs are hashed for its record (not with no_input_hash). */
int cv_hashing(const struct cv_graph *g);
/* Record path as an input of g: its sha256 and size, or its size alone
 * when g hashes none. */
int cv_graph_add_file(struct cv_graph *g, const char *path);
/* Path of name inside g->dir (caller frees). */
char *cv_graph_path(const struct cv_graph *g, const char *name);
/* Write a node array [num_nodes] (label int64 or mask uint8). */
int cv_graph_write_i64(struct cv_graph *g, const char *name, const int64_t *v,
                       int64_t n);
int cv_graph_write_mask(struct cv_graph *g, const char *name, const uint8_t *v,
                        int64_t n);
/* Build the CSC (counting sort by destination), apply --undirected,
 * --no_self_loops and --dedup, and write indptr, indices, eids and
 * edge_weight into g->dir. Frees the edge arrays. */
int cv_graph_write_csc(struct cv_graph *g);

/* Typed graphs (cv_typed.c). Node types are added first, in id order;
 * then each edge type, its edges pushed between begin and end. what names
 * the file that says so, for messages. */
int cv_typed_add_ntype(struct cv_graph *g, const char *name, int64_t count,
                       const char *what);
/* name is "src:rel:dst" of known node types. */
int cv_typed_begin_etype(struct cv_graph *g, const char *name,
                         const char *what);
void cv_typed_end_etype(struct cv_graph *g);
/* *path: DIR/ndata/<type>/<name>.npy (edge: edata/...), its folder made
 * and the array listed in meta.json; caller frees. */
int cv_typed_data_path(struct cv_graph *g, int edge, int type, const char *name,
                       char **path);
/* Write a whole per-type array (first dimension the type's count). */
int cv_typed_write(struct cv_graph *g, int edge, int type, const char *name,
                   enum dp_dtype dtype, int ndim, const int64_t *shape,
                   const void *data);
/* Concatenate the .npy chunks files[0..n) into the per-type array name
 * (rows[i]: rows chunk i must have, -1 any; NULL: no check); label becomes
 * int64, *_mask uint8. what names the source in messages. */
int cv_typed_concat(struct cv_graph *g, int edge, int type, const char *name,
                    char *const *files, int n, const int64_t *rows,
                    const char *what);
/* Push the edges of src.npy and dst.npy (per-type ids) as the current
 * edge type's. */
int cv_typed_push_ids(struct cv_graph *g, const char *spath, const char *dpath);
/* After the reader: refuse options that break type ranges, add reverse
 * edge types (--add_reverse_edges) and set num_nodes. */
int cv_typed_finish(struct cv_graph *g);
/* After the CSC: check the type counts against it. */
int cv_typed_check(struct cv_graph *g);
/* An id out of its type's range (col 1 source, 2 destination). */
int cv_typed_bad_id(struct cv_graph *g, const char *file, uint64_t line,
                    int col, int64_t id);

/* Fast integer scanning for text readers: parse a decimal integer at *p
 * (optional sign), advance *p. 0 ok, 1 no digits, 2 overflow. Inline: it
 * runs twice per edge. */
static inline int cv_scan_i64(const char **pp, int64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    int neg = 0;

    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if ((unsigned)(*p - '0') > 9)
        return 1;
    while ((unsigned)(*p - '0') <= 9) {
        unsigned dgt = (unsigned)(*p - '0');

        if (v > ((uint64_t)INT64_MAX - dgt) / 10)
            return 2;
        v = v * 10 + dgt;
        p++;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    *pp = p;
    return 0;
}

/* Readers: each fills g from o->input. The one-file text formats (edge
 * list, METIS) go through cv_read_text with their parser below: it streams
 * path (plain or gzip) into parse and records the file's size and sha256
 * as an input. */
int cv_read_text(struct cv_graph *g, const char *path,
                 int (*parse)(struct cv_graph *g, struct cv_src *s));
/* OGB: everything, everything but raw/node-feat (the pipeline converts it
 * while METIS runs), or only node-feat into an existing dataset folder. */
enum cv_ogb_mode { CV_OGB_ALL, CV_OGB_NO_FEAT, CV_OGB_FEAT_ONLY };
int cv_read_ogb(struct cv_graph *g, const char *path, enum cv_ogb_mode mode);
int cv_read_npy(struct cv_graph *g, const char *path);
int cv_read_linqs(struct cv_graph *g, const char *path);
int cv_read_npz(struct cv_graph *g, const char *path);
/* OGB's heterogeneous layout (raw/num-node-dict.csv.gz), a folder. */
int cv_read_ogb_hetero(struct cv_graph *g, const char *root);
int cv_read_chunked(struct cv_graph *g, const char *path);

/* ---- a chunked input converted by the ranks of an mpirun (cv_dist.c) */

/* A rank's share of a chunked input: the edge chunks that start in its
 * part of all edges (every edge type's chunks in order, so its edges are
 * input edge ids [e_lo, e_lo + edges.n)), and the data chunks whose
 * number is rank modulo size. Its edges count in full in their types;
 * inputs read by another rank are listed with an empty sha256, filled
 * from their readers' lists. */
struct cv_share {
    int rank, size;
    int64_t total;  /* edges of all types */
    int64_t pos;    /* edges before the chunk looked at */
    int64_t e_lo;   /* input edge id of this rank's first edge; -1: none */
    int64_t chunks; /* data chunks looked at */
};

/* Whether the edge chunk of n edges at sh->pos is this rank's (advances
 * pos), and whether data chunk sh->chunks is (advances chunks). */
int cv_share_edges(struct cv_share *sh, int64_t n);
int cv_share_data(struct cv_share *sh);

/* An .npy file every rank sees, filled by several at once: each opens it
 * (made its whole size; the header written where header is set) and puts
 * its items at their place. */
struct cv_shared_npy {
    int fd;
    size_t hdr, item; /* header bytes, bytes an item */
    char *path;       /* owned, for messages */
};
int cv_shared_npy_open(struct cv_shared_npy *f, const char *path,
                       enum dp_dtype dtype, int ndim, const int64_t *shape,
                       int header);
int cv_shared_npy_put(struct cv_shared_npy *f, uint64_t item, const void *p,
                      uint64_t n);
/* fsync and close after rc (0: the writes stand): rc, or DP_EIO. */
int cv_shared_npy_close(struct cv_shared_npy *f, int rc);

struct dp_comm;
/* The input edge ids of a rank's edges (g->edges): lo + k, or with nb
 * blocks, first[j] + k - at[j] for the edges [at[j], at[j + 1]). */
struct cv_eids {
    int64_t lo;
    int64_t nb;
    int64_t *at;    /* [nb + 1] (owned) */
    int64_t *first; /* [nb] (owned) */
};
void cv_eids_release(struct cv_eids *x);
/* After every rank read its share (input edge ids by ids, edges in all)
 * and g->num_nodes is known: the CSC's files from every rank's edges, each
 * rank writing the columns of an equal range of destinations (frees
 * g->edges). Collective; a local failure is returned for dp_comm_agree,
 * after every collective. */
int cv_dist_csc(struct cv_graph *g, struct dp_comm *c,
                const struct cv_eids *ids, int64_t edges);
/* This rank's share of an edge list, a plain file: whole lines from its
 * part of the file's bytes on, parsed as cv_parse_edgelist does, lines
 * counted from the file's start; then *e_lo, the input edge id of its
 * first edge, *edges in all, and g->num_nodes (the largest id on any
 * rank + 1, unless given). Collective; a failure is every rank's. */
int cv_dist_read_edgelist(struct cv_graph *g, struct dp_comm *c,
                          const char *path, int64_t *e_lo, int64_t *edges);
/* This rank's share of a gzipped edge list, which cannot be cut by bytes:
 * every rank inflates the whole file and parses the blocks of lines that
 * are its (block b on rank b % P; DGLPART_TEST_GZ_BLOCK lines a block,
 * 64Ki by default); then *ids, *edges and g->num_nodes as above. Rank 0
 * hashes the file. Collective. */
int cv_dist_read_gz(struct cv_graph *g, struct dp_comm *c, const char *path,
                    struct cv_eids *ids, int64_t *edges);
/* After every rank's share (edges in all): g->num_nodes, from 0 to the
 * largest id anywhere unless already known. Collective. */
int cv_dist_read_done(struct cv_graph *g, struct dp_comm *c, const char *path,
                      int64_t edges);
/* A rank's blocks of a gzipped edge file being read (g->share's rank of
 * its size): begin before the parser, end after it; then cv_blocks_ids,
 * collective, gives the input edge ids and the edges in all. */
struct cv_blocks {
    const struct cv_graph *g;
    int64_t n, cap, *at; /* [n + 1] the own blocks' first local edges */
    int64_t seen;        /* blocks in the file */
    int failed;
};
int cv_blocks_begin(struct cv_blocks *b, const struct cv_graph *g,
                    struct cv_src *s);
int cv_blocks_end(struct cv_blocks *b, const struct cv_src *s);
int cv_blocks_ids(struct dp_comm *c, struct cv_blocks *b, const char *path,
                  struct cv_eids *ids, int64_t *edges);
void cv_blocks_release(struct cv_blocks *b);
/* An OGB node-property folder (raw/edge.csv.gz or raw/data.npz, not
 * typed) that the ranks can read together. */
int cv_ogb_shareable(const char *in);
/* Read it: every rank the counts and its blocks of raw/edge.csv.gz (its
 * P-th of data.npz's edge_index), rank 0 also the features, labels and
 * splits (written as one process does); then *ids, *edges and
 * g->num_nodes. Collective. */
int cv_read_ogb_dist(struct cv_graph *g, struct dp_comm *c, const char *in,
                     struct cv_eids *ids, int64_t *edges);
/* Every rank's inputs' sizes and sha256 into every rank's meta.inputs. */
int cv_dist_inputs(struct cv_graph *g, struct dp_comm *c);

int cv_read_typed_npy(struct cv_graph *g, const char *path);

/* NumPy .npz archives (zips of .npy), read entry by entry; the OGB reader
 * uses them for papers100M's raw/data.npz and raw/node-label.npz. */
struct cv_npz {
    char *input;  /* the .npz or folder read, for messages (owned) */
    int64_t ne;   /* edges once a src/row/edge_index array is read */
    int64_t e_lo; /* under mpirun (g->share): this rank's edges are input
                     edges [e_lo, e_lo + g->edges.n) */
    int have_src, have_dst;
    int count; /* columns (1 src, 2 dst) still to count into the degrees */
    char *edge_file;
    int64_t n; /* nodes, from shape / num_nodes_list / arrays */
    char n_from[256];
    int have_feat;
    int64_t feat_rows, feat_dim;
    char *feat_file;
    int64_t *label, nlabel, label_max;
    char *label_file;
    uint8_t *mask[3];
    int64_t nmask[3];
    char *mask_file[3];
};
void cv_npz_init(struct cv_npz *z);
int cv_npz_file(struct cv_graph *g, struct cv_npz *z, const char *path);
/* Check counts and write the node arrays; releases z. */
int cv_npz_finish(struct cv_graph *g, struct cv_npz *z);
/* Under mpirun, after every rank read z (its P-th of the edges, rank 0
 * also the node arrays): *ids, *edges, g->num_nodes, every rank's ids
 * checked against it, then rank 0 finishes z as one process does (the
 * others release it). Collective. */
int cv_npz_dist_finish(struct cv_graph *g, struct dp_comm *c, struct cv_npz *z,
                       struct cv_eids *ids, int64_t *edges);
/* A single .npz file the ranks read together (every rank its P-th of the
 * edges). Collective. */
int cv_read_npz_dist(struct cv_graph *g, struct dp_comm *c, const char *in,
                     struct cv_eids *ids, int64_t *edges);
void cv_npz_release(struct cv_npz *z);
/* Read an edge list from a source (fuzzing and the edge-list reader). */
int cv_parse_edgelist(struct cv_graph *g, struct cv_src *s);
/* Parse METIS text from a source (fuzzing and the METIS reader). */
int cv_parse_metis(struct cv_graph *g, struct cv_src *s);

#endif
