-- Exact list totals that do not grow with the organization (issue 11,
-- docs/decisions/0005): per-organization counters kept by a trigger in the
-- same transaction as every insert, delete and update of a listed table.
-- key '' counts every row of the organization; key 'column=value' counts the
-- rows with that value in one of the columns named in the trigger's arguments
-- (the filters a list declares with Where.counted). A total is the sum of a
-- key's shards: each connection writes the shard of its backend pid, so
-- concurrent inserts of one organization rarely wait on the same counter row.
CREATE TABLE list_counts (
  table_name text NOT NULL,
  organization_id uuid NOT NULL,
  key text NOT NULL,
  shard smallint NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (table_name, organization_id, key, shard)
);

CREATE FUNCTION list_counts_add(tbl text, r jsonb, cols text[], delta integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO list_counts (table_name, organization_id, key, shard, n)
  SELECT tbl, (r->>'organization_id')::uuid, k.key, pg_backend_pid() % 16, delta
  FROM (SELECT '' AS key
        UNION ALL
        SELECT c || '=' || (r->>c) FROM unnest(cols) AS c WHERE r->>c IS NOT NULL) AS k
  ORDER BY k.key
  ON CONFLICT (table_name, organization_id, key, shard) DO UPDATE SET n = list_counts.n + EXCLUDED.n;
END $$;

CREATE FUNCTION list_counts_track() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  cols text[] := coalesce(TG_ARGV, '{}'::text[]);
  o jsonb;
  nw jsonb;
  c text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM list_counts_add(TG_TABLE_NAME, to_jsonb(NEW), cols, 1);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM list_counts_add(TG_TABLE_NAME, to_jsonb(OLD), cols, -1);
  ELSE
    o := to_jsonb(OLD);
    nw := to_jsonb(NEW);
    IF o->>'organization_id' IS DISTINCT FROM nw->>'organization_id' THEN
      PERFORM list_counts_add(TG_TABLE_NAME, o, cols, -1);
      PERFORM list_counts_add(TG_TABLE_NAME, nw, cols, 1);
    ELSE
      FOREACH c IN ARRAY cols LOOP
        IF o->>c IS DISTINCT FROM nw->>c THEN
          PERFORM list_counts_add(TG_TABLE_NAME, o, cols, -1);
          PERFORM list_counts_add(TG_TABLE_NAME, nw, cols, 1);
          EXIT;
        END IF;
      END LOOP;
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION list_counts_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM list_counts WHERE table_name = TG_TABLE_NAME;
  RETURN NULL;
END $$;

-- Installs the triggers on a table and counts its present rows.
CREATE FUNCTION list_counts_install(tbl text, cols text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  args text := coalesce((SELECT string_agg(quote_literal(c), ', ') FROM unnest(cols) AS c), '');
BEGIN
  EXECUTE format(
    $f$INSERT INTO list_counts (table_name, organization_id, key, shard, n)
       SELECT %L, r.organization_id, k.key, 0, count(*)
       FROM %I AS r
       CROSS JOIN LATERAL (SELECT '' AS key
                           UNION ALL
                           SELECT c || '=' || (to_jsonb(r)->>c) FROM unnest(%L::text[]) AS c WHERE to_jsonb(r)->>c IS NOT NULL) AS k
       GROUP BY 1, 2, 3$f$, tbl, tbl, cols);
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR DELETE OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION list_counts_track(%s)',
    tbl || '_list_counts', tbl, args);
  EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncated()',
    tbl || '_list_counts_truncated', tbl);
END $$;

SELECT list_counts_install('contacts', ARRAY['type', 'vendor']);
SELECT list_counts_install('invoices', ARRAY['status']);
SELECT list_counts_install('orders', ARRAY['status', 'source']);
SELECT list_counts_install('quotations', ARRAY['status']);
SELECT list_counts_install('products', ARRAY['type']);
SELECT list_counts_install('employees', ARRAY['department']);
SELECT list_counts_install('leads', ARRAY['status']);
SELECT list_counts_install('licenses', ARRAY['product_id']);
