# Statistics in shared mode behave like PostgreSQL's own cumulative statistics (issue 49):
# - every count (every column of both views, in two databases, and hotplus_stat_info()) is
#   what it was after a clean restart, twice in a row;
# - after a crash (a backend killed, so the postmaster reinitializes) or an immediate
#   shutdown the counts start empty, as pg_stat_user_tables' do;
# - a damaged statistics file, one of another cluster, and one longer than the bound allows
#   (refused before it is read) are ignored with a LOG line and the server starts; a file
#   that cannot be renamed into place leaves no temporary file behind;
# - counts arrive in batches: right after 300 one-row updates of a session that stays
#   connected another session sees fewer, all of them within 15 s (the idle flush) or at
#   once after hotplus_stat_flush();
# - counts of many backends that come and go add up exactly.
# Design points: S1, S2
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Copy ();
use Time::HiRes qw(time sleep);

my $node = PostgreSQL::Test::Cluster->new('stats');
$node->init;
# restart_after_crash: the test framework turns it off; the crash below needs the restart.
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'hotplus'\nrestart_after_crash = on\n");
$node->start;

my $setup = q{
CREATE EXTENSION hotplus;
CREATE TABLE s (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
INSERT INTO s SELECT g, jsonb_build_object('a', g, 'b', 0) FROM generate_series(1, 1000) g;
CREATE INDEX s_a ON s ((doc->>'a'));
CREATE TABLE p (id int PRIMARY KEY, status text, v int) USING hotheap;
INSERT INTO p SELECT g, 'done', 0 FROM generate_series(1, 100) g;
CREATE INDEX p_open ON p (id) WHERE status = 'open';
};
$node->safe_psql('postgres', $setup);
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', $setup);

# Updates of every kind, in both databases: HOT by expression, blocked by the expression
# index, HOT by the partial index's predicate, and reads of the read path.
for my $db ('postgres', 'other')
{
	$node->safe_psql($db, q{
		UPDATE s SET doc = jsonb_set(doc, '{b}', to_jsonb(id)) WHERE id <= 300;
		UPDATE s SET doc = jsonb_set(doc, '{a}', to_jsonb(-id)) WHERE id <= 40;
		UPDATE p SET v = v + 1;
		UPDATE p SET status = 'open' WHERE id <= 3;
		SELECT count(*) FROM s WHERE doc->>'b' = '7';});
}

my $everything = q{
	SELECT string_agg(format('%s', t), E'\n' ORDER BY t::text) FROM (
		SELECT relid::regclass::text, updates, hot_stock, hot_by_expression, hot_by_partial, hot_by_image,
		       toast_reused, nonhot_index_changed, nonhot_page_full, nonhot_other, checks_skipped,
		       check_time_ms, read_scans, read_rows, check_failures, verified, verify_sampled_out,
		       nonhot_page_full_unchecked, unchecked_hot_estimate
		FROM hotplus_stat_tables
		UNION ALL
		SELECT indexrelid::regclass::text, nonhot_first_changed, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
		       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
		FROM hotplus_stat_indexes
		UNION ALL
		SELECT 'info', tracked_tables, untracked_updates, max_tracked_tables, NULL, NULL, NULL, NULL, NULL,
		       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
		FROM hotplus_stat_info()) t};
my %before = map { $_ => $node->safe_psql($_, $everything) } ('postgres', 'other');
like($before{postgres}, qr/\(s,340,0,300,0,0,0,40,/, 'the counts to keep: 340 updates of s, 300 HOT by expression, 40 blocked')
  or diag($before{postgres});
like($before{postgres}, qr/\(s_a,40,/, 'and the blocking index');
like($before{other}, qr/\(p,103,/, 'and the other database\'s');

$node->restart;
is($node->safe_psql($_, $everything), $before{$_}, "after a restart every count of database $_ is kept")
  for ('postgres', 'other');
$node->restart;
is($node->safe_psql('postgres', $everything), $before{postgres}, '... and after a second restart');
$node->safe_psql('postgres', q{UPDATE p SET v = v + 1 WHERE id = 1});
$node->restart;
like($node->safe_psql('postgres', $everything), qr/\(p,104,/, 'counts made between restarts are kept too');

# A crash: a backend killed with SIGKILL makes the postmaster reinitialize shared memory.
my $bg = $node->background_psql('postgres');
my $victim = $bg->query_safe(q{SELECT pg_backend_pid()});
kill 'KILL', $victim;
$bg->quit;
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM hotplus_stat_tables}),
	'after a crash the counts start empty') or diag($node->safe_psql('postgres', $everything));
is($node->safe_psql('postgres', q{SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 's'}), '0',
	'... as pg_stat_user_tables\' do');

# An immediate shutdown writes the file (the postmaster exits normally) but the next start,
# which runs crash recovery, discards it.
$node->safe_psql('postgres', q{UPDATE p SET v = v + 1 WHERE id = 1});
my $offset = -s $node->logfile;
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', q{SELECT count(*) FROM hotplus_stat_tables}), '0',
	'after an immediate shutdown the counts start empty');
ok($node->log_contains(qr/hotplus: statistics file discarded: the server did not shut down cleanly/, $offset),
	'... and the server log says why');

# A damaged file: one byte changed.
$node->safe_psql('postgres', q{UPDATE p SET v = v + 1 WHERE id = 1});
$node->stop;
my $file = $node->data_dir . '/pg_stat/hotplus.stat';
ok(-f $file, 'a clean shutdown writes pg_stat/hotplus.stat');
my $good = slurp_file($file);
my $bad = $good;
substr($bad, length($bad) / 2, 1) = chr((ord(substr($bad, length($bad) / 2, 1)) + 1) % 256);
open(my $fh, '>', $file) or die;
binmode $fh;
print $fh $bad;
close $fh;
$offset = -s $node->logfile;
$node->start;
is($node->safe_psql('postgres', q{SELECT count(*) FROM hotplus_stat_tables}), '0',
	'a damaged statistics file is ignored');
ok($node->log_contains(qr/hotplus: ignoring the statistics file pg_stat\/hotplus.stat: its checksum does not match/, $offset),
	'... with a LOG line');
ok(!-f $file, 'the file is removed at start');

# Another cluster's file: the system identifier differs.
my $stranger = PostgreSQL::Test::Cluster->new('stranger');
$stranger->init;
$stranger->append_conf('postgresql.conf', "shared_preload_libraries = 'hotplus'\n");
$stranger->start;
$stranger->safe_psql('postgres', $setup . q{UPDATE p SET v = 1;});
$stranger->stop;
$node->stop;
File::Copy::copy($stranger->data_dir . '/pg_stat/hotplus.stat', $file) or die "copy: $!";
$offset = -s $node->logfile;
$node->start;
is($node->safe_psql('postgres', q{SELECT count(*) FROM hotplus_stat_tables}), '0',
	'another cluster\'s statistics file is ignored');
ok($node->log_contains(qr/hotplus: ignoring the statistics file pg_stat\/hotplus.stat: written by another cluster/, $offset),
	'... with a LOG line');

# A file longer than a file of hotplus.max_tracked_tables tables can be (1000: about 250 kB) is
# refused before it is read whole: a damaged or planted file must not make the postmaster
# allocate what it says.
$node->stop;
open($fh, '>', $file) or die;
binmode $fh;
print $fh $good . ("\0" x 400_000);
close $fh;
$offset = -s $node->logfile;
$node->start;
is($node->safe_psql('postgres', q{SELECT count(*) FROM hotplus_stat_tables}), '0',
	'a statistics file longer than the bound allows is ignored');
ok($node->log_contains(qr/hotplus: ignoring the statistics file pg_stat\/hotplus.stat: it is longer than a file of hotplus.max_tracked_tables tables can be/, $offset),
	'... with a LOG line saying why');

# When the file cannot take its name (here a directory stands in its place), the temporary
# file does not stay behind.
$node->safe_psql('postgres', q{UPDATE p SET v = v + 1 WHERE id = 1});
mkdir($file) or die "mkdir: $!";
open($fh, '>', "$file/keep") or die;
close $fh;
$node->stop;
ok(!-e $node->data_dir . '/pg_stat/hotplus.stat.tmp', 'a failed rename leaves no temporary statistics file');
unlink("$file/keep");
rmdir($file) or die "rmdir: $!";
$node->start;

# Batches. A session that stays connected makes 300 one-row updates, each its own
# transaction; its first transaction end flushes (nothing was flushed before), the others
# within the next second stay pending. (Should the 300 take a second or more, a flush
# between them is due: the batch is made again, a few times at most.)
my $a = $node->background_psql('postgres');
$a->query_safe(q{UPDATE s SET doc = jsonb_set(doc, '{b}', '1') WHERE id = 1});
my $updates = q{SELECT coalesce(sum(updates), 0) FROM hotplus_stat_tables WHERE relname = 's'};
my $batch = join("\n", map { "UPDATE s SET doc = jsonb_set(doc, '{b}', '$_') WHERE id = $_;" } 1 .. 300);
my ($seen, $elapsed, $base);
for my $attempt (1 .. 5)
{
	$a->query_safe(q{SELECT hotplus_stat_flush()});
	$base = $node->safe_psql('postgres', $updates);
	sleep(1.1); # the next transaction end may flush: it comes more than a second after the last
	$a->query_safe(q{UPDATE s SET doc = jsonb_set(doc, '{b}', '0') WHERE id = 1});
	my $t0 = time;
	$a->query_safe($batch);
	$elapsed = time - $t0;
	$seen = $node->safe_psql('postgres', $updates) - $base;
	last if $elapsed < 0.9;
}
cmp_ok($elapsed, '<', 0.9, 'the 300 updates took less than a second');
is($seen, 1, 'right after 300 one-row updates another session sees only the first transaction\'s (flushed at once)');
my $t0 = time;
ok($node->poll_query_until('postgres', "SELECT ($updates) - $base = 301"), 'all of them arrive while the session stays idle');
cmp_ok(time - $t0, '<', 15, sprintf('within 15 s (%.1f s)', time - $t0));

$base = $node->safe_psql('postgres', $updates);
$a->query_safe($batch);
$a->query_safe(q{SELECT hotplus_stat_flush()});
is($node->safe_psql('postgres', $updates) - $base, 300, 'hotplus_stat_flush() moves them at once');
$a->quit;

# Many backends that come and go: 4 clients x 250 transactions, one update each, and 2
# clients reconnecting for every transaction (-C).
$node->safe_psql('postgres', 'SELECT hotplus_stat_reset()');
my $script = $node->basedir . '/one.sql';
open($fh, '>', $script) or die;
print $fh q{\set id random(1, 1000)
UPDATE s SET doc = jsonb_set(doc, '{b}', to_jsonb(:id)) WHERE id = :id;
};
close($fh);
$node->command_ok([ 'pgbench', '-n', '-c', '4', '-j', '2', '-t', '250', '-f', $script,
	'-h', $node->host, '-p', $node->port, 'postgres' ], 'pgbench, 4 clients');
$node->command_ok([ 'pgbench', '-n', '-C', '-c', '2', '-t', '100', '-f', $script,
	'-h', $node->host, '-p', $node->port, 'postgres' ], 'pgbench, 2 clients connecting per transaction');
# A backend flushes before it leaves pg_stat_activity (its on_shmem_exit callback, registered
# after InitPostgres's pgstat_beshutdown_hook, runs before it).
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'}),
	'pgbench\'s backends are gone');
is($node->safe_psql('postgres', $updates), '1200', 'the counts of every backend add up exactly');

$node->stop;
done_testing();
