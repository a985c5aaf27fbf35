/* Child processes: spawn with wired streams, wait, capture with a deadline.
 * posix_spawnp (vfork underneath) keeps a multi-GiB parent cheap to fork. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
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

int dp_child_start(struct dp_child *c)
{
    posix_spawn_file_actions_t fa;
    int *stream[3] = { &c->in, &c->out, &c->err };
    int child[3] = { -1, -1, -1 }, parent[3] = { -1, -1, -1 };
    int i, rc = 0;

    c->pid = -1;
    for (i = 0; i < 3 && !rc; i++) {
        int p[2];

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
    if (!rc && !(rc = posix_spawn_file_actions_init(&fa))) {
        for (i = 0; i < 3; i++) {
            int fd = child[i] >= 0 ? child[i] : *stream[i];

            if (fd >= 0)
                posix_spawn_file_actions_adddup2(&fa, fd, i);
        }
        rc = posix_spawnp(&c->pid, c->argv[0], &fa, NULL, c->argv, environ);
        posix_spawn_file_actions_destroy(&fa);
    }
    for (i = 0; i < 3; i++) {
        close_fd(&child[i]);
        if (rc)
            close_fd(&parent[i]);
        else if (parent[i] >= 0)
            *stream[i] = parent[i];
    }
    if (rc) {
        c->pid = -1;
        return dp_error(DP_EIO, "cannot run '%s': %s", c->argv[0],
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
        return dp_error(DP_EIO, "waiting for '%s': %s", c->argv[0],
                        strerror(errno));
    *status = st;
    return 0;
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
    struct dp_child c = { argv, -1, DP_CHILD_PIPE, DP_CHILD_PIPE, -1 };
    char *buf[2] = { out, err };
    size_t cap[2] = { outcap, errcap }, len[2] = { 0, 0 };
    double end = now_ms() + timeout_ms;
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC), rc, k, timed_out = 0;

    if (devnull < 0)
        return dp_error(DP_EIO, "/dev/null: %s", strerror(errno));
    c.in = devnull;
    rc = dp_child_start(&c);
    close(devnull);
    c.in = -1;
    if (rc)
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
