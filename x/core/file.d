x/core/file.o: core/file.c include/dglpart/buf.h include/dglpart/error.h \
  include/dglpart/file.h

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/file.h:
