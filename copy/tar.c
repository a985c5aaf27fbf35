/* The tar stream of a unit list (libarchive, pax format): the only file
 * that sees struct archive on the writing side. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/copy.h"
#include "dglpart/dynlib.h"
#include "dglpart/error.h"
#include "dglpart/progress.h"

#define CHUNK (1u << 20)

struct sink {
    int fd;
    volatile uint64_t *written;
    uint64_t total;
    double rate, start;
    volatile int *cancel;
    int err; /* errno of a failed write */
};

static la_ssize_t sink_write(struct archive *a, void *ctx, const void *p,
                             size_t n)
{
    struct sink *s = ctx;
    const char *c = p;
    size_t left = n;

    (void)a;
    while (left) {
        size_t step = left;
        ssize_t w;

        if (s->cancel && *s->cancel) {
            s->err = ECANCELED;
            return -1;
        }
        if (s->rate > 0) {
            /* Sleep until the bytes already sent fit the rate; credit
             * saved while the other end was slow (ssh connecting) is
             * capped at a quarter second, so no burst follows. */
            double due = (double)s->total / s->rate, now = dp_now();
            double ahead;

            if (now - s->start - due > 0.25)
                s->start = now - due - 0.25;
            ahead = due - (now - s->start);

            if (ahead > 0) {
                struct timespec ts;

                if (ahead > 0.2)
                    ahead = 0.2;
                ts.tv_sec = 0;
                ts.tv_nsec = (long)(ahead * 1e9);
                nanosleep(&ts, NULL);
                continue;
            }
            if (step > 65536)
                step = 65536;
        }
        w = write(s->fd, c, step);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            s->err = errno;
            return -1;
        }
        c += w;
        left -= (size_t)w;
        s->total += (uint64_t)w;
        if (s->written)
            *s->written = s->total;
    }
    return (la_ssize_t)n;
}

/* path: the file being written, quoted in the message; NULL: the stream. */
static int tar_fail(struct archive *a, struct sink *s, const char *path)
{
    const char *q = path ? "'" : "";

    if (!path)
        path = "the stream";
    if (s->err == ECANCELED)
        return dp_error(DP_EINTR, "transfer cancelled");
    if (s->err)
        return dp_error(DP_EIO, "sending %s%s%s: %s", q, path, q,
                        s->err == EPIPE ? "the connection closed"
                                        : strerror(s->err));
    return dp_error(DP_EIO, "tar of %s%s%s: %s", q, path, q,
                    archive_error_string(a));
}

static int write_file(struct archive *a, struct sink *s,
                      const struct dp_item *it, char *buf)
{
    int fd = open(it->src, O_RDONLY | O_CLOEXEC);
    uint64_t left = it->size;
    int rc = 0;

    if (fd < 0)
        return dp_error(DP_EIO, "cannot read '%s': %s", it->src,
                        strerror(errno));
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    while (left) {
        ssize_t n = read(fd, buf, left < CHUNK ? left : CHUNK);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = dp_error(DP_EIO, "cannot read '%s': %s", it->src,
                          strerror(errno));
            break;
        }
        if (n == 0) {
            rc = dp_error(DP_EIO, "'%s' shrank while being sent", it->src);
            break;
        }
        if (archive_write_data(a, buf, (size_t)n) != n) {
            rc = tar_fail(a, s, it->src);
            break;
        }
        left -= (uint64_t)n;
    }
    close(fd);
    return rc;
}

int dp_tar_write(int fd, const struct dp_items *l, volatile uint64_t *written,
                 double rate, volatile int *cancel)
{
    struct archive *a;
    struct archive_entry *e;
    struct sink s;
    char *buf;
    time_t now = time(NULL);
    int i, rc = dp_need_archive();

    if (rc)
        return rc;
    a = archive_write_new();
    e = archive_entry_new();
    buf = dp_malloc(CHUNK);

    memset(&s, 0, sizeof(s));
    s.fd = fd;
    s.written = written;
    s.rate = rate;
    s.start = dp_now();
    s.cancel = cancel;
    if (!a || !e || !buf) {
        rc = dp_error(DP_ENOMEM, "out of memory starting a tar stream");
        goto out;
    }
    if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_set_bytes_per_block(a, 65536) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
        archive_write_open2(a, &s, NULL, sink_write, NULL, NULL) !=
            ARCHIVE_OK) {
        rc = tar_fail(a, &s, NULL);
        goto out;
    }
    for (i = 0; i < l->count && !rc; i++) {
        const struct dp_item *it = &l->v[i];

        archive_entry_clear(e);
        archive_entry_set_pathname(e, it->name);
        archive_entry_set_perm(e, it->mode);
        archive_entry_set_mtime(e, now, 0);
        if (it->is_dir) {
            archive_entry_set_filetype(e, AE_IFDIR);
        } else {
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_size(e, (la_int64_t)it->size);
        }
        if (archive_write_header(a, e) != ARCHIVE_OK) {
            rc = tar_fail(a, &s, it->name);
            break;
        }
        if (it->is_dir)
            continue;
        if (it->src)
            rc = write_file(a, &s, it, buf);
        else if (it->size && archive_write_data(a, it->data, it->size) !=
                                 (la_ssize_t)it->size)
            rc = tar_fail(a, &s, it->name);
        if (!rc && archive_write_finish_entry(a) != ARCHIVE_OK)
            rc = tar_fail(a, &s, it->name);
    }
    if (!rc && archive_write_close(a) != ARCHIVE_OK)
        rc = tar_fail(a, &s, NULL);
out:
    if (a)
        archive_write_free(a);
    archive_entry_free(e);
    free(buf);
    return rc;
}
