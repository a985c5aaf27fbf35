/* commcheck: run under mpirun, checks every collective of core/comm.c with
 * values each rank can work out for every other, on every rank: zero-byte
 * and empty messages, one rank, messages cut into many pieces (set
 * DGLPART_TEST_COMM_PIECE small), and the bytes and messages counted.
 * Rank 0 prints "commcheck: N passed, N failed" for all ranks last;
 * each failure is a "FAIL rank R: ..." line on stderr. Exit 1 on a failure.
 *
 *   --pid-dir DIR     each rank writes its pid to DIR/rank.R first
 *   --die-rank R      after the checks, every rank exchanges in a loop and
 *                     rank R kills itself (SIGKILL) in its third round,
 *                     first writing the time (ms) to DIR/killed.R
 *   --abort-rank R    the same, rank R calling dp_comm_abort(c, 7) instead
 *   --not-launched    outside mpirun: dp_comm_launched() is 0 and libmpi
 *                     is not mapped; nothing else */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/comm.h"
#include "dglpart/error.h"

static int me = -1, passed, failed;

static void check(int ok, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void check(int ok, int line, const char *fmt, ...)
{
    va_list ap;

    if (ok) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "FAIL rank %d: commcheck.c:%d: ", me, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
#define CHECK(ok, ...) check((ok), __LINE__, __VA_ARGS__)
/* a call that must succeed; its message when it does not */
#define CHECK_RC(call) CHECK((rc = (call)) == 0, "%s: %s", #call, dp_errmsg())

/* Byte i of what rank a sends with tag b: differs between neighbouring
 * bytes, ranks and pieces, so a piece put at the wrong offset shows. */
static unsigned char pat(int a, int b, size_t i)
{
    uint32_t x =
        (uint32_t)i * 2654435761u ^ (uint32_t)a * 40503u ^ (uint32_t)b * 977u;

    return (unsigned char)(x >> 24 ^ x >> 8);
}

static void fill(unsigned char *p, size_t n, int a, int b)
{
    size_t i;

    for (i = 0; i < n; i++)
        p[i] = pat(a, b, i);
}

/* The first byte of p[n] that differs from what rank a sent with tag b,
 * or n. */
static size_t first_bad(const unsigned char *p, size_t n, int a, int b)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] != pat(a, b, i))
            return i;
    return n;
}

static int has_libmpi(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (strstr(line, "/libmpi.so"))
            found = 1;
    fclose(f);
    return found;
}

static int env_int(const char *name, int def)
{
    const char *s = getenv(name);

    return s && *s ? atoi(s) : def;
}

static size_t piece; /* what the ranks cut by (1 GiB without the switch) */

static uint64_t pieces(size_t bytes)
{
    return bytes ? (bytes - 1) / piece + 1 : 0;
}

static void check_basics(struct dp_comm *c)
{
    int P = dp_comm_size(c), r, rc;
    struct dp_comm *again = NULL;
    char host[256] = "";

    CHECK(dp_comm_launched(), "dp_comm_launched() under mpirun");
    CHECK(me == env_int("OMPI_COMM_WORLD_RANK", -1), "rank %d, mpirun's %d", me,
          env_int("OMPI_COMM_WORLD_RANK", -1));
    CHECK(P == env_int("OMPI_COMM_WORLD_SIZE", -1), "size %d, mpirun's %d", P,
          env_int("OMPI_COMM_WORLD_SIZE", -1));
    CHECK(has_libmpi() == 1, "libmpi mapped once started");
    gethostname(host, sizeof(host) - 1);
    for (r = 0; r < P; r++)
        CHECK(!strcmp(dp_comm_host(c, r), host), "host of rank %d '%s', '%s'",
              r, dp_comm_host(c, r), host);
    CHECK(!strcmp(dp_comm_host(c, P), "?"), "host of rank P");
    CHECK(dp_comm_init(&again) == DP_EINVAL && !again,
          "a second dp_comm_init is refused");
    CHECK(strstr(dp_errmsg(), "already started") != NULL, "and says so: %s",
          dp_errmsg());
    CHECK_RC(dp_comm_barrier(c));
    CHECK(dp_comm_bcast(c, host, 1, P) == DP_EINVAL, "bcast from rank P");
    CHECK(dp_comm_allreduce_i64(c, NULL, 0, (enum dp_comm_op)9) == DP_EINVAL,
          "allreduce with an unknown operation");
}

static void check_bcast(struct dp_comm *c)
{
    static const size_t sizes[] = { 0, 1, 999, 1000, 1001, 5000, 200003 };
    int P = dp_comm_size(c), root, rc;
    size_t s, n, bad;
    unsigned char *buf;
    uint64_t sent, msgs;

    for (s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
        for (root = 0; root < P; root++) {
            n = sizes[s];
            if (!(buf = dp_malloc(n)))
                continue;
            if (me == root)
                fill(buf, n, root, 1);
            else
                memset(buf, 0xee, n);
            sent = dp_comm_sent(c);
            msgs = dp_comm_messages(c);
            CHECK_RC(dp_comm_bcast(c, buf, n, root));
            bad = first_bad(buf, n, root, 1);
            CHECK(bad == n, "bcast of %zu from %d: byte %zu differs", n, root,
                  bad);
            CHECK(dp_comm_sent(c) - sent ==
                      (me == root ? (uint64_t)n * (uint64_t)(P - 1) : 0),
                  "bcast of %zu from %d: %" PRIu64 " bytes sent", n, root,
                  dp_comm_sent(c) - sent);
            CHECK(dp_comm_messages(c) - msgs ==
                      (me == root ? pieces(n) * (uint64_t)(P - 1) : 0),
                  "bcast of %zu from %d: %" PRIu64 " messages", n, root,
                  dp_comm_messages(c) - msgs);
            free(buf);
        }
}

/* What rank r holds at i before the reduction: signs, both halves of
 * 64 bits and ties between ranks. */
static int64_t ival(int r, size_t i)
{
    int64_t v = ((int64_t)(r % 3) << 36) + (int64_t)(i * 7919 % 100003);

    return i % 2 ? -v : v;
}

static void check_allreduce(struct dp_comm *c)
{
    static const size_t sizes[] = { 0, 1, 124, 125, 126, 1000, 30011 };
    static const char *const names[] = { "sum", "min", "max" };
    int P = dp_comm_size(c), op, r, rc;
    size_t s, n, i, bad_i, bad_f;
    int64_t *v, want, x;
    double *d, wantf, y;
    uint64_t sent;

    for (s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
        for (op = DP_COMM_SUM; op <= DP_COMM_MAX; op++) {
            n = sizes[s];
            v = dp_malloc_array(n, sizeof(*v));
            d = dp_malloc_array(n, sizeof(*d));
            if (!v || !d) {
                free(v);
                free(d);
                continue;
            }
            for (i = 0; i < n; i++) {
                v[i] = ival(me, i);
                d[i] = (double)ival(me, i) / 4;
            }
            sent = dp_comm_sent(c);
            CHECK_RC(dp_comm_allreduce_i64(c, v, n, (enum dp_comm_op)op));
            CHECK_RC(dp_comm_allreduce_f64(c, d, n, (enum dp_comm_op)op));
            CHECK(dp_comm_sent(c) - sent ==
                      16 * (uint64_t)n * (uint64_t)(P - 1),
                  "allreduce of %zu: %" PRIu64 " bytes sent", n,
                  dp_comm_sent(c) - sent);
            bad_i = bad_f = n;
            for (i = 0; i < n; i++) {
                want = ival(0, i);
                for (r = 1; r < P; r++) {
                    x = ival(r, i);
                    want = op == DP_COMM_SUM   ? want + x
                           : op == DP_COMM_MIN ? (x < want ? x : want)
                                               : (x > want ? x : want);
                }
                /* quarters of integers below 2^40: sums are exact */
                wantf = 0;
                for (r = 0; r < P; r++) {
                    y = (double)ival(r, i) / 4;
                    wantf = r == 0 || op == DP_COMM_SUM ? wantf + y
                            : op == DP_COMM_MIN ? (y < wantf ? y : wantf)
                                                : (y > wantf ? y : wantf);
                }
                if (v[i] != want && bad_i == n)
                    bad_i = i;
                if (d[i] != wantf && bad_f == n)
                    bad_f = i;
            }
            CHECK(bad_i == n, "allreduce_i64 %s of %zu: element %zu differs",
                  names[op], n, bad_i);
            CHECK(bad_f == n, "allreduce_f64 %s of %zu: element %zu differs",
                  names[op], n, bad_f);
            free(v);
            free(d);
        }
}

static void check_allgather(struct dp_comm *c)
{
    static const size_t sizes[] = { 0, 8, 1000, 2500, 70001 };
    int P = dp_comm_size(c), r, rc;
    size_t s, n, bad;
    unsigned char *send, *recv;
    uint64_t sent, msgs;

    for (s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
        n = sizes[s];
        send = dp_malloc(n);
        recv = dp_malloc_array((size_t)P, n);
        if (!send || !recv) {
            free(send);
            free(recv);
            continue;
        }
        fill(send, n, me, 2);
        memset(recv, 0xee, (size_t)P * n);
        sent = dp_comm_sent(c);
        msgs = dp_comm_messages(c);
        CHECK_RC(dp_comm_allgather(c, send, n, recv));
        for (r = 0; r < P; r++) {
            bad = first_bad(recv + (size_t)r * n, n, r, 2);
            CHECK(bad == n, "allgather of %zu: from rank %d byte %zu differs",
                  n, r, bad);
        }
        CHECK(dp_comm_sent(c) - sent == (uint64_t)n * (uint64_t)(P - 1),
              "allgather of %zu: %" PRIu64 " bytes sent", n,
              dp_comm_sent(c) - sent);
        CHECK(dp_comm_messages(c) - msgs == pieces(n) * (uint64_t)(P - 1),
              "allgather of %zu: %" PRIu64 " messages", n,
              dp_comm_messages(c) - msgs);
        free(send);
        free(recv);
    }
}

/* What rank r sends in round t of the allgatherv checks: nothing at all
 * (t 1), some ranks nothing, one rank much (t 2). */
static size_t gv_bytes(int r, int P, int t)
{
    switch (t) {
    case 0:
        return (size_t)r * 1237 % 5000;
    case 1:
        return 0;
    default:
        return r == P - 1 ? 300007 : (size_t)r;
    }
}

static void check_allgatherv(struct dp_comm *c)
{
    int P = dp_comm_size(c), r, t, rc;
    size_t *counts = dp_calloc((size_t)P, sizeof(*counts));
    size_t n, off, bad;
    unsigned char *send, *recv;

    for (t = 0; t < 3 && counts; t++) {
        n = gv_bytes(me, P, t);
        if (!(send = dp_malloc(n)))
            continue;
        fill(send, n, me, 10 + t);
        recv = NULL;
        CHECK_RC(dp_comm_allgatherv(c, send, n, (void **)&recv, counts));
        if (!rc) {
            CHECK(recv != NULL, "allgatherv %d: a buffer even if empty", t);
            for (r = 0, off = 0; r < P; off += counts[r++]) {
                CHECK(counts[r] == gv_bytes(r, P, t),
                      "allgatherv %d: %zu bytes from rank %d, want %zu", t,
                      counts[r], r, gv_bytes(r, P, t));
                if (counts[r] != gv_bytes(r, P, t))
                    break;
                bad = first_bad(recv + off, counts[r], r, 10 + t);
                CHECK(bad == counts[r],
                      "allgatherv %d: from rank %d byte %zu differs", t, r,
                      bad);
            }
        }
        free(recv);
        free(send);
    }
    recv = NULL;
    if (counts) {
        CHECK_RC(dp_comm_allgatherv(c, NULL, 0, (void **)&recv, counts));
        for (r = 0; r < P && !rc; r++)
            CHECK(counts[r] == 0, "allgatherv of NULL: %zu bytes from rank %d",
                  counts[r], r);
        free(recv);
    }
    free(counts);
}

/* Bytes rank s sends rank d in round t of the alltoallv checks: a mix
 * with zeros (t 0), nothing at all (t 1), one big message to the next
 * rank (t 2), only to itself (t 3). */
static size_t a2a_bytes(int s, int d, int P, int t)
{
    switch (t) {
    case 0:
        return (size_t)((s * 7 + d * 13) % 5) * 701;
    case 1:
        return 0;
    case 2:
        return d == (s + 1) % P ? 150001 : 0;
    default:
        return s == d ? 4099 : 0;
    }
}

static void check_alltoallv(struct dp_comm *c)
{
    int P = dp_comm_size(c), r, t, rc;
    size_t *sc = dp_calloc((size_t)P, sizeof(*sc));
    size_t *rcn = dp_calloc((size_t)P, sizeof(*rcn));
    size_t total, off, bad;
    unsigned char *send, *recv;
    uint64_t sent, msgs, want_sent, want_msgs;

    for (t = 0; t < 4 && sc && rcn; t++) {
        total = 0;
        want_sent = 8 * (uint64_t)(P - 1); /* the counts */
        want_msgs = (uint64_t)(P - 1);
        for (r = 0; r < P; r++) {
            sc[r] = a2a_bytes(me, r, P, t);
            total += sc[r];
            if (r != me) {
                want_sent += sc[r];
                want_msgs += pieces(sc[r]);
            }
        }
        if (!(send = dp_malloc(total)))
            continue;
        for (r = 0, off = 0; r < P; off += sc[r++])
            fill(send + off, sc[r], me * 64 + r, 20 + t);
        recv = NULL;
        sent = dp_comm_sent(c);
        msgs = dp_comm_messages(c);
        CHECK_RC(dp_comm_alltoallv(c, send, sc, (void **)&recv, rcn));
        if (!rc) {
            CHECK(recv != NULL, "alltoallv %d: a buffer even if empty", t);
            for (r = 0, off = 0; r < P; off += rcn[r++]) {
                CHECK(rcn[r] == a2a_bytes(r, me, P, t),
                      "alltoallv %d: %zu bytes from rank %d, want %zu", t,
                      rcn[r], r, a2a_bytes(r, me, P, t));
                if (rcn[r] != a2a_bytes(r, me, P, t))
                    break;
                bad = first_bad(recv + off, rcn[r], r * 64 + me, 20 + t);
                CHECK(bad == rcn[r],
                      "alltoallv %d: from rank %d byte %zu differs", t, r, bad);
            }
            CHECK(dp_comm_sent(c) - sent == want_sent,
                  "alltoallv %d: %" PRIu64 " bytes sent, want %" PRIu64, t,
                  dp_comm_sent(c) - sent, want_sent);
            CHECK(dp_comm_messages(c) - msgs == want_msgs,
                  "alltoallv %d: %" PRIu64 " messages, want %" PRIu64, t,
                  dp_comm_messages(c) - msgs, want_msgs);
        }
        free(recv);
        free(send);
    }
    /* nothing to send, and no buffer to send it from */
    for (r = 0; r < P && sc && rcn; r++)
        sc[r] = 0;
    recv = NULL;
    if (sc && rcn) {
        CHECK_RC(dp_comm_alltoallv(c, NULL, sc, (void **)&recv, rcn));
        for (r = 0; r < P && !rc; r++)
            CHECK(rcn[r] == 0, "alltoallv from NULL: %zu bytes from rank %d",
                  rcn[r], r);
        free(recv);
    }
    free(sc);
    free(rcn);
}

static const char *pid_dir;

/* DIR/NAME.RANK holds the number given (for the script to read) */
static void note(const char *name, long long v)
{
    char path[4096];
    FILE *f;

    if (!pid_dir)
        return;
    snprintf(path, sizeof(path), "%s/%s.%d", pid_dir, name, me);
    if ((f = fopen(path, "w"))) {
        fprintf(f, "%lld\n", v);
        fclose(f);
    }
}

static long long now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Every rank exchanges until one dies or aborts; mpirun stops the rest. */
static int exchange_until(struct dp_comm *c, int die, int abort_rank)
{
    int P = dp_comm_size(c), r, round, rc;
    size_t *sc = dp_calloc((size_t)P, sizeof(*sc));
    size_t *rcn = dp_calloc((size_t)P, sizeof(*rcn));
    unsigned char *send = dp_calloc((size_t)P, 10000);
    void *recv;

    if (!sc || !rcn || !send)
        return 1;
    for (r = 0; r < P; r++)
        sc[r] = 10000;
    for (round = 0;; round++) {
        if (round == 2 && me == die) {
            note("killed", now_ms()); /* when, for the script */
            raise(SIGKILL);
        }
        if (round == 2 && me == abort_rank)
            dp_comm_abort(c, 7);
        recv = NULL;
        rc = dp_comm_alltoallv(c, send, sc, &recv, rcn);
        free(recv);
        if (rc) {
            /* MPI saw the loss before mpirun did: say so and stop */
            fprintf(stderr, "commcheck: %s\n", dp_errmsg());
            dp_comm_abort(c, 3);
        }
    }
}

static int not_launched(void)
{
    me = 0;
    CHECK(!dp_comm_launched(), "dp_comm_launched() outside mpirun");
    CHECK(has_libmpi() == 0, "libmpi not mapped");
    printf("commcheck: %d passed, %d failed (not launched)\n", passed, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct dp_comm *c = NULL;
    int64_t tally[2];
    int i, rc, die = -1, abort_rank = -1;

    dp_set_progname("commcheck");
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--not-launched"))
            return not_launched();
        if (i + 1 < argc && !strcmp(argv[i], "--pid-dir"))
            pid_dir = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--die-rank"))
            die = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--abort-rank"))
            abort_rank = atoi(argv[++i]);
        else {
            fprintf(stderr, "commcheck: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    me = env_int("OMPI_COMM_WORLD_RANK", -1);
    note("rank", (long long)getpid());
    CHECK(has_libmpi() == 0, "libmpi not mapped before dp_comm_init");
    if ((rc = dp_comm_init(&c))) {
        dp_report(rc);
        return 1;
    }
    me = dp_comm_rank(c);
    piece = (size_t)env_int("DGLPART_TEST_COMM_PIECE", 1 << 30);
    check_basics(c);
    check_bcast(c);
    check_allreduce(c);
    check_allgather(c);
    check_allgatherv(c);
    check_alltoallv(c);
    if (die >= 0 || abort_rank >= 0)
        return exchange_until(c, die, abort_rank);
    tally[0] = passed;
    tally[1] = failed;
    if ((rc = dp_comm_allreduce_i64(c, tally, 2, DP_COMM_SUM))) {
        dp_report(rc);
        dp_comm_abort(c, 1);
    }
    if (me == 0)
        printf("commcheck: %d ranks, rank 0 sent %" PRIu64 " bytes in %" PRIu64
               " messages\ncommcheck: %" PRId64 " passed, %" PRId64 " failed\n",
               dp_comm_size(c), dp_comm_sent(c), dp_comm_messages(c), tally[0],
               tally[1]);
    dp_comm_finish(c);
    return tally[1] ? 1 : 0;
}
