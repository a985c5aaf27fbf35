/* What runs on each host: DGL's environment, the torchrun rewrite of a
 * Python command, and the sh wrapper that ties a job to its ssh connection. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/launch.h"

void dp_env_release(struct dp_env *e)
{
    int i;

    if (!e)
        return;
    for (i = 0; i < e->n; i++)
        free(e->kv[i]);
    free(e->kv);
    e->kv = NULL;
    e->n = 0;
}

int dp_env_addf(struct dp_env *e, const char *name, const char *fmt, ...)
{
    struct dp_buf b;
    va_list ap;
    char **kv;
    int rc;

    dp_buf_init(&b, 1 << 20);
    rc = dp_buf_addf(&b, "%s=", name);
    if (!rc) {
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        rc = n < 0 ? dp_error(DP_EINVAL, "bad value for '%s'", name)
                   : dp_buf_grow(&b, (size_t)n + 1);
        if (!rc) {
            va_start(ap, fmt);
            vsnprintf(b.data + b.len, (size_t)n + 1, fmt, ap);
            va_end(ap);
            b.len += (size_t)n;
        }
    }
    if (!rc) {
        kv = dp_realloc_array(e->kv, (size_t)e->n + 1, sizeof(*kv));
        if (!kv)
            rc = DP_ENOMEM;
        else {
            e->kv = kv;
            e->kv[e->n++] = dp_buf_detach(&b, NULL);
        }
    }
    dp_buf_release(&b);
    return rc;
}

const char *dp_env_get(const struct dp_env *e, const char *name)
{
    size_t len = strlen(name);
    int i;

    for (i = e->n - 1; i >= 0; i--)
        if (!strncmp(e->kv[i], name, len) && e->kv[i][len] == '=')
            return e->kv[i] + len + 1;
    return NULL;
}

int dp_launch_check_env(const char *s)
{
    const char *p = s;

    if (!isalpha((unsigned char)*p) && *p != '_')
        goto bad;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    if (*p == '=')
        return 0;
bad:
    return dp_error(DP_EINVAL, "'%s' is not NAME=VALUE", s);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* A word that names a Python interpreter: python, python3, python3.11. */
static int python_word(const char *w, size_t n)
{
    const char *base = w;
    size_t i;

    for (i = 0; i < n; i++)
        if (w[i] == '/')
            base = w + i + 1;
    n -= (size_t)(base - w);
    if (n < 6 || strncmp(base, "python", 6))
        return 0;
    for (i = 6; i < n; i++)
        if (!isdigit((unsigned char)base[i]) && base[i] != '.')
            return 0;
    return n == 6 || isdigit((unsigned char)base[6]);
}

int dp_launch_find_python(const char *cmd, size_t *start, size_t *end)
{
    size_t i = 0, j;

    while (cmd[i]) {
        while (cmd[i] && is_blank(cmd[i]))
            i++;
        j = i;
        while (cmd[j] && !is_blank(cmd[j]))
            j++;
        if (j > i && python_word(cmd + i, j - i)) {
            *start = i;
            *end = j;
            return 1;
        }
        i = j;
    }
    return 0;
}

/* cmd with ins inserted at byte at, malloc'd; NULL when out of memory. */
static char *splice(const char *cmd, size_t at, const char *ins)
{
    struct dp_buf b;
    int rc;

    dp_buf_init(&b, 0);
    rc = dp_buf_add(&b, cmd, at);
    if (!rc)
        rc = dp_buf_adds(&b, ins);
    if (!rc)
        rc = dp_buf_adds(&b, cmd + at);
    if (rc) {
        dp_buf_release(&b);
        return NULL;
    }
    return dp_buf_detach(&b, NULL);
}

char *dp_launch_torchrun(const char *cmd, const struct dp_torchrun *t)
{
    char ins[1200];
    size_t s, e;

    if (!dp_launch_find_python(cmd, &s, &e)) {
        dp_error(DP_EINVAL, "'%s' runs no python interpreter", cmd);
        return NULL;
    }
    snprintf(ins, sizeof(ins),
             " -m torch.distributed.run --nproc_per_node=%d --nnodes=%d"
             " --node_rank=%d --master_addr=%s --master_port=%d",
             t->nproc_per_node, t->nnodes, t->node_rank, t->master_addr,
             t->master_port);
    return splice(cmd, e, ins);
}

static int add_expanding(struct dp_buf *b, const char *kv);

int dp_launch_worker_env(struct dp_env *e, int H, int T, int h, int t,
                         const char *master_addr, int master_port)
{
    int rank = h * T + t, rc;

    /* the names and values torch's LocalElasticAgent gives its workers */
    rc = dp_env_addf(e, "RANK", "%d", rank);
    if (!rc)
        rc = dp_env_addf(e, "LOCAL_RANK", "%d", t);
    if (!rc)
        rc = dp_env_addf(e, "WORLD_SIZE", "%d", H * T);
    if (!rc)
        rc = dp_env_addf(e, "LOCAL_WORLD_SIZE", "%d", T);
    if (!rc)
        rc = dp_env_addf(e, "GROUP_RANK", "%d", h);
    if (!rc)
        rc = dp_env_addf(e, "GROUP_WORLD_SIZE", "%d", H);
    if (!rc)
        rc = dp_env_addf(e, "ROLE_RANK", "%d", rank);
    if (!rc)
        rc = dp_env_addf(e, "ROLE_WORLD_SIZE", "%d", H * T);
    if (!rc)
        rc = dp_env_addf(e, "ROLE_NAME", "default");
    if (!rc)
        rc = dp_env_addf(e, "MASTER_ADDR", "%s", master_addr);
    if (!rc)
        rc = dp_env_addf(e, "MASTER_PORT", "%d", master_port);
    if (!rc)
        rc = dp_env_addf(e, "TORCHELASTIC_RESTART_COUNT", "0");
    if (!rc)
        rc = dp_env_addf(e, "TORCHELASTIC_MAX_RESTARTS", "0");
    if (!rc)
        rc = dp_env_addf(e, "TORCHELASTIC_RUN_ID", "none");
    /* no agent: init_process_group's env:// makes rank 0 the store */
    if (!rc)
        rc = dp_env_addf(e, "TORCHELASTIC_USE_AGENT_STORE", "False");
    return rc;
}

/* Skip blanks and one word of cmd from i; the index after the word. */
static size_t next_word(const char *cmd, size_t i, size_t *start)
{
    while (cmd[i] && is_blank(cmd[i]))
        i++;
    *start = i;
    while (cmd[i] && !is_blank(cmd[i]))
        i++;
    return i;
}

char *dp_launch_local_rank_arg(const char *cmd, int t)
{
    char ins[32];
    size_t s, e, ws;

    if (!dp_launch_find_python(cmd, &s, &e)) {
        dp_error(DP_EINVAL, "'%s' runs no python interpreter", cmd);
        return NULL;
    }
    /* python's own options, then the script (or -m's module) */
    for (;;) {
        size_t we = next_word(cmd, e, &ws);

        if (we == ws) {
            dp_error(DP_EINVAL, "'%s': no script after the interpreter", cmd);
            return NULL;
        }
        e = we;
        if (cmd[ws] != '-')
            break;
        if (we - ws == 2 && (cmd[ws + 1] == 'm' || cmd[ws + 1] == 'c')) {
            e = next_word(cmd, e, &ws);
            break;
        }
    }
    snprintf(ins, sizeof(ins), " --local_rank=%d", t);
    return splice(cmd, e, ins);
}

/* torchrun (torch 1.13 on Python 3.11) dies in to_map(Std.from_str("0"))
 * before any worker starts: the probe makes exactly those calls. */
const char dp_launch_torchrun_probe[] =
    "import sys\n"
    "try:\n"
    "    import torch.distributed.run\n"
    "    from torch.distributed.elastic.multiprocessing.api import Std, "
    "to_map\n"
    "    to_map(Std.from_str('0'), 1)\n"
    "except Exception as e:\n"
    "    print('direct %s: %s' % (type(e).__name__, e))\n"
    "else:\n"
    "    print('torchrun')\n";

int dp_launch_probe_command(struct dp_buf *b, const char *workspace,
                            const struct dp_env *extra, const char *command)
{
    int i, rc = 0;

    if (workspace) {
        rc = dp_buf_adds(b, "cd -- ");
        if (!rc)
            rc = dp_shell_quote(b, workspace);
        if (!rc)
            rc = dp_buf_adds(b, " || exit 127\n");
    }
    for (i = 0; !rc && extra && i < extra->n; i++)
        rc = add_expanding(b, extra->kv[i]);
    if (!rc)
        rc = dp_buf_adds(b, "\"${SHELL:-/bin/sh}\" -c ");
    return rc ? rc : dp_shell_quote(b, command);
}

static int num_clients(const struct dp_launch_opts *o, int num_hosts)
{
    return o->num_trainers * (1 + o->num_samplers) * num_hosts;
}

/* The variables servers and trainers share, in launch.py's order. */
static int job_env(struct dp_env *e, const struct dp_launch_opts *o,
                   int num_hosts)
{
    int rc = dp_env_addf(e, "DGL_NUM_CLIENT", "%d", num_clients(o, num_hosts));

    if (!rc)
        rc = dp_env_addf(e, "DGL_CONF_PATH", "%s", o->part_config);
    if (!rc)
        rc = dp_env_addf(e, "DGL_IP_CONFIG", "%s", o->ip_config);
    if (!rc)
        rc = dp_env_addf(e, "DGL_NUM_SERVER", "%d", o->num_servers);
    if (!rc)
        rc = dp_env_addf(e, "DGL_GRAPH_FORMAT", "%s", o->graph_format);
    return rc;
}

int dp_launch_server_env(struct dp_env *e, const struct dp_launch_opts *o,
                         int num_hosts, int server_id)
{
    const char *pp = dp_env_str("PYTHONPATH");
    int rc = dp_env_addf(e, "DGL_ROLE", "server");

    if (!rc)
        rc = dp_env_addf(e, "DGL_NUM_SAMPLER", "%d", o->num_samplers);
    if (!rc)
        rc = dp_env_addf(e, "OMP_NUM_THREADS", "%d", o->num_server_threads);
    if (!rc)
        rc = job_env(e, o, num_hosts);
    if (!rc && o->keep_alive)
        rc = dp_env_addf(e, "DGL_KEEP_ALIVE", "1");
    if (!rc && pp)
        rc = dp_env_addf(e, "PYTHONPATH", "%s", pp);
    if (!rc)
        rc = dp_env_addf(e, "DGL_SERVER_ID", "%d", server_id);
    return rc;
}

int dp_launch_client_env(struct dp_env *e, const struct dp_launch_opts *o,
                         int num_hosts, int omp, int group_id)
{
    const char *pp = dp_env_str("PYTHONPATH");
    int rc = dp_env_addf(e, "DGL_DIST_MODE", "distributed");

    if (!rc)
        rc = dp_env_addf(e, "DGL_ROLE", "client");
    if (!rc)
        rc = dp_env_addf(e, "DGL_NUM_SAMPLER", "%d", o->num_samplers);
    if (!rc)
        rc = job_env(e, o, num_hosts);
    if (!rc)
        rc = dp_env_addf(e, "OMP_NUM_THREADS", "%d", omp);
    if (!rc)
        rc = dp_env_addf(e, "DGL_GROUP_ID", "%d", group_id);
    if (!rc && pp)
        rc = dp_env_addf(e, "PYTHONPATH", "%s", pp);
    return rc;
}

/* NAME="value" where the remote shell expands $VAR (launch.py passes
 * --extra_envs unquoted, so LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH works). */
static int add_expanding(struct dp_buf *b, const char *kv)
{
    const char *eq = strchr(kv, '='), *p;
    int rc = dp_buf_add(b, kv, (size_t)(eq - kv + 1));

    if (!rc)
        rc = dp_buf_add(b, "\"", 1);
    for (p = eq + 1; !rc && *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '`')
            rc = dp_buf_add(b, "\\", 1);
        if (!rc)
            rc = dp_buf_add(b, p, 1);
    }
    return rc ? rc : dp_buf_add(b, "\" ", 2);
}

static int add_literal(struct dp_buf *b, const char *kv)
{
    const char *eq = strchr(kv, '=');
    int rc = dp_buf_add(b, kv, (size_t)(eq - kv + 1));

    if (!rc)
        rc = dp_shell_quote(b, eq + 1);
    return rc ? rc : dp_buf_add(b, " ", 1);
}

/* The script is kept short and POSIX: it runs under dash, busybox or bash.
 *  s  lists the job's live processes: everything whose environment holds
 *     the marker (zombies have none; processes that left the session for
 *     one of their own still do);
 *  k  signals them and their process groups (which reaches members that
 *     replaced their environment);
 *  g  waits, at least 0.3 s (a job just forked may not carry the marker
 *     until its exec) and at most the grace, while any is left.
 * The job runs in the foreground: a background job of a non-interactive
 * sh would start with SIGINT ignored, and Ctrl-C must reach it. The
 * watcher reads signal names from ssh's stdin (kept on fd 3; the job gets
 * /dev/null) and ends the job when stdin closes. */
static const char wrap_body[] =
    "s() { grep -lzxF \"$m\" /proc/[0-9]*/environ 2>/dev/null | "
    "sed 's|^/proc/||;s|/environ$||'; }\n"
    "k() { for q in $(s); do kill -s \"$1\" -- \"$q\" \"-$q\" 2>/dev/null; "
    "done; }\n"
    "g() { n=0; while [ \"$n\" -lt 3 ] || { [ \"$n\" -lt \"$G\" ] && "
    "[ -n \"$(s)\" ]; }; do sleep 0.1; n=$((n+1)); done; }\n"
    "S=setsid; command -v setsid >/dev/null 2>&1 || S=\n"
    "exec 3<&0 </dev/null\n"
    "(while read -r x <&3; do case $x in INT|TERM|HUP|KILL) k \"$x\";; "
    "esac; done; k TERM; g; k KILL) &\n"
    "w=$!\n"
    "printf '\\037dglpart-start %d\\n' $$ >&2\n";

static const char wrap_tail[] =
    " $S \"${SHELL:-/bin/sh}\" -c \"$c\" 3<&-\n"
    "r=$?\n"
    "if [ -n \"$(s)\" ]; then k TERM; g; k KILL; fi\n"
    "kill \"$w\" 2>/dev/null\n"
    "printf '\\037dglpart-exit %d\\n' \"$r\" >&2\n"
    "exit \"$r\"\n";

int dp_launch_wrapper(struct dp_buf *b, const struct dp_wrap *w)
{
    struct dp_buf m;
    int i, rc = 0;

    if (w->workspace) {
        rc = dp_buf_adds(b, "cd -- ");
        if (!rc)
            rc = dp_shell_quote(b, w->workspace);
        if (!rc)
            rc =
                dp_buf_adds(b, " || { echo \"dglpart: cannot enter the "
                               "workspace on $(hostname)\" >&2; printf "
                               "'\\037dglpart-exit 127\\n' >&2; exit 127; }\n");
    }
    dp_buf_init(&m, 4096);
    if (!rc)
        rc = dp_buf_addf(&m, "DGLPART_JOB=%s", w->marker);
    if (!rc)
        rc = dp_buf_adds(b, "m=");
    if (!rc)
        rc = dp_shell_quote(b, m.data);
    dp_buf_release(&m);
    if (!rc)
        rc = dp_buf_addf(b, "\nG=%d\nc=", w->grace_tenths);
    if (!rc)
        rc = dp_shell_quote(b, w->command);
    if (!rc)
        rc = dp_buf_adds(b, "\n");
    if (!rc)
        rc = dp_buf_adds(b, wrap_body);
    for (i = 0; !rc && w->extra && i < w->extra->n; i++)
        rc = add_expanding(b, w->extra->kv[i]);
    for (i = 0; !rc && w->env && i < w->env->n; i++)
        rc = add_literal(b, w->env->kv[i]);
    if (!rc)
        rc = dp_buf_adds(b, "DGLPART_JOB=");
    if (!rc)
        rc = dp_shell_quote(b, w->marker);
    if (!rc)
        rc = dp_buf_adds(b, wrap_tail);
    return rc;
}

void dp_lines_feed(struct dp_lines *l, const char *p, size_t n,
                   void (*fn)(void *arg, const char *line, size_t len),
                   void *arg)
{
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;

        if (l->len + take > sizeof(l->buf)) {
            /* An overlong line goes out in buffer-sized pieces. */
            size_t room = sizeof(l->buf) - l->len;

            memcpy(l->buf + l->len, p, room);
            fn(arg, l->buf, sizeof(l->buf));
            l->len = 0;
            p += room;
            n -= room;
            continue;
        }
        memcpy(l->buf + l->len, p, take);
        l->len += take;
        p += take;
        n -= take;
        if (nl) {
            fn(arg, l->buf, l->len);
            l->len = 0;
            p++;
            n--;
        }
    }
}

void dp_lines_flush(struct dp_lines *l,
                    void (*fn)(void *arg, const char *line, size_t len),
                    void *arg)
{
    if (l->len)
        fn(arg, l->buf, l->len);
    l->len = 0;
}
