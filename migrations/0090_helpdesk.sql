-- Helpdesk (issue 14, docs/helpdesk.md): teams of agents, SLA policies,
-- tickets with the SLA deadlines of their policy, their messages (replies and
-- internal notes) with attachments, ratings, and the SLA breaches the
-- scheduled job has recorded (one per breached deadline, so a rerun sends
-- nothing new).

CREATE TABLE helpdesk_teams (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name <> ''),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX helpdesk_teams_org_created_idx ON helpdesk_teams (organization_id, created_at, id);
CREATE INDEX helpdesk_teams_org_name_idx ON helpdesk_teams (organization_id, name, id);
CREATE INDEX helpdesk_teams_name_trgm_idx ON helpdesk_teams USING gin (name gin_trgm_ops);
SELECT list_counts_install('helpdesk_teams', ARRAY[]::text[]);

-- A user leaves the teams it was in when it is deleted.
CREATE TABLE helpdesk_team_members (
  team_id uuid NOT NULL REFERENCES helpdesk_teams(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX helpdesk_team_members_user_idx ON helpdesk_team_members (user_id);

CREATE TABLE helpdesk_sla_policies (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name <> ''),
  first_response_hours numeric NOT NULL CHECK (first_response_hours > 0),
  resolution_hours numeric NOT NULL CHECK (resolution_hours > 0),
  applies text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX helpdesk_sla_policies_org_created_idx ON helpdesk_sla_policies (organization_id, created_at, id);

CREATE TABLE helpdesk_tickets (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  ticket_number text NOT NULL,
  subject text NOT NULL CHECK (subject <> ''),
  description text,
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'in_progress', 'pending_customer', 'resolved', 'closed')),
  priority text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
  -- The contact as it was when the ticket was opened (contacts module).
  contact_id uuid NOT NULL REFERENCES contacts(id),
  contact_name text NOT NULL,
  contact_email text,
  assignee_id uuid REFERENCES users(id) ON DELETE SET NULL,
  assignee_name text,
  team_id uuid REFERENCES helpdesk_teams(id) ON DELETE SET NULL,
  tags text[] NOT NULL DEFAULT '{}',
  -- The SLA policy that applied to the priority, copied with its deadlines (null: none applied).
  sla_policy_id uuid REFERENCES helpdesk_sla_policies(id) ON DELETE SET NULL,
  sla_policy_name text,
  first_response_deadline timestamptz,
  resolution_deadline timestamptz,
  -- The first public reply of an agent.
  first_response_at timestamptz,
  -- When the ticket became resolved or closed; null while it is open.
  done_at timestamptz,
  closed_at timestamptz,
  resolution text,
  source text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'support')),
  -- The status of an open ticket that has an SLA, else null; set by the trigger
  -- below and counted per value, so that the total of overdueSla=true is a
  -- counter minus the few open tickets whose deadline is still ahead.
  sla_state text CHECK (sla_state IN ('new', 'in_progress', 'pending_customer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status IN ('resolved', 'closed')) = (done_at IS NOT NULL)),
  CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
  CHECK ((sla_policy_name IS NULL) = (resolution_deadline IS NULL)),
  CHECK ((first_response_deadline IS NULL) = (resolution_deadline IS NULL))
);
CREATE UNIQUE INDEX helpdesk_tickets_org_number_key ON helpdesk_tickets (organization_id, ticket_number);
-- Every sortable field and filter (decision 0005); the filters end in the default sort.
CREATE INDEX helpdesk_tickets_org_number_idx ON helpdesk_tickets (organization_id, ticket_number, id);
CREATE INDEX helpdesk_tickets_org_created_idx ON helpdesk_tickets (organization_id, created_at, id);
CREATE INDEX helpdesk_tickets_org_updated_idx ON helpdesk_tickets (organization_id, updated_at, id);
CREATE INDEX helpdesk_tickets_org_status_idx ON helpdesk_tickets (organization_id, status, created_at, id);
CREATE INDEX helpdesk_tickets_org_priority_idx ON helpdesk_tickets (organization_id, priority, created_at, id);
CREATE INDEX helpdesk_tickets_org_team_idx ON helpdesk_tickets (organization_id, team_id, created_at, id);
CREATE INDEX helpdesk_tickets_org_assignee_idx ON helpdesk_tickets (organization_id, assignee_id, created_at, id);
CREATE INDEX helpdesk_tickets_org_contact_idx ON helpdesk_tickets (organization_id, contact_id, created_at, id);
-- overdueSla: open tickets past their resolution deadline (a range of these
-- indexes), and tickets resolved or closed after it (by this predicate). The
-- columns of the conditions are included so that the total is an index-only
-- scan (PostgreSQL takes none over a partial index that lacks them).
CREATE INDEX helpdesk_tickets_open_deadline_idx ON helpdesk_tickets (organization_id, status, resolution_deadline) INCLUDE (done_at) WHERE done_at IS NULL;
CREATE INDEX helpdesk_tickets_org_open_deadline_idx ON helpdesk_tickets (organization_id, resolution_deadline) INCLUDE (done_at) WHERE done_at IS NULL;
CREATE INDEX helpdesk_tickets_done_late_idx ON helpdesk_tickets (organization_id, status, created_at, id) INCLUDE (done_at, resolution_deadline) WHERE done_at > resolution_deadline;
-- The SLA job: open tickets by deadline, across organizations.
CREATE INDEX helpdesk_tickets_open_first_response_idx ON helpdesk_tickets (first_response_deadline) WHERE done_at IS NULL AND first_response_at IS NULL;
CREATE INDEX helpdesk_tickets_open_resolution_idx ON helpdesk_tickets (resolution_deadline) WHERE done_at IS NULL;
CREATE INDEX helpdesk_tickets_subject_trgm_idx ON helpdesk_tickets USING gin (subject gin_trgm_ops);
CREATE INDEX helpdesk_tickets_number_trgm_idx ON helpdesk_tickets USING gin (ticket_number gin_trgm_ops);
CREATE INDEX helpdesk_tickets_contact_email_trgm_idx ON helpdesk_tickets USING gin (contact_email gin_trgm_ops);
CREATE INDEX helpdesk_tickets_contact_fk_idx ON helpdesk_tickets (contact_id);
CREATE INDEX helpdesk_tickets_assignee_fk_idx ON helpdesk_tickets (assignee_id);
CREATE INDEX helpdesk_tickets_team_fk_idx ON helpdesk_tickets (team_id);
CREATE INDEX helpdesk_tickets_policy_fk_idx ON helpdesk_tickets (sla_policy_id);
CREATE FUNCTION helpdesk_tickets_sla_state() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.sla_state := CASE WHEN NEW.done_at IS NULL AND NEW.resolution_deadline IS NOT NULL THEN NEW.status END;
  RETURN NEW;
END $$;
CREATE TRIGGER helpdesk_tickets_sla_state BEFORE INSERT OR UPDATE ON helpdesk_tickets FOR EACH ROW EXECUTE FUNCTION helpdesk_tickets_sla_state();
SELECT list_counts_install('helpdesk_tickets', ARRAY['status', 'priority', 'sla_state']);

CREATE TABLE helpdesk_messages (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  ticket_id uuid NOT NULL REFERENCES helpdesk_tickets(id) ON DELETE CASCADE,
  body text NOT NULL CHECK (body <> ''),
  internal boolean NOT NULL DEFAULT false,
  author_id uuid REFERENCES users(id) ON DELETE SET NULL,
  author_name text,
  author_role text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX helpdesk_messages_ticket_idx ON helpdesk_messages (ticket_id, created_at, id);
CREATE INDEX helpdesk_messages_ticket_public_idx ON helpdesk_messages (ticket_id, created_at, id) WHERE NOT internal;
CREATE INDEX helpdesk_messages_author_idx ON helpdesk_messages (author_id);

CREATE TABLE helpdesk_attachments (
  message_id uuid NOT NULL REFERENCES helpdesk_messages(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  filename text NOT NULL,
  content_type text NOT NULL,
  content bytea NOT NULL,
  PRIMARY KEY (message_id, position)
);

CREATE TABLE helpdesk_ratings (
  ticket_id uuid PRIMARY KEY REFERENCES helpdesk_tickets(id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  rating integer NOT NULL CHECK (rating BETWEEN 1 AND 5),
  comment text,
  rated_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX helpdesk_ratings_org_created_idx ON helpdesk_ratings (organization_id, created_at);
CREATE INDEX helpdesk_ratings_rated_by_idx ON helpdesk_ratings (rated_by);

-- One row per breached deadline: the job inserts it (ON CONFLICT DO NOTHING)
-- in the transaction that appends ticket.sla_breached and queues the e-mails.
CREATE TABLE helpdesk_sla_breaches (
  ticket_id uuid NOT NULL REFERENCES helpdesk_tickets(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('first_response', 'resolution')),
  deadline timestamptz NOT NULL,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  notified integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ticket_id, kind, deadline)
);
CREATE INDEX helpdesk_sla_breaches_org_idx ON helpdesk_sla_breaches (organization_id);
