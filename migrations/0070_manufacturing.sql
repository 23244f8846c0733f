-- Manufacturing (issue 13, docs/manufacturing.md): bills of materials with
-- their components (one row each, so that "which BOMs use this product" and
-- the phantom explosion are plain index lookups) and their operations (kept
-- with the BOM: they are only ever read with it). Production and work orders
-- come in a later migration.

CREATE TABLE boms (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name <> ''),
  product_id uuid NOT NULL REFERENCES products(id),
  quantity numeric NOT NULL CHECK (quantity > 0),
  uom text NOT NULL,
  type text NOT NULL DEFAULT 'manufacture' CHECK (type IN ('manufacture', 'phantom', 'subcontract')),
  operations jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Every sortable field and filter (decision 0005): (organization_id, column, id).
CREATE INDEX boms_org_created_idx ON boms (organization_id, created_at, id);
CREATE INDEX boms_org_updated_idx ON boms (organization_id, updated_at, id);
CREATE INDEX boms_org_name_idx ON boms (organization_id, name, id);
CREATE INDEX boms_org_product_idx ON boms (organization_id, product_id, id);
CREATE INDEX boms_org_product_created_idx ON boms (organization_id, product_id, created_at, id);
CREATE INDEX boms_product_idx ON boms (product_id);
CREATE INDEX boms_name_trgm_idx ON boms USING gin (name gin_trgm_ops);
SELECT list_counts_install('boms', ARRAY['product_id']);

CREATE TABLE bom_components (
  bom_id uuid NOT NULL REFERENCES boms(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id),
  quantity numeric NOT NULL CHECK (quantity > 0),
  uom text NOT NULL,
  PRIMARY KEY (bom_id, position)
);
CREATE INDEX bom_components_product_idx ON bom_components (product_id);
