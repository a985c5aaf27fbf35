/* Shell quoting and ssh argv building for copy and launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/shell.h"

int dp_shell_quote(struct dp_buf *b, const char *word)
{
    const char *p;
    int rc = dp_buf_add(b, "'", 1);

    for (p = word; !rc && *p; p++)
        rc = *p == '\'' ? dp_buf_adds(b, "'\\''") : dp_buf_add(b, p, 1);
    return rc ? rc : dp_buf_add(b, "'", 1);
}

int dp_shell_quote_argv(struct dp_buf *b, const char *const *words, int n)
{
    int i, rc = 0;

    for (i = 0; i < n && !rc; i++) {
        if (i)
            rc = dp_buf_add(b, " ", 1);
        if (!rc)
            rc = dp_shell_quote(b, words[i]);
    }
    return rc;
}

void dp_argv_free(char **argv)
{
    char **p;

    if (!argv)
        return;
    for (p = argv; *p; p++)
        free(*p);
    free(argv);
}

char **dp_ssh_argv(const struct dp_ssh *s, const char *host, const char *remote)
{
    const char *fixed[] = { "ssh",
                            "-o",
                            "BatchMode=yes",
                            "-o",
                            "StrictHostKeyChecking=accept-new",
                            "-o",
                            "ConnectTimeout=10",
                            "-o",
                            "ServerAliveInterval=5",
                            "-o",
                            "ServerAliveCountMax=3" };
    size_t nfixed = sizeof(fixed) / sizeof(fixed[0]), n = 0, cap;
    char *opts = NULL, *tok, *save = NULL, **argv;
    char port[16], dest[512];

    cap = nfixed + 10 + (s->opts ? strlen(s->opts) / 2 + 1 : 0);
    argv = dp_calloc(cap, sizeof(*argv));
    if (!argv)
        goto nomem;
    for (n = 0; n < nfixed; n++)
        if (!(argv[n] = dp_strdup(fixed[n])))
            goto nomem;
    if (s->port > 0) {
        snprintf(port, sizeof(port), "%d", s->port);
        if (!(argv[n++] = dp_strdup("-p")) || !(argv[n++] = dp_strdup(port)))
            goto nomem;
    }
    if (s->opts && *s->opts) {
        if (!(opts = dp_strdup(s->opts)))
            goto nomem;
        for (tok = strtok_r(opts, " \t", &save); tok;
             tok = strtok_r(NULL, " \t", &save))
            if (!(argv[n++] = dp_strdup(tok)))
                goto nomem;
        free(opts);
        opts = NULL;
    }
    /* after opts: for ssh the first value of an option wins */
    if (s->bulk && (!(argv[n++] = dp_strdup("-o")) ||
                    !(argv[n++] = dp_strdup("Ciphers=^aes128-gcm@openssh.com,"
                                            "aes256-gcm@openssh.com"))))
        goto nomem;
    if (s->user && *s->user)
        snprintf(dest, sizeof(dest), "%s@%s", s->user, host);
    else
        snprintf(dest, sizeof(dest), "%s", host);
    if (!(argv[n++] = dp_strdup("--")) || !(argv[n++] = dp_strdup(dest)) ||
        !(argv[n++] = dp_strdup(remote)))
        goto nomem;
    argv[n] = NULL;
    return argv;
nomem:
    free(opts);
    dp_argv_free(argv);
    return NULL;
}
