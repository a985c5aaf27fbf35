/* dglpart verify: checks a partition set the way DGL's loaders and samplers
 * rely on it (ranges, local order, inner flags, halos for the stored hop
 * count, features), then against the input through the orig ids. It
 * streams over the parts: one part's files are mapped at a time, and what
 * joins the parts is kept as bits, counts and hash sums of N or E entries
 * (a few bytes per edge), never as the whole edge list. Problems of one
 * kind in one file make one line. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dataset.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
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

struct ivec {
    struct iedge *p;
    size_t n, cap;
    int64_t dropped; /* past the cap: counted, not kept */
};

/* Edges that one side holds more often than the other, when edges are
 * compared by endpoints: counted, the first few kept to name them. */
#define ENDS_NAMED 3

struct ends {
    int64_t n;
    struct iedge first[ENDS_NAMED];
};

struct vctx {
    const struct dp_verify_opts *o;
    struct dp_verify_stats *s;
    struct dp_part_config cfg;
    int cfg_ok;
    struct part *p;
    struct dp_tensors nf0, ef0; /* part 0's, to compare the others with */
    int nf0_ok, ef0_ok;
    /* ids seen in the part at hand ([N], [E] bits, cleared after it), and
     * the edges found as the inner edge of their edge_map part ([E]) */
    uint64_t *nbits, *ebits, *fbits;
    struct counts indeg, outdeg; /* [N] over the found edges */
    struct counts copies;        /* [E] halo copies of each edge */
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
    struct tally dedges;
    struct ivec ud, us;         /* input edges unmatched in their column */
    struct ends missing, extra; /* likewise, by endpoints */
    int64_t missing_edges, first_missing;
    /* edges leaving some part that only the out-edge halo holds (DGL's
     * partition_graph step (c)); none: the set has --halo_edges in's
     * layout, every in-edge of the nodes within the hops and no more */
    int64_t out_only;
    int in_layout;
    int printed, quiet;
};

static void problem(struct vctx *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void problem(struct vctx *v, const char *fmt, ...)
{
    int max = v->o->max_lines > 0 ? v->o->max_lines : 100;
    va_list ap;

    if (v->quiet) /* a part loaded again: its problems were reported */
        return;
    v->s->problems++;
    if (!v->o->err)
        return;
    if (v->printed < max) {
        fprintf(v->o->err, "%s: ", dp_progname());
        va_start(ap, fmt);
        vfprintf(v->o->err, fmt, ap);
        va_end(ap);
        fputc('\n', v->o->err);
    } else if (v->printed == max) {
        fprintf(v->o->err, "%s: (more problems not shown)\n", dp_progname());
    }
    v->printed++;
}

static void tally(struct tally *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void tally(struct tally *t, const char *fmt, ...)
{
    va_list ap;

    if (t->n++)
        return;
    va_start(ap, fmt);
    vsnprintf(t->first, sizeof(t->first), fmt, ap);
    va_end(ap);
}

/* One line for the tally, prefixed by the file it is about. */
static void flush(struct vctx *v, struct tally *t, const char *file)
{
    if (!t->n)
        return;
    if (t->n == 1)
        problem(v, "%s: %s", file, t->first);
    else
        problem(v, "%s: %s (and %" PRId64 " more like it)", file, t->first,
                t->n - 1);
    t->n = 0;
}

/* ---- small arrays ---- */

static int ids_alloc(struct ids *a, int64_t n, int64_t max_id)
{
    a->wide = max_id > INT32_MAX;
    a->p = dp_malloc_array(n ? (size_t)n : 1, a->wide ? 8 : 4);
    return a->p ? 0 : DP_ENOMEM;
}

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

static int counts_alloc(struct counts *c, int64_t n, uint64_t max)
{
    c->w = max <= UINT8_MAX    ? 1
           : max <= UINT16_MAX ? 2
           : max <= UINT32_MAX ? 4
                               : 8;
    c->p = dp_calloc(n ? (size_t)n : 1, (size_t)c->w);
    return c->p ? 0 : DP_ENOMEM;
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

static uint64_t *bits_alloc(int64_t n)
{
    return dp_calloc((size_t)(n / 64 + 1), 8);
}

/* Set bit i; returns whether it was set already. */
static inline int bit_test_set(uint64_t *b, int64_t i)
{
    uint64_t m = (uint64_t)1 << (i & 63), old = b[i >> 6];

    b[i >> 6] = old | m;
    return (old & m) != 0;
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
static void edge_hash_add(uint64_t h[2], uint64_t w, int64_t e, int64_t s,
                          int64_t d)
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

/* ---- ownership ---- */

/* The part owning global node gid (node_map ranges tile [0, N)). */
static int owner(const struct dp_part_config *c, int64_t gid)
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
static int edge_owner(const struct dp_part_config *c, int64_t e)
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

static const char *gfile(const struct vctx *v, int i)
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

/* ---- loading ---- */

static int int_1d(const struct dp_ndarray *a, int64_t len)
{
    return a && a->ndim == 1 && a->shape[0] == len && dp_dtype_is_int(a->dtype);
}

static void release_part(struct lpart *lp)
{
    if (lp->loaded)
        dp_graph_release(&lp->g);
    free(lp->s.p);
    free(lp->d.p);
    free(lp->iptr);
    free(lp->ilist.p);
    memset(lp, 0, sizeof(*lp));
}

static inline void visit(struct lpart *lp, int64_t k, int64_t s, int64_t d,
                         int fill, uint64_t *seen, int64_t *got, int *differ)
{
    if (k < 0 || k >= lp->g.num_edges || bit_test_set(seen, k))
        return;
    (*got)++;
    if (fill) {
        ids_set(&lp->s, k, s);
        ids_set(&lp->d, k, d);
    } else if (lsrc(lp, k) != s || ldst(lp, k) != d) {
        *differ = 1;
    }
}

/* Walk one stored format (data arrays give edge ids, a null data array
 * means position = id): fill s and d, or compare with them. Returns the
 * number of ids not given exactly once. */
static int64_t walk(struct lpart *lp, int fmt, int fill, uint64_t *seen,
                    int *differ)
{
    const struct dp_graph_file *g = &lp->g;
    int64_t m = g->num_edges, n = g->num_nodes, got = 0, j, r;

    memset(seen, 0, (size_t)(m / 64 + 1) * 8);
    *differ = 0;
    if (fmt == DP_FMT_COO) {
        for (j = 0; j < m; j++) {
            sweep(lp, j);
            visit(lp, g->coo_data.data ? at(&g->coo_data, j) : j,
                  at(&g->coo_row, j), at(&g->coo_col, j), fill, seen, &got,
                  differ);
        }
    } else {
        int csr = fmt == DP_FMT_CSR;
        const struct dp_ndarray *ip = csr ? &g->csr_indptr : &g->csc_indptr;
        const struct dp_ndarray *ix = csr ? &g->csr_indices : &g->csc_indices;
        const struct dp_ndarray *d = csr ? &g->csr_data : &g->csc_data;

        for (r = 0; r < n; r++) {
            int64_t a = at(ip, r), b = at(ip, r + 1);

            for (j = a; j < b; j++) {
                int64_t k = d->data ? at(d, j) : j, c = at(ix, j);

                sweep(lp, j);
                visit(lp, k, csr ? r : c, csr ? c : r, fill, seen, &got,
                      differ);
            }
        }
    }
    return m - got;
}

/* Map part i's graph.dgl and check it on its own terms: the arrays DGL's
 * loader needs, and every stored format describing the same edges.
 * lp->ok says whether the rest can use it; the return is 0 or DP_ENOMEM. */
static int load_graph(struct vctx *v, int i, struct lpart *lp)
{
    struct dp_graph_file *g = &lp->g;
    char *path = dp_config_part_file(&v->cfg, i, "part_graph");
    static const int fmts[3] = { DP_FMT_COO, DP_FMT_CSC, DP_FMT_CSR };
    uint64_t *seen = NULL;
    int64_t bad;
    int f, first = 1, differ, rc = 0;

    memset(lp, 0, sizeof(*lp));
    if (!path)
        return DP_ENOMEM;
    if (dp_graph_load(g, path) != 0) {
        problem(v, "%s: %s", gfile(v, i), dp_errmsg());
        free(path);
        return 0;
    }
    free(path);
    lp->loaded = 1;
    lp->nid = dp_graph_ndata(g, "_ID");
    lp->eid = dp_graph_edata(g, "_ID");
    lp->inner_node = dp_graph_ndata(g, "inner_node");
    lp->inner_edge = dp_graph_edata(g, "inner_edge");
    lp->part_id = dp_graph_ndata(g, "part_id");
    if (!int_1d(lp->nid, g->num_nodes) || !int_1d(lp->eid, g->num_edges) ||
        !int_1d(lp->inner_node, g->num_nodes) ||
        !int_1d(lp->inner_edge, g->num_edges)) {
        problem(v,
                "%s: lacks integer ndata _ID/inner_node or edata"
                " _ID/inner_edge",
                gfile(v, i));
        return 0;
    }
    if (lp->part_id && !int_1d(lp->part_id, g->num_nodes)) {
        problem(v, "%s: ndata part_id is not 1-D integers", gfile(v, i));
        lp->part_id = NULL;
    }
    /* Types: DGL's servers read the edges' _TYPE; the nodes' is optional */
    if (v->cfg.num_ntypes > 1 || v->cfg.num_etypes > 1) {
        lp->ntype = dp_graph_ndata(g, "_TYPE");
        lp->etype = dp_graph_edata(g, "_TYPE");
        if (lp->ntype && !int_1d(lp->ntype, g->num_nodes)) {
            problem(v, "%s: ndata _TYPE is not 1-D integers", gfile(v, i));
            lp->ntype = NULL;
        }
        if (!int_1d(lp->etype, g->num_edges)) {
            problem(v,
                    "%s: edata _TYPE is %s, expected the edge type of each "
                    "edge (the config has edge types)",
                    gfile(v, i), lp->etype ? "not 1-D integers" : "missing");
            lp->etype = NULL;
        }
    }
    /* DGL's usual layout, COO in edge id order, is read in place */
    if ((g->saved_formats & DP_FMT_COO) && !g->coo_data.data) {
        lp->direct = 1;
        first = 0;
    }
    seen = bits_alloc(g->num_edges);
    if (!seen)
        return DP_ENOMEM;
    /* every stored format must describe the same edges */
    for (f = 0; f < 3; f++) {
        if (!(g->saved_formats & fmts[f]) ||
            (fmts[f] == DP_FMT_COO && lp->direct))
            continue;
        if (first && (ids_alloc(&lp->s, g->num_edges, g->num_nodes - 1) ||
                      ids_alloc(&lp->d, g->num_edges, g->num_nodes - 1))) {
            rc = DP_ENOMEM;
            goto out;
        }
        bad = walk(lp, fmts[f], first, seen, &differ);
        if (bad) {
            problem(v,
                    "%s: %" PRId64 " edge ids of its %s are missing or"
                    " repeated",
                    gfile(v, i), bad,
                    fmts[f] == DP_FMT_COO   ? "COO"
                    : fmts[f] == DP_FMT_CSR ? "CSR"
                                            : "CSC");
            goto out;
        }
        if (differ) {
            problem(v, "%s: its %s and COO/CSC disagree about the edges",
                    gfile(v, i), fmts[f] == DP_FMT_CSR ? "CSR" : "CSC");
            goto out;
        }
        first = 0;
    }
    lp->ok = 1;
out:
    free(seen);
    return rc;
}

/* The stored in-edges of each local node, for the halo and dataset
 * checks. */
static int build_in(struct lpart *lp)
{
    int64_t n = lp->g.num_nodes, m = lp->g.num_edges, k;

    lp->iptr = dp_calloc((size_t)n + 1, 8);
    if (!lp->iptr || ids_alloc(&lp->ilist, m, m - 1))
        return DP_ENOMEM;
    for (k = 0; k < m; k++) {
        sweep(lp, k);
        lp->iptr[ldst(lp, k) + 1]++;
    }
    for (k = 0; k < n; k++)
        lp->iptr[k + 1] += lp->iptr[k];
    for (k = 0; k < m; k++) {
        sweep(lp, k);
        ids_set(&lp->ilist, lp->iptr[ldst(lp, k)]++, k);
    }
    for (k = n; k > 0; k--)
        lp->iptr[k] = lp->iptr[k - 1];
    lp->iptr[0] = 0;
    return 0;
}

static void load_feats(struct vctx *v, int i, struct dp_tensors *nf, int *nf_ok,
                       struct dp_tensors *ef, int *ef_ok)
{
    char *nfp = dp_config_part_file(&v->cfg, i, "node_feats");
    char *efp = dp_config_part_file(&v->cfg, i, "edge_feats");

    *nf_ok = nfp && dp_tensors_load(nf, nfp) == 0;
    if (!*nf_ok)
        problem(v, "%s: %s", v->cfg.node_feats[i], dp_errmsg());
    if (ef) {
        *ef_ok = efp && dp_tensors_load(ef, efp) == 0;
        if (!*ef_ok)
            problem(v, "%s: %s", v->cfg.edge_feats[i], dp_errmsg());
    }
    free(nfp);
    free(efp);
}

/* ---- per-part structure ---- */

static void check_nodes(struct vctx *v, int i, struct lpart *lp)
{
    struct part *p = &v->p[i];
    int64_t n = lp->g.num_nodes, ninner = p->end - p->start, k;
    int64_t nn = v->cfg.num_nodes;
    struct tally range = { 0 }, flag = { 0 }, id = { 0 }, halo = { 0 },
                 dup = { 0 }, pid = { 0 }, ty = { 0 };

    if (n < ninner) {
        problem(v,
                "%s: %" PRId64 " nodes, fewer than the %" PRId64
                " inner nodes node_map gives part %d",
                gfile(v, i), n, ninner, i);
        p->graph_ok = 0;
        return;
    }
    for (k = 0; k < n; k++) {
        int64_t gid = at(lp->nid, k);
        int inner = at(lp->inner_node, k) != 0;

        if (k < ninner && !inner)
            tally(&flag,
                  "local node %" PRId64 " is not inner, expected the"
                  " first %" PRId64 " nodes to be the inner ones",
                  k, ninner);
        if (k >= ninner && inner)
            tally(&flag,
                  "local node %" PRId64 " is inner, but node_map gives"
                  " part %d only %" PRId64 " nodes",
                  k, i, ninner);
        if (gid < 0 || gid >= nn) {
            tally(&range,
                  "local node %" PRId64 " has _ID %" PRId64
                  ", outside [0, %" PRId64 ")",
                  k, gid, nn);
            continue;
        }
        if (k < ninner && gid != p->start + k)
            tally(&id,
                  "inner node %" PRId64 " has _ID %" PRId64 ", expected"
                  " %" PRId64 " (node_map start + local id)",
                  k, gid, p->start + k);
        if (k >= ninner && gid >= p->start && gid < p->end)
            tally(&halo,
                  "halo node %" PRId64 " has _ID %" PRId64 ", inside"
                  " the part's own range [%" PRId64 ", %" PRId64 ")",
                  k, gid, p->start, p->end);
        if (bit_test_set(v->nbits, gid))
            tally(&dup,
                  "_ID %" PRId64 " appears twice (again at local node %" PRId64
                  ")",
                  gid, k);
        if (lp->part_id && at(lp->part_id, k) != owner(&v->cfg, gid))
            tally(&pid,
                  "local node %" PRId64 " (_ID %" PRId64 ") has part_id"
                  " %" PRId64 ", node_map says %d",
                  k, gid, at(lp->part_id, k), owner(&v->cfg, gid));
        if (lp->ntype && at(lp->ntype, k) != dp_config_ntype_of(&v->cfg, gid))
            tally(&ty,
                  "local node %" PRId64 " (_ID %" PRId64 ") has _TYPE"
                  " %" PRId64 ", node_map puts it in type %d ('%s')",
                  k, gid, at(lp->ntype, k), dp_config_ntype_of(&v->cfg, gid),
                  v->cfg.ntypes[dp_config_ntype_of(&v->cfg, gid)]);
    }
    for (k = 0; k < n; k++) {
        int64_t gid = at(lp->nid, k);

        if (gid >= 0 && gid < nn)
            bit_clear(v->nbits, gid);
    }
    flush(v, &range, gfile(v, i));
    flush(v, &flag, gfile(v, i));
    flush(v, &id, gfile(v, i));
    flush(v, &halo, gfile(v, i));
    flush(v, &dup, gfile(v, i));
    flush(v, &pid, gfile(v, i));
    flush(v, &ty, gfile(v, i));
    if (v->cfg.halo_hops == 0 && n > ninner)
        problem(v, "%s: %" PRId64 " halo nodes, but halo_hops is 0",
                gfile(v, i), n - ninner);
}

/* The part's edges on their own, and what the other parts need of them:
 * each original counted in the degrees and the edge cut, each halo copy
 * counted and hashed for its edge_map part to confirm. */
static void check_edges(struct vctx *v, int i, struct lpart *lp)
{
    struct part *p = &v->p[i];
    int64_t m = lp->g.num_edges, minner = p->eend - p->estart, k;
    int64_t ninner = p->end - p->start, ee = v->cfg.num_edges, prev = -1;
    int hops0 = v->cfg.halo_hops == 0;
    struct tally range = { 0 }, flag = { 0 }, id = { 0 }, dup = { 0 },
                 halo = { 0 }, dstin = { 0 }, ty = { 0 };

    if (!hops0 && m < minner) {
        problem(v,
                "%s: %" PRId64 " edges, fewer than the %" PRId64
                " inner edges edge_map gives part %d",
                gfile(v, i), m, minner, i);
        p->graph_ok = 0;
        return;
    }
    for (k = 0; k < m; k++) {
        int64_t e = at(lp->eid, k), s, d, dl = ldst(lp, k);
        int inner = at(lp->inner_edge, k) != 0;
        int dinner = dl < ninner, own, again;

        sweep(lp, k);
        if (inner != dinner)
            tally(&dstin,
                  "edge %" PRId64 " has inner_edge %d but its"
                  " destination (local %" PRId64 ") is %s",
                  k, inner, dl, dinner ? "inner" : "a halo node");
        if (e < 0 || e >= ee) {
            tally(&range,
                  "edge %" PRId64 " has _ID %" PRId64 ", outside [0, %" PRId64
                  ")",
                  k, e, ee);
            continue;
        }
        own = e >= p->estart && e < p->eend;
        if (hops0) {
            /* DGL drops cut edges with no halo: ids may have gaps */
            if (!inner || !own || e <= prev)
                tally(&id,
                      "edge %" PRId64 " (_ID %" PRId64 ") is not an"
                      " inner edge in increasing order within [%" PRId64
                      ", %" PRId64 ")",
                      k, e, p->estart, p->eend);
            prev = e;
        } else if (k < minner) {
            if (!inner)
                tally(&flag,
                      "edge %" PRId64 " is not inner, expected the"
                      " first %" PRId64 " edges to be the inner ones",
                      k, minner);
            if (e != p->estart + k)
                tally(&id,
                      "inner edge %" PRId64 " has _ID %" PRId64
                      ", expected %" PRId64 " (edge_map start + local id)",
                      k, e, p->estart + k);
        } else {
            if (inner)
                tally(&flag,
                      "edge %" PRId64 " is inner, but edge_map gives"
                      " part %d only %" PRId64 " edges",
                      k, i, minner);
            if (own)
                tally(&halo,
                      "halo edge %" PRId64 " has _ID %" PRId64
                      ", inside the part's own range",
                      k, e);
        }
        again = bit_test_set(v->ebits, e);
        if (again)
            tally(&dup,
                  "edge _ID %" PRId64 " appears twice (again at local"
                  " edge %" PRId64 ")",
                  e, k);
        if (lp->etype && at(lp->etype, k) != dp_config_etype_of(&v->cfg, e))
            tally(&ty,
                  "edge %" PRId64 " (_ID %" PRId64 ") has _TYPE %" PRId64
                  ", edge_map puts it in type %d ('%s')",
                  k, e, at(lp->etype, k), dp_config_etype_of(&v->cfg, e),
                  v->cfg.etypes[dp_config_etype_of(&v->cfg, e)]);
        if (own && inner) {
            /* bad _IDs were reported above; keep them out of the arrays
             * that later checks index with */
            if (gends(v, lp, k, &s, &d) && !bit_test_set(v->fbits, e)) {
                p->found++;
                counts_inc(&v->indeg, d);
                counts_inc(&v->outdeg, s);
                v->s->edge_cut += owner(&v->cfg, s) != owner(&v->cfg, d);
            }
        } else if (!own && !again) {
            int j = edge_owner(&v->cfg, e);

            s = at(lp->nid, lsrc(lp, k));
            d = at(lp->nid, dl);
            counts_inc(&v->copies, e);
            edge_hash_add(v->hcopy[j], 1, e, s, d);
            v->ncopy[j]++;
        }
    }
    for (k = 0; k < m; k++) {
        int64_t e = at(lp->eid, k);

        if (e >= 0 && e < ee)
            bit_clear(v->ebits, e);
    }
    flush(v, &range, gfile(v, i));
    flush(v, &flag, gfile(v, i));
    flush(v, &id, gfile(v, i));
    flush(v, &halo, gfile(v, i));
    flush(v, &dup, gfile(v, i));
    flush(v, &dstin, gfile(v, i));
    flush(v, &ty, gfile(v, i));
}

/* ---- growable id lists ---- */

struct i64vec {
    int64_t *p;
    size_t n, cap;
};

static int push64(struct i64vec *a, int64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        int64_t *p = dp_realloc_array(a->p, cap, sizeof(*p));

        if (!p)
            return DP_ENOMEM;
        a->p = p;
        a->cap = cap;
    }
    a->p[a->n++] = x;
    return 0;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* Sorted, each id once. */
static void sort_unique(struct i64vec *a)
{
    size_t i, k = 0;

    if (!a->n)
        return; /* p may be NULL: qsort must not see it */
    qsort(a->p, a->n, sizeof(*a->p), cmp64);
    for (i = 0; i < a->n; i++)
        if (!k || a->p[k - 1] != a->p[i])
            a->p[k++] = a->p[i];
    a->n = k;
}

static int has(const struct i64vec *a, int64_t x)
{
    return a->n && bsearch(&x, a->p, a->n, sizeof(x), cmp64) != NULL;
}

/* Load part j again, quietly: it loaded once, its problems are out. */
static int reload(struct vctx *v, int j, struct lpart *lp)
{
    int rc;

    v->quiet++;
    rc = load_graph(v, j, lp);
    v->quiet--;
    if (rc || !lp->ok)
        release_part(lp);
    return rc;
}

/* ---- halo copies against their originals ---- */

/* Part j's originals by edge id - estart (-1 where it holds none): what
 * the halo copies of its edges must join. lp NULL: part j is unusable. */
static int originals(struct vctx *v, int j, const struct lpart *lp,
                     struct ids *ts, struct ids *td)
{
    const struct part *p = &v->p[j];
    int64_t len = p->eend - p->estart, k, e, s, d;

    if (ids_alloc(ts, len, v->cfg.num_nodes - 1) ||
        ids_alloc(td, len, v->cfg.num_nodes - 1))
        return DP_ENOMEM;
    for (k = 0; k < len; k++)
        ids_set(ts, k, -1);
    for (k = 0; lp && k < lp->g.num_edges; k++)
        if (original(v, j, lp, k, &e, &s, &d) &&
            ids_get(ts, e - p->estart) < 0) {
            ids_set(ts, e - p->estart, s);
            ids_set(td, e - p->estart, d);
        }
    return 0;
}

/* The sums of part j's edges disagreed: find the copies that join other
 * nodes than their originals, or have none, in every other part. */
static int find_bad_copies(struct vctx *v, int j, const struct ids *ts,
                           const struct ids *td)
{
    const struct part *pj = &v->p[j];
    int h, rc = 0;

    for (h = 0; h < v->cfg.num_parts && !rc; h++) {
        struct tally orphan = { 0 }, differ = { 0 };
        struct lpart lp;
        int64_t k, e, s, d, x;

        if (h == j || !v->p[h].graph_ok)
            continue;
        if ((rc = reload(v, h, &lp)) != 0 || !lp.ok)
            continue;
        for (k = 0; k < lp.g.num_edges; k++) {
            e = at(lp.eid, k);
            if (e < pj->estart || e >= pj->eend || bit_test_set(v->ebits, e))
                continue;
            s = at(lp.nid, lsrc(&lp, k));
            d = at(lp.nid, ldst(&lp, k));
            x = e - pj->estart;
            if (ids_get(ts, x) < 0)
                tally(&orphan,
                      "halo edge %" PRId64 " (_ID %" PRId64 ") is an"
                      " inner edge of no part",
                      k, e);
            else if (ids_get(ts, x) != s || ids_get(td, x) != d)
                tally(&differ,
                      "halo edge %" PRId64 " (_ID %" PRId64 ") joins %" PRId64
                      " -> %" PRId64 ", part %d has it as %" PRId64
                      " -> %" PRId64,
                      k, e, s, d, owner(&v->cfg, ids_get(td, x)),
                      ids_get(ts, x), ids_get(td, x));
        }
        for (k = 0; k < lp.g.num_edges; k++) {
            e = at(lp.eid, k);
            if (e >= pj->estart && e < pj->eend)
                bit_clear(v->ebits, e);
        }
        flush(v, &orphan, gfile(v, h));
        flush(v, &differ, gfile(v, h));
        release_part(&lp);
    }
    return rc;
}

/* ---- halos: what DGL's rules say each part must hold ---- */

/* What a part lacks, found by its degrees: its nodes whose in-edges (or,
 * inner ones, out-edges) are not all there, and what it holds. */
struct deficit {
    struct i64vec in, out, eids, nodes;
};

static void deficit_release(struct deficit *df)
{
    free(df->in.p);
    free(df->out.p);
    free(df->eids.p);
    free(df->nodes.p);
    memset(df, 0, sizeof(*df));
}

/* Each local node's level: 1 inner, h + 1 a source of the stored in-edges
 * of a level-h node (h <= hops), 0 neither. Needs lp->iptr past one hop. */
static void halo_levels(const struct vctx *v, int i, const struct lpart *lp,
                        int32_t *lev)
{
    const struct part *p = &v->p[i];
    int64_t n = lp->g.num_nodes, k, x, j, u;
    int hop;

    for (k = 0; k < n; k++) {
        x = at(lp->nid, k);
        lev[k] = x >= p->start && x < p->end;
    }
    for (hop = 1; hop <= v->cfg.halo_hops; hop++)
        for (x = 0; x < n; x++) {
            if (lev[x] != hop)
                continue;
            for (j = lp->iptr[x]; j < lp->iptr[x + 1]; j++) {
                sweep(lp, j);
                u = lsrc(lp, ids_get(&lp->ilist, j));
                if (!lev[u])
                    lev[u] = hop + 1;
            }
        }
}

/* Local edges of part i from an inner node to a node outside the hops:
 * only DGL's out-edge halo brings them. One hop needs no levels. */
static int count_out_only(struct vctx *v, int i, struct lpart *lp)
{
    const struct part *p = &v->p[i];
    int64_t n = lp->g.num_nodes, m = lp->g.num_edges, k, x, w;
    int hops = v->cfg.halo_hops, rc;
    int32_t *lev;

    if (hops == 1) {
        for (k = 0; k < m; k++) {
            sweep(lp, k);
            x = at(lp->nid, lsrc(lp, k));
            w = at(lp->nid, ldst(lp, k));
            v->out_only +=
                x >= p->start && x < p->end && (w < p->start || w >= p->end);
        }
        return 0;
    }
    if ((rc = build_in(lp)) != 0)
        return rc;
    lev = dp_calloc(n ? (size_t)n : 1, 4);
    if (!lev)
        return DP_ENOMEM;
    halo_levels(v, i, lp, lev);
    for (k = 0; k < m; k++) {
        sweep(lp, k);
        w = lev[ldst(lp, k)];
        v->out_only += lev[lsrc(lp, k)] == 1 && !(w >= 1 && w <= hops);
    }
    free(lev);
    free(lp->iptr);
    lp->iptr = NULL;
    free(lp->ilist.p);
    lp->ilist.p = NULL;
    return 0;
}

/* The loaded part i against DGL's halo rules: the inner nodes, then for
 * each hop the sources of the in-edges of the level before, every
 * in-edge of the nodes within halo_hops, and the out-edges of the inner
 * nodes. Levels come from the part's own edges; a node within the hops
 * whose in-degree here is below its global in-degree (or an inner node
 * short of out-edges) lacks edges, and when none does, the levels are
 * the true ones, so what lies outside them is extra. */
static int check_part_halo(struct vctx *v, int i, const struct lpart *lp,
                           struct deficit *df)
{
    int64_t n = lp->g.num_nodes, m = lp->g.num_edges, nn = v->cfg.num_nodes;
    int64_t k, x, e, u, w;
    int hops = v->cfg.halo_hops, rc = 0;
    int32_t *lev = dp_calloc(n ? (size_t)n : 1, 4);
    int64_t *odeg = dp_calloc(n ? (size_t)n : 1, 8);
    uint8_t *head = dp_calloc(n ? (size_t)n : 1, 1);
    struct tally extra_n = { 0 }, extra_e = { 0 };

    if (!lev || !odeg || !head) {
        rc = DP_ENOMEM;
        goto out;
    }
    halo_levels(v, i, lp, lev);
    for (k = 0; k < m && !v->in_layout; k++) {
        sweep(lp, k);
        u = lsrc(lp, k);
        if (lev[u] == 1) {
            odeg[u]++;
            head[ldst(lp, k)] = 1;
        }
    }
    for (k = 0; k < n; k++) {
        x = at(lp->nid, k);
        if (x < 0 || x >= nn)
            continue;
        if (!lev[k] && !head[k])
            tally(&extra_n,
                  "halo node %" PRId64 " (_ID %" PRId64 ") is"
                  " not within %d hops of the part",
                  k, x, hops);
        if (lev[k] >= 1 && lev[k] <= hops &&
            (uint64_t)(lp->iptr[k + 1] - lp->iptr[k]) <
                counts_get(&v->indeg, x) &&
            (rc = push64(&df->in, x)) != 0)
            goto out;
        if (lev[k] == 1 && !v->in_layout &&
            (uint64_t)odeg[k] < counts_get(&v->outdeg, x) &&
            (rc = push64(&df->out, x)) != 0)
            goto out;
    }
    for (k = 0; k < m; k++) {
        sweep(lp, k);
        e = at(lp->eid, k);
        if (e < 0 || e >= v->cfg.num_edges)
            continue;
        u = lsrc(lp, k);
        w = ldst(lp, k);
        if (!(lev[w] >= 1 && lev[w] <= hops) && (lev[u] != 1 || v->in_layout))
            tally(&extra_e,
                  "edge %" PRId64 " (_ID %" PRId64 ", %" PRId64 " -> %" PRId64
                  ") is not in the %d-hop halo%s",
                  k, e, at(lp->nid, u), at(lp->nid, w), hops,
                  v->in_layout ? " (in-edges only)" : "");
    }
    flush(v, &extra_n, gfile(v, i));
    flush(v, &extra_e, gfile(v, i));
    /* what the part holds, to tell the missing from the rest later */
    for (k = 0; (df->in.n || df->out.n) && k < m; k++) {
        e = at(lp->eid, k);
        if (e >= 0 && e < v->cfg.num_edges && (rc = push64(&df->eids, e)))
            goto out;
    }
    for (k = 0; (df->in.n || df->out.n) && k < n; k++) {
        x = at(lp->nid, k);
        if (x >= 0 && x < nn && (rc = push64(&df->nodes, x)))
            goto out;
    }
out:
    free(lev);
    free(odeg);
    free(head);
    return rc;
}

/* Name what part i lacks: the originals of the edges its deficient nodes
 * miss, found in every part, and their other ends it does not hold. */
static int find_missing(struct vctx *v, int i, struct deficit *df)
{
    struct tally miss_n = { 0 }, miss_e = { 0 };
    struct i64vec nodes = { 0 };
    int hops = v->cfg.halo_hops, j, rc = 0;
    int64_t first = df->in.n ? df->in.p[0] : df->out.p[0];
    size_t q;

    sort_unique(&df->in);
    sort_unique(&df->out);
    sort_unique(&df->eids);
    sort_unique(&df->nodes);
    for (j = 0; j < v->cfg.num_parts && !rc; j++) {
        struct lpart lp;
        int64_t k, e, s, d;

        if (!v->p[j].graph_ok)
            continue;
        if ((rc = reload(v, j, &lp)) != 0 || !lp.ok)
            continue;
        for (k = 0; k < lp.g.num_edges && !rc; k++) {
            int ind, outd;

            if (!original(v, j, &lp, k, &e, &s, &d))
                continue;
            ind = has(&df->in, d);
            outd = has(&df->out, s);
            if (!ind && !outd)
                continue;
            if (!has(&df->eids, e))
                tally(&miss_e,
                      "edge _ID %" PRId64 " (%" PRId64 " -> %" PRId64
                      ") belongs to the %d-hop halo but is missing",
                      e, s, d, hops);
            if (ind && !has(&df->nodes, s))
                rc = push64(&nodes, s);
            if (!rc && outd && !has(&df->nodes, d))
                rc = push64(&nodes, d);
        }
        release_part(&lp);
    }
    if (!rc) {
        sort_unique(&nodes);
        for (q = 0; q < nodes.n; q++)
            tally(&miss_n, "node _ID %" PRId64 " is within %d hops but missing",
                  nodes.p[q], hops);
        if (!miss_n.n && !miss_e.n) /* copies with wrong ends: named above */
            problem(v,
                    "%s: %zu nodes within %d hops lack some of their edges"
                    " (first _ID %" PRId64 ")",
                    gfile(v, i), df->in.n + df->out.n, hops, first);
    }
    flush(v, &miss_n, gfile(v, i));
    flush(v, &miss_e, gfile(v, i));
    free(nodes.p);
    return rc;
}

/* ---- features ---- */

static int64_t row_items(const struct dp_ndarray *a)
{
    int64_t r = 1;
    int d;

    for (d = 1; d < a->ndim; d++)
        r *= a->shape[d];
    return r;
}

/* Rows per inner node or edge; names, dtypes and row shapes as part 0's. */
static void check_feat_rows(struct vctx *v, int i, const struct dp_tensors *nf,
                            int nf_ok, const struct dp_tensors *ef, int ef_ok)
{
    struct part *p = &v->p[i];
    int pass, t;

    for (pass = 0; pass < 2; pass++) {
        const struct dp_tensors *ts = pass ? ef : nf;
        const struct dp_tensors *t0 = pass ? &v->ef0 : &v->nf0;
        const char *file = pass ? v->cfg.edge_feats[i] : v->cfg.node_feats[i];
        int64_t rows = pass ? p->eend - p->estart : p->end - p->start;
        int ok = pass ? ef_ok : nf_ok, ok0 = pass ? v->ef0_ok : v->nf0_ok;

        if (!ok)
            continue;
        for (t = 0; t < ts->count; t++) {
            const struct dp_tensor *e = &ts->items[t], *e0;
            int64_t start;
            int ty = dp_config_feature_range(&v->cfg, i, pass, e->name, &start,
                                             &rows);

            if (ty < 0) {
                problem(v, "%s: '%s' names no %s type of the config", file,
                        e->name, pass ? "edge" : "node");
                continue;
            }
            if (e->a.ndim < 1 || e->a.shape[0] != rows) {
                problem(v,
                        "%s: '%s' has %" PRId64 " rows, expected %" PRId64
                        " (the part's inner %s%s%s)",
                        file, e->name, e->a.ndim ? e->a.shape[0] : 0, rows,
                        pass ? "edges" : "nodes",
                        ty > 0 || strchr(e->name, '/') ? " of type " : "",
                        ty > 0 || strchr(e->name, '/')
                            ? (pass ? v->cfg.etypes : v->cfg.ntypes)[ty]
                            : "");
                continue;
            }
            if (i == 0 || !ok0)
                continue;
            e0 = dp_tensors_find(t0, e->name);
            if (!e0)
                problem(v, "%s: '%s' is not in part 0", file, e->name);
            else if (e0->a.dtype != e->a.dtype || e0->a.ndim != e->a.ndim ||
                     row_items(&e0->a) != row_items(&e->a))
                problem(v,
                        "%s: '%s' differs in dtype or row shape from part"
                        " 0",
                        file, e->name);
        }
        if (i > 0 && ok0 && ts->count != t0->count)
            problem(v, "%s: %d entries, part 0 has %d", file, ts->count,
                    t0->count);
    }
}

static int64_t count_train(const struct dp_tensors *nf, int nf_ok)
{
    const struct dp_tensor *t =
        nf_ok ? dp_tensors_find(nf, "_N/train_mask") : NULL;
    uint64_t j, n;
    int64_t c = 0;

    if (!t || t->a.ndim != 1 || !dp_dtype_is_int(t->a.dtype))
        return -1;
    n = t->a.nbytes / dp_dtype_size(t->a.dtype);
    for (j = 0; j < n; j++)
        c += dp_ndarray_get_i64(&t->a, j) != 0;
    return c;
}

/* ---- orig ids ---- */

static void perm_add(struct tally *t, uint64_t *seen, int64_t n, int64_t k,
                     int64_t id)
{
    if (id < 0 || id >= n)
        tally(t, "entry %" PRId64 " is %" PRId64 ", outside [0, %" PRId64 ")",
              k, id, n);
    else if (bit_test_set(seen, id))
        tally(t, "input id %" PRId64 " appears twice (again at %" PRId64 ")",
              id, k);
}

/* DGL's top-level orig_*.npy, mapped for the whole run; 1 when usable. */
static int open_npy_ids(struct vctx *v, const char *path, int64_t n,
                        const char *name, const char *what, struct dp_npy *a,
                        uint64_t *seen)
{
    struct tally t = { 0 };
    int64_t k;

    if (dp_npy_open(a, path) != 0) {
        problem(v, "%s: %s", name, dp_errmsg());
        memset(a, 0, sizeof(*a));
        return 0;
    }
    if (a->h.ndim != 1 || a->h.shape[0] != n || !dp_dtype_is_int(a->h.dtype)) {
        problem(v, "%s: expected %" PRId64 " integer ids", name, n);
        dp_npy_release(a);
        memset(a, 0, sizeof(*a));
        return 0;
    }
    for (k = 0; k < n; k++)
        perm_add(&t, seen, n, k, dp_npy_get_i64(a, (uint64_t)k));
    memset(seen, 0, (size_t)(n / 64 + 1) * 8);
    flush(v, &t, what);
    return 1;
}

/* Part j's orig_nids.dgl or orig_eids.dgl, in dispatch_data's layout:
 * one entry or, in a typed set, one per type keyed by its name, holding
 * ids within the type (the input concatenates the types in type id order,
 * so the earlier types' counts are added). Each id goes into the
 * permutation tally t when given, at its global position, and into out at
 * that position - base (-1 when out of range) when given. Returns 1 when
 * the file was read whole. */
static int read_part_ids(struct vctx *v, int j, int eids, int report,
                         struct tally *t, uint64_t *seen, struct ids *out,
                         int64_t base)
{
    const struct part *p = &v->p[j];
    int64_t total = eids ? v->cfg.num_edges : v->cfg.num_nodes, off = 0, k, x;
    const char *key = eids ? DP_ORIG_EIDS_KEY : DP_ORIG_NIDS_KEY;
    const char *fname = eids ? "orig_eids.dgl" : "orig_nids.dgl";
    int nt = eids ? v->cfg.num_etypes : v->cfg.num_ntypes;
    int64_t(*map)[2] = eids ? v->cfg.etype_map : v->cfg.ntype_map;
    char **names = eids ? v->cfg.etypes : v->cfg.ntypes;
    char *g = dp_config_part_file(&v->cfg, j, "part_graph");
    char *dir = g ? dp_path_dirname(g) : NULL;
    char *path = dir ? dp_path_join(dir, fname) : NULL;
    char *rdir = dp_path_dirname(v->cfg.part_graph[j]);
    struct dp_tensors ts;
    int ok = 0, typed, ty, q;

    if (!path)
        goto out;
    if (dp_tensors_load(&ts, path) != 0) {
        if (report)
            problem(v, "%s/%s: %s", rdir ? rdir : ".", fname, dp_errmsg());
        goto out;
    }
    typed = !dp_tensors_find(&ts, key) && map && strcmp(names[0], key);
    for (ok = 1, ty = 0; ok && ty < (typed ? nt : 1); ty++) {
        const char *name = typed ? names[ty] : key;
        int64_t lo = typed ? map[j * nt + ty][0] : eids ? p->estart : p->start;
        int64_t hi = typed ? map[j * nt + ty][1] : eids ? p->eend : p->end;
        const struct dp_tensor *e = dp_tensors_find(&ts, name);

        if (!e || !int_1d(&e->a, hi - lo)) {
            if (report)
                problem(v,
                        "%s/%s: expected an entry '%s' of %" PRId64
                        " integer ids",
                        rdir ? rdir : ".", fname, name, hi - lo);
            ok = 0;
            break;
        }
        for (k = 0; k < hi - lo; k++) {
            x = off + at(&e->a, k);
            if (t)
                perm_add(t, seen, total, lo + k, x);
            if (out)
                ids_set(out, lo + k - base, x >= 0 && x < total ? x : -1);
        }
        for (q = 0; typed && q < v->cfg.num_parts; q++)
            off += map[q * nt + ty][1] - map[q * nt + ty][0];
    }
    dp_tensors_release(&ts);
out:
    free(g);
    free(dir);
    free(path);
    free(rdir);
    return ok;
}

/* dglpart's (and DGL's dispatch_data's) part<i>/orig_nids.dgl, gathered
 * into onid, or orig_eids.dgl, only checked: each part reads its own
 * again when it is compared with the dataset. */
static int load_part_ids(struct vctx *v, int eids, int *ok)
{
    int64_t total = eids ? v->cfg.num_edges : v->cfg.num_nodes;
    uint64_t *seen = eids ? v->ebits : v->nbits;
    struct tally t = { 0 };
    int i;

    *ok = 1;
    if (!eids && ids_alloc(&v->onid, total, total - 1))
        return DP_ENOMEM;
    for (i = 0; i < v->cfg.num_parts; i++)
        *ok &=
            read_part_ids(v, i, eids, 1, &t, seen, eids ? NULL : &v->onid, 0);
    memset(seen, 0, (size_t)(total / 64 + 1) * 8);
    if (*ok)
        flush(v, &t, eids ? "orig edge ids" : "orig node ids");
    return 0;
}

/* How many part folders hold the file name; *first_without (may be
 * NULL): the first part that does not, -1 when all do. -1 on ENOMEM. */
static int count_part_files(struct vctx *v, const char *name,
                            int *first_without)
{
    int i, n = 0, has, first = -1;

    for (i = 0; i < v->cfg.num_parts; i++) {
        char *g = dp_config_part_file(&v->cfg, i, "part_graph");
        char *dir = g ? dp_path_dirname(g) : NULL;
        char *path = dir ? dp_path_join(dir, name) : NULL;

        free(g);
        free(dir);
        if (!path)
            return -1;
        has = dp_exists(path);
        free(path);
        n += has;
        if (!has && first < 0)
            first = i;
    }
    if (first_without)
        *first_without = first;
    return n;
}

/* Orig node ids with or without edge ids: DGL's dispatch_data writes
 * orig_eids only with --save-orig-eids, partition_graph's return_mapping
 * may be saved without them, and dglpart partition --no_orig_eids skips
 * them on sets too large for the disk. Edge ids in some parts only are a
 * damaged set. */
static int load_orig_ids(struct vctx *v)
{
    char *np = dp_path_join(v->cfg.dir, "orig_nids.npy");
    char *ep = dp_path_join(v->cfg.dir, "orig_eids.npy");
    int rc = 0, nn, ne, ne_without;

    if (!np || !ep) {
        rc = DP_ENOMEM;
    } else if (dp_exists(np) || dp_exists(ep)) {
        v->s->orig_ids = 1;
        v->onid_ok = open_npy_ids(v, np, v->cfg.num_nodes, "orig_nids.npy",
                                  "orig node ids", &v->onid_npy, v->nbits);
        if (dp_exists(np) && !dp_exists(ep))
            v->s->no_orig_eids = 1;
        else
            v->oeid_ok = open_npy_ids(v, ep, v->cfg.num_edges, "orig_eids.npy",
                                      "orig edge ids", &v->oeid_npy, v->ebits);
    } else if ((nn = count_part_files(v, "orig_nids.dgl", NULL)) < 0 ||
               (ne = count_part_files(v, "orig_eids.dgl", &ne_without)) < 0) {
        rc = DP_ENOMEM;
    } else if (nn || ne) {
        v->s->orig_ids = 2;
        rc = load_part_ids(v, 0, &v->onid_ok);
        if (!rc && ne == v->cfg.num_parts)
            rc = load_part_ids(v, 1, &v->oeid_ok);
        else
            v->s->no_orig_eids = 1;
        if (!rc && ne && ne < v->cfg.num_parts) {
            char *rdir = dp_path_dirname(v->cfg.part_graph[ne_without]);

            problem(v,
                    "%s/orig_eids.dgl: missing, but %d of the %d parts have"
                    " one: expected every part or none",
                    rdir ? rdir : ".", ne, v->cfg.num_parts);
            free(rdir);
        }
    }
    free(np);
    free(ep);
    return rc;
}

static inline int64_t onid_of(const struct vctx *v, int64_t x)
{
    return v->onid_npy.data ? dp_npy_get_i64(&v->onid_npy, (uint64_t)x)
                            : ids_get(&v->onid, x);
}

/* ---- the input dataset ---- */

/* The dataset and DGL's orig ids are read in sweeps, a part's worth at a
 * time: their pages leave the resident set after each, so a graph larger
 * than memory verifies as well as a small one. */
static void drop_inputs(struct vctx *v)
{
    if (v->d_open)
        dp_dataset_drop(&v->d);
    dp_map_drop(&v->onid_npy.map);
    dp_map_drop(&v->oeid_npy.map);
}

/* A typed dataset's rows are found through orig ids that add up the
 * earlier types' counts in the config's order, so its types must be the
 * config's: same names, order and counts. 1 when they are. */
static int same_types(struct vctx *v, int edge)
{
    const struct dp_dataset_meta *m = &v->d.meta;
    const struct dp_dataset_type *dt = edge ? m->etypes : m->ntypes;
    int nt = edge ? m->num_etypes : m->num_ntypes, t, q;
    int ct = edge ? v->cfg.num_etypes : v->cfg.num_ntypes;
    char **names = edge ? v->cfg.etypes : v->cfg.ntypes;
    int64_t(*map)[2] = edge ? v->cfg.etype_map : v->cfg.ntype_map;
    const char *what = edge ? "edge" : "node";

    if (ct != nt) {
        problem(v,
                "dataset '%s' has %d %s types, the config %d: cannot compare"
                " typed data",
                v->o->dataset, nt, what, ct);
        return 0;
    }
    for (t = 0; t < nt; t++) {
        int64_t n = 0;

        for (q = 0; map && q < v->cfg.num_parts; q++)
            n += map[q * nt + t][1] - map[q * nt + t][0];
        if (!map)
            n = edge ? v->cfg.num_edges : v->cfg.num_nodes;
        if (strcmp(names[t], dt[t].name) || n != dt[t].count) {
            problem(v,
                    "%s type %d is '%s' of %" PRId64 " in the config, '%s' of"
                    " %" PRId64 " in dataset '%s': cannot compare typed data",
                    what, t, names[t], n, dt[t].name, dt[t].count,
                    v->o->dataset);
            return 0;
        }
    }
    return 1;
}

static void open_dataset(struct vctx *v)
{
    int64_t nn = v->cfg.num_nodes, ne = v->cfg.num_edges;

    if (dp_dataset_open(&v->d, v->o->dataset) != 0) {
        problem(v, "%s", dp_errmsg());
        return;
    }
    v->d_open = 1;
    drop_inputs(v); /* opening read every index */
    if (v->d.meta.num_nodes != nn || v->d.meta.num_edges != ne) {
        problem(v,
                "dataset '%s' has %" PRId64 " nodes and %" PRId64
                " edges, the config %" PRId64 " and %" PRId64,
                v->o->dataset, v->d.meta.num_nodes, v->d.meta.num_edges, nn,
                ne);
        return;
    }
    if (!v->onid_ok || (!v->oeid_ok && !v->s->no_orig_eids)) {
        problem(v, "no orig ids (orig_nids.npy or part*/orig_nids.dgl):"
                   " cannot compare with the dataset");
        return;
    }
    v->s->dataset_checked = 1;
    v->ds_edges = 1;
    /* without input edge ids on one side an edge is known by its ends */
    v->s->edges_by_ends = v->s->no_orig_eids ? 1 : !v->d.eids.data ? 2 : 0;
    v->s->edge_data_skipped =
        v->s->no_orig_eids &&
        (v->d.meta.num_ntypes ? v->d.meta.num_edata > 0
                              : v->d.edge_weight.data != NULL);
    if (dp_rename_parse("--ndata_name",
                        v->o->ndata_name ? v->o->ndata_name : "", &v->ren) ||
        dp_rename_parse("--edata_name",
                        v->o->edata_name ? v->o->edata_name : "", &v->eren)) {
        problem(v, "%s", dp_errmsg());
        return;
    }
    v->ds_feats = 1;
    v->ds_typed =
        v->d.meta.num_ntypes > 0 && same_types(v, 0) && same_types(v, 1);
}

/* Unmatched input edges are kept up to this many on each side, for the
 * lines that name them; past it they are only counted. */
#define IVEC_CAP ((size_t)1 << 20)

static int push_iedge(struct ivec *a, int64_t in, int64_t x, int64_t y,
                      int64_t s)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 256;
        struct iedge *p;

        if (a->cap >= IVEC_CAP) {
            a->dropped++;
            return 0;
        }
        p = dp_realloc_array(a->p, cap, sizeof(*p));
        if (!p)
            return DP_ENOMEM;
        a->p = p;
        a->cap = cap;
    }
    a->p[a->n].in = in;
    a->p[a->n].a = x;
    a->p[a->n].b = y;
    a->p[a->n].s = s;
    a->n++;
    return 0;
}

static int cmp_in(const void *a, const void *b)
{
    const struct iedge *x = a, *y = b;

    return (x->in > y->in) - (x->in < y->in);
}

static void sort_in(struct iedge *p, size_t n)
{
    size_t i;

    for (i = 1; i < n && p[i - 1].in <= p[i].in; i++)
        ;
    if (i < n)
        qsort(p, n, sizeof(*p), cmp_in);
}

static void edge_differs(struct vctx *v, const struct iedge *d,
                         const struct iedge *s)
{
    tally(&v->dedges,
          "input edge %" PRId64 " (%" PRId64 " -> %" PRId64
          ") is stored as edge %" PRId64 " joining input nodes %" PRId64
          " -> %" PRId64,
          d->in, d->a, d->b, s->s, s->a, s->b);
}

/* A part's inner nodes in the order of their input ids, so the dataset is
 * read in one forward sweep whose pages can be let go behind it. */
struct byin {
    int64_t in, row; /* input node id, row = global id - node_map start */
};

static int cmp_byin(const void *a, const void *b)
{
    const struct byin *x = a, *y = b;

    return (x->in > y->in) - (x->in < y->in);
}

static int part_order(struct vctx *v, int i, struct byin **out, size_t *n)
{
    const struct part *p = &v->p[i];
    int64_t r, x;
    struct byin *o =
        dp_malloc_array((size_t)(p->end - p->start) + 1, sizeof(*o));
    size_t k = 0;

    if (!o)
        return DP_ENOMEM;
    for (r = 0; r < p->end - p->start; r++) {
        x = onid_of(v, p->start + r);
        if (x >= 0 && x < v->cfg.num_nodes) {
            o[k].in = x;
            o[k++].row = r;
        }
    }
    qsort(o, k, sizeof(*o), cmp_byin);
    *out = o;
    *n = k;
    return 0;
}

/* Let a sweep's pages go every this many bytes of progress. */
#define SWEEP_DROP ((int64_t)256 << 20)

/* The stored originals into local node x, as input edges keyed by their
 * input id or, compared by endpoints, by their input source. */
static int stored_in(struct vctx *v, int i, const struct lpart *lp, int64_t x,
                     int64_t gin, const struct ids *oe, struct ivec *a)
{
    int64_t j, k, e, s, d, in;
    int rc = 0;

    for (j = lp->iptr[x]; j < lp->iptr[x + 1] && !rc; j++) {
        k = ids_get(&lp->ilist, j);
        if (!original(v, i, lp, k, &e, &s, &d))
            continue;
        s = onid_of(v, s);
        in = v->s->edges_by_ends ? s
             : oe                ? ids_get(oe, e - v->p[i].estart)
                                 : dp_npy_get_i64(&v->oeid_npy, (uint64_t)e);
        rc = push_iedge(a, in, s, gin, e);
    }
    return rc;
}

static void ends_add(struct ends *t, const struct iedge *x)
{
    if (t->n < ENDS_NAMED)
        t->first[t->n] = *x;
    t->n++;
}

/* A column's edges on one side only: into ud and us by input id, to be
 * matched across columns; by endpoints they are simply missing or extra
 * (an edge moved to another column has other endpoints). */
static int unmatched(struct vctx *v, const struct iedge *x, int stored)
{
    if (v->s->edges_by_ends) {
        ends_add(stored ? &v->extra : &v->missing, x);
        return 0;
    }
    return push_iedge(stored ? &v->us : &v->ud, x->in, x->a, x->b, x->s);
}

/* The part's inner edges against the dataset, one destination at a time:
 * its stored in-edges through the orig ids, and the dataset's column of
 * its input node, both by input edge id or both by input source (the
 * column's multiset of sources, multi-edges counted). What one column
 * lacks is matched across columns at the end. oe: the part's orig_eids,
 * or NULL for DGL's top-level one. */
static int compare_edges(struct vctx *v, int i, const struct lpart *lp,
                         const struct ids *oe, const struct byin *ord,
                         size_t nord)
{
    const struct part *p = &v->p[i];
    const int64_t *ip = dp_dataset_indptr(&v->d);
    int64_t n = lp->g.num_nodes, x, j, gx, gin, dropped = 0;
    struct ivec a = { 0 }, b = { 0 };
    uint8_t *done = dp_calloc(n ? (size_t)n : 1, 1);
    size_t q, ia, ib;
    int rc = 0;

    if (!done)
        return DP_ENOMEM;
    for (q = 0; q < nord && !rc; q++) {
        gin = ord[q].in;
        x = ord[q].row; /* inner node x is row x when the order is right */
        sweep(lp, (int64_t)q << 4);
        a.n = b.n = 0;
        if (x < n && at(lp->nid, x) == p->start + x) {
            done[x] = 1;
            rc = stored_in(v, i, lp, x, gin, oe, &a);
        }
        for (j = ip[gin]; j < ip[gin + 1] && !rc; j++) {
            int64_t src = dp_dataset_src(&v->d, j);

            rc = push_iedge(
                &b, v->s->edges_by_ends ? src : dp_dataset_eid(&v->d, j), src,
                gin, -1);
        }
        if ((ip[gin] - dropped) * 16 > SWEEP_DROP) {
            dp_map_drop(&v->d.indices.map);
            dp_map_drop(&v->d.eids.map);
            dropped = ip[gin];
        }
        sort_in(a.p, a.n);
        sort_in(b.p, b.n);
        for (ia = ib = 0; !rc && (ia < a.n || ib < b.n);) {
            if (ia < a.n && ib < b.n && a.p[ia].in == b.p[ib].in) {
                if (a.p[ia].a != b.p[ib].a || a.p[ia].b != b.p[ib].b)
                    edge_differs(v, &b.p[ib], &a.p[ia]);
                ia++;
                ib++;
            } else if (ib == b.n || (ia < a.n && a.p[ia].in < b.p[ib].in)) {
                rc = unmatched(v, &a.p[ia++], 1);
            } else {
                rc = unmatched(v, &b.p[ib++], 0);
            }
        }
    }
    /* originals into any other local node have no column to meet */
    for (x = 0; x < n && !rc; x++) {
        gx = at(lp->nid, x);
        if (done[x] || gx < 0 || gx >= v->cfg.num_nodes)
            continue;
        a.n = 0;
        rc = stored_in(v, i, lp, x, onid_of(v, gx), oe, &a);
        for (ia = 0; ia < a.n && !rc; ia++)
            rc = unmatched(v, &a.p[ia], 1);
    }
    free(done);
    free(a.p);
    free(b.p);
    return rc;
}

/* One line for the edges one side holds more often than the other, the
 * first few named by their input endpoints (and stored edge id): "N
 * <noun>s <rest> (by endpoints): a -> b, ...". */
static void flush_ends(struct vctx *v, const struct ends *t, const char *noun,
                       const char *rest)
{
    char names[ENDS_NAMED * 80] = "";
    size_t len = 0;
    int k;

    if (!t->n)
        return;
    for (k = 0; k < ENDS_NAMED && k < t->n && len < sizeof(names); k++) {
        const struct iedge *x = &t->first[k];
        int w =
            snprintf(names + len, sizeof(names) - len,
                     "%s%" PRId64 " -> %" PRId64, k ? ", " : "", x->a, x->b);

        if (w > 0 && x->s >= 0 && (size_t)w < sizeof(names) - len)
            w += snprintf(names + len + (size_t)w,
                          sizeof(names) - len - (size_t)w, " (_ID %" PRId64 ")",
                          x->s);
        len += w > 0 ? (size_t)w : 0;
    }
    problem(v, "edges: %" PRId64 " %s%s %s (by endpoints): %s%s", t->n, noun,
            t->n == 1 ? "" : "s", rest, names,
            t->n > ENDS_NAMED ? ", ..." : "");
}

/* Input edges stored under another destination than the dataset's. */
static void finish_edges(struct vctx *v)
{
    size_t i = 0, j = 0;

    if (v->s->edges_by_ends) {
        flush_ends(v, &v->missing, "input edge", "stored in no part");
        flush_ends(v, &v->extra, "stored edge",
                   "not in the dataset or stored too often");
        return;
    }

    sort_in(v->ud.p, v->ud.n);
    sort_in(v->us.p, v->us.n);
    while (i < v->ud.n && j < v->us.n) {
        if (v->ud.p[i].in == v->us.p[j].in)
            edge_differs(v, &v->ud.p[i++], &v->us.p[j++]);
        else if (v->ud.p[i].in < v->us.p[j].in)
            i++; /* stored nowhere: a bad permutation or a lost edge */
        else
            j++;
    }
    if (v->dedges.n && v->ud.dropped)
        v->dedges.n += v->ud.dropped;
    else if (v->ud.dropped && v->us.dropped)
        tally(&v->dedges,
              "more than %zu input edges are stored under another"
              " destination node",
              IVEC_CAP);
    flush(v, &v->dedges, "edges");
}

/* A part's entry against a dataset array, row by row. */
struct rows {
    const struct dp_tensor *e;
    const struct dp_npy *d;
    int64_t items; /* values in a row */
    size_t ps, ds; /* item sizes: the part's, the dataset's */
    int same;      /* the rows compare as bytes */
};

/* 1 when entry key of ts can be compared with d, rows values a row and
 * rows rows; else the problem is reported (file: the part's file). */
static int rows_open(struct vctx *v, struct rows *r, const char *file,
                     const struct dp_tensors *ts, const char *key,
                     const struct dp_npy *d, int64_t rows)
{
    int j;

    r->e = dp_tensors_find(ts, key);
    r->d = d;
    if (!r->e) {
        problem(v, "%s: lacks '%s', which the dataset has", file, key);
        return 0;
    }
    for (r->items = 1, j = 1; j < d->h.ndim; j++)
        r->items *= d->h.shape[j];
    if (row_items(&r->e->a) != r->items || r->e->a.ndim < 1 ||
        r->e->a.shape[0] != rows) {
        problem(v,
                "%s: '%s' rows hold %" PRId64 " values, the dataset's %" PRId64,
                file, key, row_items(&r->e->a), r->items);
        return 0;
    }
    r->ds = dp_dtype_size(d->h.dtype);
    r->ps = dp_dtype_size(r->e->a.dtype);
    r->same =
        r->ds == r->ps && (d->h.dtype == r->e->a.dtype ||
                           (dp_dtype_is_int(d->h.dtype) &&
                            dp_dtype_is_int(r->e->a.dtype) && r->ds == 1));
    return 1;
}

/* Row k of the part's entry against row x of the dataset's array. */
static int rows_differ(const struct rows *r, int64_t k, int64_t x)
{
    const char *a = (const char *)r->e->a.data + (size_t)(k * r->items) * r->ps;
    const char *b = (const char *)r->d->data + (size_t)(x * r->items) * r->ds;
    int64_t j;

    if (r->same)
        return memcmp(a, b, (size_t)r->items * r->ps) != 0;
    for (j = 0; j < r->items; j++)
        if (dp_dtype_get_f64(r->e->a.dtype, a + (size_t)j * r->ps) !=
            dp_dtype_get_f64(r->d->h.dtype, b + (size_t)j * r->ds))
            return 1;
    return 0;
}

/* Rows of one node entry against the dataset array, by input id: the
 * entry holds the part's rows [lo, lo + n) (a type's, or all), and input
 * node x is row x - off of the array (off: its type's first id; tname its
 * name, NULL untyped). */
static void compare_node_rows(struct vctx *v, int i,
                              const struct dp_tensors *nf, const char *key,
                              const struct dp_npy *d, const struct byin *ord,
                              size_t nord, int64_t lo, int64_t n, int64_t off,
                              const char *tname)
{
    const struct part *p = &v->p[i];
    struct tally t = { 0 };
    int64_t dropped = 0, k, x;
    struct rows r;
    size_t q;

    if (!rows_open(v, &r, v->cfg.node_feats[i], nf, key, d, n))
        return;
    for (q = 0; q < nord; q++) {
        if (ord[q].row < lo || ord[q].row >= lo + n)
            continue;
        k = ord[q].row - lo;
        x = ord[q].in - off;
        if (x < 0 || x >= d->h.shape[0]) {
            tally(&t,
                  "'%s' row %" PRId64 " (node %" PRId64 ", input node %" PRId64
                  ") is no '%s' node of the dataset",
                  key, k, p->start + ord[q].row, ord[q].in,
                  tname ? tname : "_N");
            continue;
        }
        if (rows_differ(&r, k, x) && tname)
            tally(&t,
                  "'%s' row %" PRId64 " (node %" PRId64
                  ", input '%s' node %" PRId64 ") differs from the dataset",
                  key, k, p->start + ord[q].row, tname, x);
        else if (!tname && rows_differ(&r, k, x))
            tally(&t,
                  "'%s' row %" PRId64 " (node %" PRId64 ", input node %" PRId64
                  ") differs from the dataset",
                  key, k, p->start + ord[q].row, x);
        /* the part's rows are read out of order: let both go together */
        if ((x - dropped) * r.items * (int64_t)r.ds > SWEEP_DROP) {
            dp_map_drop(&d->map);
            dp_map_drop(&nf->map);
            dropped = x;
        }
    }
    flush(v, &t, v->cfg.node_feats[i]);
}

/* A part's name for dataset data name: renamed, else the twin DGL's
 * examples (and our pipeline) use when the part has that instead. */
static void part_key(char *key, size_t size, const struct dp_tensors *ts,
                     const struct dp_rename *ren, const char *type,
                     const char *name)
{
    static const char *const names[2] = { "feat", "label" };
    static const char *const twins[2] = { "features", "labels" };
    const char *nm = dp_rename_apply(ren, name);
    int f;

    snprintf(key, size, "%s/%s", type, nm);
    for (f = 0; f < 2 && nm == name && !dp_tensors_find(ts, key); f++) {
        char twin[256];

        if (strcmp(name, names[f]))
            continue;
        snprintf(twin, sizeof(twin), "%s/%s", type, twins[f]);
        if (dp_tensors_find(ts, twin))
            snprintf(key, size, "%s", twin);
    }
}

/* The part's range of type t: rows [*lo, *lo + *n) of its nodes (edges). */
static void type_rows(const struct vctx *v, int i, int edge, int t, int64_t *lo,
                      int64_t *n)
{
    const struct part *p = &v->p[i];
    int nt = edge ? v->cfg.num_etypes : v->cfg.num_ntypes;
    int64_t(*map)[2] = edge ? v->cfg.etype_map : v->cfg.ntype_map;
    int64_t start = edge ? p->estart : p->start;

    if (nt <= 1 || !map) {
        *lo = 0;
        *n = (edge ? p->eend : p->end) - start;
        return;
    }
    *lo = map[i * nt + t][0] - start;
    *n = map[i * nt + t][1] - map[i * nt + t][0];
}

static void compare_features(struct vctx *v, int i, const struct dp_tensors *nf,
                             const struct byin *ord, size_t nord)
{
    static const char *const names[5] = { "feat", "label", "train_mask",
                                          "val_mask", "test_mask" };
    const struct dp_npy *arrs[5] = { &v->d.feat, &v->d.label, &v->d.train_mask,
                                     &v->d.val_mask, &v->d.test_mask };
    const struct dp_dataset_meta *m = &v->d.meta;
    char key[256];
    int64_t lo, n;
    int f;

    if (m->num_ntypes) {
        for (f = 0; v->ds_typed && f < m->num_ndata; f++) {
            const struct dp_dataset_type *t = &m->ntypes[m->ndata[f].type];

            part_key(key, sizeof(key), nf, &v->ren, t->name, m->ndata[f].name);
            type_rows(v, i, 0, m->ndata[f].type, &lo, &n);
            compare_node_rows(v, i, nf, key, &v->d.ndata[f], ord, nord, lo, n,
                              t->offset, t->name);
        }
        return;
    }
    type_rows(v, i, 0, 0, &lo, &n);
    for (f = 0; f < 5; f++) {
        if (!arrs[f]->data)
            continue;
        part_key(key, sizeof(key), nf, &v->ren, "_N", names[f]);
        compare_node_rows(v, i, nf, key, arrs[f], ord, nord, lo, n, 0, NULL);
    }
}

/* Rows of one edge entry against the dataset array, in the part's order
 * (edges of a type are not in input order): the entry holds the part's
 * inner edges [lo, lo + n), input edge x is row x - off of the array.
 * oe: the part's orig_eids, or NULL for DGL's top-level one. */
static void compare_edge_rows(struct vctx *v, int i,
                              const struct dp_tensors *ef, const char *key,
                              const struct dp_npy *d, const struct ids *oe,
                              int64_t lo, int64_t n, int64_t off,
                              const char *tname)
{
    const struct part *p = &v->p[i];
    struct tally t = { 0 };
    int64_t k, e, in, x, since = 0;
    struct rows r;

    if (!rows_open(v, &r, v->cfg.edge_feats[i], ef, key, d, n))
        return;
    for (k = 0; k < n; k++) {
        e = p->estart + lo + k;
        in = oe ? ids_get(oe, lo + k)
                : dp_npy_get_i64(&v->oeid_npy, (uint64_t)e);
        x = in - off;
        if (in < 0 || x < 0 || x >= d->h.shape[0])
            tally(&t,
                  "'%s' row %" PRId64 " (edge %" PRId64 ", input edge %" PRId64
                  ") is no '%s' edge of the dataset",
                  key, k, e, in, tname ? tname : "_N:_E:_N");
        else if (tname && rows_differ(&r, k, x))
            tally(&t,
                  "'%s' row %" PRId64 " (edge %" PRId64
                  ", input '%s' edge %" PRId64 ") differs from the dataset",
                  key, k, e, tname, x);
        else if (!tname && rows_differ(&r, k, x))
            tally(&t,
                  "'%s' row %" PRId64 " (edge %" PRId64 ", input edge %" PRId64
                  ") differs from the dataset",
                  key, k, e, x);
        /* rows in random input order: a page at least each */
        since +=
            r.items * (int64_t)r.ds > 4096 ? r.items * (int64_t)r.ds : 4096;
        if (since > SWEEP_DROP) {
            dp_map_drop(&d->map);
            dp_map_drop(&ef->map);
            dp_map_drop(&v->oeid_npy.map);
            since = 0;
        }
    }
    flush(v, &t, v->cfg.edge_feats[i]);
}

static void compare_edge_data(struct vctx *v, int i,
                              const struct dp_tensors *ef, const struct ids *oe)
{
    const struct dp_dataset_meta *m = &v->d.meta;
    char key[256];
    int64_t lo, n;
    int f;

    if (!m->num_ntypes) {
        if (!v->d.edge_weight.data)
            return;
        snprintf(key, sizeof(key), "_N:_E:_N/%s",
                 dp_rename_apply(&v->eren, "weight"));
        type_rows(v, i, 1, 0, &lo, &n);
        compare_edge_rows(v, i, ef, key, &v->d.edge_weight, oe, lo, n, 0, NULL);
        return;
    }
    for (f = 0; v->ds_typed && f < m->num_edata; f++) {
        const struct dp_dataset_type *t = &m->etypes[m->edata[f].type];

        snprintf(key, sizeof(key), "%s/%s", t->name,
                 dp_rename_apply(&v->eren, m->edata[f].name));
        type_rows(v, i, 1, m->edata[f].type, &lo, &n);
        compare_edge_rows(v, i, ef, key, &v->d.edata[f], oe, lo, n, t->offset,
                          t->name);
    }
}

/* Part i's node (edge) data file against the dataset, when it has any. */
static int compare_data(struct vctx *v, int i, int edge, const struct byin *ord,
                        size_t nord, const struct ids *oe)
{
    const struct dp_dataset_meta *m = &v->d.meta;
    char *path;
    struct dp_tensors ts;

    if (edge && !(m->num_ntypes ? m->num_edata : v->d.edge_weight.data != NULL))
        return 0;
    path = dp_config_part_file(&v->cfg, i, edge ? "edge_feats" : "node_feats");
    if (!path)
        return DP_ENOMEM;
    /* a file that does not load was named in pass 1 */
    if (dp_tensors_load(&ts, path) == 0) {
        if (edge)
            compare_edge_data(v, i, &ts, oe);
        else
            compare_features(v, i, &ts, ord, nord);
        dp_tensors_release(&ts);
    }
    free(path);
    return 0;
}

/* Part i's dataset checks, with its graph loaded. */
static int check_against_dataset(struct vctx *v, int i, const struct lpart *lp)
{
    const struct part *p = &v->p[i];
    struct ids oe = { NULL, 0 };
    struct byin *ord = NULL;
    size_t nord = 0;
    int rc = 0;

    if (v->s->orig_ids == 2 && !v->s->no_orig_eids) {
        if (ids_alloc(&oe, p->eend - p->estart, v->cfg.num_edges - 1))
            return DP_ENOMEM;
        if (!read_part_ids(v, i, 1, 0, NULL, NULL, &oe, p->estart))
            goto out; /* reported when the orig ids were read */
    }
    rc = part_order(v, i, &ord, &nord);
    if (!rc)
        rc = compare_edges(v, i, lp, oe.p ? &oe : NULL, ord, nord);
    if (rc || !v->ds_feats)
        goto out;
    if (p->nf_ok)
        rc = compare_data(v, i, 0, ord, nord, NULL);
    if (!rc && !v->s->no_orig_eids) /* edge data is by input edge id */
        rc = compare_data(v, i, 1, NULL, 0, oe.p ? &oe : NULL);
out:
    free(oe.p);
    free(ord);
    return rc;
}

/* ---- stats ---- */

static double balance(const int64_t *x, int n)
{
    int64_t max = 0, sum = 0;
    int i;

    for (i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] > max)
            max = x[i];
    }
    return sum ? (double)max * n / (double)sum : 1.0;
}

static int fill_stats(struct vctx *v)
{
    struct dp_verify_stats *s = v->s;
    int k = v->cfg.num_parts, i, have_train = 1;
    int64_t *nodes = dp_calloc((size_t)k, 8), *edges = dp_calloc((size_t)k, 8);
    int64_t *train = dp_calloc((size_t)k, 8);

    s->parts = dp_calloc((size_t)k, sizeof(*s->parts));
    if (!nodes || !edges || !train || !s->parts) {
        free(nodes);
        free(edges);
        free(train);
        return DP_ENOMEM;
    }
    for (i = 0; i < k; i++) {
        struct part *p = &v->p[i];
        struct dp_verify_part *sp = &s->parts[i];

        sp->inner_nodes = nodes[i] = p->end - p->start;
        sp->inner_edges = edges[i] = p->eend - p->estart;
        sp->halo_nodes = p->graph_ok ? p->num_nodes - sp->inner_nodes : 0;
        sp->local_edges = p->graph_ok ? p->num_edges : 0;
        sp->train_nodes = p->train_nodes;
        if (p->train_nodes >= 0)
            train[i] = p->train_nodes;
        else
            have_train = 0;
    }
    s->node_balance = balance(nodes, k);
    s->edge_balance = balance(edges, k);
    s->train_balance = have_train ? balance(train, k) : 0;
    free(nodes);
    free(edges);
    free(train);
    return 0;
}

void dp_verify_print(const struct dp_verify_stats *s, FILE *out)
{
    int i;

    if (!s->num_parts) { /* the config itself could not be read */
        fprintf(out, "FAILED\n");
        return;
    }
    fprintf(out,
            "graph: %" PRId64 " nodes, %" PRId64 " edges, %d parts,"
            " halo_hops %d\n",
            s->num_nodes, s->num_edges, s->num_parts, s->halo_hops);
    if (s->halo_edges_in)
        fprintf(out, "halo edges: in-edges only (--halo_edges in)\n");
    if (!s->parts) {
        fprintf(out, "FAILED\n");
        return;
    }
    fprintf(out, "%6s %12s %12s %12s %12s %12s\n", "part", "inner_nodes",
            "halo_nodes", "inner_edges", "local_edges", "train_nodes");
    for (i = 0; i < s->num_parts; i++) {
        const struct dp_verify_part *p = &s->parts[i];

        fprintf(out, "%6d %12" PRId64 " %12" PRId64 " %12" PRId64 " %12" PRId64,
                i, p->inner_nodes, p->halo_nodes, p->inner_edges,
                p->local_edges);
        if (p->train_nodes >= 0)
            fprintf(out, " %12" PRId64 "\n", p->train_nodes);
        else
            fprintf(out, " %12s\n", "-");
    }
    fprintf(out, "edge cut: %" PRId64 " of %" PRId64 " edges (%.2f%%)\n",
            s->edge_cut, s->num_edges,
            s->num_edges ? 100.0 * (double)s->edge_cut / (double)s->num_edges
                         : 0.0);
    fprintf(out, "balance (max/avg): nodes %.3f, edges %.3f", s->node_balance,
            s->edge_balance);
    if (s->train_balance > 0)
        fprintf(out, ", train %.3f", s->train_balance);
    fprintf(out, "\norig ids: %s\n",
            s->orig_ids == 1 && s->no_orig_eids
                ? "orig_nids.npy (no orig_eids.npy: edges have no input id)"
            : s->orig_ids == 1 ? "orig_nids.npy, orig_eids.npy"
            : s->orig_ids == 2 && s->no_orig_eids
                ? "part*/orig_nids.dgl (no orig_eids.dgl: edges have no input"
                  " id)"
            : s->orig_ids == 2 ? "part*/orig_nids.dgl, part*/orig_eids.dgl"
                               : "none");
    fprintf(out, "dataset: %s%s%s\n", s->dataset_checked ? "compared" : "-",
            s->edges_by_ends == 1 ? ", edges by endpoints (no orig edge ids)"
            : s->edges_by_ends == 2
                ? ", edges by endpoints (the dataset has no eids.npy)"
                : "",
            s->edge_data_skipped ? ", edge data not compared" : "");
    fprintf(out, "%s\n", s->problems ? "FAILED" : "ok");
}

void dp_verify_stats_release(struct dp_verify_stats *s)
{
    free(s->parts);
    memset(s, 0, sizeof(*s));
}

/* ---- driver ---- */

static void release_ctx(struct vctx *v)
{
    if (v->nf0_ok)
        dp_tensors_release(&v->nf0);
    if (v->ef0_ok)
        dp_tensors_release(&v->ef0);
    free(v->p);
    free(v->nbits);
    free(v->ebits);
    free(v->fbits);
    free(v->indeg.p);
    free(v->outdeg.p);
    free(v->copies.p);
    free(v->hcopy);
    free(v->ncopy);
    if (v->onid_npy.data)
        dp_npy_release(&v->onid_npy);
    if (v->oeid_npy.data)
        dp_npy_release(&v->oeid_npy);
    free(v->onid.p);
    if (v->d_open)
        dp_dataset_release(&v->d);
    dp_rename_release(&v->ren);
    dp_rename_release(&v->eren);
    free(v->ud.p);
    free(v->us.p);
    if (v->cfg_ok)
        dp_config_release(&v->cfg);
}

/* Each node and edge takes more than a byte in graph.dgl, so the JSON's
 * totals cannot exceed the files' sizes: checked before anything is sized
 * by them (the JSON may come from anywhere). */
static int plausible(struct vctx *v)
{
    uint64_t bytes = 0;
    int i;

    for (i = 0; i < v->cfg.num_parts; i++) {
        char *path = dp_config_part_file(&v->cfg, i, "part_graph");
        struct dp_map m;

        if (!path)
            return -1;
        if (dp_map_open(&m, path) == 0) {
            bytes += m.size;
            dp_map_release(&m);
        }
        free(path);
    }
    if ((uint64_t)v->cfg.num_nodes <= bytes &&
        (uint64_t)v->cfg.num_edges <= bytes)
        return 1;
    problem(v,
            "the config says %" PRId64 " nodes and %" PRId64 " edges,"
            " more than its %" PRIu64 " bytes of graph files can hold",
            v->cfg.num_nodes, v->cfg.num_edges, bytes);
    return 0;
}

/* Pass 1 for part i: everything it can show on its own, and its share of
 * the degrees, copy counts and sums. */
static int first_look(struct vctx *v, int i)
{
    struct part *p = &v->p[i];
    struct lpart lp;
    struct dp_tensors nf, ef;
    int nf_ok = 0, ef_ok = 0, rc;

    if ((rc = load_graph(v, i, &lp)) != 0) {
        release_part(&lp);
        return rc;
    }
    p->graph_ok = lp.ok;
    if (i == 0)
        load_feats(v, i, &v->nf0, &v->nf0_ok, &v->ef0, &v->ef0_ok);
    else
        load_feats(v, i, &nf, &nf_ok, &ef, &ef_ok);
    if (p->graph_ok) {
        p->num_nodes = lp.g.num_nodes;
        p->num_edges = lp.g.num_edges;
        check_nodes(v, i, &lp);
    }
    if (p->graph_ok)
        check_edges(v, i, &lp);
    if (p->graph_ok && v->cfg.halo_hops > 0 &&
        (rc = count_out_only(v, i, &lp)) != 0) {
        release_part(&lp);
        return rc;
    }
    release_part(&lp);
    if (i == 0) {
        check_feat_rows(v, 0, &v->nf0, v->nf0_ok, &v->ef0, v->ef0_ok);
        p->nf_ok = v->nf0_ok;
        p->train_nodes = count_train(&v->nf0, v->nf0_ok);
    } else {
        check_feat_rows(v, i, &nf, nf_ok, &ef, ef_ok);
        p->nf_ok = nf_ok;
        p->train_nodes = count_train(&nf, nf_ok);
        if (nf_ok)
            dp_tensors_release(&nf);
        if (ef_ok)
            dp_tensors_release(&ef);
    }
    return 0;
}

/* Pass 2 for part i: its originals against the other parts' copies, its
 * halo against DGL's rules, its edges and rows against the dataset. The
 * lookups a failure needs load other parts, after this one is let go. */
static int second_look(struct vctx *v, int i, int halos)
{
    struct lpart lp;
    struct ids ts = { NULL, 0 }, td = { NULL, 0 };
    struct deficit df = { 0 };
    uint64_t h[2] = { 0, 0 };
    int64_t k, e, s, d;
    int rc, bad;

    if (!v->p[i].graph_ok) {
        /* no originals here: any copy of this part's edges is an orphan */
        if (!v->ncopy[i])
            return 0;
        rc = originals(v, i, NULL, &ts, &td);
        if (!rc)
            rc = find_bad_copies(v, i, &ts, &td);
        goto out;
    }
    if ((rc = reload(v, i, &lp)) != 0 || !lp.ok)
        return rc;
    for (k = 0; k < lp.g.num_edges; k++) {
        sweep(&lp, k);
        if (original(v, i, &lp, k, &e, &s, &d) && !bit_test_set(v->ebits, e))
            edge_hash_add(h, counts_get(&v->copies, e), e, s, d);
    }
    for (k = 0; k < lp.g.num_edges; k++) {
        e = at(lp.eid, k);
        if (e >= 0 && e < v->cfg.num_edges)
            bit_clear(v->ebits, e);
    }
    bad = h[0] != v->hcopy[i][0] || h[1] != v->hcopy[i][1];
    if (bad)
        rc = originals(v, i, &lp, &ts, &td);
    if (!rc && (halos || v->ds_edges))
        rc = build_in(&lp);
    if (!rc && halos)
        rc = check_part_halo(v, i, &lp, &df);
    if (!rc && v->ds_edges)
        rc = check_against_dataset(v, i, &lp);
    release_part(&lp);
    drop_inputs(v);
    if (!rc && bad)
        rc = find_bad_copies(v, i, &ts, &td);
    if (!rc && (df.in.n || df.out.n))
        rc = find_missing(v, i, &df);
out:
    free(ts.p);
    free(td.p);
    deficit_release(&df);
    return rc;
}

static int run(struct vctx *v)
{
    int64_t n, m, e;
    int i, rc = 0, all_ok = 1, halos;
    double t = dp_now();

    if (dp_config_load(&v->cfg, v->o->config) != 0) {
        problem(v, "%s", dp_errmsg());
        return 0;
    }
    v->cfg_ok = 1;
    n = v->cfg.num_nodes;
    m = v->cfg.num_edges;
    v->s->num_parts = v->cfg.num_parts;
    v->s->num_nodes = n;
    v->s->num_edges = m;
    v->s->halo_hops = v->cfg.halo_hops;
    v->p = dp_calloc((size_t)v->cfg.num_parts, sizeof(*v->p));
    if (!v->p)
        return DP_ENOMEM;
    for (i = 0; i < v->cfg.num_parts; i++) {
        struct part *p = &v->p[i];

        p->start = v->cfg.node_map[i][0];
        p->end = v->cfg.node_map[i][1];
        p->estart = v->cfg.edge_map[i][0];
        p->eend = v->cfg.edge_map[i][1];
        p->train_nodes = -1;
    }
    if ((rc = plausible(v)) <= 0)
        return rc < 0 ? DP_ENOMEM : fill_stats(v);
    v->nbits = bits_alloc(n);
    v->ebits = bits_alloc(m);
    v->fbits = bits_alloc(m);
    v->hcopy = dp_calloc((size_t)v->cfg.num_parts, sizeof(*v->hcopy));
    v->ncopy = dp_calloc((size_t)v->cfg.num_parts, sizeof(*v->ncopy));
    if (!v->nbits || !v->ebits || !v->fbits || !v->hcopy || !v->ncopy ||
        counts_alloc(&v->indeg, n, (uint64_t)m) ||
        counts_alloc(&v->outdeg, n, (uint64_t)m) ||
        counts_alloc(&v->copies, m, (uint64_t)v->cfg.num_parts))
        return DP_ENOMEM;
    /* pass 1, one part mapped at a time */
    for (i = 0; i < v->cfg.num_parts; i++) {
        if ((rc = first_look(v, i)) != 0)
            return rc;
        all_ok &= v->p[i].graph_ok;
    }
    dp_timer_report("parts", t);
    t = dp_now();
    v->first_missing = -1;
    for (i = 0; i < v->cfg.num_parts; i++) {
        struct part *p = &v->p[i];

        if (p->found == p->eend - p->estart)
            continue;
        v->missing_edges += p->eend - p->estart - p->found;
        for (e = p->estart; v->first_missing < 0 && e < p->eend; e++)
            if (!bit_test(v->fbits, e))
                v->first_missing = e;
    }
    if (v->missing_edges && all_ok && v->cfg.halo_hops > 0)
        problem(v,
                "%" PRId64 " edges (first _ID %" PRId64 ") are an inner"
                " edge of no part",
                v->missing_edges, v->first_missing);
    /* the layout is the set's: DGL's with the out-edges leaving each part,
     * or --halo_edges in's without any */
    v->in_layout = v->cfg.halo_hops > 0 && !v->out_only;
    v->s->halo_edges_in = v->in_layout && v->s->edge_cut > 0;
    if (all_ok && v->cfg.halo_hops == 1 && v->out_only &&
        v->out_only < v->s->edge_cut)
        problem(v,
                "%" PRId64 " of the %" PRId64 " edges leaving their part are"
                " stored as out-edge halos: expected all (DGL's layout) or"
                " none (--halo_edges in)",
                v->out_only, v->s->edge_cut);
    if ((rc = load_orig_ids(v)) != 0)
        return rc;
    drop_inputs(v);
    dp_timer_report("orig ids", t);
    t = dp_now();
    if (v->o->dataset)
        open_dataset(v);
    /* pass 2: copies against their originals and, when every edge is
     * known, the halos against DGL's rules; the dataset */
    halos = all_ok && !v->missing_edges && v->cfg.halo_hops > 0;
    for (i = 0; i < v->cfg.num_parts; i++)
        if ((rc = second_look(v, i, halos)) != 0)
            return rc;
    if (v->ds_edges)
        finish_edges(v);
    dp_timer_report("halos and dataset", t);
    return fill_stats(v);
}

int dp_verify(const struct dp_verify_opts *o, struct dp_verify_stats *s)
{
    struct vctx v;
    int rc;

    memset(s, 0, sizeof(*s));
    memset(&v, 0, sizeof(v));
    v.o = o;
    v.s = s;
    rc = run(&v);
    release_ctx(&v);
    if (rc)
        return rc;
    if (s->problems)
        return dp_error(DP_EFORMAT, "'%s': %" PRId64 " problem%s found",
                        o->config, s->problems, s->problems == 1 ? "" : "s");
    return 0;
}
