/* Memory behaviour for the METIS phase: transparent huge pages through
 * glibc (a re-exec, since glibc reads its tunables only at start-up), a
 * heap that keeps freed memory while METIS runs, and scratch-file arrays
 * that leave the resident set while METIS does not read them. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>

#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/memory.h"

#define TUNABLE "glibc.malloc.hugetlb=1"
#define RESTARTED "DGLPART_HUGEPAGES_RESTARTED"

/* 1 when the kernel gives huge pages to memory that asks for them
 * (madvise mode; in "always" mode there is nothing to ask). */
static int thp_on_request(void)
{
    char line[128];
    FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    int ok;

    if (!fp)
        return 0;
    ok = fgets(line, sizeof(line), fp) && strstr(line, "[madvise]");
    fclose(fp);
    return ok;
}

const char *dp_hugepages_reexec(char **argv)
{
    const char *old = dp_env_str("GLIBC_TUNABLES");
    int on = 1, again = 0;
    char *val;
    size_t n;

    dp_env_bool("DGLPART_HUGEPAGES", &on);
    dp_env_bool(RESTARTED, &again);
    if (again)
        unsetenv(RESTARTED);
    if (!on)
        return "off (DGLPART_HUGEPAGES=0)";
    if (old && strstr(old, "glibc.malloc.hugetlb"))
        return strstr(old, TUNABLE) ? "on (GLIBC_TUNABLES)"
                                    : "as GLIBC_TUNABLES sets";
    if (!thp_on_request())
        return "kernel default (transparent_hugepage is not in madvise mode)";
    if (again) /* the loader dropped the tunable (setuid): never loop */
        return "off (GLIBC_TUNABLES ignored)";
    n = (old ? strlen(old) + 1 : 0) + sizeof(TUNABLE);
    val = dp_malloc(n);
    if (!val)
        return "off (out of memory)";
    snprintf(val, n, "%s%s%s", old ? old : "", old && *old ? ":" : "", TUNABLE);
    if (setenv("GLIBC_TUNABLES", val, 1) == 0 && setenv(RESTARTED, "1", 1) == 0)
        execv("/proc/self/exe", argv);
    unsetenv(RESTARTED);
    /* no re-exec: carry on with small pages */
    if (old)
        setenv("GLIBC_TUNABLES", old, 1);
    else
        unsetenv("GLIBC_TUNABLES");
    free(val);
    return "off (re-exec failed)";
}

void dp_heap_hold(int on)
{
    if (on) {
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        return;
    }
    mallopt(M_MMAP_MAX, 65536);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    malloc_trim(0);
}

void dp_heap_map_large(void)
{
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 20);
}

/* Sections start on 2 MiB boundaries, in the file and in memory, so that
 * large page-cache folios can be mapped as huge pages (fewer TLB misses,
 * one fault per 2 MiB when METIS reads them back). */
#define ALIGN ((size_t)2 << 20)

static size_t page_up(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);

    return (n + pg - 1) / pg * pg;
}

static size_t align_up(size_t n)
{
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

/* An address range of len bytes starting on an ALIGN boundary, reserved
 * (PROT_NONE) for MAP_FIXED mappings; NULL when none. */
static char *reserve(size_t len)
{
    char *p = mmap(NULL, len + ALIGN, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    char *a;

    if (p == MAP_FAILED)
        return NULL;
    a = (char *)(((uintptr_t)p + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    munmap(a + len, (size_t)(p + ALIGN - a));
    return a;
}

int dp_spill_open(struct dp_spill *s, const char *dir)
{
    char *d = dp_strdup(dir && *dir ? dir : "."), *up;
    struct statfs fs;
    int fd = -1, err = 0;

    memset(s, 0, sizeof(*s));
    s->fd = -1;
    while (d) {
        fd = open(d, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        err = errno;
        if (fd >= 0 || err != ENOENT || !strcmp(d, ".") || !strcmp(d, "/"))
            break;
        up = dp_path_dirname(d); /* not made yet: its parent's disk */
        free(d);
        d = up;
    }
    if (!d)
        return DP_ENOMEM;
    if (fd < 0) {
        int rc = err == EOPNOTSUPP || err == EISDIR ? DP_EUNSUPPORTED : DP_EIO;

        rc = dp_error(rc, "'%s': cannot create a scratch file: %s", d,
                      strerror(err));
        free(d);
        return rc;
    }
    if (fstatfs(fd, &fs) == 0 &&
        (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC)) {
        close(fd);
        fd = dp_error(DP_EUNSUPPORTED,
                      "'%s' is in memory (tmpfs): a scratch file there "
                      "would save nothing",
                      d);
        free(d);
        return fd;
    }
    free(d);
    s->fd = fd;
    return 0;
}

/* Map len bytes of the file at off, read-only unless rw, at want
 * (MAP_FIXED) or anywhere (want NULL). */
static void *map_prot(struct dp_spill *s, void *want, size_t len, size_t off,
                      int rw)
{
    void *p = mmap(want, len, PROT_READ | (rw ? PROT_WRITE : 0),
                   MAP_SHARED | (want ? MAP_FIXED : 0), s->fd, (off_t)off);

    return p == MAP_FAILED ? NULL : p;
}

static void *map_at(struct dp_spill *s, void *want, size_t len, size_t off)
{
    return map_prot(s, want, len, off, 0);
}

int dp_spill_write(struct dp_spill *s, size_t off, const void *src, size_t len)
{
    size_t done = 0;

    while (done < len) {
        ssize_t w = pwrite(s->fd, (const char *)src + done, len - done,
                           (off_t)(off + done));

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return dp_error(DP_EIO, "scratch file: cannot write %zu bytes: %s",
                            len, w < 0 ? strerror(errno) : "short write");
        done += (size_t)w;
    }
    return 0;
}

/* A piece written at a time: small enough that the page cache finds the
 * pages the piece before gave back. */
#define GIVE_PIECE ((size_t)16 << 20)

/* src's whole pages inside [src, src + len), the range a give drops. */
static void give_range(const void *src, size_t len, uintptr_t *lo,
                       uintptr_t *hi)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);

    *lo = ((uintptr_t)src + pg - 1) / pg * pg;
    *hi = ((uintptr_t)src + len) / pg * pg;
    if (*hi < *lo)
        *hi = *lo;
}

/* Pages [lo, hi) of src, given back after being written at off, read
 * again from the file (the page cache); 0 or DP_EIO. */
static int give_undo(struct dp_spill *s, size_t off, const char *src,
                     uintptr_t lo, uintptr_t hi)
{
    while (lo < hi) {
        ssize_t r = pread(s->fd, (void *)lo, hi - lo,
                          (off_t)(off + (lo - (uintptr_t)src)));

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return DP_EIO;
        lo += (uintptr_t)r;
    }
    return 0;
}

int dp_spill_write_give(struct dp_spill *s, size_t off, void *src, size_t len)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo0, lo, hi, end;
    size_t done = 0, n;
    int rc;

    give_range(src, len, &lo0, &end);
    lo = lo0;
    while (done < len) {
        n = len - done < GIVE_PIECE ? len - done : GIVE_PIECE;
        if ((rc = dp_spill_write(s, off + done, (char *)src + done, n))) {
            /* what went is in the file: src as it was */
            give_undo(s, off, src, lo0, lo);
            return rc;
        }
        done += n;
        hi = ((uintptr_t)src + done) / pg * pg;
        if (hi > end)
            hi = end;
        if (hi > lo) {
            madvise((void *)lo, hi - lo, MADV_DONTNEED);
            lo = hi;
        }
    }
    return 0;
}

static const void *add_map(struct dp_spill *s, void *p, size_t len, size_t off)
{
    s->map[s->n].p = p;
    s->map[s->n].len = len;
    s->map[s->n].off = off;
    s->n++;
    s->bytes += len;
    return p;
}

/* Write len bytes at the end of the file; the returned offset is where
 * they start, or (size_t)-1 with the message set. */
static size_t put(struct dp_spill *s, const void *src, size_t len)
{
    return dp_spill_write(s, s->end, src, len) ? (size_t)-1 : s->end;
}

/* dp_spill_copy, src's pages given back as written when give. */
static const void *copy(struct dp_spill *s, const void *src, size_t bytes,
                        int give)
{
    size_t len = page_up(bytes ? bytes : 1), off = s->end;
    uintptr_t lo, hi;
    void *p;

    if (s->fd < 0 || s->n == DP_SPILL_MAPS) {
        dp_error(DP_EINVAL, "scratch file: not open or full");
        return NULL;
    }
    if (give ? dp_spill_write_give(s, off, (void *)(uintptr_t)src, bytes)
             : dp_spill_write(s, off, src, bytes))
        return NULL;
    s->end = align_up(off + len);
    if (!(p = reserve(len)) || !map_at(s, p, len, off)) {
        dp_error(DP_ENOMEM, "scratch file: cannot map %zu bytes: %s", len,
                 strerror(errno));
        if (p)
            munmap(p, len);
        give_range(src, bytes, &lo, &hi);
        if (give && give_undo(s, off, src, lo, hi))
            dp_error(DP_EIO, "scratch file: cannot read back %zu bytes", bytes);
        return NULL;
    }
    return add_map(s, p, len, off);
}

const void *dp_spill_copy(struct dp_spill *s, const void *src, size_t bytes)
{
    return copy(s, src, bytes, 0);
}

const void *dp_spill_copy_give(struct dp_spill *s, void *src, size_t bytes)
{
    return copy(s, src, bytes, 1);
}

size_t dp_spill_room(struct dp_spill *s, size_t bytes)
{
    size_t off = s->end;

    if (s->fd < 0) {
        dp_error(DP_EINVAL, "scratch file: not open");
        return (size_t)-1;
    }
    /* a hole: no disk until written */
    if (ftruncate(s->fd, (off_t)align_up(off + (bytes ? bytes : 1))) != 0) {
        dp_error(DP_EIO, "scratch file: cannot extend it by %zu bytes: %s",
                 bytes, strerror(errno));
        return (size_t)-1;
    }
    s->end = align_up(off + (bytes ? bytes : 1));
    return off;
}

static void *map_range(struct dp_spill *s, size_t off, size_t bytes, int rw)
{
    /* from the 2 MiB boundary below, so file and memory stay congruent */
    size_t from = off / ALIGN * ALIGN, len = page_up(off - from + bytes + 1);
    char *p;

    if (s->fd < 0 || s->n == DP_SPILL_MAPS) {
        dp_error(DP_EINVAL, "scratch file: not open or full");
        return NULL;
    }
    if (!(p = reserve(len)) || !map_prot(s, p, len, from, rw)) {
        dp_error(DP_ENOMEM, "scratch file: cannot map %zu bytes: %s", len,
                 strerror(errno));
        if (p)
            munmap(p, len);
        return NULL;
    }
    add_map(s, p, len, from);
    return p + (off - from);
}

const void *dp_spill_map(struct dp_spill *s, size_t off, size_t bytes)
{
    return map_range(s, off, bytes, 0);
}

void *dp_spill_map_rw(struct dp_spill *s, size_t off, size_t bytes)
{
    return map_range(s, off, bytes, 1);
}

/* The file offset s's mappings show at at, for len bytes; SIZE_MAX when
 * none of them holds all of them. */
static size_t map_off(const struct dp_spill *s, const void *at, size_t len)
{
    uintptr_t a = (uintptr_t)at;
    int i;

    for (i = 0; i < s->n; i++) {
        uintptr_t p = (uintptr_t)s->map[i].p;

        if (s->map[i].off != SIZE_MAX && a >= p && a - p <= s->map[i].len &&
            len <= s->map[i].len - (a - p))
            return s->map[i].off + (a - p);
    }
    return SIZE_MAX;
}

int dp_spill_read(const struct dp_spill *s, const void *at, void *buf,
                  size_t len)
{
    size_t done = 0, off = map_off(s, at, len);

    if (off == SIZE_MAX || s->fd < 0)
        return -1;
    while (done < len) {
        ssize_t r =
            pread(s->fd, (char *)buf + done, len - done, (off_t)(off + done));

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

void dp_spill_hole(struct dp_spill *s, size_t off, size_t len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), a = page_up(off);

    /* whole pages only; where holes cannot be made the disk stays used */
    if (s->fd >= 0 && off + len > a && (off + len - a) / pg)
        (void)fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                        (off_t)a, (off_t)((off + len - a) / pg * pg));
}

void dp_spill_hole_at(struct dp_spill *s, const void *at, size_t len)
{
    size_t off = map_off(s, at, len);

    if (off != SIZE_MAX)
        dp_spill_hole(s, off, len);
}

const void *dp_spill_fill32(struct dp_spill *s, int32_t v, size_t count)
{
    size_t len = page_up(count ? count * sizeof(v) : 1), i, chunk, off = 0;
    size_t bn = len < ALIGN ? len : ALIGN;
    int32_t *block;
    char *base;

    if (s->fd < 0 || s->n == DP_SPILL_MAPS) {
        dp_error(DP_EINVAL, "scratch file: not open or full");
        return NULL;
    }
    chunk = len < (16u << 20) ? len : 16u << 20; /* a page multiple */
    /* written 2 MiB at a time from filled memory, so the page cache can
     * hold it in huge folios */
    if (!(block = dp_malloc(bn)))
        return NULL;
    for (i = 0; i < bn / sizeof(v); i++)
        block[i] = v;
    for (i = 0; i < chunk; i += bn) {
        size_t k = chunk - i < bn ? chunk - i : bn;
        size_t at = put(s, block, k);

        if (at == (size_t)-1) {
            free(block);
            return NULL;
        }
        if (i == 0)
            off = at;
        s->end = at + k;
    }
    free(block);
    s->end = align_up(s->end);
    /* one reserved range, the chunk mapped over it again and again */
    if (!(base = reserve(len))) {
        dp_error(DP_ENOMEM, "scratch file: cannot reserve %zu bytes: %s", len,
                 strerror(errno));
        return NULL;
    }
    for (i = 0; i < len; i += chunk)
        if (!map_at(s, base + i, len - i < chunk ? len - i : chunk, off)) {
            dp_error(DP_ENOMEM, "scratch file: cannot map %zu bytes: %s", len,
                     strerror(errno));
            munmap(base, len);
            return NULL;
        }
    return add_map(s, base, len, SIZE_MAX);
}

void dp_spill_drop(struct dp_spill *s)
{
    int i;

    for (i = 0; i < s->n; i++)
        madvise(s->map[i].p, s->map[i].len, MADV_DONTNEED);
}

/* This process's resident pages: anonymous (statm's resident minus its
 * file-backed and shared ones) into *anon, those others into *file; 0
 * when unknown. */
static int resident_pages(size_t *anon, size_t *file)
{
    char buf[160];
    unsigned long long size, res, shared;
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    if (sscanf(buf, "%llu %llu %llu", &size, &res, &shared) != 3 ||
        shared > res)
        return 0;
    *anon = (size_t)(res - shared);
    *file = (size_t)shared;
    return 1;
}

static size_t anon_pages(void)
{
    size_t a, f;

    return resident_pages(&a, &f) ? a : 0;
}

/* A thread that runs tick every period_ms until stopped. */
struct watch {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, period_ms;
    void (*tick)(struct watch *w);
    struct dp_spill *s;      /* dp_spill_watch */
    size_t own, high;        /* dp_spill_watch */
    size_t cap, ceiling;     /* dp_file_watch(_under), in pages */
    void (*drop)(void *arg); /* dp_file_watch */
    void *arg;               /* dp_file_watch */
};

static void *watch_run(void *arg)
{
    struct watch *w = arg;
    struct timespec at;

    pthread_mutex_lock(&w->mu);
    clock_gettime(CLOCK_REALTIME, &at);
    for (;;) {
        at.tv_nsec += (long)w->period_ms * 1000000L;
        at.tv_sec += at.tv_nsec / 1000000000L;
        at.tv_nsec %= 1000000000L;
        while (!w->stop &&
               pthread_cond_timedwait(&w->cv, &w->mu, &at) != ETIMEDOUT)
            ;
        if (w->stop)
            break;
        w->tick(w);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static struct watch *watch_start(struct watch *w)
{
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->tid, NULL, watch_run, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return NULL;
    }
    return w;
}

static void watch_stop(struct watch *w)
{
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->tid, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

static void spill_tick(struct watch *w)
{
    size_t a = anon_pages();

    /* below the high point by more than our size: leave the pages, the
     * step is reading them (METIS's last, finest level) */
    if (a + w->own > w->high)
        dp_spill_drop(w->s);
    if (a > w->high)
        w->high = a;
}

void dp_spill_watch(struct dp_spill *s, int on)
{
    struct watch *w = s->watch;

    if (on && !w && s->n) {
        if (!(w = dp_calloc(1, sizeof(*w))))
            return;
        w->s = s;
        w->tick = spill_tick;
        w->period_ms = 1000;
        w->own = s->bytes / (size_t)sysconf(_SC_PAGESIZE);
        w->high = anon_pages();
        s->watch = watch_start(w);
    } else if (!on && w) {
        watch_stop(w);
        s->watch = NULL;
    }
}

static void file_tick(struct watch *w)
{
    size_t a, f;

    if (resident_pages(&a, &f) && f > w->cap && a + f > w->ceiling)
        w->drop(w->arg);
}

void *dp_file_watch_under(size_t cap, size_t ceiling, void (*drop)(void *arg),
                          void *arg)
{
    struct watch *w = dp_calloc(1, sizeof(*w));
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);

    if (!w)
        return NULL;
    w->tick = file_tick;
    /* page-cache hits fault in at GB/s: rmat 27's first contraction
     * passed a 1 GiB cap by 1.5 GiB between ticks 100 ms apart */
    w->period_ms = 10;
    w->cap = cap / pg;
    w->ceiling = ceiling / pg;
    w->drop = drop;
    w->arg = arg;
    return watch_start(w);
}

void *dp_file_watch(size_t cap, void (*drop)(void *arg), void *arg)
{
    return dp_file_watch_under(cap, 0, drop, arg);
}

void dp_file_watch_stop(void *w)
{
    if (w)
        watch_stop(w);
}

void dp_spill_close(struct dp_spill *s)
{
    int i;

    dp_spill_watch(s, 0);
    for (i = 0; i < s->n; i++)
        munmap(s->map[i].p, s->map[i].len);
    if (s->fd >= 0)
        close(s->fd);
    memset(s, 0, sizeof(*s));
    s->fd = -1;
}
