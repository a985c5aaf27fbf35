/* envprobe: a stand-in for a DGL server or trainer in the launch tests.
 * Records its arguments and environment, binds the port a DGL server (or a
 * trainer) would, then sleeps, fails or ignores signals on demand. A probe
 * left running holds its port, so an orphan shows up as a failed bind.
 * Options also come from $ENVPROBE_ARGS; unknown arguments are recorded
 * and ignored (so it can stand in for `python3 -m torch.distributed.run`).
 *
 *   --record DIR       write DIR/ROLE-ID-PID.txt (argv, cwd, env, pgid)
 *   --dgl-bind         as a DGL server: listen on ip_config's IP and
 *                      PORT + DGL_SERVER_ID % DGL_NUM_SERVER
 *   --trainer-port B   as a trainer: listen on its host's IP, B+LOCAL_RANK
 *   --sleep S          trainers sleep S seconds (0)
 *   --await N          trainers first wait (60 s at most) for N servers'
 *                      records in the --record DIR, as DGL's trainers
 *                      wait for their servers: a server slow to start on
 *                      a busy machine is not stopped before it ran
 *   --server-sleep S   servers sleep S seconds (forever)
 *   --exit C           exit code (0)
 *   --fail-rank R --fail-code C   the trainer of RANK R exits C after
 *                      --fail-after S seconds (0.2)
 *   --ignore-term      ignore SIGINT, SIGTERM and SIGHUP
 *   --children N       N children that sleep in the same process group
 *   --escape           one more child that leaves for its own session
 *   --check-free IP:PORT ...   exit 0 if every port can be bound now
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *record_dir;
static int dgl_bind, trainer_port = -1, fail_rank = -1, fail_code = 1;
static int exit_code, ignore_term, children, escape, await_servers;
static double sleep_s, server_sleep = -1, fail_after = 0.2;

static int env_int(const char *name, int def)
{
    const char *v = getenv(name);
    char *end;
    long x;

    if (!v || !*v)
        return def;
    x = strtol(v, &end, 10);
    return *end ? def : (int)x;
}

static int listen_on(const char *ip, int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    if (inet_pton(AF_INET, ip, &a.sin_addr) != 1 ||
        bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Line `machine` of ip_config: its ip and port (30050 when missing). */
static int ipconfig_line(int machine, char *ip, size_t n, int *port)
{
    const char *path = getenv("DGL_IP_CONFIG");
    char line[512];
    FILE *f;
    int i = 0;

    if (!path || !(f = fopen(path, "r")))
        return -1;
    while (fgets(line, sizeof(line), f)) {
        char a[256];
        int p = 30050, k = sscanf(line, "%255s %d", a, &p);

        if (k < 1 || a[0] == '#')
            continue;
        if (i++ == machine) {
            snprintf(ip, n, "%s", a);
            *port = p;
            fclose(f);
            return 0;
        }
    }
    fclose(f);
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void record(const char *role, const char *id, int argc, char **argv)
{
    char path[4096], tmp[4200], cwd[2048];
    size_t n = 0, i;
    char **env;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s-%s-%ld.txt", record_dir, role, id,
             (long)getpid());
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if (!(f = fopen(tmp, "w"))) {
        fprintf(stderr, "envprobe: cannot write '%s': %s\n", tmp,
                strerror(errno));
        return;
    }
    for (i = 0; i < (size_t)argc; i++)
        fprintf(f, "arg %zu %s\n", i, argv[i]);
    if (getcwd(cwd, sizeof(cwd)))
        fprintf(f, "cwd %s\n", cwd);
    fprintf(f, "pid %ld\npgid %ld\nsid %ld\n", (long)getpid(), (long)getpgrp(),
            (long)getsid(0));
    for (env = environ; *env; env++)
        n++;
    env = calloc(n + 1, sizeof(*env));
    if (env) {
        memcpy(env, environ, n * sizeof(*env));
        qsort(env, n, sizeof(*env), cmp_str);
        for (i = 0; i < n; i++)
            fprintf(f, "env %s\n", env[i]);
        free(env);
    }
    if (fclose(f) == 0)
        rename(tmp, path);
}

static void nap(double s)
{
    struct timespec ts;

    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

/* Servers' records in record_dir (finished ones: written, then renamed). */
static int servers_recorded(void)
{
    DIR *d = opendir(record_dir);
    struct dirent *e;
    size_t n;
    int count = 0;

    if (!d)
        return 0;
    while ((e = readdir(d))) {
        n = strlen(e->d_name);
        count += !strncmp(e->d_name, "server-", 7) && n > 4 &&
                 !strcmp(e->d_name + n - 4, ".txt");
    }
    closedir(d);
    return count;
}

static void await_records(int n)
{
    int tenths;

    for (tenths = 0; servers_recorded() < n; tenths++) {
        if (tenths == 600) {
            fprintf(stderr, "envprobe: %d of %d servers recorded after 60 s\n",
                    servers_recorded(), n);
            return;
        }
        nap(0.1);
    }
}

static void sleep_forever(void)
{
    for (;;)
        pause();
}

static int check_free(int argc, char **argv, int i)
{
    int busy = 0;

    for (; i < argc; i++) {
        char ip[256];
        int port, fd;
        const char *colon = strrchr(argv[i], ':');

        if (!colon || (size_t)(colon - argv[i]) >= sizeof(ip))
            return 2;
        memcpy(ip, argv[i], (size_t)(colon - argv[i]));
        ip[colon - argv[i]] = '\0';
        port = atoi(colon + 1);
        fd = listen_on(ip, port);
        if (fd < 0) {
            printf("busy %s\n", argv[i]);
            busy = 1;
        } else {
            close(fd);
        }
    }
    return busy;
}

static void parse(int argc, char **argv)
{
    int i;

    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--record") && v)
            record_dir = v, i++;
        else if (!strcmp(a, "--dgl-bind"))
            dgl_bind = 1;
        else if (!strcmp(a, "--trainer-port") && v)
            trainer_port = atoi(v), i++;
        else if (!strcmp(a, "--sleep") && v)
            sleep_s = atof(v), i++;
        else if (!strcmp(a, "--await") && v)
            await_servers = atoi(v), i++;
        else if (!strcmp(a, "--server-sleep") && v)
            server_sleep = atof(v), i++;
        else if (!strcmp(a, "--exit") && v)
            exit_code = atoi(v), i++;
        else if (!strcmp(a, "--fail-rank") && v)
            fail_rank = atoi(v), i++;
        else if (!strcmp(a, "--fail-after") && v)
            fail_after = atof(v), i++;
        else if (!strcmp(a, "--fail-code") && v)
            fail_code = atoi(v), i++;
        else if (!strcmp(a, "--ignore-term"))
            ignore_term = 1;
        else if (!strcmp(a, "--children") && v)
            children = atoi(v), i++;
        else if (!strcmp(a, "--escape"))
            escape = 1;
    }
}

int main(int argc, char **argv)
{
    const char *dglrole = getenv("DGL_ROLE"),
               *env_args = getenv("ENVPROBE_ARGS");
    const char *role = "none";
    char id[32] = "x", ip[256];
    int server = 0, port, fd = -1, i;

    if (argc > 1 && !strcmp(argv[1], "--check-free"))
        return check_free(argc, argv, 2);
    if (env_args && *env_args) {
        char *copy = strdup(env_args), *tok, *save = NULL, *words[64];
        int n = 0;

        for (tok = copy ? strtok_r(copy, " ", &save) : NULL; tok && n < 64;
             tok = strtok_r(NULL, " ", &save))
            words[n++] = tok;
        parse(n, words);
    }
    parse(argc - 1, argv + 1);
    if (dglrole && !strcmp(dglrole, "server")) {
        role = "server";
        server = 1;
        snprintf(id, sizeof(id), "%d", env_int("DGL_SERVER_ID", -1));
    } else if (dglrole && !strcmp(dglrole, "client")) {
        role = "trainer";
        snprintf(id, sizeof(id), "%d", env_int("RANK", -1));
    }
    if (ignore_term) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
    }
    if (server && dgl_bind) {
        int ns = env_int("DGL_NUM_SERVER", 1),
            sid = env_int("DGL_SERVER_ID", 0);

        if (ipconfig_line(sid / ns, ip, sizeof(ip), &port) ||
            (fd = listen_on(ip, port + sid % ns)) < 0) {
            fprintf(stderr, "envprobe: server %d: Failed bind on %s:%d: %s\n",
                    sid, ip, port + sid % ns, strerror(errno));
            return 3;
        }
    }
    if (!server && trainer_port >= 0 && getenv("RANK")) {
        int lws = env_int("LOCAL_WORLD_SIZE", 1), rank = env_int("RANK", 0);
        int lr = env_int("LOCAL_RANK", 0), dummy;

        if (ipconfig_line(rank / lws, ip, sizeof(ip), &dummy) ||
            (fd = listen_on(ip, trainer_port + lr)) < 0) {
            fprintf(stderr, "envprobe: trainer %d: Failed bind on %s:%d\n",
                    rank, ip, trainer_port + lr);
            return 3;
        }
    }
    for (i = 0; i < children + escape; i++) {
        pid_t c = fork();

        if (c == 0) {
            if (i == children)
                setsid();
            sleep_forever();
        }
    }
    if (!server && record_dir && await_servers > 0)
        await_records(await_servers);
    if (record_dir)
        record(role, id, argc, argv);
    printf("envprobe %s %s up\n", role, id);
    fflush(stdout);
    fprintf(stderr, "envprobe %s %s on stderr\n", role, id);
    if (server) {
        if (server_sleep < 0)
            sleep_forever();
        nap(server_sleep);
        return 0;
    }
    if (fail_rank >= 0 && env_int("RANK", -1) == fail_rank) {
        nap(fail_after);
        fprintf(stderr, "envprobe: rank %d fails with %d\n", fail_rank,
                fail_code);
        return fail_code;
    }
    nap(sleep_s);
    (void)fd;
    return exit_code;
}
