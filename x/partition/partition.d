x/partition/partition.o: partition/partition.c include/dglpart/buf.h \
  include/dglpart/dglfile.h include/dglpart/file.h include/dglpart/npy.h \
  include/dglpart/error.h include/dglpart/partition.h \
  include/dglpart/dataset.h include/dglpart/progress.h

include/dglpart/buf.h:

include/dglpart/dglfile.h:

include/dglpart/file.h:

include/dglpart/npy.h:

include/dglpart/error.h:

include/dglpart/partition.h:

include/dglpart/dataset.h:

include/dglpart/progress.h:
