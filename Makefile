# dglpart: one non-recursive Makefile. Every .c under the stage folders goes
# into libdglpart.a; the binary, unit tests and benchmarks link it.

CC       ?= cc
PKGS     := libcurl libarchive zlib libisal libcjson libcrypto
# libcurl and libarchive: headers only; loaded at run time (core/dynlib.c)
LINK_PKGS := zlib libisal libcjson libcrypto
METIS_LIBS ?= -lmetis
OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Werror
CFLAGS   ?= $(OPT)
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -pthread \
             -Iinclude $(WARN) $(CFLAGS) -MMD -MP \
             $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# Open MPI: headers only, for core/comm.c alone; libmpi is loaded at run
# time there, so a dglpart that mpirun did not start never maps it
MPI_CFLAGS = $(shell pkg-config --cflags ompi-c 2>/dev/null)
LIBS     = $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null) $(METIS_LIBS) -lm \
           -ldl -pthread
LDFLAGS  ?=

ifeq ($(SAN),1)
BUILD    := build/san
ALL_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
else
BUILD    := build/rel
endif

# make shared: the library as libdglpart.so (position-independent objects
# in their own folder), which the Python package loads with ctypes.
ifeq ($(PIC),1)
BUILD    := build/pic
ALL_CFLAGS += -fPIC
endif

# make fuzz CC=clang: libFuzzer binaries (their own main) instead of replay.
ifeq ($(FUZZ),1)
BUILD    := build/fuzz
ALL_CFLAGS += -fsanitize=fuzzer-no-link,address,undefined \
              -fno-sanitize-recover=all -fno-omit-frame-pointer \
              -Wno-format-nonliteral
FUZZ_MAIN := -fsanitize=fuzzer,address,undefined
else
FUZZ_MAIN := tests/fuzz/replay.c
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Layers, lowest first: a stage uses core/, format/ and itself only
# (tests/e2e/t0003-layers.sh checks it with nm); the pipeline sits on top.
STAGES   := core format download convert partition copy launch runtime
LIB_SRC  := $(wildcard $(addsuffix /*.c,$(STAGES))) pipeline.c cmd_run.c \
            arrays.c
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libdglpart.a
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/helpers/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

DEB_PKGS := build-essential pkg-config libmetis-dev metis zlib1g-dev \
            libisal-dev isal libarchive-dev libcjson-dev \
            libcurl4-openssl-dev libssl-dev openmpi-bin libopenmpi-dev \
            openssh-server openssh-client iproute2 util-linux python3 \
            nginx-light procps openssl time clang \
            python3-numpy python3-venv python3-pip python3-setuptools \
            python3-wheel
# Debian 12's own PyTorch: t0607 runs DGL-shaped trainers with a real gloo
# group on it (its torchrun cannot start on Python 3.11). Installed without
# its recommends (libtorch-dev, a compiler toolchain).
DEB_PKGS_NORECS := python3-torch

.PHONY: all test check deps run bench fuzz fuzz-bins lint install uninstall \
        man clean help pkgcheck shared install-python
.DEFAULT_GOAL := all
# A recipe that fails leaves no half-written target behind.
.DELETE_ON_ERROR:

# Before compiling: name a missing -dev package (pkg-config's own message is
# hidden and the failure would otherwise show as a linker error).
pkgcheck:
	@command -v pkg-config >/dev/null || \
	    { echo "missing: pkg-config (Debian package pkg-config); run 'make deps'" >&2; exit 1; }; \
	rc=0; for m in libcurl:libcurl4-openssl-dev libarchive:libarchive-dev \
	    zlib:zlib1g-dev libisal:libisal-dev libcjson:libcjson-dev \
	    libcrypto:libssl-dev ompi-c:libopenmpi-dev; do \
	    pkg-config --exists $${m%%:*} 2>/dev/null || \
	    { echo "missing: $${m%%:*} (Debian package $${m#*:}); run 'make deps'" >&2; rc=1; }; \
	done; \
	[ -f /usr/include/metis.h ] || [ -n "$(METIS_LIBS:-lmetis=)" ] || \
	    { echo "missing: metis.h (Debian package libmetis-dev); run 'make deps'" >&2; rc=1; }; \
	exit $$rc

## all: build ./dglpart
all: dglpart

# Always compared, so ./dglpart follows the last build kind (SAN=1 or not).
dglpart: $(BUILD)/dglpart FORCE
	$(Q)cmp -s $< $@ || cp $< $@

FORCE:

$(BUILD)/dglpart: $(BUILD)/dglpart.o $(LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)

$(LIB): $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/core/comm.o: ALL_CFLAGS += $(MPI_CFLAGS)

$(BUILD)/%.o: %.c | pkgcheck
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c tests/unit/harness.h $(LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

$(BUILD)/helpers/%: tests/helpers/%.c $(LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(LIB)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(FUZZ_MAIN) $(LIB) $(LDFLAGS) $(LIBS)

## shared: build/pic/libdglpart.so, the library of the Python package
SHLIB := build/pic/libdglpart.so
shared:
	$(Q)$(MAKE) --no-print-directory PIC=1 SAN=0 FUZZ=0 $(SHLIB)

# Every library the objects call is named, so a missing one fails here,
# not when Python loads the file.
$(BUILD)/libdglpart.so: $(LIB_OBJ)
	@echo "  LINK    $@"
	$(Q)$(CC) -shared -Wl,--no-undefined -o $@ $^ $(LDFLAGS) $(LIBS)

## deps: install the Debian packages dglpart needs (apt-get, as root)
deps:
	@SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; updated=; \
	for set in "$(DEB_PKGS)" "--no-install-recommends $(DEB_PKGS_NORECS)"; do \
	    missing=""; flags=""; \
	    for p in $$set; do \
	        case $$p in -*) flags=$$p; continue ;; esac; \
	        dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	    done; \
	    [ -n "$$missing" ] || continue; \
	    echo "installing:$$missing"; \
	    [ -n "$$updated" ] || $$SUDO apt-get update -qq || exit 1; \
	    updated=1; \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$flags $$missing || exit 1; \
	done

## test: install deps, build, run unit, fuzz-replay and end-to-end tests
test: deps
	$(Q)$(MAKE) --no-print-directory check

check: dglpart $(UNIT_BIN) $(HELPER_BIN) $(FUZZ_BIN) $(BENCH_BIN) shared
	$(Q)BUILD=$(BUILD) sh tests/run.sh

## run: install deps, build, partition the bundled dataset into data/
run: deps
	$(Q)$(MAKE) --no-print-directory dglpart
	./dglpart --num_parts 4 --balance_train

## bench: build benchmark helpers (run bench/*.sh by hand)
bench: dglpart $(BENCH_BIN)

# bench/gengraph.c writes .npz files through libarchive, linked directly.
$(BUILD)/bench/gengraph: LIBS += $(shell pkg-config --libs libarchive 2>/dev/null)

## fuzz: build libFuzzer targets with clang (make fuzz CC=clang)
fuzz:
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz-bins

fuzz-bins: $(FUZZ_BIN)

## lint: clang-format check and cppcheck
# Both checks run even when the first fails; the status is 1 if either does.
lint:
	@rc=0; \
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h') || rc=1; \
	cppcheck --quiet --error-exitcode=1 -Iinclude $(LIB_SRC) dglpart.c || rc=1; \
	exit $$rc

## man: build/dglpart.1, the man page, from the text of every --help and
## the settings table (dglpart help env)
# (the usage strings and core/env.c are the one source: they cannot drift)
MAN := $(BUILD)/dglpart.1
define MAN_SH
esc() { sed -e 's/\\/\\e/g' -e 's/^[.'"'"']/\\\&&/'; }
d=$$1
printf '.TH DGLPART 1 "" "%s" "User Commands"\n' "$$($$d --version)"
printf '.SH NAME\ndglpart \\- partition graph datasets for DGL distributed training, ship them and launch the job\n'
printf '.SH SYNOPSIS\n.nf\n'; $$d --help | esc; printf '.fi\n'
for c in $$($$d --help | sed -n '/^commands:/,/^$$/p' | awk 'NF && !/commands:/ {print $$1}'); do
    printf '.SH "DGLPART %s"\n.nf\n' "$$(echo $$c | tr a-z A-Z)"
    $$d $$c --help | esc
    printf '.fi\n'
done
printf '.SH ENVIRONMENT\n.nf\n'; $$d help env | esc; printf '.fi\n'
endef
export MAN_SH
man: $(MAN)
$(MAN): $(BUILD)/dglpart
	$(Q)sh -c "$$MAN_SH" sh $< >$@.tmp && mv $@.tmp $@

## install: dglpart, its bundled datasets, its man page and the Python
## package (for Debian's python3) under $(PREFIX)
PREFIX ?= /usr/local
SHARE := $(DESTDIR)$(PREFIX)/share/dglpart
# Debian's python3 reads /usr/lib/python3/dist-packages and, for other
# prefixes, PREFIX/lib/python3.X/dist-packages
PYTHON3 ?= /usr/bin/python3
PYVER = $(shell $(PYTHON3) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYSITE ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
PYPKG = $(DESTDIR)$(PYSITE)/dglpart

## install-python: the Python package alone (python/dglpart and its library)
install-python: shared
	install -d $(PYPKG)
	install -m 644 python/dglpart/*.py $(PYPKG)/
	install -m 755 $(SHLIB) $(PYPKG)/libdglpart.so

install: dglpart $(MAN) install-python
	install -D -m 755 dglpart $(DESTDIR)$(PREFIX)/bin/dglpart
	install -D -m 644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/dglpart.1
	for f in $$(cd datasets && find . -type f); do \
	    install -D -m 644 datasets/$$f $(SHARE)/datasets/$$f || exit 1; \
	done

## uninstall: remove what install put under $(PREFIX)
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/dglpart \
	    $(DESTDIR)$(PREFIX)/share/man/man1/dglpart.1
	rm -rf $(SHARE) $(PYPKG)

## clean: remove build outputs
clean:
	rm -rf build dglpart

## help: list targets
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

-include $(shell find build -name '*.d' 2>/dev/null)

# The registry is assembled into the binary (.incbin in download/registry.c).
$(BUILD)/download/registry.o: datasets/registry.json
