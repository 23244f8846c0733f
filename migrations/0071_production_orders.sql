-- Manufacturing (issue 13, docs/manufacturing.md): production orders, their
-- component needs (the BOM exploded through phantom kits when the order is
-- made), each produce posting, and their work orders (one per BOM operation).
-- The stock itself moves through inventory transfers (LOC-STOCK ->
-- LOC-PRODUCTION for the components, LOC-PRODUCTION -> LOC-STOCK for the
-- finished product); an order keeps the id of its open component transfer.

CREATE TABLE production_orders (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  reference text NOT NULL,
  product_id uuid NOT NULL REFERENCES products(id),
  -- Null once the BOM is deleted (only possible when the order is done or cancelled).
  bom_id uuid REFERENCES boms(id) ON DELETE SET NULL,
  quantity numeric NOT NULL CHECK (quantity > 0),
  produced_qty numeric NOT NULL DEFAULT 0 CHECK (produced_qty >= 0 AND produced_qty <= quantity),
  uom text NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'confirmed', 'in_progress', 'done', 'cancelled')),
  scheduled_date timestamptz NOT NULL,
  -- The open (ready) inventory transfer holding the components still to consume; null when none.
  component_transfer_id uuid,
  component_transfer_reference text,
  confirmed_at timestamptz,
  closed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'draft' OR confirmed_at IS NULL),
  CHECK (status NOT IN ('confirmed', 'in_progress') OR confirmed_at IS NOT NULL),
  CHECK ((status IN ('done', 'cancelled')) = (closed_at IS NOT NULL)),
  CHECK (status <> 'cancelled' OR produced_qty = 0),
  CHECK (status <> 'done' OR produced_qty > 0),
  CHECK (component_transfer_id IS NULL OR status IN ('confirmed', 'in_progress'))
);
CREATE UNIQUE INDEX production_orders_org_reference_key ON production_orders (organization_id, reference);
-- Every sortable field and filter (decision 0005): (organization_id, column, id).
CREATE INDEX production_orders_org_reference_idx ON production_orders (organization_id, reference, id);
CREATE INDEX production_orders_org_created_idx ON production_orders (organization_id, created_at, id);
CREATE INDEX production_orders_org_updated_idx ON production_orders (organization_id, updated_at, id);
CREATE INDEX production_orders_org_scheduled_idx ON production_orders (organization_id, scheduled_date, id);
CREATE INDEX production_orders_org_status_idx ON production_orders (organization_id, status, id);
CREATE INDEX production_orders_org_status_created_idx ON production_orders (organization_id, status, created_at, id);
CREATE INDEX production_orders_org_product_idx ON production_orders (organization_id, product_id, id);
CREATE INDEX production_orders_org_product_created_idx ON production_orders (organization_id, product_id, created_at, id);
CREATE INDEX production_orders_product_idx ON production_orders (product_id);
-- DELETE of a BOM asks whether an open order uses it.
CREATE INDEX production_orders_bom_idx ON production_orders (bom_id) WHERE status NOT IN ('done', 'cancelled');
CREATE INDEX production_orders_reference_trgm_idx ON production_orders USING gin (reference gin_trgm_ops);
SELECT list_counts_install('production_orders', ARRAY['status', 'product_id']);

-- What the order consumes in all (quantity) and has consumed so far, per
-- product, after phantom explosion; one row per product.
CREATE TABLE production_order_components (
  production_order_id uuid NOT NULL REFERENCES production_orders(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id),
  quantity numeric NOT NULL CHECK (quantity > 0),
  consumed_qty numeric NOT NULL DEFAULT 0 CHECK (consumed_qty >= 0 AND consumed_qty <= quantity),
  PRIMARY KEY (production_order_id, position),
  UNIQUE (production_order_id, product_id)
);
CREATE INDEX production_order_components_product_idx ON production_order_components (product_id);

-- Each produce: the quantity, its lot, and the two transfers that moved the stock.
CREATE TABLE production_order_outputs (
  production_order_id uuid NOT NULL REFERENCES production_orders(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  quantity numeric NOT NULL CHECK (quantity > 0),
  lot_number text,
  consumption_transfer_id uuid,
  finished_transfer_id uuid NOT NULL,
  produced_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (production_order_id, position)
);

-- Work orders: ids wo_<n>, numbered per organization.
CREATE TABLE work_orders (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  id text NOT NULL CHECK (id ~ '^wo_[0-9]+$'),
  production_order_id uuid NOT NULL REFERENCES production_orders(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  name text NOT NULL,
  workcenter text NOT NULL,
  expected_duration_minutes numeric NOT NULL CHECK (expected_duration_minutes >= 0),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in_progress', 'done')),
  started_at timestamptz,
  finished_at timestamptz,
  duration_minutes numeric CHECK (duration_minutes >= 0),
  notes text,
  PRIMARY KEY (organization_id, id),
  UNIQUE (production_order_id, position),
  CHECK ((status = 'pending') = (started_at IS NULL)),
  CHECK ((status = 'done') = (finished_at IS NOT NULL))
);
