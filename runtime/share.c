/* One copy of a part's in-edge arrays per machine: a file in a tmpfs (by
 * default /dev/shm) that the first process to load the part builds under a
 * temporary name and renames once complete; every other server, trainer
 * and sampler of the machine maps it read-only. Locks (flock) say who
 * builds, who waits and who still uses a copy: the kernel drops them when
 * a process dies, so a dead builder blocks nobody and leaves nothing that
 * looks complete. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/progress.h"
#include "dglpart/runtime.h"
#include "rt_int.h"

#define SHM_MAGIC "DPRTCSC"
#define SHM_VERSION 1u
#define SHM_ALIGN 4096u

/* The file: this header, then indptr, src, eid (int64) and etype (u16),
 * each at a page boundary. */
struct shm_header {
    char magic[8];
    uint32_t version;
    uint32_t part;
    uint64_t content; /* content id: the name's last field */
    int64_t num_inner, total, node_start, edge_start;
    int64_t num_etypes; /* 0: untyped */
    uint64_t off_indptr, off_src, off_eid, off_etype, size;
};

struct dp_shm {
    void *base;
    size_t size;
    int fd;    /* holds a shared flock while the copy is in use */
    pid_t pid; /* who opened it: forked children leave the file alone */
    char *path, *lock, *dir, *prefix;
};

struct dp_shm_build {
    struct dp_shm s;
    struct shm_header h;
    const char *tmp;
    int placed;    /* p's arrays point into s.base */
    int fs_failed; /* the folder could not take the copy */
};

const char *dp_part_shm_dir(void)
{
    const char *e = dp_env_str("DGLPART_SHM_DIR");

    if (e && !strcmp(e, "none"))
        return NULL;
    return e && *e ? e : "/dev/shm";
}

const char *dp_part_shm_path(const struct dp_part *p)
{
    return p->shm ? p->shm->path : NULL;
}

static uint64_t align_up(uint64_t v)
{
    return (v + SHM_ALIGN - 1) / SHM_ALIGN * SHM_ALIGN;
}

static void shm_free(struct dp_shm *s)
{
    if (s->base)
        munmap(s->base, s->size);
    if (s->fd >= 0)
        close(s->fd);
    free(s->path);
    free(s->lock);
    free(s->dir);
    free(s->prefix);
    memset(s, 0, sizeof(*s));
    s->fd = -1;
}

static void take_lock(int fd, int how)
{
    while (flock(fd, how) && errno == EINTR)
        ;
}

/* Remove the files of this graph's part that nobody holds: copies of other
 * contents from dead or finished runs, temporary files of dead builders,
 * idle lock files. A file someone uses is locked and stays. */
static void sweep(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = strlen(prefix);

    if (!d)
        return;
    while ((e = readdir(d))) {
        int fd;
        if (strncmp(e->d_name, prefix, n))
            continue;
        fd = openat(dirfd(d), e->d_name,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (!flock(fd, LOCK_EX | LOCK_NB) &&
            !unlinkat(dirfd(d), e->d_name, 0) && dp_verbose)
            fprintf(stderr, "%s: removed '%s/%s' (nobody used it)\n",
                    dp_progname(), dir, e->d_name);
        close(fd);
    }
    closedir(d);
}

void dp_shm_release(struct dp_shm *s)
{
    struct stat a, b;

    if (!s)
        return;
    if (s->base) {
        munmap(s->base, s->size);
        s->base = NULL;
    }
    /* The last user of this machine takes the file away: an exclusive lock
     * is only granted when no other process holds its shared one. */
    if (s->pid == getpid() && s->fd >= 0 && !flock(s->fd, LOCK_EX | LOCK_NB) &&
        !fstat(s->fd, &a) && !stat(s->path, &b) && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev) {
        unlink(s->path);
        unlink(s->lock);
        sweep(s->dir, s->prefix);
    }
    shm_free(s);
    free(s);
}

/* The content id: the part's graph.dgl and the config as files (device,
 * inode, size, times) and the part's ranges, so a changed or different
 * set never maps another's copy. */
static int content_id(const struct dp_part_config *c, const struct dp_part *p,
                      uint64_t *out)
{
    char *gpath = dp_config_part_file(c, p->id, "part_graph");
    const char *paths[2] = { gpath, c->path };
    uint64_t h = dp_mix64(SHM_VERSION);
    struct stat st;
    int i;

    if (!gpath)
        return DP_ENOMEM;
    for (i = 0; i < 2; i++) {
        uint64_t v[7];
        int k;
        if (stat(paths[i], &st)) {
            int rc =
                dp_error(errno == ENOENT ? DP_ENOENT : DP_EIO,
                         "cannot open '%s': %s", paths[i], strerror(errno));
            free(gpath);
            return rc;
        }
        v[0] = (uint64_t)st.st_dev;
        v[1] = (uint64_t)st.st_ino;
        v[2] = (uint64_t)st.st_size;
        v[3] = (uint64_t)st.st_mtim.tv_sec;
        v[4] = (uint64_t)st.st_mtim.tv_nsec;
        v[5] = (uint64_t)st.st_ctim.tv_sec;
        v[6] = (uint64_t)st.st_ctim.tv_nsec;
        for (k = 0; k < 7; k++)
            h = dp_mix64(h ^ v[k]);
    }
    free(gpath);
    h = dp_mix64(h ^ (uint64_t)p->id);
    h = dp_mix64(h ^ (uint64_t)p->node_start);
    h = dp_mix64(h ^ (uint64_t)p->num_inner);
    h = dp_mix64(h ^ (uint64_t)p->edge_start);
    h = dp_mix64(h ^ (uint64_t)p->num_inner_edges);
    *out = dp_mix64(h ^ (uint64_t)c->num_etypes);
    return 0;
}

/* "dglpart-<graph>-part<p>-": the graph name kept to a safe file name. */
static char *family(const struct dp_part_config *c, int part)
{
    char g[65], *out;
    const char *n = c->graph_name ? c->graph_name : "graph";
    size_t i;

    for (i = 0; n[i] && i < sizeof(g) - 1; i++)
        g[i] = (n[i] >= 'a' && n[i] <= 'z') || (n[i] >= 'A' && n[i] <= 'Z') ||
                       (n[i] >= '0' && n[i] <= '9') || n[i] == '_' ||
                       n[i] == '.'
                   ? n[i]
                   : '_';
    g[i] = 0;
    if (!(out = dp_malloc(sizeof(g) + 32)))
        return NULL;
    snprintf(out, sizeof(g) + 32, "dglpart-%s-part%d-", g, part);
    return out;
}

static int typed_etypes(const struct dp_part_config *c)
{
    return c->num_etypes > 1 && c->etype_map ? c->num_etypes : 0;
}

/* Does the mapped header h (file of `size` bytes) describe a complete copy
 * of what want describes? */
static int header_ok(const struct shm_header *h, const struct shm_header *w,
                     uint64_t size)
{
    const struct shm_header *x = h;
    uint64_t n1 = (uint64_t)w->num_inner + 1, t;

    if (memcmp(x->magic, SHM_MAGIC, sizeof(SHM_MAGIC)) ||
        x->version != SHM_VERSION || x->part != w->part ||
        x->content != w->content || x->num_inner != w->num_inner ||
        x->node_start != w->node_start || x->edge_start != w->edge_start ||
        x->num_etypes != w->num_etypes || x->size != size || x->total < 0 ||
        x->total > w->total) /* w->total: the part's edge range */
        return 0;
    t = (uint64_t)x->total;
    if (x->off_indptr < sizeof(*x) || x->off_indptr % 8 || x->off_src % 8 ||
        x->off_eid % 8 || x->off_etype % 8 || x->off_indptr > size ||
        n1 > (size - x->off_indptr) / 8 || x->off_src > size ||
        t > (size - x->off_src) / 8 || x->off_eid > size ||
        t > (size - x->off_eid) / 8)
        return 0;
    if (x->num_etypes && (x->off_etype > size || t > (size - x->off_etype) / 2))
        return 0;
    return 1;
}

static int indptr_ok(const int64_t *ip, int64_t n, int64_t total)
{
    int64_t v;

    if (ip[0] != 0 || ip[n] != total)
        return 0;
    for (v = 0; v < n; v++)
        if (ip[v + 1] < ip[v])
            return 0;
    return 1;
}

static void point(struct dp_part *p, const struct shm_header *h, char *base)
{
    p->indptr = (int64_t *)(void *)(base + h->off_indptr);
    p->src = (int64_t *)(void *)(base + h->off_src);
    p->eid = (int64_t *)(void *)(base + h->off_eid);
    p->etype = h->num_etypes ? (uint16_t *)(void *)(base + h->off_etype) : NULL;
    p->num_etypes = (int)h->num_etypes;
}

/* Map the published copy at s->path into p: 0, DP_ENOENT when there is
 * none (or it went away meanwhile), or an error (*soft: the folder's). */
static int attach(struct dp_part *p, struct dp_shm *s,
                  const struct shm_header *want, int *soft)
{
    struct stat a, b;
    const struct shm_header *h;
    int fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0) {
        if (errno == ENOENT)
            return DP_ENOENT;
        *soft = 1;
        return dp_error(DP_EIO, "cannot open '%s': %s", s->path,
                        strerror(errno));
    }
    /* Waits only while a last user removes it (see dp_shm_release). */
    take_lock(fd, LOCK_SH);
    if (fstat(fd, &a) || stat(s->path, &b) || a.st_ino != b.st_ino ||
        a.st_dev != b.st_dev) {
        close(fd);
        return DP_ENOENT;
    }
    /* /dev/shm is everyone's: map only what this user made */
    if (!S_ISREG(a.st_mode) || a.st_uid != geteuid() || (a.st_mode & 022)) {
        close(fd);
        *soft = 1;
        return dp_error(DP_EIO, "'%s' is not a file of this user's", s->path);
    }
    if ((uint64_t)a.st_size < sizeof(*h)) {
        close(fd);
        goto bad;
    }
    s->base = mmap(NULL, (size_t)a.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        close(fd);
        *soft = 1;
        return dp_error(DP_EIO, "cannot map '%s': %s", s->path,
                        strerror(errno));
    }
    s->size = (size_t)a.st_size;
    s->fd = fd;
    h = s->base;
    if (!header_ok(h, want, (uint64_t)a.st_size) ||
        !indptr_ok((const int64_t *)(const void *)((const char *)s->base +
                                                   h->off_indptr),
                   want->num_inner, h->total)) {
        munmap(s->base, s->size);
        s->base = NULL;
        close(fd);
        s->fd = -1;
        goto bad;
    }
    point(p, h, s->base);
    return 0;
bad:
    return dp_error(DP_EFORMAT,
                    "'%s' is not a complete shared copy of part %d (another "
                    "program's file? remove it)",
                    s->path, p->id);
}

int dp_shm_place(struct dp_shm_build *sb, struct dp_part *p, int64_t total,
                 int typed)
{
    struct shm_header *h = &sb->h;
    uint64_t end;
    void *base;
    int e;

    h->total = total;
    h->off_indptr = align_up(sizeof(*h));
    h->off_src = align_up(h->off_indptr + ((uint64_t)p->num_inner + 1) * 8);
    h->off_eid = align_up(h->off_src + (uint64_t)total * 8);
    end = h->off_eid + (uint64_t)total * 8;
    h->off_etype = typed ? align_up(end) : 0;
    if (typed)
        end = h->off_etype + (uint64_t)total * 2;
    h->size = align_up(end);
    /* Reserve every page now: a tmpfs that runs out while the arrays are
     * written would kill us with SIGBUS instead of an error. */
    if ((e = posix_fallocate(sb->s.fd, 0, (off_t)h->size))) {
        sb->fs_failed = 1;
        return dp_error(DP_EIO, "cannot make '%s' %llu bytes: %s", sb->tmp,
                        (unsigned long long)h->size, strerror(e));
    }
    base = mmap(NULL, (size_t)h->size, PROT_READ | PROT_WRITE, MAP_SHARED,
                sb->s.fd, 0);
    if (base == MAP_FAILED) {
        sb->fs_failed = 1;
        return dp_error(DP_EIO, "cannot map '%s': %s", sb->tmp,
                        strerror(errno));
    }
    sb->s.base = base;
    sb->s.size = (size_t)h->size;
    memcpy((char *)base + h->off_indptr, p->indptr,
           ((size_t)p->num_inner + 1) * 8);
    free(p->indptr);
    h->num_etypes = typed ? h->num_etypes : 0;
    point(p, h, base);
    sb->placed = 1;
    return 0;
}

/* For tests (DGLPART_FAULT): stop or die with a complete copy not yet
 * published. */
static void fault_before_publish(void)
{
    const char *f = dp_env_str("DGLPART_FAULT");

    if (f && !strcmp(f, "share-stop"))
        raise(SIGSTOP);
    dp_fault("share-publish");
}

/* Build the copy into a temporary file and publish it as s->path. */
static int build(struct dp_part *p, const struct dp_part_config *c,
                 const struct dp_book *b, struct dp_shm *s,
                 const struct shm_header *want, int *soft)
{
    struct dp_shm_build sb;
    char *tmp = dp_malloc(strlen(s->path) + 32);
    int rc, fd;

    memset(&sb, 0, sizeof(sb));
    sb.s.fd = -1;
    if (!tmp)
        return DP_ENOMEM;
    snprintf(tmp, strlen(s->path) + 32, "%s.tmp%ld", s->path, (long)getpid());
    unlink(tmp); /* a dead process of ours with the same pid */
    if ((fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        *soft = 1;
        rc = dp_error(DP_EIO, "cannot create '%s': %s", tmp, strerror(errno));
        free(tmp);
        return rc;
    }
    take_lock(fd, LOCK_EX); /* a sweep leaves it alone */
    sb.s.fd = fd;
    sb.tmp = tmp;
    sb.h = *want;
    rc = dp_part_build(p, c, b, &sb);
    if (!rc) {
        fault_before_publish();
        memcpy(sb.s.base, &sb.h, sizeof(sb.h));
        if (mprotect(sb.s.base, sb.s.size, PROT_READ) || rename(tmp, s->path)) {
            *soft = 1;
            rc = dp_error(DP_EIO, "cannot publish '%s': %s", s->path,
                          strerror(errno));
        }
    } else {
        *soft = sb.fs_failed;
    }
    if (rc) {
        if (sb.placed)
            p->indptr = p->src = p->eid = NULL, p->etype = NULL;
        unlink(tmp);
        shm_free(&sb.s);
        free(tmp);
        return rc;
    }
    take_lock(fd, LOCK_SH); /* now one user among others */
    s->base = sb.s.base;
    s->size = sb.s.size;
    s->fd = fd;
    free(tmp);
    return 0;
}

int dp_part_load_shared(struct dp_part *p, const struct dp_part_config *c,
                        const struct dp_book *b, int part, const char *dir,
                        int *built)
{
    struct shm_header want;
    struct dp_shm *s = NULL;
    int rc, soft = 0, lfd = -1;
    size_t n;
    double t0 = dp_now();

    if (!dir)
        goto private;
    if ((rc = dp_part_init(p, c, b, part)))
        return rc;
    memset(&want, 0, sizeof(want));
    memcpy(want.magic, SHM_MAGIC, sizeof(SHM_MAGIC));
    want.version = SHM_VERSION;
    want.part = (uint32_t)part;
    want.num_inner = p->num_inner;
    want.total = p->num_inner_edges;
    want.node_start = p->node_start;
    want.edge_start = p->edge_start;
    want.num_etypes = typed_etypes(c);
    if ((rc = content_id(c, p, &want.content)))
        return rc;
    if (!(s = dp_calloc(1, sizeof(*s))))
        return DP_ENOMEM;
    s->fd = -1;
    s->pid = getpid();
    n = strlen(dir) + 128;
    if (!(s->prefix = family(c, part)) || !(s->dir = dp_strdup(dir)) ||
        !(s->path = dp_malloc(n)) || !(s->lock = dp_malloc(n))) {
        rc = DP_ENOMEM;
        goto out;
    }
    snprintf(s->path, n, "%s/%s%016llx", dir, s->prefix,
             (unsigned long long)want.content);
    snprintf(s->lock, n, "%s.lock", s->path);
    *built = 0;
    if ((rc = attach(p, s, &want, &soft)) == DP_ENOENT) {
        /* Nobody has published it: whoever holds the lock builds, the
         * others wait for the lock and look again. */
        if ((lfd = open(s->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                        0600)) < 0) {
            soft = 1;
            rc = dp_error(DP_EIO, "cannot create '%s': %s", s->lock,
                          strerror(errno));
        } else {
            if (flock(lfd, LOCK_EX | LOCK_NB)) {
                fprintf(stderr,
                        "%s: part %d: waiting for another process to "
                        "finish building '%s'\n",
                        dp_progname(), part, s->path);
                take_lock(lfd, LOCK_EX);
            }
            if ((rc = attach(p, s, &want, &soft)) == DP_ENOENT) {
                sweep(dir, s->prefix);
                rc = build(p, c, b, s, &want, &soft);
                *built = 1;
            }
        }
    }
    if (lfd >= 0)
        close(lfd);
    if (rc && soft) {
        dp_warn("part %d: no shared copy in '%s' (%s): building a private one",
                part, dir, dp_errmsg());
        dp_shm_release(s);
        s = NULL;
        dp_part_release(p);
        goto private;
    }
    if (rc)
        goto out;
    if (dp_verbose)
        fprintf(stderr, "%s: part %d: %s '%s' in %.3f s\n", dp_progname(), part,
                *built ? "built" : "attached to", s->path, dp_now() - t0);
    p->shm = s;
    s = NULL;
    if ((rc = dp_part_load_feats(p, c)))
        dp_part_release(p);
    return rc;
out:
    dp_shm_release(s);
    dp_part_release(p);
    return rc;

  private:
    *built = 1;
    return dp_part_load(p, c, b, part);
}
