/* The part writers: each part's graph.dgl, its node and edge data
 * gathered row by row from the dataset in shuffled order, and its orig
 * ids, two parts at a time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/progress.h"
#include "phases.h"

char *part_path(const struct part_job *j, int p, const char *file)
{
    char rel[64], *dir, *path;

    snprintf(rel, sizeof(rel), "part%d", p);
    dir = dp_path_join(j->tmp, rel);
    if (!dir || !file)
        return dir;
    path = dp_path_join(dir, file);
    free(dir);
    return path;
}

/* Rows gathered through an index, streamed in blocks of about 4 MiB. */
struct gather {
    const struct part_job *c;
    int p;
    int edges; /* rows are the part's inner edges, else its inner nodes */
    int type;  /* typed: rows of this node / edge type only; -1: all */
};

/* First shuffled id and row count of g's rows; the input ids of type rows
 * start at *base (what per-type arrays and orig ids are indexed from). */
static int64_t gather_rows(const struct gather *g, int64_t *first,
                           int64_t *base)
{
    const struct part_job *c = g->c;
    const int64_t *st;
    int64_t k;

    *base = 0;
    if (g->type < 0) {
        *first = g->edges ? c->sh->estart[g->p] : c->sh->nstart[g->p];
        return g->edges ? c->sh->estart[g->p + 1] - *first
                        : c->sh->nstart[g->p + 1] - *first;
    }
    st = g->edges ? c->sh->etstart : c->sh->tstart;
    k = (int64_t)g->p * (g->edges ? c->sh->ET : c->sh->T) + g->type;
    *first = st[k];
    *base = g->edges ? c->d->meta.etypes[g->type].offset
                     : c->d->meta.ntypes[g->type].offset;
    return st[k + 1] - st[k];
}

/* Input row of the r-th inner node or edge of the part, for r walking
 * forward from 0 (edges keep a cursor on the destination). */
struct cursor {
    int64_t v, k; /* edges: current shuffled destination and CSC entry */
    int64_t r;
};

static int64_t cursor_next(const struct gather *g, struct cursor *cur,
                           int64_t first)
{
    const struct part_job *c = g->c;

    if (!g->edges)
        return dp_ids_get(&c->sh->orig, (size_t)(first + cur->r++));
    if (c->sh->K == 1)
        return first + cur->r++;
    for (;;) {
        int64_t old = dp_ids_get(&c->sh->orig, (size_t)(cur->v));

        while (cur->k < c->sh->ip[old + 1] - c->sh->ip[old]) {
            int64_t k = c->sh->ip[old] + cur->k++;
            /* with no eids.npy (untyped, unweighted), the only column
             * gathered by edge is the trainer id, by destination */
            int64_t x = c->d->eids.data ? dp_dataset_eid(c->d, k) : -1;

            if (g->type < 0 || dp_dataset_etype_of(c->d, x) == g->type) {
                cur->r++;
                return x;
            }
        }
        cur->v++;
        cur->k = 0;
    }
}

/* One entry: for each inner row, row bytes of src at its input id; with
 * fine, the trainer id instead (fine_by_dst: the edge's destination's);
 * with neither, the input id itself (orig ids). */
static int gather_entry(struct dp_tensor_writer *w, const struct gather *g,
                        const char *name, enum dp_dtype dtype, int ndim,
                        const int64_t *shape1, const struct dp_rows *src,
                        size_t row, const int32_t *fine, int fine_by_dst)
{
    const struct part_job *c = g->c;
    int64_t first, base, rows = gather_rows(g, &first, &base);
    int64_t shape[DP_NPY_MAXDIM], r;
    size_t blk = (4u << 20) / row + 1, nb = 0;
    char *buf = NULL;
    struct cursor cur = { c->sh->nstart[g->p], 0, 0 };
    int rc, i, hint = 0;

    shape[0] = rows;
    for (i = 1; i < ndim; i++)
        shape[i] = shape1[i];
    rc = dp_tensor_writer_begin(w, name, dtype, ndim, shape);
    if (rc)
        return rc;
    buf = dp_malloc(blk * row);
    if (!buf)
        return DP_ENOMEM;
    for (r = 0; r < rows; r++) {
        int64_t x = cursor_next(g, &cur, first);

        if (fine) {
            /* trainer ids: a node's own, an edge's destination's */
            int64_t t =
                fine[fine_by_dst ? dp_ids_get(&c->sh->orig, (size_t)(cur.v))
                                 : x];

            memcpy(buf + nb * row, &t, sizeof(t));
        } else if (src) {
            memcpy(buf + nb * row, dp_rows_at(src, x - base, &hint), row);
        } else {
            x -= base;
            memcpy(buf + nb * row, &x, sizeof(x));
        }
        if (++nb == blk) {
            if ((rc = dp_tensor_writer_write(w, buf, nb * row)) ||
                (rc = dp_check_interrupt()))
                goto out;
            nb = 0;
        }
    }
    if (nb && (rc = dp_tensor_writer_write(w, buf, nb * row)))
        goto out;
    rc = dp_tensor_writer_end(w);
out:
    free(buf);
    return rc;
}

/* Rows at p, row bytes each (memory or a mapped file). */
#define RAW(p, rb) (&(struct dp_rows){ (rb), (const char *)(p), NULL })

/* Per-type array i under "<prefix>/<name>": the rows of the part's inner
 * nodes or edges of type type (-1: of all), in shuffled id order. */
static int write_data(const struct part_job *c, struct dp_tensor_writer *w,
                      int p, int edges, int type, const char *prefix,
                      const char *name, int i)
{
    struct gather g = { c, p, edges, type };
    const struct dp_npy *a = edges ? &c->d->edata[i] : &c->d->ndata[i];
    struct dp_rows rows;
    size_t row;
    char key[512];

    dp_dataset_rows(c->d, edges, i, &rows);
    row = rows.rb;
    if (!row)
        return dp_error(DP_EUNSUPPORTED, "'%s': %s data '%s' has empty rows",
                        c->d->dir, prefix, name);
    return gather_entry(w, &g,
                        names_key(key, sizeof(key), prefix,
                                  edges ? &c->nm->eren : &c->nm->nren, name),
                        a->h.dtype, a->h.ndim, a->h.shape, &rows, row, NULL, 0);
}

/* Typed data: "<ntype>/<name>" per node type (DGL's keys), "<src:rel:dst>/
 * <name>" per edge type, rows of the part's inner nodes or edges of that
 * type in shuffled id order; trainer_id for every type. */
static int write_feats_typed(const struct part_job *c, int p, int edges)
{
    const struct dp_dataset *d = c->d;
    const struct dp_dataset_meta *m = &d->meta;
    const struct dp_rename *r = edges ? &c->nm->eren : &c->nm->nren;
    int nd = edges ? m->num_edata : m->num_ndata,
        nt = edges ? c->sh->ET : c->sh->T;
    const struct dp_dataset_data *x = edges ? m->edata : m->ndata;
    struct dp_tensor_writer w;
    char *path = part_path(c, p, edges ? "edge_feat.dgl" : "node_feat.dgl");
    int64_t one[1] = { 0 }, *tid = NULL;
    const int32_t *fine = NULL;
    const void *src = NULL;
    char key[512];
    int i, t, rc;

    if (!path)
        return DP_ENOMEM;
    rc = dp_tensor_writer_open(&w, path,
                               (uint64_t)nd + (c->fine ? (uint64_t)nt : 0));
    free(path);
    if (rc)
        return rc;
    for (i = 0; !rc && i < nd; i++)
        rc = write_data(c, &w, p, edges, x[i].type,
                        (edges ? m->etypes : m->ntypes)[x[i].type].name,
                        x[i].name, i);
    if (!rc && c->fine && edges && c->sh->K == 1) {
        /* standalone: edges keep input ids, so index by input edge id */
        int64_t v, k;

        tid = dp_malloc_array((size_t)c->sh->e + 1, sizeof(*tid));
        if (!tid)
            rc = DP_ENOMEM;
        for (v = 0; tid && v < c->sh->n; v++)
            for (k = c->sh->ip[v]; k < c->sh->ip[v + 1]; k++)
                tid[dp_dataset_eid(c->d, k)] = c->fine[v];
    } else if (c->fine) {
        fine = c->fine;
    }
    for (t = 0; !rc && c->fine && t < nt; t++) {
        const char *tn = (edges ? m->etypes : m->ntypes)[t].name;
        struct gather g = { c, p, edges, t };

        if (tid)
            src = tid + m->etypes[t].offset;
        rc = gather_entry(
            &w, &g, names_key(key, sizeof(key), tn, r, "trainer_id"), DP_I64, 1,
            one, src ? RAW(src, 8) : NULL, 8, fine, edges);
    }
    free(tid);
    if (!rc)
        return dp_tensor_writer_commit(&w);
    dp_tensor_writer_abort(&w);
    return rc;
}

/* Typed orig ids: one entry per type keyed by its name, the input id
 * within the type of every inner node / edge of it (dispatch_data). */
static int write_orig_typed(const struct part_job *c, int p, int edges)
{
    const struct dp_dataset_meta *m = &c->d->meta;
    int nt = edges ? c->sh->ET : c->sh->T, t, rc;
    struct dp_tensor_writer w;
    char *path = part_path(c, p, edges ? "orig_eids.dgl" : "orig_nids.dgl");
    int64_t one[1] = { 0 };

    if (!path)
        return DP_ENOMEM;
    rc = dp_tensor_writer_open(&w, path, (uint64_t)nt);
    free(path);
    for (t = 0; !rc && t < nt; t++) {
        struct gather g = { c, p, edges, t };

        rc = gather_entry(&w, &g, (edges ? m->etypes : m->ntypes)[t].name,
                          DP_I64, 1, one, NULL, 8, NULL, 0);
    }
    if (rc) {
        dp_tensor_writer_abort(&w);
        return rc;
    }
    return dp_tensor_writer_commit(&w);
}

static int write_node_feats(const struct part_job *c, int p)
{
    const struct dp_dataset *d = c->d;
    const struct dp_rename *r = &c->nm->nren;
    struct dp_tensor_writer w;
    struct gather g = { c, p, 0, -1 };
    char *path = part_path(c, p, "node_feat.dgl");
    uint64_t count = 0;
    int64_t one[1] = { 0 };
    char k[256];
    int rc, i;

    if (c->sh->T) {
        free(path);
        return write_feats_typed(c, p, 0);
    }
    if (!path)
        return DP_ENOMEM;
    count = (d->feat.data != NULL) + (d->label.data != NULL) +
            (d->train_mask.data != NULL) + (d->val_mask.data != NULL) +
            (d->test_mask.data != NULL) + (c->fine != NULL) +
            (uint64_t)d->meta.num_ndata;
    rc = dp_tensor_writer_open(&w, path, count);
    free(path);
    if (rc)
        return rc;
    if (d->feat.data)
        rc = gather_entry(&w, &g, names_key(k, sizeof(k), "_N", r, "feat"),
                          DP_F32, 2, d->feat.h.shape,
                          RAW(d->feat.data, (size_t)d->meta.feat_dim * 4),
                          (size_t)d->meta.feat_dim * 4, NULL, 0);
    if (!rc && d->label.data)
        rc = gather_entry(&w, &g, names_key(k, sizeof(k), "_N", r, "label"),
                          DP_I64, 1, one, RAW(d->label.data, 8), 8, NULL, 0);
    if (!rc && d->train_mask.data)
        rc =
            gather_entry(&w, &g, names_key(k, sizeof(k), "_N", r, "train_mask"),
                         DP_U8, 1, one, RAW(d->train_mask.data, 1), 1, NULL, 0);
    if (!rc && d->val_mask.data)
        rc = gather_entry(&w, &g, names_key(k, sizeof(k), "_N", r, "val_mask"),
                          DP_U8, 1, one, RAW(d->val_mask.data, 1), 1, NULL, 0);
    if (!rc && d->test_mask.data)
        rc = gather_entry(&w, &g, names_key(k, sizeof(k), "_N", r, "test_mask"),
                          DP_U8, 1, one, RAW(d->test_mask.data, 1), 1, NULL, 0);
    for (i = 0; !rc && i < d->meta.num_ndata; i++)
        rc = write_data(c, &w, p, 0, -1, "_N", d->meta.ndata[i].name, i);
    if (!rc && c->fine)
        rc =
            gather_entry(&w, &g, names_key(k, sizeof(k), "_N", r, "trainer_id"),
                         DP_I64, 1, one, NULL, 8, c->fine, 0);
    if (!rc)
        return dp_tensor_writer_commit(&w);
    dp_tensor_writer_abort(&w);
    return rc;
}

static int write_edge_feats(const struct part_job *c, int p)
{
    const struct dp_dataset *d = c->d;
    struct dp_tensor_writer w;
    struct gather g = { c, p, 1, -1 };
    char *path = part_path(c, p, "edge_feat.dgl");
    int64_t one[1] = { 0 };
    char key[256];
    int rc, i;

    if (c->sh->T) {
        free(path);
        return write_feats_typed(c, p, 1);
    }
    if (!path)
        return DP_ENOMEM;
    rc = dp_tensor_writer_open(&w, path,
                               (d->edge_weight.data != NULL) +
                                   (c->fine != NULL) +
                                   (uint64_t)d->meta.num_edata);
    free(path);
    if (rc)
        return rc;
    if (d->edge_weight.data)
        rc = gather_entry(
            &w, &g,
            names_key(key, sizeof(key), DP_ETYPE_HOM, &c->nm->eren, "weight"),
            DP_I64, 1, one, RAW(d->edge_weight.data, 8), 8, NULL, 0);
    for (i = 0; !rc && i < d->meta.num_edata; i++)
        rc =
            write_data(c, &w, p, 1, -1, DP_ETYPE_HOM, d->meta.edata[i].name, i);
    if (!rc && c->fine && c->sh->K > 1)
        rc = gather_entry(&w, &g,
                          names_key(key, sizeof(key), DP_ETYPE_HOM,
                                    &c->nm->eren, "trainer_id"),
                          DP_I64, 1, one, NULL, 8, c->fine, 1);
    if (!rc && c->fine && c->sh->K == 1) {
        /* standalone: edges keep input ids, so index by input edge id */
        int64_t *t = dp_malloc_array((size_t)c->sh->e + 1, sizeof(*t)), v, k;

        if (!t) {
            rc = DP_ENOMEM;
        } else {
            for (v = 0; v < c->sh->n; v++)
                for (k = c->sh->ip[v]; k < c->sh->ip[v + 1]; k++)
                    t[dp_dataset_eid(c->d, k)] = c->fine[v];
            rc = gather_entry(&w, &g,
                              names_key(key, sizeof(key), DP_ETYPE_HOM,
                                        &c->nm->eren, "trainer_id"),
                              DP_I64, 1, one, RAW(t, 8), 8, NULL, 0);
            free(t);
        }
    }
    if (!rc)
        return dp_tensor_writer_commit(&w);
    dp_tensor_writer_abort(&w);
    return rc;
}

/* The input id of every inner node / edge (dispatch_data's layout). */
static int write_orig_ids(const struct part_job *c, int p)
{
    struct dp_tensor_writer w;
    struct gather gn = { c, p, 0, -1 }, ge = { c, p, 1, -1 };
    char *path;
    int64_t one[1] = { 0 };
    int rc;

    if (c->sh->T) {
        rc = write_orig_typed(c, p, 0);
        return rc || c->o->no_orig_eids ? rc : write_orig_typed(c, p, 1);
    }
    path = part_path(c, p, "orig_nids.dgl");
    rc = path ? dp_tensor_writer_open(&w, path, 1) : DP_ENOMEM;
    free(path);
    if (!rc) {
        rc = gather_entry(&w, &gn, DP_ORIG_NIDS_KEY, DP_I64, 1, one, NULL, 8,
                          NULL, 0);
        rc =
            rc ? (dp_tensor_writer_abort(&w), rc) : dp_tensor_writer_commit(&w);
    }
    if (!rc && !c->o->no_orig_eids) {
        path = part_path(c, p, "orig_eids.dgl");
        rc = path ? dp_tensor_writer_open(&w, path, 1) : DP_ENOMEM;
        free(path);
        if (!rc) {
            rc = gather_entry(&w, &ge, DP_ORIG_EIDS_KEY, DP_I64, 1, one, NULL,
                              8, NULL, 0);
            rc = rc ? (dp_tensor_writer_abort(&w), rc)
                    : dp_tensor_writer_commit(&w);
        }
    }
    return rc;
}

/* Parts are built and written by PART_THREADS workers, part p by worker
 * p % PART_THREADS: each holds one part's arrays and its own id map, so
 * memory stays a small multiple of one part while the disk and the CPU
 * overlap. */
#define PART_THREADS 2

/* The parts written so far, shared by the writer threads. */
struct parts_bar {
    pthread_mutex_t mu;
    struct dp_progress bar;
    uint64_t done;
};

struct worker {
    const struct part_job *c;
    struct part_stats *ps;
    struct parts_bar *pb;
    int first;
    int rc;
    char msg[512];
    pthread_t tid;
};

static int write_part(const struct part_job *c, int p, void *lid,
                      struct part_stats *ps)
{
    struct local *l = NULL;
    char *dir = part_path(c, p, NULL), *path = NULL;
    double t1 = dp_now();
    int rc;

    if (!dir)
        return DP_ENOMEM;
    rc = dp_mkdir_p(dir, 0777);
    free(dir);
    if (rc || (rc = local_build(c, p, lid, &l)))
        return rc;
    if (!(path = part_path(c, p, "graph.dgl")))
        rc = DP_ENOMEM;
    else
        rc = local_write_graph(l, path, ps);
    free(path);
    local_free(l);
    if (rc || (rc = write_node_feats(c, p)) || (rc = write_edge_feats(c, p)) ||
        (!c->o->no_orig_ids && (rc = write_orig_ids(c, p))))
        return rc;
    if (dp_verbose) {
        char label[32];

        snprintf(label, sizeof(label), "part %d", p);
        dp_timer_report(label, t1);
    }
    return 0;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const struct part_job *c = w->c;
    void *lid = NULL;
    int p;

    if (c->sh->K > 1) {
        /* int32 below 2^31 nodes, as struct local reads it; all ones is
         * -1 in either width */
        size_t width = c->sh->n > INT32_MAX ? 8 : 4;

        lid = dp_malloc_array((size_t)c->sh->n + 1, width);
        if (!lid) {
            w->rc = DP_ENOMEM;
            goto out;
        }
        memset(lid, 0xff, ((size_t)c->sh->n + 1) * width);
    }
    for (p = w->first; p < c->sh->K && !w->rc; p += PART_THREADS) {
        if (!(w->rc = dp_check_interrupt()))
            w->rc = write_part(c, p, lid, &w->ps[p]);
        pthread_mutex_lock(&w->pb->mu);
        dp_progress_update(&w->pb->bar, ++w->pb->done);
        pthread_mutex_unlock(&w->pb->mu);
    }
out:
    if (w->rc)
        snprintf(w->msg, sizeof(w->msg), "%s", dp_errmsg());
    free(lid);
    return NULL;
}

int phase_write_parts(const struct part_job *c, struct part_stats *ps)
{
    struct worker w[PART_THREADS];
    struct parts_bar pb = { PTHREAD_MUTEX_INITIALIZER, { 0 }, 0 };
    int i, nw = c->sh->K < PART_THREADS ? c->sh->K : PART_THREADS, started = 0;

    memset(w, 0, sizeof(w));
    dp_progress_start(&pb.bar, "writing parts", (uint64_t)c->sh->K, 0);
    for (i = 0; i < nw; i++) {
        w[i].c = c;
        w[i].ps = ps;
        w[i].pb = &pb;
        w[i].first = i;
        if (i > 0 && pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
            w[i].rc = dp_error(DP_ENOMEM, "cannot start a thread");
            break;
        }
        started = i + 1;
    }
    worker_main(&w[0]);
    for (i = 1; i < started; i++)
        pthread_join(w[i].tid, NULL);
    dp_progress_end(&pb.bar);
    for (i = 0; i < nw; i++)
        if (w[i].rc)
            return dp_error(w[i].rc, "%s", w[i].msg);
    return 0;
}
