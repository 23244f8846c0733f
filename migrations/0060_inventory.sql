-- Inventory (issue 12, docs/inventory.md): a ledger of done moves between
-- locations, the quant of every (product, location) it leaves, per-product
-- totals over internal locations, transfers with their reservations, and
-- adjustments. Every quantity change is a done move plus the quants of both
-- ends (and the product's stock_levels row) in one transaction.

-- What a (product, location) holds. `internal` is copied from the location's
-- type when the row is made (a location with quants or moves cannot change
-- type), so the CHECKs keep internal locations from going below zero and from
-- reserving more than they hold. reserved is the sum of the reservations of
-- the open transfers taking from it (transfer_moves.reserved_qty).
CREATE TABLE stock_quants (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id),
  location_id text NOT NULL,
  internal boolean NOT NULL,
  quantity numeric NOT NULL DEFAULT 0,
  reserved numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, product_id, location_id),
  FOREIGN KEY (organization_id, location_id) REFERENCES locations(organization_id, id),
  CHECK (NOT internal OR quantity >= 0),
  CHECK (reserved >= 0),
  CHECK (NOT internal OR reserved <= quantity)
);
CREATE INDEX stock_quants_location_idx ON stock_quants (organization_id, location_id, product_id);

-- Per-product totals over the internal locations, kept with the quants, so that
-- GET /inventory/products reads one row per product instead of summing quants.
CREATE TABLE stock_levels (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id),
  on_hand numeric NOT NULL DEFAULT 0 CHECK (on_hand >= 0),
  reserved numeric NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  PRIMARY KEY (organization_id, product_id),
  CHECK (reserved <= on_hand)
);

CREATE TABLE transfers (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  reference text NOT NULL,
  type text NOT NULL CHECK (type IN ('receipt', 'delivery', 'internal')),
  status text NOT NULL CHECK (status IN ('draft', 'ready', 'done', 'cancelled')),
  source_location_id text NOT NULL,
  destination_location_id text NOT NULL,
  scheduled_date timestamptz,
  origin text,
  backorder_of uuid REFERENCES transfers(id),
  backorder_id uuid REFERENCES transfers(id),
  done_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (organization_id, source_location_id) REFERENCES locations(organization_id, id),
  FOREIGN KEY (organization_id, destination_location_id) REFERENCES locations(organization_id, id)
);
CREATE UNIQUE INDEX transfers_org_reference_key ON transfers (organization_id, reference);
CREATE INDEX transfers_org_created_idx ON transfers (organization_id, created_at, id);
CREATE INDEX transfers_org_updated_idx ON transfers (organization_id, updated_at, id);
CREATE INDEX transfers_org_scheduled_idx ON transfers (organization_id, scheduled_date, id);
CREATE INDEX transfers_org_reference_idx ON transfers (organization_id, reference, id);
CREATE INDEX transfers_org_type_idx ON transfers (organization_id, type, created_at);
CREATE INDEX transfers_org_status_idx ON transfers (organization_id, status, created_at);
CREATE INDEX transfers_reference_trgm_idx ON transfers USING gin (reference gin_trgm_ops);
CREATE INDEX transfers_origin_trgm_idx ON transfers USING gin (origin gin_trgm_ops);
SELECT list_counts_install('transfers', ARRAY['type', 'status']);

-- A transfer's lines: what it should move (demand), what it moved (done) and
-- what it holds reserved at its internal source while ready.
CREATE TABLE transfer_moves (
  transfer_id uuid NOT NULL REFERENCES transfers(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  line_no integer NOT NULL,
  demand_qty numeric NOT NULL CHECK (demand_qty > 0),
  done_qty numeric NOT NULL DEFAULT 0 CHECK (done_qty >= 0 AND done_qty <= demand_qty),
  reserved_qty numeric NOT NULL DEFAULT 0 CHECK (reserved_qty >= 0 AND reserved_qty <= demand_qty),
  PRIMARY KEY (transfer_id, product_id)
);
CREATE INDEX transfer_moves_product_idx ON transfer_moves (organization_id, product_id);

CREATE TABLE adjustments (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  reference text NOT NULL,
  location_id text NOT NULL,
  date timestamptz NOT NULL,
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (organization_id, location_id) REFERENCES locations(organization_id, id)
);
CREATE UNIQUE INDEX adjustments_org_reference_key ON adjustments (organization_id, reference);
CREATE INDEX adjustments_org_date_idx ON adjustments (organization_id, date, id);
CREATE INDEX adjustments_org_created_idx ON adjustments (organization_id, created_at, id);
CREATE INDEX adjustments_org_location_idx ON adjustments (organization_id, location_id, date);
SELECT list_counts_install('adjustments', ARRAY[]::text[]);

CREATE TABLE adjustment_lines (
  adjustment_id uuid NOT NULL REFERENCES adjustments(id) ON DELETE CASCADE,
  line_no integer NOT NULL,
  product_id uuid NOT NULL REFERENCES products(id),
  theoretical_qty numeric NOT NULL,
  real_qty numeric NOT NULL CHECK (real_qty >= 0),
  PRIMARY KEY (adjustment_id, line_no)
);

-- The ledger: done moves only, append-only. A product's quantity at a location
-- is the sum of its moves in minus its moves out (the quant keeps that sum).
CREATE TABLE stock_moves (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  reference text NOT NULL,
  transfer_id uuid REFERENCES transfers(id),
  adjustment_id uuid REFERENCES adjustments(id),
  product_id uuid NOT NULL REFERENCES products(id),
  source_location_id text NOT NULL,
  destination_location_id text NOT NULL,
  quantity numeric NOT NULL CHECK (quantity > 0),
  done_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (organization_id, source_location_id) REFERENCES locations(organization_id, id),
  FOREIGN KEY (organization_id, destination_location_id) REFERENCES locations(organization_id, id)
);
CREATE INDEX stock_moves_org_done_idx ON stock_moves (organization_id, done_at, id);
CREATE INDEX stock_moves_org_quantity_idx ON stock_moves (organization_id, quantity, id);
CREATE INDEX stock_moves_org_reference_idx ON stock_moves (organization_id, reference, id);
CREATE INDEX stock_moves_org_product_idx ON stock_moves (organization_id, product_id, done_at);
CREATE INDEX stock_moves_org_source_idx ON stock_moves (organization_id, source_location_id, done_at);
CREATE INDEX stock_moves_org_destination_idx ON stock_moves (organization_id, destination_location_id, done_at);
CREATE INDEX stock_moves_transfer_idx ON stock_moves (transfer_id);
SELECT list_counts_install('stock_moves', ARRAY[]::text[]);

-- GET /inventory/products: storable products, and those with a reorder point for belowReorder.
CREATE INDEX products_org_storable_name_idx ON products (organization_id, name, id) WHERE type = 'storable';
CREATE INDEX products_org_sku_idx ON products (organization_id, sku, id);
CREATE INDEX products_org_reorder_idx ON products (organization_id, name, id) WHERE type = 'storable' AND reorder_point > 0;
