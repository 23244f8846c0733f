-- Issue 27: vendor bills can be paid (POST /purchase/bills/:id/pay, docs/purchase.md
-- "Paying a vendor bill"). One row per payment, dated: the ledger posts each one
-- (Dr 2000, Cr 1000 on its paymentDate) and the payables aging as of a past day
-- adds back the payments dated after it, as the receivables aging does.

CREATE TABLE bill_payments (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  bill_id uuid NOT NULL REFERENCES vendor_bills(id) ON DELETE CASCADE,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  payment_date timestamptz NOT NULL,
  method text,
  reference text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bill_payments_bill_idx ON bill_payments (bill_id, created_at, id);
-- Payables aging as of a past day: the payments dated after it.
CREATE INDEX bill_payments_org_date_idx ON bill_payments (organization_id, payment_date) INCLUDE (bill_id, amount);
