# The logical replication apply worker runs no executor statement: what the update path
# learns "once per statement" is scoped to the applied transaction there (statement_scope.hpp).
# A heap publisher, a hotheap subscriber:
#  1. D8b: a transaction that changes a toasted column on more than 32 rows (same length, so
#     every comparison fetches) makes the subscriber stop comparing that column for the rest
#     of the transaction only; the write-backs of later transactions keep their TOAST datum
#     (toast_reused grows after every round). Scoped per process, as before, the counters
#     never reset and no write-back is reused after the first round.
#  2. Replicated updates whose column sets vary within one transaction (unchanged-TOAST
#     markers for columns an update did not set, write-backs, real changes, predicate flips),
#     with REPLICA IDENTITY DEFAULT and FULL, leave every index answering as seq scans do.
# Design points: D8, D8b, D8c, D5
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

# Part 1's tables have one toastable column (toast_reused counts big alone); part 2's have a
# jsonb document under an expression index too.
my @tables = qw(a_default a_full);
my @d8b_tables = qw(s_default s_full);
my $schema = q{
CREATE TABLE s_default (id int PRIMARY KEY, big text, n int) USING %1$s;
CREATE TABLE s_full (id int NOT NULL, big text, n int) USING %1$s;
CREATE TABLE a_default (id int PRIMARY KEY, big text, doc jsonb, n int) USING %1$s;
CREATE TABLE a_full (id int NOT NULL, big text, doc jsonb, n int) USING %1$s;
ALTER TABLE s_full REPLICA IDENTITY FULL;
ALTER TABLE a_full REPLICA IDENTITY FULL;
ALTER TABLE s_default ALTER big SET STORAGE EXTERNAL;
ALTER TABLE s_full ALTER big SET STORAGE EXTERNAL;
ALTER TABLE a_default ALTER big SET STORAGE EXTERNAL;
ALTER TABLE a_full ALTER big SET STORAGE EXTERNAL;
};
$publisher->safe_psql('postgres', sprintf($schema, 'heap'));
$subscriber->safe_psql('postgres', "CREATE EXTENSION hotplus; CREATE EXTENSION amcheck;"
	. sprintf($schema, 'hotheap')
	. join('', map { "CREATE INDEX ON $_ (md5(big)); CREATE INDEX ON $_ (n) WHERE n < 0;\n" } @d8b_tables)
	. join('', map { "CREATE INDEX ON $_ (md5(big)); CREATE INDEX ON $_ ((doc->>'a'));"
		  . " CREATE INDEX ON $_ (n) WHERE n < 0; CREATE INDEX ON $_ (id);\n" } @tables));

# 60 rows of a 3,200-byte value each, stored out of line uncompressed on both sides.
for my $t (@d8b_tables) {
	$publisher->safe_psql('postgres', qq{
		INSERT INTO $t SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i), g
		FROM generate_series(1, 60) g});
}
for my $t (@tables) {
	$publisher->safe_psql('postgres', qq{
		INSERT INTO $t SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i),
		       jsonb_build_object('a', g, 'b', 0), g
		FROM generate_series(1, 60) g});
}
$publisher->safe_psql('postgres', 'CREATE PUBLICATION p FOR ALL TABLES');
my $connstr = $publisher->connstr . ' dbname=postgres';
$subscriber->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p");
$subscriber->wait_for_subscription_sync($publisher, 's');

my $reused = sub {
	return $subscriber->safe_psql('postgres',
		"SELECT coalesce(sum(toast_reused), 0) FROM hotplus_stat_tables WHERE relname = '$_[0]'");
};

# 1. Three rounds: 60 real changes of big in one transaction (same length: each comparison
# fetches and finds a different value, so D8b gives up after 32), then a write-back of every
# row in the next. A heap publisher stores the written-back value anew, so the subscriber
# receives a fresh, equal value and keeps its old datum.
for my $t (@d8b_tables) {
	my $before = $reused->($t);
	for my $round (1 .. 3) {
		# A letter where the value has hex digits: every row really changes.
		my $letter = ('X', 'Y', 'Z')[$round - 1];
		$publisher->safe_psql('postgres',
			"UPDATE $t SET big = overlay(big placing '$letter' from 100 + $round for 1)");
		$publisher->wait_for_catchup('s');
		my $after_changes = $reused->($t);
		is($after_changes, $before, "$t round $round: real changes reuse nothing");
		$publisher->safe_psql('postgres', "UPDATE $t SET big = big || ''");
		$publisher->wait_for_catchup('s');
		my $after = $reused->($t);
		is($after - $after_changes, 60,
			"$t round $round: every write-back after a transaction of 60 changes keeps its TOAST datum");
		$before = $after;
	}
}

# 2. One transaction of updates with different column sets: n alone (big travels as an
# unchanged-TOAST marker with identity DEFAULT), big written back, big really changed
# (same length and not), a jsonb field read by an index, and predicate flips.
for my $t (@tables) {
	$publisher->safe_psql('postgres', qq{
		BEGIN;
		UPDATE $t SET n = -n WHERE id % 3 = 0;
		UPDATE $t SET big = big || '' WHERE id % 4 = 0;
		UPDATE $t SET big = overlay(big placing 'Z' from 7 for 1), doc = jsonb_set(doc, '{b}', '1') WHERE id % 5 = 0;
		UPDATE $t SET doc = jsonb_set(doc, '{a}', to_jsonb(-id)) WHERE id % 7 = 0;
		UPDATE $t SET big = big || 'tail', n = -n WHERE id % 11 = 0;
		UPDATE $t SET big = big || '', doc = jsonb_set(doc, '{b}', '2') WHERE id % 2 = 1;
		UPDATE $t SET n = -n WHERE id % 6 = 0;
		COMMIT;
	});
}
$publisher->wait_for_catchup('s');

my $dump = q{SELECT string_agg(concat_ws('|', id, md5(big), doc, n), E'\n' ORDER BY id) FROM %s};
for my $t (@tables) {
	is($subscriber->safe_psql('postgres', sprintf($dump, $t)),
		$publisher->safe_psql('postgres', sprintf($dump, $t)), "$t: subscriber equals publisher");
}

my $check = $subscriber->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT bt_index_check(indexrelid::regclass, true)
	FROM pg_index WHERE indrelid IN ('a_default'::regclass, 'a_full'::regclass)) s});
is($check, 9, 'subscriber: amcheck heapallindexed passes on every index');

my $seq = 'SET enable_indexscan = off; SET enable_bitmapscan = off;';
my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;';
for my $t (@tables) {
	for my $q (
		"SELECT string_agg(id::text, ',' ORDER BY id) FROM $t WHERE n < 0",
		"SELECT string_agg(id::text, ',' ORDER BY id) FROM $t t WHERE md5(big) IN (SELECT md5(big) FROM $t)",
		"SELECT string_agg(id::text, ',' ORDER BY id) FROM $t WHERE doc->>'a' IN (SELECT g::text FROM generate_series(-60, 60) g)")
	{
		is($subscriber->safe_psql('postgres', "$idx $q"), $subscriber->safe_psql('postgres', "$seq $q"),
			"$t: index scan agrees with seq scan: $q");
	}
}

done_testing();
