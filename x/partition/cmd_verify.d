x/partition/cmd_verify.o: partition/cmd_verify.c include/dglpart/cmds.h \
  include/dglpart/error.h include/dglpart/parse.h \
  include/dglpart/verify.h

include/dglpart/cmds.h:

include/dglpart/error.h:

include/dglpart/parse.h:

include/dglpart/verify.h:
