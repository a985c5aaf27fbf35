/* Internals shared by the launcher's files: launch.c builds a job,
 * loop.c runs it, mux.c shares ssh connections, keepalive.c keeps servers
 * up between launches. */
#ifndef DGLPART_LAUNCH_INT_H
#define DGLPART_LAUNCH_INT_H

#include <sys/types.h>

#include "dglpart/ipconfig.h"
#include "dglpart/launch.h"

enum { DP_LP_WAIT, DP_LP_RUN, DP_LP_DONE };

/* One remote (or local) process and the ssh that carries it. */
struct dp_lproc {
    int host;
    enum dp_role role;
    int rank;  /* DGL_SERVER_ID, RANK, or node rank under torchrun */
    int local; /* run with sh here instead of ssh */
    char ip[256];
    char label[300]; /* host:role:rank */
    char **argv;     /* owned; built at spawn for ssh */
    char *remote;    /* the command line for ssh (owned) */
    int mux;         /* index of its shared connection, or -1 */
    int state;
    pid_t pid;
    int in_fd, out_fd, err_fd, log_fd;
    struct dp_lines lout, lerr;
    int started;         /* the wrapper reported the job's start */
    int have_code, code; /* the job's exit code, from the wrapper */
    int reaped, wstatus;
    int cancelled; /* never started: the job stopped first */
    int sent_kill;
    int killed_here; /* ssh itself was killed after the linger */
    double t_spawn, stop_at, reaped_at;
};

/* One ssh master connection shared by up to DP_MUX_SESSIONS processes
 * of a host (OpenSSH ControlMaster): one handshake per host instead of one
 * per process. It dies with the launcher (PR_SET_PDEATHSIG). */
#define DP_MUX_SESSIONS 8
enum {
    DP_MUX_NONE,
    DP_MUX_CONNECTING,
    DP_MUX_READY,
    DP_MUX_FAILED,
    DP_MUX_GONE
};

struct dp_mux {
    int host;
    int chunk; /* the host's processes DP_MUX_SESSIONS at a time */
    char ip[256];
    char path[128]; /* ControlPath socket */
    int state;
    pid_t pid;
    int reaped;
    int users; /* processes routed through it */
};

struct dp_ljob {
    struct dp_lproc *p;
    int n;
    struct dp_mux *mux;
    int nmux;
    char mux_dir[64]; /* private folder of the control sockets */
    char id[32];      /* marks every process of this launch */
    struct dp_ssh ssh;
    double grace;
    double t0;
    int keeper; /* servers only, kept alive until stopped */
    int quiet;  /* no prefixed copy on stdout/stderr */
    int trainers_total, trainers_left;
    int failed;
    char failure[640];
    int interrupted; /* the signal that stopped the job */
    int draining, drained;
    double drain_at;
    int out_broken[2];
};
/* "trainer 3 on 127.0.0.2" */
void dp_launch_describe(const struct dp_lproc *p, char *out, size_t n);
/* Add servers and/or trainers of a launch to j. */
int dp_launch_build(struct dp_ljob *j, const struct dp_launch_opts *o,
                    const struct dp_ipconfig *ipc, int with_servers,
                    int with_trainers, int group_id);
/* Run until every process ended; *status as dp_launch_run. */
int dp_launch_loop(struct dp_ljob *j, int *status);
void dp_ljob_release(struct dp_ljob *j);
/* ssh argv (dp_ssh_argv, freed with dp_argv_free) for remote on ip with
 * the options pre in front of the user's --ssh_opts; NULL when out of
 * memory. */
char **dp_launch_ssh_argv(const struct dp_ljob *j, const char *ip,
                          const char *pre, const char *remote);

/* Give each host's remote processes a master connection (none when
 * DGLPART_SSH_MUX=0 or when the folder for the sockets cannot be made). */
void dp_mux_setup(struct dp_ljob *j);
/* Start m's master; on failure m is DP_MUX_FAILED and its sessions
 * connect by themselves. 0, or DP_ENOMEM. */
int dp_mux_start(struct dp_ljob *j, struct dp_mux *m);
/* Mark masters ready or failed, stop those no session needs any more;
 * 1 while one is still connecting. */
int dp_mux_tick(struct dp_ljob *j);
/* Stop every master (TERM, then KILL after 2 s) and remove the sockets. */
void dp_mux_end(struct dp_ljob *j);
/* The ssh options of p's session into pre[n]: through its master once
 * that is ready. */
void dp_mux_ssh_opts(const struct dp_ljob *j, const struct dp_lproc *p,
                     char *pre, size_t n);

/* A launch with --server_name: attach to a kept-alive group, or start one. */
struct dp_keep {
    char *dir;      /* state folder (owned) */
    int lock_fd;    /* NAME.lock, held from begin until spawn */
    int alive_fd;   /* NAME.alive, locked for the keeper's life */
    int attached;   /* servers are up: only trainers start */
    int will_spawn; /* no servers yet and --keep_alive: start a keeper */
    int spawned;
    int group; /* DGL_GROUP_ID of this launch's trainers */
    pid_t keeper_pid;
    char log[1024];
};

int dp_keep_begin(struct dp_keep *k, const struct dp_launch_opts *o,
                  const struct dp_ipconfig *ipc);
/* Fork the keeper that runs the servers; releases the locks. */
int dp_keep_spawn(struct dp_keep *k, const struct dp_launch_opts *o,
                  const struct dp_ipconfig *ipc);
void dp_keep_release(struct dp_keep *k);

#endif
