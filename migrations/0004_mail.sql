-- Durable e-mail outbox: written in the same transaction as the business change,
-- delivered by a worker that several processes can run (FOR UPDATE SKIP LOCKED).
CREATE TABLE outbox (
  id uuid PRIMARY KEY,
  organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
  to_address text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX outbox_due_idx ON outbox (next_attempt_at) WHERE status IN ('queued', 'sending');
CREATE INDEX outbox_org_created_idx ON outbox (organization_id, created_at DESC, id DESC);

CREATE TABLE outbox_attachments (
  id uuid PRIMARY KEY,
  outbox_id uuid NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
  position integer NOT NULL,
  filename text NOT NULL,
  content_type text NOT NULL,
  content bytea NOT NULL
);
CREATE INDEX outbox_attachments_outbox_idx ON outbox_attachments (outbox_id, position);
