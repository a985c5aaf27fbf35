x/convert/cv_stream.o: convert/cv_stream.c convert/cv.h \
  include/dglpart/buf.h include/dglpart/convert.h \
  include/dglpart/dataset.h include/dglpart/npy.h include/dglpart/file.h \
  include/dglpart/progress.h include/dglpart/error.h

convert/cv.h:

include/dglpart/buf.h:

include/dglpart/convert.h:

include/dglpart/dataset.h:

include/dglpart/npy.h:

include/dglpart/file.h:

include/dglpart/progress.h:

include/dglpart/error.h:
