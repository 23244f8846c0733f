-- Licences of connector modules. A licence is issued for one product, and so for
-- one module and one ERP major version; both are copied at issue so that a later
-- change of the product never changes what an issued licence is valid for.
CREATE TABLE licences (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id) ON DELETE RESTRICT,
  user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  key text NOT NULL CHECK (key ~ '^[A-Z0-9]+(-[A-Z]{4}){3,4}$'),
  module_name text NOT NULL,
  erp_version text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'expired', 'inactive', 'suspended', 'revoked')),
  activations_count integer NOT NULL DEFAULT 0,
  activations_limit integer NOT NULL DEFAULT 1 CHECK (activations_limit >= 1),
  expires_at timestamptz,
  -- Set for licences sold through the payment processor (billing module).
  subscription_id text,
  order_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (activations_count >= 0 AND activations_count <= activations_limit)
);
CREATE UNIQUE INDEX licences_key_key ON licences (key);
CREATE INDEX licences_org_created_idx ON licences (organization_id, created_at DESC, id DESC);
CREATE INDEX licences_user_idx ON licences (user_id, created_at DESC);
CREATE INDEX licences_subscription_idx ON licences (subscription_id) WHERE subscription_id IS NOT NULL;
CREATE INDEX licences_order_idx ON licences (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX licences_expiry_idx ON licences (expires_at) WHERE status = 'active';

-- One row per domain a licence is bound to; the primary key makes a second
-- binding of the same domain impossible whatever the interleaving.
CREATE TABLE licence_activations (
  licence_id uuid NOT NULL REFERENCES licences(id) ON DELETE CASCADE,
  domain text NOT NULL CHECK (domain <> '' AND domain = lower(domain)),
  hw_fingerprint text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (licence_id, domain)
);

-- Ed25519 keys of the offline tokens. Exactly one is current (signs); the
-- others stay published in the JWKS until tokens signed with them have expired.
CREATE TABLE licence_signing_keys (
  kid text PRIMARY KEY,
  public_jwk text NOT NULL,
  private_jwk text NOT NULL,
  current boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  superseded_at timestamptz
);
CREATE UNIQUE INDEX licence_signing_keys_current_key ON licence_signing_keys (current) WHERE current;

-- Module builds (ZIP files) offered to licence holders for one ERP major version.
CREATE TABLE module_builds (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  version text NOT NULL,
  erp_version text NOT NULL,
  filename text NOT NULL,
  size integer NOT NULL CHECK (size > 0),
  sha256 text NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX module_builds_product_version_key ON module_builds (product_id, version);
CREATE INDEX module_builds_org_created_idx ON module_builds (organization_id, created_at DESC, id DESC);
