/* Progress bar and timing report; stderr only, never stdout. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/progress.h"

double dp_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Peak resident set size of this process in bytes. */
uint64_t dp_peak_rss(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024;
}

/* Resident set size of this process now, in bytes (0 if unknown). */
static uint64_t current_rss(void)
{
    /* read(), not stdio: the ticker calls this while METIS owns the heap */
    char buf[128], *p;
    unsigned long long res;
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    p = strchr(buf, ' ');
    if (!p)
        return 0;
    res = strtoull(p + 1, NULL, 10);
    return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

void dp_fmt_bytes(uint64_t n, char *out, unsigned long outlen)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)n;
    int u = 0;

    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, outlen, "%llu B", (unsigned long long)n);
    else
        snprintf(out, outlen, "%.1f %s", v, unit[u]);
}

void dp_timer_report(const char *label, double start)
{
    char rss[32];

    if (dp_verbose < DP_LOG_V)
        return;
    dp_fmt_bytes(dp_peak_rss(), rss, sizeof(rss));
    dp_log(DP_LOG_V, "%s: %.2f s, peak RSS %s", label, dp_now() - start, rss);
}

static void fmt_amount(const struct dp_progress *p, uint64_t n, char *out,
                       unsigned long len)
{
    if (p->bytes)
        dp_fmt_bytes(n, out, len);
    else
        snprintf(out, len, "%llu", (unsigned long long)n);
}

/* Each draw goes back to the start of the line and clears what is left
 * of a longer one after it (a shorter redraw left "ETA 0s" as "s"). */
#define EOL "\033[K"

static void draw(struct dp_progress *p, int final)
{
    char done[32], total[32], rate[32];
    double el = dp_now() - p->start;
    double r = el > 0 ? (double)p->done / el : 0;

    fmt_amount(p, p->done, done, sizeof(done));
    fmt_amount(p, (uint64_t)r, rate, sizeof(rate));
    if (p->total) {
        double frac = (double)p->done / (double)p->total;
        int width = 24, fill, i;
        char bar[32];

        if (frac > 1)
            frac = 1;
        fill = (int)(frac * width);
        for (i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        fmt_amount(p, p->total, total, sizeof(total));
        if (final || r <= 0)
            fprintf(stderr, "\r%s [%s] %3.0f%% %s/%s %s/s" EOL, p->label, bar,
                    frac * 100, done, total, rate);
        else
            fprintf(
                stderr, "\r%s [%s] %3.0f%% %s/%s %s/s ETA %.0fs" EOL, p->label,
                bar, frac * 100, done, total, rate,
                (double)(p->total - (p->done < p->total ? p->done : p->total)) /
                    r);
    } else {
        fprintf(stderr, "\r%s %s %s/s" EOL, p->label, done, rate);
    }
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

void dp_progress_start(struct dp_progress *p, const char *label, uint64_t total,
                       int bytes)
{
    memset(p, 0, sizeof(*p));
    p->label = label;
    p->total = total;
    p->bytes = bytes;
    p->start = dp_now();
    p->active = dp_progress_wanted();
}

void dp_progress_update(struct dp_progress *p, uint64_t done)
{
    double now;

    p->done = done;
    if (!p->active)
        return;
    now = dp_now();
    if (now - p->last_draw < 0.1)
        return;
    p->last_draw = now;
    draw(p, 0);
}

void dp_progress_end(struct dp_progress *p)
{
    if (p->active)
        draw(p, 1);
    p->active = 0;
}

int dp_progress_wanted(void)
{
    int on = isatty(STDERR_FILENO);

    dp_env_bool("DGLPART_PROGRESS", &on);
    return on;
}

struct ticker_impl {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
};

static void *ticker_run(void *arg)
{
    struct dp_ticker *t = arg;
    struct ticker_impl *k = t->impl;
    struct timespec at;
    char rss[32];

    pthread_mutex_lock(&k->mu);
    clock_gettime(CLOCK_REALTIME, &at);
    for (;;) { /* at least one line, however short the step */
        dp_fmt_bytes(current_rss(), rss, sizeof(rss));
        fprintf(stderr, "\r%s: %.0f s, %s resident" EOL, t->label,
                dp_now() - t->start, rss);
        fflush(stderr);
        at.tv_sec++;
        while (!k->stop &&
               pthread_cond_timedwait(&k->cv, &k->mu, &at) != ETIMEDOUT)
            ;
        if (k->stop)
            break;
    }
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

void dp_ticker_start(struct dp_ticker *t, const char *label)
{
    struct ticker_impl *k;

    memset(t, 0, sizeof(*t));
    t->label = label;
    t->start = dp_now();
    if (!dp_progress_wanted() || !(k = dp_calloc(1, sizeof(*k))))
        return;
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    t->impl = k;
    if (pthread_create(&k->tid, NULL, ticker_run, t) != 0) {
        pthread_cond_destroy(&k->cv);
        pthread_mutex_destroy(&k->mu);
        free(k);
        t->impl = NULL;
        return;
    }
    t->active = 1;
}

void dp_ticker_stop(struct dp_ticker *t)
{
    struct ticker_impl *k = t->impl;

    if (!t->active)
        return;
    pthread_mutex_lock(&k->mu);
    k->stop = 1;
    pthread_cond_signal(&k->cv);
    pthread_mutex_unlock(&k->mu);
    pthread_join(k->tid, NULL);
    fprintf(stderr, "\r%s: done in %.0f s" EOL "\n", t->label,
            dp_now() - t->start);
    fflush(stderr);
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
    free(k);
    t->impl = NULL;
    t->active = 0;
}
