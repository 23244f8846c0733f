-- Invoices, their payments and credit notes.

CREATE TABLE invoices (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  number text NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'sent', 'partial_paid', 'paid', 'overdue', 'cancelled')),
  contact_id uuid NOT NULL REFERENCES contacts(id),
  contact_name text NOT NULL,
  contact_email text,
  order_id uuid REFERENCES orders(id),
  line_items jsonb NOT NULL,
  subtotal bigint NOT NULL CHECK (subtotal >= 0),
  tax_amount bigint NOT NULL CHECK (tax_amount >= 0),
  total bigint NOT NULL,
  amount_paid bigint NOT NULL DEFAULT 0,
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  invoice_date timestamptz NOT NULL,
  due_date timestamptz NOT NULL,
  notes text,
  sent_at timestamptz,
  paid_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (total = subtotal + tax_amount),
  -- Never more paid than invoiced, whatever races happen above.
  CONSTRAINT invoices_amount_paid_check CHECK (amount_paid >= 0 AND amount_paid <= total),
  CHECK (due_date >= invoice_date),
  CHECK (status <> 'paid' OR amount_paid = total)
);
CREATE UNIQUE INDEX invoices_org_number_key ON invoices (organization_id, number);
-- One invoice per order (invoicing an order twice is a conflict).
CREATE UNIQUE INDEX invoices_order_key ON invoices (order_id);
-- List paths: every sortable field, alone and under the status filter.
CREATE INDEX invoices_org_created_idx ON invoices (organization_id, created_at, id);
CREATE INDEX invoices_org_total_idx ON invoices (organization_id, total, id);
CREATE INDEX invoices_org_due_idx ON invoices (organization_id, due_date, id);
CREATE INDEX invoices_org_status_idx ON invoices (organization_id, status, id);
CREATE INDEX invoices_org_status_created_idx ON invoices (organization_id, status, created_at, id);
CREATE INDEX invoices_org_status_total_idx ON invoices (organization_id, status, total, id);
CREATE INDEX invoices_org_status_due_idx ON invoices (organization_id, status, due_date, id);
CREATE INDEX invoices_org_contact_idx ON invoices (organization_id, contact_id, created_at, id);
CREATE INDEX invoices_org_date_idx ON invoices (organization_id, invoice_date, id);
-- The overdue job looks only at open invoices.
CREATE INDEX invoices_open_due_idx ON invoices (due_date) WHERE status IN ('sent', 'partial_paid');

ALTER TABLE orders ADD CONSTRAINT orders_invoice_fk FOREIGN KEY (invoice_id) REFERENCES invoices(id) ON DELETE SET NULL;

CREATE TABLE invoice_payments (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  invoice_id uuid NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  payment_date timestamptz NOT NULL,
  method text,
  reference text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invoice_payments_invoice_idx ON invoice_payments (invoice_id, created_at, id);

-- A credit note cancels its invoice, so an invoice has at most one.
CREATE TABLE credit_notes (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  number text NOT NULL,
  invoice_id uuid NOT NULL UNIQUE REFERENCES invoices(id),
  contact_id uuid NOT NULL REFERENCES contacts(id),
  contact_name text NOT NULL,
  contact_email text,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  reason text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX credit_notes_org_number_key ON credit_notes (organization_id, number);
CREATE INDEX credit_notes_org_created_idx ON credit_notes (organization_id, created_at, id);
