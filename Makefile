# SPDX-License-Identifier: MIT
# imgpatch: one plain GNU Makefile. `make V=1` shows the commands.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR  ?= $(DATADIR)/man
DESTDIR ?=

CC      ?= cc
BUILD   ?= build
PKG_CONFIG ?= pkg-config

# Libraries with a .pc file; libfdt ships none on Debian 12, hence the fallback.
PKGS       := ext2fs com_err blkid nettle zlib libconfuse libarchive liblzma libxcrypt
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
FDT_CFLAGS := $(shell $(PKG_CONFIG) --cflags libfdt 2>/dev/null)
FDT_LIBS   := $(shell $(PKG_CONFIG) --libs libfdt 2>/dev/null || echo -lfdt)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wformat=2 -Wwrite-strings -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -Itool/lib -Itool/cli \
             -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DIMGP_VERSION='"$(VERSION)"' \
             -DIMGP_RECIPE_DIR='"$(DATADIR)/imgpatch/recipes"' \
             $(PKG_CFLAGS) $(FDT_CFLAGS) -MMD -MP
LIBS     = $(FDT_LIBS) $(PKG_LIBS)

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)

# `make SAN=1` builds with AddressSanitizer + UndefinedBehaviorSanitizer.
ifeq ($(SAN),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -DIMGP_TEST_HOOKS \
             -fno-omit-frame-pointer
endif

LIB_SRC  := $(sort $(wildcard tool/lib/*.c tool/lib/*/*.c))
CLI_SRC  := $(sort $(wildcard tool/cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
# Helpers shared by the unit tests (temporary dirs, files, running tools,
# a filesystem in memory).
UNIT_LIB_SRC := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))
UNIT_LIB_OBJ := $(UNIT_LIB_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Unit tests may test CLI helpers too: an archive of all but main().
CLI_LIB_OBJ := $(filter-out $(BUILD)/tool/cli/main.o,$(CLI_OBJ))

# Shipped recipes: copied into $(BUILD)/recipes, .dts overlays compiled with
# symbols (dtc -@) so they can refer to the base tree's labels.
DTC          ?= dtc
RECIPE_FILES := $(filter-out recipes/README.md recipes/overlays/%.dts,\
                  $(wildcard recipes/* recipes/overlays/*))
# The Yocto layer lives beside the recipes but is not one of them.
RECIPE_FILES := $(filter-out recipes/overlays recipes/meta-imgpatch,$(RECIPE_FILES))
OVERLAY_SRC  := $(wildcard recipes/overlays/*.dts)
RECIPES_OUT  := $(RECIPE_FILES:recipes/%=$(BUILD)/recipes/%) \
                $(OVERLAY_SRC:recipes/overlays/%.dts=$(BUILD)/recipes/overlays/%.dtbo)

# The manual (scdoc source, rendered with the installed paths filled in),
# the shell completions and the JSON schemas, for `make install`.
SCDOC       ?= scdoc
MAN_SRC     := tool/man/imgpatch.1.scd
SCHEMAS     := $(wildcard tool/schema/*.json tool/schema/README.md)
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/vendor-completions
# The page's date: SOURCE_DATE_EPOCH (as Debian sets it), else the last commit.
MAN_EPOCH    = $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null))

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all check asan unit install uninstall clean demo deps deps-demo fuzz bench FORCE
# MAN=0 leaves the manual out of all and install, so that scdoc is not needed.
MAN ?= 1
INSTALLED_MAN = $(if $(filter 1,$(MAN)),$(BUILD)/imgpatch.1)

all: $(BUILD)/imgpatch $(UNIT_BIN) $(RECIPES_OUT) $(INSTALLED_MAN)

$(BUILD)/recipes/%: recipes/%
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(BUILD)/recipes/overlays/%.dtbo: recipes/overlays/%.dts
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  DTC     $<")
	$(Q)$(DTC) -q -@ -I dts -O dtb -o $@ $<

# DATADIR is compiled in (the installed recipes) and printed in the manual:
# both are made again when it changes, so `make install PREFIX=/usr` after a
# plain `make` installs a binary that finds its recipes. The stamp's time
# changes only with its content.
$(BUILD)/datadir.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' >$@
$(BUILD)/tool/cli/recipe-path.o: $(BUILD)/datadir.stamp

# An option split over two lines cannot be copied: scdoc puts its .nh
# before .TH, which turns hyphenation back on, so .nh goes after .TH too;
# and a "-" in bold or italic text (options, paths, properties) becomes
# "\-", at which troff does not break a line.
$(BUILD)/imgpatch.1: $(MAN_SRC) $(BUILD)/datadir.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  SCDOC   $<")
	$(Q)sed -e 's|@DATADIR@|$(DATADIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< >$@.scd
	$(Q)$(if $(MAN_EPOCH),SOURCE_DATE_EPOCH=$(MAN_EPOCH)) $(SCDOC) <$@.scd >$@.roff
	$(Q)sed -e '/^\.TH /a\' -e '.nh' \
		-e ':a' -e 's/\(\\f[BI]\([^\\]\|\\-\)*\)-/\1\\-/' -e 'ta' \
		$@.roff >$@.tmp && rm -f $@.scd $@.roff && mv $@.tmp $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libimgpatch.a: $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/libimgpatch-cli.a: $(CLI_LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/imgpatch: $(CLI_OBJ) $(BUILD)/libimgpatch.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libimgpatch.a $(LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(UNIT_LIB_OBJ) $(BUILD)/libimgpatch-cli.a $(BUILD)/libimgpatch.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_LIB_OBJ) $(BUILD)/libimgpatch-cli.a $(BUILD)/libimgpatch.a $(LIBS)

# Missing Debian packages: `deps` all that `make check` needs, `deps-demo`
# only what `make demo` needs (ci/install-deps.sh lists both sets).
deps:
	$(Q)bash ci/install-deps.sh

deps-demo:
	$(Q)bash ci/install-deps.sh --demo

# The test suite runs against the sanitizer build.
asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan SAN=1 all

# Warning-free under both compilers; the tests then run the sanitizer build
# (and the plain build under valgrind).
check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory CC=clang BUILD=build-clang all
	$(Q)$(MAKE) --no-print-directory asan
	@# The QEMU tests' U-Boot, from the cache or built now, so that no
	@# single test's time limit pays for a cold build.
	$(Q)bash tests/uboot/build-uboot.sh >/dev/null || \
		echo "make check: U-Boot for QEMU not built; the U-Boot tests say why" >&2
	@# The first boots' Debian roots and images, the same way.
	$(Q)for v in cloud-init plain; do \
		bash tests/firstboot/mkimage.sh $$v >/dev/null || \
		echo "make check: first-boot image $$v not built; t069x say why" >&2; \
	done
	$(Q)IMGPATCH_BUILD=$(CURDIR)/build-asan IMGPATCH_PLAIN_BUILD=$(CURDIR)/$(BUILD) \
		bash tests/run.sh

# Only the binary: the manual (scdoc), the recipes' overlays and the unit
# tests are not needed to build and patch the sample image. Built by a
# second make, after the packages are in, so that pkg-config is asked again
# (and `make -j` does not compile while the libraries are being installed).
demo: deps-demo
	$(Q)$(MAKE) --no-print-directory $(BUILD)/imgpatch
	$(Q)bash tests/demo.sh $(CURDIR)/$(BUILD)/imgpatch

# Installs the binary, the recipes with their README, the manual, the bash
# and zsh completions and the JSON schemas; `make uninstall` with the same
# variables removes exactly these, and the directories of our own that are
# left empty.
INSTALLED_RECIPES := $(RECIPES_OUT:$(BUILD)/recipes/%=%) README.md
INSTALLED_SCHEMAS := $(notdir $(SCHEMAS))

install: $(BUILD)/imgpatch $(RECIPES_OUT) $(INSTALLED_MAN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/imgpatch/recipes/overlays \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0755 $(BUILD)/imgpatch $(DESTDIR)$(BINDIR)/imgpatch
	for f in $(RECIPES_OUT:$(BUILD)/recipes/%=%); do \
		install -m 0644 $(BUILD)/recipes/$$f $(DESTDIR)$(DATADIR)/imgpatch/recipes/$$f || exit 1; \
	done
	install -m 0644 recipes/README.md $(DESTDIR)$(DATADIR)/imgpatch/recipes/README.md
ifneq ($(INSTALLED_MAN),)
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 0644 $(BUILD)/imgpatch.1 $(DESTDIR)$(MANDIR)/man1/imgpatch.1
endif
	install -m 0644 tool/completion/imgpatch.bash $(DESTDIR)$(BASHCOMPDIR)/imgpatch
	install -m 0644 tool/completion/_imgpatch $(DESTDIR)$(ZSHCOMPDIR)/_imgpatch
ifneq ($(SCHEMAS),)
	install -d $(DESTDIR)$(DATADIR)/imgpatch/schema
	install -m 0644 $(SCHEMAS) $(DESTDIR)$(DATADIR)/imgpatch/schema/
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/imgpatch $(DESTDIR)$(MANDIR)/man1/imgpatch.1 \
		$(DESTDIR)$(BASHCOMPDIR)/imgpatch $(DESTDIR)$(ZSHCOMPDIR)/_imgpatch \
		$(INSTALLED_RECIPES:%=$(DESTDIR)$(DATADIR)/imgpatch/recipes/%) \
		$(INSTALLED_SCHEMAS:%=$(DESTDIR)$(DATADIR)/imgpatch/schema/%)
	for d in recipes/overlays recipes schema ''; do \
		rmdir $(DESTDIR)$(DATADIR)/imgpatch/$$d 2>/dev/null || true; \
	done

clean:
	rm -rf build build-asan build-clang build-fuzz

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_SRC:%.c=$(BUILD)/%.d) $(UNIT_LIB_OBJ:.o=.d)
.SECONDARY:

# ------------------------------------------------------------------- fuzz
# libFuzzer harnesses (tests/fuzz/README.md), clang only: `make fuzz` runs
# each for FUZZ_TIME seconds, `make fuzz-smoke` for FUZZ_SMOKE_TIME; both
# fail when a harness finds a crash, a leak or undefined behaviour. The
# library is compiled again into FUZZ_BUILD with coverage instrumentation.
FUZZ_BUILD      ?= build-fuzz
FUZZ_CC         ?= clang
FUZZ_TIME       ?= 60
FUZZ_SMOKE_TIME ?= 10
FUZZ_TARGETS    ?= part fit dtb bootscr fstab recipe xz fat ext rpi-overlay overlay bootpath \
                   uboot-env
FUZZ_SAN        := -fsanitize=address,undefined -fno-sanitize-recover=all \
                   -fno-omit-frame-pointer
FUZZ_LIB_OBJ    := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BIN        := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)
# What the harnesses share besides tests/fuzz/fuzz.h (the filesystem in
# memory is the unit tests' too).
FUZZ_HELPER_OBJ := $(FUZZ_BUILD)/tests/fuzz/memfile.o $(FUZZ_BUILD)/tests/unit/memfs.o

$(FUZZ_BUILD)/%: CFLAGS := -g -O1
$(FUZZ_BUILD)/%: SAN_FLAGS := $(FUZZ_SAN)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (fuzz)")
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/libimgpatch.a: $(FUZZ_LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz-%: $(FUZZ_BUILD)/tests/fuzz/fuzz-%.o $(FUZZ_HELPER_OBJ) $(FUZZ_BUILD)/libimgpatch.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

# Seeds from the test fixtures, made once (again when a fixture changes).
$(FUZZ_BUILD)/corpus/.made: tests/fuzz/make-corpus.sh $(wildcard tests/fixtures/*.sh)
	@$(if $(Q),echo "  CORPUS  $(dir $@)")
	$(Q)rm -rf $(dir $@) && bash tests/fuzz/make-corpus.sh $(dir $@) && touch $@

.PHONY: fuzz-smoke fuzz-build
fuzz-build: $(FUZZ_BIN) $(FUZZ_BUILD)/corpus/.made

fuzz: fuzz-build
	$(Q)bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TIME) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	$(Q)bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SMOKE_TIME) $(FUZZ_TARGETS)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_HELPER_OBJ:.o=.d) \
	$(FUZZ_TARGETS:%=$(FUZZ_BUILD)/tests/fuzz/fuzz-%.d)

# ------------------------------------------------------------------ bench
# Timings against the standard tools on an 8 GiB KV260-like image, patched
# in place, as .img.xz and written to four cards (tests/bench/README.md);
# not part of `make check`. The fixture is made
# once into tests/bench/cache/; each case runs BENCH_RUNS times. A missed
# target is printed, not an error; a wrong output is.
BENCH_RUNS ?= 3

bench: all
	$(Q)BENCH_RUNS=$(BENCH_RUNS) bash tests/bench/bench.sh $(CURDIR)/$(BUILD)/imgpatch \
		$(CURDIR)/$(BUILD)/recipes
