/* SNAP-style edge lists: one "src dst" pair per line, separated by spaces,
 * tabs or commas, '#' and '%' comment lines, LF or CRLF, plain or gzip.
 * Also the reader of OGB's raw/edge.csv.gz. */
#include <inttypes.h>
#include <string.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/error.h"

static inline int is_sep(char c)
{
    return c == ' ' || c == '\t' || c == ',';
}

static int bad_id(struct cv_graph *g, struct cv_src *s, const char *tok,
                  int col, int overflow)
{
    size_t n = 0;

    (void)g;
    while (tok[n] && !is_sep(tok[n]) && n < 40)
        n++;
    if (overflow)
        return dp_error(DP_ERANGE,
                        "'%s' line %" PRIu64 ": column %d: node id "
                        "'%.*s' is too large",
                        s->name, s->line, col, (int)n, tok);
    return dp_error(DP_EFORMAT,
                    "'%s' line %" PRIu64 ": column %d: expected a "
                    "node id (non-negative integer), found '%.*s'",
                    s->name, s->line, col, (int)n, tok);
}

static inline int parse_id(struct cv_graph *g, struct cv_src *s,
                           const char **pp, int col, int64_t *out)
{
    const char *p = *pp;
    int r = cv_scan_i64(&p, out);

    if (r || (*p && !is_sep(*p)))
        return bad_id(g, s, *pp, col, r == 2);
    if (*out < 0)
        return dp_error(DP_ERANGE,
                        "'%s' line %" PRIu64 ": column %d: expected "
                        "a non-negative node id, found %" PRId64,
                        s->name, s->line, col, *out);
    /* the node count is max id + 1, and OGB's reader takes it from here */
    if (*out >= CV_MAX_NODES)
        return dp_error(DP_ERANGE,
                        "'%s' line %" PRIu64 ": node id %" PRId64
                        " too large (ids must be below 2^62)",
                        s->name, s->line, *out);
    if (g->typed && *out >= g->end_cnt[col - 1])
        return cv_typed_bad_id(g, s->name, s->line, col, *out);
    if (!g->typed && g->num_nodes >= 0 && *out >= g->num_nodes)
        return dp_error(DP_ERANGE,
                        "'%s' line %" PRIu64 ": node id %" PRId64
                        " out of range [0, %" PRId64 ") (%s)",
                        s->name, s->line, *out, g->num_nodes, g->nodes_from);
    *pp = p;
    return 0;
}

/* One line, NUL-terminated, without its end: the general path. */
static int parse_line(struct cv_graph *g, struct cv_src *s, const char *p,
                      int *warned)
{
    int64_t a, b;
    int rc;

    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p || *p == '#' || *p == '%')
        return 0;
    if ((rc = parse_id(g, s, &p, 1, &a)))
        return rc;
    while (is_sep(*p))
        p++;
    if (!*p)
        return dp_error(DP_EFORMAT,
                        "'%s' line %" PRIu64 ": expected 2 "
                        "columns (src dst), found 1",
                        s->name, s->line);
    if ((rc = parse_id(g, s, &p, 2, &b)))
        return rc;
    while (is_sep(*p))
        p++;
    if (*p && !*warned) {
        dp_warn("'%s' line %" PRIu64 ": ignoring columns after the "
                "second",
                s->name, s->line);
        *warned = 1;
    }
    return cv_edges_push(&g->edges, a + g->end_off[0], b + g->end_off[1],
                         s->line);
}

/* Up to 18 digits: below 10^18 < 2^62, so no overflow or size check. */
static inline const char *digits(const char *p, const char *end, int64_t *v)
{
    const char *start = p;
    int64_t x = 0;

    while (p < end && (unsigned)(*p - '0') <= 9 && p - start < 18)
        x = x * 10 + (*p++ - '0');
    *v = x;
    return p > start ? p : NULL;
}

/* Digits eight bytes at a time (SWAR): a line of two ids then costs a few
 * multiplies instead of a branch per character. */
#define ONES UINT64_C(0x0101010101010101)

static inline uint64_t load8(const char *p)
{
    uint64_t x;

    memcpy(&x, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x; /* first character in the low byte */
}

/* Bytes of x before the first one that is not an ASCII digit (8: all). */
static inline unsigned digit_run(uint64_t x)
{
    /* zero in a byte that is 0x30-0x39; a carry out of a byte >= 0xfa
     * only reaches later bytes, past the first non-digit */
    uint64_t nz = ((x & 0xf0 * ONES) ^ 0x30 * ONES) |
                  (((x + 0x06 * ONES) & 0xf0 * ONES) ^ 0x30 * ONES);
    uint64_t m = (((nz & 0x7f * ONES) + 0x7f * ONES) | nz) & 0x80 * ONES;

    return m ? (unsigned)__builtin_ctzll(m) >> 3 : 8;
}

/* The value of the first n (1-8) digit bytes of x. */
static inline uint64_t digits_value(uint64_t x, unsigned n)
{
    /* shifting the digits to the top leaves zeros, read as leading '0's */
    x = (x << (64 - 8 * n)) & 0x0f * ONES;
    x = (x * 2561) >> 8;
    x = ((x & UINT64_C(0x00ff00ff00ff00ff)) * 6553601) >> 16;
    return ((x & UINT64_C(0x0000ffff0000ffff)) * UINT64_C(42949672960001)) >>
           32;
}

/* An id of 1 to 15 digits at p (16 bytes readable): its length, or 0 for
 * no digit or a longer run, left to the slower path. */
static inline unsigned swar_id(const char *p, int64_t *v)
{
    static const uint64_t pow10[8] = { 1,     10,     100,     1000,
                                       10000, 100000, 1000000, 10000000 };
    uint64_t x = load8(p), y;
    unsigned n = digit_run(x), n2;

    if (n < 8) {
        *v = n ? (int64_t)digits_value(x, n) : 0;
        return n;
    }
    y = load8(p + 8);
    n2 = digit_run(y);
    if (n2 == 8)
        return 0;
    *v = (int64_t)(digits_value(x, 8) * pow10[n2] +
                   (n2 ? digits_value(y, n2) : 0));
    return 8 + n2;
}

static int count_degrees(struct cv_edges *e)
{
    int rc = cv_edges_count(e, 1, e->counted, e->n);

    if (!rc && e->deg_und)
        rc = cv_edges_count(e, 0, e->counted, e->n);
    e->counted = e->n;
    return rc;
}

/* Bytes the SWAR path may read from a line's start: two ids of up to 16
 * bytes read, a separator, "\r\n". */
#define SWAR_SPAN 40

static int parse_edges(struct cv_graph *g, struct cv_src *s)
{
    int64_t n = g->num_nodes < 0 ? INT64_MAX : g->num_nodes;
    /* typed: per-type ids, below their types' counts, then shifted */
    int64_t na = g->typed ? g->end_cnt[0] : n,
            nb = g->typed ? g->end_cnt[1] : n;
    int64_t oa = g->typed ? g->end_off[0] : 0,
            ob = g->typed ? g->end_off[1] : 0;
    struct cv_edges *e = &g->edges;
    int warned = 0, rc;
    char *p, *end;

    /* With the node count known up front, count degrees as edges come:
     * the CSC then needs no counting pass of its own. Buckets count their
     * own. */
    if (!g->typed && g->num_nodes >= 0 && !e->n && !e->deg && !e->bkt &&
        !g->share) { /* a rank's share: its ids go to other ranks */
        /* one past the nodes: offsets() turns it into the indptr */
        size_t nn = (size_t)g->num_nodes + 1;
        size_t bytes = nn * sizeof(*e->deg);

        if (!(e->deg = dp_malloc_array(nn, sizeof(*e->deg))))
            return DP_ENOMEM;
        cv_hugepages(e->deg, bytes);
        memset(e->deg, 0, bytes);
        e->ndeg = (int64_t)nn;
        e->deg_und = g->o && g->o->undirected;
    }
    for (;;) {
        if (e->deg && (rc = count_degrees(e)))
            return rc;
        if (e->bkt && (rc = cv_edges_flush(e)))
            return rc;
        /* buckets live in memory, planned from the count stated up front:
         * a count far too low must not run the machine out of memory */
        if (e->bkt && e->n > 2 * e->sized + (1u << 20))
            return dp_error(DP_EFORMAT,
                            "'%s': more than twice the %" PRIu64
                            " edges stated up front (%" PRIu64 " so far)",
                            s->name, e->sized, e->n);
        if ((rc = cv_src_lines(s, &p, &end)))
            return rc;
        if (!p)
            return 0;
        while (p < end) {
            const char *q;
            char *nl;
            int64_t a, b;
            unsigned k;

            s->line++;
            /* The common "src<sep>dst\n" line, parsed in place. */
            if (end - p >= SWAR_SPAN) {
                if ((k = swar_id(p, &a)) && is_sep(p[k]) &&
                    (q = p + k + 1, k = swar_id(q, &b)) && a < na && b < nb) {
                    q += k;
                    q += *q == '\r';
                    if (*q == '\n') {
                        if ((rc = cv_edges_push(e, a + oa, b + ob, s->line)))
                            return rc;
                        p = (char *)q + 1;
                        continue;
                    }
                }
            } else if ((q = digits(p, end, &a)) && q < end && is_sep(*q) &&
                       (q = digits(q + 1, end, &b)) && a < na && b < nb) {
                if (q < end && *q == '\r')
                    q++;
                if (q == end || *q == '\n') {
                    if ((rc = cv_edges_push(e, a + oa, b + ob, s->line)))
                        return rc;
                    p = (char *)q + 1;
                    continue;
                }
            }
            nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl)
                nl = end; /* a lone last line: NUL-terminated already */
            *nl = '\0';
            if (nl > p && nl[-1] == '\r')
                nl[-1] = '\0';
            if ((rc = parse_line(g, s, p, &warned)))
                return rc;
            p = nl + 1;
        }
    }
}

int cv_parse_edgelist(struct cv_graph *g, struct cv_src *s)
{
    const struct dp_convert_opts *o = g->o;
    int rc;

    if (!g->typed && g->num_nodes >= 0 && !g->share &&
        (rc = cv_edges_bucket(
             &g->edges, g->num_nodes,
             !o || (!o->undirected && !o->no_self_loops && !o->dedup))))
        return rc;
    /* no buckets: the arrays for the count expected */
    if (!g->edges.bkt && !g->edges.n && g->edges.sized > g->edges.cap &&
        (rc = cv_edges_grow(&g->edges, g->edges.sized)))
        return rc;
    cv_edges_warm(&g->edges);
    rc = parse_edges(g, s);
    if (!rc && g->edges.bkt)
        rc = cv_edges_flush(&g->edges);
    cv_edges_warm_stop(&g->edges);
    return rc;
}
