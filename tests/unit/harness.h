/* A tiny unit-test harness: TEST(name) functions, CHECK macros that print
 * file, line and both values, and a summary line the runner adds up. */
#ifndef DGLPART_HARNESS_H
#define DGLPART_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int th_passed, th_failed, th_case_failed;
static const char *th_case;

#define TH_FAIL(...)                                                           \
    do {                                                                       \
        fprintf(stderr, "FAIL %s: %s:%d: ", th_case, __FILE__, __LINE__);      \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
        th_case_failed = 1;                                                    \
    } while (0)

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond))                                                           \
            TH_FAIL("%s", #cond);                                              \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        int64_t th_a = (int64_t)(a), th_b = (int64_t)(b);                      \
        if (th_a != th_b)                                                      \
            TH_FAIL("%s == %s: %" PRId64 " != %" PRId64, #a, #b, th_a, th_b);  \
    } while (0)

#define CHECK_STR(a, b)                                                        \
    do {                                                                       \
        const char *th_a = (a), *th_b = (b);                                   \
        if (!th_a || !th_b || strcmp(th_a, th_b))                              \
            TH_FAIL("%s == %s: '%s' != '%s'", #a, #b, th_a ? th_a : "(null)",  \
                    th_b ? th_b : "(null)");                                   \
    } while (0)

/* Passes when haystack contains needle. */
#define CHECK_CONTAINS(hay, needle)                                            \
    do {                                                                       \
        const char *th_h = (hay), *th_n = (needle);                            \
        if (!th_h || !strstr(th_h, th_n))                                      \
            TH_FAIL("'%s' does not contain '%s'", th_h ? th_h : "(null)",      \
                    th_n);                                                     \
    } while (0)

#define RUN(fn)                                                                \
    do {                                                                       \
        th_case = #fn;                                                         \
        th_case_failed = 0;                                                    \
        fn();                                                                  \
        if (th_case_failed)                                                    \
            th_failed++;                                                       \
        else                                                                   \
            th_passed++;                                                       \
    } while (0)

/* Last line of every unit binary; tests/run.sh adds these up. */
#define TH_DONE()                                                              \
    (printf("%s: %d passed, %d failed\n", __FILE__, th_passed, th_failed),     \
     th_failed ? 1 : 0)

#endif
