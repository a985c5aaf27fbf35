/* Unit tests for core/env.c: the settings table and its accessors, which
 * refuse a malformed value with a message naming the variable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/env.h"
#include "dglpart/error.h"
#include "harness.h"

/* Every entry is complete, named once, and its default parses. */
static void test_table(void)
{
    size_t n, i, j;
    const struct dp_env_var *t = dp_env_table(&n);
    int64_t x;

    CHECK(n > 40);
    for (i = 0; i < n; i++) {
        const struct dp_env_var *v = &t[i];
        int b;

        CHECK(v->name && *v->name && v->arg && *v->arg);
        CHECK(v->meaning && strlen(v->meaning) > 10);
        if (v->use != DP_ENV_OUTSIDE && strncmp(v->name, "DGLPART_", 8))
            TH_FAIL("%s: dglpart's own variable without DGLPART_", v->name);
        if (!strncmp(v->name, "DGLPART_TEST_", 13) && v->use != DP_ENV_TEST)
            TH_FAIL("%s: not marked for tests only", v->name);
        for (j = 0; j < i; j++)
            if (!strcmp(t[j].name, v->name))
                TH_FAIL("%s: twice in the table", v->name);
        CHECK(dp_env_find(v->name) == v);
        /* unset, the accessor gives the table's default */
        unsetenv(v->name);
        x = -7;
        b = -7;
        switch (v->type) {
        case DP_ENV_BOOL:
            CHECK_EQ(dp_env_bool(v->name, &b), 0);
            CHECK_EQ(b, v->def ? !strcmp(v->def, "1") : -7);
            break;
        case DP_ENV_INT:
            CHECK_EQ(dp_env_int(v->name, &x), 0);
            if (v->def)
                CHECK_EQ(x, strtoll(v->def, NULL, 10));
            else
                CHECK_EQ(x, -7);
            CHECK(v->min <= v->max);
            break;
        case DP_ENV_SIZE:
            CHECK_EQ(dp_env_size(v->name, &x), 0);
            CHECK(v->def ? x >= v->min && x <= v->max : x == -7);
            break;
        case DP_ENV_STR:
            if (v->def)
                CHECK_STR(dp_env_str(v->name), v->def);
            else
                CHECK(dp_env_str(v->name) == NULL);
            break;
        }
    }
    CHECK(dp_env_find("DGLPART_NO_SUCH") == NULL);
}

static void test_bool(void)
{
    int on = -1;

    unsetenv("DGLPART_SPILL");
    CHECK_EQ(dp_env_bool("DGLPART_SPILL", &on), 0);
    CHECK_EQ(on, 1);
    setenv("DGLPART_SPILL", "0", 1);
    CHECK_EQ(dp_env_bool("DGLPART_SPILL", &on), 0);
    CHECK_EQ(on, 0);
    setenv("DGLPART_SPILL", "off", 1);
    on = 1;
    CHECK_EQ(dp_env_bool("DGLPART_SPILL", &on), 0);
    CHECK_EQ(on, 0);
    setenv("DGLPART_SPILL", "yes", 1);
    CHECK_EQ(dp_env_bool("DGLPART_SPILL", &on), 0);
    CHECK_EQ(on, 1);
    /* empty is unset */
    setenv("DGLPART_SPILL", "", 1);
    on = 0;
    CHECK_EQ(dp_env_bool("DGLPART_SPILL", &on), 0);
    CHECK_EQ(on, 1);
    /* malformed: refused with its name, the default kept */
    setenv("DGLPART_SPILL", "maybe", 1);
    on = 0;
    CHECK_EQ(dp_env_bool("DGLPART_SPILL", &on), DP_EINVAL);
    CHECK_STR(dp_errmsg(), "DGLPART_SPILL: expected 1 or 0, got 'maybe'");
    CHECK_EQ(on, 1);
    unsetenv("DGLPART_SPILL");
    /* no table default: the caller's stays */
    on = 42;
    unsetenv("DGLPART_PROGRESS");
    CHECK_EQ(dp_env_bool("DGLPART_PROGRESS", &on), 0);
    CHECK_EQ(on, 42);
    setenv("DGLPART_PROGRESS", "2", 1);
    CHECK_EQ(dp_env_bool("DGLPART_PROGRESS", &on), DP_EINVAL);
    CHECK_EQ(on, 42);
    setenv("DGLPART_PROGRESS", "1", 1);
    CHECK_EQ(dp_env_bool("DGLPART_PROGRESS", &on), 0);
    CHECK_EQ(on, 1);
    unsetenv("DGLPART_PROGRESS");
}

static void test_int(void)
{
    int64_t x = 0;

    unsetenv("DGLPART_CONNECT_WAIT");
    CHECK_EQ(dp_env_int("DGLPART_CONNECT_WAIT", &x), 0);
    CHECK_EQ(x, 120);
    setenv("DGLPART_CONNECT_WAIT", "7", 1);
    CHECK_EQ(dp_env_int("DGLPART_CONNECT_WAIT", &x), 0);
    CHECK_EQ(x, 7);
    setenv("DGLPART_CONNECT_WAIT", "7s", 1);
    CHECK_EQ(dp_env_int("DGLPART_CONNECT_WAIT", &x), DP_EINVAL);
    CHECK_STR(dp_errmsg(),
              "DGLPART_CONNECT_WAIT: expected an integer, got '7s'");
    CHECK_EQ(x, 120);
    setenv("DGLPART_CONNECT_WAIT", "86401", 1);
    CHECK_EQ(dp_env_int("DGLPART_CONNECT_WAIT", &x), DP_ERANGE);
    CHECK_STR(dp_errmsg(),
              "DGLPART_CONNECT_WAIT: 86401 out of range [0, 86400]");
    unsetenv("DGLPART_CONNECT_WAIT");
    /* once unchecked (strtol): now a negative delay is refused */
    setenv("DGLPART_RETRY_DELAY_MS", "-5", 1);
    CHECK_EQ(dp_env_int("DGLPART_RETRY_DELAY_MS", &x), DP_ERANGE);
    CHECK_CONTAINS(dp_errmsg(), "DGLPART_RETRY_DELAY_MS: -5 out of range");
    CHECK_EQ(x, 1000);
    unsetenv("DGLPART_RETRY_DELAY_MS");
    x = -1;
    CHECK_EQ(dp_env_int("DGLPART_ML_NODES_PER_PART", &x), 0);
    CHECK_EQ(x, -1);
}

static void test_size(void)
{
    int64_t x = 0;

    unsetenv("DGLPART_EDGE_SPILL");
    CHECK_EQ(dp_env_size("DGLPART_EDGE_SPILL", &x), 0);
    CHECK_EQ(x, (int64_t)4 << 30);
    setenv("DGLPART_EDGE_SPILL", "64M", 1);
    CHECK_EQ(dp_env_size("DGLPART_EDGE_SPILL", &x), 0);
    CHECK_EQ(x, 64 << 20);
    setenv("DGLPART_EDGE_SPILL", "65536", 1);
    CHECK_EQ(dp_env_size("DGLPART_EDGE_SPILL", &x), 0);
    CHECK_EQ(x, 65536);
    setenv("DGLPART_EDGE_SPILL", "4 GB", 1);
    CHECK_EQ(dp_env_size("DGLPART_EDGE_SPILL", &x), DP_EINVAL);
    CHECK_STR(dp_errmsg(), "DGLPART_EDGE_SPILL: expected a size such as 64M "
                           "or 20G, got '4 GB'");
    CHECK_EQ(x, (int64_t)4 << 30);
    unsetenv("DGLPART_EDGE_SPILL");
}

static void test_str(void)
{
    unsetenv("DGLPART_DATA_DIR");
    CHECK_STR(dp_env_str("DGLPART_DATA_DIR"), "dataset");
    setenv("DGLPART_DATA_DIR", "/data", 1);
    CHECK_STR(dp_env_str("DGLPART_DATA_DIR"), "/data");
    setenv("DGLPART_DATA_DIR", "", 1);
    CHECK_STR(dp_env_str("DGLPART_DATA_DIR"), "dataset");
    unsetenv("DGLPART_DATA_DIR");
    setenv("DGLPART_ZIP_INFLATE", "zlib", 1);
    CHECK_STR(dp_env_str("DGLPART_ZIP_INFLATE"), "zlib");
    /* not one of the words: the default (dp_env_check names it) */
    setenv("DGLPART_ZIP_INFLATE", "gzip", 1);
    CHECK_STR(dp_env_str("DGLPART_ZIP_INFLATE"), "isal");
    unsetenv("DGLPART_ZIP_INFLATE");
}

static void test_misuse(void)
{
    int64_t x = 3;
    int b = 3;

    CHECK_EQ(dp_env_int("DGLPART_NO_SUCH", &x), DP_EINVAL);
    CHECK_STR(dp_errmsg(), "DGLPART_NO_SUCH: not in the settings table");
    CHECK_EQ(x, 3);
    CHECK(dp_env_str("DGLPART_NO_SUCH") == NULL);
    CHECK_EQ(dp_env_bool("DGLPART_CONNECT_WAIT", &b), DP_EINVAL);
    CHECK_CONTAINS(dp_errmsg(), "another type");
    CHECK_EQ(b, 3);
}

static void test_check(void)
{
    CHECK_EQ(dp_env_check(), 0);
    /* DGL's and the system's variables are theirs to judge */
    setenv("OMP_NUM_THREADS", "many", 1);
    CHECK_EQ(dp_env_check(), 0);
    unsetenv("OMP_NUM_THREADS");
    setenv("DGLPART_FAULT", "somewhere", 1);
    CHECK_EQ(dp_env_check(), DP_EINVAL);
    CHECK_STR(dp_errmsg(), "DGLPART_FAULT: expected install, exchanged, "
                           "share-publish, share-stop or dist-parts, got "
                           "'somewhere'");
    setenv("DGLPART_FAULT", "install", 1);
    CHECK_EQ(dp_env_check(), 0);
    unsetenv("DGLPART_FAULT");
    setenv("DGLPART_TEST_IDX_MAX", "0", 1);
    CHECK_EQ(dp_env_check(), DP_ERANGE);
    CHECK_CONTAINS(dp_errmsg(), "DGLPART_TEST_IDX_MAX: 0 out of range");
    unsetenv("DGLPART_TEST_IDX_MAX");
    CHECK_EQ(dp_env_check(), 0);
}

/* The printed table: every variable, the test-only ones under their own
 * heading, within 78 columns. */
static void test_print(void)
{
    char *text = NULL, *line, *save = NULL, *tests;
    size_t len = 0, n, i;
    const struct dp_env_var *t = dp_env_table(&n);
    FILE *fp = open_memstream(&text, &len);

    CHECK(fp != NULL);
    if (!fp)
        return;
    dp_env_print(fp);
    fclose(fp);
    tests = strstr(text, "\nFor tests only:\n");
    CHECK(tests != NULL);
    for (i = 0; i < n; i++) {
        char want[80];
        const char *at;

        snprintf(want, sizeof(want), "\n  %s=", t[i].name);
        at = strstr(text, want);
        if (!at)
            TH_FAIL("%s not printed", t[i].name);
        else if (tests && (t[i].use == DP_ENV_TEST) !=
                              (at > tests && at < strstr(tests + 1, "\n\n")))
            TH_FAIL("%s: printed in the wrong group", t[i].name);
    }
    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        if (strlen(line) > 78)
            TH_FAIL("line over 78 columns: '%s'", line);
    free(text);
}

int main(void)
{
    RUN(test_table);
    RUN(test_bool);
    RUN(test_int);
    RUN(test_size);
    RUN(test_str);
    RUN(test_misuse);
    RUN(test_check);
    RUN(test_print);
    return TH_DONE();
}
