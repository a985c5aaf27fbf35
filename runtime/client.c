/* The client side of the runtime: each request is split by owner part;
 * parts loaded in this process answer directly, the others through their
 * server. Requests to all servers go out before any reply is read, so the
 * servers work in parallel; results are put back in the caller's order. */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/ipconfig.h"
#include "dglpart/parse.h"
#include "dglpart/runtime.h"

void dp_rt_tune_malloc(void)
{
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

static int open_common(struct dp_rt *rt, const char *conf_path)
{
    int rc, i;

    memset(rt, 0, sizeof(*rt));
    rt->local = -1;
    rt->max_edges = (DP_PROTO_MAX_REPLY - (1 << 20)) / 24;
    rt->max_ids = DP_PROTO_MAX_IDS;
    {
        int64_t v = 0; /* tests: many rounds */

        dp_env_int("DGLPART_RT_CHUNK", &v);
        if (v > 0 && v < rt->max_ids)
            rt->max_ids = v;
    }
    if ((rc = dp_config_load(&rt->cfg, conf_path)))
        return rc;
    if ((rc = dp_book_init(&rt->book, &rt->cfg))) {
        dp_config_release(&rt->cfg);
        return rc;
    }
    rt->parts = dp_calloc((size_t)rt->cfg.num_parts, sizeof(*rt->parts));
    rt->fds = dp_malloc_array((size_t)rt->cfg.num_parts, sizeof(int));
    if (!rt->parts || !rt->fds) {
        dp_rt_close(rt);
        return DP_ENOMEM;
    }
    for (i = 0; i < rt->cfg.num_parts; i++)
        rt->fds[i] = -1;
    return 0;
}

static int is_loaded(const struct dp_rt *rt, int p)
{
    return rt->parts[p].indptr != NULL;
}

int dp_rt_open_standalone(struct dp_rt *rt, const char *conf_path)
{
    int rc, i;

    if ((rc = open_common(rt, conf_path)))
        return rc;
    for (i = 0; i < rt->cfg.num_parts; i++)
        if ((rc = dp_part_load(&rt->parts[i], &rt->cfg, &rt->book, i))) {
            dp_rt_close(rt);
            return rc;
        }
    return 0;
}

/* ---- blocking frame I/O ---- */

static int send_all(struct dp_rt *rt, int fd, const void *p, size_t n)
{
    const char *q = p;

    while (n) {
        ssize_t k = send(fd, q, n, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return dp_error(DP_ENET, "send to server: %s", strerror(errno));
        }
        q += k;
        n -= (size_t)k;
        rt->bytes_sent += (uint64_t)k;
    }
    return 0;
}

static int recv_all(struct dp_rt *rt, int fd, void *p, size_t n)
{
    char *q = p;

    while (n) {
        ssize_t k = recv(fd, q, n, 0);
        if (k == 0)
            return dp_error(DP_ENET, "server closed the connection");
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return dp_error(DP_ENET, "receive from server: %s",
                            strerror(errno));
        }
        q += k;
        n -= (size_t)k;
        rt->bytes_recv += (uint64_t)k;
    }
    return 0;
}

/* Read one reply to request id of type want; *payload is malloc'd. A
 * DP_MSG_ERROR reply is returned as its code with the server's message. */
static int recv_reply(struct dp_rt *rt, int part, uint64_t id, uint16_t want,
                      unsigned char **payload, size_t *len)
{
    unsigned char hdr[DP_PROTO_HEADER], *p = NULL;
    struct dp_frame_header h;
    int fd = rt->fds[part], rc;

    if ((rc = recv_all(rt, fd, hdr, sizeof(hdr))) ||
        (rc = dp_frame_header_decode(hdr, DP_PROTO_MAX_REPLY, &h)))
        return rc;
    if (!(p = dp_malloc((size_t)h.len + 1)))
        return DP_ENOMEM;
    if ((rc = recv_all(rt, fd, p, (size_t)h.len))) {
        free(p);
        return rc;
    }
    if (h.type == DP_MSG_ERROR) {
        struct dp_rd r = { p, (size_t)h.len, 0, 0 };
        uint32_t code = dp_rd_u32(&r);
        uint16_t n = dp_rd_u16(&r);
        const char *m = dp_rd_bytes(&r, n);
        rc = dp_error(code > 0 && code < DP_ERR__COUNT ? (int)code : DP_EREMOTE,
                      "server of part %d: %.*s", part, m ? (int)n : 0,
                      m ? m : "");
        free(p);
        return rc;
    }
    if (h.id != id || h.type != want) {
        free(p);
        return dp_error(DP_EPROTO,
                        "server of part %d answered request %llu "
                        "type %u, expected %llu type %u",
                        part, (unsigned long long)h.id, (unsigned)h.type,
                        (unsigned long long)id, (unsigned)want);
    }
    *payload = p;
    *len = (size_t)h.len;
    return 0;
}

static int rd_i64s(struct dp_rd *r, int64_t *out, uint64_t n)
{
    const unsigned char *p;
    uint64_t i;

    if (n > (r->len - r->pos) / 8 || !(p = dp_rd_bytes(r, n * 8)))
        return dp_error(DP_EPROTO, "truncated reply");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)i;
    if (n)
        memcpy(out, p, (size_t)n * 8);
#else
    for (i = 0; i < n; i++) {
        uint64_t v = 0;
        int k;
        for (k = 7; k >= 0; k--)
            v = (v << 8) | p[8 * i + k];
        out[i] = (int64_t)v;
    }
#endif
    return 0;
}

static int add_ids(struct dp_buf *b, const int64_t *ids, int64_t n)
{
    int rc = dp_wr_u64(b, (uint64_t)n);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (!rc && n)
        rc = dp_buf_add(b, ids, (size_t)n * 8);
#else
    int64_t i;

    for (i = 0; !rc && i < n; i++)
        rc = dp_wr_u64(b, (uint64_t)ids[i]);
#endif
    return rc;
}

/* Send a request payload as one frame; returns its id in *id. */
static int send_request(struct dp_rt *rt, int part, uint16_t type,
                        const struct dp_buf *payload, uint64_t *id)
{
    unsigned char hdr[DP_PROTO_HEADER];
    struct dp_frame_header h = { DP_PROTO_MAGIC, DP_PROTO_VERSION, type,
                                 ++rt->next_id, payload->len };
    int rc;

    dp_frame_header_encode(hdr, &h);
    if ((rc = send_all(rt, rt->fds[part], hdr, sizeof(hdr))) ||
        (rc = send_all(rt, rt->fds[part], payload->data, payload->len)))
        return rc;
    rt->requests++;
    *id = h.id;
    return 0;
}

/* ---- connecting ---- */

static int connect_to(const char *ip, int port, int *out)
{
    struct sockaddr_in sa;
    struct timespec ts = { 0, 100 * 1000 * 1000 };
    int waited = 0, one = 1, limit, rc;
    int64_t sec = 0;

    /* servers may still be loading their part: retry refused connections */
    if ((rc = dp_env_int("DGLPART_CONNECT_WAIT", &sec)))
        return rc;
    limit = (int)sec * 1000;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
        return dp_error(DP_EINVAL, "'%s' is not an IPv4 address", ip);
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM, 0), e;
        if (fd < 0)
            return dp_error(DP_ENET, "socket: %s", strerror(errno));
        if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            *out = fd;
            return 0;
        }
        e = errno;
        close(fd);
        if ((e != ECONNREFUSED && e != EINTR) || waited >= limit)
            return dp_error(DP_ENET, "cannot connect to %s:%d: %s", ip, port,
                            strerror(e));
        nanosleep(&ts, NULL);
        waited += 100;
    }
}

static int hello(struct dp_rt *rt, int part, uint32_t client)
{
    struct dp_buf b;
    unsigned char *p = NULL;
    size_t len;
    uint64_t id;
    int rc;

    dp_buf_init(&b, 0);
    if ((rc = dp_wr_u32(&b, DP_PROTO_VERSION)) ||
        (rc = dp_wr_u32(&b, client)) ||
        (rc = send_request(rt, part, DP_MSG_HELLO, &b, &id)) ||
        (rc = recv_reply(rt, part, id, DP_MSG_HELLO, &p, &len)))
        goto out;
    {
        struct dp_rd r = { p, len, 0, 0 };
        uint32_t sp = dp_rd_u32(&r);
        int64_t start = (int64_t)dp_rd_u64(&r);
        int64_t count = (int64_t)dp_rd_u64(&r);
        if (r.failed || (int)sp != part || start != rt->book.node_start[part] ||
            count != rt->book.node_start[part + 1] - start)
            rc = dp_error(DP_EPROTO,
                          "server for part %d serves part %u "
                          "with other ranges (another partition set?)",
                          part, (unsigned)sp);
    }
out:
    free(p);
    dp_buf_release(&b);
    return rc;
}

static int connect_all(struct dp_rt *rt, uint32_t client);

int dp_rt_open_dist(struct dp_rt *rt, const char *conf_path,
                    const char *ip_config, int num_servers, int local_part,
                    uint32_t client)
{
    int rc, i;

    if (num_servers < 1)
        return dp_error(DP_EINVAL, "num_servers %d", num_servers);
    if ((rc = open_common(rt, conf_path)))
        return rc;
    signal(SIGPIPE, SIG_IGN);
    if ((rc = dp_ipconfig_load(&rt->ipc, ip_config))) {
        dp_rt_close(rt);
        return rc;
    }
    if (rt->ipc.count < rt->cfg.num_parts) {
        rc = dp_error(DP_EINVAL, "'%s' lists %d machines for %d parts",
                      ip_config, rt->ipc.count, rt->cfg.num_parts);
        goto out;
    }
    if (local_part >= rt->cfg.num_parts) {
        rc = dp_error(DP_ERANGE, "local part %d out of range", local_part);
        goto out;
    }
    if (local_part >= 0) {
        /* through the machine's shared copy, which its servers map too */
        if ((rc = dp_part_load_shared(&rt->parts[local_part], &rt->cfg,
                                      &rt->book, local_part, dp_part_shm_dir(),
                                      &rt->local_built)))
            goto out;
        rt->local = local_part;
    }
    rc = DP_ENOMEM;
    rt->num_servers = num_servers;
    rt->nall = rt->cfg.num_parts * num_servers;
    if (!(rt->all_fds = dp_malloc_array((size_t)rt->nall, sizeof(int))))
        goto out;
    for (i = 0; i < rt->nall; i++)
        rt->all_fds[i] = -1;
    rc = connect_all(rt, client);
out:
    if (rc)
        dp_rt_close(rt);
    return rc;
}

/* Machine p holds part p and num_servers servers (ports port+k), all of
 * which serve it: connect to each (they count goodbyes) and send this
 * process's requests for p to one of them. */
static int connect_all(struct dp_rt *rt, uint32_t client)
{
    int i, rc = 0, S = rt->num_servers;

    for (i = 0; i < rt->nall && !rc; i++) {
        int p = i / S;
        /* the local machine's servers too: they wait for our goodbye */
        if (!(rc =
                  connect_to(rt->ipc.hosts[p].ip, rt->ipc.hosts[p].port + i % S,
                             &rt->all_fds[i]))) {
            rt->fds[p] = rt->all_fds[i];
            rc = hello(rt, p, client);
        }
    }
    for (i = 0; !rc && i < rt->cfg.num_parts; i++)
        rt->fds[i] = rt->all_fds[i * S + (int)(getpid() % S)];
    return rc;
}

int dp_rt_reconnect(struct dp_rt *rt, uint32_t client)
{
    int i;

    for (i = 0; i < rt->nall; i++) {
        if (rt->all_fds[i] >= 0)
            close(rt->all_fds[i]); /* the parent's: no goodbye */
        rt->all_fds[i] = -1;
    }
    for (i = 0; i < rt->cfg.num_parts; i++)
        rt->fds[i] = -1;
    rt->requests = rt->bytes_sent = rt->bytes_recv = 0;
    return rt->nall ? connect_all(rt, client) : 0;
}

void dp_rt_close(struct dp_rt *rt)
{
    int i;

    if (!rt)
        return;
    for (i = 0; rt->all_fds && rt->fds && i < rt->nall; i++) {
        if (rt->all_fds[i] >= 0) {
            struct dp_buf b;
            unsigned char *p = NULL;
            size_t len;
            uint64_t id;
            dp_buf_init(&b, 0);
            rt->fds[0] = rt->all_fds[i]; /* the I/O helpers go by part */
            if (!send_request(rt, 0, DP_MSG_BYE, &b, &id))
                recv_reply(rt, 0, id, DP_MSG_BYE, &p, &len);
            free(p);
            close(rt->all_fds[i]);
        }
    }
    free(rt->all_fds);
    dp_ipconfig_release(&rt->ipc);
    for (i = 0; rt->parts && i < rt->cfg.num_parts; i++)
        dp_part_release(&rt->parts[i]);
    free(rt->parts);
    free(rt->fds);
    dp_book_release(&rt->book);
    dp_config_release(&rt->cfg);
    memset(rt, 0, sizeof(*rt));
}

/* ---- routing ---- */

/* The ids grouped by owner: ids of part p are sorted[start[p]..start[p+1])
 * and came from positions pos[...] of the caller's array. */
struct routing {
    int nparts;
    int64_t *start;  /* [nparts + 1] */
    int64_t *sorted; /* [n] */
    int64_t *pos;    /* [n] */
};

static void routing_release(struct routing *r)
{
    free(r->start);
    free(r->sorted);
    free(r->pos);
}

static int route(const struct dp_rt *rt, int edge, const int64_t *ids,
                 int64_t n, struct routing *r)
{
    int P = rt->cfg.num_parts, p;
    int64_t i, *cur = NULL;
    int32_t *owner = NULL;
    int rc = DP_ENOMEM;

    memset(r, 0, sizeof(*r));
    r->nparts = P;
    r->start = dp_calloc((size_t)P + 1, 8);
    r->sorted = dp_malloc_array((size_t)n + 1, 8);
    r->pos = dp_malloc_array((size_t)n + 1, 8);
    owner = dp_malloc_array((size_t)n + 1, 4);
    cur = dp_malloc_array((size_t)P + 1, 8);
    if (!r->start || !r->sorted || !r->pos || !owner || !cur)
        goto out;
    for (i = 0; i < n; i++) {
        p = edge ? dp_book_edge_part(&rt->book, ids[i])
                 : dp_book_node_part(&rt->book, ids[i]);
        if (p < 0) {
            rc = dp_error(DP_ERANGE, "%s id %lld out of range",
                          edge ? "edge" : "node", (long long)ids[i]);
            goto out;
        }
        owner[i] = p;
        r->start[p + 1]++;
    }
    for (p = 0; p < P; p++)
        r->start[p + 1] += r->start[p];
    memcpy(cur, r->start, (size_t)P * 8);
    for (i = 0; i < n; i++) {
        int64_t k = cur[owner[i]]++;
        r->sorted[k] = ids[i];
        r->pos[k] = i;
    }
    rc = 0;
out:
    free(owner);
    free(cur);
    if (rc)
        routing_release(r);
    return rc;
}

static int part_missing(int p)
{
    return dp_error(DP_EINVAL, "part %d is neither loaded nor connected", p);
}

/* Close the connection of part p (its stream is out of step). */
static void drop_conn(struct dp_rt *rt, int p)
{
    int i;

    for (i = 0; i < rt->nall; i++)
        if (rt->all_fds[i] == rt->fds[p])
            rt->all_fds[i] = -1;
    close(rt->fds[p]);
    rt->fds[p] = -1;
}

/* The id of a request whose reply is read now (no longer pending). */
static uint64_t take(uint64_t *id)
{
    uint64_t v = *id;

    *id = 0;
    return v;
}

/* After a failed request some replies may be unread: read and drop them so
 * each stream stays in step (a connection that fails here is closed). The
 * first error's message is kept. */
static void drain(struct dp_rt *rt, uint64_t *ids, uint16_t type)
{
    char msg[512];
    int p;

    if (!ids)
        return;
    snprintf(msg, sizeof(msg), "%s", dp_errmsg());
    for (p = 0; p < rt->cfg.num_parts; p++) {
        unsigned char *pl = NULL;
        size_t len;
        int rc;
        if (!ids[p] || rt->fds[p] < 0)
            continue;
        rc = recv_reply(rt, p, ids[p], type, &pl, &len);
        free(pl);
        if (rc == DP_ENET || rc == DP_EPROTO)
            drop_conn(rt, p);
    }
    dp_error(DP_EINVAL, "%s", msg);
}

/* The fields a request carries before its ids. */
typedef int (*req_head_fn)(struct dp_buf *b, const void *arg);

/* Send one request to each remote part that owns some of the routed ids:
 * head's fields (if any), then those ids; ids[p] gets the request's id.
 * With sent and cnt (degree, gather: rounds), part p's request starts after
 * its first sent[p] ids and holds at most chunk of them; cnt[p] gets how
 * many (0: none sent). */
static int send_routed(struct dp_rt *rt, const struct routing *r, uint16_t type,
                       req_head_fn head, const void *arg, const int64_t *sent,
                       int64_t chunk, int64_t *cnt, uint64_t *ids)
{
    int p, rc;

    for (p = 0; p < rt->cfg.num_parts; p++) {
        int64_t from = r->start[p] + (sent ? sent[p] : 0);
        int64_t n = r->start[p + 1] - from;
        struct dp_buf b;

        if (cnt)
            cnt[p] = 0;
        if (n <= 0 || is_loaded(rt, p))
            continue;
        if (rt->fds[p] < 0)
            return part_missing(p);
        if (chunk > 0 && n > chunk)
            n = chunk;
        dp_buf_init(&b, 0);
        rc = head ? head(&b, arg) : 0;
        if (!rc)
            rc = add_ids(&b, r->sorted + from, n);
        if (!rc)
            rc = send_request(rt, p, type, &b, &ids[p]);
        dp_buf_release(&b);
        if (rc)
            return rc;
        if (cnt)
            cnt[p] = n;
    }
    return 0;
}

struct sample_args {
    const struct dp_sample_key *key;
    const struct dp_fanout *f;
};

static int sample_head(struct dp_buf *b, const void *arg)
{
    const struct sample_args *a = arg;
    int t, rc = dp_wr_u64(b, a->key->seed);

    if (!rc)
        rc = dp_wr_u32(b, a->key->epoch);
    if (!rc)
        rc = dp_wr_u32(b, a->key->layer);
    if (rc || !a->f->by_etype)
        return rc ? rc : dp_wr_u64(b, (uint64_t)a->f->all);
    if (a->f->num_etypes > UINT16_MAX)
        return dp_error(DP_ETOOBIG, "%d edge types", a->f->num_etypes);
    rc = dp_wr_u16(b, (uint16_t)a->f->num_etypes);
    for (t = 0; !rc && t < a->f->num_etypes; t++)
        rc = dp_wr_u64(b, (uint64_t)a->f->by_etype[t]);
    return rc;
}

/* Seeds in one sampling request: within the id cap and, for a fanout,
 * within the reply cap the server checks (a count per seed, 16 bytes per
 * edge, at most fanout edges per seed). A full neighbourhood (fanout < 0)
 * has no such bound: its reply is only checked. */
static int64_t sample_chunk(const struct dp_rt *rt, int64_t fanout)
{
    int64_t c = rt->max_ids;

    if (fanout > 0 && (DP_PROTO_MAX_REPLY - 4096) / (8 + 16 * fanout) < c)
        c = (DP_PROTO_MAX_REPLY - 4096) / (8 + 16 * fanout);
    return c < 1 ? 1 : c;
}

/* Parse a sampling reply for cnt seeds from part p into x. */
static int sample_reply(int p, const unsigned char *pl, size_t len, int64_t cnt,
                        struct dp_edges *x)
{
    struct dp_rd rd = { pl, len, 0, 0 };
    int64_t sum = 0, k;
    int rc;

    x->n = (int64_t)dp_rd_u64(&rd);
    if (rd.failed || x->n != cnt)
        return dp_error(DP_EPROTO,
                        "sample reply of part %d: %lld seeds, "
                        "expected %lld",
                        p, (long long)x->n, (long long)cnt);
    if (!(x->counts = dp_malloc_array((size_t)cnt + 1, 8)))
        return DP_ENOMEM;
    if ((rc = rd_i64s(&rd, x->counts, (uint64_t)cnt)))
        return rc;
    x->total = (int64_t)dp_rd_u64(&rd);
    for (k = 0; k < cnt; k++)
        sum += x->counts[k] < 0 ? INT64_MIN / 2 : x->counts[k];
    if (rd.failed || x->total != sum || x->total < 0 ||
        (uint64_t)x->total > (len - rd.pos) / 16)
        return dp_error(DP_EPROTO, "malformed sample reply from part %d", p);
    if (!(x->src = dp_malloc_array((size_t)x->total + 1, 8)) ||
        !(x->eid = dp_malloc_array((size_t)x->total + 1, 8)))
        return DP_ENOMEM;
    if ((rc = rd_i64s(&rd, x->src, (uint64_t)x->total)))
        return rc;
    return rd_i64s(&rd, x->eid, (uint64_t)x->total);
}

/* Append x's seeds and edges to to's (a later round of the same part). */
static int edges_append(struct dp_edges *to, struct dp_edges *x)
{
    int64_t *c, *s, *e;

    if (!to->counts) {
        *to = *x;
        memset(x, 0, sizeof(*x));
        return 0;
    }
    if (!(c = dp_realloc_array(to->counts, (size_t)(to->n + x->n + 1), 8)))
        return DP_ENOMEM;
    to->counts = c;
    if (!(s = dp_realloc_array(to->src, (size_t)(to->total + x->total + 1), 8)))
        return DP_ENOMEM;
    to->src = s;
    if (!(e = dp_realloc_array(to->eid, (size_t)(to->total + x->total + 1), 8)))
        return DP_ENOMEM;
    to->eid = e;
    memcpy(c + to->n, x->counts, (size_t)x->n * 8);
    memcpy(s + to->total, x->src, (size_t)x->total * 8);
    memcpy(e + to->total, x->eid, (size_t)x->total * 8);
    to->n += x->n;
    to->total += x->total;
    dp_edges_release(x);
    return 0;
}

/* Sampling goes in rounds too (see dp_rt_in_degree): a round holds at most
 * sample_chunk seeds per server. Each seed's picks depend only on the key
 * and the seed, so the rounds change nothing in the result. */
int dp_rt_sample(struct dp_rt *rt, const int64_t *seeds, int64_t n,
                 int64_t fanout, const struct dp_sample_key *key,
                 struct dp_edges *out)
{
    struct dp_fanout f = { fanout, NULL, 0 };

    return dp_rt_sample_typed(rt, seeds, n, &f, key, out);
}

int dp_rt_sample_typed(struct dp_rt *rt, const int64_t *seeds, int64_t n,
                       const struct dp_fanout *f,
                       const struct dp_sample_key *key, struct dp_edges *out)
{
    uint16_t type = f->by_etype ? DP_MSG_SAMPLE_TYPED : DP_MSG_SAMPLE;
    int P = rt->cfg.num_parts, p, rc, round, more = 1;
    struct routing r;
    struct dp_edges *res = NULL, e = { 0 };
    uint64_t *ids = NULL;
    int64_t i, k, *off = NULL, *sent = NULL, *cnt = NULL;
    struct sample_args sa = { key, f };

    if ((rc = route(rt, 0, seeds, n, &r)))
        return rc;
    rc = DP_ENOMEM;
    res = dp_calloc((size_t)P, sizeof(*res));
    ids = dp_calloc((size_t)P, 8);
    sent = dp_calloc((size_t)P, 8);
    cnt = dp_calloc((size_t)P, 8);
    if (!res || !ids || !sent || !cnt)
        goto out;
    for (round = 0; more; round++) {
        more = 0;
        if ((rc = send_routed(rt, &r, type, sample_head, &sa, sent,
                              sample_chunk(rt, dp_fanout_max(f)), cnt, ids)))
            goto out;
        for (p = 0; p < P; p++) {
            int64_t all = r.start[p + 1] - r.start[p];
            unsigned char *pl = NULL;
            size_t len;
            struct dp_edges x = { 0 };

            if (is_loaded(rt, p)) {
                if (round == 0 && all)
                    rc = dp_part_sample_typed(&rt->parts[p],
                                              r.sorted + r.start[p], all, f,
                                              key, rt->max_edges, &res[p]);
            } else if (cnt[p] && !(rc = recv_reply(rt, p, take(&ids[p]), type,
                                                   &pl, &len))) {
                rc = sample_reply(p, pl, len, cnt[p], &x);
                if (!rc)
                    rc = edges_append(&res[p], &x);
                dp_edges_release(&x);
                free(pl);
                sent[p] += cnt[p];
                more = 1;
            }
            if (rc)
                goto out;
        }
    }
    /* Back to the caller's order. */
    rc = DP_ENOMEM;
    e.n = n;
    if (!(e.counts = dp_malloc_array((size_t)n + 1, 8)) ||
        !(off = dp_malloc_array((size_t)n + 1, 8)))
        goto out;
    for (p = 0; p < P; p++) {
        int64_t o = 0;
        for (k = 0; k < r.start[p + 1] - r.start[p]; k++) {
            int64_t at = r.pos[r.start[p] + k];
            e.counts[at] = res[p].counts[k];
            off[at] = o; /* offset within res[p] */
            o += res[p].counts[k];
        }
    }
    for (i = 0; i < n; i++)
        e.total += e.counts[i];
    if (!(e.src = dp_malloc_array((size_t)e.total + 1, 8)) ||
        !(e.eid = dp_malloc_array((size_t)e.total + 1, 8)))
        goto out;
    {
        int64_t o = 0;
        /* Walk seeds in caller order; each finds its slice by owner. */
        for (i = 0; i < n; i++) {
            p = dp_book_node_part(&rt->book, seeds[i]);
            memcpy(e.src + o, res[p].src + off[i], (size_t)e.counts[i] * 8);
            memcpy(e.eid + o, res[p].eid + off[i], (size_t)e.counts[i] * 8);
            o += e.counts[i];
        }
    }
    *out = e;
    memset(&e, 0, sizeof(e));
    rc = 0;
out:
    if (rc)
        drain(rt, ids, DP_MSG_SAMPLE);
    for (p = 0; res && p < P; p++)
        dp_edges_release(&res[p]);
    free(res);
    free(ids);
    free(sent);
    free(cnt);
    free(off);
    dp_edges_release(&e);
    routing_release(&r);
    return rc;
}

/* Degree and gather requests go in rounds: each round sends every remote
 * part at most one chunk of its ids and reads those replies, so servers
 * work in parallel, no request exceeds the frame cap, no reply the reply
 * cap, and no connection has two replies pending (a server stops reading
 * a client whose replies pile up). Most calls need one round. */
int dp_rt_in_degree(struct dp_rt *rt, const int64_t *ids, int64_t n,
                    int64_t *out)
{
    int P = rt->cfg.num_parts, p, rc, round, more = 1;
    struct routing r;
    uint64_t *rid = NULL;
    int64_t *tmp = NULL, *sent = NULL, *cnt = NULL, k;

    if ((rc = route(rt, 0, ids, n, &r)))
        return rc;
    rc = DP_ENOMEM;
    if (!(rid = dp_calloc((size_t)P, 8)) || !(sent = dp_calloc((size_t)P, 8)) ||
        !(cnt = dp_calloc((size_t)P, 8)) ||
        !(tmp = dp_malloc_array((size_t)n + 1, 8)))
        goto out;
    for (round = 0; more; round++) {
        more = 0;
        if ((rc = send_routed(rt, &r, DP_MSG_DEGREE, NULL, NULL, sent,
                              rt->max_ids, cnt, rid)))
            goto out;
        for (p = 0; p < P; p++) {
            int64_t at = r.start[p] + sent[p];
            unsigned char *pl = NULL;
            size_t len;

            if (is_loaded(rt, p)) {
                if (round == 0)
                    rc = dp_part_in_degree(&rt->parts[p], r.sorted + r.start[p],
                                           r.start[p + 1] - r.start[p],
                                           tmp + r.start[p]);
            } else if (cnt[p] && !(rc = recv_reply(rt, p, take(&rid[p]),
                                                   DP_MSG_DEGREE, &pl, &len))) {
                struct dp_rd rd = { pl, len, 0, 0 };

                if ((int64_t)dp_rd_u64(&rd) != cnt[p])
                    rc = dp_error(DP_EPROTO, "malformed degree reply");
                else
                    rc = rd_i64s(&rd, tmp + at, (uint64_t)cnt[p]);
                free(pl);
                sent[p] += cnt[p];
                more = 1;
            }
            if (rc)
                goto out;
        }
    }
    for (k = 0; k < n; k++)
        out[r.pos[k]] = tmp[k];
    rc = 0;
out:
    if (rc)
        drain(rt, rid, DP_MSG_DEGREE);
    free(rid);
    free(sent);
    free(cnt);
    free(tmp);
    routing_release(&r);
    return rc;
}

struct gather_args {
    int edge;
    const char *name;
    size_t nlen;
};

static int gather_head(struct dp_buf *b, const void *arg)
{
    const struct gather_args *a = arg;
    int rc = dp_wr_u8(b, (uint8_t)(a->edge != 0));

    if (!rc)
        rc = dp_wr_u16(b, (uint16_t)a->nlen);
    if (!rc)
        rc = dp_buf_add(b, a->name, a->nlen);
    return rc;
}

/* Ids in one gather request whose rows are rb bytes: within the id cap
 * and the reply cap. Before the row size is known, rows of up to 16 KiB
 * are assumed; larger gathers learn the row size first. */
static int64_t gather_chunk(const struct dp_rt *rt, uint64_t rb)
{
    int64_t c = rt->max_ids;

    if (rb && (int64_t)((DP_PROTO_MAX_REPLY - 4096) / rb) < c)
        c = (int64_t)((DP_PROTO_MAX_REPLY - 4096) / rb);
    return c < 1 ? 1 : c;
}

/* The row size of a gather's feature, when some server gets more than
 * first ids: from a loaded part, else from an empty request to that
 * server (one round trip, only for such large gathers). *rb = 0: not
 * needed. */
static int gather_probe(struct dp_rt *rt, const struct routing *r,
                        const struct gather_args *ga, int64_t first,
                        uint64_t *rb)
{
    int p, big = -1, rc;
    uint64_t id = 0;
    unsigned char *pl = NULL;
    size_t len;
    struct dp_buf b;

    *rb = 0;
    for (p = 0; p < rt->cfg.num_parts; p++) {
        if (is_loaded(rt, p)) {
            const struct dp_ndarray *a =
                dp_part_feature(&rt->parts[p], ga->edge, ga->name);

            if (a) {
                *rb = dp_feature_row_bytes(a);
                return 0;
            }
        } else if (big < 0 && rt->fds[p] >= 0 &&
                   r->start[p + 1] - r->start[p] > first) {
            big = p;
        }
    }
    if (big < 0)
        return 0;
    dp_buf_init(&b, 0);
    rc = gather_head(&b, ga);
    if (!rc)
        rc = add_ids(&b, NULL, 0);
    if (!rc)
        rc = send_request(rt, big, DP_MSG_GATHER, &b, &id);
    dp_buf_release(&b);
    if (!rc && !(rc = recv_reply(rt, big, id, DP_MSG_GATHER, &pl, &len))) {
        struct dp_rd rd = { pl, len, 0, 0 };

        (void)dp_rd_u32(&rd);
        *rb = dp_rd_u64(&rd);
        if (dp_rd_u64(&rd) != 0 || rd.failed)
            rc =
                dp_error(DP_EPROTO, "malformed gather reply from part %d", big);
    }
    free(pl);
    if (rc == DP_ENET || rc == DP_EPROTO)
        drop_conn(rt, big); /* its stream is out of step */
    return rc;
}

int dp_rt_gather(struct dp_rt *rt, int edge, const char *name,
                 const int64_t *ids, int64_t n, void **rows,
                 uint64_t *row_bytes, enum dp_dtype *dtype)
{
    int P = rt->cfg.num_parts, p, rc, have = 0, round, more = 1;
    struct routing r;
    uint64_t *rid = NULL, rb = 0;
    enum dp_dtype dt = DP_F32;
    char *res = NULL;
    size_t nlen = strlen(name);
    int64_t k, *sent = NULL, *cnt = NULL, chunk;
    struct gather_args ga = { edge, name, nlen };

    if (nlen == 0 || nlen > 255)
        return dp_error(DP_EINVAL, "bad feature name '%s'", name);
    if ((rc = route(rt, edge, ids, n, &r)))
        return rc;
    rc = DP_ENOMEM;
    if (!(rid = dp_calloc((size_t)P, 8)) || !(sent = dp_calloc((size_t)P, 8)) ||
        !(cnt = dp_calloc((size_t)P, 8)))
        goto out;
    chunk = gather_chunk(rt, 16u << 10);
    if ((rc = gather_probe(rt, &r, &ga, chunk, &rb)))
        goto out;
    if (rb) {
        chunk = gather_chunk(rt, rb);
        rb = 0; /* set again by the first rows */
    }
    for (round = 0; more; round++) {
        more = 0;
        if ((rc = send_routed(rt, &r, DP_MSG_GATHER, gather_head, &ga, sent,
                              chunk, cnt, rid)))
            goto out;
        for (p = 0; p < P; p++) {
            int64_t from, c;
            unsigned char *pl = NULL;
            size_t len;
            uint64_t prb;
            enum dp_dtype pdt;
            const void *src = NULL;
            const struct dp_ndarray *a = NULL;

            if (is_loaded(rt, p)) {
                from = r.start[p];
                c = round == 0 ? r.start[p + 1] - from : 0;
                if (!c)
                    continue;
                if (!(a = dp_part_feature(&rt->parts[p], edge, name))) {
                    rc = DP_ENOENT;
                    goto out;
                }
                prb = dp_feature_row_bytes(a);
                pdt = a->dtype;
            } else {
                struct dp_rd rd;

                from = r.start[p] + sent[p];
                c = cnt[p];
                if (!c)
                    continue;
                sent[p] += c;
                more = 1;
                if ((rc = recv_reply(rt, p, take(&rid[p]), DP_MSG_GATHER, &pl,
                                     &len)))
                    goto out;
                rd.p = pl;
                rd.len = len;
                rd.pos = 0;
                rd.failed = 0;
                pdt = (enum dp_dtype)dp_rd_u32(&rd);
                prb = dp_rd_u64(&rd);
                if (rd.failed || (int64_t)dp_rd_u64(&rd) != c ||
                    (unsigned)pdt > DP_F64 ||
                    (prb && (uint64_t)c > (len - rd.pos) / prb) ||
                    (uint64_t)c * prb != len - rd.pos) {
                    free(pl);
                    rc = dp_error(DP_EPROTO,
                                  "malformed gather reply from "
                                  "part %d",
                                  p);
                    goto out;
                }
                src = pl + rd.pos;
            }
            if (!have) {
                have = 1;
                rb = prb;
                dt = pdt;
                if (rb && (uint64_t)n > SIZE_MAX / 2 / rb) {
                    free(pl);
                    rc = dp_error(DP_ETOOBIG, "gather too large");
                    goto out;
                }
                if (!(res = dp_malloc((size_t)(n * rb) + 1))) {
                    free(pl);
                    rc = DP_ENOMEM;
                    goto out;
                }
                /* the row size is known: chunks now fill the reply cap */
                chunk = gather_chunk(rt, rb);
            } else if (prb != rb || pdt != dt) {
                free(pl);
                rc = dp_error(DP_EFORMAT,
                              "feature '%s' has different "
                              "shapes in different parts",
                              name);
                goto out;
            }
            /* straight to the caller's positions: no staging copy */
            rc = 0;
            for (k = 0; k < c && !rc; k++) {
                char *to = res + (size_t)r.pos[from + k] * rb;
                if (a)
                    rc = dp_part_gather(&rt->parts[p], edge, a,
                                        r.sorted + from + k, 1, to);
                else
                    memcpy(to, (const char *)src + (size_t)k * rb, rb);
            }
            free(pl);
            if (rc)
                goto out;
        }
    }
    if (!have && !(res = dp_malloc(1))) { /* no ids: an empty result */
        rc = DP_ENOMEM;
        goto out;
    }
    *rows = res;
    res = NULL;
    *row_bytes = rb;
    *dtype = dt;
    rc = 0;
out:
    if (rc)
        drain(rt, rid, DP_MSG_GATHER);
    free(rid);
    free(sent);
    free(cnt);
    free(res);
    routing_release(&r);
    return rc;
}
