/* Compressed neighbour lists (cgraph.h): the encoder, built on two threads
 * in two passes (sizes, then bytes at their prefix sums), so the bytes do
 * not depend on which thread encoded which node. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgraph.h"
#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/memory.h"
#include "dglpart/thread.h"

/* Encoding a node only when a thread has this many entries to do. */
#define CG_THREAD_MIN (1 << 16)
/* Bytes a thread gathers before one write to a scratch file: 4 MiB, or
 * DGLPART_TEST_CG_BUF, which makes small graphs fill and flush it often. */
static size_t cg_buf(void)
{
    int64_t x = 4 << 20;

    dp_env_int("DGLPART_TEST_CG_BUF", &x);
    return (size_t)x;
}

/* Bytes of x as a varint. */
static size_t vlen(uint64_t x)
{
    return (size_t)(63 - __builtin_clzll(x | 1)) / 7 + 1;
}

/* Write x as a varint at out; returns its bytes. */
static size_t put(uint8_t *out, uint64_t x)
{
    size_t k = 0;

    while (x >= 0x80) {
        out[k++] = (uint8_t)(x | 0x80);
        x >>= 7;
    }
    out[k] = (uint8_t)x;
    return k + 1;
}

static uint64_t zigzag(int64_t x)
{
    return ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
}

/* Weights of a row, or NULL when every one is 1. */
static const int32_t *row_weights(const int32_t *w, int64_t len)
{
    int64_t i;

    for (i = 0; w && i < len; i++)
        if (w[i] != 1)
            return w;
    return NULL;
}

/* Length of the run of consecutive ids at ids[i] (1 when none). */
static int64_t run_at(const int32_t *ids, int64_t i, int64_t len)
{
    int64_t j = i + 1;

    while (j < len && ids[j] == ids[j - 1] + 1)
        j++;
    return j - i;
}

/* Bytes of one chunk (len sorted ids of node v, weights ws or NULL)
 * without intervals (*plain) and with them (*runs), in one sweep. */
static void chunk_cost(int32_t v, const int32_t *ids, const int32_t *ws,
                       int64_t len, size_t *plain, size_t *runs)
{
    size_t p = 0, q = 0, w = 0;
    int64_t i = 0, prev = v, r, t;

    while (i < len) {
        uint64_t gap = (uint64_t)(ids[i] - prev);

        r = run_at(ids, i, len);
        if (i == 0) {
            gap = zigzag(ids[0] - (int64_t)v);
            p += vlen(gap << 1);
            q += vlen(gap << 2 | 1);
        } else {
            p += vlen(gap);
            q += vlen(gap << 1);
        }
        p += (size_t)(r - 1); /* gaps of 1 */
        if (r >= ML_CG_RUN_MIN)
            q += vlen((uint64_t)(r - ML_CG_RUN_MIN));
        else
            q += (size_t)(r - 1);
        for (t = i; ws && t < i + r; t++)
            w += vlen((uint32_t)ws[t]);
        i += r;
        prev = ids[i - 1];
    }
    *plain = p + w;
    *runs = q + w;
}

/* Write one chunk at out, with intervals when runs; returns its bytes. */
static size_t put_chunk(uint8_t *out, int32_t v, const int32_t *ids,
                        const int32_t *ws, int64_t len, int runs)
{
    size_t k = 0;
    int64_t i = 0, prev = v, r, t;

    while (i < len) {
        r = runs ? run_at(ids, i, len) : 1;
        if (r < ML_CG_RUN_MIN)
            r = 1;
        if (i == 0 && runs)
            k += put(out + k,
                     zigzag(ids[0] - (int64_t)v) << 2 | (r > 1) << 1 | 1);
        else if (i == 0)
            k += put(out + k, zigzag(ids[0] - (int64_t)v) << 1);
        else if (runs)
            k += put(out + k, (uint64_t)(ids[i] - prev) << 1 | (r > 1));
        else
            k += put(out + k, (uint64_t)(ids[i] - prev));
        if (r > 1)
            k += put(out + k, (uint64_t)(r - ML_CG_RUN_MIN));
        for (t = i; ws && t < i + r; t++)
            k += put(out + k, (uint32_t)ws[t]);
        i += r;
        prev = ids[i - 1];
    }
    return k;
}

/* Whether sorted ids[len] hold a run of ML_CG_RUN_MIN consecutive ids.
 * Without one, intervals cannot make a chunk smaller: each token is as
 * long as its plain gap or longer. */
static int has_run(const int32_t *ids, int64_t len)
{
    int64_t i;
    int r = 0;

    _Static_assert(ML_CG_RUN_MIN == 3, "has_run looks for 3 in a row");
    for (i = 2; i < len; i++)
        r |= (ids[i] - ids[i - 2] == 2) & (ids[i - 1] - ids[i - 2] == 1);
    return r;
}

/* Bytes of put_chunk without intervals, in one sweep. */
static size_t plain_bytes(int32_t v, const int32_t *ids, const int32_t *ws,
                          int64_t len)
{
    size_t k = vlen(zigzag(ids[0] - (int64_t)v) << 1);
    int64_t i;

    for (i = 1; i < len; i++)
        k += vlen((uint64_t)(ids[i] - ids[i - 1]));
    for (i = 0; ws && i < len; i++)
        k += vlen((uint32_t)ws[i]);
    return k;
}

/* Intervals only where they make the chunk smaller; out NULL: count. A
 * chunk without a run (most of rmat's) goes in one sweep, without the cost
 * of both forms: rmat 21's symmetrised rows, sorted, were sized and
 * written in 16.5 ns an entry against 42.8. */
static size_t put_chunk_best(uint8_t *out, int32_t v, const int32_t *ids,
                             const int32_t *ws, int64_t len)
{
    size_t plain, runs;

    if (!has_run(ids, len))
        return out ? put_chunk(out, v, ids, ws, len, 0)
                   : plain_bytes(v, ids, ws, len);
    chunk_cost(v, ids, ws, len, &plain, &runs);
    if (!out)
        return runs < plain ? runs : plain;
    return put_chunk(out, v, ids, ws, len, runs < plain);
}

size_t ml_cg_put_list(uint8_t *out, int32_t v, const int32_t *ids,
                      const int32_t *ws, int64_t deg)
{
    int64_t nc = ml_cg_nchunks(deg), c, len;
    size_t k, tab, at;

    if (!deg)
        return 0;
    ws = row_weights(ws, deg);
    k = out ? put(out, (uint64_t)deg << 1 | (ws != NULL))
            : vlen((uint64_t)deg << 1);
    tab = k;
    k += (size_t)(nc - 1) * 8;
    at = k;
    for (c = 0; c < nc; c++) {
        uint64_t rel = k - at;

        len = deg - c * ML_CG_CHUNK < ML_CG_CHUNK || nc == 1
                  ? deg - c * ML_CG_CHUNK
                  : ML_CG_CHUNK;
        if (c > 0 && out)
            memcpy(out + tab + (size_t)(c - 1) * 8, &rel, 8);
        k += put_chunk_best(out ? out + k : NULL, v, ids + c * ML_CG_CHUNK,
                            ws ? ws + c * ML_CG_CHUNK : NULL, len);
    }
    return k;
}

/* One thread's nodes [v0, v1): pass 1 counts each node's bytes into
 * size[v + 1], pass 2 writes them at out + off(v). */
struct cg_job {
    const int64_t *xadj;
    const int32_t *adj, *adjw;
    int32_t v0, v1;
    int pass;
    struct ml_cgraph *g;
    uint64_t *size;
    uint64_t *t;       /* sort space */
    int32_t *ids, *ws; /* sorted copies of a row when it is not sorted */
    int64_t cap;
    int err;
    /* into a scratch file, in one pass: bytes gathered in buf, written at
     * file_off + their offset, a thread's from its region's start (bat
     * at first) on; size[v] gets v's offset */
    struct dp_spill *sp;
    size_t file_off;
    uint8_t *buf;
    size_t bcap, bn;
    uint64_t bat; /* offset of buf[0] */
    /* the source's entries written out, whole pages: given to done from
     * entry done_at on */
    void (*done)(void *arg, const int32_t *adj, size_t len);
    void *done_arg;
    int64_t done_at;
};

static int row_sorted(const int32_t *a, int64_t len)
{
    int64_t i;

    for (i = 1; i < len; i++)
        if (a[i] < a[i - 1])
            return 0;
    return 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Quicksort without a comparator call an element (qsort's cost four
 * times over on contracted rows); past depth, qsort's own guarantees. */
static void sort_u64(uint64_t *a, int64_t len, int depth)
{
    uint64_t x, t;
    int64_t i, j;

    while (len > 16) {
        x = a[len / 2];
        i = 0;
        j = len - 1;
        if (!depth--) {
            qsort(a, (size_t)len, sizeof(*a), cmp_u64);
            return;
        }
        while (i <= j) {
            while (a[i] < x)
                i++;
            while (a[j] > x)
                j--;
            if (i <= j) {
                t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        sort_u64(a, j + 1, depth);
        a += i;
        len -= i;
    }
    for (i = 1; i < len; i++) {
        x = a[i];
        for (j = i; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

/* Rows without weights this long or longer are sorted by radix: rmat's
 * hubs hold most entries, and a comparison sort of them took most of
 * the time of compressing a symmetrised graph. */
#define RADIX_MIN 256
/* A radix pass's digit: at most this many bits (its counts then fit L1),
 * and no more than the row's length in buckets, whose prefix sums cost as
 * much as the pass. Three passes of 9 bits sort rmat 27's ids, where four
 * of 8 bits did (rmat 21's rows: radix 26% of the compression's time). */
#define RADIX_BITS 10

/* a[len] of ids in [0, 2^31) sorted into out, by digits from the least
 * significant, as few as the largest id allows, skipping digits every id
 * shares; tmp[len] scratch. The counts of every digit come from one read:
 * a pass keeps them. */
static void radix_ids(const int32_t *a, int32_t *out, int32_t *tmp, int64_t len)
{
    const uint32_t *src = (const uint32_t *)a;
    uint32_t *dst, cnt[4][1 << RADIX_BITS], all = 0, at, mask;
    int k, b, bits, cap, passes, digit, pass = 0, nb = 0;
    int64_t i;

    for (i = 0; i < len; i++)
        all |= src[i];
    bits = 32 - __builtin_clz(all | 1);
    cap = 63 - __builtin_clzll((uint64_t)len);
    cap = cap < 8 ? 8 : cap > RADIX_BITS ? RADIX_BITS : cap;
    passes = (bits + cap - 1) / cap;
    digit = (bits + passes - 1) / passes;
    mask = ((uint32_t)1 << digit) - 1;
    memset(cnt, 0, sizeof(cnt[0]) * (size_t)passes);
    for (i = 0; i < len; i++)
        for (k = 0; k < passes; k++)
            cnt[k][(src[i] >> (digit * k)) & mask]++;
    for (k = 0; k < passes; k++)
        nb += cnt[k][(src[0] >> (digit * k)) & mask] != (uint32_t)len;
    if (!nb)
        memcpy(out, a, (size_t)len * sizeof(*a));
    for (k = 0; k < passes; k++) {
        uint32_t *c = cnt[k];
        int shift = digit * k;

        if (c[(src[0] >> shift) & mask] == (uint32_t)len)
            continue;
        /* the last pass writes out */
        dst = (uint32_t *)((nb - pass) % 2 ? out : tmp);
        for (b = 0, at = 0; b <= (int)mask; b++) {
            uint32_t n = c[b];

            c[b] = at;
            at += n;
        }
        for (i = 0; i < len; i++)
            dst[c[(src[i] >> shift) & mask]++] = src[i];
        src = dst;
        pass++;
    }
}

void ml_cg_sort_ids(const int32_t *a, int32_t *out, int32_t *tmp, int64_t len)
{
    uint64_t t[RADIX_MIN];
    int64_t i;

    if (len >= RADIX_MIN) {
        radix_ids(a, out, tmp, len);
        return;
    }
    for (i = 0; i < len; i++)
        t[i] = (uint32_t)a[i];
    sort_u64(t, len, 64);
    for (i = 0; i < len; i++)
        out[i] = (int32_t)t[i];
}

/* Row v sorted into j's buffers, weights following their ids (equal ids
 * by weight, so the order is a function of the row). */
static int sort_row(struct cg_job *j, const int32_t *a, const int32_t *w,
                    int64_t len)
{
    uint64_t *t;
    int64_t i;

    if (len > j->cap) {
        free(j->t);
        free(j->ids);
        free(j->ws);
        j->t = dp_malloc_array((size_t)len, sizeof(*j->t));
        j->ids = dp_malloc_array((size_t)len, sizeof(*j->ids));
        j->ws = dp_malloc_array((size_t)len, sizeof(*j->ws));
        j->cap = j->t && j->ids && j->ws ? len : 0;
        if (!j->cap)
            return -1;
    }
    if (!w) {
        ml_cg_sort_ids(a, j->ids, j->ws, len);
        return 0;
    }
    t = j->t;
    /* the sign bit flipped: unsigned order is then the signed one */
    for (i = 0; i < len; i++)
        t[i] = (uint64_t)a[i] << 32 | ((uint32_t)(w ? w[i] : 1) ^ 0x80000000u);
    sort_u64(t, len, 64);
    for (i = 0; i < len; i++) {
        j->ids[i] = (int32_t)(t[i] >> 32);
        j->ws[i] = (int32_t)((uint32_t)t[i] ^ 0x80000000u);
    }
    return 0;
}

/* Write what j's buffer holds to the file. */
static int buf_flush(struct cg_job *j)
{
    int rc = 0;

    if (j->bn)
        rc = dp_spill_write(j->sp, j->file_off + j->bat, j->buf, j->bn);
    j->bat += j->bn;
    j->bn = 0;
    return rc;
}

/* The most bytes a list of deg entries takes: a varint of at most 5
 * bytes an id, a weight and (at most one per id) a run's length, its
 * head and its chunk table. */
static size_t list_bound(int64_t deg)
{
    return 15 * (size_t)deg + 16 + 8 * (size_t)ml_cg_nchunks(deg);
}

/* Room in j's buffer for a list of deg entries (flushing it, or growing
 * it for a hub's); nonzero with j->err set on failure. */
static int buf_room(struct cg_job *j, int64_t deg)
{
    size_t need = list_bound(deg);

    if (j->bn + need <= j->bcap)
        return 0;
    if ((j->err = buf_flush(j)))
        return 1;
    if (need > j->bcap) {
        free(j->buf);
        j->bcap = need > cg_buf() ? need : cg_buf();
        if (!(j->buf = dp_malloc(j->bcap))) {
            j->bcap = 0;
            j->err = DP_ENOMEM;
            return 1;
        }
    }
    return 0;
}

/* The source's whole pages before row v, written out by now, to
 * j->done (the pages rows before v share with later ones stay). */
static void cg_done(struct cg_job *j, int32_t v)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t end = (uintptr_t)(j->adj + j->xadj[v]) / pg * pg;
    int64_t e = (int64_t)((end - (uintptr_t)j->adj) / sizeof(*j->adj));

    if (j->done && end > (uintptr_t)j->adj && e > j->done_at) {
        j->done(j->done_arg, j->adj + j->done_at, (size_t)(e - j->done_at));
        j->done_at = e;
    }
}

static void *cg_pass(void *arg)
{
    struct cg_job *j = arg;
    int32_t v;

    for (v = j->v0; v < j->v1 && !j->err; v++) {
        int64_t len = j->xadj[v + 1] - j->xadj[v];
        const int32_t *a = j->adj + j->xadj[v];
        const int32_t *w = j->adjw ? j->adjw + j->xadj[v] : NULL;

        if (!row_sorted(a, len)) {
            if (sort_row(j, a, w, len)) {
                j->err = DP_ENOMEM;
                break;
            }
            a = j->ids;
            w = w ? j->ws : NULL;
        }
        if (j->pass == 1) {
            j->size[v + 1] = ml_cg_put_list(NULL, v, a, w, len);
        } else if (!j->sp) {
            ml_cg_put_list(j->g->bytes + ml_cg_off(j->g, v), v, a, w, len);
        } else {
            uint64_t bat = j->bat;

            if (buf_room(j, len))
                break;
            if (j->bat != bat) /* a flush wrote the rows before v */
                cg_done(j, v);
            j->size[v] = j->bat + j->bn;
            j->bn += ml_cg_put_list(j->buf + j->bn, v, a, w, len);
        }
    }
    if (j->sp && !j->err && !(j->err = buf_flush(j)))
        cg_done(j, j->v1);
    return NULL;
}

/* A node costs the encoder about this many entries' time besides its
 * entries' own (its head, offset and sortedness check). On rmat 23's
 * finest level, split by entries alone, the half of 8.3M nodes took
 * 1.94-1.98 s against 1.28-1.31 s for the half of 45K hubs; at 8 the
 * halves took 1.60-1.83 s and 1.60-1.61 s, at 4 and 16 the slower one
 * 1.76-1.85 s and 2.42-2.52 s. */
#define CG_ROW_COST 8

/* The node splitting [0, n)'s work in half: entries plus CG_ROW_COST a
 * node (a function of xadj alone, so the file's layout is too). */
static int32_t half_node(const int64_t *xadj, int32_t n)
{
    int32_t lo = 0, hi = n;
    int64_t half = (xadj[n] + (int64_t)CG_ROW_COST * n) / 2;

    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;

        if (xadj[mid] + (int64_t)CG_ROW_COST * mid < half)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int run_pass(struct cg_job *jb, int pass, int two)
{
    jb[0].pass = jb[1].pass = pass;
    dp_run_pair(cg_pass, &jb[0], &jb[1], two);
    return jb[0].err ? jb[0].err : jb[1].err;
}

/* The most bytes 32-bit offsets address: UINT32_MAX, or less under
 * DGLPART_TEST_CG_OFF32_MAX, which takes small graphs down the 64-bit
 * path of those past 4 GiB. */
static uint64_t off32_max(void)
{
    int64_t x = UINT32_MAX;

    dp_env_int("DGLPART_TEST_CG_OFF32_MAX", &x);
    return (uint64_t)x;
}

/* Sizes to offsets, in 32 bits when they fit. */
static int place(struct ml_cgraph *g, uint64_t *size)
{
    int64_t v;

    size[0] = 0;
    for (v = 0; v < g->n; v++)
        size[v + 1] += size[v];
    g->nbytes = size[g->n];
    if (!(g->bytes = dp_malloc(g->nbytes + 1)))
        return DP_ENOMEM;
    if (g->nbytes > off32_max()) {
        g->off64 = size;
        return 0;
    }
    if (!(g->off32 = dp_malloc_array((size_t)g->n + 1, sizeof(uint32_t))))
        return DP_ENOMEM;
    for (v = 0; v <= g->n; v++)
        g->off32[v] = (uint32_t)size[v];
    free(size);
    return 0;
}

static int weighted(const int32_t *adjw, int64_t m)
{
    return row_weights(adjw, m) != NULL;
}

/* Into the scratch file sp in one pass: each thread writes its lists
 * from the start of its own region on, the second's past the most the
 * first's can take (the hole between costs no disk), so no pass counts
 * sizes first. The offsets follow the regions; g's arrays are then
 * read-only mappings of the file. jb[0].size is taken. */
static int build_file(struct ml_cgraph *g, struct cg_job *jb, int two,
                      struct dp_spill *sp)
{
    int32_t n = g->n, h = jb[0].v1;
    uint64_t *off = jb[0].size, reg = 0;
    size_t at, ow;
    const void *mo, *mb;
    void *o;
    int rc, i;
    int64_t v;

    for (v = 0; v < h; v++)
        reg += list_bound(jb[0].xadj[v + 1] - jb[0].xadj[v]);
    at = dp_spill_room(sp, reg + list_bound(g->m) + (size_t)n * 24 + 1);
    rc = at == (size_t)-1 ? DP_EIO : 0;
    jb[1].bat = reg;
    for (i = 0; i < 2; i++) {
        jb[i].file_off = at;
        jb[i].pass = 2;
    }
    if (!rc) {
        dp_run_pair(cg_pass, &jb[0], &jb[1], two);
        rc = jb[0].err ? jb[0].err : jb[1].err;
    }
    if (rc) {
        free(off);
        return rc;
    }
    g->stored = jb[0].bat + (jb[1].bat - reg);
    g->nbytes = jb[1].bat;
    off[n] = jb[1].bat;
    if (g->nbytes <= off32_max() &&
        (g->off32 = dp_malloc_array((size_t)n + 1, sizeof(uint32_t)))) {
        for (v = 0; v <= n; v++)
            g->off32[v] = (uint32_t)off[v];
        free(off);
    } else if (g->nbytes <= off32_max()) {
        free(off);
        return DP_ENOMEM;
    } else {
        g->off64 = off;
    }
    ow = g->off32 ? sizeof(uint32_t) : sizeof(uint64_t);
    o = g->off32 ? (void *)g->off32 : (void *)g->off64;
    if (!(mo = dp_spill_copy(sp, o, ((size_t)n + 1) * ow)) ||
        !(mb = dp_spill_map(sp, at, g->nbytes + 1)))
        return DP_EIO;
    free(o);
    g->off32 = g->off32 ? (uint32_t *)(uintptr_t)mo : NULL;
    g->off64 = g->off64 ? (uint64_t *)(uintptr_t)mo : NULL;
    g->bytes = (uint8_t *)(uintptr_t)mb;
    g->in_file = 1;
    return 0;
}

static int build(struct ml_cgraph *out, int32_t n, const int64_t *xadj,
                 const int32_t *adj, const int32_t *adjw, int two,
                 struct dp_spill *sp, const struct ml_cg_done *done)
{
    struct ml_cgraph g = {
        n, n > 0 ? xadj[n] : 0, 0, NULL, NULL, NULL, 0, 0, 0
    };
    struct cg_job jb[2];
    uint64_t *size;
    int rc, i;

    if (n < 0)
        return dp_error(DP_EINVAL, "compressed graph: %d nodes", (int)n);
    g.weighted = weighted(adjw, g.m);
    if (!(size = dp_calloc((size_t)n + 1, sizeof(*size))))
        return DP_ENOMEM;
    memset(jb, 0, sizeof(jb));
    for (i = 0; i < 2; i++) {
        jb[i].xadj = xadj;
        jb[i].adj = adj;
        jb[i].adjw = adjw;
        jb[i].g = &g;
        jb[i].size = size;
        jb[i].sp = sp;
        if (done && !adjw) {
            jb[i].done = done->fn;
            jb[i].done_arg = done->arg;
        }
    }
    jb[0].v1 = jb[1].v0 = n > 0 ? half_node(xadj, n) : 0;
    jb[1].v1 = n;
    jb[0].done_at = 0;
    jb[1].done_at = n > 0 ? xadj[jb[1].v0] : 0;
    two = two && g.m >= 2 * CG_THREAD_MIN;
    if (sp) {
        rc = build_file(&g, jb, two, sp);
    } else if (!(rc = run_pass(jb, 1, two)) && !(rc = place(&g, size))) {
        g.stored = g.nbytes;
        rc = run_pass(jb, 2, two);
    } else if (!g.off64) {
        free(size);
    }
    for (i = 0; i < 2; i++) {
        free(jb[i].t);
        free(jb[i].ids);
        free(jb[i].ws);
        free(jb[i].buf);
    }
    if (rc) {
        ml_cg_release(&g);
        return rc == DP_ENOMEM ? dp_error(rc, "compressed graph: out of memory")
                               : rc;
    }
    *out = g;
    return 0;
}

int ml_cg_build(struct ml_cgraph *out, int32_t n, const int64_t *xadj,
                const int32_t *adj, const int32_t *adjw, int two)
{
    return build(out, n, xadj, adj, adjw, two, NULL, NULL);
}

int ml_cg_build_file(struct ml_cgraph *out, int32_t n, const int64_t *xadj,
                     const int32_t *adj, const int32_t *adjw, int two,
                     struct dp_spill *sp, const struct ml_cg_done *done)
{
    return build(out, n, xadj, adj, adjw, two, sp, done);
}

void ml_cg_release(struct ml_cgraph *g)
{
    if (!g)
        return;
    if (!g->in_file) {
        free(g->off32);
        free(g->off64);
        free(g->bytes);
    }
    memset(g, 0, sizeof(*g));
}

size_t ml_cg_size(const struct ml_cgraph *g)
{
    size_t w = g->off32 ? sizeof(uint32_t) : sizeof(uint64_t);

    return g->stored + ((size_t)g->n + 1) * w;
}

struct dec_job {
    const struct ml_cgraph *g;
    int64_t *xadj; /* [v0, v1) set here */
    int32_t *adj, *adjw;
    int32_t v0, v1;
    /* into a scratch file: entries gathered in buf, written at
     * file_off + 4 * their index */
    struct dp_spill *sp;
    size_t file_off;
    int err;
};

/* The index of job j's first entry: 0 for the first job; the second
 * counts its own lists' entries back from m, so neither waits for the
 * other and each half of the copy is read by one thread. */
static int64_t dec_start(const struct dec_job *j)
{
    int64_t m = j->g->m;
    int32_t v;

    if (j->v0 == 0)
        return 0;
    for (v = j->v0; v < j->v1; v++)
        m -= ml_cg_degree(j->g, v);
    return m;
}

static void *dec_rows(void *arg)
{
    struct dec_job *j = arg;
    struct ml_cg_it it;
    int64_t k = dec_start(j);
    int32_t v;

    for (v = j->v0; v < j->v1; v++) {
        j->xadj[v] = k;
        ml_cg_begin(&it, j->g, v);
        while (ml_cg_next(&it)) {
            j->adj[k] = it.u;
            if (j->adjw)
                j->adjw[k] = it.w;
            k++;
        }
    }
    return NULL;
}

/* dec_rows into a file: adj is a buffer of cg_buf() bytes. */
static void *dec_rows_file(void *arg)
{
    struct dec_job *j = arg;
    struct ml_cg_it it;
    int64_t at = dec_start(j), nb = 0, cap = (int64_t)(cg_buf() / 4);
    int32_t v;

    for (v = j->v0; v < j->v1 && !j->err; v++) {
        j->xadj[v] = at + nb;
        ml_cg_begin(&it, j->g, v);
        while (ml_cg_next(&it)) {
            if (nb == cap) {
                if ((j->err = dp_spill_write(j->sp, j->file_off + 4 * at,
                                             j->adj, 4 * (size_t)nb)))
                    return NULL;
                at += nb;
                nb = 0;
            }
            j->adj[nb++] = it.u;
        }
    }
    if (!j->err && nb)
        j->err =
            dp_spill_write(j->sp, j->file_off + 4 * at, j->adj, 4 * (size_t)nb);
    return NULL;
}

static int64_t cg_off_at(const void *g, int64_t v)
{
    return (int64_t)ml_cg_off(g, v);
}

/* The node at which the lists' bytes are halved: the two jobs' split. */
static int32_t dec_half(const struct ml_cgraph *g)
{
    return (int32_t)dp_half_by(cg_off_at, g, 0, g->n);
}

void ml_cg_decode(const struct ml_cgraph *g, int64_t *xadj, int32_t *adj,
                  int32_t *adjw, int two)
{
    struct dec_job jb[2] = {
        { .g = g, .xadj = xadj, .adj = adj, .adjw = adjw },
        { .g = g, .xadj = xadj, .adj = adj, .adjw = adjw }
    };

    jb[0].v1 = jb[1].v0 = dec_half(g);
    jb[1].v1 = g->n;
    dp_run_pair(dec_rows, &jb[0], &jb[1], two && g->m >= 2 * CG_THREAD_MIN);
    xadj[g->n] = g->m;
}

const int32_t *ml_cg_decode_file(const struct ml_cgraph *g, int64_t *xadj,
                                 struct dp_spill *sp, int two)
{
    struct dec_job jb[2];
    size_t off = dp_spill_room(sp, (size_t)g->m * 4);
    int i, rc = 0;

    if (off == (size_t)-1)
        return NULL;
    memset(jb, 0, sizeof(jb));
    for (i = 0; i < 2; i++) {
        jb[i].g = g;
        jb[i].xadj = xadj;
        jb[i].sp = sp;
        jb[i].file_off = off;
        if (!(jb[i].adj = dp_malloc_array(cg_buf() / 4, sizeof(int32_t))))
            rc = DP_ENOMEM;
    }
    jb[0].v1 = jb[1].v0 = dec_half(g);
    jb[1].v1 = g->n;
    if (!rc)
        dp_run_pair(dec_rows_file, &jb[0], &jb[1],
                    two && g->m >= 2 * CG_THREAD_MIN);
    for (i = 0; i < 2; i++) {
        free(jb[i].adj);
        rc = rc ? rc : jb[i].err;
    }
    xadj[g->n] = g->m;
    return rc ? NULL : dp_spill_map(sp, off, (size_t)g->m * 4);
}
