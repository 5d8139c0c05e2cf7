# Statistics in shared mode (hotplus in shared_preload_libraries): counts from several
# backends add up cluster-wide, survive the end of the sessions that made them, are bounded
# by hotplus.max_tracked_tables with the least used entries making room (a role's tables
# touched once keep no other table out), and hotplus_stat_reset() is refused to a plain user. The
# entries of dropped tables and databases go, so churn does not fill the bound for good;
# hotplus_stat_info() shows the bound and what it evicted (every database's counts to
# pg_read_all_stats only); a superuser can reset every database.
# Design points: S3
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('shared');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'hotplus'\nhotplus.max_tracked_tables = 10\n");
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION hotplus;
CREATE TABLE s (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
INSERT INTO s SELECT g, jsonb_build_object('a', g, 'b', 0) FROM generate_series(1, 1000) g;
CREATE INDEX s_a ON s ((doc->>'a'));
CREATE ROLE plain_user LOGIN;
GRANT SELECT, UPDATE ON s TO plain_user;
});
is($node->safe_psql('postgres', 'SELECT hotplus_stat_mode()'), 'shared', 'shared mode when preloaded');

# Two concurrent pgbench clients update an unindexed field (HOT by expression) and the
# indexed one (blocked by s_a).
my $script = $node->basedir . '/u.sql';
open(my $fh, '>', $script) or die;
print $fh q{\set id random(1, 1000)
UPDATE s SET doc = jsonb_set(doc, '{b}', to_jsonb(:id::int)) WHERE id = :id;
UPDATE s SET doc = jsonb_set(doc, '{a}', to_jsonb(-:id::int)) WHERE id = :id AND :id % 10 = 0;
};
close($fh);
$node->command_ok([ 'pgbench', '-n', '-c', '2', '-t', '500', '-f', $script,
	'-h', $node->host, '-p', $node->port, 'postgres' ], 'pgbench with 2 clients');
# Each backend flushes what it still holds as it exits, before it leaves pg_stat_activity
# (as PostgreSQL's own statistics, which the count is compared with).
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'pgbench'}),
	'pgbench\'s backends are gone');

my $row = $node->safe_psql('postgres', q{
	SELECT updates, hot_by_expression + hot_stock + nonhot_page_full + nonhot_index_changed = updates,
	       hot_by_expression > 0, nonhot_index_changed > 0
	FROM hotplus_stat_tables WHERE relname = 's'});
my ($updates, $adds_up, $gained, $blocked) = split /\|/, $row;
my $expected_updates = $node->safe_psql('postgres', q{SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 's'});
is($updates, $expected_updates, 'updates from all backends are counted, as pg_stat_user_tables counts them');
is($adds_up, 't', 'outcomes add up');
is($gained, 't', 'HOT by expression counted');
is($blocked, 't', 'index changes counted');
is($node->safe_psql('postgres', q{SELECT nonhot_first_changed > 0 FROM hotplus_stat_indexes WHERE indexrelname = 's_a'}),
	't', 'the expression index is named as the blocker');

# A plain user may read the views but not reset them.
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT hotplus_stat_reset()', extra_params => [ '-U', 'plain_user' ]);
like($err, qr/permission denied for function hotplus_stat_reset/, 'plain users cannot reset');
is($node->safe_psql('postgres', q{SELECT count(*) FROM hotplus_stat_tables}, extra_params => [ '-U', 'plain_user' ]),
	'1', 'plain users can read the statistics');

# Bounded: at most hotplus.max_tracked_tables tables; beyond it the least used make room.
$node->safe_psql('postgres', join('', map {
	"CREATE TABLE b$_ (id int PRIMARY KEY, v int) USING hotheap; INSERT INTO b$_ VALUES (1, 1); UPDATE b$_ SET v = 2;\n"
} 1 .. 30));
# (the session's last counts arrive as its backend exits: waited for)
ok($node->poll_query_until('postgres', q{SELECT evicted_tables >= 21 FROM hotplus_stat_info()}),
	'31 tables in a bound of 10: at least 21 entries evicted to make room');
my $tracked = $node->safe_psql('postgres', q{SELECT count(*) FROM hotplus_stat_tables});
cmp_ok($tracked, '<=', 10, "at most hotplus.max_tracked_tables tables tracked ($tracked)");
is($node->safe_psql('postgres', q{SELECT updates FROM hotplus_stat_tables WHERE relname = 's'}), $expected_updates,
	'the table in use keeps its entry and its counts');
is($node->safe_psql('postgres', q{SELECT format('%s %s %s %s', mode, max_tracked_tables, tracked_tables <= 10,
	untracked_updates) FROM hotplus_stat_info()}),
	'shared 10 t 0', 'hotplus_stat_info shows the mode and the bound; nothing went uncounted');

# A role that fills the bound with tables it touches once keeps no one else's table out:
# with s in use, plain_user's 40 tables, each updated once, then a superuser's new table.
$node->safe_psql('postgres', 'SELECT hotplus_stat_reset(true)');
$node->safe_psql('postgres', q{UPDATE s SET doc = jsonb_set(doc, '{b}', '5') WHERE id <= 200});
$node->safe_psql('postgres', 'GRANT CREATE ON SCHEMA public TO plain_user');
$node->safe_psql('postgres', join('', map {
	"CREATE TABLE crowd$_ (v int) USING hotheap; INSERT INTO crowd$_ VALUES (1); UPDATE crowd$_ SET v = 2;\n"
} 1 .. 40), extra_params => [ '-U', 'plain_user' ]);
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM pg_stat_activity WHERE usename = 'plain_user'}),
	"the role's session is gone (its counts flushed)");
$node->safe_psql('postgres', q{CREATE TABLE late (id int PRIMARY KEY, v int) USING hotheap;
	INSERT INTO late SELECT g, 0 FROM generate_series(1, 5) g; UPDATE late SET v = 1;});
ok($node->poll_query_until('postgres', q{SELECT string_agg(relname || ' ' || updates, ', ' ORDER BY relname)
	FROM hotplus_stat_tables WHERE relname IN ('s', 'late')}, 'late 5, s 200'),
	"a role's 40 tables touched once keep neither a table in use nor a later one out of the statistics");
# The counts of every database are for pg_read_all_stats; this database's tracked tables for all.
is($node->safe_psql('postgres', q{SELECT format('%s %s %s %s', tracked_tables IS NULL, untracked_updates IS NULL,
	evicted_tables IS NULL, database_tracked_tables) FROM hotplus_stat_info()}, extra_params => [ '-U', 'plain_user' ]),
	't t t 10', "a plain role sees its database's tracked tables, not every database's");
$node->safe_psql('postgres', 'GRANT pg_read_all_stats TO plain_user');
is($node->safe_psql('postgres', q{SELECT format('%s %s', tracked_tables, evicted_tables > 0) FROM hotplus_stat_info()},
	extra_params => [ '-U', 'plain_user' ]), '10 t', '... and pg_read_all_stats every database\'s');
$node->safe_psql('postgres', 'REVOKE pg_read_all_stats FROM plain_user');
$node->safe_psql('postgres', join('', map { "DROP TABLE crowd$_;\n" } 1 .. 40) . 'DROP TABLE late;');

$node->safe_psql('postgres', 'SELECT hotplus_stat_reset()');
is($node->safe_psql('postgres', q{SELECT count(*) FROM hotplus_stat_tables}), '0', 'reset clears the counts');

# Churn: ten times, a table is created, updated and dropped; then a new table is counted.
for my $round (1 .. 10)
{
	$node->safe_psql('postgres', qq{
		CREATE TABLE churn (id int PRIMARY KEY, doc jsonb) USING hotheap;
		CREATE INDEX ON churn ((doc->>'a'));
		INSERT INTO churn VALUES (1, '{"a": 1, "b": 1}');
		UPDATE churn SET doc = '{"a": 1, "b": 2}';
		DROP TABLE churn;});
}
is($node->safe_psql('postgres', q{SELECT tracked_tables FROM hotplus_stat_info()}), '0',
	'the entries of dropped tables are gone') or
	diag($node->safe_psql('postgres', q{SELECT * FROM hotplus_stat_tables}));
$node->safe_psql('postgres', q{
	CREATE TEMP TABLE tmp (id int PRIMARY KEY, doc jsonb) USING hotheap;
	INSERT INTO tmp VALUES (1, '{}'); UPDATE tmp SET doc = '{"x": 1}';});
ok($node->poll_query_until('postgres', q{SELECT tracked_tables = 0 FROM hotplus_stat_info()}),
	"a session's temporary table goes with the session");
$node->safe_psql('postgres', q{UPDATE s SET doc = jsonb_set(doc, '{b}', '7') WHERE id = 1});
is($node->safe_psql('postgres', q{SELECT updates FROM hotplus_stat_tables WHERE relname = 's'}), '1',
	'after the churn a table is still counted');

# A dropped database's entries go; a reset of every database is for superusers.
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', q{CREATE EXTENSION hotplus;
	CREATE TABLE o (id int PRIMARY KEY, doc jsonb) USING hotheap; CREATE INDEX ON o ((doc->>'a'));
	INSERT INTO o VALUES (1, '{"a": 1}'); UPDATE o SET doc = '{"a": 1, "b": 1}';});
is($node->safe_psql('postgres', q{SELECT tracked_tables FROM hotplus_stat_info()}), '2', 'two databases tracked');
$node->safe_psql('postgres', 'DROP DATABASE other');
is($node->safe_psql('postgres', q{SELECT tracked_tables FROM hotplus_stat_info()}), '1',
	"a dropped database's entries are gone");
($ret, $out, $err) = $node->psql('postgres', 'SELECT hotplus_stat_reset(true)', extra_params => [ '-U', 'plain_user' ]);
like($err, qr/permission denied for function hotplus_stat_reset/, 'plain users cannot reset every database');
$node->safe_psql('postgres', q{GRANT EXECUTE ON FUNCTION hotplus_stat_reset(boolean) TO plain_user});
($ret, $out, $err) = $node->psql('postgres', 'SELECT hotplus_stat_reset(true)', extra_params => [ '-U', 'plain_user' ]);
like($err, qr/only superusers may reset the statistics of every database/, '... not even when granted the function');
$node->safe_psql('postgres', 'SELECT hotplus_stat_reset(true)');
is($node->safe_psql('postgres', q{SELECT tracked_tables || ' ' || untracked_updates || ' ' || evicted_tables FROM hotplus_stat_info()}),
	'0 0 0', 'a superuser resets every database, and the untracked and evicted counts');

done_testing();
