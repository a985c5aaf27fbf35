x/runtime/sample.o: runtime/sample.c include/dglpart/buf.h \
  include/dglpart/error.h include/dglpart/runtime.h \
  include/dglpart/dglfile.h include/dglpart/file.h include/dglpart/npy.h

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/runtime.h:

include/dglpart/dglfile.h:

include/dglpart/file.h:

include/dglpart/npy.h:
