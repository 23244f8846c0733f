-- Durable domain events (issue 9). A service appends an event in the same
-- transaction as the change it describes; one delivery row per subscriber is
-- written with it, and a dispatcher that several processes share
-- (FOR UPDATE SKIP LOCKED) hands each delivery to its subscriber.
CREATE TABLE domain_events (
  seq bigserial PRIMARY KEY,
  -- evt_<32 hex>: the id integrators see (CONTRACT "Webhooks out").
  id text NOT NULL UNIQUE CHECK (id ~ '^evt_[0-9a-f]{32}$'),
  organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type ~ '^[a-z_]+(\.[a-z_]+)+$'),
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  -- {object}: the resource as its GET answers an admin at the moment of the event.
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX domain_events_org_seq_idx ON domain_events (organization_id, seq);
CREATE INDEX domain_events_created_idx ON domain_events (created_at);

CREATE TABLE domain_event_deliveries (
  event_seq bigint NOT NULL REFERENCES domain_events(seq) ON DELETE CASCADE,
  subscriber text NOT NULL,
  -- Copied from the event: deliveries of one resource to one subscriber go in order.
  resource_key text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Set while a dispatcher works on it; a process that dies leaves it to expire.
  locked_until timestamptz,
  last_error text,
  done_at timestamptz,
  PRIMARY KEY (event_seq, subscriber)
);
CREATE INDEX domain_event_deliveries_due_idx ON domain_event_deliveries (next_attempt_at, event_seq) WHERE status = 'pending';
CREATE INDEX domain_event_deliveries_resource_idx ON domain_event_deliveries (subscriber, resource_key, event_seq) WHERE status = 'pending';

-- Scheduled jobs: one row per job, claimed with a conditional update so that a
-- job runs once per interval across every process, not once per process.
CREATE TABLE scheduled_jobs (
  name text PRIMARY KEY,
  last_started_at timestamptz NOT NULL DEFAULT '-infinity',
  last_finished_at timestamptz,
  last_error text
);
