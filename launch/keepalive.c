/* Kept-alive server groups (--keep_alive --server_name NAME): a detached
 * keeper process holds the servers' ssh connections, so the no-orphan
 * guarantee still holds (kill the keeper and its servers go). Per name,
 * in the state folder: NAME.lock serialises launches (flock), NAME.alive
 * stays locked by the keeper while it lives (so a stale state can never
 * be mistaken for a live one), NAME.state holds the next group id. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/launch.h"
#include "dglpart/parse.h"
#include "dglpart/progress.h"
#include "dglpart/run_command.h"
#include "launch_int.h"

char *dp_keep_dir(const char *state_dir)
{
    const char *env;

    if (state_dir && *state_dir)
        return dp_strdup(state_dir);
    if ((env = dp_env_str("DGLPART_STATE_DIR")))
        return dp_strdup(env);
    if ((env = dp_env_str("XDG_RUNTIME_DIR")))
        return dp_path_join(env, "dglpart/servers");
    if ((env = dp_env_str("HOME")))
        return dp_path_join(env, ".dglpart/servers");
    return dp_strdup(".dglpart/servers");
}

int dp_keep_format(struct dp_buf *b, const struct dp_keep_state *s)
{
    return dp_buf_addf(b,
                       "pid %ld\nnext_group %d\nnum_servers %d\n"
                       "num_hosts %d\nhosts %s\nlog %s\n",
                       s->pid, s->next_group, s->num_servers, s->num_hosts,
                       s->hosts, s->log);
}

int dp_keep_parse(struct dp_keep_state *s, const char *text)
{
    struct dp_keep_state out;
    const char *p = text;
    int64_t v;
    int seen = 0;

    memset(&out, 0, sizeof(out));
    while (*p) {
        const char *eol = strchr(p, '\n'), *sp;
        size_t len = eol ? (size_t)(eol - p) : strlen(p), klen;
        char val[1024];

        sp = memchr(p, ' ', len);
        if (!sp)
            return dp_error(DP_EFORMAT, "state file: bad line '%.*s'", (int)len,
                            p);
        klen = (size_t)(sp - p);
        if (len - klen - 1 >= sizeof(val))
            return dp_error(DP_EFORMAT, "state file: line too long");
        memcpy(val, sp + 1, len - klen - 1);
        val[len - klen - 1] = '\0';
#define KEY(k) (klen == strlen(k) && !strncmp(p, k, klen))
        if (KEY("pid") || KEY("next_group") || KEY("num_servers") ||
            KEY("num_hosts")) {
            if (dp_parse_i64("state value", val, 0, 1L << 31, &v))
                return dp_error(DP_EFORMAT, "state file: bad number '%s'", val);
            if (KEY("pid"))
                out.pid = (long)v, seen |= 1;
            else if (KEY("next_group"))
                out.next_group = (int)v, seen |= 2;
            else if (KEY("num_servers"))
                out.num_servers = (int)v, seen |= 4;
            else
                out.num_hosts = (int)v, seen |= 8;
        } else if (KEY("hosts")) {
            snprintf(out.hosts, sizeof(out.hosts), "%s", val);
            seen |= 16;
        } else if (KEY("log")) {
            snprintf(out.log, sizeof(out.log), "%s", val);
        }
#undef KEY
        p = eol ? eol + 1 : p + len;
    }
    if (seen != 31)
        return dp_error(DP_EFORMAT, "state file: missing keys");
    *s = out;
    return 0;
}

static int check_name(const char *name)
{
    const char *p;

    if (!*name || *name == '.' || strlen(name) > 100)
        goto bad;
    for (p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr("._-", *p)))
            goto bad;
    return 0;
bad:
    return dp_error(DP_EINVAL,
                    "server name '%s': use letters, digits, '.', "
                    "'_' and '-'",
                    name);
}

static char *file_of(const char *dir, const char *name, const char *ext)
{
    struct dp_buf b;

    dp_buf_init(&b, 4096);
    if (dp_buf_addf(&b, "%s/%s%s", dir, name, ext)) {
        dp_buf_release(&b);
        return NULL;
    }
    return dp_buf_detach(&b, NULL);
}

static int open_locked(const char *path, int op, int *fd_out)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

    if (fd < 0)
        return dp_error(DP_EIO, "'%s': %s", path, strerror(errno));
    while (flock(fd, op)) {
        if (errno == EINTR)
            continue;
        close(fd);
        if (errno == EWOULDBLOCK)
            return DP_EEXIST;
        return dp_error(DP_EIO, "'%s': flock: %s", path, strerror(errno));
    }
    *fd_out = fd;
    return 0;
}

static int read_state(const char *dir, const char *name,
                      struct dp_keep_state *s)
{
    char *path = file_of(dir, name, ".state"), *text = NULL;
    size_t len;
    int rc;

    if (!path)
        return dp_error(DP_ENOMEM, "out of memory");
    rc = dp_read_file(path, 1 << 16, &text, &len);
    if (!rc)
        rc = dp_keep_parse(s, text);
    free(text);
    free(path);
    return rc;
}

static int write_state(const char *dir, const char *name,
                       const struct dp_keep_state *s)
{
    char *path = file_of(dir, name, ".state");
    struct dp_buf b;
    int rc;

    if (!path)
        return dp_error(DP_ENOMEM, "out of memory");
    dp_buf_init(&b, 1 << 16);
    rc = dp_keep_format(&b, s);
    if (!rc)
        rc = dp_write_file(path, b.data, b.len);
    dp_buf_release(&b);
    free(path);
    return rc;
}

static void remove_state(const char *dir, const char *name)
{
    char *path = file_of(dir, name, ".state");

    if (path)
        unlink(path);
    free(path);
}

static void hosts_list(const struct dp_ipconfig *ipc, char *out, size_t n)
{
    size_t len = 0;
    int i;

    out[0] = '\0';
    for (i = 0; i < ipc->count && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : "",
                                ipc->hosts[i].ip);
}

int dp_keep_begin(struct dp_keep *k, const struct dp_launch_opts *o,
                  const struct dp_ipconfig *ipc)
{
    char *lock = NULL, *alive = NULL;
    struct dp_keep_state st;
    char hosts[1024];
    int rc;

    if ((rc = check_name(o->server_name)) != 0)
        return rc;
    k->dir = dp_keep_dir(o->state_dir);
    if (!k->dir)
        return DP_ENOMEM;
    if ((rc = dp_mkdir_p(k->dir, 0700)) != 0)
        return rc;
    lock = file_of(k->dir, o->server_name, ".lock");
    alive = file_of(k->dir, o->server_name, ".alive");
    if (!lock || !alive) {
        rc = dp_error(DP_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = open_locked(lock, LOCK_EX, &k->lock_fd)) != 0)
        goto out;
    rc = open_locked(alive, LOCK_EX | LOCK_NB, &k->alive_fd);
    hosts_list(ipc, hosts, sizeof(hosts));
    if (rc == DP_EEXIST) {
        /* A keeper holds the group: attach to it. */
        rc = read_state(k->dir, o->server_name, &st);
        if (rc)
            goto out;
        if (st.num_servers != o->num_servers || strcmp(st.hosts, hosts)) {
            rc = dp_error(DP_EINVAL,
                          "servers '%s' run on %s with "
                          "--num_servers %d; this launch asks for %s with %d",
                          o->server_name, st.hosts, st.num_servers, hosts,
                          o->num_servers);
            goto out;
        }
        k->attached = 1;
        k->group = st.next_group;
        k->keeper_pid = (pid_t)st.pid;
        snprintf(k->log, sizeof(k->log), "%s", st.log);
        st.next_group++;
        rc = write_state(k->dir, o->server_name, &st);
        goto out;
    }
    if (rc)
        goto out;
    remove_state(k->dir, o->server_name);
    if (o->keep_alive) {
        /* Keep both locks until the keeper runs and the state is written. */
        k->will_spawn = 1;
        k->group = 0;
        free(lock);
        free(alive);
        return 0;
    }
    /* --server_name without --keep_alive and nothing running: this launch
     * starts ordinary servers of its own, like launch.py. */
out:
    free(lock);
    free(alive);
    dp_keep_release(k);
    return rc;
}

void dp_keep_release(struct dp_keep *k)
{
    if (k->alive_fd >= 0)
        close(k->alive_fd);
    if (k->lock_fd >= 0)
        close(k->lock_fd);
    k->alive_fd = k->lock_fd = -1;
    free(k->dir);
    k->dir = NULL;
}

/* The keeper's body: run the servers until stopped, then drop the state. */
struct keeper {
    struct dp_keep *k;
    const struct dp_launch_opts *o;
    const struct dp_ipconfig *ipc;
};

/* The keeper's life, in its own session with its output in the log;
 * returns its exit code. */
static int keeper_main(void *arg)
{
    struct keeper *kp = arg;
    struct dp_keep *k = kp->k;
    const struct dp_launch_opts *o = kp->o;
    const struct dp_ipconfig *ipc = kp->ipc;
    struct dp_ljob j;
    int status = 1;

    close(k->lock_fd);
    k->lock_fd = -1;
    memset(&j, 0, sizeof(j));
    j.keeper = 1;
    j.t0 = dp_now();
    if (dp_launch_build(&j, o, ipc, 1, 0, 0) == 0)
        dp_launch_loop(&j, &status);
    else
        dp_report(DP_EINVAL);
    if (j.failed)
        fprintf(stderr, "%s: %s\n", dp_progname(), j.failure);
    dp_ljob_release(&j);
    {
        char *lock = file_of(k->dir, o->server_name, ".lock");
        struct dp_keep_state st;
        int lfd;

        if (lock && !open_locked(lock, LOCK_EX, &lfd)) {
            if (!read_state(k->dir, o->server_name, &st) &&
                st.pid == (long)getpid())
                remove_state(k->dir, o->server_name);
            close(lfd);
        }
        free(lock);
    }
    fprintf(stderr, "%s: servers '%s' stopped\n", dp_progname(),
            o->server_name);
    return status;
}

int dp_keep_spawn(struct dp_keep *k, const struct dp_launch_opts *o,
                  const struct dp_ipconfig *ipc)
{
    struct dp_keep_state st;
    struct keeper kp = { k, o, ipc };
    struct dp_child c = DP_CHILD_INIT;
    char *log = file_of(k->dir, o->server_name, ".log");
    char *name[] = { "keeper", NULL };
    pid_t pid;
    int rc, fd;

    if (!log)
        return dp_error(DP_ENOMEM, "out of memory");
    snprintf(k->log, sizeof(k->log), "%s", log);
    free(log);
    /* without its log the keeper keeps our stdout and stderr */
    fd =
        open(k->log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    c.argv = name;
    c.in = DP_CHILD_NULL;
    c.out = c.err = fd >= 0 ? fd : DP_CHILD_INHERIT;
    c.flags = DP_CHILD_SESSION;
    c.fn = keeper_main;
    c.arg = &kp;
    rc = dp_child_start(&c);
    if (fd >= 0)
        close(fd);
    if (rc)
        return rc;
    pid = c.pid;
    /* The keeper now shares the alive lock; closing our copy leaves it
     * held for exactly the keeper's life. */
    close(k->alive_fd);
    k->alive_fd = -1;
    k->spawned = 1;
    k->keeper_pid = pid;
    memset(&st, 0, sizeof(st));
    st.pid = (long)pid;
    st.next_group = 1;
    st.num_servers = o->num_servers;
    st.num_hosts = ipc->count;
    hosts_list(ipc, st.hosts, sizeof(st.hosts));
    snprintf(st.log, sizeof(st.log), "%s", k->log);
    rc = write_state(k->dir, o->server_name, &st);
    close(k->lock_fd);
    k->lock_fd = -1;
    if (rc)
        kill(pid, SIGTERM);
    return rc;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

int dp_launch_stop(const char *name, const char *state_dir, double grace)
{
    char *dir = NULL, *lock = NULL, *alive = NULL;
    struct dp_keep_state st;
    int rc, lfd = -1, afd = -1;
    double end;

    if ((rc = check_name(name)) != 0)
        return rc;
    dir = dp_keep_dir(state_dir);
    lock = dir ? file_of(dir, name, ".lock") : NULL;
    alive = dir ? file_of(dir, name, ".alive") : NULL;
    if (!lock || !alive) {
        rc = dp_error(DP_ENOMEM, "out of memory");
        goto out;
    }
    if (!dp_exists(alive)) {
        rc = dp_error(DP_ENOENT, "no servers named '%s' are running", name);
        goto out;
    }
    if ((rc = open_locked(lock, LOCK_EX, &lfd)) != 0)
        goto out;
    rc = open_locked(alive, LOCK_EX | LOCK_NB, &afd);
    if (rc == 0) {
        remove_state(dir, name);
        rc = dp_error(DP_ENOENT, "no servers named '%s' are running", name);
        goto out;
    }
    if (rc != DP_EEXIST)
        goto out;
    if ((rc = read_state(dir, name, &st)) != 0)
        goto out;
    close(lfd);
    lfd = -1;
    kill((pid_t)st.pid, SIGTERM);
    /* The keeper asks the servers politely, waits its grace, then kills. */
    end = dp_now() + 2 * grace + 10;
    while ((rc = open_locked(alive, LOCK_EX | LOCK_NB, &afd)) == DP_EEXIST) {
        if (dp_now() > end) {
            kill((pid_t)st.pid, SIGKILL);
            end = dp_now() + 10;
        }
        sleep_ms(20);
    }
    if (rc)
        goto out;
    if (open_locked(lock, LOCK_EX, &lfd) == 0)
        remove_state(dir, name);
    fprintf(stderr, "%s: stopped servers '%s'\n", dp_progname(), name);
out:
    if (afd >= 0)
        close(afd);
    if (lfd >= 0)
        close(lfd);
    free(dir);
    free(lock);
    free(alive);
    return rc;
}
