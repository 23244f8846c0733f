-- Report runs (issue 16, docs/analytics.md "Report runs"): a durable queue of
-- exports run in the background, and their CSV files stored in the database
-- as chunks, so that any process serves a file any process wrote (PGlite
-- memory:// included) and a file goes with its organization.

CREATE TABLE report_runs (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type text NOT NULL,
  parameters jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
  error text,
  row_count bigint,
  -- The requester as it was at the request (identity's user): shown in requestedBy, e-mailed at the end.
  requested_by uuid NOT NULL,
  requested_by_name text NOT NULL,
  requested_by_email text NOT NULL,
  -- Claims of the run: attempts counts them, the current one writes chunks of its number;
  -- a worker that dies leaves its lease (locked_until) to run out, then another takes the run again.
  attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  filename text,
  file_size bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  -- completed_at + 30 days for a succeeded run; past it the file answers 410 and housekeeping deletes it.
  expires_at timestamptz,
  file_deleted_at timestamptz
);
-- GET /reports: newest first, alone and under each filter.
CREATE INDEX report_runs_org_created_idx ON report_runs (organization_id, created_at, id);
CREATE INDEX report_runs_org_status_idx ON report_runs (organization_id, status, created_at, id);
CREATE INDEX report_runs_org_type_idx ON report_runs (organization_id, type, created_at, id);
-- The workers' claim: pending runs and running ones whose lease may have run out.
CREATE INDEX report_runs_due_idx ON report_runs (created_at) WHERE status IN ('pending', 'running');
-- Housekeeping: files past their 30 days.
CREATE INDEX report_runs_expiring_idx ON report_runs (expires_at) WHERE file_deleted_at IS NULL AND expires_at IS NOT NULL;
SELECT list_counts_install('report_runs', ARRAY['status', 'type']);

-- The CSV of a run in chunks of about 1 MiB, in order (seq), written by one claim (attempt).
CREATE TABLE report_file_chunks (
  run_id uuid NOT NULL REFERENCES report_runs(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (run_id, attempt, seq)
);
