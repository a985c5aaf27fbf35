/* The partition book and one loaded partition: the in-edges of its inner
 * nodes rebuilt as a CSC over global ids, its features, and the local
 * answers to sampling, degree and gather requests. */
#include <stdlib.h>
#include <string.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/runtime.h"
#include "rt_int.h"

/* ---- partition book ---- */

static int32_t *make_buckets(const int64_t *start, int nparts, int shift,
                             int64_t nbuckets)
{
    int32_t *bk = dp_malloc_array((size_t)nbuckets, sizeof(*bk));
    int64_t i;
    int part = 0;

    if (!bk)
        return NULL;
    for (i = 0; i < nbuckets; i++) {
        int64_t lo = i << shift;
        while (part < nparts - 1 && start[part + 1] <= lo)
            part++;
        bk[i] = part;
    }
    return bk;
}

static int lookup(const int64_t *start, const int32_t *bk, int nparts,
                  int shift, int64_t id)
{
    int part;

    if (id < 0 || id >= start[nparts])
        return -1;
    part = bk[id >> shift];
    while (part < nparts - 1 && start[part + 1] <= id)
        part++;
    return part;
}

int dp_book_init(struct dp_book *b, const struct dp_part_config *c)
{
    int i, rc = DP_ENOMEM;
    int64_t maxid;

    memset(b, 0, sizeof(*b));
    if (c->num_parts < 1)
        return dp_error(DP_EFORMAT, "'%s': num_parts %d", c->path,
                        c->num_parts);
    b->num_parts = c->num_parts;
    b->num_nodes = c->num_nodes;
    b->num_edges = c->num_edges;
    b->node_start = dp_malloc_array((size_t)c->num_parts + 1, 8);
    b->edge_start = dp_malloc_array((size_t)c->num_parts + 1, 8);
    if (!b->node_start || !b->edge_start)
        goto out;
    for (i = 0; i < c->num_parts; i++) {
        int64_t ns = i ? c->node_map[i - 1][1] : 0;
        int64_t es = i ? c->edge_map[i - 1][1] : 0;
        if (c->node_map[i][0] != ns || c->node_map[i][1] < ns ||
            c->edge_map[i][0] != es || c->edge_map[i][1] < es) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': node_map/edge_map of part %d are not "
                          "contiguous ranges",
                          c->path, i);
            goto out;
        }
        b->node_start[i] = ns;
        b->edge_start[i] = es;
    }
    b->node_start[i] = c->node_map[i - 1][1];
    b->edge_start[i] = c->edge_map[i - 1][1];
    if (b->node_start[i] != c->num_nodes || b->edge_start[i] != c->num_edges) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': node_map/edge_map end at %lld/%lld, not "
                      "num_nodes/num_edges %lld/%lld",
                      c->path, (long long)b->node_start[i],
                      (long long)b->edge_start[i], (long long)c->num_nodes,
                      (long long)c->num_edges);
        goto out;
    }
    /* About 4 buckets per part: the walk from a bucket's part is short. */
    maxid = c->num_nodes > c->num_edges ? c->num_nodes : c->num_edges;
    b->shift = 0;
    while ((maxid >> b->shift) > 4 * (int64_t)c->num_parts + 4)
        b->shift++;
    b->nbuckets = (maxid >> b->shift) + 1;
    b->node_bucket =
        make_buckets(b->node_start, b->num_parts, b->shift, b->nbuckets);
    b->edge_bucket =
        make_buckets(b->edge_start, b->num_parts, b->shift, b->nbuckets);
    if (!b->node_bucket || !b->edge_bucket)
        goto out;
    return 0;
out:
    dp_book_release(b);
    return rc;
}

void dp_book_release(struct dp_book *b)
{
    if (!b)
        return;
    free(b->node_start);
    free(b->edge_start);
    free(b->node_bucket);
    free(b->edge_bucket);
    memset(b, 0, sizeof(*b));
}

int dp_book_node_part(const struct dp_book *b, int64_t gid)
{
    return lookup(b->node_start, b->node_bucket, b->num_parts, b->shift, gid);
}

int dp_book_edge_part(const struct dp_book *b, int64_t geid)
{
    return lookup(b->edge_start, b->edge_bucket, b->num_parts, b->shift, geid);
}

/* ---- loading a part ---- */

static const struct dp_ndarray *id_array(const struct dp_part *p, int edge,
                                         const char *path)
{
    const struct dp_ndarray *a =
        edge ? dp_graph_edata(&p->g, "_ID") : dp_graph_ndata(&p->g, "_ID");
    int64_t want = edge ? p->g.num_edges : p->g.num_nodes;

    if (!a) {
        dp_error(DP_EFORMAT, "'%s': no %s _ID array", path,
                 edge ? "edata" : "ndata");
        return NULL;
    }
    if (!dp_dtype_is_int(a->dtype) || a->ndim != 1 || a->shape[0] != want) {
        dp_error(DP_EFORMAT, "'%s': %s _ID has %lld entries, expected %lld",
                 path, edge ? "edata" : "ndata",
                 (long long)(a->ndim ? a->shape[0] : -1), (long long)want);
        return NULL;
    }
    return a;
}

/* An index array of a stored matrix, checked as 1-D integer of length n
 * (n < 0: any length, reported through *len). */
static int check_index(const struct dp_ndarray *a, int64_t n, int64_t *len,
                       const char *path, const char *what)
{
    if (!a->data && a->nbytes == 0 && n == 0)
        return 0;
    if (!dp_dtype_is_int(a->dtype) || a->ndim != 1 ||
        (n >= 0 && a->shape[0] != n))
        return dp_error(DP_EFORMAT,
                        "'%s': %s has %lld entries, expected "
                        "%lld",
                        path, what, (long long)(a->ndim ? a->shape[0] : -1),
                        (long long)n);
    if (len)
        *len = a->shape[0];
    return 0;
}

struct builder {
    struct dp_part *p;
    const char *path;
    const int64_t *nid, *geid;
    int64_t *cursor;
    int64_t total_nodes;
    int pass;
};

static int visit(struct builder *b, int64_t s, int64_t d, int64_t le)
{
    struct dp_part *p = b->p;

    if (s < 0 || s >= p->g.num_nodes || d < 0 || d >= p->g.num_nodes ||
        le < 0 || le >= p->g.num_edges)
        return dp_error(DP_EFORMAT,
                        "'%s': edge %lld (%lld -> %lld) out of "
                        "range",
                        b->path, (long long)le, (long long)s, (long long)d);
    if (d >= p->num_inner)
        return 0;
    if (b->pass == 0) {
        p->indptr[d + 1]++;
    } else {
        int64_t pos = b->cursor[d]++;
        int64_t ge = b->geid[le];
        if (ge < p->edge_start || ge >= p->edge_start + p->num_inner_edges)
            return dp_error(DP_EFORMAT,
                            "'%s': in-edge %lld of inner node "
                            "has global id %lld outside the part's edge "
                            "range",
                            b->path, (long long)le, (long long)ge);
        if (b->nid[s] < 0 || b->nid[s] >= b->total_nodes)
            return dp_error(DP_EFORMAT,
                            "'%s': node %lld has global id %lld "
                            "out of range",
                            b->path, (long long)s, (long long)b->nid[s]);
        p->src[pos] = b->nid[s];
        p->eid[pos] = ge;
    }
    return 0;
}

static int walk_edges(struct builder *b)
{
    const struct dp_graph_file *g = &b->p->g;
    int64_t e, r, nrows, len;
    int rc;

    if (g->saved_formats & DP_FMT_COO) {
        int has_data = g->coo_data.nbytes > 0;
        if ((rc = check_index(&g->coo_row, g->num_edges, NULL, b->path,
                              "COO row")) ||
            (rc = check_index(&g->coo_col, g->num_edges, NULL, b->path,
                              "COO col")) ||
            (has_data && (rc = check_index(&g->coo_data, g->num_edges, NULL,
                                           b->path, "COO data"))))
            return rc;
        for (e = 0; e < g->num_edges; e++) {
            rc = visit(b, dp_ndarray_get_i64(&g->coo_row, e),
                       dp_ndarray_get_i64(&g->coo_col, e),
                       has_data ? dp_ndarray_get_i64(&g->coo_data, e) : e);
            if (rc)
                return rc;
        }
        return 0;
    }
    if (g->saved_formats & (DP_FMT_CSC | DP_FMT_CSR)) {
        int csc = (g->saved_formats & DP_FMT_CSC) != 0;
        const struct dp_ndarray *ip = csc ? &g->csc_indptr : &g->csr_indptr;
        const struct dp_ndarray *ix = csc ? &g->csc_indices : &g->csr_indices;
        const struct dp_ndarray *da = csc ? &g->csc_data : &g->csr_data;
        int has_data = da->nbytes > 0;
        int64_t prev = 0;
        nrows = g->num_nodes;
        if ((rc = check_index(ip, nrows + 1, NULL, b->path, "indptr")) ||
            (rc = check_index(ix, g->num_edges, &len, b->path, "indices")) ||
            (has_data &&
             (rc = check_index(da, g->num_edges, NULL, b->path, "edge ids"))))
            return rc;
        if (dp_ndarray_get_i64(ip, 0) != 0 ||
            dp_ndarray_get_i64(ip, nrows) != g->num_edges)
            return dp_error(DP_EFORMAT,
                            "'%s': indptr does not span the "
                            "%lld edges",
                            b->path, (long long)g->num_edges);
        for (r = 0; r < nrows; r++) {
            int64_t hi = dp_ndarray_get_i64(ip, r + 1);
            if (hi < prev || hi > g->num_edges)
                return dp_error(DP_EFORMAT,
                                "'%s': indptr decreases at row "
                                "%lld",
                                b->path, (long long)r);
            for (e = prev; e < hi; e++) {
                int64_t o = dp_ndarray_get_i64(ix, e);
                int64_t le = has_data ? dp_ndarray_get_i64(da, e) : e;
                rc = csc ? visit(b, o, r, le) : visit(b, r, o, le);
                if (rc)
                    return rc;
            }
            prev = hi;
        }
        return 0;
    }
    return dp_error(DP_EFORMAT, "'%s': no COO, CSR or CSC matrix stored",
                    b->path);
}

/* Group each inner node's entries by edge type, keeping the file order
 * within a type (a counting sort per node, through one spare row); p->etype
 * is already placed. */
static int group_by_etype(struct dp_part *p, const struct dp_part_config *c,
                          const char *path)
{
    int64_t v, i, total = p->indptr[p->num_inner], maxdeg = 0;
    int64_t *cnt = NULL, *tmp = NULL;
    int T = c->num_etypes, t, rc = DP_ENOMEM;

    for (v = 0; v < p->num_inner; v++)
        if (p->indptr[v + 1] - p->indptr[v] > maxdeg)
            maxdeg = p->indptr[v + 1] - p->indptr[v];
    if (!(cnt = dp_malloc_array((size_t)T + 1, 8)) ||
        !(tmp = dp_malloc_array((size_t)maxdeg * 2 + 1, 8)))
        goto out;
    for (i = 0; i < total; i++) {
        int et = dp_config_etype_of(c, p->eid[i]);
        if (et < 0) {
            rc = dp_error(DP_EFORMAT, "'%s': edge id %lld out of range", path,
                          (long long)p->eid[i]);
            goto out;
        }
        p->etype[i] = (uint16_t)et;
    }
    for (v = 0; v < p->num_inner; v++) {
        int64_t lo = p->indptr[v], deg = p->indptr[v + 1] - lo;
        memset(cnt, 0, (size_t)(T + 1) * 8);
        for (i = 0; i < deg; i++)
            cnt[p->etype[lo + i] + 1]++;
        for (t = 0; t < T; t++)
            cnt[t + 1] += cnt[t];
        for (i = 0; i < deg; i++) {
            int64_t at = cnt[p->etype[lo + i]]++;
            tmp[at] = p->src[lo + i];
            tmp[deg + at] = p->eid[lo + i];
        }
        memcpy(p->src + lo, tmp, (size_t)deg * 8);
        memcpy(p->eid + lo, tmp + deg, (size_t)deg * 8);
        for (i = 0, t = 0; i < deg; i++) {
            while (cnt[t] <= i) /* cnt[t] is now type t's end */
                t++;
            p->etype[lo + i] = (uint16_t)t;
        }
    }
    p->num_etypes = T;
    rc = 0;
out:
    free(cnt);
    free(tmp);
    return rc;
}

/* Private memory for the arrays of a part built for this process alone. */
static int place_private(struct dp_part *p, int64_t total, int typed)
{
    p->src = dp_malloc_array((size_t)total + 1, 8);
    p->eid = dp_malloc_array((size_t)total + 1, 8);
    if (typed)
        p->etype = dp_malloc_array((size_t)total + 1, 2);
    return p->src && p->eid && (!typed || p->etype) ? 0 : DP_ENOMEM;
}

static int build_csc(struct dp_part *p, const struct dp_part_config *c,
                     const char *path, int64_t total_nodes,
                     struct dp_shm_build *sb)
{
    struct builder b = { p, path, NULL, NULL, NULL, total_nodes, 0 };
    const struct dp_ndarray *na, *ea;
    int64_t *nid = NULL, *geid = NULL, v, total;
    int rc = DP_ENOMEM, typed = c->num_etypes > 1 && c->etype_map;

    if (typed && c->num_etypes > UINT16_MAX)
        return dp_error(DP_EUNSUPPORTED, "'%s': %d edge types (at most %d)",
                        c->path, c->num_etypes, UINT16_MAX);
    if (!(na = id_array(p, 0, path)) || !(ea = id_array(p, 1, path)))
        return DP_EFORMAT;
    if (!(nid = dp_ndarray_i64(na)) || !(geid = dp_ndarray_i64(ea)))
        goto out;
    for (v = 0; v < p->num_inner; v++)
        if (nid[v] != p->node_start + v) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': inner node %lld has global id "
                          "%lld, expected %lld",
                          path, (long long)v, (long long)nid[v],
                          (long long)(p->node_start + v));
            goto out;
        }
    p->indptr = dp_calloc((size_t)p->num_inner + 1, 8);
    b.cursor = dp_malloc_array((size_t)p->num_inner + 1, 8);
    if (!p->indptr || !b.cursor)
        goto out;
    b.nid = nid;
    b.geid = geid;
    if ((rc = walk_edges(&b)))
        goto out;
    for (v = 0; v < p->num_inner; v++)
        p->indptr[v + 1] += p->indptr[v];
    total = p->indptr[p->num_inner];
    if (total > p->num_inner_edges) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': %lld in-edges of inner nodes, but "
                      "the edge_map range holds %lld",
                      path, (long long)total, (long long)p->num_inner_edges);
        goto out;
    }
    if (total < p->num_inner_edges)
        dp_warn("'%s': %lld of the part's %lld edges are stored (halo_hops "
                "0?): in-neighbourhoods are incomplete",
                path, (long long)total, (long long)p->num_inner_edges);
    memcpy(b.cursor, p->indptr, (size_t)p->num_inner * 8);
    if ((rc = sb ? dp_shm_place(sb, p, total, typed)
                 : place_private(p, total, typed)))
        goto out;
    b.pass = 1;
    if (!(rc = walk_edges(&b)) && typed)
        rc = group_by_etype(p, c, path);
out:
    free(nid);
    free(geid);
    free(b.cursor);
    return rc;
}

/* A part's feature file; each feature's rows are checked against the ids
 * of its type in the part (all the part's ids when untyped). */
static int load_feats(struct dp_tensors *t, int64_t **starts,
                      const struct dp_part_config *c, int part, int edge)
{
    const char *which = edge ? "edge_feats" : "node_feats";
    char *path = dp_config_part_file(c, part, which);
    int rc, i;

    memset(t, 0, sizeof(*t));
    if (!path)
        return DP_ENOMEM;
    if (!dp_exists(path)) {
        free(path);
        return 0;
    }
    if ((rc = dp_tensors_load(t, path)))
        goto out;
    if (!(*starts = dp_malloc_array((size_t)t->count + 1, 8))) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (i = 0; i < t->count && !rc; i++) {
        const struct dp_ndarray *a = &t->items[i].a;
        int64_t rows = 0;
        if (dp_config_feature_range(c, part, edge, t->items[i].name,
                                    &(*starts)[i], &rows) < 0)
            rc = dp_error_prefix(DP_EFORMAT, "'%s'", path);
        else if (a->ndim < 1 || a->shape[0] != rows)
            rc = dp_error(DP_EFORMAT,
                          "'%s': feature '%s' has %lld rows, "
                          "expected %lld",
                          path, t->items[i].name,
                          (long long)(a->ndim ? a->shape[0] : -1),
                          (long long)rows);
    }
out:
    if (rc) {
        dp_tensors_release(t);
        free(*starts);
        *starts = NULL;
    }
    free(path);
    return rc;
}

int64_t dp_part_feature_start(const struct dp_part *p, int edge,
                              const struct dp_ndarray *a)
{
    const struct dp_tensors *t = edge ? &p->efeat : &p->nfeat;
    const int64_t *starts = edge ? p->efeat_start : p->nfeat_start;
    int i;

    for (i = 0; starts && i < t->count; i++)
        if (&t->items[i].a == a)
            return starts[i];
    return edge ? p->edge_start : p->node_start;
}

int dp_part_init(struct dp_part *p, const struct dp_part_config *c,
                 const struct dp_book *b, int part)
{
    memset(p, 0, sizeof(*p));
    if (part < 0 || part >= c->num_parts)
        return dp_error(DP_ERANGE, "part %d out of range [0, %d)", part,
                        c->num_parts);
    p->id = part;
    p->node_start = b->node_start[part];
    p->num_inner = b->node_start[part + 1] - p->node_start;
    p->edge_start = b->edge_start[part];
    p->num_inner_edges = b->edge_start[part + 1] - p->edge_start;
    return 0;
}

int dp_part_build(struct dp_part *p, const struct dp_part_config *c,
                  const struct dp_book *b, struct dp_shm_build *sb)
{
    char *path;
    int rc;

    if (!(path = dp_config_part_file(c, p->id, "part_graph")))
        return DP_ENOMEM;
    if ((rc = dp_graph_load(&p->g, path)))
        goto out;
    if (p->g.num_nodes < p->num_inner) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': %lld nodes, fewer than the %lld "
                      "inner nodes of node_map",
                      path, (long long)p->g.num_nodes, (long long)p->num_inner);
        goto out;
    }
    rc = build_csc(p, c, path, b->num_nodes, sb);
out:
    /* everything is read from the arrays now: graph.dgl's pages go */
    dp_graph_release(&p->g);
    free(path);
    return rc;
}

int dp_part_load_feats(struct dp_part *p, const struct dp_part_config *c)
{
    int rc = load_feats(&p->nfeat, &p->nfeat_start, c, p->id, 0);

    return rc ? rc : load_feats(&p->efeat, &p->efeat_start, c, p->id, 1);
}

int dp_part_load(struct dp_part *p, const struct dp_part_config *c,
                 const struct dp_book *b, int part)
{
    int rc;

    if ((rc = dp_part_init(p, c, b, part)))
        return rc;
    if ((rc = dp_part_build(p, c, b, NULL)) || (rc = dp_part_load_feats(p, c)))
        dp_part_release(p);
    return rc;
}

void dp_part_release(struct dp_part *p)
{
    if (!p)
        return;
    dp_graph_release(&p->g);
    dp_tensors_release(&p->nfeat);
    dp_tensors_release(&p->efeat);
    free(p->nfeat_start);
    free(p->efeat_start);
    if (p->shm) {
        dp_shm_release(p->shm);
    } else {
        free(p->indptr);
        free(p->src);
        free(p->eid);
        free(p->etype);
    }
    memset(p, 0, sizeof(*p));
}

const struct dp_ndarray *dp_part_feature(const struct dp_part *p, int edge,
                                         const char *name)
{
    const struct dp_tensors *t = edge ? &p->efeat : &p->nfeat;
    const struct dp_tensor *e = dp_tensors_find(t, name);
    const char *alt = NULL;
    int i, k;

    if (e)
        return &e->a;
    /* A name with a type prefix is a key: exact. A bare one matches any
     * prefix ("feat" is "_N/feat"), and its twin too. */
    alt = strchr(name, '/') ? NULL : dp_feature_twin(name);
    for (k = 0; k < 2 && !strchr(name, '/'); k++) {
        const char *want = k ? alt : name;

        for (i = 0; want && i < t->count; i++) {
            const char *slash = strrchr(t->items[i].name, '/');
            if (slash && !strcmp(slash + 1, want))
                return &t->items[i].a;
        }
    }
    dp_error(DP_ENOENT, "no %s feature '%s' in part %d", edge ? "edge" : "node",
             name, p->id);
    return NULL;
}

const char *dp_feature_twin(const char *name)
{
    /* DGL's examples call the dataset's feat and label features and
     * labels; a part written under either pair answers to both */
    static const char *const twins[][2] = { { "features", "feat" },
                                            { "labels", "label" } };
    int k;

    for (k = 0; k < 2; k++)
        if (!strcmp(name, twins[k][0]) || !strcmp(name, twins[k][1]))
            return twins[k][!strcmp(name, twins[k][0])];
    return NULL;
}

uint64_t dp_feature_row_bytes(const struct dp_ndarray *a)
{
    uint64_t n = dp_dtype_size(a->dtype);
    int i;

    for (i = 1; i < a->ndim; i++)
        n *= (uint64_t)a->shape[i];
    return n;
}

/* ---- local answers ---- */

void dp_edges_release(struct dp_edges *e)
{
    if (!e)
        return;
    free(e->counts);
    free(e->src);
    free(e->eid);
    memset(e, 0, sizeof(*e));
}

static int seed_local(const struct dp_part *p, int64_t gid, int64_t *local)
{
    if (gid < p->node_start || gid - p->node_start >= p->num_inner)
        return dp_error(DP_ERANGE,
                        "node %lld is not owned by part %d "
                        "[%lld, %lld)",
                        (long long)gid, p->id, (long long)p->node_start,
                        (long long)(p->node_start + p->num_inner));
    *local = gid - p->node_start;
    return 0;
}

int64_t dp_fanout_max(const struct dp_fanout *f)
{
    int64_t m = 0;
    int t;

    if (!f->by_etype)
        return f->all;
    for (t = 0; t < f->num_etypes; t++) {
        if (f->by_etype[t] < 0)
            return -1;
        m += f->by_etype[t];
    }
    return m;
}

/* The entries [lo, hi) of local node l, and in a typed part the sub-range
 * of edge type t (entries are grouped by type). */
static void type_group(const struct dp_part *p, int64_t l, int t, int64_t *lo,
                       int64_t *hi)
{
    int64_t a = p->indptr[l], b = p->indptr[l + 1], m;

    if (t < 0 || !p->etype) {
        *lo = a;
        *hi = t <= 0 ? b : a;
        return;
    }
    for (m = b; a < m;) { /* first entry of type >= t */
        int64_t mid = a + (m - a) / 2;
        if (p->etype[mid] < t)
            a = mid + 1;
        else
            m = mid;
    }
    *lo = a;
    for (m = b; a < m;) { /* first entry of type > t */
        int64_t mid = a + (m - a) / 2;
        if (p->etype[mid] <= t)
            a = mid + 1;
        else
            m = mid;
    }
    *hi = a;
}

/* The groups a fanout samples from: one (every entry), or one per edge
 * type; *k is each group's fanout. */
static int groups(const struct dp_fanout *f)
{
    return f->by_etype ? f->num_etypes : 1;
}

static int64_t group_fanout(const struct dp_fanout *f, int g)
{
    return f->by_etype ? f->by_etype[g] : f->all;
}

static int check_fanout(const struct dp_part *p, const struct dp_fanout *f)
{
    if (f->by_etype && f->num_etypes != (p->etype ? p->num_etypes : 1))
        return dp_error(DP_EINVAL,
                        "%d edge type fanouts for part %d, which has %d "
                        "edge types",
                        f->num_etypes, p->id, p->etype ? p->num_etypes : 1);
    return 0;
}

int dp_part_sample_counts(const struct dp_part *p, const int64_t *seeds,
                          int64_t n, const struct dp_fanout *f, int64_t *counts)
{
    int64_t i, l = 0, lo, hi, c, k;
    int g, rc;

    if ((rc = check_fanout(p, f)))
        return rc;
    for (i = 0; i < n; i++) {
        if ((rc = seed_local(p, seeds[i], &l)))
            return rc;
        for (c = 0, g = 0; g < groups(f); g++) {
            type_group(p, l, f->by_etype ? g : -1, &lo, &hi);
            k = group_fanout(f, g);
            c += k < 0 || hi - lo < k ? hi - lo : k;
        }
        counts[i] = c;
    }
    return 0;
}

int dp_part_sample_typed(const struct dp_part *p, const int64_t *seeds,
                         int64_t n, const struct dp_fanout *f,
                         const struct dp_sample_key *key, int64_t max_edges,
                         struct dp_edges *out)
{
    struct dp_edges e = { 0 };
    int64_t i, total = 0, pos = 0, *pick = NULL, *scratch = NULL, maxk = 0;
    size_t scap = 0;
    int g, rc;

    if (!(e.counts = dp_malloc_array((size_t)n + 1, 8)))
        return DP_ENOMEM;
    if ((rc = dp_part_sample_counts(p, seeds, n, f, e.counts)))
        goto out;
    for (i = 0; i < n; i++) {
        total += e.counts[i];
        if (total > max_edges) {
            rc = dp_error(DP_ETOOBIG, "sample of %lld seeds exceeds %lld edges",
                          (long long)n, (long long)max_edges);
            goto out;
        }
    }
    for (g = 0; g < groups(f); g++)
        if (group_fanout(f, g) > maxk)
            maxk = group_fanout(f, g); /* picks only below the degree */
    rc = DP_ENOMEM;
    e.n = n;
    e.total = total;
    e.src = dp_malloc_array((size_t)total + 1, 8);
    e.eid = dp_malloc_array((size_t)total + 1, 8);
    if (!e.src || !e.eid)
        goto out;
    if (maxk > 0 && !(pick = dp_malloc_array((size_t)maxk, 8)))
        goto out;
    rc = 0;
    for (i = 0; i < n && !rc; i++) {
        int64_t l = seeds[i] - p->node_start, j, lo, hi, deg, k;
        for (g = 0; g < groups(f) && !rc; g++) {
            struct dp_sample_key kk = *key;
            type_group(p, l, f->by_etype ? g : -1, &lo, &hi);
            deg = hi - lo;
            k = group_fanout(f, g);
            if (k < 0 || deg <= k) {
                memcpy(e.src + pos, p->src + lo, (size_t)deg * 8);
                memcpy(e.eid + pos, p->eid + lo, (size_t)deg * 8);
                pos += deg;
                continue;
            }
            /* each edge type draws its own picks */
            if (f->by_etype)
                kk.seed ^= dp_mix64(0xE7E7E7E7ull + (uint64_t)g);
            if ((rc = dp_sample_choose(&kk, seeds[i], deg, k, pick, &scratch,
                                       &scap)))
                break;
            for (j = 0; j < k; j++) {
                e.src[pos + j] = p->src[lo + pick[j]];
                e.eid[pos + j] = p->eid[lo + pick[j]];
            }
            pos += k;
        }
    }
    if (!rc) {
        *out = e;
        memset(&e, 0, sizeof(e));
    }
out:
    free(pick);
    free(scratch);
    dp_edges_release(&e);
    return rc;
}

int dp_part_sample(const struct dp_part *p, const int64_t *seeds, int64_t n,
                   int64_t fanout, const struct dp_sample_key *key,
                   int64_t max_edges, struct dp_edges *out)
{
    struct dp_fanout f = { fanout, NULL, 0 };

    return dp_part_sample_typed(p, seeds, n, &f, key, max_edges, out);
}

int dp_part_in_degree(const struct dp_part *p, const int64_t *seeds, int64_t n,
                      int64_t *out)
{
    int64_t i, l = 0;
    int rc;

    for (i = 0; i < n; i++) {
        if ((rc = seed_local(p, seeds[i], &l)))
            return rc;
        out[i] = p->indptr[l + 1] - p->indptr[l];
    }
    return 0;
}

int dp_part_gather(const struct dp_part *p, int edge,
                   const struct dp_ndarray *a, const int64_t *ids, int64_t n,
                   void *out)
{
    uint64_t rb = dp_feature_row_bytes(a);
    int64_t start = dp_part_feature_start(p, edge, a);
    int64_t i;

    if (rb * (uint64_t)a->shape[0] > a->nbytes)
        return dp_error(DP_EFORMAT,
                        "feature of part %d is shorter than its "
                        "shape",
                        p->id);
    for (i = 0; i < n; i++) {
        int64_t l = ids[i] >= start ? ids[i] - start : -1;
        if (l < 0 || l >= a->shape[0])
            return dp_error(DP_ERANGE, "%s %lld is not owned by part %d",
                            edge ? "edge" : "node", (long long)ids[i], p->id);
        memcpy((char *)out + (uint64_t)i * rb,
               (const char *)a->data + (uint64_t)l * rb, rb);
    }
    return 0;
}
