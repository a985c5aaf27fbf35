/* dglpart copy: every host gets ip_config.txt, the relocated config, its own
 * parts and the script folder, as one tar stream over one ssh connection,
 * unpacked into a temporary folder and moved into place when complete.
 * A first short connection reads the remote MANIFESTs so unchanged units
 * are not sent again. With --nfs everything is written once. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/copy.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/ipconfig.h"
#include "dglpart/progress.h"
#include "dglpart/run_command.h"
#include "dglpart/shell.h"

#define OUT_MAX (8u << 20)
/* ssh's note on a first connection to a host (StrictHostKeyChecking=
 * accept-new): noise, never the reason a command failed. */
#define SSH_NEW_HOST_NOTE "Warning: Permanently added"

enum { U_DIR, U_FILE };

/* A piece of the workspace replaced as a whole: a part folder, the config,
 * ip_config.txt or the script folder. */
struct unit {
    int kind;
    char *dst;           /* path relative to the workspace (owned) */
    char tag[16];        /* its name in the tar stream: "u<k>" */
    int first, last;     /* its entries in job->tar: [first, last) */
    struct dp_items man; /* part units: the files the MANIFEST lists */
    int has_manifest;
    int need;
};

enum { J_WAIT, J_CHECK, J_SEND, J_VERIFY, J_DONE };

struct job {
    char *host;      /* ssh destination, or NULL to run locally */
    char label[300]; /* what the table shows */
    char id[64];     /* names the remote temporary folder */
    int nparts;
    int *parts; /* owned */
    int nunits;
    struct unit *units; /* owned */
    struct dp_items tar;
    volatile uint64_t sent;
    uint64_t total;
    volatile int state;
    int failed;
    double secs;
    char status[600];
};

struct run {
    const struct dp_copy_opts *o;
    struct dp_ssh ssh;
    struct dp_part_config cfg; /* read once, for every part */
    int cfg_ok;
    char *config_text; /* the relocated config */
    size_t config_len;
    char *config_dst; /* <rel>/<name>.json */
    char *script_src; /* resolved script folder, or NULL */
    char *script_dst;
    int njobs;
    struct job *jobs;
    int next; /* next job to start */
    pthread_mutex_t lock;
};

static int bad_rel(const char *p)
{
    const char *s = p;

    if (!*p || *p == '/')
        return 1;
    while (*s) {
        size_t n = strcspn(s, "/");

        if ((n == 2 && !strncmp(s, "..", 2)) || strchr(s, '\n'))
            return 1;
        s += n;
        while (*s == '/')
            s++;
    }
    return 0;
}

/* ---- running a command with stdin from us and output into memory ---- */

struct proc {
    pid_t pid;
    int in;       /* write end of its stdin, or -1 */
    int out, err; /* memfds */
};

static int proc_start(struct proc *p, const struct run *r, const char *host,
                      const char *remote)
{
    char **argv = NULL;
    char *local[] = { "sh", "-c", (char *)remote, NULL };
    struct dp_child c = DP_CHILD_INIT;
    int rc;

    p->pid = -1;
    p->in = -1;
    p->out = memfd_create("copy-out", MFD_CLOEXEC);
    p->err = memfd_create("copy-err", MFD_CLOEXEC);
    if (p->out < 0 || p->err < 0) {
        rc = dp_error(DP_EIO, "cannot start a command: %s", strerror(errno));
        goto fail;
    }
    if (host && !(argv = dp_ssh_argv(&r->ssh, host, remote))) {
        rc = DP_ENOMEM;
        goto fail;
    }
    c.argv = host ? argv : local;
    c.in = DP_CHILD_PIPE;
    c.out = p->out;
    c.err = p->err;
    rc = dp_child_start(&c);
    dp_argv_free(argv);
    if (rc)
        goto fail;
    p->pid = c.pid;
    p->in = c.in;
    /* a 1 MiB pipe wakes ssh less often: one host's transfer of rmat21's
     * largest part takes 2.0 s instead of 2.2 s; best effort */
    (void)fcntl(p->in, F_SETPIPE_SZ, 1 << 20);
    return 0;
fail:
    if (p->out >= 0)
        close(p->out);
    if (p->err >= 0)
        close(p->err);
    p->out = p->err = -1;
    return rc;
}

static char *slurp(int fd)
{
    struct stat st;
    size_t n;
    char *s;
    ssize_t got = 0;

    if (fstat(fd, &st) != 0)
        return NULL;
    n = (size_t)st.st_size > OUT_MAX ? OUT_MAX : (size_t)st.st_size;
    if (!(s = dp_malloc(n + 1)))
        return NULL;
    if (n)
        got = pread(fd, s, n, 0);
    s[got > 0 ? got : 0] = '\0';
    return s;
}

/* How well a stderr line explains a failure: tar's cause beats ssh's
 * connection messages, which beat noise from login scripts. */
static int line_score(const char *l)
{
    static const char *const net[] = {
        "ssh:",     "Connection ", "client_loop",        "Permission denied",
        "Host key", "kex_",        "Received disconnect"
    };
    size_t i;

    if (!strncmp(l, "tar: ", 5))
        return strstr(l, "Exiting with failure") ? 2 : 4;
    for (i = 0; i < sizeof(net) / sizeof(net[0]); i++)
        if (strstr(l, net[i]))
            return 3;
    return 1;
}

/* Wait for it; *out gets its stdout (caller frees). On failure the error
 * carries its most telling stderr line. */
static int proc_finish(struct proc *p, const char *host, char **out)
{
    int status = 0, rc = 0;
    char *err = NULL, *line, *best = NULL, *save = NULL;
    int best_score = 0;

    if (p->in >= 0)
        close(p->in);
    p->in = -1;
    {
        struct dp_child c = DP_CHILD_INIT;
        char *name[] = { host ? "ssh" : "sh", NULL };

        c.argv = name;
        c.pid = p->pid;
        if (dp_child_wait(&c, &status))
            status = -1;
    }
    err = slurp(p->err);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        for (line = err ? strtok_r(err, "\n", &save) : NULL; line;
             line = strtok_r(NULL, "\n", &save)) {
            int sc;

            line[strcspn(line, "\r")] = '\0';
            if (!*line ||
                !strncmp(line, SSH_NEW_HOST_NOTE, strlen(SSH_NEW_HOST_NOTE)))
                continue;
            if ((sc = line_score(line)) > best_score) {
                best = line;
                best_score = sc;
            }
        }
        if (WIFSIGNALED(status))
            rc = dp_error(DP_EREMOTE, "%s killed by signal %d",
                          host ? "ssh" : "sh", WTERMSIG(status));
        else if (best)
            rc = dp_error(DP_EREMOTE, "%s", best);
        else
            rc = dp_error(DP_EREMOTE, "%s exited with status %d",
                          host ? "ssh" : "remote shell", WEXITSTATUS(status));
    } else if (out && !(*out = slurp(p->out))) {
        rc = dp_error(DP_ENOMEM, "out of memory");
    }
    free(err);
    close(p->out);
    close(p->err);
    p->out = p->err = -1;
    return rc;
}

/* ---- remote scripts: every path is single-quoted ---- */

/* "$ws"/'rel/name' (just rel when name is empty). */
static int add_path(struct dp_buf *b, const char *rel, const char *name)
{
    char *p = *name ? dp_path_join(rel, name) : dp_strdup(rel);
    int rc;

    if (!p)
        return DP_ENOMEM;
    rc = dp_buf_adds(b, "\"$ws\"/");
    if (!rc)
        rc = dp_shell_quote(b, p);
    free(p);
    return rc;
}

static const char *item_rel(const struct unit *u, const struct dp_item *it)
{
    size_t n = strlen(u->tag);

    return it->name[n] == '/' ? it->name + n + 1 : it->name + n;
}

/* Prints "@<k>" then per unit: the remote MANIFEST (cheap), or with deep
 * one sha256 line ("-" when missing) per file. */
static int status_script(const struct run *r, const struct job *j, int deep,
                         struct dp_buf *b)
{
    int k, i, rc = dp_buf_adds(b, "ws=");

    if (!rc)
        rc = dp_shell_quote(b, r->o->workspace);
    if (!rc)
        rc = dp_buf_adds(b, "\nh() { if [ -f \"$1\" ]; then sha256sum <\"$1\";"
                            " else echo -; fi; }\n"
                            /* cat in sh builtins: tar, mkdir, mv, rm and
                             * sha256sum are all the remote needs. */
                            "m() { [ -f \"$1\" ] && while IFS= read -r l ||"
                            " [ -n \"$l\" ]; do printf '%s\\n' \"$l\"; done"
                            " <\"$1\"; echo; }\n");
    for (k = 0; k < j->nunits && !rc; k++) {
        const struct unit *u = &j->units[k];

        rc = dp_buf_addf(b, "echo @%d\n", k);
        if (!rc && u->has_manifest) {
            rc = dp_buf_adds(b, "m ");
            if (!rc)
                rc = add_path(b, u->dst, "MANIFEST");
            if (!rc)
                rc = dp_buf_adds(b, "\n");
            /* A file deleted behind the MANIFEST's back shows as a line
             * the MANIFEST cannot match. */
            for (i = 0; i < u->man.count && !rc; i++) {
                rc = dp_buf_adds(b, "[ -f ");
                if (!rc)
                    rc = add_path(b, u->dst, u->man.v[i].name);
                if (!rc)
                    rc = dp_buf_adds(b, " ] || echo '!missing'\n");
            }
            if (!deep)
                continue;
            if (!rc)
                rc = dp_buf_addf(b, "echo @%d.files\n", k);
            for (i = 0; i < u->man.count && !rc; i++) {
                rc = dp_buf_adds(b, "h ");
                if (!rc)
                    rc = add_path(b, u->dst, u->man.v[i].name);
                if (!rc)
                    rc = dp_buf_adds(b, "\n");
            }
            continue;
        }
        if (u->kind == U_DIR) {
            /* Even an empty folder must exist. */
            rc = dp_buf_adds(b, "if [ -d ");
            if (!rc)
                rc = add_path(b, u->dst, "");
            if (!rc)
                rc = dp_buf_adds(b, " ]; then echo d; else echo -; fi\n");
        }
        for (i = u->first; i < u->last && !rc; i++) {
            if (j->tar.v[i].is_dir)
                continue;
            rc = dp_buf_adds(b, "h ");
            if (!rc)
                rc = add_path(b, u->dst, item_rel(u, &j->tar.v[i]));
            if (!rc)
                rc = dp_buf_adds(b, "\n");
        }
    }
    return rc ? rc : dp_buf_adds(b, "echo @end\n");
}

/* Next line of s (advances *s); NULL at the end. Modifies s. */
static char *next_line(char **s)
{
    char *l = *s, *nl;

    if (!*l)
        return NULL;
    nl = strchr(l, '\n');
    if (nl) {
        *nl = '\0';
        *s = nl + 1;
    } else {
        *s = l + strlen(l);
    }
    return l;
}

static int sha_line_is(const char *line, const char *sha)
{
    return line && strlen(line) >= 64 && !memcmp(line, sha, 64);
}

/* Mark the units whose remote copy differs. Returns how many differ, or
 * -1 when the output is not a complete answer. */
static int compare(struct job *j, char *out, int deep, char *first_bad,
                   size_t badlen)
{
    char *s = out, *line = next_line(&s);
    int k, i, differ = 0;

    first_bad[0] = '\0';
    for (k = 0; k < j->nunits; k++) {
        struct unit *u = &j->units[k];
        char tag[32];
        int ok = 1;

        snprintf(tag, sizeof(tag), "@%d", k);
        if (!line || strcmp(line, tag))
            return -1;
        if (u->has_manifest) {
            struct dp_buf m;

            dp_buf_init(&m, 0);
            snprintf(tag, sizeof(tag), "@%d.files", k);
            while ((line = next_line(&s)) && line[0] != '@')
                if (dp_buf_adds(&m, line) || dp_buf_adds(&m, "\n")) {
                    dp_buf_release(&m);
                    return -1;
                }
            ok = dp_manifest_matches(&u->man, m.data ? m.data : "");
            dp_buf_release(&m);
            if (!ok && !first_bad[0])
                snprintf(first_bad, badlen, "%s/MANIFEST", u->dst);
            if (deep) {
                if (!line || strcmp(line, tag))
                    return -1;
                for (i = 0; i < u->man.count; i++) {
                    line = next_line(&s);
                    if (!sha_line_is(line, u->man.v[i].sha)) {
                        if (ok)
                            snprintf(first_bad, badlen, "%s/%s", u->dst,
                                     u->man.v[i].name);
                        ok = 0;
                    }
                }
                line = next_line(&s);
            }
        } else {
            if (u->kind == U_DIR) {
                line = next_line(&s);
                if (!line || line[0] == '@')
                    return -1;
                if (strcmp(line, "d")) {
                    if (!first_bad[0])
                        snprintf(first_bad, badlen, "%s", u->dst);
                    ok = 0;
                }
            }
            for (i = u->first; i < u->last; i++) {
                const struct dp_item *it = &j->tar.v[i];

                if (it->is_dir)
                    continue;
                line = next_line(&s);
                if (!line || line[0] == '@')
                    return -1;
                if (!sha_line_is(line, it->sha)) {
                    if (ok && !first_bad[0]) {
                        const char *rel = item_rel(u, it);

                        snprintf(first_bad, badlen, "%s%s%s", u->dst,
                                 *rel ? "/" : "", rel);
                    }
                    ok = 0;
                }
            }
            line = next_line(&s);
        }
        u->need = !ok;
        differ += !ok;
    }
    return line && !strcmp(line, "@end") ? differ : -1;
}

static int remote_state(const struct run *r, struct job *j, int deep,
                        char **out)
{
    struct dp_buf b;
    struct proc p;
    int rc;

    dp_buf_init(&b, 0);
    if ((rc = status_script(r, j, deep, &b)))
        goto out;
    if ((rc = proc_start(&p, r, j->host, "sh -s")))
        goto out;
    /* An early failure (unreachable host) shows in proc_finish. */
    (void)dp_write_all(p.in, b.data, b.len);
    rc = proc_finish(&p, j->host, out);
out:
    dp_buf_release(&b);
    return rc;
}

static int transfer_script(const struct run *r, const struct job *j,
                           struct dp_buf *b)
{
    int k, rc = dp_buf_adds(b, "set -e; umask 022; ws=");

    if (!rc)
        rc = dp_shell_quote(b, r->o->workspace);
    if (!rc)
        rc = dp_buf_adds(b, "; t=\"$ws\"/");
    if (!rc)
        rc = dp_shell_quote(b, j->id);
    if (!rc)
        rc = dp_buf_adds(b, "; rm -rf -- \"$t\"; mkdir -p -- \"$t\"; "
                            "trap 'rm -rf -- \"$t\"' EXIT; "
                            "tar -x -f - -C \"$t\"");
    for (k = 0; k < j->nunits && !rc; k++) {
        const struct unit *u = &j->units[k];
        char *parent;

        if (!u->need)
            continue;
        if (!(parent = dp_path_dirname(u->dst)))
            return DP_ENOMEM;
        rc = dp_buf_adds(b, "; mkdir -p -- ");
        if (!rc)
            rc = add_path(b, parent, "");
        free(parent);
        if (!rc && u->kind == U_DIR) {
            /* A folder cannot be renamed over a full one: move it aside
             * into the temporary folder, removed at exit. */
            rc = dp_buf_adds(b, "; if [ -e ");
            if (!rc)
                rc = add_path(b, u->dst, "");
            if (!rc)
                rc = dp_buf_adds(b, " ] || [ -L ");
            if (!rc)
                rc = add_path(b, u->dst, "");
            if (!rc)
                rc = dp_buf_adds(b, " ]; then mv -- ");
            if (!rc)
                rc = add_path(b, u->dst, "");
            if (!rc)
                rc = dp_buf_addf(b, " \"$t\"/old%d; fi", k);
        }
        if (!rc)
            rc = dp_buf_addf(b, "; mv -f -- \"$t\"/%s ", u->tag);
        if (!rc)
            rc = add_path(b, u->dst, "");
    }
    return rc ? rc : dp_buf_adds(b, "; echo @done");
}

static int send_units(const struct run *r, struct job *j)
{
    struct dp_items l = { 0, 0, NULL };
    struct dp_buf b;
    struct proc p;
    char *out = NULL, tmsg[512];
    int k, rc, trc;

    dp_buf_init(&b, 0);
    /* The stream holds only the units that differ (borrowed entries). */
    for (k = 0; k < j->nunits; k++) {
        const struct unit *u = &j->units[k];
        int i;

        if (!u->need)
            continue;
        for (i = u->first; i < u->last; i++) {
            if ((rc = DP_ALLOC_GROW(l.v, l.count + 1, l.cap)))
                goto out;
            l.v[l.count++] = j->tar.v[i];
            j->total += j->tar.v[i].size;
        }
    }
    if ((rc = transfer_script(r, j, &b)))
        goto out;
    if ((rc = proc_start(&p, r, j->host, b.data)))
        goto out;
    j->state = J_SEND;
    trc = dp_tar_write(p.in, &l, &j->sent, r->o->limit_rate, NULL);
    if (trc)
        snprintf(tmsg, sizeof(tmsg), "%s", dp_errmsg());
    /* Closing the stream early leaves the remote tar with a truncated
     * archive: it fails and nothing is moved into place. */
    rc = proc_finish(&p, j->host, &out);
    /* The remote's reason (disk full, killed) explains a broken pipe; a
     * local read error explains itself. */
    if (trc && (!rc || strncmp(tmsg, "sending", 7)))
        rc = dp_error(trc, "%s", tmsg);
    else if (!rc && (!out || !strstr(out, "@done")))
        rc = dp_error(DP_EREMOTE, "the remote side stopped early");
out:
    free(out);
    free(l.v); /* entries are borrowed from j->tar */
    dp_buf_release(&b);
    return rc;
}

/* ---- building each job's units ---- */

static struct unit *new_unit(struct job *j, int kind, const char *dst)
{
    struct unit *v =
        dp_realloc_array(j->units, (size_t)j->nunits + 1, sizeof(*v));
    struct unit *u;

    if (!v)
        return NULL;
    j->units = v;
    u = &v[j->nunits];
    memset(u, 0, sizeof(*u));
    u->kind = kind;
    snprintf(u->tag, sizeof(u->tag), "u%d", j->nunits);
    if (!(u->dst = dp_strdup(dst)))
        return NULL;
    j->nunits++;
    u->first = u->last = j->tar.count;
    return u;
}

static int build_units(const struct run *r, struct job *j)
{
    const struct dp_copy_opts *o = r->o;
    struct unit *u;
    char name[64];
    int i, rc = 0;

    for (i = 0; i < j->nparts && !rc; i++) {
        char *dst;

        snprintf(name, sizeof(name), "part%d", j->parts[i]);
        if (!(dst = dp_path_join(o->rel_data_path, name)))
            return DP_ENOMEM;
        u = new_unit(j, U_DIR, dst);
        free(dst);
        if (!u)
            return DP_ENOMEM;
        u->has_manifest = 1;
        if (o->dry_run) {
            rc = dp_part_items(&r->cfg, j->parts[i], &u->man);
            for (int f = 0; !rc && f < u->man.count; f++)
                j->total += u->man.v[f].size;
        } else {
            rc = dp_part_unit(&r->cfg, j->parts[i], u->tag, &u->man, &j->tar);
        }
        u->last = j->tar.count;
    }
    if (!rc && (u = new_unit(j, U_FILE, r->config_dst))) {
        rc = dp_items_add_data(&j->tar, u->tag, r->config_text, r->config_len);
        u->last = j->tar.count;
    } else if (!rc) {
        rc = DP_ENOMEM;
    }
    if (!rc && (u = new_unit(j, U_FILE, "ip_config.txt"))) {
        if (!(rc = dp_items_add_file(&j->tar, u->tag, o->ip_config)) &&
            !o->dry_run)
            rc = dp_items_hash(&j->tar, NULL);
        u->last = j->tar.count;
    } else if (!rc) {
        rc = DP_ENOMEM;
    }
    if (!rc && r->script_src) {
        if (!(u = new_unit(j, U_DIR, r->script_dst)))
            return DP_ENOMEM;
        rc = dp_items_add_tree(&j->tar, u->tag, r->script_src);
        if (!rc && !o->dry_run)
            rc = dp_items_hash(&j->tar, NULL);
        u->last = j->tar.count;
    }
    return rc;
}

static void job_fail(struct job *j, const char *what)
{
    j->failed = 1;
    snprintf(j->status, sizeof(j->status), "failed: %s%s", what, dp_errmsg());
}

static void run_job(struct run *r, struct job *j)
{
    const struct dp_copy_opts *o = r->o;
    char *out = NULL, bad[512];
    double t0 = dp_now();
    int differ, k;

    j->state = J_CHECK;
    if (build_units(r, j)) {
        job_fail(j, "");
        goto out;
    }
    if (o->dry_run) {
        snprintf(j->status, sizeof(j->status), "dry run");
        goto out;
    }
    if (remote_state(r, j, o->verify, &out)) {
        job_fail(j, "");
        goto out;
    }
    differ = compare(j, out, o->verify, bad, sizeof(bad));
    free(out);
    out = NULL;
    if (differ < 0) {
        dp_error(DP_EPROTO, "unexpected answer to the status check (is "
                            "sha256sum installed?)");
        job_fail(j, "");
        goto out;
    }
    if (differ == 0) {
        snprintf(j->status, sizeof(j->status), "unchanged%s",
                 o->verify ? ", verified" : "");
        goto out;
    }
    if (send_units(r, j)) {
        job_fail(j, "");
        goto out;
    }
    if (o->verify) {
        j->state = J_VERIFY;
        if (remote_state(r, j, 1, &out)) {
            job_fail(j, "verify: ");
            goto out;
        }
        for (k = 0; k < j->nunits; k++)
            j->units[k].need = 0;
        differ = compare(j, out, 1, bad, sizeof(bad));
        if (differ != 0) {
            dp_error(DP_ECHECKSUM, "'%s' differs from what was sent",
                     differ < 0 ? "the answer" : bad);
            job_fail(j, "verify: ");
            goto out;
        }
    }
    snprintf(j->status, sizeof(j->status), "sent%s",
             o->verify ? ", verified" : "");
out:
    free(out);
    j->secs = dp_now() - t0;
    j->state = J_DONE;
}

static void *worker(void *arg)
{
    struct run *r = arg;

    for (;;) {
        int i;

        pthread_mutex_lock(&r->lock);
        i = r->next < r->njobs ? r->next++ : -1;
        pthread_mutex_unlock(&r->lock);
        if (i < 0)
            return NULL;
        run_job(r, &r->jobs[i]);
    }
}

/* ---- progress (TTY only) and the summary ---- */

static void draw(const struct run *r, int redraw)
{
    static const char *const names[] = { "waiting", "checking", "sending",
                                         "verifying", "done" };
    int i;

    if (redraw)
        fprintf(stderr, "\033[%dA", r->njobs);
    for (i = 0; i < r->njobs; i++) {
        const struct job *j = &r->jobs[i];
        char a[32], b[32];

        dp_fmt_bytes(j->sent, a, sizeof(a));
        dp_fmt_bytes(j->total, b, sizeof(b));
        if (j->state == J_SEND && j->total) {
            double pc = 100.0 * (double)j->sent / (double)j->total;

            fprintf(stderr, "\r\033[K%-24s sending %3d%% %s / %s\n", j->label,
                    pc > 100 ? 100 : (int)pc, a, b);
        } else
            fprintf(stderr, "\r\033[K%-24s %s\n", j->label,
                    j->state == J_DONE ? j->status : names[j->state]);
    }
}

static void summary(const struct run *r)
{
    int i;

    printf("%-24s %14s %8s  %s\n", "host", "bytes", "seconds", "status");
    for (i = 0; i < r->njobs; i++) {
        const struct job *j = &r->jobs[i];

        printf("%-24s %14llu %8.2f  %s\n", j->label,
               (unsigned long long)j->sent, j->secs, j->status);
    }
}

static void dry_run_print(const struct run *r)
{
    int i, k, f;

    for (i = 0; i < r->njobs; i++) {
        const struct job *j = &r->jobs[i];
        char sz[32];

        dp_fmt_bytes(j->total, sz, sizeof(sz));
        printf("%s: %s of parts to %s\n", j->label, sz, r->o->workspace);
        for (k = 0; k < j->nunits; k++) {
            const struct unit *u = &j->units[k];

            printf("  %s/%s", r->o->workspace, u->dst);
            if (u->has_manifest) {
                printf(":");
                for (f = 0; f < u->man.count; f++)
                    printf(" %s", u->man.v[f].name);
            }
            printf("\n");
        }
    }
}

/* ---- setting up ---- */

static int add_job(struct run *r, const char *host, const char *label, int part)
{
    struct job *j = NULL;
    int i, *v;

    for (i = 0; i < r->njobs; i++)
        if (r->jobs[i].host && host ? !strcmp(r->jobs[i].host, host)
                                    : r->jobs[i].host == host)
            j = &r->jobs[i];
    if (!j) {
        struct job *nv =
            dp_realloc_array(r->jobs, (size_t)r->njobs + 1, sizeof(*nv));

        if (!nv)
            return DP_ENOMEM;
        r->jobs = nv;
        j = &nv[r->njobs++];
        memset(j, 0, sizeof(*j));
        if (host && !(j->host = dp_strdup(host)))
            return DP_ENOMEM;
        snprintf(j->label, sizeof(j->label), "%s", label);
    }
    if (part >= 0) {
        if (!(v = dp_realloc_array(j->parts, (size_t)j->nparts + 1,
                                   sizeof(*v))))
            return DP_ENOMEM;
        j->parts = v;
        v[j->nparts++] = part;
    }
    return 0;
}

static void run_release(struct run *r)
{
    int i, k;

    for (i = 0; i < r->njobs; i++) {
        struct job *j = &r->jobs[i];

        for (k = 0; k < j->nunits; k++) {
            free(j->units[k].dst);
            dp_items_release(&j->units[k].man);
        }
        free(j->units);
        dp_items_release(&j->tar);
        free(j->parts);
        free(j->host);
    }
    free(r->jobs);
    if (r->cfg_ok)
        dp_config_release(&r->cfg);
    free(r->config_text);
    free(r->config_dst);
    free(r->script_src);
    free(r->script_dst);
}

static int setup(struct run *r, const struct dp_copy_opts *o,
                 struct dp_ipconfig *ipc)
{
    struct dp_items probe = { 0, 0, NULL };
    int rc, nparts, i;
    const char *base;

    if (!o->workspace || !*o->workspace)
        return dp_error(DP_EINVAL, "--workspace is empty");
    if (!o->rel_data_path || bad_rel(o->rel_data_path))
        return dp_error(DP_EINVAL,
                        "--rel_data_path '%s' must be a relative "
                        "path without '..'",
                        o->rel_data_path);
    if ((rc = dp_ipconfig_load(ipc, o->ip_config)))
        return rc;
    /* The full check of the config (keys, maps, part entries), and the
     * text each host gets, from one read. */
    if ((rc = dp_config_load_relocated(&r->cfg, o->part_config, &r->config_text,
                                       &r->config_len)))
        return rc;
    r->cfg_ok = 1;
    nparts = r->cfg.num_parts;
    /* part 0's files are there before any host is contacted */
    rc = dp_part_items(&r->cfg, 0, &probe);
    dp_items_release(&probe);
    if (rc)
        return rc;
    if (ipc->count != nparts)
        return dp_error(DP_EINVAL,
                        "'%s' lists %d hosts but '%s' has %d "
                        "parts: part i goes to host i, so they must match",
                        o->ip_config, ipc->count, o->part_config, nparts);
    if (!(r->config_dst =
              dp_path_join(o->rel_data_path, dp_path_basename(o->part_config))))
        return DP_ENOMEM;
    if (o->script_folder) {
        char real[PATH_MAX];

        if (!realpath(o->script_folder, real) || !dp_is_dir(real))
            return dp_error(DP_ENOENT, "script folder '%s' is not a folder",
                            o->script_folder);
        base = dp_path_basename(real);
        if (!*base || bad_rel(base))
            return dp_error(DP_EINVAL,
                            "script folder '%s' has no usable "
                            "name",
                            o->script_folder);
        if (!(r->script_src = dp_strdup(real)) ||
            !(r->script_dst = dp_strdup(base)))
            return DP_ENOMEM;
    }
    if (o->nfs) {
        char label[300];

        snprintf(label, sizeof(label), "%s (nfs)",
                 o->nfs_host ? o->nfs_host : "local");
        for (i = 0; i < nparts; i++)
            if ((rc = add_job(r, o->nfs_host, label, i)))
                return rc;
        snprintf(r->jobs[0].id, sizeof(r->jobs[0].id), ".dglpart-copy-nfs");
        return 0;
    }
    for (i = 0; i < ipc->count; i++)
        if ((rc = add_job(r, ipc->hosts[i].ip, ipc->hosts[i].ip, i)))
            return rc;
    for (i = 0; i < r->njobs; i++)
        snprintf(r->jobs[i].id, sizeof(r->jobs[i].id), ".dglpart-copy-part%d",
                 r->jobs[i].parts[0]);
    return 0;
}

int dp_copy_run(const struct dp_copy_opts *o)
{
    struct run r;
    struct dp_ipconfig ipc = { 0, NULL };
    pthread_t *th = NULL;
    int rc, i, nth, nfail = 0, nsent = 0, show;
    double t0 = dp_now();
    struct dp_buf msg;

    memset(&r, 0, sizeof(r));
    dp_buf_init(&msg, 0);
    r.o = o;
    r.ssh.user = o->ssh_username;
    r.ssh.port = o->ssh_port;
    r.ssh.opts = o->ssh_opts;
    r.ssh.bulk = 1;
    pthread_mutex_init(&r.lock, NULL);
    if ((rc = setup(&r, o, &ipc)))
        goto out;
    nth = o->parallel > 0 && o->parallel < r.njobs ? o->parallel : r.njobs;
    if (!(th = dp_calloc((size_t)nth, sizeof(*th)))) {
        rc = DP_ENOMEM;
        goto out;
    }
    show = !o->dry_run && dp_progress_wanted();
    for (i = 0; i < nth; i++)
        if (pthread_create(&th[i], NULL, worker, &r) != 0) {
            /* Fewer threads still do every job. */
            nth = i;
            break;
        }
    if (nth == 0)
        worker(&r);
    if (show)
        draw(&r, 0);
    for (;;) {
        int done = 1;
        struct timespec ts = { 0, 200 * 1000 * 1000 };

        for (i = 0; i < r.njobs; i++)
            done &= r.jobs[i].state == J_DONE;
        if (done)
            break;
        nanosleep(&ts, NULL);
        if (show)
            draw(&r, 1);
    }
    for (i = 0; i < nth; i++)
        pthread_join(th[i], NULL);
    if (show)
        draw(&r, 1);
    if (o->dry_run)
        dry_run_print(&r);
    summary(&r);
    for (i = 0; i < r.njobs; i++) {
        const struct job *j = &r.jobs[i];

        if (j->failed) {
            dp_buf_addf(&msg, "%s%s (%s)", nfail ? "; " : "", j->label,
                        j->status + strlen("failed: "));
            nfail++;
        }
        nsent += j->sent > 0;
    }
    if (nfail)
        rc = dp_error(DP_EREMOTE, "%d of %d host%s failed: %s", nfail, r.njobs,
                      r.njobs == 1 ? "" : "s", msg.data ? msg.data : "");
    else if (!o->dry_run && nsent == 0)
        dp_log(DP_LOG_INFO, "nothing changed on %d host%s, nothing sent",
               r.njobs, r.njobs == 1 ? "" : "s");
    dp_timer_report("copy", t0);
out:
    free(th);
    dp_buf_release(&msg);
    dp_ipconfig_release(&ipc);
    run_release(&r);
    pthread_mutex_destroy(&r.lock);
    return rc;
}
