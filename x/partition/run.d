x/partition/run.o: partition/run.c include/dglpart/buf.h \
  include/dglpart/convert.h include/dglpart/error.h \
  include/dglpart/file.h include/dglpart/partition.h \
  include/dglpart/dataset.h include/dglpart/npy.h

include/dglpart/buf.h:

include/dglpart/convert.h:

include/dglpart/error.h:

include/dglpart/file.h:

include/dglpart/partition.h:

include/dglpart/dataset.h:

include/dglpart/npy.h:
