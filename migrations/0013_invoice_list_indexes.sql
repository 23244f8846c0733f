-- Creation and due dates move with the invoice date, so a list filtered on an
-- invoice-date range and sorted by createdAt or dueDate found its rows far
-- down those indexes (30 ms at 100,000 invoices). With invoice_date as a key
-- column the range is checked inside the index walk instead.
DROP INDEX invoices_org_created_idx;
DROP INDEX invoices_org_due_idx;
CREATE INDEX invoices_org_created_idx ON invoices (organization_id, created_at, id, invoice_date);
CREATE INDEX invoices_org_due_idx ON invoices (organization_id, due_date, id, invoice_date);
