/* Two halves of one job at once, falling back to one thread. */
#include <pthread.h>

#include "dglpart/env.h"
#include "dglpart/thread.h"

/* The one binary search: the first v of [v0, v1) with at(ctx, v) >= x. */
static int64_t first_at(int64_t (*at)(const void *ctx, int64_t v),
                        const void *ctx, int64_t v0, int64_t v1, int64_t x)
{
    while (v0 < v1) {
        int64_t mid = v0 + (v1 - v0) / 2;

        if (at(ctx, mid) < x)
            v0 = mid + 1;
        else
            v1 = mid;
    }
    return v0;
}

static int64_t at_i64(const void *ip, int64_t v)
{
    return ((const int64_t *)ip)[v];
}

int64_t dp_first_row_at(const int64_t *ip, int64_t v0, int64_t v1, int64_t x)
{
    return first_at(at_i64, ip, v0, v1, x);
}

int64_t dp_half_by(int64_t (*at)(const void *ctx, int64_t v), const void *ctx,
                   int64_t v0, int64_t v1)
{
    return first_at(at, ctx, v0, v1,
                    at(ctx, v0) + (at(ctx, v1) - at(ctx, v0)) / 2);
}

int64_t dp_half_rows(const int64_t *ip, int64_t v0, int64_t v1)
{
    return dp_half_by(at_i64, ip, v0, v1);
}

void dp_run_pair(void *(*fn)(void *), void *a, void *b, int two)
{
    int one = 0;
    pthread_t tid;

    /* the test knob shows a result does not depend on the threads */
    dp_env_bool("DGLPART_TEST_ONE_THREAD", &one);
    if (one)
        two = 0;
    if (two && pthread_create(&tid, NULL, fn, b) == 0) {
        fn(a);
        pthread_join(tid, NULL);
        return;
    }
    fn(a);
    fn(b);
}
