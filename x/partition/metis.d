x/partition/metis.o: partition/metis.c include/dglpart/buf.h \
  include/dglpart/error.h include/dglpart/file.h \
  include/dglpart/partition.h include/dglpart/dataset.h \
  include/dglpart/npy.h include/dglpart/progress.h

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/file.h:

include/dglpart/partition.h:

include/dglpart/dataset.h:

include/dglpart/npy.h:

include/dglpart/progress.h:
