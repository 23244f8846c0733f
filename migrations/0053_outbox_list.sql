-- Issue 11 for the admin outbox list (found by test/list-plans.test.ts):
-- counters by status and indexes per sort, filter and search. The outbox
-- also holds mail of no organization (organization_id NULL): the counters
-- skip those rows, which no organization's list shows.
CREATE OR REPLACE FUNCTION list_counts_add(tbl text, r jsonb, cols text[], delta integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF r->>'organization_id' IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO list_counts (table_name, organization_id, key, shard, n)
  SELECT tbl, (r->>'organization_id')::uuid, k.key, pg_backend_pid() % 16, delta
  FROM (SELECT '' AS key
        UNION ALL
        SELECT c || '=' || (r->>c) FROM unnest(cols) AS c WHERE r->>c IS NOT NULL) AS k
  ORDER BY k.key
  ON CONFLICT (table_name, organization_id, key, shard) DO UPDATE SET n = list_counts.n + EXCLUDED.n;
END $$;

-- As list_counts_install, without the rows of no organization.
INSERT INTO list_counts (table_name, organization_id, key, shard, n)
SELECT 'outbox', organization_id, k.key, 0, count(*)
FROM outbox, LATERAL (VALUES (''), ('status=' || status)) AS k(key)
WHERE organization_id IS NOT NULL
GROUP BY 2, 3;
CREATE TRIGGER outbox_list_counts AFTER INSERT OR DELETE OR UPDATE ON outbox FOR EACH ROW EXECUTE FUNCTION list_counts_track('status');
CREATE TRIGGER outbox_list_counts_truncated AFTER TRUNCATE ON outbox FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncated();

CREATE INDEX outbox_org_sent_idx ON outbox (organization_id, sent_at, id);
CREATE INDEX outbox_org_status_idx ON outbox (organization_id, status, id);
CREATE INDEX outbox_org_status_created_idx ON outbox (organization_id, status, created_at, id);
CREATE INDEX outbox_org_to_idx ON outbox (organization_id, lower(to_address), created_at);
CREATE INDEX outbox_subject_trgm_idx ON outbox USING gin (subject gin_trgm_ops);
CREATE INDEX outbox_to_address_trgm_idx ON outbox USING gin (to_address gin_trgm_ops);
