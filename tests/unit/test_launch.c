/* Unit tests of the launcher's pieces: the Python word and torchrun
 * rewrite, DGL's environments, the sh wrapper (run here with sh), the
 * line splitter and the kept-alive state file. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/launch.h"
#include "harness.h"

static void test_find_python(void)
{
    size_t s = 99, e = 99;

    CHECK(dp_launch_find_python("python3 train.py", &s, &e));
    CHECK_EQ(s, 0);
    CHECK_EQ(e, 7);
    CHECK(dp_launch_find_python("cd x && /usr/bin/python3.11 t.py", &s, &e));
    CHECK_EQ(s, 8);
    CHECK_EQ(e, 27);
    CHECK(dp_launch_find_python("PYTHONPATH=a  python t.py", &s, &e));
    CHECK_EQ(s, 14);
    CHECK(dp_launch_find_python("python2.7 t.py", &s, &e));
    CHECK(!dp_launch_find_python("./trainer --python3", &s, &e));
    CHECK(!dp_launch_find_python("pythonic.py", &s, &e));
    CHECK(!dp_launch_find_python("mypython t.py", &s, &e));
    CHECK(!dp_launch_find_python("python3-config --libs", &s, &e));
    CHECK(!dp_launch_find_python("python.3 x", &s, &e));
    CHECK(!dp_launch_find_python("", &s, &e));
}

static void test_torchrun(void)
{
    struct dp_torchrun t = { 4, 2, 1, "10.0.0.1", 1234 };
    char *r = dp_launch_torchrun("(cd w && python3 train.py --python3 x)", &t);

    CHECK_STR(r, "(cd w && python3 -m torch.distributed.run --nproc_per_node=4"
                 " --nnodes=2 --node_rank=1 --master_addr=10.0.0.1"
                 " --master_port=1234 train.py --python3 x)");
    free(r);
    r = dp_launch_torchrun("./trainer", &t);
    CHECK(r == NULL);
    CHECK_CONTAINS(dp_errmsg(), "no python");
}

static struct dp_launch_opts opts(void)
{
    struct dp_launch_opts o;

    dp_launch_opts_init(&o);
    o.workspace = "/ws";
    o.ip_config = "ip.txt";
    o.part_config = "data/g.json";
    o.num_trainers = 2;
    o.num_servers = 3;
    o.num_samplers = 2;
    o.graph_format = "csr,csc";
    return o;
}

static char *joined(const struct dp_env *e)
{
    struct dp_buf b;
    int i;

    dp_buf_init(&b, 0);
    for (i = 0; i < e->n; i++)
        dp_buf_addf(&b, "%s%s", i ? " " : "", e->kv[i]);
    return dp_buf_detach(&b, NULL);
}

static void test_local_rank_arg(void)
{
    char *r = dp_launch_local_rank_arg("python3 -u train.py --x 1", 2);

    CHECK_STR(r, "python3 -u train.py --local_rank=2 --x 1");
    free(r);
    r = dp_launch_local_rank_arg("cd w && python3 -m pkg.train -v", 0);
    CHECK_STR(r, "cd w && python3 -m pkg.train --local_rank=0 -v");
    free(r);
    r = dp_launch_local_rank_arg("python3.11 t.py", 7);
    CHECK_STR(r, "python3.11 t.py --local_rank=7");
    free(r);
    CHECK(dp_launch_local_rank_arg("python3 -u", 0) == NULL);
    CHECK(dp_launch_local_rank_arg("./trainer", 0) == NULL);
}

static void test_worker_env(void)
{
    struct dp_env e = { 0, NULL };

    /* node 1 of 3, worker 2 of 4: torchrun's static-rendezvous numbers */
    CHECK_EQ(dp_launch_worker_env(&e, 3, 4, 1, 2, "10.0.0.1", 29500), 0);
    CHECK_STR(dp_env_get(&e, "RANK"), "6");
    CHECK_STR(dp_env_get(&e, "LOCAL_RANK"), "2");
    CHECK_STR(dp_env_get(&e, "WORLD_SIZE"), "12");
    CHECK_STR(dp_env_get(&e, "LOCAL_WORLD_SIZE"), "4");
    CHECK_STR(dp_env_get(&e, "GROUP_RANK"), "1");
    CHECK_STR(dp_env_get(&e, "GROUP_WORLD_SIZE"), "3");
    CHECK_STR(dp_env_get(&e, "ROLE_RANK"), "6");
    CHECK_STR(dp_env_get(&e, "ROLE_WORLD_SIZE"), "12");
    CHECK_STR(dp_env_get(&e, "MASTER_ADDR"), "10.0.0.1");
    CHECK_STR(dp_env_get(&e, "MASTER_PORT"), "29500");
    CHECK_STR(dp_env_get(&e, "TORCHELASTIC_USE_AGENT_STORE"), "False");
    dp_env_release(&e);
}

static void test_envs(void)
{
    struct dp_launch_opts o = opts();
    struct dp_env e = { 0, NULL };
    char *s;

    unsetenv("PYTHONPATH");
    CHECK_EQ(dp_launch_server_env(&e, &o, 4, 7), 0);
    s = joined(&e);
    CHECK_STR(s, "DGL_ROLE=server DGL_NUM_SAMPLER=2 OMP_NUM_THREADS=1 "
                 "DGL_NUM_CLIENT=24 DGL_CONF_PATH=data/g.json "
                 "DGL_IP_CONFIG=ip.txt DGL_NUM_SERVER=3 "
                 "DGL_GRAPH_FORMAT=csr,csc DGL_SERVER_ID=7");
    free(s);
    dp_env_release(&e);
    o.keep_alive = 1;
    setenv("PYTHONPATH", "/py", 1);
    CHECK_EQ(dp_launch_server_env(&e, &o, 1, 0), 0);
    CHECK_STR(dp_env_get(&e, "DGL_KEEP_ALIVE"), "1");
    CHECK_STR(dp_env_get(&e, "PYTHONPATH"), "/py");
    CHECK_STR(dp_env_get(&e, "DGL_NUM_CLIENT"), "6");
    CHECK(dp_env_get(&e, "DGL_GROUP_ID") == NULL);
    dp_env_release(&e);
    unsetenv("PYTHONPATH");
    CHECK_EQ(dp_launch_client_env(&e, &o, 4, 5, 3), 0);
    s = joined(&e);
    CHECK_STR(s, "DGL_DIST_MODE=distributed DGL_ROLE=client DGL_NUM_SAMPLER=2"
                 " DGL_NUM_CLIENT=24 DGL_CONF_PATH=data/g.json "
                 "DGL_IP_CONFIG=ip.txt DGL_NUM_SERVER=3 "
                 "DGL_GRAPH_FORMAT=csr,csc OMP_NUM_THREADS=5 DGL_GROUP_ID=3");
    free(s);
    dp_env_release(&e);
    CHECK_EQ(dp_launch_check_env("A_1=x y"), 0);
    CHECK_EQ(dp_launch_check_env("_=1"), 0);
    CHECK(dp_launch_check_env("1A=x") != 0);
    CHECK(dp_launch_check_env("A-B=x") != 0);
    CHECK(dp_launch_check_env("NOEQ") != 0);
}

struct run {
    int status;
    char out[4096];
    double seconds; /* from the job's "started" (or the start) to its end */
};

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run the wrapper of command with sh; write input to its stdin after
 * delay seconds, then close it when close_in. */
/* The job's marker, this process's own: the wrapper signals every process
 * that carries it, and two suites run at once (make check beside make
 * check SAN=1) killed each other's jobs under a shared one. */
static const char *job_marker(void)
{
    static char m[64];

    if (!m[0])
        snprintf(m, sizeof(m), "unit.test.%ld", (long)getpid());
    return m;
}

static void run_wrapper(const char *command, const char *input, double delay,
                        int close_in, struct run *r)
{
    struct dp_env env = { 0, NULL }, extra = { 0, NULL };
    struct dp_wrap w = { NULL, &extra, &env, job_marker(), command, 5 };
    struct dp_buf b;
    int in[2] = { -1, -1 }, out[2] = { -1, -1 };
    size_t len = 0;
    double t0 = now();
    pid_t pid;

    r->out[0] = '\0';
    r->status = -1;
    r->seconds = -1;
    dp_env_addf(&env, "DGL_ROLE", "it's");
    dp_env_addf(&extra, "EXTRA", "$HOME/x");
    dp_buf_init(&b, 0);
    CHECK_EQ(dp_launch_wrapper(&b, &w), 0);
    if (pipe(in) || pipe(out)) {
        TH_FAIL("pipe: %s", strerror(errno));
        goto out;
    }
    pid = fork();
    if (pid < 0) {
        TH_FAIL("fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        /* as under sshd: a suite started in the background (sh's &)
         * would hand the job SIGINT ignored, and INT could not stop it */
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        close(in[1]);
        close(out[0]);
        execl("/bin/sh", "sh", "-c", b.data, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    in[0] = out[1] = -1;
    /* a signal sent before the job runs finds no process to reach: wait
     * (60 s at most, for loaded machines) for the job to say it started */
    if (strstr(command, "echo started")) {
        while (!strstr(r->out, "started\n") && now() - t0 < 60) {
            struct pollfd pf = { out[0], POLLIN, 0 };
            ssize_t n;

            if (poll(&pf, 1, 100) <= 0)
                continue;
            n = read(out[0], r->out + len, sizeof(r->out) - 1 - len);
            if (n <= 0)
                break;
            len += (size_t)n;
            r->out[len] = '\0';
        }
        if (!strstr(r->out, "started\n"))
            TH_FAIL("the job did not start: '%s'", r->out);
        t0 = now();
    }
    if (delay > 0) {
        struct timespec ts = { (time_t)delay,
                               (long)((delay - (int)delay) * 1e9) };
        nanosleep(&ts, NULL);
    }
    if (input && write(in[1], input, strlen(input)) < 0)
        TH_FAIL("write");
    if (close_in) {
        close(in[1]);
        in[1] = -1;
    }
    for (;;) {
        ssize_t n = read(out[0], r->out + len, sizeof(r->out) - 1 - len);

        if (n <= 0)
            break;
        len += (size_t)n;
    }
    r->out[len] = '\0';
    waitpid(pid, &r->status, 0);
    r->seconds = now() - t0;
out:
    for (len = 0; len < 2; len++) {
        if (in[len] >= 0)
            close(in[len]);
        if (out[len] >= 0)
            close(out[len]);
    }
    dp_buf_release(&b);
    dp_env_release(&env);
    dp_env_release(&extra);
}

static void test_wrapper(void)
{
    struct run r;
    char want[256];

    /* A command that ends: its output, markers and exit code. */
    run_wrapper("echo \"role=$DGL_ROLE extra=$EXTRA\"; echo oops >&2; exit 3",
                NULL, 0, 0, &r);
    snprintf(want, sizeof(want), "role=it's extra=%s/x", getenv("HOME"));
    CHECK_CONTAINS(r.out, want);
    CHECK_CONTAINS(r.out, "oops");
    CHECK_CONTAINS(r.out, DP_LAUNCH_TOKEN_START);
    CHECK_CONTAINS(r.out, DP_LAUNCH_TOKEN_EXIT "3\n");
    CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3);
    /* The marker is in the job's environment, not the wrapper's only. */
    run_wrapper("echo \"job=$DGLPART_JOB\"", NULL, 0, 0, &r);
    snprintf(want, sizeof(want), "job=%s", job_marker());
    CHECK_CONTAINS(r.out, want);
    /* stdin closes (the ssh connection went): the job is killed, even a
     * child that ignores TERM, after the grace (0.5 s here). Jobs that
     * would run 150 s: ending within 60 s, however loaded the machine,
     * shows they were stopped. */
    run_wrapper("trap '' TERM; sleep 150 & echo started; sleep 150", NULL, 0.3,
                1, &r);
    CHECK(r.seconds >= 0 && r.seconds < 60);
    CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) >= 128);
    /* A forwarded signal name. */
    run_wrapper("echo started; sleep 150", "INT\n", 0.3, 0, &r);
    CHECK(r.seconds >= 0 && r.seconds < 60);
    CHECK_CONTAINS(r.out, DP_LAUNCH_TOKEN_EXIT "130\n");
    run_wrapper("echo started; sleep 150", "bogus\nKILL\n", 0.3, 0, &r);
    CHECK_CONTAINS(r.out, DP_LAUNCH_TOKEN_EXIT "137\n");
    CHECK(r.seconds >= 0 && r.seconds < 60);
}

struct collected {
    char buf[20000];
    size_t len;
    int lines;
};

static void collect(void *arg, const char *line, size_t len)
{
    struct collected *c = arg;

    memcpy(c->buf + c->len, line, len);
    c->len += len;
    c->buf[c->len++] = '|';
    c->buf[c->len] = '\0';
    c->lines++;
}

static void test_lines(void)
{
    static struct dp_lines l;
    static struct collected c;
    static char big[9000];

    dp_lines_feed(&l, "ab", 2, collect, &c);
    dp_lines_feed(&l, "c\nd\n\ne", 6, collect, &c);
    CHECK_STR(c.buf, "abc|d||");
    dp_lines_flush(&l, collect, &c);
    CHECK_STR(c.buf, "abc|d||e|");
    dp_lines_flush(&l, collect, &c);
    CHECK_EQ(c.lines, 4);
    memset(&c, 0, sizeof(c));
    memset(big, 'x', sizeof(big));
    big[sizeof(big) - 1] = '\n';
    dp_lines_feed(&l, big, sizeof(big), collect, &c);
    CHECK_EQ(c.lines, 2);
    CHECK_EQ(c.len, sizeof(big) - 1 + 2);
}

static void test_keep_state(void)
{
    struct dp_keep_state s, t;
    struct dp_buf b;
    char *d;

    memset(&s, 0, sizeof(s));
    s.pid = 4242;
    s.next_group = 3;
    s.num_servers = 2;
    s.num_hosts = 2;
    snprintf(s.hosts, sizeof(s.hosts), "10.0.0.1,10.0.0.2");
    snprintf(s.log, sizeof(s.log), "/run/x/grp.log");
    dp_buf_init(&b, 0);
    CHECK_EQ(dp_keep_format(&b, &s), 0);
    CHECK_EQ(dp_keep_parse(&t, b.data), 0);
    CHECK_EQ(t.pid, 4242);
    CHECK_EQ(t.next_group, 3);
    CHECK_EQ(t.num_servers, 2);
    CHECK_STR(t.hosts, "10.0.0.1,10.0.0.2");
    CHECK_STR(t.log, "/run/x/grp.log");
    dp_buf_release(&b);
    CHECK(dp_keep_parse(&t, "pid 1\n") != 0);
    CHECK(dp_keep_parse(&t, "pid x\nnext_group 1\nnum_servers 1\n"
                            "num_hosts 1\nhosts a\n") != 0);
    CHECK(dp_keep_parse(&t, "garbage") != 0);
    d = dp_keep_dir("/given");
    CHECK_STR(d, "/given");
    free(d);
    setenv("DGLPART_STATE_DIR", "/env", 1);
    d = dp_keep_dir(NULL);
    CHECK_STR(d, "/env");
    free(d);
    unsetenv("DGLPART_STATE_DIR");
    setenv("XDG_RUNTIME_DIR", "/run/user/7", 1);
    d = dp_keep_dir(NULL);
    CHECK_STR(d, "/run/user/7/dglpart/servers");
    free(d);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    RUN(test_find_python);
    RUN(test_torchrun);
    RUN(test_local_rank_arg);
    RUN(test_worker_env);
    RUN(test_envs);
    RUN(test_wrapper);
    RUN(test_lines);
    RUN(test_keep_state);
    return TH_DONE();
}
