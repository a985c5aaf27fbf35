x/copy/cmd_pack.o: copy/cmd_pack.c include/dglpart/cmds.h \
  include/dglpart/copy.h include/dglpart/buf.h include/dglpart/error.h \
  include/dglpart/parse.h

include/dglpart/cmds.h:

include/dglpart/copy.h:

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/parse.h:
