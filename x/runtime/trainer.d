x/runtime/trainer.o: runtime/trainer.c include/dglpart/buf.h \
  include/dglpart/error.h include/dglpart/parse.h \
  include/dglpart/runtime.h include/dglpart/dglfile.h \
  include/dglpart/file.h include/dglpart/npy.h

include/dglpart/buf.h:

include/dglpart/error.h:

include/dglpart/parse.h:

include/dglpart/runtime.h:

include/dglpart/dglfile.h:

include/dglpart/file.h:

include/dglpart/npy.h:
