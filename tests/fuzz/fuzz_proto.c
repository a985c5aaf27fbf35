/* Fuzz target: the graph server's request handling. The input is a byte
 * stream of frames, cut and answered as the server does (header checks,
 * then dp_serve_request) against part 1 of DGL's metis4 cora set. */
#include <stdlib.h>
#include <string.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/runtime.h"
#include "fuzz.h"

static struct dp_part part;
static int loaded; /* 1 ok, -1 failed */

static int load(void)
{
    static struct dp_part_config c;
    static struct dp_book b;
    const char *shared = getenv("DGLPART_SHARED");
    char path[1024];

    if (loaded)
        return loaded;
    snprintf(path, sizeof(path),
             "%s/fixtures/dgl-cora/metis4-train-edges/cora.json",
             shared ? shared : "../shared");
    loaded = -1;
    if (!dp_config_load(&c, path) && !dp_book_init(&b, &c) &&
        !dp_part_load(&part, &c, &b, 1))
        loaded = 1;
    return loaded;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dp_buf out;
    size_t pos = 0;

    if (load() < 0)
        abort(); /* the fixture is missing: replay must not pass silently */
    dp_buf_init(&out, 0);
    while (size - pos >= DP_PROTO_HEADER) {
        struct dp_frame_header h;
        if (dp_frame_header_decode(data + pos, DP_PROTO_MAX_FRAME, &h) ||
            h.len > size - pos - DP_PROTO_HEADER)
            break;
        dp_buf_reset(&out);
        if (dp_serve_request(&part, &h, data + pos + DP_PROTO_HEADER, &out))
            break;
        pos += DP_PROTO_HEADER + (size_t)h.len;
    }
    dp_buf_release(&out);
    return 0;
}
