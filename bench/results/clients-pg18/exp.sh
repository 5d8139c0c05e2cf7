#!/bin/bash
# Backend CPU per update (user, sys) and TPS: hotheap against heap's HOT path over 20 untouched
# indexes (the ceiling), ~1 kB documents in memory, at 1, 2 and 4 clients, rounds interleaved.
set -e
ROWS=${ROWS:-400000}
psql -qX -v ON_ERROR_STOP=1 -v rows=$ROWS <<'SQL'
CREATE EXTENSION IF NOT EXISTS hotplus;
SELECT set_config('my.rows', :'rows', false);
DO $$
DECLARE am text; idx text; n int := current_setting('my.rows')::int;
BEGIN
  FOREACH am IN ARRAY ARRAY['hotheap','ceiling'] LOOP
    EXECUTE format('CREATE TABLE t_%s (id int PRIMARY KEY, doc jsonb) USING %s WITH (fillfactor = 80)', am,
                   CASE am WHEN 'hotheap' THEN 'hotheap' ELSE 'heap' END);
    EXECUTE format($q$INSERT INTO t_%s SELECT g, (SELECT jsonb_object_agg('f' || k, 'v' || mod(g * k, 997)) FROM generate_series(1, 20) k)
       || jsonb_build_object('counter', 0, 'pad', repeat('x', 700)) FROM generate_series(1, %s) g$q$, am, n);
    FOR k IN 1..20 LOOP
      IF am = 'hotheap' THEN
        EXECUTE format($q$CREATE INDEX ON t_%s ((doc->>'f%s'))$q$, am, k);
      ELSE
        EXECUTE format($q$CREATE INDEX ON t_%s ((id + %s))$q$, am, k);
      END IF;
    END LOOP;
  END LOOP;
END $$;
VACUUM ANALYZE;
SELECT count(*) FROM t_hotheap; SELECT count(*) FROM t_ceiling;
SQL
CK=$(psql -qXAt -c "SELECT pid FROM pg_stat_activity WHERE backend_type='checkpointer'")
PM=$(awk '{print $4}' /proc/$CK/stat)
read_children() { /usr/bin/python3 -c "f=open('/proc/$PM/stat').read().rsplit(')',1)[1].split(); print(f[8], f[13], f[14])"; }
PER=${PER:-20000}
snap() { psql -qXAt -c "SELECT s.heap_blks_read, s.heap_blks_hit, s.idx_blks_read, s.idx_blks_hit, u.autovacuum_count, u.autoanalyze_count, (SELECT sum(reads) FROM pg_stat_io WHERE backend_type='client backend'), (SELECT sum(writes) FROM pg_stat_io WHERE backend_type='client backend'), (SELECT sum(evictions) FROM pg_stat_io WHERE backend_type='client backend') FROM pg_statio_user_tables s JOIN pg_stat_user_tables u USING (relid) WHERE s.relname = 't_$1'"; }
for round in $(seq 1 ${ROUNDS:-3}); do
for c in ${CLIENTS:-1 4}; do
for t in hotheap ceiling; do
  cat > /tmp/u_$t.sql <<SQL
\set id random(1, $ROWS)
UPDATE t_$t SET doc = jsonb_set(doc, '{counter}', to_jsonb((doc->>'counter')::int + 1)) WHERE id = :id;
SQL
  a=$(read_children)
  sa=$(snap $t)
  if [ -n "$DUR" ]; then out=$(pgbench -n -M prepared -c $c -j $c -T $DUR -f /tmp/u_$t.sql 2>/dev/null)
  else out=$(pgbench -n -M prepared -c $c -j $c -t $((PER / c)) -f /tmp/u_$t.sql 2>/dev/null); fi
  tps=$(echo "$out" | awk '/^tps/ {print $3}')
  n=$(echo "$out" | awk '/number of transactions actually processed/ {split($NF,x,"/"); print x[1]}')
  sleep 0.3
  b=$(read_children)
  sleep 1
  sb=$(snap $t)
  /usr/bin/python3 -c "
a=list(map(int,'$a'.split())); b=list(map(int,'$b'.split())); n=$n
import os; hz=os.sysconf('SC_CLK_TCK')
sa=list(map(float,'$sa'.split('|'))); sb=list(map(float,'$sb'.split('|')))
d=[(y-x)/n for x,y in zip(sa,sb)]
print('r$round c$c $t', 'heap_read %.3f heap_hit %.2f idx_read %.3f idx_hit %.2f av %d aa %d io_read %.3f io_write %.3f evict %.3f' % (d[0],d[1],d[2],d[3],d[4]*n,d[5]*n,d[6],d[7],d[8]))
print('r$round c$c $t', 'tps %.0f' % float('$tps'), 'user_us %.1f' % ((b[1]-a[1])*1e6/hz/n), 'sys_us %.1f' % ((b[2]-a[2])*1e6/hz/n), 'minflt %.2f' % ((b[0]-a[0])/n))"
  A=${AFTER:-VACUUM TABLE}; psql -qXc "${A//TABLE/t_$t}"
done
done
done
