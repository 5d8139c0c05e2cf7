# Short in-line values through the logical replication apply worker (issue 32): the worker
# builds each replicated value with its type's input function, so an unchanged text column
# arrives with a 4-byte header next to the stored 1-byte one. heap_update() compares the
# formed tuples, where heap_fill_tuple() has packed it: the same bytes, and heap makes such an
# update HOT by itself. hotheap must decide (and count) it as heap does: hot_stock, nothing
# reused, never hot_by_image; and its indexes must answer as seq scans do. The same UPDATE
# run as SQL on the subscriber is counted the same way.
# Design points: D2, D5, D8c
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $publisher = PostgreSQL::Test::Cluster->new('publisher');
$publisher->init(allows_streaming => 'logical');
$publisher->start;
my $subscriber = PostgreSQL::Test::Cluster->new('subscriber');
$subscriber->init;
# Shared statistics, so the apply worker's counts can be read from another session.
$subscriber->append_conf('postgresql.conf', "shared_preload_libraries = 'hotplus'\n");
$subscriber->start;

my $schema = q{
CREATE TABLE t2 (id int PRIMARY KEY, s text, n int) USING %1$s;
CREATE TABLE t2h (id int PRIMARY KEY, s text, n int) USING heap;
};
$publisher->safe_psql('postgres', sprintf($schema, 'heap'));
$subscriber->safe_psql('postgres', "CREATE EXTENSION hotplus; CREATE EXTENSION amcheck;"
	. sprintf($schema, 'hotheap')
	. "CREATE INDEX t2_lower ON t2 (lower(s)); CREATE INDEX t2h_lower ON t2h (lower(s));"
	. "CREATE INDEX t2_s ON t2 (s); CREATE INDEX t2h_s ON t2h (s);"
	# the SQL path's twin, updated on the subscriber itself
	. "CREATE TABLE t2s (id int PRIMARY KEY, s text, n int) USING hotheap;"
	. "CREATE INDEX t2s_lower ON t2s (lower(s)); CREATE INDEX t2s_s ON t2s (s);");
for my $t (qw(t2 t2h)) {
	$publisher->safe_psql('postgres', "INSERT INTO $t SELECT g, 'shipped', 0 FROM generate_series(1, 40) g");
}
$subscriber->safe_psql('postgres', "INSERT INTO t2s SELECT g, 'shipped', 0 FROM generate_series(1, 40) g");

my $connstr = $publisher->connstr . ' dbname=postgres';
$publisher->safe_psql('postgres', "CREATE PUBLICATION pub FOR TABLE t2, t2h");
$subscriber->safe_psql('postgres', "CREATE SUBSCRIPTION sub CONNECTION '$connstr' PUBLICATION pub");
$subscriber->wait_for_subscription_sync($publisher, 'sub');

$subscriber->safe_psql('postgres', "SELECT hotplus_stat_reset(); SELECT pg_stat_reset();");
# Every row once, in a few transactions; then the same on the subscriber's own table as SQL.
for my $round (1 .. 4) {
	$publisher->safe_psql('postgres', qq{
		UPDATE t2 SET n = n + 1 WHERE id % 4 = $round % 4;
		UPDATE t2h SET n = n + 1 WHERE id % 4 = $round % 4;});
}
$publisher->wait_for_catchup('sub');
$subscriber->safe_psql('postgres', "UPDATE t2s SET n = n + 1");

my $counts = sub {
	my ($t) = @_;
	return $subscriber->safe_psql('postgres', qq{
		SELECT updates || ' updates: ' || hot_stock || ' hot_stock, ' || hot_by_image || ' hot_by_image, '
		       || toast_reused || ' toast_reused, ' || nonhot_index_changed || ' nonhot_index_changed'
		FROM hotplus_stat_tables WHERE relname = '$t'});
};
is($counts->('t2'), '40 updates: 40 hot_stock, 0 hot_by_image, 0 toast_reused, 0 nonhot_index_changed',
	'apply worker: unchanged short text is unchanged as stored (hot_stock, nothing reused)');
is($counts->('t2s'), '40 updates: 40 hot_stock, 0 hot_by_image, 0 toast_reused, 0 nonhot_index_changed',
	'the same UPDATE as SQL is counted the same way');

# Heap's own decision on the heap twin: HOT by itself (pg_stat flushes at the apply worker's
# transaction ends; wait for it).
ok($subscriber->poll_query_until('postgres',
		"SELECT n_tup_hot_upd = 40 AND n_tup_upd = 40 FROM pg_stat_user_tables WHERE relname = 't2h'"),
	'heap twin on the subscriber: all 40 HOT by itself');
# hotheap's own decision equals heap's: the same HOT count in pg_stat_user_tables.
ok($subscriber->poll_query_until('postgres',
		"SELECT n_tup_hot_upd = 40 FROM pg_stat_user_tables WHERE relname = 't2'"),
	'hotheap on the subscriber: all 40 HOT, as heap');

# Indexes answer as seq scans do, and hold every row.
for my $t (qw(t2 t2s)) {
	$subscriber->safe_psql('postgres', "SELECT bt_index_check(i, true) FROM pg_index x, LATERAL (SELECT x.indexrelid) i(i) "
		. "WHERE x.indrelid = '$t'::regclass");
	my $by_index = $subscriber->safe_psql('postgres', qq{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM $t WHERE lower(s) = 'shipped' AND s = 'shipped'});
	my $by_seq = $subscriber->safe_psql('postgres', qq{
		SET enable_indexscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM $t WHERE lower(s) = 'shipped' AND s = 'shipped'});
	is($by_index, $by_seq, "$t: index scans find what the seq scan finds");
	is($by_seq, '40', "$t: every row");
}

# A real change through the apply worker is still a change.
$publisher->safe_psql('postgres', "UPDATE t2 SET s = 'returned' WHERE id <= 5");
$publisher->wait_for_catchup('sub');
is($subscriber->safe_psql('postgres', qq{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM t2 WHERE lower(s) = 'returned'}), '5', 'a changed value is found through the index');

done_testing();
