/* Fuzz target: the copy stage's parsers of outside text: a remote MANIFEST
 * (dp_manifest_matches) and a config to relocate (dp_config_load_relocated). */
#include <stdlib.h>
#include <string.h>

#include "dglpart/copy.h"
#include "dglpart/dglfile.h"
#include "fuzz.h"

static volatile int sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct dp_items l;
    static int ready;
    struct dp_part_config c;
    char *text, *out = NULL;
    const char *path;
    size_t len;

    if (!ready) {
        dp_items_add_data(&l, "graph.dgl", "g", 1);
        dp_items_add_data(&l, "node_feat.dgl", "", 0);
        ready = 1;
    }
    text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sink = dp_manifest_matches(&l, text);
    free(text);
    path = fuzz_path(data, size);
    if (path && dp_config_load_relocated(&c, path, &out, &len) == 0) {
        sink += (int)len;
        dp_config_release(&c);
    }
    free(out);
    return 0;
}
