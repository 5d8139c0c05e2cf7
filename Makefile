# hotplus: PGXS build of a C++17 extension.
#
#   make && make install        build and install into the server of $(PG_CONFIG)
#   make unit                   build and run the Catch2 unit tests of the pure C++ core
#   make installcheck           pg_regress + isolation suites against a running server
#   make check-test-lists       every file in sql/ and specs/ is in REGRESS_TESTS /
#                               ISOLATION_TESTS below, and every listed name has its files
#   make check-includes         includes follow src's folders (also run by every build)
#   make matrix                 every test on PostgreSQL 15 (Debian's and assert-enabled), 17,
#                               18, assert-enabled 18 and 19 (servers built once into
#                               /var/cache/hotplus; scripts/test.sh)
#   make deep                   what does not fit the test command's hour: every hot_*,
#                               decision_* and read_* test and every spec but
#                               iso_hot_reindex_drop_concurrently with debug_discard_caches
#                               on the assert-enabled 18, then the suites under Valgrind on
#                               15 (scripts/valgrind.sh)
#   make tools-check            the tools beside hotplus (pg_repack, pglogical, pg_partman,
#                               PostGIS, pgBackRest, pg_basebackup, pg_dump), as doc/using.md
#                               documents them, on Debian's 15 (as root on Debian 12:
#                               installs their packages; scripts/tools-check.sh)
#
# Another server: make PG_CONFIG=/path/to/bin/pg_config (and install with the same).
#
# The server is C; every C++ translation unit includes PostgreSQL headers only inside
# extern "C" (see src/am/pg.hpp) and never lets an exception or a longjmp cross a frame
# that owns destructors (see src/README.md).

MODULE_big = hotplus
EXTENSION  = hotplus
DATA       = hotplus--1.0.sql hotplus--1.0--1.1.sql hotplus--1.1--1.2.sql hotplus--1.2--1.3.sql hotplus--1.3--1.4.sql hotplus--1.4--1.5.sql hotplus--1.5--1.6.sql
PGFILEDESC = "hotplus - HOT updates decided per index"

# One folder per subsystem (src/README.md): the pure core, then the PostgreSQL-facing ones.
CORE_SRCS  = $(wildcard src/core/*.cpp)
SERVER_SRCS = $(wildcard src/am/*.cpp src/stats/*.cpp src/update/*.cpp src/read/*.cpp) src/module.cpp
OBJS       = $(CORE_SRCS:.cpp=.o) $(SERVER_SRCS:.cpp=.o)

# Every test by name, in the order it runs; "make check-test-lists" (a step of
# scripts/test.sh) fails when a file in sql/ or specs/ is not listed here, or a listed name
# has no file. Prefixes (doc/tests.md "The steps"): am_ a heap operation on hotheap tables;
# hot_ the HOT decision matrix; decision_ which inputs the decision reads (jsonb fields,
# statement scope); read_ the read path; convert conversion between heap and hotheap; no
# prefix: one concern each (misuse, security, statistics, upgrade, ...). iso_ an isolation spec
# (specs/, sharing expected/ with sql/), then the prefix of what it tests (iso_hot_cic).
REGRESS_TESTS = \
	am_alter_am \
	am_basic \
	am_concurrent \
	am_dump_restore \
	am_indexes \
	am_like_children \
	am_maintenance \
	am_parallel \
	am_partition \
	am_partitioned_am \
	am_toast \
	am_update_paths \
	contrib_as_heap \
	convert \
	decision_jsonb \
	decision_jsonb_prefix \
	decision_likely_first \
	decision_scope \
	decision_shared_copy \
	hot_dml \
	hot_expressions \
	hot_gist \
	hot_orm_writeback \
	hot_partial \
	hot_settings \
	hot_toast \
	read_path \
	read_consumers \
	jsonb_wide \
	misuse \
	scope_memory \
	security \
	stat_tables \
	stat_page_full \
	upgrade \
	drop_extension
# drop_extension last: it tries to drop the extension from the test database (and expects
# that to fail); should a drop wrongly succeed, only this test fails, not every test after it.

ISOLATION_TESTS = \
	iso_convert_owner_lock \
	iso_convert_visibility \
	iso_hot_cic \
	iso_hot_concurrent_update \
	iso_hot_fk_writeback \
	iso_hot_reindex_drop_concurrently \
	iso_hot_verify_dead_index \
	iso_read_epq

REGRESS       = $(REGRESS_TESTS)
REGRESS_OPTS  = --load-extension=amcheck --load-extension=pageinspect
ISOLATION     = $(ISOLATION_TESTS)

PG_CONFIG ?= pg_config

# Debian's server is built with LLVM, so PGXS would also emit JIT bitcode for every object
# with clang. The bitcode only serves JIT inlining of our functions, which never run inside
# JIT-compiled expressions; skip it instead of requiring clang++.
override with_llvm = no

PG_INCLUDEDIR_SERVER := $(shell $(PG_CONFIG) --includedir-server)
# -isystem keeps -Wextra about our code, not about the server's headers.
PG_CPPFLAGS  = -isystem $(PG_INCLUDEDIR_SERVER) -Isrc
PG_CXXFLAGS  = -std=c++17 -Wall -Wextra -Werror=return-type
SHLIB_LINK  += -lstdc++

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Headers are not tracked by PGXS; rebuild everything when one changes.
$(OBJS): $(wildcard src/*/*.hpp)

# Objects compiled for one server must not be linked for another (make PG_CONFIG=... after a
# build for another server left undefined symbols behind): they depend on a stamp naming the
# server, rewritten only when the server changes (so every make, even a clean, leaves it).
# In a tree the user cannot write, there is no stamp and no such dependency.
SERVER_STAMP = .server-stamp
SERVER_NAME := $(PG_INCLUDEDIR_SERVER) $(shell $(PG_CONFIG) --version)
$(shell echo '$(SERVER_NAME)' | cmp -s - $(SERVER_STAMP) 2>/dev/null || echo '$(SERVER_NAME)' 2>/dev/null > $(SERVER_STAMP))
$(OBJS): $(wildcard $(SERVER_STAMP))

# Includes follow the folders (scripts/check-includes.py, src/README.md "Folders"): a file
# that includes across a forbidden edge stops the build before anything is compiled.
all: check-includes
$(OBJS): | check-includes
.PHONY: check-includes
check-includes:
	@python3 scripts/check-includes.py

# ---------------------------------------------------------------------------
# Unit tests of the pure core: no PostgreSQL header may be reachable from here.
UNIT_SRCS = $(wildcard test/unit/*.cpp)
test/unit/unit_tests: $(UNIT_SRCS) $(CORE_SRCS) $(wildcard src/core/*.hpp)
	$(CXX) -std=c++17 -O1 -g -Wall -Wextra -Werror -Isrc -o $@ $(UNIT_SRCS) $(CORE_SRCS)

.PHONY: unit
unit: test/unit/unit_tests
	./test/unit/unit_tests

clean: clean-unit
.PHONY: clean-unit
clean-unit:
	rm -f test/unit/unit_tests

# The version matrix (README "Supported versions").
MATRIX_TARGETS ?= 15 15-cassert 17 18 18-cassert 19
.PHONY: matrix
matrix:
	bash scripts/test.sh $(MATRIX_TARGETS)

# The deep runs (doc/tests.md "Deep runs"): run them before resolving work that touches
# caches, memory or the version layer.
DEEP_TARGETS ?= 18-cassert:discard
.PHONY: deep
deep:
	bash scripts/test.sh $(DEEP_TARGETS)
	bash scripts/valgrind.sh 15

# The tools beside hotplus (doc/using.md "Working with other tools"), each workflow against
# throwaway clusters of Debian's 15; not part of the test command (it installs the tools'
# packages and hotplus into Debian's 15, or with HOTPLUS_TOOLS_INSTALL=copy into a copy of
# it). make tools-check TOOLS="pglogical dump" runs some.
.PHONY: tools-check
tools-check:
	bash scripts/tools-check.sh $(TOOLS)

# Benchmark suite: heap vs hotheap (bench/README.md). make bench BENCH_ARGS=--quick|--full
.PHONY: bench
bench:
	bash bench/run.sh $(BENCH_ARGS)

# ---------------------------------------------------------------------------
# The test lists above against the files: sql/NAME.sql and expected/NAME.out for each
# REGRESS_TESTS name, specs/NAME.spec and expected/NAME.out for each ISOLATION_TESTS name,
# each name once, and no file in sql/, specs/ or expected/ (NAME.out, NAME_N.out) that no
# listed name owns.
SQL_FILES      = $(patsubst sql/%.sql,%,$(wildcard sql/*.sql))
SPEC_FILES     = $(patsubst specs/%.spec,%,$(wildcard specs/*.spec))
EXPECTED_FILES = $(patsubst expected/%.out,%,$(wildcard expected/*.out))
LISTED_TESTS   = $(REGRESS_TESTS) $(ISOLATION_TESTS)
test_list_problems = \
	$(foreach n,$(filter-out $(REGRESS_TESTS),$(SQL_FILES)),sql/$(n).sql:not-in-REGRESS_TESTS) \
	$(foreach n,$(filter-out $(ISOLATION_TESTS),$(SPEC_FILES)),specs/$(n).spec:not-in-ISOLATION_TESTS) \
	$(foreach n,$(filter-out $(SQL_FILES),$(REGRESS_TESTS)),REGRESS_TESTS:$(n):no-sql/$(n).sql) \
	$(foreach n,$(filter-out $(SPEC_FILES),$(ISOLATION_TESTS)),ISOLATION_TESTS:$(n):no-specs/$(n).spec) \
	$(foreach n,$(filter-out $(EXPECTED_FILES),$(LISTED_TESTS)),$(n):no-expected/$(n).out) \
	$(foreach n,$(EXPECTED_FILES),$(if $(filter $(n) $(shell echo $(n) | sed 's/_[0-9]*$$//'),$(LISTED_TESTS)),,expected/$(n).out:no-listed-test)) \
	$(if $(filter-out $(words $(LISTED_TESTS)),$(words $(sort $(LISTED_TESTS)))),a-name-is-listed-twice)

.PHONY: check-test-lists
check-test-lists:
	@if [ -n "$(strip $(test_list_problems))" ]; then \
		for p in $(test_list_problems); do echo "check-test-lists: $$p"; done; \
		echo "check-test-lists: edit REGRESS_TESTS / ISOLATION_TESTS in the Makefile"; \
		exit 1; \
	fi
	@echo "check-test-lists: $(words $(REGRESS_TESTS)) regression tests and $(words $(ISOLATION_TESTS)) isolation specs, all listed"

# ---------------------------------------------------------------------------
# Release archives (PGXN takes the zip; the .tar.gz can serve as Debian's
# hotplus_VERSION.orig.tar.gz): make dist writes hotplus-VERSION.zip and
# hotplus-VERSION.tar.gz of HEAD's committed files under the prefix hotplus-VERSION/,
# without the files .gitattributes marks export-ignore. VERSION is META.json's, which
# scripts/check-meta.py checks first (semver, and hotplus.control's default_version).
# Build outputs and test-logs/ are never committed, so never in the archives; the last
# step checks that anyway.
# (Read once, when "dist" first needs it: an ordinary build does not run python3 for it.)
DIST_VERSION = $(eval DIST_VERSION := $$(shell python3 -c 'import json; print(json.load(open("META.json"))["version"])'))$(DIST_VERSION)
DIST_NAME    = $(EXTENSION)-$(DIST_VERSION)

.PHONY: dist
dist:
	@python3 scripts/check-meta.py >/dev/null || { python3 scripts/check-meta.py; exit 1; }
	@git diff --quiet HEAD -- || echo "dist: uncommitted changes are left out (the archives are of HEAD)"
	git archive --format=zip --prefix=$(DIST_NAME)/ -o $(DIST_NAME).zip HEAD
	git archive --format=tar.gz --prefix=$(DIST_NAME)/ -o $(DIST_NAME).tar.gz HEAD
	@python3 -c 'import re, sys, zipfile; \
		bad = [n for n in zipfile.ZipFile(sys.argv[1]).namelist() \
		       if re.search(r"\.(o|so|bc|a)$$|^[^/]+/(test-logs|results|output_iso|tmp_check|tmp_check_iso|log)/|^[^/]+/regression\.(diffs|out)$$", n)]; \
		print("dist: build or test output in the archive:", *bad, sep="\n  ") if bad else None; \
		sys.exit(1 if bad else 0)' $(DIST_NAME).zip
	@echo "dist: $(DIST_NAME).zip $(DIST_NAME).tar.gz"

clean: clean-dist
.PHONY: clean-dist
clean-dist:
	rm -f $(EXTENSION)-*.zip $(EXTENSION)-*.tar.gz
