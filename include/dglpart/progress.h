/* A progress bar on stderr, shown only when stderr is a terminal, and the
 * timer / peak-RSS report printed with -v. */
#ifndef DGLPART_PROGRESS_H
#define DGLPART_PROGRESS_H

#include <stdint.h>

struct dp_progress {
    const char *label; /* borrowed */
    uint64_t total;    /* 0 when unknown: no percentage or ETA */
    uint64_t done;
    int bytes;  /* show sizes as bytes (KiB, MiB) instead of items */
    int active; /* drawing on a TTY */
    double start;
    double last_draw;
};

/* Whether bars and heartbeats are drawn: when stderr is a terminal, unless
 * DGLPART_PROGRESS says otherwise (1: always, 0: never). */
int dp_progress_wanted(void);

/* Start a bar; it draws nothing unless dp_progress_wanted(). */
void dp_progress_start(struct dp_progress *p, const char *label, uint64_t total,
                       int bytes);
/* Set the amount done; redraws at most 10 times a second. */
void dp_progress_update(struct dp_progress *p, uint64_t done);
/* Final draw and newline. */
void dp_progress_end(struct dp_progress *p);

/* A heartbeat for a long step that reports no progress of its own (METIS):
 * "label: 83 s, 6.1 GiB resident", redrawn every second by a thread, under
 * the same rule as the bar (dp_progress_wanted). */
struct dp_ticker {
    const char *label; /* borrowed */
    double start;
    int active; /* the thread runs */
    void *impl; /* the thread's state */
};

void dp_ticker_start(struct dp_ticker *t, const char *label);
/* Final line ("label: done in 83 s") and newline; joins the thread. */
void dp_ticker_stop(struct dp_ticker *t);

/* Monotonic seconds. */
double dp_now(void);

/* With -v: print "<progname>: <label>: 1.23 s, peak RSS 456 MiB". */
void dp_timer_report(const char *label, double start);

/* This process's peak resident set so far, bytes. */
uint64_t dp_peak_rss(void);

/* Format a byte count as "12.3 MiB" into out (at least 32 bytes). */
void dp_fmt_bytes(uint64_t n, char *out, unsigned long outlen);

#endif
