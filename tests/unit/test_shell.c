/* Unit tests for shell quoting, ssh argv and ip_config parsing. */
#include <stdlib.h>

#include "dglpart/error.h"
#include "dglpart/ipconfig.h"
#include "dglpart/shell.h"
#include "harness.h"

static void test_quote(void)
{
    struct dp_buf b;
    const char *words[] = { "a b", "it's", "$(rm -rf /)" };

    dp_buf_init(&b, 0);
    CHECK_EQ(dp_shell_quote_argv(&b, words, 3), 0);
    CHECK_STR(b.data, "'a b' 'it'\\''s' '$(rm -rf /)'");
    dp_buf_release(&b);
}

static void test_ssh_argv(void)
{
    struct dp_ssh s = { "alice", 2222, "-i key -o Foo=bar", 0 };
    char **argv = dp_ssh_argv(&s, "127.0.0.2", "echo hi");
    int n = 0, batch = 0;

    CHECK(argv != NULL);
    if (!argv)
        return;
    for (; argv[n]; n++)
        batch |= !strcmp(argv[n], "BatchMode=yes");
    CHECK(batch);
    CHECK_STR(argv[n - 1], "echo hi");
    CHECK_STR(argv[n - 2], "alice@127.0.0.2");
    CHECK_STR(argv[n - 3], "--");
    CHECK_STR(argv[n - 4], "Foo=bar");
    dp_argv_free(argv);

    /* bulk: AES-GCM preferred, after the user's options so theirs win */
    s.bulk = 1;
    argv = dp_ssh_argv(&s, "127.0.0.2", "cat");
    CHECK(argv != NULL);
    if (!argv)
        return;
    for (n = 0; argv[n]; n++)
        ;
    CHECK_STR(argv[n - 4], "Ciphers=^aes128-gcm@openssh.com,"
                           "aes256-gcm@openssh.com");
    CHECK_STR(argv[n - 6], "Foo=bar");
    dp_argv_free(argv);
}

static void test_ipconfig(void)
{
    struct dp_ipconfig c;

    CHECK_EQ(dp_ipconfig_parse(&c, "# hosts\n127.0.0.2\n\n127.0.0.3 4000\r\n",
                               "ip.txt"),
             0);
    CHECK_EQ(c.count, 2);
    if (c.count == 2) {
        CHECK_STR(c.hosts[0].ip, "127.0.0.2");
        CHECK_EQ(c.hosts[0].port, DP_DEFAULT_SERVER_PORT);
        CHECK_EQ(c.hosts[1].port, 4000);
        CHECK_EQ(c.hosts[1].has_port, 1);
    }
    dp_ipconfig_release(&c);
    CHECK_EQ(dp_ipconfig_parse(&c, "1.2.3.4 1 2\n", "ip.txt"), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "'ip.txt' line 1: expected 'IP' or 'IP PORT'");
    CHECK_EQ(dp_ipconfig_parse(&c, "a\nb 99999\n", "ip.txt"), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "line 2: port '99999'");
    CHECK_EQ(dp_ipconfig_parse(&c, "a;rm\n", "ip.txt"), DP_EFORMAT);
    CHECK_EQ(dp_ipconfig_parse(&c, "\n# none\n", "ip.txt"), DP_EFORMAT);
}

int main(void)
{
    RUN(test_quote);
    RUN(test_ssh_argv);
    RUN(test_ipconfig);
    return TH_DONE();
}
