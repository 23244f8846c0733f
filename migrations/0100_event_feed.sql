-- Issue 15: GET /events, the organization's events of the last 30 days
-- (CONTRACT "Webhooks out, the event feed and cursor pagination"). Sorted by
-- (created_at, id), filtered by type and by resource id: one btree each, ending
-- in the sort and the tie-breaker, so pages and cursors walk an index.
CREATE INDEX domain_events_org_created_idx ON domain_events (organization_id, created_at, id);
CREATE INDEX domain_events_org_type_created_idx ON domain_events (organization_id, type, created_at, id);
CREATE INDEX domain_events_org_resource_created_idx ON domain_events (organization_id, resource_id, created_at, id);
