/* Two halves of one job at once, falling back to one thread. */
#include <pthread.h>

#include "dglpart/env.h"
#include "dglpart/thread.h"

void dp_run_pair(void *(*fn)(void *), void *a, void *b, int two)
{
    int one = 0;
    pthread_t tid;

    /* the test knob shows a result does not depend on the threads */
    dp_env_bool("DGLPART_TEST_ONE_THREAD", &one);
    if (one)
        two = 0;
    if (two && pthread_create(&tid, NULL, fn, b) == 0) {
        fn(a);
        pthread_join(tid, NULL);
        return;
    }
    fn(a);
    fn(b);
}
