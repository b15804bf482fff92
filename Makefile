# calltrace: see README.md.
#   make          build libcalltrace.so, calltrace-report and calltrace into
#                 build/
#   make demo     install missing packages (as root), build, trace an example
#                 and print its report
#   make check    every test: unit (ASan+UBSan), end-to-end, fuzz smoke
#   make bench    benchmarks (see BENCHMARKS.md)
#   make install  PREFIX=/usr/local DESTDIR=; make uninstall removes it

CC       ?= gcc
BUILD    ?= build
VERSION  := 0.1.0
WARN     := -Wall -Wextra -Werror
CSTD     := -std=gnu11
OPT      ?= -O2 -g
CPPFLAGS += -I. -Iinclude -DCALLTRACE_VERSION='"$(VERSION)"' -D_GNU_SOURCE
CFLAGS   += $(CSTD) $(WARN) $(OPT)
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined

# Each compile also writes BUILD/....d, the headers the object was built
# from (-MMD, the project's headers only), with an empty rule for each (-MP)
# so a removed header does not stop the build.  Included at the end: touching
# a header rebuilds exactly the objects that use it.
DEPFLAGS := -MMD -MP

# The tracer (preload/, a folder per part, each file named in the map of
# preload/README.md) is never instrumented itself, keeps errno and takes no
# locks on its hot path (preload/hot/hot.c).
PRELOAD_CFLAGS := $(CFLAGS) -fPIC -fvisibility=hidden -fno-instrument-functions
# -z now: every symbol the tracer calls is bound at load, so no call of
# the tracer runs the loader's lazy binding (a frame of several KiB) on
# the program's stack, or on a small signal stack (docs/reliability.md).
# The linker's __start_/__stop_ symbols of the tracer's own sections stay
# inside the library (preload/exports.map): it exports only the hooks and
# the wrappers.
PRELOAD_LIBS   := -ldl -lpthread -Wl,-z,now -Wl,--version-script=preload/exports.map
ANALYZER_LIBS  := -lbfd -lm -lz -lzstd

# preload/ and each folder below it (one level: hot/, file/, stream/,
# base/, libcalls/, filters/, sampling/, wrap/, control/, profile/, patch/)
# hold the tracer's sources; a file added to any of them is built.
# Includes name a header by its path from the repository's root
# ("preload/hot/tracer_thread.h", "analyzer/model/profile.h"), the public
# ones of include/ by their name alone, so the root and include/ are the
# only include folders.
PRELOAD_DIRS  := preload $(sort $(patsubst %/,%,$(dir $(wildcard preload/*/*))))
# settings/ holds the parsers of the tracer's settings (CALLTRACE_*, the
# filter and argument specs), built into the tracer and into calltrace,
# which checks record's options as the tracer will read them.
SETTINGS_SRCS := $(sort $(wildcard settings/*.c))
PRELOAD_SRCS  := $(sort $(foreach d,$(PRELOAD_DIRS),$(wildcard $(d)/*.c))) \
                 $(SETTINGS_SRCS)
PRELOAD_ASM   := $(sort $(foreach d,$(PRELOAD_DIRS),$(wildcard $(d)/*.S)))
ANALYZER_DIRS := analyzer analyzer/read analyzer/readers analyzer/model analyzer/report \
                 analyzer/writers
ANALYZER_SRCS := $(sort $(foreach d,$(ANALYZER_DIRS),$(wildcard $(d)/*.c)))
# The front end, calltrace: its verbs and the settings' parsers, linked
# with the analyzer's library (its readers give the figures of record's
# closing line).
FRONT_SRCS    := $(sort $(wildcard frontend/*.c))
FRONT_OBJS    := $(FRONT_SRCS:%.c=$(BUILD)/%.o) \
                 $(SETTINGS_SRCS:%.c=$(BUILD)/frontend/%.o)
# init.c starts the tracer when the library is loaded; unit tests link the
# rest of the tracer without it.
PRELOAD_LIB_SRCS  := $(filter-out %/init.c,$(PRELOAD_SRCS))
ANALYZER_LIB_SRCS := $(filter-out analyzer/main.c,$(ANALYZER_SRCS))

PRELOAD_OBJS  := $(PRELOAD_SRCS:%.c=$(BUILD)/%.o) $(PRELOAD_ASM:%.S=$(BUILD)/%.o)
ANALYZER_OBJS := $(ANALYZER_SRCS:%.c=$(BUILD)/%.o)
SAN_PRELOAD_LIB_OBJS  := $(PRELOAD_LIB_SRCS:%.c=$(BUILD)/san/%.o) \
                         $(PRELOAD_ASM:%.S=$(BUILD)/san/%.o)
SAN_ANALYZER_LIB_OBJS := $(ANALYZER_LIB_SRCS:%.c=$(BUILD)/san/%.o)
# The analyzer as a library: calltrace-report (analyzer/main.c), the front
# end and the unit tests link it, and the linker takes the objects each
# needs.  The sanitized one is for the tests.
ANALYZER_LIB_OBJS := $(ANALYZER_LIB_SRCS:%.c=$(BUILD)/%.o)
ANALYZER_A     := $(BUILD)/libcalltrace-analyzer.a
SAN_ANALYZER_A := $(BUILD)/san/libcalltrace-analyzer.a

UNIT_SRCS    := $(sort $(wildcard tests/unit/test_*.c))
UNIT_PRELOAD := $(filter tests/unit/test_preload_%,$(UNIT_SRCS))
UNIT_OTHER   := $(filter-out $(UNIT_PRELOAD),$(UNIT_SRCS))
UNIT_BINS    := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

LIB    := $(BUILD)/libcalltrace.so
REPORT := $(BUILD)/calltrace-report
FRONT  := $(BUILD)/calltrace
REPORT_SAN := $(BUILD)/san/calltrace-report

# The tracer built with ThreadSanitizer, for tests/e2e/trace_tsan.sh
# (docs/reliability.md, "ThreadSanitizer").  sample.c and wrap.c stay
# uninstrumented: they interpose functions TSan calls while it starts;
# so do keeper.c and helper.c, whose code runs in processes that share the
# program's memory and the TLS of the thread that cloned them, where
# TSan's instrumentation would write that thread's state from two places.
LIB_TSAN   := $(BUILD)/tsan/libcalltrace.so
TSAN_PLAIN := $(filter %/sample.c %/wrap.c %/keeper.c %/helper.c,$(PRELOAD_SRCS))
TSAN_PRELOAD_OBJS := $(PRELOAD_SRCS:%.c=$(BUILD)/tsan/%.o) \
                     $(PRELOAD_ASM:%.S=$(BUILD)/tsan/%.o)

.PHONY: all deps demo check unit e2e fuzz fuzz-long bench clean install \
        uninstall tsan
all: $(LIB) $(REPORT) $(FRONT)

deps:
	@scripts/install-deps.sh

$(LIB): $(PRELOAD_OBJS) preload/exports.map
	$(CC) -shared -o $@ $(PRELOAD_OBJS) $(PRELOAD_LIBS)

$(ANALYZER_A): $(ANALYZER_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(SAN_ANALYZER_A): $(SAN_ANALYZER_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(REPORT): $(BUILD)/analyzer/main.o $(ANALYZER_A)
	$(CC) -o $@ $^ $(ANALYZER_LIBS)

# libdw (elfutils): the parameters of --args FUNC@args, from DWARF
# (frontend/args_dwarf.c); a well-kept reader of types and scopes.
FRONT_LIBS := $(ANALYZER_LIBS) -ldw -lelf

$(FRONT): $(FRONT_OBJS) $(ANALYZER_A)
	$(CC) -o $@ $^ $(FRONT_LIBS)

$(BUILD)/frontend/%.o: frontend/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/frontend/settings/%.o: settings/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(REPORT_SAN): $(BUILD)/san/analyzer/main.o $(SAN_ANALYZER_A)
	$(CC) $(SAN) -o $@ $^ $(ANALYZER_LIBS)

tsan: $(LIB_TSAN)

$(LIB_TSAN): $(TSAN_PRELOAD_OBJS)
	$(CC) -shared -fsanitize=thread -o $@ $^ $(PRELOAD_LIBS)

$(BUILD)/tsan/preload/%.o: preload/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(PRELOAD_CFLAGS) \
	    $(if $(filter $<,$(TSAN_PLAIN)),,-fsanitize=thread) -c -o $@ $<

$(BUILD)/tsan/settings/%.o: settings/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(PRELOAD_CFLAGS) -fsanitize=thread -c -o $@ $<

$(BUILD)/tsan/preload/%.o: preload/%.S
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) -c -o $@ $<

# The hooks' file, the library calls' C, the values' plans and the table
# of stable memory their strings are read from use no vector register,
# and must not: the patchable entries' trampolines and the library-call
# stubs call their fast paths without saving any (preload/hot/hot.c,
# preload/patch/patch_tramp.S, preload/libcalls/plt.c and plt_tramp.S,
# preload/args/plan.c, preload/base/stable_mem.c).
$(BUILD)/preload/hot/hot.o $(BUILD)/preload/libcalls/plt.o \
$(BUILD)/preload/args/plan.o $(BUILD)/preload/base/stable_mem.o: \
    PRELOAD_CFLAGS += -mgeneral-regs-only

$(BUILD)/preload/%.o: preload/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(PRELOAD_CFLAGS) -c -o $@ $<

$(BUILD)/settings/%.o: settings/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(PRELOAD_CFLAGS) -c -o $@ $<

$(BUILD)/preload/%.o: preload/%.S
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) -c -o $@ $<

$(BUILD)/san/preload/%.o: preload/%.S
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) -c -o $@ $<

$(BUILD)/analyzer/%.o: analyzer/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/san/preload/%.o: preload/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(PRELOAD_CFLAGS) $(SAN) -c -o $@ $<

$(BUILD)/san/settings/%.o: settings/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(PRELOAD_CFLAGS) $(SAN) -c -o $@ $<

$(BUILD)/san/analyzer/%.o: analyzer/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN) -c -o $@ $<

# Unit tests: cmocka, built with ASan and UBSan.  A test is compiled from
# its source and linked with the objects alone ($< and the .o files): its
# .d file adds the headers and included .c files it was built from as
# prerequisites, which $^ would hand to the compiler too.
# Static pattern rules: with one implicit rule per prefix, make would pick
# test_% for a preload test whose objects are not built yet.
$(UNIT_PRELOAD:tests/unit/%.c=$(BUILD)/tests/%): $(BUILD)/tests/test_preload_%: \
    tests/unit/test_preload_%.c $(SAN_PRELOAD_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(SAN) -o $@ \
	    $< $(filter %.o,$^) \
	    -lcmocka $(PRELOAD_LIBS)

$(UNIT_OTHER:tests/unit/%.c=$(BUILD)/tests/%): $(BUILD)/tests/test_%: \
    tests/unit/test_%.c $(SAN_ANALYZER_A)
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(SAN) -o $@ \
	    $< $(filter %.o %.a,$^) \
	    -lcmocka $(ANALYZER_LIBS)

demo: deps all
	@scripts/demo.sh

unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

e2e: all $(REPORT_SAN) $(LIB_TSAN)
	@BUILD=$(BUILD) tests/run-e2e.sh

fuzz: $(ANALYZER_LIB_SRCS)
	@BUILD=$(BUILD) tests/fuzz/run.sh smoke

fuzz-long:
	@BUILD=$(BUILD) tests/fuzz/run.sh long

check: deps all $(REPORT_SAN) $(LIB_TSAN) $(UNIT_BINS)
	@BUILD=$(BUILD) tests/run-all.sh $(UNIT_BINS)

bench: all
	@BUILD=$(BUILD) bench/run.sh

# make install PREFIX=/usr/local DESTDIR=: the library goes into a private
# folder (lib/calltrace, as uftrace does), found by bin/calltrace relative to
# itself, so the layout below is fixed and the tree can be moved whole.
# DESTDIR only stages the copy: no installed file mentions it.
PREFIX ?= /usr/local
INSTALLED := bin/calltrace bin/calltrace-report lib/calltrace/libcalltrace.so \
    include/calltrace.h lib/pkgconfig/calltrace.pc \
    share/man/man1/calltrace.1 share/man/man1/calltrace-report.1 \
    share/man/man3/calltrace.3 \
    share/bash-completion/completions/calltrace \
    share/bash-completion/completions/calltrace-report
I := $(DESTDIR)$(PREFIX)

install: all
	install -d $(I)/bin $(I)/lib/calltrace $(I)/lib/pkgconfig $(I)/include \
	    $(I)/share/man/man1 $(I)/share/man/man3 \
	    $(I)/share/bash-completion/completions
	install -m 755 $(FRONT) $(REPORT) $(I)/bin/
	install -m 755 $(LIB) $(I)/lib/calltrace/
	install -m 644 include/calltrace.h $(I)/include/
	for m in man/*.[0-9]; do \
	    sed 's/@VERSION@/$(VERSION)/g' $$m >$(I)/share/man/man$${m##*.}/$${m#man/} \
	    && chmod 644 $(I)/share/man/man$${m##*.}/$${m#man/} || exit 1; \
	done
	install -m 644 completion/calltrace.bash \
	    $(I)/share/bash-completion/completions/calltrace
	install -m 644 completion/calltrace.bash \
	    $(I)/share/bash-completion/completions/calltrace-report
	printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$${prefix}/include' \
	    'libdir=$${prefix}/lib/calltrace' \
	    'preload=$${libdir}/libcalltrace.so' \
	    'instrument_cflags=-finstrument-functions -g' '' \
	    'Name: calltrace' \
	    'Description: exact call tracing of programs built with -finstrument-functions' \
	    'Version: $(VERSION)' 'Cflags: -I$${includedir}' \
	    >$(I)/lib/pkgconfig/calltrace.pc
	chmod 644 $(I)/lib/pkgconfig/calltrace.pc

uninstall:
	rm -f $(INSTALLED:%=$(I)/%)
	-rmdir $(I)/lib/calltrace 2>/dev/null

clean:
	rm -rf $(BUILD)

# Header dependencies (DEPFLAGS).  An object whose .d is missing (built
# before -MMD, or the .d removed) depends on it, and the empty rule makes it
# out of date, so it is rebuilt once and its .d written.
DEP_OBJS := $(PRELOAD_OBJS) $(ANALYZER_OBJS) $(FRONT_OBJS) \
            $(SAN_PRELOAD_LIB_OBJS) $(SAN_ANALYZER_LIB_OBJS) \
            $(BUILD)/san/analyzer/main.o $(TSAN_PRELOAD_OBJS)
DEP_FILES := $(DEP_OBJS:.o=.d)
$(DEP_OBJS): %.o: %.d
$(DEP_FILES): ;
-include $(wildcard $(DEP_FILES) $(UNIT_BINS:=.d))
