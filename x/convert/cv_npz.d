x/convert/cv_npz.o: convert/cv_npz.c convert/cv.h include/dglpart/buf.h \
  include/dglpart/convert.h include/dglpart/dataset.h \
  include/dglpart/npy.h include/dglpart/file.h \
  include/dglpart/progress.h include/dglpart/error.h

convert/cv.h:

include/dglpart/buf.h:

include/dglpart/convert.h:

include/dglpart/dataset.h:

include/dglpart/npy.h:

include/dglpart/file.h:

include/dglpart/progress.h:

include/dglpart/error.h:
