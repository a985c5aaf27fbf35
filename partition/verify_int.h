/* What the files of dglpart verify share (partition/verify*.c): the run's
 * context, what is kept of each part, and the small inline helpers the
 * per-edge loops use. Not a public API. */
#ifndef DGLPART_VERIFY_INT_H
#define DGLPART_VERIFY_INT_H

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/dataset.h"
#include "dglpart/dglfile.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"
#include "dglpart/parse.h"
#include "dglpart/progress.h"
#include "dglpart/verify.h"

/* Problems of one kind: counted, the first one described. */
struct tally {
    int64_t n;
    char first[400];
};

/* What is kept of every part between its loads. */
struct part {
    int64_t start, end, estart, eend; /* from the config */
    int64_t num_nodes, num_edges;     /* local */
    int64_t train_nodes;              /* -1: no _N/train_mask */
    int64_t found;                    /* edge_map ids held as inner edges */
    int64_t hdr_edges; /* local, by the file's header: its share of the bar */
    int graph_ok, nf_ok;
};

/* An array of ids or -1, int32 when every id fits. */
struct ids {
    void *p;
    int wide;
};

/* Counters of w bytes each, w just wide enough for the largest count. */
struct counts {
    void *p;
    int w;
};

/* One part's graph.dgl, mapped; the endpoints are read in place from a
 * COO stored in edge id order, else expanded once into s and d. */
struct lpart {
    struct dp_graph_file g;
    int loaded, ok, direct;
    const struct dp_ndarray *nid, *eid, *inner_node, *inner_edge, *part_id;
    const struct dp_ndarray *ntype, *etype; /* _TYPE, or NULL */
    struct ids s, d;  /* [m] local endpoints unless direct */
    int64_t *iptr;    /* [n + 1] stored in-edges by local destination */
    struct ids ilist; /* [m] their local edge ids */
};

/* An input edge as one side has it, for matching across columns. */
struct iedge {
    int64_t in, a, b, s; /* input id, input endpoints, stored id (-1) */
};

/* Input edges one side holds and the other lacks, in the order found;
 * past IVEC_CAP counted, not kept. */
struct ivec {
    struct iedge *p;
    size_t n, alloc;
    int64_t dropped;
};

#define IVEC_CAP ((size_t)1 << 20)

/* Edges that one side holds more often than the other, when edges are
 * compared by endpoints: counted, the first few kept to name them. */
#define ENDS_NAMED 3

struct ends {
    int64_t n;
    struct iedge first[ENDS_NAMED];
};

/* What --dataset finds wrong with the edges, gathered over the parts in
 * order (their lines name the first ones) and reported at the end. */
struct edgefind {
    struct tally dedges;        /* stored under another destination */
    struct ivec ud, us;         /* input edges unmatched in their column */
    struct ends missing, extra; /* likewise, by endpoints */
};

/* What a part reports, held until the parts before it are reported, so
 * the lines come out in part order however the threads ran. */
struct vout {
    struct dp_buf lines; /* the first kept problem lines, each ending in a
                            NUL (a name read from a file may hold a newline) */
    int64_t kept, problems;
    struct edgefind ef;
    int done, rc; /* rc: the part's checks failed to run (no memory) */
};

struct vwork;

struct vctx {
    const struct dp_verify_opts *o;
    struct dp_verify_stats *s;
    struct dp_part_config cfg;
    int cfg_ok;
    struct part *p;
    struct dp_tensors nf0, ef0; /* part 0's, to compare the others with */
    int nf0_ok, ef0_ok;
    struct vout feats0; /* what loading them reported, for part 0's lines */
    /* the edges found as the inner edge of their edge_map part ([E] bits,
     * set by several threads) */
    uint64_t *fbits;
    /* over the found edges ([N]) and the halo copies of each edge ([E]),
     * added to by several threads */
    struct counts indeg, outdeg, copies;
    /* per edge_map part: the sum of a hash of (id, src, dst) over the
     * halo copies of its edges, and over its inner edges times their
     * copies; equal sums mean every copy joins the nodes of the original */
    uint64_t (*hcopy)[2];
    int64_t *ncopy;
    /* orig ids: DGL's top-level .npy mapped, or ours gathered from parts */
    struct dp_npy onid_npy, oeid_npy;
    struct ids onid;
    int onid_ok, oeid_ok;
    /* --dataset */
    struct dp_dataset d;
    int d_open, ds_edges, ds_feats;
    int ds_typed; /* typed data compared: the types match the config's */
    struct dp_rename ren, eren;
    struct edgefind ef;
    int64_t missing_edges, first_missing;
    /* edges leaving some part that only the out-edge halo holds (DGL's
     * partition_graph step (c)); none: the set has --halo_edges in's
     * layout, every in-edge of the nodes within the hops and no more */
    int64_t out_only;
    int in_layout, halos;
    int printed;
    /* a pass over the parts (verify.c): the next part to take and to
     * report, each part's report, the first failure */
    pthread_mutex_t mu;
    int pass, next, shown, stop;
    int (*step)(struct vwork *w, int i);
    struct vout *outs;
    int rc, rc_part;
    char msg[1024];
    /* progress: edges a pass has done of total, and the bar */
    uint64_t done, total;
    struct dp_progress bar;
};

/* One thread's share of a pass: its scratch bits, what the part at hand
 * reports, and its sums, added up when the pass ends. */
struct vwork {
    struct vctx *v;
    /* ids seen in the part at hand ([N], [E] bits, clear between parts) */
    uint64_t *nbits, *ebits;
    int quiet;        /* a part loaded again: its problems were reported */
    struct vout *out; /* the part at hand's report; NULL: print at once */
    uint64_t (*hcopy)[2];
    int64_t *ncopy, edge_cut, out_only;
    /* the part at hand's share of the bar: its edges, those counted */
    uint64_t units, credited;
};

/* What a part lacks, found by its degrees: its nodes whose in-edges (or,
 * inner ones, out-edges) are not all there, and what it holds. */
struct deficit {
    struct dp_i64vec in, out, eids, nodes;
};

/* A part's inner nodes in the order of their input ids, so the dataset is
 * read in one forward sweep whose pages can be let go behind it. */
struct byin {
    int64_t in, row; /* input node id, row = global id - node_map start */
};

/* Loops over a part's edges move the bar every this many + 1. */
#define PROGRESS_STEP (((int64_t)1 << 20) - 1)

/* Let a sweep's pages go every this many bytes of progress. */
#define SWEEP_DROP ((int64_t)256 << 20)

static inline int64_t ids_get(const struct ids *a, int64_t i)
{
    return a->wide ? ((const int64_t *)a->p)[i] : ((const int32_t *)a->p)[i];
}

static inline void ids_set(struct ids *a, int64_t i, int64_t x)
{
    if (a->wide)
        ((int64_t *)a->p)[i] = x;
    else
        ((int32_t *)a->p)[i] = (int32_t)x;
}

static inline uint64_t counts_get(const struct counts *c, int64_t i)
{
    switch (c->w) {
    case 1:
        return ((const uint8_t *)c->p)[i];
    case 2:
        return ((const uint16_t *)c->p)[i];
    case 4:
        return ((const uint32_t *)c->p)[i];
    default:
        return ((const uint64_t *)c->p)[i];
    }
}

static inline void counts_inc(struct counts *c, int64_t i)
{
    switch (c->w) {
    case 1:
        ((uint8_t *)c->p)[i]++;
        break;
    case 2:
        ((uint16_t *)c->p)[i]++;
        break;
    case 4:
        ((uint32_t *)c->p)[i]++;
        break;
    default:
        ((uint64_t *)c->p)[i]++;
    }
}

/* Counter i plus one, where other threads add too. */
static inline void counts_inc_shared(struct counts *c, int64_t i)
{
    switch (c->w) {
    case 1:
        __atomic_fetch_add((uint8_t *)c->p + i, 1, __ATOMIC_RELAXED);
        break;
    case 2:
        __atomic_fetch_add((uint16_t *)c->p + i, 1, __ATOMIC_RELAXED);
        break;
    case 4:
        __atomic_fetch_add((uint32_t *)c->p + i, 1, __ATOMIC_RELAXED);
        break;
    default:
        __atomic_fetch_add((uint64_t *)c->p + i, 1, __ATOMIC_RELAXED);
    }
}

/* Set bit i; returns whether it was set already. */
static inline int bit_test_set(uint64_t *b, int64_t i)
{
    uint64_t m = (uint64_t)1 << (i & 63), old = b[i >> 6];

    b[i >> 6] = old | m;
    return (old & m) != 0;
}

/* Likewise where other threads set bits of the same words. */
static inline int bit_test_set_shared(uint64_t *b, int64_t i)
{
    uint64_t m = (uint64_t)1 << (i & 63);

    return (__atomic_fetch_or(&b[i >> 6], m, __ATOMIC_RELAXED) & m) != 0;
}

static inline int bit_test(const uint64_t *b, int64_t i)
{
    return (b[i >> 6] >> (i & 63)) & 1;
}

static inline void bit_clear(uint64_t *b, int64_t i)
{
    b[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

/* Element i of a mapped integer array; the usual dtypes inline, as this
 * runs a few times per edge. */
static inline int64_t at(const struct dp_ndarray *a, int64_t i)
{
    const char *p = (const char *)a->data;

    switch (a->dtype) {
    case DP_I64: {
        int64_t x;

        memcpy(&x, p + (size_t)i * 8, 8);
        return x;
    }
    case DP_I32: {
        int32_t x;

        memcpy(&x, p + (size_t)i * 4, 4);
        return x;
    }
    case DP_U8:
    case DP_BOOL:
        return ((const uint8_t *)p)[i];
    default:
        return dp_ndarray_get_i64(a, (uint64_t)i);
    }
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Add w times two independent 64-bit hashes of the edge to h. */
static inline void edge_hash_add(uint64_t h[2], uint64_t w, int64_t e,
                                 int64_t s, int64_t d)
{
    uint64_t a = mix64((uint64_t)e + 0x9e3779b97f4a7c15u);
    uint64_t b = mix64((uint64_t)e ^ 0xd6e8feb86659fd93u);

    a = mix64(a ^ mix64((uint64_t)s + 0x632be59bd9b4e019u));
    a = mix64(a ^ mix64((uint64_t)d + 0x85157af5u));
    b = mix64(b + mix64((uint64_t)d ^ 0x2545f4914f6cdd1du));
    b = mix64(b + mix64((uint64_t)s ^ 0x1b873593u));
    h[0] += w * a;
    h[1] += w * b;
}

/* The part owning global node gid (node_map ranges tile [0, N)). */
static inline int owner(const struct dp_part_config *c, int64_t gid)
{
    int lo = 0, hi = c->num_parts - 1;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (gid < c->node_map[mid][1])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The part whose edge_map range holds global edge e. */
static inline int edge_owner(const struct dp_part_config *c, int64_t e)
{
    int lo = 0, hi = c->num_parts - 1;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (e < c->edge_map[mid][1])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static inline const char *gfile(const struct vctx *v, int i)
{
    return v->cfg.part_graph[i];
}

static inline int64_t lsrc(const struct lpart *lp, int64_t k)
{
    return lp->direct ? at(&lp->g.coo_row, k) : ids_get(&lp->s, k);
}

static inline int64_t ldst(const struct lpart *lp, int64_t k)
{
    return lp->direct ? at(&lp->g.coo_col, k) : ids_get(&lp->d, k);
}

/* A part of a billion-edge set is gigabytes of graph.dgl, read in several
 * sweeps: every so many edges its mapped pages leave the resident set
 * (they stay in the page cache), so a part costs its arrays, not its
 * file. */
static inline void sweep(const struct lpart *lp, int64_t k)
{
    if (k && (k & (((int64_t)1 << 22) - 1)) == 0)
        dp_map_drop(&lp->g.map);
}

/* Global endpoints of local edge k, and whether both are node ids. */
static inline int gends(const struct vctx *v, const struct lpart *lp, int64_t k,
                        int64_t *s, int64_t *d)
{
    *s = at(lp->nid, lsrc(lp, k));
    *d = at(lp->nid, ldst(lp, k));
    return *s >= 0 && *s < v->cfg.num_nodes && *d >= 0 && *d < v->cfg.num_nodes;
}

/* Local edge k of part i is the copy of global edge *e that counts as its
 * original: inner, in the part's edge_map range, joining valid ids. */
static inline int original(const struct vctx *v, int i, const struct lpart *lp,
                           int64_t k, int64_t *e, int64_t *s, int64_t *d)
{
    const struct part *p = &v->p[i];

    *e = at(lp->eid, k);
    return *e >= p->estart && *e < p->eend && at(lp->inner_edge, k) != 0 &&
           gends(v, lp, k, s, d);
}

static inline int64_t onid_of(const struct vctx *v, int64_t x)
{
    return v->onid_npy.data ? dp_npy_get_i64(&v->onid_npy, (uint64_t)x)
                            : ids_get(&v->onid, x);
}

static inline int64_t row_items(const struct dp_ndarray *a)
{
    int64_t r = 1;
    int d;

    for (d = 1; d < a->ndim; d++)
        r *= a->shape[d];
    return r;
}

/* verify_pass.c: reporting and progress. A problem is one line; a tally
 * gathers problems of one kind and vf_flush reports them as one line about
 * file. vf_progress: the part at hand is frac of the way through. */
void vf_problem(struct vwork *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void vf_tally(struct tally *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void vf_flush(struct vwork *w, struct tally *t, const char *file);
void vf_progress(struct vwork *w, double frac);
/* Report a held report's problems again, for the part at hand. */
void vf_replay(struct vwork *w, const struct vout *from);
void vf_out_release(struct vout *o);
/* Pass 1 or 2: step(w, i) for every part i, on two threads when there are
 * two parts, reported in part order; the bar counts total edges. 0, or the
 * code and message of the first part whose step failed (no memory). */
int vf_each_part(struct vctx *v, struct vwork w[2], int pass,
                 int (*step)(struct vwork *w, int i), const char *label,
                 uint64_t total);

/* verify_load.c: arrays, and a part's files (0 or DP_ENOMEM) */
int vf_ids_alloc(struct ids *a, int64_t n, int64_t max_id);
int vf_counts_alloc(struct counts *c, int64_t n, uint64_t max);
uint64_t *vf_bits_alloc(int64_t n);
int vf_int_1d(const struct dp_ndarray *a, int64_t len);
void vf_release_part(struct lpart *lp);
int vf_load_graph(struct vwork *w, int i, struct lpart *lp);
int vf_reload(struct vwork *w, int j, struct lpart *lp);
int vf_build_in(struct lpart *lp);
void vf_load_feats(struct vwork *w, int i, struct dp_tensors *nf, int *nf_ok,
                   struct dp_tensors *ef, int *ef_ok);

/* verify_part.c: a loaded part's nodes and edges on their own */
void vf_check_nodes(struct vwork *w, int i, struct lpart *lp);
void vf_check_edges(struct vwork *w, int i, struct lpart *lp);

/* verify_feats.c: a part's node_feat.dgl and edge_feat.dgl */
void vf_check_feat_rows(struct vwork *w, int i, const struct dp_tensors *nf,
                        int nf_ok, const struct dp_tensors *ef, int ef_ok);
int64_t vf_count_train(const struct dp_tensors *nf, int nf_ok);

/* verify_halo.c: halo copies against their originals, halos against DGL's
 * rules */
int vf_originals(const struct vctx *v, int j, const struct lpart *lp,
                 struct ids *ts, struct ids *td);
int vf_find_bad_copies(struct vwork *w, int j, const struct ids *ts,
                       const struct ids *td);
int vf_count_out_only(struct vwork *w, int i, struct lpart *lp);
int vf_check_part_halo(struct vwork *w, int i, const struct lpart *lp,
                       struct deficit *df);
int vf_find_missing(struct vwork *w, int i, struct deficit *df);
void vf_deficit_release(struct deficit *df);

/* verify_ids.c: the orig ids */
int vf_load_orig_ids(struct vwork *w);
int vf_read_part_ids(struct vwork *w, int j, int eids, int report,
                     struct tally *t, uint64_t *seen, struct ids *out,
                     int64_t base);

/* verify_dataset.c: the input dataset, its edges; what a part found
 * about them is added to what the parts before it found */
void vf_open_dataset(struct vwork *w);
void vf_drop_inputs(struct vctx *v);
int vf_check_against_dataset(struct vwork *w, int i, const struct lpart *lp,
                             double frac);
void vf_finish_edges(struct vwork *w);
void vf_edgefind_add(struct edgefind *to, const struct edgefind *from);
void vf_edgefind_release(struct edgefind *f);

/* verify_rows.c: the dataset's node and edge data */
int vf_compare_data(struct vwork *w, int i, int edge, const struct byin *ord,
                    size_t nord, const struct ids *oe);

/* verify_stats.c */
int vf_fill_stats(struct vctx *v);

#endif
