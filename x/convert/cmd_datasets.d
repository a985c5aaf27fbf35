x/convert/cmd_datasets.o: convert/cmd_datasets.c include/dglpart/cmds.h \
  include/dglpart/download.h include/dglpart/error.h \
  include/dglpart/file.h include/dglpart/progress.h

include/dglpart/cmds.h:

include/dglpart/download.h:

include/dglpart/error.h:

include/dglpart/file.h:

include/dglpart/progress.h:
