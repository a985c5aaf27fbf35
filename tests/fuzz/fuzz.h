/* Shared by the fuzz targets and the replay driver: the libFuzzer entry
 * point, and a memfd that gives the input a path for file-based parsers.
 * make test replays tests/fuzz/corpus/<name>/ through each target; to fuzz:
 *   make fuzz CC=clang
 *   build/fuzz/fuzz/fuzz_dglgraph -max_total_time=60 CORPUS_COPY_DIR
 * (work on a copy of the corpus; merge finds back with -merge=1). */
#ifndef DGLPART_FUZZ_H
#define DGLPART_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Put data in an in-memory file and return a path that opens it
 * (/proc/self/fd/N), or NULL. The file is reused across calls. */
static inline const char *fuzz_path(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];

    if (fd < 0) {
        fd = memfd_create("dglpart-fuzz", 0);
        if (fd < 0)
            return NULL;
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 ||
        (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        return NULL;
    return path;
}

#endif
