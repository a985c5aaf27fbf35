x/runtime/server.o: runtime/server.c include/dglpart/buf.h \
  include/dglpart/error.h include/dglpart/ipconfig.h \
  include/dglpart/runtime.h include/dglpart/dglfile.h \
  include/dglpart/file.h include/dglpart/npy.h

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/ipconfig.h:

include/dglpart/runtime.h:

include/dglpart/dglfile.h:

include/dglpart/file.h:

include/dglpart/npy.h:
