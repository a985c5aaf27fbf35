/* Distributed size-constrained label propagation and contraction. A
 * cluster is named by a global node id and its weights are kept by that
 * id's owner, which alone grants a node's move into it: nodes propose in
 * batches from the labels of the last exchange, the owners grant in the
 * order requests arrive (rank order, then the proposer's node order) while
 * the cluster stays within its cap, and the new labels go to the ranks
 * holding them as ghosts before the next batch. */
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/ids.h"
#include "dist.h"

#define DLP_ROUNDS 4
#define DLP_BATCHES 8 /* label exchanges a round */

/* A rating map keyed by cluster id: open addressing, cleared by a
 * generation stamp per node. */
struct rmap {
    int64_t *key, *val;
    uint32_t *gen;
    size_t cap; /* a power of two */
    uint32_t now;
    size_t *used; /* slots filled for this node, nused of them */
    size_t nused;
};

static int rmap_ready(struct rmap *m, size_t need)
{
    size_t cap = 16;

    while (cap < 2 * need)
        cap *= 2;
    if (cap > m->cap) {
        free(m->key);
        free(m->val);
        free(m->gen);
        free(m->used);
        m->key = dp_malloc_array(cap, sizeof(*m->key));
        m->val = dp_malloc_array(cap, sizeof(*m->val));
        m->gen = dp_calloc(cap, sizeof(*m->gen));
        m->used = dp_malloc_array(cap, sizeof(*m->used));
        m->cap = cap;
        m->now = 0;
        if (!m->key || !m->val || !m->gen || !m->used)
            return DP_ENOMEM;
    }
    m->nused = 0;
    if (++m->now == 0) {
        memset(m->gen, 0, m->cap * sizeof(*m->gen));
        m->now = 1;
    }
    return 0;
}

static int64_t *rmap_slot(struct rmap *m, int64_t k)
{
    size_t i = ml_mix((uint64_t)k) & (m->cap - 1);

    while (m->gen[i] == m->now && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (m->gen[i] != m->now) {
        m->gen[i] = m->now;
        m->key[i] = k;
        m->val[i] = 0;
        m->used[m->nused++] = i;
    }
    return &m->val[i];
}

static void rmap_free(struct rmap *m)
{
    free(m->key);
    free(m->val);
    free(m->gen);
    free(m->used);
}

/* What one cluster proposal carries to the cluster's owner. */
struct dlp_req {
    int64_t c; /* the cluster */
    int64_t v; /* the node, global id */
    int32_t w[16];
};

/* A cluster-id set of those found full (a proposal into one is spared). */
struct fullset {
    int64_t *key;
    size_t cap, n;
};

static int full_has(const struct fullset *f, int64_t c)
{
    size_t i;

    if (!f->cap)
        return 0;
    for (i = ml_mix((uint64_t)c) & (f->cap - 1); f->key[i] != -1;
         i = (i + 1) & (f->cap - 1))
        if (f->key[i] == c)
            return 1;
    return 0;
}

static int full_add(struct fullset *f, int64_t c)
{
    size_t i;

    if (2 * (f->n + 1) > f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64, j;
        int64_t *k = dp_malloc_array(cap, sizeof(*k)), *old = f->key;

        if (!k)
            return DP_ENOMEM;
        for (j = 0; j < cap; j++)
            k[j] = -1;
        for (j = 0; j < f->cap; j++)
            if (old[j] != -1) {
                for (i = ml_mix((uint64_t)old[j]) & (cap - 1); k[i] != -1;
                     i = (i + 1) & (cap - 1))
                    ;
                k[i] = old[j];
            }
        free(old);
        f->key = k;
        f->cap = cap;
    }
    if (full_has(f, c))
        return 0;
    for (i = ml_mix((uint64_t)c) & (f->cap - 1); f->key[i] != -1;
         i = (i + 1) & (f->cap - 1))
        ;
    f->key[i] = c;
    f->n++;
    return 0;
}

static int fits(const int64_t *cw, const int32_t *w, const int64_t *cap,
                int ncon)
{
    int j;

    for (j = 0; j < ncon; j++)
        if (w[j] && cw[j] + w[j] > cap[j])
            return 0;
    return 1;
}

struct dlp {
    struct dist_graph *g;
    const int64_t *cap;
    uint64_t seed;
    int64_t *clus; /* [n + ng] */
    int64_t *cw;   /* [n * ncon] weights of the clusters this rank owns */
    struct rmap rm;
    struct fullset full;
    int64_t *want; /* [n] proposed cluster, -1 none */
};

/* The cluster v is most tied to, if better than its own and not known to
 * be full; -1 to stay. */
static int64_t choose(struct dlp *s, int32_t v)
{
    const struct dist_graph *g = s->g;
    int64_t own = s->clus[v], best = own, best_r, own_r, k,
            v0 = g->vtx[g->rank];
    int64_t gv = v0 + v;
    uint32_t best_h = 0;
    size_t i;

    for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
        *rmap_slot(&s->rm, s->clus[g->adj[k]]) += g->adjw ? g->adjw[k] : 1;
    own_r = *rmap_slot(&s->rm, own);
    best_r = own_r;
    for (i = 0; i < s->rm.nused; i++) {
        int64_t c = s->rm.key[s->rm.used[i]], r = s->rm.val[s->rm.used[i]];
        uint32_t h;

        if (c == own || r < best_r || full_has(&s->full, c))
            continue;
        /* a cluster of this rank's: its weight is known exactly */
        if (c >= v0 && c < v0 + g->n &&
            !fits(s->cw + (c - v0) * g->ncon, g->vw + (size_t)v * g->ncon,
                  s->cap, g->ncon))
            continue;
        /* ties: a seeded hash, so no id order is favoured */
        h = ml_mix(s->seed ^ ((uint64_t)c << 20) ^ (uint64_t)gv);
        if (r > best_r || best == own || h > best_h) {
            best = c;
            best_r = r;
            best_h = h;
        }
    }
    return best != own && best_r > own_r ? best : -1;
}

/* The owners grant the requests they got, in the order they came. */
static int grant(void *arg, const void *reqs, int64_t n, void *ans)
{
    struct dlp *s = arg;
    const struct dist_graph *g = s->g;
    const struct dlp_req *req = reqs;
    uint8_t *ok = ans;
    int64_t i, v0 = g->vtx[g->rank];

    for (i = 0; i < n; i++) {
        int64_t *cw;
        int j;

        dp_comm_check(g->comm, "a cluster id", req[i].c, v0, v0 + g->n);
        cw = s->cw + (req[i].c - v0) * g->ncon;
        ok[i] = (uint8_t)fits(cw, req[i].w, s->cap, g->ncon);
        if (ok[i])
            for (j = 0; j < g->ncon; j++)
                cw[j] += req[i].w[j];
    }
    return 0;
}

/* One batch: proposals for owned nodes [b0, b1), grants, departures, new
 * labels to the ghosts. *moved counts the moves. */
static int batch(struct dlp *s, int32_t b0, int32_t b1, int64_t *moved)
{
    struct dist_graph *g = s->g;
    int64_t nr = 0, nleave = 0, nback = 0, i, v0 = g->vtx[g->rank];
    struct dlp_req *out = dp_malloc_array((size_t)(b1 - b0) + 1, sizeof(*out));
    int *to = dp_malloc_array((size_t)(b1 - b0) + 1, sizeof(*to));
    int32_t *who = dp_malloc_array((size_t)(b1 - b0) + 1, sizeof(*who));
    uint8_t *ok = dp_malloc((size_t)(b1 - b0) + 1);
    void *got = NULL;
    int32_t v;
    int rc = DP_ENOMEM, j;

    if (!out || !to || !who || !ok)
        goto out;
    for (v = b0; v < b1; v++) {
        int64_t c;

        if ((rc =
                 rmap_ready(&s->rm, (size_t)(g->xadj[v + 1] - g->xadj[v]) + 1)))
            goto out;
        if ((c = choose(s, v)) < 0)
            continue;
        memset(&out[nr], 0, sizeof(out[nr]));
        out[nr].c = c;
        out[nr].v = v0 + v;
        for (j = 0; j < g->ncon; j++)
            out[nr].w[j] = g->vw[(size_t)v * g->ncon + j];
        to[nr] = (int)dp_range_of(g->vtx, g->P, c);
        who[nr++] = v;
    }
    if ((rc = dist_ask(g->comm, out, sizeof(*out), to, nr, grant, s, 1, ok)))
        goto out;
    /* accepted: leave the old cluster (its owner is told), join the new */
    for (i = 0; i < nr; i++) {
        int32_t u = who[i];
        int64_t c = out[i].c;

        if (!ok[i]) {
            if ((rc = full_add(&s->full, c)))
                goto out;
            continue;
        }
        out[nleave] = out[i];
        out[nleave].c = s->clus[u];
        for (j = 0; j < g->ncon; j++)
            out[nleave].w[j] = -out[nleave].w[j];
        to[nleave++] = (int)dp_range_of(g->vtx, g->P, s->clus[u]);
        s->clus[u] = c;
        (*moved)++;
    }
    if ((rc = dist_route(g->comm, out, sizeof(*out), to, nleave, &got, &nback,
                         NULL)))
        goto out;
    for (i = 0; i < nback; i++) {
        const struct dlp_req *d = (const struct dlp_req *)got + i;

        dp_comm_check(g->comm, "a cluster id", d->c, v0, v0 + g->n);
        for (j = 0; j < g->ncon; j++)
            s->cw[(d->c - v0) * g->ncon + j] += d->w[j];
    }
    rc = dist_halo_exchange(g, s->clus, sizeof(int64_t), s->clus + g->n);
out:
    free(out);
    free(to);
    free(who);
    free(ok);
    free(got);
    return rc;
}

/* Nodes with no neighbour never move: group them, in id order, into
 * clusters of this rank up to the cap. */
static void group_isolated(struct dlp *s)
{
    const struct dist_graph *g = s->g;
    int64_t v0 = g->vtx[g->rank], group = -1;
    int32_t v;
    int j;

    for (v = 0; v < g->n; v++) {
        const int32_t *w = g->vw + (size_t)v * g->ncon;

        if (g->xadj[v] != g->xadj[v + 1] || s->clus[v] != v0 + v)
            continue;
        if (group >= 0 &&
            fits(s->cw + (group - v0) * g->ncon, w, s->cap, g->ncon)) {
            for (j = 0; j < g->ncon; j++) {
                s->cw[(group - v0) * g->ncon + j] += w[j];
                s->cw[(size_t)v * g->ncon + j] -= w[j];
            }
            s->clus[v] = group;
        } else {
            group = v0 + v;
        }
    }
}

int dist_cluster(struct dist_graph *g, const int64_t *cap, uint64_t seed,
                 int64_t *clus)
{
    struct dlp s;
    int64_t i, moved;
    int32_t step = g->n / DLP_BATCHES + 1, b0;
    int round, rc = 0;

    if (g->ncon > 16)
        return dp_error(DP_EUNSUPPORTED, "%d balance constraints (at most 16)",
                        g->ncon);
    memset(&s, 0, sizeof(s));
    s.g = g;
    s.cap = cap;
    s.seed = seed;
    s.clus = clus;
    if (!(s.cw = dp_malloc_array((size_t)g->n * (size_t)g->ncon + 1,
                                 sizeof(*s.cw))))
        return DP_ENOMEM;
    for (i = 0; i < g->n + g->ng; i++)
        clus[i] = dist_global(g, (int32_t)i);
    for (i = 0; i < (int64_t)g->n * g->ncon; i++)
        s.cw[i] = g->vw[i];
    for (round = 0; !rc && round < DLP_ROUNDS; round++) {
        moved = 0;
        /* every rank runs the same number of batches */
        for (b0 = 0; !rc && b0 < DLP_BATCHES * step; b0 += step) {
            int32_t lo = b0 < g->n ? b0 : g->n;
            int32_t hi = b0 + step < g->n ? b0 + step : g->n;

            rc = batch(&s, lo, hi, &moved);
        }
        if (!rc)
            rc = dp_comm_allreduce_i64(g->comm, &moved, 1, DP_COMM_SUM);
        if (!rc && moved < g->N / 100 + 1)
            break;
    }
    if (!rc) {
        group_isolated(&s);
        rc = dist_halo_exchange(g, clus, sizeof(int64_t), clus + g->n);
    }
    rmap_free(&s.rm);
    free(s.full.key);
    free(s.cw);
    return rc;
}

/* ---- contraction ---- */

struct ct_state {
    const struct dist_graph *g;
    uint8_t *used; /* [n] this rank's node ids that name a cluster */
    int64_t *cid;  /* [n] their coarse ids */
};

static int mark_used(void *arg, const void *reqs, int64_t n, void *ans)
{
    struct ct_state *s = arg;
    const int64_t *c = reqs;
    int64_t i, v0 = s->g->vtx[s->g->rank];

    memset(ans, 1, (size_t)n);
    for (i = 0; i < n; i++) {
        dp_comm_check(s->g->comm, "a cluster id", c[i], v0, v0 + s->g->n);
        s->used[c[i] - v0] = 1;
    }
    return 0;
}

static int coarse_of(void *arg, const void *reqs, int64_t n, void *ans)
{
    struct ct_state *s = arg;
    const int64_t *c = reqs;
    int64_t *out = ans, i, v0 = s->g->vtx[s->g->rank];

    for (i = 0; i < n; i++) {
        dp_comm_check(s->g->comm, "a cluster id", c[i], v0, v0 + s->g->n);
        out[i] = s->cid[c[i] - v0];
    }
    return 0;
}

/* Coarse edges travel to the owner of their row as a stream of words
 * (int32, or int64 for wide ids): -(row + 1) opens a fine row's entries
 * (the coarse row's offset in the owner's range), then each entry's
 * coarse neighbour, followed by its weight on weighted levels. They go
 * twice, in rounds: first as just the row's word and its count, so the
 * owner makes each coarse row's room, then whole, put in place as they
 * come: neighbours (4 bytes, 8 wide) and, on weighted levels, weights (4).
 * Nothing is held but the entries. */
struct cents {
    struct dp_ids cu; /* coarse neighbours, int64 when wide */
    int32_t *w;       /* their weights; NULL: all 1 (the finest level) */
    int wide;
};

static inline int64_t cent_cu(const struct cents *e, int64_t i)
{
    return dp_ids_get(&e->cu, (size_t)i);
}

static inline int32_t cent_w(const struct cents *e, int64_t i)
{
    return e->w ? e->w[i] : 1;
}

static inline void cent_set(struct cents *e, int64_t i, int64_t cu, int32_t w)
{
    dp_ids_set(&e->cu, (size_t)i, cu);
    if (e->w)
        e->w[i] = w;
}

static void cents_release(struct cents *e)
{
    dp_ids_release(&e->cu);
    free(e->w);
    e->w = NULL;
}

/* Coarse ids: the clusters named by this rank's ids, in id order, after
 * those of the ranks before; map[n] each owned node's. */
static int number_clusters(const struct dist_graph *g, const int64_t *clus,
                           struct dist_graph *c, int64_t *map)
{
    struct ct_state s = { g, NULL, NULL };
    int64_t *cnt = NULL, nc = 0, i;
    int *to = dp_malloc_array((size_t)g->n + 1, sizeof(*to)), r, rc = DP_ENOMEM;
    uint8_t *ack = dp_malloc((size_t)g->n + 1);

    s.used = dp_calloc((size_t)g->n + 1, 1);
    s.cid = dp_malloc_array((size_t)g->n + 1, sizeof(*s.cid));
    cnt = dp_calloc((size_t)g->P, sizeof(*cnt));
    c->vtx = dp_calloc((size_t)g->P + 1, sizeof(*c->vtx));
    if (!to || !ack || !s.used || !s.cid || !cnt || !c->vtx)
        goto out;
    for (i = 0; i < g->n; i++)
        to[i] = (int)dp_range_of(g->vtx, g->P, clus[i]);
    if ((rc = dist_ask(g->comm, clus, sizeof(int64_t), to, g->n, mark_used, &s,
                       1, ack)))
        goto out;
    for (i = 0; i < g->n; i++)
        nc += s.used[i] != 0;
    cnt[g->rank] = nc;
    if ((rc = dp_comm_allreduce_i64(g->comm, cnt, (size_t)g->P, DP_COMM_SUM)))
        goto out;
    for (r = 0; r < g->P; r++)
        c->vtx[r + 1] = c->vtx[r] + cnt[r];
    for (nc = c->vtx[g->rank], i = 0; i < g->n; i++)
        s.cid[i] = s.used[i] ? nc++ : -1;
    rc = dist_ask(g->comm, clus, sizeof(int64_t), to, g->n, coarse_of, &s,
                  sizeof(int64_t), map);
out:
    free(to);
    free(ack);
    free(s.used);
    free(s.cid);
    free(cnt);
    return rc;
}

struct ct_emit {
    const struct dist_graph *g;
    const struct dist_graph *c;
    const int64_t *cmap;
    int wide, weighted, count;
};

static void put_word(struct dp_comm_batch *b, int to, int wide, int64_t x)
{
    void *slot = dp_comm_batch_put(b, to);

    if (slot && wide)
        *(int64_t *)slot = x;
    else if (slot)
        *(int32_t *)slot = (int32_t)x;
}

/* A fine row's coarse entries; counting, just how many (after the row's
 * word, a second word). */
static void emit_coarse(void *arg, int64_t row, struct dp_comm_batch *b)
{
    const struct ct_emit *e = arg;
    const struct dist_graph *g = e->g;
    int64_t cv = e->cmap[row], k, n = 0;
    int to = (int)dp_range_of(e->c->vtx, e->c->P, cv);

    for (k = g->xadj[row]; k < g->xadj[row + 1]; k++) {
        int64_t cu = e->cmap[g->adj[k]];

        if (cu == cv)
            continue;
        if (!n++)
            put_word(b, to, e->wide, -(cv - e->c->vtx[to]) - 1);
        if (e->count)
            continue;
        put_word(b, to, e->wide, cu);
        if (e->weighted)
            put_word(b, to, e->wide, g->adjw ? g->adjw[k] : 1);
    }
    if (n && e->count)
        put_word(b, to, e->wide, n);
}

static inline int64_t word_at(const void *s, int wide, int64_t i)
{
    return wide ? ((const int64_t *)s)[i] : ((const int32_t *)s)[i];
}

/* What comes of emit_coarse, taken twice: the counts into c->xadj, then
 * the entries into e at next[] (a peer sending other rows or more entries
 * the second time is stopped). */
struct ct_take {
    struct dist_graph *c;
    struct cents *e;
    int64_t *next;
    int64_t most; /* entries a fine row can have */
    int weighted, place;
};

static void take_coarse(void *arg, int from, const void *s, int64_t ns)
{
    struct ct_take *t = arg;
    struct dist_graph *c = t->c;
    int wide = t->e->wide, step = t->place ? 1 + t->weighted : 1;
    int64_t i = 0, row = -1;

    (void)from;
    while (i < ns) {
        int64_t x = word_at(s, wide, i), w = 1;

        if (x < 0) {
            row = -x - 1;
            dp_comm_check(c->comm, "a coarse row", row, 0, c->n);
            i++;
            continue;
        }
        dp_comm_check(c->comm, "a coarse row before its entries", row, 0, c->n);
        dp_comm_check(c->comm, "a coarse entry's words", ns - i, step,
                      INT64_MAX);
        if (!t->place) {
            /* x is the row's count, the item after its word */
            dp_comm_check(c->comm, "a coarse row's count", x, 1, t->most + 1);
            c->xadj[row + 1] += x;
            row = -1;
            i++;
            continue;
        }
        dp_comm_check(c->comm, "a coarse neighbour id", x, 0, c->N);
        if (t->weighted) {
            w = word_at(s, wide, i + 1);
            dp_comm_check(c->comm, "an edge weight", w, 1, INT32_MAX);
        }
        dp_comm_check(c->comm, "an entry of a coarse row", t->next[row],
                      c->xadj[row], c->xadj[row + 1]);
        cent_set(t->e, t->next[row]++, x, (int32_t)w);
        i += step;
    }
}

/* The coarse edges this rank's rows make, sent to the owners of the
 * coarse rows twice: counted, then (every row's room made) placed. */
static int gather_coarse(const struct dist_graph *g, struct ct_emit *em,
                         struct dist_graph *c, struct cents *e, int64_t *ne)
{
    struct ct_take t = { c, e, NULL, g->entries, em->weighted, 0 };
    size_t width = e->wide ? 8 : 4;
    int64_t r;
    int rc = DP_ENOMEM;

    c->xadj = dp_calloc((size_t)c->n + 1, sizeof(*c->xadj));
    t.next = dp_malloc_array((size_t)c->n + 1, sizeof(*t.next));
    if (!c->xadj || !t.next)
        goto out;
    em->count = 1;
    if ((rc = dp_comm_route_rows_each(g->comm, width, g->n, g->xadj,
                                      emit_coarse, em, take_coarse, &t)))
        goto out;
    for (r = 0; r < c->n; r++) {
        c->xadj[r + 1] += c->xadj[r];
        t.next[r] = c->xadj[r];
    }
    *ne = c->xadj[c->n];
    rc = DP_ENOMEM;
    if (dp_ids_alloc(&e->cu, (size_t)*ne + 1, e->wide) ||
        (em->weighted &&
         !(e->w = dp_malloc_array((size_t)*ne + 1, sizeof(*e->w)))))
        goto out;
    em->count = 0;
    t.place = 1;
    if ((rc = dp_comm_route_rows_each(g->comm, width, g->n, g->xadj,
                                      emit_coarse, em, take_coarse, &t)))
        goto out;
    dist_check_filled(c->comm, "entries of a coarse row", t.next, c->xadj,
                      c->n);
out:
    free(t.next);
    return rc;
}

/* A fine node's weights to its coarse node's owner: the coarse id, then
 * ncon int32 weights, copied in and out (8 + 4 ncon bytes). */
struct cn_io {
    const struct dist_graph *g;
    struct dist_graph *c;
    const int64_t *cmap;
};

static void emit_cnode(void *arg, int64_t v, struct dp_comm_batch *b)
{
    const struct cn_io *t = arg;
    char *x =
        dp_comm_batch_put(b, (int)dp_range_of(t->c->vtx, t->c->P, t->cmap[v]));

    if (x) {
        memcpy(x, &t->cmap[v], sizeof(int64_t));
        memcpy(x + sizeof(int64_t), t->g->vw + (size_t)v * t->g->ncon,
               (size_t)t->g->ncon * sizeof(int32_t));
    }
}

static void take_cnode(void *arg, int from, const void *items, int64_t n)
{
    const struct cn_io *t = arg;
    struct dist_graph *c = t->c;
    size_t width = sizeof(int64_t) + (size_t)c->ncon * sizeof(int32_t);
    int64_t i, cv, c0 = c->vtx[c->rank];
    int j;

    (void)from;
    for (i = 0; i < n; i++) {
        const char *x = (const char *)items + (size_t)i * width;
        int32_t *w, add;

        memcpy(&cv, x, sizeof(cv));
        dp_comm_check(c->comm, "a coarse node id", cv, c0, c0 + c->n);
        w = c->vw + (size_t)(cv - c0) * c->ncon;
        for (j = 0; j < c->ncon; j++) {
            memcpy(&add, x + sizeof(int64_t) + (size_t)j * sizeof(add),
                   sizeof(add));
            w[j] += add;
        }
    }
}

/* The coarse node weights and edges of this rank's nodes, sent to the
 * coarse nodes' owners in rounds; what this rank gets, gathered by row,
 * is its part of the coarse graph (e, c->xadj, *nep entries). */
static int coarse_rows(const struct dist_graph *g, const int64_t *cmap,
                       struct dist_graph *c, struct cents *e, int64_t *nep)
{
    struct ct_emit em = { g, c, cmap, e->wide, 0, 0 };
    struct cn_io cn = { g, c, cmap };
    int64_t weighted = g->adjw != NULL;
    int rc;

    if (!(c->vw =
              dp_calloc((size_t)c->n * (size_t)c->ncon + 1, sizeof(*c->vw))))
        return DP_ENOMEM;
    if ((rc = dp_comm_route_rows_each(
             g->comm, sizeof(int64_t) + (size_t)g->ncon * sizeof(int32_t), g->n,
             g->xadj, emit_cnode, &cn, take_cnode, &cn)))
        return rc;
    /* every rank writes and reads the words alike */
    if ((rc = dp_comm_allreduce_i64(g->comm, &weighted, 1, DP_COMM_MAX)))
        return rc;
    em.weighted = (int)weighted;
    if ((rc = gather_coarse(g, &em, c, e, nep)))
        cents_release(e);
    return rc;
}

struct cpair {
    int64_t cu;
    int32_t w;
};

static int cmp_cpair(const void *a, const void *b)
{
    int64_t x = ((const struct cpair *)a)->cu,
            y = ((const struct cpair *)b)->cu;

    return (x > y) - (x < y);
}

/* Each row of e sorted by neighbour, repeats merged (weights summed,
 * saturated as METIS takes them), in place; *ne gets the entries left.
 * Unweighted, the rows are sorted first and the weights, the repeats'
 * counts, take room only for the entries that stay. */
static int merge_rows(struct dist_graph *c, struct cents *e, int64_t *ne)
{
    int64_t i, k, r, wmax = ml_idx_max(), most = 0, u = 0;
    struct cpair *row = NULL;
    int weighted = e->w != NULL;

    for (r = 0; r < c->n; r++) {
        int64_t b = c->xadj[r], end = c->xadj[r + 1];

        if (end - b > most)
            most = end - b;
        if (weighted)
            continue;
        dist_sort_ids(e->cu.a, e->wide, b, end);
        for (i = b; i < end; i++)
            u += i == b || cent_cu(e, i) != cent_cu(e, i - 1);
    }
    if (weighted ? !(row = dp_malloc_array((size_t)most + 1, sizeof(*row)))
                 : !(e->w = dp_malloc_array((size_t)u + 1, sizeof(*e->w))))
        return DP_ENOMEM;
    for (k = 0, r = 0; r < c->n; r++) {
        int64_t b = c->xadj[r], end = c->xadj[r + 1], n = end - b;

        c->xadj[r] = k;
        if (weighted) {
            for (i = 0; i < n; i++)
                row[i] = (struct cpair){ cent_cu(e, b + i), e->w[b + i] };
            if (n > 24)
                qsort(row, (size_t)n, sizeof(*row), cmp_cpair);
            else
                for (i = 1; i < n; i++) {
                    struct cpair x = row[i];
                    int64_t j;

                    for (j = i; j > 0 && row[j - 1].cu > x.cu; j--)
                        row[j] = row[j - 1];
                    row[j] = x;
                }
        }
        for (i = 0; i < n; i++) {
            int64_t cu = weighted ? row[i].cu : cent_cu(e, b + i);
            int64_t w = weighted ? row[i].w : 1;

            if (k > c->xadj[r] && cent_cu(e, k - 1) == cu) {
                w += e->w[k - 1];
                e->w[k - 1] = (int32_t)(w > wmax ? wmax : w);
                continue;
            }
            dp_ids_set(&e->cu, (size_t)k, cu);
            e->w[k++] = (int32_t)w;
        }
    }
    c->xadj[c->n] = k;
    *ne = k;
    free(row);
    return 0;
}

/* Unit-weight coarse edges sampled so a level keeps about DC_SHED of the
 * entries of the one before, or DC_DEGREE_GROWTH times its average
 * degree if that is more, as the single-machine path does (multilevel.c's
 * SHED: rmat otherwise keeps 90-95% of its entries a level). Both owners
 * of an edge decide alike from a hash of its two ends, so the graph stays
 * symmetric; heavier edges, the ones clusters form around, all stay. */
#define DC_SHED 0.5
#define DC_SAMPLE_MIN 0.25
#define DC_DEGREE_GROWTH 2.0
static int shed_units(const struct dist_graph *g, struct dist_graph *c,
                      struct cents *e, int64_t *ne, uint64_t seed)
{
    int64_t cnt[2] = { *ne, 0 }, i, k, r, c0 = c->vtx[c->rank];
    double want, grow, keep;
    uint32_t bar;
    int rc;

    for (i = 0; i < *ne; i++)
        cnt[1] += cent_w(e, i) == 1;
    if ((rc = dp_comm_allreduce_i64(g->comm, cnt, 2, DP_COMM_SUM)))
        return rc;
    want = DC_SHED * (double)g->entries;
    grow = DC_DEGREE_GROWTH * (double)g->entries / (double)g->N * (double)c->N;
    if (want < grow)
        want = grow;
    if (!cnt[1] || (double)cnt[0] <= want)
        return 0;
    keep = (want - (double)(cnt[0] - cnt[1])) / (double)cnt[1];
    if (keep < DC_SAMPLE_MIN)
        keep = DC_SAMPLE_MIN;
    bar = (uint32_t)(keep * 4294967295.0);
    for (k = 0, r = 0; r < c->n; r++) {
        int64_t b = c->xadj[r], end = c->xadj[r + 1], a = c0 + r;

        c->xadj[r] = k;
        for (i = b; i < end; i++) {
            int64_t cu = cent_cu(e, i), lo = a < cu ? a : cu, hi = a ^ cu ^ lo;
            uint64_t h = ml_mix((uint64_t)lo) ^
                         ((uint64_t)hi << 32 | (uint64_t)hi >> 32);
            int32_t w = cent_w(e, i);

            if (w == 1 && ml_mix(seed ^ h) > bar)
                continue;
            cent_set(e, k++, cu, w);
        }
    }
    c->xadj[c->n] = k;
    *ne = k;
    return 0;
}

int dist_contract(const struct dist_graph *g, const int64_t *clus,
                  uint64_t seed, struct dist_graph *c, int64_t *map)
{
    int64_t *cmap = NULL, ne = 0;
    struct cents e = { { NULL, 0 }, NULL, 0 };
    void *gadj = NULL;
    int rc;

    memset(c, 0, sizeof(*c));
    c->comm = g->comm;
    c->P = g->P;
    c->rank = g->rank;
    c->ncon = g->ncon;
    if ((rc = number_clusters(g, clus, c, map)))
        goto out;
    c->N = c->vtx[c->P];
    c->n = (int32_t)(c->vtx[c->rank + 1] - c->vtx[c->rank]);
    e.wide = dist_wide(c->N);
    rc = DP_ENOMEM;
    if (!(cmap =
              dp_malloc_array((size_t)g->n + (size_t)g->ng + 1, sizeof(*cmap))))
        goto out;
    memcpy(cmap, map, (size_t)g->n * sizeof(*cmap));
    if ((rc = dist_halo_exchange(g, cmap, sizeof(int64_t), cmap + g->n)) ||
        (rc = coarse_rows(g, cmap, c, &e, &ne)))
        goto out;
    free(cmap);
    cmap = NULL;
    if ((rc = merge_rows(c, &e, &ne)) || (rc = shed_units(g, c, &e, &ne, seed)))
        goto out;
    /* the entries are the coarse rows: what merging and shedding freed
     * goes back */
    {
        void *t = realloc(e.cu.a, (size_t)ne * (e.wide ? 8 : 4) + 1);

        if (t)
            e.cu.a = t;
        if ((t = realloc(e.w, (size_t)ne * sizeof(*e.w) + 1)))
            e.w = t;
    }
    gadj = e.cu.a;
    e.cu.a = NULL;
    c->adjw = e.w;
    e.w = NULL;
    c->entries = ne;
    if ((rc = dp_comm_allreduce_i64(g->comm, &c->entries, 1, DP_COMM_SUM)))
        goto out;
    rc = dist_graph_localise(c, gadj, e.wide);
    gadj = NULL;
out:
    free(cmap);
    free(gadj);
    cents_release(&e);
    if (rc)
        dist_graph_release(c);
    return rc;
}
