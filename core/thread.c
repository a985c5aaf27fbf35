/* Two halves of one job at once, falling back to one thread. */
#include <pthread.h>

#include "dglpart/thread.h"

void dp_run_pair(void *(*fn)(void *), void *a, void *b, int two)
{
    pthread_t tid;

    if (two && pthread_create(&tid, NULL, fn, b) == 0) {
        fn(a);
        pthread_join(tid, NULL);
        return;
    }
    fn(a);
    fn(b);
}
