/* The reshuffle phase (reference/dgl.md 1b): contiguous ids, nodes by part
 * (typed: by part then type), edges by the destination's part; the
 * shuffled in-edge CSC the part writers read, and the maps back to input
 * ids. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/thread.h"
#include "phases.h"

#define SRC(d, k) dp_dataset_src((d), (k))
#define EID(d, k) dp_dataset_eid((d), (k))

/* Sources a thread gathers for one part before one write to the scratch
 * file: the threads' buffers come to about ESRC_BUF each, at least
 * ESRC_BUF_MIN a part. */
#define ESRC_BUF ((size_t)8 << 20)
#define ESRC_BUF_MIN ((size_t)16 << 10)

struct esrc_job {
    const struct dp_dataset *d;
    struct shuffle *sh;
    const int64_t *newid;
    const int32_t *part;
    int64_t u0, u1; /* input rows */
    int64_t cut;    /* sources in another part than their destination */
    int rc;
    char msg[256];
};

/* A part's run of sources on its way to the file: n of them from entry
 * base on. */
struct esrc_run {
    int64_t base;
    size_t n;
    void *a;
};

/* A run to the file, at its place. */
static int esrc_flush(struct esrc_job *jb, struct esrc_run *r, size_t w)
{
    if (!r->n || !dp_spill_write(&jb->sh->esrc_file, (size_t)r->base * w, r->a,
                                 r->n * w))
        return (int)(r->n = 0);
    snprintf(jb->msg, sizeof(jb->msg), "%s", dp_errmsg());
    return jb->rc = DP_EIO;
}

/* The copy asks for newid[] of the source this many entries ahead: the
 * map is the whole graph's, a miss a source. */
#define ESRC_AHEAD 16

/* Sources of input rows [u0, u1), read in order, each row's to its
 * shuffled place: into esrc, or through a run for its part to esrc's file
 * (pwrite: the pages are the page cache's, never this process's). A part's
 * rows keep their input order, so its runs grow in order. One sweep of
 * the CSC: taken in shuffled order, a sweep a part (rmat 27, 4 parts: 59 s
 * at one core's pace, the CSC read from the disk four times). The edge
 * cut comes with them: a source is cut off when its shuffled id lies
 * outside its destination's part's range, so no pass of its own reads the
 * CSC again (rmat 27: 16 s). */
static void *esrc_range(void *arg)
{
    struct esrc_job *jb = arg;
    struct shuffle *sh = jb->sh;
    const int64_t *ip = sh->ip, *newid = jb->newid;
    struct dp_ids out = sh->esrc;
    size_t w = out.wide ? 8 : 4, room = 0;
    struct esrc_run *run = NULL;
    int64_t u, k, end = ip[jb->u1], cut = 0;
    int p = 0;

    if (sh->esrc_in_file) {
        int64_t test = -1;

        room = ESRC_BUF / (size_t)sh->K / w;
        if (room < ESRC_BUF_MIN / w)
            room = ESRC_BUF_MIN / w;
        if (!dp_env_size("DGLPART_TEST_ESRC_RUN", &test) && test > 0)
            room = (size_t)test;
        if ((run = dp_calloc((size_t)sh->K, sizeof(*run))))
            for (p = 0; p < sh->K; p++)
                if (!(run[p].a = dp_malloc_array(room, w)))
                    break;
        if (!run || p < sh->K) {
            snprintf(jb->msg, sizeof(jb->msg), "out of memory");
            jb->rc = DP_ENOMEM;
            goto out;
        }
    }
    for (u = jb->u0; u < jb->u1 && !jb->rc; u++) {
        int64_t v = newid[u], j = sh->nptr[v], lo, span;

        p = jb->part[u];
        lo = sh->nstart[p];
        span = sh->nstart[p + 1] - lo;
        if (run && run[p].n && run[p].base + (int64_t)run[p].n != j &&
            esrc_flush(jb, &run[p], w))
            break;
        for (k = ip[u]; k < ip[u + 1]; k++, j++) {
            int64_t s = newid[SRC(jb->d, k)];

            if (k + ESRC_AHEAD < end)
                __builtin_prefetch(newid + SRC(jb->d, k + ESRC_AHEAD));
            cut += (uint64_t)(s - lo) >= (uint64_t)span;
            if (!run) {
                dp_ids_set(&out, (size_t)j, s);
                continue;
            }
            if (run[p].n == room && esrc_flush(jb, &run[p], w))
                break;
            if (!run[p].n)
                run[p].base = j;
            out.a = run[p].a;
            dp_ids_set(&out, run[p].n++, s);
        }
    }
    jb->cut = cut;
    for (p = 0; run && p < sh->K; p++)
        if (!jb->rc)
            esrc_flush(jb, &run[p], w);
out:
    for (p = 0; run && p < sh->K; p++)
        free(run[p].a);
    free(run);
    return NULL;
}

/* Room for esrc's bytes in a scratch file in scratch; 0 when made. */
static int esrc_file(struct shuffle *sh, const char *scratch, size_t bytes)
{
    if (!scratch || dp_spill_open(&sh->esrc_file, scratch))
        return -1;
    if (dp_spill_room(&sh->esrc_file, bytes) != 0) {
        dp_spill_close(&sh->esrc_file);
        return -1;
    }
    sh->esrc_in_file = 1;
    return 0;
}

/* The reshuffled CSC's sources, in two halves at once: in memory, or in a
 * scratch file in scratch, mapped once written. */
static int build_esrc(const struct dp_dataset *d, struct shuffle *sh,
                      const int64_t *newid, const int32_t *part, int wide,
                      const char *scratch)
{
    struct esrc_job jb[2];
    int64_t mid = dp_half_rows(sh->ip, 0, sh->n);
    size_t bytes;
    int i;

    sh->esrc.wide = sh->n > INT32_MAX || wide;
    bytes = (size_t)sh->e * (sh->esrc.wide ? 8 : 4);
    if (esrc_file(sh, scratch, bytes)) {
        if (scratch)
            dp_log(DP_LOG_V, "reshuffled sources stay in memory: %s",
                   dp_errmsg());
        if (dp_ids_alloc(&sh->esrc, (size_t)sh->e, sh->esrc.wide))
            return DP_ENOMEM;
    }
    jb[0] = (struct esrc_job){ d, sh, newid, part, 0, mid, 0, 0, "" };
    jb[1] = (struct esrc_job){ d, sh, newid, part, mid, sh->n, 0, 0, "" };
    dp_run_pair(esrc_range, &jb[0], &jb[1], 1);
    sh->cut = jb[0].cut + jb[1].cut;
    for (i = 0; i < 2; i++)
        if (jb[i].rc)
            return dp_error(jb[i].rc, "reshuffled sources%s%s%s: %s",
                            sh->esrc_in_file ? " (a scratch file in '" : "",
                            sh->esrc_in_file ? scratch : "",
                            sh->esrc_in_file ? "')" : "", jb[i].msg);
    if (sh->esrc_in_file && !(sh->esrc.a = (void *)(uintptr_t)dp_spill_map(
                                  &sh->esrc_file, 0, bytes)))
        return DP_ENOMEM;
    if (sh->esrc_in_file)
        dp_log(DP_LOG_V, "reshuffled sources in a scratch file: %zu bytes",
               bytes);
    return 0;
}

/* nptr from the shuffled order of the nodes. */
static void shuffled_offsets(struct shuffle *sh)
{
    int64_t v;

    sh->nptr[0] = 0;
    for (v = 0; v < sh->n; v++) {
        int64_t old = dp_ids_get(&sh->orig, (size_t)v);

        sh->nptr[v + 1] = sh->nptr[v] + (sh->ip[old + 1] - sh->ip[old]);
    }
}

/* Number each typed node by (part, type), stable inside. */
static int typed_nodes(const struct dp_dataset *d, const int32_t *part,
                       struct shuffle *sh, int64_t *newid)
{
    const struct dp_dataset_meta *m = &d->meta;
    int64_t nk = (int64_t)sh->K * sh->T, i, k, *cnt;
    int p, t;

    if (!(cnt = dp_calloc((size_t)nk + 1, sizeof(int64_t))))
        return DP_ENOMEM;
    for (t = 0; t < sh->T; t++)
        for (i = m->ntypes[t].offset;
             i < m->ntypes[t].offset + m->ntypes[t].count; i++)
            cnt[(int64_t)part[i] * sh->T + t + 1]++;
    for (k = 0; k < nk; k++)
        cnt[k + 1] += cnt[k];
    memcpy(sh->tstart, cnt, ((size_t)nk + 1) * sizeof(int64_t));
    for (p = 0; p <= sh->K; p++)
        sh->nstart[p] = sh->tstart[(int64_t)p * sh->T];
    for (t = 0; t < sh->T; t++)
        for (i = m->ntypes[t].offset;
             i < m->ntypes[t].offset + m->ntypes[t].count; i++) {
            int64_t nid = cnt[(int64_t)part[i] * sh->T + t]++;

            newid[i] = nid;
            dp_ids_set(&sh->orig, (size_t)nid, i);
        }
    free(cnt);
    return 0;
}

/* Number each typed edge by (part of its destination, edge type), in
 * destination then CSC order inside. */
static int typed_edges(const struct dp_dataset *d, struct shuffle *sh, int wide)
{
    int64_t ek = (int64_t)sh->K * sh->ET, v, k, *ecur;
    int p;

    if (!(ecur = dp_calloc((size_t)ek + 1, sizeof(int64_t))))
        return DP_ENOMEM;
    if (dp_ids_alloc(&sh->pos2eid, (size_t)sh->e, sh->e > INT32_MAX || wide)) {
        free(ecur);
        return DP_ENOMEM;
    }
    for (p = 0; p < sh->K; p++)
        for (v = sh->nstart[p]; v < sh->nstart[p + 1]; v++) {
            int64_t old = dp_ids_get(&sh->orig, (size_t)v);

            for (k = sh->ip[old]; k < sh->ip[old + 1]; k++)
                ecur[(int64_t)p * sh->ET + dp_dataset_etype_of(d, EID(d, k)) +
                     1]++;
        }
    for (k = 0; k < ek; k++)
        ecur[k + 1] += ecur[k];
    memcpy(sh->etstart, ecur, ((size_t)ek + 1) * sizeof(int64_t));
    for (p = 0; p <= sh->K; p++)
        sh->estart[p] = sh->etstart[(int64_t)p * sh->ET];
    for (p = 0; p < sh->K; p++)
        for (v = sh->nstart[p]; v < sh->nstart[p + 1]; v++) {
            int64_t old = dp_ids_get(&sh->orig, (size_t)v), j = sh->nptr[v];

            for (k = sh->ip[old]; k < sh->ip[old + 1]; k++, j++)
                dp_ids_set(&sh->pos2eid, (size_t)j,
                           ecur[(int64_t)p * sh->ET +
                                dp_dataset_etype_of(d, EID(d, k))]++);
        }
    free(ecur);
    return 0;
}

/* Typed ids: the standalone layout keeps input ids, whose types are
 * already ranges; else by (part, type), edges by (part of the
 * destination, edge type), then destination, then CSC order. */
static int reshuffle_typed(const struct dp_dataset *d, const int32_t *part,
                           struct shuffle *sh, int64_t *newid, int wide,
                           const char *scratch)
{
    const struct dp_dataset_meta *m = &d->meta;
    int64_t nk = (int64_t)sh->K * sh->T, ek = (int64_t)sh->K * sh->ET;
    int t, rc;

    sh->tstart = dp_calloc((size_t)nk + 1, sizeof(int64_t));
    sh->etstart = dp_calloc((size_t)ek + 1, sizeof(int64_t));
    if (!sh->tstart || !sh->etstart)
        return DP_ENOMEM;
    if (sh->K == 1) {
        for (t = 0; t <= sh->T; t++)
            sh->tstart[t] = t < sh->T ? m->ntypes[t].offset : sh->n;
        for (t = 0; t <= sh->ET; t++)
            sh->etstart[t] = t < sh->ET ? m->etypes[t].offset : sh->e;
        return 0;
    }
    if ((rc = typed_nodes(d, part, sh, newid)))
        return rc;
    shuffled_offsets(sh);
    if ((rc = typed_edges(d, sh, wide)))
        return rc;
    return build_esrc(d, sh, newid, part, wide, scratch);
}

/* Untyped: nodes by part, stable inside (DGL does not promise an order,
 * any is valid), edges by destination. */
static int reshuffle_untyped(const struct dp_dataset *d, const int32_t *part,
                             struct shuffle *sh, int64_t *newid, int wide,
                             const char *scratch)
{
    int64_t i, *cnt = dp_calloc((size_t)sh->K + 1, sizeof(int64_t));
    int p;

    if (!cnt)
        return DP_ENOMEM;
    for (i = 0; i < sh->n; i++)
        cnt[part[i] + 1]++;
    for (p = 0; p < sh->K; p++) {
        cnt[p + 1] += cnt[p];
        sh->nstart[p] = cnt[p];
    }
    sh->nstart[sh->K] = sh->n;
    for (i = 0; i < sh->n; i++) {
        int64_t nid = cnt[part[i]]++;

        newid[i] = nid;
        dp_ids_set(&sh->orig, (size_t)nid, i);
    }
    free(cnt);
    shuffled_offsets(sh);
    for (p = 0; p <= sh->K; p++)
        sh->estart[p] = sh->nptr[sh->nstart[p]];
    return build_esrc(d, sh, newid, part, wide, scratch);
}

int phase_reshuffle(const struct dp_dataset *d, const int32_t *part, int K,
                    int wide, const char *scratch, struct shuffle *sh)
{
    int64_t i, *newid = NULL;
    int rc;

    memset(sh, 0, sizeof(*sh));
    sh->esrc_file.fd = -1;
    sh->K = K;
    sh->T = d->meta.num_ntypes;
    sh->ET = d->meta.num_etypes;
    sh->n = d->meta.num_nodes;
    sh->e = d->meta.num_edges;
    sh->ip = dp_dataset_indptr(d);
    sh->nstart = dp_calloc((size_t)K + 1, sizeof(int64_t));
    sh->estart = dp_calloc((size_t)K + 1, sizeof(int64_t));
    sh->nptr = dp_malloc_array((size_t)sh->n + 1, sizeof(int64_t));
    /* one part keeps input ids: no map to shuffled ones */
    if (K > 1)
        newid = dp_malloc_array((size_t)sh->n + 1, sizeof(int64_t));
    if (!sh->nstart || !sh->estart || !sh->nptr || (K > 1 && !newid) ||
        dp_ids_alloc(&sh->orig, (size_t)sh->n, sh->n > INT32_MAX || wide)) {
        free(newid);
        return DP_ENOMEM;
    }
    if (K == 1) {
        /* DGL's standalone layout keeps input ids for nodes and edges */
        for (i = 0; i < sh->n; i++)
            dp_ids_set(&sh->orig, (size_t)i, i);
        memcpy(sh->nptr, sh->ip, ((size_t)sh->n + 1) * sizeof(int64_t));
        sh->nstart[1] = sh->n;
        sh->estart[1] = sh->e;
        rc = sh->T ? reshuffle_typed(d, part, sh, NULL, wide, NULL) : 0;
    } else {
        rc = sh->T ? reshuffle_typed(d, part, sh, newid, wide, scratch)
                   : reshuffle_untyped(d, part, sh, newid, wide, scratch);
    }
    /* nothing reads input ids' shuffled ones again: 8 bytes a node less
     * while the parts are written */
    free(newid);
    return rc;
}

void shuffle_release(struct shuffle *sh)
{
    free(sh->nstart);
    free(sh->estart);
    free(sh->tstart);
    free(sh->etstart);
    free(sh->nptr);
    dp_ids_release(&sh->orig);
    if (sh->esrc_in_file) {
        sh->esrc.a = NULL; /* a mapping, gone with the file */
        dp_spill_close(&sh->esrc_file);
    }
    dp_ids_release(&sh->esrc);
    dp_ids_release(&sh->pos2eid);
    memset(sh, 0, sizeof(*sh));
}

/* Where each (part, edge type) block of shuffled edges lands in a typed
 * mapping: after the types before it, then after the type's blocks of
 * earlier parts; off[r] is added to a shuffled id of block r. */
static int64_t *edge_block_offsets(const struct shuffle *sh)
{
    int ET = sh->ET ? sh->ET : 1, p, t;
    int64_t *off = dp_calloc((size_t)sh->K * (size_t)ET, sizeof(*off)), pos;

    for (pos = 0, t = 0; off && t < ET; t++)
        for (p = 0; p < sh->K; p++) {
            int64_t r = (int64_t)p * ET + t;
            int64_t e0 = sh->ET ? sh->etstart[r] : sh->estart[p];
            int64_t e1 = sh->ET ? sh->etstart[r + 1] : sh->estart[p + 1];

            off[r] = pos - e0;
            pos += e1 - e0;
        }
    return off;
}

int shuffle_orig_maps(const struct dp_dataset *d, const struct shuffle *sh,
                      int64_t *on, int64_t *oe)
{
    const struct dp_dataset_meta *m = &d->meta;
    int T = sh->T ? sh->T : 1, p, t;
    int64_t *off, pos, v, k, j, nr = (int64_t)sh->K * (sh->ET ? sh->ET : 1);

    if (oe && !d->eids.data)
        return dp_error(DP_EINVAL, "'%s' has no input edge ids", d->dir);
    for (pos = 0, t = 0; on && t < T; t++)
        for (p = 0; p < sh->K; p++) {
            int64_t r = (int64_t)p * T + t,
                    base = sh->T ? m->ntypes[t].offset : 0;
            int64_t v0 = sh->T ? sh->tstart[r] : sh->nstart[p];
            int64_t v1 = sh->T ? sh->tstart[r + 1] : sh->nstart[p + 1];

            for (v = v0; v < v1; v++)
                on[pos++] = dp_ids_get(&sh->orig, (size_t)v) - base;
        }
    if (!oe)
        return 0;
    if (!(off = edge_block_offsets(sh)))
        return DP_ENOMEM;
    for (v = 0; v < sh->n; v++) {
        int64_t old = dp_ids_get(&sh->orig, (size_t)v);

        j = sh->nptr[v];
        for (k = sh->ip[old]; k < sh->ip[old + 1]; k++, j++) {
            /* one part keeps input edge ids */
            int64_t s = sh->K == 1 ? EID(d, k) : shuffle_eid(sh, j);
            int r = sh->T ? dp_range_of(sh->etstart, (int)nr, s)
                          : dp_range_of(sh->estart, sh->K, s);

            t = sh->T ? r % sh->ET : 0;
            oe[s + off[r]] = EID(d, k) - (sh->T ? m->etypes[t].offset : 0);
        }
    }
    free(off);
    return 0;
}
