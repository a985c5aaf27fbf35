/* Memory behaviour for long single-threaded phases (METIS). */
#ifndef DGLPART_MEMORY_H
#define DGLPART_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Restart the process (same argv) with glibc asking for transparent huge
 * pages, when the kernel gives them on request and neither
 * DGLPART_HUGEPAGES=0 nor GLIBC_TUNABLES already decides. Returns only when
 * it does not restart, with a one-line description of the outcome. Call
 * before any other work: the restart begins the command again. */
const char *dp_hugepages_reexec(char **argv);

/* on: freed memory stays in the heap (no mmap, no trimming) so the next
 * allocations reuse pages already faulted in; off: back to glibc's
 * defaults, and the free memory is returned. */
void dp_heap_hold(int on);
/* Every block of a MiB or more mapped on its own and unmapped when freed,
 * whatever was freed before: glibc otherwise raises its mapping threshold
 * to the largest block freed (up to 32 MiB) and keeps later blocks below
 * it in a heap that stays resident. For a run of many large arrays in
 * turn, as each level of the distributed path makes. */
void dp_heap_map_large(void);

/* Read-only arrays kept in an unlinked scratch file rather than in
 * anonymous memory: their pages are page cache, which the kernel can write
 * back and reclaim under pressure, and dp_spill_drop() takes them out of
 * this process's resident set until they are read again. For data a long
 * step reads only now and then, such as METIS's finest graph. */
#define DP_SPILL_MAPS 4

struct dp_spill {
    int fd;       /* -1: not open */
    size_t end;   /* file size so far, a 2 MiB multiple */
    size_t bytes; /* mapped, in all */
    int n;
    struct {
        void *p;
        size_t len;
        size_t off; /* file offset of p, or SIZE_MAX (fill32's repeats) */
    } map[DP_SPILL_MAPS];
    void *watch; /* dp_spill_watch's thread, when running */
};

/* Create the file in dir, or in its nearest existing parent. Fails with
 * DP_EUNSUPPORTED where that would save nothing (tmpfs, ramfs) or where
 * unlinked files cannot be made, else DP_EIO; the message says why. */
int dp_spill_open(struct dp_spill *s, const char *dir);

/* A read-only copy of bytes of src, or NULL (DP_EIO: disk full...). */
const void *dp_spill_copy(struct dp_spill *s, const void *src, size_t bytes);

/* The same for memory the caller frees after: src's pages go back to the
 * kernel as they are written (dp_spill_write_give), and after a failure
 * src reads as before. */
const void *dp_spill_copy_give(struct dp_spill *s, void *src, size_t bytes);

/* Room for bytes at the end of the file, to be written with
 * dp_spill_write (a hole until then: no disk, no memory); returns its
 * offset, or (size_t)-1 with the message set. */
size_t dp_spill_room(struct dp_spill *s, size_t bytes);

/* Write len bytes of src at byte offset off (pwrite: the pages go to the
 * page cache, never into this process). 0 or DP_EIO. Safe from two
 * threads on ranges that do not overlap. */
int dp_spill_write(struct dp_spill *s, size_t off, const void *src, size_t len);

/* dp_spill_write of memory the caller is done with (anonymous, private):
 * its whole pages go back to the kernel as they are written, so the page
 * cache takes pages just freed instead of fresh ones, and src reads zero
 * after. A fresh page costs a VM that hands free memory back to its host
 * a fault there: 512 MiB written took 1.25 s this way against 0.18 s.
 * After a failure src reads as before (what was given back is read from
 * the file again). */
int dp_spill_write_give(struct dp_spill *s, size_t off, void *src, size_t len);

/* A read-only mapping of bytes written at off (any offset), or NULL. */
const void *dp_spill_map(struct dp_spill *s, size_t off, size_t bytes);

/* The same, writable (MAP_SHARED: what is written lands in the file and
 * stays there when dp_spill_drop takes the pages away), for arrays built
 * in place in a dp_spill_room range. */
void *dp_spill_map_rw(struct dp_spill *s, size_t off, size_t bytes);

/* Copy len bytes that s's mapping shows at at into buf with pread, so
 * their pages are neither faulted in nor counted in this process: for
 * scattered reads of a file far larger than the pages it may keep mapped.
 * 0, or -1 when at is not in one of s's files' mappings or the read fails
 * (the caller then reads at itself). */
int dp_spill_read(const struct dp_spill *s, const void *at, void *buf,
                  size_t len);

/* Give back the disk under bytes [off, off + len) that are no longer
 * needed (whole pages inside the range; best effort). */
void dp_spill_hole(struct dp_spill *s, size_t off, size_t len);

/* The same for the bytes s's mappings show at [at, at + len): their
 * page-cache pages go too, so the next file to grow takes them instead
 * of fresh ones; nothing when no mapping holds them all. */
void dp_spill_hole_at(struct dp_spill *s, const void *at, size_t len);

/* count int32 values v, read-only, or NULL: one chunk of at most 16 MiB is
 * written and mapped as many times as needed. */
const void *dp_spill_fill32(struct dp_spill *s, int32_t v, size_t count);

/* Unmap every resident page of the arrays from this process. */
void dp_spill_drop(struct dp_spill *s);

/* on: a thread checks once a second and drops the arrays whenever this
 * process's anonymous memory, plus their size, would pass its high point
 * so far, so they are not resident at the peak of a step that allocates;
 * off: stops it. */
void dp_spill_watch(struct dp_spill *s, int on);

/* A thread that checks a hundred times a second and calls drop(arg) whenever
 * this process's file-backed resident pages pass cap bytes: for steps
 * that read mapped inputs out of order, whose pages would otherwise stay
 * resident until the mapping goes (drop must be safe beside the readers,
 * as madvise(MADV_DONTNEED) on read-only or file-backed shared mappings
 * is). Returns the handle, or NULL when no thread could be started (the
 * step then runs without it). */
void *dp_file_watch(size_t cap, void (*drop)(void *arg), void *arg);
/* The same, but the file pages may pass cap while this process's whole
 * resident set (anonymous and file) stays within ceiling bytes: a step
 * that reads a file out of order keeps more of it in the room below a
 * peak an earlier step set. */
void *dp_file_watch_under(size_t cap, size_t ceiling, void (*drop)(void *arg),
                          void *arg);
void dp_file_watch_stop(void *w);

/* Unmap everything and close the file (which disappears); idempotent. */
void dp_spill_close(struct dp_spill *s);

#endif
