-- Issue 24, finding 6 (docs/helpdesk.md "Attachments"): a ticket's messages list
-- their attachments as metadata ({id, filename, contentType, size}) and the bytes
-- are served one attachment at a time by
-- GET /helpdesk/tickets/:id/attachments/:attachmentId. Each attachment gets an id,
-- its ticket and organization (that route's lookup, and the tenant) and its size,
-- so that neither the messages list nor the 50 MiB cap per ticket reads the
-- content: PostgreSQL keeps a bytea above ~2 kB out of line (TOAST) and never
-- fetches it for a query that does not select it. Existing attachments are
-- moved in place: they keep their bytes and get an id and their size.
ALTER TABLE helpdesk_attachments
  ADD COLUMN id uuid,
  ADD COLUMN organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
  ADD COLUMN ticket_id uuid REFERENCES helpdesk_tickets(id) ON DELETE CASCADE,
  ADD COLUMN size integer;

UPDATE helpdesk_attachments a
SET id = gen_random_uuid(), organization_id = m.organization_id, ticket_id = m.ticket_id, size = octet_length(a.content)
FROM helpdesk_messages m
WHERE m.id = a.message_id;

ALTER TABLE helpdesk_attachments
  ALTER COLUMN id SET NOT NULL,
  ALTER COLUMN organization_id SET NOT NULL,
  ALTER COLUMN ticket_id SET NOT NULL,
  ALTER COLUMN size SET NOT NULL,
  ADD CONSTRAINT helpdesk_attachments_size_check CHECK (size = octet_length(content)),
  DROP CONSTRAINT helpdesk_attachments_pkey,
  ADD CONSTRAINT helpdesk_attachments_pkey PRIMARY KEY (id),
  ADD CONSTRAINT helpdesk_attachments_message_position_key UNIQUE (message_id, position);

-- The bytes a ticket holds (the cap), by an index-only sum.
CREATE INDEX helpdesk_attachments_ticket_idx ON helpdesk_attachments (ticket_id) INCLUDE (size);
CREATE INDEX helpdesk_attachments_org_idx ON helpdesk_attachments (organization_id);
