x/convert/download.o: convert/download.c include/dglpart/download.h \
  include/dglpart/error.h include/dglpart/file.h \
  include/dglpart/progress.h

include/dglpart/download.h:

include/dglpart/error.h:

include/dglpart/file.h:

include/dglpart/progress.h:
