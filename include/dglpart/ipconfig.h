/* ip_config.txt: one host per line, "IP" or "IP PORT"; blank and '#' lines
 * are ignored (DGL's launch.py / rpc.py format). Shared by copy, launch and
 * the runtime. */
#ifndef DGLPART_IPCONFIG_H
#define DGLPART_IPCONFIG_H

#define DP_DEFAULT_SERVER_PORT 30050

struct dp_host {
    char *ip; /* owned */
    int port; /* DP_DEFAULT_SERVER_PORT when the line has none */
    int has_port;
};

struct dp_ipconfig {
    int count;
    struct dp_host *hosts; /* owned */
};

/* Parse path; errors name the file and line. */
int dp_ipconfig_load(struct dp_ipconfig *c, const char *path);
/* Parse text already in memory (name used in messages). */
int dp_ipconfig_parse(struct dp_ipconfig *c, const char *text,
                      const char *name);
void dp_ipconfig_release(struct dp_ipconfig *c);

#endif
