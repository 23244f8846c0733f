-- Purchase (issue 12, docs/purchase.md): vendor pricelists, RFQs that become
-- purchase orders (one row: the RFQ keeps its PO/<year>/<seq> reference when
-- confirmed), their lines with what has been received, the receipts, and the
-- vendor bills. Vendors are contacts with vendor = true (contacts module).

CREATE TABLE vendor_pricelists (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  vendor_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  price bigint NOT NULL CHECK (price >= 0),
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  min_qty numeric NOT NULL CHECK (min_qty >= 0),
  lead_time_days integer CHECK (lead_time_days >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- One price per vendor, product, currency and quantity break: the choice of a price is never ambiguous.
CREATE UNIQUE INDEX vendor_pricelists_tier_key ON vendor_pricelists (organization_id, vendor_id, product_id, currency, min_qty);
CREATE INDEX vendor_pricelists_vendor_created_idx ON vendor_pricelists (organization_id, vendor_id, created_at, id);
CREATE INDEX vendor_pricelists_vendor_price_idx ON vendor_pricelists (organization_id, vendor_id, price, id);
CREATE INDEX vendor_pricelists_vendor_min_qty_idx ON vendor_pricelists (organization_id, vendor_id, min_qty, id);
CREATE INDEX vendor_pricelists_product_idx ON vendor_pricelists (product_id);

CREATE TABLE purchase_orders (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  reference text NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'sent', 'confirmed', 'cancelled')),
  vendor_id uuid NOT NULL REFERENCES contacts(id),
  vendor_name text NOT NULL,
  vendor_email text,
  buyer_id uuid REFERENCES users(id) ON DELETE SET NULL,
  buyer_name text,
  expected_arrival timestamptz,
  total bigint NOT NULL CHECK (total >= 0),
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  notes text,
  -- Set on confirm: pending, partial, received (null before).
  receipt_status text CHECK (receipt_status IN ('pending', 'partial', 'received')),
  -- The inventory transfer (receipt) still to be received: the first one, then each backorder; null once received.
  pending_receipt_id uuid,
  bill_id uuid,
  sent_at timestamptz,
  confirmed_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'confirmed') = (receipt_status IS NOT NULL)),
  CHECK ((status = 'confirmed') = (confirmed_at IS NOT NULL)),
  CHECK (bill_id IS NULL OR status = 'confirmed')
);
CREATE UNIQUE INDEX purchase_orders_org_reference_key ON purchase_orders (organization_id, reference);
-- Every sortable field and filter (decision 0005): (organization_id, column, id).
CREATE INDEX purchase_orders_org_reference_idx ON purchase_orders (organization_id, reference, id);
CREATE INDEX purchase_orders_org_created_idx ON purchase_orders (organization_id, created_at, id);
CREATE INDEX purchase_orders_org_updated_idx ON purchase_orders (organization_id, updated_at, id);
CREATE INDEX purchase_orders_org_total_idx ON purchase_orders (organization_id, total, id);
CREATE INDEX purchase_orders_org_expected_idx ON purchase_orders (organization_id, expected_arrival, id);
CREATE INDEX purchase_orders_org_status_idx ON purchase_orders (organization_id, status, id);
CREATE INDEX purchase_orders_org_status_created_idx ON purchase_orders (organization_id, status, created_at, id);
CREATE INDEX purchase_orders_org_vendor_idx ON purchase_orders (organization_id, vendor_id, id);
CREATE INDEX purchase_orders_org_confirmed_idx ON purchase_orders (organization_id, confirmed_at, id);
CREATE INDEX purchase_orders_org_receipt_status_idx ON purchase_orders (organization_id, receipt_status, id);
CREATE INDEX purchase_orders_reference_trgm_idx ON purchase_orders USING gin (reference gin_trgm_ops);
CREATE INDEX purchase_orders_vendor_name_trgm_idx ON purchase_orders USING gin (vendor_name gin_trgm_ops);
CREATE INDEX purchase_orders_vendor_email_trgm_idx ON purchase_orders USING gin (vendor_email gin_trgm_ops);
SELECT list_counts_install('purchase_orders', ARRAY['status', 'receipt_status']);

CREATE TABLE purchase_order_lines (
  purchase_order_id uuid NOT NULL REFERENCES purchase_orders(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id),
  product_name text NOT NULL,
  quantity numeric NOT NULL CHECK (quantity > 0),
  unit_price bigint NOT NULL CHECK (unit_price >= 0),
  total bigint NOT NULL CHECK (total >= 0),
  received_qty numeric NOT NULL DEFAULT 0 CHECK (received_qty >= 0),
  PRIMARY KEY (purchase_order_id, position),
  -- Never more received than ordered, whatever the code path.
  CHECK (received_qty <= quantity)
);
CREATE UNIQUE INDEX purchase_order_lines_product_key ON purchase_order_lines (purchase_order_id, product_id);
CREATE INDEX purchase_order_lines_product_idx ON purchase_order_lines (product_id);

-- One row per receipt (the validated inventory transfer), with the notes of its lines.
CREATE TABLE purchase_receipts (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  purchase_order_id uuid NOT NULL REFERENCES purchase_orders(id) ON DELETE CASCADE,
  transfer_reference text NOT NULL,
  receipt_date timestamptz NOT NULL,
  lines jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX purchase_receipts_order_idx ON purchase_receipts (purchase_order_id, created_at);

CREATE TABLE vendor_bills (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  number text NOT NULL,
  purchase_order_id uuid NOT NULL REFERENCES purchase_orders(id),
  vendor_id uuid NOT NULL REFERENCES contacts(id),
  vendor_name text NOT NULL,
  vendor_email text,
  vendor_invoice_number text NOT NULL,
  line_items jsonb NOT NULL,
  subtotal bigint NOT NULL CHECK (subtotal >= 0),
  total bigint NOT NULL CHECK (total >= 0),
  amount_paid bigint NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  status text NOT NULL DEFAULT 'posted' CHECK (status IN ('posted', 'paid')),
  invoice_date timestamptz NOT NULL,
  due_date timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (amount_paid <= total),
  CHECK (due_date >= invoice_date)
);
-- One bill per purchase order: the database's own guard against a double bill.
CREATE UNIQUE INDEX vendor_bills_purchase_order_key ON vendor_bills (purchase_order_id);
CREATE UNIQUE INDEX vendor_bills_org_number_key ON vendor_bills (organization_id, number);
CREATE INDEX vendor_bills_org_number_idx ON vendor_bills (organization_id, number, id);
CREATE INDEX vendor_bills_org_created_idx ON vendor_bills (organization_id, created_at, id);
CREATE INDEX vendor_bills_org_invoice_date_idx ON vendor_bills (organization_id, invoice_date, id);
CREATE INDEX vendor_bills_org_due_date_idx ON vendor_bills (organization_id, due_date, id);
CREATE INDEX vendor_bills_org_total_idx ON vendor_bills (organization_id, total, id);
CREATE INDEX vendor_bills_org_status_idx ON vendor_bills (organization_id, status, id);
CREATE INDEX vendor_bills_org_vendor_idx ON vendor_bills (organization_id, vendor_id, id);
CREATE INDEX vendor_bills_org_purchase_order_idx ON vendor_bills (organization_id, purchase_order_id, id);
CREATE INDEX vendor_bills_number_trgm_idx ON vendor_bills USING gin (number gin_trgm_ops);
CREATE INDEX vendor_bills_vendor_name_trgm_idx ON vendor_bills USING gin (vendor_name gin_trgm_ops);
CREATE INDEX vendor_bills_vendor_invoice_number_trgm_idx ON vendor_bills USING gin (vendor_invoice_number gin_trgm_ops);
SELECT list_counts_install('vendor_bills', ARRAY['status']);
