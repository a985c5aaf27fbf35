/* The fetcher: one libcurl easy handle per attempt writing to name.part,
 * resumed with Range, retried with exponential backoff, then verified and
 * renamed. libcurl's errors are translated here and nowhere else. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/download.h"
#include "dglpart/dynlib.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/progress.h"

void dp_download_opts_init(struct dp_download_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->retries = 5;
    o->timeout = 60;
    o->bomb_factor = 50;
}

const char *dp_download_data_dir(const struct dp_download_opts *o)
{
    if (o->data_dir && *o->data_dir)
        return o->data_dir;
    return dp_env_str("DGLPART_DATA_DIR");
}

char *dp_mirror_url(const char *url, const char *mirror)
{
    const char *rest = strstr(url, "://");
    size_t mlen = strlen(mirror);
    char *out;

    while (mlen > 0 && mirror[mlen - 1] == '/')
        mlen--;
    if (!rest)
        rest = url;
    else if (!strncmp(url, "file://", 7))
        rest = url + 7;
    else if (!(rest = strchr(rest + 3, '/')))
        rest = "/";
    out = dp_malloc(mlen + strlen(rest) + 2);
    if (!out)
        return NULL;
    memcpy(out, mirror, mlen);
    strcpy(out + mlen, *rest == '/' ? "" : "/");
    strcat(out, rest);
    return out;
}

/* The digest runs in a thread that reads back what the transfer wrote
 * (from the page cache), so hashing overlaps the network instead of adding
 * to it; it also hashes a resumed file's prefix while new bytes arrive. */
struct hasher {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;
    uint64_t avail; /* bytes in the file that may be hashed */
    uint64_t hashed;
    int done; /* no more bytes will come */
    int waiting;
    int err; /* errno of a failed read */
    struct dp_sha256 *sha;
};

static void *hasher_main(void *arg)
{
    struct hasher *h = arg;
    char *buf = dp_malloc(1 << 20);

    if (!buf) {
        h->err = ENOMEM;
        return NULL;
    }
    for (;;) {
        uint64_t target;
        int done;

        pthread_mutex_lock(&h->mu);
        while (h->hashed == h->avail && !h->done) {
            h->waiting = 1;
            pthread_cond_wait(&h->cv, &h->mu);
            h->waiting = 0;
        }
        target = h->avail;
        done = h->done;
        pthread_mutex_unlock(&h->mu);
        if (done && h->hashed == target)
            break;
        while (h->hashed < target) {
            size_t want = target - h->hashed < (1 << 20)
                              ? (size_t)(target - h->hashed)
                              : (1 << 20);
            ssize_t r = pread(h->fd, buf, want, (off_t)h->hashed);

            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                h->err = r < 0 ? errno : EIO;
                free(buf);
                return NULL;
            }
            dp_sha256_update(h->sha, buf, (size_t)r);
            h->hashed += (uint64_t)r;
        }
    }
    free(buf);
    return NULL;
}

/* Start hashing fd from byte 0; the first avail bytes are there already. */
static struct hasher *hasher_start(int fd, uint64_t avail)
{
    struct hasher *h = dp_calloc(1, sizeof(*h));

    if (!h || !(h->sha = dp_sha256_new())) {
        free(h);
        return NULL;
    }
    h->fd = fd;
    h->avail = avail;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    if (pthread_create(&h->th, NULL, hasher_main, h) != 0) {
        char junk[65];

        dp_sha256_final(h->sha, junk);
        free(h);
        return NULL;
    }
    return h;
}

static void hasher_avail(struct hasher *h, uint64_t avail)
{
    pthread_mutex_lock(&h->mu);
    h->avail = avail;
    if (h->waiting)
        pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

/* Wait for the last byte, free h; 0 and the digest, or an errno. */
static int hasher_finish(struct hasher *h, char out[65])
{
    int err;

    pthread_mutex_lock(&h->mu);
    h->done = 1;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->th, NULL);
    dp_sha256_final(h->sha, out);
    err = h->err;
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
    return err;
}

/* The file was truncated: hash it again from byte 0. */
static struct hasher *hasher_restart(struct hasher *h)
{
    char junk[65];
    int fd = h->fd;

    hasher_finish(h, junk);
    return hasher_start(fd, 0);
}

/* State shared by the libcurl callbacks of one transfer. */
struct xfer {
    int fd;
    const char *url;
    uint64_t offset;      /* bytes in the file when the attempt began */
    uint64_t written;     /* bytes written by this attempt */
    uint64_t total;       /* whole-file size the server announced; 0 unknown */
    int checked;          /* the response was accepted (first body byte) */
    int range_mismatch;   /* 206 for another offset: retry from 0 */
    long range_start;     /* Content-Range start of the final response */
    uint64_t range_total; /* Content-Range total ("*" / absent: 0) */
    int is_http;
    const char *idpath; /* name.part.id: the validator of the part's bytes */
    char sent_id[256];  /* validator sent as If-Range ("" none) */
    char etag[256];     /* of the final response ("" none) */
    char lastmod[128];
    int rc;             /* code of the last failure */
    int werr;           /* errno of a failed write */
    struct hasher *sha; /* NULL when no digest is wanted */
    struct dp_progress *bar;
    CURL *curl;
};

static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
    struct xfer *x = arg;
    size_t total = size * n, len = total;
    char line[256];
    unsigned long long a, b, t;

    if (len >= sizeof(line))
        return total;
    memcpy(line, buf, len);
    line[len] = '\0';
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        line[--len] = '\0';
    if (!strncmp(line, "HTTP/", 5)) {
        x->range_start = -1;
        x->range_total = 0;
        x->etag[0] = x->lastmod[0] = '\0';
    } else if (!strncasecmp(line, "ETag:", 5)) {
        snprintf(x->etag, sizeof(x->etag), "%s",
                 line + 5 + strspn(line + 5, " "));
    } else if (!strncasecmp(line, "Last-Modified:", 14)) {
        snprintf(x->lastmod, sizeof(x->lastmod), "%s",
                 line + 14 + strspn(line + 14, " "));
    } else if (!strncasecmp(line, "Content-Range:", 14)) {
        if (sscanf(line + 14, " bytes %llu-%llu/%llu", &a, &b, &t) == 3) {
            x->range_start = (long)a;
            x->range_total = t;
        } else if (sscanf(line + 14, " bytes */%llu", &t) == 1) {
            x->range_total = t;
        }
    }
    return total;
}

/* Remember what identifies the bytes now going into the part file (a
 * strong ETag, else Last-Modified), so that a resume can send If-Range and
 * a changed file restarts instead of being spliced. */
static void save_id(struct xfer *x)
{
    const char *id =
        x->etag[0] && strncmp(x->etag, "W/", 2) ? x->etag : x->lastmod;

    if (*id)
        dp_write_file(x->idpath, id, strlen(id));
    else
        unlink(x->idpath);
}

/* The first body byte: the final response is known; decide whether it
 * continues the file, restarts it, or is refused. */
static int accept_response(struct xfer *x)
{
    long code = 0;
    curl_off_t cl = -1;

    x->checked = 1;
    curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(x->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
    if (!x->is_http) {
        struct stat st;

        if (cl >= 0)
            x->total = x->offset + (uint64_t)cl;
        else if (!strncmp(x->url, "file://", 7) && !stat(x->url + 7, &st))
            x->total = (uint64_t)st.st_size; /* for the bar only */
        if (x->bar && x->total)
            x->bar->total = x->total;
        return 0;
    }
    if (x->offset > 0 && code == 200) {
        /* Range ignored: the body is the whole file from byte 0. */
        if (x->sha && !(x->sha = hasher_restart(x->sha))) {
            x->werr = ENOMEM;
            return -1;
        }
        if (ftruncate(x->fd, 0) != 0 || lseek(x->fd, 0, SEEK_SET) != 0) {
            x->werr = errno;
            return -1;
        }
        x->offset = 0;
        dp_log(DP_LOG_V, "'%s' ignores Range; starting again from byte 0",
               x->url);
    } else if (x->offset > 0 && code == 206 &&
               x->range_start != (long)x->offset) {
        x->range_mismatch = 1;
        return -1;
    }
    if (x->offset == 0)
        save_id(x);
    if (code == 206 && x->range_total)
        x->total = x->range_total;
    else if (cl >= 0)
        x->total = x->offset + (uint64_t)cl;
    if (x->bar && x->total)
        x->bar->total = x->total;
    return 0;
}

static size_t on_body(char *buf, size_t size, size_t n, void *arg)
{
    struct xfer *x = arg;
    size_t len = size * n, done = 0;

    if (!x->checked && accept_response(x))
        return 0;
    while (done < len) {
        ssize_t w = write(x->fd, buf + done, len - done);

        if (w < 0) {
            if (errno == EINTR)
                continue;
            x->werr = errno;
            return 0;
        }
        done += (size_t)w;
    }
    x->written += len;
    if (x->sha)
        hasher_avail(x->sha, x->offset + x->written);
    if (x->bar)
        dp_progress_update(x->bar, x->offset + x->written);
    return len;
}

/* The saved validator of a part file: 1 and out set, or 0. */
static int load_id(const char *path, char *out, size_t len)
{
    char *text = NULL;
    size_t n;
    int ok = 0;

    if (dp_exists(path) && !dp_read_file(path, len - 1, &text, &n) && n &&
        !strpbrk(text, "\r\n")) {
        memcpy(out, text, n + 1);
        ok = 1;
    }
    free(text);
    return ok;
}

enum attempt { ATT_DONE, ATT_RETRY, ATT_FATAL };

/* One transfer from x->offset; returns what the caller should do next, with
 * a message recorded for ATT_RETRY and ATT_FATAL. */
static enum attempt attempt(struct xfer *x, const struct dp_download_opts *o)
{
    char errbuf[CURL_ERROR_SIZE] = "", range[32], ifrange[300];
    struct curl_slist *hdrs = NULL;
    CURL *c = curl_easy_init();
    CURLcode cc;
    long code = 0;

    if (!c) {
        x->rc = dp_error(DP_ENOMEM, "cannot start libcurl");
        return ATT_FATAL;
    }
    x->curl = c;
    x->checked = 0;
    x->written = 0;
    x->range_mismatch = 0;
    x->range_start = -1;
    x->range_total = 0;
    curl_easy_setopt(c, CURLOPT_URL, x->url);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "dglpart/0.1");
    curl_easy_setopt(c, CURLOPT_BUFFERSIZE, 512L * 1024);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o->timeout);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, o->timeout);
    if (x->is_http && x->offset > 0) {
        /* A plain Range header: curl's resume option would fail on a server
         * that ignores it, where we want to restart from byte 0. */
        snprintf(range, sizeof(range), "%llu-", (unsigned long long)x->offset);
        curl_easy_setopt(c, CURLOPT_RANGE, range);
        if (load_id(x->idpath, x->sent_id, sizeof(x->sent_id))) {
            snprintf(ifrange, sizeof(ifrange), "If-Range: %s", x->sent_id);
            hdrs = curl_slist_append(NULL, ifrange);
            curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
        }
    } else if (x->offset > 0) {
        curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)x->offset);
    }
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
    cc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    if (cc == CURLE_OK && !x->checked)
        accept_response(x); /* empty body */
    curl_easy_cleanup(c);
    curl_slist_free_all(hdrs);
    x->curl = NULL;
    if (!errbuf[0])
        snprintf(errbuf, sizeof(errbuf), "%s", curl_easy_strerror(cc));

    switch (cc) {
    case CURLE_OK:
        return ATT_DONE;
    case CURLE_WRITE_ERROR:
        if (x->range_mismatch) {
            x->rc = dp_error(DP_EPROTO,
                             "'%s': server answered a different range", x->url);
            return ATT_RETRY;
        }
        if (x->werr) {
            x->rc = dp_error(DP_EIO, "'%s': write failed: %s", x->url,
                             strerror(x->werr));
            return ATT_FATAL;
        }
        x->rc = dp_error(DP_ENET, "'%s': %s", x->url, errbuf);
        return ATT_FATAL;
    case CURLE_BAD_DOWNLOAD_RESUME:
    case CURLE_RANGE_ERROR:
        /* The part file is longer than the source, or it cannot be
         * continued: start again from byte 0. */
        x->rc = dp_error(DP_EPROTO, "'%s': cannot resume at byte %llu: %s",
                         x->url, (unsigned long long)x->offset, errbuf);
        x->range_mismatch = 1;
        return ATT_RETRY;
    case CURLE_HTTP_RETURNED_ERROR:
        if (code == 416 && x->offset > 0) {
            /* The part file is already whole, or longer than the file. */
            if (x->range_total == x->offset) {
                x->total = x->range_total;
                return ATT_DONE;
            }
            x->rc = dp_error(DP_EPROTO, "'%s': HTTP 416 resuming at byte %llu",
                             x->url, (unsigned long long)x->offset);
            x->range_mismatch = 1;
            return ATT_RETRY;
        }
        x->rc = dp_error(DP_ENET, "'%s': HTTP %ld", x->url, code);
        if (code >= 500 || code == 408 || code == 429)
            return ATT_RETRY;
        return ATT_FATAL;
    case CURLE_OPERATION_TIMEDOUT:
        x->rc = dp_error(DP_ENET, "'%s': timed out (no data for %ld s): %s",
                         x->url, o->timeout, errbuf);
        return ATT_RETRY;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_WEIRD_SERVER_REPLY:
        x->rc = dp_error(DP_ENET, "'%s': %s", x->url, errbuf);
        return ATT_RETRY;
    default:
        x->rc = dp_error(DP_ENET, "'%s': %s", x->url, errbuf);
        return ATT_FATAL;
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static long backoff_ms(int fails)
{
    int64_t ms = 1000;
    int i;

    dp_env_int("DGLPART_RETRY_DELAY_MS", &ms);
    for (i = 1; i < fails && ms < 30000; i++)
        ms *= 2;
    return ms > 30000 ? 30000 : ms;
}

static void summary(const char *label, const char *url, uint64_t bytes,
                    double secs, int resumed)
{
    char b[32], r[32];

    dp_fmt_bytes(bytes, b, sizeof(b));
    dp_fmt_bytes(secs > 0 ? (uint64_t)((double)bytes / secs) : 0, r, sizeof(r));
    dp_log(DP_LOG_INFO, "%s: %s in %.1f s (%s/s)%s from %s", label, b, secs, r,
           resumed ? ", resumed" : "", url);
}

int dp_download_file(const char *url, const char *dest, const char *label,
                     const struct dp_download_opts *o, uint64_t expect_size,
                     const char *expect_sha, char sha_out[65])
{
    static int curl_ready;
    struct xfer x;
    struct dp_progress bar;
    struct stat st;
    char *part = NULL, *idpath = NULL, got[65] = "";
    int rc = 0, fails = 0, want_sha = expect_sha != NULL;
    int resumed = 0, drawn = 0, grew;
    uint64_t fetched = 0, best = 0;
    double t0 = dp_now();

    if ((rc = dp_need_curl()))
        return rc;
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return dp_error(DP_ENET, "libcurl failed to initialise");
        curl_ready = 1;
    }
    memset(&x, 0, sizeof(x));
    x.fd = -1;
    x.url = url;
    x.is_http =
        !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
    part = dp_malloc(strlen(dest) + 6);
    idpath = dp_malloc(strlen(dest) + 9);
    if (!part || !idpath) {
        free(part);
        free(idpath);
        return DP_ENOMEM;
    }
    sprintf(part, "%s.part", dest);
    sprintf(idpath, "%s.part.id", dest);
    x.idpath = idpath;
    x.fd = open(part, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (x.fd < 0 || fstat(x.fd, &st) != 0) {
        rc = dp_error(DP_EIO, "'%s': %s", part, strerror(errno));
        goto out;
    }
    x.offset = (uint64_t)st.st_size;
    if (expect_size && x.offset > expect_size) {
        if (ftruncate(x.fd, 0) != 0) {
            rc = dp_error(DP_EIO, "'%s': %s", part, strerror(errno));
            goto out;
        }
        x.offset = 0;
    }
    resumed = x.offset > 0;
    best = x.offset;
    if (want_sha && !(x.sha = hasher_start(x.fd, x.offset))) {
        rc = dp_error(DP_ENOMEM, "cannot start the sha256 thread");
        goto out;
    }
    if (lseek(x.fd, (off_t)x.offset, SEEK_SET) < 0) {
        rc = dp_error(DP_EIO, "'%s': %s", part, strerror(errno));
        goto out;
    }
    dp_progress_start(&bar, label, expect_size, 1);
    if (o->no_progress)
        bar.active = 0;
    x.bar = &bar;
    for (;;) {
        enum attempt a;

        if (expect_size && x.offset == expect_size)
            break; /* a previous run got every byte; just verify */
        a = attempt(&x, o);
        fetched += x.written;
        x.offset += x.written;
        if (a == ATT_DONE)
            break;
        if (a == ATT_FATAL) {
            rc = x.rc ? x.rc : DP_ENET;
            goto bar_out;
        }
        if (x.range_mismatch) {
            /* Start over: the server cannot continue our bytes. */
            if (ftruncate(x.fd, 0) != 0 || lseek(x.fd, 0, SEEK_SET) != 0) {
                rc = dp_error(DP_EIO, "'%s': %s", part, strerror(errno));
                goto bar_out;
            }
            x.offset = 0;
            if (x.sha && !(x.sha = hasher_restart(x.sha))) {
                rc = dp_error(DP_ENOMEM, "cannot start the sha256 thread");
                goto bar_out;
            }
        }
        grew = x.offset > best;
        if (grew) {
            /* The file grew: the retry budget starts again. A server that
             * keeps restarting from 0 and dropping never gets here. */
            best = x.offset;
            fails = 0;
        }
        if (++fails > o->retries) {
            rc = dp_error(DP_ENET, "%s (gave up after %d retries)", dp_errmsg(),
                          o->retries);
            goto bar_out;
        }
        dp_log(DP_LOG_V, "%s; retrying at byte %llu", dp_errmsg(),
               (unsigned long long)x.offset);
        if (!grew)
            sleep_ms(backoff_ms(fails));
    }
bar_out:
    drawn = bar.active;
    if (bar.active)
        dp_progress_end(&bar);
    if (rc)
        goto out;
    if (x.total && x.offset != x.total) {
        rc = dp_error(DP_ENET,
                      "'%s': got %llu bytes, the server announced "
                      "%llu",
                      url, (unsigned long long)x.offset,
                      (unsigned long long)x.total);
        goto out;
    }
    if (expect_size && x.offset != expect_size) {
        rc = dp_error(DP_ECHECKSUM, "'%s': size is %llu bytes, expected %llu",
                      url, (unsigned long long)x.offset,
                      (unsigned long long)expect_size);
        unlink(part);
        unlink(idpath);
        goto out;
    }
    if (x.sha) {
        int err = hasher_finish(x.sha, got);

        x.sha = NULL;
        if (err) {
            rc = dp_error(DP_EIO, "'%s': %s", part, strerror(err));
            goto out;
        }
        if (*expect_sha && strcmp(got, expect_sha)) {
            rc = dp_error(DP_ECHECKSUM,
                          "'%s': sha256 is %s, expected %s; the download "
                          "was removed",
                          url, got, expect_sha);
            unlink(part);
            unlink(idpath);
            unlink(idpath);
            goto out;
        }
    }
    /* No fsync here (curl and wget have none either): it costs a third of
     * a loopback fetch. The stamp records the bytes of the finished folder
     * and the cache check compares them, so a file cut short by a crash is
     * fetched again rather than trusted. */
    if (close(x.fd) != 0) {
        x.fd = -1;
        rc = dp_error(DP_EIO, "'%s': %s", part, strerror(errno));
        goto out;
    }
    x.fd = -1;
    unlink(idpath);
    if (rename(part, dest) != 0) {
        rc = dp_error(DP_EIO, "cannot rename '%s' to '%s': %s", part, dest,
                      strerror(errno));
        goto out;
    }
    if (!drawn)
        summary(label, url, fetched, dp_now() - t0, resumed);
    if (sha_out)
        memcpy(sha_out, got, 65);
out:
    if (x.sha)
        hasher_finish(x.sha, got);
    if (x.fd >= 0)
        close(x.fd);
    free(part);
    free(idpath);
    return rc;
}
