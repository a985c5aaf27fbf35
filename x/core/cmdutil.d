x/core/cmdutil.o: core/cmdutil.c include/dglpart/cmds.h

include/dglpart/cmds.h:
