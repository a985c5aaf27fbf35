x/convert/unpack.o: convert/unpack.c include/dglpart/download.h \
  include/dglpart/error.h include/dglpart/file.h \
  include/dglpart/progress.h

include/dglpart/download.h:

include/dglpart/error.h:

include/dglpart/file.h:

include/dglpart/progress.h:
