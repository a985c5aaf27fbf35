/* The launcher: DGL's tools/launch.py done without orphans. Graph servers
 * and trainers start on every host over ssh with DGL's environment; each
 * remote job runs under a small sh wrapper that kills it when its ssh
 * connection closes (reference/dgl.md sections 5 and 6). */
#ifndef DGLPART_LAUNCH_H
#define DGLPART_LAUNCH_H

#include <stddef.h>

#include "dglpart/buf.h"
#include "dglpart/shell.h"

struct dp_launch_opts {
    const char *workspace; /* remote folder; configs are relative to it */
    const char *ip_config; /* as given (sent to the processes verbatim) */
    const char *part_config;
    int num_trainers;              /* per host, > 0 */
    int num_servers;               /* per host, > 0 */
    int num_samplers;              /* per trainer, >= 0 */
    int num_server_threads;        /* OMP_NUM_THREADS of servers */
    int num_omp_threads;           /* of trainers; 0: $OMP_NUM_THREADS or
                                      max(ncpu / 2 / num_trainers, 1) */
    const char *graph_format;      /* "csc" */
    const char *const *extra_envs; /* NAME=VALUE, expanded by the remote sh */
    int n_extra_envs;
    struct dp_ssh ssh;
    int keep_alive;          /* servers outlive this launch */
    const char *server_name; /* names a kept-alive server group */
    const char *log_dir;     /* local folder for one log per process */
    int standalone;          /* run command here once, DGL standalone mode */
    const char *command;     /* the user's command line (one string) */
    double grace;            /* seconds between a polite signal and KILL */
    int master_port;         /* 0: probe host 0 from 1234 like launch.py */
    const char *state_dir;   /* kept-alive state; NULL: the default */
    int trainer_launcher;    /* DP_TRAINERS_*: how Python trainers start */
    int local_rank_arg;      /* direct: pass --local_rank=N to the script */
};

/* How a Python trainer command starts on a host: through torchrun, or T
 * processes started directly with the variables torchrun would set (torch
 * 1.13's torchrun fails on Python 3.11); auto probes each host once. */
enum { DP_TRAINERS_AUTO, DP_TRAINERS_TORCHRUN, DP_TRAINERS_DIRECT };

/* Defaults for everything optional. */
void dp_launch_opts_init(struct dp_launch_opts *o);

/* Run the job to its end. Returns 0 when it ran (then *status is 0 if every
 * trainer exited 0, 1 after a failure, 128+N after signal N reached the
 * launcher) or an error code when it could not start. */
int dp_launch_run(const struct dp_launch_opts *o, int *status);

/* Stop the kept-alive servers called name. */
int dp_launch_stop(const char *name, const char *state_dir, double grace);

/* ---- pieces, exposed for the unit tests ---- */

/* Find the Python interpreter word in cmd (a blank-separated word whose
 * last path component is python, python3, python3.11, ...). 1 and its
 * [start, end) byte range, or 0 when there is none. */
int dp_launch_find_python(const char *cmd, size_t *start, size_t *end);

struct dp_torchrun {
    int nproc_per_node;
    int nnodes;
    int node_rank;
    const char *master_addr;
    int master_port;
};

struct dp_env;

/* The environment torchrun gives local worker t of node h (of H nodes, T
 * workers each), as torch's elastic agent sets it for a static rendezvous;
 * with no agent, rank 0 hosts the TCP store itself (no agent store). */
int dp_launch_worker_env(struct dp_env *e, int H, int T, int h, int t,
                         const char *master_addr, int master_port);

/* cmd with " --local_rank=t" after its script (the word after the
 * interpreter and its options; after the module of -m), as
 * torch.distributed.launch passed it. Malloc'd, or NULL with an error. */
char *dp_launch_local_rank_arg(const char *cmd, int t);

/* The probe run on a host by --trainer_launcher auto: python -c CODE that
 * prints "torchrun" when torch's launcher can start workers there, else
 * "direct <why>". */
extern const char dp_launch_torchrun_probe[];

/* The remote command of a probe: cd to the workspace, --extra_envs, then
 * command in the user's shell; appended to b. */
int dp_launch_probe_command(struct dp_buf *b, const char *workspace,
                            const struct dp_env *extra, const char *command);

/* cmd with " -m torch.distributed.run --nproc_per_node=..." inserted after
 * its interpreter word, in a malloc'd string (caller frees); NULL with an
 * error recorded when cmd has no interpreter word. */
char *dp_launch_torchrun(const char *cmd, const struct dp_torchrun *t);

/* A NAME=VALUE list; strings owned. */
struct dp_env {
    int n;
    char **kv;
};

void dp_env_release(struct dp_env *e);
/* Append NAME=value (printf style value). */
int dp_env_addf(struct dp_env *e, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The value of name in e, or NULL (borrowed). */
const char *dp_env_get(const struct dp_env *e, const char *name);

/* 0 when s is NAME=VALUE with a shell variable name, else DP_EINVAL. */
int dp_launch_check_env(const char *s);

enum dp_role { DP_ROLE_SERVER, DP_ROLE_TRAINER };

/* DGL's environment of server server_id (global id: machine * num_servers
 * + s), in launch.py's order. */
int dp_launch_server_env(struct dp_env *e, const struct dp_launch_opts *o,
                         int num_hosts, int server_id);
/* DGL's client environment for one host, with DGL_GROUP_ID group_id and
 * OMP_NUM_THREADS omp. */
int dp_launch_client_env(struct dp_env *e, const struct dp_launch_opts *o,
                         int num_hosts, int omp, int group_id);

/* What the remote wrapper runs. */
struct dp_wrap {
    const char *workspace;      /* cd here first; NULL: stay */
    const struct dp_env *extra; /* values expanded by the remote shell */
    const struct dp_env *env;   /* values taken literally */
    const char *marker;         /* DGLPART_JOB value that tags every process */
    const char *command;        /* run with the login shell (${SHELL:-sh} -c) */
    int grace_tenths;           /* TERM -> KILL wait, in 0.1 s */
};

/* Append the sh script of the wrapper to b. It starts the command in a
 * session of its own, reads signal names (INT TERM HUP KILL) from stdin and
 * sends them to the job, and on EOF of stdin (the ssh connection closed)
 * or when the command ends, TERMs then KILLs every process carrying the
 * marker. It writes "\037dglpart-start PID" and "\037dglpart-exit CODE"
 * lines to stderr. */
int dp_launch_wrapper(struct dp_buf *b, const struct dp_wrap *w);

/* Markers the wrapper writes on stderr. */
#define DP_LAUNCH_TOKEN_START "\037dglpart-start "
#define DP_LAUNCH_TOKEN_EXIT "\037dglpart-exit "

/* Splits a byte stream into lines for prefixing; a line longer than the
 * buffer is passed on in pieces. */
struct dp_lines {
    char buf[8192];
    size_t len;
};

/* Feed n bytes; calls fn(arg, line, len) for each complete line (without
 * its newline). */
void dp_lines_feed(struct dp_lines *l, const char *p, size_t n,
                   void (*fn)(void *arg, const char *line, size_t len),
                   void *arg);
/* Pass on a final unterminated line, if any. */
void dp_lines_flush(struct dp_lines *l,
                    void (*fn)(void *arg, const char *line, size_t len),
                    void *arg);

/* ---- kept-alive server groups ---- */

struct dp_keep_state {
    long pid;       /* the keeper process that holds the servers */
    int next_group; /* DGL_GROUP_ID of the next launch */
    int num_servers;
    int num_hosts;
    char hosts[1024]; /* ip list, comma separated */
    char log[1024];   /* where the servers' output goes */
};

/* Text form, one "key value" a line. */
int dp_keep_format(struct dp_buf *b, const struct dp_keep_state *s);
int dp_keep_parse(struct dp_keep_state *s, const char *text);
/* The folder for state files: state_dir, else $DGLPART_STATE_DIR, else
 * $XDG_RUNTIME_DIR/dglpart/servers, else $HOME/.dglpart/servers. malloc'd. */
char *dp_keep_dir(const char *state_dir);

#endif
