# Logical replication between hotheap tables: the apply worker updates through hotheap's
# tuple_update (ExecSimpleRelationUpdate), with replica identity DEFAULT, FULL and USING
# INDEX, under write-back-heavy traffic (toasted values written back unchanged, which hotheap
# stores as the old TOAST datum and decoding reports as unchanged). The subscriber must end
# up equal to the publisher, with its indexes complete.
# Design points: D5, D8
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
# Shared statistics, so the apply worker's decisions can be read from another session.
$subscriber->append_conf('postgresql.conf', "shared_preload_libraries = 'hotplus'\n");
$subscriber->start;

my $schema = q{
CREATE EXTENSION hotplus;
CREATE EXTENSION amcheck;
CREATE TABLE r_default (id int PRIMARY KEY, doc jsonb, big text, n int) USING hotheap;
CREATE TABLE r_full (id int NOT NULL, doc jsonb, big text, n int) USING hotheap;
ALTER TABLE r_full REPLICA IDENTITY FULL;
CREATE TABLE r_index (id int NOT NULL, doc jsonb, big text, n int) USING hotheap;
CREATE UNIQUE INDEX r_index_id ON r_index (id);
ALTER TABLE r_index REPLICA IDENTITY USING INDEX r_index_id;
ALTER TABLE r_default ALTER big SET STORAGE EXTERNAL;
};
for my $t (qw(r_default r_full r_index)) {
	$schema .= "CREATE INDEX ON $t ((doc->>'a')); CREATE INDEX ON $t (n) WHERE n < 0; CREATE INDEX ON $t (md5(big));\n";
}
$publisher->safe_psql('postgres', $schema);
$subscriber->safe_psql('postgres', $schema);

my $fill = q{
INSERT INTO %s SELECT g, jsonb_build_object('a', g, 'b', 0),
  (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 100) i), g
FROM generate_series(1, 300) g;
};
$publisher->safe_psql('postgres', sprintf($fill, $_)) for qw(r_default r_full r_index);

$publisher->safe_psql('postgres', 'CREATE PUBLICATION p FOR ALL TABLES');
my $connstr = $publisher->connstr . ' dbname=postgres';
$subscriber->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p");
$subscriber->wait_for_subscription_sync($publisher, 's');

# Write-back-heavy traffic: unindexed field changes, write-backs of the toasted column,
# predicate flips, indexed field changes, deletes and inserts.
for my $t (qw(r_default r_full r_index)) {
	$publisher->safe_psql('postgres', qq{
		UPDATE $t SET doc = jsonb_set(doc, '{b}', to_jsonb((doc->>'b')::int + 1));
		UPDATE $t SET big = big || '' WHERE id % 2 = 0;
		UPDATE $t SET big = big || '', doc = jsonb_set(doc, '{b}', '7') WHERE id % 3 = 0;
		UPDATE $t SET n = -n WHERE id % 5 = 0;
		UPDATE $t SET doc = jsonb_set(doc, '{a}', to_jsonb(-id)) WHERE id % 7 = 0;
		UPDATE $t SET big = overlay(big placing 'X' from 10 for 1) WHERE id % 11 = 0;
		DELETE FROM $t WHERE id % 13 = 0;
		INSERT INTO $t SELECT id + 1000, doc, big, n FROM $t WHERE id % 17 = 0;
		UPDATE $t SET n = -n WHERE id % 10 = 0;
	});
}
$publisher->wait_for_catchup('s');

my $dump = q{SELECT string_agg(concat_ws('|', id, doc, md5(big), n), E'\n' ORDER BY id) FROM %s};
for my $t (qw(r_default r_full r_index)) {
	my $pub = $publisher->safe_psql('postgres', sprintf($dump, $t));
	my $sub = $subscriber->safe_psql('postgres', sprintf($dump, $t));
	is($sub, $pub, "$t: subscriber equals publisher");
}

# The apply worker's updates went through hotplus's decision: HOT updates that heap would
# not have made (an unindexed field of a document under an expression index), and
# written-back values that kept their TOAST datum.
my ($by_expression, $checked) = split /\|/, $subscriber->safe_psql('postgres',
	q{SELECT sum(hot_by_expression + hot_by_partial), sum(updates - checks_skipped)
	  FROM hotplus_stat_tables WHERE relname LIKE 'r\_%'});
cmp_ok($by_expression, '>', 0, "apply worker: updates made HOT by hotplus's decision ($by_expression)");
cmp_ok($checked, '>', 0, "apply worker: updates checked by hotplus ($checked)");

for my $node ($publisher, $subscriber) {
	my $name = $node->name;
	my $check = $node->safe_psql('postgres', q{
		SELECT count(*) FROM (SELECT bt_index_check(indexrelid::regclass, true)
		FROM pg_index WHERE indrelid IN ('r_default'::regclass, 'r_full'::regclass, 'r_index'::regclass)) s});
	ok($check > 0, "$name: amcheck heapallindexed passes on every index");
	for my $t (qw(r_default r_full r_index)) {
		my $q = "SELECT string_agg(id::text, ',' ORDER BY id) FROM $t WHERE n < 0";
		my $seq = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $q");
		my $idx = $node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
		is($idx, $seq, "$name: $t partial index scan agrees with seq scan");
		$q = "SELECT string_agg(id::text, ',' ORDER BY id) FROM $t WHERE doc->>'a' IN (SELECT (-g)::text FROM generate_series(1, 400) g)";
		$seq = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $q");
		$idx = $node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off; $q");
		is($idx, $seq, "$name: $t expression index scan agrees with seq scan");
	}
}

done_testing();
