-- Issue 15: outgoing webhooks (CONTRACT "Webhooks out, the event feed and
-- cursor pagination"). Endpoints of an organization, and one delivery per
-- event and endpoint: a durable queue that every API process works on
-- (FOR UPDATE SKIP LOCKED and a lease), in event order per resource and endpoint.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url text NOT NULL,
  -- Event types, or exactly {'*'} for every type.
  enabled_events text[] NOT NULL,
  description text,
  enabled boolean NOT NULL DEFAULT true,
  -- whsec_<base64>: the signing secret, and the one it replaced while it still signs (24 hours).
  secret text NOT NULL,
  previous_secret text,
  previous_secret_until timestamptz,
  -- First failed attempt since the last success; 5 days of that disables the endpoint.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_org_created_idx ON webhook_endpoints (organization_id, created_at, id);
CREATE INDEX webhook_endpoints_org_url_idx ON webhook_endpoints (organization_id, url, id);
SELECT list_counts_install('webhook_endpoints', ARRAY[]::text[]);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  -- Order of creation: deliveries of one resource to one endpoint are attempted in this order.
  seq bigserial NOT NULL UNIQUE,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  -- The event object as sent: {id, type, createdAt, data: {object}}.
  payload jsonb NOT NULL,
  resource_key text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- Scheduled retries left (WEBHOOK_RETRY_DELAYS); a manual retry is one attempt.
  retries_left integer NOT NULL,
  last_response_status integer,
  last_error text,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  -- Set while a process delivers it; a process that dies leaves it to expire.
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (endpoint_id, event_id),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (endpoint_id, resource_key, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_created_idx ON webhook_deliveries (endpoint_id, created_at, id);
CREATE INDEX webhook_deliveries_endpoint_status_created_idx ON webhook_deliveries (endpoint_id, status, created_at, id);
CREATE INDEX webhook_deliveries_org_idx ON webhook_deliveries (organization_id);
