/* What gets shipped: item lists (files on disk or in memory), the files of a
 * part as its config names them, and MANIFESTs with the size and sha256 of
 * every file (cached next to the part). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/copy.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"

#define MANIFEST_HEADER "# dglpart MANIFEST 1: sha256 size name\n"

void dp_items_release(struct dp_items *l)
{
    int i;

    for (i = 0; i < l->count; i++) {
        free(l->v[i].name);
        free(l->v[i].src);
        free(l->v[i].data);
    }
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static struct dp_item *items_push(struct dp_items *l, const char *name)
{
    struct dp_item *it;

    if (strchr(name, '\n') || !*name) {
        dp_error(DP_EINVAL, "'%s': file names with newlines cannot be shipped",
                 name);
        return NULL;
    }
    if (DP_ALLOC_GROW(l->v, l->count + 1, l->cap))
        return NULL;
    it = &l->v[l->count];
    memset(it, 0, sizeof(*it));
    if (!(it->name = dp_strdup(name)))
        return NULL;
    l->count++;
    return it;
}

int dp_items_add_file(struct dp_items *l, const char *name, const char *src)
{
    struct stat st;
    struct dp_item *it;

    if (stat(src, &st) != 0)
        return dp_error(DP_ENOENT, "cannot read '%s': %s", src,
                        strerror(errno));
    if (!S_ISREG(st.st_mode))
        return dp_error(DP_EINVAL, "'%s' is not a regular file", src);
    if (!(it = items_push(l, name)))
        return DP_ENOMEM;
    it->size = (uint64_t)st.st_size;
    it->mode = (st.st_mode & 0111) ? 0755 : 0644;
    if (!(it->src = dp_strdup(src)))
        return DP_ENOMEM;
    return 0;
}

int dp_items_add_data(struct dp_items *l, const char *name, const void *p,
                      size_t n)
{
    struct dp_item *it = items_push(l, name);

    if (!it)
        return DP_ENOMEM;
    it->size = n;
    it->mode = 0644;
    if (!(it->data = dp_malloc(n + 1)))
        return DP_ENOMEM;
    memcpy(it->data, p, n);
    it->data[n] = '\0';
    dp_sha256_hex(p, n, it->sha);
    return 0;
}

int dp_items_add_dir(struct dp_items *l, const char *name)
{
    struct dp_item *it = items_push(l, name);

    if (!it)
        return DP_ENOMEM;
    it->is_dir = 1;
    it->mode = 0755;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_tree(struct dp_items *l, const char *name, const char *dir,
                    int depth)
{
    DIR *d;
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    int rc;

    if (depth > 64)
        return dp_error(DP_ETOOBIG,
                        "'%s': folders nested too deep (a "
                        "symlink loop?)",
                        dir);
    if ((rc = dp_items_add_dir(l, name)))
        return rc;
    if (!(d = opendir(dir)))
        return dp_error(DP_EIO, "cannot open folder '%s': %s", dir,
                        strerror(errno));
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if ((rc = DP_ALLOC_GROW(names, n + 1, cap)))
            goto out;
        if (!(names[n] = dp_strdup(de->d_name))) {
            rc = DP_ENOMEM;
            goto out;
        }
        n++;
    }
    /* Sorted, so the stream and the MANIFEST do not depend on readdir. */
    if (n)
        qsort(names, n, sizeof(*names), cmp_str);
    for (i = 0; i < n && !rc; i++) {
        char *src = dp_path_join(dir, names[i]);
        char *sub = dp_path_join(name, names[i]);
        struct stat st;

        if (!src || !sub)
            rc = DP_ENOMEM;
        else if (stat(src, &st) != 0)
            dp_warn("skipping '%s': %s", src, strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = add_tree(l, sub, src, depth + 1);
        else if (S_ISREG(st.st_mode))
            rc = dp_items_add_file(l, sub, src);
        else
            dp_warn("skipping '%s': not a file or folder", src);
        free(src);
        free(sub);
    }
out:
    closedir(d);
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int dp_items_add_tree(struct dp_items *l, const char *prefix, const char *dir)
{
    if (!dp_is_dir(dir))
        return dp_error(DP_ENOENT, "'%s' is not a folder", dir);
    return add_tree(l, prefix, dir, 0);
}

int dp_part_items(const struct dp_part_config *c, int part, struct dp_items *l)
{
    const struct dp_part_files *f;
    int rc, k, i;

    if (part < 0 || part >= c->num_parts)
        return dp_error(DP_ERANGE, "part %d out of range [0, %d) of '%s'", part,
                        c->num_parts, c->path);
    f = &c->files[part];
    for (k = 0; k < f->count; k++) {
        const char *base = dp_path_basename(f->paths[k]);
        char *src;

        if (!*base || !strcmp(base, "..") || !strcmp(base, ".") ||
            !strcmp(base, "MANIFEST"))
            return dp_error(DP_EFORMAT, "'%s': part-%d \"%s\" names no file",
                            c->path, part, f->keys[k]);
        for (i = 0; i < l->count; i++)
            if (!strcmp(l->v[i].name, base))
                return dp_error(DP_EFORMAT,
                                "'%s': part-%d names two files "
                                "called '%s'",
                                c->path, part, base);
        if (!(src = dp_path_join(c->dir, f->paths[k])))
            return DP_ENOMEM;
        rc = dp_items_add_file(l, base, src);
        free(src);
        if (rc)
            return rc;
    }
    return 0;
}

/* The cache is usable when it is strictly newer than every file and lists
 * each with its current size. */
static int use_cache(struct dp_items *l, const char *cache)
{
    struct stat cs, st;
    char *text = NULL, *line, *save = NULL;
    size_t len;
    int i, found = 0, files = 0;

    if (stat(cache, &cs) != 0 || !S_ISREG(cs.st_mode))
        return 0;
    for (i = 0; i < l->count; i++) {
        if (l->v[i].is_dir || !l->v[i].src)
            continue;
        files++;
        if (stat(l->v[i].src, &st) != 0 ||
            st.st_mtim.tv_sec > cs.st_mtim.tv_sec ||
            (st.st_mtim.tv_sec == cs.st_mtim.tv_sec &&
             st.st_mtim.tv_nsec >= cs.st_mtim.tv_nsec))
            return 0;
    }
    if (dp_read_file(cache, 16u << 20, &text, &len) != 0)
        return 0;
    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *sp1 = strchr(line, ' '), *sp2, *end;
        unsigned long long size;

        if (*line == '#' || !sp1 || sp1 - line != 64 ||
            !(sp2 = strchr(sp1 + 1, ' ')))
            continue;
        *sp2 = '\0';
        errno = 0;
        size = strtoull(sp1 + 1, &end, 10);
        if (errno || end != sp2 || end == sp1 + 1)
            continue;
        for (i = 0; i < l->count; i++) {
            struct dp_item *it = &l->v[i];

            if (!it->is_dir && it->src && !it->sha[0] &&
                !strcmp(it->name, sp2 + 1) && (uint64_t)size == it->size) {
                memcpy(it->sha, line, 64);
                it->sha[64] = '\0';
                found++;
            }
        }
    }
    free(text);
    if (found == files)
        return 1;
    for (i = 0; i < l->count; i++)
        if (l->v[i].src)
            l->v[i].sha[0] = '\0';
    return 0;
}

/* Whether the cache's folder is meant to be written: root ignores
 * permissions, so look at the mode too (shared read-only fixtures). */
static int writable_dir(const char *file)
{
    char *dir = dp_path_dirname(file);
    struct stat st;
    int ok = dir && stat(dir, &st) == 0 && (st.st_mode & S_IWUSR) &&
             access(dir, W_OK) == 0;

    free(dir);
    return ok;
}

int dp_items_hash(struct dp_items *l, const char *cache)
{
    struct dp_buf b;
    int i, rc;

    if (cache && use_cache(l, cache))
        return 0;
    for (i = 0; i < l->count; i++) {
        struct dp_item *it = &l->v[i];
        uint64_t size;

        if (it->is_dir || !it->src || it->sha[0])
            continue;
        if ((rc = dp_sha256_file(it->src, it->sha, &size)))
            return rc;
        if (size != it->size)
            return dp_error(DP_EIO, "'%s' changed while being read", it->src);
    }
    if (!cache || !writable_dir(cache))
        return 0;
    dp_buf_init(&b, 0);
    /* Best effort: a read-only part folder only costs hashing next time. */
    if (dp_manifest_format(l, &b) == 0 &&
        dp_write_file(cache, b.data, b.len) != 0)
        dp_log(DP_LOG_V, "cannot cache the MANIFEST: %s", dp_errmsg());
    dp_buf_release(&b);
    return 0;
}

int dp_manifest_format(const struct dp_items *l, struct dp_buf *out)
{
    int i, rc = dp_buf_adds(out, MANIFEST_HEADER);

    for (i = 0; i < l->count && !rc; i++) {
        const struct dp_item *it = &l->v[i];

        if (it->is_dir)
            continue;
        if (!it->sha[0])
            return dp_error(DP_EINVAL, "'%s' has not been hashed", it->name);
        rc = dp_buf_addf(out, "%s %llu %s\n", it->sha,
                         (unsigned long long)it->size, it->name);
    }
    return rc;
}

int dp_manifest_matches(const struct dp_items *l, const char *text)
{
    const char *p = text, *nl;
    int i, files = 0, seen = 0;
    char want[4096 + 100];

    for (i = 0; i < l->count; i++)
        files += !l->v[i].is_dir;
    while (*p) {
        size_t n;

        nl = strchr(p, '\n');
        n = nl ? (size_t)(nl - p) : strlen(p);
        if (n && *p != '#') {
            int ok = 0;

            for (i = 0; i < l->count && !ok; i++) {
                const struct dp_item *it = &l->v[i];
                int w;

                if (it->is_dir)
                    continue;
                w = snprintf(want, sizeof(want), "%s %llu %s", it->sha,
                             (unsigned long long)it->size, it->name);
                ok = w > 0 && (size_t)w == n && !memcmp(want, p, n);
            }
            if (!ok)
                return 0;
            seen++;
        }
        p += n + (nl ? 1 : 0);
    }
    return seen == files;
}
