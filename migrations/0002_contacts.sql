CREATE TABLE contacts (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  email text,
  phone text,
  type text NOT NULL DEFAULT 'company' CHECK (type IN ('company', 'individual')),
  vendor boolean NOT NULL DEFAULT false,
  payment_terms text,
  currency text,
  lead_time_days integer CHECK (lead_time_days >= 0),
  min_order_qty numeric CHECK (min_order_qty >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX contacts_org_email_key ON contacts (organization_id, lower(email));
CREATE INDEX contacts_org_created_idx ON contacts (organization_id, created_at DESC, id DESC);
CREATE INDEX contacts_org_name_idx ON contacts (organization_id, name, id);
