/* Unit tests for the copy stage's pieces: MANIFEST format and comparison,
 * the MANIFEST cache, config relocation and the tar stream. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/copy.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "harness.h"

static char tmpdir[] = "/tmp/dglpart-unit-copy.XXXXXX";

static char *tpath(const char *name)
{
    return dp_path_join(tmpdir, name);
}

static void put(const char *name, const char *text)
{
    char *p = tpath(name);

    CHECK_EQ(dp_write_file(p, text, strlen(text)), 0);
    free(p);
}

static void test_manifest(void)
{
    struct dp_items l = { 0, 0, NULL };
    struct dp_buf b;
    char *text, *swapped;

    dp_buf_init(&b, 0);
    CHECK_EQ(dp_items_add_data(&l, "a.dgl", "hello", 5), 0);
    CHECK_EQ(dp_items_add_data(&l, "b c.dgl", "", 0), 0);
    CHECK_EQ(dp_manifest_format(&l, &b), 0);
    CHECK_CONTAINS(b.data, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e"
                           "73043362938b9824 5 a.dgl\n");
    CHECK_CONTAINS(b.data, " 0 b c.dgl\n");
    CHECK(b.data[0] == '#');
    text = b.data;
    CHECK_EQ(dp_manifest_matches(&l, text), 1);
    /* Order does not matter; header and blank lines are ignored. */
    swapped = malloc(b.len + 8);
    {
        char *nl1 = strchr(text, '\n') + 1, *nl2 = strchr(nl1, '\n') + 1;

        sprintf(swapped, "%s\n%.*s", nl2, (int)(nl2 - nl1), nl1);
    }
    CHECK_EQ(dp_manifest_matches(&l, swapped), 1);
    /* A missing line, a changed size or hash, or an extra file differ. */
    CHECK_EQ(dp_manifest_matches(&l, strchr(text, '\n') + 1 +
                                         (strchr(strchr(text, '\n') + 1, '\n') -
                                          strchr(text, '\n'))),
             0);
    CHECK_EQ(dp_manifest_matches(&l, ""), 0);
    {
        char *bad = strdup(text), *p = strstr(bad, " 5 a.dgl");

        p[1] = '6';
        CHECK_EQ(dp_manifest_matches(&l, bad), 0);
        p = strstr(bad, "2cf24d");
        p[0] = '3';
        CHECK_EQ(dp_manifest_matches(&l, bad), 0);
        free(bad);
    }
    {
        struct dp_buf more;

        dp_buf_init(&more, 0);
        dp_buf_adds(&more, text);
        dp_buf_adds(&more, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e"
                           "73043362938b9824 5 extra\n");
        CHECK_EQ(dp_manifest_matches(&l, more.data), 0);
        dp_buf_release(&more);
    }
    /* Names with newlines cannot be listed. */
    CHECK(dp_items_add_data(&l, "x\ny", "", 0) != 0);
    free(swapped);
    dp_buf_release(&b);
    dp_items_release(&l);
}

static void test_hash_cache(void)
{
    struct dp_items l = { 0, 0, NULL };
    char *f = tpath("f.bin"), *cache = tpath("MANIFEST"), *text = NULL;
    char want[65];
    size_t len;
    struct timespec ts = { 0, 20 * 1000 * 1000 };

    put("f.bin", "abc");
    dp_sha256_hex("abc", 3, want);
    CHECK_EQ(dp_items_add_file(&l, "f.bin", f), 0);
    CHECK_EQ(dp_items_hash(&l, cache), 0);
    CHECK_STR(l.v[0].sha, want);
    CHECK(dp_exists(cache));
    dp_items_release(&l);

    /* A cache newer than the file is trusted: prove it with a fake hash. */
    nanosleep(&ts, NULL);
    CHECK_EQ(dp_read_file(cache, 1 << 20, &text, &len), 0);
    {
        char *p = strstr(text, want);

        if (p)
            memset(p, 'f', 64);
    }
    CHECK_EQ(dp_write_file(cache, text, len), 0);
    CHECK_EQ(dp_items_add_file(&l, "f.bin", f), 0);
    CHECK_EQ(dp_items_hash(&l, cache), 0);
    CHECK_EQ(strspn(l.v[0].sha, "f"), 64);
    dp_items_release(&l);

    /* A file changed after the cache is hashed again. */
    nanosleep(&ts, NULL);
    put("f.bin", "abd");
    dp_sha256_hex("abd", 3, want);
    CHECK_EQ(dp_items_add_file(&l, "f.bin", f), 0);
    CHECK_EQ(dp_items_hash(&l, cache), 0);
    CHECK_STR(l.v[0].sha, want);
    dp_items_release(&l);
    free(text);
    free(f);
    free(cache);
}

/* The relocated config, byte for byte as dglpart copy has always shipped
 * it (cJSON's layout, four-space indents), with the keys the config
 * struct does not model kept and every part path made part<i>/<base>. */
static const char small_cfg[] =
    "{\"graph_name\": \"g\", \"num_nodes\": 4, \"num_edges\": 3,"
    " \"part_method\": \"metis\", \"num_parts\": 2, \"halo_hops\": 1,"
    " \"node_map\": {\"_N\": [[0, 2], [2, 4]]},"
    " \"edge_map\": {\"_N:_E:_N\": [[0, 1], [1, 3]]},"
    " \"ntypes\": {\"_N\": 0}, \"etypes\": {\"_N:_E:_N\": 0},"
    " \"note\": {\"by\": \"a test\", \"x\": [1.5, -2, true, null], \"e\": {}},"
    " \"part-0\": {\"node_feats\": \"/abs/p0/node_feat.dgl\","
    " \"edge_feats\": \"p0/edge_feat.dgl\","
    " \"part_graph\": \"../p0/graph.dgl\", \"n\": 3},"
    " \"part-1\": {\"node_feats\": \"p1/node_feat.dgl\","
    " \"edge_feats\": \"p1/edge_feat.dgl\", \"part_graph\": \"p1/graph.dgl\","
    " \"part_graph_graphbolt\": \"p1/g.pt\"}}";

static const char small_relocated[] =
    "{\n"
    "    \"graph_name\": \"g\",\n"
    "    \"num_nodes\": 4,\n"
    "    \"num_edges\": 3,\n"
    "    \"part_method\": \"metis\",\n"
    "    \"num_parts\": 2,\n"
    "    \"halo_hops\": 1,\n"
    "    \"node_map\": {\n"
    "        \"_N\": [[0, 2], [2, 4]]\n"
    "    },\n"
    "    \"edge_map\": {\n"
    "        \"_N:_E:_N\": [[0, 1], [1, 3]]\n"
    "    },\n"
    "    \"ntypes\": {\n"
    "        \"_N\": 0\n"
    "    },\n"
    "    \"etypes\": {\n"
    "        \"_N:_E:_N\": 0\n"
    "    },\n"
    "    \"note\": {\n"
    "        \"by\": \"a test\",\n"
    "        \"x\": [1.5, -2, true, null],\n"
    "        \"e\": {\n"
    "        }\n"
    "    },\n"
    "    \"part-0\": {\n"
    "        \"node_feats\": \"part0/node_feat.dgl\",\n"
    "        \"edge_feats\": \"part0/edge_feat.dgl\",\n"
    "        \"part_graph\": \"part0/graph.dgl\",\n"
    "        \"n\": 3\n"
    "    },\n"
    "    \"part-1\": {\n"
    "        \"node_feats\": \"part1/node_feat.dgl\",\n"
    "        \"edge_feats\": \"part1/edge_feat.dgl\",\n"
    "        \"part_graph\": \"part1/graph.dgl\",\n"
    "        \"part_graph_graphbolt\": \"part1/g.pt\"\n"
    "    }\n"
    "}\n";

static void test_relocate(void)
{
    const char *shared = getenv("DGLPART_SHARED");
    char cfg[4096];
    char *text = NULL, *dir = tpath("reloc"), *out, *orig = NULL;
    struct dp_part_config pc, c2;
    struct dp_items l = { 0, 0, NULL };
    size_t len, olen;
    int i;

    snprintf(cfg, sizeof(cfg),
             "%s/fixtures/dgl-cora/metis4-train-edges/"
             "cora.json",
             shared ? shared : "../shared");
    CHECK_EQ(dp_config_load_relocated(&c2, cfg, &text, &len), 0);
    if (!text)
        return;
    CHECK_EQ(c2.num_parts, 4);
    dp_config_release(&c2);
    CHECK_CONTAINS(text, "\n    \"graph_name\": \"cora\",\n");
    CHECK_CONTAINS(text, "\"part_graph\": \"part3/graph.dgl\"");
    CHECK(!strchr(text, '\t'));
    /* Keys the config struct does not model survive. */
    CHECK_EQ(dp_read_file(cfg, 1 << 20, &orig, &olen), 0);
    CHECK_CONTAINS(orig, "\"ntypes\"");
    CHECK_CONTAINS(text, "\"ntypes\"");
    /* Read back: paths resolve against the new folder. */
    CHECK_EQ(dp_mkdir_p(dir, 0755), 0);
    out = dp_path_join(dir, "cora.json");
    CHECK_EQ(dp_write_file(out, text, len), 0);
    CHECK_EQ(dp_config_load(&pc, out), 0);
    CHECK_EQ(pc.num_parts, 4);
    for (i = 0; i < pc.num_parts; i++) {
        char *p = dp_config_part_file(&pc, i, "part_graph");
        char want[4096];

        snprintf(want, sizeof(want), "%s/part%d/graph.dgl", dir, i);
        CHECK_STR(p, want);
        free(p);
    }
    dp_config_release(&pc);

    /* Absolute and nested paths are rewritten too, every string member
     * of a part's entry is one of its files, the rest is kept. */
    put("small.json", small_cfg);
    free(text);
    text = NULL;
    free(out);
    out = tpath("small.json");
    CHECK_EQ(dp_config_load_relocated(&pc, out, &text, &len), 0);
    CHECK_STR(text, small_relocated);
    CHECK_EQ(len, strlen(small_relocated));
    CHECK_EQ(pc.files[1].count, 4);
    CHECK_STR(pc.files[1].keys[3], "part_graph_graphbolt");
    CHECK_STR(pc.files[1].paths[3], "p1/g.pt");
    CHECK_EQ(pc.files[0].count, 3);
    CHECK_EQ(dp_part_items(&pc, 2, &l), DP_ERANGE);
    CHECK_CONTAINS(dp_errmsg(), "part 2 out of range [0, 2)");
    dp_config_release(&pc);
    free(text);
    text = NULL;
    /* A config that does not load gives no text. */
    put("bad.json", "{\"num_parts\": 2, \"part-0\": {}}");
    free(out);
    out = tpath("bad.json");
    CHECK_EQ(dp_config_load_relocated(&pc, out, &text, &len), DP_EFORMAT);
    CHECK(text == NULL);
    CHECK_CONTAINS(dp_errmsg(), "graph_name is missing");
    free(out);
    free(orig);
    free(dir);
}

static void test_tar(void)
{
    struct dp_items l = { 0, 0, NULL };
    char *tar = tpath("t.tar"), *f = tpath("f.bin"), cmd[8192];
    volatile uint64_t written = 0;
    int fd;

    put("f.bin", "0123456789");
    CHECK_EQ(dp_items_add_dir(&l, "d"), 0);
    CHECK_EQ(dp_items_add_file(&l, "d/f.bin", f), 0);
    CHECK_EQ(dp_items_add_data(&l, "d/m", "mem", 3), 0);
    fd = open(tar, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK_EQ(dp_tar_write(fd, &l, &written, 0, NULL), 0);
    close(fd);
    CHECK(written > 10);
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && tar -xf t.tar && "
             "cmp -s d/f.bin f.bin && test \"$(cat d/m)\" = mem",
             tmpdir);
    CHECK_EQ(system(cmd), 0);
    /* A file that shrank since it was listed is an error, not a short
     * entry. */
    put("f.bin", "01");
    fd = open(tar, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(dp_tar_write(fd, &l, NULL, 0, NULL) != 0);
    CHECK_CONTAINS(dp_errmsg(), "shrank");
    close(fd);
    dp_items_release(&l);
    free(tar);
    free(f);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_manifest);
    RUN(test_hash_cache);
    RUN(test_relocate);
    RUN(test_tar);
    dp_rm_rf(tmpdir);
    return TH_DONE();
}
