x/copy/copy.o: copy/copy.c include/dglpart/copy.h include/dglpart/buf.h \
  include/dglpart/dglfile.h include/dglpart/file.h include/dglpart/npy.h \
  include/dglpart/error.h include/dglpart/ipconfig.h \
  include/dglpart/progress.h include/dglpart/shell.h

include/dglpart/copy.h:

include/dglpart/buf.h:

include/dglpart/dglfile.h:

include/dglpart/file.h:

include/dglpart/npy.h:

include/dglpart/error.h:

include/dglpart/ipconfig.h:

include/dglpart/progress.h:

include/dglpart/shell.h:
