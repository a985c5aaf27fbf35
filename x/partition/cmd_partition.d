x/partition/cmd_partition.o: partition/cmd_partition.c \
  include/dglpart/cmds.h include/dglpart/error.h include/dglpart/parse.h \
  include/dglpart/partition.h include/dglpart/dataset.h \
  include/dglpart/npy.h include/dglpart/file.h

include/dglpart/cmds.h:

include/dglpart/error.h:

include/dglpart/parse.h:

include/dglpart/partition.h:

include/dglpart/dataset.h:

include/dglpart/npy.h:

include/dglpart/file.h:
