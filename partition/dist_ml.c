/* The distributed multilevel partition: label-propagation levels over the
 * ranks until the coarse graph is small enough for one rank, which runs
 * the single-machine multilevel path on it (every constraint, METIS on
 * its coarsest graph, FM); then each distributed level is projected back
 * and refined over the ranks. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/memory.h"
#include "dglpart/progress.h"
#include "dist.h"

#define DML_LEVELS 20
#define DML_STALL 0.9
#define DML_NODES_PER_PART 8000
#define DML_LEVEL_GROWTH 8.0

struct dlevel {
    struct dist_graph g; /* level 0 is the caller's */
    int64_t *map;        /* [finer n] coarse id of each owned finer node */
    struct dp_spill sp;  /* g's entries while coarser levels are worked on */
};

/* A coarse level's entries moved to a scratch file until refinement
 * comes back to it, as the single-machine path keeps its levels: every
 * level would otherwise stay resident beside the ones below it. A file
 * that cannot be made leaves them in memory. */
static void level_spill(struct dlevel *lv, int L, const struct ml_policy *pol)
{
    struct dist_graph *g = &lv->g;
    size_t m = (size_t)g->xadj[g->n];
    const void *adj, *adjw;

    lv->sp.fd = -1;
    if (!pol->scratch || m < pol->spill_min ||
        dp_spill_open(&lv->sp, pol->scratch))
        return;
    /* the finest level has unit weights: no adjw */
    adjw = NULL;
    /* the last copy gives its pages back as written (one that fails
     * leaves its source as it was) */
    if (!(adj = g->adjw ? dp_spill_copy(&lv->sp, g->adj, m * sizeof(*g->adj))
                        : dp_spill_copy_give(&lv->sp, g->adj,
                                             m * sizeof(*g->adj))) ||
        (g->adjw && !(adjw = dp_spill_copy_give(&lv->sp, g->adjw,
                                                m * sizeof(*g->adjw))))) {
        dp_spill_close(&lv->sp);
        return;
    }
    free(g->adj);
    free(g->adjw);
    /* refinement reads them only */
    g->adj = (int32_t *)(uintptr_t)adj;
    g->adjw = (int32_t *)(uintptr_t)adjw;
    if (g->rank == 0)
        dp_log(DP_LOG_VV,
               "distributed level %d: %zu entries of rank 0 in a scratch file",
               L, m);
}

static void level_release(struct dlevel *lv)
{
    if (lv->sp.fd >= 0) {
        lv->g.adj = lv->g.adjw = NULL;
        dp_spill_close(&lv->sp);
    }
    dist_graph_release(&lv->g);
    free(lv->map);
    lv->map = NULL;
}

/* Cluster caps as the single-machine path sets them: twice an average
 * node of the graph one rank gets, and within the imbalance. */
static void caps(const struct dist_graph *g, const struct ml_params *pr,
                 int64_t stop, const int64_t *total, int64_t *cap,
                 int64_t *maxw)
{
    double eps = pr->imbalance - 1.0 > 0.01 ? pr->imbalance - 1.0 : 0.01;
    int j, b;

    for (j = 0; j < g->ncon; j++) {
        double cw = 2.0 * (double)total[j] / ((double)stop * pr->K);
        double ew = eps * (double)total[j] / pr->K;
        int64_t m = (int64_t)(pr->imbalance * (double)total[j] / pr->K);

        cap[j] = (int64_t)(cw < ew ? cw : ew);
        if (cap[j] < 1)
            cap[j] = 1;
        /* never below the average part (tiny totals round down) */
        if (m * pr->K < total[j])
            m = (total[j] + pr->K - 1) / pr->K;
        for (b = 0; b < pr->K; b++)
            maxw[(size_t)b * g->ncon + j] = m;
    }
}

/* A level's cluster cap, as the single-machine path's: at most about
 * DML_LEVEL_GROWTH of this level's average node (twice its heaviest), and
 * never more than cap. Gentle levels keep the shapes refinement works
 * with. */
static int level_cap(const struct dist_graph *g, const int64_t *cap,
                     int64_t *lcap)
{
    int64_t tot[16] = { 0 }, mx[16] = { 0 };
    int32_t v;
    int j, rc;

    for (v = 0; v < g->n; v++)
        for (j = 0; j < g->ncon; j++) {
            int64_t w = g->vw[(size_t)v * g->ncon + j];

            tot[j] += w;
            if (w > mx[j])
                mx[j] = w;
        }
    if ((rc = dp_comm_allreduce_i64(g->comm, tot, (size_t)g->ncon,
                                    DP_COMM_SUM)) ||
        (rc = dp_comm_allreduce_i64(g->comm, mx, (size_t)g->ncon, DP_COMM_MAX)))
        return rc;
    for (j = 0; j < g->ncon; j++) {
        int64_t c = (int64_t)(DML_LEVEL_GROWTH * (double)tot[j] /
                              (double)(g->N ? g->N : 1));

        if (c < 2 * mx[j])
            c = 2 * mx[j];
        lcap[j] = c < cap[j] ? c : cap[j];
    }
    return 0;
}

/* The coarsest graph partitioned as the single-machine path partitions
 * a fine graph: with a scratch folder in pol, its entries rest in a
 * scratch file while the levels below it are worked on, beside the
 * rank's own share of every distributed level. */
static int root_ml(struct ml_graph *cg, const struct ml_params *pr,
                   const struct ml_policy *pol, int32_t *all)
{
    struct ml_policy p = *pol;
    struct dp_spill sp = { .fd = -1 };
    size_t m = (size_t)cg->xadj[cg->n] * sizeof(idx_t);
    const void *adj = NULL, *adjw = NULL;
    int rc;

    if (pol->scratch && (size_t)cg->xadj[cg->n] >= pol->spill_min &&
        !dp_spill_open(&sp, pol->scratch) &&
        (adj = dp_spill_copy(&sp, cg->adj, m)) &&
        (adjw = dp_spill_copy_give(&sp, cg->adjw, m))) {
        free(cg->adj);
        free(cg->adjw);
        /* read-only mappings: the multilevel path does not write its
         * input */
        cg->adj = (idx_t *)(uintptr_t)adj;
        cg->adjw = (idx_t *)(uintptr_t)adjw;
        p.fine_spill = &sp;
    }
    /* a scratch file that failed leaves the graph in memory, as it was */
    rc = ml_partition(cg, pr, &p, all, NULL, NULL);
    if (p.fine_spill)
        cg->adj = cg->adjw = NULL;
    if (sp.fd >= 0)
        dp_spill_close(&sp);
    return rc;
}

/* The coarsest graph goes to rank 0 row by row as int32 words (global ids
 * fit at this size: the caller checks): the row's id, its degree, then
 * (neighbour, weight) pairs and its node weights. Twice, in rounds: the
 * first time just the id and degree, so rank 0 lays the rows out, the
 * second whole, copied into place as they come: rank 0 holds the graph
 * once, never the rows as sent beside it. */
struct root_io {
    const struct dist_graph *g;
    struct ml_graph *cg; /* rank 0's */
    uint8_t *seen;       /* [N] rows placed */
    int place;
};

static void put32(struct dp_comm_batch *b, int32_t x)
{
    int32_t *slot = dp_comm_batch_put(b, 0);

    if (slot)
        *slot = x;
}

static void emit_root(void *arg, int64_t v, struct dp_comm_batch *b)
{
    const struct root_io *t = arg;
    const struct dist_graph *g = t->g;
    int64_t i;
    int j;

    put32(b, (int32_t)(g->vtx[g->rank] + v));
    put32(b, (int32_t)(g->xadj[v + 1] - g->xadj[v]));
    if (!t->place)
        return;
    for (i = g->xadj[v]; i < g->xadj[v + 1]; i++) {
        put32(b, (int32_t)dist_global(g, g->adj[i]));
        put32(b, g->adjw ? g->adjw[i] : 1);
    }
    for (j = 0; j < g->ncon; j++)
        put32(b, g->vw[(size_t)v * g->ncon + j]);
}

static void take_root(void *arg, int from, const void *items, int64_t n)
{
    struct root_io *t = arg;
    const struct dist_graph *g = t->g;
    struct ml_graph *cg = t->cg;
    const int32_t *p = items, *end = p + n;

    (void)from;
    while (cg && p < end) {
        int64_t u, d, e, i;
        int j;

        dp_comm_check(g->comm, "a row's words", end - p, 2, INT64_MAX);
        u = *p++;
        d = *p++;
        dp_comm_check(g->comm, "a row id", u, 0, g->N);
        if (!t->place) {
            dp_comm_check(g->comm, "a degree", d, 0, g->entries + 1);
            dp_comm_check(g->comm, "a row sent once", t->seen[u], 0, 1);
            t->seen[u] = 1;
            cg->xadj[u + 1] = d;
            continue;
        }
        dp_comm_check(g->comm, "a row sent as counted", t->seen[u], 1, 2);
        dp_comm_check(g->comm, "a degree as counted", d,
                      cg->xadj[u + 1] - cg->xadj[u],
                      cg->xadj[u + 1] - cg->xadj[u] + 1);
        dp_comm_check(g->comm, "a row's words", end - p, 2 * d + g->ncon,
                      INT64_MAX);
        t->seen[u] = 2;
        for (e = cg->xadj[u], i = 0; i < d; i++, e++) {
            dp_comm_check(g->comm, "a neighbour id", p[0], 0, g->N);
            dp_comm_check(g->comm, "an edge weight", p[1], 1, INT32_MAX);
            cg->adj[e] = p[0];
            cg->adjw[e] = p[1];
            p += 2;
        }
        for (j = 0; j < g->ncon; j++)
            cg->vw[(size_t)u * g->ncon + j] = *p++;
    }
}

/* Rank 0's coarsest graph (cg), from every rank's rows. Every rank runs
 * both rounds whatever happens on rank 0: a failure to allocate there
 * goes to *lrc and the rows it gets are then checked and dropped. */
static int gather_root(const struct dist_graph *g, struct ml_graph *cg,
                       int *lrc)
{
    struct root_io t = { g, NULL, NULL, 0 };
    int64_t u, n = g->rank == 0 ? g->N : 0;
    int rc;

    *lrc = 0;
    if (g->rank == 0) {
        cg->n = (idx_t)g->N;
        cg->xadj = dp_calloc((size_t)n + 1, sizeof(*cg->xadj));
        t.seen = dp_calloc((size_t)n + 1, 1);
        if (cg->xadj && t.seen)
            t.cg = cg;
        else
            *lrc = DP_ENOMEM;
    }
    if ((rc = dp_comm_route_rows_each(g->comm, sizeof(int32_t), g->n, g->xadj,
                                      emit_root, &t, take_root, &t)))
        goto out;
    for (u = 0; t.cg && u < n; u++) {
        dp_comm_check(g->comm, "a row sent", t.seen[u], 1, 2);
        cg->xadj[u + 1] += cg->xadj[u];
    }
    if (t.cg) {
        dp_comm_check(g->comm, "entries", cg->xadj[n], 0, g->entries + 1);
        if (!(cg->adj =
                  dp_malloc_array((size_t)cg->xadj[n] + 1, sizeof(idx_t))) ||
            !(cg->adjw =
                  dp_malloc_array((size_t)cg->xadj[n] + 1, sizeof(idx_t))) ||
            !(cg->vw = dp_malloc_array((size_t)n * (size_t)g->ncon + 1,
                                       sizeof(idx_t)))) {
            *lrc = DP_ENOMEM;
            t.cg = NULL;
        }
    }
    t.place = 1;
    if ((rc = dp_comm_route_rows_each(g->comm, sizeof(int32_t), g->n, g->xadj,
                                      emit_root, &t, take_root, &t)))
        goto out;
    for (u = 0; t.cg && u < n; u++)
        dp_comm_check(g->comm, "a row sent whole", t.seen[u], 2, 3);
out:
    free(t.seen);
    return rc;
}

/* The coarsest level to rank 0, partitioned there, the parts back. */
static int partition_at_root(const struct dist_graph *g,
                             const struct ml_params *pr,
                             const struct ml_policy *pol, int32_t *part)
{
    size_t *counts = dp_calloc((size_t)g->P, sizeof(*counts));
    size_t *rcounts = dp_calloc((size_t)g->P, sizeof(*rcounts));
    int32_t *all = NULL;
    void *mine = NULL;
    struct ml_graph cg;
    int rc = DP_ENOMEM, lrc = 0, q;

    memset(&cg, 0, sizeof(cg));
    if (!counts || !rcounts || (rc = gather_root(g, &cg, &lrc)))
        goto out;
    if (g->rank == 0 && !lrc &&
        !(all = dp_malloc_array((size_t)g->N + 1, sizeof(*all))))
        lrc = DP_ENOMEM;
    if (g->rank == 0 && !lrc)
        lrc = root_ml(&cg, pr, pol, all);
    ml_graph_release(&cg);
    /* the root's outcome first: every rank fails together */
    {
        int64_t flag = g->rank == 0 ? lrc : 0;

        if ((rc = dp_comm_bcast(g->comm, &flag, sizeof(flag), 0)))
            goto out;
        if (flag) {
            rc = g->rank == 0 ? lrc
                              : dp_error((int)flag, "rank 0 could not "
                                                    "partition the coarsest "
                                                    "graph");
            goto out;
        }
    }
    /* each rank its own nodes' parts */
    for (q = 0; q < g->P; q++)
        counts[q] = g->rank == 0
                        ? (size_t)(g->vtx[q + 1] - g->vtx[q]) * sizeof(*all)
                        : 0;
    if ((rc = dp_comm_alltoallv(g->comm, all, counts, &mine, rcounts)))
        goto out;
    if (rcounts[0] != (size_t)g->n * sizeof(*part)) {
        rc = dp_error(DP_EPROTO, "rank %d: %zu bytes of parts for %d nodes",
                      g->rank, rcounts[0], (int)g->n);
        goto out;
    }
    memcpy(part, mine, (size_t)g->n * sizeof(*part));
out:
    ml_graph_release(&cg);
    free(counts);
    free(rcounts);
    free(all);
    free(mine);
    return rc;
}

/* The coarse part of each owned finer node, from the coarse nodes'
 * owners. */
struct proj {
    const struct dist_graph *c;
    const int32_t *cpart;
};

static int coarse_part(void *arg, const void *reqs, int64_t n, void *ans)
{
    const struct proj *pj = arg;
    const int64_t *id = reqs;
    int32_t *out = ans;
    int64_t i, v0 = pj->c->vtx[pj->c->rank];

    for (i = 0; i < n; i++) {
        dp_comm_check(pj->c->comm, "a coarse node id", id[i], v0,
                      v0 + pj->c->n);
        out[i] = pj->cpart[id[i] - v0];
    }
    return 0;
}

static int project(const struct dist_graph *f, const struct dist_graph *c,
                   const int64_t *map, const int32_t *cpart, int32_t *fpart)
{
    struct proj pj = { c, cpart };
    int *to = dp_malloc_array((size_t)f->n + 1, sizeof(*to));
    int32_t v;
    int rc;

    if (!to)
        return DP_ENOMEM;
    for (v = 0; v < f->n; v++)
        to[v] = (int)dp_range_of(c->vtx, c->P, map[v]);
    rc = dist_ask(f->comm, map, sizeof(int64_t), to, f->n, coarse_part, &pj,
                  sizeof(int32_t), fpart);
    free(to);
    return rc;
}

static void block_weights(const struct dist_graph *g, int K,
                          const int32_t *part, int64_t *pw)
{
    int32_t v;
    int j;

    memset(pw, 0, (size_t)K * (size_t)g->ncon * sizeof(*pw));
    for (v = 0; v < g->n; v++)
        for (j = 0; j < g->ncon; j++)
            pw[(size_t)part[v] * g->ncon + j] += g->vw[(size_t)v * g->ncon + j];
}

/* Coarsen from lv[0]; *L the coarsest level built. */
static int coarsen(struct dlevel *lv, int *L, const struct ml_params *pr,
                   const struct ml_policy *pol, int64_t stop,
                   int64_t gather_max, const int64_t *cap)
{
    int rc = 0;

    while (*L < DML_LEVELS && lv[*L].g.N > stop * pr->K &&
           lv[*L].g.entries > gather_max) {
        struct dist_graph *g = &lv[*L].g;
        int64_t *clus =
            dp_malloc_array((size_t)g->n + (size_t)g->ng + 1, sizeof(*clus));
        int64_t lcap[16];
        double t0 = dp_now(), t1;

        lv[*L + 1].map = dp_malloc_array((size_t)g->n + 1, sizeof(int64_t));
        if (!clus || !lv[*L + 1].map)
            rc = DP_ENOMEM;
        else if (!(rc = dp_check_interrupt()) &&
                 !(rc = level_cap(g, cap, lcap)))
            rc = dist_cluster(g, lcap, (uint64_t)pr->seed + (uint64_t)*L, clus);
        if (rc) {
            free(clus);
            free(lv[*L + 1].map);
            lv[*L + 1].map = NULL;
            return rc;
        }
        t1 = dp_now();
        if ((rc = dist_contract(g, clus, (uint64_t)pr->seed + (uint64_t)*L,
                                &lv[*L + 1].g, lv[*L + 1].map))) {
            free(clus);
            free(lv[*L + 1].map);
            lv[*L + 1].map = NULL;
            return rc;
        }
        free(clus);
        if ((double)lv[*L + 1].g.N > DML_STALL * (double)g->N) {
            level_release(&lv[*L + 1]);
            break;
        }
        level_spill(&lv[*L], *L, pol);
        (*L)++;
        if (g->rank == 0)
            dp_log(DP_LOG_VV,
                   "distributed level %d: %" PRId64 " nodes, %" PRId64
                   " entries; clustering %.2f s, contraction %.2f s",
                   *L, lv[*L].g.N, lv[*L].g.entries, t1 - t0, dp_now() - t1);
    }
    return rc;
}

int dist_partition(struct dist_graph *g, const struct ml_params *pr,
                   const struct ml_policy *pol, int64_t gather_max,
                   int32_t *part, int *levels)
{
    struct dlevel lv[DML_LEVELS + 1];
    int64_t total[16], cap[16], *maxw = NULL, *pw = NULL, stop;
    int32_t *cpart = NULL, *fpart = NULL, v;
    int L = 0, j, rc = DP_ENOMEM;

    if (g->ncon > 16)
        return dp_error(DP_EUNSUPPORTED, "%d balance constraints (at most 16)",
                        g->ncon);
    memset(lv, 0, sizeof(lv));
    for (j = 0; j <= DML_LEVELS; j++)
        lv[j].sp.fd = -1;
    lv[0].g = *g;
    stop = pol->nodes_per_part ? pol->nodes_per_part : DML_NODES_PER_PART;
    for (j = 0; j < g->ncon; j++)
        total[j] = 0;
    for (v = 0; v < g->n; v++)
        for (j = 0; j < g->ncon; j++)
            total[j] += g->vw[(size_t)v * g->ncon + j];
    maxw = dp_malloc_array((size_t)pr->K * (size_t)g->ncon + 1, sizeof(*maxw));
    pw = dp_malloc_array((size_t)pr->K * (size_t)g->ncon + 1, sizeof(*pw));
    if (!maxw || !pw)
        goto out;
    if ((rc = dp_comm_allreduce_i64(g->comm, total, (size_t)g->ncon,
                                    DP_COMM_SUM)))
        goto out;
    caps(g, pr, stop, total, cap, maxw);
    if ((rc = coarsen(lv, &L, pr, pol, stop, gather_max, cap)))
        goto out;
    if (levels)
        *levels = L;
    if (lv[L].g.N > INT32_MAX || lv[L].g.entries > ml_idx_max()) {
        rc = dp_error(DP_ETOOBIG,
                      "the coarsest distributed graph has %" PRId64
                      " nodes and %" PRId64 " entries: too many for one rank",
                      lv[L].g.N, lv[L].g.entries);
        goto out;
    }
    rc = DP_ENOMEM;
    if (!(cpart = dp_malloc_array((size_t)lv[L].g.n + (size_t)lv[L].g.ng + 1,
                                  sizeof(*cpart))))
        goto out;
    if ((rc = partition_at_root(&lv[L].g, pr, pol, cpart)))
        goto out;
    while (L > 0) {
        struct dist_graph *f = &lv[L - 1].g;

        rc = DP_ENOMEM;
        if (!(fpart = dp_malloc_array((size_t)f->n + (size_t)f->ng + 1,
                                      sizeof(*fpart))))
            goto out;
        if ((rc = project(f, &lv[L].g, lv[L].map, cpart, fpart)))
            goto out;
        free(cpart);
        cpart = fpart;
        fpart = NULL;
        level_release(&lv[L]);
        L--;
        block_weights(f, pr->K, cpart, pw);
        if ((rc = dp_comm_allreduce_i64(
                 f->comm, pw, (size_t)pr->K * (size_t)f->ncon, DP_COMM_SUM)) ||
            (rc = dp_check_interrupt()) ||
            (rc = dist_refine(f, pr->K, maxw, cpart, pw,
                              (uint64_t)pr->seed + (uint64_t)L)))
            goto out;
    }
    memcpy(part, cpart, (size_t)g->n * sizeof(*part));
    rc = 0;
out:
    while (L > 0)
        level_release(&lv[L--]);
    /* the finest level's entries are the caller's: when they went to a
     * scratch file, none are left */
    if (lv[0].sp.fd >= 0) {
        g->adj = g->adjw = NULL;
        dp_spill_close(&lv[0].sp);
    }
    free(cpart);
    free(fpart);
    free(maxw);
    free(pw);
    return rc;
}
