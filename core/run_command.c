/* Child processes: spawn with wired streams, wait, capture with a deadline.
 * posix_spawnp (vfork underneath) keeps a multi-GiB parent cheap to fork;
 * fork only where the child must run our code first. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/error.h"
#include "dglpart/run_command.h"

extern char **environ;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static const char *child_name(const struct dp_child *c)
{
    return c->argv && c->argv[0] ? c->argv[0] : "a child process";
}

static int spawn_child(struct dp_child *c, const int *fd)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    short flags = 0;
    int i, rc;

    if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
        return rc;
    if ((rc = posix_spawnattr_init(&attr)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    for (i = 0; i < 3; i++)
        if (fd[i] >= 0)
            posix_spawn_file_actions_adddup2(&fa, fd[i], i);
    if (c->flags & DP_CHILD_SESSION)
        flags |= POSIX_SPAWN_SETSID;
    else if (c->flags & DP_CHILD_PGROUP)
        flags |= POSIX_SPAWN_SETPGROUP; /* group 0: its own */
    if (c->flags & DP_CHILD_DEFAULT_SIGNALS) {
        sigset_t all, none;

        sigfillset(&all);
        sigemptyset(&none);
        posix_spawnattr_setsigdefault(&attr, &all);
        posix_spawnattr_setsigmask(&attr, &none);
        flags |= POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    }
    posix_spawnattr_setflags(&attr, flags);
    rc = posix_spawnp(&c->pid, c->argv[0], &fa, &attr, c->argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/* In a forked child: what posix_spawn's attributes do, by hand. */
static void child_setup(const struct dp_child *c, const int *fd)
{
    int i;

    if (c->flags & DP_CHILD_SESSION)
        setsid();
    else if (c->flags & DP_CHILD_PGROUP)
        setpgid(0, 0);
    if (c->flags & DP_CHILD_DEFAULT_SIGNALS) {
        struct sigaction sa;
        sigset_t none;
        int s;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        for (s = 1; s < NSIG; s++)
            if (s != SIGKILL && s != SIGSTOP)
                sigaction(s, &sa, NULL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
    }
    if (c->death_sig)
        prctl(PR_SET_PDEATHSIG, c->death_sig);
    for (i = 0; i < 3; i++)
        if (fd[i] >= 0)
            dup2(fd[i], i);
}

/* fork, for what posix_spawn cannot say; a failed exec comes back as its
 * errno through a close-on-exec pipe, as posix_spawnp reports it. */
static int fork_child(struct dp_child *c, const int *fd)
{
    int report[2], e = 0;
    pid_t pid;

    if (pipe2(report, O_CLOEXEC) != 0)
        return errno;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        close(report[0]);
        child_setup(c, fd);
        if (c->fn) {
            int code;

            close(report[1]);
            code = c->fn(c->arg);
            fflush(NULL);
            _exit(code);
        }
        execvp(c->argv[0], c->argv);
        e = errno;
        if (write(report[1], &e, sizeof(e)) < 0) {
            /* the parent then sees no report and a child exiting 127 */
        }
        _exit(127);
    }
    if (pid < 0)
        e = errno;
    close(report[1]);
    while (pid > 0 && read(report[0], &e, sizeof(e)) < 0 && errno == EINTR)
        ;
    close(report[0]);
    if (pid > 0 && e) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        pid = -1;
    }
    c->pid = pid;
    return e;
}

int dp_child_start(struct dp_child *c)
{
    int *stream[3] = { &c->in, &c->out, &c->err };
    int child[3] = { -1, -1, -1 }, parent[3] = { -1, -1, -1 };
    int i, rc = 0;

    c->pid = -1;
    for (i = 0; i < 3 && !rc; i++) {
        int p[2];

        if (*stream[i] == DP_CHILD_NULL) {
            child[i] = open("/dev/null", (i ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
            if (child[i] < 0)
                rc = errno;
            continue;
        }
        if (*stream[i] != DP_CHILD_PIPE)
            continue;
        if (pipe2(p, O_CLOEXEC) != 0) {
            rc = errno;
            break;
        }
        /* stdin: the child reads p[0]; stdout, stderr: it writes p[1] */
        child[i] = i == 0 ? p[0] : p[1];
        parent[i] = i == 0 ? p[1] : p[0];
    }
    if (!rc) {
        int fd[3];

        for (i = 0; i < 3; i++)
            fd[i] = child[i] >= 0 ? child[i] : *stream[i];
        rc = c->fn || c->death_sig ? fork_child(c, fd) : spawn_child(c, fd);
    }
    for (i = 0; i < 3; i++) {
        close_fd(&child[i]);
        if (rc) {
            close_fd(&parent[i]);
        } else if (parent[i] >= 0) {
            if (c->flags & DP_CHILD_NONBLOCK)
                fcntl(parent[i], F_SETFL, O_NONBLOCK);
            *stream[i] = parent[i];
        }
    }
    if (rc) {
        c->pid = -1;
        return dp_error(DP_EIO, "cannot run '%s': %s", child_name(c),
                        strerror(rc));
    }
    return 0;
}

int dp_child_wait(struct dp_child *c, int *status)
{
    int st = 0;
    pid_t r;

    /* a writer's end closed first, so a child reading stdin ends */
    if (c->in >= 0)
        close_fd(&c->in);
    while ((r = waitpid(c->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (c->out >= 0)
        close_fd(&c->out);
    if (c->err >= 0)
        close_fd(&c->err);
    if (r < 0)
        return dp_error(DP_EIO, "waiting for '%s': %s", child_name(c),
                        strerror(errno));
    *status = st;
    return 0;
}

pid_t dp_child_reap(pid_t pid, int *status)
{
    int st = 0;
    pid_t r;

    while ((r = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
        ;
    if (r > 0 && status)
        *status = st;
    return r;
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int dp_child_capture(char *const *argv, char *out, size_t outcap, char *err,
                     size_t errcap, int timeout_ms, int *status)
{
    struct dp_child c = DP_CHILD_INIT;
    char *buf[2] = { out, err };
    size_t cap[2] = { outcap, errcap }, len[2] = { 0, 0 };
    double end = now_ms() + timeout_ms;
    int rc, k, timed_out = 0;

    c.argv = argv;
    c.in = DP_CHILD_NULL;
    c.out = c.err = DP_CHILD_PIPE;
    if ((rc = dp_child_start(&c)) != 0)
        return rc;
    while (c.out >= 0 || c.err >= 0) {
        struct pollfd pf[2] = { { c.out, POLLIN, 0 }, { c.err, POLLIN, 0 } };
        int left = (int)(end - now_ms());

        if (left <= 0) {
            timed_out = 1;
            kill(c.pid, SIGKILL);
            break;
        }
        if (poll(pf, 2, left) < 0 && errno != EINTR)
            break;
        for (k = 0; k < 2; k++) {
            int *fd = k ? &c.err : &c.out;
            char scratch[4096], *dst = scratch;
            size_t room = sizeof(scratch);
            ssize_t n;

            if (*fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            /* keep what fits, drain the rest so the child never blocks */
            if (buf[k] && len[k] + 1 < cap[k]) {
                dst = buf[k] + len[k];
                room = cap[k] - 1 - len[k];
            }
            n = read(*fd, dst, room);
            if (n <= 0 && !(n < 0 && errno == EINTR))
                close_fd(fd);
            else if (n > 0 && dst != scratch)
                len[k] += (size_t)n;
        }
    }
    for (k = 0; k < 2; k++)
        if (buf[k] && cap[k])
            buf[k][len[k]] = '\0';
    rc = dp_child_wait(&c, status);
    if (!rc && timed_out)
        *status = -1;
    return rc;
}
