/* Distributed balance-aware label-propagation refinement. Each batch,
 * every rank picks for its nodes the block with the most edge weight,
 * from the blocks' weights and the ghosts' blocks as the last exchange
 * left them; what each rank asks to add to each block is then shared, and
 * a block that cannot take all of it gives each rank a share of its room
 * in proportion to its ask, which the rank fills with its best moves. No
 * block ever passes its bound, whatever the other ranks do. */
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dist.h"

#define DRF_ROUNDS 6
#define DRF_BATCHES 4
#define DRF_TURNS 3

struct move {
    int32_t v, to;
    int64_t gain;
};

struct drf {
    const struct dist_graph *g;
    int K, ncon;
    const int64_t *maxw;
    int32_t *part; /* [n + ng] */
    int64_t *pw;   /* [K * ncon] */
    int64_t *conn; /* [K] */
    int32_t *touched;
    uint64_t seed;
    struct move *mv;
    int64_t *ask, *asks, *quota; /* [K * ncon], [P * K * ncon], [K * ncon] */
};

static int fits(const int64_t *pw, const int32_t *w, const int64_t *maxw,
                int ncon)
{
    int j;

    for (j = 0; j < ncon; j++)
        if (w[j] && pw[j] + w[j] > maxw[j])
            return 0;
    return 1;
}

/* The best block for v if it gains: its id and the gain, else -1. */
static int32_t best_block(struct drf *s, int32_t v, int64_t *gain)
{
    const struct dist_graph *g = s->g;
    const int32_t *w = g->vw + (size_t)v * s->ncon;
    int32_t own = s->part[v], best = -1, nt = 0, t;
    int64_t k, best_c = 0, gv = dist_global(g, v);
    uint32_t best_h = 0;

    for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
        int32_t b = s->part[g->adj[k]];

        if (!s->conn[b])
            s->touched[nt++] = b;
        s->conn[b] += g->adjw ? g->adjw[k] : 1;
    }
    for (t = 0; t < nt; t++) {
        int32_t b = s->touched[t];
        int64_t cb = s->conn[b];
        uint32_t h = ml_mix(s->seed ^ ((uint64_t)b << 40) ^ (uint64_t)gv);

        if (b == own || cb < best_c ||
            !fits(s->pw + (size_t)b * s->ncon, w, s->maxw + (size_t)b * s->ncon,
                  s->ncon))
            continue;
        if (cb > best_c || best < 0 || h > best_h) {
            best = b;
            best_c = cb;
            best_h = h;
        }
    }
    *gain = best >= 0 ? best_c - s->conn[own] : 0;
    for (t = 0; t < nt; t++)
        s->conn[s->touched[t]] = 0;
    return best >= 0 && *gain > 0 ? best : -1;
}

static int cmp_move(const void *a, const void *b)
{
    const struct move *x = a, *y = b;

    if (x->gain != y->gain)
        return x->gain < y->gain ? 1 : -1;
    return (x->v > y->v) - (x->v < y->v);
}

/* Each rank's share of every block's room: all it asks when the block
 * can take every rank's asks, else its part in proportion. */
static void quotas(struct drf *s)
{
    int P = s->g->P, r, b, j, kc = s->K * s->ncon;

    for (b = 0; b < s->K; b++)
        for (j = 0; j < s->ncon; j++) {
            int64_t i = (int64_t)b * s->ncon + j, total = 0;
            int64_t room = s->maxw[i] - s->pw[i];

            for (r = 0; r < P; r++)
                total += s->asks[(int64_t)r * kc + i];
            s->quota[i] = total <= room
                              ? s->ask[i]
                              : (int64_t)((double)room * (double)s->ask[i] /
                                          (double)total);
        }
}

/* One batch over owned nodes [b0, b1). */
static int batch(struct drf *s, int32_t b0, int32_t b1, int64_t *moved)
{
    const struct dist_graph *g = s->g;
    int64_t nm = 0, i, kc = (int64_t)s->K * s->ncon, *delta;
    int32_t v;
    int j, rc;

    memset(s->ask, 0, (size_t)kc * sizeof(*s->ask));
    for (v = b0; v < b1; v++) {
        int64_t gain;
        int32_t to = best_block(s, v, &gain);

        if (to < 0)
            continue;
        s->mv[nm++] = (struct move){ v, to, gain };
        for (j = 0; j < s->ncon; j++)
            s->ask[(int64_t)to * s->ncon + j] += g->vw[(size_t)v * s->ncon + j];
    }
    if ((rc = dp_comm_allgather(g->comm, s->ask, (size_t)kc * sizeof(int64_t),
                                s->asks)))
        return rc;
    quotas(s);
    qsort(s->mv, (size_t)nm, sizeof(*s->mv), cmp_move);
    if (!(delta = dp_calloc((size_t)kc + 1, sizeof(*delta))))
        return DP_ENOMEM;
    /* ask and pw here stand for what this rank has used of its quota */
    memset(s->ask, 0, (size_t)kc * sizeof(*s->ask));
    for (i = 0; i < nm; i++) {
        const int32_t *w = g->vw + (size_t)s->mv[i].v * s->ncon;
        int32_t to = s->mv[i].to, from = s->part[s->mv[i].v];

        if (!fits(s->ask + (int64_t)to * s->ncon, w,
                  s->quota + (int64_t)to * s->ncon, s->ncon))
            continue;
        for (j = 0; j < s->ncon; j++) {
            s->ask[(int64_t)to * s->ncon + j] += w[j];
            delta[(int64_t)to * s->ncon + j] += w[j];
            delta[(int64_t)from * s->ncon + j] -= w[j];
        }
        s->part[s->mv[i].v] = to;
        (*moved)++;
    }
    rc = dp_comm_allreduce_i64(g->comm, delta, (size_t)kc, DP_COMM_SUM);
    for (i = 0; !rc && i < kc; i++)
        s->pw[i] += delta[i];
    free(delta);
    return rc ? rc
              : dist_halo_exchange(g, s->part, sizeof(int32_t), s->part + g->n);
}

/* FM on this rank's nodes, its ghosts fixed, within its share of every
 * block's room: its own weight in the block plus a P-th of the room left.
 * The ranks' moves then never take a block past its bound together. */
static int local_fm(struct drf *s)
{
    const struct dist_graph *g = s->g;
    int64_t kc = (int64_t)s->K * s->ncon, i, n1 = (int64_t)g->n + g->ng;
    struct ml_graph lg;
    int64_t *mine = dp_calloc((size_t)kc + 1, sizeof(*mine));
    int64_t *before = dp_malloc_array((size_t)kc + 1, sizeof(*before));
    int64_t *room = dp_malloc_array((size_t)kc + 1, sizeof(*room));
    int32_t v;
    int j, rc = DP_ENOMEM;

    memset(&lg, 0, sizeof(lg));
    lg.n = (idx_t)n1;
    lg.xadj = dp_malloc_array((size_t)n1 + 1, sizeof(*lg.xadj));
    lg.vw = dp_calloc((size_t)n1 * (size_t)s->ncon + 1, sizeof(*lg.vw));
    if (!mine || !before || !room || !lg.xadj || !lg.vw)
        goto out;
    /* ghosts: rows with no entries and no weight */
    memcpy(lg.xadj, g->xadj, ((size_t)g->n + 1) * sizeof(*lg.xadj));
    for (i = g->n + 1; i <= n1; i++)
        lg.xadj[i] = g->xadj[g->n];
    lg.adj = g->adj;
    lg.adjw = g->adjw;
    memcpy(lg.vw, g->vw, (size_t)g->n * (size_t)s->ncon * sizeof(*lg.vw));
    for (v = 0; v < g->n; v++)
        for (j = 0; j < s->ncon; j++)
            mine[(int64_t)s->part[v] * s->ncon + j] +=
                g->vw[(size_t)v * s->ncon + j];
    for (i = 0; i < kc; i++) {
        before[i] = mine[i];
        room[i] = mine[i] + (s->maxw[i] - s->pw[i]) / g->P;
    }
    if ((rc = ml_fm_fixed(&lg, g->n, s->ncon, s->K, room, s->part, mine,
                          s->seed ^ 0x9e3779b97f4a7c15ULL)))
        goto out;
    for (i = 0; i < kc; i++)
        mine[i] -= before[i];
    if ((rc = dp_comm_allreduce_i64(g->comm, mine, (size_t)kc, DP_COMM_SUM)))
        goto out;
    for (i = 0; i < kc; i++)
        s->pw[i] += mine[i];
    rc = dist_halo_exchange(g, s->part, sizeof(int32_t), s->part + g->n);
out:
    free(mine);
    free(before);
    free(room);
    free(lg.xadj);
    free(lg.vw);
    return rc;
}

int dist_refine(const struct dist_graph *g, int K, const int64_t *maxw,
                int32_t *part, int64_t *pw, uint64_t seed)
{
    struct drf s;
    int64_t kc = (int64_t)K * g->ncon, moved;
    int32_t step = g->n / DRF_BATCHES + 1, b0;
    int round, it, rc = DP_ENOMEM;

    memset(&s, 0, sizeof(s));
    s.g = g;
    s.K = K;
    s.ncon = g->ncon;
    s.maxw = maxw;
    s.part = part;
    s.pw = pw;
    s.seed = seed;
    s.conn = dp_calloc((size_t)K + 1, sizeof(*s.conn));
    s.touched = dp_malloc_array((size_t)K + 1, sizeof(*s.touched));
    s.mv = dp_malloc_array((size_t)step + 1, sizeof(*s.mv));
    s.ask = dp_malloc_array((size_t)kc + 1, sizeof(*s.ask));
    s.asks = dp_malloc_array((size_t)kc * (size_t)g->P + 1, sizeof(*s.asks));
    s.quota = dp_malloc_array((size_t)kc + 1, sizeof(*s.quota));
    if (!s.conn || !s.touched || !s.mv || !s.ask || !s.asks || !s.quota)
        goto out;
    if ((rc = dist_halo_exchange(g, part, sizeof(int32_t), part + g->n)))
        goto out;
    /* label propagation moves nodes across the ranks' borders, FM climbs
     * out of its local minima inside each rank: taken in turns, each
     * starts from what the other left */
    for (it = 0; it < DRF_TURNS; it++) {
        for (round = 0; round < DRF_ROUNDS; round++) {
            moved = 0;
            for (b0 = 0; b0 < DRF_BATCHES * step; b0 += step) {
                int32_t lo = b0 < g->n ? b0 : g->n;
                int32_t hi = b0 + step < g->n ? b0 + step : g->n;

                if ((rc = batch(&s, lo, hi, &moved)))
                    goto out;
            }
            if ((rc = dp_comm_allreduce_i64(g->comm, &moved, 1, DP_COMM_SUM)))
                goto out;
            if (moved < g->N / 1000 + 1)
                break;
        }
        s.seed += 0x9e3779b97f4a7c15ULL;
        if ((rc = local_fm(&s)))
            goto out;
    }
out:
    free(s.conn);
    free(s.touched);
    free(s.mv);
    free(s.ask);
    free(s.asks);
    free(s.quota);
    return rc;
}
