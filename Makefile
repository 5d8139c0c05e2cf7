# hotplus: PGXS build of a C++17 extension.
#
#   make && make install        build and install into the server of $(PG_CONFIG)
#   make unit                   build and run the Catch2 unit tests of the pure C++ core
#   make installcheck           pg_regress + isolation suites against a running server
#   make matrix                 every test on PostgreSQL 15 (Debian's and assert-enabled), 17,
#                               18 and assert-enabled 18 (servers built once into
#                               /var/cache/hotplus; scripts/test.sh)
#
# Another server: make PG_CONFIG=/path/to/bin/pg_config (and install with the same).
#
# The server is C; every C++ translation unit includes PostgreSQL headers only inside
# extern "C" (see src/glue/pg.hpp) and never lets an exception or a longjmp cross a frame
# that owns destructors (see src/README.md).

MODULE_big = hotplus
EXTENSION  = hotplus
DATA       = hotplus--1.0.sql hotplus--1.0--1.1.sql hotplus--1.1--1.2.sql
PGFILEDESC = "hotplus - HOT updates decided per index"

CORE_SRCS  = $(wildcard src/core/*.cpp)
GLUE_SRCS  = $(wildcard src/glue/*.cpp)
OBJS       = $(CORE_SRCS:.cpp=.o) $(GLUE_SRCS:.cpp=.o)

REGRESS       = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS  = --load-extension=amcheck --load-extension=pageinspect
ISOLATION     = $(patsubst specs/%.spec,%,$(sort $(wildcard specs/*.spec)))

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
MATRIX_TARGETS ?= 15 15-cassert 17 18 18-cassert
.PHONY: matrix
matrix:
	bash scripts/test.sh $(MATRIX_TARGETS)

# Benchmark suite: heap vs hotheap (bench/README.md). make bench BENCH_ARGS=--quick|--full
.PHONY: bench
bench:
	bash bench/run.sh $(BENCH_ARGS)
