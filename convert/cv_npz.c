/* NumPy .npz archives: zips of .npy arrays, streamed entry by entry through
 * libarchive. Arrays are recognised by name:
 *   row + col (scipy COO, with shape), src + dst, edge_index [2, E]: edges
 *   shape, num_nodes_list: node count
 *   feature / feat / features / node_feat [N, D] (float16/32/64): feat.npy
 *   label / labels / node_label [N] or [N, 1] (int, or float with NaN = -1)
 *   node_types [N] (1 train, 2 val, 3 test, as in DGL's Reddit)
 *   train_mask / val_mask / test_mask [N]
 * Anything else (scipy's "format" and "data", node_year, ...) is skipped. */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/comm.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/npy.h"

#define NPZ_CHUNK (1u << 20)

enum kind {
    K_SKIP,
    K_SRC,
    K_DST,
    K_EDGE_INDEX,
    K_SHAPE,
    K_NUM_NODES,
    K_FEAT,
    K_LABEL,
    K_TYPES,
    K_TRAIN,
    K_VAL,
    K_TEST
};

static enum kind kind_of(const char *key)
{
    static const struct {
        const char *name;
        enum kind k;
    } names[] = {
        { "row", K_SRC },
        { "src", K_SRC },
        { "col", K_DST },
        { "dst", K_DST },
        { "edge_index", K_EDGE_INDEX },
        { "shape", K_SHAPE },
        { "num_nodes_list", K_NUM_NODES },
        { "feature", K_FEAT },
        { "features", K_FEAT },
        { "feat", K_FEAT },
        { "node_feat", K_FEAT },
        { "label", K_LABEL },
        { "labels", K_LABEL },
        { "node_label", K_LABEL },
        { "node_types", K_TYPES },
        { "train_mask", K_TRAIN },
        { "val_mask", K_VAL },
        { "test_mask", K_TEST },
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(key, names[i].name))
            return names[i].k;
    return K_SKIP;
}

struct entry {
    struct cv_src *s;
    const char *name; /* "file.npz:key.npy" */
    struct dp_npy_header h;
    size_t esize;
    int64_t size; /* the entry's bytes by the zip's directory, or -1 */
    unsigned char *buf;
    size_t chunk; /* items read at a time, at most NPZ_CHUNK */
};

/* Read the .npy header at the start of the entry. */
static int read_header(struct entry *e)
{
    unsigned char pre[12], *hdr;
    size_t got, hlen, start;
    int rc;

    if ((rc = cv_src_read(e->s, pre, 10, &got)))
        return rc;
    if (got < 10 || memcmp(pre, "\x93NUMPY", 6))
        return dp_error(DP_EFORMAT, "'%s': not an .npy array (bad magic)",
                        e->name);
    if (pre[6] == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
        start = 10;
    } else {
        if ((rc = cv_src_read(e->s, pre + 10, 2, &got)))
            return rc;
        if (got < 2)
            return dp_error(DP_EFORMAT, "'%s': truncated .npy header", e->name);
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
               (size_t)pre[11] << 24;
        start = 12;
    }
    if (hlen > 65536)
        return dp_error(DP_EFORMAT,
                        "'%s': .npy header of %zu bytes is too "
                        "long",
                        e->name, hlen);
    hdr = dp_malloc(start + hlen);
    if (!hdr)
        return DP_ENOMEM;
    memcpy(hdr, pre, start);
    rc = cv_src_read(e->s, hdr + start, hlen, &got);
    if (!rc && got < hlen)
        rc = dp_error(DP_EFORMAT, "'%s': truncated .npy header", e->name);
    if (!rc)
        rc = dp_npy_parse_header(hdr, start + hlen, e->name, &e->h);
    free(hdr);
    if (!rc)
        e->esize = dp_dtype_size(e->h.dtype);
    return rc;
}

/* The header against the entry's size, before any data is read: a cut or
 * inconsistent array is named at once, not after gigabytes of it. */
static int check_size(const struct entry *e)
{
    uint64_t want;
    char desc[128];

    if (e->size < 0)
        return 0;
    if (__builtin_mul_overflow(e->h.count, (uint64_t)e->esize, &want) ||
        __builtin_add_overflow(want, (uint64_t)e->h.data_offset, &want))
        want = UINT64_MAX;
    if (want == (uint64_t)e->size)
        return 0;
    dp_npy_describe(e->h.dtype, e->h.ndim, e->h.shape, desc, sizeof(desc));
    return dp_error(DP_EFORMAT,
                    "'%s': its header promises %s (%" PRIu64
                    " bytes with the header), the entry holds %" PRId64
                    " bytes",
                    e->name, desc, want, e->size);
}

/* Next chunk of at most max items: *n items in e->buf, 0 at a short end. */
static int read_items(struct entry *e, uint64_t left, size_t *n)
{
    size_t want = left < e->chunk ? (size_t)left : e->chunk, got;
    int rc = cv_src_read(e->s, e->buf, want * e->esize, &got);

    if (rc)
        return rc;
    if (got != want * e->esize)
        return dp_error(DP_EFORMAT,
                        "'%s': truncated array data (the header "
                        "promises %" PRIu64 " items)",
                        e->name, e->h.count);
    *n = want;
    return 0;
}

static int expect(struct entry *e, int ok, const char *what)
{
    char found[128];

    if (ok)
        return 0;
    dp_npy_describe(e->h.dtype, e->h.ndim, e->h.shape, found, sizeof(found));
    return dp_error(DP_EFORMAT, "'%s': expected %s, found %s", e->name, what,
                    found);
}

static int set_nodes(struct cv_npz *z, int64_t n, const char *from)
{
    if (z->n >= 0 && z->n != n)
        return dp_error(DP_EFORMAT,
                        "'%s' implies %" PRId64 " nodes, but %s "
                        "implies %" PRId64,
                        from, n, z->n_from, z->n);
    z->n = n;
    snprintf(z->n_from, sizeof(z->n_from), "'%s'", from);
    return 0;
}

/* Degrees are counted as the ids stream in (dst, and src for an
 * undirected graph), with the arrays' first touch on the warming thread,
 * so the CSC makes no counting pass over the edges (at rmat 25 a third of
 * its time; convert 3.8-9.3 s faster of 42-53). For edges in scratch
 * files on a thread of their own (struct counter): there this thread is
 * the read's bottleneck (at rmat 27 counting on it added 36 s to the read
 * for 30 s it saved the CSC), and no warming thread runs beside it. Not
 * for a rank's share, or when a column comes twice (the second
 * overwrites the first). */
static int count_start(struct cv_graph *g, struct cv_npz *z, int col)
{
    struct cv_edges *ed = &g->edges;
    int und = g->o && g->o->undirected;

    if (!ed->deg && !z->have_src && !z->have_dst && !g->share && !g->typed &&
        !ed->bkt) {
        int64_t cap = z->n >= 0 ? z->n + 1 : 0;

        if (cap && !(ed->deg = dp_calloc((size_t)cap, sizeof(*ed->deg))))
            return DP_ENOMEM;
        if (cap)
            cv_hugepages(ed->deg, (size_t)cap * sizeof(*ed->deg));
        ed->ndeg = cap;
        ed->counted = 0;
        ed->deg_und = und;
        z->count = und ? 3 : 2;
    }
    if ((col ? z->have_dst : z->have_src) && ed->deg) {
        /* a second array for a column: count the CSC's way */
        free(ed->deg);
        ed->deg = NULL;
        ed->ndeg = 0;
        z->count = 0;
    }
    return 0;
}

/* Chunks of ids counted into ed->deg on a thread of their own, copied
 * before the reader lets their pages go. deg grows only while the queue
 * is empty (counter_push drains it first), so the thread never sees it
 * move. */
#define COUNT_SLOTS 4

struct counter {
    struct cv_edges *ed;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void *buf[COUNT_SLOTS]; /* NPZ_CHUNK ids of 8 bytes */
    size_t len[COUNT_SLOTS];
    int wide[COUNT_SLOTS]; /* int64 ids: the store widened */
    unsigned head, tail;   /* chunks pushed, chunks counted */
    int stop, started;
};

static void *count_run(void *arg)
{
    struct counter *c = arg;
    const struct cv_edges *ed = c->ed;

    for (;;) {
        unsigned slot;
        size_t i, n;
        int wide;

        pthread_mutex_lock(&c->mu);
        while (c->tail == c->head && !c->stop)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->tail == c->head) {
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
        slot = c->tail % COUNT_SLOTS;
        n = c->len[slot];
        wide = c->wide[slot];
        pthread_mutex_unlock(&c->mu);
        if (wide)
            for (i = 0; i < n; i++)
                ed->deg[((const int64_t *)c->buf[slot])[i]]++;
        else
            for (i = 0; i < n; i++)
                ed->deg[((const uint32_t *)c->buf[slot])[i]]++;
        pthread_mutex_lock(&c->mu);
        c->tail++;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
}

/* Wait until every chunk pushed is counted. */
static void counter_drain(struct counter *c)
{
    pthread_mutex_lock(&c->mu);
    while (c->tail != c->head)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

/* Where the thread or its buffers cannot be had, c stays unstarted and
 * the reader counts on its own thread. */
static void counter_start(struct counter *c, struct cv_edges *ed)
{
    size_t i;

    memset(c, 0, sizeof(*c));
    c->ed = ed;
    for (i = 0; i < COUNT_SLOTS; i++)
        if (!(c->buf[i] = malloc((size_t)NPZ_CHUNK * 8)))
            goto fail;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (pthread_create(&c->tid, NULL, count_run, c)) {
        pthread_cond_destroy(&c->cv);
        pthread_mutex_destroy(&c->mu);
        goto fail;
    }
    c->started = 1;
    return;
fail:
    for (i = 0; i < COUNT_SLOTS; i++)
        free(c->buf[i]);
}

/* Edges [from, to) of column col (at most NPZ_CHUNK) to be counted: deg
 * grown to every id so far first, with the queue drained. */
static int counter_push(struct counter *c, int col, uint64_t from, uint64_t to)
{
    struct cv_edges *ed = c->ed;
    size_t iw = ed->wide ? 8 : 4;
    unsigned slot;
    int rc;

    if (ed->max_id >= ed->ndeg) {
        counter_drain(c);
        if ((rc = cv_edges_deg_fit(ed)))
            return rc;
    }
    pthread_mutex_lock(&c->mu);
    while (c->head - c->tail == COUNT_SLOTS)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
    slot = c->head % COUNT_SLOTS;
    memcpy(c->buf[slot], (char *)(col ? ed->dst : ed->src) + from * iw,
           (to - from) * iw);
    c->len[slot] = to - from;
    c->wide[slot] = ed->wide;
    pthread_mutex_lock(&c->mu);
    c->head++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return 0;
}

/* Count what is queued, then stop the thread. */
static void counter_stop(struct counter *c)
{
    size_t i;

    if (!c->started)
        return;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->tid, NULL);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    for (i = 0; i < COUNT_SLOTS; i++)
        free(c->buf[i]);
    c->started = 0;
}

/* Store a chunk of int64 ids at slot at of column col, k the first's
 * entry, in loops without a branch an item; 0 when an id needs the item
 * loop's checks (negative, too large, or too wide for uint32 arrays). */
static int put_i64(struct cv_edges *ed, int col, const int64_t *v, size_t n,
                   uint64_t at, uint64_t k)
{
    int64_t lo = 0, hi = -1;
    size_t i;

    for (i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (lo < 0 || hi >= CV_MAX_NODES || (!ed->wide && hi > (int64_t)UINT32_MAX))
        return 0;
    if (hi > ed->max_id) {
        for (i = 0; v[i] != hi; i++)
            ;
        ed->max_id = hi;
        ed->max_line = k + i;
    }
    if (ed->wide) {
        memcpy((int64_t *)(col ? ed->dst : ed->src) + at, v, n * sizeof(*v));
    } else {
        uint32_t *o = (uint32_t *)(col ? ed->dst : ed->src) + at;

        for (i = 0; i < n; i++)
            o[i] = (uint32_t)v[i];
    }
    return 1;
}

static int read_ids_in(struct cv_graph *g, struct cv_npz *z, struct entry *e,
                       int col, uint64_t count, struct counter *cnt);

/* Stream ids into the edge store's src (col 0) or dst (col 1) array. */
static int read_ids(struct cv_graph *g, struct cv_npz *z, struct entry *e,
                    int col, uint64_t count)
{
    struct counter cnt = { .started = 0 };
    int rc = read_ids_in(g, z, e, col, count, &cnt);

    counter_stop(&cnt);
    return rc;
}

static int read_ids_in(struct cv_graph *g, struct cv_npz *z, struct entry *e,
                       int col, uint64_t count, struct counter *cnt)
{
    struct cv_edges *ed = &g->edges;
    uint64_t k = 0, lo = 0, hi = count, kept = 0;
    size_t n, i;
    int rc;

    if (g->share) { /* this rank's P-th of the edges, in input order */
        lo = (uint64_t)((unsigned __int128)count * (unsigned)g->share->rank /
                        (unsigned)g->share->size);
        hi = (uint64_t)((unsigned __int128)count *
                        (unsigned)(g->share->rank + 1) /
                        (unsigned)g->share->size);
    }
    if (z->ne < 0) {
        z->ne = (int64_t)count;
        z->e_lo = (int64_t)lo;
        if ((rc = cv_edges_grow(ed, hi > lo ? hi - lo : 1)))
            return rc;
        /* the arrays' first touch (16 us a page on this VM) on a thread
         * of its own, ahead of the ids, while this one counts degrees */
        cv_edges_warm(ed);
        ed->n = hi - lo;
        free(z->edge_file);
        z->edge_file = dp_strdup(e->name);
    } else if ((uint64_t)z->ne != count) {
        return dp_error(DP_EFORMAT,
                        "'%s': %" PRIu64 " edge ends, but '%s' "
                        "has %" PRId64,
                        e->name, count, z->edge_file, z->ne);
    }
    if (!dp_dtype_is_int(e->h.dtype) || e->h.dtype == DP_BOOL)
        return expect(e, 0, "integer node ids");
    if ((rc = count_start(g, z, col)))
        return rc;
    if (z->count & 1 << col && ed->spilled)
        counter_start(cnt, ed);
    while (k < count) {
        uint64_t k0;

        if ((rc = read_items(e, count - k, &n)))
            return rc;
        if (k + n <= lo || k >= hi) { /* another rank's */
            k += n;
            continue;
        }
        k0 = k > lo ? k : lo;
        /* the usual chunk: int64 ids, all this reader's, all in range */
        if (e->h.dtype == DP_I64 && k >= lo && k + n <= hi &&
            put_i64(ed, col, (const int64_t *)(void *)e->buf, n, k - lo, k))
            k += n;
        else
            for (i = 0; i < n; i++, k++) {
                int64_t v;

                if (k < lo || k >= hi)
                    continue;
                v = dp_dtype_get_i64(e->h.dtype, e->buf + i * e->esize);

                if (v < 0)
                    return dp_error(DP_ERANGE,
                                    "'%s' entry %" PRIu64 ": expected "
                                    "a non-negative node id",
                                    e->name, k);
                /* the node count may be max id + 1 (cv_npz_finish) */
                if (v >= CV_MAX_NODES)
                    return dp_error(DP_ERANGE,
                                    "'%s' entry %" PRIu64 ": node id %" PRId64
                                    " too large (ids must be below 2^62)",
                                    e->name, k, v);
                if (v > ed->max_id) {
                    ed->max_id = v;
                    ed->max_line = k;
                    if (!ed->wide && v > (int64_t)UINT32_MAX &&
                        (rc = cv_edges_widen(ed)))
                        return rc;
                }
                if (ed->wide)
                    ((int64_t *)(col ? ed->dst : ed->src))[k - lo] = v;
                else
                    ((uint32_t *)(col ? ed->dst : ed->src))[k - lo] =
                        (uint32_t)v;
            }
        /* counted while the block is in the caches, before it may go */
        if (z->count & 1 << col &&
            (rc = cnt->started
                      ? counter_push(cnt, col, k0 - lo, (k < hi ? k : hi) - lo)
                      : cv_edges_count(ed, col, k0 - lo,
                                       (k < hi ? k : hi) - lo)))
            return rc;
        /* edges in scratch files: each block written leaves the
         * resident set (rmat 27's 12.9 GB of ids held 10.5 GiB of RSS) */
        if (ed->spilled && k > lo) {
            cv_edges_drop(ed, kept, (k < hi ? k : hi) - lo);
            kept = (k < hi ? k : hi) - lo;
        }
    }
    counter_stop(cnt);
    *(col ? &z->have_dst : &z->have_src) = 1;
    if (z->have_src && z->have_dst)
        cv_edges_warm_stop(ed);
    if (z->count & 1 << col) {
        z->count &= ~(1 << col);
        /* every column the degrees need is in */
        if (!z->count)
            ed->counted = ed->n;
    }
    return 0;
}

static int read_feat(struct cv_graph *g, struct cv_npz *z, struct entry *e)
{
    struct dp_npy_writer w;
    int64_t shape[2];
    uint64_t k = 0;
    float *out = NULL;
    char *path;
    size_t n, i;
    int rc, opened = 0;

    if ((rc = expect(e,
                     e->h.ndim == 2 &&
                         (e->h.dtype == DP_F16 || e->h.dtype == DP_F32 ||
                          e->h.dtype == DP_F64),
                     "float16, float32 or float64 [N, D]")))
        return rc;
    if (z->have_feat)
        return dp_error(DP_EFORMAT, "'%s': a second feature array", e->name);
    shape[0] = e->h.shape[0];
    shape[1] = e->h.shape[1];
    path = cv_graph_path(g, "feat.npy");
    out = dp_malloc(NPZ_CHUNK * sizeof(float));
    rc = path && out ? dp_npy_writer_open(&w, path, DP_F32, 2, shape)
                     : DP_ENOMEM;
    opened = path && out;
    free(path);
    while (!rc && k < e->h.count) {
        if ((rc = read_items(e, e->h.count - k, &n)))
            break;
        if (e->h.dtype == DP_F32)
            memcpy(out, e->buf, n * 4);
        else
            for (i = 0; i < n; i++)
                out[i] =
                    (float)dp_dtype_get_f64(e->h.dtype, e->buf + i * e->esize);
        rc = dp_npy_writer_write(&w, out, n);
        k += n;
    }
    if (!rc)
        rc = dp_npy_writer_commit(&w);
    else if (opened)
        dp_npy_writer_abort(&w);
    free(out);
    if (rc)
        return rc;
    z->have_feat = 1;
    z->feat_rows = shape[0];
    z->feat_dim = shape[1];
    free(z->feat_file);
    z->feat_file = dp_strdup(e->name);
    return set_nodes(z, shape[0], e->name);
}

/* Labels, node types and masks: small [N] arrays read whole. */
static int read_node_ints(struct cv_npz *z, struct entry *e, enum kind k)
{
    int64_t n = e->h.shape[0], i, *label = NULL;
    uint8_t *m[3] = { NULL, NULL, NULL };
    uint64_t at = 0;
    size_t got, j;
    int rc, c;

    if ((rc =
             expect(e, e->h.ndim == 1 || (e->h.ndim == 2 && e->h.shape[1] == 1),
                    "a node array [N] or [N, 1]")))
        return rc;
    if (k == K_LABEL) {
        if (!(label = dp_malloc_array(n ? (size_t)n : 1, sizeof(*label))))
            return DP_ENOMEM;
    } else {
        for (c = 0; c < 3; c++)
            if ((k == K_TYPES || (int)k - K_TRAIN == c) &&
                !(m[c] = dp_calloc(n ? (size_t)n : 1, 1))) {
                rc = DP_ENOMEM;
                goto out;
            }
    }
    i = 0;
    while (at < (uint64_t)n) {
        if ((rc = read_items(e, (uint64_t)n - at, &got)))
            goto out;
        for (j = 0; j < got; j++, i++) {
            const unsigned char *p = e->buf + j * e->esize;
            int64_t v;

            if (dp_dtype_is_int(e->h.dtype)) {
                v = dp_dtype_get_i64(e->h.dtype, p);
            } else {
                double f = dp_dtype_get_f64(e->h.dtype, p);

                if (isnan(f) && k == K_LABEL) {
                    v = -1;
                } else if (f != floor(f) || f < -1 || f > 9e15) {
                    rc = dp_error(DP_EFORMAT,
                                  "'%s' entry %" PRId64 ": "
                                  "expected an integer value, found %g",
                                  e->name, i, f);
                    goto out;
                } else {
                    v = (int64_t)f;
                }
            }
            if (k == K_LABEL) {
                if (v < -1) {
                    rc = dp_error(DP_ERANGE,
                                  "'%s' entry %" PRId64 ": label %" PRId64
                                  " (expected >= 0, or -1 for none)",
                                  e->name, i, v);
                    goto out;
                }
                if (v >= CV_MAX_LABEL) {
                    rc = dp_error(DP_ERANGE,
                                  "'%s' entry %" PRId64 ": label %" PRId64
                                  " too large (labels must be below 2^53)",
                                  e->name, i, v);
                    goto out;
                }
                label[i] = v;
                if (v > z->label_max)
                    z->label_max = v;
            } else if (k == K_TYPES) {
                if (v >= 1 && v <= 3)
                    m[v - 1][i] = 1;
            } else {
                m[k - K_TRAIN][i] = v != 0;
            }
        }
        at += got;
    }
    if (label) {
        free(z->label);
        z->label = label;
        label = NULL;
        z->nlabel = n;
        free(z->label_file);
        z->label_file = dp_strdup(e->name);
    }
    for (c = 0; c < 3; c++)
        if (m[c]) {
            free(z->mask[c]);
            z->mask[c] = m[c];
            m[c] = NULL;
            z->nmask[c] = n;
            free(z->mask_file[c]);
            z->mask_file[c] = dp_strdup(e->name);
        }
    rc = set_nodes(z, n, e->name);
out:
    free(label);
    for (c = 0; c < 3; c++)
        free(m[c]);
    return rc;
}

static int read_entry(struct cv_graph *g, struct cv_npz *z, struct entry *e,
                      enum kind k)
{
    int rc;
    size_t n;

    if ((rc = read_header(e)) || (rc = check_size(e)))
        return rc;
    switch (k) {
    case K_SRC:
    case K_DST:
        if ((rc = expect(e, e->h.ndim == 1, "integer node ids [E]")))
            return rc;
        return read_ids(g, z, e, k == K_DST, e->h.count);
    case K_EDGE_INDEX:
        if ((rc = expect(e, e->h.ndim == 2 && e->h.shape[0] == 2,
                         "integer node ids [2, E]")))
            return rc;
        return (rc = read_ids(g, z, e, 0, (uint64_t)e->h.shape[1]))
                   ? rc
                   : read_ids(g, z, e, 1, (uint64_t)e->h.shape[1]);
    case K_SHAPE:
    case K_NUM_NODES:
        if ((rc = expect(e,
                         dp_dtype_is_int(e->h.dtype) && e->h.ndim == 1 &&
                             e->h.count >= 1 && e->h.count <= 2,
                         k == K_SHAPE ? "int [2]" : "int [1]")) ||
            (rc = read_items(e, e->h.count, &n)))
            return rc;
        if (k == K_SHAPE && e->h.count == 2 &&
            dp_dtype_get_i64(e->h.dtype, e->buf) !=
                dp_dtype_get_i64(e->h.dtype, e->buf + e->esize))
            return dp_error(DP_EFORMAT,
                            "'%s': a %" PRId64 " x %" PRId64
                            " matrix is not a square adjacency matrix",
                            e->name, dp_dtype_get_i64(e->h.dtype, e->buf),
                            dp_dtype_get_i64(e->h.dtype, e->buf + e->esize));
        return set_nodes(z, dp_dtype_get_i64(e->h.dtype, e->buf), e->name);
    case K_FEAT:
        return read_feat(g, z, e);
    case K_LABEL:
    case K_TYPES:
    case K_TRAIN:
    case K_VAL:
    case K_TEST:
        return read_node_ints(z, e, k);
    default:
        return 0;
    }
}

int cv_npz_file(struct cv_graph *g, struct cv_npz *z, const char *path)
{
    struct cv_zip *zip;
    const char *name;
    char sha[65], *label = NULL;
    unsigned char *buf = dp_malloc(NPZ_CHUNK * 8);
    uint64_t size;
    int64_t chunk = NPZ_CHUNK;
    int rc;

    /* tests read in small chunks, so many go through the degree count */
    if ((rc = dp_env_int("DGLPART_TEST_NPZ_CHUNK", &chunk))) {
        free(buf);
        return rc;
    }

    if (!buf || (!z->input && !(z->input = dp_strdup(path)))) {
        free(buf);
        return DP_ENOMEM;
    }
    if ((rc = cv_zip_open(&zip, path, cv_hashing(g)))) {
        free(buf);
        return rc;
    }
    for (;;) {
        struct cv_src s;
        struct entry e;
        char key[128];
        const char *base;
        size_t l;
        enum kind k;

        if ((rc = cv_zip_next(zip, &name)) || !name)
            break;
        base = strrchr(name, '/');
        base = base ? base + 1 : name;
        l = strlen(base);
        if (l < 5 || strcmp(base + l - 4, ".npy") || l - 4 >= sizeof(key))
            continue;
        memcpy(key, base, l - 4);
        key[l - 4] = '\0';
        if ((k = kind_of(key)) == K_SKIP)
            continue;
        /* under mpirun the node arrays are rank 0's */
        if (g->share && g->share->rank && k >= K_FEAT)
            continue;
        free(label);
        label = dp_malloc(strlen(path) + strlen(name) + 2);
        if (!label) {
            rc = DP_ENOMEM;
            break;
        }
        sprintf(label, "%s:%s", path, name);
        if ((rc = cv_src_open_zip(&s, zip, label, 1)))
            break;
        memset(&e, 0, sizeof(e));
        e.s = &s;
        e.name = label;
        e.size = cv_zip_entry_size(zip);
        e.buf = buf;
        e.chunk = (size_t)chunk;
        rc = read_entry(g, z, &e, k);
        cv_src_close(&s, NULL, NULL);
        if (rc)
            break;
    }
    if (!rc)
        rc = cv_zip_finish(zip);
    cv_zip_close(zip, sha, &size);
    free(label);
    free(buf);
    if (rc || (g->share && g->share->rank))
        return rc;
    return cv_graph_add_input(g, path, size, sha);
}

void cv_npz_init(struct cv_npz *z)
{
    memset(z, 0, sizeof(*z));
    z->ne = -1;
    z->n = -1;
    z->label_max = -1;
}

void cv_npz_release(struct cv_npz *z)
{
    int c;

    free(z->input);
    free(z->edge_file);
    free(z->feat_file);
    free(z->label);
    free(z->label_file);
    for (c = 0; c < 3; c++) {
        free(z->mask[c]);
        free(z->mask_file[c]);
    }
    memset(z, 0, sizeof(*z));
}

int cv_npz_finish(struct cv_graph *g, struct cv_npz *z)
{
    static const char *const masks[3] = { "train_mask.npy", "val_mask.npy",
                                          "test_mask.npy" };
    int64_t n;
    int rc = 0, c;

    if (!z->have_src || !z->have_dst) {
        rc = dp_error(DP_ENOENT,
                      "'%s': no edges: expected row and col, src and dst, "
                      "or edge_index arrays",
                      z->input ? z->input : "");
        goto out;
    }
    free(g->edge_src);
    g->edge_src = dp_strdup(z->edge_file ? z->edge_file : "");
    if (z->n >= 0) {
        if (g->o->num_nodes >= 0 && g->o->num_nodes != z->n) {
            rc = dp_error(DP_EINVAL,
                          "--num_nodes %" PRId64 " disagrees with "
                          "%s (%" PRId64 " nodes)",
                          g->o->num_nodes, z->n_from, z->n);
            goto out;
        }
        g->num_nodes = z->n;
        snprintf(g->nodes_from, sizeof(g->nodes_from), "%s", z->n_from);
    } else if (g->num_nodes < 0) {
        g->num_nodes = g->edges.max_id + 1;
    }
    n = g->num_nodes;
    if (g->edges.max_id >= n) {
        rc = dp_error(DP_ERANGE,
                      "'%s' entry %" PRIu64 ": node id %" PRId64
                      " out of range [0, %" PRId64 ") (%s)",
                      z->edge_file, g->edges.max_line, g->edges.max_id, n,
                      g->nodes_from);
        goto out;
    }
    if (z->have_feat && z->feat_rows != n) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': %" PRId64 " rows, expected %" PRId64 " (%s)",
                      z->feat_file, z->feat_rows, n, g->nodes_from);
        goto out;
    }
    if (z->label && z->nlabel != n) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': %" PRId64 " labels, expected %" PRId64 " (%s)",
                      z->label_file, z->nlabel, n, g->nodes_from);
        goto out;
    }
    for (c = 0; c < 3; c++)
        if (z->mask[c] && z->nmask[c] != n) {
            rc =
                dp_error(DP_EFORMAT,
                         "'%s': %" PRId64 " entries, expected %" PRId64 " (%s)",
                         z->mask_file[c], z->nmask[c], n, g->nodes_from);
            goto out;
        }
    if (z->have_feat)
        g->meta.feat_dim = z->feat_dim;
    if (z->label) {
        if ((rc = cv_graph_write_i64(g, "label.npy", z->label, n)))
            goto out;
        g->meta.num_classes = z->label_max + 1 > 0 ? z->label_max + 1 : 1;
    }
    for (c = 0; c < 3; c++) {
        if (!z->mask[c])
            continue;
        if ((rc = cv_graph_write_mask(g, masks[c], z->mask[c], n)))
            goto out;
        *(c == 0   ? &g->meta.has_train
          : c == 1 ? &g->meta.has_val
                   : &g->meta.has_test) = 1;
    }
out:
    cv_npz_release(z);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of in (one .npz, or a folder's in name order) into z. */
static int read_files(struct cv_graph *g, struct cv_npz *z, const char *in)
{
    char *names[64];
    int n = 0, i, rc = 0;

    if (!(z->input = dp_strdup(in)))
        return DP_ENOMEM;
    if (!dp_is_dir(in)) {
        rc = cv_npz_file(g, z, in);
    } else {
        DIR *d = opendir(in);
        struct dirent *de;

        while (d && (de = readdir(d)) && n < 64) {
            size_t l = strlen(de->d_name);

            if (l > 4 && !strcmp(de->d_name + l - 4, ".npz"))
                names[n++] = dp_path_join(in, de->d_name);
        }
        if (d)
            closedir(d);
        for (i = 0; i < n; i++)
            if (!names[i])
                rc = DP_ENOMEM;
        if (!rc && !n)
            rc = dp_error(DP_ENOENT, "'%s': no .npz files", in);
        if (!rc)
            qsort(names, (size_t)n, sizeof(*names), cmp_str);
        for (i = 0; i < n && !rc; i++)
            rc = cv_npz_file(g, z, names[i]);
        for (i = 0; i < n; i++)
            free(names[i]);
    }
    return rc;
}

int cv_read_npz(struct cv_graph *g, const char *in)
{
    struct cv_npz z;
    int rc;

    cv_npz_init(&z);
    if ((rc = read_files(g, &z, in))) {
        cv_npz_release(&z);
        return rc;
    }
    return cv_npz_finish(g, &z);
}

int cv_npz_dist_finish(struct cv_graph *g, struct dp_comm *c, struct cv_npz *z,
                       struct cv_eids *ids, int64_t *edges)
{
    int64_t n, top[2];
    int rc, lrc = 0;

    /* every rank read the edge arrays' headers: the same counts */
    if (!z->have_src || !z->have_dst)
        lrc = dp_error(DP_ENOENT,
                       "'%s': no edges: expected row and col, src and dst, "
                       "or edge_index arrays",
                       z->input ? z->input : "");
    if ((rc = dp_comm_agree(c, lrc)))
        goto out;
    memset(ids, 0, sizeof(*ids));
    ids->lo = z->e_lo;
    *edges = z->ne;
    /* rank 0 read the node arrays too: the count they imply is every
     * rank's */
    if ((rc = dp_comm_bcast(c, &z->n, sizeof(z->n), 0)) ||
        (rc = dp_comm_bcast(c, z->n_from, sizeof(z->n_from), 0)))
        goto out;
    z->n_from[sizeof(z->n_from) - 1] = '\0';
    if (z->n >= 0 && g->o->num_nodes >= 0 && g->o->num_nodes != z->n)
        lrc = dp_error(DP_EINVAL,
                       "--num_nodes %" PRId64 " disagrees with "
                       "%s (%" PRId64 " nodes)",
                       g->o->num_nodes, z->n_from, z->n);
    if ((rc = dp_comm_agree(c, lrc)))
        goto out;
    if (z->n >= 0)
        g->num_nodes = z->n;
    if ((rc = cv_dist_read_done(g, c, z->edge_file, *edges)))
        goto out;
    /* the largest id against the count: the first rank holding it names
     * its entry, as one process names the largest one's */
    n = g->num_nodes;
    top[0] = g->edges.max_id;
    if ((rc = dp_comm_allreduce_i64(c, top, 1, DP_COMM_MAX)))
        goto out;
    top[1] = g->edges.max_id == top[0] ? dp_comm_rank(c) : INT64_MAX;
    if ((rc = dp_comm_allreduce_i64(c, top + 1, 1, DP_COMM_MIN)))
        goto out;
    if (top[0] >= n && top[1] == dp_comm_rank(c))
        lrc = dp_error(DP_ERANGE,
                       "'%s' entry %" PRIu64 ": node id %" PRId64
                       " out of range [0, %" PRId64 ") (%s)",
                       z->edge_file, g->edges.max_line, g->edges.max_id, n,
                       z->n >= 0 ? z->n_from : g->nodes_from);
    if ((rc = dp_comm_agree(c, lrc)))
        goto out;
    if (dp_comm_rank(c) == 0)
        return dp_comm_agree(c, cv_npz_finish(g, z));
    cv_npz_release(z);
    return dp_comm_agree(c, 0);
out:
    cv_npz_release(z);
    return rc;
}

int cv_read_npz_dist(struct cv_graph *g, struct dp_comm *c, const char *in,
                     struct cv_eids *ids, int64_t *edges)
{
    struct cv_npz z;
    int rc;

    cv_npz_init(&z);
    if ((rc = dp_comm_agree(c, read_files(g, &z, in)))) {
        cv_npz_release(&z);
        return rc;
    }
    return cv_npz_dist_finish(g, c, &z, ids, edges);
}
