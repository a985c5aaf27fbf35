/* METIS k-way assignment through Debian's libmetis 5.1 (32-bit idx_t): the
 * vertex weights DGL builds, the symmetrised graph METIS needs, and the one
 * place where 64-bit ids are narrowed to idx_t, checked. */
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include <metis.h>

#include "cgraph.h"
#include "dglpart/buf.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/memory.h"
#include "dglpart/parse.h"
#include "dglpart/partition.h"
#include "dglpart/progress.h"
#include "dglpart/thread.h"
#include "ml.h"

/* Weights and part ids are handed to METIS without copies. */
_Static_assert(sizeof(idx_t) == sizeof(int32_t),
               "dglpart expects Debian's 32-bit idx_t");

#define MAXCON                                                                 \
    ((int)(sizeof(((struct dp_vweights *)0)->names) / sizeof(char *)))

void dp_vweights_release(struct dp_vweights *vw)
{
    if (!vw)
        return;
    free(vw->w);
    memset(vw, 0, sizeof(*vw));
}

/* Column builders: value of column c for node v. */
enum col_kind {
    COL_ONES,
    COL_MASK,
    COL_INDEG,
    COL_INDEG_MASK,
    COL_USER,
    COL_CLASS,
    COL_INDEG_CLASS
};

struct col {
    enum col_kind kind;
    int value; /* mask value (COL_*MASK) or balance class (COL_*CLASS) */
    int index; /* node_weight column for COL_USER */
    const char *name;
};

static int64_t col_value(const struct dp_dataset *d, const uint8_t *cls,
                         const struct col *c, int64_t v)
{
    const int64_t *ip = dp_dataset_indptr(d);
    const uint8_t *mask = d->train_mask.data;

    switch (c->kind) {
    case COL_ONES:
        return 1;
    case COL_MASK:
        return (mask[v] != 0) == c->value;
    case COL_INDEG:
        return ip[v + 1] - ip[v];
    case COL_INDEG_MASK:
        return (mask[v] != 0) == c->value ? ip[v + 1] - ip[v] : 0;
    case COL_USER:
        return (
            (const int64_t *)d->node_weight.data)[v * d->meta.ncon + c->index];
    case COL_CLASS:
        return cls[v] == c->value;
    case COL_INDEG_CLASS:
        return cls[v] == c->value ? ip[v + 1] - ip[v] : 0;
    }
    return 0;
}

static const char *user_names[] = { "weight[0]",  "weight[1]",  "weight[2]",
                                    "weight[3]",  "weight[4]",  "weight[5]",
                                    "weight[6]",  "weight[7]",  "weight[8]",
                                    "weight[9]",  "weight[10]", "weight[11]",
                                    "weight[12]", "weight[13]", "weight[14]",
                                    "weight[15]" };

/* The node type whose train_mask --balance_train balances: the one named,
 * else the only type that has one. */
static int train_type(const struct dp_dataset *d, const char *name, int *out)
{
    int t, found = -1;

    if (name) {
        t = dp_dataset_find_ntype(&d->meta, name);
        if (t < 0)
            return dp_error(DP_EINVAL,
                            "--balance_ntypes '%s': '%s' has no such node "
                            "type",
                            name, d->dir);
        if (!dp_dataset_ndata(d, t, "train_mask"))
            return dp_error(DP_EINVAL,
                            "--balance_ntypes '%s': '%s' has no "
                            "ndata/%s/train_mask.npy",
                            name, d->dir, name);
        *out = t;
        return 0;
    }
    for (t = 0; t < d->meta.num_ntypes; t++) {
        if (!dp_dataset_ndata(d, t, "train_mask"))
            continue;
        if (found >= 0)
            return dp_error(DP_EINVAL,
                            "'%s': node types '%s' and '%s' both have a "
                            "train_mask: name one with --balance_ntypes",
                            d->dir, d->meta.ntypes[found].name,
                            d->meta.ntypes[t].name);
        found = t;
    }
    if (found < 0)
        return dp_error(DP_EINVAL,
                        "'%s' has no node type with a train_mask: "
                        "--balance_train needs one",
                        d->dir);
    *out = found;
    return 0;
}

/* DGL's balance classes of a heterograph (reference/dgl.md 1a): types in
 * order, the train type's mask values (those present) one class each,
 * every other type one class. cls[n] gets each node's class; the columns
 * are one per class, and with balance_edges the in-degree per class. */
static int typed_cols(const struct dp_dataset *d, int balance_train,
                      int balance_edges, const char *train_name,
                      struct dp_vweights *vw, uint8_t **clsp, struct col *cols,
                      int *ncol)
{
    int tt = -1, t, k, nclass = 0, base[2];
    uint8_t *cls;
    char label[2 * MAXCON][48];
    int64_t v;

    if (balance_train && (k = train_type(d, train_name, &tt)))
        return k;
    cls = dp_malloc_array((size_t)d->meta.num_nodes + 1, 1);
    if (!cls)
        return DP_ENOMEM;
    for (t = 0; t < d->meta.num_ntypes; t++) {
        const struct dp_dataset_type *ty = &d->meta.ntypes[t];

        if (nclass + 2 > MAXCON) {
            free(cls);
            return dp_error(DP_EUNSUPPORTED,
                            "'%s': %d node types give more than %d balance "
                            "constraints",
                            d->dir, d->meta.num_ntypes, MAXCON);
        }
        if (t == tt) {
            const struct dp_npy *m = dp_dataset_ndata(d, t, "train_mask");
            int has[2] = { 0, 0 };

            for (v = 0; v < ty->count; v++)
                has[dp_npy_get_i64(m, (uint64_t)v) != 0] = 1;
            for (k = 0; k < 2; k++) {
                base[k] = has[k] ? nclass : -1;
                if (has[k])
                    snprintf(label[nclass++], sizeof(label[0]), "%s %s nodes",
                             ty->name, k ? "train" : "non-train");
            }
            for (v = 0; v < ty->count; v++)
                cls[ty->offset + v] =
                    (uint8_t)base[dp_npy_get_i64(m, (uint64_t)v) != 0];
        } else {
            snprintf(label[nclass], sizeof(label[0]), "%s nodes", ty->name);
            for (v = 0; v < ty->count; v++)
                cls[ty->offset + v] = (uint8_t)nclass;
            nclass++;
        }
    }
    for (k = 0; k < nclass; k++) {
        snprintf(vw->namebuf[*ncol], sizeof(vw->namebuf[0]), "%.47s", label[k]);
        cols[*ncol] = (struct col){ COL_CLASS, k, 0, vw->namebuf[*ncol] };
        (*ncol)++;
    }
    for (k = 0; balance_edges && k < nclass; k++) {
        if (*ncol >= MAXCON)
            break; /* dropped zero columns may still fit; checked below */
        snprintf(vw->namebuf[*ncol], sizeof(vw->namebuf[0]),
                 "in-edges of %.47s", label[k]);
        cols[*ncol] = (struct col){ COL_INDEG_CLASS, k, 0, vw->namebuf[*ncol] };
        (*ncol)++;
    }
    if (balance_edges && *ncol < 2 * nclass) {
        free(cls);
        return dp_error(DP_EUNSUPPORTED, "more than %d balance constraints",
                        MAXCON);
    }
    *clsp = cls;
    return 0;
}

/* Add the dataset's own node_weight columns to cols, drop the columns that
 * sum to zero and fill vw. Takes cls (freed here). */
static int finish_cols(const struct dp_dataset *d, uint8_t *cls,
                       struct col *cols, int ncol, struct dp_vweights *vw)
{
    struct col keep[MAXCON];
    int64_t n = d->meta.num_nodes, v, i, total;
    int nkeep = 0, c;
    int32_t *w;

    if (d->meta.ncon > MAXCON) {
        free(cls);
        return dp_error(DP_EUNSUPPORTED,
                        "'%s/node_weight.npy': %" PRId64
                        " weight columns, at most %d supported",
                        d->dir, d->meta.ncon, MAXCON);
    }
    for (i = 0; i < d->meta.ncon; i++)
        cols[ncol++] = (struct col){ COL_USER, 0, (int)i, user_names[i] };
    /* A column that sums to zero gives METIS a division by zero. */
    for (c = 0; c < ncol; c++) {
        total = 0;
        for (v = 0; v < n; v++) {
            int64_t x = col_value(d, cls, &cols[c], v);

            if (x < 0) {
                free(cls);
                return dp_error(DP_ERANGE,
                                "'%s': negative vertex weight %" PRId64
                                " for node %" PRId64 " (%s)",
                                d->dir, x, v, cols[c].name);
            }
            /* x comes from the input (METIS vertex weights reach 2^63):
             * check before adding */
            if (x > INT32_MAX - total) {
                free(cls);
                return dp_error(DP_ETOOBIG,
                                "'%s': the %s weights add up to "
                                "more than %d, too large for METIS's 32-bit "
                                "idx_t",
                                d->dir, cols[c].name, INT32_MAX);
            }
            total += x;
        }
        if (total > 0) {
            if (nkeep == MAXCON) {
                free(cls);
                return dp_error(DP_EUNSUPPORTED,
                                "more than %d balance "
                                "constraints",
                                MAXCON);
            }
            keep[nkeep++] = cols[c];
        }
    }
    if (nkeep == 0 || (nkeep == 1 && (keep[0].kind == COL_ONES ||
                                      keep[0].kind == COL_CLASS))) {
        free(cls);
        vw->ncon = 1;
        vw->names[0] = "nodes";
        return 0;
    }
    w = dp_malloc_array((size_t)n * (size_t)nkeep, sizeof(*w));
    if (!w) {
        free(cls);
        return DP_ENOMEM;
    }
    for (v = 0; v < n; v++)
        for (c = 0; c < nkeep; c++)
            w[v * nkeep + c] = (int32_t)col_value(d, cls, &keep[c], v);
    free(cls);
    vw->ncon = nkeep;
    vw->w = w;
    for (c = 0; c < nkeep; c++)
        vw->names[c] = keep[c].name;
    return 0;
}

int dp_vweights_build(const struct dp_dataset *d, int balance_train,
                      int balance_edges, const char *train_ntype,
                      struct dp_vweights *vw)
{
    struct col cols[2 * MAXCON + MAXCON];
    int64_t n = d->meta.num_nodes, v;
    int ncol = 0, has[2] = { 0, 0 }, rc;
    uint8_t *cls = NULL;

    memset(vw, 0, sizeof(*vw));
    if (d->meta.num_ntypes) {
        rc = typed_cols(d, balance_train || train_ntype, balance_edges,
                        train_ntype, vw, &cls, cols, &ncol);
        if (rc)
            return rc;
        balance_train = balance_edges = 0;
    } else if (train_ntype) {
        return dp_error(DP_EINVAL,
                        "--balance_ntypes '%s': '%s' has no node types "
                        "(use --balance_train)",
                        train_ntype, d->dir);
    }
    if (balance_train && !d->train_mask.data)
        return dp_error(DP_EINVAL,
                        "'%s' has no train_mask.npy: "
                        "--balance_train needs one",
                        d->dir);
    if (balance_train)
        for (v = 0; v < n && !(has[0] && has[1]); v++)
            has[((const uint8_t *)d->train_mask.data)[v] != 0] = 1;
    /* DGL: one 0/1 column per distinct mask value; balance_edges alone
     * gives only in-degree, so we add the node count DGL loses. */
    if (balance_edges && !balance_train)
        cols[ncol++] = (struct col){ COL_ONES, 0, 0, "nodes" };
    if (balance_train) {
        if (has[0])
            cols[ncol++] = (struct col){ COL_MASK, 0, 0, "non-train nodes" };
        if (has[1])
            cols[ncol++] = (struct col){ COL_MASK, 1, 0, "train nodes" };
    }
    if (balance_edges && !balance_train)
        cols[ncol++] = (struct col){ COL_INDEG, 0, 0, "in-edges" };
    if (balance_edges && balance_train) {
        if (has[0])
            cols[ncol++] = (struct col){ COL_INDEG_MASK, 0, 0,
                                         "in-edges of non-train nodes" };
        if (has[1])
            cols[ncol++] =
                (struct col){ COL_INDEG_MASK, 1, 0, "in-edges of train nodes" };
    }
    return finish_cols(d, cls, cols, ncol, vw);
}

int dp_vweights_classes(const struct dp_dataset *d, const int32_t *cls32,
                        int nclass, int balance_edges, struct dp_vweights *vw)
{
    struct col cols[2 * MAXCON + MAXCON];
    int64_t n = d->meta.num_nodes, v;
    uint8_t *cls;
    int k, ncol = 0;

    memset(vw, 0, sizeof(*vw));
    if (nclass < 1 || nclass * (balance_edges ? 2 : 1) > MAXCON)
        return dp_error(DP_EUNSUPPORTED,
                        "%d balance classes%s: at most %d constraints", nclass,
                        balance_edges ? " with balance_edges" : "", MAXCON);
    if (!(cls = dp_malloc_array((size_t)n + 1, 1)))
        return DP_ENOMEM;
    for (v = 0; v < n; v++) {
        if (cls32[v] < 0 || cls32[v] >= nclass) {
            free(cls);
            return dp_error(DP_ERANGE,
                            "'%s': balance class %d of node %" PRId64
                            " out of range [0, %d)",
                            d->dir, (int)cls32[v], v, nclass);
        }
        cls[v] = (uint8_t)cls32[v];
    }
    for (k = 0; k < nclass; k++) {
        snprintf(vw->namebuf[ncol], sizeof(vw->namebuf[0]), "class %d nodes",
                 k);
        cols[ncol] = (struct col){ COL_CLASS, k, 0, vw->namebuf[ncol] };
        ncol++;
    }
    for (k = 0; balance_edges && k < nclass; k++) {
        snprintf(vw->namebuf[ncol], sizeof(vw->namebuf[0]),
                 "in-edges of class %d", k);
        cols[ncol] = (struct col){ COL_INDEG_CLASS, k, 0, vw->namebuf[ncol] };
        ncol++;
    }
    return finish_cols(d, cls, cols, ncol, vw);
}

/* The symmetric adjacency METIS wants: u-v and v-u for every input edge,
 * without self-loops and without repeats. Node ids fit idx_t; the offsets
 * are 64-bit (a billion edges give more than 2^31 entries), narrowed in
 * place to xadj32 only for METIS on the whole graph, checked. */
struct symgraph {
    idx_t n;
    int64_t *xadj; /* NULL once narrowed */
    idx_t *xadj32; /* the same block as idx_t, once narrowed */
    idx_t *adj;
    idx_t *adjwgt;         /* NULL: METIS makes its own ones */
    int xadj_out, adj_out; /* those arrays are in spill, not malloc'd */
    struct dp_spill spill; /* scratch file (fd -1: none) */
};

static void sym_release(struct symgraph *g)
{
    if (!g->xadj_out) {
        free(g->xadj);
        free(g->xadj32);
    }
    if (!g->adj_out)
        free(g->adj);
    if (g->spill.fd >= 0)
        dp_spill_close(&g->spill);
    memset(g, 0, sizeof(*g));
    g->spill.fd = -1;
}

/* Adjacency entries of g. */
static int64_t sym_entries(const struct symgraph *g)
{
    return g->xadj ? g->xadj[g->n] : g->xadj32[g->n];
}

/* Narrow xadj to idx_t for METIS, in place: entry v's 4 bytes land where
 * entries below v were, already read, so no second array is needed. */
static int sym_narrow(struct symgraph *g)
{
    int64_t m = g->xadj[g->n], v;
    char *b = (char *)g->xadj;
    idx_t *p;

    if (m > ml_idx_max())
        return dp_error(DP_ETOOBIG,
                        "graph too large for METIS's 32-bit idx_t: "
                        "%" PRId64 " adjacency entries after symmetrising "
                        "(at most %" PRId64 "; Debian's libmetis 5.1 is "
                        "32-bit): use --metis_mode multilevel",
                        m, ml_idx_max());
    for (v = 0; v <= g->n; v++) {
        idx_t x = (idx_t)g->xadj[v];

        memcpy(b + (size_t)v * sizeof(x), &x, sizeof(x));
    }
    /* only a shrink: a failure keeps the larger block, no error */
    p = realloc(b, ((size_t)g->n + 1) * sizeof(*p));
    g->xadj32 = p ? p : (idx_t *)(void *)b;
    g->xadj = NULL;
    return 0;
}

/* A copy of src in sp, its pages given back as written when give. */
static const void *spill_copy(struct dp_spill *sp, void *src, size_t bytes,
                              int give)
{
    return give ? dp_spill_copy_give(sp, src, bytes)
                : dp_spill_copy(sp, src, bytes);
}

/* METIS reads its finest graph at the first level of coarsening and at the
 * last of refinement, not in between, when its own memory peaks: move the
 * graph (and, for the edge cut, unit edge weights) into a scratch file in
 * dir, whose pages a watcher drops while METIS allocates. Where that cannot
 * be done, the graph stays in memory as before. */
static void sym_spill(struct symgraph *g, const char *dir, int cut)
{
    size_t m = (size_t)sym_entries(g);
    size_t xbytes =
        ((size_t)g->n + 1) * (g->xadj ? sizeof(*g->xadj) : sizeof(*g->xadj32));
    const void *xadj = NULL;
    const idx_t *adj = NULL, *w = NULL;
    double t0 = dp_now();

    if (!dir)
        return;
    /* adj may be there already (sym_build): all or nothing for the rest,
     * the last copy's pages given back as written (a failure before it
     * leaves the graph in memory as it was) */
    if ((g->adj_out || dp_spill_open(&g->spill, dir) == 0) &&
        (xadj = spill_copy(&g->spill,
                           g->xadj ? (void *)g->xadj : (void *)g->xadj32,
                           xbytes, g->adj_out && !cut)) &&
        (g->adj_out ||
         (adj = spill_copy(&g->spill, g->adj, m * sizeof(idx_t), !cut))) &&
        (!cut || (w = dp_spill_fill32(&g->spill, 1, m)))) {
        free(g->xadj);
        free(g->xadj32);
        /* read-only mappings: METIS does not write its input (0-based) */
        if (g->xadj)
            g->xadj = (int64_t *)(uintptr_t)xadj;
        else
            g->xadj32 = (idx_t *)(uintptr_t)xadj;
        if (!g->adj_out) {
            free(g->adj);
            g->adj = (idx_t *)(uintptr_t)adj;
        }
        g->adjwgt = (idx_t *)(uintptr_t)w;
        g->xadj_out = g->adj_out = 1;
        if (dp_verbose) {
            char sz[32], what[80];

            dp_fmt_bytes(g->spill.bytes, sz, sizeof(sz));
            snprintf(what, sizeof(what), "METIS input to a scratch file (%s)",
                     sz);
            dp_timer_report(what, t0);
        }
        return;
    }
    if (dp_verbose)
        fprintf(stderr, "%s: METIS input stays in memory: %s\n", dp_progname(),
                dp_errmsg());
    if (!g->adj_out)
        dp_spill_close(&g->spill);
}

/* Row v of the symmetric graph is v's in-neighbours in CSC order, then
 * its out-neighbours in ascending order (DGL's gk_csr_MakeSymmetric order:
 * own entries, then the transposed ones), then repeats are dropped. The
 * rows are made a band at a time in a buffer: two threads each sweep half
 * of the CSC for the band's transposed entries, then each drops the
 * repeats of half of the band's rows. Kept entries go to adj, or with
 * pwrite to the scratch file, whose pages then never count in this
 * process; in memory the whole graph is one band. */
struct sym_job {
    const struct dp_dataset *d;
    const int64_t *ip;
    int64_t c0, c1; /* this thread's CSC columns */
    /* pass 1: out-degrees from own columns; then per row, own transposed
     * entries still to place, counted back from the row's end */
    int32_t *left;
    int64_t *xadj; /* raw row offsets; a band's rows made relative */
    int64_t a, b;  /* the band's rows, its entries at buf[xadj - base] */
    int64_t base;
    idx_t *buf;
    int64_t v0, v1;      /* own rows of the band */
    int64_t end;         /* raw offset after own rows */
    idx_t *set;          /* own [setcap] repeats' hash set, all -1 */
    int64_t kept;        /* entries kept in own rows */
    const int32_t *perm; /* row of each node (NULL: its own id) */
    /* pass 2 with perm and several bands: each entry's source already in
     * perm's order (read, not looked up in perm at random each band);
     * pass 5 writes them at rows into the scratch file rls */
    const int32_t *rows;
    struct dp_spill *rls;
    size_t rls_off;
    int32_t *rbuf; /* pass 5's buffer of SYM_ROWS_BUF entries */
    int pass, err;
    /* pass 4: own kept entries, from buf + from, to the file at off */
    struct dp_spill *spill;
    size_t off;
    int64_t from;
    int rc;
    char msg[256];
    double busy[6]; /* each pass's seconds on this thread, summed */
};

/* The sweep prefetches the places of the sources SYM_AHEAD_PM entries
 * ahead, and what sits at those places SYM_AHEAD entries ahead. */
#define SYM_AHEAD 16
#define SYM_AHEAD_PM 32

/* The columns' sweep: their pages leave behind it. */
struct sym_sweep {
    struct dp_behind bh, bp, br;
    int64_t at;
    size_t w;
};

static void sweep_at(struct sym_sweep *sw, const struct sym_job *j, int64_t v)
{
    dp_behind_at(&sw->bh, (size_t)(j->ip[v + 1] - sw->at) * sw->w);
    dp_behind_at(&sw->br, (size_t)(j->ip[v + 1] - sw->at) * sizeof(int32_t));
    dp_behind_at(&sw->bp, (size_t)(v - j->c0) * sizeof(*j->ip));
}

/* Pass 1: each row's in-neighbours (self-loops aside) and each column's
 * out-entries. */
static void sym_count(struct sym_job *j, struct sym_sweep *sw)
{
    int64_t v, k, last = j->ip[j->c1] - SYM_AHEAD;

    for (v = j->c0; v < j->c1; v++) {
        int64_t in = 0;

        for (k = j->ip[v]; k < j->ip[v + 1]; k++) {
            int64_t u = dp_dataset_src(j->d, k);

            /* the sources are in no order */
            if (k < last)
                __builtin_prefetch(
                    &j->left[dp_dataset_src(j->d, k + SYM_AHEAD)], 1);
            if (u != v) {
                in++;
                if (++j->left[u] == INT32_MAX)
                    j->err = 1;
            }
        }
        j->xadj[v] = in; /* row v's in-neighbours, for now */
        sweep_at(sw, j, v);
    }
}

/* Entries of the sources' rows a pass 5 writes at a time. */
#define SYM_ROWS_BUF ((size_t)1 << 20)

/* Pass 5: the row of each entry's source, in entry order, to the file
 * (which is what pass 2 would look up in perm at random, every band). */
static void sym_rows_write(struct sym_job *j, struct sym_sweep *sw)
{
    const struct dp_dataset *d = j->d;
    const int32_t *pm = j->perm;
    int64_t k0 = j->ip[j->c0], k1 = j->ip[j->c1], last = k1 - SYM_AHEAD_PM, k;
    size_t nb = 0;

    for (k = k0; k < k1 && !j->rc; k++) {
        if (k < last)
            __builtin_prefetch(&pm[dp_dataset_src(d, k + SYM_AHEAD_PM)]);
        j->rbuf[nb++] = pm[dp_dataset_src(d, k)];
        if (nb == SYM_ROWS_BUF || k + 1 == k1) {
            j->rc = dp_spill_write(
                j->rls, j->rls_off + (size_t)(k + 1 - (int64_t)nb) * 4, j->rbuf,
                nb * 4);
            nb = 0;
            dp_behind_at(&sw->bh, (size_t)(k + 1 - k0) * sw->w);
        }
    }
    if (j->rc)
        snprintf(j->msg, sizeof(j->msg), "%s", dp_errmsg());
}

/* Pass 2 with the sources' rows at hand (sym_rows_write): the same
 * entries in the same places as sym_fill_perm, read in order. */
static void sym_fill_rows(struct sym_job *j, struct sym_sweep *sw)
{
    const int64_t *ip = j->ip;
    const int32_t *rows = j->rows;
    uint64_t span = (uint64_t)(j->b - j->a);
    int64_t last = ip[j->c1] - SYM_AHEAD, v, k;

    for (v = j->c0; v < j->c1; v++) {
        int64_t r = j->perm[v], o = j->xadj[r] - j->base;
        int own = (uint64_t)(r - j->a) < span;

        for (k = ip[v]; k < ip[v + 1]; k++) {
            int64_t ru = rows[k];

            /* ahead, the places of entries into the band (prefetches of
             * the others' would cost reads of lines nothing uses) */
            if (k < last) {
                int64_t f = rows[k + SYM_AHEAD];

                if ((uint64_t)(f - j->a) < span) {
                    __builtin_prefetch(&j->xadj[f + 1]);
                    __builtin_prefetch(&j->left[f]);
                }
            }
            if (ru == r) /* a self-loop */
                continue;
            if (own)
                j->buf[o++] = (idx_t)ru;
            if ((uint64_t)(ru - j->a) < span)
                j->buf[j->xadj[ru + 1] - j->base - j->left[ru]--] = (idx_t)r;
        }
        sweep_at(sw, j, v);
    }
}

/* Pass 2, rows in perm's order: a band's own entries are scattered over
 * the columns too, so both kinds come from the one sweep; each column's
 * own entries are its row's first. */
static void sym_fill_perm(struct sym_job *j, struct sym_sweep *sw)
{
    const struct dp_dataset *d = j->d;
    const int64_t *ip = j->ip;
    const int32_t *pm = j->perm;
    uint64_t span = (uint64_t)(j->b - j->a);
    int64_t last = ip[j->c1] - SYM_AHEAD_PM, v, k;

    for (v = j->c0; v < j->c1; v++) {
        int64_t r = pm[v], o = j->xadj[r] - j->base;
        int own = (uint64_t)(r - j->a) < span;

        for (k = ip[v]; k < ip[v + 1]; k++) {
            int64_t u = dp_dataset_src(d, k), ru;

            /* the sources are in no order: fetch their places two steps
             * ahead, then what sits at those places */
            if (k < last) {
                int64_t f = pm[dp_dataset_src(d, k + SYM_AHEAD)];

                __builtin_prefetch(&pm[dp_dataset_src(d, k + SYM_AHEAD_PM)]);
                __builtin_prefetch(&j->xadj[f + 1]);
                __builtin_prefetch(&j->left[f]);
            }
            if (u == v)
                continue;
            ru = pm[u];
            if (own)
                j->buf[o++] = (idx_t)ru;
            if ((uint64_t)(ru - j->a) < span)
                j->buf[j->xadj[ru + 1] - j->base - j->left[ru]--] = (idx_t)r;
        }
        sweep_at(sw, j, v);
    }
}

/* Pass 2 in id order: the band's rows' own entries, then the columns'
 * entries into the band. */
static void sym_fill_ids(struct sym_job *j, struct sym_sweep *sw, int mapped)
{
    const struct dp_dataset *d = j->d;
    const int64_t *ip = j->ip;
    uint64_t span = (uint64_t)(j->b - j->a);
    struct dp_behind bi;
    int64_t v, k;

    dp_behind_init(&bi,
                   mapped ? (const char *)d->indices.data +
                                (size_t)ip[j->v0] * sw->w
                          : NULL,
                   (size_t)(ip[j->v1] - ip[j->v0]) * sw->w);
    for (v = j->v0; v < j->v1; v++) {
        int64_t o = j->xadj[v] - j->base;

        for (k = ip[v]; k < ip[v + 1]; k++)
            if (dp_dataset_src(d, k) != v)
                j->buf[o++] = (idx_t)dp_dataset_src(d, k);
        dp_behind_at(&bi, (size_t)(ip[v + 1] - ip[j->v0]) * sw->w);
    }
    dp_behind_end(&bi);
    for (v = j->c0; v < j->c1; v++) {
        for (k = ip[v]; k < ip[v + 1]; k++) {
            int64_t u = dp_dataset_src(d, k);

            if ((uint64_t)(u - j->a) < span && u != v)
                j->buf[j->xadj[u + 1] - j->base - j->left[u]--] = (idx_t)v;
        }
        sweep_at(sw, j, v);
    }
}

/* Pass 3: repeats out of the thread's rows, kept entries packed. A row's
 * ids go through a hash set of at least twice its length, emptied after
 * it: an array of n marks a thread took 1 GB at rmat 27 and a cache miss
 * an entry. Sorting each row instead (radix from 256 entries), so that
 * the finest level's compressed copy need not, cost rmat 27's symmetrise
 * about what it saved the copy (135.3 s against 97.1-116.0; the copy 19.0
 * s against 46.1). */
static void sym_dedup(struct sym_job *j)
{
    int64_t s, o, first, e, v, k;

    if (j->v0 >= j->v1) {
        j->kept = 0; /* xadj[v0] may be the other half's */
        return;
    }
    s = o = first = j->xadj[j->v0] - j->base;
    for (v = j->v0; v < j->v1; v++) {
        uint32_t bits, shift, mask;

        /* the other half rewrites its first offset */
        e = (v + 1 == j->v1 ? j->end : j->xadj[v + 1]) - j->base;
        j->xadj[v] = o - first;
        if (e - s < 2) { /* nothing to repeat */
            if (e > s)
                j->buf[o++] = j->buf[s];
            s = e;
            continue;
        }
        bits = ml_table_bits(e - s);
        shift = 32 - bits;
        mask = ((uint32_t)1 << bits) - 1;
        for (k = s; k < e; k++) {
            idx_t x = j->buf[k];
            uint32_t h = ml_table_slot(x, shift);

            while (j->set[h] >= 0 && j->set[h] != x)
                h = (h + 1) & mask;
            if (j->set[h] < 0) {
                j->set[h] = x;
                j->buf[o++] = x;
            }
        }
        memset(j->set, 0xff, ((size_t)mask + 1) * sizeof(*j->set));
        s = e;
    }
    j->kept = o - first;
}

static void sym_work(struct sym_job *j)
{
    const struct dp_dataset *d = j->d;
    struct sym_sweep sw;
    int mapped = d->indices.map.data && d->indptr.map.data &&
                 (j->pass < 3 || j->pass == 5);

    if (j->pass == 4) {
        /* both halves copied into the page cache at once: on one thread
         * the copy was a fifth of rmat 21's symmetrise. buf's pages go
         * as they are written, for the page cache to take: fresh ones
         * cost a fault in the host each on this VM, and the next band's
         * fill takes them on two threads where the copy takes them
         * under the file's lock (rmat 25 in three bands: 23.7-24.0 s
         * against 25.6-26.0 s giving the last band's alone) */
        j->rc = dp_spill_write_give(j->spill, j->off, j->buf + j->from,
                                    (size_t)j->kept * sizeof(idx_t));
        if (j->rc)
            snprintf(j->msg, sizeof(j->msg), "%s", dp_errmsg());
        return;
    }
    sw.w = d->meta.ids32 ? 4 : 8;
    sw.at = j->ip[j->c0];
    /* a sweep of the sources' rows reads no source */
    dp_behind_init(&sw.bh,
                   mapped && !(j->pass == 2 && j->rows)
                       ? (const char *)d->indices.data + (size_t)sw.at * sw.w
                       : NULL,
                   (size_t)(j->ip[j->c1] - sw.at) * sw.w);
    dp_behind_init(&sw.br, j->pass == 2 && j->rows ? j->rows + sw.at : NULL,
                   (size_t)(j->ip[j->c1] - sw.at) * sizeof(int32_t));
    dp_behind_init(&sw.bp, mapped ? j->ip + j->c0 : NULL,
                   (size_t)(j->c1 - j->c0 + 1) * sizeof(*j->ip));
    if (j->pass == 1)
        sym_count(j, &sw);
    else if (j->pass == 5)
        sym_rows_write(j, &sw);
    else if (j->pass == 2 && j->rows)
        sym_fill_rows(j, &sw);
    else if (j->pass == 2 && j->perm)
        sym_fill_perm(j, &sw);
    else if (j->pass == 2)
        sym_fill_ids(j, &sw, mapped);
    else
        sym_dedup(j);
    dp_behind_end(&sw.bh);
    dp_behind_end(&sw.bp);
    dp_behind_end(&sw.br);
}

static void *sym_pass(void *arg)
{
    struct sym_job *j = arg;
    double t0 = dp_now();

    sym_work(j);
    j->busy[j->pass] += dp_now() - t0;
    return NULL;
}

/* Run pass p of both jobs, the second on a thread when one starts. */
static void sym_run(struct sym_job *jb, int p)
{
    jb[0].pass = jb[1].pass = p;
    dp_run_pair(sym_pass, &jb[0], &jb[1], 1);
}

/* Bands when the graph goes to a file: the given number, or fewer so
 * that each has 2^24 entries or more, each band costing a sweep of the
 * CSC (DGLPART_TEST_SYM_BAND: entries a band, for tests of many bands on
 * small graphs). */
static int64_t sym_nbands(int64_t total, int bands)
{
    int64_t min = (int64_t)1 << 24, x = 0;

    dp_env_int("DGLPART_TEST_SYM_BAND", &x);
    if (x <= 0 && total / bands > min)
        return bands;
    if (x <= 0)
        x = min;
    return total > x ? (total + x - 1) / x : 1;
}

/* A scratch file in dir for adj when it would go there anyway, total
 * entries of room at *off (a hole until written); 0 when that cannot be
 * done, and adj stays in memory. */
static int sym_adj_file(struct symgraph *g, const char *dir, int64_t total,
                        size_t *off)
{
    size_t bytes = (total ? (size_t)total : 1) * sizeof(idx_t);

    if (!dir || dp_spill_open(&g->spill, dir))
        return 0;
    if ((*off = dp_spill_room(&g->spill, bytes)) == (size_t)-1) {
        dp_spill_close(&g->spill);
        return 0;
    }
    return 1;
}

/* The first row r in [a, b] with xadj[r] >= x (xadj[b] >= x). */
static int64_t sym_find(const int64_t *xadj, int64_t a, int64_t b, int64_t x)
{
    while (a < b) {
        int64_t mid = a + (b - a) / 2;

        if (xadj[mid] >= x)
            b = mid;
        else
            a = mid + 1;
    }
    return a;
}

/* The first row of band k of nb: bands split the total entries evenly at
 * row bounds, so each is at most a share and a row. A greedy fill of
 * shares left rmat 21's largest hub alone in a third band, which cost a
 * third sweep of the CSC (0.22 s of 3.2 s). */
static int64_t sym_band_start(const int64_t *xadj, int64_t n, int64_t total,
                              int64_t nb, int64_t k)
{
    if (k >= nb)
        return n;
    return sym_find(xadj, 0, n,
                    k * (total / nb) + (k < total % nb ? k : total % nb));
}

/* A copy of n rows of width bytes (and room for one more) moved by perm:
 * row perm[v] of the copy is row v (scatter), or row v is row perm[v]
 * (gather). Every row moves on its own, so the random accesses overlap;
 * in place, a cycle at a time, each waits for the one before (on rmat 23
 * three such permutations of n cost 2 s). NULL when out of memory. */
static void *permuted(const void *a, size_t width, const int32_t *perm,
                      int64_t n, int gather)
{
    char *b = dp_malloc_array((size_t)n + 1, width);
    const char *p = a;
    int64_t v;

    if (!b)
        return NULL;
    if (width == 4 && gather)
        for (v = 0; v < n; v++)
            ((int32_t *)(void *)b)[v] = ((const int32_t *)a)[perm[v]];
    else if (width == 4)
        for (v = 0; v < n; v++)
            ((int32_t *)(void *)b)[perm[v]] = ((const int32_t *)a)[v];
    else if (width == 8 && !gather)
        for (v = 0; v < n; v++)
            ((int64_t *)(void *)b)[perm[v]] = ((const int64_t *)a)[v];
    else
        for (v = 0; v < n; v++)
            memcpy(b + (size_t)(gather ? v : perm[v]) * width,
                   p + (size_t)(gather ? perm[v] : v) * width, width);
    return b;
}

/* Degrees below this each have a place of their own in the order; above
 * it, a power of two does. */
#define ORDER_EXACT 65536

/* The multilevel path's node order: ascending degree, ties in id order.
 * Label propagation, contraction and refinement read per-node arrays at
 * the neighbours' ids; on power-law graphs with ids in no useful order
 * (rmat's are scrambled) those reads go all over arrays that outgrow the
 * caches, while in this order most of them land on the few hubs packed at
 * the end. On rmat 23 that took the multilevel step from 64 to 43 s, for
 * the same cut; a descending order was as fast but cut 0.2% more (low
 * degrees first is also the visiting order size-constrained label
 * propagation prefers). perm[v] is v's place; size[v] its degree. */
static int32_t *sym_order(const int64_t *size, int64_t n)
{
    int64_t *cnt = dp_calloc(ORDER_EXACT + 65, sizeof(*cnt)), v, b, at = 0;
    int32_t *perm = dp_malloc_array((size_t)n + 1, sizeof(*perm));

    if (!cnt || !perm) {
        free(cnt);
        free(perm);
        return NULL;
    }
#define ORDER_KEY(x)                                                           \
    ((x) < ORDER_EXACT ? (x)                                                   \
                       : ORDER_EXACT + 47 - __builtin_clzll((uint64_t)(x)))
    for (v = 0; v < n; v++)
        cnt[ORDER_KEY(size[v])]++;
    for (b = 0; b < ORDER_EXACT + 65; b++) {
        int64_t c = cnt[b];

        cnt[b] = at;
        at += c;
    }
    for (v = 0; v < n; v++)
        perm[v] = (int32_t)cnt[ORDER_KEY(size[v])]++;
#undef ORDER_KEY
    free(cnt);
    return perm;
}

/* The multilevel path's order is off (DGLPART_TEST_NO_ORDER=1): for tests
 * and before/after benchmarks. */
static int order_off(void)
{
    int off = 0;

    dp_env_bool("DGLPART_TEST_NO_ORDER", &off);
    return off;
}

/* The symmetric graph of d, in a scratch file in dir from spill_min
 * entries, made in that many bands. With perm, its rows and ids go in
 * *perm's order (sym_order's, made here when *perm is NULL and the graph
 * has at least order_min entries before repeats are dropped; else none). */
/* What the steps of sym_build share. */
struct sym_state {
    const struct dp_dataset *d;
    const int64_t *ip;
    int64_t n;
    int32_t *left0, *left1; /* each thread's out-entries a row */
    idx_t *set0, *set1;     /* each thread's hash set for repeats */
    int64_t maxrow;         /* the most entries a row has, repeats too */
    idx_t *buf;             /* a band's entries (in memory: adj itself) */
    struct dp_spill rls;    /* the sources' rows (sym_rows_write) */
    struct sym_job jb[2];
    int file; /* adj is built in a scratch file, at off */
    size_t off;
    int64_t out; /* entries kept so far */
};

static void sym_state_release(struct sym_state *st)
{
    free(st->left0);
    free(st->left1);
    free(st->set0);
    free(st->set1);
    free(st->buf);
    free(st->jb[0].rbuf);
    free(st->jb[1].rbuf);
    dp_spill_close(&st->rls);
}

/* With several bands in perm's order, each entry's source row written
 * once to a scratch file in dir (4 bytes an entry of the CSC, gone when
 * the bands are), for every band's sweep to read in order instead of
 * looking each up in perm at random: rmat 25's symmetrise in three bands
 * took 21.6-26.1 s against 27.9-38.1 s (four pairs in turn). Without that
 * file the bands look them up. */
static void sym_rows_file(struct sym_state *st, const char *dir)
{
    struct sym_job *jb = st->jb;
    size_t bytes = (size_t)st->ip[st->n] * sizeof(int32_t), off;
    double t0 = dp_now();
    int k, off_ = 0;

    dp_env_bool("DGLPART_TEST_SYM_NO_ROWS", &off_);
    if (off_ || !jb[0].perm || !bytes || dp_spill_open(&st->rls, dir))
        return;
    if ((off = dp_spill_room(&st->rls, bytes)) == (size_t)-1)
        goto fail;
    for (k = 0; k < 2; k++) {
        jb[k].rls = &st->rls;
        jb[k].rls_off = off;
        jb[k].rc = 0;
        if (!jb[k].rbuf &&
            !(jb[k].rbuf = dp_malloc_array(SYM_ROWS_BUF, sizeof(int32_t))))
            goto fail;
    }
    sym_run(jb, 5);
    for (k = 0; k < 2; k++)
        if (jb[k].rc) {
            dp_error(jb[k].rc, "%s", jb[k].msg);
            goto fail;
        }
    if (!(jb[0].rows = jb[1].rows = dp_spill_map(&st->rls, off, bytes)))
        goto fail;
    for (k = 0; k < 2; k++) {
        free(jb[k].rbuf);
        jb[k].rbuf = NULL;
    }
    if (dp_verbose)
        dp_timer_report("symmetrise: the sources' rows written", t0);
    return;
fail:
    dp_log(DP_LOG_V, "symmetrise: each band looks up its sources' rows: %s",
           dp_errmsg());
    dp_spill_close(&st->rls);
}

/* Row sizes into g->xadj (in *perm's order when one is made: rows of
 * ascending degree), then their offsets; *maxrow the largest. */
static int sym_rows(struct sym_state *st, struct symgraph *g, int32_t **perm,
                    int64_t order_min, int64_t *maxrow)
{
    int64_t n = st->n, v, total = 0, h = sym_find(st->ip, 0, n, st->ip[n] / 2);
    struct sym_job *jb = st->jb;

    /* the threads' columns: half of the entries each */
    memset(jb, 0, 2 * sizeof(*jb));
    jb[0] = (struct sym_job){ .d = st->d,
                              .ip = st->ip,
                              .c0 = 0,
                              .c1 = h,
                              .left = st->left0,
                              .xadj = g->xadj };
    jb[1] = (struct sym_job){ .d = st->d,
                              .ip = st->ip,
                              .c0 = h,
                              .c1 = n,
                              .left = st->left1,
                              .xadj = g->xadj };
    sym_run(jb, 1);
    /* row v: in-neighbours but self-loops, then out-neighbours; left0
     * becomes the whole out-degree, placed by thread 0 first */
    for (v = 0; v < n; v++) {
        if ((int64_t)st->left0[v] + st->left1[v] >= INT32_MAX)
            jb[0].err = 1;
        st->left0[v] += st->left1[v];
        g->xadj[v] += st->left0[v];
        total += g->xadj[v];
    }
    if (jb[0].err || jb[1].err)
        return dp_error(DP_ETOOBIG,
                        "'%s': a node with %d or more out-edges, too many "
                        "for METIS's 32-bit idx_t",
                        st->d->dir, INT32_MAX);
    if (perm && !*perm && total >= order_min && !order_off() &&
        !(*perm = sym_order(g->xadj, n)))
        return DP_ENOMEM;
    if (perm && *perm) {
        /* the row sizes and the counts into the new order: the counts
         * are then read where the rows are, mostly at the hubs */
        int64_t *x = permuted(g->xadj, sizeof(*x), *perm, n, 0);
        int32_t *l0 = permuted(st->left0, sizeof(*l0), *perm, n, 0);
        int32_t *l1 = permuted(st->left1, sizeof(*l1), *perm, n, 0);

        if (!x || !l0 || !l1) {
            free(x);
            free(l0);
            free(l1);
            return DP_ENOMEM;
        }
        free(g->xadj);
        free(st->left0);
        free(st->left1);
        g->xadj = jb[0].xadj = jb[1].xadj = x;
        st->left0 = jb[0].left = l0;
        st->left1 = jb[1].left = l1;
        jb[0].perm = jb[1].perm = *perm;
        dp_log(DP_LOG_V, "symmetrise: rows in ascending degree order");
    }
    for (total = 0, v = 0; v < n; v++) {
        int64_t size = g->xadj[v];

        g->xadj[v] = total;
        total += size;
        if (size > *maxrow)
            *maxrow = size;
    }
    g->xadj[n] = total;
    return 0;
}

/* One band of rows [a, b): the two threads fill their halves, repeats
 * and self-loops go, and the kept entries are put at st->out. */
static int sym_band_rows(struct sym_state *st, struct symgraph *g, int64_t a,
                         int64_t b)
{
    struct sym_job *jb = st->jb;
    idx_t *bb = st->file ? st->buf : g->adj + g->xadj[a];
    int64_t base = g->xadj[a], v, kept0, end0;
    int64_t m = sym_find(g->xadj, a, b, base + (g->xadj[b] - base) / 2);
    int k, rc;

    end0 = g->xadj[m];
    for (k = 0; k < 2; k++) {
        jb[k].a = a;
        jb[k].b = b;
        jb[k].base = base;
        jb[k].buf = bb;
    }
    jb[0].v0 = a;
    jb[0].v1 = jb[1].v0 = m;
    jb[1].v1 = b;
    jb[0].end = end0;
    jb[1].end = g->xadj[b];
    sym_run(jb, 2);
    if (!st->set0) {
        size_t cap = (size_t)1 << ml_table_bits(st->maxrow);

        /* one band in memory: the counts are done with before */
        if (!st->file) {
            free(st->left0);
            free(st->left1);
            st->left0 = st->left1 = NULL;
        }
        if (!(st->set0 = dp_malloc_array(cap, sizeof(idx_t))) ||
            !(st->set1 = dp_malloc_array(cap, sizeof(idx_t))))
            return DP_ENOMEM;
        memset(st->set0, 0xff, cap * sizeof(idx_t));
        memset(st->set1, 0xff, cap * sizeof(idx_t));
        jb[0].set = st->set0;
        jb[1].set = st->set1;
    }
    sym_run(jb, 3);
    kept0 = jb[0].kept;
    if (st->file) {
        jb[0].spill = jb[1].spill = &g->spill;
        jb[0].off = st->off + (size_t)st->out * 4;
        jb[0].from = 0;
        jb[1].off = st->off + (size_t)(st->out + kept0) * 4;
        jb[1].from = end0 - base;
        sym_run(jb, 4);
        for (k = 0; k < 2; k++)
            if ((rc = jb[k].rc))
                return dp_error(rc, "%s", jb[k].msg);
    } else {
        memmove(g->adj + st->out, bb, (size_t)kept0 * sizeof(idx_t));
        memmove(g->adj + st->out + kept0, bb + (end0 - base),
                (size_t)jb[1].kept * sizeof(idx_t));
    }
    for (v = a; v < m; v++)
        g->xadj[v] += st->out;
    for (v = m; v < b; v++)
        g->xadj[v] += st->out + kept0;
    st->out += kept0 + jb[1].kept;
    return 0;
}

/* Where adj ends up: in memory (shrunk to its entries), or mapped from
 * its scratch file, or back in memory when repeats took it under
 * spill_min. */
static int sym_place(struct sym_state *st, struct symgraph *g, size_t spill_min)
{
    size_t out = (size_t)st->out;

    if (st->file && out < spill_min) {
        const idx_t *f = dp_spill_map(&g->spill, st->off, out * 4);
        idx_t *p = dp_malloc_array(out + 1, sizeof(idx_t));

        if (!f || !p) {
            free(p);
            return DP_ENOMEM;
        }
        memcpy(p, f, out * sizeof(idx_t));
        dp_spill_close(&g->spill);
        g->adj = p;
        g->adj_out = 0;
    } else if (st->file) {
        /* read-only: the tail of the room, past the kept entries, is a
         * hole that costs no disk */
        if (!(g->adj = (idx_t *)(uintptr_t)dp_spill_map(&g->spill, st->off,
                                                        out * 4)))
            return DP_ENOMEM;
    } else {
        /* Only a shrink, so a failure keeps the larger block and is no
         * error: raw realloc, not dp_realloc_array, which would record
         * one. */
        idx_t *p = realloc(g->adj, (out + 1) * sizeof(idx_t));

        if (p)
            g->adj = p;
    }
    return 0;
}

static int sym_build(const struct dp_dataset *d, const char *dir,
                     size_t spill_min, int bands, int32_t **perm,
                     int64_t order_min, struct symgraph *g)
{
    struct sym_state st;
    int64_t n = d->meta.num_nodes, a, b, maxrow = 0, bufn, total, nb, k, ents;
    int rc = DP_ENOMEM;
    double t0;

    memset(g, 0, sizeof(*g));
    memset(&st, 0, sizeof(st));
    g->spill.fd = -1;
    st.rls.fd = -1;
    if (n >= INT32_MAX)
        return dp_error(DP_ETOOBIG,
                        "graph too large for METIS's 32-bit "
                        "idx_t: %" PRId64 " nodes (at most %d)",
                        n, INT32_MAX - 1);
    st.d = d;
    st.ip = dp_dataset_indptr(d);
    st.n = n;
    st.left0 = dp_calloc((size_t)n + 1, sizeof(*st.left0));
    st.left1 = dp_calloc((size_t)n + 1, sizeof(*st.left1));
    g->xadj = dp_malloc_array((size_t)n + 1, sizeof(*g->xadj));
    t0 = dp_now();
    if (!st.left0 || !st.left1 || !g->xadj ||
        (rc = sym_rows(&st, g, perm, order_min, &maxrow)))
        goto out;
    st.maxrow = maxrow;
    total = g->xadj[n];
    st.file =
        (size_t)total >= spill_min && sym_adj_file(g, dir, total, &st.off);
    nb = st.file ? sym_nbands(total, bands) : 1;
    for (bufn = maxrow, k = 0; k < nb; k++) {
        a = sym_band_start(g->xadj, n, total, nb, k);
        b = sym_band_start(g->xadj, n, total, nb, k + 1);
        if (g->xadj[b] - g->xadj[a] > bufn)
            bufn = g->xadj[b] - g->xadj[a];
    }
    g->adj_out = st.file;
    dp_log(DP_LOG_VV,
           "symmetrise: %" PRId64 " band(s) of at most %" PRId64
           " entries, %" PRId64 " in all; rows sized in %.2f s (counting on"
           " each thread %.2f and %.2f s)",
           nb, bufn, total, dp_now() - t0, st.jb[0].busy[1], st.jb[1].busy[1]);
    rc = DP_ENOMEM;
    if (!(st.buf = dp_malloc_array(bufn ? (size_t)bufn : 1, sizeof(idx_t))))
        goto out;
    if (!st.file) {
        g->adj = st.buf;
        st.buf = NULL;
    }
    if (nb > 1)
        sym_rows_file(&st, dir);
    for (k = 0; k < nb; k++) {
        a = sym_band_start(g->xadj, n, total, nb, k);
        b = sym_band_start(g->xadj, n, total, nb, k + 1);
        /* a hub row can span a band's share: the band after it is empty */
        if (a == b)
            continue;
        t0 = dp_now();
        ents = g->xadj[b] - g->xadj[a]; /* sym_band_rows moves xadj */
        memset(st.jb[0].busy, 0, sizeof(st.jb[0].busy));
        memset(st.jb[1].busy, 0, sizeof(st.jb[1].busy));
        if ((rc = sym_band_rows(&st, g, a, b)))
            goto out;
        dp_log(DP_LOG_VV,
               "symmetrise: band of rows %" PRId64 "-%" PRId64 ", %" PRId64
               " entries: %.2f s (each thread: filling %.2f and %.2f s,"
               " repeats %.2f and %.2f s, writing %.2f and %.2f s)",
               a, b, ents, dp_now() - t0, st.jb[0].busy[2], st.jb[1].busy[2],
               st.jb[0].busy[3], st.jb[1].busy[3], st.jb[0].busy[4],
               st.jb[1].busy[4]);
    }
    g->xadj[n] = st.out;
    if ((rc = sym_place(&st, g, spill_min)))
        goto out;
    g->n = (idx_t)n;
out:
    sym_state_release(&st);
    if (rc)
        sym_release(g);
    return rc;
}

/* Drop the dataset's mapped pages from our resident set while METIS runs;
 * they come back from the page cache when the halos need them. */
static void drop_pages(const struct dp_npy *a)
{
    if (a->map.data && a->map.size)
        madvise((void *)(uintptr_t)a->map.data, a->map.size, MADV_DONTNEED);
}

static const char *metis_status(int st)
{
    switch (st) {
    case METIS_ERROR_INPUT:
        return "input error";
    case METIS_ERROR_MEMORY:
        return "out of memory";
    default:
        return "error";
    }
}

/* The symmetrised graph dropped while the levels are worked on
 * (DP_LEAN_DISK), and made again for the last refinement: refined on a
 * compressed copy in a scratch file (about half its bytes on rmat: its
 * disk, not its memory), decoded from it where FM would do without its
 * gain table, or where that copy could not be made, by
 * symmetrising the dataset again (rmat 27: 161 s, and a band buffer of 2
 * bytes an entry on top of refinement's state). */
struct sym_again {
    const struct dp_dataset *d;
    const char *scratch;
    size_t spill_min;
    int bands;
    int32_t *perm; /* the first build's order, or NULL */
    struct symgraph *g;
    int kept;   /* cg is its copy */
    size_t cap; /* file pages read from the copy's file kept at most */
    struct ml_cgraph cg;
    struct dp_spill file; /* cg's file (fd -1: cg in memory) */
    void *watch;          /* on file's pages while refinement reads cg */
};

/* ml_cg_done's fn for a graph in a scratch file: those pages go. */
static void sym_hole(void *arg, const int32_t *adj, size_t len)
{
    dp_spill_hole_at(arg, adj, len * sizeof(*adj));
}

/* A compressed copy of a->g: in a scratch file, else in memory; 0 when
 * none could be made. DGLPART_TEST_FINE_COPY takes tests down the other
 * paths: memory, decode (the copy decoded for refinement), or none (a
 * rebuild). */
static int sym_keep(struct sym_again *a)
{
    const struct symgraph *g = a->g;
    double t0 = dp_now();
    const char *where = dp_env_str("DGLPART_TEST_FINE_COPY");
    int64_t want, room;
    int rc;

    a->file.fd = -1;
    if (!strcmp(where, "none") || !g->xadj)
        return 0;
    /* the plan's room for the copy (budget.c): it was 4 bytes an entry,
     * more than the plan counted, and rmat 27's copy was once refused
     * with room for its 7.6 GB but not for that */
    want = ml_fine_copy_bytes(g->n, g->xadj[g->n]);
    room = a->scratch ? dp_disk_free(a->scratch, NULL) : -1;
    if (room >= 0 && room < want) {
        dp_log(DP_LOG_V,
               "no compressed copy of the finest level (%" PRId64
               " bytes free, %" PRId64 " wanted): it is symmetrised "
               "again for its refinement",
               room, want);
        return 0;
    }
    if (a->scratch && strcmp(where, "memory") &&
        dp_spill_open(&a->file, a->scratch) == 0) {
        /* the graph goes when its copy is made (or not): its file's
         * pages go as the copy is written, and the copy's file takes
         * them, not fresh ones */
        struct ml_cg_done done = { sym_hole, &a->g->spill };

        rc = ml_cg_build_file(&a->cg, g->n, g->xadj, g->adj, NULL, 1, &a->file,
                              g->adj_out ? &done : NULL);
        if (rc)
            dp_spill_close(&a->file);
    } else {
        rc = ml_cg_build(&a->cg, g->n, g->xadj, g->adj, NULL, 1);
    }
    if (rc) {
        dp_log(DP_LOG_V,
               "no compressed copy of the finest level (%s): it "
               "is symmetrised again for its refinement",
               dp_errmsg());
        return 0;
    }
    dp_log(DP_LOG_V,
           "finest level compressed %s: %zu bytes, %.2f an entry, %.2f s",
           a->file.fd >= 0 ? "to a scratch file" : "in memory",
           ml_cg_size(&a->cg),
           a->cg.m ? (double)ml_cg_size(&a->cg) / (double)a->cg.m : 0.0,
           dp_now() - t0);
    return 1;
}

static void sym_again_keep(void *arg)
{
    struct sym_again *a = arg;

    a->kept = sym_keep(a);
}

static void sym_again_drop(void *arg)
{
    sym_release(((struct sym_again *)arg)->g);
}

static void sym_copy_release(struct sym_again *a)
{
    dp_file_watch_stop(a->watch);
    a->watch = NULL;
    a->kept = 0;
    ml_cg_release(&a->cg);
    if (a->file.fd >= 0)
        dp_spill_close(&a->file);
}

static void drop_copy(void *arg)
{
    dp_spill_drop(arg);
}

/* a->g decoded from its copy: rows sorted, in a scratch file where the
 * copy was, else in memory. */
static int sym_decode(struct sym_again *a)
{
    struct symgraph *g = a->g;
    size_t m = (size_t)a->cg.m;
    int rc = 0;
    void *w;

    g->n = a->cg.n;
    if (!(g->xadj = dp_malloc_array((size_t)g->n + 1, sizeof(*g->xadj))))
        return DP_ENOMEM;
    if (a->file.fd >= 0) {
        if ((rc = dp_spill_open(&g->spill, a->scratch)))
            return rc;
        /* the copy is read once through its mapping: its pages go as the
         * levels' do (rmat 27: 7.1 GiB of them, the run's peak, without) */
        w = dp_file_watch(a->cap, drop_copy, &a->file);
        g->adj = (idx_t *)(uintptr_t)ml_cg_decode_file(&a->cg, g->xadj,
                                                       &g->spill, 1);
        if (w)
            dp_file_watch_stop(w);
        if (!g->adj)
            return DP_EIO;
        g->adj_out = 1;
        return 0;
    }
    if (!(g->adj = dp_malloc_array(m + 1, sizeof(*g->adj))))
        return DP_ENOMEM;
    ml_cg_decode(&a->cg, g->xadj, g->adj, NULL, 1);
    return 0;
}

/* How much the process may hold while FM reads the finest level's copy:
 * the run's peak so far, less what faults map between two looks of the
 * watch (rmat 27: up to 0.5 GiB, its pages mapped 2 MiB at a time), or a
 * quarter of a small peak. FM comes back to much of the copy, and the
 * coarsening has set a peak well above FM's own memory (rmat 27: 7.4-7.9
 * GiB, FM 5.4), so the room is there: rmat 27's FM took 115-119 s
 * against 190 s at the 1 GiB cap. A cap of 0 (tests) still drops the
 * pages all along. */
#define COPY_CEILING_SLACK ((uint64_t)512 << 20)

static size_t copy_ceiling(const struct sym_again *a)
{
    uint64_t peak = dp_peak_rss(), slack = peak / 4;

    if (!a->cap)
        return 0;
    if (slack > COPY_CEILING_SLACK)
        slack = COPY_CEILING_SLACK;
    return (size_t)(peak - slack);
}

static int sym_again_make(void *arg, struct ml_graph *f, int cg_ok)
{
    struct sym_again *a = arg;
    double t0 = dp_now();
    size_t ceiling = 0;
    int copy = a->kept, rc;

    if (copy && cg_ok &&
        strcmp(dp_env_str("DGLPART_TEST_FINE_COPY"), "decode")) {
        /* FM reads the copy's rows where they are (its pages go as the
         * levels' do): no plain graph on the disk, and no decode of it
         * (rmat 27: 12.8 GB and 54 s) */
        f->cg = &a->cg;
        f->xadj = NULL;
        f->adj = NULL;
        if (a->file.fd >= 0) {
            /* its pages left the page cache while the levels were worked
             * on: read back in one sweep, not by FM's faults at random */
            posix_fadvise(a->file.fd, 0, 0, POSIX_FADV_WILLNEED);
            ceiling = copy_ceiling(a);
            a->watch =
                dp_file_watch_under(a->cap, ceiling, drop_copy, &a->file);
        }
        if (ceiling)
            dp_log(DP_LOG_V,
                   "finest level kept compressed for its refinement, its "
                   "pages kept while the process is under %.1f MiB",
                   (double)ceiling / 1048576.0);
        else
            dp_log(DP_LOG_V, "finest level kept compressed for its refinement");
        return 0;
    }
    if (copy) {
        rc = sym_decode(a);
        sym_copy_release(a);
        if (rc)
            sym_release(a->g);
    } else {
        rc = sym_build(a->d, a->scratch, a->spill_min, a->bands,
                       a->perm ? &a->perm : NULL, 0, a->g);
    }
    if (rc)
        return rc;
    if ((size_t)a->g->xadj[a->g->n] >= a->spill_min)
        sym_spill(a->g, a->scratch, 0);
    f->xadj = a->g->xadj;
    f->adj = a->g->adj;
    if (dp_verbose)
        dp_timer_report(copy ? "finest level decoded from its compressed copy"
                             : "symmetrise again for the finest level",
                        t0);
    return 0;
}

/* The levels' resident file pages: the usual cap, or
 * DGLPART_TEST_LEVEL_RSS_CAP (0: let them go all along, for tests). */
static size_t level_rss_cap(void)
{
    int64_t e = -1;

    if (!dp_env_size("DGLPART_TEST_LEVEL_RSS_CAP", &e) && e >= 0)
        return (size_t)e;
    return ml_level_rss_cap();
}

/* DGLPART_ML_NODES_PER_PART (tests coarsen small graphs with it); 0: the
 * multilevel path's own. */
static int ml_nodes_per_part(void)
{
    int64_t v = 0;

    if (dp_env_int("DGLPART_ML_NODES_PER_PART", &v))
        return -1;
    return (int)v;
}

/* The multilevel path on the symmetrised graph of d; unit vertex weights
 * are made when vw has none. The graph rests in a scratch file in scratch
 * (when it can) while the coarse levels are worked on: big ones only, or
 * every level with DP_LEAN_MEM; with DP_LEAN_DISK it goes instead, and is
 * made again for the last refinement. */
static int multilevel(const struct dp_dataset *d, struct symgraph *g, int bands,
                      int32_t *perm, struct dp_vweights *vw, int nparts,
                      double imbalance, int64_t seed, const char *scratch,
                      int lean, int32_t *parts, int64_t *objval, int *levels)
{
    struct ml_graph f = {
        g->n, g->xadj, g->adj, g->adjwgt, (idx_t *)vw->w, NULL
    };
    size_t spill_min = lean & DP_LEAN_MEM ? 0 : ML_SPILL_MIN_ENTRIES;
    struct sym_again sa = { .d = d,
                            .scratch = scratch,
                            .spill_min = spill_min,
                            .bands = bands,
                            .perm = perm,
                            .g = g,
                            .cap = level_rss_cap(),
                            .file = { .fd = -1 } };
    struct ml_fine_again again = { sym_again_keep, sym_again_drop,
                                   sym_again_make, &sa };
    idx_t *ones = NULL, v;
    int rc = 0, npp = ml_nodes_per_part();

    if (!f.vw) {
        ones = dp_malloc_array((size_t)g->n + 1, sizeof(*ones));
        if (!ones)
            return DP_ENOMEM;
        for (v = 0; v < g->n; v++)
            ones[v] = 1;
        f.vw = ones;
    } else if (perm) {
        /* the caller's weights in this order until the end */
        int32_t *w =
            permuted(vw->w, (size_t)vw->ncon * sizeof(*w), perm, g->n, 0);

        if (!w)
            return DP_ENOMEM;
        free(vw->w);
        vw->w = w;
        f.vw = (idx_t *)w;
    }
    if ((size_t)g->xadj[g->n] >= spill_min)
        sym_spill(g, scratch, 0);
    f.xadj = g->xadj;
    f.adj = g->adj;
    if (!rc && npp < 0)
        rc = DP_EINVAL;
    if (!rc) {
        struct ml_params pr = { vw->ncon, nparts, imbalance, seed };
        struct ml_policy pol = { scratch,
                                 spill_min,
                                 g->spill.fd >= 0 ? &g->spill : NULL,
                                 lean & DP_LEAN_DISK ? &again : NULL,
                                 sa.cap,
                                 npp,
                                 0 };

        dp_env_bool("DGLPART_TEST_ML_COMPRESS", &pol.compress);
        /* the cut as FM kept it: no sweep of the finest level after (rmat
         * 27: 25 s over its compressed copy, read back from the disk) */
        rc = ml_partition(&f, &pr, &pol, parts, levels, objval);
        sym_copy_release(&sa); /* still there when the run failed */
    }
    /* the caller's weights back in id order, even after a failure */
    if (perm && !ones) {
        int32_t *w =
            permuted(vw->w, (size_t)vw->ncon * sizeof(*w), perm, f.n, 1);

        if (w) {
            free(vw->w);
            vw->w = w;
        } else if (!rc) {
            rc = DP_ENOMEM;
        }
    }
    free(ones);
    if (rc)
        return rc;
    /* parts[v] was node v's in perm's order (g went with its copy) */
    if (perm) {
        int32_t *p = permuted(parts, sizeof(*parts), perm, f.n, 1);

        if (!p)
            return DP_ENOMEM;
        memcpy(parts, p, (size_t)f.n * sizeof(*parts));
        free(p);
    }
    return 0;
}

/* The symmetrised graph of d, built where sym_spill would put it: a
 * scratch file for METIS and for the multilevel path's graphs of
 * spill_min entries; in the multilevel path's order (*perm) where that
 * path is sure to be taken, or likely (auto: if repeats take the graph
 * back under the line, it is made again in id order for METIS). */
static int symmetrise(const struct dp_dataset *d, const char *scratch, int mode,
                      int lean, int objtype_vol, struct symgraph *g,
                      int32_t **perm, int *bands)
{
    int order =
        mode == DP_METIS_MULTILEVEL || (mode == DP_METIS_AUTO && !objtype_vol);
    double t0 = dp_now();
    int rc;

    /* each band looks up every source's place in that order: two bands
     * of half the entries took rmat 25's symmetrising from 37.3 to 25.4 s
     * against four, rmat 27's (lean) from 215 to 144 s. Their buffer is 2
     * bytes a symmetrised entry: below the part writer's peak, but the
     * rebuild for the finest level (DP_LEAN_DISK) adds it to refinement's
     * state, and there rmat 27 peaked at 8.05 anonymous bytes an edge,
     * against 7.48 in four bands in id order. With every graph in a
     * scratch file (lean), three: rmat 27's peak RSS was this buffer
     * (6.4 GB of 8.7 GiB), a third less for one more sweep */
    *bands = !order ? 4 : lean & DP_LEAN_MEM ? 3 : 2;
    /* this build in one sweep where the plan has room for the whole
     * buffer below its peak; *bands stays for a rebuild during refinement
     * (lean disk), whose buffer adds to refinement's state */
    rc = sym_build(d, scratch,
                   mode == DP_METIS_MULTILEVEL && !(lean & DP_LEAN_MEM)
                       ? ML_SPILL_MIN_ENTRIES
                       : 0,
                   lean & DP_SYM_ONE_BAND ? 1 : *bands, order ? perm : NULL,
                   mode == DP_METIS_MULTILEVEL ? 0 : DP_ML_AUTO_ENTRIES + 1, g);
    if (!rc && *perm && mode == DP_METIS_AUTO &&
        g->xadj[g->n] <= DP_ML_AUTO_ENTRIES) {
        sym_release(g);
        free(*perm);
        *perm = NULL;
        rc = sym_build(d, scratch, 0, 4, NULL, 0, g);
    }
    if (rc)
        return rc;
    if (dp_verbose)
        dp_timer_report("symmetrise for METIS", t0);
    drop_pages(&d->indptr);
    drop_pages(&d->indices);
    drop_pages(&d->eids);
    drop_pages(&d->train_mask);
    drop_pages(&d->val_mask);
    drop_pages(&d->test_mask);
    drop_pages(&d->label);
    drop_pages(&d->feat);
    return 0;
}

/* METIS_PartGraphKway on the whole symmetrised graph. */
static int whole_graph(struct symgraph *g, const struct dp_vweights *vw,
                       int nparts, double imbalance, int objtype_vol,
                       int64_t seed, const char *scratch, int32_t *parts,
                       int64_t *objval)
{
    idx_t options[METIS_NOPTIONS], nvtxs, ncon = vw->ncon, np = nparts, obj = 0;
    real_t *ubvec;
    double t0 = dp_now();
    struct dp_ticker tick;
    int64_t i;
    int rc, st;

    if ((rc = sym_narrow(g)))
        return rc;
    sym_spill(g, scratch, !objtype_vol);
    if (!(ubvec = dp_malloc_array((size_t)ncon, sizeof(*ubvec))))
        return DP_ENOMEM;
    for (i = 0; i < ncon; i++)
        ubvec[i] = (real_t)imbalance;
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_OBJTYPE] =
        objtype_vol ? METIS_OBJTYPE_VOL : METIS_OBJTYPE_CUT;
    if (seed >= 0) /* else METIS's own default, as gpmetis */
        options[METIS_OPTION_SEED] = (idx_t)seed;
    options[METIS_OPTION_NUMBERING] = 0;
    nvtxs = g->n;
    /* what the symmetrising and an in-process convert freed goes back to
     * the system before METIS's peak; then METIS's own frees stay in the
     * heap, since it reallocates the same sizes at every level */
    malloc_trim(0);
    dp_heap_hold(1);
    dp_ticker_start(&tick, "METIS");
    dp_spill_watch(&g->spill, 1);
    st = METIS_PartGraphKway(&nvtxs, &ncon, g->xadj32, g->adj, (idx_t *)vw->w,
                             NULL, g->adjwgt, &np, NULL, ubvec, options, &obj,
                             (idx_t *)parts);
    dp_spill_watch(&g->spill, 0);
    dp_ticker_stop(&tick);
    dp_heap_hold(0);
    free(ubvec);
    if (st != METIS_OK)
        return dp_error(DP_EMETIS,
                        "METIS_PartGraphKway failed (status %d: %s) "
                        "on %d nodes, %d parts, %d constraints",
                        st, metis_status(st), (int)g->n, nparts, (int)ncon);
    if (dp_verbose)
        dp_timer_report("METIS_PartGraphKway", t0);
    for (i = 0; i < g->n; i++)
        if (parts[i] < 0 || parts[i] >= nparts)
            return dp_error(DP_EMETIS,
                            "METIS returned part %d for node %" PRId64
                            " (expected [0, %d))",
                            (int)parts[i], i, nparts);
    *objval = obj;
    return 0;
}

/* The vertex weights wait in a scratch file in dir while the graph is
 * symmetrised, whose band buffer is the largest thing the multilevel
 * path holds (rmat 27: 1.6 GB of weights beside 6.4 GB of buffer); 1
 * when they went there, 0 when they stay (no file, or too few to
 * matter). */
#define PARK_MIN ((size_t)64 << 20)
static int park_weights(struct dp_vweights *vw, int64_t n, const char *dir,
                        struct dp_spill *sp)
{
    size_t bytes = (size_t)n * (size_t)vw->ncon * sizeof(*vw->w), off;

    sp->fd = -1;
    if (!vw->w || !dir || bytes < PARK_MIN || dp_spill_open(sp, dir))
        return 0;
    if ((off = dp_spill_room(sp, bytes)) != 0 ||
        dp_spill_write(sp, 0, vw->w, bytes)) {
        dp_spill_close(sp);
        return 0;
    }
    free(vw->w);
    vw->w = NULL;
    return 1;
}

/* The weights back in memory, the file closed: 0 or DP_ENOMEM. */
static int unpark_weights(struct dp_vweights *vw, int64_t n,
                          struct dp_spill *sp)
{
    size_t bytes = (size_t)n * (size_t)vw->ncon * sizeof(*vw->w);
    const void *f = dp_spill_map(sp, 0, bytes);
    int rc = DP_ENOMEM;

    if (f && (vw->w = dp_malloc_array((size_t)n + 1,
                                      (size_t)vw->ncon * sizeof(*vw->w)))) {
        memcpy(vw->w, f, bytes);
        rc = 0;
    }
    dp_spill_close(sp);
    return rc;
}

int dp_metis_assign(const struct dp_dataset *d, struct dp_vweights *vw,
                    int nparts, double imbalance, int objtype_vol, int64_t seed,
                    const char *scratch, int lean, int32_t *parts,
                    int64_t *objval, int mode, int *levels)
{
    struct symgraph g;
    struct dp_spill wsp;
    int32_t *perm = NULL;
    double t0;
    int rc, bands, lv = 0, spill = 1, parked;

    if (nparts == 1) {
        memset(parts, 0, (size_t)d->meta.num_nodes * sizeof(*parts));
        *objval = 0;
        return 0;
    }
    if (seed < -1 || seed > INT32_MAX)
        return dp_error(DP_ERANGE,
                        "seed %" PRId64 " does not fit METIS's "
                        "32-bit idx_t",
                        seed);
    if (levels)
        *levels = -1;
    /* DGLPART_SPILL=0: no scratch file for any graph */
    if ((rc = dp_env_bool("DGLPART_SPILL", &spill)))
        return rc;
    if (!spill)
        scratch = NULL;
    parked = mode != DP_METIS_EXACT &&
             park_weights(vw, d->meta.num_nodes, scratch, &wsp);
    rc = symmetrise(d, scratch, mode, lean, objtype_vol, &g, &perm, &bands);
    if (parked && unpark_weights(vw, d->meta.num_nodes, &wsp) && !rc) {
        sym_release(&g);
        rc = DP_ENOMEM;
    }
    if (rc) {
        free(perm);
        return rc;
    }
    if (mode == DP_METIS_MULTILEVEL || (mode == DP_METIS_AUTO && !objtype_vol &&
                                        g.xadj[g.n] > DP_ML_AUTO_ENTRIES)) {
        if (objtype_vol) {
            rc = dp_error(DP_EINVAL, "the multilevel path minimises the edge "
                                     "cut: use --objtype cut");
            goto out;
        }
        t0 = dp_now();
        rc = multilevel(d, &g, bands, perm, vw, nparts, imbalance, seed,
                        scratch, lean, parts, objval, &lv);
        if (!rc && levels)
            *levels = lv;
        if (!rc && dp_verbose)
            dp_timer_report("multilevel partition", t0);
        /* the levels' memory goes back to the system before the halos */
        sym_release(&g);
        malloc_trim(0);
        goto out;
    }
    rc = whole_graph(&g, vw, nparts, imbalance, objtype_vol, seed, scratch,
                     parts, objval);
out:
    sym_release(&g);
    free(perm);
    return rc;
}

/* Decimal digits of x >= 0 into p; returns the length. */
static int put_u64(char *p, uint64_t x)
{
    char tmp[24];
    int n = 0, i;

    do {
        tmp[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    for (i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

int dp_metis_write_graph(const struct dp_dataset *d,
                         const struct dp_vweights *vw, const char *path)
{
    struct symgraph g;
    struct dp_afile af;
    char *line = NULL;
    size_t cap = 1 << 20, len;
    int64_t v, k;
    int c, rc;

    rc = sym_build(d, NULL, 0, 4, NULL, 0, &g);
    if (rc)
        return rc;
    rc = dp_afile_open(&af, path);
    if (rc)
        goto out;
    line = dp_malloc(cap);
    if (!line) {
        rc = DP_ENOMEM;
        dp_afile_abort(&af);
        goto out;
    }
    if (vw->w)
        len = (size_t)snprintf(line, cap, "%d %" PRId64 " 010 %d\n", (int)g.n,
                               g.xadj[g.n] / 2, vw->ncon);
    else
        len = (size_t)snprintf(line, cap, "%d %" PRId64 "\n", (int)g.n,
                               g.xadj[g.n] / 2);
    for (v = 0; v < g.n && !rc; v++) {
        if (vw->w)
            for (c = 0; c < vw->ncon; c++) {
                len += (size_t)put_u64(line + len,
                                       (uint64_t)vw->w[v * vw->ncon + c]);
                line[len++] = ' ';
            }
        for (k = g.xadj[v]; k < g.xadj[v + 1]; k++) {
            len += (size_t)put_u64(line + len, (uint64_t)g.adj[k] + 1);
            line[len++] = ' ';
            if (len > cap - 64) {
                rc = dp_afile_write(&af, line, len);
                len = 0;
            }
        }
        if (len && line[len - 1] == ' ')
            len--;
        line[len++] = '\n';
        if (len > cap - 64 * (size_t)(vw->ncon + 2)) {
            rc = dp_afile_write(&af, line, len);
            len = 0;
        }
    }
    if (!rc && len)
        rc = dp_afile_write(&af, line, len);
    if (rc)
        dp_afile_abort(&af);
    else
        rc = dp_afile_commit(&af);
out:
    free(line);
    sym_release(&g);
    return rc;
}
