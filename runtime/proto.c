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

uint8_t dp_rd_u8(struct dp_rd *r)
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

int dp_wr_frame(struct dp_buf *b, uint16_t type, uint64_t id,
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
    return dp_wr_frame(out, DP_MSG_ERROR, id, p, 6 + n);
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

/* Room for the reply header plus n bytes of payload, then the header. */
static int begin_reply(struct dp_buf *out, uint16_t type, uint64_t id,
                       uint64_t len, size_t *start)
{
    int rc;

    if (len > DP_PROTO_MAX_REPLY)
        return dp_error(DP_ETOOBIG, "reply of %llu bytes exceeds %u",
                        (unsigned long long)len, DP_PROTO_MAX_REPLY);
    if ((rc = dp_buf_grow(out, DP_PROTO_HEADER + (size_t)len)))
        return rc;
    *start = out->len;
    return dp_wr_frame(out, type, id, NULL, 0);
}

static void end_reply(struct dp_buf *out, size_t start)
{
    put_le((unsigned char *)out->data + start + 16,
           out->len - start - DP_PROTO_HEADER, 8);
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

static int do_sample(const struct dp_part *p, uint64_t id, struct dp_rd *r,
                     struct dp_buf *out)
{
    struct dp_sample_key key;
    struct dp_edges e = { 0 };
    int64_t fanout, n = 0, *ids = NULL;
    size_t start;
    int rc;

    key.seed = dp_rd_u64(r);
    key.epoch = dp_rd_u32(r);
    key.layer = dp_rd_u32(r);
    fanout = (int64_t)dp_rd_u64(r);
    if ((rc = read_ids(r, &ids, &n)) || (rc = end_of_request(r)))
        goto out;
    if (fanout < -1 || fanout > (int64_t)1 << 31) {
        rc = dp_error(DP_ERANGE, "fanout %lld out of range", (long long)fanout);
        goto out;
    }
    if ((rc = dp_part_sample(p, ids, n, fanout, &key,
                             (DP_PROTO_MAX_REPLY - 16 - 8 * (int64_t)n) / 16,
                             &e)))
        goto out;
    if ((rc = begin_reply(out, DP_MSG_SAMPLE, id,
                          16 + 8 * (uint64_t)n + 16 * (uint64_t)e.total,
                          &start)))
        goto out;
    dp_wr_u64(out, (uint64_t)n);
    add_i64s(out, e.counts, n);
    dp_wr_u64(out, (uint64_t)e.total);
    add_i64s(out, e.src, e.total);
    add_i64s(out, e.eid, e.total);
    end_reply(out, start);
out:
    free(ids);
    dp_edges_release(&e);
    return rc;
}

static int do_degree(const struct dp_part *p, uint64_t id, struct dp_rd *r,
                     struct dp_buf *out)
{
    int64_t n = 0, *ids = NULL, *deg = NULL;
    size_t start;
    int rc;

    if ((rc = read_ids(r, &ids, &n)) || (rc = end_of_request(r)))
        goto out;
    rc = DP_ENOMEM;
    if (!(deg = dp_malloc_array((size_t)n + 1, 8)))
        goto out;
    if ((rc = dp_part_in_degree(p, ids, n, deg)) ||
        (rc = begin_reply(out, DP_MSG_DEGREE, id, 8 + 8 * (uint64_t)n, &start)))
        goto out;
    dp_wr_u64(out, (uint64_t)n);
    add_i64s(out, deg, n);
    end_reply(out, start);
out:
    free(ids);
    free(deg);
    return rc;
}

static int do_gather(const struct dp_part *p, uint64_t id, struct dp_rd *r,
                     struct dp_buf *out)
{
    const struct dp_ndarray *a;
    char name[256];
    int edge = dp_rd_u8(r);
    uint16_t nlen = dp_rd_u16(r);
    const char *np = dp_rd_bytes(r, nlen);
    int64_t n = 0, *ids = NULL;
    uint64_t rb, len;
    size_t start;
    int rc;

    if (!np || nlen == 0 || nlen >= sizeof(name) || edge > 1)
        return dp_error(DP_EPROTO, "bad feature name in gather request");
    memcpy(name, np, nlen);
    name[nlen] = '\0';
    if (memchr(name, '\0', nlen))
        return dp_error(DP_EPROTO, "bad feature name in gather request");
    if ((rc = read_ids(r, &ids, &n)) || (rc = end_of_request(r)))
        goto out;
    if (!(a = dp_part_feature(p, edge, name))) {
        rc = DP_ENOENT;
        goto out;
    }
    rb = dp_feature_row_bytes(a);
    if (rb && (uint64_t)n > (DP_PROTO_MAX_REPLY - 20) / rb) {
        rc = dp_error(DP_ETOOBIG,
                      "gather of %lld rows of %llu bytes is too "
                      "large",
                      (long long)n, (unsigned long long)rb);
        goto out;
    }
    len = 20 + (uint64_t)n * rb;
    if ((rc = begin_reply(out, DP_MSG_GATHER, id, len, &start)))
        goto out;
    dp_wr_u32(out, (uint32_t)a->dtype);
    dp_wr_u64(out, rb);
    dp_wr_u64(out, (uint64_t)n);
    /* begin_reply reserved the room: gather straight into the buffer. */
    if ((rc = dp_part_gather(p, edge, a, ids, n, out->data + out->len))) {
        out->len = start;
        goto out;
    }
    out->len += (size_t)((uint64_t)n * rb);
    end_reply(out, start);
out:
    free(ids);
    return rc;
}

static int do_hello(const struct dp_part *p, uint64_t id, struct dp_rd *r,
                    struct dp_buf *out)
{
    uint32_t ver = dp_rd_u32(r);
    size_t start;
    int rc;

    if ((rc = end_of_request(r)))
        return rc;
    if (ver != DP_PROTO_VERSION)
        return dp_error(DP_EPROTO, "client speaks version %u, server %u",
                        (unsigned)ver, (unsigned)DP_PROTO_VERSION);
    if ((rc = begin_reply(out, DP_MSG_HELLO, id, 28, &start)))
        return rc;
    dp_wr_u32(out, (uint32_t)p->id);
    dp_wr_u64(out, (uint64_t)p->node_start);
    dp_wr_u64(out, (uint64_t)p->num_inner);
    dp_wr_u64(out, (uint64_t)p->edge_start);
    end_reply(out, start);
    return 0;
}

int dp_serve_request(const struct dp_part *p, const struct dp_frame_header *h,
                     const void *payload, struct dp_buf *out)
{
    struct dp_rd r = { payload, (size_t)h->len, 0, 0 };
    size_t mark = out->len;
    int rc;

    switch (h->type) {
    case DP_MSG_HELLO:
        rc = do_hello(p, h->id, &r, out);
        break;
    case DP_MSG_SAMPLE:
        rc = do_sample(p, h->id, &r, out);
        break;
    case DP_MSG_GATHER:
        rc = do_gather(p, h->id, &r, out);
        break;
    case DP_MSG_DEGREE:
        rc = do_degree(p, h->id, &r, out);
        break;
    case DP_MSG_BYE:
        rc = end_of_request(&r);
        if (!rc)
            rc = dp_wr_frame(out, DP_MSG_BYE, h->id, NULL, 0);
        break;
    default:
        rc = dp_error(DP_EPROTO, "unknown request type %u", (unsigned)h->type);
    }
    if (!rc)
        return 0;
    out->len = mark;
    return dp_wr_error(out, h->id, rc, dp_errmsg());
}
