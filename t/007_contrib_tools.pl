# The contrib tools on hotheap tables, where a DBA runs them (issue 32 part 2): the read-only
# wrappers (hotplus_pgstattuple, hotplus_pgstattuple_approx, hotplus_verify_heapam,
# hotplus_pgrowlocks) on a streaming standby give the primary's answers; on the primary they
# run while another transaction holds ROW EXCLUSIVE on the table (no stronger lock than the
# contrib's ACCESS SHARE), where VACUUM FULL cannot; pg_surgery's wrapper refuses recovery
# with pg_surgery's own error. And doc/using.md's pg_amcheck recipe, run as documented: a plain
# whole-database pg_amcheck checks neither the hotheap table nor its indexes, the recipe's
# pg_amcheck checks its indexes (heapallindexed) and TOAST table, and its SQL checks the table
# itself, on the primary and on the standby, and reports a corrupted hotheap page, also where
# a hostile role planted overloads of hotplus_verify_heapam on the superuser's search path.
# Design points: D15
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "max_prepared_transactions = 2\n");
$primary->start;
$primary->safe_psql('postgres', q{
CREATE EXTENSION hotplus;
CREATE EXTENSION amcheck;
CREATE EXTENSION pgstattuple;
CREATE EXTENSION pgrowlocks;
CREATE EXTENSION pg_surgery;
CREATE TABLE docs (id int PRIMARY KEY, doc jsonb, big text, n int) USING hotheap;
ALTER TABLE docs ALTER big SET STORAGE EXTERNAL;
INSERT INTO docs SELECT g, jsonb_build_object('a', g), repeat(md5(g::text), 100), 0
FROM generate_series(1, 1000) g;
CREATE INDEX docs_a ON docs ((doc->>'a'));
CREATE INDEX docs_n ON docs (n) WHERE n > 0;
UPDATE docs SET doc = doc || '{"x": 1}', n = n + 1 WHERE id % 3 = 0;
DELETE FROM docs WHERE id % 10 = 0;
VACUUM docs;
CREATE TABLE plain (id int PRIMARY KEY, v text);
INSERT INTO plain SELECT g, 'v' FROM generate_series(1, 100) g;
});

$primary->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'standby is in recovery');

# The read-only wrappers on the standby: the primary's answers.
my %queries = (
	pgstattuple => q{SELECT table_len, tuple_count, tuple_len, dead_tuple_count, free_space FROM hotplus_pgstattuple('docs')},
	pgstattuple_approx => q{SELECT table_len, approx_tuple_count, dead_tuple_count FROM hotplus_pgstattuple_approx('docs')},
	verify_heapam => q{SELECT count(*) FROM hotplus_verify_heapam('docs', check_toast => true)},
	pgrowlocks => q{SELECT count(*) FROM hotplus_pgrowlocks('docs')},
);
for my $name (sort keys %queries)
{
	my $on_primary = $primary->safe_psql('postgres', $queries{$name});
	my ($rc, $on_standby, $err) = $standby->psql('postgres', $queries{$name});
	is($rc, 0, "standby: hotplus_$name runs") or diag($err);
	is($on_standby, $on_primary, "standby: hotplus_$name gives the primary's answer ($on_primary)");
}
is($primary->safe_psql('postgres', q{SELECT tuple_count FROM hotplus_pgstattuple('docs')}), '900',
	'900 rows counted');
my ($rc, $out, $err) = $standby->psql('postgres', q{SELECT * FROM pgstattuple('docs')});
like($err, qr/only heap AM is supported/, 'standby: pgstattuple itself refuses the hotheap table');
($rc, $out, $err) = $standby->psql('postgres',
	q{SELECT hotplus_heap_force_freeze('docs', ARRAY['(0,1)']::tid[])});
like($err, qr/recovery is in progress/, "standby: pg_surgery's wrapper gets pg_surgery's refusal");
($rc, $out, $err) = $standby->psql('postgres', q{SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'docs'});
is($out, 'hotheap', 'standby: docs is still hotheap');

# On the primary, while a prepared transaction holds ROW EXCLUSIVE on docs: the wrappers need
# no stronger lock than ACCESS SHARE (lock_timeout would end them), VACUUM FULL does.
$primary->safe_psql('postgres', q{
BEGIN;
UPDATE docs SET n = n + 1 WHERE id = 1;
PREPARE TRANSACTION 'holds_row_exclusive';
});
for my $name (sort keys %queries)
{
	($rc, $out, $err) = $primary->psql('postgres', "SET lock_timeout = '2s'; $queries{$name}");
	is($rc, 0, "primary: hotplus_$name runs beside a ROW EXCLUSIVE lock") or diag($err);
}
($rc, $out, $err) = $primary->psql('postgres', q{SET lock_timeout = '200ms'; VACUUM FULL docs});
like($err, qr/lock timeout/, 'primary: VACUUM FULL waits for that lock');
$primary->safe_psql('postgres', q{COMMIT PREPARED 'holds_row_exclusive'});
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

# pg_amcheck. --verbose names every relation it checks.
sub pg_amcheck
{
	my ($node, @args) = @_;
	my ($stdout, $stderr);
	my $ok = IPC::Run::run([ 'pg_amcheck', '--verbose', '-h', $node->host, '-p', $node->port, @args, 'postgres' ],
		'>', \$stdout, '2>', \$stderr);
	return ($ok, $stdout . $stderr);
}

# doc/using.md's pg_amcheck recipe, as documented (scripts/tap.sh copies doc/ beside t/): the
# whole shell block, and its step 2's SQL (every hotheap table through hotplus_verify_heapam).
open(my $doc, '<', 'doc/using.md') or die "doc/using.md: $!";
my ($recipe) = do { local $/; <$doc> } =~ /\*\*pg_amcheck\.\*\*.*?```sh\n(.*?)```/s
  or die 'no pg_amcheck recipe in doc/using.md';
close($doc);
my ($recipe_sql) = $recipe =~ /-c "(.*?)"\)/s or die "no SQL in the recipe:\n$recipe";
like($recipe, qr/\bmydb\b/, 'the recipe names its database mydb');
# The recipe, run by bash against a node's database "postgres" as its superuser.
sub run_recipe
{
	my ($node) = @_;
	(my $script = $recipe) =~ s/\bmydb\b/postgres/g;
	my ($stdout, $stderr);
	local $ENV{PGHOST} = $node->host;
	local $ENV{PGPORT} = $node->port;
	my $ok = IPC::Run::run([ 'bash', '-c', $script ], '>', \$stdout, '2>', \$stderr);
	return ($ok, $stdout, $stderr);
}

for my $node ($primary, $standby)
{
	my $name = $node->name;
	my ($ok, $log) = pg_amcheck($node);
	ok($ok, "$name: whole-database pg_amcheck exits 0");
	like($log, qr/checking heap table "postgres\.public\.plain"/, "$name: it checks the heap table");
	unlike($log, qr/"postgres\.public\.docs"|docs_pkey|docs_a|docs_n/,
		"$name: but neither the hotheap table nor any of its indexes");

	($ok, $log) = pg_amcheck($node, '--relation=*', '--heapallindexed');
	ok($ok, "$name: the recipe's pg_amcheck exits 0") or diag($log);
	for my $index (qw(docs_pkey docs_a docs_n))
	{
		like($log, qr/checking btree index "postgres\.public\.$index"/, "$name: the recipe checks $index");
	}
	my $toast = $node->safe_psql('postgres',
		q{SELECT t.relname FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid WHERE c.relname = 'docs'});
	like($log, qr/checking heap table "postgres\.pg_toast\.\Q$toast\E"/, "$name: and docs's TOAST table");
	is($node->safe_psql('postgres', $recipe_sql), '', "$name: the recipe's SQL finds nothing on docs");
	my ($recipe_ok, $out, $err) = run_recipe($node);
	ok($recipe_ok, "$name: the documented recipe passes") or diag("$out\n$err");
}

# A corrupted hotheap page is reported by the recipe's SQL (with the index and TOAST checks of
# pg_amcheck, which the corruption of a heap tuple header does not concern). The page is
# rewritten on disk while the server is stopped, so no buffer holds the old one.
$primary->safe_psql('postgres', q{
CREATE TABLE broken (id int, v text) USING hotheap;
INSERT INTO broken SELECT g, 'row ' || g FROM generate_series(1, 10) g;
CHECKPOINT;
});
my $path = $primary->data_dir . '/' . $primary->safe_psql('postgres', q{SELECT pg_relation_filepath('broken')});
$primary->stop;
open(my $fh, '+<', $path) or die "open $path: $!";
binmode $fh;
my $page;
sysread($fh, $page, 8192) == 8192 or die;
my $lp_off = unpack('V', substr($page, 24, 4)) & 0x7FFF;
substr($page, $lp_off + 22, 1) = chr(ord(substr($page, $lp_off + 22, 1)) + 8); # t_hoff
sysseek($fh, 0, 0);
syswrite($fh, $page) == 8192 or die;
close($fh);
# Checksums (on by default from 18) would refuse the page before verify_heapam sees it.
$primary->append_conf('postgresql.conf', "ignore_checksum_failure = on\n");
$primary->start;
my $corruption = qr/^public\.broken\|0\|1\|\|tuple data should begin at byte 24, but actually begins at byte 32/m;
my $recipe_ok;
($recipe_ok, $out, $err) = run_recipe($primary);
ok(!$recipe_ok, 'the documented recipe fails on the corrupted hotheap tuple');
like($out, $corruption, 'and prints it') or diag("$out\n$err");
my ($ok, $log) = pg_amcheck($primary, '--table=broken');
like($log, qr/no heap tables to check matching "broken"/, 'pg_amcheck alone cannot check the hotheap table');

# The recipe runs as a superuser in databases where other roles may create objects (issue 41:
# the 1.3 recipe called hotplus_verify_heapam(c.oid, ...) unqualified, and a role's
# hotplus_verify_heapam(oid, ...) was an exact match: it ran as the superuser, made its owner
# superuser and reported nothing). A hostile role with CREATE on public, as in every database
# created before PostgreSQL 15, and a schema of its own named like the superuser, first on
# the default search path ("$user", public), plants overloads there that would escalate
# privileges and hide the corruption.
my $superuser = $primary->safe_psql('postgres', 'SELECT current_user');
$primary->safe_psql('postgres', qq{
CREATE ROLE hostile;
GRANT CREATE ON SCHEMA public TO hostile;
CREATE SCHEMA "$superuser" AUTHORIZATION hostile;
SET ROLE hostile;
CREATE FUNCTION public.hotplus_verify_heapam(relation oid, check_toast boolean)
RETURNS TABLE (blkno int8, offnum int4, attnum int4, msg text)
LANGUAGE plpgsql AS \$\$ BEGIN ALTER ROLE hostile SUPERUSER; END \$\$;
CREATE FUNCTION public.hotplus_verify_heapam(relation text, check_toast boolean)
RETURNS TABLE (blkno int8, offnum int4, attnum int4, msg text)
LANGUAGE plpgsql AS \$\$ BEGIN ALTER ROLE hostile SUPERUSER; END \$\$;
CREATE FUNCTION "$superuser".hotplus_verify_heapam(relation regclass, check_toast boolean)
RETURNS TABLE (blkno int8, offnum int4, attnum int4, msg text)
LANGUAGE plpgsql AS \$\$ BEGIN ALTER ROLE hostile SUPERUSER; END \$\$;
CREATE FUNCTION "$superuser".hotplus_verify_heapam(relation oid, check_toast boolean)
RETURNS TABLE (blkno int8, offnum int4, attnum int4, msg text)
LANGUAGE plpgsql AS \$\$ BEGIN ALTER ROLE hostile SUPERUSER; END \$\$;
});
my $hostile_super = q{SELECT rolsuper FROM pg_roles WHERE rolname = 'hostile'};
# What the 1.3 recipe ran (rolled back): the hostile role's function.
is($primary->safe_psql('postgres', qq{BEGIN;
	SELECT count(*) FROM pg_class c JOIN pg_am a ON a.oid = c.relam AND a.amname = 'hotheap'
	CROSS JOIN LATERAL hotplus_verify_heapam(c.oid, check_toast => true) v
	WHERE c.relkind IN ('r', 'm') AND c.relpersistence <> 't';
	$hostile_super; ROLLBACK}), "0\nt", "the 1.3 recipe's call runs the hostile overload as the superuser");
($recipe_ok, $out, $err) = run_recipe($primary);
ok(!$recipe_ok, 'with the overloads planted, the documented recipe still fails');
like($out, $corruption, 'and prints the corruption') or diag("$out\n$err");
is($primary->safe_psql('postgres', $hostile_super), 'f', 'no overload ran: the hostile role is no superuser');
# An overload in hotplus's own schema with the recipe's exact argument types (and a default
# more) makes the call ambiguous: the recipe stops with an error, never passes silently.
$primary->safe_psql('postgres', q{SET ROLE hostile;
CREATE FUNCTION public.hotplus_verify_heapam(relation regclass, check_toast boolean, pad int DEFAULT 0)
RETURNS TABLE (blkno int8, offnum int4, attnum int4, msg text)
LANGUAGE plpgsql AS $$ BEGIN ALTER ROLE hostile SUPERUSER; END $$;
});
($recipe_ok, $out, $err) = run_recipe($primary);
ok(!$recipe_ok, 'an ambiguous overload in hotplus\'s schema stops the recipe');
like($err, qr/function public\.hotplus_verify_heapam\(.*\) is not unique/, 'with an error') or diag("$out\n$err");
is($primary->safe_psql('postgres', $hostile_super), 'f', 'and runs nothing of the hostile role');

done_testing();
