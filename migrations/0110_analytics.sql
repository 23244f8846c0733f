-- Analytics (issue 16, docs/analytics.md): the read paths of the reports,
-- computed at read time from the owning modules' tables.

-- Receivables aging: the invoices open now (the only ones, with those paid
-- after asOf, that can be open as of asOf), read from the index alone.
CREATE INDEX invoices_open_aging_idx ON invoices (organization_id, currency, invoice_date)
  INCLUDE (contact_id, due_date, total, amount_paid) WHERE status IN ('sent', 'partial_paid', 'overdue');
-- ... and the payments dated after asOf (none, mostly, for asOf today).
CREATE INDEX invoice_payments_org_date_idx ON invoice_payments (organization_id, payment_date) INCLUDE (invoice_id, amount);

-- Payables aging: the bills with an amount due.
CREATE INDEX vendor_bills_open_aging_idx ON vendor_bills (organization_id, currency, invoice_date)
  INCLUDE (vendor_id, due_date, total, amount_paid) WHERE amount_paid < total;

-- Overview: production orders done and output posted in a period, timesheet hours in a period.
CREATE INDEX production_orders_org_done_idx ON production_orders (organization_id, closed_at) WHERE status = 'done';
CREATE INDEX production_order_outputs_org_produced_idx ON production_order_outputs (organization_id, produced_at) INCLUDE (quantity);
-- The same index serves the timesheet export of report runs, in (date, id) keyset batches.
CREATE INDEX timesheet_entries_org_date_idx ON timesheet_entries (organization_id, date, id) INCLUDE (hours, billable);
