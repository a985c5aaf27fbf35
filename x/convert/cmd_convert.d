x/convert/cmd_convert.o: convert/cmd_convert.c include/dglpart/cmds.h \
  include/dglpart/convert.h include/dglpart/error.h \
  include/dglpart/parse.h

include/dglpart/cmds.h:

include/dglpart/convert.h:

include/dglpart/error.h:

include/dglpart/parse.h:
