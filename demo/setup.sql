-- Two identical tables of JSONB documents with 10 expression indexes, one heap, one hotheap.
CREATE EXTENSION IF NOT EXISTS hotplus;
DROP TABLE IF EXISTS docs_heap, docs_hotheap;

CREATE TABLE docs_heap (id int PRIMARY KEY, doc jsonb NOT NULL) WITH (fillfactor = 70);
CREATE TABLE docs_hotheap (id int PRIMARY KEY, doc jsonb NOT NULL) USING hotheap WITH (fillfactor = 70);

INSERT INTO docs_heap
SELECT g, jsonb_build_object('customer', 'c' || (g % 997), 'status', 'new', 'region', g % 17,
                             'sku', 'sku-' || g, 'priority', g % 5, 'owner', 'u' || (g % 101),
                             'city', 'city' || (g % 211), 'zip', lpad((g % 99999)::text, 5, '0'),
                             'channel', 'web', 'batch', g / 100,
                             'counter', 0, 'note', repeat('n', 300))
FROM generate_series(1, :rows) g;
INSERT INTO docs_hotheap SELECT * FROM docs_heap;

DO $$
DECLARE t text; f text;
BEGIN
  FOREACH t IN ARRAY ARRAY['docs_heap', 'docs_hotheap'] LOOP
    FOREACH f IN ARRAY ARRAY['customer','status','region','sku','priority','owner','city','zip','channel','batch'] LOOP
      EXECUTE format('CREATE INDEX ON %I ((doc->>%L))', t, f);
    END LOOP;
  END LOOP;
END $$;
VACUUM ANALYZE docs_heap, docs_hotheap;
SELECT pg_stat_reset();
