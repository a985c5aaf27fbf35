x/partition/config.o: partition/config.c include/dglpart/buf.h \
  include/dglpart/dglfile.h include/dglpart/file.h include/dglpart/npy.h \
  include/dglpart/error.h

include/dglpart/buf.h:

include/dglpart/dglfile.h:

include/dglpart/file.h:

include/dglpart/npy.h:

include/dglpart/error.h:
