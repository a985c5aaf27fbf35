/* Progress bar and timing report; stderr only, never stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/error.h"
#include "dglpart/progress.h"

double dp_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t dp_peak_rss(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024;
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

    if (!dp_verbose)
        return;
    dp_fmt_bytes(dp_peak_rss(), rss, sizeof(rss));
    fprintf(stderr, "%s: %s: %.2f s, peak RSS %s\n", dp_progname(), label,
            dp_now() - start, rss);
}

static void fmt_amount(const struct dp_progress *p, uint64_t n, char *out,
                       unsigned long len)
{
    if (p->bytes)
        dp_fmt_bytes(n, out, len);
    else
        snprintf(out, len, "%llu", (unsigned long long)n);
}

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
            fprintf(stderr, "\r%s [%s] %3.0f%% %s/%s %s/s      ", p->label,
                    bar, frac * 100, done, total, rate);
        else
            fprintf(stderr, "\r%s [%s] %3.0f%% %s/%s %s/s ETA %.0fs  ",
                    p->label, bar, frac * 100, done, total, rate,
                    (double)(p->total - (p->done < p->total ? p->done
                                                            : p->total)) / r);
    } else {
        fprintf(stderr, "\r%s %s %s/s      ", p->label, done, rate);
    }
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

void dp_progress_start(struct dp_progress *p, const char *label,
                       uint64_t total, int bytes)
{
    const char *force = getenv("DGLPART_PROGRESS");

    memset(p, 0, sizeof(*p));
    p->label = label;
    p->total = total;
    p->bytes = bytes;
    p->start = dp_now();
    if (force)
        p->active = !strcmp(force, "1");
    else
        p->active = isatty(STDERR_FILENO);
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
