/* Helpers shared by the command files. */
#include <string.h>

#include "dglpart/cmds.h"

int dp_wants_help(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    }
    return 0;
}
