# REPACK (CONCURRENTLY) of a hotheap table on PostgreSQL 19 (issue 56; src/am/repack.hpp,
# src/README.md D17), with updates, inserts and deletes running on it the whole time: the
# table stays hotheap (relam and the session's own entry), gets a new relfilenode, holds
# exactly what a heap twin that took the same changes holds, and its indexes and heap pass
# amcheck (heapallindexed) and verify_heapam. Also: the REPACK backend's first statistics
# count happens inside the replay of the concurrent changes (its exit flush must not break
# REPACK's error cleanup, nor its exit); a REPACK (CONCURRENTLY) cancelled halfway, in a
# transaction block, or without the MAINTAIN privilege leaves the session's table hotheap's;
# VACUUM FULL, CLUSTER, REPACK and REPACK USING INDEX keep it hotheap, every index clean;
# without shared_preload_libraries, a session that has not loaded hotplus yet gets the stock
# error once, as doc/using.md says, and LOAD 'hotplus' first avoids it.
# Design points: D17, S1
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('repack');
plan skip_all => 'REPACK is PostgreSQL 19\'s' if $node->pg_version->major < 19;
$node->init(allows_streaming => 1);    # wal_level = replica, as REPACK (CONCURRENTLY) needs
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'hotplus'\n");
$node->start;

# r (hotheap) and its heap twin m take the same changes in the same transactions.
$node->safe_psql('postgres', q{
CREATE EXTENSION hotplus;
CREATE EXTENSION amcheck;
CREATE SEQUENCE s START 200001;
CREATE TABLE r (id bigint PRIMARY KEY, k int, doc jsonb, pad text) USING hotheap;
CREATE TABLE m (id bigint PRIMARY KEY, k int, doc jsonb, pad text);
INSERT INTO r SELECT g, g % 1000, jsonb_build_object('a', g % 97, 'b', 0),
  CASE WHEN g % 200 = 0 THEN (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i)
       ELSE 'p' END
FROM generate_series(1, 200000) g;
INSERT INTO m SELECT * FROM r;
CREATE INDEX r_k ON r (k);
CREATE INDEX r_a ON r ((doc->>'a'));
CREATE INDEX m_k ON m (k);
CREATE INDEX m_a ON m ((doc->>'a'));
VACUUM ANALYZE r, m;
CREATE ROLE nobody LOGIN;
GRANT SELECT ON r TO nobody;
});

my $dir = PostgreSQL::Test::Utils::tempdir;
my %scripts = (
	# a field no index reads (HOT on hotheap only), an indexed field, k, a toasted row's
	# field, an insert, a delete
	'b.sql' => q{\set id random(1, 200000)
\set v random(1, 1000000)
BEGIN;
UPDATE r SET doc = jsonb_set(doc, '{b}', to_jsonb(:v)) WHERE id = :id;
UPDATE m SET doc = jsonb_set(doc, '{b}', to_jsonb(:v)) WHERE id = :id;
END;
},
	'a.sql' => q{\set id random(1, 200000)
\set v random(1, 1000000)
BEGIN;
UPDATE r SET doc = jsonb_set(doc, '{a}', to_jsonb(:v % 97)) WHERE id = :id;
UPDATE m SET doc = jsonb_set(doc, '{a}', to_jsonb(:v % 97)) WHERE id = :id;
END;
},
	'k.sql' => q{\set id random(1, 200000)
BEGIN;
UPDATE r SET k = k + 1 WHERE id = :id;
UPDATE m SET k = k + 1 WHERE id = :id;
END;
},
	'toast.sql' => q{\set id 200 * random(1, 1000)
\set v random(1, 1000000)
BEGIN;
UPDATE r SET doc = jsonb_set(doc, '{b}', to_jsonb(:v)), pad = pad WHERE id = :id;
UPDATE m SET doc = jsonb_set(doc, '{b}', to_jsonb(:v)), pad = pad WHERE id = :id;
END;
},
	'ins.sql' => q{BEGIN;
SELECT nextval('s') AS nid \gset
INSERT INTO r VALUES (:nid, :nid % 1000, jsonb_build_object('a', :nid % 97, 'b', 0), 'new');
INSERT INTO m VALUES (:nid, :nid % 1000, jsonb_build_object('a', :nid % 97, 'b', 0), 'new');
END;
},
	'del.sql' => q{\set id random(1, 200000)
BEGIN;
DELETE FROM r WHERE id = :id;
DELETE FROM m WHERE id = :id;
END;
});
for my $name (keys %scripts)
{
	open(my $fh, '>', "$dir/$name") or die $!;
	print $fh $scripts{$name};
	close($fh);
}

# pgbench on r and m in the background while $repack runs in $session (a background psql);
# returns REPACK's stderr (cleared) and pgbench's output, once both are done.
sub repack_while_updating
{
	my ($session, $repack, $seconds) = @_;
	my ($out, $err) = ('', '');
	my $bench = IPC::Run::start(
		[
			'pgbench', '-n', '-c', '3', '-j', '3', '-T', $seconds,
			'-f', "$dir/b.sql\@6", '-f', "$dir/a.sql\@1", '-f', "$dir/k.sql\@2",
			'-f', "$dir/toast.sql\@1", '-f', "$dir/ins.sql\@1", '-f', "$dir/del.sql\@1",
			'-h', $node->host, '-p', $node->port, 'postgres'
		],
		'>', \$out, '2>', \$err);
	sleep 2;
	$session->query($repack);
	my $stderr = $session->{stderr};
	$session->{stderr} = '';
	$bench->finish;
	# pgbench's backends flush their counts as they exit, before they leave pg_stat_activity.
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'});
	return ($stderr, $out . $err);
}

# Whether $session updates r through hotheap's tuple_update (hotplus counts it; heap's
# routine would not): one update of its own, with no other writer running.
sub updates_as_hotheap
{
	my ($session) = @_;
	my $count = q{SELECT hotplus_stat_flush(); SELECT updates FROM hotplus_stat_tables WHERE relname = 'r';};
	my ($before) = $session->query_safe($count) =~ /(\d+)\s*$/;
	$session->query_safe(q{UPDATE r SET doc = jsonb_set(doc, '{b}', '-1') WHERE id = 3;
		UPDATE m SET doc = jsonb_set(doc, '{b}', '-1') WHERE id = 3;});
	my ($after) = $session->query_safe($count) =~ /(\d+)\s*$/;
	return $after - $before == 1;
}

# r and m hold the same rows; r's indexes and heap are clean; r is hotheap.
sub check_table
{
	my ($what) = @_;
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM r FULL JOIN m USING (id)
		WHERE r.id IS NULL OR m.id IS NULL OR (r.k, r.doc, r.pad) IS DISTINCT FROM (m.k, m.doc, m.pad)}),
		'0', "$what: r holds what its heap twin holds");
	is($node->safe_psql('postgres', q{
		SELECT string_agg(i.indexrelid::regclass::text || ' checked' || bt_index_check(i.indexrelid, true, true)::text, ', '
		                  ORDER BY i.indexrelid::regclass::text)
		FROM pg_index i WHERE i.indrelid = 'r'::regclass}),
		'r_a checked, r_k checked, r_pkey checked', "$what: every index of r passes amcheck with heapallindexed");
	is($node->safe_psql('postgres', q{SELECT count(*) FROM hotplus_verify_heapam('r', check_toast => true)}),
		'0', "$what: verify_heapam finds nothing");
	is($node->safe_psql('postgres', q{
		SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'r'::regclass}),
		'hotheap', "$what: r is hotheap");
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SELECT count(*) FROM r WHERE k >= 0}),
		$node->safe_psql('postgres', 'SELECT count(*) FROM m'), "$what: an index scan of r finds every row");
}

my $relfilenode = $node->safe_psql('postgres', q{SELECT relfilenode FROM pg_class WHERE oid = 'r'::regclass});

# The stock server refuses REPACK (CONCURRENTLY) on any rd_tableam but heap's; with hotplus it
# runs, in a fresh session whose first hotplus count is in the replay of the changes.
my $session = $node->background_psql('postgres', on_error_stop => 0);
my ($stderr, $bench) = repack_while_updating($session, 'REPACK (CONCURRENTLY, VERBOSE) r;', 12);
like($stderr, qr/repacking "public.r"/, 'REPACK (CONCURRENTLY) of a hotheap table ran while it was updated');
unlike($stderr, qr/ERROR/, 'no error') or diag($stderr);
like($bench, qr/number of failed transactions: 0/, 'pgbench: no transaction failed during REPACK') or diag($bench);
ok(updates_as_hotheap($session), 'after REPACK, the session updates r through hotheap');
isnt($node->safe_psql('postgres', q{SELECT relfilenode FROM pg_class WHERE oid = 'r'::regclass}),
	$relfilenode, 'r has a new relfilenode');
check_table('REPACK (CONCURRENTLY)');
is($node->safe_psql('postgres', q{SELECT updates > 0 FROM hotplus_stat_tables WHERE relname = 'r'}),
	't', 'the statistics counted the concurrent updates');
$session->quit;
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up after the REPACK backend exited');
unlike(slurp_file($node->logfile), qr/before_shmem_exit callback|terminated by signal/,
	'no broken exit callback, no crash');

# USING INDEX, ANALYZE.
$session = $node->background_psql('postgres', on_error_stop => 0);
($stderr, $bench) = repack_while_updating($session, 'REPACK (CONCURRENTLY, ANALYZE) r USING INDEX r_k;', 8);
is($stderr, '', 'REPACK (CONCURRENTLY, ANALYZE) USING INDEX');
ok(updates_as_hotheap($session), 'after it, the session updates r through hotheap');
is($node->safe_psql('postgres', q{SELECT indisclustered FROM pg_index WHERE indexrelid = 'r_k'::regclass}),
	't', 'r_k is the clustered index');
check_table('REPACK (CONCURRENTLY, ANALYZE) USING INDEX');

# Cancelled halfway: the session's entry is hotheap's again.
($stderr, $bench) = repack_while_updating($session,
	q{SET statement_timeout = '300ms'; REPACK (CONCURRENTLY) r; RESET statement_timeout;}, 5);
like($stderr, qr/canceling statement due to statement timeout/, 'REPACK (CONCURRENTLY) cancelled');
ok(updates_as_hotheap($session), 'after the cancel, the session updates r through hotheap');
check_table('cancelled REPACK (CONCURRENTLY)');

# In a transaction block REPACK refuses CONCURRENTLY, as on heap; without MAINTAIN, REPACK's
# own privilege check refuses it.
$session->query(q{BEGIN; REPACK (CONCURRENTLY) r; ROLLBACK;});
like($session->{stderr}, qr/REPACK \(CONCURRENTLY\) cannot run inside a transaction block/,
	'in a transaction block: REPACK\'s own error');
$session->{stderr} = '';
ok(updates_as_hotheap($session), 'after it, the session updates r through hotheap');
$session->quit;
my ($rc, $stdout);
($rc, $stdout, $stderr) = $node->psql('postgres', 'REPACK (CONCURRENTLY) r', extra_params => [ '-U', 'nobody' ]);
like($stderr, qr/permission denied/, 'without MAINTAIN: permission denied');

# The other rewrites keep the table hotheap too.
for my $rewrite ('VACUUM FULL r', 'CLUSTER r USING r_pkey', 'REPACK r', 'REPACK r USING INDEX r_a')
{
	$node->safe_psql('postgres', $rewrite);
	check_table($rewrite);
}

$node->stop;

# Without shared_preload_libraries: hotplus's hook is there once the session loaded it.
my $plain = PostgreSQL::Test::Cluster->new('notpreloaded');
$plain->init(allows_streaming => 1);
$plain->start;
$plain->safe_psql('postgres', q{
CREATE EXTENSION hotplus;
CREATE TABLE t (id int PRIMARY KEY, v int) USING hotheap;
INSERT INTO t SELECT g, g FROM generate_series(1, 1000) g;});
$session = $plain->background_psql('postgres', on_error_stop => 0);
$session->query('REPACK (CONCURRENTLY) t;');
like($session->{stderr}, qr/only supported for the "heap" access method/,
	'a session that had not loaded hotplus: the stock error');
$session->{stderr} = '';
$session->query('REPACK (CONCURRENTLY) t;');
is($session->{stderr}, '', 'the same session again: REPACK (CONCURRENTLY) runs');
$session->quit;
$session = $plain->background_psql('postgres', on_error_stop => 0);
$session->query(q{LOAD 'hotplus'; REPACK (CONCURRENTLY) t;});
is($session->{stderr}, '', 'LOAD \'hotplus\' first: REPACK (CONCURRENTLY) runs');
$session->quit;
is($plain->safe_psql('postgres', q{SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	WHERE c.oid = 't'::regclass}), 'hotheap', 't is hotheap');
$plain->stop;
done_testing();
