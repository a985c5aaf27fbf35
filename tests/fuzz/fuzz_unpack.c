/* Fuzz target: archives through dp_unpack. Whatever the input, nothing may
 * appear in the scratch folder except the target itself. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/download.h"
#include "dglpart/file.h"
#include "fuzz.h"

static char root[] = "/tmp/dglpart-fuzz-unpack.XXXXXX";

/* 1 when root holds nothing but "out" (or nothing at all). */
static int only_target(void)
{
    DIR *d = opendir(root);
    struct dirent *de;
    int ok = 1;

    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            strcmp(de->d_name, "out"))
            ok = 0;
    closedir(d);
    return ok;
}

static void cleanup(void)
{
    dp_rm_rf(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *out;
    const char *path = fuzz_path(data, size);

    if (!out) {
        if (!mkdtemp(root) || !(out = dp_path_join(root, "out")))
            abort();
        atexit(cleanup);
    }
    if (!path)
        return 0;
    dp_unpack(path, out, 1 << 20, 1, NULL);
    if (!only_target())
        __builtin_trap(); /* an entry escaped the target folder */
    dp_rm_rf(out);
    return 0;
}
