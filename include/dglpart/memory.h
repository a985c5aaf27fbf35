/* Memory behaviour for long single-threaded phases (METIS). */
#ifndef DGLPART_MEMORY_H
#define DGLPART_MEMORY_H

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

#endif
