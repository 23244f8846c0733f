-- Report runs (issue 24, "Also seen"; docs/analytics.md "Limits"): a worker
-- serves first the organization whose last run started longest ago, so one
-- organization's backlog does not hold back the others. That is max(started_at)
-- of the organization's runs, read from this index (a backward scan, whatever
-- the number of runs it has made).
CREATE INDEX report_runs_org_started_idx ON report_runs (organization_id, started_at);
