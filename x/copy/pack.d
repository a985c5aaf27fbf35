x/copy/pack.o: copy/pack.c include/dglpart/copy.h include/dglpart/buf.h \
  include/dglpart/error.h include/dglpart/file.h

include/dglpart/copy.h:

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/file.h:
