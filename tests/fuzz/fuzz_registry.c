/* Fuzz target: dataset registry JSON through dp_registry_parse. */
#include <string.h>

#include "dglpart/download.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dp_registry r = { NULL, 0 };
    int i;

    if (dp_registry_parse(&r, (const char *)data, size, "fuzz") == 0)
        for (i = 0; i < r.n; i++)
            if (!r.e[i].name || !r.e[i].folder || strchr(r.e[i].folder, '/'))
                __builtin_trap(); /* parse promised a plain folder name */
    dp_registry_release(&r);
    return 0;
}
