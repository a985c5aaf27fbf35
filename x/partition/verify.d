x/partition/verify.o: partition/verify.c include/dglpart/buf.h \
  include/dglpart/dataset.h include/dglpart/npy.h include/dglpart/file.h \
  include/dglpart/dglfile.h include/dglpart/error.h \
  include/dglpart/progress.h include/dglpart/verify.h

include/dglpart/buf.h:

include/dglpart/dataset.h:

include/dglpart/npy.h:

include/dglpart/file.h:

include/dglpart/dglfile.h:

include/dglpart/error.h:

include/dglpart/progress.h:

include/dglpart/verify.h:
