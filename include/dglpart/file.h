/* Files and folders: atomic outputs (write name.tmp, check every write,
 * fsync, rename, like git's lockfile), read-only mappings, paths, sha256. */
#ifndef DGLPART_FILE_H
#define DGLPART_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct dp_afile {
    int fd;             /* the temporary, open while tmp != NULL; a caller may
                           write to it directly when it never calls
                           dp_afile_write */
    char *path;         /* final name (owned) */
    char *tmp;          /* path + ".tmp" (owned) */
    int failed;         /* a write failed; commit will refuse */
    int direct;         /* 1: O_DIRECT wanted, 2: on, -1: refused */
    unsigned char *buf; /* pending bytes (owned, page aligned) */
    size_t len;         /* bytes in buf */
    uint64_t off;       /* file offset of buf[0] */
    int dfd;            /* O_DIRECT descriptor for dp_afile_pwrite_at's
                           whole pages; -1: none */
    struct dp_afile_behind *behind; /* a direct chunk being written */
};

/* Create path.tmp for writing; 0 or DP_EIO. */
int dp_afile_open(struct dp_afile *af, const char *path);
/* Same, for a large output read later by another process or host: whole
 * chunks bypass the page cache (O_DIRECT) where the file system allows,
 * which on virtual machines costs a fraction of the CPU of a buffered
 * write, and are written on a thread of their own while the next chunk
 * fills. DGLPART_DIRECT_IO=0 turns it off. */
int dp_afile_open_large(struct dp_afile *af, const char *path);
/* Write n bytes; 0 or DP_EIO naming the file. */
int dp_afile_write(struct dp_afile *af, const void *p, size_t n);
/* Overwrite n bytes at offset off, already written (a header patched at
 * the end); 0 or DP_EIO. */
int dp_afile_pwrite(struct dp_afile *af, uint64_t off, const void *p, size_t n);
/* Write n bytes at offset off straight to the file, never through the
 * buffer: for files filled in slices out of order, from several threads
 * at once, past a prefix written with dp_afile_write. 0 or DP_EIO. */
int dp_afile_pwrite_at(struct dp_afile *af, uint64_t off, const void *p,
                       size_t n);
/* From now on, dp_afile_pwrite_at sends whole pages at page offsets from
 * page-aligned memory past the page cache (O_DIRECT), as
 * dp_afile_open_large does for whole chunks; call it before the writing
 * threads start. Where the file system refuses, or DGLPART_DIRECT_IO=0,
 * nothing changes. */
void dp_afile_direct_slices(struct dp_afile *af);
/* Flush, fsync, close and rename over path; on any failure the temporary
 * is removed. Frees the contents either way. */
int dp_afile_commit(struct dp_afile *af);
/* Close and remove the temporary; safe on a committed or zeroed struct. */
void dp_afile_abort(struct dp_afile *af);

/* Write a whole buffer atomically. */
int dp_write_file(const char *path, const void *p, size_t n);
/* Read a whole file of at most max bytes into a NUL-terminated malloc'd
 * buffer the caller frees. */
int dp_read_file(const char *path, size_t max, char **out, size_t *len);

/* A read-only view of a whole file (mmap; empty files give data NULL). */
struct dp_map {
    const void *data;
    size_t size;
};
int dp_map_open(struct dp_map *m, const char *path);
/* Take the mapped pages out of this process's resident set (they stay in
 * the page cache and come back when read): for big inputs read in
 * sweeps, so one sweep's pages do not add up with the next's. */
void dp_map_drop(const struct dp_map *m);
void dp_map_release(struct dp_map *m);

/* Drop-behind for one sequential sweep over part of a file mapping
 * (dp_map, or a scratch file's MAP_SHARED one): the pages already read
 * leave the resident set a step at a time, so the sweep holds about one
 * step of them, not the whole range. They stay in the page cache (written
 * ones too). Never on anonymous memory, which MADV_DONTNEED zeroes. */
#define DP_BEHIND_STEP ((size_t)8 << 20)
struct dp_behind {
    const char *base; /* NULL: does nothing */
    size_t size;
    size_t done; /* bytes from base below which whole pages are dropped */
};
/* p: size bytes inside a file mapping, or NULL to do nothing. */
void dp_behind_init(struct dp_behind *b, const void *p, size_t size);
/* Every byte below pos has been read: drop the whole pages below it once
 * they add up to a step. */
void dp_behind_at(struct dp_behind *b, size_t pos);
/* The sweep is over: drop every whole page of the range. */
void dp_behind_end(struct dp_behind *b);

/* mkdir -p; 0 or DP_EIO. */
int dp_mkdir_p(const char *path, mode_t mode);
/* rm -rf that never follows symlinks; missing path is not an error. */
int dp_rm_rf(const char *path);
/* 1 if path exists (any type), 0 if not. */
int dp_exists(const char *path);
int dp_is_dir(const char *path);
/* fsync a directory so a rename in it is durable. */
void dp_fsync_dir(const char *path);
/* Put the complete folder tmp in place of out. An existing out is swapped
 * with tmp in one step (renameat2 RENAME_EXCHANGE) and then removed, so a
 * kill at any point leaves out whole, old or new; where the file system
 * cannot swap, out is moved aside to out.old first and put back if the
 * rename fails. 0 or DP_EIO. */
int dp_install_dir(const char *tmp, const char *out);
/* For tests: dies by SIGKILL at the named point when DGLPART_FAULT names
 * it, to check that an interrupted run leaves nothing half-done. */
void dp_fault(const char *point);

/* Free bytes for an unprivileged writer on the file system that holds or
 * will hold path (its nearest existing parent), -1 when unknown; *dev (may
 * be NULL) names that file system, to tell two paths on one apart.
 * DGLPART_TEST_DISK_FREE replaces the figure, for tests of a full disk. */
int64_t dp_disk_free(const char *path, uint64_t *dev);

/* "a" + "/" + "b" in a malloc'd string (b absolute wins); NULL on ENOMEM. */
char *dp_path_join(const char *a, const char *b);
/* Directory part of path ("." when none), malloc'd. */
char *dp_path_dirname(const char *path);
/* Last component of path (borrowed from path). */
const char *dp_path_basename(const char *path);

/* write(2) all n bytes of buf to fd, through EINTR and, for a non-blocking
 * fd, EAGAIN; 0, or -1 with errno set. */
int dp_write_all(int fd, const void *buf, size_t n);

/* One writer per output: an flock on OUT.lock (OUT without trailing '/'),
 * holding our pid. 0 and *fd, or DP_EEXIST naming the holder's pid when
 * another process has it (at once, no waiting). dp_output_unlock removes
 * the file and releases the lock. */
int dp_output_lock(const char *out, int *fd);
void dp_output_unlock(const char *out, int fd);

/* An output must lie apart from an input: 0, or DP_EINVAL naming both when
 * out is in, holds in, or lies inside in (after symlinks; out need not
 * exist yet). A command would otherwise overwrite or delete what it
 * reads. */
int dp_path_check_apart(const char *out, const char *in);

/* sha256 of a buffer or a whole file, as 64 lowercase hex chars + NUL.
 * The file variant also reports the size when size != NULL. */
void dp_sha256_hex(const void *p, size_t n, char out[65]);
int dp_sha256_file(const char *path, char out[65], uint64_t *size);

/* Incremental sha256 for streams (opaque; wraps OpenSSL's EVP). */
struct dp_sha256;
struct dp_sha256 *dp_sha256_new(void);
void dp_sha256_update(struct dp_sha256 *h, const void *p, size_t n);
/* Writes the hex digest and frees h. */
void dp_sha256_final(struct dp_sha256 *h, char out[65]);

/* "a symbolic link", "a fifo"...: the kind of file whose st_mode type bits
 * are type, for messages. A libarchive entry's filetype (AE_IF*) has the
 * same values. Returns a static string. */
const char *dp_file_type_name(unsigned type);

#endif
