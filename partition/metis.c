/* METIS k-way assignment through Debian's libmetis 5.1 (32-bit idx_t): the
 * vertex weights DGL builds, the symmetrised graph METIS needs, and the one
 * place where 64-bit ids are narrowed to idx_t, checked. */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include <metis.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/memory.h"
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

int dp_vweights_build(const struct dp_dataset *d, int balance_train,
                      int balance_edges, const char *train_ntype,
                      struct dp_vweights *vw)
{
    struct col cols[2 * MAXCON], keep[MAXCON];
    int64_t n = d->meta.num_nodes, v, i, total;
    int ncol = 0, nkeep = 0, c, has[2] = { 0, 0 }, rc;
    uint8_t *cls = NULL;
    int32_t *w;

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
    const char *env = getenv("DGLPART_SPILL");
    double t0 = dp_now();

    if (!dir || (env && !strcmp(env, "0")))
        return;
    /* adj may be there already (sym_build): all or nothing for the rest */
    if ((g->adj_out || dp_spill_open(&g->spill, dir) == 0) &&
        (xadj = dp_spill_copy(&g->spill,
                              g->xadj ? (void *)g->xadj : (void *)g->xadj32,
                              xbytes)) &&
        (g->adj_out ||
         (adj = dp_spill_copy(&g->spill, g->adj, m * sizeof(idx_t)))) &&
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
 * own entries, then the transposed ones), then repeats are dropped. Two
 * threads each own half of the rows and run the same three passes. */
struct sym_job {
    const int64_t *ip;
    const struct dp_dataset *d;
    int64_t n, v0, v1; /* this thread's rows */
    int64_t *cnt;      /* pass 1: out-degrees of every node (own copy) */
    int64_t *ocur;     /* pass 2: shared fill cursors (own rows only) */
    int64_t *xadj;
    idx_t *adj;
    idx_t *mark;  /* pass 3: own [n] scratch */
    int64_t end;  /* pass 3: offset after own rows, before */
    int64_t kept; /* pass 3: entries kept in own rows */
    int pass;
};

static void *sym_pass(void *arg)
{
    struct sym_job *j = arg;
    const int64_t *ip = j->ip;
    const struct dp_dataset *d = j->d;
    int64_t v, k;

    if (j->pass == 1) {
        for (v = j->v0; v < j->v1; v++)
            for (k = ip[v]; k < ip[v + 1]; k++)
                if (dp_dataset_src(d, k) != v)
                    j->cnt[dp_dataset_src(d, k)]++;
    } else if (j->pass == 2) {
        for (v = j->v0; v < j->v1; v++) {
            int64_t w = j->xadj[v];

            for (k = ip[v]; k < ip[v + 1]; k++)
                if (dp_dataset_src(d, k) != v)
                    j->adj[w++] = (idx_t)dp_dataset_src(d, k);
        }
        for (v = 0; v < j->n; v++)
            for (k = ip[v]; k < ip[v + 1]; k++) {
                int64_t u = dp_dataset_src(d, k);

                if (u >= j->v0 && u < j->v1 && u != v)
                    j->adj[j->ocur[u]++] = (idx_t)v;
            }
    } else {
        int64_t w = j->xadj[j->v0], s = w, e;

        for (v = 0; v < j->n; v++)
            j->mark[v] = -1;
        for (v = j->v0; v < j->v1; v++) {
            /* the other half rewrites its first offset */
            e = v + 1 == j->v1 ? j->end : j->xadj[v + 1];
            j->xadj[v] = w;
            for (k = s; k < e; k++) {
                idx_t x = j->adj[k];

                if (j->mark[x] != (idx_t)v) {
                    j->mark[x] = (idx_t)v;
                    j->adj[w++] = x;
                }
            }
            s = e;
        }
        j->kept = w - j->xadj[j->v0];
    }
    return NULL;
}

/* Run pass p of both jobs, the second on a thread when one starts. */
static void sym_run(struct sym_job *jb, int p)
{
    jb[0].pass = jb[1].pass = p;
    dp_run_pair(sym_pass, &jb[0], &jb[1], 1);
}

/* adj in a scratch file in dir, when it would go there anyway: its
 * entries before repeats are dropped are written in place through a
 * shared mapping, never anonymous memory (rmat23: 0.8 GB). NULL when
 * that cannot be done. */
static idx_t *sym_adj_file(struct symgraph *g, const char *dir, int64_t total)
{
    size_t bytes = (total ? (size_t)total : 1) * sizeof(idx_t), off;
    const char *env = getenv("DGLPART_SPILL");
    idx_t *adj;

    if (!dir || (env && !strcmp(env, "0")) || dp_spill_open(&g->spill, dir))
        return NULL;
    if ((off = dp_spill_room(&g->spill, bytes)) == (size_t)-1 ||
        !(adj = dp_spill_map_rw(&g->spill, off, bytes))) {
        dp_spill_close(&g->spill);
        return NULL;
    }
    g->adj_out = 1;
    return adj;
}

static int sym_build(const struct dp_dataset *d, const char *dir,
                     size_t spill_min, struct symgraph *g)
{
    const int64_t *ip = dp_dataset_indptr(d);
    int64_t n = d->meta.num_nodes, v, k, total = 0, start1, end0;
    int64_t *cnt0 = NULL, *cnt1 = NULL;
    idx_t *mark0 = NULL, *mark1 = NULL;
    struct sym_job jb[2];
    int rc = DP_ENOMEM;

    memset(g, 0, sizeof(*g));
    g->spill.fd = -1;
    if (n >= INT32_MAX)
        return dp_error(DP_ETOOBIG,
                        "graph too large for METIS's 32-bit "
                        "idx_t: %" PRId64 " nodes (at most %d)",
                        n, INT32_MAX - 1);
    cnt0 = dp_calloc((size_t)n + 1, sizeof(*cnt0));
    cnt1 = dp_calloc((size_t)n + 1, sizeof(*cnt1));
    g->xadj = dp_malloc_array((size_t)n + 1, sizeof(*g->xadj));
    if (!cnt0 || !cnt1 || !g->xadj)
        goto out;
    memset(jb, 0, sizeof(jb));
    jb[0] = (struct sym_job){
        .ip = ip, .d = d, .n = n, .v0 = 0, .v1 = n / 2, .cnt = cnt0
    };
    jb[1] = (struct sym_job){
        .ip = ip, .d = d, .n = n, .v0 = n / 2, .v1 = n, .cnt = cnt1
    };
    sym_run(jb, 1);
    /* row v: in-neighbours but self-loops, then out-neighbours; cnt0
     * becomes the fill cursor of the out-part */
    for (v = 0; v < n; v++) {
        int64_t in = 0;

        for (k = ip[v]; k < ip[v + 1]; k++)
            in += dp_dataset_src(d, k) != v;
        g->xadj[v] = total;
        cnt0[v] += cnt1[v];
        total += in;
        cnt1[v] = total; /* out-part start */
        total += cnt0[v];
    }
    g->xadj[n] = total;
    free(cnt0);
    cnt0 = NULL;
    if ((size_t)total >= spill_min)
        g->adj = sym_adj_file(g, dir, total);
    if (!g->adj &&
        !(g->adj = dp_malloc_array(total ? (size_t)total : 1, sizeof(idx_t))))
        goto out;
    jb[0].ocur = jb[1].ocur = cnt1;
    jb[0].xadj = jb[1].xadj = g->xadj;
    jb[0].adj = jb[1].adj = g->adj;
    sym_run(jb, 2);
    free(cnt1);
    cnt1 = NULL;
    /* drop repeated neighbours, keeping first occurrences, each half
     * compacted in place, then the second half moved down */
    mark0 = dp_malloc_array((size_t)n + 1, sizeof(*mark0));
    mark1 = dp_malloc_array((size_t)n + 1, sizeof(*mark1));
    if (!mark0 || !mark1)
        goto out;
    jb[0].mark = mark0;
    jb[1].mark = mark1;
    start1 = g->xadj[n / 2];
    jb[0].end = start1;
    jb[1].end = total;
    sym_run(jb, 3);
    end0 = jb[0].kept;
    memmove(g->adj + end0, g->adj + start1, (size_t)jb[1].kept * sizeof(idx_t));
    for (v = n / 2; v < n; v++)
        g->xadj[v] = g->xadj[v] - start1 + end0;
    g->xadj[n] = end0 + jb[1].kept;
    if (g->adj_out && (size_t)g->xadj[n] < spill_min) {
        /* fewer than spill_min once repeats are gone: back to memory */
        idx_t *p = dp_malloc_array((size_t)g->xadj[n] + 1, sizeof(idx_t));

        if (!p)
            goto out;
        memcpy(p, g->adj, (size_t)g->xadj[n] * sizeof(idx_t));
        dp_spill_close(&g->spill);
        g->adj = p;
        g->adj_out = 0;
    } else if (g->adj_out) {
        /* the repeats' disk (adj starts the file); the mapping's tail
         * is never read */
        dp_spill_hole(&g->spill, (size_t)g->xadj[n] * sizeof(idx_t),
                      (size_t)(total - g->xadj[n]) * sizeof(idx_t));
        dp_spill_drop(&g->spill);
    } else {
        /* Only a shrink, so a failure keeps the larger block and is no
         * error: raw realloc, not dp_realloc_array, which would record
         * one. */
        idx_t *p = realloc(g->adj, ((size_t)g->xadj[n] + 1) * sizeof(idx_t));

        if (p)
            g->adj = p;
    }
    g->n = (idx_t)n;
    rc = 0;
out:
    free(cnt0);
    free(cnt1);
    free(mark0);
    free(mark1);
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

/* The multilevel path on the symmetrised graph; unit vertex weights are
 * made when vw has none. The graph rests in a scratch file in scratch
 * (when it can) while the coarse levels are worked on: big ones only, or
 * every level when lean. */
static int multilevel(struct symgraph *g, const struct dp_vweights *vw,
                      int nparts, double imbalance, int64_t seed,
                      const char *scratch, int lean, int32_t *parts,
                      int64_t *objval, int *levels)
{
    struct ml_graph f = { g->n, g->xadj, g->adj, g->adjwgt, (idx_t *)vw->w };
    size_t spill_min = lean ? 0 : ML_SPILL_MIN_ENTRIES;
    idx_t *ones = NULL, v;
    int64_t cut = 0, k;
    int rc;

    if (!f.vw) {
        ones = dp_malloc_array((size_t)g->n + 1, sizeof(*ones));
        if (!ones)
            return DP_ENOMEM;
        for (v = 0; v < g->n; v++)
            ones[v] = 1;
        f.vw = ones;
    }
    if ((size_t)g->xadj[g->n] >= spill_min)
        sym_spill(g, scratch, 0);
    f.xadj = g->xadj;
    f.adj = g->adj;
    rc = ml_partition(&f, vw->ncon, nparts, imbalance, seed, scratch, spill_min,
                      g->spill.fd >= 0 ? &g->spill : NULL, parts, levels);
    free(ones);
    if (rc)
        return rc;
    for (v = 0; v < g->n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            cut += parts[v] != parts[g->adj[k]];
    *objval = cut / 2;
    return 0;
}

int dp_metis_assign(const struct dp_dataset *d, const struct dp_vweights *vw,
                    int nparts, double imbalance, int objtype_vol, int64_t seed,
                    const char *scratch, int lean, int32_t *parts,
                    int64_t *objval, int mode, int *levels)
{
    struct symgraph g;
    idx_t options[METIS_NOPTIONS], nvtxs, ncon, np, obj = 0;
    real_t *ubvec = NULL;
    int64_t n = d->meta.num_nodes, i;
    double t0 = dp_now();
    struct dp_ticker tick;
    int rc, st;

    if (nparts == 1) {
        memset(parts, 0, (size_t)n * sizeof(*parts));
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
    /* built where sym_spill would put it: a scratch file for METIS and
     * for the multilevel path's graphs of spill_min entries */
    rc = sym_build(
        d, scratch,
        mode == DP_METIS_MULTILEVEL && !lean ? ML_SPILL_MIN_ENTRIES : 0, &g);
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
    if (mode == DP_METIS_MULTILEVEL || (mode == DP_METIS_AUTO && !objtype_vol &&
                                        g.xadj[g.n] > DP_ML_AUTO_ENTRIES)) {
        int lv = 0;

        if (objtype_vol) {
            rc = dp_error(DP_EINVAL, "the multilevel path minimises the edge "
                                     "cut: use --objtype cut");
            goto out;
        }
        t0 = dp_now();
        rc = multilevel(&g, vw, nparts, imbalance, seed, scratch, lean, parts,
                        objval, &lv);
        if (!rc && levels)
            *levels = lv;
        if (!rc && dp_verbose)
            dp_timer_report("multilevel partition", t0);
        /* the levels' memory goes back to the system before the halos */
        sym_release(&g);
        malloc_trim(0);
        goto out;
    }
    if ((rc = sym_narrow(&g)))
        goto out;
    sym_spill(&g, scratch, !objtype_vol);
    rc = DP_ENOMEM;
    ncon = vw->ncon;
    ubvec = dp_malloc_array((size_t)ncon, sizeof(*ubvec));
    if (!ubvec)
        goto out;
    for (i = 0; i < ncon; i++)
        ubvec[i] = (real_t)imbalance;
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_OBJTYPE] =
        objtype_vol ? METIS_OBJTYPE_VOL : METIS_OBJTYPE_CUT;
    if (seed >= 0) /* else METIS's own default, as gpmetis */
        options[METIS_OPTION_SEED] = (idx_t)seed;
    options[METIS_OPTION_NUMBERING] = 0;
    nvtxs = g.n;
    np = nparts;
    t0 = dp_now();
    /* what the symmetrising and an in-process convert freed goes back to
     * the system before METIS's peak; then METIS's own frees stay in the
     * heap, since it reallocates the same sizes at every level */
    malloc_trim(0);
    dp_heap_hold(1);
    dp_ticker_start(&tick, "METIS");
    dp_spill_watch(&g.spill, 1);
    st = METIS_PartGraphKway(&nvtxs, &ncon, g.xadj32, g.adj, (idx_t *)vw->w,
                             NULL, g.adjwgt, &np, NULL, ubvec, options, &obj,
                             (idx_t *)parts);
    dp_spill_watch(&g.spill, 0);
    dp_ticker_stop(&tick);
    dp_heap_hold(0);
    if (st != METIS_OK) {
        rc = dp_error(DP_EMETIS,
                      "METIS_PartGraphKway failed (status %d: %s) "
                      "on %" PRId64 " nodes, %d parts, %d constraints",
                      st, metis_status(st), n, nparts, (int)ncon);
        goto out;
    }
    if (dp_verbose)
        dp_timer_report("METIS_PartGraphKway", t0);
    for (i = 0; i < n; i++) {
        if (parts[i] < 0 || parts[i] >= nparts) {
            rc = dp_error(DP_EMETIS,
                          "METIS returned part %d for node %" PRId64
                          " (expected [0, %d))",
                          (int)parts[i], i, nparts);
            goto out;
        }
    }
    *objval = obj;
    rc = 0;
out:
    sym_release(&g);
    free(ubvec);
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

    rc = sym_build(d, NULL, 0, &g);
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
