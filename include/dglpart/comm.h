/* The ranks of one dglpart run under mpirun (Open MPI), and the few
 * collectives the distributed pipeline needs. libmpi is loaded at run time
 * (dlopen, as libcurl is), so a dglpart that mpirun did not start neither
 * needs nor loads MPI. Sizes are in bytes and may pass 2^31: messages are
 * cut into pieces MPI's int counts take. Every call is collective unless
 * said otherwise, and every rank passes the same sizes where a size is
 * said to be the same on all. A failure is a one-line message naming the
 * rank, its host, the operation and MPI's own text; after one the ranks
 * no longer agree where they are, and the only call left is
 * dp_comm_abort. */
#ifndef DGLPART_COMM_H
#define DGLPART_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "dglpart/ids.h"

struct dp_comm;

/* Whether mpirun started this process (OMPI_COMM_WORLD_SIZE is set). Not
 * collective; loads nothing. */
int dp_comm_launched(void);
/* Whether to run distributed: launched with more than one rank. One rank
 * runs the one-process path, which needs half the memory (unless
 * DGLPART_TEST_DIST_ONE=1, for benchmarks and tests of the distributed
 * path on one rank). */
int dp_comm_distributed(void);

/* Load libmpi (libmpi.so.40; a missing one is named with its Debian
 * package, libopenmpi3), initialise MPI and gather every rank's host
 * name. Once per process (MPI cannot start again). *c owned by the
 * caller (dp_comm_finish). */
int dp_comm_init(struct dp_comm **c);
/* MPI_Finalize and free c; NULL is fine. */
void dp_comm_finish(struct dp_comm *c);
/* Stop every rank now (MPI_Abort): for a failure only some ranks saw.
 * c may be NULL after a failed dp_comm_init. Does not return. */
void dp_comm_abort(struct dp_comm *c, int code);

/* Not collective. */
int dp_comm_rank(const struct dp_comm *c);
int dp_comm_size(const struct dp_comm *c);
/* The host name of rank r (borrowed). */
const char *dp_comm_host(const struct dp_comm *c, int r);
/* What this rank has handed MPI for other ranks so far, counted as if
 * sent to each directly (MPI's algorithms may route it otherwise): bytes,
 * and messages, one per piece per peer. With the two a cost model has
 * its bandwidth and its latency term. */
uint64_t dp_comm_sent(const struct dp_comm *c);
uint64_t dp_comm_messages(const struct dp_comm *c);

/* How every collective cuts a message of bytes into pieces of at most
 * piece (> 0) bytes: piece k's length, its offset in *off; 0 (and *off
 * untouched) past the end. Both ends cut alike, so each knows what the
 * other sends in every round. Not collective; for the unit tests. */
size_t dp_comm_piece(size_t bytes, size_t piece, size_t k, size_t *off);

enum dp_comm_op { DP_COMM_SUM, DP_COMM_MIN, DP_COMM_MAX };

int dp_comm_barrier(struct dp_comm *c);
/* bytes of buf from root to every rank. */
int dp_comm_bcast(struct dp_comm *c, void *buf, size_t bytes, int root);
/* Element-wise over ranks, in place: v[n] on every rank. */
int dp_comm_allreduce_i64(struct dp_comm *c, int64_t *v, size_t n,
                          enum dp_comm_op op);
int dp_comm_allreduce_f64(struct dp_comm *c, double *v, size_t n,
                          enum dp_comm_op op);
/* bytes from every rank, the same on all: recv[P * bytes] in rank order
 * (send and recv do not overlap). */
int dp_comm_allgather(struct dp_comm *c, const void *send, size_t bytes,
                      void *recv);
/* Each rank's own number of bytes: *recv (malloc'd, caller frees) gets
 * them in rank order, counts[P] how many came from each. */
int dp_comm_allgatherv(struct dp_comm *c, const void *send, size_t bytes,
                       void **recv, size_t *counts);
/* Personalised exchange: send holds scounts[r] bytes for rank r, one after
 * the other in rank order; *recv (malloc'd, caller frees) gets what every
 * rank sent this one, in rank order, rcounts[P] bytes from each. */
int dp_comm_alltoallv(struct dp_comm *c, const void *send,
                      const size_t *scounts, void **recv, size_t *rcounts);

/* ---- built on the above (core/comm_route.c) ---- */

/* A value a peer sent outside what it must be: one line on stderr naming
 * this rank, what and the range, then every rank stops (dp_comm_abort).
 * Nothing a peer sends indexes memory before it is checked. */
void dp_comm_bad(struct dp_comm *c, const char *what, int64_t x, int64_t lo,
                 int64_t hi) __attribute__((noreturn));
/* x in [lo, hi), else dp_comm_bad. */
static inline void dp_comm_check(struct dp_comm *c, const char *what, int64_t x,
                                 int64_t lo, int64_t hi)
{
    if (x < lo || x >= hi)
        dp_comm_bad(c, what, x, lo, hi);
}

/* Items made row by row and sent to their ranks in rounds: no rank holds
 * more than about DP_COMM_ROUND_BYTES of them to send at once, beside what it
 * receives (made exactly, from every rank's counts). emit(arg, row, b) is
 * called for each row in [0, nrows) twice a round (once counting, once
 * filling) and must make the same items both times: for each, it calls
 * dp_comm_batch_put(b, rank) and fills the slot returned, when not NULL.
 * rowpos[nrows + 1] (ascending) weighs the rows, to cut the rounds. *out
 * (caller frees) gets the *nout items sent here, in rank order, then each
 * sender's row order. */
#define DP_COMM_ROUND_BYTES ((size_t)32 << 20)
struct dp_comm_batch;
typedef void (*dp_comm_emit_fn)(void *arg, int64_t row,
                                struct dp_comm_batch *b);
void *dp_comm_batch_put(struct dp_comm_batch *b, int to);
int dp_comm_route_rows(struct dp_comm *c, size_t width, int64_t nrows,
                       const int64_t *rowpos, dp_comm_emit_fn emit, void *arg,
                       void **out, int64_t *nout);
/* The same rounds with nothing gathered: take(targ, from, items, n) gets
 * each round's items from each rank in turn (rank order, each sender's
 * row order), to use before the next round. It cannot fail but through
 * dp_comm_bad: every rank runs every round. */
typedef void (*dp_comm_take_fn)(void *arg, int from, const void *items,
                                int64_t n);
int dp_comm_route_rows_each(struct dp_comm *c, size_t width, int64_t nrows,
                            const int64_t *rowpos, dp_comm_emit_fn emit,
                            void *arg, dp_comm_take_fn take, void *targ);

/* ---- built on the above (core/comm_fs.c) ---- */

/* Every rank's outcome of a step: 0 when all succeeded, else the first
 * failing rank's code, with "rank R on HOST: its message" on every rank
 * (just the message with one rank). */
int dp_comm_agree(struct dp_comm *c, int rc);

/* Which ranks share folder dir (made when missing): *first gets the
 * lowest rank that sees this rank's files there, itself if none. A
 * folder that cannot be written is an error naming it and the rank. */
int dp_comm_shared_dir(struct dp_comm *c, const char *dir, int *first);

/* The end of a run: rank 0 reports rc's message (every rank has it, from
 * dp_comm_agree) before any rank leaves, the others stay silent; then MPI
 * is finished. Returns rc. */
int dp_comm_exit(struct dp_comm *c, int rc);

#endif
