/* ssh multiplexing: the sessions of a host share OpenSSH ControlMaster
 * connections, one handshake for up to DP_MUX_SESSIONS processes, so a
 * launch does not trip sshd's MaxStartups. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/progress.h"
#include "dglpart/run_command.h"
#include "dglpart/shell.h"
#include "launch_int.h"

/* A TMPDIR this long or longer is passed over for /tmp: mux_dir must hold
 * TMPDIR/dglpart-ssh-XXXXXX, and a control socket's path with ssh's
 * temporary suffix must stay within sun_path's 108 bytes. */
#define MUX_TMPDIR_MAX 30

/* Route each host's ssh sessions through shared master connections. */
void dp_mux_setup(struct dp_ljob *j)
{
    const char *tmp = dp_env_str("TMPDIR");
    int i, k, *count, mux = 1;

    dp_env_bool("DGLPART_SSH_MUX", &mux);
    if (!mux)
        return;
    for (i = 0; i < j->n && j->p[i].local; i++)
        ;
    if (i == j->n)
        return;
    snprintf(j->mux_dir, sizeof(j->mux_dir), "%s/dglpart-ssh-XXXXXX",
             strlen(tmp) < MUX_TMPDIR_MAX ? tmp : "/tmp");
    if (!mkdtemp(j->mux_dir)) {
        j->mux_dir[0] = '\0';
        return;
    }
    count = dp_calloc((size_t)j->n, sizeof(*count));
    j->mux = dp_calloc((size_t)j->n, sizeof(*j->mux));
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

int dp_mux_start(struct dp_ljob *j, struct dp_mux *m)
{
    struct dp_child c = DP_CHILD_INIT;
    char pre[300];
    char **argv, **a;
    int rc;

    snprintf(pre, sizeof(pre),
             "-N -o ControlMaster=yes -o ControlPath=%s "
             "-o ControlPersist=no",
             m->path);
    argv = dp_launch_ssh_argv(j, m->ip, pre, "true");
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
int dp_mux_tick(struct dp_ljob *j)
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

void dp_mux_end(struct dp_ljob *j)
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

void dp_mux_ssh_opts(const struct dp_ljob *j, const struct dp_lproc *p,
                     char *pre, size_t n)
{
    if (p->mux >= 0 && j->mux[p->mux].state == DP_MUX_READY)
        snprintf(pre, n, "-T -o ControlMaster=no -o ControlPath=%s",
                 j->mux[p->mux].path);
    else
        snprintf(pre, n, "-T");
}
