-- The projects module's timesheet export (report runs of type timesheets) reads an
-- organization's entries by date in keyset batches: (organization_id, date, id).
-- Invoices (invoices_org_date_idx) and stock moves (stock_moves_org_done_idx) have theirs.
CREATE INDEX timesheet_entries_org_date_idx ON timesheet_entries (organization_id, date, id);
