/* Unit tests for core/: buffers, logging, number parsing, npy, atomic files,
 * sha256, threads, run-time loaded libraries, scratch-file arrays, the parts
 * of the MPI layer that need no mpirun. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/comm.h"
#include "dglpart/dynlib.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/memory.h"
#include "dglpart/npy.h"
#include "dglpart/parse.h"
#include "dglpart/progress.h"
#include "dglpart/run_command.h"
#include "dglpart/thread.h"
#include "harness.h"

static char tmpdir[] = "/tmp/dglpart-unit.XXXXXX";

static void test_buf_cap(void)
{
    struct dp_buf b;

    dp_buf_init(&b, 10);
    CHECK_EQ(dp_buf_adds(&b, "hello"), 0);
    CHECK_EQ(dp_buf_addf(&b, "%d", 1234), 0);
    CHECK_STR(b.data, "hello1234");
    CHECK_EQ(dp_buf_adds(&b, "xy"), DP_ETOOBIG);
    CHECK_EQ(b.len, 9);
    CHECK_CONTAINS(dp_errmsg(), "limit of 10 bytes");
    dp_buf_release(&b);
}

/* Send stderr to a temporary file; *saved keeps the real one. NULL when
 * that fails. */
static FILE *stderr_to_file(int *saved)
{
    FILE *f = tmpfile();

    fflush(stderr);
    *saved = f ? dup(2) : -1;
    if (f && (*saved < 0 || dup2(fileno(f), 2) < 0)) {
        if (*saved >= 0)
            close(*saved);
        fclose(f);
        f = NULL;
    }
    if (!f)
        TH_FAIL("cannot send stderr to a file");
    return f;
}

/* Put stderr back; out gets what was written to it meanwhile. */
static void stderr_back(FILE *f, int saved, char *out, size_t n)
{
    size_t got;

    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    got = fread(out, 1, n - 1, f);
    out[got] = '\0';
    fclose(f);
}

/* A message may wrap the last one, given as an argument or as the tail of
 * dp_error_prefix; dp_report prints it once and clears it. */
static void test_error_wrap(void)
{
    char out[512];
    FILE *f;
    int fd;

    dp_error(DP_ENOENT, "no feature '%s' in part %d of the config", "feat", 0);
    CHECK_EQ(
        dp_error(DP_EFORMAT, "'%s': %s", "part0/node_feat.dgl", dp_errmsg()),
        DP_EFORMAT);
    CHECK_STR(dp_errmsg(), "'part0/node_feat.dgl': no feature 'feat' in "
                           "part 0 of the config");
    CHECK_EQ(dp_error_prefix(DP_EIO, "loading part %d", 0), DP_EIO);
    CHECK_STR(dp_errmsg(), "loading part 0: 'part0/node_feat.dgl': no "
                           "feature 'feat' in part 0 of the config");
    if (!(f = stderr_to_file(&fd)))
        return;
    dp_report(DP_EIO);
    stderr_back(f, fd, out, sizeof(out));
    CHECK_STR(out, "dglpart: loading part 0: 'part0/node_feat.dgl': no "
                   "feature 'feat' in part 0 of the config\n");
    CHECK_STR(dp_errmsg(), "");
    /* nothing left to wrap: the code's own text */
    dp_error_prefix(DP_ENOMEM, "reading '%s'", "x");
    CHECK_STR(dp_errmsg(), "reading 'x': out of memory");
}

/* The line a terminal shows after bytes of \r, ESC [ K and text (up to the
 * first newline); NULL for an escape it does not know. */
static const char *term_line(const char *bytes, char *line, size_t n)
{
    size_t col = 0, len = 0;

    for (; *bytes && *bytes != '\n'; bytes++) {
        if (*bytes == '\r') {
            col = 0;
        } else if (*bytes == '\033') {
            if (strncmp(bytes, "\033[K", 3))
                return NULL;
            len = col;
            bytes += 2;
        } else if (col + 1 < n) {
            line[col++] = *bytes;
            if (col > len)
                len = col;
        }
    }
    line[len] = '\0';
    return line;
}

static int ends_with(const char *s, const char *end)
{
    size_t n = s ? strlen(s) : 0, m = strlen(end);

    return n >= m && !strcmp(s + n - m, end);
}

/* DGLPART_PROGRESS=1 draws on a file too: a bar redrawn shorter (the final
 * draw drops "ETA ...") and a ticker's last line show nothing of the longer
 * draws before them on a terminal. */
static void test_progress_redraw(void)
{
    char bytes[4096], line[512];
    struct dp_progress p;
    struct dp_ticker t;
    const char *shown;
    FILE *f;
    int fd;

    setenv("DGLPART_PROGRESS", "1", 1);
    if (!(f = stderr_to_file(&fd)))
        goto out;
    dp_progress_start(&p, "ddi", 100 << 20, 1);
    p.start -= 1000; /* a slow start: a long ETA */
    dp_progress_update(&p, 1 << 20);
    p.last_draw = 0;
    dp_progress_update(&p, 50 << 20);
    dp_progress_end(&p);
    stderr_back(f, fd, bytes, sizeof(bytes));
    CHECK_CONTAINS(bytes, " ETA ");
    shown = term_line(bytes, line, sizeof(line));
    /* the final draw: "ddi [###...]  50% 50.0 MiB/100.0 MiB 51.2 KiB/s" */
    CHECK_CONTAINS(shown, "ddi [############............]  50% 50.0 MiB/");
    if (!ends_with(shown, "/s"))
        TH_FAIL("the terminal shows '%s'", shown ? shown : "(an escape)");

    if (!(f = stderr_to_file(&fd)))
        goto out;
    dp_ticker_start(&t, "METIS");
    dp_ticker_stop(&t);
    stderr_back(f, fd, bytes, sizeof(bytes));
    CHECK_CONTAINS(bytes, " resident");
    shown = term_line(bytes, line, sizeof(line));
    if (!shown || strncmp(shown, "METIS: done in ", 15) ||
        !ends_with(shown, " s"))
        TH_FAIL("the terminal shows '%s'", shown ? shown : "(an escape)");
out:
    unsetenv("DGLPART_PROGRESS");
}

static void test_mul_overflow(void)
{
    size_t out = 7;

    CHECK_EQ(dp_mul_size((size_t)1 << 40, (size_t)1 << 40, &out), DP_ETOOBIG);
    CHECK_EQ(out, 7);
    CHECK_EQ(dp_mul_size(3, 4, &out), 0);
    CHECK_EQ(out, 12);
}

/* DP_ALLOC_GROW: grows only when full, keeps the items, refuses an
 * overflowing size and then leaves the array as it was. */
static void test_alloc_grow(void)
{
    int64_t *v = NULL, *keep;
    size_t alloc = 0, i, before;
    char *p;

    for (i = 0; i < 1000; i++) {
        CHECK_EQ(DP_ALLOC_GROW(v, i + 1, alloc), 0);
        v[i] = (int64_t)i;
    }
    CHECK(alloc >= 1000);
    CHECK_EQ(v[999], 999);
    keep = v;
    before = alloc;
    CHECK_EQ(DP_ALLOC_GROW(v, alloc, alloc), 0);
    CHECK(v == keep && alloc == before);
    CHECK_EQ(DP_ALLOC_GROW(v, SIZE_MAX / 4, alloc), DP_ETOOBIG);
    CHECK(v == keep && alloc == before);
    CHECK_EQ(v[500], 500);
    free(v);
    CHECK(dp_realloc_array(NULL, SIZE_MAX / 2, 4) == NULL);
    p = dp_realloc_array(NULL, 3, 4);
    CHECK(p != NULL);
    free(p);
}

/* The int64 vector keeps its items in order through growth, and a
 * released one is empty and can be used again. */
static void test_i64vec(void)
{
    struct dp_i64vec a = { NULL, 0, 0 };
    int64_t i, sum = 0;

    for (i = 0; i < 100000; i++)
        CHECK_EQ(dp_i64vec_push(&a, i * 3 - 7), 0);
    CHECK_EQ(a.n, 100000);
    CHECK(a.alloc >= a.n);
    for (i = 0; i < (int64_t)a.n; i++)
        sum += a.v[i] != i * 3 - 7;
    CHECK_EQ(sum, 0);
    CHECK_EQ(a.v[99999], 99999 * 3 - 7);
    dp_i64vec_release(&a);
    CHECK(a.v == NULL && a.n == 0 && a.alloc == 0);
    CHECK_EQ(dp_i64vec_push(&a, INT64_MIN), 0);
    CHECK_EQ(a.n, 1);
    CHECK_EQ(a.v[0], INT64_MIN);
    dp_i64vec_release(&a);
    dp_i64vec_release(&a); /* twice is harmless */
    /* the policy DP_ALLOC_GROW follows: half again, never below nr */
    CHECK_EQ(dp_alloc_nr(0, 1), 24);
    CHECK_EQ(dp_alloc_nr(1000, 1001), 1524);
    CHECK_EQ(dp_alloc_nr(10, 5000), 5000);
    CHECK(dp_alloc_nr(SIZE_MAX / 2, SIZE_MAX / 2 + 1) == SIZE_MAX / 2 + 1);
}

/* dp_log: the command's name first, and only up to the -v level. */
static void test_log(void)
{
    char buf[256];
    FILE *f = tmpfile();
    int saved = dup(2);
    size_t n;

    CHECK(f != NULL && saved >= 0);
    if (!f || saved < 0)
        return;
    fflush(stderr);
    dup2(fileno(f), 2);
    dp_set_progname("dglpart test");
    dp_verbose = 1;
    dp_log(DP_LOG_INFO, "info %d", 1);
    dp_log(DP_LOG_V, "v %d", 2);
    dp_log(DP_LOG_VV, "vv %d", 3);
    dp_verbose = 2;
    dp_log(DP_LOG_VV, "vv %s", "now");
    dp_verbose = 0;
    dp_log(DP_LOG_V, "v again");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    dp_set_progname("dglpart");
    rewind(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    CHECK_STR(buf, "dglpart test: info 1\ndglpart test: v 2\n"
                   "dglpart test: vv now\n");
}

static void test_parse(void)
{
    int64_t v = -1;
    int iv;
    double d;
    int64_t *list = NULL;
    int n = 0;

    CHECK_EQ(dp_parse_i64("--num_parts", "42", 1, 100, &v), 0);
    CHECK_EQ(v, 42);
    CHECK_EQ(dp_parse_i64("--num_parts", "4x", 1, 100, &v), DP_EINVAL);
    CHECK_CONTAINS(dp_errmsg(), "--num_parts: expected an integer, got '4x'");
    CHECK_EQ(dp_parse_int("--num_parts", "0", 1, 100, &iv), DP_ERANGE);
    CHECK_EQ(dp_parse_i64("n", "99999999999999999999", 0, INT64_MAX, &v),
             DP_ERANGE);
    CHECK_EQ(dp_parse_double("--imbalance", "1.03", 1, 10, &d), 0);
    CHECK(d > 1.029 && d < 1.031);
    CHECK_EQ(dp_parse_double("--imbalance", "nan", 1, 10, &d), DP_EINVAL);
    CHECK_EQ(dp_parse_size("--mem_limit", "64M", 1, INT64_MAX, &v), 0);
    CHECK_EQ(v, 64 << 20);
    CHECK_EQ(dp_parse_size("--mem_limit", "20g", 1, INT64_MAX, &v), 0);
    CHECK_EQ(v, (int64_t)20 << 30);
    CHECK_EQ(dp_parse_size("--mem_limit", "3KiB", 1, INT64_MAX, &v), 0);
    CHECK_EQ(v, 3072);
    CHECK_EQ(dp_parse_size("--mem_limit", "4096", 1, INT64_MAX, &v), 0);
    CHECK_EQ(v, 4096);
    CHECK_EQ(dp_parse_size("--mem_limit", "2TB", 1, INT64_MAX, &v), 0);
    CHECK_EQ(v, (int64_t)2 << 40);
    CHECK_EQ(dp_parse_size("--mem_limit", "64Q", 1, INT64_MAX, &v), DP_EINVAL);
    CHECK_CONTAINS(dp_errmsg(),
                   "expected a size such as 64M or 20G, got '64Q'");
    CHECK_EQ(dp_parse_size("--mem_limit", "-1M", 1, INT64_MAX, &v), DP_EINVAL);
    CHECK_EQ(dp_parse_size("--mem_limit", "", 1, INT64_MAX, &v), DP_EINVAL);
    CHECK_EQ(dp_parse_size("--mem_limit", "0", 1, INT64_MAX, &v), DP_ERANGE);
    CHECK_EQ(dp_parse_size("--mem_limit", "99999999T", 1, INT64_MAX, &v),
             DP_ERANGE);
    CHECK_EQ(dp_parse_i64_list("--fanouts", "25,10,-1", -1, 1000, &list, &n),
             0);
    CHECK_EQ(n, 3);
    if (n == 3) {
        CHECK_EQ(list[0], 25);
        CHECK_EQ(list[2], -1);
    }
    free(list);
    CHECK_EQ(dp_parse_i64_list("--fanouts", "25,,10", -1, 1000, &list, &n),
             DP_EINVAL);
}

static void test_npy_roundtrip(void)
{
    char *path = dp_path_join(tmpdir, "a.npy");
    int64_t shape[2] = { 3, 2 }, got;
    float data[6] = { 1, 2, 3, 4, 5, 6 };
    enum dp_dtype f32 = DP_F32, i64 = DP_I64;
    struct dp_npy a;

    CHECK_EQ(dp_npy_write(path, DP_F32, 2, shape, data), 0);
    CHECK_EQ(dp_npy_open(&a, path), 0);
    CHECK_EQ(a.h.ndim, 2);
    CHECK_EQ(a.h.shape[0], 3);
    CHECK_EQ(a.h.shape[1], 2);
    CHECK_EQ(a.h.data_offset % 64, 0);
    CHECK(((const float *)a.data)[5] == 6.0f);
    CHECK_EQ(dp_npy_expect(&a, path, 1, &f32, 2, shape), 0);
    CHECK_EQ(dp_npy_expect(&a, path, 1, &i64, 1, shape), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "expected int64 [3], found float32 [3, 2]");
    dp_npy_release(&a);
    got = 0;
    (void)got;
    free(path);
}

/* One reader of typed elements for every stage, float16 included. */
static void test_dtype_get(void)
{
    unsigned char half[2] = { 0x00, 0xc1 }; /* -2.5 */
    int16_t i16 = -7;
    double f64 = 3.5;

    CHECK(dp_dtype_get_f64(DP_F16, half) == -2.5);
    CHECK(dp_dtype_get_f64(DP_I16, &i16) == -7.0);
    CHECK(dp_dtype_get_f64(DP_F64, &f64) == 3.5);
    CHECK_EQ(dp_dtype_get_i64(DP_F64, &f64), 3);
    CHECK_STR(dp_file_type_name(0120777), "a symbolic link");
    CHECK_STR(dp_file_type_name(0100644), "a regular file");
    CHECK_STR(dp_file_type_name(0), "a file of an unknown type");
}

static void test_npy_unknown_rows(void)
{
    char *path = dp_path_join(tmpdir, "b.npy");
    int64_t shape[1] = { -1 }, vals[5] = { 5, 4, 3, 2, 1 };
    struct dp_npy_writer w;
    struct dp_npy a;

    CHECK_EQ(dp_npy_writer_open(&w, path, DP_I64, 1, shape), 0);
    CHECK_EQ(dp_npy_writer_write(&w, vals, 2), 0);
    CHECK_EQ(dp_npy_writer_write(&w, vals + 2, 3), 0);
    CHECK(!dp_exists(path));
    CHECK_EQ(dp_npy_writer_commit(&w), 0);
    CHECK_EQ(dp_npy_open(&a, path), 0);
    CHECK_EQ(a.h.shape[0], 5);
    CHECK_EQ(dp_npy_get_i64(&a, 4), 1);
    dp_npy_release(&a);
    free(path);
}

static void test_npy_bad(void)
{
    char *path = dp_path_join(tmpdir, "c.npy");
    struct dp_npy a;
    const char *big = "\x93NUMPY\x01\x00\x46\x00{'descr': '>i8', "
                      "'fortran_order': False, 'shape': (1,), }            \n"
                      "\0\0\0\0\0\0\0\1";

    CHECK_EQ(dp_write_file(path, "hello", 5), 0);
    CHECK_EQ(dp_npy_open(&a, path), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "not an .npy file");
    CHECK_EQ(dp_write_file(path, big, 10 + 0x46 + 8), 0);
    CHECK_EQ(dp_npy_open(&a, path), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "unsupported dtype '>i8'");
    free(path);
}

static void test_afile(void)
{
    char *path = dp_path_join(tmpdir, "out.txt"), *text = NULL;
    struct dp_afile af;
    size_t len;

    CHECK_EQ(dp_afile_open(&af, path), 0);
    CHECK_EQ(dp_afile_write(&af, "abc", 3), 0);
    CHECK(!dp_exists(path));
    dp_afile_abort(&af);
    CHECK(!dp_exists(path));
    CHECK_EQ(dp_write_file(path, "abc", 3), 0);
    CHECK_EQ(dp_read_file(path, 100, &text, &len), 0);
    CHECK_EQ(len, 3);
    CHECK_STR(text, "abc");
    free(text);
    CHECK_EQ(dp_read_file(path, 2, &text, &len), DP_ETOOBIG);
    free(path);
}

/* Large files: whole chunks may go around the page cache (O_DIRECT), a
 * header is patched after the fact, the tail is unaligned; the bytes on
 * disk must be exactly what was written, with and without direct I/O. */
static void large_roundtrip(const char *name, const char *direct_env)
{
    char *path = dp_path_join(tmpdir, name), *back = NULL;
    size_t n = (size_t)21 << 20, i, len;
    unsigned char *src = malloc(n);
    struct dp_afile af;

    if (direct_env)
        setenv("DGLPART_DIRECT_IO", direct_env, 1);
    for (i = 0; i < n; i++)
        src[i] = (unsigned char)(i * 131 + i / 4099);
    CHECK_EQ(dp_afile_open_large(&af, path), 0);
    /* odd-sized pieces, so chunks fill across calls */
    for (i = 0; i < n;) {
        size_t k = n - i < 777777 ? n - i : 777777;

        CHECK_EQ(dp_afile_write(&af, src + i, k), 0);
        i += k;
    }
    memcpy(src + 5, "HEADER", 6);
    CHECK_EQ(dp_afile_pwrite(&af, 5, "HEADER", 6), 0);
    memcpy(src + n - 3, "END", 3);
    CHECK_EQ(dp_afile_pwrite(&af, n - 3, "END", 3), 0);
    CHECK_EQ(dp_afile_pwrite(&af, n - 2, "xyz", 3), DP_EINVAL);
    CHECK_EQ(dp_afile_commit(&af), 0);
    CHECK_EQ(dp_read_file(path, n + 1, &back, &len), 0);
    CHECK_EQ(len, n);
    CHECK(back && !memcmp(back, src, n));
    unsetenv("DGLPART_DIRECT_IO");
    free(back);
    free(src);
    free(path);
}

/* A chunk written behind the caller fails (past RLIMIT_FSIZE here): a
 * later call reports it, naming the file, and nothing is left behind. */
static void large_fails(const char *name, const char *direct_env)
{
    char *path = dp_path_join(tmpdir, name), *tmp = NULL;
    size_t n = (size_t)1 << 20, i;
    unsigned char *src = calloc(1, n);
    struct dp_afile af;
    struct rlimit old, lim;
    int rc = 0;

    if (direct_env)
        setenv("DGLPART_DIRECT_IO", direct_env, 1);
    CHECK_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)6 << 20;
    signal(SIGXFSZ, SIG_IGN);
    CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    CHECK_EQ(dp_afile_open_large(&af, path), 0);
    tmp = dp_strdup(af.tmp);
    for (i = 0; i < 32 && !rc; i++)
        rc = dp_afile_write(&af, src, n);
    CHECK_EQ(rc, DP_EIO);
    CHECK(i < 32);
    CHECK(strstr(dp_errmsg(), "cannot write") && strstr(dp_errmsg(), name));
    CHECK_EQ(dp_afile_commit(&af), DP_EIO);
    CHECK(!dp_exists(path) && tmp && !dp_exists(tmp));
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    unsetenv("DGLPART_DIRECT_IO");
    free(tmp);
    free(src);
    free(path);
}

static void test_afile_large(void)
{
    large_roundtrip("large-direct.bin", NULL);
    large_roundtrip("large-buffered.bin", "0");
    large_fails("over-direct.bin", NULL);
    large_fails("over-buffered.bin", "0");
}

/* An npy file filled by slices out of order from two threads, pieces
 * page-aligned or not, with and without direct I/O: dp_npy_open reads
 * back every item, and a missing slice fails the commit. */
struct slices {
    struct dp_npy_writer *w;
    int64_t n;
    int odd; /* slices 1, 3, 5... else 0, 2, 4... */
    int rc;
};

#define SLICE_ITEMS 300007

static void *write_slices(void *arg)
{
    struct slices *s = arg;
    int64_t *buf = NULL, a, i;

    if (posix_memalign((void **)&buf, 4096, 2 * SLICE_ITEMS * sizeof(*buf)))
        return NULL;
    for (a = (int64_t)s->odd * SLICE_ITEMS; !s->rc && a < s->n;
         a += 2 * SLICE_ITEMS) {
        int64_t m = s->n - a < SLICE_ITEMS ? s->n - a : SLICE_ITEMS;
        /* a piece up to the first file page, then the rest at once */
        int64_t head = (4096 - (128 + a * 8) % 4096) % 4096 / 8;

        if (head > m)
            head = m;
        for (i = 0; i < m; i++)
            buf[i] = (a + i) * 7 - 3;
        s->rc = dp_npy_writer_pwrite(s->w, (uint64_t)a, buf, (uint64_t)head);
        if (!s->rc && m > head)
            s->rc = dp_npy_writer_pwrite(s->w, (uint64_t)(a + head), buf + head,
                                         (uint64_t)(m - head));
    }
    free(buf);
    return NULL;
}

static void sliced_roundtrip(const char *name, const char *direct_env)
{
    char *path = dp_path_join(tmpdir, name);
    int64_t n = 5 * SLICE_ITEMS + 1234, i, bad = 0;
    struct dp_npy_writer w;
    struct slices s[2] = { { &w, n, 0, 0 }, { &w, n, 1, 0 } };
    struct dp_npy a;

    if (direct_env)
        setenv("DGLPART_DIRECT_IO", direct_env, 1);
    CHECK_EQ(dp_npy_writer_open(&w, path, DP_I64, 1, &n), 0);
    dp_afile_direct_slices(&w.af);
    dp_run_pair(write_slices, &s[1], &s[0], 1);
    CHECK_EQ(s[0].rc, 0);
    CHECK_EQ(s[1].rc, 0);
    CHECK_EQ(dp_npy_writer_commit(&w), 0);
    CHECK_EQ(dp_npy_open(&a, path), 0);
    CHECK_EQ(a.h.shape[0], n);
    for (i = 0; i < n && a.data; i++)
        bad += dp_npy_get_i64(&a, (uint64_t)i) != i * 7 - 3;
    CHECK_EQ(bad, 0);
    dp_npy_release(&a);
    /* the odd slices alone: fewer items than the shape */
    s[1].rc = 0;
    CHECK_EQ(dp_npy_writer_open(&w, path, DP_I64, 1, &n), 0);
    dp_afile_direct_slices(&w.af);
    write_slices(&s[1]);
    CHECK_EQ(dp_npy_writer_commit(&w), DP_EINVAL);
    unsetenv("DGLPART_DIRECT_IO");
    free(path);
}

static void test_npy_slices(void)
{
    sliced_roundtrip("sliced-direct.npy", NULL);
    sliced_roundtrip("sliced-buffered.npy", "0");
}

static void test_sha256(void)
{
    char hex[65];
    char *path = dp_path_join(tmpdir, "abc");
    uint64_t size = 0;

    dp_sha256_hex("abc", 3, hex);
    CHECK_STR(
        hex,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK_EQ(dp_write_file(path, "abc", 3), 0);
    CHECK_EQ(dp_sha256_file(path, hex, &size), 0);
    CHECK_EQ(size, 3);
    CHECK_STR(
        hex,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    free(path);
}

/* A sparse file (data, a hole of 3 MiB, data, a hole to the end) hashes
 * as the bytes it reads as, holes skipped or not. */
static void test_sha256_sparse(void)
{
    size_t len = (size_t)7 << 20;
    unsigned char *all = calloc(len, 1);
    char hex[65], want[65];
    char *path = dp_path_join(tmpdir, "sparse");
    uint64_t size = 0;
    FILE *f = fopen(path, "wb");

    memset(all, 'a', 4096);
    memset(all + (4 << 20) - 100, 'b', 8192);
    CHECK(f != NULL);
    fwrite(all, 1, 4096, f);
    fseek(f, (4 << 20) - 100, SEEK_SET);
    fwrite(all + (4 << 20) - 100, 1, 8192, f);
    fclose(f);
    CHECK_EQ(truncate(path, (off_t)len), 0);
    dp_sha256_hex(all, len, want);
    CHECK_EQ(dp_sha256_file(path, hex, &size), 0);
    CHECK_EQ(size, len);
    CHECK_STR(hex, want);
    free(all);
    free(path);
}

static void test_paths(void)
{
    char *p = dp_path_join("a/", "b"), *d = dp_path_dirname("x/y/z.json");

    CHECK_STR(p, "a/b");
    CHECK_STR(d, "x/y");
    CHECK_STR(dp_path_basename("x/y/z.json"), "z.json");
    free(p);
    free(d);
    p = dp_path_join("a", "/abs");
    CHECK_STR(p, "/abs");
    free(p);
}

struct pair_job {
    int ran;
    pthread_t self;
};

static void *pair_run(void *arg)
{
    struct pair_job *j = arg;

    j->ran++;
    j->self = pthread_self();
    return NULL;
}

static void test_run_pair(void)
{
    struct pair_job a = { 0 }, b = { 0 };

    dp_run_pair(pair_run, &a, &b, 1);
    CHECK_EQ(a.ran, 1);
    CHECK_EQ(b.ran, 1);
    CHECK(pthread_equal(a.self, pthread_self()));
    CHECK(!pthread_equal(b.self, pthread_self())); /* b on its own thread */
    dp_run_pair(pair_run, &a, &b, 0);
    CHECK_EQ(a.ran, 2);
    CHECK_EQ(b.ran, 2);
    CHECK(pthread_equal(b.self, pthread_self())); /* two == 0: inline */
}

static int64_t at_i64(const void *ip, int64_t v)
{
    return ((const int64_t *)ip)[v];
}

/* Offsets kept as 32-bit numbers, as compressed lists keep their bytes'. */
static int64_t at_u32(const void *ip, int64_t v)
{
    return ((const uint32_t *)ip)[v];
}

/* The split point: the first row reaching half the range's entries, also
 * when one row holds most of them, rows are empty, or the range is; read
 * through an accessor, the same split. */
static void test_half_rows(void)
{
    static const uint32_t hub32[] = { 0, 1, 2, 100, 101, 102 };

    static const int64_t even[] = { 0, 10, 20, 30, 40 };
    static const int64_t hub[] = { 0, 1, 2, 100, 101, 102 };
    static const int64_t empty[] = { 5, 5, 5, 5 };
    static const int64_t sub[] = { 0, 7, 8, 9, 10, 20 };

    CHECK_EQ(dp_half_rows(even, 0, 4), 2);
    CHECK_EQ(dp_half_rows(hub, 0, 5), 3); /* row 2 is the hub */
    CHECK_EQ(dp_half_rows(empty, 0, 3), 0);
    CHECK_EQ(dp_half_rows(even, 2, 2), 2);
    CHECK_EQ(dp_half_rows(sub, 1, 5), 5); /* half (13) inside the last row */
    CHECK_EQ(dp_half_by(at_i64, even, 0, 4), 2);
    CHECK_EQ(dp_half_by(at_i64, empty, 0, 3), 0);
    CHECK_EQ(dp_half_by(at_i64, even, 2, 2), 2);
    CHECK_EQ(dp_half_by(at_i64, sub, 1, 5), 5);
    CHECK_EQ(dp_half_by(at_u32, hub32, 0, 5), 3);
    CHECK_EQ(dp_half_by(at_u32, hub32, 3, 5), 4);
}

/* The libraries resolve, usable through the usual names; a missing
 * library or symbol is named with the package to install. */
static void test_dynlib(void)
{
    static const char *const none[] = { "dglpart_no_such_function", NULL };
    void *slot = NULL;
    struct archive *a;

    CHECK_EQ(dp_need_archive(), 0);
    CHECK_EQ(dp_need_archive(), 0);  /* loaded once, then a no-op */
    CHECK(archive_read_new != NULL); /* the loaded table's pointer */
    a = archive_read_new();
    CHECK(a != NULL);
    if (a)
        archive_read_free(a);
    CHECK_EQ(dp_need_curl(), 0);
    CHECK_STR(curl_easy_strerror(CURLE_OK), "No error");
    CHECK_EQ(
        dp_dynlib_load("libdglpart-none.so.0", "dglpart-none", none, &slot),
        DP_EUNSUPPORTED);
    CHECK_CONTAINS(dp_errmsg(),
                   "cannot load libdglpart-none.so.0 (Debian package "
                   "dglpart-none)");
    CHECK_EQ(dp_dynlib_load("libc.so.6", "libc6", none, &slot),
             DP_EUNSUPPORTED);
    CHECK_CONTAINS(dp_errmsg(), "libc.so.6 lacks dglpart_no_such_function");
    CHECK(slot == NULL);
}

/* The global loader resolves data objects as well (libmpi's handles are
 * such), and names the package of a missing library. glibc's stdout
 * points at its FILE object, which this program never names (a name it
 * used would be copied into it, with dlsym giving libc's unused one). */
static void test_dynlib_global(void)
{
    static const char *const data[] = { "_IO_2_1_stdout_", NULL };
    void *slot = NULL;

    CHECK_EQ(dp_dynlib_load_global("libc.so.6", "libc6", data, &slot), 0);
    CHECK(slot == (void *)stdout);
    CHECK_EQ(dp_dynlib_load_global("libmpi-none.so.40", "libopenmpi-none", data,
                                   &slot),
             DP_EUNSUPPORTED);
    CHECK_CONTAINS(dp_errmsg(), "cannot load libmpi-none.so.40 (Debian "
                                "package libopenmpi-none)");
}

/* Pieces: at most piece bytes each, in order, covering the message once;
 * nothing for an empty message; no overflow next to SIZE_MAX. */
static void test_comm_piece(void)
{
    static const size_t pieces[] = { 1, 7, 1000 };
    size_t p, bytes, k, off, len, next, bad = 0;

    off = 99;
    CHECK_EQ(dp_comm_piece(0, 1000, 0, &off), 0);
    CHECK_EQ(off, 99); /* untouched past the end */
    CHECK_EQ(dp_comm_piece(5, 0, 0, &off), 0);
    CHECK_EQ(dp_comm_piece(2500, 1000, 0, &off), 1000);
    CHECK_EQ(off, 0);
    CHECK_EQ(dp_comm_piece(2500, 1000, 1, &off), 1000);
    CHECK_EQ(off, 1000);
    CHECK_EQ(dp_comm_piece(2500, 1000, 2, &off), 500);
    CHECK_EQ(off, 2000);
    CHECK_EQ(dp_comm_piece(2500, 1000, 3, &off), 0);
    CHECK_EQ(dp_comm_piece(3000, 1000, 2, &off), 1000);
    CHECK_EQ(dp_comm_piece(3000, 1000, 3, &off), 0);
    CHECK_EQ(dp_comm_piece(1000, 1000, 1, &off), 0);
    CHECK_EQ(dp_comm_piece(1001, 1000, 1, &off), 1);
    for (p = 0; p < sizeof(pieces) / sizeof(*pieces); p++)
        for (bytes = 0; bytes < 3000; bytes++) {
            next = 0;
            for (k = 0; (len = dp_comm_piece(bytes, pieces[p], k, &off)); k++) {
                if (off != next || len > pieces[p] ||
                    (len < pieces[p] && off + len != bytes))
                    bad++;
                next = off + len;
            }
            if (next != bytes || k != (bytes + pieces[p] - 1) / pieces[p])
                bad++;
        }
    CHECK_EQ(bad, 0);
    /* the last piece of the largest message: (2^64 - 1) = (2^34 - 1)
     * pieces of 2^30, then 2^30 - 1 bytes */
    k = (SIZE_MAX - 1) >> 30;
    CHECK_EQ(dp_comm_piece(SIZE_MAX, (size_t)1 << 30, k, &off),
             ((size_t)1 << 30) - 1);
    CHECK(off == SIZE_MAX - (((size_t)1 << 30) - 1));
    CHECK_EQ(dp_comm_piece(SIZE_MAX, (size_t)1 << 30, k + 1, &off), 0);
}

/* mpirun's variable, and no MPI loaded or needed to ask; dp_comm_abort
 * before MPI started exits with the code. */
static void test_comm_launched(void)
{
    const char *old = getenv("OMPI_COMM_WORLD_SIZE");
    char *keep = old ? strdup(old) : NULL;
    int st = 0;
    pid_t pid;

    unsetenv("OMPI_COMM_WORLD_SIZE");
    CHECK_EQ(dp_comm_launched(), 0);
    setenv("OMPI_COMM_WORLD_SIZE", "", 1);
    CHECK_EQ(dp_comm_launched(), 0);
    setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
    CHECK_EQ(dp_comm_launched(), 1);
    if (keep)
        setenv("OMPI_COMM_WORLD_SIZE", keep, 1);
    else
        unsetenv("OMPI_COMM_WORLD_SIZE");
    free(keep);
    pid = fork();
    if (pid == 0)
        dp_comm_abort(NULL, 5);
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5);
}

/* Resident file-backed and shared pages of this process (statm). */
static long shared_pages(void)
{
    long size = 0, res = 0, shared = -1;
    FILE *fp = fopen("/proc/self/statm", "r");

    if (fp) {
        if (fscanf(fp, "%ld %ld %ld", &size, &res, &shared) != 3)
            shared = -1;
        fclose(fp);
    }
    return shared;
}

static int64_t sum32(const int32_t *a, size_t n)
{
    int64_t t = 0;
    size_t i;

    for (i = 0; i < n; i++)
        t += a[i];
    return t;
}

/* dp_spill_read gives what the mappings show, from the file: a shifted
 * mapping (a at 1001 entries past its room), a writable one and its hole,
 * a copy, across 2 MiB sections; never outside them, nor fill32's repeats
 * (one chunk mapped many times). */
static void spill_reads(struct dp_spill *s, const int32_t *a, const int32_t *rw,
                        const int32_t *src)
{
    enum { N = 3u << 20, M = 600000 };
    int32_t *buf = malloc(M * sizeof(*buf)), mem[4] = { 1, 2, 3, 4 };
    const int32_t *cp = dp_spill_copy(s, src + 5, M * sizeof(*src));
    const int32_t *ones = dp_spill_fill32(s, 1, 1000);

    CHECK(buf && cp && ones);
    if (!buf || !cp || !ones) {
        free(buf);
        return;
    }
    CHECK_EQ(dp_spill_read(s, a + 77001, buf, M * sizeof(*buf)), 0);
    CHECK(!memcmp(buf, src + 77001, M * sizeof(*buf)));
    CHECK_EQ(dp_spill_read(s, a + N - 3, buf, 3 * sizeof(*buf)), 0);
    CHECK(!memcmp(buf, src + N - 3, 3 * sizeof(*buf)));
    CHECK_EQ(dp_spill_read(s, rw + 1, buf, 4 * sizeof(*buf)), 0);
    CHECK(!memcmp(buf, src + 1, 4 * sizeof(*buf)));
    CHECK_EQ(dp_spill_read(s, rw + N / 2 - 2, buf, 4 * sizeof(*buf)), 0);
    CHECK(!buf[0] && !buf[1] && !buf[2] && !buf[3]);
    CHECK_EQ(dp_spill_read(s, cp + 17, buf, 1000 * sizeof(*buf)), 0);
    CHECK(!memcmp(buf, src + 22, 1000 * sizeof(*buf)));
    CHECK_EQ(dp_spill_read(s, mem, buf, sizeof(mem)), -1);
    CHECK_EQ(dp_spill_read(s, ones, buf, 4), -1);
    /* past the end of the mapping it starts in */
    CHECK_EQ(
        dp_spill_read(s, (const char *)cp + s->map[s->n - 2].len - 8, buf, 16),
        -1);
    free(buf);
}

/* Arrays written into room in a scratch file, by pwrite at any offset
 * or through a writable mapping, read back the same after their pages
 * are dropped; a hole reads as zeros. */
static void test_spill_room(void)
{
    enum { N = 3u << 20 }; /* 12 MiB: more than one 2 MiB section */
    struct dp_spill s;
    int32_t *src = malloc(N * sizeof(*src)), *rw;
    const int32_t *a;
    size_t off, off2, i;

    CHECK_EQ(dp_spill_open(&s, tmpdir), 0);
    for (i = 0; i < N; i++)
        src[i] = (int32_t)(i * 3 + 1);
    off = dp_spill_room(&s, 2 * N * sizeof(*src));
    off2 = dp_spill_room(&s, N * sizeof(*src));
    CHECK(off != (size_t)-1 && off2 >= off + 2 * N * sizeof(*src));
    /* two pieces, meeting at an odd entry, the higher written first */
    CHECK_EQ(dp_spill_write(&s, off + (1001 + 77777) * sizeof(*src),
                            src + 77777, (N - 77777) * sizeof(*src)),
             0);
    CHECK_EQ(dp_spill_write(&s, off + 1001 * sizeof(*src), src,
                            77777 * sizeof(*src)),
             0);
    a = dp_spill_map(&s, off + 1001 * sizeof(*src), N * sizeof(*src));
    rw = dp_spill_map_rw(&s, off2, N * sizeof(*src));
    CHECK(a && rw);
    if (a && rw) {
        CHECK(!memcmp(a, src, N * sizeof(*src)));
        memcpy(rw, src, N * sizeof(*src));
        dp_spill_hole(&s, off2 + 5 * sizeof(*src), (N - 10) * sizeof(*src));
        dp_spill_drop(&s);
        CHECK(!memcmp(a, src, N * sizeof(*src)));
        CHECK_EQ(rw[0], src[0]);
        CHECK_EQ(rw[4], src[4]);
        CHECK_EQ(rw[N / 2], 0);
        CHECK_EQ(rw[N - 1], src[N - 1]);
        spill_reads(&s, a, rw, src);
    }
    dp_spill_close(&s);
    CHECK(dp_spill_room(&s, 1) == (size_t)-1); /* closed */
    free(src);
}

/* A write that gives its source back: the file holds every byte, the
 * source's whole pages inside the range read zero after (the kernel took
 * them), and the bytes around them, on pages only partly written, stay. */
static void test_spill_give(void)
{
    enum { N = 9u << 20 }; /* 36 MiB: three pieces, the last one short */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), bytes = N * sizeof(int32_t);
    size_t lead = 12, len = bytes - 2 * lead, off, i, zero = 0;
    struct dp_spill s;
    char *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *copy = malloc(bytes);
    const char *a;

    CHECK(map != MAP_FAILED && copy);
    if (map == MAP_FAILED || !copy) {
        free(copy);
        return;
    }
    for (i = 0; i < bytes; i++)
        map[i] = copy[i] = (char)(i * 7 + i / 4099 + 1);
    CHECK_EQ(dp_spill_open(&s, tmpdir), 0);
    off = dp_spill_room(&s, len);
    CHECK(off != (size_t)-1);
    /* from an odd address, so the first and last pages are partial */
    CHECK_EQ(dp_spill_write_give(&s, off, map + lead, len), 0);
    a = dp_spill_map(&s, off, len);
    CHECK(a && !memcmp(a, copy + lead, len));
    for (i = pg; i < bytes - pg; i++)
        zero += map[i] == 0;
    CHECK_EQ(zero, bytes - 2 * pg);
    CHECK(!memcmp(map, copy, pg));
    CHECK(!memcmp(map + bytes - pg, copy + bytes - pg, pg));
    dp_spill_close(&s);
    munmap(map, bytes);
    free(copy);
}

/* A give that fails part way (the file size limit stops its second
 * piece) leaves its source as it was: the pages already given back are
 * read from the file again. So does a copy that fails. */
static void test_spill_give_fails(void)
{
    enum { N = 9u << 20 };
    size_t bytes = N * sizeof(int32_t), i;
    struct rlimit old, lim;
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    struct dp_spill s;
    char *src = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *copy = malloc(bytes);

    CHECK(src != MAP_FAILED && copy && getrlimit(RLIMIT_FSIZE, &old) == 0);
    if (src == MAP_FAILED || !copy) {
        free(copy);
        signal(SIGXFSZ, was);
        return;
    }
    for (i = 0; i < bytes; i++)
        src[i] = copy[i] = (char)(i % 251 + 1);
    CHECK_EQ(dp_spill_open(&s, tmpdir), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)20 << 20; /* past the first 16 MiB piece */
    CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    CHECK_EQ(dp_spill_write_give(&s, 0, src, bytes), DP_EIO);
    CHECK(!memcmp(src, copy, bytes));
    CHECK(dp_spill_copy_give(&s, src, bytes) == NULL);
    CHECK(!memcmp(src, copy, bytes));
    CHECK_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
    dp_spill_close(&s);
    signal(SIGXFSZ, was);
    munmap(src, bytes);
    free(copy);
}

/* Arrays in a scratch file read back the same, also after their pages are
 * dropped, by hand or by the watcher; tmpfs is refused. */
static void test_spill(void)
{
    enum { N = 10000, ONES = 5u << 20 }; /* ONES spans two 16 MiB chunks */
    long pg = sysconf(_SC_PAGESIZE), before, after = 0;
    struct dp_spill s;
    char *deep = dp_path_join(tmpdir, "no/such/dir");
    int32_t src[N];
    const int32_t *a, *ones;
    char *grow;
    int i;

    for (i = 0; i < N; i++)
        src[i] = i * 7 - 3;
    CHECK_EQ(dp_spill_open(&s, deep), 0); /* made in tmpdir */
    CHECK(!dp_exists(deep));
    a = dp_spill_copy(&s, src, sizeof(src));
    ones = dp_spill_fill32(&s, 1, ONES);
    CHECK(a && ones);
    if (!a || !ones) {
        dp_spill_close(&s);
        free(deep);
        return;
    }
    CHECK(!memcmp(a, src, sizeof(src)));
    CHECK_EQ(sum32(ones, ONES), (int64_t)ONES);
    CHECK_EQ(ones[ONES - 1], 1);
    before = shared_pages();
    dp_spill_drop(&s);
    CHECK(shared_pages() < before - (long)((4u * ONES) / (unsigned)pg) + 256);
    CHECK(!memcmp(a, src, sizeof(src))); /* back from the page cache */
    CHECK_EQ(sum32(ones, ONES), (int64_t)ONES);
    /* the watcher drops them once anonymous memory grows */
    before = shared_pages();
    dp_spill_watch(&s, 1);
    grow = malloc(64u << 20);
    if (grow)
        memset(grow, 1, 64u << 20);
    for (i = 0; i < 40; i++) {
        struct timespec ts = { 0, 100 * 1000 * 1000 };

        nanosleep(&ts, NULL);
        if ((after = shared_pages()) < before - 1024)
            break;
    }
    dp_spill_watch(&s, 0);
    CHECK(after < before - 1024);
    free(grow);
    dp_spill_close(&s);
    dp_spill_close(&s); /* idempotent */
    CHECK_EQ(s.fd, -1);
    free(deep);
    /* a file in memory saves nothing: refused, saying so */
    if (dp_exists("/dev/shm")) {
        CHECK_EQ(dp_spill_open(&s, "/dev/shm"), DP_EUNSUPPORTED);
        CHECK_CONTAINS(dp_errmsg(), "tmpfs");
        dp_spill_close(&s);
    }
    CHECK_EQ(dp_spill_open(&s, "/proc/version"), DP_EIO);
    CHECK_CONTAINS(dp_errmsg(), "/proc/version");
    dp_spill_close(&s);
}

static void test_rename(void)
{
    struct dp_rename r;

    CHECK_EQ(dp_rename_parse("--x", "feat=features,label=labels,feat=f2", &r),
             0);
    CHECK_EQ(r.count, 2);
    CHECK_STR(dp_rename_apply(&r, "feat"), "f2"); /* the later pair wins */
    CHECK_STR(dp_rename_apply(&r, "label"), "labels");
    CHECK_STR(dp_rename_apply(&r, "train_mask"), "train_mask");
    dp_rename_release(&r);
    CHECK_EQ(dp_rename_parse("--x", "", &r), 0);
    CHECK_EQ(r.count, 0);
    CHECK_EQ(dp_rename_parse("--x", "feat", &r), DP_EINVAL);
    CHECK(strstr(dp_errmsg(), "expected OLD=NEW") != NULL);
    CHECK_EQ(dp_rename_parse("--x", "feat=", &r), DP_EINVAL);
    CHECK_EQ(dp_rename_parse("--x", "=x", &r), DP_EINVAL);
    CHECK_EQ(dp_rename_parse("--x", "a=b/c", &r), DP_EINVAL);
    CHECK_EQ(dp_rename_parse("--x", "a=b,", &r), DP_EINVAL);
    CHECK_EQ(dp_rename_parse("--x", "a=b,,c=d", &r), DP_EINVAL);
}

static void test_child(void)
{
    char *echo[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
    char *slow[] = { "sleep", "120", NULL };
    char *none[] = { "/nonexistent/dglpart-test", NULL };
    char *big[] = { "sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x", NULL };
    char out[64], err[64];
    int status = 0;
    double t0;

    /* bounds far above the usual time: the machine may be busy */
    CHECK_EQ(dp_child_capture(echo, out, sizeof(out), err, sizeof(err), 60000,
                              &status),
             0);
    CHECK_STR(out, "out\n");
    CHECK_STR(err, "err\n");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    /* output past the buffer is drained, not left to block the child */
    CHECK_EQ(dp_child_capture(big, out, sizeof(out), NULL, 0, 60000, &status),
             0);
    CHECK_EQ(strlen(out), sizeof(out) - 1);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    t0 = dp_now();
    CHECK_EQ(dp_child_capture(slow, out, sizeof(out), NULL, 0, 200, &status),
             0);
    CHECK_EQ(status, -1);
    CHECK(dp_now() - t0 < 60); /* killed, not waited for */
    CHECK_EQ(dp_child_capture(none, out, sizeof(out), NULL, 0, 200, &status),
             DP_EIO);
    CHECK(strstr(dp_errmsg(), "/nonexistent/dglpart-test") != NULL);
}

static int child_fn(void *arg)
{
    return *(int *)arg + (getpgrp() == getpid());
}

/* The forked modes: code run in the child, its own group, a failed exec
 * reported to the parent as posix_spawnp does, reaping without blocking. */
static void test_child_fork(void)
{
    struct dp_child c = DP_CHILD_INIT;
    char *none[] = { "/nonexistent/dglpart-test", NULL };
    char *cat[] = { "cat", NULL };
    int arg = 40, status = 0, tries;
    pid_t r = 0;

    c.fn = child_fn;
    c.arg = &arg;
    c.flags = DP_CHILD_PGROUP;
    CHECK_EQ(dp_child_start(&c), 0);
    CHECK_EQ(dp_child_wait(&c, &status), 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 41);
    c = (struct dp_child)DP_CHILD_INIT;
    c.argv = none;
    c.death_sig = SIGTERM;
    CHECK_EQ(dp_child_start(&c), DP_EIO);
    CHECK(strstr(dp_errmsg(), "/nonexistent/dglpart-test") != NULL);
    CHECK_EQ(c.pid, -1);
    /* cat ends when its stdin, /dev/null, does */
    c = (struct dp_child)DP_CHILD_INIT;
    c.argv = cat;
    c.in = DP_CHILD_NULL;
    c.out = DP_CHILD_PIPE;
    CHECK_EQ(dp_child_start(&c), 0);
    for (tries = 0; tries < 6000 && (r = dp_child_reap(c.pid, &status)) == 0;
         tries++)
        usleep(10000);
    CHECK_EQ(r, c.pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(c.out);
    CHECK_EQ(dp_child_reap(c.pid, &status), -1);
}

/* A sweep with drop-behind holds about a step of a mapped file's pages,
 * never more, and what it dropped reads back the same; NULL does nothing. */
static void test_behind(void)
{
    enum { N = 8u << 20 }; /* 32 MiB: four steps */
    long pg = sysconf(_SC_PAGESIZE), step = (long)(DP_BEHIND_STEP / (size_t)pg);
    long before, most = 0, now;
    char *path = dp_path_join(tmpdir, "behind.bin");
    int32_t *src = malloc(N * sizeof(*src));
    struct dp_behind b;
    struct dp_map m;
    const int32_t *a;
    int64_t sum = 0, want = 0;
    size_t i;

    for (i = 0; i < N; i++)
        want += src[i] = (int32_t)(i * 5 + 2);
    CHECK_EQ(dp_write_file(path, src, N * sizeof(*src)), 0);
    CHECK_EQ(dp_map_open(&m, path), 0);
    a = m.data;
    before = shared_pages();
    dp_behind_init(&b, a, m.size);
    for (i = 0; i < N; i++) {
        sum += a[i];
        dp_behind_at(&b, (i + 1) * sizeof(*a));
        if ((i + 1) % 4096 == 0 && (now = shared_pages() - before) > most)
            most = now;
    }
    dp_behind_end(&b);
    CHECK_EQ(sum, want);
    /* at most a step and a bit: not the file's 8192 pages */
    CHECK(most <= step + 1024);
    CHECK(most >= 1024);
    CHECK(shared_pages() - before < 16);
    CHECK(!memcmp(a, src, N * sizeof(*src))); /* back from the page cache */
    dp_behind_init(&b, NULL, m.size);
    dp_behind_end(&b); /* nothing to do, no crash */
    dp_map_release(&m);
    free(src);
    free(path);
}

struct watched {
    struct dp_map m;
    int calls;
};

static void drop_map(void *arg)
{
    struct watched *w = arg;

    dp_map_drop(&w->m);
    __atomic_add_fetch(&w->calls, 1, __ATOMIC_RELAXED);
}

/* Reads a[0..n) twice, slowly enough for a watch that looks every 10 ms,
 * on a busy machine too; adds to *sum, returns the most file pages seen
 * above before. */
static long read_slowly(const volatile int32_t *a, size_t n, long before,
                        int64_t *sum)
{
    long most = 0, now;
    size_t i;
    int r;

    for (r = 0; r < 2; r++)
        for (i = 0; i < n; i++) {
            *sum += a[i];
            if ((i + 1) % 65536 == 0) {
                struct timespec ts = { 0, 5000000 };

                nanosleep(&ts, NULL);
                if ((now = shared_pages() - before) > most)
                    most = now;
            }
        }
    return most;
}

/* A watch over 4 MiB of file pages: reading a 32 MiB mapping twice keeps
 * well under it (the drops happen while we read), and the data reads
 * back whole. */
static void test_file_watch(void)
{
    enum { N = 8u << 20 };
    struct watched w = { 0 };
    char *path = dp_path_join(tmpdir, "watch.bin");
    int32_t *src = malloc(N * sizeof(*src));
    long before, most, pg = sysconf(_SC_PAGESIZE);
    int64_t sum = 0, want = 0;
    void *h;
    size_t i;

    for (i = 0; i < N; i++)
        want += src[i] = (int32_t)(i * 3 + 1);
    CHECK_EQ(dp_write_file(path, src, N * sizeof(*src)), 0);
    CHECK_EQ(dp_map_open(&w.m, path), 0);
    before = shared_pages();
    h = dp_file_watch((size_t)before * (size_t)pg + (4u << 20), drop_map, &w);
    CHECK(h != NULL);
    most = read_slowly(w.m.data, N, before, &sum);
    dp_file_watch_stop(h);
    CHECK_EQ(sum, 2 * want);
    CHECK(__atomic_load_n(&w.calls, __ATOMIC_RELAXED) > 0);
    /* the cap plus what a late tick lets through, not the file's 8192 */
    CHECK(most < 6000);
    CHECK(!memcmp(w.m.data, src, N * sizeof(*src)));
    dp_file_watch_stop(NULL);
    dp_map_release(&w.m);
    free(src);
    free(path);
}

static long resident_now(void)
{
    long size = 0, res = -1;
    FILE *fp = fopen("/proc/self/statm", "r");

    if (fp) {
        if (fscanf(fp, "%ld %ld", &size, &res) != 2)
            res = -1;
        fclose(fp);
    }
    return res;
}

/* Under a ceiling 96 MiB above what the process holds, the same reads
 * past a 4 MiB cap keep the whole 32 MiB file; once 128 MiB more of
 * anonymous memory fills that room, they are dropped as under the cap
 * alone. */
static void test_file_watch_under(void)
{
    enum { N = 8u << 20 };
    struct watched w = { 0 };
    char *path = dp_path_join(tmpdir, "under.bin");
    int32_t *src = malloc(N * sizeof(*src));
    long before, most, pg = sysconf(_SC_PAGESIZE);
    size_t ceiling, cap;
    int64_t sum = 0, want = 0;
    char *grow;
    void *h;
    size_t i;

    for (i = 0; i < N; i++)
        want += src[i] = (int32_t)(i * 7 + 2);
    CHECK_EQ(dp_write_file(path, src, N * sizeof(*src)), 0);
    CHECK_EQ(dp_map_open(&w.m, path), 0);
    before = shared_pages();
    cap = (size_t)before * (size_t)pg + (4u << 20);
    ceiling = (size_t)resident_now() * (size_t)pg + (96u << 20);
    h = dp_file_watch_under(cap, ceiling, drop_map, &w);
    CHECK(h != NULL);
    most = read_slowly(w.m.data, N, before, &sum);
    dp_file_watch_stop(h);
    CHECK_EQ(sum, 2 * want);
    CHECK_EQ(__atomic_load_n(&w.calls, __ATOMIC_RELAXED), 0);
    CHECK(most > 7000); /* the file's 8192 pages, kept */
    grow = malloc(128u << 20);
    CHECK(grow != NULL);
    /* a store a page through a volatile pointer: clang drops a memset
     * of memory that is only freed */
    for (i = 0; grow && i < 128u << 20; i += (size_t)pg)
        ((volatile char *)grow)[i] = 1;
    dp_map_drop(&w.m);
    h = dp_file_watch_under(cap, ceiling, drop_map, &w);
    CHECK(h != NULL);
    sum = 0;
    most = read_slowly(w.m.data, N, before, &sum);
    dp_file_watch_stop(h);
    CHECK_EQ(sum, 2 * want);
    CHECK(__atomic_load_n(&w.calls, __ATOMIC_RELAXED) > 0);
    CHECK(most < 6000);
    free(grow);
    dp_map_release(&w.m);
    free(src);
    free(path);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(test_buf_cap);
    RUN(test_error_wrap);
    RUN(test_progress_redraw);
    RUN(test_mul_overflow);
    RUN(test_alloc_grow);
    RUN(test_i64vec);
    RUN(test_log);
    RUN(test_parse);
    RUN(test_rename);
    RUN(test_child);
    RUN(test_child_fork);
    RUN(test_npy_roundtrip);
    RUN(test_dtype_get);
    RUN(test_npy_unknown_rows);
    RUN(test_npy_bad);
    RUN(test_afile);
    RUN(test_afile_large);
    RUN(test_npy_slices);
    RUN(test_sha256);
    RUN(test_sha256_sparse);
    RUN(test_paths);
    RUN(test_run_pair);
    RUN(test_half_rows);
    RUN(test_dynlib);
    RUN(test_dynlib_global);
    RUN(test_comm_piece);
    RUN(test_comm_launched);
    RUN(test_spill);
    RUN(test_spill_room);
    RUN(test_spill_give);
    RUN(test_spill_give_fails);
    RUN(test_behind);
    RUN(test_file_watch);
    RUN(test_file_watch_under);
    dp_rm_rf(tmpdir);
    return TH_DONE();
}
