/* verify --dataset: each part's node and edge data, row by row, against
 * the dataset's arrays through the orig ids. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/error.h"

#include "verify_int.h"

/* A part's entry against a dataset array, row by row. */
struct rows {
    const struct dp_tensor *e;
    const struct dp_npy *d;
    struct dp_rows src; /* d's rows, wherever they are */
    int hint;
    int64_t items; /* values in a row */
    size_t ps, ds; /* item sizes: the part's, the dataset's */
    int same;      /* the rows compare as bytes */
};

/* 1 when entry key of ts can be compared with d, rows values a row and
 * rows rows; else the problem is reported (file: the part's file). */
static int rows_open(struct vwork *w, struct rows *r, const char *file,
                     const struct dp_tensors *ts, const char *key,
                     const struct dp_npy *d, const struct dp_rows *src,
                     int64_t rows)
{
    int j;

    r->e = dp_tensors_find(ts, key);
    r->d = d;
    r->hint = 0;
    if (src)
        r->src = *src;
    else
        dp_rows_of(d, &r->src);
    if (!r->e) {
        vf_problem(w, "%s: lacks '%s', which the dataset has", file, key);
        return 0;
    }
    for (r->items = 1, j = 1; j < d->h.ndim; j++)
        r->items *= d->h.shape[j];
    if (row_items(&r->e->a) != r->items || r->e->a.ndim < 1 ||
        r->e->a.shape[0] != rows) {
        vf_problem(
            w, "%s: '%s' rows hold %" PRId64 " values, the dataset's %" PRId64,
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
static int rows_differ(struct rows *r, int64_t k, int64_t x)
{
    const char *a = (const char *)r->e->a.data + (size_t)(k * r->items) * r->ps;
    const char *b = dp_rows_at(&r->src, x, &r->hint);
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
static void compare_node_rows(struct vwork *w, int i,
                              const struct dp_tensors *nf, const char *key,
                              const struct dp_npy *d, const struct dp_rows *src,
                              const struct byin *ord, size_t nord, int64_t lo,
                              int64_t n, int64_t off, const char *tname)
{
    struct vctx *v = w->v;
    const struct part *p = &v->p[i];
    struct tally t = { 0 };
    int64_t dropped = 0, k, x;
    struct rows r;
    size_t q;

    if (!rows_open(w, &r, v->cfg.node_feats[i], nf, key, d, src, n))
        return;
    for (q = 0; q < nord; q++) {
        if (ord[q].row < lo || ord[q].row >= lo + n)
            continue;
        k = ord[q].row - lo;
        x = ord[q].in - off;
        if (x < 0 || x >= d->h.shape[0]) {
            vf_tally(&t,
                     "'%s' row %" PRId64 " (node %" PRId64
                     ", input node %" PRId64 ") is no '%s' node of the dataset",
                     key, k, p->start + ord[q].row, ord[q].in,
                     tname ? tname : "_N");
            continue;
        }
        if (rows_differ(&r, k, x) && tname)
            vf_tally(&t,
                     "'%s' row %" PRId64 " (node %" PRId64
                     ", input '%s' node %" PRId64 ") differs from the dataset",
                     key, k, p->start + ord[q].row, tname, x);
        else if (!tname && rows_differ(&r, k, x))
            vf_tally(&t,
                     "'%s' row %" PRId64 " (node %" PRId64
                     ", input node %" PRId64 ") differs from the dataset",
                     key, k, p->start + ord[q].row, x);
        /* the part's rows are read out of order: let both go together */
        if ((x - dropped) * r.items * (int64_t)r.ds > SWEEP_DROP) {
            dp_map_drop(&d->map);
            dp_rows_drop(&r.src);
            dp_map_drop(&nf->map);
            dropped = x;
        }
    }
    vf_flush(w, &t, v->cfg.node_feats[i]);
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

static void compare_features(struct vwork *w, int i,
                             const struct dp_tensors *nf,
                             const struct byin *ord, size_t nord)
{
    struct vctx *v = w->v;
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
            struct dp_rows src;

            dp_dataset_rows(&v->d, 0, f, &src);
            compare_node_rows(w, i, nf, key, &v->d.ndata[f], &src, ord, nord,
                              lo, n, t->offset, t->name);
        }
        return;
    }
    type_rows(v, i, 0, 0, &lo, &n);
    for (f = 0; f < 5; f++) {
        if (!arrs[f]->data)
            continue;
        part_key(key, sizeof(key), nf, &v->ren, "_N", names[f]);
        compare_node_rows(w, i, nf, key, arrs[f], NULL, ord, nord, lo, n, 0,
                          NULL);
    }
}

/* Rows of one edge entry against the dataset array, in the part's order
 * (edges of a type are not in input order): the entry holds the part's
 * inner edges [lo, lo + n), input edge x is row x - off of the array.
 * oe: the part's orig_eids, or NULL for DGL's top-level one. */
static void compare_edge_rows(struct vwork *w, int i,
                              const struct dp_tensors *ef, const char *key,
                              const struct dp_npy *d, const struct dp_rows *src,
                              const struct ids *oe, int64_t lo, int64_t n,
                              int64_t off, const char *tname)
{
    struct vctx *v = w->v;
    const struct part *p = &v->p[i];
    struct tally t = { 0 };
    int64_t k, e, in, x, since = 0;
    struct rows r;

    if (!rows_open(w, &r, v->cfg.edge_feats[i], ef, key, d, src, n))
        return;
    for (k = 0; k < n; k++) {
        e = p->estart + lo + k;
        in = oe ? ids_get(oe, lo + k)
                : dp_npy_get_i64(&v->oeid_npy, (uint64_t)e);
        x = in - off;
        if (in < 0 || x < 0 || x >= d->h.shape[0])
            vf_tally(&t,
                     "'%s' row %" PRId64 " (edge %" PRId64
                     ", input edge %" PRId64 ") is no '%s' edge of the dataset",
                     key, k, e, in, tname ? tname : "_N:_E:_N");
        else if (tname && rows_differ(&r, k, x))
            vf_tally(&t,
                     "'%s' row %" PRId64 " (edge %" PRId64
                     ", input '%s' edge %" PRId64 ") differs from the dataset",
                     key, k, e, tname, x);
        else if (!tname && rows_differ(&r, k, x))
            vf_tally(&t,
                     "'%s' row %" PRId64 " (edge %" PRId64
                     ", input edge %" PRId64 ") differs from the dataset",
                     key, k, e, x);
        /* rows in random input order: a page at least each */
        since +=
            r.items * (int64_t)r.ds > 4096 ? r.items * (int64_t)r.ds : 4096;
        if (since > SWEEP_DROP) {
            dp_map_drop(&d->map);
            dp_rows_drop(&r.src);
            dp_map_drop(&ef->map);
            dp_map_drop(&v->oeid_npy.map);
            since = 0;
        }
    }
    vf_flush(w, &t, v->cfg.edge_feats[i]);
}

static void compare_edge_data(struct vwork *w, int i,
                              const struct dp_tensors *ef, const struct ids *oe)
{
    struct vctx *v = w->v;
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
        compare_edge_rows(w, i, ef, key, &v->d.edge_weight, NULL, oe, lo, n, 0,
                          NULL);
        return;
    }
    for (f = 0; v->ds_typed && f < m->num_edata; f++) {
        const struct dp_dataset_type *t = &m->etypes[m->edata[f].type];

        snprintf(key, sizeof(key), "%s/%s", t->name,
                 dp_rename_apply(&v->eren, m->edata[f].name));
        type_rows(v, i, 1, m->edata[f].type, &lo, &n);
        struct dp_rows src;

        dp_dataset_rows(&v->d, 1, f, &src);
        compare_edge_rows(w, i, ef, key, &v->d.edata[f], &src, oe, lo, n,
                          t->offset, t->name);
    }
}

/* Part i's node (edge) data file against the dataset, when it has any. */
int vf_compare_data(struct vwork *w, int i, int edge, const struct byin *ord,
                    size_t nord, const struct ids *oe)
{
    struct vctx *v = w->v;
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
            compare_edge_data(w, i, &ts, oe);
        else
            compare_features(w, i, &ts, ord, nord);
        dp_tensors_release(&ts);
    }
    free(path);
    return 0;
}
