x/dglpart.o: dglpart.c include/dglpart/cmds.h include/dglpart/error.h

include/dglpart/cmds.h:

include/dglpart/error.h:
