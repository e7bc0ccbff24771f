# clmatch — portable OpenCL string matching.
#   make            library (static + shared), CLI, tools, tests, bench programs
#   make demo       set up OpenCL (apt when root), build, search the real U. maydis genome
#   make test       set up, build, run the test suite on the default device
#   make bench      benchmark every algorithm x variant on every device (not part of tests)
#   make bench-compare   clmatch vs grep, ripgrep, ugrep, Hyperscan, memmem (bench/README.md)
#   make check-kernels   every kernel shape preprocessed, to diff a refactor (KERNELS_BASE=dir)
#   make docs       the tables of docs/design.md and docs/library.md generated from the code
#   make fuzz      libFuzzer targets of the parsers (tests/fuzz/), FUZZ_SECONDS each (60)
#   make install PREFIX=/usr/local

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -std=c11 -Wall -Wextra -pedantic
CPPFLAGS += -Iinclude -Ihost -Icl -D_DEFAULT_SOURCE -DCL_TARGET_OPENCL_VERSION=300 \
            -DCL_USE_DEPRECATED_OPENCL_1_2_APIS
LDLIBS   += -lOpenCL -lpthread -lm
PREFIX   ?= /usr/local
B        := build

# The version is CLM_VERSION_MAJOR/MINOR/PATCH of include/clmatch.h alone; the library's
# clm_version() is their stringification (host/internal.h), the .so names and clmatch.pc
# read them here.
version_of = $(shell sed -n 's/^.define CLM_VERSION_$(1) *\([0-9][0-9]*\).*/\1/p' include/clmatch.h)
VERSION  := $(call version_of,MAJOR).$(call version_of,MINOR).$(call version_of,PATCH)
SONAME   := libclmatch.so.$(call version_of,MAJOR)

LIB_SRC  := $(wildcard host/*.c)
LIB_OBJ  := $(patsubst host/%.c,$(B)/obj/%.o,$(LIB_SRC)) $(B)/obj/kernels_gen.o
CL_SRC   := $(sort $(wildcard cl/*.cl cl/*.h))
TEST_SRC := $(wildcard tests/*.c)
BENCH_SRC:= $(wildcard bench/*.c)
# bench/compare.sh's CPU yardsticks are programs of their own, never part of clmatch-bench.
CMP_SRC  := bench/hs_count.c bench/memmem_count.c bench/yardstick.c
BENCH_SRC:= $(filter-out $(CMP_SRC),$(BENCH_SRC))

PROGRAMS := $(B)/clmatch $(B)/clmatch-devices $(B)/clmatch-tune $(B)/clmatch-example \
            $(B)/clmatch-kernels $(B)/clmatch-cas-offinder
# clmatch over MPI ranks (tools/clmatch_mpi.c): built only where mpicc exists; nothing else
# needs MPI.
MPICC       ?= mpicc
MPICC_FOUND := $(shell command -v $(MPICC) 2>/dev/null)
ALL      := $(B)/libclmatch.a $(B)/libclmatch.so $(PROGRAMS) $(B)/clmatch-tests \
            $(B)/clmatch-bench $(B)/clmatch.pc

.PHONY: all lib setup demo test test-full test-quick test-oclgrind test-asan test-rusticl bench \
        install uninstall clean check-kernels docs
all: $(ALL) $(if $(MPICC_FOUND),$(B)/clmatch-mpi)
	@$(if $(MPICC_FOUND),:,echo "note: no $(MPICC) here, so no $(B)/clmatch-mpi (Debian: apt-get install libopenmpi-dev openmpi-bin)")
lib: $(B)/libclmatch.a $(B)/libclmatch.so

# ---- kernels embedded in the library ----------------------------------------------------
$(B)/embed-sources: tools/embed_sources.c | $(B)
	$(CC) $(WARN) -O2 -o $@ $<
$(B)/kernels_gen.c: $(CL_SRC) $(B)/embed-sources
	$(B)/embed-sources $@ $(CL_SRC)

# ---- library --------------------------------------------------------------------------
# Hidden by default: libclmatch.so exports only what clmatch.h marks CLM_API (tests/lib.sh
# checks it); the programs below link the static library and reach the internals too.
LIB_CFLAGS := -fPIC -fvisibility=hidden
$(B)/obj/%.o: host/%.c include/clmatch.h $(wildcard host/*.h cl/*.h) Makefile | $(B)/obj
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LIB_CFLAGS) -c -o $@ $<
$(B)/obj/kernels_gen.o: $(B)/kernels_gen.c Makefile | $(B)/obj
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LIB_CFLAGS) -c -o $@ $<
$(B)/libclmatch.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(B)/libclmatch.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# ---- programs (linked statically against the library so they run from build/) ----------
CLI_SRC  := tools/clmatch.c tools/cli_common.c tools/dna.c tools/dna_args.c \
            tools/dna_patterns.c tools/fasta.c tools/fasta_device.c tools/fasta_blocks.c \
            tools/fasta_file_window.c tools/dna_direct.c tools/crispr.c tools/casoff.c \
            tools/casoff_genome.c tools/casoff_device.c tools/casoff_rows.c tools/patterns.c \
            tools/list_devices.c \
            tools/grep_args.c tools/output.c tools/batch.c \
            tools/walk.c tools/line_index.c tools/grep_stats.c tools/progress.c tools/grep_db.c tools/grep_match.c \
            tools/cli_devices.c tools/like.c tools/line_records.c tools/fastq.c tools/reads.c tools/gz.c \
            tools/readahead.c tools/dna_host.c tools/dna_run.c
# zlib (gzip input of the DNA mode, tools/gz.c) is the CLI's alone: the library has no zlib.
$(B)/clmatch: $(CLI_SRC) $(patsubst %.c,%.h,$(filter-out tools/clmatch.c,$(CLI_SRC))) \
              $(B)/libclmatch.a
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $(CLI_SRC) $(B)/libclmatch.a $(LDFLAGS) -lz $(LDLIBS)
CASOFF_SRC := tools/clmatch-cas-offinder.c tools/casoff.c tools/casoff_genome.c \
              tools/casoff_device.c tools/casoff_rows.c tools/cli_common.c tools/line_records.c \
              tools/crispr.c
$(B)/clmatch-cas-offinder: $(CASOFF_SRC) tools/casoff.h tools/casoff_genome.h tools/casoff_device.h \
                           tools/casoff_rows.h \
                           tools/cli_common.h \
                           tools/line_records.h tools/crispr.h $(B)/libclmatch.a
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $(CASOFF_SRC) $(B)/libclmatch.a $(LDFLAGS) $(LDLIBS)
MPI_SRC  := tools/clmatch_mpi.c tools/cli_common.c tools/grep_args.c tools/patterns.c \
            tools/cli_devices.c tools/list_devices.c tools/grep_db.c
$(B)/clmatch-mpi: $(MPI_SRC) tools/cli_common.h tools/grep_args.h tools/patterns.h \
                  tools/cli_devices.h tools/list_devices.h tools/grep_db.h $(B)/libclmatch.a
	$(MPICC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $(MPI_SRC) $(B)/libclmatch.a $(LDFLAGS) $(LDLIBS)
$(B)/clmatch-devices: tools/clmatch-devices.c $(B)/libclmatch.a
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< $(B)/libclmatch.a $(LDFLAGS) $(LDLIBS)
$(B)/clmatch-tune: tools/clmatch-tune.c tools/tune_text.c tools/tune_text.h $(B)/libclmatch.a
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ tools/clmatch-tune.c tools/tune_text.c \
	    $(B)/libclmatch.a $(LDFLAGS) $(LDLIBS)
$(B)/clmatch-kernels: tools/clmatch-kernels.c $(wildcard host/*.h) $(B)/libclmatch.a
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< $(B)/libclmatch.a $(LDFLAGS) $(LDLIBS)
$(B)/clmatch-example: tools/example.c $(B)/libclmatch.a
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $< $(B)/libclmatch.a $(LDFLAGS) $(LDLIBS)
$(B)/clmatch-tests: $(TEST_SRC) $(wildcard tests/*.h) $(B)/libclmatch.a
	$(CC) $(CPPFLAGS) -Itests $(WARN) $(CFLAGS) -o $@ $(TEST_SRC) $(B)/libclmatch.a $(LDFLAGS) $(LDLIBS)
$(B)/clmatch-bench: $(BENCH_SRC) $(wildcard bench/*.h) $(B)/libclmatch.a
	$(CC) $(CPPFLAGS) -Ibench $(WARN) $(CFLAGS) -o $@ $(BENCH_SRC) $(B)/libclmatch.a $(LDFLAGS) $(LDLIBS)

$(B)/clmatch.pc: tools/clmatch.pc.in include/clmatch.h | $(B)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

$(B) $(B)/obj:
	mkdir -p $@

# ---- the two commands ------------------------------------------------------------------
setup:
	@sh tools/setup.sh

demo: setup
	@$(MAKE) --no-print-directory all
	@sh tools/demo.sh

test: setup
	@sh tools/setup.sh python $(B)
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh

# A quick subset (used by test-oclgrind and test-asan).
test-quick: all
	@sh tests/run.sh --quick

test-full: setup
	@sh tools/setup.sh python $(B)
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh --full

test-oclgrind: setup
	@sh tools/setup.sh oclgrind
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh --oclgrind

# The standard set on Mesa's rusticl (llvmpipe, a second CPU implementation beside PoCL).
# RUSTICL_SET=--quick: the quick set (CI's, when time allows: .ci/run)
test-rusticl: setup
	@sh tools/setup.sh rusticl
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh --rusticl $(RUSTICL_SET)

test-asan: setup
	@$(MAKE) --no-print-directory B=build-asan CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer' \
		LDFLAGS='-fsanitize=address,undefined' all
	@sh tests/run.sh --asan

# Every kernel shape of tools/clmatch-kernels.c's cases, preprocessed into $(KERNELS_OUT);
# KERNELS_BASE=<an earlier KERNELS_OUT> compares the two (a refactor must leave them equal).
KERNELS_OUT ?= $(B)/kernels
check-kernels: $(B)/clmatch-kernels
	@sh tools/check-kernels.sh $(B) $(KERNELS_OUT) $(KERNELS_BASE)

# The tables of docs/design.md and docs/library.md that the code generates (tools/gen-docs.sh).
docs: $(B)/clmatch-kernels
	@sh tools/gen-docs.sh $(B)

bench: setup
	@$(MAKE) --no-print-directory all
	@sh bench/run.sh

# ---- bench/compare.sh: clmatch against the CPU tools (opt-in; never part of all or test) -----
# make bench-tools          $(B)/memmem_count, and $(B)/hs_count when Hyperscan's headers exist
#                           (Debian: libhyperscan-dev; HS_PREFIX=<dir>/usr for one extracted with
#                           dpkg -x). libhs.a is linked in: hs_count needs only libc + libstdc++.
# make bench-tools-static   the same, fully static (-static): they run on any x86-64 Linux
# make bench-compare        make clmatch + bench-tools, then sh bench/compare.sh $(COMPARE_ARGS)
HS_PREFIX  ?= /usr
HS_LIBA     = $(firstword $(wildcard $(HS_PREFIX)/lib/*/libhs.a $(HS_PREFIX)/lib/libhs.a))
HS_CXXLIB  ?= -lstdc++
CMP_HS     := $(if $(wildcard $(HS_PREFIX)/include/hs/hs.h),yes)
CMP_NOTE   := bench-tools: no $(HS_PREFIX)/include/hs/hs.h, so no hs_count (apt-get install \
              libhyperscan-dev, or HS_PREFIX=<dpkg -x of its .deb>/usr; bench/README.md)

.PHONY: bench-tools bench-tools-static bench-compare
bench-tools: $(B)/memmem_count $(if $(CMP_HS),$(B)/hs_count)
	@$(if $(CMP_HS),:,echo "$(CMP_NOTE)")
bench-tools-static: $(B)/memmem_count-static $(if $(CMP_HS),$(B)/hs_count-static)
	@$(if $(CMP_HS),:,echo "$(CMP_NOTE)")
bench-compare: setup
	@$(MAKE) --no-print-directory $(B)/clmatch bench-tools
	@sh bench/compare.sh --build $(B) $(COMPARE_ARGS)

# Both are their own main plus bench/yardstick.c (command line, load, threads, report).
$(B)/memmem_count $(B)/memmem_count-static: bench/memmem_count.c bench/yardstick.c \
		bench/yardstick.h | $(B)
	$(CC) $(WARN) $(CFLAGS) $(if $(filter %-static,$@),-static) -o $@ $(filter %.c,$^) \
		$(LDFLAGS) -lpthread
$(B)/hs_count $(B)/hs_count-static: bench/hs_count.c bench/yardstick.c bench/yardstick.h | $(B)
	@test -n "$(HS_LIBA)" || { echo "no libhs.a under $(HS_PREFIX)/lib (libhyperscan-dev has it)"; \
		exit 1; }
	$(CC) $(if $(filter-out /usr,$(HS_PREFIX)),-I$(HS_PREFIX)/include) $(WARN) $(CFLAGS) \
		$(if $(filter %-static,$@),-static) -o $@ $(filter %.c,$^) $(LDFLAGS) $(HS_LIBA) \
		$(HS_CXXLIB) -lm -lpthread

# ---- make fuzz: libFuzzer targets (opt-in; never part of all or test) --------------------
# A target is tests/fuzz/fuzz_NAME.c (LLVMFuzzerTestOneInput) with seeds in
# tests/fuzz/corpus/NAME/: adding one is adding those. Each links one archive of the library's,
# the CLI's (not clmatch.c: it holds main) and the tests' reference parser's objects, all
# built by clang with the sanitizers into build-fuzz/; an archive lends a target only the
# objects it calls. tests/fuzz/run.sh runs every target for FUZZ_SECONDS (or FUZZ_RUNS
# executions) on a scratch corpus seeded by the committed one, and fails on any finding.
FUZZ_CC      ?= clang
FUZZ_B       := build-fuzz
FUZZ_CFLAGS  := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all
FUZZ_SECONDS ?= 60
FUZZ_RUNS    ?=
FUZZ_BIN     := $(patsubst tests/fuzz/%.c,$(FUZZ_B)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_DEP_OBJ := $(patsubst %.c,$(FUZZ_B)/obj/%.o,$(LIB_SRC) $(B)/kernels_gen.c \
                  tools/cli_common.c tools/dna.c tools/dna_args.c tools/dna_patterns.c tools/fasta.c \
                  tools/fasta_device.c tools/fasta_blocks.c tools/fastq.c tools/reads.c tools/readahead.c \
                  tools/fasta_file_window.c tools/dna_direct.c tools/dna_host.c \
                  tools/dna_run.c \
                  tools/gz.c tools/crispr.c tools/cli_devices.c tests/t_ref.c)
FUZZ_HDR     := include/clmatch.h $(wildcard host/*.h tools/*.h tests/*.h tests/fuzz/*.h)

.PHONY: fuzz fuzz-build
fuzz:
	@sh tools/setup.sh fuzz
	@$(MAKE) --no-print-directory fuzz-build
	@FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_RUNS='$(FUZZ_RUNS)' sh tests/fuzz/run.sh $(FUZZ_B)
fuzz-build: $(FUZZ_BIN)

$(FUZZ_B)/obj/%.o: %.c $(FUZZ_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) -Itests $(WARN) $(FUZZ_CFLAGS) -c -o $@ $<
$(FUZZ_B)/libfuzzdeps.a: $(FUZZ_DEP_OBJ)
	rm -f $@ && ar rcs $@ $^
$(FUZZ_B)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_B)/libfuzzdeps.a $(FUZZ_HDR)
	$(FUZZ_CC) $(CPPFLAGS) -Itests -Itools $(WARN) $(FUZZ_CFLAGS) -o $@ $< \
		$(FUZZ_B)/libfuzzdeps.a $(LDFLAGS) -lz $(LDLIBS)

# ---- install ---------------------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/clmatch.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(B)/libclmatch.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/libclmatch.so $(DESTDIR)$(PREFIX)/lib/libclmatch.so.$(VERSION)
	ln -sf libclmatch.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libclmatch.so
	install -m 755 $(B)/clmatch $(B)/clmatch-devices $(B)/clmatch-tune \
		$(if $(MPICC_FOUND),$(B)/clmatch-mpi) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(B)/clmatch.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/clmatch.h $(DESTDIR)$(PREFIX)/lib/libclmatch.* \
		$(DESTDIR)$(PREFIX)/lib/$(SONAME) $(DESTDIR)$(PREFIX)/bin/clmatch \
		$(DESTDIR)$(PREFIX)/bin/clmatch-devices $(DESTDIR)$(PREFIX)/bin/clmatch-tune \
		$(DESTDIR)$(PREFIX)/bin/clmatch-mpi \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/clmatch.pc

clean:
	rm -rf build build-asan $(FUZZ_B)
