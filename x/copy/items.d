x/copy/items.o: copy/items.c include/dglpart/copy.h include/dglpart/buf.h \
  include/dglpart/error.h include/dglpart/file.h

include/dglpart/copy.h:

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/file.h:
