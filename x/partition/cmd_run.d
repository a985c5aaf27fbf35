x/partition/cmd_run.o: partition/cmd_run.c include/dglpart/cmds.h \
  include/dglpart/error.h include/dglpart/partition.h \
  include/dglpart/dataset.h include/dglpart/npy.h include/dglpart/file.h

include/dglpart/cmds.h:

include/dglpart/error.h:

include/dglpart/partition.h:

include/dglpart/dataset.h:

include/dglpart/npy.h:

include/dglpart/file.h:
