/* The sampler pool: worker processes forked from the trainer make its
 * mini-batches ahead of it, as DGL's DistDataLoader with num_samplers.
 * Worker w makes batches w, w + M, ... (the contents depend on the batch
 * index only, so any M gives the same batches) and writes each into one of
 * its few memfd slots; a message on its socket says which, and the trainer
 * hands the slot back once it has read the batch. A worker out of free
 * slots waits: the queue never holds more than M * slots batches. Workers
 * die with the trainer (PR_SET_PDEATHSIG, and EOF on the socket); a worker
 * that dies makes the trainer fail at once, naming it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/runtime.h"
#include "rt_int.h"

#define BATCH_MAGIC 0x3148435441425044ull /* "DPBATCH1" */
#define SLOT_ROUND (1u << 20)

enum { MSG_READY = 1, MSG_DONE, MSG_ERROR, MSG_FREE };

/* One message either way (a SOCK_SEQPACKET record). */
struct msg {
    uint32_t type, slot;
    uint64_t index, bytes;
    uint64_t requests, sent, recv;
    char text[300];
};

/* How a batch sits in a slot: this head, num_edges per layer, then each
 * layer's dst, src, eid, the inputs, seeds, degrees, feature rows and
 * label rows, each padded to 8 bytes. */
struct batch_head {
    uint64_t magic, index;
    uint32_t epoch, num_layers;
    int64_t num_inputs, num_seeds;
    uint64_t feat_bytes, label_bytes;
    double t_sample, t_gather;
};

struct slot {
    int fd;
    void *map; /* this process's mapping */
    size_t len;
};

struct worker {
    pid_t pid;
    int sock;
    struct slot *slots;
    int ended; /* reaped */
    int done;  /* said it finished */
    int status;
};

struct dp_pool {
    struct dp_pool_job job;
    int nw, ns;
    struct worker *w;
    pid_t parent;
    int held_worker, held_slot; /* the slot of the batch last returned */
    struct dp_pool_stats st;
};

static uint64_t pad8(uint64_t n)
{
    return (n + 7) & ~(uint64_t)7;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Bytes of b in a slot; 0 when it would not fit in 64 bits. */
static uint64_t batch_size(const struct dp_batch *b)
{
    uint64_t n = sizeof(struct batch_head) + 8 * (uint64_t)b->num_layers;
    int l;

    for (l = 0; l < b->num_layers; l++)
        n += 24 * (uint64_t)b->layers[l].num_edges;
    n += 8 * (uint64_t)b->num_inputs + 16 * (uint64_t)b->num_seeds;
    n += pad8((uint64_t)b->num_inputs * b->feat_bytes);
    n += pad8((uint64_t)b->num_seeds * b->label_bytes);
    return n;
}

static char *put(char *at, const void *p, uint64_t n)
{
    if (n)
        memcpy(at, p, (size_t)n);
    return at + pad8(n);
}

static void batch_write(char *at, const struct dp_batch *b)
{
    struct batch_head h;
    int l;

    memset(&h, 0, sizeof(h));
    h.magic = BATCH_MAGIC;
    h.index = b->index;
    h.epoch = b->epoch;
    h.num_layers = (uint32_t)b->num_layers;
    h.num_inputs = b->num_inputs;
    h.num_seeds = b->num_seeds;
    h.feat_bytes = b->feat_bytes;
    h.label_bytes = b->label_bytes;
    h.t_sample = b->t_sample;
    h.t_gather = b->t_gather;
    at = put(at, &h, sizeof(h));
    for (l = 0; l < b->num_layers; l++)
        at = put(at, &b->layers[l].num_edges, 8);
    for (l = 0; l < b->num_layers; l++) {
        uint64_t n = 8 * (uint64_t)b->layers[l].num_edges;
        at = put(at, b->layers[l].dst, n);
        at = put(at, b->layers[l].src, n);
        at = put(at, b->layers[l].eid, n);
    }
    at = put(at, b->inputs, 8 * (uint64_t)b->num_inputs);
    at = put(at, b->seeds, 8 * (uint64_t)b->num_seeds);
    at = put(at, b->deg, 8 * (uint64_t)b->num_seeds);
    at = put(at, b->feat, (uint64_t)b->num_inputs * b->feat_bytes);
    put(at, b->labels, (uint64_t)b->num_seeds * b->label_bytes);
}

/* Take n bytes at *at of the len bytes from base, or NULL when short. */
static const void *take(const char *base, uint64_t len, uint64_t *at,
                        uint64_t count, uint64_t size)
{
    const void *p = base + *at;
    uint64_t n;

    if (size && count > (len - *at) / size)
        return NULL;
    n = pad8(count * size);
    if (n > len - *at)
        return NULL;
    *at += n;
    return p;
}

/* A view of the batch in a slot, checked against its length. */
static int batch_read(const char *base, uint64_t len, uint64_t index,
                      int num_layers, struct dp_batch_layer *layers,
                      struct dp_batch *b)
{
    struct batch_head h;
    const int64_t *ne;
    uint64_t at = 0;
    int l, ok = 1;

    if (len < sizeof(h))
        goto bad;
    memcpy(&h, base, sizeof(h));
    at = pad8(sizeof(h));
    if (h.magic != BATCH_MAGIC || h.index != index ||
        h.num_layers != (uint32_t)num_layers || h.num_inputs < 0 ||
        h.num_seeds < 0 ||
        !(ne = take(base, len, &at, (uint64_t)num_layers, 8)))
        goto bad;
    memset(b, 0, sizeof(*b));
    b->index = h.index;
    b->epoch = h.epoch;
    b->num_layers = num_layers;
    b->layers = layers;
    for (l = 0; l < num_layers && ok; l++) {
        uint64_t n = (uint64_t)ne[l];
        layers[l].num_edges = ne[l];
        ok = ne[l] >= 0 && (layers[l].dst = take(base, len, &at, n, 8)) &&
             (layers[l].src = take(base, len, &at, n, 8)) &&
             (layers[l].eid = take(base, len, &at, n, 8));
    }
    b->num_inputs = h.num_inputs;
    b->num_seeds = h.num_seeds;
    b->feat_bytes = h.feat_bytes;
    b->label_bytes = h.label_bytes;
    b->t_sample = h.t_sample;
    b->t_gather = h.t_gather;
    if (!ok || !(b->inputs = take(base, len, &at, (uint64_t)h.num_inputs, 8)) ||
        !(b->seeds = take(base, len, &at, (uint64_t)h.num_seeds, 8)) ||
        !(b->deg = take(base, len, &at, (uint64_t)h.num_seeds, 8)) ||
        !(b->feat =
              take(base, len, &at, (uint64_t)h.num_inputs, h.feat_bytes)) ||
        !(b->labels =
              take(base, len, &at, (uint64_t)h.num_seeds, h.label_bytes)))
        goto bad;
    return 0;
bad:
    return dp_error(DP_EPROTO, "batch %llu: malformed in its slot",
                    (unsigned long long)index);
}

/* Map slot s at least len bytes long (it only grows). */
static int slot_map(struct slot *s, size_t len, int prot)
{
    if (s->map && s->len >= len)
        return 0;
    if (s->map)
        munmap(s->map, s->len);
    s->map = mmap(NULL, len, prot, MAP_SHARED, s->fd, 0);
    if (s->map == MAP_FAILED) {
        s->map = NULL;
        s->len = 0;
        return dp_error(DP_ENOMEM, "cannot map a batch slot of %zu bytes: %s",
                        len, strerror(errno));
    }
    s->len = len;
    return 0;
}

/* ---- the worker side ---- */

static int send_msg(int fd, const struct msg *m)
{
    ssize_t n;

    do
        n = send(fd, m, sizeof(*m), MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* 1: a message, 0: EOF, -1: error */
static int recv_msg(int fd, struct msg *m)
{
    ssize_t n;

    /* A peer that went with our messages unread leaves ECONNRESET once,
     * before what it sent us: read on. */
    do
        n = recv(fd, m, sizeof(*m), 0);
    while (n < 0 && (errno == EINTR || errno == ECONNRESET));
    if (n == 0)
        return 0;
    if (n != (ssize_t)sizeof(*m))
        return -1;
    m->text[sizeof(m->text) - 1] = 0;
    return 1;
}

/* Put batch b into slot s of this worker, growing the slot if needed. */
static int fill_slot(struct slot *s, const struct dp_batch *b, uint64_t *len)
{
    uint64_t n = batch_size(b), want;
    int e;

    if (!n || n > SIZE_MAX / 2)
        return dp_error(DP_ETOOBIG, "batch %llu too large for a slot",
                        (unsigned long long)b->index);
    if (n > s->len) {
        want = (n + SLOT_ROUND - 1) / SLOT_ROUND * SLOT_ROUND;
        /* reserved, not just sized: a full tmpfs is an error, no SIGBUS */
        if ((e = posix_fallocate(s->fd, 0, (off_t)want)))
            return dp_error(DP_ENOMEM,
                            "cannot grow a batch slot to %llu "
                            "bytes: %s",
                            (unsigned long long)want, strerror(e));
        if (slot_map(s, (size_t)want, PROT_READ | PROT_WRITE))
            return DP_ENOMEM;
    }
    batch_write(s->map, b);
    *len = n;
    return 0;
}

static void worker_fail(int sock, int w, const char *name)
{
    struct msg m;

    memset(&m, 0, sizeof(m));
    m.type = MSG_ERROR;
    snprintf(m.text, sizeof(m.text), "%s %d: %s", name, w, dp_errmsg());
    send_msg(sock, &m);
    _exit(1);
}

static void worker_main(struct dp_pool *p, int w)
{
    struct worker *me = &p->w[w];
    const struct dp_pool_job *j = &p->job;
    int *freed = NULL, nfree = p->ns, k, rc;
    struct dp_pool_stats st;
    struct msg m;
    uint64_t g;

    /* Die with the trainer, even when it is killed: PR_SET_PDEATHSIG, and
     * if it died before that took effect, now. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != p->parent)
        _exit(1);
    if (!(freed = dp_malloc_array((size_t)p->ns, sizeof(int))))
        worker_fail(me->sock, w, j->name);
    for (k = 0; k < p->ns; k++)
        freed[k] = p->ns - 1 - k;
    if (j->setup && j->setup(j->arg, w))
        worker_fail(me->sock, w, j->name);
    for (g = (uint64_t)w; g < j->count; g += (uint64_t)p->nw) {
        struct dp_batch b;
        uint64_t len = 0;
        int s;
        while (nfree == 0) {
            if (dp_verbose)
                fprintf(stderr, "%s: %s %d: queue full (%d batches), waiting\n",
                        dp_progname(), j->name, w, p->ns);
            if ((rc = recv_msg(me->sock, &m)) <= 0)
                _exit(rc == 0 ? 0 : 1); /* the trainer is gone */
            if (m.type == MSG_FREE && m.slot < (uint32_t)p->ns)
                freed[nfree++] = (int)m.slot;
        }
        s = freed[--nfree];
        memset(&b, 0, sizeof(b));
        if (j->make(j->arg, g, &b))
            worker_fail(me->sock, w, j->name);
        rc = fill_slot(&me->slots[s], &b, &len);
        j->drop(j->arg, &b);
        if (rc)
            worker_fail(me->sock, w, j->name);
        memset(&m, 0, sizeof(m));
        m.type = MSG_READY;
        m.slot = (uint32_t)s;
        m.index = g;
        m.bytes = len;
        if (send_msg(me->sock, &m))
            _exit(1);
        if (dp_verbose)
            fprintf(stderr, "%s: %s %d: batch %llu ready (%d queued)\n",
                    dp_progname(), j->name, w, (unsigned long long)g,
                    p->ns - nfree);
    }
    memset(&st, 0, sizeof(st));
    if (j->finish && j->finish(j->arg, &st))
        worker_fail(me->sock, w, j->name);
    memset(&m, 0, sizeof(m));
    m.type = MSG_DONE;
    m.requests = st.requests;
    m.sent = st.bytes_sent;
    m.recv = st.bytes_recv;
    send_msg(me->sock, &m);
    _exit(0);
}

/* ---- the trainer side ---- */

static void pool_close(struct dp_pool *p)
{
    int i, k;

    for (i = 0; i < p->nw; i++) {
        struct worker *w = &p->w[i];
        if (w->sock >= 0)
            close(w->sock);
        w->sock = -1;
        for (k = 0; w->slots && k < p->ns; k++) {
            if (w->slots[k].map)
                munmap(w->slots[k].map, w->slots[k].len);
            if (w->slots[k].fd >= 0)
                close(w->slots[k].fd);
            w->slots[k].map = NULL;
            w->slots[k].fd = -1;
        }
    }
}

void dp_pool_free(struct dp_pool *p)
{
    int i;

    if (!p)
        return;
    for (i = 0; p->w && i < p->nw; i++)
        if (p->w[i].pid > 0 && !p->w[i].ended) {
            kill(p->w[i].pid, SIGKILL);
            while (waitpid(p->w[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
    if (p->w) {
        pool_close(p);
        for (i = 0; i < p->nw; i++)
            free(p->w[i].slots);
    }
    free(p->w);
    free(p);
}

int dp_pool_start(struct dp_pool **out, const struct dp_pool_job *job,
                  int workers, int slots)
{
    struct dp_pool *p;
    int i, j, k, sv[2], rc = 0, *theirs = NULL;

    if (workers < 1 || slots < 1)
        return dp_error(DP_EINVAL, "%d %ss with %d slots each", workers,
                        job->name, slots);
    if (!(p = dp_calloc(1, sizeof(*p))))
        return DP_ENOMEM;
    p->job = *job;
    p->nw = workers;
    p->ns = slots;
    p->parent = getpid();
    p->held_worker = -1;
    if (!(p->w = dp_calloc((size_t)workers, sizeof(*p->w))) ||
        !(theirs = dp_malloc_array((size_t)workers, sizeof(int)))) {
        free(p->w);
        free(p);
        return DP_ENOMEM;
    }
    for (i = 0; i < workers; i++) {
        p->w[i].sock = theirs[i] = -1;
        p->w[i].ended = 1; /* until forked */
        if (!(p->w[i].slots = dp_calloc((size_t)slots, sizeof(struct slot))))
            rc = DP_ENOMEM;
        for (k = 0; !rc && k < slots; k++)
            p->w[i].slots[k].fd = -1;
    }
    /* Every channel and slot exists before the first fork, so each worker
     * inherits its own and closes the others'. */
    for (i = 0; i < workers && !rc; i++) {
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
            rc = dp_error(DP_EIO, "socketpair: %s", strerror(errno));
            break;
        }
        p->w[i].sock = sv[0];
        theirs[i] = sv[1];
        for (k = 0; k < slots && !rc; k++)
            if ((p->w[i].slots[k].fd =
                     memfd_create("dglpart-batch", MFD_CLOEXEC)) < 0)
                rc = dp_error(DP_EIO, "memfd_create: %s", strerror(errno));
    }
    fflush(NULL); /* nothing buffered is written twice */
    for (i = 0; i < workers && !rc; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            rc = dp_error(DP_EIO, "fork: %s", strerror(errno));
            break;
        }
        if (pid == 0) {
            for (j = 0; j < workers; j++) {
                close(p->w[j].sock);
                if (j == i)
                    continue;
                if (theirs[j] >= 0)
                    close(theirs[j]);
                for (k = 0; k < slots; k++)
                    close(p->w[j].slots[k].fd);
            }
            p->w[i].sock = theirs[i];
            worker_main(p, i);
        }
        close(theirs[i]);
        theirs[i] = -1;
        p->w[i].pid = pid;
        p->w[i].ended = 0;
    }
    for (i = 0; i < workers; i++)
        if (theirs[i] >= 0)
            close(theirs[i]);
    free(theirs);
    if (rc) {
        dp_pool_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* Reap worker i (its socket said it is gone) and describe how it ended;
 * a message it sent before going comes first. */
static int gone(struct dp_pool *p, int i)
{
    struct worker *w = &p->w[i];
    struct msg m;
    int st = 0, r;

    while ((r = recv_msg(w->sock, &m)) > 0) {
        if (m.type == MSG_ERROR)
            return dp_error(DP_EREMOTE, "%s", m.text);
        if (m.type == MSG_DONE)
            w->done = 1;
    }
    if (!w->ended) {
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
            ;
        w->ended = 1;
        w->status = st;
    }
    st = w->status;
    if (WIFSIGNALED(st))
        return dp_error(DP_EREMOTE,
                        "%s %d (pid %ld) was killed by signal %d "
                        "(%s)",
                        p->job.name, i, (long)w->pid, WTERMSIG(st),
                        strsignal(WTERMSIG(st)));
    if (WIFEXITED(st) && WEXITSTATUS(st))
        return dp_error(DP_EREMOTE, "%s %d (pid %ld) exited with status %d",
                        p->job.name, i, (long)w->pid, WEXITSTATUS(st));
    return 0;
}

static void give_back(struct dp_pool *p)
{
    struct msg m;

    if (p->held_worker < 0)
        return;
    memset(&m, 0, sizeof(m));
    m.type = MSG_FREE;
    m.slot = (uint32_t)p->held_slot;
    /* a worker that already ended has no use for it */
    send_msg(p->w[p->held_worker].sock, &m);
    p->held_worker = -1;
}

int dp_pool_next(struct dp_pool *p, uint64_t index, struct dp_batch *b)
{
    int want = (int)(index % (uint64_t)p->nw), i, rc;
    struct pollfd *pfd = NULL;
    double t0 = now();

    give_back(p);
    if (!(pfd = dp_calloc((size_t)p->nw, sizeof(*pfd))))
        return DP_ENOMEM;
    for (;;) {
        struct worker *w = &p->w[want];
        struct msg m;
        /* The worker due is read; the others are only watched, so one that
         * dies is noticed now rather than at its turn. */
        for (i = 0; i < p->nw; i++) {
            pfd[i].fd = p->w[i].ended && i != want ? -1 : p->w[i].sock;
            pfd[i].events = i == want ? POLLIN : 0;
            pfd[i].revents = 0;
        }
        if (poll(pfd, (nfds_t)p->nw, -1) < 0) {
            if (errno == EINTR)
                continue;
            rc = dp_error(DP_EIO, "poll: %s", strerror(errno));
            break;
        }
        for (i = 0, rc = 0; i < p->nw && !rc; i++)
            if (i != want && (pfd[i].revents & (POLLHUP | POLLERR)) &&
                !p->w[i].ended) {
                /* a clean end is fine: its batches are still queued */
                int st;
                while (waitpid(p->w[i].pid, &st, 0) < 0 && errno == EINTR)
                    ;
                p->w[i].ended = 1;
                p->w[i].status = st;
                if (!WIFEXITED(st) || WEXITSTATUS(st))
                    rc = gone(p, i);
            }
        if (rc)
            break;
        if (!(pfd[want].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if ((rc = recv_msg(w->sock, &m)) <= 0) {
            rc = gone(p, want);
            if (!rc)
                rc = dp_error(
                    DP_EREMOTE, "%s %d (pid %ld) ended before batch %llu",
                    p->job.name, want, (long)w->pid, (unsigned long long)index);
            break;
        }
        if (m.type == MSG_ERROR) {
            rc = dp_error(DP_EREMOTE, "%s", m.text);
            break;
        }
        if (m.type != MSG_READY || m.index != index ||
            m.slot >= (uint32_t)p->ns || m.bytes > SIZE_MAX / 2) {
            rc = dp_error(DP_EPROTO, "%s %d sent batch %llu, expected %llu",
                          p->job.name, want, (unsigned long long)m.index,
                          (unsigned long long)index);
            break;
        }
        if ((rc = slot_map(&w->slots[m.slot], (size_t)m.bytes, PROT_READ)))
            break;
        p->held_worker = want;
        p->held_slot = (int)m.slot;
        rc = batch_read(w->slots[m.slot].map, m.bytes, index, p->job.num_layers,
                        b->layers, b);
        break;
    }
    free(pfd);
    p->st.waited += now() - t0;
    return rc;
}

int dp_pool_finish(struct dp_pool *p, struct dp_pool_stats *st)
{
    int i, rc = 0, r;

    give_back(p);
    for (i = 0; i < p->nw && !rc; i++) {
        struct worker *w = &p->w[i];
        struct msg m;
        while (!w->done && (r = recv_msg(w->sock, &m)) > 0) {
            if (m.type == MSG_ERROR)
                rc = dp_error(DP_EREMOTE, "%s", m.text);
            else if (m.type == MSG_DONE) {
                w->done = 1;
                p->st.requests += m.requests;
                p->st.bytes_sent += m.sent;
                p->st.bytes_recv += m.recv;
            }
        }
        if (!rc && !w->done)
            rc = gone(p, i);
        if (!rc && !w->done)
            rc = dp_error(DP_EREMOTE, "%s %d (pid %ld) ended without a word",
                          p->job.name, i, (long)w->pid);
    }
    pool_close(p);
    for (i = 0; i < p->nw; i++) {
        struct worker *w = &p->w[i];
        int s;
        if (w->ended)
            continue;
        while (waitpid(w->pid, &s, 0) < 0 && errno == EINTR)
            ;
        w->ended = 1;
        w->status = s;
        if (!rc && (!WIFEXITED(s) || WEXITSTATUS(s)))
            rc = gone(p, i);
    }
    *st = p->st;
    return rc;
}
