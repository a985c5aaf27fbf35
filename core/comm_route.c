/* Personalised exchanges of fixed-size items made row by row, in bounded
 * rounds (comm.h), and the check of what a peer sent. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/comm.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/thread.h"

void dp_comm_bad(struct dp_comm *c, const char *what, int64_t x, int64_t lo,
                 int64_t hi)
{
    fprintf(stderr,
            "%s: rank %d on %s: a peer sent %s %" PRId64 ", outside [%" PRId64
            ", %" PRId64 "): stopping every rank\n",
            dp_progname(), dp_comm_rank(c), dp_comm_host(c, dp_comm_rank(c)),
            what, x, lo, hi);
    fflush(stderr);
    dp_comm_abort(c, 1);
    abort(); /* not reached */
}

struct dp_comm_batch {
    int P, fill;
    size_t width;
    int64_t *cnt; /* [P] items for each rank (counting) */
    size_t *at;   /* [P] where the next item for each rank goes (filling) */
    char *buf;
};

void *dp_comm_batch_put(struct dp_comm_batch *b, int to)
{
    void *slot;

    if (!b->fill) {
        b->cnt[to]++;
        return NULL;
    }
    slot = b->buf + b->at[to];
    b->at[to] += b->width;
    return slot;
}

static void emit_rows(struct dp_comm_batch *b, int fill, int64_t r0, int64_t r1,
                      dp_comm_emit_fn emit, void *arg)
{
    int64_t r;

    b->fill = fill;
    if (!fill)
        memset(b->cnt, 0, (size_t)b->P * sizeof(*b->cnt));
    for (r = r0; r < r1; r++)
        emit(arg, r, b);
}

/* One round: rows [r0, r1) made into b->buf and exchanged; what came
 * from each sender goes to take, in rank order. */
static int route_round(struct dp_comm *c, struct dp_comm_batch *b, int64_t r0,
                       int64_t r1, dp_comm_emit_fn emit, void *arg,
                       dp_comm_take_fn take, void *targ)
{
    size_t *sc = dp_calloc((size_t)b->P, sizeof(*sc));
    size_t *rcnt = dp_calloc((size_t)b->P, sizeof(*rcnt)), off = 0, bytes = 0;
    void *got = NULL;
    int q, rc = DP_ENOMEM;

    if (!sc || !rcnt)
        goto out;
    emit_rows(b, 0, r0, r1, emit, arg);
    for (q = 0; q < b->P; q++) {
        sc[q] = (size_t)b->cnt[q] * b->width;
        b->at[q] = bytes;
        bytes += sc[q];
    }
    if (!(b->buf = dp_malloc(bytes ? bytes : 1)))
        goto out;
    emit_rows(b, 1, r0, r1, emit, arg);
    if ((rc = dp_comm_alltoallv(c, b->buf, sc, &got, rcnt)))
        goto out;
    free(b->buf);
    b->buf = NULL;
    for (q = 0; q < b->P; q++) {
        if (rcnt[q] % b->width)
            dp_comm_bad(c, "bytes from a rank, a multiple of the item width",
                        (int64_t)rcnt[q], 0, 0);
        take(targ, q, (char *)got + off, (int64_t)(rcnt[q] / b->width));
        off += rcnt[q];
    }
out:
    free(b->buf);
    b->buf = NULL;
    free(got);
    free(sc);
    free(rcnt);
    return rc;
}

/* The rounds: as many everywhere as the busiest sender needs (b->cnt
 * holds this rank's counts of all rows). */
static int route_rounds(struct dp_comm *c, struct dp_comm_batch *b,
                        int64_t nrows, const int64_t *rowpos,
                        dp_comm_emit_fn emit, void *arg, dp_comm_take_fn take,
                        void *targ)
{
    int64_t rounds, k, span, w0 = rowpos[0], wn = rowpos[nrows];
    int64_t round = (int64_t)DP_COMM_ROUND_BYTES;
    size_t sent = 0;
    int q, rc;

    if ((rc = dp_env_size("DGLPART_TEST_DIST_ROUND", &round)))
        return rc;
    for (q = 0; q < b->P; q++)
        sent += (size_t)b->cnt[q] * b->width;
    rounds = (int64_t)(sent / (size_t)round) + 1;
    if ((rc = dp_comm_allreduce_i64(c, &rounds, 1, DP_COMM_MAX)))
        return rc;
    span = (wn - w0) / rounds + 1;
    for (k = 0; k < rounds && !rc; k++) {
        int64_t r0 = dp_first_row_at(rowpos, 0, nrows, w0 + k * span);
        int64_t r1 = k + 1 == rounds ? nrows
                                     : dp_first_row_at(rowpos, 0, nrows,
                                                       w0 + (k + 1) * span);

        rc = route_round(c, b, r0, r1, emit, arg, take, targ);
    }
    return rc;
}

int dp_comm_route_rows_each(struct dp_comm *c, size_t width, int64_t nrows,
                            const int64_t *rowpos, dp_comm_emit_fn emit,
                            void *arg, dp_comm_take_fn take, void *targ)
{
    int P = dp_comm_size(c);
    struct dp_comm_batch b = { P, 0, width, NULL, NULL, NULL };
    int rc = DP_ENOMEM;

    b.cnt = dp_calloc((size_t)P, sizeof(*b.cnt));
    b.at = dp_calloc((size_t)P, sizeof(*b.at));
    if (b.cnt && b.at) {
        emit_rows(&b, 0, 0, nrows, emit, arg);
        rc = route_rounds(c, &b, nrows, rowpos, emit, arg, take, targ);
    }
    free(b.cnt);
    free(b.at);
    return rc;
}

/* dp_comm_route_rows' receiving end: each sender's items at its next place
 * in out (base[P] and done[P] in bytes, total the end). */
struct gather_into {
    struct dp_comm *c;
    size_t width, total;
    char *out;
    const size_t *base;
    size_t *done;
};

static void take_into(void *arg, int from, const void *items, int64_t n)
{
    struct gather_into *g = arg;
    size_t bytes = (size_t)n * g->width, end;

    end = from + 1 < dp_comm_size(g->c) ? g->base[from + 1] : g->total;
    /* a sender's items never pass what its counts promised */
    if (g->base[from] + g->done[from] + bytes > end)
        dp_comm_bad(g->c, "items from a rank",
                    (int64_t)((g->done[from] + bytes) / g->width), 0,
                    (int64_t)((end - g->base[from]) / g->width) + 1);
    memcpy(g->out + g->base[from] + g->done[from], items, bytes);
    g->done[from] += bytes;
}

int dp_comm_route_rows(struct dp_comm *c, size_t width, int64_t nrows,
                       const int64_t *rowpos, dp_comm_emit_fn emit, void *arg,
                       void **out, int64_t *nout)
{
    int P = dp_comm_size(c), me = dp_comm_rank(c), q;
    struct dp_comm_batch b = { P, 0, width, NULL, NULL, NULL };
    struct gather_into gi = { c, width, 0, NULL, NULL, NULL };
    int64_t *all = NULL;
    size_t *base = NULL;
    int rc = DP_ENOMEM;

    *out = NULL;
    *nout = 0;
    b.cnt = dp_calloc((size_t)P, sizeof(*b.cnt));
    b.at = dp_calloc((size_t)P, sizeof(*b.at));
    all = dp_malloc_array((size_t)P * (size_t)P, sizeof(*all));
    base = dp_calloc((size_t)P, sizeof(*base));
    gi.done = dp_calloc((size_t)P, sizeof(*gi.done));
    if (!b.cnt || !b.at || !all || !base || !gi.done)
        goto out;
    /* every rank's counts for every rank: what comes here, from whom */
    emit_rows(&b, 0, 0, nrows, emit, arg);
    if ((rc = dp_comm_allgather(c, b.cnt, (size_t)P * sizeof(*b.cnt), all)))
        goto out;
    for (q = 0; q < P; q++) {
        dp_comm_check(c, "an item count", all[(size_t)q * P + me], 0,
                      INT64_MAX / (int64_t)width / P);
        base[q] = gi.total;
        gi.total += (size_t)all[(size_t)q * P + me] * width;
    }
    gi.base = base;
    rc = DP_ENOMEM;
    if (!(gi.out = dp_malloc(gi.total ? gi.total : 1)))
        goto out;
    if ((rc = route_rounds(c, &b, nrows, rowpos, emit, arg, take_into, &gi)))
        goto out;
    for (q = 0; q < P; q++)
        if (gi.done[q] != (size_t)all[(size_t)q * P + me] * width)
            dp_comm_bad(c, "items from a rank", (int64_t)(gi.done[q] / width),
                        all[(size_t)q * P + me], all[(size_t)q * P + me] + 1);
    *out = gi.out;
    gi.out = NULL;
    *nout = (int64_t)(gi.total / width);
    rc = 0;
out:
    free(gi.out);
    free(b.cnt);
    free(b.at);
    free(all);
    free(base);
    free(gi.done);
    return rc;
}
