CREATE TABLE products (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  sku text,
  description text,
  price bigint NOT NULL DEFAULT 0 CHECK (price >= 0),
  currency text NOT NULL DEFAULT 'usd',
  type text NOT NULL DEFAULT 'storable' CHECK (type IN ('storable', 'consumable', 'service')),
  uom text NOT NULL DEFAULT 'unit',
  reorder_point numeric NOT NULL DEFAULT 0 CHECK (reorder_point >= 0),
  cost bigint CHECK (cost >= 0),
  module_name text,
  erp_version text,
  billing text CHECK (billing IN ('one_time', 'recurring')),
  billing_interval text CHECK (billing_interval IN ('month', 'year')),
  activations_limit integer CHECK (activations_limit >= 1),
  signing_secret text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (module_name IS NULL OR (erp_version IS NOT NULL AND billing IS NOT NULL AND activations_limit IS NOT NULL AND signing_secret IS NOT NULL)),
  CHECK (billing IS DISTINCT FROM 'recurring' OR billing_interval IS NOT NULL)
);
CREATE UNIQUE INDEX products_org_sku_key ON products (organization_id, sku);
CREATE INDEX products_org_created_idx ON products (organization_id, created_at DESC, id DESC);

CREATE TABLE employees (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  email text,
  department text,
  job_title text,
  hire_date date,
  user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX employees_org_created_idx ON employees (organization_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX employees_user_key ON employees (user_id);

CREATE TABLE warehouses (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  code text NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, code)
);

-- Location ids are LOC-<code>, unique within an organization.
CREATE TABLE locations (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  id text NOT NULL,
  code text NOT NULL,
  name text NOT NULL,
  type text NOT NULL CHECK (type IN ('internal', 'supplier', 'customer', 'production', 'inventory_loss')),
  warehouse_id uuid REFERENCES warehouses(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, id)
);
