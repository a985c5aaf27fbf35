/* The ranks of an mpirun job, over Open MPI's libmpi loaded at run time
 * (see dglpart/comm.h). MPI's types, handles and errors stay in this file:
 * mpi.h is compiled in for the types, and nothing here links to libmpi. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/comm.h"
#include "dglpart/dynlib.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"

#define MPI_FUNCS(X)                                                           \
    X(MPI_Abort)                                                               \
    X(MPI_Allgather)                                                           \
    X(MPI_Allreduce)                                                           \
    X(MPI_Alltoall)                                                            \
    X(MPI_Barrier)                                                             \
    X(MPI_Bcast)                                                               \
    X(MPI_Comm_rank)                                                           \
    X(MPI_Comm_set_errhandler)                                                 \
    X(MPI_Comm_size)                                                           \
    X(MPI_Error_string)                                                        \
    X(MPI_Finalize)                                                            \
    X(MPI_Get_count)                                                           \
    X(MPI_Get_processor_name)                                                  \
    X(MPI_Init_thread)                                                         \
    X(MPI_Irecv)                                                               \
    X(MPI_Isend)                                                               \
    X(MPI_Waitall)

/* Open MPI's predefined handles are the addresses of objects in libmpi
 * (MPI_COMM_WORLD is &ompi_mpi_comm_world): resolved as data symbols, so
 * mpi.h's macros for them, which would link to libmpi, are never used. */
#define MPI_HANDLES(X)                                                         \
    X(MPI_Comm, world, ompi_mpi_comm_world)                                    \
    X(MPI_Errhandler, errors_return, ompi_mpi_errors_return)                   \
    X(MPI_Datatype, byte, ompi_mpi_byte)                                       \
    X(MPI_Datatype, i64, ompi_mpi_int64_t)                                     \
    X(MPI_Datatype, u64, ompi_mpi_uint64_t)                                    \
    X(MPI_Datatype, f64, ompi_mpi_double)                                      \
    X(MPI_Op, sum, ompi_mpi_op_sum)                                            \
    X(MPI_Op, min, ompi_mpi_op_min)                                            \
    X(MPI_Op, max, ompi_mpi_op_max)

#define FUNC_SLOT(f) __typeof__(f) *f;
#define HANDLE_SLOT(type, field, sym) type field;
static struct {
    MPI_FUNCS(FUNC_SLOT)
} mpi;
static struct {
    MPI_HANDLES(HANDLE_SLOT)
} hd;
#undef FUNC_SLOT
#undef HANDLE_SLOT

#define FUNC_NAME(f) #f,
#define HANDLE_NAME(type, field, sym) #sym,
static const char *const func_names[] = { MPI_FUNCS(FUNC_NAME) NULL };
static const char *const handle_names[] = { MPI_HANDLES(HANDLE_NAME) NULL };
#undef FUNC_NAME
#undef HANDLE_NAME

_Static_assert(sizeof(mpi) == (sizeof(func_names) / sizeof(*func_names) - 1) *
                                  sizeof(void *),
               "one pointer per MPI function");
_Static_assert(sizeof(hd) ==
                   (sizeof(handle_names) / sizeof(*handle_names) - 1) *
                       sizeof(void *),
               "one pointer per MPI handle");
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "counts travel as u64");

/* Debian 12's libopenmpi3 (Open MPI 4.1). RTLD_GLOBAL: the plugins Open
 * MPI opens itself (mca_*.so) resolve their symbols in libmpi. */
#define MPI_SONAME "libmpi.so.40"
#define MPI_PACKAGE "libopenmpi3"

/* One message carries at most this: MPI's counts and offsets are int. */
#define PIECE_MAX ((size_t)1 << 30)
/* The tag of the exchanges' point-to-point messages. */
#define TAG 0x6470

/* A rank as the others learn it at start. */
struct rank_info {
    uint64_t piece;
    char host[MPI_MAX_PROCESSOR_NAME];
};

struct dp_comm {
    int rank, size;
    size_t piece; /* the smallest any rank asked for: all cut alike */
    uint64_t sent, messages;
    struct rank_info *ranks; /* [size] */
    /* scratch of the exchanges, [size] each, [2 * size] for requests */
    const char **sp;
    char **rp;
    size_t *sc, *rc;
    uint64_t *u64;
    MPI_Request *req;
    MPI_Status *st;
    int *peer;
    size_t *want;
};

/* 0: MPI never started here; 1: running; 2: finalized (it cannot start
 * again). Only the main thread calls MPI. */
static int state;

/* Everything this file reads from the environment, in these two: whether
 * mpirun started us, and a smaller piece for tests, so a few KiB go
 * through the cutting that only gigabytes need otherwise. */
int dp_comm_launched(void)
{
    const char *s = dp_env_str("OMPI_COMM_WORLD_SIZE");

    return s && *s;
}

int dp_comm_distributed(void)
{
    const char *s = dp_env_str("OMPI_COMM_WORLD_SIZE");
    int one = 0;

    if (!s || !*s)
        return 0;
    if (strcmp(s, "1"))
        return 1;
    /* a malformed value stopped the binary at start (dp_env_check) */
    return !dp_env_bool("DGLPART_TEST_DIST_ONE", &one) && one;
}

static int env_piece(size_t *piece)
{
    int64_t v = (int64_t)PIECE_MAX;
    int rc = dp_env_size("DGLPART_TEST_COMM_PIECE", &v);

    *piece = (size_t)v;
    return rc;
}

size_t dp_comm_piece(size_t bytes, size_t piece, size_t k, size_t *off)
{
    size_t start;

    /* k * piece cannot overflow: k < ceil(bytes / piece) */
    if (!bytes || !piece || k > (bytes - 1) / piece)
        return 0;
    start = k * piece;
    *off = start;
    return bytes - start < piece ? bytes - start : piece;
}

static size_t npieces(size_t bytes, size_t piece)
{
    return bytes ? (bytes - 1) / piece + 1 : 0;
}

static const char *host_of(const struct dp_comm *c, int r)
{
    return c && r >= 0 && r < c->size ? c->ranks[r].host : "?";
}

static void mpi_text(int rc, char *text, size_t cap)
{
    int len = 0;

    if (mpi.MPI_Error_string(rc, text, &len) != MPI_SUCCESS || len <= 0)
        snprintf(text, cap, "MPI error %d", rc);
}

/* "rank 1 of 3 on HOST: MPI_Bcast: MPI_ERR_TRUNCATE: message truncated" */
static int mpi_fail(const struct dp_comm *c, const char *call, int rc)
{
    char text[MPI_MAX_ERROR_STRING];

    mpi_text(rc, text, sizeof(text));
    if (!c)
        return dp_error(DP_ENET, "%s: %s", call, text);
    return dp_error(DP_ENET, "rank %d of %d on %s: %s: %s", c->rank, c->size,
                    host_of(c, c->rank), call, text);
}

/* As mpi_fail, for one message of an exchange: which peer, which way. */
static int peer_fail(const struct dp_comm *c, const char *what,
                     const char *call, int receiving, int peer, int rc)
{
    char text[MPI_MAX_ERROR_STRING];

    mpi_text(rc, text, sizeof(text));
    return dp_error(DP_ENET,
                    "rank %d of %d on %s: %s (%s) %s rank %d on %s: %s",
                    c->rank, c->size, host_of(c, c->rank), call, what,
                    receiving ? "receiving from" : "sending to", peer,
                    host_of(c, peer), text);
}

static int load_mpi(void)
{
    int rc = dp_dynlib_load_global(MPI_SONAME, MPI_PACKAGE, func_names, &mpi);

    return rc ? rc
              : dp_dynlib_load_global(MPI_SONAME, MPI_PACKAGE, handle_names,
                                      &hd);
}

static void comm_free(struct dp_comm *c)
{
    if (!c)
        return;
    free(c->ranks);
    free(c->sp);
    free(c->rp);
    free(c->sc);
    free(c->rc);
    free(c->u64);
    free(c->req);
    free(c->st);
    free(c->peer);
    free(c->want);
    free(c);
}

static int comm_alloc(int rank, int size, struct dp_comm **out)
{
    struct dp_comm *c = dp_calloc(1, sizeof(*c));
    size_t p = (size_t)size;

    if (!c)
        return DP_ENOMEM;
    c->rank = rank;
    c->size = size;
    c->ranks = dp_calloc(p, sizeof(*c->ranks));
    c->sp = dp_calloc(p, sizeof(*c->sp));
    c->rp = dp_calloc(p, sizeof(*c->rp));
    c->sc = dp_calloc(p, sizeof(*c->sc));
    c->rc = dp_calloc(p, sizeof(*c->rc));
    c->u64 = dp_calloc(2 * p, sizeof(*c->u64));
    c->req = dp_calloc(2 * p, sizeof(*c->req));
    c->st = dp_calloc(2 * p, sizeof(*c->st));
    c->peer = dp_calloc(2 * p, sizeof(*c->peer));
    c->want = dp_calloc(2 * p, sizeof(*c->want));
    if (!c->ranks || !c->sp || !c->rp || !c->sc || !c->rc || !c->u64 ||
        !c->req || !c->st || !c->peer || !c->want) {
        comm_free(c);
        return DP_ENOMEM;
    }
    *out = c;
    return 0;
}

int dp_comm_init(struct dp_comm **out)
{
    struct dp_comm *c = NULL;
    struct rank_info me;
    size_t piece;
    int rc, provided = 0, rank = 0, size = 0, len = 0, r;

    if (state)
        return dp_error(DP_EINVAL, "MPI was already started in this process");
    rc = env_piece(&piece);
    if (!rc)
        rc = load_mpi();
    if (rc)
        return rc;
    rc = mpi.MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
        return mpi_fail(NULL, "MPI_Init_thread", rc);
    state = 1;
    /* failures come back as codes, to be reported with the rank's host */
    rc = mpi.MPI_Comm_set_errhandler(hd.world, hd.errors_return);
    if (rc != MPI_SUCCESS)
        return mpi_fail(NULL, "MPI_Comm_set_errhandler", rc);
    if (provided < MPI_THREAD_FUNNELED)
        return dp_error(DP_EUNSUPPORTED,
                        "MPI_Init_thread: MPI gives thread level %d, "
                        "dglpart needs %d (MPI_THREAD_FUNNELED)",
                        provided, MPI_THREAD_FUNNELED);
    rc = mpi.MPI_Comm_rank(hd.world, &rank);
    if (rc == MPI_SUCCESS)
        rc = mpi.MPI_Comm_size(hd.world, &size);
    if (rc != MPI_SUCCESS)
        return mpi_fail(NULL, "MPI_Comm_size", rc);
    if ((rc = comm_alloc(rank, size, &c)))
        return rc;
    memset(&me, 0, sizeof(me));
    me.piece = piece;
    rc = mpi.MPI_Get_processor_name(me.host, &len);
    if (rc != MPI_SUCCESS) {
        rc = mpi_fail(c, "MPI_Get_processor_name", rc);
        goto out;
    }
    rc = mpi.MPI_Allgather(&me, (int)sizeof(me), hd.byte, c->ranks,
                           (int)sizeof(me), hd.byte, hd.world);
    if (rc != MPI_SUCCESS) {
        rc = mpi_fail(c, "MPI_Allgather", rc);
        goto out;
    }
    /* what a peer sent is text to print: end it, whatever it holds; the
     * smallest piece wins, so a rank's odd setting cannot make the ends
     * cut differently */
    c->piece = PIECE_MAX;
    for (r = 0; r < size; r++) {
        c->ranks[r].host[sizeof(c->ranks[r].host) - 1] = '\0';
        if (c->ranks[r].piece >= 1 && c->ranks[r].piece < c->piece)
            c->piece = (size_t)c->ranks[r].piece;
    }
    c->sent += sizeof(me) * (size_t)(size - 1);
    c->messages += (uint64_t)(size - 1);
    *out = c;
    c = NULL;
out:
    comm_free(c);
    return rc;
}

void dp_comm_finish(struct dp_comm *c)
{
    if (!c)
        return;
    if (state == 1) {
        mpi.MPI_Finalize();
        state = 2;
    }
    comm_free(c);
}

void dp_comm_abort(struct dp_comm *c, int code)
{
    (void)c;
    if (state == 1)
        mpi.MPI_Abort(hd.world, code);
    exit(code); /* MPI never started, or MPI_Abort came back */
}

int dp_comm_rank(const struct dp_comm *c)
{
    return c->rank;
}

int dp_comm_size(const struct dp_comm *c)
{
    return c->size;
}

const char *dp_comm_host(const struct dp_comm *c, int r)
{
    return host_of(c, r);
}

uint64_t dp_comm_sent(const struct dp_comm *c)
{
    return c->sent;
}

uint64_t dp_comm_messages(const struct dp_comm *c)
{
    return c->messages;
}

/* Count a collective's share to the other ranks (see dp_comm_sent). */
static void count_sent(struct dp_comm *c, size_t bytes, size_t pieces)
{
    c->sent += (uint64_t)bytes * (uint64_t)(c->size - 1);
    c->messages += (uint64_t)pieces * (uint64_t)(c->size - 1);
}

int dp_comm_barrier(struct dp_comm *c)
{
    int rc = mpi.MPI_Barrier(hd.world);

    return rc == MPI_SUCCESS ? 0 : mpi_fail(c, "MPI_Barrier", rc);
}

int dp_comm_bcast(struct dp_comm *c, void *buf, size_t bytes, int root)
{
    size_t k, off = 0, len;
    int rc;

    if (root < 0 || root >= c->size)
        return dp_error(DP_EINVAL, "broadcast from rank %d of %d", root,
                        c->size);
    for (k = 0; (len = dp_comm_piece(bytes, c->piece, k, &off)); k++) {
        rc =
            mpi.MPI_Bcast((char *)buf + off, (int)len, hd.byte, root, hd.world);
        if (rc != MPI_SUCCESS)
            return mpi_fail(c, "MPI_Bcast", rc);
    }
    if (c->rank == root)
        count_sent(c, bytes, npieces(bytes, c->piece));
    return 0;
}

static int allreduce(struct dp_comm *c, void *v, size_t n, size_t elem,
                     MPI_Datatype type, enum dp_comm_op op)
{
    size_t per = c->piece / elem ? c->piece / elem : 1;
    size_t k, off = 0, len;
    MPI_Op o;
    int rc;

    switch (op) {
    case DP_COMM_SUM:
        o = hd.sum;
        break;
    case DP_COMM_MIN:
        o = hd.min;
        break;
    case DP_COMM_MAX:
        o = hd.max;
        break;
    default:
        return dp_error(DP_EINVAL, "allreduce: unknown operation %d", (int)op);
    }
    for (k = 0; (len = dp_comm_piece(n, per, k, &off)); k++) {
        rc = mpi.MPI_Allreduce(MPI_IN_PLACE, (char *)v + off * elem, (int)len,
                               type, o, hd.world);
        if (rc != MPI_SUCCESS)
            return mpi_fail(c, "MPI_Allreduce", rc);
    }
    count_sent(c, n * elem, npieces(n, per));
    return 0;
}

int dp_comm_allreduce_i64(struct dp_comm *c, int64_t *v, size_t n,
                          enum dp_comm_op op)
{
    return allreduce(c, v, n, sizeof(*v), hd.i64, op);
}

int dp_comm_allreduce_f64(struct dp_comm *c, double *v, size_t n,
                          enum dp_comm_op op)
{
    return allreduce(c, v, n, sizeof(*v), hd.f64, op);
}

/* Every rank sends c->sc[r] bytes from c->sp[r] to each rank r and
 * receives c->rc[r] bytes into c->rp[r] from it. Round k carries piece k
 * of every message, one piece per peer in flight, and both ends cut
 * alike. Point to point, not MPI_Alltoallv: its offsets are int as well,
 * so it would cap a rank's whole buffer at 2 GiB, whatever the pieces. */
static int exchange(struct dp_comm *c, const char *what)
{
    int P = c->size, me = c->rank, i, r, n, nr, rc, got;
    size_t k, off = 0, len;

    for (k = 0;; k++) {
        n = 0;
        /* receives first, and peers in ring order from each rank, so no
         * rank is everyone's first */
        for (i = 1; i < P; i++) {
            r = (me + P - i) % P;
            if (!(len = dp_comm_piece(c->rc[r], c->piece, k, &off)))
                continue;
            rc = mpi.MPI_Irecv(c->rp[r] + off, (int)len, hd.byte, r, TAG,
                               hd.world, &c->req[n]);
            if (rc != MPI_SUCCESS)
                return peer_fail(c, what, "MPI_Irecv", 1, r, rc);
            c->peer[n] = r;
            c->want[n++] = len;
        }
        nr = n;
        for (i = 1; i < P; i++) {
            r = (me + i) % P;
            if (!(len = dp_comm_piece(c->sc[r], c->piece, k, &off)))
                continue;
            rc = mpi.MPI_Isend(c->sp[r] + off, (int)len, hd.byte, r, TAG,
                               hd.world, &c->req[n]);
            if (rc != MPI_SUCCESS)
                return peer_fail(c, what, "MPI_Isend", 0, r, rc);
            c->peer[n++] = r;
            c->sent += len;
            c->messages++;
        }
        if (!n)
            break;
        rc = mpi.MPI_Waitall(n, c->req, c->st);
        if (rc == MPI_ERR_IN_STATUS) {
            for (i = 0; i < n; i++)
                if (c->st[i].MPI_ERROR != MPI_SUCCESS &&
                    c->st[i].MPI_ERROR != MPI_ERR_PENDING)
                    return peer_fail(c, what, "MPI_Waitall", i < nr, c->peer[i],
                                     c->st[i].MPI_ERROR);
        }
        if (rc != MPI_SUCCESS)
            return mpi_fail(c, "MPI_Waitall", rc);
        /* a shorter message than both ends agreed on would leave bytes
         * unwritten (a longer one fails as MPI_ERR_TRUNCATE) */
        for (i = 0; i < nr; i++) {
            rc = mpi.MPI_Get_count(&c->st[i], hd.byte, &got);
            if (rc != MPI_SUCCESS)
                return mpi_fail(c, "MPI_Get_count", rc);
            if (got < 0 || (size_t)got != c->want[i])
                return dp_error(DP_EPROTO,
                                "rank %d of %d on %s: %s: rank %d on %s sent "
                                "%d bytes where %zu were agreed",
                                me, P, host_of(c, me), what, c->peer[i],
                                host_of(c, c->peer[i]), got, c->want[i]);
        }
    }
    if (c->sc[me] != c->rc[me])
        return dp_error(DP_EPROTO,
                        "%s: rank %d sends itself %zu bytes, "
                        "expects %zu",
                        what, me, c->sc[me], c->rc[me]);
    if (c->sc[me] && c->rp[me] != c->sp[me])
        memcpy(c->rp[me], c->sp[me], c->sc[me]);
    return 0;
}

int dp_comm_allgather(struct dp_comm *c, const void *send, size_t bytes,
                      void *recv)
{
    int r, rc;

    if (!bytes)
        return 0;
    /* one piece: MPI's own algorithm (log P steps for small ones) */
    if (bytes <= c->piece) {
        rc = mpi.MPI_Allgather(send, (int)bytes, hd.byte, recv, (int)bytes,
                               hd.byte, hd.world);
        if (rc != MPI_SUCCESS)
            return mpi_fail(c, "MPI_Allgather", rc);
        count_sent(c, bytes, 1);
        return 0;
    }
    for (r = 0; r < c->size; r++) {
        c->sp[r] = send;
        c->sc[r] = c->rc[r] = bytes;
        c->rp[r] = (char *)recv + (size_t)r * bytes;
    }
    return exchange(c, "allgather");
}

/* After the counts: the receive buffer for c->rc[], the exchange, and the
 * results. The counts came from other ranks: their sum is checked. */
static int exchange_into(struct dp_comm *c, const char *what, void **recv,
                         size_t *counts)
{
    size_t total = 0, off = 0;
    char *buf;
    int r, rc;

    for (r = 0; r < c->size; r++) {
        if (c->rc[r] > SIZE_MAX - total)
            return dp_error(DP_ETOOBIG,
                            "%s: rank %d of %d on %s: the counts from the "
                            "other ranks pass 2^64 bytes (rank %d: %zu)",
                            what, c->rank, c->size, host_of(c, c->rank), r,
                            c->rc[r]);
        total += c->rc[r];
    }
    if (!(buf = dp_malloc(total)))
        return DP_ENOMEM;
    for (r = 0; r < c->size; r++) {
        c->rp[r] = buf + off;
        off += c->rc[r];
    }
    if ((rc = exchange(c, what))) {
        free(buf);
        return rc;
    }
    memcpy(counts, c->rc, (size_t)c->size * sizeof(*counts));
    *recv = buf;
    return 0;
}

int dp_comm_allgatherv(struct dp_comm *c, const void *send, size_t bytes,
                       void **recv, size_t *counts)
{
    uint64_t mine = bytes;
    int r, rc;

    rc = mpi.MPI_Allgather(&mine, 1, hd.u64, c->u64, 1, hd.u64, hd.world);
    if (rc != MPI_SUCCESS)
        return mpi_fail(c, "MPI_Allgather", rc);
    count_sent(c, sizeof(mine), 1);
    for (r = 0; r < c->size; r++) {
        c->sp[r] = send;
        c->sc[r] = bytes;
        c->rc[r] = (size_t)c->u64[r];
    }
    return exchange_into(c, "allgatherv", recv, counts);
}

int dp_comm_alltoallv(struct dp_comm *c, const void *send,
                      const size_t *scounts, void **recv, size_t *rcounts)
{
    uint64_t *sc64 = c->u64, *rc64 = c->u64 + c->size;
    size_t off = 0;
    int r, rc;

    for (r = 0; r < c->size; r++) {
        sc64[r] = scounts[r];
        c->sc[r] = scounts[r];
        c->sp[r] = scounts[r] ? (const char *)send + off : NULL;
        off += scounts[r];
    }
    rc = mpi.MPI_Alltoall(sc64, 1, hd.u64, rc64, 1, hd.u64, hd.world);
    if (rc != MPI_SUCCESS)
        return mpi_fail(c, "MPI_Alltoall", rc);
    count_sent(c, sizeof(*sc64), 1);
    for (r = 0; r < c->size; r++)
        c->rc[r] = (size_t)rc64[r];
    return exchange_into(c, "alltoallv", recv, rcounts);
}
