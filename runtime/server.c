/* The graph server: one partition, one poll() loop, non-blocking sockets.
 * Input grows only as bytes arrive (a frame's claimed length allocates
 * nothing), replies are queued per connection, and a connection whose
 * replies pile up is not read until it drains. */
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
#include <sys/socket.h>
#include <unistd.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/ipconfig.h"
#include "dglpart/progress.h"
#include "dglpart/runtime.h"

#define MAX_CONNS 1024
#define READ_CHUNK (256u << 10)
#define OUT_HIGH (64u << 20) /* stop reading a client above this backlog */
#define IN_BUDGET ((size_t)1 << 30) /* input buffers of all clients */
#define IN_KEEP (4u << 20) /* an emptied input buffer above this is freed */

struct conn {
    int fd;
    struct dp_buf in;
    size_t in_pos; /* consumed bytes of in */
    struct dp_buf out;
    size_t out_pos; /* sent bytes of out */
    int closing;    /* close once out is sent */
    int bye;        /* said goodbye */
    double last;    /* when bytes last moved either way (dp_now) */
};

static volatile sig_atomic_t stop_flag;
static size_t in_total; /* sum of the clients' input buffer capacities */

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

static void conn_free(struct conn *c)
{
    in_total -= c->in.cap;
    if (c->fd >= 0)
        close(c->fd);
    dp_buf_release(&c->in);
    dp_buf_release(&c->out);
    free(c);
}

/* Handle every complete frame in c->in. A frame header that cannot be
 * trusted (bad magic, version, huge length) gets an error reply and the
 * connection is closed: the stream cannot be resynchronised. */
static void handle_frames(const struct dp_part *p, struct conn *c)
{
    while (!c->closing && c->out.len - c->out_pos < OUT_HIGH &&
           c->in.len - c->in_pos >= DP_PROTO_HEADER) {
        const unsigned char *q = (const unsigned char *)c->in.data + c->in_pos;
        struct dp_frame_header h;
        if (dp_frame_header_decode(q, DP_PROTO_MAX_FRAME, &h)) {
            char msg[300];
            snprintf(msg, sizeof(msg), "%s", dp_errmsg());
            if (dp_verbose)
                fprintf(stderr, "%s: closing a client: %s\n", dp_progname(),
                        msg);
            dp_wr_error(&c->out, 0, DP_EPROTO, msg);
            c->closing = 1;
            break;
        }
        if (c->in.len - c->in_pos - DP_PROTO_HEADER < h.len)
            break;
        if (dp_serve_request(p, &h, q + DP_PROTO_HEADER, &c->out)) {
            c->closing = 1; /* could not even queue an error reply */
            break;
        }
        c->in_pos += DP_PROTO_HEADER + (size_t)h.len;
        if (h.type == DP_MSG_BYE && h.len == 0) { /* else an error reply */
            c->bye = 1;
            c->closing = 1;
        }
    }
    if (c->in_pos == c->in.len) {
        if (c->in.cap > IN_KEEP) {
            size_t max = c->in.max;
            in_total -= c->in.cap;
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
static int conn_read(const struct dp_part *p, struct conn *c)
{
    ssize_t n;
    size_t cap = c->in.cap;

    if (c->in.len + READ_CHUNK > c->in.cap &&
        in_total + READ_CHUNK * 2 > IN_BUDGET) {
        /* Too much buffered input across clients: refuse this one rather
         * than grow without bound. */
        dp_wr_error(&c->out, 0, DP_ETOOBIG, "server input budget exhausted");
        c->closing = 1;
        return 0;
    }
    if (dp_buf_grow(&c->in, READ_CHUNK))
        return -1; /* a frame larger than the cap: drop */
    in_total += c->in.cap - cap;
    n = recv(c->fd, c->in.data + c->in.len, READ_CHUNK, 0);
    if (n == 0)
        return -1;
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0
                                                                         : -1;
    c->in.len += (size_t)n;
    c->last = dp_now();
    handle_frames(p, c);
    return 0;
}

static int conn_write(struct conn *c)
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
        c->last = dp_now();
    }
    dp_buf_reset(&c->out);
    c->out_pos = 0;
    if (c->out.cap > (256u << 20)) { /* give back a huge reply's memory */
        dp_buf_release(&c->out);
        dp_buf_init(&c->out, 0);
    }
    return c->closing ? -1 : 0;
}

/* Half a frame in, or a reply out, and no byte moved for stall seconds:
 * a client that stopped mid-request holds memory for nothing. A client
 * with nothing pending may stay idle for as long as it likes. */
static int stalled(const struct conn *c, double stall, double now)
{
    return stall > 0 && (c->in.len > c->in_pos || c->out_pos < c->out.len) &&
           now - c->last > stall;
}

static int serve_loop(const struct dp_part *p, int lfd, int num_clients,
                      int keep_alive, double stall)
{
    struct conn *conns[MAX_CONNS];
    struct pollfd pfd[MAX_CONNS + 1];
    int nconn = 0, byes = 0, i, rc = 0;

    in_total = 0;
    while (!stop_flag && (keep_alive || byes < num_clients)) {
        pfd[0].fd = lfd;
        pfd[0].events = nconn < MAX_CONNS ? POLLIN : 0;
        for (i = 0; i < nconn; i++) {
            struct conn *c = conns[i];
            pfd[i + 1].fd = c->fd;
            pfd[i + 1].events = 0;
            if (!c->closing && c->out.len - c->out_pos < OUT_HIGH)
                pfd[i + 1].events |= POLLIN;
            if (c->out_pos < c->out.len)
                pfd[i + 1].events |= POLLOUT;
            pfd[i + 1].revents = 0;
        }
        pfd[0].revents = 0;
        if (poll(pfd, (nfds_t)nconn + 1, 1000) < 0) {
            if (errno == EINTR)
                continue;
            rc = dp_error(DP_ENET, "poll: %s", strerror(errno));
            break;
        }
        for (i = nconn - 1; i >= 0; i--) {
            struct conn *c = conns[i];
            short ev = pfd[i + 1].revents;
            int drop = 0;
            if (ev & (POLLIN | POLLHUP | POLLERR))
                drop = conn_read(p, c) < 0;
            if (!drop && (c->out_pos < c->out.len || c->closing))
                drop = conn_write(c) < 0;
            /* frames held back while the replies piled up */
            if (!drop && !c->closing && c->out_pos == c->out.len &&
                c->in.len - c->in_pos >= DP_PROTO_HEADER) {
                handle_frames(p, c);
                drop = conn_write(c) < 0;
            }
            if (!drop && stalled(c, stall, dp_now())) {
                drop = 1;
                fprintf(stderr,
                        "%s: part %d: dropping a client stalled "
                        "mid-%s for %.0f s\n",
                        dp_progname(), p->id,
                        c->out_pos < c->out.len ? "reply" : "request", stall);
            }
            if (drop) {
                byes += c->bye;
                if (dp_verbose)
                    fprintf(stderr,
                            "%s: part %d: client %s (%d of %d "
                            "goodbyes)\n",
                            dp_progname(), p->id,
                            c->bye ? "said goodbye" : "dropped", byes,
                            num_clients);
                conn_free(c);
                conns[i] = conns[--nconn];
            }
        }
        if (pfd[0].revents & POLLIN) {
            int fd = accept(lfd, NULL, NULL);
            if (fd >= 0) {
                struct conn *c = calloc(1, sizeof(*c));
                int one = 1;
                if (!c || set_nonblock(fd)) {
                    free(c);
                    close(fd);
                    continue;
                }
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
                c->fd = fd;
                c->last = dp_now();
                dp_buf_init(&c->in, DP_PROTO_MAX_FRAME + DP_PROTO_HEADER +
                                        2 * READ_CHUNK);
                dp_buf_init(&c->out, 0);
                conns[nconn++] = c;
            }
        }
    }
    for (i = 0; i < nconn; i++)
        conn_free(conns[i]);
    return rc;
}

int dp_serve(const struct dp_server_opts *o)
{
    struct dp_part_config cfg;
    struct dp_book book;
    struct dp_part part;
    struct dp_ipconfig ipc;
    int rc, machine, index, port, lfd = -1, have_cfg = 0, have_book = 0;
    int have_part = 0, have_ipc = 0;
    const char *host;
    struct sigaction sa;

    memset(&ipc, 0, sizeof(ipc));
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
    if ((rc = dp_part_load(&part, &cfg, &book, machine)))
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
            "%s:%d\n",
            dp_progname(), machine, (long long)part.num_inner,
            (long long)part.num_inner_edges, host, port);
    rc = serve_loop(&part, lfd, o->num_clients, o->keep_alive,
                    o->stall_timeout == 0  ? DP_STALL_TIMEOUT
                    : o->stall_timeout < 0 ? 0
                                           : o->stall_timeout);
out:
    if (lfd >= 0)
        close(lfd);
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
