# Crash recovery and physical replication of hotheap tables: an update-heavy pgbench run on
# tables with expression and partial indexes, an immediate shutdown in the middle of it, then
# after restart every index passes amcheck and index scans agree with sequential scans; a
# streaming standby answers index queries exactly like the primary.
# Design points: none (WAL replay of hotheap updates)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "checkpoint_timeout = 30s\nmax_wal_size = 64MB\n");
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION hotplus;
CREATE EXTENSION amcheck;
CREATE TABLE docs (id int PRIMARY KEY, doc jsonb, big text, n int) USING hotheap WITH (fillfactor = 60);
ALTER TABLE docs ALTER big SET STORAGE EXTERNAL;
INSERT INTO docs SELECT g, jsonb_build_object('a', g, 'b', 0, 'c', g % 7),
  (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 80) i), g
FROM generate_series(1, 2000) g;
CREATE INDEX docs_a ON docs ((doc->>'a'));
CREATE INDEX docs_c ON docs ((doc->>'c')) WHERE n > 0;
CREATE INDEX docs_neg ON docs (n) WHERE n < 0;
CREATE INDEX docs_md5 ON docs (md5(big));
});

$primary->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->start;

my $script = $primary->basedir . '/update.sql';
open(my $fh, '>', $script) or die;
print $fh q{\set id random(1, 2000)
\set k random(1, 6)
UPDATE docs SET doc = jsonb_set(doc, '{b}', to_jsonb(:id::int)),
  n = CASE WHEN :k = 1 THEN -n ELSE n END,
  big = CASE WHEN :k = 2 THEN big || '' WHEN :k = 3 THEN overlay(big placing 'Z' from 5 for 1) ELSE big END
WHERE id = :id;
};
close($fh);

sub check_indexes
{
	my ($node, $label) = @_;
	my $n = $node->safe_psql('postgres', q{
		SELECT count(*) FROM (SELECT bt_index_check(indexrelid::regclass, true)
		FROM pg_index WHERE indrelid = 'docs'::regclass) s});
	is($n, 5, "$label: amcheck heapallindexed passes on all 5 indexes");
	my %queries = (
		partial_neg => q{SELECT string_agg(id::text, ',' ORDER BY id) FROM docs WHERE n < 0},
		partial_expr => q{SELECT string_agg(id::text, ',' ORDER BY id) FROM docs WHERE doc->>'c' = '3' AND n > 0},
		expr => q{SELECT string_agg(id::text, ',' ORDER BY id) FROM docs WHERE doc->>'a' IN ('1', '500', '1999')},
		md5 => q{SELECT count(*) FROM docs d WHERE EXISTS (SELECT 1 FROM docs e WHERE md5(e.big) = md5(d.big) AND e.id = d.id)},
	);
	my %results;
	for my $name (sort keys %queries) {
		my $seq = $node->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_bitmapscan = off; $queries{$name}");
		my $idx = $node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off; $queries{$name}");
		is($idx, $seq, "$label: $name index scan agrees with seq scan");
		$results{$name} = $seq;
	}
	return \%results;
}

# Traffic, then an immediate shutdown while it is still running.
my $pgbench = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-T', '30', '-f', $script, '-h', $primary->host, '-p', $primary->port, 'postgres' ],
	'>', \my $out, '2>', \my $err);
sleep 6;
$primary->stop('immediate');
$pgbench->finish;
$primary->start;

my $after_crash = check_indexes($primary, 'after crash recovery');

# More traffic, then the standby must answer like the primary.
$primary->command_ok(
	[ 'pgbench', '-n', '-c', '2', '-t', '1500', '-f', $script, '-h', $primary->host, '-p', $primary->port, 'postgres' ],
	'pgbench after restart');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
my $on_primary = check_indexes($primary, 'primary');
my $on_standby = check_indexes($standby, 'standby');
is_deeply($on_standby, $on_primary, 'standby answers index queries exactly like the primary');
my $hot = $primary->safe_psql('postgres', q{SELECT n_tup_hot_upd > 0 FROM pg_stat_user_tables WHERE relname = 'docs'});
is($hot, 't', 'hotheap made HOT updates');

done_testing();
