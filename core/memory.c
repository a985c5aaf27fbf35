/* Memory behaviour for the METIS phase: transparent huge pages through
 * glibc (a re-exec, since glibc reads its tunables only at start-up) and
 * a heap that keeps freed memory while METIS runs. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dglpart/memory.h"

#define TUNABLE "glibc.malloc.hugetlb=1"
#define RESTARTED "DGLPART_HUGEPAGES_RESTARTED"

/* 1 when the kernel gives huge pages to memory that asks for them
 * (madvise mode; in "always" mode there is nothing to ask). */
static int thp_on_request(void)
{
    char line[128];
    FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    int ok;

    if (!fp)
        return 0;
    ok = fgets(line, sizeof(line), fp) && strstr(line, "[madvise]");
    fclose(fp);
    return ok;
}

const char *dp_hugepages_reexec(char **argv)
{
    const char *env = getenv("DGLPART_HUGEPAGES");
    const char *old = getenv("GLIBC_TUNABLES");
    int again = getenv(RESTARTED) != NULL;
    char *val;
    size_t n;

    if (again)
        unsetenv(RESTARTED);
    if (env && !strcmp(env, "0"))
        return "off (DGLPART_HUGEPAGES=0)";
    if (old && strstr(old, "glibc.malloc.hugetlb"))
        return strstr(old, TUNABLE) ? "on (GLIBC_TUNABLES)"
                                    : "as GLIBC_TUNABLES sets";
    if (!thp_on_request())
        return "kernel default (transparent_hugepage is not in madvise mode)";
    if (again) /* the loader dropped the tunable (setuid): never loop */
        return "off (GLIBC_TUNABLES ignored)";
    n = (old ? strlen(old) + 1 : 0) + sizeof(TUNABLE);
    val = malloc(n);
    if (!val)
        return "off (out of memory)";
    snprintf(val, n, "%s%s%s", old ? old : "", old && *old ? ":" : "", TUNABLE);
    if (setenv("GLIBC_TUNABLES", val, 1) == 0 && setenv(RESTARTED, "1", 1) == 0)
        execv("/proc/self/exe", argv);
    unsetenv(RESTARTED);
    /* no re-exec: carry on with small pages */
    if (old)
        setenv("GLIBC_TUNABLES", old, 1);
    else
        unsetenv("GLIBC_TUNABLES");
    free(val);
    return "off (re-exec failed)";
}

void dp_heap_hold(int on)
{
    if (on) {
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        return;
    }
    mallopt(M_MMAP_MAX, 65536);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    malloc_trim(0);
}
