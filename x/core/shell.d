x/core/shell.o: core/shell.c include/dglpart/error.h \
  include/dglpart/shell.h include/dglpart/buf.h

include/dglpart/error.h:

include/dglpart/shell.h:

include/dglpart/buf.h:
