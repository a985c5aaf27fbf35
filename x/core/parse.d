x/core/parse.o: core/parse.c include/dglpart/buf.h \
  include/dglpart/error.h include/dglpart/parse.h

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/parse.h:
