x/core/error.o: core/error.c include/dglpart/error.h

include/dglpart/error.h:
