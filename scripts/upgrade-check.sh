#!/usr/bin/env bash
# Checks every upgrade path of the extension, against the server $PG_CONFIG names (default:
# the pg_config on PATH), on a throwaway cluster (scripts/with-cluster.sh), with hotplus as
# installed in that server (make install first):
#
#   PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config bash scripts/upgrade-check.sh
#
# The versions are those of the tree's scripts: hotplus--A.sql installs A, hotplus--A--B.sql
# updates A to B; nothing is listed by hand. The checks:
#   installed scripts    the server's hotplus.control and hotplus--*.sql are the tree's, no
#                        more and no fewer (a script missing from the Makefile's DATA, or a
#                        stale one from an older install, would change the paths tried)
#   available versions   pg_available_extension_versions lists exactly the tree's versions
#   fresh                CREATE EXTENSION hotplus installs the control's default_version
# and for every version N (default_version included), in a database of its own:
#   N: update            CREATE EXTENSION hotplus VERSION 'N'; ALTER EXTENSION hotplus
#                        UPDATE succeed and end at default_version. A version from which no
#                        script path leads to default_version (a new hotplus--1.4.sql
#                        without hotplus--1.3--1.4.sql; a default_version 1.0 cannot reach)
#                        fails here
# then the database is compared with the fresh one (each a check, "N: <what>"):
#   dump                 pg_dump --schema-only (what a user's dump of the database holds)
#   binary-upgrade dump  pg_dump --schema-only --binary-upgrade: every member object's full
#                        definition, grants and comments, as pg_upgrade carries them over
#   members              the extension's objects (pg_depend, deptype 'e'), by
#                        pg_describe_object
#   definitions          each member's definition from the catalogs: functions
#                        (pg_get_functiondef), relations (kind, columns in order, view
#                        query), access methods, types
#   acls                 each member's ACL, its columns' ACLs, and pg_init_privs (the
#                        privileges pg_dump treats as the extension's own)
#   comments             the comments on the members and their columns, and the extension's
#   extension            pg_extension's row: version, schema, relocatable, config tables
# and for every earlier version N, in a database of its own:
#   N: users' views, functions and grants kept
#                        a user's objects on every statistics view of N (a view, and SQL,
#                        PL/pgSQL and BEGIN ATOMIC functions reading every column; SELECT
#                        revoked from PUBLIC and granted to a monitoring role, and EXECUTE
#                        on the statistics functions too:
#                        scripts/lib/kept-objects.sql) survive ALTER EXTENSION UPDATE: it
#                        succeeds, and each object returns the rows it returned before (the
#                        table and index views some), with the same privileges on the views
#                        and the objects (scripts/lib/kept-snapshot.sql, before and after)
# and last, as scripts/test.sh does, no assertion failure, leaked reference or crash in the
# server's log (scripts/server-log-problems.sh).
# Dump lines that differ legitimately are normalized, each for its reason (normalize()
# below): pg_dump's random \restrict key, and in the binary-upgrade dump the OIDs and
# relfilenodes the database assigned and the WAL positions at which columns were created.
#
# Ends with one line "N passed, N failed" (each check one) and exits non-zero on a failure.
# Logs and the dumps go to test-logs/upgrade-check/ (HOTPLUS_LOG_DIR to change). About 10 to 25 s.
set -uo pipefail
cd "$(dirname "$0")/.."
export PG_CONFIG=${PG_CONFIG:-pg_config}
ext=hotplus

# --- inside the cluster: one snapshot per database --------------------------------------------
if [ "${1:-}" = --inside ]; then
	work=$2
	shift 2
	q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
	snapshot() { # db dir: everything the comparisons read, one file each
		local db=$1 dir=$2
		mkdir -p "$dir"
		# A query or dump that fails is listed in $dir/failed: the same error on both sides must
		# not pass for equal output.
		pg_dump --schema-only "$db" >"$dir/dump.sql" 2>&1 || echo dump >>"$dir/failed"
		pg_dump --schema-only --binary-upgrade "$db" >"$dir/binary-upgrade-dump.sql" 2>&1 ||
			echo binary-upgrade-dump >>"$dir/failed"
		q -d "$db" >"$dir/members.txt" 2>&1 <<-EOF || echo members >>"$dir/failed"
			SELECT pg_describe_object(classid, objid, objsubid) FROM pg_depend
			WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
			  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = '$ext')
			ORDER BY 1;
		EOF
		local members="SELECT classid, objid, objsubid FROM pg_depend
			WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
			  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = '$ext')"
		q -d "$db" >"$dir/definitions.txt" 2>&1 <<-EOF || echo definitions >>"$dir/failed"
			WITH m AS ($members)
			SELECT pg_describe_object(m.classid, m.objid, m.objsubid) || E'\n' || coalesce(CASE m.classid
			  WHEN 'pg_proc'::regclass THEN
			    (SELECT CASE WHEN p.prokind = 'a' THEN 'aggregate ' || pg_get_function_identity_arguments(p.oid)
			                 ELSE pg_get_functiondef(p.oid) END FROM pg_proc p WHERE p.oid = m.objid)
			  WHEN 'pg_class'::regclass THEN
			    (SELECT 'relkind ' || c.relkind::text || ', access method ' || coalesce(c.relam::regclass::text, '-')
			            || E'\ncolumns: ' || coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
			                                                   || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY a.attnum)
			                                    FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
			            || CASE WHEN c.relkind IN ('v', 'm') THEN E'\n' || pg_get_viewdef(c.oid) ELSE '' END
			     FROM pg_class c WHERE c.oid = m.objid)
			  WHEN 'pg_am'::regclass THEN
			    (SELECT 'type ' || a.amtype::text || ', handler ' || a.amhandler::regprocedure::text FROM pg_am a WHERE a.oid = m.objid)
			  WHEN 'pg_type'::regclass THEN
			    (SELECT 'typtype ' || t.typtype::text || ', ' || format_type(t.oid, NULL) FROM pg_type t WHERE t.oid = m.objid)
			  ELSE '(see the binary-upgrade dump)' END, '(none)') AS def
			FROM m ORDER BY 1;
		EOF
		q -d "$db" >"$dir/acls.txt" 2>&1 <<-EOF || echo acls >>"$dir/failed"
			WITH m AS ($members)
			SELECT pg_describe_object(m.classid, m.objid, m.objsubid) || ': ' || coalesce(CASE m.classid
			  WHEN 'pg_proc'::regclass THEN (SELECT proacl::text FROM pg_proc WHERE oid = m.objid)
			  WHEN 'pg_class'::regclass THEN (SELECT relacl::text FROM pg_class WHERE oid = m.objid)
			  WHEN 'pg_type'::regclass THEN (SELECT typacl::text FROM pg_type WHERE oid = m.objid)
			  WHEN 'pg_namespace'::regclass THEN (SELECT nspacl::text FROM pg_namespace WHERE oid = m.objid)
			  WHEN 'pg_language'::regclass THEN (SELECT lanacl::text FROM pg_language WHERE oid = m.objid)
			  WHEN 'pg_foreign_data_wrapper'::regclass THEN (SELECT fdwacl::text FROM pg_foreign_data_wrapper WHERE oid = m.objid)
			  WHEN 'pg_foreign_server'::regclass THEN (SELECT srvacl::text FROM pg_foreign_server WHERE oid = m.objid)
			  END, '(default)') FROM m
			UNION ALL
			SELECT pg_describe_object('pg_class'::regclass, a.attrelid, a.attnum) || ': ' || a.attacl::text
			FROM pg_attribute a JOIN m ON m.classid = 'pg_class'::regclass AND a.attrelid = m.objid
			WHERE a.attacl IS NOT NULL
			UNION ALL
			SELECT 'initial privileges (' || i.privtype::text || ') of ' || pg_describe_object(i.classoid, i.objoid, i.objsubid)
			       || ': ' || i.initprivs::text
			FROM pg_init_privs i JOIN m ON i.classoid = m.classid AND i.objoid = m.objid
			ORDER BY 1;
		EOF
		q -d "$db" >"$dir/comments.txt" 2>&1 <<-EOF || echo comments >>"$dir/failed"
			WITH m AS ($members)
			SELECT pg_describe_object(d.classoid, d.objoid, d.objsubid) || ': ' || d.description
			FROM pg_description d JOIN m ON d.classoid = m.classid AND d.objoid = m.objid
			UNION ALL
			SELECT 'extension $ext: ' || coalesce(obj_description(oid, 'pg_extension'), '(none)')
			FROM pg_extension WHERE extname = '$ext'
			ORDER BY 1;
		EOF
		q -d "$db" >"$dir/extension.txt" 2>&1 <<-EOF || echo extension >>"$dir/failed"
			SELECT extname, extversion, extnamespace::regnamespace, extrelocatable,
			       extconfig::regclass[], extcondition
			FROM pg_extension WHERE extname = '$ext';
		EOF
	}

	q -d postgres -c "SELECT version FROM pg_available_extension_versions WHERE name = '$ext'" \
		>"$work/available.txt" 2>&1
	createdb fresh && q -d fresh -c "CREATE EXTENSION $ext" >"$work/fresh.log" 2>&1
	q -d fresh -c "SELECT extversion FROM pg_extension WHERE extname = '$ext'" >>"$work/fresh.log" 2>&1
	snapshot fresh "$work/fresh"
	for v in "$@"; do
		db=from_${v//[^A-Za-z0-9]/_}
		createdb "$db"
		if q -d "$db" -c "CREATE EXTENSION $ext VERSION '$v'" -c "ALTER EXTENSION $ext UPDATE" \
			-c "SELECT extversion FROM pg_extension WHERE extname = '$ext'" >"$work/update-$v.log" 2>&1; then
			snapshot "$db" "$work/from-$v"
		fi
	done
	# A user's objects on the statistics views of every earlier version, in a database of
	# their own: written out before and after ALTER EXTENSION UPDATE (scripts/lib/kept-*.sql).
	default=$(q -d postgres -c "SELECT default_version FROM pg_available_extensions WHERE name = '$ext'")
	q -d postgres -c "CREATE ROLE hotplus_monitor" -c "CREATE ROLE hotplus_nobody" >"$work/roles.log" 2>&1
	for v in "$@"; do
		[ "$v" = "$default" ] && continue
		db=kept_${v//[^A-Za-z0-9]/_}
		createdb "$db"
		q -d "$db" -v v="$v" -f scripts/lib/kept-objects.sql \
			-c "\\o $work/kept-$v.before" -f scripts/lib/kept-snapshot.sql -c '\o' \
			-c "ALTER EXTENSION $ext UPDATE" \
			-c "\\o $work/kept-$v.after" -f scripts/lib/kept-snapshot.sql -c '\o' \
			>"$work/kept-$v.log" 2>&1
	done
	exit 0
fi

# --- outside: versions, the cluster, the comparisons ---------------------------------------------
started=$SECONDS
log_dir=${HOTPLUS_LOG_DIR:-$(pwd)/test-logs}/upgrade-check
rm -rf "$log_dir"
mkdir -p "$log_dir"
source scripts/lib/steps.sh
steps_start 46
finish() {
	steps_end "$log_dir" "-- upgrade-check: $((SECONDS - started)) s"
	exit
}

sharedir=$("$PG_CONFIG" --sharedir) || { record server 0 1; finish; }
extdir=$sharedir/extension
echo "-- $("$PG_CONFIG" --version) ($PG_CONFIG), extension files in $extdir"
default_version=$(sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\{0,1\}\([^' ]*\)'\{0,1\}.*/\1/p" $ext.control)
# The tree's scripts: $ext--A.sql installs A, $ext--A--B.sql updates A to B (PostgreSQL does not
# allow "--" inside a version name, so splitting on it is exact).
versions=$(for f in $ext--*.sql; do
	f=${f#"$ext"--}
	f=${f%.sql}
	echo "${f%%--*}"
	[[ $f == *--* ]] && echo "${f#*--}"
done | sort -uV)
echo "-- versions from the scripts: $(echo $versions); default_version $default_version"
if [ -z "$versions" ] || [ -z "$default_version" ]; then
	record versions 0 1
	finish
fi

# Installed = the tree's: the same control file and scripts, and no other script.
problems=()
for f in $ext.control $ext--*.sql; do
	cmp -s "$f" "$extdir/$f" || problems+=("$extdir/$f is not the tree's $f (make install?)")
done
for f in "$extdir/$ext"--*.sql; do
	[ -e "$f" ] || continue
	[ -e "$(basename "$f")" ] || problems+=("$f is installed but not in the tree")
done
((${#problems[@]})) && printf '   %s\n' "${problems[@]}"
if ((${#problems[@]})); then record "installed scripts" 0 1; else record "installed scripts" 1 0; fi

work=$(mktemp -d -t hotplus-upgrade.XXXXXX)
trap 'rm -rf "$work"' EXIT
# psql and pg_dump (as root) write the snapshots into $work; the server writes nothing there.
HOTPLUS_SERVER_LOG="$log_dir/server.log" bash scripts/with-cluster.sh -- bash "$(pwd)/scripts/upgrade-check.sh" --inside "$work" $versions \
	>"$log_dir/cluster.log" 2>&1
rc=$?
if ((rc != 0)); then
	tail -20 "$log_dir/cluster.log"
	record cluster 0 1
	finish
fi

if [ "$(sort -V "$work/available.txt")" = "$versions" ]; then
	record "available versions" 1 0
else
	echo "   pg_available_extension_versions: $(sort -V "$work/available.txt" | tr '\n' ' ')"
	record "available versions" 0 1
fi
if [ "$(tail -1 "$work/fresh.log")" = "$default_version" ]; then
	record "fresh: CREATE EXTENSION ($default_version)" 1 0
else
	cat "$work/fresh.log"
	record "fresh: CREATE EXTENSION" 0 1
	finish
fi

# Lines of the dumps that differ between two databases with the same objects, and why:
normalize() {
	sed -E \
		-e '# pg_dump (15.14, 16.10, 17.6, 18 and later) guards its output with a random key per dump' \
		-e 's/^\\(un)?restrict [A-Za-z0-9]+$/\\\1restrict KEY/' \
		-e '# binary-upgrade only: the OIDs and relfilenodes this database gave the objects, and' \
		-e '# the WAL positions (LSNs) at which their columns were created' \
		-e "/binary_upgrade_set_next_/s/'[0-9]+'::pg_catalog\.oid/'OID'::pg_catalog.oid/g" \
		-e '/binary_upgrade_set_next_/s#[0-9A-F]+/[0-9A-F]+#LSN#g' \
		-e '# binary-upgrade only: the transaction ids current when a table was created' \
		-e "s/(rel|dat)(frozenxid|minmxid) = '[0-9]+'/\1\2 = 'XID'/g" \
		"$1"
}

for v in $versions; do
	dir=$work/from-$v
	cp "$work/update-$v.log" "$log_dir/update-$v.log"
	if [ ! -d "$dir" ] || [ "$(tail -1 "$work/update-$v.log")" != "$default_version" ]; then
		sed 's/^/   /' "$work/update-$v.log"
		record "$v: update to $default_version" 0 1
		continue
	fi
	record "$v: update to $default_version" 1 0
	for what in dump binary-upgrade-dump members definitions acls comments extension; do
		case $what in
			*dump) a=$(normalize "$work/fresh/$what.sql"); b=$(normalize "$dir/$what.sql")
				name=${what/-dump/ dump} ;;
			*) a=$(cat "$work/fresh/$what.txt"); b=$(cat "$dir/$what.txt"); name=$what ;;
		esac
		if grep -qsx "$what" "$work/fresh/failed" "$dir/failed"; then
			grep -h -m3 -E 'ERROR|error' "$work/fresh/$what".* "$dir/$what".* | sed 's/^/   /'
			record "$v: $name (query or dump failed)" 0 1
		elif [ -n "$a" ] && [ "$a" = "$b" ]; then
			record "$v: $name" 1 0
		else
			diff -u --label "fresh CREATE EXTENSION" --label "CREATE VERSION '$v' + UPDATE" \
				<(echo "$a") <(echo "$b") >"$log_dir/$v-$what.diff"
			[ -z "$a" ] && echo "   (empty for the fresh database)"
			head -40 "$log_dir/$v-$what.diff" | sed 's/^/   /'
			record "$v: $name" 0 1
		fi
	done
done
# Users' objects on the statistics views survive ALTER EXTENSION UPDATE from every earlier
# version: the update succeeds, every object returns what it returned before (the table and
# index views some rows), and the privileges on the views and the objects are unchanged.
for v in $versions; do
	[ "$v" = "$default_version" ] && continue
	name="$v: users' views, functions and grants kept"
	before=$work/kept-$v.before after=$work/kept-$v.after
	cp "$work/kept-$v.log" "$log_dir/kept-$v.log" 2>/dev/null
	if [ ! -s "$before" ] || [ ! -s "$after" ]; then
		grep -m5 -E 'ERROR|DETAIL|HINT' "$work/kept-$v.log" | sed 's/^/   /'
		record "$name" 0 1
	elif ! diff -u --label "before ALTER EXTENSION UPDATE" --label after "$before" "$after" >"$log_dir/kept-$v.diff"; then
		head -40 "$log_dir/kept-$v.diff" | sed 's/^/   /'
		record "$name" 0 1
	elif grep -qE '^rows user_hotplus_stat_(tables|indexes)[a-z_()]*: 0$' "$after" ||
		! grep -qE '^rows user_hotplus_stat_indexes_atomic\(\): [1-9]' "$after"; then
		echo "   an object returned no rows:"
		grep '^rows ' "$after" | sed 's/^/   /'
		record "$name" 0 1
	else
		record "$name" 1 0
	fi
done
# As scripts/test.sh: no assertion failure, leaked reference or crash in the server's log.
if bash scripts/server-log-problems.sh "$log_dir/server.log"; then
	record server-log 0 1
else
	record server-log 1 0
fi
cp -r "$work/fresh" "$log_dir/fresh"
for v in $versions; do
	[ -d "$work/from-$v" ] && cp -r "$work/from-$v" "$log_dir/from-$v"
	cp "$work/kept-$v".before "$work/kept-$v".after "$log_dir/" 2>/dev/null
done

finish
