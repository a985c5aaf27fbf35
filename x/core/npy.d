x/core/npy.o: core/npy.c include/dglpart/error.h include/dglpart/npy.h \
  include/dglpart/file.h

include/dglpart/error.h:

include/dglpart/npy.h:

include/dglpart/file.h:
