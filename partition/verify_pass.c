/* verify: a pass over the parts on two threads, and what it reports. Each
 * part's problems are held until the parts before it are reported, so the
 * lines come out as one thread would print them; the bar counts edges. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/error.h"
#include "dglpart/thread.h"

#include "verify_int.h"

/* One problem out, or past the line cap only counted. */
static void show(struct vctx *v, const char *line)
{
    int max = v->o->max_lines > 0 ? v->o->max_lines : 100;

    v->s->problems++;
    if (!v->o->err)
        return;
    if (v->printed <= max && v->bar.active && v->o->err == stderr)
        fputs("\r\033[K", stderr); /* the line under the bar */
    if (v->printed < max)
        fprintf(v->o->err, "%s: %s\n", dp_progname(), line);
    else if (v->printed == max)
        fprintf(v->o->err, "%s: (more problems not shown)\n", dp_progname());
    v->printed++;
}

/* Keep a line for the part at hand's report, or show it now. Lines past
 * the cap, or past one that found no memory, are only counted: the kept
 * ones are always the first. */
static void keep(struct vwork *w, const char *line)
{
    struct vout *o = w->out;
    int max = w->v->o->max_lines > 0 ? w->v->o->max_lines : 100;

    if (!o) {
        show(w->v, line);
        return;
    }
    if (o->kept == o->problems && o->kept <= max &&
        dp_buf_add(&o->lines, line, strlen(line) + 1) == 0)
        o->kept++;
    o->problems++;
}

void vf_problem(struct vwork *w, const char *fmt, ...)
{
    char small[512], *line = small, *big = NULL;
    va_list ap;
    int n;

    if (w->quiet) /* a part loaded again: its problems were reported */
        return;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        small[0] = '\0';
    else if ((size_t)n >= sizeof(small) && (big = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        line = big;
    }
    keep(w, line); /* without memory for a long one, its start */
    free(big);
}

void vf_tally(struct tally *t, const char *fmt, ...)
{
    va_list ap;

    if (t->n++)
        return;
    va_start(ap, fmt);
    vsnprintf(t->first, sizeof(t->first), fmt, ap);
    va_end(ap);
}

/* One line for the tally, prefixed by the file it is about. */
void vf_flush(struct vwork *w, struct tally *t, const char *file)
{
    if (!t->n)
        return;
    if (t->n == 1)
        vf_problem(w, "%s: %s", file, t->first);
    else
        vf_problem(w, "%s: %s (and %" PRId64 " more like it)", file, t->first,
                   t->n - 1);
    t->n = 0;
}

void vf_replay(struct vwork *w, const struct vout *from)
{
    const char *line = from->lines.data;
    int64_t k;

    for (k = 0; k < from->problems; k++) {
        if (k < from->kept) {
            keep(w, line);
            line += strlen(line) + 1;
        } else if (w->out) {
            w->out->problems++;
        } else {
            show(w->v, "");
        }
    }
}

void vf_out_release(struct vout *o)
{
    dp_buf_release(&o->lines);
    vf_edgefind_release(&o->ef);
    memset(o, 0, sizeof(*o));
}

/* The edges counted so far (by all threads) onto the bar; a thread that
 * finds the bar busy leaves the drawing to the other. */
static void credit(struct vctx *v, uint64_t n)
{
    uint64_t done = __atomic_add_fetch(&v->done, n, __ATOMIC_RELAXED);

    if (!v->bar.active || pthread_mutex_trylock(&v->mu) != 0)
        return;
    if (done > v->bar.done)
        dp_progress_update(&v->bar, done);
    pthread_mutex_unlock(&v->mu);
}

void vf_progress(struct vwork *w, double frac)
{
    uint64_t want = (uint64_t)((double)w->units * (frac < 1 ? frac : 1));

    if (want > w->credited) {
        credit(w->v, want - w->credited);
        w->credited = want;
    }
}

/* Report the parts done in a row from the next one due; after a part
 * whose checks failed to run, none. Called with v->mu held. */
static void report_done(struct vctx *v)
{
    int n = v->cfg.num_parts;

    while (v->shown < n && v->outs[v->shown].done) {
        struct vout *o = &v->outs[v->shown];
        const char *line = o->lines.data;
        int64_t k;

        for (k = 0; k < o->problems; k++) {
            show(v, k < o->kept ? line : "");
            if (k < o->kept)
                line += strlen(line) + 1;
        }
        vf_edgefind_add(&v->ef, &o->ef);
        v->shown = o->rc ? n : v->shown + 1;
        vf_out_release(o);
    }
}

/* A thread of the pass: parts in order, as long as there are some. */
static void *pass_thread(void *arg)
{
    struct vwork *w = arg;
    struct vctx *v = w->v;
    int n = v->cfg.num_parts, i, rc;

    for (;;) {
        pthread_mutex_lock(&v->mu);
        i = v->stop ? n : v->next++;
        pthread_mutex_unlock(&v->mu);
        if (i >= n)
            return NULL;
        rc = 0;
        if (!w->nbits && !(w->nbits = vf_bits_alloc(v->cfg.num_nodes)))
            rc = DP_ENOMEM;
        if (!w->ebits && !(w->ebits = vf_bits_alloc(v->cfg.num_edges)))
            rc = DP_ENOMEM;
        w->out = &v->outs[i];
        w->units = v->pass == 1 || v->p[i].graph_ok ? v->p[i].hdr_edges : 0;
        w->credited = 0;
        if (!rc)
            rc = v->step(w, i);
        if (!rc)
            vf_progress(w, 1);
        w->out = NULL;
        pthread_mutex_lock(&v->mu);
        if (rc && (!v->rc || i < v->rc_part)) {
            v->rc = rc;
            v->rc_part = i;
            snprintf(v->msg, sizeof(v->msg), "%s", dp_errmsg());
        }
        v->stop |= rc != 0;
        v->outs[i].rc = rc;
        v->outs[i].done = 1;
        report_done(v);
        pthread_mutex_unlock(&v->mu);
    }
}

int vf_each_part(struct vctx *v, struct vwork w[2], int pass,
                 int (*step)(struct vwork *w, int i), const char *label,
                 uint64_t total)
{
    int n = v->cfg.num_parts, i;

    if (!(v->outs = dp_calloc((size_t)n, sizeof(*v->outs))))
        return DP_ENOMEM;
    for (i = 0; i < n; i++)
        dp_buf_init(&v->outs[i].lines, 0);
    v->pass = pass;
    v->step = step;
    v->next = v->shown = v->stop = v->rc = 0;
    v->done = 0;
    dp_progress_start(&v->bar, label, total, 0);
    /* one part at a time per thread: two parts' arrays at most */
    dp_run_pair(pass_thread, &w[0], &w[1], n > 1);
    /* a thread's last credit may have found the bar busy with an older
     * count: the final line shows them all */
    if (v->bar.active && v->done > v->bar.done)
        dp_progress_update(&v->bar, v->done);
    dp_progress_end(&v->bar);
    for (i = 0; i < n; i++)
        vf_out_release(&v->outs[i]);
    free(v->outs);
    v->outs = NULL;
    return v->rc ? dp_error(v->rc, "%s", v->msg) : 0;
}
