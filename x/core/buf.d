x/core/buf.o: core/buf.c include/dglpart/buf.h include/dglpart/error.h

include/dglpart/buf.h:

include/dglpart/error.h:
