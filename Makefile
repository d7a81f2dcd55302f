# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# emon-perf: BPF objects -> skeletons -> one userspace binary.
#   make            build ./emon-perf, libemon.a and libemon.so (thread
#                   self-monitoring), its example (generated files under
#                   $(OUTPUT))
#   make run        install what is missing (root), build, and count per
#                   cgroup and process for 5 s (ARGS= adds options after
#                   the defaults; a later option wins: --timeout 10000)
#   make test       install what is missing (root), build, unit tests,
#                   fuzzers, integration + stress tests while stress-ng
#                   keeps every CPU busy (root), then the unit and
#                   integration tests again under ASan + UBSan reading
#                   every event from its counter, then the counting
#                   tests in Debian 12's 6.1 and 6.12 kernels under QEMU,
#                   and the arm64 build's hardware counting tests in
#                   Debian 12's arm64 kernels on QEMU's emulated PMU
#                   (what CI runs)
#   make test-vm    those kernels' guests alone (tests/vm/guests.sh)
#   make cross-arm64  emon-perf, libemon and the tools for arm64, in
#                   $(OUTPUT)/arm64 (docs/arm64.md)
#   make test-counters  that counter pass alone (no sanitizers)
#   make integration  the integration tests alone, on an idle machine
#   make stress     longer fault and load tests (root)
#   make test-loaded  the integration + stress tests under load alone
#   make fuzz       every libFuzzer harness FUZZ_SECONDS (60) each
#   make asan       build into build-asan/ with ASan + UBSan, run unit +
#                   integration tests against it (make test does both)
#   make bench      benchmarks, rewrites BENCHMARKS.md
#   make bench-serve  the daemon's benchmarks alone (its section of it)
#   make bench-selfmon  the cost of a libemon read (its section of it)
#   make bench-memory  stat's memory in a process storm (its section of it)
#   make deps       install missing Debian packages
#   make install    the binary, man pages, bash completion, deploy files
#                   under $(DESTDIR)$(PREFIX) (PREFIX=/usr/local)
#   make V=1        show the commands
#   make OUTPUT=dir out-of-tree build directory (default build/)
#   make BIN=path   where the emon-perf binary goes (default ./emon-perf)

OUTPUT ?= build
O := $(abspath $(OUTPUT))

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
PKG_CONFIG ?= pkg-config

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(patsubst $(O)/%,%,$(2))";
endif

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	  -Iinclude -I. -I$(O) -MMD -MP
CFLAGS += $(EXTRA_CFLAGS)
LDFLAGS += $(EXTRA_LDFLAGS)
LIBS := -lbpf -lelf -lz -lpfm -ljson-c -lm -lmicrohttpd -lcurl -lpthread \
	-lyaml -lcrypt -lgnutls \
	$(shell $(PKG_CONFIG) --libs libsensors 2>/dev/null || echo -lsensors) \
	$(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(O)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(O)/%.skel.h,$(BPF_SRCS))

# The userspace layers, lowest first, each a folder and an archive
# ($(O)/lib<layer>.a); a layer includes only itself and those below it
# (tests/layering.sh checks it in make test): common <- proto <- pmu,
# rapl, libemon <- engine <- front <- the commands (cli/<command>/,
# daemon/) <- cli/main.c. A layer's sources are found in its sub-folders
# too (engine/session/, daemon/socket/, cli/stat/, ...); their objects
# mirror the tree under $(O)/obj. proto/ is the daemon's socket client,
# which libemon and the front ends' daemon source share: built into
# libproto.a and into libemon.a too.
# Everything but main() is in them, and the tests link them.
LAYERS := common proto pmu rapl engine front daemon cli
layer_srcs = $(sort $(shell find $(1) -name '*.c'))
$(foreach l,$(LAYERS),$(eval $(l)_SRCS := $(filter-out cli/main.c,$(call layer_srcs,$(l)))))
LIB_SRCS := $(foreach l,$(LAYERS),$($(l)_SRCS))
MAIN_OBJ := $(O)/obj/cli/main.o
# link order: upper layers first
LIB := $(O)/libcli.a $(O)/libdaemon.a $(O)/libfront.a $(O)/libengine.a \
	$(O)/librapl.a $(O)/libpmu.a $(O)/libemon.a $(O)/libproto.a $(O)/libcommon.a

# libemon: thread self-monitoring for applications, at the top of the
# tree; plain libc, no libbpf (cc -Iinclude prog.c libemon.a -lpthread).
# The shared one exports emon_self_* only.
SELF_SRCS := $(wildcard libemon/*.c proto/*.c)
SELF_OBJS := $(patsubst %.c,$(O)/pic/%.o,$(SELF_SRCS))
SELF_A := $(O)/libemon.a
SELF_SO := $(O)/libemon.so
SELF_LIBS := libemon.a libemon.so
# The example and the test and benchmark programs, built as a user would
# (against $(O)'s copy: a sanitizer build has its own).
SELF_PROG_SRCS := $(wildcard examples/*.c tools/selfmon/*.c)
SELF_PROGS := $(patsubst %.c,$(O)/%,$(SELF_PROG_SRCS))

# Unit tests by layer: tests/unit/<layer>/test_*.c tests the layer it is in
# (and includes only it and those below it: tests/layering.sh); each is
# $(O)/tests/test_* (their names are unique), tests/unit/helpers.h theirs.
UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
UNIT_BINS := $(patsubst %.c,$(O)/tests/%,$(notdir $(UNIT_SRCS)))
TOOL_SRCS := $(wildcard tools/*.c)
TOOL_BINS := $(patsubst tools/%.c,$(O)/tools/%,$(TOOL_SRCS))

.PHONY: all clean test test-vm cross-arm64 test-counters asan-counters test-loaded unit integration stress bench bench-serve bench-selfmon bench-memory deps \
	tools run selfmon \
	selfmon-progs \
	fuzz fuzzers asan install uninstall
.DELETE_ON_ERROR:
.SECONDARY:

all: emon-perf tools selfmon

deps:
	$(Q)tools/install-deps.sh

$(O)/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

# Each part of the BPF program (bpf/*.bpf.h) compiles alone: it includes
# what it needs, so none depends on where another includes it.
BPF_PART_CHECKS := $(patsubst bpf/%.bpf.h,$(O)/bpf/parts/%.ok,$(wildcard bpf/*.bpf.h))
$(O)/bpf/parts/%.ok: bpf/%.bpf.h $(wildcard bpf/*.h include/*.h) $(O)/vmlinux.h
	$(call msg,CHECK,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		-Wno-unused-function -Iinclude -I$(O) -fsyntax-only -x c $<
	$(Q)touch $@

# bpf/*.h too: clang writes its -MMD file for the .tmp it outputs
$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) include/emon.h $(O)/vmlinux.h \
		  $(BPF_PART_CHECKS)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		-Iinclude -I$(O) -MMD -MP -MT $@ -MF $@.d -c $< -o $@.tmp
	$(Q)llvm-strip -g $@.tmp -o $@ 2>/dev/null || mv $@.tmp $@
	$(Q)rm -f $@.tmp

$(O)/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

$(O)/obj/%.o: %.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

define layer_archive
$(O)/lib$(1).a: $(patsubst %.c,$(O)/obj/%.o,$($(1)_SRCS))
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && $$(AR) rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call layer_archive,$(l))))

BIN ?= emon-perf
$(BIN): $(MAIN_OBJ) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBS) -o $@

ifneq ($(BIN),emon-perf)
.PHONY: emon-perf
emon-perf: $(BIN)
	@:
endif

# A fake libnvidia-ml.so.1 (tests/fake-nvml/): the GPU tests load it in
# place of NVIDIA's, through LD_LIBRARY_PATH or --gpu=PATH
FAKE_NVML := $(O)/tests/fake-nvml/libnvidia-ml.so.1
$(FAKE_NVML): tests/fake-nvml/fake_nvml.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -fPIC -shared \
		-Wl,-soname,libnvidia-ml.so.1 $(LDFLAGS) $< -o $@

tools: $(TOOL_BINS) $(FAKE_NVML)

selfmon: $(SELF_LIBS) selfmon-progs

selfmon-progs: $(SELF_PROGS)

$(O)/pic/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(SELF_A): $(SELF_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SELF_SO): $(SELF_OBJS) libemon/libemon.map
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libemon.so.0 \
		-Wl,--version-script=libemon/libemon.map $(SELF_OBJS) -o $@

libemon.a libemon.so: lib%: $(O)/lib%
	$(call msg,CP,$@)
	$(Q)cp $< $@

$(O)/examples/%: examples/%.c $(SELF_A) include/emon/selfmon.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -Iinclude $< $(SELF_A) -lpthread -o $@

$(O)/tools/selfmon/%: tools/selfmon/%.c $(SELF_A) include/emon/selfmon.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -Iinclude $< $(SELF_A) -lpthread -o $@

$(O)/tools/%: tools/%.c $(LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LIBS) -o $@

define unit_test
$(O)/tests/$(basename $(notdir $(1))): $(1) $(LIB)
	$$(call msg,CC,$$@)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) -Itests/unit $$(LDFLAGS) $$< $$(LIB) $$(LIBS) -lcmocka -o $$@
endef
$(foreach t,$(UNIT_SRCS),$(eval $(call unit_test,$(t))))

unit: $(UNIT_BINS) $(FAKE_NVML)

# As root, first install what is missing (a no-op when all is there).
as_root_deps = if [ "$$(id -u)" -eq 0 ]; then tools/install-deps.sh $(1); fi

# Unit tests and short fuzz runs; the integration and stress tests on a
# busy machine (tests/loaded.sh: what make test-loaded runs; they hold
# there as they do idle, and a host is seldom idle); then the unit and
# integration tests again on the sanitizer build with every event read
# from its counter (asan-counters: the path cycles and instructions
# take). All run, any fails it. Not root: the unit tests and fuzzers only.
test:
	$(Q)$(call as_root_deps,--with-test)
	$(Q)$(MAKE) --no-print-directory emon-perf tools selfmon unit fuzzers
	$(Q)export TEST_SUMMARY=$(O)/test-summary; : >"$$TEST_SUMMARY"; t0=$$(date +%s); \
		ret=0; OUTPUT=$(O) tests/run.sh --unit || ret=1; \
		OUTPUT=$(O) FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) tests/run.sh --fuzz || ret=1; \
		if [ "$$(id -u)" -ne 0 ]; then \
			echo "integration and stress tests skipped: they need root (BPF, perf events, cgroups)"; \
			exit $$ret; \
		fi; \
		OUTPUT=$(O) tests/loaded.sh || ret=1; \
		$(MAKE) --no-print-directory asan-counters || ret=1; \
		OUTPUT=$(O) tests/vm/guests.sh || ret=1; \
		echo; echo "make test: $$([ $$ret -eq 0 ] && echo passed || echo FAILED) in $$(($$(date +%s) - t0)) s after the build, each pass:"; \
		sed 's/^/  /' "$$TEST_SUMMARY"; exit $$ret

# The counting tests inside Debian 12's own 6.1 and 6.12 kernels, in QEMU
# guests with this tree as their root (tests/vm/guests.sh; root).
test-vm: emon-perf tools selfmon
	$(Q)OUTPUT=$(O) tests/vm/guests.sh

# The integration tests with every event read from its per-CPU perf_event
# (EMON_SWITCH_EVENTS=counters): the path cycles and instructions take,
# which the switch-derived software events skip by default.
test-counters: emon-perf tools selfmon
	$(Q)echo "counter pass: integration tests with every event read from its counter"
	$(Q)OUTPUT=$(O) tests/run.sh --counters

# make cross-arm64: emon-perf, libemon and the tools for arm64 under
# $(OUTPUT)/arm64, with Debian's cross gcc (gcc-aarch64-linux-gnu) and the
# :arm64 -dev packages (tools/install-deps.sh --with-test). The BPF
# object is built for arm64 from this machine's vmlinux.h: CO-RE relocates
# it on the arm64 kernel. The arm64 guest's tests (tests/vm/arm64.sh) run
# these binaries.
CROSS_ARM64_O := $(O)/arm64
cross-arm64:
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(CROSS_ARM64_O) ARCH=arm64 \
		CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar \
		PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		BIN=$(CROSS_ARM64_O)/emon-perf $(CROSS_ARM64_O)/emon-perf \
		$(CROSS_ARM64_O)/libemon.a $(CROSS_ARM64_O)/libemon.so tools selfmon-progs

# make run's options; ARGS= adds to them (stat takes an option's last value)
RUN_ARGS := -a --by system,cgroup,process --top 10 --timeout 5000
run:
	$(Q)$(call as_root_deps,)
	$(Q)$(MAKE) --no-print-directory emon-perf
	./emon-perf stat $(RUN_ARGS) $(ARGS)

integration: emon-perf tools selfmon
	$(Q)OUTPUT=$(O) tests/run.sh --integration

# Longer fault and load tests (tests/stress/), not part of make test.
stress: emon-perf tools
	$(Q)OUTPUT=$(O) tests/run.sh --stress

# The integration and stress tests again while stress-ng runs 2 CPU
# workers per CPU at their priority (tests/loaded.sh; long_run for 60 s).
test-loaded: emon-perf tools
	$(Q)$(call as_root_deps,--with-test)
	$(Q)OUTPUT=$(O) tests/loaded.sh

# libFuzzer harnesses (tests/fuzz/): the library sources again, built by
# clang with the fuzzer's coverage and ASan + UBSan into objects of their
# own, apart from the gcc -O2 ones.
FUZZ_O := $(O)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer
FUZZ_CFLAGS = $(filter-out -O%,$(CFLAGS)) -O1 $(FUZZ_SAN)
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_O)/obj/%.o,$(LIB_SRCS))
FUZZ_LIB := $(FUZZ_O)/libemon-core.a
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_O)/%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 5

$(FUZZ_O)/obj/%.o: %.c | $(SKELS)
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LIB) $(LIBS) -o $@

fuzzers: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	$(Q)OUTPUT=$(O) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run.sh --fuzz

# The whole project again with ASan + UBSan (aborting on the first error,
# leaks checked at exit) in its own build directory, and the unit and
# integration tests against it; reports go to $(ASAN_O)/sanitizer/, which
# tests/run.sh checks after every test. The BPF object is the same. clang:
# gcc's UBSan ignores log_path and would only print to the test's stderr.
# Warnings stay fatal in the gcc build; clang's extra ones are shown here.
ASAN_OUTPUT ?= build-asan
ASAN_O := $(abspath $(ASAN_OUTPUT))
ASAN_CC ?= $(CLANG)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	     -fno-omit-frame-pointer
# asan-counters: the same, with EMON_SWITCH_EVENTS=counters (tests/run.sh:
# a test about the switch-derived path itself runs on it instead), so that
# one pass holds both the sanitizers and the counter path.
asan-counters:
	$(Q)EMON_SWITCH_EVENTS=counters $(MAKE) --no-print-directory asan

asan:
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(ASAN_OUTPUT) CC=$(ASAN_CC) \
		BIN=$(ASAN_O)/emon-perf EXTRA_CFLAGS="$(SAN_FLAGS) -Wno-error" \
		EXTRA_LDFLAGS="$(SAN_FLAGS)" emon-perf tools selfmon-progs unit
	$(Q)echo "sanitizer build ($(ASAN_OUTPUT)): unit and integration tests"
	$(Q)OUTPUT=$(ASAN_O) EMON=$(ASAN_O)/emon-perf \
		SAN_LOGS=$(ASAN_O)/sanitizer tests/run.sh

bench: emon-perf tools selfmon
	$(Q)OUTPUT=$(O) tools/bench.sh
	$(Q)OUTPUT=$(O) tools/bench-serve.sh
	$(Q)OUTPUT=$(O) tools/bench-selfmon.sh
	$(Q)OUTPUT=$(O) tools/bench-storm-rss.sh

# stat's memory in a process storm, two heap settings (tools/bench-storm-rss.sh): about 2 min
bench-memory: emon-perf tools
	$(Q)OUTPUT=$(O) tools/bench-storm-rss.sh

# the cost of a libemon read (tools/bench-selfmon.sh): about 30 s
bench-selfmon: emon-perf selfmon
	$(Q)OUTPUT=$(O) tools/bench-selfmon.sh

bench-serve: emon-perf tools
	$(Q)OUTPUT=$(O) tools/bench-serve.sh

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the systemd unit's
# ExecStart names the installed binary.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/emon-perf
UNITDIR ?= $(PREFIX)/lib/systemd/system
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
LIBDIR ?= $(PREFIX)/lib
INCDIR ?= $(PREFIX)/include
MAN1 := man/emon-perf.1 man/emon-perf-stat.1 man/emon-perf-report.1 man/emon-perf-top.1 \
	man/emon-perf-check.1
MAN8 := man/emon-perf-serve.8
INSTALLED := $(BINDIR)/emon-perf $(addprefix $(MANDIR)/man1/,$(notdir $(MAN1))) \
	$(addprefix $(MANDIR)/man8/,$(notdir $(MAN8))) $(COMPDIR)/emon-perf \
	$(UNITDIR)/emon-perf.service $(DATADIR)/deploy/systemd/emon-perf.service \
	$(DATADIR)/deploy/kubernetes/daemonset.yaml \
	$(DATADIR)/doc/capabilities.md $(DATADIR)/doc/protocol.md \
	$(LIBDIR)/libemon.a $(LIBDIR)/libemon.so.0 $(LIBDIR)/libemon.so $(INCDIR)/emon/selfmon.h

# libemon from this build's $(O), not the copies at the top, which the
# last build of any flavour (make asan's too) wrote
install: $(BIN) $(SELF_A) $(SELF_SO)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/emon-perf
	$(Q)install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8
	$(Q)install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(Q)install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/
	$(Q)install -D -m 0644 completion/emon-perf.bash $(DESTDIR)$(COMPDIR)/emon-perf
	$(Q)install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DATADIR)/deploy/systemd \
		$(DESTDIR)$(DATADIR)/deploy/kubernetes $(DESTDIR)$(DATADIR)/doc
	$(Q)sed 's|/usr/local/bin/emon-perf|$(BINDIR)/emon-perf|' deploy/systemd/emon-perf.service \
		>$(DESTDIR)$(UNITDIR)/emon-perf.service
	$(Q)install -m 0644 $(DESTDIR)$(UNITDIR)/emon-perf.service $(DESTDIR)$(DATADIR)/deploy/systemd/
	$(Q)install -m 0644 deploy/kubernetes/daemonset.yaml $(DESTDIR)$(DATADIR)/deploy/kubernetes/
	$(Q)install -m 0644 docs/capabilities.md docs/protocol.md $(DESTDIR)$(DATADIR)/doc/
	$(Q)install -D -m 0644 $(SELF_A) $(DESTDIR)$(LIBDIR)/libemon.a
	$(Q)install -D -m 0755 $(SELF_SO) $(DESTDIR)$(LIBDIR)/libemon.so.0
	$(Q)ln -sf libemon.so.0 $(DESTDIR)$(LIBDIR)/libemon.so
	$(Q)install -D -m 0644 include/emon/selfmon.h $(DESTDIR)$(INCDIR)/emon/selfmon.h

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	$(Q)rmdir -p $(DESTDIR)$(DATADIR)/deploy/systemd $(DESTDIR)$(DATADIR)/deploy/kubernetes \
		$(DESTDIR)$(DATADIR)/doc $(DESTDIR)$(INCDIR)/emon 2>/dev/null || true

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(O) emon-perf $(ASAN_O) $(SELF_LIBS)

# every dependency file, at any depth ($(O)/obj/daemon/socket/, fuzz/obj/...);
# files only: $(O)/vm holds unpacked packages (linux-perf's .../runtime.d/)
-include $(shell find $(O) -name '*.d' -type f 2>/dev/null)
