/* Streamed inputs for the text readers: raw bytes from a file, a zip entry
 * (libarchive; a deflated .npy entry's stream is inflated by ISA-L straight
 * from the file) or memory, gunzipped on the fly (ISA-L's igzip inflate, about
 * four times zlib's speed, so one core inflates as fast as the other
 * parses), read ahead into two
 * blocks by a producer thread so decompression overlaps parsing, and cut
 * into lines without ever holding the whole text. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/dynlib.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"

#define RAW_BLOCK (1u << 20)

struct cv_zip {
    struct archive *ar;
    char *path;
    pthread_t hash_th;
    int hashing, hash_rc;
    uint64_t size;
    char sha_hex[65];
    int done;
    int64_t entry_size;     /* the current entry's, -1 unknown */
    const char *entry_name; /* libarchive's, until the next header */
    /* A deflated entry's stream, for ISA-L to inflate from the file */
    int isal;         /* 0 when DGLPART_ZIP_INFLATE=zlib */
    int64_t data_off; /* where its deflate data starts (zip_probe) */
    uint32_t crc;     /* CRC-32 from its local header */
    int crc_after;    /* or in the data descriptor after the data */
};

/* ---- zip ---- */

static void *zip_hash(void *arg)
{
    struct cv_zip *z = arg;

    z->hash_rc = dp_sha256_file(z->path, z->sha_hex, &z->size);
    return NULL;
}

/* Seekable reading: libarchive then trusts the central directory, the
 * only place a zip records entry types (symlinks) and sizes; entry data is
 * still streamed block by block, never unpacked to disk. */
int cv_zip_open(struct cv_zip **out, const char *path, int hash)
{
    struct cv_zip *z;
    int rc = dp_need_archive();

    if (rc)
        return rc;
    if (!(z = dp_calloc(1, sizeof(*z))))
        return DP_ENOMEM;
    z->path = dp_strdup(path);
    z->ar = archive_read_new();
    if (!z->path || !z->ar) {
        cv_zip_close(z, NULL, NULL);
        return dp_error(DP_ENOMEM, "out of memory opening '%s'", path);
    }
    archive_read_support_format_zip_seekable(z->ar);
    if (archive_read_open_filename(z->ar, path, RAW_BLOCK) != ARCHIVE_OK) {
        /* a zip's directory is at its end: a cut copy starts right */
        if (cv_file_has_magic(path, "PK\003\004", 4))
            rc = dp_error(DP_EFORMAT,
                          "'%s': truncated or damaged zip: expected its "
                          "central directory at the end (%s)",
                          path, archive_error_string(z->ar));
        else
            rc = dp_error(DP_EFORMAT, "'%s': not a readable zip: %s", path,
                          archive_error_string(z->ar));
        cv_zip_close(z, NULL, NULL);
        return rc;
    }
    if (hash && pthread_create(&z->hash_th, NULL, zip_hash, z)) {
        cv_zip_close(z, NULL, NULL);
        return dp_error(DP_ENOMEM, "cannot start a hashing thread");
    }
    z->hashing = hash;
    z->isal = !strcmp(dp_env_str("DGLPART_ZIP_INFLATE"), "isal");
    *out = z;
    return 0;
}

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return le16(p) | le16(p + 2) << 16;
}

/* Right after cv_zip_next, libarchive's read point is the entry's data. Find
 * its local header just before it (signature, name and extra lengths that end
 * exactly there, the same name) and note a deflated entry's CRC, so ISA-L can
 * inflate its stream straight from the file at about four times zlib's speed.
 * Anything else, or any doubt, stays with libarchive. */
static void zip_probe(struct cv_zip *z)
{
    const char *name = z->entry_name;
    size_t nl = strlen(name), win, e;
    int64_t data = archive_filter_bytes(z->ar, 0), start;
    unsigned char *b;
    int fd;

    z->data_off = -1;
    if (!z->isal || data <= 0 || nl > 65535)
        return;
    win = 30 + nl + 65535;
    start = data > (int64_t)win ? data - (int64_t)win : 0;
    win = (size_t)(data - start);
    if (!(b = dp_malloc(win)))
        return;
    fd = open(z->path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && pread(fd, b, win, start) == (ssize_t)win) {
        for (e = 0; 30 + nl + e <= win; e++) {
            const unsigned char *h = b + win - 30 - nl - e;
            uint32_t flags;

            if (memcmp(h, "PK\003\004", 4) || le16(h + 26) != nl ||
                le16(h + 28) != e || memcmp(h + 30, name, nl))
                continue;
            flags = le16(h + 6);
            /* deflate (8), not encrypted (bits 0 and 6) */
            if (le16(h + 8) == 8 && !(flags & 0x41)) {
                z->data_off = data;
                z->crc = le32(h + 14);
                z->crc_after = (flags & 8) != 0;
            }
            break;
        }
    }
    if (fd >= 0)
        close(fd);
    free(b);
}

int cv_zip_next(struct cv_zip *z, const char **name)
{
    struct archive_entry *e;
    const char *n;
    int r;

    for (;;) {
        r = archive_read_next_header(z->ar, &e);
        if (r == ARCHIVE_EOF) {
            z->done = 1;
            *name = NULL;
            return 0;
        }
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
            return dp_error(DP_EFORMAT,
                            "'%s' at byte offset %" PRId64
                            ": bad zip entry: %s",
                            z->path, archive_read_header_position(z->ar),
                            archive_error_string(z->ar));
        n = archive_entry_pathname(e);
        if (!n)
            n = "";
        if (n[0] == '/' || !strcmp(n, "..") || !strncmp(n, "../", 3) ||
            strstr(n, "/../") ||
            (strlen(n) >= 3 && !strcmp(n + strlen(n) - 3, "/..")))
            return dp_error(DP_EFORMAT,
                            "'%s' entry '%s': expected a relative "
                            "name without '..'",
                            z->path, n);
        if (archive_entry_filetype(e) == AE_IFDIR)
            continue;
        z->entry_size =
            archive_entry_size_is_set(e) ? archive_entry_size(e) : -1;
        if (archive_entry_filetype(e) != AE_IFREG)
            return dp_error(DP_EFORMAT,
                            "'%s' entry '%s': expected a regular "
                            "file, found %s",
                            z->path, n,
                            dp_file_type_name(archive_entry_filetype(e)));
        z->entry_name = *name = n;
        return 0;
    }
}

int64_t cv_zip_entry_size(const struct cv_zip *z)
{
    return z->entry_size;
}

int cv_zip_finish(struct cv_zip *z)
{
    const char *name;
    int rc;

    while (!z->done)
        if ((rc = cv_zip_next(z, &name)))
            return rc;
    return 0;
}

void cv_zip_close(struct cv_zip *z, char *sha, uint64_t *size)
{
    if (!z)
        return;
    if (z->ar)
        archive_read_free(z->ar);
    if (z->hashing) {
        pthread_join(z->hash_th, NULL);
        if (sha)
            memcpy(sha, z->hash_rc ? "" : z->sha_hex, z->hash_rc ? 1 : 65);
        if (size)
            *size = z->size;
    } else {
        struct stat st;

        if (sha)
            sha[0] = '\0';
        if (size)
            *size = stat(z->path, &st) == 0 ? (uint64_t)st.st_size : 0;
    }
    free(z->path);
    free(z);
}

int cv_file_has_magic(const char *path, const void *magic, size_t n)
{
    unsigned char b[16];
    struct stat st;
    int fd;
    ssize_t got;

    /* Never peek into a pipe: its bytes would be gone for the reader. */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || n > sizeof(b))
        return 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    got = read(fd, b, n);
    close(fd);
    return got == (ssize_t)n && !memcmp(b, magic, n);
}

/* ---- raw bytes and gunzip ---- */

/* A deflated zip entry read from the file by ISA-L (cv_src_open_zip) */
static int zip_raw(const struct cv_src *s)
{
    return s->zip && s->fd >= 0;
}

static int raw_read(struct cv_src *s, unsigned char *buf, size_t cap,
                    size_t *got)
{
    ssize_t n;

    if (s->mem) {
        size_t left = s->memlen - s->mempos;

        n = (ssize_t)(left < cap ? left : cap);
        memcpy(buf, s->mem + s->mempos, (size_t)n);
        s->mempos += (size_t)n;
    } else if (s->zip && !zip_raw(s)) {
        n = archive_read_data(s->zip->ar, buf, cap);
        if (n < 0)
            return dp_error(DP_EFORMAT, "'%s' at byte offset %" PRIu64 ": %s",
                            s->name, s->raw_off,
                            archive_error_string(s->zip->ar));
    } else {
        if (s->ranged && cap > s->left)
            cap = (size_t)s->left;
        do
            n = cap ? read(s->fd, buf, cap) : 0;
        while (n < 0 && errno == EINTR);
        if (s->ranged && n > 0)
            s->left -= (uint64_t)n;
        if (n < 0)
            return dp_error(DP_EIO, "cannot read '%s': %s", s->name,
                            strerror(errno));
    }
    if (s->sha && n > 0)
        dp_sha256_update(s->sha, buf, (size_t)n);
    s->raw_off += (uint64_t)n;
    *got = (size_t)n;
    return 0;
}

/* The zip's CRC-32 of an entry ISA-L has inflated: from the local header,
 * or from the data descriptor at end, the byte after the deflate data
 * (its signature is optional). */
static int zip_crc(struct cv_src *s, uint64_t end)
{
    struct inflate_state *zs = s->zs;
    unsigned char d[8];
    uint32_t want = s->zip->crc;
    int64_t size = s->zip->entry_size;

    if (s->zip->crc_after) {
        if (pread(s->fd, d, 8, (off_t)end) != 8)
            return dp_error(DP_EFORMAT,
                            "'%s' at byte offset %" PRIu64
                            ": expected the entry's data descriptor",
                            s->name, end);
        want = le32(d) == 0x08074b50 ? le32(d + 4) : le32(d);
    }
    if (size >= 0 && (uint32_t)size != zs->total_out)
        return dp_error(DP_EFORMAT,
                        "'%s': inflates to other than the %" PRId64
                        " bytes the zip's directory says",
                        s->name, size);
    if (zs->crc != want)
        return dp_error(DP_EFORMAT,
                        "'%s': CRC mismatch: the data gives %08" PRIx32
                        ", the zip says %08" PRIx32,
                        s->name, zs->crc, want);
    return 0;
}

static const char *isal_why(int r)
{
    switch (r) {
    case ISAL_INVALID_WRAPPER:
        return "not a gzip header";
    case ISAL_UNSUPPORTED_METHOD:
        return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM:
        return "CRC mismatch";
    case ISAL_INVALID_BLOCK:
    case ISAL_INVALID_SYMBOL:
    case ISAL_INVALID_LOOKBACK:
        return "invalid deflate data";
    default:
        return "inflate failed";
    }
}

/* Fill dst with up to cap decoded bytes; *len 0 means the end. */
static int fill(struct cv_src *s, char *dst, size_t cap, size_t *len)
{
    struct inflate_state *zs = s->zs;
    size_t out = 0, n;
    int rc, r;

    if (!s->gz) {
        while (out < cap && !s->raw_eof) {
            if ((rc = raw_read(s, (unsigned char *)dst + out, cap - out, &n)))
                return rc;
            if (!n)
                s->raw_eof = 1;
            out += n;
        }
        *len = out;
        return 0;
    }
    while (out < cap) {
        if (zs->avail_in == 0) {
            if (s->raw_eof)
                break;
            if ((rc = raw_read(s, s->raw, RAW_BLOCK, &n)))
                return rc;
            if (!n) {
                s->raw_eof = 1;
                break;
            }
            zs->next_in = s->raw;
            zs->avail_in = (uint32_t)n;
        }
        if (s->zend && zip_raw(s)) {
            s->raw_eof = 1; /* a zip entry's one stream has ended */
            break;
        }
        if (s->zend) {
            /* Another gzip member follows (gzip -c a b >c). */
            uint8_t *in = zs->next_in;
            uint32_t avail = zs->avail_in;
            isal_inflate_reset(zs);
            zs->crc_flag = ISAL_GZIP;
            zs->next_in = in;
            zs->avail_in = avail;
            s->zend = 0;
        }
        zs->next_out = (uint8_t *)dst + out;
        zs->avail_out = (uint32_t)(cap - out);
        r = isal_inflate(zs);
        out = cap - zs->avail_out;
        if (r < 0) /* the positive codes say only which buffer ran out */
            return dp_error(DP_EFORMAT,
                            "'%s' at byte offset %" PRIu64 ": bad %s data (%s)",
                            s->name, s->raw_off - zs->avail_in,
                            zip_raw(s) ? "deflate" : "gzip", isal_why(r));
        if (zs->block_state == ISAL_BLOCK_FINISH) {
            s->zend = 1;
            /* whole bytes ISA-L has buffered but not used are past the end */
            if (zip_raw(s) &&
                (rc = zip_crc(s, s->raw_off - zs->avail_in -
                                     (uint64_t)zs->read_in_length / 8)))
                return rc;
        }
    }
    if (out == 0 && s->raw_eof && !s->zend)
        return dp_error(DP_EFORMAT,
                        "'%s': truncated %s data at byte offset "
                        "%" PRIu64 " (expected more compressed data)",
                        s->name, zip_raw(s) ? "deflate" : "gzip", s->raw_off);
    *len = out;
    return 0;
}

/* ---- producer thread ---- */

static void *producer(void *arg)
{
    struct cv_src *s = arg;
    int i = s->prod, rc;
    size_t len;

    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->blk[i].full && !s->stop)
            pthread_cond_wait(&s->cond, &s->mu);
        if (s->stop) {
            pthread_mutex_unlock(&s->mu);
            break;
        }
        pthread_mutex_unlock(&s->mu);
        len = 0;
        rc = fill(s, s->blk[i].data, CV_BLOCK, &len);
        pthread_mutex_lock(&s->mu);
        if (rc) {
            s->err = rc;
            snprintf(s->errmsg, sizeof(s->errmsg), "%s", dp_errmsg());
            len = 0;
        }
        s->blk[i].len = len;
        s->blk[i].raw_end = s->raw_off;
        s->blk[i].full = 1;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->mu);
        if (!len)
            break;
        i ^= 1;
    }
    return NULL;
}

/* Peek at the first raw bytes to decide on gzip, then start the reader. */
static int src_start(struct cv_src *s, int threaded)
{
    unsigned char *r;
    size_t n = 0;
    int rc;

    s->raw = dp_malloc(RAW_BLOCK);
    s->blk[0].data = dp_malloc(CV_BLOCK);
    s->blk[1].data = threaded ? dp_malloc(CV_BLOCK) : NULL;
    if (!s->raw || !s->blk[0].data || (threaded && !s->blk[1].data))
        return DP_ENOMEM;
    dp_buf_init(&s->carry, CV_MAX_LINE);
    if ((rc = raw_read(s, s->raw, RAW_BLOCK, &n)))
        return rc;
    r = s->raw;
    if (zip_raw(s) || (!s->ranged && n >= 2 && r[0] == 0x1f && r[1] == 0x8b)) {
        struct inflate_state *zs = dp_malloc(sizeof(*zs));

        if (!zs)
            return DP_ENOMEM;
        s->zs = zs;
        isal_inflate_init(zs);
        /* gzip: header, trailer and CRC checked; a zip entry's raw deflate
         * stream: its CRC computed, checked against the zip's (zip_crc) */
        zs->crc_flag = zip_raw(s) ? ISAL_GZIP_NO_HDR : ISAL_GZIP;
        s->gz = 1;
        zs->next_in = s->raw;
        zs->avail_in = (uint32_t)n;
    } else {
        /* Plain bytes: hand the peeked block over as the first data. */
        s->blk[0].len = 0;
        if (n) {
            memcpy(s->blk[0].data, s->raw, n);
            s->blk[0].len = n;
        } else {
            s->raw_eof = 1;
        }
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    if (!s->gz) {
        /* Top the first block up so the producer starts with block 1. */
        size_t more = 0;

        if (!s->raw_eof && (rc = fill(s, s->blk[0].data + s->blk[0].len,
                                      CV_BLOCK - s->blk[0].len, &more)))
            return rc;
        s->blk[0].len += more;
        s->blk[0].full = 1;
        s->prod = 1;
    }
    if (threaded) {
        s->threaded = 1;
        if (!s->gz && !s->blk[0].len) {
            s->threaded = 0; /* empty input: nothing to read ahead */
            return 0;
        }
        if (pthread_create(&s->th, NULL, producer, s)) {
            s->threaded = 0;
            return dp_error(DP_ENOMEM, "cannot start a reader thread for '%s'",
                            s->name);
        }
        s->threaded = 2;
    }
    return 0;
}

static int src_init(struct cv_src *s, const char *name)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    s->name = dp_strdup(name);
    if (!s->name)
        return DP_ENOMEM;
    return 0;
}

static void *hash_file(void *arg)
{
    struct cv_src *s = arg;

    s->hash_rc = dp_sha256_file(s->name, s->sha_hex, &s->hash_size);
    return NULL;
}

int cv_inflate_head(const void *in, size_t inlen, void *out, size_t cap,
                    size_t *len)
{
    struct inflate_state *zs = dp_malloc(sizeof(*zs));
    int r;

    if (!zs)
        return DP_ENOMEM;
    isal_inflate_init(zs); /* raw deflate: no header, no check */
    zs->next_in = (uint8_t *)in;
    zs->avail_in = (uint32_t)inlen;
    zs->next_out = out;
    zs->avail_out = (uint32_t)cap;
    r = isal_inflate(zs);
    *len = cap - zs->avail_out;
    free(zs);
    return r < 0 ? dp_error(DP_EFORMAT, "bad deflate data (%s)", isal_why(r))
                 : 0;
}

int cv_sample(const char *path, char *buf, size_t cap, size_t *len,
              uint64_t *used)
{
    struct cv_src s;
    int rc;

    *len = 0;
    if ((rc = src_init(&s, path)))
        return rc;
    s.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s.fd < 0)
        rc = dp_error(errno == ENOENT ? DP_ENOENT : DP_EIO,
                      "cannot open '%s': %s", path, strerror(errno));
    if (!rc && !(rc = src_start(&s, 0))) {
        if (s.gz) {
            rc = fill(&s, buf, cap, len);
            /* what ISA-L took, not what was read ahead */
            *used = s.raw_off - ((struct inflate_state *)s.zs)->avail_in;
        } else {
            *len = s.blk[0].len < cap ? s.blk[0].len : cap;
            memcpy(buf, s.blk[0].data, *len);
            *used = *len;
        }
    }
    cv_src_close(&s, NULL, NULL);
    return rc;
}

/* cv_src_open_file, or with ranged its bytes [off, off + len). */
static int open_at(struct cv_src *s, const char *path, int hash, int ranged,
                   uint64_t off, uint64_t len)
{
    struct stat st;
    int rc, regular = 0;

    if ((rc = src_init(s, path)))
        return rc;
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0 ||
        (ranged && lseek(s->fd, (off_t)off, SEEK_SET) != (off_t)off)) {
        rc = dp_error(errno == ENOENT ? DP_ENOENT : DP_EIO,
                      "cannot open '%s': %s", path, strerror(errno));
        cv_src_close(s, NULL, NULL);
        return rc;
    }
    s->ranged = ranged;
    s->left = len;
    posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        regular = 1;
        if (!ranged && st.st_size >= (16 << 20)) {
            dp_progress_start(&s->prog, dp_path_basename(s->name),
                              (uint64_t)st.st_size, 1);
            s->prog_on = 1;
        }
    }
    if (hash && !regular && !(s->sha = dp_sha256_new())) {
        cv_src_close(s, NULL, NULL);
        return dp_error(DP_ENOMEM, "out of memory");
    }
    /* Hashing a regular file on its own thread keeps it off the reader's
     * critical path; the second read comes from the page cache. A pipe
     * can be read once only, so it is hashed as it is read. */
    if (hash && regular) {
        if (pthread_create(&s->hash_th, NULL, hash_file, s)) {
            cv_src_close(s, NULL, NULL);
            return dp_error(DP_ENOMEM, "cannot start a hashing thread");
        }
        s->hashing = 1;
    }
    if ((rc = src_start(s, 1)))
        cv_src_close(s, NULL, NULL);
    return rc;
}

int cv_src_open_file(struct cv_src *s, const char *path, int hash)
{
    return open_at(s, path, hash, 0, 0, 0);
}

int cv_src_open_range(struct cv_src *s, const char *path, int hash,
                      uint64_t off, uint64_t len)
{
    return open_at(s, path, hash, 1, off, len);
}

int cv_src_open_zip(struct cv_src *s, struct cv_zip *z, const char *name,
                    int plain)
{
    int rc;

    if ((rc = src_init(s, name)))
        return rc;
    s->zip = z;
    /* A deflated entry that holds no gzip stream of its own: ISA-L inflates
     * it from the file, and libarchive seeks past it to the next one. */
    if (plain)
        zip_probe(z);
    if (plain && z->data_off >= 0) {
        s->fd = open(z->path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0 || lseek(s->fd, z->data_off, SEEK_SET) < 0) {
            rc = dp_error(DP_EIO, "cannot read '%s': %s", z->path,
                          strerror(errno));
            cv_src_close(s, NULL, NULL);
            return rc;
        }
        posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        s->raw_off = (uint64_t)z->data_off;
    }
    if ((rc = src_start(s, 1)))
        cv_src_close(s, NULL, NULL);
    return rc;
}

int cv_src_open_mem(struct cv_src *s, const void *p, size_t len,
                    const char *name)
{
    int rc;

    if ((rc = src_init(s, name)))
        return rc;
    s->mem = p ? p : (const void *)"";
    s->memlen = len;
    if ((rc = src_start(s, 0)))
        cv_src_close(s, NULL, NULL);
    return rc;
}

/* The next decoded block, or NULL at the end (check the return code). */
static int next_block(struct cv_src *s, struct cv_block **out)
{
    struct cv_block *b;
    int rc;

    *out = NULL;
    if (s->eof)
        return 0;
    if (s->threaded == 2) {
        b = &s->blk[s->next];
        pthread_mutex_lock(&s->mu);
        while (!b->full)
            pthread_cond_wait(&s->cond, &s->mu);
        rc = s->err;
        pthread_mutex_unlock(&s->mu);
        if (!b->len) {
            s->eof = 1;
            return rc ? dp_error(rc, "%s", s->errmsg) : 0;
        }
        if (s->prog_on)
            dp_progress_update(&s->prog, b->raw_end);
        *out = b;
        return 0;
    }
    b = &s->blk[0];
    if (!b->full) {
        if ((rc = fill(s, b->data, CV_BLOCK, &b->len)))
            return rc;
        b->full = 1;
    }
    if (!b->len) {
        s->eof = 1;
        return 0;
    }
    *out = b;
    return 0;
}

static void release_block(struct cv_src *s, struct cv_block *b)
{
    if (s->threaded == 2) {
        pthread_mutex_lock(&s->mu);
        b->full = 0;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->mu);
        s->next ^= 1;
    } else {
        b->full = 0;
    }
}

int cv_src_line(struct cv_src *s, char **line, size_t *len)
{
    int rc;

    if (s->carry.len)
        dp_buf_reset(&s->carry);
    for (;;) {
        if (s->cur) {
            char *p = s->cur->data + s->pos, *nl;
            size_t left = s->cur->len - s->pos, n;

            nl = memchr(p, '\n', left);
            if (nl) {
                n = (size_t)(nl - p);
                s->pos += n + 1;
                if (s->carry.len) {
                    if ((rc = dp_buf_add(&s->carry, p, n)))
                        goto toolong;
                    p = s->carry.data;
                    n = s->carry.len;
                } else {
                    *nl = '\0';
                }
                if (n && p[n - 1] == '\r')
                    p[--n] = '\0';
                s->line++;
                *line = p;
                *len = n;
                return 0;
            }
            if (left && (rc = dp_buf_add(&s->carry, p, left)))
                goto toolong;
            release_block(s, s->cur);
            s->cur = NULL;
        }
        if ((rc = next_block(s, &s->cur)))
            return rc;
        s->pos = 0;
        if (!s->cur) {
            if (!s->carry.len) {
                *line = NULL;
                *len = 0;
                return 0;
            }
            /* Last line without a final newline. */
            if (s->carry.data[s->carry.len - 1] == '\r')
                s->carry.data[--s->carry.len] = '\0';
            s->line++;
            *line = s->carry.data;
            *len = s->carry.len;
            return 0;
        }
    }
toolong:
    return dp_error(DP_ETOOBIG,
                    "'%s' line %" PRIu64 ": line longer than %u "
                    "bytes",
                    s->name, s->line + 1, CV_MAX_LINE);
}

int cv_src_read(struct cv_src *s, void *buf, size_t n, size_t *got)
{
    size_t done = 0;
    int rc;

    while (done < n) {
        size_t k;

        if (!s->cur) {
            if ((rc = next_block(s, &s->cur)))
                return rc;
            s->pos = 0;
            if (!s->cur)
                break;
        }
        k = s->cur->len - s->pos;
        if (k > n - done)
            k = n - done;
        memcpy((char *)buf + done, s->cur->data + s->pos, k);
        s->pos += k;
        done += k;
        if (s->pos == s->cur->len) {
            release_block(s, s->cur);
            s->cur = NULL;
        }
    }
    *got = done;
    return 0;
}

static int all_lines(struct cv_src *s, char **p, char **end)
{
    char *line, *nl;
    size_t len;
    int rc;

    if (s->cur && s->pos < s->cur->len && !s->carry.len) {
        nl = memrchr(s->cur->data + s->pos, '\n', s->cur->len - s->pos);
        if (nl) {
            *p = s->cur->data + s->pos;
            *end = nl + 1;
            s->pos = (size_t)(nl + 1 - s->cur->data);
            return 0;
        }
    }
    /* A line across blocks (or the last one): hand it over alone. */
    if ((rc = cv_src_line(s, &line, &len)))
        return rc;
    if (!line) {
        *p = *end = NULL;
        return 0;
    }
    s->line--;
    *p = line;
    *end = line + len;
    return 0;
}

void cv_src_blocks(struct cv_src *s, uint64_t lines, int every, int mine,
                   void (*on_block)(void *arg, int64_t block), void *arg)
{
    s->blk_lines = lines;
    s->blk_left = 0;
    s->blk_no = -1;
    s->blk_every = every;
    s->blk_mine = mine;
    s->on_block = on_block;
    s->blk_arg = arg;
}

int cv_src_lines(struct cv_src *s, char **p, char **end)
{
    char *q, *e, *x;
    uint64_t n;
    int rc;

    if (!s->blk_lines)
        return all_lines(s, p, end);
    for (;;) {
        if (!s->blk_left) {
            s->blk_no++;
            s->blk_left = s->blk_lines;
            s->blk_own = s->blk_no % s->blk_every == s->blk_mine;
            if (s->blk_own && s->on_block)
                s->on_block(s->blk_arg, s->blk_no);
        }
        if ((rc = all_lines(s, &q, &e)) || !q) {
            *p = *end = NULL;
            return rc;
        }
        /* the run's lines up to the block's end; the rest stays */
        for (n = 0, x = q; x < e && n < s->blk_left; n++) {
            char *nl = memchr(x, '\n', (size_t)(e - x));

            x = nl ? nl + 1 : e;
        }
        if (x < e) /* several lines: a run in place in the block */
            s->pos = (size_t)(x - s->cur->data);
        s->blk_left -= n;
        if (s->blk_own) {
            *p = q;
            *end = x;
            return 0;
        }
        s->line += n;
    }
}

void cv_src_close(struct cv_src *s, char *sha, uint64_t *size)
{
    if (s->prog_on)
        dp_progress_end(&s->prog);
    if (s->threaded == 2) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->th, NULL);
    }
    if (s->raw) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cond);
    }
    if (size)
        *size = s->raw_off;
    if (sha)
        sha[0] = '\0'; /* not hashed */
    if (s->sha) {
        dp_sha256_final(s->sha, s->sha_hex);
        if (sha)
            memcpy(sha, s->sha_hex, 65);
    }
    if (s->hashing) {
        pthread_join(s->hash_th, NULL);
        if (sha)
            memcpy(sha, s->hash_rc ? "" : s->sha_hex, s->hash_rc ? 1 : 65);
        if (size && !s->hash_rc)
            *size = s->hash_size;
    }
    free(s->zs);
    if (s->fd >= 0)
        close(s->fd);
    free(s->raw);
    free(s->blk[0].data);
    free(s->blk[1].data);
    dp_buf_release(&s->carry);
    free(s->name);
    memset(s, 0, sizeof(*s));
    s->fd = -1;
}
