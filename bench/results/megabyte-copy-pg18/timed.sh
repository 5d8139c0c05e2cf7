#!/bin/bash
# Backend CPU per update of 1 MB documents, hotplus.read_path off (the check reads a prefix)
# against on (the check copies the plan's detoasted old document), one client, in memory.
set -e
psql -qX -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION hotplus;
DO $$
DECLARE layout text; storage text; key text;
BEGIN
  FOREACH layout IN ARRAY ARRAY['last','first'] LOOP
    FOREACH storage IN ARRAY ARRAY['external','extended'] LOOP
      key := CASE layout WHEN 'last' THEN 'zzzzzzzzzzzzzzzz' ELSE 'p' END;
      EXECUTE format('CREATE TABLE m_%s_%s (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 80)', layout, storage);
      EXECUTE format('ALTER TABLE m_%s_%s ALTER doc SET STORAGE %s', layout, storage, storage);
      EXECUTE format($q$INSERT INTO m_%s_%s SELECT g, (SELECT jsonb_object_agg('f' || k, 'v' || mod(g * k, 997)) FROM generate_series(1, 20) k)
          || jsonb_build_object('counter', 0, %L, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 32768) i))
          FROM generate_series(1, 200) g$q$, layout, storage, key);
      FOR k IN 1..20 LOOP
        EXECUTE format($q$CREATE INDEX ON m_%s_%s ((doc->>'f%s'))$q$, layout, storage, k);
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
VACUUM ANALYZE;
SQL
CK=$(psql -qXAt -c "SELECT pid FROM pg_stat_activity WHERE backend_type='checkpointer'")
PM=$(awk '{print $4}' /proc/$CK/stat)
cpu() { /usr/bin/python3 -c "f=open('/proc/$PM/stat').read().rsplit(')',1)[1].split(); print(int(f[13])+int(f[14]))"; }
N=400
for round in 1 2 3 4 5; do
 for t in m_last_external m_last_extended m_first_external; do
  for mode in off on; do
   [ $((round % 2)) = 0 ] && mode=$([ $mode = off ] && echo on || echo off)
   cat > /tmp/m.sql <<SQL
\set id random(1, 200)
UPDATE $t SET doc = jsonb_set(doc, '{counter}', to_jsonb((doc->>'counter')::int + 1)) WHERE id = :id;
SQL
   a=$(cpu)
   PGOPTIONS="-c hotplus.read_path=$mode" pgbench -n -M prepared -c 1 -t $N -f /tmp/m.sql >/dev/null 2>&1
   sleep 0.3
   b=$(cpu)
   echo "r$round $t $mode cpu_us_per_update $(( (b - a) * 10000 / N ))"
   psql -qXc "VACUUM $t"
  done
 done
done
