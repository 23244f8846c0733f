-- Sales: quotations and the orders they become (orders also serve other sources).
-- Line items are stored as JSON on the document: they are a snapshot of what
-- was quoted or ordered and are always read and written with their document.

CREATE TABLE quotations (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  reference text NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'sent', 'confirmed', 'cancelled')),
  contact_id uuid NOT NULL REFERENCES contacts(id),
  contact_name text NOT NULL,
  contact_email text,
  salesperson_id uuid REFERENCES employees(id) ON DELETE SET NULL,
  salesperson_name text,
  valid_until timestamptz,
  line_items jsonb NOT NULL,
  subtotal bigint NOT NULL CHECK (subtotal >= 0),
  tax_amount bigint NOT NULL CHECK (tax_amount >= 0),
  total bigint NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  terms text,
  order_id uuid,
  sent_at timestamptz,
  confirmed_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (total = subtotal + tax_amount),
  CHECK ((status = 'confirmed') = (order_id IS NOT NULL))
);
CREATE UNIQUE INDEX quotations_org_reference_key ON quotations (organization_id, reference);
CREATE INDEX quotations_org_created_idx ON quotations (organization_id, created_at DESC, id DESC);
CREATE INDEX quotations_org_status_idx ON quotations (organization_id, status, created_at DESC);
CREATE INDEX quotations_org_contact_idx ON quotations (organization_id, contact_id, created_at DESC);
CREATE INDEX quotations_org_salesperson_idx ON quotations (organization_id, salesperson_id, created_at DESC);

CREATE TABLE orders (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  reference text NOT NULL,
  source text NOT NULL DEFAULT 'sales' CHECK (source IN ('sales', 'checkout')),
  status text NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed', 'invoiced', 'cancelled', 'refunded')),
  -- One order per quotation: the database's own guard against a double confirm.
  quotation_id uuid UNIQUE REFERENCES quotations(id),
  contact_id uuid REFERENCES contacts(id),
  contact_name text,
  contact_email text,
  salesperson_id uuid REFERENCES employees(id) ON DELETE SET NULL,
  salesperson_name text,
  line_items jsonb NOT NULL,
  subtotal bigint NOT NULL CHECK (subtotal >= 0),
  tax_amount bigint NOT NULL CHECK (tax_amount >= 0),
  total bigint NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  invoice_id uuid,
  confirmed_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (total = subtotal + tax_amount),
  CHECK (source <> 'sales' OR contact_id IS NOT NULL),
  CHECK (status <> 'invoiced' OR invoice_id IS NOT NULL)
);
CREATE UNIQUE INDEX orders_org_reference_key ON orders (organization_id, reference);
CREATE INDEX orders_org_created_idx ON orders (organization_id, created_at DESC, id DESC);
CREATE INDEX orders_org_status_idx ON orders (organization_id, status, created_at DESC);
CREATE INDEX orders_org_contact_idx ON orders (organization_id, contact_id, created_at DESC);
CREATE INDEX orders_org_confirmed_idx ON orders (organization_id, confirmed_at);

ALTER TABLE quotations ADD CONSTRAINT quotations_order_fk FOREIGN KEY (order_id) REFERENCES orders(id);
