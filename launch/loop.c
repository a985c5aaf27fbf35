/* The launcher's event loop: one ssh per remote process, its output
 * prefixed and logged, signals forwarded through the wrappers' stdin, the
 * first failure stops the job, and nothing outlives it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/launch.h"
#include "dglpart/parse.h"
#include "dglpart/progress.h"
#include "dglpart/run_command.h"
#include "dglpart/shell.h"
#include "launch_int.h"

/* Handshakes in flight per host: sshd drops connections beyond its
 * MaxStartups (10 by default), which is why launch.py sleeps 0.2 s. */
#define MAX_CONNECTING 8
/* After KILL was sent, how long ssh gets to return before it is killed
 * here (the wrapper then cleans up on its own when its stdin closes). */
#define SSH_LINGER 5.0

static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;

    if (write(sig_pipe[1], &c, 1) < 0) {
        /* The pipe is full: the loop has plenty to read already. */
    }
    errno = saved;
}

static const int handled[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))

static int install_signals(struct sigaction *saved)
{
    struct sigaction sa;
    size_t i;

    if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
        return dp_error(DP_EIO, "pipe: %s", strerror(errno));
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < NHANDLED; i++)
        sigaction(handled[i], &sa, &saved[i]);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &saved[NHANDLED]);
    return 0;
}

static void restore_signals(const struct sigaction *saved)
{
    size_t i;

    for (i = 0; i < NHANDLED; i++)
        sigaction(handled[i], &saved[i], NULL);
    sigaction(SIGPIPE, &saved[NHANDLED], NULL);
    close(sig_pipe[0]);
    close(sig_pipe[1]);
    sig_pipe[0] = sig_pipe[1] = -1;
}

/* What ended the process, in words; 0 in *ok when it exited 0. */
static void outcome(const struct dp_lproc *p, char *out, size_t n, int *ok)
{
    *ok = 0;
    if (p->have_code) {
        *ok = p->code == 0;
        if (p->code > 128 && p->code < 160)
            snprintf(out, n, "exit code %d (signal %d, %s)", p->code,
                     p->code - 128, strsignal(p->code - 128));
        else
            snprintf(out, n, "exit code %d", p->code);
    } else if (p->killed_here) {
        snprintf(out, n, "stopped");
    } else if (WIFEXITED(p->wstatus) && WEXITSTATUS(p->wstatus) == 255) {
        snprintf(out, n, "ssh failed or the connection was lost%s",
                 p->started ? "" : " before the process started");
    } else if (WIFEXITED(p->wstatus)) {
        snprintf(out, n, "%s exited with code %d without a status",
                 p->local ? "sh" : "ssh", WEXITSTATUS(p->wstatus));
    } else if (WIFSIGNALED(p->wstatus)) {
        snprintf(out, n, "%s killed by signal %d", p->local ? "sh" : "ssh",
                 WTERMSIG(p->wstatus));
    } else {
        snprintf(out, n, "ended");
    }
}

struct line_ctx {
    struct dp_ljob *job;
    struct dp_lproc *p;
    int fd; /* 1 or 2 */
};

static void emit(void *arg, const char *line, size_t len)
{
    struct line_ctx *c = arg;
    struct dp_lproc *p = c->p;
    char buf[sizeof(((struct dp_lines *)0)->buf) + 160];
    size_t hl;

    if (c->fd == 2) {
        const char *tok = memmem(line, len, "\037dglpart-", 9);

        if (tok) {
            size_t before = (size_t)(tok - line), rest = len - before;
            const char *end = line + len;
            char num[24];
            size_t k;

            if (before)
                emit(arg, line, before);
            if (rest > strlen(DP_LAUNCH_TOKEN_EXIT) &&
                !memcmp(tok, DP_LAUNCH_TOKEN_EXIT,
                        strlen(DP_LAUNCH_TOKEN_EXIT))) {
                tok += strlen(DP_LAUNCH_TOKEN_EXIT);
                k = (size_t)(end - tok) < sizeof(num) - 1 ? (size_t)(end - tok)
                                                          : sizeof(num) - 1;
                memcpy(num, tok, k);
                num[k] = '\0';
                if (!dp_parse_int("exit", num, 0, 255, &p->code))
                    p->have_code = 1;
            } else if (rest > strlen(DP_LAUNCH_TOKEN_START) &&
                       !memcmp(tok, DP_LAUNCH_TOKEN_START,
                               strlen(DP_LAUNCH_TOKEN_START))) {
                p->started = 1;
                dp_log(DP_LOG_V, "[%s] started (%.3f s)", p->label,
                       dp_now() - c->job->t0);
            }
            return;
        }
    }
    if (p->log_fd >= 0) {
        if (dp_write_all(p->log_fd, line, len) ||
            dp_write_all(p->log_fd, "\n", 1)) {
            close(p->log_fd);
            p->log_fd = -1;
        }
    }
    if (c->job->quiet)
        return;
    hl = (size_t)snprintf(buf, sizeof(buf), "[%s] ", p->label);
    if (hl >= sizeof(buf) - len - 1)
        hl = 0;
    memcpy(buf + hl, line, len);
    buf[hl + len] = '\n';
    if (!c->job->out_broken[c->fd - 1] &&
        dp_write_all(c->fd, buf, hl + len + 1))
        c->job->out_broken[c->fd - 1] = 1;
}

static void send_line(struct dp_lproc *p, const char *what)
{
    char line[16];
    int n = snprintf(line, sizeof(line), "%s\n", what);

    if (p->in_fd < 0)
        return;
    if (write(p->in_fd, line, (size_t)n) != n) {
        close(p->in_fd);
        p->in_fd = -1;
    }
}

static void close_in(struct dp_lproc *p)
{
    if (p->in_fd >= 0)
        close(p->in_fd);
    p->in_fd = -1;
}

static int running(const struct dp_lproc *p)
{
    return p->state == DP_LP_RUN;
}

/* Ask p to stop with signal name sig; KILL follows after the grace. */
static void stop_proc(struct dp_ljob *j, struct dp_lproc *p, const char *sig)
{
    if (!running(p) || (p->stop_at > 0 && strcmp(sig, "KILL")))
        return;
    send_line(p, sig);
    if (p->stop_at == 0)
        p->stop_at = dp_now();
    if (!strcmp(sig, "KILL"))
        p->stop_at = dp_now() - j->grace;
}

static void stop_all(struct dp_ljob *j, const char *sig, int servers_only)
{
    int i;

    for (i = 0; i < j->n; i++) {
        if (servers_only && j->p[i].role != DP_ROLE_SERVER)
            continue;
        if (j->p[i].state == DP_LP_WAIT) {
            j->p[i].state = DP_LP_DONE;
            j->p[i].cancelled = 1;
            continue;
        }
        stop_proc(j, &j->p[i], sig);
    }
}

static int ssh_argv(struct dp_ljob *j, struct dp_lproc *p)
{
    char pre[300];

    dp_mux_ssh_opts(j, p, pre, sizeof(pre));
    dp_argv_free(p->argv);
    p->argv = dp_launch_ssh_argv(j, p->ip, pre, p->remote);
    return p->argv ? 0 : DP_ENOMEM;
}

static int spawn(struct dp_ljob *j, struct dp_lproc *p)
{
    struct dp_child c = DP_CHILD_INIT;
    int rc;

    if (!p->local && (rc = ssh_argv(j, p)) != 0)
        return rc;
    c.argv = p->argv;
    c.in = c.out = c.err = DP_CHILD_PIPE;
    /* Own process group: a terminal's Ctrl-C reaches the launcher only,
     * which forwards it properly. If the launcher dies, ssh sees EOF on
     * stdin and the remote wrapper cleans up. */
    c.flags = DP_CHILD_PGROUP | DP_CHILD_DEFAULT_SIGNALS | DP_CHILD_NONBLOCK;
    if ((rc = dp_child_start(&c)) != 0)
        return rc;
    p->pid = c.pid;
    p->in_fd = c.in;
    p->out_fd = c.out;
    p->err_fd = c.err;
    p->state = DP_LP_RUN;
    p->t_spawn = dp_now();
    if (dp_verbose >= DP_LOG_VV) {
        char **a;

        fprintf(stderr, "%s: [%s] pid %ld:", dp_progname(), p->label,
                (long)p->pid);
        for (a = p->argv; *a; a++)
            fprintf(stderr, " %s", *a);
        fputc('\n', stderr);
    }
    return 0;
}

static void read_fd(struct dp_ljob *j, struct dp_lproc *p, int which)
{
    int *fd = which == 1 ? &p->out_fd : &p->err_fd;
    struct dp_lines *l = which == 1 ? &p->lout : &p->lerr;
    struct line_ctx c = { j, p, which };
    char buf[65536];
    ssize_t n;

    for (;;) {
        n = read(*fd, buf, sizeof(buf));
        if (n > 0) {
            dp_lines_feed(l, buf, (size_t)n, emit, &c);
            if ((size_t)n < sizeof(buf))
                return;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        dp_lines_flush(l, emit, &c);
        close(*fd);
        *fd = -1;
        return;
    }
}

static void finish_proc(struct dp_ljob *j, struct dp_lproc *p);

static void reap(struct dp_ljob *j)
{
    int st, i;
    pid_t pid;

    while ((pid = dp_child_reap(-1, &st)) > 0) {
        for (i = 0; i < j->nmux; i++)
            if (j->mux[i].pid == pid)
                j->mux[i].reaped = 1;
        for (i = 0; i < j->n; i++) {
            struct dp_lproc *p = &j->p[i];

            if (p->pid == pid && !p->reaped) {
                p->reaped = 1;
                p->wstatus = st;
                p->reaped_at = dp_now();
                close_in(p);
            }
        }
    }
}

static void record_failure(struct dp_ljob *j, struct dp_lproc *p,
                           const char *why)
{
    char who[320];

    if (j->failed || j->interrupted)
        return;
    j->failed = 1;
    dp_launch_describe(p, who, sizeof(who));
    snprintf(j->failure, sizeof(j->failure), "%s: %s", who, why);
    fprintf(stderr, "%s: %s; stopping the job\n", dp_progname(), j->failure);
}

static void finish_proc(struct dp_ljob *j, struct dp_lproc *p)
{
    struct line_ctx c1 = { j, p, 1 }, c2 = { j, p, 2 };
    char why[160];
    int ok;

    if (p->out_fd >= 0) {
        dp_lines_flush(&p->lout, emit, &c1);
        close(p->out_fd);
        p->out_fd = -1;
    }
    if (p->err_fd >= 0) {
        dp_lines_flush(&p->lerr, emit, &c2);
        close(p->err_fd);
        p->err_fd = -1;
    }
    close_in(p);
    if (p->log_fd >= 0)
        close(p->log_fd);
    p->log_fd = -1;
    p->state = DP_LP_DONE;
    outcome(p, why, sizeof(why), &ok);
    dp_log(DP_LOG_V, "[%s] %s (%.3f s)", p->label, ok ? "done" : why,
           dp_now() - j->t0);
    if (p->role == DP_ROLE_TRAINER) {
        j->trainers_left--;
        if (!ok)
            record_failure(j, p, why);
        if (j->failed)
            stop_all(j, "TERM", 0);
        return;
    }
    /* A server that ends before the trainers did breaks the job; so does
     * any server of a kept-alive group. */
    if (p->stop_at == 0 && !j->draining &&
        (j->trainers_left > 0 || j->keeper)) {
        if (!ok || j->keeper) {
            record_failure(j, p, ok ? "exited while its group was up" : why);
            stop_all(j, "TERM", 0);
        }
    }
}

static void handle_signal(struct dp_ljob *j, int sig)
{
    const char *name = sig == SIGINT ? "INT" : sig == SIGHUP ? "HUP" : "TERM";

    if (j->interrupted) {
        fprintf(stderr, "%s: killing the job\n", dp_progname());
        stop_all(j, "KILL", 0);
        return;
    }
    j->interrupted = sig;
    if (!j->keeper)
        fprintf(stderr, "%s: got SIG%s, stopping the job (again to kill)\n",
                dp_progname(), name);
    stop_all(j, name, 0);
}

/* Spawn waiting processes while their host has handshakes to spare. */
static int spawn_ready(struct dp_ljob *j)
{
    int i, k, rc;

    for (i = 0; i < j->n; i++) {
        struct dp_lproc *p = &j->p[i];
        int busy = 0;

        if (p->state != DP_LP_WAIT)
            continue;
        if (p->mux >= 0) {
            struct dp_mux *m = &j->mux[p->mux];

            if (m->state == DP_MUX_NONE)
                dp_mux_start(j, m);
            if (m->state == DP_MUX_CONNECTING)
                continue;
        }
        for (k = 0; k < j->n; k++)
            if (j->p[k].host == p->host && running(&j->p[k]) &&
                !j->p[k].started && !j->p[k].local &&
                (j->p[k].mux < 0 || j->mux[j->p[k].mux].state != DP_MUX_READY))
                busy++;
        if (busy >= MAX_CONNECTING)
            continue;
        if ((rc = spawn(j, p)) != 0) {
            record_failure(j, p, dp_errmsg());
            p->state = DP_LP_DONE;
            p->cancelled = 1;
            if (p->role == DP_ROLE_TRAINER)
                j->trainers_left--;
            stop_all(j, "TERM", 0);
            return rc;
        }
    }
    return 0;
}

/* Deadlines: KILL after the grace, then kill ssh itself; servers after the
 * last trainer get a grace to exit by themselves. Returns the poll
 * timeout in ms. */
static int tick(struct dp_ljob *j)
{
    double now = dp_now(), next = now + 60;
    int i, alive_servers = 0;

    for (i = 0; i < j->n; i++) {
        struct dp_lproc *p = &j->p[i];

        if (!running(p))
            continue;
        if (p->role == DP_ROLE_SERVER)
            alive_servers++;
        if (p->stop_at > 0) {
            double kill_at = p->stop_at + j->grace;

            if (!p->sent_kill && now >= kill_at) {
                send_line(p, "KILL");
                close_in(p);
                p->sent_kill = 1;
            }
            if (!p->reaped && now >= kill_at + SSH_LINGER) {
                kill(p->pid, SIGKILL);
                p->killed_here = 1;
            }
            if (!p->sent_kill && kill_at < next)
                next = kill_at;
            else if (!p->reaped && kill_at + SSH_LINGER < next)
                next = kill_at + SSH_LINGER;
        }
        if (p->reaped) {
            /* Output still buffered in the pipes is read first; a pipe
             * held open by some stray descendant is given up on. */
            if ((p->out_fd < 0 && p->err_fd < 0) || now >= p->reaped_at + 1.0)
                finish_proc(j, p);
            else if (p->reaped_at + 1.0 < next)
                next = p->reaped_at + 1.0;
        }
    }
    if (j->trainers_total > 0 && j->trainers_left == 0 && !j->failed &&
        !j->interrupted && !j->keeper) {
        if (!j->draining) {
            j->draining = 1;
            j->drain_at = now + j->grace;
            if (alive_servers)
                dp_log(DP_LOG_V, "trainers done; servers get %.1f s to exit",
                       j->grace);
        }
        if (now >= j->drain_at && !j->drained) {
            j->drained = 1;
            stop_all(j, "TERM", 1);
            return 0;
        }
        if (!j->drained && j->drain_at < next)
            next = j->drain_at;
    }
    if (next < now)
        next = now;
    return (int)((next - now) * 1000) + 1;
}

static int all_done(const struct dp_ljob *j)
{
    int i;

    for (i = 0; i < j->n; i++)
        if (j->p[i].state != DP_LP_DONE)
            return 0;
    return 1;
}

int dp_launch_loop(struct dp_ljob *j, int *status)
{
    struct sigaction saved[NHANDLED + 1];
    struct pollfd *pf;
    int **who, rc, i;

    pf = dp_malloc_array((size_t)(2 * j->n + 1), sizeof(*pf));
    who = dp_malloc_array((size_t)(2 * j->n + 1), sizeof(*who));
    if (!pf || !who) {
        free(pf);
        free(who);
        return DP_ENOMEM;
    }
    if ((rc = install_signals(saved)) != 0) {
        free(pf);
        free(who);
        return rc;
    }
    j->t0 = j->t0 > 0 ? j->t0 : dp_now();
    j->trainers_total = j->trainers_left = 0;
    for (i = 0; i < j->n; i++)
        if (j->p[i].role == DP_ROLE_TRAINER)
            j->trainers_total++;
    j->trainers_left = j->trainers_total;
    dp_mux_setup(j);
    spawn_ready(j);
    while (!all_done(j)) {
        int timeout, np = 0, ready;

        reap(j);
        timeout = tick(j);
        if (all_done(j))
            break;
        if (dp_mux_tick(j) && timeout > 10)
            timeout = 10;
        if (!j->failed && !j->interrupted)
            spawn_ready(j);
        pf[np].fd = sig_pipe[0];
        pf[np].events = POLLIN;
        who[np++] = NULL;
        for (i = 0; i < j->n; i++) {
            struct dp_lproc *p = &j->p[i];

            if (!running(p))
                continue;
            if (p->out_fd >= 0) {
                pf[np].fd = p->out_fd;
                pf[np].events = POLLIN;
                who[np++] = &p->out_fd;
            }
            if (p->err_fd >= 0) {
                pf[np].fd = p->err_fd;
                pf[np].events = POLLIN;
                who[np++] = &p->err_fd;
            }
        }
        ready = poll(pf, (nfds_t)np, timeout);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue;
        if (pf[0].revents) {
            unsigned char sigs[64];
            ssize_t n = read(sig_pipe[0], sigs, sizeof(sigs)), k;

            for (k = 0; k < n; k++)
                if (sigs[k] != SIGCHLD)
                    handle_signal(j, sigs[k]);
        }
        for (i = 1; i < np; i++) {
            int k;

            if (!pf[i].revents)
                continue;
            for (k = 0; k < j->n; k++) {
                if (who[i] == &j->p[k].out_fd && j->p[k].out_fd >= 0)
                    read_fd(j, &j->p[k], 1);
                else if (who[i] == &j->p[k].err_fd && j->p[k].err_fd >= 0)
                    read_fd(j, &j->p[k], 2);
            }
        }
    }
    dp_mux_end(j);
    restore_signals(saved);
    free(pf);
    free(who);
    if (j->interrupted)
        *status = 128 + j->interrupted;
    else
        *status = j->failed ? 1 : 0;
    return 0;
}

void dp_ljob_release(struct dp_ljob *j)
{
    int i;

    for (i = 0; i < j->n; i++) {
        struct dp_lproc *p = &j->p[i];

        dp_argv_free(p->argv);
        free(p->remote);
        if (p->in_fd >= 0)
            close(p->in_fd);
        if (p->out_fd >= 0)
            close(p->out_fd);
        if (p->err_fd >= 0)
            close(p->err_fd);
        if (p->log_fd >= 0)
            close(p->log_fd);
    }
    free(j->p);
    free(j->mux);
    j->p = NULL;
    j->mux = NULL;
    j->n = j->nmux = 0;
}
