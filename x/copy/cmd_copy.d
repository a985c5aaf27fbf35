x/copy/cmd_copy.o: copy/cmd_copy.c include/dglpart/cmds.h \
  include/dglpart/copy.h include/dglpart/buf.h include/dglpart/error.h \
  include/dglpart/parse.h

include/dglpart/cmds.h:

include/dglpart/copy.h:

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/parse.h:
