x/convert/registry.o: convert/registry.c include/dglpart/buf.h \
  include/dglpart/download.h include/dglpart/error.h \
  include/dglpart/file.h

include/dglpart/buf.h:

include/dglpart/download.h:

include/dglpart/error.h:

include/dglpart/file.h:
