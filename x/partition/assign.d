x/partition/assign.o: partition/assign.c include/dglpart/error.h \
  include/dglpart/npy.h include/dglpart/file.h \
  include/dglpart/partition.h include/dglpart/dataset.h

include/dglpart/error.h:

include/dglpart/npy.h:

include/dglpart/file.h:

include/dglpart/partition.h:

include/dglpart/dataset.h:
