x/runtime/cmd_sample.o: runtime/cmd_sample.c include/dglpart/cmds.h \
  include/dglpart/error.h include/dglpart/parse.h \
  include/dglpart/runtime.h include/dglpart/buf.h \
  include/dglpart/dglfile.h include/dglpart/file.h include/dglpart/npy.h

include/dglpart/cmds.h:

include/dglpart/error.h:

include/dglpart/parse.h:

include/dglpart/runtime.h:

include/dglpart/buf.h:

include/dglpart/dglfile.h:

include/dglpart/file.h:

include/dglpart/npy.h:
