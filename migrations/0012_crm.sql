-- Public lead capture: each organization has one capture token (its public
-- address for POST /crm/capture), and captured leads wait to be converted.

CREATE TABLE crm_capture_tokens (
  organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  token text NOT NULL UNIQUE,
  rotated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE leads (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'converted')),
  name text NOT NULL,
  email text NOT NULL,
  phone text,
  company text,
  message text,
  source text,
  ip text,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  converted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'converted') = (converted_at IS NOT NULL))
);
CREATE INDEX leads_org_created_idx ON leads (organization_id, created_at DESC, id DESC);
CREATE INDEX leads_org_status_idx ON leads (organization_id, status, created_at DESC);
