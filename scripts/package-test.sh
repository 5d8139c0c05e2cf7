#!/usr/bin/env bash
# Tests the Debian package (debian/) end to end on Debian 12's PostgreSQL 15, as root:
#
#   1. installs the build dependencies (scripts/package-deps.sh);
#   2. removes every hotplus file from the server's directories ($(pg_config --pkglibdir),
#      its bitcode/ and $(pg_config --sharedir)/extension), so that nothing a "make install"
#      left there can stand in for the package's files; a postgresql-15-hotplus package
#      already installed is purged first. Nothing is recorded or restored: scripts/test.sh
#      builds and installs with make again for its own runs;
#   3. builds the package with "dpkg-buildpackage -us -uc -b" in a copy of the tree's files
#      (tracked ones with their uncommitted changes, and untracked ones git does not ignore,
#      as scripts/test.sh copies them), so no build output of the working tree gets in; the
#      build runs the regression and isolation suites against the built files itself
#      (debian/rules, pg_buildext installcheck), which is checked. The copy is in a mode-0700
#      directory of root's (mktemp -d) that the postgres user cannot read, as a root clone in
#      /root is: the build must pass from there too (the test server runs as postgres);
#   4. checks the package's contents: the library, the control file, every SQL script of
#      the tree (hotplus--*.sql), nothing of the tests and nothing else in the server's
#      directories; and its dependency on postgresql-15;
#   5. installs it with "apt-get install ./postgresql-15-hotplus_*.deb", creates the
#      extension on a throwaway cluster (scripts/with-cluster.sh) and runs the project's
#      regression and isolation suites there with "make installcheck" in the build copy (a
#      PGXS installcheck builds and installs nothing: it runs pg_regress and
#      pg_isolation_regress against the server's installed files, here the package's; the
#      copy holds no build output after dpkg-buildpackage's clean, which is checked);
#   6. runs the autopkgtest (debian/tests/installcheck: pg_buildext installcheck, the same
#      suites in a pg_virtualenv cluster against the installed package; about 25 s);
#   7. checks with "dpkg --verify", after the suites and after the autopkgtest, that the
#      installed files are still the package's (a "make install" from another checkout
#      meanwhile would have replaced them, and the suites would have tested that build);
#   8. removes, then purges the package and checks that no hotplus file remains in the
#      server's directories.
#
#   bash scripts/package-test.sh
#
# Each checked property counts as one check, and each regression test and isolation spec as
# one, as scripts/test.sh counts them; it ends with one line "N passed, N failed" and exits
# non-zero on a failure. Logs go to test-logs/package/ (HOTPLUS_LOG_DIR to change). 3 to 4.5
# minutes on this shared 2-core machine (the build about 1, each run of the suites 1 to 2).
#
# It changes Debian's PostgreSQL 15 installation: do not run it beside anything else that
# installs hotplus into that server or uses it there (scripts/test.sh's target 15, a "make
# install" from another checkout). It refuses to start while a process has the installed
# hotplus.so loaded, and the "dpkg --verify" checks fail if the files were replaced during
# the run; it leaves the server without hotplus.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
started=$SECONDS
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
export PG_CONFIG
major=15
package=postgresql-$major-hotplus
log_dir=${HOTPLUS_LOG_DIR:-$root/test-logs}/package
rm -rf "$log_dir"
mkdir -p "$log_dir"

source scripts/lib/steps.sh
steps_start 34
finish() {
	steps_end "$log_dir" "-- package-test: $((SECONDS - started)) s"
	exit
}

if ! bash scripts/package-deps.sh >"$log_dir/deps.log" 2>&1; then
	cat "$log_dir/deps.log"
	record package-deps 0 1
	finish
fi

pkglibdir=$("$PG_CONFIG" --pkglibdir)
extdir=$("$PG_CONFIG" --sharedir)/extension
bitcodedir=$pkglibdir/bitcode
hotplus_files() { # every hotplus file in the server's directories, one per line
	find "$pkglibdir" "$extdir" -maxdepth 1 -name 'hotplus*' 2>/dev/null
	find "$bitcodedir" -maxdepth 1 -name 'hotplus*' 2>/dev/null
}

users=$(grep -l -F "$pkglibdir/hotplus.so" /proc/[0-9]*/maps 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
if [ -n "$users" ]; then
	echo "package-test: processes $users have $pkglibdir/hotplus.so loaded (another test run?); not touching it"
	record server-in-use 0 1
	finish
fi

# apt-get waits for another apt or dpkg run to finish rather than fail on its lock.
apt=(bash "$PWD/scripts/apt-get.sh")

work=$(mktemp -d -t hotplus-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
# mktemp -d's mode 0700: the build below runs where the postgres user cannot read, as from a
# root clone in /root (it is opened for the later steps after the build).
chmod 700 "$work"

# --- no hotplus in the server before the package ------------------------------------------
if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -qE ' (installed|config-files|unpacked|half-[a-z]+)$'; then
	"${apt[@]}" purge -y -q "$package" >"$log_dir/purge-before.log" 2>&1
fi
hotplus_files | xargs -r rm -rf --
check "no hotplus files before install" test -z "$(hotplus_files)"

# --- build, from a copy of the tree ---------------------------------------------------------
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
src=$work/hotplus-${version%-*}
mkdir -p "$src"
(git -c safe.directory="$root" ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
	done | xargs -0 -r cp -P --parents -t "$src")
check "build copy unreadable to postgres" bash -c "! runuser -u postgres -- test -r '$src'"
(cd "$src" && nice dpkg-buildpackage -us -uc -b) >"$log_dir/build.log" 2>&1
build_rc=$?
# The later steps run with the build copy open to all, as they did before the build was
# tested from a closed directory.
chmod 755 "$work"
deb=$(ls "$work/${package}_${version}_"*.deb 2>/dev/null | head -1)
if ((build_rc != 0)) || [ -z "$deb" ]; then
	tail -60 "$log_dir/build.log"
	record build 0 1
	finish
fi
record build 1 0
grep -E '^ *(# )?All [0-9]+ tests passed' "$log_dir/build.log" | sed 's/^/   build-time suite: /'
check "build: ran regress and isolation" \
	test "$(grep -cE '^ *(# )?All [0-9]+ tests passed' "$log_dir/build.log")" -eq 2
check "build: no compiler warning" bash -c "! grep -q 'warning:' '$log_dir/build.log'"
cp "$deb" "$log_dir/"

# --- contents --------------------------------------------------------------------------------
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' | grep -v '/$' | sort >"$log_dir/contents.txt"
cat "$log_dir/contents.txt"
expected=$(
	echo "$pkglibdir/hotplus.so"
	echo "$extdir/hotplus.control"
	for f in hotplus--*.sql; do echo "$extdir/$f"; done
)
server_files=$(grep -E "^($pkglibdir|$(dirname "$extdir"))/" "$log_dir/contents.txt")
check "contents: library" grep -qx "$pkglibdir/hotplus.so" "$log_dir/contents.txt"
check "contents: control file" grep -qx "$extdir/hotplus.control" "$log_dir/contents.txt"
sql_missing=()
for f in hotplus--*.sql; do grep -qx "$extdir/$f" "$log_dir/contents.txt" || sql_missing+=("$f"); done
((${#sql_missing[@]})) && echo "not in the package: ${sql_missing[*]}"
check "contents: all $(ls hotplus--*.sql | wc -l) SQL scripts" test ${#sql_missing[@]} -eq 0
check "contents: no test files" bash -c "! grep -E '/(sql|expected|specs|t|test|results)/|regress|\.(out|spec|pl)$' '$log_dir/contents.txt'"
check "contents: nothing else for the server" test "$server_files" = "$(echo "$expected" | sort)"
depends=$(dpkg-deb -f "$deb" Depends)
echo "   Depends: $depends"
check "depends on postgresql-$major" bash -c "grep -qE '(^|, )postgresql-$major( |,|$)' <<<'$depends'"

# --- install, create the extension, run the suites --------------------------------------------
(cd "$work" && "${apt[@]}" install -y -q "./$(basename "$deb")") >"$log_dir/install.log" 2>&1
install_rc=$?
((install_rc != 0)) && tail -20 "$log_dir/install.log"
check "apt-get install ./$(basename "$deb")" test $install_rc -eq 0
same=1
for f in hotplus.control hotplus--*.sql; do cmp -s "$f" "$extdir/$f" || { echo "differs from the tree: $extdir/$f"; same=0; }; done
check "installed SQL and control = the tree's" test $same -eq 1

default_version=$(sed -n "s/^default_version *= *'\(.*\)'.*/\1/p" hotplus.control)
cat >"$work/smoke.sql" <<'EOF'
\set ON_ERROR_STOP on
CREATE EXTENSION hotplus;
SELECT extversion FROM pg_extension WHERE extname = 'hotplus';
CREATE TABLE smoke (id int PRIMARY KEY, doc jsonb) USING hotheap;
CREATE INDEX ON smoke ((doc->>'k'));
INSERT INTO smoke SELECT g, jsonb_build_object('k', g, 'n', 0) FROM generate_series(1, 10) g;
UPDATE smoke SET doc = jsonb_set(doc, '{n}', '1');
SELECT 'hot ' || hot_by_expression FROM hotplus_stat_tables WHERE relname = 'smoke';
EOF
bash scripts/with-cluster.sh -o "hotplus.verify = on" -- \
	psql -X -At -f "$work/smoke.sql" >"$log_dir/create-extension.log" 2>&1
cat "$log_dir/create-extension.log"
check "CREATE EXTENSION hotplus ($default_version), HOT updates" \
	bash -c "grep -qx '$default_version' '$log_dir/create-extension.log' && grep -qx 'hot 10' '$log_dir/create-extension.log'"

build_output() { # object files and libraries in the build copy, but for the package's staging
	find "$src" -path "$src/debian" -prune -o \( -name '*.o' -o -name '*.so' -o -name '*.bc' \) -print
}
check "build copy has no build output" test -z "$(build_output)"
suite() { # name diffs make-variables...: as scripts/test.sh's regress_suite
	local name=$1 diffs=$src/$2 file=$log_dir/$1.log
	rm -f "$diffs"
	HOTPLUS_SERVER_LOG="$log_dir/$name.server.log" bash scripts/with-cluster.sh -o "hotplus.verify = on" -- \
		make -C "$src" installcheck "${@:3}" >"$file" 2>&1
	regress_record "$name" "$file" 20
	if [ -f "$diffs" ]; then
		head -100 "$diffs"
		cp "$diffs" "$log_dir/$name.diffs"
	fi
}
suite regress regression.diffs ISOLATION=
suite isolation output_iso/regression.diffs REGRESS=
check "nothing was built for the suites" test -z "$(build_output)"

# The suites ran on the package's files only if nothing replaced them meanwhile (a "make
# install" into the same server from another checkout would).
still_packaged() { # when
	dpkg --verify "$package" >"$log_dir/verify.log" 2>&1
	sed 's/^/   /' "$log_dir/verify.log"
	check "dpkg --verify $1" test ! -s "$log_dir/verify.log"
}
still_packaged "after the suites"
if bash scripts/server-log-problems.sh "$log_dir/regress.server.log" "$log_dir/isolation.server.log"; then
	record server-log 0 1
else
	record server-log 1 0
fi

# --- the autopkgtest --------------------------------------------------------------------------
(cd "$src" && debian/tests/installcheck) >"$log_dir/autopkgtest.log" 2>&1
autopkgtest_rc=$?
grep -E '^(### |.*All [0-9]+ tests passed|.*tests failed)' "$log_dir/autopkgtest.log"
((autopkgtest_rc != 0)) && tail -30 "$log_dir/autopkgtest.log"
check "autopkgtest installcheck" test $autopkgtest_rc -eq 0

still_packaged "after the autopkgtest"

# --- remove and purge -------------------------------------------------------------------------
"${apt[@]}" remove -y -q "$package" >"$log_dir/remove.log" 2>&1
remove_rc=$?
left=$(hotplus_files)
[ -n "$left" ] && echo "left after remove: $left"
check "apt-get remove: no hotplus files left" test $remove_rc -eq 0 -a -z "$left"
# A package without conffiles is gone from dpkg's database after remove already, and apt-get
# purge would not find it (a package installed from a file is in no apt list): purge what
# dpkg still lists.
purge_rc=0
if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -qE ' (installed|config-files|unpacked|half-[a-z]+)$'; then
	"${apt[@]}" purge -y -q "$package" >"$log_dir/purge.log" 2>&1
	purge_rc=$?
fi
status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)
echo "   after purge: ${status:-unknown to dpkg}"
check "purge: package unknown to dpkg" bash -c "test $purge_rc -eq 0 && grep -qE '^$|not-installed$' <<<'$status'"
left=$(hotplus_files)
[ -n "$left" ] && echo "left after purge: $left"
check "nothing of hotplus in $pkglibdir, bitcode, extension" test -z "$left"

finish
