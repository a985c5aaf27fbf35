/* Bucket chunks in a scratch file, for convert's buckets past the spill
 * point. Each bucket fills a chunk buffer; a full one goes to a thread
 * that writes it past the page cache (O_DIRECT: no page-cache pages to
 * fault in, none in the resident set) while the parser goes on, and the
 * buffer comes back for another bucket. When the writer falls behind, a
 * chunk stays in memory instead: the parser never waits on the disk. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/memory.h"

/* chunks one pwritev takes: consecutive in the file */
#define BATCH 16

struct pending {
    void *buf;
    uint64_t at;
};

struct cv_chunks {
    int fd;
    char *dir; /* for messages: the file itself has no name */
    size_t bytes;
    pthread_t tid;
    int running;
    pthread_mutex_t mu;
    pthread_cond_t work;
    struct pending *q; /* a ring of qcap */
    int qhead, qn, qcap, stop;
    void **spare; /* buffers written, free for reuse */
    size_t nspare, spare_cap;
    uint64_t next; /* chunks given a place in the file */
    int err;       /* errno of a failed write; nothing more is written */
    uint64_t written, kept;
};

/* Write n chunks from q[0..n) at q[0].at on: one call, or one each when
 * the file system returns short. */
static int write_run(struct cv_chunks *s, const struct pending *q, int n)
{
    struct iovec iov[BATCH];
    ssize_t r;
    int i;

    for (i = 0; i < n; i++) {
        iov[i].iov_base = q[i].buf;
        iov[i].iov_len = s->bytes;
    }
    r = pwritev(s->fd, iov, n, (off_t)(q[0].at * s->bytes));
    if (r == (ssize_t)(s->bytes * (size_t)n))
        return 0;
    if (r < 0)
        return errno;
    for (i = 0; i < n; i++) {
        size_t off = 0;

        while (off < s->bytes) {
            r = pwrite(s->fd, (char *)q[i].buf + off, s->bytes - off,
                       (off_t)(q[i].at * s->bytes + off));
            if (r <= 0)
                return r < 0 ? errno : ENOSPC;
            off += (size_t)r;
        }
    }
    return 0;
}

static int write_failed(const struct cv_chunks *s, int err)
{
    /* a file system that takes O_DIRECT at open but not at write */
    return dp_error(DP_EIO, "'%s': cannot write the edges' scratch file: %s%s",
                    s->dir, strerror(err),
                    err == EINVAL ? " (DGLPART_DIRECT_IO=0 avoids direct I/O)"
                                  : "");
}

static void *writer(void *arg)
{
    struct cv_chunks *s = arg;
    struct pending run[BATCH];
    int n, i, err;

    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->qn && !s->stop)
            pthread_cond_wait(&s->work, &s->mu);
        if (!s->qn)
            break;
        /* the ring holds consecutive places: take a run */
        for (n = 0; n < s->qn && n < BATCH; n++)
            run[n] = s->q[(s->qhead + n) % s->qcap];
        err = s->err;
        pthread_mutex_unlock(&s->mu);
        if (!err)
            err = write_run(s, run, n);
        pthread_mutex_lock(&s->mu);
        if (err && !s->err)
            s->err = err;
        s->qhead = (s->qhead + n) % s->qcap;
        s->qn -= n;
        if (!err)
            s->written += (uint64_t)n;
        for (i = 0; i < n; i++) /* room reserved when queued */
            s->spare[s->nspare++] = run[i].buf;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int cv_chunks_open(struct cv_chunks **out, const char *dir, size_t bytes,
                   int queue)
{
    struct cv_chunks *s;
    struct dp_spill sp;
    int rc, fl;

    *out = NULL;
    if ((rc = dp_spill_open(&sp, dir)))
        return rc;
    fl = fcntl(sp.fd, F_GETFL);
    if (fl < 0 || fcntl(sp.fd, F_SETFL, fl | O_DIRECT)) {
        rc = dp_error(DP_EUNSUPPORTED, "'%s' refuses direct I/O: %s", dir,
                      strerror(errno));
        close(sp.fd);
        return rc;
    }
    if (!(s = dp_calloc(1, sizeof(*s)))) {
        close(sp.fd);
        return DP_ENOMEM;
    }
    s->fd = sp.fd;
    s->bytes = bytes;
    s->qcap = queue > 0 ? queue : 1;
    s->dir = dp_strdup(dir);
    s->q = dp_malloc_array((size_t)s->qcap, sizeof(*s->q));
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work, NULL);
    if (queue <= 0) /* keep every chunk in memory (tests) */
        s->err = -1;
    if (!s->dir || !s->q) {
        cv_chunks_close(s);
        return DP_ENOMEM;
    }
    if (pthread_create(&s->tid, NULL, writer, s)) {
        cv_chunks_close(s);
        return dp_error(DP_ENOMEM, "cannot start the scratch writer");
    }
    s->running = 1;
    *out = s;
    return 0;
}

uint32_t *cv_chunks_buf(struct cv_chunks *s)
{
    void *p = NULL;

    pthread_mutex_lock(&s->mu);
    if (s->nspare)
        p = s->spare[--s->nspare];
    pthread_mutex_unlock(&s->mu);
    /* a whole page past the chunk: a bucket's last entry may run over */
    if (!p && posix_memalign(&p, 4096, s->bytes + 4096))
        p = NULL;
    return p;
}

int cv_chunks_put(struct cv_chunks *s, void *buf, uint64_t *at)
{
    int err, i;

    *at = UINT64_MAX;
    pthread_mutex_lock(&s->mu);
    err = s->err;
    if (!err && s->qn == s->qcap)
        err = -1; /* behind: the chunk stays in memory */
    if (!err && s->nspare + (size_t)s->qn >= s->spare_cap) {
        size_t cap = s->spare_cap ? 2 * s->spare_cap : 64;
        void **sp = dp_realloc_array(s->spare, cap, sizeof(*sp));

        if (sp) {
            s->spare = sp;
            s->spare_cap = cap;
        } else {
            err = -1;
        }
    }
    if (!err) {
        i = (s->qhead + s->qn) % s->qcap;
        s->q[i].buf = buf;
        s->q[i].at = *at = s->next++;
        s->qn++;
        pthread_cond_signal(&s->work);
    } else if (err == -1) {
        s->kept++;
    }
    pthread_mutex_unlock(&s->mu);
    return err > 0 ? write_failed(s, err) : 0;
}

int cv_chunks_sync(struct cv_chunks *s)
{
    int err, i;

    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    if (s->running)
        pthread_join(s->tid, NULL);
    s->running = 0;
    err = s->err;
    for (i = 0; i < (int)s->nspare; i++)
        free(s->spare[i]);
    s->nspare = 0;
    dp_log(DP_LOG_V,
           "buckets: %" PRIu64 " chunks of %zu KiB to a scratch file, %" PRIu64
           " kept in memory",
           s->written, s->bytes >> 10, s->kept);
    return err > 0 ? write_failed(s, err) : 0;
}

int cv_chunks_read(struct cv_chunks *s, uint64_t at, void *buf)
{
    size_t off = 0;
    ssize_t r;

    while (off < s->bytes) {
        r = pread(s->fd, (char *)buf + off, s->bytes - off,
                  (off_t)(at * s->bytes + off));
        if (r <= 0)
            return dp_error(DP_EIO,
                            "'%s': cannot read the edges' scratch file at "
                            "byte %" PRIu64 ": %s",
                            s->dir, at * s->bytes + off,
                            r < 0 ? strerror(errno) : "end of file");
        off += (size_t)r;
    }
    return 0;
}

size_t cv_chunks_bytes(const struct cv_chunks *s)
{
    return s->bytes;
}

void cv_chunks_close(struct cv_chunks *s)
{
    size_t i;

    if (!s)
        return;
    if (s->running) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        s->err = s->err ? s->err : -1; /* nothing more to write */
        pthread_cond_signal(&s->work);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->tid, NULL);
    }
    for (i = 0; i < s->nspare; i++)
        free(s->spare[i]);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->work);
    close(s->fd);
    free(s->spare);
    free(s->q);
    free(s->dir);
    free(s);
}
