/* Safe archive extraction with libarchive: only plain files and folders with
 * relative, '..'-free names; caps on the bytes written and on the apparent
 * size (sparse holes count), the entry count and the path depth; and a
 * temporary folder renamed into place only when every entry is out. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/download.h"
#include "dglpart/dynlib.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/progress.h"

static int depth_of(const char *name)
{
    int d = *name != '\0';

    for (; *name; name++)
        d += *name == '/';
    return d;
}

/* Normalise an entry name into out: drop "." and empty components; refuse
 * absolute names and "..". Returns 0, or -1 when the name is unsafe. */
static int clean_name(const char *name, char *out, size_t outlen)
{
    const char *p = name, *end;
    size_t len = 0;

    if (!name || !*name || *name == '/')
        return -1;
    while (*p) {
        size_t n;

        end = strchr(p, '/');
        n = end ? (size_t)(end - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return -1;
        if (n > 0 && !(n == 1 && p[0] == '.')) {
            if (len + n + 2 > outlen)
                return -1;
            if (len)
                out[len++] = '/';
            memcpy(out + len, p, n);
            len += n;
        }
        if (!end)
            break;
        p = end + 1;
    }
    out[len] = '\0';
    return 0;
}

static int write_entry(struct archive *a, const char *archive, const char *path,
                       uint64_t *total, uint64_t max, struct dp_progress *bar)
{
    const void *buf;
    size_t size;
    la_int64_t off;
    int fd, r, rc = 0;
    char *dir = dp_path_dirname(path);

    if (!dir)
        return DP_ENOMEM;
    rc = dp_mkdir_p(dir, 0755);
    free(dir);
    if (rc)
        return rc;
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return dp_error(DP_EIO, "'%s': cannot create '%s': %s", archive, path,
                        strerror(errno));
    while ((r = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
        size_t done = 0;

        if (off < 0) {
            rc = dp_error(DP_EFORMAT, "'%s': bad data offset", archive);
            break;
        }
        *total += size;
        dp_progress_update(bar, (uint64_t)archive_filter_bytes(a, -1));
        /* a sparse entry writes little but spans its whole offset range */
        if (*total > max || (uint64_t)off + size > max) {
            rc = dp_error(DP_ETOOBIG,
                          "'%s': unpacks to more than %llu bytes; refusing "
                          "(possible zip bomb)",
                          archive, (unsigned long long)max);
            break;
        }
        while (done < size) {
            ssize_t w = pwrite(fd, (const char *)buf + done, size - done,
                               (off_t)off + (off_t)done);

            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                rc = dp_error(DP_EIO, "'%s': %s", path, strerror(errno));
                break;
            }
            done += (size_t)w;
        }
        if (rc)
            break;
    }
    if (!rc && r != ARCHIVE_EOF)
        rc = dp_error(DP_EFORMAT, "'%s': %s", archive,
                      archive_error_string(a) ? archive_error_string(a)
                                              : "read error");
    if (close(fd) != 0 && !rc)
        rc = dp_error(DP_EIO, "'%s': %s", path, strerror(errno));
    return rc;
}

/* The only entry of dir when it is a folder, malloc'd; else NULL. */
static char *single_subdir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char *only = NULL;
    int n = 0;

    if (!d)
        return NULL;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (++n == 1)
            only = dp_path_join(dir, de->d_name);
    }
    closedir(d);
    if (n != 1 || !only || !dp_is_dir(only)) {
        free(only);
        return NULL;
    }
    return only;
}

int dp_unpack(const char *archive, const char *dir, uint64_t max_bytes,
              int strip_single, uint64_t *unpacked)
{
    struct archive *a;
    struct archive_entry *e;
    char *tmp = NULL, *path = NULL, *top = NULL, name[4096];
    uint64_t total = 0, apparent = 0;
    /* entries and path depth past which an archive is refused (an inode
     * bomb: 200,000 files from a 247 KiB .tar.xz) */
    int64_t entries = 0, max_entries = 0, max_depth = 0;
    int rc = 0, r;
    struct dp_progress bar;
    struct stat st;

    if ((rc = dp_env_int("DGLPART_UNPACK_MAX_ENTRIES", &max_entries)) ||
        (rc = dp_env_int("DGLPART_UNPACK_MAX_DEPTH", &max_depth)) ||
        (rc = dp_need_archive()))
        return rc;
    a = archive_read_new();
    /* The bar counts archive bytes read: the total is known up front. */
    dp_progress_start(&bar, "unpack",
                      stat(archive, &st) ? 0 : (uint64_t)st.st_size, 1);
    if (!a)
        return dp_error(DP_ENOMEM, "cannot start libarchive");
    if (dp_exists(dir)) {
        rc = dp_error(DP_EEXIST, "'%s' already exists", dir);
        goto out;
    }
    tmp = dp_malloc(strlen(dir) + 8);
    if (!tmp) {
        rc = DP_ENOMEM;
        goto out;
    }
    sprintf(tmp, "%s.unpack", dir);
    if ((rc = dp_rm_rf(tmp)) != 0 || (rc = dp_mkdir_p(tmp, 0755)) != 0)
        goto out;
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_gnutar(a);
    archive_read_support_filter_all(a);
    if (archive_read_open_filename(a, archive, 1 << 20) != ARCHIVE_OK) {
        rc = dp_error(DP_EFORMAT, "'%s': %s", archive, archive_error_string(a));
        goto out;
    }
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        const char *ename = archive_entry_pathname(e);
        mode_t t = archive_entry_filetype(e);

        if (clean_name(ename, name, sizeof(name))) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': entry '%s' has an unsafe path; "
                          "refusing the archive",
                          archive, ename ? ename : "");
            goto out;
        }
        if (archive_entry_hardlink(e) || (t != AE_IFREG && t != AE_IFDIR)) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': entry '%s' is %s; refusing the "
                          "archive",
                          archive, ename,
                          archive_entry_hardlink(e) ? "a hard link"
                                                    : dp_file_type_name(t));
            goto out;
        }
        if (!*name)
            continue; /* "./" */
        if (++entries > max_entries) {
            rc = dp_error(DP_ETOOBIG,
                          "'%s': more than %lld entries; refusing (possible "
                          "inode bomb; DGLPART_UNPACK_MAX_ENTRIES raises the "
                          "limit)",
                          archive, (long long)max_entries);
            goto out;
        }
        if (depth_of(name) > max_depth) {
            rc = dp_error(DP_ETOOBIG,
                          "'%s': entry '%.200s' is %d levels deep (at most "
                          "%lld; DGLPART_UNPACK_MAX_DEPTH raises it)",
                          archive, name, depth_of(name), (long long)max_depth);
            goto out;
        }
        /* declared sizes, holes included, count before any byte lands */
        if (t == AE_IFREG && archive_entry_size_is_set(e) &&
            archive_entry_size(e) > 0)
            apparent += (uint64_t)archive_entry_size(e);
        if (apparent > max_bytes) {
            rc = dp_error(DP_ETOOBIG,
                          "'%s': entries declare more than %llu bytes "
                          "(sparse holes included); refusing (possible zip "
                          "bomb)",
                          archive, (unsigned long long)max_bytes);
            goto out;
        }
        free(path);
        path = dp_path_join(tmp, name);
        if (!path) {
            rc = DP_ENOMEM;
            goto out;
        }
        if (t == AE_IFDIR)
            rc = dp_mkdir_p(path, 0755);
        else
            rc = write_entry(a, archive, path, &total, max_bytes, &bar);
        if (rc)
            goto out;
    }
    if (r != ARCHIVE_EOF) {
        rc = dp_error(DP_EFORMAT, "'%s': %s", archive,
                      archive_error_string(a) ? archive_error_string(a)
                                              : "read error");
        goto out;
    }
    top = strip_single ? single_subdir(tmp) : NULL;
    if (rename(top ? top : tmp, dir) != 0) {
        rc = dp_error(DP_EIO, "cannot rename '%s' to '%s': %s", top ? top : tmp,
                      dir, strerror(errno));
        goto out;
    }
    if (top)
        dp_rm_rf(tmp);
    free(path);
    path = dp_path_dirname(dir);
    if (path)
        dp_fsync_dir(path);
    if (unpacked)
        *unpacked = total;
out:
    if (bar.active)
        dp_progress_end(&bar);
    if (rc && tmp)
        dp_rm_rf(tmp);
    archive_read_free(a);
    free(top);
    free(path);
    free(tmp);
    return rc;
}
