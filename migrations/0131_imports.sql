-- Imports (issue 28, docs/imports.md): a CSV file or JSON rows staged at upload,
-- checked and written by the queue worker (core/worker.ts) all or nothing.

CREATE TABLE imports (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  resource text NOT NULL CHECK (resource IN ('contacts', 'products', 'employees', 'stock')),
  mode text NOT NULL CHECK (mode IN ('insert', 'upsert')),
  dry_run boolean NOT NULL,
  -- The rows came from a CSV file: their cells are text, turned into values by the worker.
  csv boolean NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
  total_rows integer NOT NULL,
  processed_rows integer NOT NULL DEFAULT 0,
  created integer NOT NULL DEFAULT 0,
  updated integer NOT NULL DEFAULT 0,
  -- [{row, field, message}], at most 1,000.
  errors jsonb NOT NULL DEFAULT '[]',
  -- The principal (user or API key) that asked for it.
  requested_by text NOT NULL,
  -- Claims of the import by the workers; a worker that dies leaves its lease to run out.
  attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
-- GET /imports: newest first, alone and under each filter.
CREATE INDEX imports_org_created_idx ON imports (organization_id, created_at, id);
CREATE INDEX imports_org_status_idx ON imports (organization_id, status, created_at, id);
CREATE INDEX imports_org_resource_idx ON imports (organization_id, resource, created_at, id);
-- The workers' claim.
CREATE INDEX imports_due_idx ON imports (created_at) WHERE status IN ('pending', 'running');
SELECT list_counts_install('imports', ARRAY['status', 'resource']);

-- The rows of an import while it waits and runs (deleted when it ends): row counts data rows from 1.
-- An upload streams its rows in before the import itself is inserted (no import is seen or
-- claimed half staged), so import_id has no foreign key; a refused upload deletes its rows, and
-- the job import-rows-cleanup those of an upload whose process died (no import an hour later).
CREATE TABLE import_rows (
  import_id uuid NOT NULL,
  row integer NOT NULL,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  staged_at timestamptz NOT NULL DEFAULT now(),
  data jsonb NOT NULL,
  PRIMARY KEY (import_id, row)
);
CREATE INDEX import_rows_org_staged_idx ON import_rows (organization_id, staged_at);
