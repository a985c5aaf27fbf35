/* dglpart serve: placeholder until the stage lands; refuses to run. */
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/error.h"

int cmd_serve(int argc, char **argv)
{
    if (dp_wants_help(argc, argv)) {
        printf("usage: dglpart serve (not built yet)\n");
        return 0;
    }
    dp_error(DP_EUNSUPPORTED, "'serve' is not built yet");
    dp_report(DP_EUNSUPPORTED);
    return 1;
}
