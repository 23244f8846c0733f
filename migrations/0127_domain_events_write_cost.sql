-- Issue 26: every write that appends a domain event pays for each index of
-- domain_events. (organization_id, seq) answers no query since the event feed
-- (0100) reads by (organization_id, created_at, id), which also serves the
-- cascade from an organization's deletion; the dispatcher reads by seq (the
-- primary key).
DROP INDEX IF EXISTS domain_events_org_seq_idx;
