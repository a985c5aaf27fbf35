x/copy/tar.o: copy/tar.c include/dglpart/copy.h include/dglpart/buf.h \
  include/dglpart/error.h include/dglpart/progress.h

include/dglpart/copy.h:

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/progress.h:
