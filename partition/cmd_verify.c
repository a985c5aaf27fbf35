/* dglpart verify: placeholder until the stage lands; refuses to run. */
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/error.h"

int cmd_verify(int argc, char **argv)
{
    if (dp_wants_help(argc, argv)) {
        printf("usage: dglpart verify (not built yet)\n");
        return 0;
    }
    dp_error(DP_EUNSUPPORTED, "'verify' is not built yet");
    dp_report(DP_EUNSUPPORTED);
    return 1;
}
