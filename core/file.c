/* Atomic output files, mappings, folder helpers and sha256 (OpenSSL). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "dglpart/buf.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"

/* Writes are gathered into chunks of this size: whole chunks sit at
 * aligned offsets, as O_DIRECT needs. */
#define AFILE_CHUNK ((size_t)4 << 20)

int dp_afile_open(struct dp_afile *af, const char *path)
{
    memset(af, 0, sizeof(*af));
    af->fd = -1;
    af->dfd = -1;
    af->path = dp_strdup(path);
    af->tmp = dp_malloc(strlen(path) + 5);
    if (!af->path || !af->tmp) {
        free(af->path);
        free(af->tmp);
        memset(af, 0, sizeof(*af));
        return DP_ENOMEM;
    }
    sprintf(af->tmp, "%s.tmp", path);
    /* a fresh file, never through a link someone planted at the
     * temporary name (unlink removes a link, not its target) */
    if (unlink(af->tmp) != 0 && errno != ENOENT) {
        int e = errno;

        free(af->path);
        free(af->tmp);
        memset(af, 0, sizeof(*af));
        return dp_error(DP_EIO, "cannot replace '%s.tmp': %s", path,
                        strerror(e));
    }
    af->fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0666);
    if (af->fd < 0) {
        int e = errno;

        free(af->path);
        free(af->tmp);
        memset(af, 0, sizeof(*af));
        return dp_error(DP_EIO, "cannot create '%s.tmp': %s", path,
                        strerror(e));
    }
    return 0;
}

int dp_afile_open_large(struct dp_afile *af, const char *path)
{
    int direct = 1, rc;

    dp_env_bool("DGLPART_DIRECT_IO", &direct);
    rc = dp_afile_open(af, path);
    if (!rc && direct)
        af->direct = 1;
    return rc;
}

static int set_direct(struct dp_afile *af, int on)
{
    int fl = fcntl(af->fd, F_GETFL);

    if (fl < 0 ||
        fcntl(af->fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) != 0)
        return -1;
    return 0;
}

/* Write all n bytes of p at off: 0, an errno, or -1 for no progress.
 * With *direct set, an EINVAL (the file system takes no direct I/O after
 * all) turns O_DIRECT off, clears *direct and tries again. */
static int pwrite_full(int fd, const unsigned char *p, size_t n, uint64_t off,
                       int *direct)
{
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)off);
        int e = errno;

        if (k < 0 && e == EINTR)
            continue;
        if (k < 0 && e == EINVAL && *direct) {
            int fl = fcntl(fd, F_GETFL);

            *direct = 0;
            if (fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_DIRECT) == 0)
                continue;
        }
        if (k <= 0)
            return k < 0 ? e : -1;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

static int write_all(struct dp_afile *af, const unsigned char *p, size_t n,
                     uint64_t off)
{
    int direct = af->direct == 2, e = pwrite_full(af->fd, p, n, off, &direct);

    if (af->direct == 2 && !direct)
        af->direct = -1;
    if (e) {
        af->failed = 1;
        return dp_error(DP_EIO, "cannot write '%s': %s", af->tmp,
                        e > 0 ? strerror(e) : "no progress");
    }
    return 0;
}

/* A whole direct chunk written behind the caller, who fills the next. */
struct dp_afile_behind {
    pthread_t tid;
    int running;
    int fd;
    unsigned char *buf; /* the chunk in flight, or the spare (owned) */
    size_t len;
    uint64_t off;
    int refused; /* O_DIRECT refused: the rest went through the cache */
    int err;     /* errno of a failed write; -1: no progress */
};

static void *behind_run(void *arg)
{
    struct dp_afile_behind *b = arg;
    int direct = 1;

    b->err = pwrite_full(b->fd, b->buf, b->len, b->off, &direct);
    b->refused = !direct;
    return NULL;
}

static void behind_join(struct dp_afile *af)
{
    if (af->behind && af->behind->running) {
        pthread_join(af->behind->tid, NULL);
        af->behind->running = 0;
    }
}

/* Wait for the chunk in flight; DP_EIO naming the file when it failed. */
static int afile_drain(struct dp_afile *af)
{
    struct dp_afile_behind *b = af->behind;

    if (!b || !b->running)
        return 0;
    behind_join(af);
    if (b->refused && af->direct == 2)
        af->direct = -1;
    if (b->err) {
        af->failed = 1;
        return dp_error(DP_EIO, "cannot write '%s': %s", af->tmp,
                        b->err > 0 ? strerror(b->err) : "no progress");
    }
    return 0;
}

/* Hand the full chunk in buf to a thread and take the spare; 0 when the
 * chunk is on its way, else the caller writes it itself. */
static int afile_behind(struct dp_afile *af)
{
    struct dp_afile_behind *b = af->behind;
    unsigned char *full = af->buf;
    void *spare = NULL;

    if (!b && !(b = af->behind = calloc(1, sizeof(*b))))
        return -1;
    if (!b->buf && posix_memalign(&spare, 4096, AFILE_CHUNK))
        return -1;
    if (spare)
        b->buf = spare;
    af->buf = b->buf;
    b->buf = full;
    b->fd = af->fd;
    b->len = af->len;
    b->off = af->off;
    if (pthread_create(&b->tid, NULL, behind_run, b)) {
        b->buf = af->buf; /* back as they were */
        af->buf = full;
        return -1;
    }
    b->running = 1;
    return 0;
}

/* Write out the buffer: a whole chunk directly when asked for (behind the
 * caller), a tail through the page cache. */
static int afile_flush(struct dp_afile *af)
{
    int rc;

    if (afile_drain(af))
        return DP_EIO;
    if (!af->len)
        return 0;
    if (af->len == AFILE_CHUNK && af->direct == 1)
        af->direct = set_direct(af, 1) ? -1 : 2;
    if (af->len == AFILE_CHUNK && af->direct == 2 && !afile_behind(af)) {
        af->off += af->len;
        af->len = 0;
        return 0;
    }
    if (af->len < AFILE_CHUNK && af->direct == 2) {
        set_direct(af, 0);
        af->direct = 1;
    }
    rc = write_all(af, af->buf, af->len, af->off);
    af->off += af->len;
    af->len = 0;
    return rc;
}

int dp_afile_write(struct dp_afile *af, const void *p, size_t n)
{
    const unsigned char *s = p;

    if (af->failed)
        return DP_EIO;
    if (!af->buf && n) {
        void *b = NULL;

        if (posix_memalign(&b, 4096, AFILE_CHUNK)) {
            af->failed = 1;
            return dp_error(DP_ENOMEM, "out of memory");
        }
        af->buf = b;
    }
    while (n > 0) {
        size_t k = AFILE_CHUNK - af->len;

        if (k > n)
            k = n;
        memcpy(af->buf + af->len, s, k);
        af->len += k;
        s += k;
        n -= k;
        if (af->len == AFILE_CHUNK && afile_flush(af))
            return DP_EIO;
    }
    return 0;
}

#define PAGE ((uint64_t)4096)

void dp_afile_direct_slices(struct dp_afile *af)
{
    int direct = 1;

    dp_env_bool("DGLPART_DIRECT_IO", &direct);
    if (af->tmp && af->dfd < 0 && direct)
        af->dfd = open(af->tmp, O_WRONLY | O_DIRECT | O_CLOEXEC);
}

/* n bytes at off through the page cache, write-back started at once: the
 * fsync at commit then waits for the last pieces, not the whole file. */
static int pwrite_cached(struct dp_afile *af, uint64_t off, const void *p,
                         size_t n)
{
    int rc = write_all(af, p, n, off);

    if (!rc && n)
        sync_file_range(af->fd, (off_t)off, (off_t)n, SYNC_FILE_RANGE_WRITE);
    return rc;
}

int dp_afile_pwrite_at(struct dp_afile *af, uint64_t off, const void *p,
                       size_t n)
{
    size_t whole = n & ~(size_t)(PAGE - 1);

    if (af->failed || afile_drain(af))
        return DP_EIO;
    /* Fresh page-cache pages cost a VM more CPU than the data did to
     * make; whole pages go past it when they can. */
    if (af->dfd >= 0 && whole && off % PAGE == 0 && (uintptr_t)p % PAGE == 0) {
        const unsigned char *s = p;
        size_t done = 0;

        while (done < whole) {
            ssize_t k =
                pwrite(af->dfd, s + done, whole - done, (off_t)(off + done));

            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0 || (size_t)k % PAGE)
                break; /* refused or short: the page cache takes the rest */
            done += (size_t)k;
        }
        return pwrite_cached(af, off + done, s + done, n - done);
    }
    return pwrite_cached(af, off, p, n);
}

int dp_afile_pwrite(struct dp_afile *af, uint64_t off, const void *p, size_t n)
{
    const unsigned char *s = p;

    if (af->failed || afile_drain(af))
        return DP_EIO;
    if (off + n > af->off + af->len)
        return dp_error(DP_EINVAL, "'%s': patch past the end", af->tmp);
    if (off < af->off) {
        size_t k = af->off - off < n ? (size_t)(af->off - off) : n;

        if (af->direct == 2) {
            set_direct(af, 0);
            af->direct = 1;
        }
        if (write_all(af, s, k, off))
            return DP_EIO;
        s += k;
        n -= k;
        off += k;
    }
    if (n)
        memcpy(af->buf + (off - af->off), s, n);
    return 0;
}

static void afile_free(struct dp_afile *af)
{
    if (af->behind) {
        behind_join(af);
        free(af->behind->buf);
        free(af->behind);
    }
    free(af->path);
    free(af->tmp);
    free(af->buf);
    if (af->tmp && af->dfd >= 0)
        close(af->dfd);
    memset(af, 0, sizeof(*af));
    af->fd = -1;
    af->dfd = -1;
}

int dp_afile_commit(struct dp_afile *af)
{
    int rc = 0;

    if (!af->tmp)
        return dp_error(DP_EINVAL, "commit of a file that is not open");
    if (afile_drain(af) || af->failed || afile_flush(af))
        rc = DP_EIO;
    else if (fsync(af->fd) != 0 && errno != EINVAL)
        rc = dp_error(DP_EIO, "cannot sync '%s': %s", af->tmp, strerror(errno));
    if (close(af->fd) != 0 && !rc)
        rc =
            dp_error(DP_EIO, "cannot close '%s': %s", af->tmp, strerror(errno));
    if (!rc && rename(af->tmp, af->path) != 0)
        rc = dp_error(DP_EIO, "cannot rename '%s' to '%s': %s", af->tmp,
                      af->path, strerror(errno));
    if (rc)
        unlink(af->tmp);
    afile_free(af);
    return rc;
}

void dp_afile_abort(struct dp_afile *af)
{
    if (af->tmp) {
        behind_join(af); /* quietly: the caller's error stands */
        close(af->fd);
        unlink(af->tmp);
    }
    afile_free(af);
}

int dp_write_file(const char *path, const void *p, size_t n)
{
    struct dp_afile af;
    int rc = dp_afile_open(&af, path);

    if (rc)
        return rc;
    rc = dp_afile_write(&af, p, n);
    if (rc) {
        dp_afile_abort(&af);
        return rc;
    }
    return dp_afile_commit(&af);
}

int dp_read_file(const char *path, size_t max, char **out, size_t *len)
{
    struct dp_buf b;
    char chunk[65536];
    size_t n;
    int rc = 0;
    FILE *fp = fopen(path, "rb");

    if (!fp)
        return dp_error(errno == ENOENT ? DP_ENOENT : DP_EIO,
                        "cannot open '%s': %s", path, strerror(errno));
    dp_buf_init(&b, max);
    while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
        rc = dp_buf_add(&b, chunk, n);
        if (rc) {
            rc = dp_error(rc, "'%s' is larger than %zu bytes", path, max);
            goto out;
        }
    }
    if (ferror(fp))
        rc = dp_error(DP_EIO, "cannot read '%s': %s", path, strerror(errno));
out:
    fclose(fp);
    if (rc) {
        dp_buf_release(&b);
        return rc;
    }
    *out = dp_buf_detach(&b, len);
    return 0;
}

int dp_map_open(struct dp_map *m, const char *path)
{
    struct stat st;
    void *p = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return dp_error(errno == ENOENT ? DP_ENOENT : DP_EIO,
                        "cannot open '%s': %s", path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return dp_error(DP_EIO, "'%s' is not a regular file", path);
    }
    if (st.st_size > 0) {
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;

            close(fd);
            return dp_error(DP_EIO, "cannot map '%s': %s", path, strerror(e));
        }
    }
    close(fd);
    m->data = p;
    m->size = (size_t)st.st_size;
    return 0;
}

void dp_map_drop(const struct dp_map *m)
{
    if (m->data && m->size)
        madvise((void *)(uintptr_t)m->data, m->size, MADV_DONTNEED);
}

void dp_behind_init(struct dp_behind *b, const void *p, size_t size)
{
    b->base = p;
    b->size = p ? size : 0;
    b->done = 0;
}

/* Drop the whole pages in [done, pos) when they make at least min bytes. */
static void behind(struct dp_behind *b, size_t pos, size_t min)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)b->base + b->done + pg - 1) & ~(pg - 1);
    uintptr_t hi = ((uintptr_t)b->base + pos) & ~(pg - 1);

    if (!b->base || pos <= b->done || hi <= lo || hi - lo < min)
        return;
    madvise((void *)lo, hi - lo, MADV_DONTNEED);
    b->done = hi - (uintptr_t)b->base;
}

void dp_behind_at(struct dp_behind *b, size_t pos)
{
    /* cheap when called often: nothing to do before a step */
    if (!b->base || pos < b->done + DP_BEHIND_STEP)
        return;
    behind(b, pos < b->size ? pos : b->size, DP_BEHIND_STEP);
}

void dp_behind_end(struct dp_behind *b)
{
    behind(b, b->size, 1);
}

void dp_map_release(struct dp_map *m)
{
    if (m->data)
        munmap((void *)m->data, m->size);
    m->data = NULL;
    m->size = 0;
}

int dp_mkdir_p(const char *path, mode_t mode)
{
    char *p = dp_strdup(path), *s;
    int rc = 0;

    if (!p)
        return DP_ENOMEM;
    for (s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;

            *s = '\0';
            if (mkdir(p, mode) != 0 && errno != EEXIST) {
                rc = dp_error(DP_EIO, "cannot create folder '%s': %s", p,
                              strerror(errno));
                break;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    if (!rc && !dp_is_dir(path))
        rc = dp_error(DP_EIO, "'%s' exists and is not a folder", path);
    free(p);
    return rc;
}

int dp_rm_rf(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *de;
    int rc = 0;

    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0
                               : dp_error(DP_EIO, "cannot remove '%s': %s",
                                          path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0)
            return dp_error(DP_EIO, "cannot remove '%s': %s", path,
                            strerror(errno));
        return 0;
    }
    d = opendir(path);
    if (!d)
        return dp_error(DP_EIO, "cannot open folder '%s': %s", path,
                        strerror(errno));
    while (!rc && (de = readdir(d)) != NULL) {
        char *sub;

        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        sub = dp_path_join(path, de->d_name);
        rc = sub ? dp_rm_rf(sub) : DP_ENOMEM;
        free(sub);
    }
    closedir(d);
    if (!rc && rmdir(path) != 0)
        rc = dp_error(DP_EIO, "cannot remove folder '%s': %s", path,
                      strerror(errno));
    return rc;
}

int dp_exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

int dp_is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void dp_fsync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int64_t dp_disk_free(const char *path, uint64_t *dev)
{
    char *dir = dp_strdup(path), *up;
    struct statvfs vfs;
    struct stat st;
    int64_t r = -1, test = -1;

    while (dir && !dp_is_dir(dir)) {
        up = dp_path_dirname(dir);
        if (up && !strcmp(up, dir)) {
            free(up);
            break;
        }
        free(dir);
        dir = up;
    }
    if (dir && statvfs(dir, &vfs) == 0)
        r = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
    if (dev)
        *dev = dir && stat(dir, &st) == 0 ? (uint64_t)st.st_dev : 0;
    free(dir);
    /* a malformed value stopped the binary at start (dp_env_check) */
    if (!dp_env_size("DGLPART_TEST_DISK_FREE", &test) && test >= 0)
        r = test;
    return r;
}

void dp_fault(const char *point)
{
    const char *f = dp_env_str("DGLPART_FAULT");

    if (f && !strcmp(f, point))
        raise(SIGKILL);
}

int dp_install_dir(const char *tmp, const char *out)
{
    char *old = NULL, *parent;
    int rc = 0;

    if (!dp_exists(out)) {
        if (rename(tmp, out))
            return dp_error(DP_EIO, "cannot rename '%s' to '%s': %s", tmp, out,
                            strerror(errno));
        goto synced;
    }
    dp_fault("install");
    if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_EXCHANGE)) {
        dp_fault("exchanged");
        rc = dp_rm_rf(tmp); /* the old set, now under the temporary name */
        goto synced;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return dp_error(DP_EIO, "cannot swap '%s' and '%s': %s", tmp, out,
                        strerror(errno));
    if (!(old = dp_malloc(strlen(out) + 5)))
        return DP_ENOMEM;
    strcpy(old, out);
    strcat(old, ".old");
    dp_rm_rf(old);
    if (rename(out, old)) {
        rc = dp_error(DP_EIO, "cannot move '%s' aside: %s", out,
                      strerror(errno));
        goto out;
    }
    if (rename(tmp, out)) {
        rc = dp_error(DP_EIO, "cannot rename '%s' to '%s': %s", tmp, out,
                      strerror(errno));
        rename(old, out);
        goto out;
    }
    rc = dp_rm_rf(old);
synced:
    if ((parent = dp_path_dirname(out))) {
        dp_fsync_dir(parent);
        free(parent);
    }
out:
    free(old);
    return rc;
}

char *dp_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    char *p;

    if (b[0] == '/' || la == 0)
        return dp_strdup(b);
    p = dp_malloc(la + strlen(b) + 2);
    if (!p)
        return NULL;
    if (a[la - 1] == '/')
        sprintf(p, "%s%s", a, b);
    else
        sprintf(p, "%s/%s", a, b);
    return p;
}

char *dp_path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *p;

    if (!slash)
        return dp_strdup(".");
    if (slash == path)
        return dp_strdup("/");
    p = dp_malloc((size_t)(slash - path) + 1);
    if (!p)
        return NULL;
    memcpy(p, path, (size_t)(slash - path));
    p[slash - path] = '\0';
    return p;
}

const char *dp_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

struct dp_sha256 {
    EVP_MD_CTX *ctx;
};

struct dp_sha256 *dp_sha256_new(void)
{
    struct dp_sha256 *h = dp_malloc(sizeof(*h));

    if (!h)
        return NULL;
    h->ctx = EVP_MD_CTX_new();
    if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(h->ctx);
        free(h);
        dp_error(DP_ENOMEM, "cannot start a sha256 digest");
        return NULL;
    }
    return h;
}

void dp_sha256_update(struct dp_sha256 *h, const void *p, size_t n)
{
    EVP_DigestUpdate(h->ctx, p, n);
}

void dp_sha256_final(struct dp_sha256 *h, char out[65])
{
    unsigned char md[32];
    unsigned int len = 0;
    int i;

    EVP_DigestFinal_ex(h->ctx, md, &len);
    for (i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
    out[64] = '\0';
    EVP_MD_CTX_free(h->ctx);
    free(h);
}

void dp_sha256_hex(const void *p, size_t n, char out[65])
{
    unsigned char md[32];
    unsigned int len = 0;
    int i;

    EVP_Digest(p, n, md, &len, EVP_sha256(), NULL);
    for (i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
    out[64] = '\0';
}

/* Holes (SEEK_HOLE) are hashed as the zeros they read as, without reading
 * them: a sparse input of many GiB (tests make one for zip64) then costs
 * neither the reads nor a page cache full of zero pages. */
int dp_sha256_file(const char *path, char out[65], uint64_t *size)
{
    static const size_t chunk = 1 << 20;
    struct dp_sha256 *h;
    struct stat st;
    off_t off = 0, data, hole;
    uint64_t total = 0;
    ssize_t n = 0;
    char *buf;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return dp_error(errno == ENOENT ? DP_ENOENT : DP_EIO,
                        "cannot open '%s': %s", path, strerror(errno));
    buf = dp_malloc(chunk);
    h = buf ? dp_sha256_new() : NULL;
    if (!h) {
        free(buf);
        close(fd);
        return DP_ENOMEM;
    }
    if (fstat(fd, &st) != 0)
        st.st_size = 0;
    for (;;) {
        /* where the next data starts; without SEEK_DATA, here */
        data = off < st.st_size ? lseek(fd, off, SEEK_DATA) : -1;
        if (data < 0)
            data = off < st.st_size && errno != ENXIO ? off : st.st_size;
        if (data > off) {
            memset(buf, 0, chunk);
            for (; off < data; off += (off_t)n) {
                n = data - off < (off_t)chunk ? (ssize_t)(data - off)
                                              : (ssize_t)chunk;
                dp_sha256_update(h, buf, (size_t)n);
            }
            total = (uint64_t)off;
        }
        hole = off < st.st_size ? lseek(fd, off, SEEK_HOLE) : -1;
        if (hole <= off)
            hole = -1; /* read to the end, as a file that grew allows */
        if (lseek(fd, off, SEEK_SET) != off) {
            n = -1;
            break;
        }
        while ((hole < 0 || off < hole) &&
               (n = read(fd, buf,
                         hole < 0 || hole - off > (off_t)chunk
                             ? chunk
                             : (size_t)(hole - off))) > 0) {
            dp_sha256_update(h, buf, (size_t)n);
            off += (off_t)n;
        }
        total = (uint64_t)off;
        if (hole < 0 || n <= 0)
            break;
    }
    dp_sha256_final(h, out);
    free(buf);
    close(fd);
    if (n < 0)
        return dp_error(DP_EIO, "cannot read '%s': %s", path, strerror(errno));
    if (size)
        *size = total;
    return 0;
}

/* realpath of p, or of its nearest existing parent with the rest appended
 * (an output that does not exist yet); NULL on failure. */
static char *resolve_loose(const char *p)
{
    char *r = realpath(p, NULL), *dir, *base, *out;

    if (r || errno != ENOENT)
        return r;
    dir = dp_path_dirname(p);
    if (!dir || !strcmp(dir, p)) {
        free(dir);
        return NULL;
    }
    base = resolve_loose(dir);
    free(dir);
    out = base ? dp_path_join(base, dp_path_basename(p)) : NULL;
    free(base);
    return out;
}

/* 1 when path a is b or lies under it. */
static int under(const char *a, const char *b)
{
    size_t n = strlen(b);

    return !strncmp(a, b, n) &&
           (a[n] == '\0' || a[n] == '/' || (n == 1 && b[0] == '/'));
}

int dp_path_check_apart(const char *out, const char *in)
{
    char *a = resolve_loose(out), *b = resolve_loose(in);
    int rc = 0;

    if (a && b && (under(a, b) || under(b, a)))
        rc = dp_error(DP_EINVAL,
                      under(b, a) ? "output '%s' holds the input '%s'; "
                                    "choose another output"
                                  : "output '%s' lies inside the input '%s'; "
                                    "choose another output",
                      out, in);
    free(a);
    free(b);
    return rc;
}

int dp_output_lock(const char *out, int *fd_out)
{
    char *path = dp_malloc(strlen(out) + 6);
    int fd = -1, rc = 0;
    size_t n;

    if (!path)
        return DP_ENOMEM;
    strcpy(path, out);
    /* "data/" and "data" are one output */
    n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        path[--n] = '\0';
    strcat(path, ".lock");
    {
        /* the output's folder may not exist yet: it is made anyway */
        char *dir = dp_path_dirname(path);

        rc = dir ? dp_mkdir_p(dir, 0777) : DP_ENOMEM;
        free(dir);
        if (rc) {
            free(path);
            return rc;
        }
    }
    for (;;) {
        struct stat a, b;
        char pid[32] = "";
        ssize_t got;

        fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            rc = dp_error(DP_EIO, "cannot create the lock '%s': %s", path,
                          strerror(errno));
            break;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            got = pread(fd, pid, sizeof(pid) - 1, 0);
            pid[got > 0 ? got : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            rc = dp_error(DP_EEXIST,
                          "'%s' is being written by another dglpart (pid %s, "
                          "lock '%s'); wait for it or choose another output",
                          out, *pid ? pid : "unknown", path);
            break;
        }
        /* the holder before us may have removed the file: lock the one
         * the name now holds */
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev)
            break;
        close(fd);
        fd = -1;
    }
    if (!rc) {
        char pid[32];
        int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

        if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len)
            rc = dp_error(DP_EIO, "cannot write the lock '%s': %s", path,
                          strerror(errno));
    }
    if (rc && fd >= 0)
        close(fd);
    free(path);
    if (!rc)
        *fd_out = fd;
    return rc;
}

void dp_output_unlock(const char *out, int fd)
{
    char *path;
    size_t n;

    if (fd < 0)
        return;
    path = dp_malloc(strlen(out) + 6);
    if (path) {
        strcpy(path, out);
        n = strlen(path);
        while (n > 1 && path[n - 1] == '/')
            path[--n] = '\0';
        strcat(path, ".lock");
        unlink(path); /* while still held: a newcomer makes a new one */
        free(path);
    }
    close(fd);
}

int dp_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;

    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            /* a non-blocking descriptor: wait until it drains */
            struct pollfd pf = { fd, POLLOUT, 0 };

            poll(&pf, 1, 1000);
            continue;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

const char *dp_file_type_name(unsigned type)
{
    switch (type & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFLNK:
        return "a symbolic link";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFIFO:
        return "a fifo";
    case S_IFSOCK:
        return "a socket";
    default:
        return "a file of an unknown type";
    }
}
