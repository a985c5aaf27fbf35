x/launch/remote.o: launch/remote.c include/dglpart/error.h \
  include/dglpart/launch.h include/dglpart/buf.h include/dglpart/shell.h

include/dglpart/error.h:

include/dglpart/launch.h:

include/dglpart/buf.h:

include/dglpart/shell.h:
