/* The edge store and the CSC writer. Edges are kept as two id arrays
 * (uint32 while ids fit). The CSC is a counting sort by destination, done
 * one slice of destinations at a time: a pass over the edges fills the
 * slice's (eid, source) pairs, which are then written in place into
 * indices.npy and eids.npy. Two threads take slices in turn. The peak is
 * the edge arrays plus two slices' pairs, about 1.1 times the output, at
 * the cost of SLICES passes over the edges. Filtering (--dedup,
 * --no_self_loops) renumbers across the whole graph, so it holds all pairs
 * at once. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/npy.h"
#include "dglpart/progress.h"
#include "dglpart/thread.h"

#define CHUNK 65536
/* items a slice writes at once: direct writes pay per call */
#define PIECE ((uint64_t)1 << 19)
#define HUGE_PAGE (2u << 20)

static void advise_pages(void *p, size_t n, int advice)
{
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);

    /* Advice only; errors do not matter. */
    if (n >= 4 * HUGE_PAGE && b > a)
        madvise((void *)a, b - a, advice);
}

void cv_hugepages(void *p, size_t n)
{
    /* Big arrays hit at random by the counting sort: 2 MiB pages spare
     * most TLB misses and page faults. */
    advise_pages(p, n, MADV_HUGEPAGE);
}

#define SPILL_DEFAULT ((uint64_t)4 << 30)

static uint64_t spill_at(const struct cv_edges *e)
{
    return e->spill_at ? e->spill_at : SPILL_DEFAULT;
}

/* An unlinked file of bytes in dir, mapped shared with old's first
 * old_bytes copied in. */
static void *spill_new(const char *dir, const void *old, size_t old_bytes,
                       size_t bytes, int *fd_out)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    void *p;

    if (fd < 0 || ftruncate(fd, (off_t)bytes)) {
        dp_error(DP_EIO, "cannot make a scratch file for the edges in '%s': %s",
                 dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        dp_error(DP_ENOMEM, "cannot map %zu bytes of edges: %s", bytes,
                 strerror(errno));
        close(fd);
        return NULL;
    }
    if (old_bytes)
        memcpy(p, old, old_bytes);
    *fd_out = fd;
    return p;
}

static void *spill_grow(void *p, int fd, size_t old, size_t bytes)
{
    void *q;

    if (ftruncate(fd, (off_t)bytes)) {
        dp_error(DP_EIO, "cannot grow the edges' scratch file to %zu bytes: %s",
                 bytes, strerror(errno));
        return NULL;
    }
    q = mremap(p, old, bytes, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) {
        dp_error(DP_ENOMEM, "cannot map %zu bytes of edges: %s", bytes,
                 strerror(errno));
        return NULL;
    }
    return q;
}

/* src and dst as arrays of cap entries of w bytes (e->cap entries of ew
 * bytes now): in memory, or past the spill point in files. */
static int resize_ids(struct cv_edges *e, uint64_t cap, size_t w, size_t ew)
{
    size_t old = (size_t)e->cap * ew, bytes = (size_t)cap * w;
    void *s, *d;

    /* (bucket mode's staging arrays stay small) */
    if (!e->spilled && !e->bkt && e->spill_dir &&
        2 * (uint64_t)bytes >= spill_at(e)) {
        int sfd = -1, dfd = -1;
        s = spill_new(e->spill_dir, e->src, old, bytes, &sfd);
        d = s ? spill_new(e->spill_dir, e->dst, old, bytes, &dfd) : NULL;
        if (!d) {
            if (s) {
                munmap(s, bytes);
                close(sfd);
            }
            return DP_EIO;
        }
        free(e->src);
        free(e->dst);
        e->src = s;
        e->dst = d;
        e->sfd = sfd;
        e->dfd = dfd;
        e->spilled = 1;
        return 0;
    }
    if (e->spilled) {
        if (!(s = spill_grow(e->src, e->sfd, old, bytes)))
            return DP_ENOMEM;
        e->src = s;
        if (!(d = spill_grow(e->dst, e->dfd, old, bytes)))
            return DP_ENOMEM;
        e->dst = d;
        return 0;
    }
    /* realloc of big blocks is an mremap: no copy, no double peak. */
    s = dp_realloc_array(e->src, (size_t)cap, w);
    if (s)
        e->src = s;
    d = s ? dp_realloc_array(e->dst, (size_t)cap, w) : NULL;
    if (d)
        e->dst = d;
    if (!s || !d)
        return DP_ENOMEM;
    /* Small pages, even where glibc asks for huge ones (dglpart run): the
     * arrays are read in order, and on a VM a 2 MiB page costs its first
     * touch several times what 512 small ones do. */
    advise_pages(e->src, bytes, MADV_NOHUGEPAGE);
    advise_pages(e->dst, bytes, MADV_NOHUGEPAGE);
    return 0;
}

#define SPILL_STEP ((uint64_t)1 << 27) /* entries a spilled array grows by */
#define DROP_EVERY ((uint64_t)1 << 22) /* entries read between drops */

/* Spilled entries [lo, hi) out of this process's resident set: their
 * pages stay in the page cache (or go to the file) until read again. */
static void drop_ids(const struct cv_edges *e, uint64_t lo, uint64_t hi)
{
    if (e->spilled)
        cv_edges_drop(e, lo, hi);
}

int cv_edges_deg_fit(struct cv_edges *e)
{
    int64_t *deg, cap;

    if (e->max_id < e->ndeg)
        return 0;
    /* one past the largest id, for the total offsets() puts there; ids
     * are seen near their largest early on, so the slack is small and so
     * is the part of the tail that is zeroed */
    cap = e->max_id + 2 + (e->max_id >> 6);
    if (!(deg = dp_realloc_array(e->deg, (size_t)cap, sizeof(*deg))))
        return DP_ENOMEM;
    memset(deg + e->ndeg, 0, (size_t)(cap - e->ndeg) * sizeof(*deg));
    e->deg = deg;
    e->ndeg = cap;
    return 0;
}

/* Count edges [from, to) of src (col 0) or dst (col 1) into e->deg, grown
 * first to cover every id up to max_id. A loop of its own keeps many
 * cache misses in flight; an increment per item waits for each. */
int cv_edges_count(struct cv_edges *e, int col, uint64_t from, uint64_t to)
{
    const int64_t *v64 = col ? e->dst : e->src;
    const uint32_t *v32 = col ? e->dst : e->src;
    int64_t *deg;
    uint64_t k;
    int rc = cv_edges_deg_fit(e);

    if (rc)
        return rc;
    deg = e->deg;
    if (e->wide)
        for (k = from; k < to; k++)
            deg[v64[k]]++;
    else
        for (k = from; k < to; k++)
            deg[v32[k]]++;
    return 0;
}

void cv_edges_drop(const struct cv_edges *e, uint64_t lo, uint64_t hi)
{
    size_t w = e->wide ? 8 : 4, pg = 4096;
    uintptr_t a, b;
    int i;

    /* whole pages inside the range only: the arrays' first and last
     * pages may hold what the allocator keeps beside them */
    for (i = 0; i < 2; i++) {
        uintptr_t base = (uintptr_t)(i ? e->dst : e->src);
        a = (base + (uintptr_t)lo * w + pg - 1) & ~(uintptr_t)(pg - 1);
        b = (base + (uintptr_t)hi * w) & ~(uintptr_t)(pg - 1);
        if (b > a)
            madvise((void *)a, b - a, MADV_DONTNEED);
    }
}

struct warm {
    struct cv_edges *e;
    char *a[2];
    size_t from, to;
};

#define WARM_STEP ((size_t)4 << 20)

static void *warm_run(void *arg)
{
    struct warm *w = arg;
    size_t off;
    int i;

    for (off = w->from; off < w->to; off += WARM_STEP) {
        size_t len = w->to - off < WARM_STEP ? w->to - off : WARM_STEP;

        if (__atomic_load_n(&w->e->warm_stop, __ATOMIC_RELAXED))
            break;
        for (i = 0; i < 2; i++) {
            uintptr_t a = (uintptr_t)(w->a[i] + off) & ~(uintptr_t)4095;

            /* populates without writing: the parser may be there too */
            if (madvise((void *)a, (uintptr_t)(w->a[i] + off + len) - a,
                        MADV_POPULATE_WRITE))
                goto out;
        }
    }
out:
    free(w);
    return NULL;
}

/* Bucket mode: the buckets as the last flush left them, published under
 * mu; the thread keeps each bucket's pages populated up to WARM_AHEAD
 * bytes past its end. Ahead, not to the room: the room's unused slack
 * would stay resident, and convert's peak is the arrays it writes. */
#define WARM_AHEAD ((size_t)256 << 10)

struct warm_bkt {
    char *p;
    size_t room, end; /* bytes */
};

struct cv_warm {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, fresh;
    int nbkt;
    struct warm_bkt *pub, *own;
    size_t *done; /* [nbkt] bytes populated of own[i].p */
};

/* Copy the buckets' arrays and ends for the thread. */
static void warm_publish(struct cv_edges *e)
{
    struct cv_warm *w = e->warm;
    int i;

    pthread_mutex_lock(&w->mu);
    for (i = 0; i < w->nbkt; i++) {
        w->pub[i].p = (char *)e->bkt[i].v;
        w->pub[i].room = e->bkt[i].cap * sizeof(*e->bkt[i].v);
        w->pub[i].end = e->bkt[i].n * sizeof(*e->bkt[i].v);
    }
    w->fresh = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void *warm_buckets(void *arg)
{
    struct cv_warm *w = arg;
    int i;

    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->fresh && !w->stop)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->stop) {
            pthread_mutex_unlock(&w->mu);
            return NULL;
        }
        w->fresh = 0;
        for (i = 0; i < w->nbkt; i++) {
            if (w->own[i].p != w->pub[i].p) /* grown: copied, so touched */
                w->done[i] = w->pub[i].end;
            w->own[i] = w->pub[i];
        }
        pthread_mutex_unlock(&w->mu);
        /* a bucket that grows after the copy has moved: its old range is
         * then free memory, and populating it changes nothing anyone reads */
        for (i = 0; i < w->nbkt; i++) {
            size_t to = w->own[i].end + WARM_AHEAD;
            uintptr_t a;

            if (to > w->own[i].room)
                to = w->own[i].room;
            if (w->done[i] >= to)
                continue;
            a = (uintptr_t)(w->own[i].p + w->done[i]) & ~(uintptr_t)4095;
            madvise((void *)a, (uintptr_t)(w->own[i].p + to) - a,
                    MADV_POPULATE_WRITE);
            w->done[i] = to;
        }
    }
}

static void warm_free(struct cv_warm *w)
{
    if (!w)
        return;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w->pub);
    free(w->own);
    free(w->done);
    free(w);
}

static void warm_buckets_start(struct cv_edges *e)
{
    struct cv_warm *w = dp_calloc(1, sizeof(*w));
    size_t nb = (size_t)e->nbkt;

    if (!w)
        return;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->nbkt = e->nbkt;
    w->pub = dp_calloc(nb, sizeof(*w->pub));
    w->own = dp_calloc(nb, sizeof(*w->own));
    w->done = dp_calloc(nb, sizeof(*w->done));
    e->warm = w;
    if (w->pub && w->own && w->done) {
        warm_publish(e);
        if (!pthread_create(&e->warm_tid, NULL, warm_buckets, w)) {
            e->warming = 1;
            return;
        }
    }
    warm_free(w);
    e->warm = NULL;
}

/* Bucket mode's end: the pages warmed past each bucket's end go back. */
static void warm_buckets_stop(struct cv_edges *e)
{
    struct cv_warm *w = e->warm;
    int i;

    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(e->warm_tid, NULL);
    for (i = 0; i < e->nbkt; i++) {
        struct cv_bucket *b = &e->bkt[i];
        uintptr_t a = ((uintptr_t)(b->v + b->n) + 4095) & ~(uintptr_t)4095,
                  z = (uintptr_t)(b->v + b->cap) & ~(uintptr_t)4095;

        if (z > a)
            madvise((void *)a, z - a, MADV_DONTNEED);
    }
    warm_free(w);
    e->warm = NULL;
}

void cv_edges_warm(struct cv_edges *e)
{
    size_t iw = e->wide ? 8 : 4;
    struct warm *w;

    uint64_t to = e->sized < e->cap ? e->sized : e->cap;

    if (e->bkt) { /* chunks: a few buffers, reused */
        if (!e->warming && !e->chunks)
            warm_buckets_start(e);
        return;
    }
    /* up to the edges a reader announced, not the rounded-up room */
    if (e->warming || e->spilled || to <= e->n ||
        (to - e->n) * iw < 4 * WARM_STEP || !(w = dp_malloc(sizeof(*w))))
        return;
    w->e = e;
    w->a[0] = e->src;
    w->a[1] = e->dst;
    w->from = (size_t)e->n * iw;
    w->to = (size_t)to * iw;
    e->warm_stop = 0;
    if (pthread_create(&e->warm_tid, NULL, warm_run, w)) {
        free(w);
        return;
    }
    e->warming = 1;
}

void cv_edges_warm_stop(struct cv_edges *e)
{
    if (!e->warming)
        return;
    if (e->warm) {
        warm_buckets_stop(e);
        e->warming = 0;
        return;
    }
    __atomic_store_n(&e->warm_stop, 1, __ATOMIC_RELAXED);
    pthread_join(e->warm_tid, NULL);
    e->warming = 0;
}

/* Edges the staging arrays of bucket mode hold between flushes: more than
 * a parser block brings, so flushes come at block ends. */
#define STAGE ((uint64_t)1 << 20)
/* Buckets in bucket mode, at least: gaps between a bucket's edge ids stay
 * near this, far below the 255 an escape costs. */
#define NBKT_MIN 32
#define BKT_OFF_BITS 24

/* Chunks of the buckets' scratch file: big enough that the writer pays
 * little per call, small enough that the buffers stay few. */
#define CHUNK_PAGES 64
/* full chunks waiting for the writer before the next stays in memory */
#define CHUNK_QUEUE 32

/* A full chunk leaves the bucket for the scratch file, or stays in memory
 * when the writer is behind; the entry that ran past its end starts the
 * next one. */
static int bkt_cut(struct cv_edges *e, struct cv_bucket *b)
{
    size_t chw = cv_chunks_bytes(e->chunks) / sizeof(*b->v);
    struct cv_chunk *ch;
    uint32_t *v;
    int rc;

    if ((rc = DP_ALLOC_GROW(b->ch, b->nch + 1, b->chcap)))
        return rc;
    if (!(v = cv_chunks_buf(e->chunks)))
        return DP_ENOMEM;
    memcpy(v, b->v + chw, (b->n - chw) * sizeof(*v));
    ch = &b->ch[b->nch++];
    ch->mem = NULL;
    if ((rc = cv_chunks_put(e->chunks, b->v, &ch->at))) {
        b->nch--;
        free(v);
        return rc;
    }
    if (ch->at == UINT64_MAX)
        ch->mem = b->v;
    b->v = v;
    b->n -= chw;
    return 0;
}

static int bkt_room(struct cv_edges *e, struct cv_bucket *b, uint64_t words)
{
    int rc;

    if (b->n + words <= b->cap)
        return 0;
    if (e->chunks)
        return bkt_cut(e, b);
    if ((rc = DP_ALLOC_GROW(b->v, b->n + words, b->cap)))
        return rc;
    /* written and read in order, like the edge arrays */
    advise_pages(b->v, b->cap * sizeof(*b->v), MADV_NOHUGEPAGE);
    return 0;
}

static void bkt_free(struct cv_edges *e)
{
    size_t k;
    int i;

    for (i = 0; e->bkt && i < e->nbkt; i++) {
        for (k = 0; k < e->bkt[i].nch; k++)
            free(e->bkt[i].ch[k].mem);
        free(e->bkt[i].ch);
        free(e->bkt[i].v);
    }
    free(e->bkt);
    e->bkt = NULL;
    e->nbkt = 0;
    cv_chunks_close(e->chunks);
    e->chunks = NULL;
}

static void free_ids(struct cv_edges *e);

/* Buckets past spill_at bytes go to a scratch file in chunks, where the
 * disk takes direct I/O: RSS of a few chunks a bucket instead of a
 * mapping as big as the edges, and the CSC's one pass over the buckets
 * instead of a pass over all edges a slice. Under spill_at they stay in
 * memory, which is faster. 0 without chunks: then the store spills as
 * before. */
static int bkt_chunks(struct cv_edges *e)
{
    int64_t pages = CHUNK_PAGES, queue = CHUNK_QUEUE;
    int direct = 1, rc;

    if (!e->spill_dir)
        return 0;
    if ((rc = dp_env_bool("DGLPART_DIRECT_IO", &direct)) || !direct)
        return rc;
    if ((rc = dp_env_int("DGLPART_TEST_BUCKET_CHUNK", &pages)) ||
        (rc = dp_env_int("DGLPART_TEST_BUCKET_QUEUE", &queue)))
        return rc;
    if (cv_chunks_open(&e->chunks, e->spill_dir, (size_t)pages << 12,
                       (int)queue))
        dp_log(DP_LOG_V, "edges past %" PRIu64 " bytes, not in buckets: %s",
               spill_at(e), dp_errmsg());
    return 0;
}

int cv_edges_bucket(struct cv_edges *e, int64_t n, int plain)
{
    uint64_t per;
    int shift = 0, i, rc, off = 0, most = NBKT_MIN;

    dp_env_bool("DGLPART_TEST_NO_BUCKETS", &off);
    if (off || e->n || e->wide || e->has_weight || e->bkt || !plain || n <= 0 ||
        n > (int64_t)UINT32_MAX + 1 || !e->sized || e->sized > UINT32_MAX)
        return 0;
    if (e->spilled || 8 * e->sized >= spill_at(e)) {
        if ((rc = bkt_chunks(e)) || !e->chunks)
            return rc;
        if (e->spilled) /* empty: its files go */
            free_ids(e);
        e->cap = 0;
        /* twice the buckets: the CSC holds four of them, two a thread */
        most = 2 * NBKT_MIN;
    }
    /* most buckets or more, each of at most 2^24 nodes */
    while (shift < BKT_OFF_BITS && ((uint64_t)n >> shift) > (uint64_t)most)
        shift++;
    cv_edges_warm_stop(e);
    e->bshift = shift;
    e->nbkt = (int)(((uint64_t)n + (UINT64_C(1) << shift) - 1) >> shift);
    if (!(e->bkt = dp_calloc((size_t)e->nbkt, sizeof(*e->bkt)))) {
        bkt_free(e);
        return DP_ENOMEM;
    }
    /* room for a fair share, so few buckets grow; with chunks, one */
    per = e->sized / (uint64_t)e->nbkt;
    for (i = 0; i < e->nbkt; i++) {
        struct cv_bucket *b = &e->bkt[i];

        b->last = UINT64_MAX;
        if (e->chunks) {
            b->v = cv_chunks_buf(e->chunks);
            /* full at a chunk's words: an entry takes at most 4 */
            b->cap = cv_chunks_bytes(e->chunks) / sizeof(*b->v) + 3;
            rc = b->v ? 0 : DP_ENOMEM;
        } else {
            rc = bkt_room(e, b, 2 * (per + per / 8) + 64);
        }
        if (rc) {
            bkt_free(e);
            return rc;
        }
    }
    if ((rc = resize_ids(e, STAGE, 4, 4))) {
        bkt_free(e);
        return rc;
    }
    e->cap = STAGE;
    e->base = 0;
    return 0;
}

int cv_edges_flush(struct cv_edges *e)
{
    const uint32_t *src = e->src, *dst = e->dst;
    uint32_t mask = (UINT32_C(1) << e->bshift) - 1;
    uint64_t k, m = e->n - e->base;
    int rc;

    for (k = 0; k < m; k++) {
        uint32_t d = dst[k];
        struct cv_bucket *b = &e->bkt[d >> e->bshift];
        uint64_t eid = e->base + k, gap = eid - b->last - 1;

        if (b->n + 4 > b->cap && (rc = bkt_room(e, b, 4)))
            return rc;
        b->v[b->n] = src[k];
        if (gap < 255) {
            b->v[b->n + 1] = (d & mask) | (uint32_t)gap << BKT_OFF_BITS;
            b->n += 2;
        } else {
            b->v[b->n + 1] = (d & mask) | UINT32_C(255) << BKT_OFF_BITS;
            b->v[b->n + 2] = (uint32_t)eid;
            b->v[b->n + 3] = (uint32_t)(eid >> 32);
            b->n += 4;
        }
        b->last = eid;
        b->edges++;
    }
    e->base = e->n;
    if (e->warm)
        warm_publish(e);
    return 0;
}

void cv_edges_expect(struct cv_edges *e, uint64_t count)
{
    if (!e->n && !e->cap)
        e->sized = count;
}

int cv_edges_grow(struct cv_edges *e, uint64_t need)
{
    uint64_t cap = e->cap ? e->cap : 4096;
    size_t w = e->wide ? 8 : 4;
    int rc;

    if (e->bkt) /* the staging arrays empty into the buckets */
        return cv_edges_flush(e);
    cv_edges_warm_stop(e);
    e->sized = need;
    /* In files, grow in steps and drop what is written: the arrays then
     * hold a step of resident pages, not half their size. */
    if (e->spilled) {
        drop_ids(e, 0, e->n);
        while (cap < need) {
            if (cap > UINT64_MAX / 4)
                return dp_error(DP_ETOOBIG, "too many edges");
            cap += cap < SPILL_STEP ? cap : SPILL_STEP;
        }
    }
    if (cap < need) /* src, dst and weights grow as DP_ALLOC_GROW would */
        cap = dp_alloc_nr((size_t)cap, (size_t)need);
    if (cap > SIZE_MAX / 16)
        return dp_error(DP_ETOOBIG, "too many edges (%" PRIu64 ")", cap);
    if ((rc = resize_ids(e, cap, w, w)))
        return rc;
    if (e->has_weight) {
        int64_t *wt = dp_realloc_array(e->weight, (size_t)cap, 8);

        if (!wt)
            return DP_ENOMEM;
        e->weight = wt;
    }
    e->cap = cap;
    return 0;
}

int cv_edges_widen(struct cv_edges *e)
{
    int64_t *s, *d;
    uint64_t k;
    int rc;

    if (e->wide)
        return 0;
    cv_edges_warm_stop(e);
    if (!e->cap) {
        e->wide = 1;
        return 0;
    }
    if ((rc = resize_ids(e, e->cap, 8, 4)))
        return rc;
    s = e->src;
    d = e->dst;
    for (k = e->n; k-- > 0;) {
        s[k] = ((uint32_t *)s)[k];
        d[k] = ((uint32_t *)d)[k];
    }
    e->wide = 1;
    return 0;
}

/* Give back src and dst (their files go with them). */
static void free_ids(struct cv_edges *e)
{
    if (e->spilled) {
        size_t bytes = (size_t)e->cap * (e->wide ? 8 : 4);
        munmap(e->src, bytes);
        munmap(e->dst, bytes);
        close(e->sfd);
        close(e->dfd);
        e->spilled = 0;
    } else {
        free(e->src);
        free(e->dst);
    }
    e->src = e->dst = NULL;
}

void cv_edges_release(struct cv_edges *e)
{
    cv_edges_warm_stop(e);
    free_ids(e);
    bkt_free(e);
    e->base = 0;
    free(e->deg);
    e->deg = NULL;
    e->counted = 0;
    free(e->weight);
    e->weight = NULL;
    e->n = e->cap = 0;
}

int cv_graph_add_input(struct cv_graph *g, const char *path, uint64_t size,
                       const char *sha)
{
    struct dp_dataset_input *in;
    int n = g->meta.ninputs;

    in = dp_realloc_array(g->meta.inputs, (size_t)n + 1, sizeof(*in));
    if (!in)
        return DP_ENOMEM;
    g->meta.inputs = in;
    memset(&in[n], 0, sizeof(in[n]));
    in[n].path = dp_strdup(path);
    if (!in[n].path)
        return DP_ENOMEM;
    in[n].size = size;
    snprintf(in[n].sha256, sizeof(in[n].sha256), "%s", sha ? sha : "");
    g->meta.ninputs = n + 1;
    return 0;
}

int cv_hashing(const struct cv_graph *g)
{
    return !g->o || !g->o->no_input_hash;
}

int cv_graph_add_file(struct cv_graph *g, const char *path)
{
    char sha[65] = "";
    uint64_t size = 0;
    struct stat st;
    int rc = 0;

    if (cv_hashing(g))
        rc = dp_sha256_file(path, sha, &size);
    else if (stat(path, &st) == 0)
        size = (uint64_t)st.st_size;
    return rc ? rc : cv_graph_add_input(g, path, size, sha);
}

int cv_read_text(struct cv_graph *g, const char *path,
                 int (*parse)(struct cv_graph *g, struct cv_src *s))
{
    struct cv_src s;
    char sha[65];
    uint64_t size;
    int rc;

    if ((rc = cv_src_open_file(&s, path, cv_hashing(g))))
        return rc;
    g->edge_src = dp_strdup(path);
    rc = g->edge_src ? parse(g, &s) : DP_ENOMEM;
    cv_src_close(&s, rc ? NULL : sha, &size);
    if (rc)
        return rc;
    return cv_graph_add_input(g, path, size, sha);
}

char *cv_graph_path(const struct cv_graph *g, const char *name)
{
    return dp_path_join(g->dir, name);
}

int cv_graph_write_i64(struct cv_graph *g, const char *name, const int64_t *v,
                       int64_t n)
{
    char *path = cv_graph_path(g, name);
    int rc;

    if (!path)
        return DP_ENOMEM;
    rc = dp_npy_write(path, DP_I64, 1, &n, v);
    free(path);
    return rc;
}

int cv_graph_write_mask(struct cv_graph *g, const char *name, const uint8_t *v,
                        int64_t n)
{
    char *path = cv_graph_path(g, name);
    int rc;

    if (!path)
        return DP_ENOMEM;
    rc = dp_npy_write(path, DP_U8, 1, &n, v);
    free(path);
    return rc;
}

/* The CSC under construction. */
struct csc {
    const struct cv_edges *e;
    int und;
    int64_t n;
    uint64_t eout;
    int64_t *ip;    /* N+1: each node's first slot, then the indptr */
    int64_t *cur;   /* N+1: scatter cursors; second-half counts before */
    int wide;       /* pairs of uint64 (else uint32) */
    int ids32;      /* write indices and eids as int32 */
    int noe;        /* no eids: pairs hold the source alone */
    void *pairs;    /* slot base + i: old edge id (before filtering), source */
    uint64_t base;  /* first slot pairs holds */
    uint64_t *keep; /* bitmap of kept old ids; NULL: all kept */
    uint64_t *rank; /* kept ids before each 64-id word */
};

/* eids and indices are interleaved (eid, source) pairs, so the scatter
 * misses one cache line per entry instead of two. */
static inline uint64_t get_eid(const struct csc *c, uint64_t i)
{
    return c->wide ? ((const uint64_t *)c->pairs)[2 * i]
                   : ((const uint32_t *)c->pairs)[2 * i];
}

static inline int64_t get_idx(const struct csc *c, uint64_t i)
{
    if (c->noe)
        return c->wide ? ((const int64_t *)c->pairs)[i]
                       : (int64_t)((const uint32_t *)c->pairs)[i];
    return c->wide ? ((const int64_t *)c->pairs)[2 * i + 1]
                   : (int64_t)((const uint32_t *)c->pairs)[2 * i + 1];
}

static inline void put_pair(struct csc *c, uint64_t i, uint64_t eid,
                            int64_t src)
{
    if (c->noe && c->wide) {
        ((int64_t *)c->pairs)[i] = src;
    } else if (c->noe) {
        ((uint32_t *)c->pairs)[i] = (uint32_t)src;
    } else if (c->wide) {
        ((uint64_t *)c->pairs)[2 * i] = eid;
        ((int64_t *)c->pairs)[2 * i + 1] = src;
    } else {
        ((uint32_t *)c->pairs)[2 * i] = (uint32_t)eid;
        ((uint32_t *)c->pairs)[2 * i + 1] = (uint32_t)src;
    }
}

static inline size_t pair_bytes(const struct csc *c)
{
    return (size_t)(c->wide ? 8 : 4) * (size_t)(2 - c->noe);
}

static inline uint64_t new_id(const struct csc *c, uint64_t x)
{
    uint64_t w;

    if (!c->keep)
        return x;
    w = c->keep[x >> 6] & ((UINT64_C(1) << (x & 63)) - 1);
    return c->rank[x >> 6] + (uint64_t)__builtin_popcountll(w);
}

/* Half the edges, [lo, hi), counted into their own array, so two threads
 * never write the same counter. */
struct half {
    struct csc *c;
    uint64_t lo, hi;
    int64_t *cnt;
};

static void *count_half(void *arg)
{
    struct half *h = arg;
    const struct cv_edges *e = h->c->e;
    uint64_t k;

    for (k = h->lo; k < h->hi; k++) {
        h->cnt[cv_edges_dst(e, k)]++;
        if (h->c->und)
            h->cnt[cv_edges_src(e, k)]++;
        if (e->spilled && k % DROP_EVERY == DROP_EVERY - 1)
            drop_ids(e, k + 1 - DROP_EVERY, k + 1);
    }
    drop_ids(e, h->lo, h->hi);
    return NULL;
}

/* Degrees a parser counted, if they cover these edges and nodes. */
static const int64_t *parsed_degrees(const struct csc *c)
{
    const struct cv_edges *e = c->e;

    if (e->deg && e->counted == e->n && e->ndeg >= c->n && e->deg_und == c->und)
        return e->deg;
    return NULL;
}

/* ip: each node's first slot (ip[n] = all slots), from the parser's
 * degrees or a counting pass on two threads. ip and cur start zeroed. */
static void offsets(struct csc *c)
{
    struct cv_edges *e = (struct cv_edges *)c->e;
    const int64_t *deg = parsed_degrees(c);
    uint64_t ein = c->e->n;
    struct half h[2] = { { c, 0, ein / 2, c->ip },
                         { c, ein / 2, ein, c->cur } };
    int64_t v, run = 0;

    if (deg)
        dp_log(DP_LOG_V, "csc: degrees counted in the read");
    if (deg && e->ndeg > c->n) {
        /* the degrees become the offsets where they are: ip (untouched,
         * so no pages of its own yet) goes instead of a third array */
        for (v = 0; v < c->n; v++) {
            int64_t d = e->deg[v];

            e->deg[v] = run;
            run += d;
        }
        e->deg[c->n] = run;
        free(c->ip);
        c->ip = e->deg;
        e->deg = NULL;
        return;
    }
    if (!deg)
        dp_run_pair(count_half, &h[0], &h[1], ein > (1u << 20));
    for (v = 0; v < c->n; v++) {
        int64_t d = deg ? deg[v] : c->ip[v] + c->cur[v];

        c->ip[v] = run;
        run += d;
    }
    c->ip[c->n] = run;
}

/* Edges a slice pass looks at in one block: their hits are listed
 * first, then placed with the slots loaded ahead. */
#define BLOCK 4096
/* The placement loads each cursor and slot this many hits ahead: each is a
 * cache miss, and waiting for them one at a time bounds the pass. */
#define AHEAD 16

/* The column of hit x of the block starting at edge k0: x = 2i for the
 * entry of edge k0 + i in its destination's column, 2i + 1 for the reverse
 * entry in its source's. */
static inline int64_t hit_col(const struct cv_edges *e, uint64_t k0, uint32_t x)
{
    return x & 1 ? cv_edges_src(e, k0 + x / 2) : cv_edges_dst(e, k0 + x / 2);
}

/* List the hits of edges [k0, k0 + kn) on nodes [va, va + span), in the
 * form hit_col reads, without a branch: a slice takes a few edges of a
 * block, at random, which a branch would mispredict. */
#define LIST_HITS(T)                                                           \
    do {                                                                       \
        const T *d = (const T *)e->dst + k0, *s = (const T *)e->src + k0;      \
        if (und)                                                               \
            for (i = 0; i < kn; i++) {                                         \
                hit[h] = 2 * i;                                                \
                h += (uint64_t)d[i] - (uint64_t)va < span;                     \
                hit[h] = 2 * i + 1;                                            \
                h += (uint64_t)s[i] - (uint64_t)va < span;                     \
            }                                                                  \
        else                                                                   \
            for (i = 0; i < kn; i++) {                                         \
                hit[h] = 2 * i;                                                \
                h += (uint64_t)d[i] - (uint64_t)va < span;                     \
            }                                                                  \
    } while (0)

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* lanes[m]: the set bits of m, lowest first, a byte each */
static uint64_t lanes[256];

/* The hits of 32-bit ids with AVX2: 8 edges a compare, their hits packed
 * by a lane shuffle from lanes[]. The branchless scalar loop above took as
 * long as placing the hits; this takes about half that (rmat 21). */
__attribute__((target("avx2,bmi2"))) static uint32_t
list_hits_avx2(const struct cv_edges *e, int und, uint64_t k0, uint32_t kn,
               int64_t va, uint64_t span, uint32_t *hit)
{
    const uint32_t *d = (const uint32_t *)e->dst + k0;
    const uint32_t *s = (const uint32_t *)e->src + k0;
    const __m256i flip = _mm256_set1_epi32(INT32_MIN);
    const __m256i lo = _mm256_set1_epi32((int32_t)(uint32_t)va);
    const __m256i lim =
        _mm256_xor_si256(_mm256_set1_epi32((int32_t)(uint32_t)span), flip);
    const __m256i step = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    uint32_t i, h = 0;

/* lanes of v whose id is in [va, va + span), as a byte */
#define IN_RANGE(v)                                                            \
    (uint32_t) _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(      \
        lim, _mm256_xor_si256(_mm256_sub_epi32(v, lo), flip))))
/* store the x values base + lane of the set bits of m at hit + h */
#define PACK(base, m)                                                          \
    do {                                                                       \
        __m256i sel =                                                          \
            _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)lanes[m]));      \
        _mm256_storeu_si256((__m256i *)(hit + h),                              \
                            _mm256_permutevar8x32_epi32(base, sel));           \
        h += (uint32_t)__builtin_popcount(m);                                  \
    } while (0)

    for (i = 0; i + 8 <= kn; i += 8) {
        uint32_t md = IN_RANGE(_mm256_loadu_si256((const __m256i *)(d + i)));
        __m256i x = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(2 * i)),
                                     und ? step : _mm256_add_epi32(step, step));

        if (und) {
            /* x = 2i for the dst entry, 2i + 1 for the src one, in order */
            uint32_t ms =
                IN_RANGE(_mm256_loadu_si256((const __m256i *)(s + i)));
            uint32_t m = _pdep_u32(md, 0x5555) | _pdep_u32(ms, 0xaaaa);

            PACK(x, m & 0xff);
            PACK(_mm256_add_epi32(x, _mm256_set1_epi32(8)), m >> 8);
        } else {
            PACK(x, md);
        }
    }
#undef IN_RANGE
#undef PACK
    for (; i < kn; i++) {
        hit[h] = 2 * i;
        h += (uint64_t)d[i] - (uint64_t)va < span;
        if (und) {
            hit[h] = 2 * i + 1;
            h += (uint64_t)s[i] - (uint64_t)va < span;
        }
    }
    return h;
}

static int use_avx2;

static void simd_init(void)
{
    int m, b, n, off = 0;

    dp_env_bool("DGLPART_TEST_NO_SIMD", &off);
    if (off || !__builtin_cpu_supports("avx2") ||
        !__builtin_cpu_supports("bmi2"))
        return;
    for (m = 0; m < 256; m++)
        for (lanes[m] = 0, b = n = 0; b < 8; b++)
            if (m >> b & 1)
                lanes[m] |= (uint64_t)b << (8 * n++);
    use_avx2 = 1;
}
#else
static void simd_init(void)
{
}
#endif

static pthread_once_t simd_once = PTHREAD_ONCE_INIT;

static uint32_t list_hits(const struct cv_edges *e, int und, uint64_t k0,
                          uint32_t kn, int64_t va, uint64_t span, uint32_t *hit)
{
    uint32_t i, h = 0;

#if defined(__x86_64__) && defined(__GNUC__)
    if (use_avx2 && !e->wide && va >= 0 && va <= UINT32_MAX &&
        span <= UINT32_MAX)
        return list_hits_avx2(e, und, k0, kn, va, span, hit);
#endif
    if (e->wide)
        LIST_HITS(int64_t);
    else
        LIST_HITS(uint32_t);
    return h;
}

/* Fill the slots of nodes [va, vb), which start at c->base, in one pass
 * over all edges in input order: each run keeps its eids in order. Only
 * this slice's slots and cursors are written, so two threads can fill two
 * slices at once. */
static void scan_range(struct csc *c, int64_t va, int64_t vb)
{
    const struct cv_edges *e = c->e;
    uint64_t span = (uint64_t)(vb - va), k0;
    int64_t *cur = c->cur, base = (int64_t)c->base;
    size_t pb = pair_bytes(c);
    uint32_t hit[2 * BLOCK + 8]; /* + 8: whole-vector stores */

    for (k0 = 0; k0 < e->n; k0 += BLOCK) {
        uint32_t kn = e->n - k0 < BLOCK ? (uint32_t)(e->n - k0) : BLOCK;
        uint32_t h = list_hits(e, c->und, k0, kn, va, span, hit), t;

        for (t = 0; t < h; t++) {
            uint32_t x = hit[t];
            uint64_t k = k0 + x / 2;
            int64_t col = hit_col(e, k0, x);

            if (t + AHEAD < h) {
                int64_t ahead = cur[hit_col(e, k0, hit[t + AHEAD / 2])];

                __builtin_prefetch(
                    (char *)c->pairs + (size_t)(ahead - base) * pb, 1);
                __builtin_prefetch(&cur[hit_col(e, k0, hit[t + AHEAD])], 1);
            }
            put_pair(c, (uint64_t)(cur[col]++ - base),
                     c->und ? 2 * k + (x & 1) : k,
                     x & 1 ? cv_edges_dst(e, k) : cv_edges_src(e, k));
        }
        /* spilled edges: the pages read leave the resident set */
        if (e->spilled && (k0 + kn) % DROP_EVERY == 0)
            drop_ids(e, k0 + kn - DROP_EVERY, k0 + kn);
    }
    drop_ids(e, e->n - e->n % DROP_EVERY, e->n);
}

/* Drop self-loops and repeated (u, v) pairs in place; the first
 * occurrence (smallest input id) of a pair is kept. */
static int filter(struct csc *c, int no_loops, int dedup, uint64_t *dropped)
{
    uint64_t words = (c->eout + 63) / 64, w = 0, i, sum = 0;
    int64_t *mark = NULL, v;
    int64_t *ip = c->ip;

    /* the kept ids renumber eids; without eids nothing needs them */
    if (!c->noe) {
        c->keep = dp_calloc(words ? words : 1, 8);
        c->rank = dp_malloc_array(words ? words : 1, 8);
    }
    if (dedup)
        mark = dp_malloc_array(c->n ? (size_t)c->n : 1, sizeof(*mark));
    if ((!c->noe && (!c->keep || !c->rank)) || (dedup && !mark)) {
        free(mark);
        return DP_ENOMEM;
    }
    if (mark)
        memset(mark, 0xff, (size_t)c->n * sizeof(*mark));
    for (v = 0; v < c->n; v++) {
        uint64_t start = (uint64_t)ip[v], end = (uint64_t)ip[v + 1];

        ip[v] = (int64_t)w;
        for (i = start; i < end; i++) {
            uint64_t x = c->noe ? 0 : get_eid(c, i);
            int64_t s = get_idx(c, i);

            if (no_loops && s == v)
                continue;
            if (dedup) {
                if (mark[s] == v)
                    continue;
                mark[s] = v;
            }
            put_pair(c, w++, x, s);
            if (c->keep)
                c->keep[x >> 6] |= UINT64_C(1) << (x & 63);
        }
    }
    ip[c->n] = (int64_t)w;
    for (i = 0; c->keep && i < words; i++) {
        c->rank[i] = sum;
        sum += (uint64_t)__builtin_popcountll(c->keep[i]);
    }
    *dropped = c->eout - w;
    c->eout = w;
    free(mark);
    return 0;
}

/* Entries [i, i + m) of the pairs as output items: sources (what 0) or
 * renumbered eids (what 1), int32 or int64. */
static void fill_out(const struct csc *c, int what, uint64_t i, uint64_t m,
                     void *out)
{
    int32_t *o32 = out;
    int64_t *o64 = out;
    uint64_t k;

    if (c->ids32 && what == 0)
        for (k = 0; k < m; k++)
            o32[k] = (int32_t)get_idx(c, i + k);
    else if (c->ids32)
        for (k = 0; k < m; k++)
            o32[k] = (int32_t)new_id(c, get_eid(c, i + k));
    else if (what == 0)
        for (k = 0; k < m; k++)
            o64[k] = get_idx(c, i + k);
    else
        for (k = 0; k < m; k++)
            o64[k] = (int64_t)new_id(c, get_eid(c, i + k));
}

struct job {
    struct csc *c;
    char *path;
    int what; /* 0 indices, 1 eids */
    int rc;
    char msg[1024];
};

/* One whole file from pairs holding every slot (the filtering path). */
static void *write_job(void *arg)
{
    struct job *j = arg;
    struct csc *c = j->c;
    struct dp_npy_writer w;
    int64_t shape = (int64_t)c->eout;
    void *buf = dp_malloc(CHUNK * sizeof(int64_t));
    uint64_t i, m;
    int rc;

    if (!buf) {
        j->rc = DP_ENOMEM;
        goto out;
    }
    rc = dp_npy_writer_open(&w, j->path, c->ids32 ? DP_I32 : DP_I64, 1, &shape);
    for (i = 0; !rc && i < c->eout; i += m) {
        m = c->eout - i < CHUNK ? c->eout - i : CHUNK;
        fill_out(c, j->what, i, m, buf);
        rc = dp_npy_writer_write(&w, buf, m);
    }
    if (!rc)
        rc = dp_npy_writer_commit(&w);
    else
        dp_npy_writer_abort(&w);
    j->rc = rc;
out:
    if (j->rc)
        snprintf(j->msg, sizeof(j->msg), "%s", dp_errmsg());
    free(buf);
    return NULL;
}

/* The slices of the unfiltered path: each holds about 1/SLICES of the
 * slots, so a thread's pairs are a sixteenth of the output, not all of
 * it, at the cost of one pass over the edges per slice. */
#define SLICES 16

struct sliced {
    struct csc *c;
    int64_t cut[SLICES + 1];   /* node bounds of the slices */
    uint64_t at[SLICES + 1];   /* their first slots */
    uint64_t cap;              /* slots of the largest slice */
    struct dp_npy_writer w[2]; /* indices.npy, eids.npy */
    int next;                  /* next slice to take */
    int failed;
};

struct sjob {
    struct sliced *s;
    int rc;
    char msg[1024];
};

/* Pieces a slice job hands to its writer thread, so that filling one
 * overlaps the direct write of the one before. */
#define PIECES 2

struct wpiece {
    struct dp_npy_writer *w;
    uint64_t at, n;
    void *buf;
};

struct wq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct wpiece p[PIECES];
    int head, count, closed, started, rc;
    char msg[1024];
};

static void *wq_run(void *arg)
{
    struct wq *q = arg;
    struct wpiece *p;
    int rc;

    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (!q->count && !q->closed)
            pthread_cond_wait(&q->cv, &q->mu);
        if (!q->count) {
            pthread_mutex_unlock(&q->mu);
            return NULL;
        }
        p = &q->p[q->head];
        rc = q->rc;
        pthread_mutex_unlock(&q->mu);
        if (!rc)
            rc = dp_npy_writer_pwrite(p->w, p->at, p->buf, p->n);
        pthread_mutex_lock(&q->mu);
        if (rc && !q->rc) {
            q->rc = rc;
            snprintf(q->msg, sizeof(q->msg), "%s", dp_errmsg());
        }
        q->head = (q->head + 1) % PIECES;
        q->count--;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
}

/* The next free piece, once the writer is done with it; NULL after a
 * failed write. */
static struct wpiece *wq_free(struct wq *q)
{
    struct wpiece *p = NULL;

    pthread_mutex_lock(&q->mu);
    while (q->count == PIECES && !q->rc)
        pthread_cond_wait(&q->cv, &q->mu);
    if (!q->rc)
        p = &q->p[(q->head + q->count) % PIECES];
    pthread_mutex_unlock(&q->mu);
    return p;
}

static void wq_put(struct wq *q)
{
    pthread_mutex_lock(&q->mu);
    q->count++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Start q's writer thread, with its pieces page-aligned for the whole
 * pages that go past the page cache. Undone by wq_stop, even on failure. */
static int wq_start(struct wq *q, pthread_t *wt)
{
    int i;

    memset(q, 0, sizeof(*q));
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    for (i = 0; i < PIECES; i++)
        if (posix_memalign(&q->p[i].buf, 4096, PIECE * sizeof(int64_t))) {
            q->p[i].buf = NULL;
            return DP_ENOMEM;
        }
    if (pthread_create(wt, NULL, wq_run, q))
        return dp_error(DP_ENOMEM, "cannot start a writer thread");
    q->started = 1;
    return 0;
}

/* Wait for the writes queued on q and end its thread: rc, or the first
 * write's error. */
static int wq_stop(struct wq *q, pthread_t wt, int rc)
{
    int i;

    if (q->started) {
        pthread_mutex_lock(&q->mu);
        q->closed = 1;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        pthread_join(wt, NULL);
        if (q->rc && !rc)
            rc = dp_error(q->rc, "%s", q->msg);
    }
    for (i = 0; i < PIECES; i++)
        free(q->p[i].buf);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    return rc;
}

/* Queue slots [c->base, c->base + m) of the pairs for both files. */
static int queue_out(struct wq *q, struct dp_npy_writer *w, const struct csc *c,
                     uint64_t m)
{
    uint64_t i, k, isz = c->ids32 ? 4 : 8;
    struct wpiece *p;
    int f;

    for (f = 0; f < 2 - c->noe; f++)
        for (i = 0; i < m; i += k) {
            /* pieces start at file pages where they can */
            uint64_t at = w[f].header_len + (c->base + i) * isz;

            k = at % 4096 ? (4096 - at % 4096) / isz : PIECE;
            if (k > m - i)
                k = m - i;
            if (!(p = wq_free(q)))
                return DP_EIO;
            fill_out(c, f, i, k, p->buf);
            p->w = &w[f];
            p->at = c->base + i;
            p->n = k;
            wq_put(q);
        }
    return 0;
}

/* After a job's error rc: the other job stops at its next piece, and
 * msg keeps the message for the caller's thread. */
static void job_failed(int *failed, int rc, char *msg, size_t n)
{
    if (!rc)
        return;
    __atomic_store_n(failed, 1, __ATOMIC_RELAXED);
    snprintf(msg, n, "%s", dp_errmsg());
}

/* Slices taken in turn until none is left: scattered, then written in
 * place into both files by the job's writer thread. */
static void *slice_job(void *arg)
{
    struct sjob *j = arg;
    struct sliced *s = j->s;
    struct csc c = *s->c;
    struct wq q;
    pthread_t wt;
    int t;

    c.pairs = dp_malloc_array(s->cap ? (size_t)s->cap : 1, pair_bytes(&c));
    j->rc = wq_start(&q, &wt);
    if (!j->rc && !c.pairs)
        j->rc = DP_ENOMEM;
    if (!j->rc)
        cv_hugepages(c.pairs, (size_t)s->cap * pair_bytes(&c));
    while (!j->rc && !__atomic_load_n(&s->failed, __ATOMIC_RELAXED) &&
           (t = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED)) < SLICES) {
        c.base = s->at[t];
        if (s->at[t + 1] == c.base)
            continue;
        scan_range(&c, s->cut[t], s->cut[t + 1]);
        j->rc = queue_out(&q, s->w, &c, s->at[t + 1] - c.base);
    }
    j->rc = wq_stop(&q, wt, j->rc);
    job_failed(&s->failed, j->rc, j->msg, sizeof(j->msg));
    free(c.pairs);
    return NULL;
}

/* ---- the CSC from buckets ---- */

/* The next entry of a bucket from word *i: its source and node offset;
 * *last becomes its edge id. */
static inline void bkt_next(const uint32_t *v, uint64_t *i, uint64_t *last,
                            uint32_t *src, uint32_t *off)
{
    uint32_t w = v[*i + 1], gap = w >> BKT_OFF_BITS;

    *src = v[*i];
    *off = w & ((UINT32_C(1) << BKT_OFF_BITS) - 1);
    if (gap == 255) {
        *last = v[*i + 2] | (uint64_t)v[*i + 3] << 32;
        *i += 4;
    } else {
        *last += 1 + gap;
        *i += 2;
    }
}

struct bucketed {
    struct csc *c;
    struct dp_npy_writer w[2]; /* indices.npy, eids.npy */
    uint64_t *at;              /* first slot of each bucket, nbkt + 1 */
    uint64_t cap; /* slots a pass fills, unless one node has more */
    int next, failed;
};

struct bjob {
    struct bucketed *s;
    int rc;
    char msg[1024];
};

/* Place the entries of bucket b on nodes [va + o0, va + o1), whose slots
 * start at c->base. */
static void bkt_place(struct csc *c, const struct cv_bucket *b, int64_t va,
                      uint32_t o0, uint32_t o1)
{
    int64_t *cur = c->cur + va, base = (int64_t)c->base;
    uint64_t i = 0, last = UINT64_MAX;
    uint32_t src, off;

    while (i < b->n) {
        bkt_next(b->v, &i, &last, &src, &off);
        if (off - o0 < o1 - o0)
            put_pair(c, (uint64_t)(cur[off]++ - base), last, src);
    }
}

/* A bucket's chunks and the rest after them in one page-aligned buffer of
 * the thread's, *buf of *cap words, seen through view. */
static int bkt_load(struct cv_edges *e, const struct cv_bucket *b,
                    uint32_t **buf, size_t *cap, struct cv_bucket *view)
{
    size_t chw = cv_chunks_bytes(e->chunks) / sizeof(**buf),
           words = b->nch * chw + b->n, k;
    int rc;

    *view = *b;
    if (!b->nch)
        return 0;
    if (words > *cap) {
        void *p;

        free(*buf);
        *buf = NULL;
        *cap = 0;
        if (posix_memalign(&p, 4096, words * sizeof(**buf)))
            return DP_ENOMEM;
        *buf = p;
        *cap = words;
    }
    for (k = 0; k < b->nch; k++) {
        uint32_t *to = *buf + k * chw;

        if (b->ch[k].mem) {
            memcpy(to, b->ch[k].mem, chw * sizeof(*to));
            free(b->ch[k].mem);
            b->ch[k].mem = NULL;
        } else if ((rc = cv_chunks_read(e->chunks, b->ch[k].at, to))) {
            return rc;
        }
    }
    memcpy(*buf + b->nch * chw, b->v, b->n * sizeof(**buf));
    view->v = *buf;
    view->n = words;
    return 0;
}

/* A thread of a job's that reads the next bucket's chunks back while the
 * job places the current one, into the buffer the job is not using. */
struct loader {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct cv_edges *e;
    pthread_t tid;
    int t;     /* bucket asked for; -1: none */
    int ready; /* view holds it */
    int stop, started, slot, rc;
    uint32_t *buf[2];
    size_t cap[2];
    struct cv_bucket view;
    char msg[1024];
};

static void *loader_run(void *arg)
{
    struct loader *l = arg;
    struct cv_bucket view;
    int t, rc;

    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (l->t < 0 && !l->stop)
            pthread_cond_wait(&l->cv, &l->mu);
        if (l->t < 0)
            break;
        t = l->t;
        pthread_mutex_unlock(&l->mu);
        rc = bkt_load(l->e, &l->e->bkt[t], &l->buf[l->slot], &l->cap[l->slot],
                      &view);
        pthread_mutex_lock(&l->mu);
        if (rc)
            snprintf(l->msg, sizeof(l->msg), "%s", dp_errmsg());
        l->rc = rc;
        l->view = view;
        l->t = -1;
        l->ready = 1;
        pthread_cond_broadcast(&l->cv);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

static int loader_start(struct loader *l, struct cv_edges *e)
{
    memset(l, 0, sizeof(*l));
    l->e = e;
    l->t = -1;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    if (pthread_create(&l->tid, NULL, loader_run, l))
        return dp_error(DP_ENOMEM, "cannot start a reader thread");
    l->started = 1;
    return 0;
}

/* Read bucket t into the other buffer. */
static void loader_ask(struct loader *l, int t)
{
    pthread_mutex_lock(&l->mu);
    l->slot ^= 1;
    l->t = t;
    l->ready = 0;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

/* The bucket last asked for, once read. */
static int loader_wait(struct loader *l, struct cv_bucket *view)
{
    int rc;

    pthread_mutex_lock(&l->mu);
    while (!l->ready)
        pthread_cond_wait(&l->cv, &l->mu);
    *view = l->view;
    rc = l->rc ? dp_error(l->rc, "%s", l->msg) : 0;
    pthread_mutex_unlock(&l->mu);
    return rc;
}

static void loader_stop(struct loader *l)
{
    if (l->started) {
        pthread_mutex_lock(&l->mu);
        l->stop = 1;
        pthread_cond_signal(&l->cv);
        pthread_mutex_unlock(&l->mu);
        pthread_join(l->tid, NULL);
    }
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    free(l->buf[0]);
    free(l->buf[1]);
}

/* Bucket t's degrees counted, its slots given, its entries placed (in
 * passes of at most cap slots) and queued for writing in place. */
static int bkt_csc(struct bucketed *s, struct csc *c, struct wq *q, int t,
                   const struct cv_bucket *b, uint64_t *pcap)
{
    const struct cv_edges *e = c->e;
    int64_t va = (int64_t)t << e->bshift, vb = va + (INT64_C(1) << e->bshift);
    int64_t *ip = c->ip, *cur = c->cur, v0, v1, v;
    uint64_t i = 0, last = UINT64_MAX, run = s->at[t], end = s->at[t + 1];
    uint32_t src, off;
    int rc = 0;

    if (vb > c->n)
        vb = c->n;
    while (i < b->n) {
        bkt_next(b->v, &i, &last, &src, &off);
        cur[va + off]++;
    }
    for (v = va; v < vb; v++) {
        int64_t d = cur[v];

        ip[v] = cur[v] = (int64_t)run;
        run += (uint64_t)d;
    }
    /* passes over the bucket: nodes [v0, v1), at most cap slots, or one
     * node */
    for (v0 = va; v0 < vb && !rc; v0 = v1) {
        uint64_t m;

        for (v1 = v0 + 1; v1 < vb; v1++)
            if ((v1 + 1 < vb ? (uint64_t)ip[v1 + 1] : end) - (uint64_t)ip[v0] >
                s->cap)
                break;
        m = (v1 < vb ? (uint64_t)ip[v1] : end) - (uint64_t)ip[v0];
        if (!m)
            continue;
        if (m > *pcap) {
            free(c->pairs);
            if (!(c->pairs = dp_malloc_array((size_t)m, pair_bytes(c))))
                return DP_ENOMEM;
            *pcap = m;
            cv_hugepages(c->pairs, (size_t)m * pair_bytes(c));
        }
        c->base = (uint64_t)ip[v0];
        bkt_place(c, b, va, (uint32_t)(v0 - va), (uint32_t)(v1 - va));
        rc = queue_out(q, s->w, c, m);
    }
    return rc;
}

static int bkt_claim(struct bucketed *s, int nbkt)
{
    if (__atomic_load_n(&s->failed, __ATOMIC_RELAXED))
        return nbkt;
    return __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED);
}

/* Buckets taken in turn, each freed once out; with chunks, the next one
 * read back while the current one is placed. */
static void *bucket_job(void *arg)
{
    struct bjob *j = arg;
    struct bucketed *s = j->s;
    struct csc c = *s->c;
    struct cv_edges *e = (struct cv_edges *)c.e;
    uint64_t pcap = 0;
    struct loader ld;
    struct wq q;
    pthread_t wt;
    int t, next, rc;

    c.pairs = NULL;
    j->rc = wq_start(&q, &wt);
    rc = e->chunks ? loader_start(&ld, e) : 0;
    if (!j->rc)
        j->rc = rc;
    t = j->rc ? e->nbkt : bkt_claim(s, e->nbkt);
    if (e->chunks && t < e->nbkt)
        loader_ask(&ld, t);
    while (!j->rc && t < e->nbkt) {
        struct cv_bucket *own = &e->bkt[t], view = *own;

        if (e->chunks && (j->rc = loader_wait(&ld, &view)))
            break;
        next = bkt_claim(s, e->nbkt);
        if (e->chunks && next < e->nbkt)
            loader_ask(&ld, next);
        j->rc = bkt_csc(s, &c, &q, t, &view, &pcap);
        free(own->v);
        free(own->ch);
        own->v = NULL;
        own->ch = NULL;
        own->n = own->cap = own->nch = 0;
        t = next;
    }
    if (e->chunks)
        loader_stop(&ld);
    j->rc = wq_stop(&q, wt, j->rc);
    job_failed(&s->failed, j->rc, j->msg, sizeof(j->msg));
    free(c.pairs);
    return NULL;
}

struct cjob {
    struct dp_npy_writer *w;
    int rc;
    char msg[1024];
};

/* Two commits at once: each waits on its own fsync. */
static void *commit_job(void *arg)
{
    struct cjob *j = arg;

    if (j->w && (j->rc = dp_npy_writer_commit(j->w)))
        snprintf(j->msg, sizeof(j->msg), "%s", dp_errmsg());
    return NULL;
}

/* Open indices.npy and eids.npy (not with noe) for slots written in
 * place, whole pages past the page cache. */
static int open_out(struct cv_graph *g, const struct csc *c,
                    struct dp_npy_writer *w)
{
    int64_t shape = (int64_t)c->eout;
    int i, rc = 0;

    for (i = 0; i < 2 - c->noe && !rc; i++) {
        char *path = cv_graph_path(g, i ? "eids.npy" : "indices.npy");

        rc = path ? dp_npy_writer_open(&w[i], path, c->ids32 ? DP_I32 : DP_I64,
                                       1, &shape)
                  : DP_ENOMEM;
        free(path);
        if (!rc)
            dp_afile_direct_slices(&w[i].af);
        if (rc)
            while (i-- > 0)
                dp_npy_writer_abort(&w[i]);
    }
    return rc;
}

/* Commit what open_out opened, the two fsyncs together, or abort it after
 * rc. */
static int close_out(const struct csc *c, struct dp_npy_writer *w, int rc)
{
    struct cjob cj[2];
    int i, files = 2 - c->noe;

    if (rc) {
        for (i = 0; i < files; i++)
            dp_npy_writer_abort(&w[i]);
        return rc;
    }
    memset(cj, 0, sizeof(cj));
    for (i = 0; i < files; i++)
        cj[i].w = &w[i];
    dp_run_pair(commit_job, &cj[0], &cj[1], 1);
    for (i = 0; i < 2 && !rc; i++)
        if (cj[i].rc)
            rc = dp_error(cj[i].rc, "%s", cj[i].msg);
    return rc;
}

/* indices.npy and eids.npy in SLICES slices on two threads. */
static int write_sliced(struct cv_graph *g, struct csc *c)
{
    struct sliced s;
    struct sjob j[2];
    int64_t v = 0;
    int q, i, rc = 0;

    memset(&s, 0, sizeof(s));
    memset(j, 0, sizeof(j));
    s.c = c;
    /* cut q: the first node whose slots start at or past q/SLICES of all */
    for (q = 0; q <= SLICES; q++) {
        uint64_t at = q == SLICES ? c->eout : c->eout / SLICES * (uint64_t)q;

        while (v < c->n && (uint64_t)c->ip[v] < at)
            v++;
        s.cut[q] = q == SLICES ? c->n : v;
        s.at[q] = (uint64_t)c->ip[s.cut[q]];
        if (q && s.at[q] - s.at[q - 1] > s.cap)
            s.cap = s.at[q] - s.at[q - 1];
    }
    memcpy(c->cur, c->ip, ((size_t)c->n + 1) * sizeof(*c->cur));
    /* written already; the slices need only their first slots */
    free(c->ip);
    c->ip = NULL;
    if ((rc = open_out(g, c, s.w)))
        return rc;
    if (dp_verbose)
        fprintf(stderr, "%s: csc: %d slices of up to %" PRIu64 " entries\n",
                dp_progname(), SLICES, s.cap);
    j[0].s = j[1].s = &s;
    dp_run_pair(slice_job, &j[0], &j[1], c->eout > (1u << 20));
    for (i = 0; i < 2 && !rc; i++)
        if (j[i].rc)
            rc = dp_error(j[i].rc, "%s", j[i].msg);
    return close_out(c, s.w, rc);
}

/* indptr.npy, indices.npy and eids.npy from the buckets, on two threads:
 * each bucket's edges are read twice, its slots written once. */
static int write_buckets(struct cv_graph *g, struct csc *c)
{
    struct cv_edges *e = (struct cv_edges *)c->e;
    struct bucketed s;
    struct bjob j[2];
    int64_t v, cap = 0;
    int i, rc = 0;
    char *path;

    if (e->chunks && (rc = cv_chunks_sync(e->chunks)))
        return rc;
    memset(&s, 0, sizeof(s));
    memset(j, 0, sizeof(j));
    s.c = c;
    if (!(s.at = dp_malloc_array((size_t)e->nbkt + 1, sizeof(*s.at))))
        return DP_ENOMEM;
    s.at[0] = 0;
    for (i = 0; i < e->nbkt; i++)
        s.at[i + 1] = s.at[i] + e->bkt[i].edges;
    /* two fair shares a pass: the pairs of both threads are a
     * sixteenth of the output at 32 buckets */
    s.cap = 2 * ((c->eout + (uint64_t)e->nbkt - 1) / (uint64_t)e->nbkt);
    dp_env_int("DGLPART_TEST_BUCKET_CAP", &cap);
    if (cap)
        s.cap = (uint64_t)cap;
    if (!s.cap)
        s.cap = 1;
    if ((rc = open_out(g, c, s.w)))
        goto out;
    dp_log(DP_LOG_V, "csc: %d buckets of %" PRId64 " nodes", e->nbkt,
           (int64_t)1 << e->bshift);
    j[0].s = j[1].s = &s;
    dp_run_pair(bucket_job, &j[0], &j[1], c->eout > (1u << 20));
    for (i = 0; i < 2 && !rc; i++)
        if (j[i].rc)
            rc = dp_error(j[i].rc, "%s", j[i].msg);
    /* the end, and nodes past the last bucket: no edges */
    for (v = (int64_t)e->nbkt << e->bshift; v < c->n && !rc; v++)
        c->ip[v] = (int64_t)c->eout;
    c->ip[c->n] = (int64_t)c->eout;
    if (!rc) {
        int64_t ishape = c->n + 1;

        path = cv_graph_path(g, "indptr.npy");
        rc = path ? dp_npy_write(path, DP_I64, 1, &ishape, c->ip) : DP_ENOMEM;
        free(path);
    }
    rc = close_out(c, s.w, rc);
out:
    free(s.at);
    return rc;
}

static int write_weights(struct cv_graph *g, struct csc *c, uint64_t total)
{
    struct dp_npy_writer w;
    int64_t shape = (int64_t)c->eout, *buf = NULL;
    char *path = cv_graph_path(g, "edge_weight.npy");
    uint64_t x, m = 0;
    int rc = DP_ENOMEM;

    buf = dp_malloc(CHUNK * sizeof(*buf));
    if (!path || !buf)
        goto out;
    rc = dp_npy_writer_open(&w, path, DP_I64, 1, &shape);
    for (x = 0; !rc && x < total; x++) {
        if (c->keep && !(c->keep[x >> 6] >> (x & 63) & 1))
            continue;
        buf[m++] = g->edges.weight[c->und ? x >> 1 : x];
        if (m == CHUNK) {
            rc = dp_npy_writer_write(&w, buf, m);
            m = 0;
        }
    }
    if (!rc && m)
        rc = dp_npy_writer_write(&w, buf, m);
    if (!rc)
        rc = dp_npy_writer_commit(&w);
    else
        dp_npy_writer_abort(&w);
out:
    free(buf);
    free(path);
    return rc;
}

int cv_graph_write_csc(struct cv_graph *g)
{
    const struct dp_convert_opts *o = g->o;
    struct cv_edges *e = &g->edges;
    struct csc c;
    struct job jobs[2];
    int rc = 0, i, filtering = o->no_self_loops || o->dedup;
    uint64_t total, dropped = 0;
    double t0 = dp_now();
    char *path = NULL;

    memset(&c, 0, sizeof(c));
    memset(jobs, 0, sizeof(jobs));
    pthread_once(&simd_once, simd_init);
    c.e = e;
    c.und = o->undirected;
    c.n = g->num_nodes;
    if (e->n > UINT64_MAX / 2 || (e->n && e->max_id >= c.n))
        return dp_error(DP_ERANGE,
                        "node id %" PRId64 " out of range [0, %" PRId64 ")",
                        e->max_id, c.n);
    c.eout = total = c.und ? 2 * e->n : e->n;
    c.wide = total > UINT32_MAX || e->wide;
    /* edge weights are stored by input edge id, so they keep the eids */
    c.noe = o->no_eids && !e->has_weight && !g->meta.num_ntypes;
    c.ip = dp_calloc((size_t)c.n + 1, sizeof(*c.ip));
    c.cur = dp_calloc((size_t)c.n + 1, sizeof(*c.cur));
    if (!c.ip || !c.cur) {
        rc = DP_ENOMEM;
        goto out;
    }
    cv_hugepages(c.ip, ((size_t)c.n + 1) * sizeof(*c.ip));
    cv_hugepages(c.cur, ((size_t)c.n + 1) * sizeof(*c.cur));
    if (e->bkt) {
        if (filtering || c.und || c.wide || e->n > e->base) {
            rc = dp_error(DP_EINVAL, "buckets for a CSC they cannot make");
            goto out;
        }
        c.ids32 = !o->ids64 && c.n <= INT32_MAX && c.eout <= INT32_MAX;
        if ((rc = write_buckets(g, &c)))
            goto out;
        goto written;
    }
    offsets(&c);
    free(e->deg);
    e->deg = NULL;
    if (filtering) {
        /* Filtering renumbers slots and eids across the whole graph: all
         * pairs at once, on one thread. */
        c.pairs = dp_malloc_array(total ? total : 1, pair_bytes(&c));
        if (!c.pairs) {
            rc = DP_ENOMEM;
            goto out;
        }
        cv_hugepages(c.pairs, (size_t)total * pair_bytes(&c));
        memcpy(c.cur, c.ip, ((size_t)c.n + 1) * sizeof(*c.cur));
        scan_range(&c, 0, c.n);
        free_ids(e);
        if ((rc = filter(&c, o->no_self_loops, o->dedup, &dropped)))
            goto out;
        if (dropped)
            dp_warn("dropped %" PRIu64 " of %" PRIu64 " edges (%s)", dropped,
                    total,
                    o->no_self_loops && o->dedup ? "self-loops and repeats"
                    : o->dedup                   ? "repeats"
                                                 : "self-loops");
    }
    /* eids are below eout and sources below n after filtering too */
    c.ids32 = !o->ids64 && c.n <= INT32_MAX && c.eout <= INT32_MAX;
    path = cv_graph_path(g, "indptr.npy");
    if (!path) {
        rc = DP_ENOMEM;
        goto out;
    }
    {
        int64_t shape = c.n + 1;

        if ((rc = dp_npy_write(path, DP_I64, 1, &shape, c.ip)))
            goto out;
    }
    if (!filtering) {
        if ((rc = write_sliced(g, &c)))
            goto out;
    } else {
        for (i = 0; i < 2; i++) {
            jobs[i].c = &c;
            jobs[i].what = i;
            jobs[i].path = cv_graph_path(g, i ? "eids.npy" : "indices.npy");
            if (!jobs[i].path) {
                rc = DP_ENOMEM;
                goto out;
            }
        }
        if (c.noe)
            write_job(&jobs[0]);
        else
            dp_run_pair(write_job, &jobs[0], &jobs[1], c.eout > (1u << 20));
        for (i = 0; i < 2 - c.noe; i++)
            if (jobs[i].rc) {
                rc = dp_error(jobs[i].rc, "%s", jobs[i].msg);
                goto out;
            }
    }
    if (e->has_weight && (rc = write_weights(g, &c, total)))
        goto out;
written:
    g->meta.num_edges = (int64_t)c.eout;
    g->meta.directed = !c.und;
    g->meta.ids32 = c.ids32;
    g->meta.no_eids = c.noe;
    g->meta.has_edge_weight = e->has_weight;
    if (dp_verbose)
        dp_timer_report("csc: written", t0);
out:
    for (i = 0; i < 2; i++)
        free(jobs[i].path);
    free(path);
    free(c.ip);
    free(c.cur);
    free(c.pairs);
    free(c.keep);
    free(c.rank);
    cv_edges_release(e);
    return rc;
}
