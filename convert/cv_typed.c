/* Typed graphs for the typed readers (OGB heterogeneous, DGL's chunked
 * format, the typed npy folder): node and edge types in id order, per-type
 * arrays under ndata/ and edata/, and --add_reverse_edges. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/error.h"

int cv_typed_add_ntype(struct cv_graph *g, const char *name, int64_t count,
                       const char *what)
{
    struct dp_dataset_meta *m = &g->meta;
    struct dp_dataset_type *t;
    int64_t off = 0;
    int i;

    if (!name[0] || strchr(name, ':') || strchr(name, '/'))
        return dp_error(DP_EFORMAT,
                        "'%s': node type '%s': expected a "
                        "non-empty name without ':' or '/'",
                        what, name);
    if (dp_dataset_find_ntype(m, name) >= 0)
        return dp_error(DP_EFORMAT, "'%s': node type '%s' appears twice", what,
                        name);
    /* an empty type is kept, as dgl.heterograph keeps it (num_nodes_dict
     * of 0): its edges, if any, are refused as out of range */
    if (count < 0)
        return dp_error(DP_EFORMAT,
                        "'%s': node type '%s' has %" PRId64 " nodes", what,
                        name, count);
    for (i = 0; i < m->num_ntypes; i++)
        off += m->ntypes[i].count;
    if (count >= CV_MAX_NODES - off)
        return dp_error(DP_ERANGE,
                        "'%s': node type '%s': %" PRId64 " nodes is too many",
                        what, name, count);
    t = dp_realloc_array(m->ntypes, (size_t)m->num_ntypes + 1, sizeof(*t));
    if (!t)
        return DP_ENOMEM;
    m->ntypes = t;
    t += m->num_ntypes;
    memset(t, 0, sizeof(*t));
    if (!(t->name = dp_strdup(name)))
        return DP_ENOMEM;
    t->count = count;
    t->offset = off;
    m->num_ntypes++;
    g->typed = 1;
    return 0;
}

/* The node types at either end of "src:rel:dst", or -1. */
static int split_etype(const struct dp_dataset_meta *m, const char *name,
                       int *src, int *dst)
{
    const char *a = strchr(name, ':'), *b = a ? strchr(a + 1, ':') : NULL;
    char buf[512];

    if (!a || !b || strchr(b + 1, ':') || a == name || b == a + 1 || !b[1] ||
        strchr(name, '/') || strlen(name) >= sizeof(buf))
        return -1;
    memcpy(buf, name, (size_t)(a - name));
    buf[a - name] = 0;
    *src = dp_dataset_find_ntype(m, buf);
    *dst = dp_dataset_find_ntype(m, b + 1);
    return *src < 0 || *dst < 0 ? -1 : 0;
}

int cv_typed_begin_etype(struct cv_graph *g, const char *name, const char *what)
{
    struct dp_dataset_meta *m = &g->meta;
    struct dp_dataset_type *t;
    int s, d;

    if (split_etype(m, name, &s, &d))
        return dp_error(DP_EFORMAT,
                        "'%s': edge type '%s': expected "
                        "\"src:relation:dst\" of known node types",
                        what, name);
    if (dp_dataset_find_etype(m, name) >= 0 &&
        !strcmp(m->etypes[dp_dataset_find_etype(m, name)].name, name))
        return dp_error(DP_EFORMAT, "'%s': edge type '%s' appears twice", what,
                        name);
    t = dp_realloc_array(m->etypes, (size_t)m->num_etypes + 1, sizeof(*t));
    if (!t)
        return DP_ENOMEM;
    m->etypes = t;
    t += m->num_etypes;
    memset(t, 0, sizeof(*t));
    if (!(t->name = dp_strdup(name)))
        return DP_ENOMEM;
    t->src = s;
    t->dst = d;
    t->offset = (int64_t)g->edges.n;
    g->cur_etype = m->num_etypes++;
    g->etype_start = g->edges.n;
    g->end_off[0] = m->ntypes[s].offset;
    g->end_cnt[0] = m->ntypes[s].count;
    g->end_off[1] = m->ntypes[d].offset;
    g->end_cnt[1] = m->ntypes[d].count;
    g->typed = 1;
    return 0;
}

void cv_typed_end_etype(struct cv_graph *g)
{
    g->meta.etypes[g->cur_etype].count = (int64_t)(g->edges.n - g->etype_start);
}

int cv_typed_bad_id(struct cv_graph *g, const char *file, uint64_t line,
                    int col, int64_t id)
{
    const struct dp_dataset_type *et = &g->meta.etypes[g->cur_etype];
    const struct dp_dataset_type *nt =
        &g->meta.ntypes[col == 1 ? et->src : et->dst];

    return dp_error(DP_ERANGE,
                    "'%s' line %" PRIu64 ": %s id %" PRId64
                    " out of range [0, %" PRId64 ") (node type '%s' of edge "
                    "type '%s')",
                    file, line, col == 1 ? "source" : "destination", id,
                    nt->count, nt->name, et->name);
}

/* List the array in meta.json; *out: its path in the folder (owned). */
static int list_data(struct cv_graph *g, int edge, int type, const char *name,
                     char **out)
{
    struct dp_dataset_meta *m = &g->meta;
    struct dp_dataset_data *x = edge ? m->edata : m->ndata, key;
    char *rel, *path;
    int n = edge ? m->num_edata : m->num_ndata, i;

    for (i = 0; i < n; i++)
        if (x[i].type == type && !strcmp(x[i].name, name))
            return dp_error(DP_EFORMAT, "'%s' of %s type '%s' given twice",
                            name, edge ? "edge" : "node",
                            edge ? m->etypes[type].name : m->ntypes[type].name);
    if (!name[0] || strchr(name, '/') || !strcmp(name, ".") ||
        !strcmp(name, ".."))
        return dp_error(DP_EFORMAT, "array name '%s': expected a plain name",
                        name);
    key.type = type;
    key.name = (char *)name;
    rel = dp_dataset_data_path(m, edge, &key);
    path = rel ? cv_graph_path(g, rel) : NULL;
    free(rel);
    x = path ? dp_realloc_array(x, (size_t)n + 1, sizeof(*x)) : NULL;
    if (x)
        *(edge ? &m->edata : &m->ndata) = x;
    if (!x || !(x[n].name = dp_strdup(name))) {
        free(path);
        return DP_ENOMEM;
    }
    x[n].type = type;
    x[n].nchunks = 0;
    x[n].chunks = NULL;
    *(edge ? &m->num_edata : &m->num_ndata) = n + 1;
    *out = path;
    return 0;
}

/* The folder of the array's file. */
static int data_dir(const char *path)
{
    char *dir = dp_path_dirname(path);
    int rc = dir ? dp_mkdir_p(dir, 0755) : DP_ENOMEM;

    free(dir);
    return rc;
}

int cv_typed_data_path(struct cv_graph *g, int edge, int type, const char *name,
                       char **out)
{
    int rc = list_data(g, edge, type, name, out);

    if (!rc && (rc = data_dir(*out))) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* Keep the array in the input's files: their absolute paths go to
 * meta.json (the last array listed). */
static int keep_chunks(struct cv_graph *g, int edge, char *const *files, int n)
{
    struct dp_dataset_data *x = edge ? &g->meta.edata[g->meta.num_edata - 1]
                                     : &g->meta.ndata[g->meta.num_ndata - 1];
    int i;

    if (!(x->chunks = dp_calloc((size_t)n, sizeof(*x->chunks))))
        return DP_ENOMEM;
    for (i = 0; i < n; i++, x->nchunks++)
        if (!(x->chunks[i] = realpath(files[i], NULL)))
            return dp_error(errno == ENOMEM ? DP_ENOMEM : DP_EIO, "'%s': %s",
                            files[i], strerror(errno));
    return 0;
}

int cv_typed_write(struct cv_graph *g, int edge, int type, const char *name,
                   enum dp_dtype dtype, int ndim, const int64_t *shape,
                   const void *data)
{
    char *path;
    int rc = cv_typed_data_path(g, edge, type, name, &path);

    if (rc)
        return rc;
    rc = dp_npy_write(path, dtype, ndim, shape, data);
    free(path);
    return rc;
}

struct rev_src {
    int from;    /* edge type read */
    int reverse; /* its reverse */
};

static const struct dp_dataset_meta *sort_meta;

/* The (src, rel, dst) names of r; rel is written into buf. */
static void rev_names(const struct rev_src *r, const char **n, char *buf,
                      size_t len)
{
    const struct dp_dataset_type *t = &sort_meta->etypes[r->from];
    const struct dp_dataset_type *nt = sort_meta->ntypes;
    const char *r0 = strchr(t->name, ':') + 1, *r1 = strchr(r0, ':');

    snprintf(buf, len, "%.*s%s", (int)(r1 - r0), r0, r->reverse ? "-rev" : "");
    n[0] = nt[r->reverse ? t->dst : t->src].name;
    n[1] = buf;
    n[2] = nt[r->reverse ? t->src : t->dst].name;
}

/* (src, rel, dst) as tuples, as DGL sorts canonical edge types. */
static int cmp_rev(const void *a, const void *b)
{
    const char *nx[3], *ny[3];
    char rx[600], ry[600];
    int i, c;

    rev_names(a, nx, rx, sizeof(rx));
    rev_names(b, ny, ry, sizeof(ry));
    for (i = 0; i < 3; i++)
        if ((c = strcmp(nx[i], ny[i])))
            return c;
    return 0;
}

/* GraphStorm's --add-reverse-edges: each src:rel:dst gets dst:rel-rev:src,
 * then dgl.heterograph orders the canonical types, so the edge store is
 * rebuilt type by type in that order. Edge data is not copied. */
static int add_reverse(struct cv_graph *g)
{
    struct dp_dataset_meta *m = &g->meta;
    int n = m->num_etypes, i, rc = DP_ENOMEM;
    struct rev_src *order = dp_malloc_array((size_t)n * 2, sizeof(*order));
    struct dp_dataset_type *nt = dp_calloc((size_t)n * 2, sizeof(*nt));
    int *newidx = dp_malloc_array((size_t)n, sizeof(*newidx));
    struct cv_edges e;

    memset(&e, 0, sizeof(e));
    if (!order || !nt || !newidx)
        goto out;
    for (i = 0; i < 2 * n; i++) {
        order[i].from = i / 2;
        order[i].reverse = i % 2;
    }
    sort_meta = m;
    qsort(order, (size_t)n * 2, sizeof(*order), cmp_rev);
    e.wide = g->edges.wide;
    e.max_id = g->edges.max_id;
    e.max_line = g->edges.max_line;
    e.spill_dir = g->edges.spill_dir;
    e.spill_at = g->edges.spill_at;
    if (g->edges.n > UINT64_MAX / 2 ||
        (rc = cv_edges_grow(&e, g->edges.n ? g->edges.n * 2 : 1)))
        goto out;
    for (i = 0; i < 2 * n; i++) {
        const struct dp_dataset_type *t = &m->etypes[order[i].from];
        struct dp_dataset_type *x = &nt[i];
        const char *a = strchr(t->name, ':') + 1, *b = strchr(a, ':');
        uint64_t k, lo = (uint64_t)t->offset, hi = lo + (uint64_t)t->count;
        struct dp_buf name;

        dp_buf_init(&name, 0);
        if (order[i].reverse)
            rc = dp_buf_addf(&name, "%s:%.*s-rev:%s", m->ntypes[t->dst].name,
                             (int)(b - a), a, m->ntypes[t->src].name);
        else
            rc = dp_buf_adds(&name, t->name);
        if (rc || !(x->name = dp_buf_detach(&name, NULL))) {
            dp_buf_release(&name);
            rc = DP_ENOMEM;
            goto out;
        }
        if (!order[i].reverse)
            newidx[order[i].from] = i;
        x->src = order[i].reverse ? t->dst : t->src;
        x->dst = order[i].reverse ? t->src : t->dst;
        x->count = t->count;
        x->offset = (int64_t)e.n;
        for (k = lo; k < hi; k++) {
            int64_t s = cv_edges_src(&g->edges, k),
                    d = cv_edges_dst(&g->edges, k);

            if ((rc = order[i].reverse ? cv_edges_push(&e, d, s, 0)
                                       : cv_edges_push(&e, s, d, 0)))
                goto out;
        }
    }
    for (i = 0; i < m->num_edata; i++)
        m->edata[i].type = newidx[m->edata[i].type];
    for (i = 0; i < n; i++)
        free(m->etypes[i].name);
    free(m->etypes);
    m->etypes = nt;
    m->num_etypes = 2 * n;
    nt = NULL;
    e.max_id = g->edges.max_id;
    e.max_line = g->edges.max_line;
    cv_edges_release(&g->edges);
    g->edges = e;
    memset(&e, 0, sizeof(e));
    rc = 0;
out:
    if (nt)
        for (i = 0; i < 2 * n; i++)
            free(nt[i].name);
    free(nt);
    free(order);
    free(newidx);
    cv_edges_release(&e);
    return rc;
}

int cv_typed_finish(struct cv_graph *g)
{
    const struct dp_convert_opts *o = g->o;
    struct dp_dataset_meta *m = &g->meta;
    int64_t n = 0;
    int i, rc;

    if (m->num_ntypes < 1 || m->num_etypes < 1)
        return dp_error(DP_EFORMAT,
                        "'%s': a typed graph needs at least one "
                        "node type and one edge type",
                        o->input);
    /* these renumber or interleave edges across type ranges */
    if (o->undirected || o->dedup || o->no_self_loops)
        return dp_error(DP_EINVAL,
                        "%s does not apply to typed graphs "
                        "(use --add_reverse_edges for reverse edge types)",
                        o->undirected ? "--undirected"
                        : o->dedup    ? "--dedup"
                                      : "--no_self_loops");
    if (o->labels)
        return dp_error(DP_EINVAL, "--labels does not apply to typed graphs");
    for (i = 0; i < m->num_ntypes; i++)
        n += m->ntypes[i].count;
    if (o->num_nodes >= 0 && o->num_nodes != n)
        return dp_error(DP_EINVAL,
                        "--num_nodes %" PRId64 " disagrees with "
                        "the node types of '%s' (%" PRId64 " nodes)",
                        o->num_nodes, o->input, n);
    g->num_nodes = n;
    snprintf(g->nodes_from, sizeof(g->nodes_from), "the node types");
    g->typed = 0;
    if (o->add_reverse_edges && (rc = add_reverse(g)))
        return rc;
    return 0;
}

int cv_typed_check(struct cv_graph *g)
{
    return dp_dataset_set_types(&g->meta, g->o->input);
}

static int add_file_input(struct cv_graph *g, const char *path)
{
    return cv_graph_add_file(g, path);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);

    return a >= b && !strcmp(s + a - b, suf);
}

#define CONV_ITEMS 65536

/* Where a chunk's items go: appended to w, or at item at of f (a file
 * the ranks fill together). */
struct sink {
    struct dp_npy_writer *w;
    struct cv_shared_npy *f;
    uint64_t at;
};

static int sink_put(struct sink *k, const void *p, uint64_t n)
{
    int rc = k->f ? cv_shared_npy_put(k->f, k->at, p, n)
                  : dp_npy_writer_write(k->w, p, n);

    k->at += n;
    return rc;
}

/* Put a's items, as int64 (to 8) or 0/1 bytes (to 1) or as is. */
static int append_items(struct sink *w, const struct dp_npy *a, int to)
{
    size_t sz = dp_dtype_size(a->h.dtype);
    const char *p = a->data;
    uint64_t i, k, m;
    int64_t *buf;
    int rc = 0;

    if (!to)
        return sink_put(w, a->data, a->h.count);
    if (!(buf = dp_malloc_array(CONV_ITEMS, sizeof(*buf))))
        return DP_ENOMEM;
    for (i = 0; !rc && i < a->h.count; i += m) {
        m = a->h.count - i < CONV_ITEMS ? a->h.count - i : CONV_ITEMS;
        for (k = 0; k < m; k++) {
            int64_t v = dp_dtype_get_i64(a->h.dtype, p + (i + k) * sz);

            if (to == 8)
                buf[k] = v;
            else
                ((uint8_t *)buf)[k] = v != 0;
        }
        rc = sink_put(w, buf, m);
    }
    free(buf);
    return rc;
}

int cv_typed_concat(struct cv_graph *g, int edge, int type, const char *name,
                    char *const *files, int n, const int64_t *rows,
                    const char *what)
{
    const struct dp_dataset_type *t =
        edge ? &g->meta.etypes[type] : &g->meta.ntypes[type];
    struct cv_share *sh = g->share;
    struct dp_npy_writer w;
    struct cv_shared_npy f;
    struct sink out = { &w, sh ? &f : NULL, 0 };
    struct dp_npy a;
    enum dp_dtype dt = DP_U8;
    int64_t total = 0, shape[DP_NPY_MAXDIM];
    uint64_t row_items = 1;
    char *path = NULL;
    int rc, i, j, open = 0, to = 0, ndim = 0, keep = 0;

    if ((rc = list_data(g, edge, type, name, &path)))
        return rc;
    for (i = 0; i < n && !rc; i++) {
        /* a rank reads its own chunks, and the first for the array's
         * dtype and shape */
        int mine = !sh || cv_share_data(sh);

        if (!mine && i && rows && rows[i] >= 0) {
            total += rows[i];
            rc = cv_graph_add_input(g, files[i], 0, NULL);
            continue;
        }
        if ((rc = dp_npy_open(&a, files[i]))) {
            if (rc == DP_ENOENT)
                rc = dp_error(rc, "'%s' is missing (%s)", files[i], what);
            break;
        }
        if (a.h.ndim < 1)
            rc = dp_error(DP_EFORMAT,
                          "'%s': expected an array with rows, "
                          "found a scalar",
                          files[i]);
        else if (rows && rows[i] >= 0 && a.h.shape[0] != rows[i])
            rc = dp_error(DP_EFORMAT,
                          "'%s': %" PRId64 " rows, expected %" PRId64
                          " (%s, chunk %d)",
                          files[i], a.h.shape[0], rows[i], what, i);
        else if (a.h.shape[0] > t->count - total)
            rc = dp_error(
                DP_EFORMAT,
                "'%s': more rows than the %" PRId64 " %s of type '%s' (%s)",
                files[i], t->count, edge ? "edges" : "nodes", t->name, what);
        if (!rc && !open && !keep) {
            int mask = ends_with(name, "_mask");
            enum dp_dtype odt;

            dt = a.h.dtype;
            ndim = a.h.ndim;
            memcpy(shape, a.h.shape, sizeof(shape));
            shape[0] = t->count;
            for (j = 1; j < ndim; j++)
                row_items *= (uint64_t)shape[j];
            /* label and masks mean what the homogeneous files mean */
            if (!edge && !strcmp(name, "label") && ndim == 1 &&
                dp_dtype_is_int(dt) && dt != DP_I64)
                to = 8;
            if (!edge && mask && ndim == 1 && dt != DP_U8 &&
                (dp_dtype_is_int(dt) || dt == DP_BOOL))
                to = 1;
            odt = to == 8 ? DP_I64 : to == 1 ? DP_U8 : dt;
            /* what the partitioner reads (label, masks) and what convert
             * changes are copied; the rest is read where it is */
            keep = !(g->o && g->o->copy_data) && !to &&
                   (edge || (strcmp(name, "label") && !mask));
            if (keep)
                rc = keep_chunks(g, edge, files, n);
            else if (!(rc = data_dir(path)))
                rc = sh ? cv_shared_npy_open(&f, path, odt, ndim, shape,
                                             sh->rank == 0)
                        : dp_npy_writer_open(&w, path, odt, ndim, shape);
            open = !rc && !keep;
        } else if (!rc) {
            int same = a.h.dtype == dt && a.h.ndim == ndim;

            for (j = 1; same && j < ndim; j++)
                same = a.h.shape[j] == shape[j];
            if (!same) {
                char d1[128], d2[128];

                shape[0] = -1;
                dp_npy_describe(dt, ndim, shape, d1, sizeof(d1));
                dp_npy_describe(a.h.dtype, a.h.ndim, a.h.shape, d2, sizeof(d2));
                shape[0] = t->count;
                rc = dp_error(DP_EFORMAT,
                              "'%s': expected %s as in the "
                              "first chunk, found %s (%s)",
                              files[i], d1, d2, what);
            }
        }
        out.at = (uint64_t)total * row_items;
        if (!rc && mine && !keep)
            rc = append_items(&out, &a, to);
        total += a.h.shape[0];
        dp_npy_release(&a);
        if (!rc)
            rc = mine ? add_file_input(g, files[i])
                      : cv_graph_add_input(g, files[i], 0, NULL);
    }
    if (!rc && total != t->count)
        rc = dp_error(DP_EFORMAT,
                      "%s: %" PRId64 " rows in all, expected %" PRId64
                      " (one per %s of type '%s')",
                      what, total, t->count, edge ? "edge" : "node", t->name);
    if (open && sh)
        rc = cv_shared_npy_close(&f, rc);
    else if (open)
        rc = rc ? (dp_npy_writer_abort(&w), rc) : dp_npy_writer_commit(&w);
    free(path);
    return rc;
}

int cv_typed_push_ids(struct cv_graph *g, const char *spath, const char *dpath)
{
    struct dp_npy a[2];
    const char *p[2] = { spath, dpath };
    uint64_t k;
    int rc = 0, i;

    memset(a, 0, sizeof(a));
    for (i = 0; i < 2 && !rc; i++) {
        rc = dp_npy_open(&a[i], p[i]);
        if (rc == DP_ENOENT)
            rc = dp_error(rc,
                          "'%s' is missing (edge type '%s' needs src.npy "
                          "and dst.npy)",
                          p[i], g->meta.etypes[g->cur_etype].name);
        if (!rc && (a[i].h.ndim != 1 || !dp_dtype_is_int(a[i].h.dtype)))
            rc = dp_error(DP_EFORMAT,
                          "'%s': expected a one-dimensional "
                          "integer array of node ids",
                          p[i]);
    }
    if (!rc && a[0].h.count != a[1].h.count)
        rc = dp_error(DP_EFORMAT,
                      "'%s' has %" PRIu64 " ids but '%s' has %" PRIu64, spath,
                      a[0].h.count, dpath, a[1].h.count);
    if (!rc && a[0].h.count)
        rc = cv_edges_grow(&g->edges, g->edges.n + a[0].h.count);
    for (k = 0; !rc && k < a[0].h.count; k++) {
        int64_t s = dp_npy_get_i64(&a[0], k), d = dp_npy_get_i64(&a[1], k);

        if (s < 0 || s >= g->end_cnt[0])
            rc = dp_error(DP_ERANGE,
                          "'%s' entry %" PRIu64 ": source id %" PRId64
                          " out of range [0, %" PRId64 ") (node type "
                          "'%s' of edge type '%s')",
                          spath, k, s, g->end_cnt[0],
                          g->meta.ntypes[g->meta.etypes[g->cur_etype].src].name,
                          g->meta.etypes[g->cur_etype].name);
        else if (d < 0 || d >= g->end_cnt[1])
            rc = dp_error(DP_ERANGE,
                          "'%s' entry %" PRIu64 ": destination id "
                          "%" PRId64 " out of range [0, %" PRId64 ") (node "
                          "type '%s' of edge type '%s')",
                          dpath, k, d, g->end_cnt[1],
                          g->meta.ntypes[g->meta.etypes[g->cur_etype].dst].name,
                          g->meta.etypes[g->cur_etype].name);
        else
            rc = cv_edges_push(&g->edges, s + g->end_off[0], d + g->end_off[1],
                               k + 1);
    }
    for (i = 0; i < 2; i++)
        dp_npy_release(&a[i]);
    for (i = 0; i < 2 && !rc; i++)
        rc = add_file_input(g, p[i]);
    return rc;
}
