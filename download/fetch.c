/* dp_dataset_fetch: registry name or URL in, verified local folder out. The
 * cache is DATA_DIR/<folder>/ with a stamp written once the folder is
 * complete; a lock file keeps two runs from fetching the same dataset. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/download.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/progress.h"

void dp_fetched_release(struct dp_fetched *f)
{
    if (!f)
        return;
    free(f->name);
    free(f->path);
    free(f->format);
    memset(f, 0, sizeof(*f));
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && !strcasecmp(s + n - m, suffix);
}

static const char *const tar_ext[] = {
    ".tar.gz",  ".tgz",  ".tar.xz",  ".txz",
    ".tar.bz2", ".tbz2", ".tar.zst", ".tar"
};

/* The archive kind of a file name: "zip", "tar" or "none". */
static const char *archive_kind(const char *base)
{
    size_t i;

    if (ends_with(base, ".zip"))
        return "zip";
    for (i = 0; i < sizeof(tar_ext) / sizeof(tar_ext[0]); i++)
        if (ends_with(base, tar_ext[i]))
            return "tar";
    return "none";
}

/* The last path component of a URL without query or fragment, malloc'd;
 * NULL (with a message) when there is none usable. */
static char *url_basename(const char *url)
{
    const char *p = strstr(url, "://"), *slash;
    size_t n;
    char *out;

    p = p ? p + 3 : url;
    n = strcspn(p, "?#");
    slash = NULL;
    for (const char *q = p; q < p + n; q++)
        if (*q == '/')
            slash = q;
    if (!slash || slash + 1 >= p + n) {
        dp_error(DP_EINVAL, "'%s': the URL names no file", url);
        return NULL;
    }
    n = (size_t)(p + n - slash - 1);
    out = dp_malloc(n + 1);
    if (!out)
        return NULL;
    memcpy(out, slash + 1, n);
    out[n] = '\0';
    if (!strcmp(out, ".") || !strcmp(out, "..")) {
        free(out);
        dp_error(DP_EINVAL, "'%s': the URL names no file", url);
        return NULL;
    }
    return out;
}

/* The file name without its archive extension (a folder name). */
static char *stem(const char *base)
{
    char *s = dp_strdup(base);
    size_t i, n;

    if (!s)
        return NULL;
    n = strlen(s);
    if (ends_with(s, ".zip")) {
        s[n - 4] = '\0';
        return s;
    }
    for (i = 0; i < sizeof(tar_ext) / sizeof(tar_ext[0]); i++)
        if (ends_with(s, tar_ext[i])) {
            s[n - strlen(tar_ext[i])] = '\0';
            return s;
        }
    return s;
}

struct stamp {
    char *name, *url, *file;
    char sha256[65];
    uint64_t size;    /* archive bytes */
    uint64_t content; /* bytes of the files in the folder */
};

static uint64_t walk_total;

static int add_file(const char *path, const struct stat *st, int type,
                    struct FTW *ftw)
{
    if (type == FTW_F && S_ISREG(st->st_mode) &&
        !(ftw->level == 1 && !strcmp(path + ftw->base, DP_DOWNLOAD_STAMP)))
        walk_total += (uint64_t)st->st_size;
    return 0;
}

/* Bytes of the regular files under dir, the stamp excepted. */
static uint64_t dir_bytes(const char *dir)
{
    walk_total = 0;
    if (nftw(dir, add_file, 16, FTW_PHYS) != 0)
        return UINT64_MAX;
    return walk_total;
}

static void stamp_release(struct stamp *s)
{
    free(s->name);
    free(s->url);
    free(s->file);
    memset(s, 0, sizeof(*s));
}

static int write_stamp(const char *dir, const struct stamp *s,
                       const char *format, int undirected)
{
    cJSON *o = cJSON_CreateObject();
    char *text = NULL, *path = dp_path_join(dir, DP_DOWNLOAD_STAMP);
    int rc;

    if (!o || !path) {
        rc = dp_error(DP_ENOMEM, "out of memory");
        goto out;
    }
    cJSON_AddStringToObject(o, "format", "dglpart-download");
    cJSON_AddNumberToObject(o, "version", 1);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "url", s->url);
    cJSON_AddNumberToObject(o, "size", (double)s->size);
    cJSON_AddNumberToObject(o, "content_bytes", (double)s->content);
    cJSON_AddStringToObject(o, "sha256", s->sha256);
    if (s->file)
        cJSON_AddStringToObject(o, "file", s->file);
    cJSON_AddStringToObject(o, "convert_format", format);
    cJSON_AddBoolToObject(o, "undirected", undirected);
    text = cJSON_Print(o);
    if (!text) {
        rc = dp_error(DP_ENOMEM, "out of memory");
        goto out;
    }
    rc = dp_write_file(path, text, strlen(text));
out:
    cJSON_Delete(o);
    free(text);
    free(path);
    return rc;
}

/* 0 and *s filled when DIR holds a readable stamp; -1 otherwise. */
static int read_stamp(const char *dir, struct stamp *s)
{
    char *path = dp_path_join(dir, DP_DOWNLOAD_STAMP), *text = NULL;
    cJSON *o = NULL, *v;
    size_t len;
    int rc = -1;

    memset(s, 0, sizeof(*s));
    if (!path || !dp_exists(path) || dp_read_file(path, 1 << 20, &text, &len))
        goto out;
    o = cJSON_ParseWithLength(text, len);
    v = cJSON_GetObjectItemCaseSensitive(o, "format");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, "dglpart-download"))
        goto out;
    v = cJSON_GetObjectItemCaseSensitive(o, "name");
    s->name = cJSON_IsString(v) ? dp_strdup(v->valuestring) : NULL;
    v = cJSON_GetObjectItemCaseSensitive(o, "url");
    s->url = cJSON_IsString(v) ? dp_strdup(v->valuestring) : NULL;
    v = cJSON_GetObjectItemCaseSensitive(o, "file");
    s->file = cJSON_IsString(v) ? dp_strdup(v->valuestring) : NULL;
    v = cJSON_GetObjectItemCaseSensitive(o, "sha256");
    if (cJSON_IsString(v) && strlen(v->valuestring) < 65)
        strcpy(s->sha256, v->valuestring);
    v = cJSON_GetObjectItemCaseSensitive(o, "size");
    if (cJSON_IsNumber(v) && v->valuedouble >= 0)
        s->size = (uint64_t)v->valuedouble;
    v = cJSON_GetObjectItemCaseSensitive(o, "content_bytes");
    if (cJSON_IsNumber(v) && v->valuedouble >= 0)
        s->content = (uint64_t)v->valuedouble;
    else
        s->content = UINT64_MAX;
    if (s->name && s->url)
        rc = 0;
    else
        stamp_release(s);
out:
    cJSON_Delete(o);
    free(text);
    free(path);
    return rc;
}

/* What to fetch, resolved from the registry or a URL. */
struct want {
    char *name, *folder, *format, *archive_kind, *base;
    char **urls; /* after --mirror */
    int nurls;
    const char *orig_url; /* the first URL before mirroring (borrowed) */
    char sha[65];
    uint64_t size;       /* exact size to check, 0 none */
    uint64_t shown_size; /* size for limits */
    uint64_t unpacked;
    int undirected, dedup, no_self_loops;
};

static void want_release(struct want *w)
{
    int i;

    free(w->name);
    free(w->folder);
    free(w->format);
    free(w->archive_kind);
    free(w->base);
    for (i = 0; i < w->nurls; i++)
        free(w->urls[i]);
    free(w->urls);
}

static int is_url(const char *s)
{
    return strstr(s, "://") != NULL;
}

static int resolve(const char *what, const struct dp_download_opts *o,
                   const struct dp_registry_entry *e, struct want *w)
{
    const char *mirror = o->mirror ? o->mirror : dp_env_str("DGLPART_MIRROR");
    const char *one[1];
    const char *const *src = one;
    int i, n = 1;

    memset(w, 0, sizeof(*w));
    if (e) {
        src = (const char *const *)e->urls;
        n = e->nurls;
        w->name = dp_strdup(e->name);
        w->folder = dp_strdup(e->folder);
        w->format = dp_strdup(e->format);
        w->undirected = e->undirected;
        w->dedup = e->dedup;
        w->no_self_loops = e->no_self_loops;
        memcpy(w->sha, e->sha256, 65);
        w->size = e->size_exact ? e->size : 0;
        w->shown_size = e->size;
        w->unpacked = e->unpacked;
    } else {
        one[0] = what;
        w->format = dp_strdup("auto");
    }
    w->orig_url = src[0];
    w->base = url_basename(src[0]);
    if (!w->base)
        return DP_EINVAL;
    if (!e) {
        w->name = stem(w->base);
        w->folder = w->name ? dp_strdup(w->name) : NULL;
        /* the folder is made and, on a re-fetch, removed under the data
         * dir: "..zip" must not name the data dir's parent */
        if (w->folder && (!*w->folder || !strcmp(w->folder, ".") ||
                          !strcmp(w->folder, "..")))
            return dp_error(DP_EINVAL,
                            "'%s': the file name '%s' leaves no folder name "
                            "(got '%s')",
                            what, w->base, w->folder);
    }
    w->archive_kind = dp_strdup(e ? e->archive : archive_kind(w->base));
    if (o->sha256 && *o->sha256) {
        if (strlen(o->sha256) != 64)
            return dp_error(DP_EINVAL, "--sha256 must be 64 hex digits");
        for (i = 0; i < 64; i++) {
            char c = o->sha256[i];

            if (c >= 'A' && c <= 'F')
                c = (char)(c - 'A' + 'a');
            if (!strchr("0123456789abcdef", c))
                return dp_error(DP_EINVAL, "--sha256 must be 64 hex digits");
            w->sha[i] = c;
        }
        w->sha[64] = '\0';
    }
    if (!w->name || !w->folder || !w->format || !w->archive_kind)
        return DP_ENOMEM;
    w->urls = dp_calloc((size_t)n, sizeof(*w->urls));
    if (!w->urls)
        return DP_ENOMEM;
    for (i = 0; i < n; i++) {
        w->urls[i] = mirror && *mirror ? dp_mirror_url(src[i], mirror)
                                       : dp_strdup(src[i]);
        if (!w->urls[i])
            return DP_ENOMEM;
        w->nurls = i + 1;
    }
    return 0;
}

static int fill_out(struct dp_fetched *out, const struct want *w,
                    const char *dir, const struct stamp *s, int cached)
{
    memset(out, 0, sizeof(*out));
    out->name = dp_strdup(w->name);
    out->path = s->file ? dp_path_join(dir, s->file) : dp_strdup(dir);
    out->format = dp_strdup(w->format);
    out->undirected = w->undirected;
    out->dedup = w->dedup;
    out->no_self_loops = w->no_self_loops;
    memcpy(out->sha256, s->sha256, 65);
    out->size = s->size;
    out->cached = cached;
    if (!out->name || !out->path || !out->format) {
        dp_fetched_release(out);
        return DP_ENOMEM;
    }
    return 0;
}

static int fetch_bundled(const struct dp_registry_entry *e,
                         struct dp_fetched *out)
{
    char *root = dp_bundled_dir(), *dir;

    if (!root)
        return DP_ENOENT;
    dir = dp_path_join(root, e->bundled);
    free(root);
    if (!dir)
        return DP_ENOMEM;
    if (!dp_is_dir(dir)) {
        int rc = dp_error(DP_ENOENT, "bundled dataset '%s' is missing: '%s'",
                          e->name, dir);
        free(dir);
        return rc;
    }
    memset(out, 0, sizeof(*out));
    out->name = dp_strdup(e->name);
    out->format = dp_strdup(e->format);
    out->path = dir;
    out->undirected = e->undirected;
    out->dedup = e->dedup;
    out->no_self_loops = e->no_self_loops;
    out->cached = 1;
    out->bundled = 1;
    if (!out->name || !out->format) {
        dp_fetched_release(out);
        return DP_ENOMEM;
    }
    return 0;
}

/* A plain file becomes DIR/<base>: moved into DIR.unpack, renamed to DIR. */
static int place_file(const char *file, const char *dir, const char *base)
{
    char *tmp = dp_malloc(strlen(dir) + 8), *dest = NULL;
    int rc = 0;

    if (!tmp)
        return DP_ENOMEM;
    sprintf(tmp, "%s.unpack", dir);
    if ((rc = dp_rm_rf(tmp)) || (rc = dp_mkdir_p(tmp, 0755)))
        goto out;
    dest = dp_path_join(tmp, base);
    if (!dest) {
        rc = DP_ENOMEM;
        goto out;
    }
    if (rename(file, dest) != 0 || rename(tmp, dir) != 0)
        rc = dp_error(DP_EIO, "cannot move '%s' to '%s': %s", file, dir,
                      strerror(errno));
out:
    if (rc)
        dp_rm_rf(tmp);
    free(dest);
    free(tmp);
    return rc;
}

/* Warn early when the data dir cannot hold the archive and its contents. */
static void warn_space(const char *data_dir, const struct want *w)
{
    struct statvfs vfs;
    uint64_t need =
        w->unpacked ? w->shown_size + w->unpacked : 2 * w->shown_size;
    char have[32], want[32];

    if (!need || statvfs(data_dir, &vfs) != 0 ||
        (uint64_t)vfs.f_bavail * vfs.f_frsize >= need)
        return;
    dp_fmt_bytes((uint64_t)vfs.f_bavail * vfs.f_frsize, have, sizeof(have));
    dp_fmt_bytes(need, want, sizeof(want));
    dp_warn("'%s' has %s free; %s needs about %s (archive and contents)",
            data_dir, have, w->name, want);
}

static int lock_dataset(const char *data_dir, const char *folder)
{
    struct dp_buf b;
    int fd;

    dp_buf_init(&b, 0);
    if (dp_buf_addf(&b, "%s/.%s.lock", data_dir, folder)) {
        dp_buf_release(&b);
        return -1;
    }
    fd = open(b.data, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        dp_error(DP_EIO, "'%s': %s", b.data, strerror(errno));
    } else if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        dp_log(DP_LOG_INFO, "waiting for another dglpart fetching '%s'",
               folder);
        if (flock(fd, LOCK_EX) != 0) {
            dp_error(DP_EIO, "'%s': cannot lock: %s", b.data, strerror(errno));
            close(fd);
            fd = -1;
        }
    }
    dp_buf_release(&b);
    return fd;
}

/* The stamp matches what we want (same dataset, source and digest) and
 * the folder still holds every byte it recorded. */
static int stamp_matches(const struct stamp *s, const struct want *w,
                         int by_name, const char *dir)
{
    if (by_name ? strcmp(s->name, w->name) : strcmp(s->url, w->orig_url))
        return 0;
    if (w->sha[0] && strcmp(s->sha256, w->sha))
        return 0;
    return dir_bytes(dir) == s->content;
}

int dp_dataset_fetch(const char *name_or_url, const struct dp_download_opts *o,
                     struct dp_fetched *out)
{
    struct dp_registry reg = { NULL, 0 };
    const struct dp_registry_entry *e = NULL;
    struct want w;
    struct stamp s;
    struct stat st;
    const char *data_dir = dp_download_data_dir(o);
    char *dir = NULL, *archive = NULL;
    int rc, lock = -1, i, by_name = !is_url(name_or_url);

    memset(&w, 0, sizeof(w));
    memset(&s, 0, sizeof(s));
    if ((rc = dp_registry_load(&reg)))
        return rc;
    if (by_name) {
        e = dp_registry_find(&reg, name_or_url);
        if (!e) {
            rc = dp_error(DP_ENOENT,
                          "unknown dataset '%s' ('dglpart "
                          "datasets' lists the known ones; a URL "
                          "works too)",
                          name_or_url);
            goto out;
        }
        if (e->bundled) {
            rc = fetch_bundled(e, out);
            goto out;
        }
    }
    if ((rc = resolve(name_or_url, o, e, &w)))
        goto out;
    if ((rc = dp_mkdir_p(data_dir, 0755)))
        goto out;
    dir = dp_path_join(data_dir, w.folder);
    /* A plain file's folder has the file's own name: download it beside
     * the folder under another name. */
    if (!strcmp(w.archive_kind, "none")) {
        struct dp_buf b;

        dp_buf_init(&b, 0);
        archive = dp_buf_addf(&b, "%s/%s.download", data_dir, w.base)
                      ? NULL
                      : dp_buf_detach(&b, NULL);
        dp_buf_release(&b);
    } else {
        archive = dp_path_join(data_dir, w.base);
    }
    if (!dir || !archive) {
        rc = DP_ENOMEM;
        goto out;
    }
    if ((lock = lock_dataset(data_dir, w.folder)) < 0) {
        rc = DP_EIO;
        goto out;
    }
    if (!read_stamp(dir, &s)) {
        if (stamp_matches(&s, &w, by_name, dir)) {
            rc = fill_out(out, &w, dir, &s, 1);
            goto out;
        }
        dp_warn("'%s' holds another or an incomplete download (%s); "
                "fetching again",
                dir, s.url);
        stamp_release(&s);
        if ((rc = dp_rm_rf(dir)))
            goto out;
    } else if (dp_exists(dir)) {
        rc = dp_error(DP_EEXIST,
                      "'%s' exists but was not made by dglpart "
                      "download; move it away or use --data_dir",
                      dir);
        goto out;
    }

    s.name = dp_strdup(w.name);
    s.url = dp_strdup(w.orig_url);
    if (!s.name || !s.url) {
        rc = DP_ENOMEM;
        goto out;
    }
    /* A complete archive (renamed only after verification) is reused
     * when it still has the expected digest. */
    if (dp_exists(archive) && w.sha[0]) {
        if ((rc = dp_sha256_file(archive, s.sha256, NULL)))
            goto out;
        if (strcmp(w.sha, s.sha256)) {
            dp_warn("'%s' has sha256 %s, expected %s; fetching again", archive,
                    s.sha256, w.sha);
            unlink(archive);
        }
    }
    if (!dp_exists(archive)) {
        warn_space(data_dir, &w);
        rc = DP_ENOENT;
        for (i = 0; i < w.nurls && rc; i++) {
            /* The digest is computed only when there is one to check:
             * convert hashes its inputs itself. */
            rc = dp_download_file(w.urls[i], archive, w.name, o, w.size,
                                  w.sha[0] ? w.sha : NULL, s.sha256);
            if (rc && i + 1 < w.nurls)
                dp_warn("%s; trying the next URL", dp_errmsg());
        }
        if (rc)
            goto out;
    }
    if (stat(archive, &st) != 0) {
        rc = dp_error(DP_EIO, "'%s': %s", archive, strerror(errno));
        goto out;
    }
    s.size = (uint64_t)st.st_size;
    if (!strcmp(w.archive_kind, "none")) {
        s.file = dp_strdup(w.base);
        if (!s.file) {
            rc = DP_ENOMEM;
            goto out;
        }
        rc = place_file(archive, dir, w.base);
    } else {
        uint64_t limit = (uint64_t)((double)s.size * o->bomb_factor);

        if (w.unpacked)
            limit = w.unpacked + w.unpacked / 4;
        if (limit < (16u << 20))
            limit = 16u << 20;
        rc = dp_unpack(archive, dir, limit, 1, NULL);
        if (!rc && !o->keep_archive)
            unlink(archive);
    }
    if (!rc) {
        s.content = dir_bytes(dir);
        rc = write_stamp(dir, &s, w.format, w.undirected);
    }
    if (!rc)
        rc = fill_out(out, &w, dir, &s, 0);
out:
    if (lock >= 0)
        close(lock);
    stamp_release(&s);
    want_release(&w);
    dp_registry_release(&reg);
    free(dir);
    free(archive);
    return rc;
}
