/* The one threading shape dglpart uses for its two cores. */
#ifndef DGLPART_THREAD_H
#define DGLPART_THREAD_H

/* fn(a) on this thread and fn(b) on a second one; both are done on return.
 * With two == 0, or when no thread can start, one after the other. */
void dp_run_pair(void *(*fn)(void *), void *a, void *b, int two);

#endif
