// Shared mode's counts across a restart, as pg_stat_statements keeps its entries and with
// pgstat's rule for a crash: the postmaster writes them to pg_stat/hotplus.stat when it exits
// normally, and reads them back (and removes the file) when it starts the next time, if the
// server was shut down cleanly (pg_control says so: a crash or an immediate shutdown leaves
// it in production, and the counts are discarded, as PostgreSQL discards its own statistics
// there). The format is core/stats_file_format.hpp's; a file that is damaged, of another
// cluster, of another server major or of a later hotplus, or longer than a file of
// hotplus.max_tracked_tables tables can be (refused before it is read whole), is ignored
// with a LOG line, never an error at start. The entries' usage (core/stats_eviction.hpp) is
// not kept: a restored entry's is what its counts say.
#pragma once

#include "stats/entries.hpp"

extern "C" {
#include "utils/hsearch.h"
}

namespace hotplus {

// The shared statistics a file is restored into and saved from.
struct SharedStats
{
	SharedState *state;
	HTAB *tables;
	HTAB *indexes;
	long max_tables;
	long max_indexes;
};

// In the postmaster (or a single-user backend), once the shared hash tables exist and are
// empty: restores the file's counts, removes the file, and arranges for the counts to be
// saved when the process exits normally.
void stats_file_restore_and_save_at_exit(const SharedStats &stats);

} // namespace hotplus
