x/convert/cmd_download.o: convert/cmd_download.c include/dglpart/cmds.h \
  include/dglpart/download.h include/dglpart/error.h \
  include/dglpart/parse.h

include/dglpart/cmds.h:

include/dglpart/download.h:

include/dglpart/error.h:

include/dglpart/parse.h:
