/* Feature gather bandwidth of one loaded part (random rows of a named node
 * feature) next to a plain memcpy of the same number of bytes, the limit.
 *   rt_gather CFG [ROWS] [FEAT]
 * Prints "gather GB/s", "memcpy GB/s" and their ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/runtime.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    struct dp_part_config c;
    struct dp_book b;
    struct dp_part p;
    const struct dp_ndarray *a;
    int64_t rows = argc > 2 ? atoll(argv[2]) : 1000000, i, *ids;
    const char *name = argc > 3 ? argv[3] : "feat";
    uint64_t rb, bytes;
    char *out, *src;
    double t, tg = 1e30, tm = 1e30;
    int rep, rc;

    if (argc < 2) {
        fprintf(stderr, "usage: rt_gather CFG [ROWS] [FEAT]\n");
        return 2;
    }
    if ((rc = dp_config_load(&c, argv[1])) || (rc = dp_book_init(&b, &c)) ||
        (rc = dp_part_load(&p, &c, &b, 0))) {
        fprintf(stderr, "rt_gather: %s\n", dp_errmsg());
        return 1;
    }
    if (!(a = dp_part_feature(&p, 0, name))) {
        fprintf(stderr, "rt_gather: %s\n", dp_errmsg());
        return 1;
    }
    rb = dp_feature_row_bytes(a);
    bytes = (uint64_t)rows * rb;
    ids = dp_malloc_array((size_t)rows, 8);
    out = dp_malloc(bytes);
    src = dp_malloc(bytes);
    if (!ids || !out || !src) {
        fprintf(stderr, "rt_gather: %s\n", dp_errmsg());
        return 1;
    }
    for (i = 0; i < rows; i++)
        ids[i] = p.node_start +
                 (int64_t)(dp_mix64((uint64_t)i) % (uint64_t)p.num_inner);
    memset(src, 1, bytes);
    memset(out, 0, bytes);
    /* touch the mapped feature pages once so both sides read memory */
    dp_part_gather(&p, 0, a, ids, rows, out);
    for (rep = 0; rep < 5; rep++) {
        t = now();
        dp_part_gather(&p, 0, a, ids, rows, out);
        t = now() - t;
        tg = t < tg ? t : tg;
        t = now();
        memcpy(out, src, bytes);
        t = now() - t;
        tm = t < tm ? t : tm;
    }
    printf("rows %lld x %llu bytes: gather %.2f GB/s, memcpy %.2f GB/s, "
           "ratio %.2f\n",
           (long long)rows, (unsigned long long)rb, bytes / tg / 1e9,
           bytes / tm / 1e9, tm / tg);
    free(ids);
    free(out);
    free(src);
    dp_part_release(&p);
    dp_book_release(&b);
    dp_config_release(&c);
    return 0;
}
