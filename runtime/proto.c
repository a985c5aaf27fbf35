/* The wire protocol: little-endian frames (24-byte header + payload), a
 * bounded payload reader, and the request handler shared by the server and
 * the tests. A bad request gets an error reply; it never aborts the server. */
#include <stdlib.h>
#include <string.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/runtime.h"

static void put_le(unsigned char *p, uint64_t v, int n)
{
    int i;

    for (i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    int i;

    for (i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

void dp_frame_header_encode(unsigned char out[DP_PROTO_HEADER],
                            const struct dp_frame_header *h)
{
    put_le(out, h->magic, 4);
    put_le(out + 4, h->version, 2);
    put_le(out + 6, h->type, 2);
    put_le(out + 8, h->id, 8);
    put_le(out + 16, h->len, 8);
}

int dp_frame_header_decode(const unsigned char in[DP_PROTO_HEADER],
                           uint64_t max_len, struct dp_frame_header *h)
{
    h->magic = (uint32_t)get_le(in, 4);
    h->version = (uint16_t)get_le(in + 4, 2);
    h->type = (uint16_t)get_le(in + 6, 2);
    h->id = get_le(in + 8, 8);
    h->len = get_le(in + 16, 8);
    if (h->magic != DP_PROTO_MAGIC)
        return dp_error(DP_EPROTO, "bad frame magic 0x%08x",
                        (unsigned)h->magic);
    if (h->version != DP_PROTO_VERSION)
        return dp_error(DP_EPROTO, "protocol version %u, expected %u",
                        (unsigned)h->version, (unsigned)DP_PROTO_VERSION);
    if (h->len > max_len)
        return dp_error(DP_EPROTO, "frame of %llu bytes exceeds %llu",
                        (unsigned long long)h->len,
                        (unsigned long long)max_len);
    return 0;
}

const void *dp_rd_bytes(struct dp_rd *r, uint64_t n)
{
    const void *p;

    if (r->failed || n > r->len - r->pos) {
        r->failed = 1;
        return NULL;
    }
    p = r->p + r->pos;
    r->pos += (size_t)n;
    return p;
}

static uint64_t rd_le(struct dp_rd *r, int n)
{
    const unsigned char *p = dp_rd_bytes(r, (uint64_t)n);
    return p ? get_le(p, n) : 0;
}

static uint8_t rd_u8(struct dp_rd *r)
{
    return (uint8_t)rd_le(r, 1);
}
uint16_t dp_rd_u16(struct dp_rd *r)
{
    return (uint16_t)rd_le(r, 2);
}
uint32_t dp_rd_u32(struct dp_rd *r)
{
    return (uint32_t)rd_le(r, 4);
}
uint64_t dp_rd_u64(struct dp_rd *r)
{
    return rd_le(r, 8);
}

static int wr_le(struct dp_buf *b, uint64_t v, int n)
{
    unsigned char p[8];

    put_le(p, v, n);
    return dp_buf_add(b, p, (size_t)n);
}

int dp_wr_u8(struct dp_buf *b, uint8_t v)
{
    return wr_le(b, v, 1);
}
int dp_wr_u16(struct dp_buf *b, uint16_t v)
{
    return wr_le(b, v, 2);
}
int dp_wr_u32(struct dp_buf *b, uint32_t v)
{
    return wr_le(b, v, 4);
}
int dp_wr_u64(struct dp_buf *b, uint64_t v)
{
    return wr_le(b, v, 8);
}

/* A whole frame: header then payload. */
static int wr_frame(struct dp_buf *b, uint16_t type, uint64_t id,
                    const void *payload, size_t len)
{
    struct dp_frame_header h = { DP_PROTO_MAGIC, DP_PROTO_VERSION, type, id,
                                 len };
    unsigned char hdr[DP_PROTO_HEADER];
    int rc;

    dp_frame_header_encode(hdr, &h);
    if ((rc = dp_buf_add(b, hdr, sizeof(hdr))))
        return rc;
    return len ? dp_buf_add(b, payload, len) : 0;
}

/* ---- request handling ---- */

/* An error reply: u32 code, u16 length, message. */
int dp_wr_error(struct dp_buf *out, uint64_t id, int code, const char *msg)
{
    unsigned char p[4 + 2 + 256];
    size_t n = strlen(msg);

    if (n > 256)
        n = 256;
    put_le(p, (uint64_t)code, 4);
    put_le(p + 4, n, 2);
    memcpy(p + 6, msg, n);
    return wr_frame(out, DP_MSG_ERROR, id, p, 6 + n);
}

/* Reads u64 n then n int64 ids in place (unaligned: copied out). */
static int read_ids(struct dp_rd *r, int64_t **ids, int64_t *n)
{
    uint64_t cnt = dp_rd_u64(r);
    const unsigned char *p;
    uint64_t i;

    if (r->failed)
        return dp_error(DP_EPROTO, "truncated request");
    if (cnt > DP_PROTO_MAX_IDS)
        return dp_error(DP_ETOOBIG, "%llu ids in one request exceed %d",
                        (unsigned long long)cnt, DP_PROTO_MAX_IDS);
    if (!(p = dp_rd_bytes(r, cnt * 8)))
        return dp_error(DP_EPROTO, "truncated id list of %llu",
                        (unsigned long long)cnt);
    if (!(*ids = dp_malloc_array((size_t)cnt + 1, 8)))
        return DP_ENOMEM;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)i;
    memcpy(*ids, p, (size_t)cnt * 8);
#else
    for (i = 0; i < cnt; i++)
        (*ids)[i] = (int64_t)get_le(p + 8 * i, 8);
#endif
    *n = (int64_t)cnt;
    return 0;
}

static int end_of_request(struct dp_rd *r)
{
    if (r->failed)
        return dp_error(DP_EPROTO, "truncated request");
    if (r->pos != r->len)
        return dp_error(DP_EPROTO, "%zu trailing bytes in request",
                        r->len - r->pos);
    return 0;
}

/* The reply's header, with its final length. */
static int begin_reply(struct dp_buf *out, uint16_t type, uint64_t id,
                       uint64_t len)
{
    struct dp_frame_header h = { DP_PROTO_MAGIC, DP_PROTO_VERSION, type, id,
                                 len };
    unsigned char hdr[DP_PROTO_HEADER];

    if (len > DP_PROTO_MAX_REPLY)
        return dp_error(DP_ETOOBIG, "reply of %llu bytes exceeds %u",
                        (unsigned long long)len, DP_PROTO_MAX_REPLY);
    dp_frame_header_encode(hdr, &h);
    return dp_buf_add(out, hdr, sizeof(hdr));
}

static int add_i64s(struct dp_buf *out, const int64_t *v, int64_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return n ? dp_buf_add(out, v, (size_t)n * 8) : 0;
#else
    int64_t i;
    int rc = 0;

    for (i = 0; i < n && !rc; i++)
        rc = dp_wr_u64(out, (uint64_t)v[i]);
    return rc;
#endif
}

#define DEG_CHUNK 4096 /* degrees asked of the part at a time */

static struct dp_fanout stream_fanout(const struct dp_reply_stream *s)
{
    struct dp_fanout f = { s->fanout, s->etf, s->netf };

    return f;
}

/* The sampled edges of all seeds of s, checking that p owns them. */
static int sample_total(const struct dp_part *p,
                        const struct dp_reply_stream *s, int64_t *total)
{
    struct dp_fanout f = stream_fanout(s);
    int64_t cnt[DEG_CHUNK], i, j, t = 0;
    int rc;

    for (i = 0; i < s->n; i += DEG_CHUNK) {
        int64_t k = s->n - i < DEG_CHUNK ? s->n - i : DEG_CHUNK;
        if ((rc = dp_part_sample_counts(p, s->ids + i, k, &f, cnt)))
            return rc;
        for (j = 0; j < k; j++)
            t += cnt[j];
    }
    *total = t;
    return 0;
}

static int start_sample(const struct dp_part *p, uint64_t id, int typed,
                        struct dp_rd *r, struct dp_buf *out,
                        struct dp_reply_stream *s)
{
    int64_t total, max;
    int rc, t;

    s->key.seed = dp_rd_u64(r);
    s->key.epoch = dp_rd_u32(r);
    s->key.layer = dp_rd_u32(r);
    if (typed) {
        s->netf = dp_rd_u16(r);
        if (r->failed)
            return dp_error(DP_EPROTO, "truncated request");
        if (!(s->etf = dp_malloc_array((size_t)s->netf + 1, 8)))
            return DP_ENOMEM;
        for (t = 0; t < s->netf; t++)
            if ((s->etf[t] = (int64_t)dp_rd_u64(r)) < -1 ||
                s->etf[t] > (int64_t)1 << 31)
                return dp_error(DP_ERANGE, "fanout %lld out of range",
                                (long long)s->etf[t]);
        s->fanout = -1;
    } else {
        s->fanout = (int64_t)dp_rd_u64(r);
    }
    if ((rc = read_ids(r, &s->ids, &s->n)) || (rc = end_of_request(r)))
        return rc;
    if (s->fanout < -1 || s->fanout > (int64_t)1 << 31)
        return dp_error(DP_ERANGE, "fanout %lld out of range",
                        (long long)s->fanout);
    if ((rc = sample_total(p, s, &total)))
        return rc;
    max = (DP_PROTO_MAX_REPLY - 16 - 8 * s->n) / 16;
    if (total > max)
        return dp_error(DP_ETOOBIG, "sample of %lld seeds exceeds %lld edges",
                        (long long)s->n, (long long)max);
    if ((rc = begin_reply(out, typed ? DP_MSG_SAMPLE_TYPED : DP_MSG_SAMPLE, id,
                          16 + 8 * (uint64_t)s->n + 16 * (uint64_t)total)) ||
        (rc = dp_wr_u64(out, (uint64_t)s->n)))
        return rc;
    s->type = DP_MSG_SAMPLE;
    return 0;
}

static int start_degree(const struct dp_part *p, uint64_t id, struct dp_rd *r,
                        struct dp_buf *out, struct dp_reply_stream *s)
{
    int64_t total;
    int rc;

    s->fanout = -1;
    if ((rc = read_ids(r, &s->ids, &s->n)) || (rc = end_of_request(r)) ||
        (rc = sample_total(p, s, &total)) ||
        (rc = begin_reply(out, DP_MSG_DEGREE, id, 8 + 8 * (uint64_t)s->n)) ||
        (rc = dp_wr_u64(out, (uint64_t)s->n)))
        return rc;
    s->type = DP_MSG_DEGREE;
    return 0;
}

static int start_gather(const struct dp_part *p, uint64_t id, struct dp_rd *r,
                        struct dp_buf *out, struct dp_reply_stream *s)
{
    char name[256];
    int edge = rd_u8(r);
    uint16_t nlen = dp_rd_u16(r);
    const char *np = dp_rd_bytes(r, nlen);
    int64_t start, i;
    uint64_t rb;
    int rc;

    if (!np || nlen == 0 || nlen >= sizeof(name) || edge > 1)
        return dp_error(DP_EPROTO, "bad feature name in gather request");
    memcpy(name, np, nlen);
    name[nlen] = '\0';
    if (memchr(name, '\0', nlen))
        return dp_error(DP_EPROTO, "bad feature name in gather request");
    if ((rc = read_ids(r, &s->ids, &s->n)) || (rc = end_of_request(r)))
        return rc;
    if (!(s->a = dp_part_feature(p, edge, name)))
        return DP_ENOENT;
    s->edge = edge;
    rb = dp_feature_row_bytes(s->a);
    if (rb && (uint64_t)s->n > (DP_PROTO_MAX_REPLY - 20) / rb)
        return dp_error(DP_ETOOBIG,
                        "gather of %lld rows of %llu bytes is too "
                        "large",
                        (long long)s->n, (unsigned long long)rb);
    if (rb * (uint64_t)s->a->shape[0] > s->a->nbytes)
        return dp_error(DP_EFORMAT,
                        "feature of part %d is shorter than its "
                        "shape",
                        p->id);
    /* Every id is checked before the header goes out: an error found
     * half-way could no longer be a reply of its own. */
    start = dp_part_feature_start(p, edge, s->a);
    for (i = 0; i < s->n; i++)
        if (s->ids[i] < start || s->ids[i] - start >= s->a->shape[0])
            return dp_error(DP_ERANGE, "%s %lld is not owned by part %d",
                            edge ? "edge" : "node", (long long)s->ids[i],
                            p->id);
    if ((rc = begin_reply(out, DP_MSG_GATHER, id, 20 + (uint64_t)s->n * rb)) ||
        (rc = dp_wr_u32(out, (uint32_t)s->a->dtype)) ||
        (rc = dp_wr_u64(out, rb)) || (rc = dp_wr_u64(out, (uint64_t)s->n)))
        return rc;
    s->type = DP_MSG_GATHER;
    return 0;
}

int dp_hello_client(const void *payload, uint64_t len, uint32_t *client)
{
    struct dp_rd r = { payload, (size_t)len, 0, 0 };
    uint32_t ver = dp_rd_u32(&r), id = dp_rd_u32(&r);
    int rc;

    if ((rc = end_of_request(&r)))
        return rc;
    if (ver != DP_PROTO_VERSION)
        return dp_error(DP_EPROTO, "client speaks version %u, server %u",
                        (unsigned)ver, (unsigned)DP_PROTO_VERSION);
    *client = id;
    return 0;
}

static int do_hello(const struct dp_part *p, uint64_t id, struct dp_rd *r,
                    struct dp_buf *out)
{
    uint32_t client;
    int rc;

    if ((rc = dp_hello_client(r->p, r->len, &client)) ||
        (rc = begin_reply(out, DP_MSG_HELLO, id, 28)))
        return rc;
    dp_wr_u32(out, (uint32_t)p->id);
    dp_wr_u64(out, (uint64_t)p->node_start);
    dp_wr_u64(out, (uint64_t)p->num_inner);
    return dp_wr_u64(out, (uint64_t)p->edge_start);
}

/* Ids of s from s->next whose 8-byte answers fill `room`: at least one, at
 * most a chunk. */
static int64_t ids_for(const struct dp_reply_stream *s, size_t room)
{
    int64_t k = s->n - s->next;

    if ((uint64_t)k > room / 8)
        k = room / 8 ? (int64_t)(room / 8) : 1;
    return k < DEG_CHUNK ? k : DEG_CHUNK;
}

/* The seeds from s->next whose sampled edges fill about `room` bytes. */
static int64_t seeds_for(const struct dp_part *p,
                         const struct dp_reply_stream *s, size_t room)
{
    struct dp_fanout f = stream_fanout(s);
    int64_t i, bytes = 0, c = 0;

    for (i = s->next; i < s->n; i++) {
        if (i > s->next && (uint64_t)bytes >= room)
            break;
        dp_part_sample_counts(p, s->ids + i, 1, &f, &c); /* ids checked */
        bytes += 8 * c;
    }
    return i - s->next;
}

static int fill_sample(const struct dp_part *p, struct dp_reply_stream *s,
                       struct dp_buf *out, size_t room)
{
    struct dp_fanout f = stream_fanout(s);
    struct dp_edges e = { 0 };
    int64_t k;
    int rc;

    if (s->phase == 0) {
        int64_t cnt[DEG_CHUNK], total = 0;
        k = ids_for(s, room);
        if ((rc = dp_part_sample_counts(p, s->ids + s->next, k, &f, cnt)) ||
            (rc = add_i64s(out, cnt, k)))
            return rc;
        if ((s->next += k) < s->n)
            return 0;
        if ((rc = sample_total(p, s, &total)) ||
            (rc = dp_wr_u64(out, (uint64_t)total)))
            return rc;
        s->phase = 1;
        s->next = 0;
        return 0;
    }
    /* Sources, then edge ids: each pass samples its seeds again, which
     * picks the same edges (the choice is a function of the key). */
    if (s->next < s->n) {
        k = seeds_for(p, s, room);
        if ((rc = dp_part_sample_typed(p, s->ids + s->next, k, &f, &s->key,
                                       INT64_MAX, &e)))
            return rc;
        rc = add_i64s(out, s->phase == 1 ? e.src : e.eid, e.total);
        dp_edges_release(&e);
        if (rc)
            return rc;
        s->next += k;
    }
    if (s->next == s->n) {
        s->phase++;
        s->next = s->phase == 2 ? 0 : s->n;
    }
    return 0;
}

int dp_reply_stream_fill(const struct dp_part *p, struct dp_reply_stream *s,
                         struct dp_buf *out, size_t room)
{
    int64_t k;
    int rc = 0;

    switch (s->type) {
    case DP_MSG_SAMPLE:
        rc = fill_sample(p, s, out, room);
        break;
    case DP_MSG_DEGREE:
        if ((k = ids_for(s, room)) > 0) {
            int64_t deg[DEG_CHUNK];
            if (!(rc = dp_part_in_degree(p, s->ids + s->next, k, deg)))
                rc = add_i64s(out, deg, k);
            s->next += k;
        }
        break;
    case DP_MSG_GATHER: {
        uint64_t rb = dp_feature_row_bytes(s->a);
        k = s->n - s->next;
        if (rb && (uint64_t)k > room / rb)
            k = room / rb ? (int64_t)(room / rb) : 1;
        if (k > 0 && !(rc = dp_buf_grow(out, (size_t)((uint64_t)k * rb)))) {
            rc = dp_part_gather(p, s->edge, s->a, s->ids + s->next, k,
                                out->data + out->len);
            out->len += (size_t)((uint64_t)k * rb);
        }
        s->next += k;
        break;
    }
    default:
        break;
    }
    if (rc || (s->next == s->n && (s->type != DP_MSG_SAMPLE || s->phase > 2)))
        dp_reply_stream_release(s);
    return rc;
}

size_t dp_reply_stream_held(const struct dp_reply_stream *s)
{
    return (s->ids ? (size_t)s->n * 8 + 8 : 0) +
           (s->etf ? (size_t)s->netf * 8 + 8 : 0);
}

void dp_reply_stream_release(struct dp_reply_stream *s)
{
    free(s->ids);
    free(s->etf);
    memset(s, 0, sizeof(*s));
}

int dp_serve_request_start(const struct dp_part *p,
                           const struct dp_frame_header *h, const void *payload,
                           struct dp_buf *out, struct dp_reply_stream *s,
                           size_t room)
{
    struct dp_rd r = { payload, (size_t)h->len, 0, 0 };
    size_t mark = out->len;
    int rc;

    dp_reply_stream_release(s);
    switch (h->type) {
    case DP_MSG_HELLO:
        rc = do_hello(p, h->id, &r, out);
        break;
    case DP_MSG_SAMPLE:
    case DP_MSG_SAMPLE_TYPED:
        rc = start_sample(p, h->id, h->type == DP_MSG_SAMPLE_TYPED, &r, out, s);
        break;
    case DP_MSG_GATHER:
        rc = start_gather(p, h->id, &r, out, s);
        break;
    case DP_MSG_DEGREE:
        rc = start_degree(p, h->id, &r, out, s);
        break;
    case DP_MSG_BYE:
        rc = end_of_request(&r);
        if (!rc)
            rc = wr_frame(out, DP_MSG_BYE, h->id, NULL, 0);
        break;
    default:
        rc = dp_error(DP_EPROTO, "unknown request type %u", (unsigned)h->type);
    }
    /* A small reply goes out whole: only large ones stay pending. */
    while (!rc && s->type && out->len - mark < room)
        rc = dp_reply_stream_fill(p, s, out, room - (out->len - mark));
    if (!rc)
        return 0;
    dp_reply_stream_release(s);
    out->len = mark;
    return dp_wr_error(out, h->id, rc, dp_errmsg());
}

int dp_serve_request(const struct dp_part *p, const struct dp_frame_header *h,
                     const void *payload, struct dp_buf *out)
{
    struct dp_reply_stream s = { 0 };
    int rc = dp_serve_request_start(p, h, payload, out, &s, SIZE_MAX);

    dp_reply_stream_release(&s);
    return rc;
}
