/* The graph server: one partition, one poll() loop, non-blocking sockets.
 * Memory is bounded whatever clients do: input grows only as bytes arrive,
 * large replies are produced a chunk at a time as the socket drains, the
 * replies queued across all clients have a budget, and clients that read
 * too slowly, stall, or crowd the descriptor table are dropped. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/ipconfig.h"
#include "dglpart/progress.h"
#include "dglpart/runtime.h"

#define MAX_CONNS 1024
#define FD_SPARE 16 /* descriptors kept for the part's files, logs, ... */
#define READ_CHUNK (256u << 10)
#define OUT_HIGH (16u << 20) /* a client's backlog above which it waits */
#define REPLY_CHUNK                                                            \
    (4u << 20)                 /* a large reply is produced this much at once  \
                                */
#define LEAN_CHUNK (64u << 10) /* ... or this much when over the budget */
#define OUT_KEEP (8u << 20)    /* a drained reply buffer above this is freed */
#define IN_BUDGET ((size_t)1 << 30) /* input buffers of all clients */
#define IN_KEEP (4u << 20) /* an emptied input buffer above this is freed */
#define ACCEPT_PAUSE 0.1   /* seconds the listener rests when out of fds */

struct conn {
    int fd;
    struct dp_buf in;
    size_t in_pos; /* consumed bytes of in */
    struct dp_buf out;
    size_t out_pos;            /* sent bytes of out */
    struct dp_reply_stream st; /* the rest of a large reply */
    size_t charged;            /* what this client counts in out_total */
    int closing;               /* close once out is sent */
    int bye;                   /* said goodbye */
    int hello;                 /* said hello, with client id `client` */
    uint32_t client;
    double last;       /* when bytes last moved either way (dp_now) */
    double win_start;  /* replies pending since then (0: none) ... */
    uint64_t win_sent; /* ... and bytes sent since */
};

struct server {
    const struct dp_part *p;
    struct conn **conns;
    struct pollfd *pfd;
    int nconn, max_conns;
    size_t in_total;  /* the clients' input buffer capacities */
    size_t out_total; /* reply buffers and held request ids */
    size_t out_budget;
    unsigned char *seen; /* [num_clients]: ids whose goodbye counted */
    int byes, num_clients, keep_alive;
    double stall;
    int spare_fd; /* given up to accept and close when out of fds */
    double pause_until;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int listen_on(const char *host, int port, int *out)
{
    struct sockaddr_in sa;
    int fd, one = 1;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return dp_error(DP_EINVAL, "'%s' is not an IPv4 address", host);
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
        return dp_error(DP_ENET, "socket: %s", strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 128) ||
        set_nonblock(fd)) {
        int e = errno;
        close(fd);
        return dp_error(DP_ENET, "cannot listen on %s:%d: %s", host, port,
                        strerror(e));
    }
    *out = fd;
    return 0;
}

static size_t pending(const struct conn *c)
{
    return c->out.len - c->out_pos;
}

static int idle(const struct conn *c)
{
    return !c->closing && !c->st.type && !pending(c) && c->in.len == c->in_pos;
}

/* Bring c's share of out_total up to date. */
static void charge(struct server *sv, struct conn *c)
{
    size_t now = c->out.cap + dp_reply_stream_held(&c->st);

    sv->out_total = sv->out_total - c->charged + now;
    c->charged = now;
}

static void conn_free(struct server *sv, struct conn *c)
{
    sv->in_total -= c->in.cap;
    sv->out_total -= c->charged;
    if (c->fd >= 0)
        close(c->fd);
    dp_buf_release(&c->in);
    dp_buf_release(&c->out);
    dp_reply_stream_release(&c->st);
    free(c);
}

/* A goodbye counts once per client id that said hello as a trainer, so
 * stray or repeated goodbyes cannot end the server early. */
static void count_bye(struct server *sv, const struct conn *c)
{
    int counted = c->hello && c->client < (uint32_t)sv->num_clients &&
                  !sv->seen[c->client];

    if (counted) {
        sv->seen[c->client] = 1;
        sv->byes++;
    }
    dp_log(DP_LOG_V, "part %d: goodbye from %s (%d of %d)", sv->p->id,
           counted    ? "a trainer"
           : c->hello ? "a client id already counted or out of range"
                      : "a client that never said hello",
           sv->byes, sv->num_clients);
}

/* Handle the complete frames in c->in while c has no reply in progress
 * and the budgets allow. A frame header that cannot be trusted (bad magic,
 * version, huge length) gets an error reply and the connection is closed:
 * the stream cannot be resynchronised. */
static void handle_frames(struct server *sv, struct conn *c)
{
    while (!c->closing && !c->st.type && pending(c) < OUT_HIGH &&
           sv->out_total < sv->out_budget &&
           c->in.len - c->in_pos >= DP_PROTO_HEADER) {
        const unsigned char *q = (const unsigned char *)c->in.data + c->in_pos;
        struct dp_frame_header h;
        uint32_t client;
        if (dp_frame_header_decode(q, DP_PROTO_MAX_FRAME, &h)) {
            char msg[300];
            snprintf(msg, sizeof(msg), "%s", dp_errmsg());
            dp_log(DP_LOG_V, "closing a client: %s", msg);
            dp_wr_error(&c->out, 0, DP_EPROTO, msg);
            c->closing = 1;
            break;
        }
        if (c->in.len - c->in_pos - DP_PROTO_HEADER < h.len)
            break;
        if (dp_serve_request_start(sv->p, &h, q + DP_PROTO_HEADER, &c->out,
                                   &c->st, REPLY_CHUNK)) {
            c->closing = 1; /* could not even queue an error reply */
            break;
        }
        if (h.type == DP_MSG_HELLO && !c->hello &&
            !dp_hello_client(q + DP_PROTO_HEADER, h.len, &client)) {
            c->hello = 1;
            c->client = client;
        }
        c->in_pos += DP_PROTO_HEADER + (size_t)h.len;
        if (h.type == DP_MSG_BYE && h.len == 0) { /* else an error reply */
            c->bye = 1;
            c->closing = 1;
        }
        charge(sv, c);
    }
    if (c->in_pos == c->in.len) {
        if (c->in.cap > IN_KEEP) {
            size_t max = c->in.max;
            sv->in_total -= c->in.cap;
            dp_buf_release(&c->in);
            dp_buf_init(&c->in, max);
        }
        dp_buf_reset(&c->in);
        c->in_pos = 0;
    } else if (c->in_pos > (1u << 20) && c->in_pos * 2 > c->in.len) {
        memmove(c->in.data, c->in.data + c->in_pos, c->in.len - c->in_pos);
        c->in.len -= c->in_pos;
        c->in_pos = 0;
    }
}

/* 0: keep, -1: drop the connection */
static int conn_read(struct server *sv, struct conn *c)
{
    ssize_t n;
    size_t cap = c->in.cap;

    if (c->in.len + READ_CHUNK > c->in.cap &&
        sv->in_total + READ_CHUNK * 2 > IN_BUDGET) {
        /* Too much buffered input across clients: refuse this one rather
         * than grow without bound. */
        dp_wr_error(&c->out, 0, DP_ETOOBIG, "server input budget exhausted");
        c->closing = 1;
        charge(sv, c);
        return 0;
    }
    if (dp_buf_grow(&c->in, READ_CHUNK))
        return -1; /* a frame larger than the cap: drop */
    sv->in_total += c->in.cap - cap;
    n = recv(c->fd, c->in.data + c->in.len, READ_CHUNK, 0);
    if (n == 0)
        return -1;
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0
                                                                         : -1;
    c->in.len += (size_t)n;
    c->last = dp_now();
    handle_frames(sv, c);
    return 0;
}

/* Send what is queued; 1 when the socket took all of it, 0 when it is
 * full, -1 to drop the connection. */
static int conn_send(struct server *sv, struct conn *c)
{
    while (c->out_pos < c->out.len) {
        ssize_t n = send(c->fd, c->out.data + c->out_pos,
                         c->out.len - c->out_pos, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            if (errno == EINTR)
                continue;
            return -1;
        }
        c->out_pos += (size_t)n;
        c->win_sent += (size_t)n;
        c->last = dp_now();
    }
    dp_buf_reset(&c->out);
    c->out_pos = 0;
    if (c->out.cap > OUT_KEEP || (!c->st.type && c->out.cap > LEAN_CHUNK)) {
        dp_buf_release(&c->out); /* an idle client keeps no reply buffer */
        dp_buf_init(&c->out, 0);
    }
    charge(sv, c);
    return 1;
}

/* Produce and send c's reply while the socket takes it. Over the budget a
 * client may still have a small piece once its queue is empty, so readers
 * keep going while clients that do not read hold the budget. */
static int conn_write(struct server *sv, struct conn *c)
{
    int rc;

    for (;;) {
        if ((rc = conn_send(sv, c)) <= 0)
            return rc;
        if (!c->st.type)
            break;
        if (sv->out_total < sv->out_budget)
            rc = dp_reply_stream_fill(sv->p, &c->st, &c->out, REPLY_CHUNK);
        else
            rc = dp_reply_stream_fill(sv->p, &c->st, &c->out, LEAN_CHUNK);
        charge(sv, c);
        if (rc) {
            fprintf(stderr, "%s: part %d: dropping a client: %s\n",
                    dp_progname(), sv->p->id, dp_errmsg());
            return -1;
        }
    }
    return c->closing ? -1 : 0;
}

/* Half a frame in, or a reply out, and no byte moved for stall seconds:
 * a client that stopped mid-request holds memory for nothing. A client
 * with nothing pending may stay idle for as long as it likes. */
static const char *stalled(struct conn *c, double stall, double now)
{
    if (stall <= 0)
        return NULL;
    if ((c->in.len > c->in_pos || pending(c) || c->st.type) &&
        now - c->last > stall)
        return pending(c) || c->st.type ? "reply" : "request";
    /* Moving a byte now and then is not enough: replies must drain at
     * DP_MIN_DRAIN on average over each window of stall seconds. */
    if (!pending(c) && !c->st.type) {
        c->win_start = 0;
        return NULL;
    }
    if (!c->win_start) {
        c->win_start = now;
        c->win_sent = 0;
    } else if (now - c->win_start >= stall) {
        if (c->win_sent < DP_MIN_DRAIN * (now - c->win_start))
            return "slow";
        c->win_start = now;
        c->win_sent = 0;
    }
    return NULL;
}

/* The client to give up for a newcomer when the table is full: the one idle
 * longest, among those that never said hello first. */
static int victim(const struct server *sv)
{
    int i, best = -1;

    for (i = 0; i < sv->nconn; i++) {
        const struct conn *c = sv->conns[i];
        const struct conn *b = best < 0 ? NULL : sv->conns[best];
        if (!idle(c))
            continue;
        if (!b || (b->hello && !c->hello) ||
            (b->hello == c->hello && c->last < b->last))
            best = i;
    }
    return best;
}

static void drop(struct server *sv, int i, const char *why)
{
    struct conn *c = sv->conns[i];

    if (c->bye)
        count_bye(sv, c);
    if (why)
        fprintf(stderr, "%s: part %d: dropping a client %s\n", dp_progname(),
                sv->p->id, why);
    conn_free(sv, c);
    sv->conns[i] = sv->conns[--sv->nconn];
}

static void accept_one(struct server *sv, int lfd)
{
    struct conn *c;
    int fd, one = 1, v;

    if (sv->nconn >= sv->max_conns) {
        if ((v = victim(sv)) < 0)
            return;
        drop(sv, v, dp_verbose ? "idle longest, for a new one" : NULL);
    }
    if ((fd = accept(lfd, NULL, NULL)) < 0) {
        if (errno != EMFILE && errno != ENFILE)
            return;
        /* Out of descriptors: make room from an idle client, or take the
         * newcomer off the queue with the spare and close it, then rest,
         * rather than spin on a listener that stays readable. */
        if ((v = victim(sv)) >= 0) {
            drop(sv, v, dp_verbose ? "idle longest, out of descriptors" : NULL);
            return;
        }
        if (sv->spare_fd >= 0) {
            close(sv->spare_fd);
            if ((fd = accept(lfd, NULL, NULL)) >= 0)
                close(fd);
            sv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        }
        sv->pause_until = dp_now() + ACCEPT_PAUSE;
        return;
    }
    if (!(c = dp_calloc(1, sizeof(*c))) || set_nonblock(fd)) {
        free(c);
        close(fd);
        return;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->fd = fd;
    c->last = dp_now();
    dp_buf_init(&c->in, DP_PROTO_MAX_FRAME + DP_PROTO_HEADER + 2 * READ_CHUNK);
    dp_buf_init(&c->out, 0);
    sv->conns[sv->nconn++] = c;
}

static int max_conns(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= MAX_CONNS + FD_SPARE)
        return MAX_CONNS;
    return rl.rlim_cur > 2 * FD_SPARE ? (int)rl.rlim_cur - FD_SPARE
                                      : (int)rl.rlim_cur / 2;
}

static int serve_loop(struct server *sv, int lfd)
{
    int i, rc = 0;

    while (!stop_flag && (sv->keep_alive || sv->byes < sv->num_clients)) {
        struct pollfd *pfd = sv->pfd;
        double now = dp_now();
        int paused = now < sv->pause_until;
        pfd[0].fd = lfd;
        pfd[0].events =
            !paused && (sv->nconn < sv->max_conns || victim(sv) >= 0) ? POLLIN
                                                                      : 0;
        pfd[0].revents = 0;
        for (i = 0; i < sv->nconn; i++) {
            struct conn *c = sv->conns[i];
            pfd[i + 1].fd = c->fd;
            pfd[i + 1].events = 0;
            if (!c->closing && pending(c) < OUT_HIGH)
                pfd[i + 1].events |= POLLIN;
            if (pending(c) || c->st.type)
                pfd[i + 1].events |= POLLOUT;
            pfd[i + 1].revents = 0;
        }
        if (poll(pfd, (nfds_t)sv->nconn + 1, paused ? 100 : 1000) < 0) {
            if (errno == EINTR)
                continue;
            rc = dp_error(DP_ENET, "poll: %s", strerror(errno));
            break;
        }
        for (i = sv->nconn - 1; i >= 0; i--) {
            struct conn *c = sv->conns[i];
            short ev = pfd[i + 1].revents;
            const char *why;
            int out = 0;
            if (ev & (POLLIN | POLLHUP | POLLERR))
                out = conn_read(sv, c) < 0;
            if (!out && (pending(c) || c->st.type || c->closing))
                out = conn_write(sv, c) < 0;
            /* frames held back while replies piled up or the budget ran
             * out */
            if (!out && !c->closing && !c->st.type &&
                c->in.len - c->in_pos >= DP_PROTO_HEADER) {
                handle_frames(sv, c);
                out = conn_write(sv, c) < 0;
            }
            if (!out && (why = stalled(c, sv->stall, dp_now()))) {
                char msg[96];
                if (!strcmp(why, "slow"))
                    snprintf(msg, sizeof(msg),
                             "reading its replies at under %u bytes/s",
                             DP_MIN_DRAIN);
                else
                    snprintf(msg, sizeof(msg), "stalled mid-%s for %.0f s", why,
                             sv->stall);
                drop(sv, i, msg);
                continue;
            }
            if (out)
                drop(sv, i, NULL);
        }
        if (pfd[0].revents & POLLIN)
            accept_one(sv, lfd);
    }
    for (i = 0; i < sv->nconn; i++)
        conn_free(sv, sv->conns[i]);
    return rc;
}

int dp_serve(const struct dp_server_opts *o)
{
    struct dp_part_config cfg;
    struct dp_book book;
    struct dp_part part;
    struct dp_ipconfig ipc;
    int rc, machine, index, port, lfd = -1, have_cfg = 0, have_book = 0;
    int have_part = 0, have_ipc = 0, built = 0;
    const char *host;
    struct sigaction sa;
    struct server sv;

    memset(&ipc, 0, sizeof(ipc));
    memset(&sv, 0, sizeof(sv));
    sv.spare_fd = -1;
    if (!o->conf_path)
        return dp_error(DP_EINVAL, "no partition config (DGL_CONF_PATH)");
    if (o->num_servers < 1 || o->server_id < 0)
        return dp_error(DP_EINVAL, "bad server id %d of %d per machine",
                        o->server_id, o->num_servers);
    machine = o->server_id / o->num_servers;
    index = o->server_id % o->num_servers;
    host = o->host;
    port = o->port;
    if (!host || port <= 0) {
        if (!o->ip_config)
            return dp_error(DP_EINVAL, "no ip_config (DGL_IP_CONFIG)");
        if ((rc = dp_ipconfig_load(&ipc, o->ip_config)))
            return rc;
        have_ipc = 1;
        if (machine >= ipc.count) {
            rc = dp_error(DP_ERANGE,
                          "server %d is on machine %d, but '%s' "
                          "lists %d",
                          o->server_id, machine, o->ip_config, ipc.count);
            goto out;
        }
        if (!host)
            host = ipc.hosts[machine].ip;
        if (port <= 0)
            port = ipc.hosts[machine].port + index;
    }
    if ((rc = dp_config_load(&cfg, o->conf_path)))
        goto out;
    have_cfg = 1;
    if ((rc = dp_book_init(&book, &cfg)))
        goto out;
    have_book = 1;
    if (machine >= cfg.num_parts) {
        rc = dp_error(DP_ERANGE,
                      "server %d serves part %d, but '%s' has %d "
                      "parts",
                      o->server_id, machine, o->conf_path, cfg.num_parts);
        goto out;
    }
    if ((rc = dp_part_load_shared(&part, &cfg, &book, machine,
                                  dp_part_shm_dir(), &built)))
        goto out;
    have_part = 1;
    if ((rc = listen_on(host, port, &lfd)))
        goto out;
    dp_rt_tune_malloc();
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    fprintf(stderr,
            "%s: part %d (%lld nodes, %lld edges) listening on "
            "%s:%d%s%s%s\n",
            dp_progname(), machine, (long long)part.num_inner,
            (long long)part.num_inner_edges, host, port,
            !dp_part_shm_path(&part) ? ", private copy"
            : built                  ? ", built the shared copy '"
                                     : ", attached to the shared copy '",
            dp_part_shm_path(&part) ? dp_part_shm_path(&part) : "",
            dp_part_shm_path(&part) ? "'" : "");
    rc = DP_ENOMEM;
    sv.p = &part;
    sv.max_conns = max_conns();
    sv.out_budget = o->out_budget ? o->out_budget : DP_OUT_BUDGET;
    sv.num_clients = o->num_clients;
    sv.keep_alive = o->keep_alive;
    sv.stall = o->stall_timeout == 0  ? DP_STALL_TIMEOUT
               : o->stall_timeout < 0 ? 0
                                      : o->stall_timeout;
    sv.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if ((sv.conns = dp_calloc((size_t)sv.max_conns, sizeof(*sv.conns))) &&
        (sv.pfd = dp_calloc((size_t)sv.max_conns + 1, sizeof(*sv.pfd))) &&
        (sv.seen = dp_calloc((size_t)o->num_clients + 1, 1)))
        rc = serve_loop(&sv, lfd);
out:
    if (lfd >= 0)
        close(lfd);
    if (sv.spare_fd >= 0)
        close(sv.spare_fd);
    free(sv.conns);
    free(sv.pfd);
    free(sv.seen);
    if (have_part)
        dp_part_release(&part);
    if (have_book)
        dp_book_release(&book);
    if (have_cfg)
        dp_config_release(&cfg);
    if (have_ipc)
        dp_ipconfig_release(&ipc);
    return rc;
}
