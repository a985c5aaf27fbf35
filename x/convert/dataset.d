x/convert/dataset.o: convert/dataset.c include/dglpart/buf.h \
  include/dglpart/dataset.h include/dglpart/npy.h include/dglpart/file.h \
  include/dglpart/error.h

include/dglpart/buf.h:

include/dglpart/dataset.h:

include/dglpart/npy.h:

include/dglpart/file.h:

include/dglpart/error.h:
