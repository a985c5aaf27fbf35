/* The one threading shape dglpart uses for its two cores. */
#ifndef DGLPART_THREAD_H
#define DGLPART_THREAD_H

#include <stdint.h>

/* fn(a) on this thread and fn(b) on a second one; both are done on return.
 * With two == 0, or when no thread can start, one after the other. */
void dp_run_pair(void *(*fn)(void *), void *a, void *b, int two);

/* The first row of [v0, v1) whose offset ip[] (ascending) is at least x;
 * v1 when none is. */
int64_t dp_first_row_at(const int64_t *ip, int64_t v0, int64_t v1, int64_t x);
/* Where to split rows [v0, v1) of offsets ip for the pair: the first row
 * whose offset reaches half the entries of the range, so both halves hold
 * about as many entries however they are spread. */
int64_t dp_half_rows(const int64_t *ip, int64_t v0, int64_t v1);
/* The same split where the offsets are read through at(ctx, v): offsets
 * stored otherwise (compressed lists' bytes, a graph of either kind). */
int64_t dp_half_by(int64_t (*at)(const void *ctx, int64_t v), const void *ctx,
                   int64_t v0, int64_t v1);

#endif
