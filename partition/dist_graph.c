/* The distributed graph's plumbing: owners of global ids, local ids of
 * owned nodes and ghosts, the ghosts' exchange plan, and personalised
 * exchanges of fixed-size items. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dataset.h"
#include "dglpart/error.h"
#include "dist.h"

void dist_bad(struct dp_comm *c, const char *what, int64_t x, int64_t lo,
              int64_t hi)
{
    fprintf(stderr,
            "%s: rank %d on %s: a peer sent %s %" PRId64
            ", outside [%" PRId64 ", %" PRId64 "): stopping every rank\n",
            dp_progname(), dp_comm_rank(c), dp_comm_host(c, dp_comm_rank(c)),
            what, x, lo, hi);
    fflush(stderr);
    dp_comm_abort(c, 1);
    abort(); /* not reached */
}

void dist_graph_release(struct dist_graph *g)
{
    free(g->vtx);
    free(g->xadj);
    free(g->adj);
    free(g->adjw);
    free(g->vw);
    free(g->ghost);
    free(g->sidx);
    free(g->soff);
    free(g->roff);
    memset(g, 0, sizeof(*g));
}

int dist_owner(const int64_t *vtx, int P, int64_t x)
{
    int lo = 0, hi = P;

    /* the last rank whose range starts at or before x (empty ranges share
     * a start: the later one holds it) */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;

        if (vtx[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int32_t dist_local(const struct dist_graph *g, int64_t x)
{
    int64_t v0 = g->vtx[g->rank], lo = 0, hi = g->ng;

    if (x >= v0 && x < v0 + g->n)
        return (int32_t)(x - v0);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;

        if (g->ghost[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->ng && g->ghost[lo] == x ? (int32_t)(g->n + lo) : -1;
}

int dist_route(struct dp_comm *c, const void *items, size_t width,
               const int *to, int64_t n, void **out, int64_t *nout,
               int64_t *from)
{
    int P = dp_comm_size(c), r, rc;
    size_t *sc = dp_calloc((size_t)P, sizeof(*sc));
    size_t *rcnt = dp_calloc((size_t)P, sizeof(*rcnt));
    size_t *at = dp_calloc((size_t)P + 1, sizeof(*at)), total = 0;
    char *buf = NULL;
    int64_t i;

    *out = NULL;
    *nout = 0;
    if (!sc || !rcnt || !at) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (i = 0; i < n; i++)
        sc[to[i]] += width;
    for (r = 0; r < P; r++)
        at[r + 1] = at[r] + sc[r];
    if (!(buf = dp_malloc(at[P] ? at[P] : 1))) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (i = 0; i < n; i++) {
        memcpy(buf + at[to[i]], (const char *)items + (size_t)i * width, width);
        at[to[i]] += width;
    }
    rc = dp_comm_alltoallv(c, buf, sc, out, rcnt);
    for (r = 0; !rc && r < P; r++) {
        total += rcnt[r];
        if (from)
            from[r] = (int64_t)(rcnt[r] / width);
    }
    if (!rc)
        *nout = (int64_t)(total / width);
out:
    free(sc);
    free(rcnt);
    free(at);
    free(buf);
    return rc;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The ghosts: global ids outside the owned range, sorted, once each. */
static int find_ghosts(struct dist_graph *g, const int64_t *gadj)
{
    int64_t v0 = g->vtx[g->rank], v1 = v0 + g->n, m = g->xadj[g->n], k, ng = 0;

    if (!(g->ghost = dp_malloc_array((size_t)m + 1, sizeof(*g->ghost))))
        return DP_ENOMEM;
    for (k = 0; k < m; k++)
        if (gadj[k] < v0 || gadj[k] >= v1)
            g->ghost[ng++] = gadj[k];
    qsort(g->ghost, (size_t)ng, sizeof(*g->ghost), cmp_i64);
    m = ng;
    for (ng = 0, k = 0; k < m; k++)
        if (!ng || g->ghost[ng - 1] != g->ghost[k])
            g->ghost[ng++] = g->ghost[k];
    if (ng > INT32_MAX - g->n)
        return dp_error(DP_ETOOBIG, "rank %d: %lld ghost nodes", g->rank,
                        (long long)ng);
    g->ng = (int32_t)ng;
    return 0;
}

int dist_graph_localise(struct dist_graph *g, const int64_t *gadj)
{
    int64_t m = g->xadj[g->n], k, *req = NULL, nreq = 0;
    void *got = NULL;
    int *to = NULL, r, rc;

    if ((rc = find_ghosts(g, gadj)))
        return rc;
    g->adj = dp_malloc_array((size_t)m + 1, sizeof(*g->adj));
    g->roff = dp_calloc((size_t)g->P + 1, sizeof(*g->roff));
    g->soff = dp_calloc((size_t)g->P + 1, sizeof(*g->soff));
    to = dp_malloc_array((size_t)g->ng + 1, sizeof(*to));
    if (!g->adj || !g->roff || !g->soff || !to) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (k = 0; k < m; k++)
        g->adj[k] = dist_local(g, gadj[k]);
    /* ghosts by owner: consecutive, as they are sorted */
    for (k = 0; k < g->ng; k++) {
        to[k] = dist_owner(g->vtx, g->P, g->ghost[k]);
        g->roff[to[k] + 1]++;
    }
    for (r = 0; r < g->P; r++)
        g->roff[r + 1] += g->roff[r];
    /* each owner learns which of its nodes this rank holds, in this
     * rank's order: that is the order it sends them in */
    if ((rc = dist_route(g->comm, g->ghost, sizeof(int64_t), to, g->ng, &got,
                         &nreq, g->soff + 1)))
        goto out;
    req = got;
    for (r = 0; r < g->P; r++)
        g->soff[r + 1] += g->soff[r];
    if (!(g->sidx = dp_malloc_array((size_t)nreq + 1, sizeof(*g->sidx)))) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (k = 0; k < nreq; k++) {
        dist_check(g->comm, "a node id", req[k], g->vtx[g->rank],
                   g->vtx[g->rank] + g->n);
        g->sidx[k] = (int32_t)(req[k] - g->vtx[g->rank]);
    }
out:
    free(to);
    free(got);
    return rc;
}

int dist_halo_exchange(const struct dist_graph *g, const void *vals,
                       size_t width, void *ghost_vals)
{
    size_t *sc = dp_calloc((size_t)g->P, sizeof(*sc));
    size_t *rc_ = dp_calloc((size_t)g->P, sizeof(*rc_));
    char *buf = dp_malloc_array((size_t)g->soff[g->P] + 1, width);
    void *got = NULL;
    int64_t k;
    int r, rc = DP_ENOMEM;

    if (!sc || !rc_ || !buf)
        goto out;
    for (k = 0; k < g->soff[g->P]; k++)
        memcpy(buf + (size_t)k * width,
               (const char *)vals + (size_t)g->sidx[k] * width, width);
    for (r = 0; r < g->P; r++)
        sc[r] = (size_t)(g->soff[r + 1] - g->soff[r]) * width;
    if ((rc = dp_comm_alltoallv(g->comm, buf, sc, &got, rc_)))
        goto out;
    for (r = 0; r < g->P; r++)
        dist_check(g->comm, "a ghost count", (int64_t)(rc_[r] / width),
                   g->roff[r + 1] - g->roff[r], g->roff[r + 1] - g->roff[r] + 1);
    /* by owner rank, each in this rank's ghost order */
    memcpy(ghost_vals, got, (size_t)g->ng * width);
out:
    free(sc);
    free(rc_);
    free(buf);
    free(got);
    return rc;
}

int dist_ask(struct dp_comm *c, const void *req, size_t req_w, const int *to,
             int64_t n, dist_answer_fn answer, void *arg, size_t ans_w,
             void *ans)
{
    int P = dp_comm_size(c), r, rc;
    int64_t *from = dp_calloc((size_t)P, sizeof(*from)), nreq = 0, nback = 0;
    int64_t *at = dp_calloc((size_t)P + 1, sizeof(*at)), i, k = 0;
    int *bto = NULL;
    void *got = NULL, *back = NULL, *mine = NULL;

    rc = DP_ENOMEM;
    if (!from || !at)
        goto out;
    if ((rc = dist_route(c, req, req_w, to, n, &got, &nreq, from)))
        goto out;
    rc = DP_ENOMEM;
    if (!(mine = dp_malloc_array((size_t)nreq + 1, ans_w)) ||
        !(bto = dp_malloc_array((size_t)nreq + 1, sizeof(*bto))))
        goto out;
    if ((rc = answer(arg, got, nreq, mine)))
        goto out;
    /* the answers go back in the order the requests came */
    for (r = 0; r < P; r++)
        for (i = 0; i < from[r]; i++)
            bto[k++] = r;
    if ((rc = dist_route(c, mine, ans_w, bto, nreq, &back, &nback, from)))
        goto out;
    /* as many answers from each rank as this one asked it */
    for (i = 0; i < n; i++)
        at[to[i] + 1]++;
    for (r = 0; r < P; r++)
        dist_check(c, "an answer count", from[r], at[r + 1], at[r + 1] + 1);
    memset(at, 0, ((size_t)P + 1) * sizeof(*at));
    /* by responder rank, each in this rank's order of asking */
    for (i = 0; i < n; i++)
        at[to[i] + 1]++;
    for (r = 0; r < P; r++)
        at[r + 1] += at[r];
    for (i = 0; i < n; i++)
        memcpy((char *)ans + (size_t)i * ans_w,
               (const char *)back + (size_t)at[to[i]]++ * ans_w, ans_w);
out:
    free(from);
    free(at);
    free(bto);
    free(got);
    free(back);
    free(mine);
    return rc;
}

/* Owned ranges of about equal nodes plus in-entries: rank r's starts
 * where indptr[v] + v passes r / P of the whole. */
static int64_t range_start(const int64_t *ip, int64_t N, int r, int P)
{
    int64_t want = (int64_t)((double)(N + ip[N]) * r / P), lo = 0, hi = N;

    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;

        if (ip[mid] + mid < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;

    if (x[0] != y[0])
        return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Every owned node's in-neighbours and, sent by their owners, its
 * out-neighbours, as (row, neighbour) pairs sorted and without repeats. */
static int gather_pairs(struct dist_graph *g, const struct dp_dataset *d,
                        int64_t **pairs, int64_t *npairs)
{
    const int64_t *ip = dp_dataset_indptr(d);
    int64_t v0 = g->vtx[g->rank], v1 = g->vtx[g->rank + 1], v, k, no = 0, ni;
    int64_t m = ip[v1] - ip[v0], *out = NULL, *all = NULL;
    int *to = NULL;
    void *got = NULL;
    int rc = DP_ENOMEM;

    out = dp_malloc_array((size_t)m * 2 + 1, sizeof(*out));
    to = dp_malloc_array((size_t)m + 1, sizeof(*to));
    if (!out || !to)
        goto out;
    for (v = v0; v < v1; v++)
        for (k = ip[v]; k < ip[v + 1]; k++) {
            int64_t u = dp_dataset_src(d, k);

            if (u == v)
                continue;
            out[2 * no] = u;
            out[2 * no + 1] = v;
            to[no++] = dist_owner(g->vtx, g->P, u);
        }
    if ((rc = dist_route(g->comm, out, 2 * sizeof(int64_t), to, no, &got, &ni,
                         NULL)))
        goto out;
    free(to);
    to = NULL;
    rc = DP_ENOMEM;
    if (!(all = dp_realloc_array(out, (size_t)(no + ni) * 2 + 1, sizeof(*all))))
        goto out;
    out = NULL;
    /* the in-neighbours as (v, u); the received (u, v) are rows of u */
    for (k = 0; k < no; k++) {
        int64_t u = all[2 * k];

        all[2 * k] = all[2 * k + 1];
        all[2 * k + 1] = u;
    }
    memcpy(all + 2 * no, got, (size_t)ni * 2 * sizeof(*all));
    for (k = no; k < no + ni; k++) {
        dist_check(g->comm, "a node id", all[2 * k], v0, v1);
        dist_check(g->comm, "a neighbour id", all[2 * k + 1], 0, g->N);
    }
    qsort(all, (size_t)(no + ni), 2 * sizeof(*all), cmp_pair);
    for (m = 0, k = 0; k < no + ni; k++)
        if (!m || all[2 * (m - 1)] != all[2 * k] ||
            all[2 * (m - 1) + 1] != all[2 * k + 1]) {
            all[2 * m] = all[2 * k];
            all[2 * m + 1] = all[2 * k + 1];
            m++;
        }
    *pairs = all;
    *npairs = m;
    all = NULL;
    rc = 0;
out:
    free(out);
    free(to);
    free(all);
    free(got);
    return rc;
}

int dist_graph_from_dataset(struct dp_comm *c, const struct dp_dataset *d,
                            int ncon, int edges, struct dist_graph *g)
{
    const int64_t *ip = dp_dataset_indptr(d);
    int64_t N = d->meta.num_nodes, *pairs = NULL, np = 0, *gadj = NULL, k;
    int r, rc = DP_ENOMEM;

    memset(g, 0, sizeof(*g));
    g->comm = c;
    g->P = dp_comm_size(c);
    g->rank = dp_comm_rank(c);
    g->N = N;
    g->ncon = ncon;
    if (!(g->vtx = dp_calloc((size_t)g->P + 1, sizeof(*g->vtx))))
        goto out;
    for (r = 0; r < g->P; r++)
        g->vtx[r] = range_start(ip, N, r, g->P);
    g->vtx[g->P] = N;
    if (g->vtx[g->rank + 1] - g->vtx[g->rank] > INT32_MAX) {
        rc = dp_error(DP_ETOOBIG, "rank %d: more than 2^31 nodes", g->rank);
        goto out;
    }
    g->n = (int32_t)(g->vtx[g->rank + 1] - g->vtx[g->rank]);
    if (!edges) {
        rc = 0;
        goto out;
    }
    if ((rc = gather_pairs(g, d, &pairs, &np)))
        goto out;
    rc = DP_ENOMEM;
    g->xadj = dp_calloc((size_t)g->n + 1, sizeof(*g->xadj));
    gadj = dp_malloc_array((size_t)np + 1, sizeof(*gadj));
    if (!g->xadj || !gadj)
        goto out;
    for (k = 0; k < np; k++) {
        g->xadj[pairs[2 * k] - g->vtx[g->rank] + 1]++;
        gadj[k] = pairs[2 * k + 1];
    }
    free(pairs);
    pairs = NULL;
    for (k = 0; k < g->n; k++)
        g->xadj[k + 1] += g->xadj[k];
    g->entries = np;
    if ((rc = dp_comm_allreduce_i64(c, &g->entries, 1, DP_COMM_SUM)) ||
        (rc = dist_graph_localise(g, gadj)))
        goto out;
out:
    free(pairs);
    free(gadj);
    if (rc)
        dist_graph_release(g);
    return rc;
}

void dist_graph_release_edges(struct dist_graph *g)
{
    free(g->xadj);
    free(g->adj);
    free(g->adjw);
    free(g->vw);
    free(g->ghost);
    free(g->sidx);
    free(g->soff);
    free(g->roff);
    g->xadj = NULL;
    g->adj = g->adjw = g->vw = g->sidx = NULL;
    g->ghost = g->soff = g->roff = NULL;
    g->ng = 0;
}
