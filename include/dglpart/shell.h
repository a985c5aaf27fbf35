/* Building commands for a remote POSIX shell (ssh) safely: every word is
 * single-quoted, so names and paths can never inject commands. */
#ifndef DGLPART_SHELL_H
#define DGLPART_SHELL_H

#include "dglpart/buf.h"

/* Append word to b quoted for sh: 'it'\''s'. 0 or an error code. */
int dp_shell_quote(struct dp_buf *b, const char *word);
/* Append each word quoted, separated by spaces. */
int dp_shell_quote_argv(struct dp_buf *b, const char *const *words, int n);

/* ssh connection settings shared by copy and launch. */
struct dp_ssh {
    const char *user; /* NULL or "" for the default */
    int port;         /* 0 for ssh's default */
    const char *opts; /* extra options, split on blanks, e.g. "-i key" */
    int bulk;         /* bulk data: put AES-GCM first in the cipher list
                         (hardware AES is several times faster than
                         ssh's default ChaCha20); opts still win */
};

/* Build the argv of `ssh -o BatchMode=yes [...] [user@]host 'remote'` in a
 * NULL-terminated malloc'd array; strings in it are owned by the array
 * (free with dp_argv_free). remote is sent as a single shell string. */
char **dp_ssh_argv(const struct dp_ssh *s, const char *host,
                   const char *remote);
void dp_argv_free(char **argv);

#endif
