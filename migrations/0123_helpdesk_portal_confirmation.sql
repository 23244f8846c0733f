-- Issue 24, finding 12 (docs/helpdesk.md "POST /support"): anyone may send the
-- public form with any e-mail, so a ticket it opens (source 'support') stays out
-- of the customer portal (portal_hidden) until an agent answers it publicly or
-- the address confirms it from the link mailed with the acknowledgement. The
-- link's single-use token is kept only as its SHA-256 (confirmation_hash),
-- valid until confirmation_expires_at.
ALTER TABLE helpdesk_tickets
  ADD COLUMN portal_hidden boolean NOT NULL DEFAULT false,
  ADD COLUMN confirmation_hash text,
  ADD COLUMN confirmation_expires_at timestamptz,
  ADD CONSTRAINT helpdesk_tickets_confirmation_check CHECK ((confirmation_hash IS NULL) = (confirmation_expires_at IS NULL));

-- Tickets already sent through the form: those no agent has answered publicly,
-- and on which the customer has not written either, leave the portal; they
-- have no link to confirm, so they come back with an agent's public answer.
UPDATE helpdesk_tickets t SET portal_hidden = true
WHERE t.source = 'support' AND t.first_response_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM helpdesk_messages m WHERE m.ticket_id = t.id AND m.author_role = 'customer');

CREATE UNIQUE INDEX helpdesk_tickets_confirmation_key ON helpdesk_tickets (confirmation_hash) WHERE confirmation_hash IS NOT NULL;
