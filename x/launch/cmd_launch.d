x/launch/cmd_launch.o: launch/cmd_launch.c include/dglpart/cmds.h \
  include/dglpart/error.h include/dglpart/launch.h include/dglpart/buf.h \
  include/dglpart/shell.h include/dglpart/parse.h

include/dglpart/cmds.h:

include/dglpart/error.h:

include/dglpart/launch.h:

include/dglpart/buf.h:

include/dglpart/shell.h:

include/dglpart/parse.h:
