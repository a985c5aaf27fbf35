/* ip_config.txt parsing, with line numbers in every error. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/ipconfig.h"
#include "dglpart/parse.h"

void dp_ipconfig_release(struct dp_ipconfig *c)
{
    int i;

    for (i = 0; i < c->count; i++)
        free(c->hosts[i].ip);
    free(c->hosts);
    c->hosts = NULL;
    c->count = 0;
}

static int valid_host(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr(".-:_[]", *s))
            return 0;
    return 1;
}

int dp_ipconfig_parse(struct dp_ipconfig *c, const char *text, const char *name)
{
    struct dp_ipconfig out = { 0, NULL };
    const char *p = text;
    size_t lineno = 0;
    int rc = 0;

    while (*p && !rc) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[1024], *tok[3], *save = NULL, *t;
        int n = 0;

        lineno++;
        if (len >= sizeof(line)) {
            rc = dp_error(DP_EFORMAT, "'%s' line %zu: line too long", name,
                          lineno);
            break;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p = eol ? eol + 1 : p + len;
        if ((t = strchr(line, '#')) != NULL)
            *t = '\0';
        for (t = strtok_r(line, " \t\r", &save); t && n < 3;
             t = strtok_r(NULL, " \t\r", &save))
            tok[n++] = t;
        if (n == 0)
            continue;
        if (n > 2) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %zu: expected 'IP' or "
                          "'IP PORT', found more fields",
                          name, lineno);
            break;
        }
        if (!valid_host(tok[0])) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %zu: '%s' is not a host "
                          "address",
                          name, lineno, tok[0]);
            break;
        }
        {
            struct dp_host *h =
                dp_realloc_array(out.hosts, (size_t)out.count + 1, sizeof(*h));
            int port = DP_DEFAULT_SERVER_PORT;

            if (!h) {
                rc = DP_ENOMEM;
                break;
            }
            out.hosts = h;
            if (n == 2 && dp_parse_int("port", tok[1], 1, 65535, &port)) {
                rc = dp_error(DP_EFORMAT,
                              "'%s' line %zu: port '%s' is not "
                              "an integer in [1, 65535]",
                              name, lineno, tok[1]);
                break;
            }
            h[out.count].ip = dp_strdup(tok[0]);
            h[out.count].port = port;
            h[out.count].has_port = n == 2;
            if (!h[out.count].ip) {
                rc = DP_ENOMEM;
                break;
            }
            out.count++;
        }
    }
    if (!rc && out.count == 0)
        rc = dp_error(DP_EFORMAT, "'%s': no hosts listed", name);
    if (rc) {
        dp_ipconfig_release(&out);
        return rc;
    }
    *c = out;
    return 0;
}

int dp_ipconfig_load(struct dp_ipconfig *c, const char *path)
{
    char *text;
    size_t len;
    int rc = dp_read_file(path, 1 << 20, &text, &len);

    if (rc)
        return rc;
    if (memchr(text, '\0', len)) {
        free(text);
        return dp_error(DP_EFORMAT, "'%s': binary data in a text file", path);
    }
    rc = dp_ipconfig_parse(c, text, path);
    free(text);
    return rc;
}
