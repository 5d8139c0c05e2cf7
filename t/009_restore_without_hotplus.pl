# pg_restore of a custom-format dump of hotheap tables (indexes, values toasted out of line
# and compressed in line, a partitioned table) into a database where hotplus was never
# created, with doc/using.md's recipe run as documented ("Working with other tools", "Into a
# server without hotplus"; scripts/tap.sh copies doc/ beside t/): it exits 0 with
# --exit-on-error, the tables are heap with the same rows, amcheck passes, and the SQL it
# restores names neither hotplus nor hotheap. Without the recipe, a restore into a fresh
# database of a server with hotplus installed makes the tables hotheap again.
# (scripts/tools-check.sh restores the same way into a server without hotplus's files.)
# Design points: none (dump and restore)
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION hotplus;
CREATE TABLE docs (id int PRIMARY KEY, doc jsonb NOT NULL, n int NOT NULL DEFAULT 0, big text)
  USING hotheap WITH (fillfactor = 70);
ALTER TABLE docs ALTER big SET STORAGE EXTERNAL;
INSERT INTO docs SELECT g, jsonb_build_object('a', g % 97, 'b', 0), 0,
  CASE WHEN g % 10 = 0 THEN repeat(md5(g::text), 100) END
FROM generate_series(1, 1000) g;
CREATE INDEX docs_a ON docs ((doc->>'a'));
CREATE INDEX docs_neg ON docs (n) WHERE n < 0;
UPDATE docs SET doc = jsonb_set(doc, '{b}', '1'), n = -id WHERE id % 7 = 0;
CREATE TABLE parted (id int PRIMARY KEY, v text) PARTITION BY RANGE (id);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (500) USING hotheap;
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (500) TO (1000) USING hotheap;
CREATE INDEX parted_lower ON parted (lower(v));
INSERT INTO parted SELECT g, repeat(chr(65 + g % 26), 4 * g) FROM generate_series(0, 999) g;
CREATE TABLE plain (id int PRIMARY KEY, v text) USING heap;
INSERT INTO plain SELECT g, 'p' || g FROM generate_series(1, 100) g;
});

my @tables = qw(docs parted_1 parted_2 plain);
my $tables_sql = join(', ', map { "'$_'" } @tables);
# Each table's rows (count and md5 of their text, sorted), and the access methods.
my $rows_sql = join(" || ' ' || ", map {
	"(SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) FROM $_ t)"
} qw(docs parted plain));
my $ams_sql = qq{SELECT string_agg(c.relname || ':' || a.amname, ',' ORDER BY c.relname)
	FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	WHERE c.relnamespace = 'public'::regnamespace AND c.relname IN ($tables_sql)};
my $rows = $node->safe_psql('postgres', "SELECT $rows_sql");
is($node->safe_psql('postgres', $ams_sql), 'docs:hotheap,parted_1:hotheap,parted_2:hotheap,plain:heap',
	'source: hotheap tables and a heap one');
is($node->safe_psql('postgres',
		q{SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE oid = 'docs'::regclass}), 't',
	'source: docs.big is stored out of line');
is($node->safe_psql('postgres',
		q{SELECT count(*) FROM parted WHERE pg_column_compression(v) IS NOT NULL}) > 0 ? 1 : 0, 1,
	'source: some of parted.v is compressed');

my $dir = $node->basedir;
my $dumpfile = "$dir/app.dump";
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dumpfile, '-d', $node->connstr('postgres') ], 'pg_dump -Fc');

# doc/using.md's recipe, as documented.
open(my $doc, '<', 'doc/using.md') or die "doc/using.md: $!";
my ($recipe) = do { local $/; <$doc> } =~ /\*\*Into a server without hotplus\*\*.*?```sh\n(.*?)```/s
  or die 'no pg_restore recipe in doc/using.md';
close($doc);
like($recipe, qr/--no-table-access-method --exit-on-error -d newdb app\.dump/,
	'the recipe restores app.dump into newdb with --no-table-access-method --exit-on-error');
(my $script = $recipe) =~ s/\bapp\.(dump|list)\b/$dir\/app.$1/g;
$script =~ s/\bnewdb\b/restored_heap/g;

$node->safe_psql('postgres', 'CREATE DATABASE restored_heap');
my ($stdout, $stderr);
{
	local $ENV{PGHOST} = $node->host;
	local $ENV{PGPORT} = $node->port;
	my $ok = IPC::Run::run([ 'bash', '-ec', $script ], '>', \$stdout, '2>', \$stderr);
	ok($ok, 'the recipe exits 0 (with --exit-on-error)') or diag("$script\n$stdout\n$stderr");
}
is($stderr, '', 'and reports nothing');
is($node->safe_psql('restored_heap', q{SELECT count(*) FROM pg_extension WHERE extname = 'hotplus'}), '0',
	'restored_heap has no hotplus');
is($node->safe_psql('restored_heap', $ams_sql), 'docs:heap,parted_1:heap,parted_2:heap,plain:heap',
	'every table is heap');
is($node->safe_psql('restored_heap', "SELECT $rows_sql"), $rows, 'with the same rows');
$node->safe_psql('restored_heap', 'CREATE EXTENSION amcheck');
is($node->safe_psql('restored_heap', q{SELECT count(*) FROM (SELECT bt_index_check(i.indexrelid, true)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r') s}), '8',
	'amcheck heapallindexed passes on the 8 restored indexes');
is($node->safe_psql('restored_heap', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) || ' ' || sum(id) FROM docs WHERE doc->>'a' = '5'}),
	$node->safe_psql('postgres', q{SELECT count(*) || ' ' || sum(id) FROM docs WHERE doc->>'a' = '5'}),
	'the expression index answers as in the source');

# The SQL the recipe restores (its list, its option) names neither hotplus nor hotheap; the
# dump itself names both.
my ($sql_ok, $restore_sql, $sql_err);
$sql_ok = IPC::Run::run([ 'pg_restore', '-L', "$dir/app.list", '--no-table-access-method', '-f', '-', $dumpfile ],
	'>', \$restore_sql, '2>', \$sql_err);
ok($sql_ok, "pg_restore -f - with the recipe's list and option") or diag($sql_err);
like($restore_sql, qr/CREATE TABLE public\.docs/, 'that SQL creates the tables');
unlike($restore_sql, qr/hotplus|hotheap/i, 'and names neither hotplus nor hotheap');
my $full_sql;
IPC::Run::run([ 'pg_restore', '-f', '-', $dumpfile ], '>', \$full_sql) or die 'pg_restore -f -';
like($full_sql, qr/CREATE EXTENSION IF NOT EXISTS hotplus/, 'the whole dump creates the extension');
like($full_sql, qr/SET default_table_access_method = hotheap/, 'and sets hotheap for its tables');

# Without the recipe, into a fresh database of this server (hotplus installed, never created
# there): the dump creates the extension, and the tables are hotheap again.
$node->safe_psql('postgres', 'CREATE DATABASE restored_hotheap');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored_hotheap'), $dumpfile ],
	'plain pg_restore --exit-on-error into a fresh database');
is($node->safe_psql('restored_hotheap', $ams_sql), 'docs:hotheap,parted_1:hotheap,parted_2:hotheap,plain:heap',
	'the tables are hotheap again');
is($node->safe_psql('restored_hotheap', "SELECT $rows_sql"), $rows, 'with the same rows');
is($node->safe_psql('restored_hotheap', q{BEGIN; UPDATE docs SET doc = jsonb_set(doc, '{b}', '2') WHERE id BETWEEN 101 AND 110;
		SELECT pg_stat_get_xact_tuples_hot_updated('docs'::regclass); COMMIT;}), '10',
	'and an update of a field no index reads is HOT');

done_testing();
