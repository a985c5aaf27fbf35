/* The launcher's event loop: one ssh per remote process, its output
 * prefixed and logged, signals forwarded through the wrappers' stdin, the
 * first failure stops the job, and nothing outlives it. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/ipconfig.h"
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

static const char *sig_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
}

static const char *role_name(enum dp_role r)
{
    return r == DP_ROLE_SERVER ? "server" : "trainer";
}

void dp_launch_describe(const struct dp_lproc *p, char *out, size_t n)
{
    snprintf(out, n, "%s %d on %s", role_name(p->role), p->rank, p->ip);
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
                if (dp_verbose)
                    fprintf(stderr, "%s: [%s] started (%.3f s)\n",
                            dp_progname(), p->label, dp_now() - c->job->t0);
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

/* ssh argv with extra options in front of the user's --ssh_opts (ssh
 * keeps the first value it sees of each option). */
static char **ssh_argv_with(const struct dp_ljob *j, const char *ip,
                            const char *pre, const char *remote)
{
    struct dp_ssh s = j->ssh;
    struct dp_buf o;
    char **argv;

    dp_buf_init(&o, 1 << 16);
    if (dp_buf_addf(&o, "%s %s", pre, j->ssh.opts ? j->ssh.opts : "")) {
        dp_buf_release(&o);
        return NULL;
    }
    s.opts = o.data;
    argv = dp_ssh_argv(&s, ip, remote);
    dp_buf_release(&o);
    return argv;
}

static int ssh_argv(struct dp_ljob *j, struct dp_lproc *p)
{
    char pre[300] = "-T";

    if (p->mux >= 0 && j->mux[p->mux].state == DP_MUX_READY)
        snprintf(pre, sizeof(pre), "-T -o ControlMaster=no -o ControlPath=%s",
                 j->mux[p->mux].path);
    dp_argv_free(p->argv);
    p->argv = ssh_argv_with(j, p->ip, pre, p->remote);
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
    if (dp_verbose > 1) {
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
    if (dp_verbose)
        fprintf(stderr, "%s: [%s] %s (%.3f s)\n", dp_progname(), p->label,
                ok ? "done" : why, dp_now() - j->t0);
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

/* Route each host's ssh sessions through shared master connections. */
static void setup_mux(struct dp_ljob *j)
{
    const char *env = getenv("DGLPART_SSH_MUX"), *tmp = getenv("TMPDIR");
    int i, k, *count;

    if (env && !strcmp(env, "0"))
        return;
    for (i = 0; i < j->n && j->p[i].local; i++)
        ;
    if (i == j->n)
        return;
    snprintf(j->mux_dir, sizeof(j->mux_dir), "%s/dglpart-ssh-XXXXXX",
             tmp && *tmp && strlen(tmp) < 30 ? tmp : "/tmp");
    if (!mkdtemp(j->mux_dir)) {
        j->mux_dir[0] = '\0';
        return;
    }
    count = calloc((size_t)j->n, sizeof(*count));
    j->mux = calloc((size_t)j->n, sizeof(*j->mux));
    if (!count || !j->mux) {
        free(count);
        free(j->mux);
        j->mux = NULL;
        return;
    }
    for (i = 0; i < j->n; i++) {
        struct dp_lproc *p = &j->p[i];
        int chunk;

        if (p->local || p->host < 0 || p->host >= j->n)
            continue;
        chunk = count[p->host]++ / DP_MUX_SESSIONS;
        for (k = 0; k < j->nmux; k++)
            if (j->mux[k].host == p->host && j->mux[k].chunk == chunk)
                break;
        if (k == j->nmux) {
            struct dp_mux *m = &j->mux[j->nmux++];

            m->host = p->host;
            m->chunk = chunk;
            snprintf(m->ip, sizeof(m->ip), "%s", p->ip);
            snprintf(m->path, sizeof(m->path), "%s/%d-%d", j->mux_dir, p->host,
                     chunk);
        }
        j->mux[k].users++;
        p->mux = k;
    }
    free(count);
}

static int spawn_master(struct dp_ljob *j, struct dp_mux *m)
{
    struct dp_child c = DP_CHILD_INIT;
    char pre[300];
    char **argv, **a;
    int rc;

    snprintf(pre, sizeof(pre),
             "-N -o ControlMaster=yes -o ControlPath=%s "
             "-o ControlPersist=no",
             m->path);
    argv = ssh_argv_with(j, m->ip, pre, "true");
    if (!argv)
        return DP_ENOMEM;
    for (a = argv; a[1]; a++)
        ;
    free(*a); /* -N: no remote command */
    *a = NULL;
    c.argv = argv;
    c.in = c.out = DP_CHILD_NULL;
    c.err = dp_verbose ? DP_CHILD_INHERIT : DP_CHILD_NULL;
    c.flags = DP_CHILD_PGROUP | DP_CHILD_DEFAULT_SIGNALS;
    /* A master outliving the launcher would hold its sessions. */
    c.death_sig = SIGTERM;
    rc = dp_child_start(&c);
    dp_argv_free(argv);
    if (rc) {
        m->state = DP_MUX_FAILED;
        return 0;
    }
    m->pid = c.pid;
    m->state = DP_MUX_CONNECTING;
    return 0;
}

/* Masters: ready once the socket exists; closed when their sessions end. */
static int tick_mux(struct dp_ljob *j)
{
    int i, k, connecting = 0;

    for (k = 0; k < j->nmux; k++) {
        struct dp_mux *m = &j->mux[k];
        struct stat st;
        int busy = 0;

        if (m->state == DP_MUX_CONNECTING) {
            if (!stat(m->path, &st))
                m->state = DP_MUX_READY;
            else if (m->reaped)
                m->state = DP_MUX_FAILED;
            else
                connecting = 1;
        }
        if (m->state == DP_MUX_NONE || m->reaped || m->pid <= 0)
            continue;
        for (i = 0; i < j->n; i++)
            if (j->p[i].mux == k && j->p[i].state != DP_LP_DONE)
                busy = 1;
        if (!busy && m->state != DP_MUX_GONE) {
            kill(m->pid, SIGTERM);
            m->state = DP_MUX_GONE;
        }
    }
    return connecting;
}

static void end_mux(struct dp_ljob *j)
{
    double end = dp_now() + 2;
    int k, left;

    for (k = 0; k < j->nmux; k++)
        if (j->mux[k].pid > 0 && !j->mux[k].reaped)
            kill(j->mux[k].pid, SIGTERM);
    do {
        left = 0;
        for (k = 0; k < j->nmux; k++) {
            struct dp_mux *m = &j->mux[k];

            if (m->pid <= 0 || m->reaped)
                continue;
            if (dp_child_reap(m->pid, NULL) == m->pid)
                m->reaped = 1;
            else if (dp_now() > end)
                kill(m->pid, SIGKILL), left = 1;
            else
                left = 1;
        }
        if (left) {
            struct timespec ts = { 0, 10000000 };

            nanosleep(&ts, NULL);
        }
    } while (left);
    for (k = 0; k < j->nmux; k++)
        unlink(j->mux[k].path);
    if (j->mux_dir[0])
        rmdir(j->mux_dir);
    j->mux_dir[0] = '\0';
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
                spawn_master(j, m);
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
            if (alive_servers && dp_verbose)
                fprintf(stderr,
                        "%s: trainers done; servers get %.1f s to "
                        "exit\n",
                        dp_progname(), j->grace);
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
    setup_mux(j);
    spawn_ready(j);
    while (!all_done(j)) {
        int timeout, np = 0, ready;

        reap(j);
        timeout = tick(j);
        if (all_done(j))
            break;
        if (tick_mux(j) && timeout > 10)
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
    end_mux(j);
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

/* ---- building the job ---- */

static char *resolve(const char *ws, const char *path)
{
    return path[0] == '/' || !ws ? strdup(path) : dp_path_join(ws, path);
}

int dp_launch_num_parts(const char *path, int *num_parts)
{
    struct dp_part_config c;
    int rc;

    memset(&c, 0, sizeof(c));
    if ((rc = dp_config_load(&c, path)) != 0)
        return rc;
    *num_parts = c.num_parts;
    dp_config_release(&c);
    return 0;
}

/* launch.py's get_available_port: the first port from 1234 on host 0 that
 * refuses a connection. */
static int probe_port(const char *host)
{
    struct addrinfo hints, *ai = NULL;
    int port;

    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, "1234", &hints, &ai) || !ai)
        return 1234;
    for (port = 1234; port < 1234 + 2000; port++) {
        int fd = socket(ai->ai_family,
                        SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0),
            r, busy = 0;
        struct pollfd pf;

        if (fd < 0)
            break;
        if (ai->ai_family == AF_INET)
            ((struct sockaddr_in *)ai->ai_addr)->sin_port = htons(port);
        else if (ai->ai_family == AF_INET6)
            ((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons(port);
        r = connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (r == 0)
            busy = 1;
        else if (errno == EINPROGRESS) {
            int err = 0;
            socklen_t el = sizeof(err);

            pf.fd = fd;
            pf.events = POLLOUT;
            if (poll(&pf, 1, 500) == 1 &&
                !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) && !err)
                busy = 1;
        }
        close(fd);
        if (!busy)
            break;
    }
    freeaddrinfo(ai);
    return port;
}

static int default_omp(const struct dp_launch_opts *o)
{
    const char *env = getenv("OMP_NUM_THREADS");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int v;

    if (o->num_omp_threads > 0)
        return o->num_omp_threads;
    if (env && !dp_parse_int("OMP_NUM_THREADS", env, 1, 1 << 16, &v))
        return v;
    v = (int)(ncpu / 2 / o->num_trainers);
    return v > 1 ? v : 1;
}

static int add_proc(struct dp_ljob *j, int host, const char *ip,
                    enum dp_role role, int rank)
{
    struct dp_lproc *p = realloc(j->p, (size_t)(j->n + 1) * sizeof(*p));

    if (!p)
        return dp_error(DP_ENOMEM, "out of memory");
    j->p = p;
    p = &j->p[j->n++];
    memset(p, 0, sizeof(*p));
    p->host = host;
    p->role = role;
    p->rank = rank;
    p->in_fd = p->out_fd = p->err_fd = p->log_fd = -1;
    p->mux = -1;
    snprintf(p->ip, sizeof(p->ip), "%s", ip);
    snprintf(p->label, sizeof(p->label), "%s:%s:%d", ip, role_name(role), rank);
    return 0;
}

/* Fill p's argv: ssh to its host running the wrapper, or sh here. */
static int set_command(struct dp_ljob *j, struct dp_lproc *p,
                       const struct dp_launch_opts *o,
                       const struct dp_env *extra, const struct dp_env *env,
                       const char *command)
{
    struct dp_buf script, remote;
    struct dp_wrap w;
    char marker[128];
    int rc;

    snprintf(marker, sizeof(marker), "%s.%s.%d", j->id, role_name(p->role),
             p->rank);
    memset(&w, 0, sizeof(w));
    w.workspace = o->workspace;
    w.extra = extra;
    w.env = env;
    w.marker = marker;
    w.command = command;
    w.grace_tenths = (int)(o->grace * 10 + 0.5);
    dp_buf_init(&script, 1 << 20);
    dp_buf_init(&remote, 1 << 20);
    rc = dp_launch_wrapper(&script, &w);
    if (!rc && p->local) {
        char *argv[] = { "sh", "-c", script.data, NULL };
        int k;

        p->argv = calloc(4, sizeof(char *));
        if (!p->argv)
            rc = dp_error(DP_ENOMEM, "out of memory");
        for (k = 0; !rc && k < 3; k++)
            if (!(p->argv[k] = strdup(argv[k])))
                rc = dp_error(DP_ENOMEM, "out of memory");
    } else if (!rc) {
        rc = dp_buf_adds(&remote, "exec sh -c ");
        if (!rc)
            rc = dp_shell_quote(&remote, script.data);
        if (!rc)
            p->remote = dp_buf_detach(&remote, NULL);
    }
    dp_buf_release(&script);
    dp_buf_release(&remote);
    return rc;
}

static int open_log(struct dp_lproc *p, const char *dir)
{
    char name[320], *path;

    if (!dir)
        return 0;
    snprintf(name, sizeof(name), "%s-%s-%d.log", p->ip, role_name(p->role),
             p->rank);
    path = dp_path_join(dir, name);
    if (!path)
        return dp_error(DP_ENOMEM, "out of memory");
    p->log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (p->log_fd < 0) {
        int e = errno;

        free(path);
        return dp_error(DP_EIO, "'%s': %s", dir, strerror(e));
    }
    free(path);
    return 0;
}

static void make_id(char *id, size_t n)
{
    unsigned char r[6] = { 0 };
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

    if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
        long v = (long)getpid() ^ (long)time(NULL);

        memcpy(r, &v, sizeof(r) < sizeof(v) ? sizeof(r) : sizeof(v));
    }
    if (fd >= 0)
        close(fd);
    snprintf(id, n, "%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4],
             r[5]);
}

/* Seconds a host's python may take to import torch for the probe. */
#define PROBE_TIMEOUT_MS 60000

/* The last non-empty line of s, cut to fit out[n]. */
static void last_line(const char *s, char *out, size_t n)
{
    const char *end = s + strlen(s), *b;

    while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    for (b = end; b > s && b[-1] != '\n'; b--)
        ;
    snprintf(out, n, "%.*s", (int)(end - b), b);
}

/* --trainer_launcher auto: ask the python of the command on host ip (in the
 * workspace, with --extra_envs) whether torchrun can start workers there;
 * *direct is set and the decision said on stderr. */
static int probe_host(struct dp_ljob *j, const struct dp_launch_opts *o,
                      const struct dp_env *extra, const char *ip,
                      const char *python, size_t plen, int *direct)
{
    struct dp_buf cmd, remote;
    char out[1024] = "", err[1024] = "", why[300];
    char **argv = NULL;
    int rc, status = 0;

    dp_buf_init(&cmd, 1 << 20);
    dp_buf_init(&remote, 1 << 20);
    rc = dp_buf_add(&cmd, python, plen);
    if (!rc)
        rc = dp_buf_adds(&cmd, " -c ");
    if (!rc)
        rc = dp_shell_quote(&cmd, dp_launch_torchrun_probe);
    if (!rc)
        rc = dp_launch_probe_command(&remote, o->workspace, extra, cmd.data);
    if (!rc && !(argv = ssh_argv_with(j, ip, "-T", remote.data)))
        rc = DP_ENOMEM;
    if (!rc)
        rc = dp_child_capture(argv, out, sizeof(out), err, sizeof(err),
                              PROBE_TIMEOUT_MS, &status);
    if (rc)
        goto out;
    if (status == -1) {
        rc = dp_error(DP_EREMOTE,
                      "'%s': the python probe did not answer in %d s", ip,
                      PROBE_TIMEOUT_MS / 1000);
        goto out;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 255) {
        last_line(err, why, sizeof(why));
        rc = dp_error(DP_EREMOTE, "'%s': cannot reach the host: %s", ip,
                      *why ? why : "ssh failed");
        goto out;
    }
    *direct = strncmp(out, "torchrun", 8) != 0;
    if (!*direct) {
        fprintf(stderr, "%s: %s: trainers through torch.distributed.run\n",
                dp_progname(), ip);
        goto out;
    }
    if (!strncmp(out, "direct ", 7))
        last_line(out + 7, why, sizeof(why));
    else if (*err)
        last_line(err, why, sizeof(why));
    else
        snprintf(why, sizeof(why), "the probe exited with %d",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    fprintf(stderr,
            "%s: %s: torch.distributed.run cannot run here (%s); starting "
            "%d trainer%s directly with its variables\n",
            dp_progname(), ip, why, o->num_trainers,
            o->num_trainers == 1 ? "" : "s");
out:
    dp_argv_free(argv);
    dp_buf_release(&cmd);
    dp_buf_release(&remote);
    return rc;
}

int dp_launch_build(struct dp_ljob *j, const struct dp_launch_opts *o,
                    const struct dp_ipconfig *ipc, int with_servers,
                    int with_trainers, int group_id)
{
    struct dp_env extra = { 0, NULL }, env = { 0, NULL };
    const char *host0 = ipc->hosts[0].ip;
    int H = ipc->count, omp = default_omp(o), python, rc = 0, h, s, t;
    int master_port = 0;
    size_t a, b;
    char *cmd = NULL;

    j->grace = o->grace;
    j->ssh = o->ssh;
    if (!j->id[0])
        make_id(j->id, sizeof(j->id));
    for (h = 0; !rc && h < o->n_extra_envs; h++)
        rc = dp_env_addf(&extra, "", "%s", o->extra_envs[h]);
    /* dp_env_addf made "=NAME=VALUE"; drop the leading '='. */
    for (h = 0; !rc && h < extra.n; h++)
        memmove(extra.kv[h], extra.kv[h] + 1, strlen(extra.kv[h]));
    python = dp_launch_find_python(o->command, &a, &b);
    if (!rc && with_trainers)
        master_port = o->master_port > 0 ? o->master_port : probe_port(host0);
    for (h = 0; !rc && with_servers && h < H; h++) {
        for (s = 0; !rc && s < o->num_servers; s++) {
            int id = h * o->num_servers + s;

            rc = add_proc(j, h, ipc->hosts[h].ip, DP_ROLE_SERVER, id);
            if (!rc)
                rc = dp_launch_server_env(&env, o, H, id);
            if (!rc)
                rc = set_command(j, &j->p[j->n - 1], o, &extra, &env,
                                 o->command);
            if (!rc)
                rc = open_log(&j->p[j->n - 1], o->log_dir);
            dp_env_release(&env);
        }
    }
    for (h = 0; !rc && with_trainers && h < H; h++) {
        /* a Python command runs under torchrun unless it cannot */
        int direct = !python || o->trainer_launcher == DP_TRAINERS_DIRECT;
        int per;

        if (python && o->trainer_launcher == DP_TRAINERS_AUTO)
            rc = probe_host(j, o, &extra, ipc->hosts[h].ip, o->command + a,
                            b - a, &direct);
        per = direct ? o->num_trainers : 1;
        for (t = 0; !rc && t < per; t++) {
            int rank = direct ? h * o->num_trainers + t : h;
            const char *run = o->command;

            rc = add_proc(j, h, ipc->hosts[h].ip, DP_ROLE_TRAINER, rank);
            if (!rc)
                rc = dp_launch_client_env(&env, o, H, omp, group_id);
            free(cmd);
            cmd = NULL;
            if (!rc && !direct) {
                struct dp_torchrun tr = { o->num_trainers, H, h, host0,
                                          master_port };

                cmd = dp_launch_torchrun(o->command, &tr);
                rc = cmd ? 0 : DP_ENOMEM;
                run = cmd;
            } else if (!rc) {
                rc = dp_launch_worker_env(&env, H, o->num_trainers, h, t, host0,
                                          master_port);
                if (!rc && python && o->local_rank_arg) {
                    cmd = dp_launch_local_rank_arg(o->command, t);
                    rc = cmd ? 0 : DP_EINVAL;
                    run = cmd;
                }
            }
            if (!rc)
                rc = set_command(j, &j->p[j->n - 1], o, &extra, &env, run);
            if (!rc)
                rc = open_log(&j->p[j->n - 1], o->log_dir);
            dp_env_release(&env);
        }
    }
    free(cmd);
    dp_env_release(&extra);
    return rc;
}

static int run_standalone(const struct dp_launch_opts *o, int *status)
{
    struct dp_ljob j;
    struct dp_env env = { 0, NULL };
    char *cfg = resolve(o->workspace, o->part_config);
    int rc, parts = 0;

    if (!cfg)
        return dp_error(DP_ENOMEM, "out of memory");
    rc = dp_launch_num_parts(cfg, &parts);
    if (!rc && parts != 1)
        rc = dp_error(DP_EINVAL,
                      "'%s' has %d parts; standalone mode needs "
                      "a 1-part set",
                      cfg, parts);
    free(cfg);
    if (!rc && o->log_dir)
        rc = dp_mkdir_p(o->log_dir, 0755);
    if (rc)
        return rc;
    memset(&j, 0, sizeof(j));
    make_id(j.id, sizeof(j.id));
    j.grace = o->grace;
    rc = add_proc(&j, 0, "local", DP_ROLE_TRAINER, 0);
    if (!rc) {
        j.p[0].local = 1;
        rc = dp_env_addf(&env, "DGL_DIST_MODE", "standalone");
    }
    if (!rc)
        rc = dp_env_addf(&env, "DGL_CONF_PATH", "%s", o->part_config);
    if (!rc && o->ip_config)
        rc = dp_env_addf(&env, "DGL_IP_CONFIG", "%s", o->ip_config);
    if (!rc)
        rc = dp_env_addf(&env, "OMP_NUM_THREADS", "%d", default_omp(o));
    if (!rc) {
        struct dp_env extra = { 0, NULL };
        int k;

        for (k = 0; !rc && k < o->n_extra_envs; k++)
            rc = dp_env_addf(&extra, "", "%s", o->extra_envs[k]);
        for (k = 0; !rc && k < extra.n; k++)
            memmove(extra.kv[k], extra.kv[k] + 1, strlen(extra.kv[k]));
        if (!rc)
            rc = set_command(&j, &j.p[0], o, &extra, &env, o->command);
        dp_env_release(&extra);
    }
    if (!rc)
        rc = open_log(&j.p[0], o->log_dir);
    dp_env_release(&env);
    if (!rc)
        rc = dp_launch_loop(&j, status);
    if (!rc && j.failed)
        dp_error(DP_EREMOTE, "%s", j.failure);
    else if (!rc && j.interrupted)
        dp_error(DP_EINTR, "interrupted by %s", sig_name(j.interrupted));
    dp_ljob_release(&j);
    return rc;
}

void dp_launch_opts_init(struct dp_launch_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->num_server_threads = 1;
    o->graph_format = "csc";
    o->grace = 5.0;
}

int dp_launch_run(const struct dp_launch_opts *o, int *status)
{
    struct dp_ipconfig ipc = { 0, NULL };
    struct dp_ljob j;
    struct dp_keep keep;
    char *ipath = NULL, *cpath = NULL;
    int rc, parts = 0;

    if (o->standalone)
        return run_standalone(o, status);
    memset(&j, 0, sizeof(j));
    memset(&keep, 0, sizeof(keep));
    keep.lock_fd = keep.alive_fd = -1;
    j.t0 = dp_now();
    ipath = resolve(o->workspace, o->ip_config);
    cpath = resolve(o->workspace, o->part_config);
    if (!ipath || !cpath) {
        rc = dp_error(DP_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = dp_ipconfig_load(&ipc, ipath)) != 0)
        goto out;
    if ((rc = dp_launch_num_parts(cpath, &parts)) != 0)
        goto out;
    if (parts != ipc.count) {
        rc =
            dp_error(DP_EINVAL,
                     "'%s' has %d parts but '%s' lists %d "
                     "host%s; partition i runs on host i",
                     cpath, parts, ipath, ipc.count, ipc.count == 1 ? "" : "s");
        goto out;
    }
    if (o->log_dir && (rc = dp_mkdir_p(o->log_dir, 0755)) != 0)
        goto out;
    if (o->server_name) {
        rc = dp_keep_begin(&keep, o, &ipc);
        if (!rc && keep.will_spawn)
            rc = dp_keep_spawn(&keep, o, &ipc);
        if (rc)
            goto out;
    }
    rc = dp_launch_build(&j, o, &ipc, !keep.attached && !keep.spawned, 1,
                         keep.group);
    if (rc)
        goto out;
    if (keep.attached)
        fprintf(stderr, "%s: using the servers of '%s' (group %d)\n",
                dp_progname(), o->server_name, keep.group);
    rc = dp_launch_loop(&j, status);
    if (!rc && j.failed)
        dp_error(DP_EREMOTE, "job failed: %s", j.failure);
    else if (!rc && j.interrupted)
        dp_error(DP_EINTR, "interrupted by %s; job stopped",
                 sig_name(j.interrupted));
    if (!rc && keep.spawned)
        fprintf(stderr,
                "%s: servers '%s' stay up (log: %s); stop them with "
                "'dglpart launch --stop %s'\n",
                dp_progname(), o->server_name, keep.log, o->server_name);
out:
    dp_keep_release(&keep);
    dp_ljob_release(&j);
    dp_ipconfig_release(&ipc);
    free(ipath);
    free(cpath);
    return rc;
}
