x/core/progress.o: core/progress.c include/dglpart/error.h \
  include/dglpart/progress.h

include/dglpart/error.h:

include/dglpart/progress.h:
