# pg_dump/pg_restore and pg_upgrade (15 to 15, --link and copy) keep hotheap tables, their
# access method, data and indexes.
# Design points: none (dump, restore and upgrade)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $old = PostgreSQL::Test::Cluster->new('old');
# The same hotheap objects in every source cluster.
my $schema = q{
CREATE EXTENSION hotplus;
CREATE TABLE docs (id int PRIMARY KEY, doc jsonb, n int) USING hotheap WITH (fillfactor = 50);
INSERT INTO docs SELECT g, jsonb_build_object('a', g), g FROM generate_series(1, 1000) g;
CREATE INDEX docs_a ON docs ((doc->>'a'));
CREATE INDEX docs_neg ON docs (n) WHERE n < 0;
UPDATE docs SET n = -n WHERE id % 10 = 0;
CREATE TABLE parted (id int, v text) PARTITION BY RANGE (id);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (500) USING hotheap;
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (500) TO (1000) USING hotheap;
INSERT INTO parted SELECT g, repeat('v', g) FROM generate_series(0, 999) g;
};

$old->init;
$old->start;
$old->safe_psql('postgres', $schema);

my $fingerprint = q{
SELECT (SELECT string_agg(format('%s:%s', c.relname, a.amname), ',' ORDER BY c.relname)
        FROM pg_class c JOIN pg_am a ON a.oid = c.relam
        WHERE c.relname IN ('docs', 'parted_1', 'parted_2'))
    || '|' || (SELECT md5(string_agg(format('%s %s %s', id, doc, n), ',' ORDER BY id)) FROM docs)
    || '|' || (SELECT md5(string_agg(format('%s %s', id, v), ',' ORDER BY id)) FROM parted)
    || '|' || (SELECT count(*) FROM docs WHERE n < 0)
};
my $expected = $old->safe_psql('postgres', $fingerprint);
like($expected, qr/^docs:hotheap,parted_1:hotheap,parted_2:hotheap\|/, 'source tables use hotheap');

sub verify
{
	my ($node, $db, $label) = @_;
	is($node->safe_psql($db, $fingerprint), $expected, "$label: access methods and data survive");
	$node->safe_psql($db, 'CREATE EXTENSION IF NOT EXISTS amcheck');
	my $n = $node->safe_psql($db, q{SELECT count(*) FROM (SELECT bt_index_check(indexrelid::regclass, true)
		FROM pg_index WHERE indrelid = 'docs'::regclass) s});
	is($n, 3, "$label: amcheck heapallindexed passes");
	my $idx = $node->safe_psql($db, 'SET enable_seqscan = off; SELECT count(*) FROM docs WHERE n < 0');
	is($idx, 100, "$label: partial index answers");
	my $hot = $node->safe_psql($db, q{BEGIN; UPDATE docs SET doc = doc || '{"z": 2}' WHERE id <= 10;
		SELECT pg_stat_get_xact_tuples_hot_updated('docs'::regclass); COMMIT;});
	is($hot, 10, "$label: updates of an unindexed field are HOT");
}

# pg_dump / pg_restore into a new database.
my $dumpfile = $old->basedir . '/dump.custom';
$old->command_ok([ 'pg_dump', '-Fc', '-f', $dumpfile, '-d', $old->connstr('postgres') ], 'pg_dump');
$old->safe_psql('postgres', 'CREATE DATABASE restored');
$old->command_ok([ 'pg_restore', '-d', $old->connstr('restored'), $dumpfile ], 'pg_restore');
verify($old, 'restored', 'pg_restore');
$old->safe_psql('postgres', 'DROP DATABASE restored');
$old->stop;

# pg_upgrade, copy mode (PG15's default; --copy is PG16+) and link mode.
for my $mode ('copy', 'link') {
	my $src = PostgreSQL::Test::Cluster->new("src_$mode");
	$src->init(extra => [ '--locale=C', '--encoding=UTF8' ]);
	$src->start;
	$src->safe_psql('postgres', $schema);
	$src->stop;

	my $dst = PostgreSQL::Test::Cluster->new("dst_$mode");
	$dst->init(extra => [ '--locale=C', '--encoding=UTF8' ]);
	my $bindir = $dst->config_data('--bindir');
	my $ok = run_log([
		'pg_upgrade', '--no-sync', ($mode eq 'link' ? ('--link') : ()),
		'-d', $src->data_dir, '-D', $dst->data_dir,
		'-b', $bindir, '-B', $bindir,
		'-s', $dst->host, '-p', $src->port, '-P', $dst->port ]);
	ok($ok, "pg_upgrade $mode");
	$dst->start;
	verify($dst, 'postgres', "pg_upgrade $mode");
	$dst->stop;
}

done_testing();
