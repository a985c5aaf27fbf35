/* Building a launch: the processes of a job (servers, trainers, their
 * ranks), each one's environment and command line for ssh or sh, the
 * torchrun probe; then the entry points that build a job and run it. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/dglfile.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/ipconfig.h"
#include "dglpart/launch.h"
#include "dglpart/parse.h"
#include "dglpart/progress.h"
#include "dglpart/run_command.h"
#include "dglpart/shell.h"
#include "launch_int.h"

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

/* ssh argv with extra options in front of the user's --ssh_opts (ssh
 * keeps the first value it sees of each option). */
char **dp_launch_ssh_argv(const struct dp_ljob *j, const char *ip,
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

static char *resolve(const char *ws, const char *path)
{
    return path[0] == '/' || !ws ? dp_strdup(path) : dp_path_join(ws, path);
}

/* num_parts of a partition config. */
static int num_parts_of(const char *path, int *num_parts)
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
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t env = 0;
    int v;

    if (o->num_omp_threads > 0)
        return o->num_omp_threads;
    if (!dp_env_int("OMP_NUM_THREADS", &env) && env > 0)
        return (int)env;
    v = (int)(ncpu / 2 / o->num_trainers);
    return v > 1 ? v : 1;
}

static int add_proc(struct dp_ljob *j, int host, const char *ip,
                    enum dp_role role, int rank)
{
    struct dp_lproc *p = dp_realloc_array(j->p, (size_t)j->n + 1, sizeof(*p));

    if (!p)
        return DP_ENOMEM;
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

        p->argv = dp_calloc(4, sizeof(char *));
        if (!p->argv)
            rc = DP_ENOMEM;
        for (k = 0; !rc && k < 3; k++)
            if (!(p->argv[k] = dp_strdup(argv[k])))
                rc = DP_ENOMEM;
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
        return DP_ENOMEM;
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
    if (!rc && !(argv = dp_launch_ssh_argv(j, ip, "-T", remote.data)))
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
        return DP_ENOMEM;
    rc = num_parts_of(cfg, &parts);
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
        rc = DP_ENOMEM;
        goto out;
    }
    if ((rc = dp_ipconfig_load(&ipc, ipath)) != 0)
        goto out;
    if ((rc = num_parts_of(cpath, &parts)) != 0)
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
