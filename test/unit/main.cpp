// Design points: none (the Catch2 runner)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
