/* Compressed neighbour lists for the multilevel partitioner (TeraPart's
 * scheme): sorted, gap-encoded varints, runs of consecutive ids as
 * intervals, edge weights only where a node has one that is not 1, hubs
 * cut into chunks a decoder can start at. Not a public API. */
#ifndef DGLPART_CGRAPH_H
#define DGLPART_CGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A run of this many consecutive ids or more is one interval: its token
 * and its length take two bytes where three gaps of 1 take three. */
#define ML_CG_RUN_MIN 3
/* Nodes of ML_CG_HUB entries or more are cut into chunks of ML_CG_CHUNK,
 * each decodable alone (a few KB: enough work for a thread, and the 8
 * bytes a chunk's offset costs are lost among them). */
#define ML_CG_CHUNK 2048
#define ML_CG_HUB (2 * ML_CG_CHUNK)

/* A graph of n nodes and m entries. Node v's record is bytes[off(v)] to
 * bytes[off(v + 1)], empty when v has no neighbours, else:
 *   varint deg << 1 | weighted
 *   hubs (deg >= ML_CG_HUB): nchunks - 1 little-endian uint64 offsets of
 *     chunks 1.. from the end of this table
 *   chunks of ML_CG_CHUNK entries (the last: the rest; one chunk for
 *   nodes below ML_CG_HUB), each on its own:
 *     first: varint zz(u - v) << 1 | 0, or zz(u - v) << 2 | run << 1 | 1
 *       (the chunk uses intervals; zz is zigzag)
 *     next:  varint gap, or gap << 1 | run with intervals (gap: from the
 *       last id of the element before)
 *     after a run token: varint length - ML_CG_RUN_MIN; after each id,
 *     when weighted, varint (uint32) weight.
 * Ids come out sorted (repeats kept). off32 holds the offsets when the
 * bytes fit 32 bits, else off64 (the other NULL). */
struct ml_cgraph {
    int32_t n;
    int64_t m;
    int weighted; /* some node has a weight other than 1 */
    uint32_t *off32;
    uint64_t *off64;
    uint8_t *bytes;
    size_t nbytes;
    int in_file;   /* the arrays are mappings of a scratch file's pages */
    size_t stored; /* bytes of lists: nbytes, less (in a file) the hole
                    * between the two threads' regions */
};

struct dp_spill;

/* Encode the CSR xadj[n+1], adj[xadj[n]] (ids in [0, 2^31)), adjw (NULL:
 * every weight 1) into *g, on two threads when two; rows need not be
 * sorted. The bytes are the same whatever the threads. *g is set only on
 * success (release with ml_cg_release); DP_ENOMEM or DP_EINVAL. */
int ml_cg_build(struct ml_cgraph *g, int32_t n, const int64_t *xadj,
                const int32_t *adj, const int32_t *adjw, int two);

/* For a source the caller drops after the copy (unweighted only):
 * fn(arg, adj, len) gets each stretch of whole pages of adj whose rows
 * are written out, so their memory can go while the copy grows. */
struct ml_cg_done {
    void (*fn)(void *arg, const int32_t *adj, size_t len);
    void *arg;
};

/* ml_cg_build with the bytes and offsets written to the scratch file sp
 * and read from it (read-only mappings): none of them anonymous memory,
 * for a copy that waits on the disk until it is needed. sp owns them
 * (dp_spill_close); DP_EIO when the file cannot take them. done (may be
 * NULL) is told of the source's pages as they are written out. */
int ml_cg_build_file(struct ml_cgraph *g, int32_t n, const int64_t *xadj,
                     const int32_t *adj, const int32_t *adjw, int two,
                     struct dp_spill *sp, const struct ml_cg_done *done);

/* Encode node v's list of deg sorted ids (weights ws, or NULL: all 1,
 * then stored as none; likewise when every one is 1) at out, which has
 * room; out NULL: only count. Returns the bytes. */
size_t ml_cg_put_list(uint8_t *out, int32_t v, const int32_t *ids,
                      const int32_t *ws, int64_t deg);

/* A sorted copy of len ids in [0, 2^31) into out, tmp[len] its scratch. */
void ml_cg_sort_ids(const int32_t *a, int32_t *out, int32_t *tmp, int64_t len);

/* Free g's arrays (NULL and a zeroed g are fine). */
void ml_cg_release(struct ml_cgraph *g);

/* Bytes g holds: the lists (stored) and the offsets. */
size_t ml_cg_size(const struct ml_cgraph *g);

/* Decode every list into xadj[n+1], adj[m] and, when adjw is not NULL,
 * adjw[m] (1 where no weight is stored): rows sorted. The caller owns the
 * arrays; two threads when two. */
void ml_cg_decode(const struct ml_cgraph *g, int64_t *xadj, int32_t *adj,
                  int32_t *adjw, int two);

/* Decode g's ids into xadj[n+1] (the caller's) and an adjacency array
 * written to the scratch file sp, rows sorted, weights dropped: its
 * read-only mapping (sp owns it), or NULL with the error set. */
const int32_t *ml_cg_decode_file(const struct ml_cgraph *g, int64_t *xadj,
                                 struct dp_spill *sp, int two);

static inline uint64_t ml_cg_off(const struct ml_cgraph *g, int64_t v)
{
    return g->off32 ? g->off32[v] : g->off64[v];
}

/* One LEB128 varint at *pp, which moves past it. Byte by byte: a
 * branch-free read of one 8-byte word was slower on rmat (285 against 340
 * M entries/s), its length chain costing more than the mispredictions. */
static inline uint64_t ml_cg_get(const uint8_t **pp)
{
    const uint8_t *p = *pp;
    uint64_t x = *p++, b;
    int s = 7;

    if (x >= 0x80) {
        x &= 0x7f;
        do {
            b = *p++;
            x |= (b & 0x7f) << s;
            s += 7;
        } while (b & 0x80);
    }
    *pp = p;
    return x;
}

/* A decoder over one list, or one chunk of a hub's:
 *   struct ml_cg_it it;
 *   ml_cg_begin(&it, g, v);
 *   while (ml_cg_next(&it))
 *       use(it.u, it.w);
 */
struct ml_cg_it {
    const uint8_t *p;
    int64_t left;  /* entries left to decode */
    int64_t cleft; /* of them, in the current chunk */
    int64_t clen;  /* entries a chunk */
    int64_t run;   /* ids left in the current interval */
    int32_t v, u, w;
    int weighted, runs;
};

/* Degree of the list record at p (len bytes; 0: an empty list), and
 * *p moved to its chunk table (hubs) or first chunk. */
static inline int64_t ml_cg_head(const uint8_t **p, size_t len, int *weighted)
{
    uint64_t h;

    *weighted = 0;
    if (!len)
        return 0;
    h = ml_cg_get(p);
    *weighted = (int)(h & 1);
    return (int64_t)(h >> 1);
}

static inline int64_t ml_cg_degree(const struct ml_cgraph *g, int64_t v)
{
    const uint8_t *p = g->bytes + ml_cg_off(g, v);
    int w;

    return ml_cg_head(&p, ml_cg_off(g, v + 1) - ml_cg_off(g, v), &w);
}

/* Chunks of a list of deg entries (0 for an empty one). */
static inline int64_t ml_cg_nchunks(int64_t deg)
{
    return deg < ML_CG_HUB ? deg > 0 : (deg + ML_CG_CHUNK - 1) / ML_CG_CHUNK;
}

/* Decode chunk c (-1: all) of node v's list record at p, len bytes. */
static inline void ml_cg_list_begin(struct ml_cg_it *it, const uint8_t *p,
                                    size_t len, int32_t v, int64_t c)
{
    int64_t deg, nc;

    it->p = p;
    deg = ml_cg_head(&it->p, len, &it->weighted);
    nc = ml_cg_nchunks(deg);
    it->v = v;
    it->run = 0;
    it->cleft = 0;
    it->clen = deg < ML_CG_HUB ? deg : ML_CG_CHUNK;
    it->left = deg;
    if (nc > 1) {
        const uint8_t *tab = it->p;
        uint64_t o = 0;

        it->p += (size_t)(nc - 1) * 8;
        if (c > 0) {
            memcpy(&o, tab + (size_t)(c - 1) * 8, 8);
            it->p += o;
        }
    }
    if (c >= 0) {
        it->left = deg - c * it->clen;
        if (it->left > it->clen)
            it->left = it->clen;
    }
}

/* Decode chunk c of v's list alone (c = -1: the whole list). */
static inline void ml_cg_begin_chunk(struct ml_cg_it *it,
                                     const struct ml_cgraph *g, int32_t v,
                                     int64_t c)
{
    uint64_t o = ml_cg_off(g, v);

    ml_cg_list_begin(it, g->bytes + o, ml_cg_off(g, v + 1) - o, v, c);
}

static inline void ml_cg_begin(struct ml_cg_it *it, const struct ml_cgraph *g,
                               int32_t v)
{
    ml_cg_begin_chunk(it, g, v, -1);
}

/* The first element of a chunk: sets runs and returns the id. */
static inline int64_t ml_cg_first(struct ml_cg_it *it, int *isrun)
{
    uint64_t x = ml_cg_get(&it->p);
    uint64_t z;

    it->runs = (int)(x & 1);
    x >>= 1;
    *isrun = it->runs ? (int)(x & 1) : 0;
    z = it->runs ? x >> 1 : x;
    return (int64_t)it->v + (int64_t)((z >> 1) ^ (0 - (z & 1)));
}

/* Next entry into it->u and it->w; 0 at the end. */
static inline int ml_cg_next(struct ml_cg_it *it)
{
    int isrun = 0;

    if (!it->left)
        return 0;
    if (it->run) {
        it->run--;
        it->u++;
    } else if (!it->cleft) {
        it->cleft = it->left < it->clen ? it->left : it->clen;
        it->u = (int32_t)ml_cg_first(it, &isrun);
    } else if (it->runs) {
        uint64_t x = ml_cg_get(&it->p);

        isrun = (int)(x & 1);
        it->u += (int32_t)(x >> 1);
    } else {
        it->u += (int32_t)ml_cg_get(&it->p);
    }
    if (isrun)
        it->run = (int64_t)ml_cg_get(&it->p) + ML_CG_RUN_MIN - 1;
    it->w = it->weighted ? (int32_t)(uint32_t)ml_cg_get(&it->p) : 1;
    it->left--;
    it->cleft--;
    return 1;
}

#endif
