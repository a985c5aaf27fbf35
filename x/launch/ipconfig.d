x/launch/ipconfig.o: launch/ipconfig.c include/dglpart/error.h \
  include/dglpart/file.h include/dglpart/ipconfig.h \
  include/dglpart/parse.h

include/dglpart/error.h:

include/dglpart/file.h:

include/dglpart/ipconfig.h:

include/dglpart/parse.h:
