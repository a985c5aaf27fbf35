/* A chunked input or a plain edge list converted by every rank of an
 * mpirun into one folder they all see: each reads its share (its chunks,
 * cv_share, or its lines of the file), sends each edge to the rank owning
 * its destination's range of the CSC, and writes its columns, its data
 * chunks and its part of indptr into the shared files at their place. The
 * folder is the one dp_convert writes, byte for byte. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/comm.h"
#include "dglpart/env.h"
#include "dglpart/error.h"

/* Out of memory between collectives: the others are in the next one
 * already, so every rank stops. */
static void oom(struct dp_comm *c)
{
    fprintf(stderr, "%s: rank %d on %s: out of memory: stopping every rank\n",
            dp_progname(), dp_comm_rank(c), dp_comm_host(c, dp_comm_rank(c)));
    fflush(stderr);
    dp_comm_abort(c, 1);
}

int cv_share_edges(struct cv_share *sh, int64_t n)
{
    /* the rank whose part of all edges this chunk starts in */
    int64_t at = sh->pos;
    int owner = sh->total ? (int)((unsigned __int128)at * (unsigned)sh->size /
                                  (uint64_t)sh->total)
                          : 0;

    sh->pos += n;
    if (owner >= sh->size) /* a chunk of 0 edges at the very end */
        owner = sh->size - 1;
    if (owner != sh->rank)
        return 0;
    if (sh->e_lo < 0)
        sh->e_lo = at;
    return 1;
}

int cv_share_data(struct cv_share *sh)
{
    return sh->chunks++ % sh->size == sh->rank;
}

int cv_shared_npy_open(struct cv_shared_npy *f, const char *path,
                       enum dp_dtype dtype, int ndim, const int64_t *shape,
                       int header)
{
    char hdr[256];
    uint64_t items = 1;
    int i, rc;

    memset(f, 0, sizeof(*f));
    f->fd = -1;
    if ((rc = dp_npy_header(dtype, ndim, shape, hdr, &f->hdr)))
        return rc;
    for (i = 0; i < ndim; i++)
        items *= (uint64_t)shape[i];
    f->item = dp_dtype_size(dtype);
    if (!(f->path = dp_strdup(path)))
        return DP_ENOMEM;
    f->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    /* every rank makes it whole: growing to one length twice is one */
    if (f->fd < 0 || ftruncate(f->fd, (off_t)(f->hdr + items * f->item)) != 0 ||
        (header && pwrite(f->fd, hdr, f->hdr, 0) != (ssize_t)f->hdr)) {
        rc = dp_error(DP_EIO, "cannot write '%s': %s", path, strerror(errno));
        cv_shared_npy_close(f, rc);
        return rc;
    }
    return 0;
}

int cv_shared_npy_put(struct cv_shared_npy *f, uint64_t item, const void *p,
                      uint64_t n)
{
    const char *b = p;
    size_t left = (size_t)(n * f->item);
    off_t off = (off_t)(f->hdr + item * f->item);

    while (left) {
        ssize_t k = pwrite(f->fd, b, left, off);

        if (k <= 0)
            return dp_error(DP_EIO, "cannot write '%s': %s", f->path,
                            k ? strerror(errno) : "no room");
        b += k;
        off += k;
        left -= (size_t)k;
    }
    return 0;
}

int cv_shared_npy_close(struct cv_shared_npy *f, int rc)
{
    if (f->fd >= 0) {
        if (!rc && fsync(f->fd) != 0)
            rc = dp_error(DP_EIO, "cannot write '%s': %s", f->path,
                          strerror(errno));
        if (close(f->fd) != 0 && !rc)
            rc = dp_error(DP_EIO, "cannot write '%s': %s", f->path,
                          strerror(errno));
    }
    free(f->path);
    memset(f, 0, sizeof(*f));
    f->fd = -1;
    return rc;
}

/* A CSC entry on its way to the rank holding its destination's column:
 * v the destination less that rank's first node, u the source, e the
 * input edge id. */
struct entry32 {
    uint32_t v, u, e;
};
struct entry64 {
    int64_t v, u, e;
};

#define EDGES_A_ROW 4096

struct route {
    const struct cv_edges *e;
    const int64_t *vtx; /* [P + 1] first node of each rank's columns */
    int P, narrow, und;
    int counting; /* the first pass: destinations only */
    const struct cv_eids *ids;
};

/* Entry (v <- u, input edge id e) into b, for the owner of v: 1 when
 * filled, 0 when b is counting. */
static int put_entry(const struct route *r, struct dp_comm_batch *b, int64_t v,
                     int64_t u, int64_t e)
{
    int q = (int)dp_range_of(r->vtx, r->P, v);
    void *slot = dp_comm_batch_put(b, q);

    if (!slot)
        return 0;
    if (r->counting && r->narrow) {
        *(uint32_t *)slot = (uint32_t)(v - r->vtx[q]);
    } else if (r->counting) {
        *(int64_t *)slot = v - r->vtx[q];
    } else if (r->narrow) {
        struct entry32 *x = slot;

        x->v = (uint32_t)(v - r->vtx[q]);
        x->u = (uint32_t)u;
        x->e = (uint32_t)e;
    } else {
        struct entry64 *x = slot;

        x->v = v - r->vtx[q];
        x->u = u;
        x->e = e;
    }
    return 1;
}

static void emit_edges(void *arg, int64_t row, struct dp_comm_batch *b)
{
    const struct route *r = arg;
    const struct cv_eids *x = r->ids;
    uint64_t k0 = (uint64_t)row * EDGES_A_ROW, end = k0 + EDGES_A_ROW, k;
    int64_t j = x->nb ? dp_range_of(x->at, x->nb, (int64_t)k0) : 0;
    int filled = 0;

    for (end = end < r->e->n ? end : r->e->n, k = k0; k < end; k++) {
        int64_t u = cv_edges_src(r->e, k), v = cv_edges_dst(r->e, k), e;

        if (!x->nb) {
            e = x->lo + (int64_t)k;
        } else {
            while ((int64_t)k >= x->at[j + 1])
                j++;
            e = x->first[j] + (int64_t)k - x->at[j];
        }

        if (!r->und) {
            filled |= put_entry(r, b, v, u, e);
        } else { /* --undirected: edge k is entries 2k and 2k + 1 */
            filled |= put_entry(r, b, v, u, 2 * e);
            filled |= put_entry(r, b, u, v, 2 * e + 1);
        }
    }
    /* the second pass's filling is the last read of these edges */
    if (filled && !r->counting)
        cv_edges_drop(r->e, k0, end);
}

static void entry_at(const void *items, int narrow, int64_t i, int64_t *v,
                     int64_t *u, int64_t *e)
{
    if (narrow) {
        const struct entry32 *x = (const struct entry32 *)items + i;

        *v = x->v;
        *u = x->u;
        *e = x->e;
    } else {
        const struct entry64 *x = (const struct entry64 *)items + i;

        *v = x->v;
        *u = x->u;
        *e = x->e;
    }
}

/* This rank's columns as the entries come: counted in a first pass, put
 * in place in a second, then each column sorted by input edge id (a
 * column's entries come from every rank, round by round). */
struct columns {
    struct dp_comm *c;
    int narrow, ids32;
    int64_t nl, N, E;
    int64_t *ip;  /* [nl + 1] counts, then column starts */
    int64_t *cur; /* [nl] where each column's next entry goes */
    void *idx, *eid;
};

static void take_count(void *arg, int from, const void *items, int64_t n)
{
    struct columns *t = arg;
    int64_t i, v;

    (void)from;
    for (i = 0; i < n; i++) {
        v = t->narrow ? ((const uint32_t *)items)[i]
                      : ((const int64_t *)items)[i];
        dp_comm_check(t->c, "a destination in this rank's columns", v, 0,
                      t->nl);
        t->ip[v + 1]++;
    }
}

static void take_place(void *arg, int from, const void *items, int64_t n)
{
    struct columns *t = arg;
    int64_t i, v, u, e, at;

    (void)from;
    for (i = 0; i < n; i++) {
        entry_at(items, t->narrow, i, &v, &u, &e);
        dp_comm_check(t->c, "a destination in this rank's columns", v, 0,
                      t->nl);
        dp_comm_check(t->c, "a source node id", u, 0, t->N);
        dp_comm_check(t->c, "an input edge id", e, 0, t->E);
        at = t->cur[v]++;
        /* no column gets more than its count promised */
        dp_comm_check(t->c, "an entry of a column", at, t->ip[v], t->ip[v + 1]);
        if (t->ids32) {
            ((int32_t *)t->idx)[at] = (int32_t)u;
            ((int32_t *)t->eid)[at] = (int32_t)e;
        } else {
            ((int64_t *)t->idx)[at] = u;
            ((int64_t *)t->eid)[at] = e;
        }
    }
}

struct pair {
    int64_t e, u;
};

static int cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;

    return (x->e > y->e) - (x->e < y->e);
}

static inline int64_t get_id(const void *a, int ids32, int64_t k)
{
    return ids32 ? ((const int32_t *)a)[k] : ((const int64_t *)a)[k];
}

static inline void set_id(void *a, int ids32, int64_t k, int64_t x)
{
    if (ids32)
        ((int32_t *)a)[k] = (int32_t)x;
    else
        ((int64_t *)a)[k] = x;
}

/* Each column in input edge order, as one process writes it. */
static int sort_columns(const struct columns *t)
{
    struct pair *tmp = NULL;
    int64_t v, k, a, b, most = 0;

    for (v = 0; v < t->nl; v++) {
        a = t->ip[v];
        b = t->ip[v + 1];
        for (k = a + 1; k < b; k++)
            if (get_id(t->eid, t->ids32, k - 1) > get_id(t->eid, t->ids32, k))
                break;
        if (k >= b)
            continue;
        if (b - a > most) {
            free(tmp);
            most = b - a;
            if (!(tmp = dp_malloc_array((size_t)most, sizeof(*tmp))))
                return DP_ENOMEM;
        }
        for (k = a; k < b; k++) {
            tmp[k - a].e = get_id(t->eid, t->ids32, k);
            tmp[k - a].u = get_id(t->idx, t->ids32, k);
        }
        qsort(tmp, (size_t)(b - a), sizeof(*tmp), cmp_pair);
        for (k = a; k < b; k++) {
            set_id(t->eid, t->ids32, k, tmp[k - a].e);
            set_id(t->idx, t->ids32, k, tmp[k - a].u);
        }
    }
    free(tmp);
    return 0;
}

/* Put n items of p at item `at` of DIR/name, shaped [len] of dtype. */
static int put_file(struct cv_graph *g, int first, const char *name,
                    enum dp_dtype dt, int64_t len, int64_t at, const void *p,
                    int64_t n)
{
    struct cv_shared_npy f;
    char *path = cv_graph_path(g, name);
    int rc =
        path ? cv_shared_npy_open(&f, path, dt, 1, &len, first) : DP_ENOMEM;

    if (!rc)
        rc = cv_shared_npy_close(
            &f, n ? cv_shared_npy_put(&f, (uint64_t)at, p, (uint64_t)n) : 0);
    free(path);
    return rc;
}

void cv_eids_release(struct cv_eids *x)
{
    free(x->at);
    free(x->first);
    memset(x, 0, sizeof(*x));
}

int cv_dist_csc(struct cv_graph *g, struct dp_comm *c,
                const struct cv_eids *ids, int64_t edges)
{
    const struct dp_convert_opts *o = g->o;
    int P = dp_comm_size(c), me = dp_comm_rank(c), q, rc, lrc = 0;
    int und = o->undirected, noe = o->no_eids && !g->meta.num_ntypes;
    int64_t N = g->num_nodes, E = und ? 2 * edges : edges, n, base = 0;
    int64_t *vtx = NULL, *rowpos = NULL, *cnt = NULL, nrows, k;
    struct columns t;
    struct route r;
    size_t isz;

    memset(&r, 0, sizeof(r));
    memset(&t, 0, sizeof(t));
    t.c = c;
    t.N = N;
    t.E = E;
    t.ids32 = !o->ids64 && N <= INT32_MAX && E <= INT32_MAX;
    isz = t.ids32 ? 4 : 8;
    nrows = (int64_t)((g->edges.n + EDGES_A_ROW - 1) / EDGES_A_ROW);
    vtx = dp_malloc_array((size_t)P + 1, sizeof(*vtx));
    rowpos = dp_malloc_array((size_t)nrows + 1, sizeof(*rowpos));
    cnt = dp_malloc_array((size_t)P, sizeof(*cnt));
    if (!vtx || !rowpos || !cnt)
        oom(c);
    /* equal ranges of destinations: the columns of rank q */
    for (q = 0; q <= P; q++)
        vtx[q] = (int64_t)((unsigned __int128)N * (unsigned)q / (unsigned)P);
    for (k = 0; k <= nrows; k++)
        rowpos[k] = k * EDGES_A_ROW;
    t.nl = vtx[me + 1] - vtx[me];
    if (!(t.ip = dp_calloc((size_t)t.nl + 1, sizeof(*t.ip))) ||
        !(t.cur = dp_malloc_array((size_t)t.nl + 1, sizeof(*t.cur))))
        oom(c);
    r.e = &g->edges;
    r.vtx = vtx;
    r.P = P;
    t.narrow = r.narrow = N <= UINT32_MAX && E <= UINT32_MAX;
    r.und = und;
    r.ids = ids;
    /* counted first, so the columns are made in place as entries come */
    r.counting = 1;
    if ((rc = dp_comm_route_rows_each(c, r.narrow ? 4 : 8, nrows, rowpos,
                                      emit_edges, &r, take_count, &t)))
        goto out;
    for (k = 0; k < t.nl; k++)
        t.ip[k + 1] += t.ip[k];
    memcpy(t.cur, t.ip, (size_t)t.nl * sizeof(*t.cur));
    n = t.ip[t.nl];
    t.idx = dp_malloc_array(n ? (size_t)n : 1, isz);
    t.eid = dp_malloc_array(n ? (size_t)n : 1, isz);
    if ((rc = dp_comm_agree(c, t.idx && t.eid ? 0 : DP_ENOMEM)))
        goto out;
    r.counting = 0;
    if ((rc = dp_comm_route_rows_each(
             c, r.narrow ? sizeof(struct entry32) : sizeof(struct entry64),
             nrows, rowpos, emit_edges, &r, take_place, &t)))
        goto out;
    cv_edges_release(&g->edges);
    for (k = 0; k < t.nl; k++)
        if (t.cur[k] != t.ip[k + 1])
            dp_comm_bad(c, "entries of a column", t.cur[k] - t.ip[k],
                        t.ip[k + 1] - t.ip[k], t.ip[k + 1] - t.ip[k] + 1);
    lrc = sort_columns(&t);
    /* where this rank's entries start among all */
    if ((rc = dp_comm_allgather(c, &n, sizeof(n), cnt)))
        goto out;
    for (q = 0, k = 0; q < P; q++) {
        dp_comm_check(c, "an entry count", cnt[q], 0, E - k + 1);
        base += q < me ? cnt[q] : 0;
        k += cnt[q];
    }
    if (k != E)
        dp_comm_bad(c, "entries in all", k, E, E + 1);
    for (k = 0; k <= t.nl; k++)
        t.ip[k] += base;
    /* the last rank's indptr ends with E: one item more */
    if (!lrc)
        lrc = put_file(g, me == 0, "indptr.npy", DP_I64, N + 1, vtx[me], t.ip,
                       t.nl + (me == P - 1));
    if (!lrc)
        lrc = put_file(g, me == 0, "indices.npy", t.ids32 ? DP_I32 : DP_I64, E,
                       base, t.idx, n);
    if (!lrc && !noe)
        lrc = put_file(g, me == 0, "eids.npy", t.ids32 ? DP_I32 : DP_I64, E,
                       base, t.eid, n);
    g->meta.num_edges = E;
    g->meta.directed = !und;
    g->meta.ids32 = t.ids32;
    g->meta.no_eids = noe;
    g->meta.has_edge_weight = 0;
    rc = lrc;
out:
    free(vtx);
    free(rowpos);
    free(cnt);
    free(t.ip);
    free(t.cur);
    free(t.idx);
    free(t.eid);
    return rc;
}

/* An input's size and sha256 as its reader sends them to the others. */
struct input_rec {
    int64_t index;
    uint64_t size;
    char sha256[64];
};

static int hex64(const char *p)
{
    int j;

    for (j = 0; j < 64; j++)
        if (!((p[j] >= '0' && p[j] <= '9') || (p[j] >= 'a' && p[j] <= 'f')))
            return 0;
    return 1;
}

int cv_dist_inputs(struct cv_graph *g, struct dp_comm *c)
{
    struct dp_dataset_meta *m = &g->meta;
    struct input_rec *mine = NULL, *all = NULL;
    size_t *counts = NULL, total = 0;
    int64_t i, n = 0;
    int q, P = dp_comm_size(c), rc, lrc = 0;

    mine = dp_malloc_array((size_t)m->ninputs + 1, sizeof(*mine));
    counts = dp_malloc_array((size_t)P, sizeof(*counts));
    if (!mine || !counts)
        lrc = DP_ENOMEM;
    for (i = 0; !lrc && i < m->ninputs; i++)
        if (m->inputs[i].sha256[0]) {
            mine[n].index = i;
            mine[n].size = m->inputs[i].size;
            memcpy(mine[n++].sha256, m->inputs[i].sha256, 64);
        }
    if ((rc = dp_comm_agree(c, lrc)) ||
        (rc = dp_comm_allgatherv(c, mine, (size_t)n * sizeof(*mine),
                                 (void **)&all, counts)))
        goto out;
    for (q = 0; q < P; q++)
        total += counts[q];
    if (total % sizeof(*all))
        dp_comm_bad(c, "input record bytes", (int64_t)total, 0, 0);
    for (i = 0; i < (int64_t)(total / sizeof(*all)); i++) {
        struct dp_dataset_input *in;

        dp_comm_check(c, "an input's number", all[i].index, 0, m->ninputs);
        if (!hex64(all[i].sha256))
            dp_comm_bad(c, "a sha256 of 64 hex digits for input", all[i].index,
                        0, 0);
        in = &m->inputs[all[i].index];
        if (!in->sha256[0]) {
            in->size = all[i].size;
            memcpy(in->sha256, all[i].sha256, 64);
            in->sha256[64] = 0;
        }
    }
    for (i = 0; i < m->ninputs; i++)
        if (!m->inputs[i].sha256[0])
            dp_comm_bad(c, "no reader for input", i, 0, 0);
out:
    free(mine);
    free(all);
    free(counts);
    return rc;
}

/* The first line start at or after byte pos of a file of size bytes:
 * pos itself when the byte before it ends a line. */
static int line_start(int fd, const char *path, uint64_t pos, uint64_t size,
                      uint64_t *out)
{
    char buf[1 << 16];
    uint64_t at;

    if (pos == 0 || pos >= size) {
        *out = pos < size ? 0 : size;
        return 0;
    }
    for (at = pos - 1;;) {
        ssize_t n = pread(fd, buf, sizeof(buf), (off_t)at);
        char *nl;

        if (n < 0)
            return dp_error(DP_EIO, "cannot read '%s': %s", path,
                            strerror(errno));
        if (n == 0) {
            *out = size;
            return 0;
        }
        if ((nl = memchr(buf, '\n', (size_t)n))) {
            *out = at + (uint64_t)(nl - buf) + 1;
            return 0;
        }
        at += (uint64_t)n;
    }
}

/* Line ends in bytes [a, b) of the file. */
static int count_lines(int fd, const char *path, uint64_t a, uint64_t b,
                       int64_t *lines)
{
    char buf[1 << 16];

    *lines = 0;
    while (a < b) {
        size_t want = b - a < sizeof(buf) ? (size_t)(b - a) : sizeof(buf);
        ssize_t n = pread(fd, buf, want, (off_t)a);
        const char *p = buf, *end;

        if (n <= 0)
            return dp_error(DP_EIO, "cannot read '%s': %s", path,
                            n ? strerror(errno) : "shorter than it was");
        for (end = buf + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
            (*lines)++;
        a += (uint64_t)n;
    }
    return 0;
}

/* Exclusive prefix of every rank's x: *before (sum below this rank) and
 * *all. */
static int prefix(struct dp_comm *c, int64_t x, int64_t *before, int64_t *all)
{
    int P = dp_comm_size(c), me = dp_comm_rank(c), q, rc;
    int64_t *v = dp_malloc_array((size_t)P, sizeof(*v));

    if (!v)
        oom(c);
    if (!(rc = dp_comm_allgather(c, &x, sizeof(x), v))) {
        *before = *all = 0;
        for (q = 0; q < P; q++) {
            dp_comm_check(c, "a count", v[q], 0, INT64_MAX - *all);
            *before += q < me ? v[q] : 0;
            *all += v[q];
        }
    }
    free(v);
    return rc;
}

int cv_dist_read_done(struct cv_graph *g, struct dp_comm *c, const char *path,
                      int64_t edges)
{
    int64_t max = g->edges.max_id;
    int rc;

    if ((rc = dp_comm_allreduce_i64(c, &max, 1, DP_COMM_MAX)))
        return rc;
    if (g->num_nodes < 0)
        g->num_nodes = max + 1;
    if (!edges && dp_comm_rank(c) == 0)
        dp_warn("'%s': no edges", path);
    return 0;
}

int cv_dist_read_edgelist(struct cv_graph *g, struct dp_comm *c,
                          const char *path, int64_t *e_lo, int64_t *edges)
{
    int P = dp_comm_size(c), me = dp_comm_rank(c), fd, rc, lrc = 0;
    uint64_t a = 0, b = 0, size = 0;
    int64_t lines = 0, base = 0, all = 0;
    struct stat st;
    struct cv_src s;
    char sha[65];

    /* bytes [a, b): whole lines, from this rank's part of the file on */
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0)
        lrc = dp_error(DP_EIO, "cannot open '%s': %s", path, strerror(errno));
    else
        size = (uint64_t)st.st_size;
    if (!lrc)
        lrc = line_start(
            fd, path,
            (uint64_t)((unsigned __int128)size * (unsigned)me / (unsigned)P),
            size, &a);
    if (!lrc)
        lrc = line_start(fd, path,
                         (uint64_t)((unsigned __int128)size *
                                    (unsigned)(me + 1) / (unsigned)P),
                         size, &b);
    /* the lines before this rank's: messages name lines of the file */
    if (!lrc)
        lrc = count_lines(fd, path, a, b, &lines);
    if (fd >= 0)
        close(fd);
    if ((rc = dp_comm_agree(c, lrc)) || (rc = prefix(c, lines, &base, &all)))
        return rc;
    g->edge_src = dp_strdup(path);
    lrc = g->edge_src ? cv_src_open_range(&s, path, me == 0, a, b - a)
                      : DP_ENOMEM;
    if (!lrc) {
        s.line = (uint64_t)base;
        lrc = cv_parse_edgelist(g, &s);
        /* rank 0 hashed the whole file beside its share */
        cv_src_close(&s, lrc || me ? NULL : sha, &size);
        if (!lrc && me == 0)
            lrc = cv_graph_add_input(g, path, size, sha);
    }
    if ((rc = dp_comm_agree(c, lrc)) ||
        (rc = prefix(c, (int64_t)g->edges.n, e_lo, edges)))
        return rc;
    return cv_dist_read_done(g, c, path, *edges);
}

/* The own blocks' first edges, as the reader meets them. */
static void on_block(void *arg, int64_t block)
{
    struct cv_blocks *b = arg;

    (void)block;
    if (b->n == b->cap) {
        int64_t nc = b->cap ? 2 * b->cap : 256;
        int64_t *na = dp_realloc_array(b->at, (size_t)nc + 1, sizeof(*na));

        if (!na) {
            b->failed = 1;
            b->n = 0; /* the blocks are lost; cv_blocks_end fails */
            return;
        }
        b->at = na;
        b->cap = nc;
    }
    b->at[b->n++] = (int64_t)b->g->edges.n;
}

int cv_blocks_begin(struct cv_blocks *b, const struct cv_graph *g,
                    struct cv_src *s)
{
    int64_t lines = 1 << 16;
    int rc = dp_env_int("DGLPART_TEST_GZ_BLOCK", &lines);

    memset(b, 0, sizeof(*b));
    b->g = g;
    if (!rc)
        cv_src_blocks(s, (uint64_t)lines, g->share->size, g->share->rank,
                      on_block, b);
    return rc;
}

int cv_blocks_end(struct cv_blocks *b, const struct cv_src *s)
{
    int64_t *na;

    /* every rank saw every block, the last one's end included */
    b->seen = s->blk_no + 1;
    if (b->failed ||
        !(na = dp_realloc_array(b->at, (size_t)b->n + 1, sizeof(*na))))
        return dp_error(DP_ENOMEM, "out of memory reading '%s'", s->name);
    b->at = na;
    b->at[b->n] = (int64_t)b->g->edges.n;
    return 0;
}

void cv_blocks_release(struct cv_blocks *b)
{
    free(b->at);
    memset(b, 0, sizeof(*b));
}

int cv_blocks_ids(struct dp_comm *c, struct cv_blocks *b, const char *path,
                  struct cv_eids *ids, int64_t *edges)
{
    int P = dp_comm_size(c), me = dp_comm_rank(c), q, rc;
    int64_t *cnt, *all = NULL, *off, j, k, sum = 0, nb[2];
    size_t *got;

    nb[0] = b->seen;
    nb[1] = -b->seen;
    if ((rc = dp_comm_allreduce_i64(c, nb, 2, DP_COMM_MIN)))
        return rc;
    if (nb[0] != -nb[1])
        return dp_comm_agree(
            c, dp_error(DP_EINVAL,
                        "'%s': the ranks read %" PRId64 " to %" PRId64
                        " blocks of lines: every rank must see the same file",
                        path, nb[0], -nb[1]));
    cnt = dp_malloc_array((size_t)b->n + 1, sizeof(*cnt));
    off = dp_calloc((size_t)P + 1, sizeof(*off));
    got = dp_malloc_array((size_t)P, sizeof(*got));
    if (!cnt || !off || !got)
        oom(c);
    for (j = 0; j < b->n; j++)
        cnt[j] = b->at[j + 1] - b->at[j];
    if ((rc = dp_comm_allgatherv(c, cnt, (size_t)b->n * sizeof(*cnt),
                                 (void **)&all, got)))
        goto out;
    /* rank q has the blocks q, q + P, ... below nb */
    for (q = 0; q < P; q++) {
        int64_t want = nb[0] > q ? (nb[0] - q + P - 1) / P : 0;

        if (got[q] != (size_t)want * sizeof(*cnt))
            dp_comm_bad(c, "bytes of block counts", (int64_t)got[q], 0, 0);
        off[q + 1] = off[q] + want;
    }
    if (!(ids->first = dp_malloc_array((size_t)b->n + 1, sizeof(*ids->first))))
        oom(c);
    for (k = 0; k < nb[0]; k++) {
        int64_t x = all[off[k % P] + k / P];

        dp_comm_check(c, "a block's edges", x, 0, INT64_MAX - sum);
        if (k % P == me)
            ids->first[k / P] = sum;
        sum += x;
    }
    ids->nb = b->n;
    ids->at = b->at;
    b->at = NULL;
    *edges = sum;
out:
    free(cnt);
    free(all);
    free(off);
    free(got);
    return rc;
}

int cv_dist_read_gz(struct cv_graph *g, struct dp_comm *c, const char *path,
                    struct cv_eids *ids, int64_t *edges)
{
    int me = dp_comm_rank(c), rc, lrc;
    struct cv_blocks b;
    uint64_t size = 0;
    struct cv_src s;
    char sha[65];

    memset(ids, 0, sizeof(*ids));
    memset(&b, 0, sizeof(b));
    lrc = (g->edge_src = dp_strdup(path)) ? 0 : DP_ENOMEM;
    /* every rank inflates it all (one gzip stream has no other way in)
     * and parses its blocks; rank 0 also hashes it */
    if (!lrc && !(lrc = cv_src_open_file(&s, path, me == 0))) {
        if (!(lrc = cv_blocks_begin(&b, g, &s)))
            lrc = cv_parse_edgelist(g, &s);
        if (!lrc)
            lrc = cv_blocks_end(&b, &s);
        cv_src_close(&s, lrc || me ? NULL : sha, &size);
        if (!lrc && me == 0)
            lrc = cv_graph_add_input(g, path, size, sha);
    }
    if (!(rc = dp_comm_agree(c, lrc)) &&
        !(rc = cv_blocks_ids(c, &b, path, ids, edges)))
        rc = cv_dist_read_done(g, c, path, *edges);
    cv_blocks_release(&b);
    return rc;
}
