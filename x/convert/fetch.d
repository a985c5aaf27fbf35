x/convert/fetch.o: convert/fetch.c include/dglpart/buf.h \
  include/dglpart/download.h include/dglpart/error.h \
  include/dglpart/file.h include/dglpart/progress.h

include/dglpart/buf.h:

include/dglpart/download.h:

include/dglpart/error.h:

include/dglpart/file.h:

include/dglpart/progress.h:
