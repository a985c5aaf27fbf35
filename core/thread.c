/* Two halves of one job at once, falling back to one thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/thread.h"

void dp_run_pair(void *(*fn)(void *), void *a, void *b, int two)
{
    const char *one = getenv("DGLPART_TEST_ONE_THREAD");
    pthread_t tid;

    /* the test knob shows a result does not depend on the threads */
    if (one && *one && strcmp(one, "0"))
        two = 0;
    if (two && pthread_create(&tid, NULL, fn, b) == 0) {
        fn(a);
        pthread_join(tid, NULL);
        return;
    }
    fn(a);
    fn(b);
}
