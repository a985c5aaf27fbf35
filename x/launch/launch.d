x/launch/launch.o: launch/launch.c include/dglpart/error.h \
  include/dglpart/file.h include/dglpart/ipconfig.h \
  include/dglpart/launch.h include/dglpart/buf.h include/dglpart/shell.h \
  include/dglpart/parse.h launch/launch_int.h

include/dglpart/error.h:

include/dglpart/file.h:

include/dglpart/ipconfig.h:

include/dglpart/launch.h:

include/dglpart/buf.h:

include/dglpart/shell.h:

include/dglpart/parse.h:

launch/launch_int.h:
