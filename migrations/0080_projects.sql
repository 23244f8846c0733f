-- Projects (issue 14, docs/projects.md): projects, their tasks, the timesheet
-- entries logged on tasks, and milestones. The derived figures a project and
-- a task answer (tasksTotal, tasksDone, hoursLogged) are columns kept by
-- triggers in the same transaction as every task and timesheet write, so they
-- are exact at read time and a list reads them from the row (decision 0005)
-- instead of aggregating per row. Hours are numeric with 2 decimals: sums are
-- exact decimals, never binary floats.

CREATE TABLE projects (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name <> ''),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'on_hold', 'done', 'cancelled')),
  -- References stay while a project names them: deleting the contact or employee is 409.
  contact_id uuid REFERENCES contacts(id),
  manager_id uuid REFERENCES employees(id),
  start_date date,
  end_date date,
  hours_budget numeric(14, 2) CHECK (hours_budget > 0),
  billable boolean NOT NULL DEFAULT false,
  archived boolean NOT NULL DEFAULT false,
  -- status while not archived, null once archived (set by projects_live_status): the
  -- counted filter of the default list's status=..., so that its total is a counter.
  live_status text,
  tasks_total integer NOT NULL DEFAULT 0 CHECK (tasks_total >= 0),
  tasks_done integer NOT NULL DEFAULT 0 CHECK (tasks_done >= 0 AND tasks_done <= tasks_total),
  hours_logged numeric NOT NULL DEFAULT 0 CHECK (hours_logged >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (end_date IS NULL OR start_date IS NULL OR end_date >= start_date)
);
-- Every sortable field and filter (decision 0005): (organization_id, column, id).
CREATE INDEX projects_org_created_idx ON projects (organization_id, created_at, id);
CREATE INDEX projects_org_updated_idx ON projects (organization_id, updated_at, id);
CREATE INDEX projects_org_name_idx ON projects (organization_id, name, id);
CREATE INDEX projects_org_start_idx ON projects (organization_id, start_date, id);
CREATE INDEX projects_org_end_idx ON projects (organization_id, end_date, id);
CREATE INDEX projects_org_status_idx ON projects (organization_id, status, id);
CREATE INDEX projects_org_live_status_idx ON projects (organization_id, live_status, id);
CREATE INDEX projects_org_archived_idx ON projects (organization_id, archived, created_at, id);
CREATE INDEX projects_org_contact_idx ON projects (organization_id, contact_id, id);
CREATE INDEX projects_org_manager_idx ON projects (organization_id, manager_id, id);
CREATE INDEX projects_contact_idx ON projects (contact_id);
CREATE INDEX projects_manager_idx ON projects (manager_id);
CREATE INDEX projects_name_trgm_idx ON projects USING gin (name gin_trgm_ops);
CREATE FUNCTION projects_live_status() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.live_status := CASE WHEN NEW.archived THEN NULL ELSE NEW.status END;
  RETURN NEW;
END $$;
CREATE TRIGGER projects_live_status BEFORE INSERT OR UPDATE ON projects
  FOR EACH ROW EXECUTE FUNCTION projects_live_status();
-- Totals from the counters: the default list (archived=false), archived=true,
-- and a status of the default list (live_status).
SELECT list_counts_install('projects', ARRAY['archived', 'live_status']);

CREATE TABLE tasks (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (title <> ''),
  description text,
  status text NOT NULL DEFAULT 'todo' CHECK (status IN ('todo', 'in_progress', 'in_review', 'done', 'blocked')),
  assignee_id uuid REFERENCES employees(id),
  priority text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
  due_date timestamptz,
  hours_estimate numeric(14, 2) CHECK (hours_estimate >= 0),
  hours_logged numeric NOT NULL DEFAULT 0 CHECK (hours_logged >= 0),
  tags text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- A project's tasks are read through the project: (project_id, column, id).
CREATE INDEX tasks_project_created_idx ON tasks (project_id, created_at, id);
CREATE INDEX tasks_project_updated_idx ON tasks (project_id, updated_at, id);
CREATE INDEX tasks_project_due_idx ON tasks (project_id, due_date, id);
CREATE INDEX tasks_project_title_idx ON tasks (project_id, title, id);
CREATE INDEX tasks_project_status_idx ON tasks (project_id, status, id);
CREATE INDEX tasks_project_assignee_idx ON tasks (project_id, assignee_id, id);
CREATE INDEX tasks_assignee_idx ON tasks (assignee_id);

CREATE TABLE timesheet_entries (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  task_id uuid NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  employee_id uuid NOT NULL REFERENCES employees(id),
  date date NOT NULL,
  hours numeric(12, 2) NOT NULL CHECK (hours > 0),
  description text,
  billable boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- The 24-hour day of one employee across the organization, and the employee's references.
CREATE INDEX timesheet_entries_employee_day_idx ON timesheet_entries (organization_id, employee_id, date);
CREATE INDEX timesheet_entries_employee_idx ON timesheet_entries (employee_id);
-- A project's summary over a date range.
CREATE INDEX timesheet_entries_project_date_idx ON timesheet_entries (project_id, date);
CREATE INDEX timesheet_entries_task_idx ON timesheet_entries (task_id);

CREATE TABLE milestones (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name <> ''),
  target_date timestamptz,
  reached boolean NOT NULL DEFAULT false,
  reached_date timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (reached OR reached_date IS NULL)
);
CREATE INDEX milestones_project_created_idx ON milestones (project_id, created_at, id);
CREATE INDEX milestones_project_target_idx ON milestones (project_id, target_date, id);
CREATE INDEX milestones_project_name_idx ON milestones (project_id, name, id);

-- The derived figures, kept in the writing transaction whatever code path
-- writes (tasks and timesheet entries are never deleted on their own; an
-- organization's or project's deletion takes the counters with it).
CREATE FUNCTION projects_task_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE projects SET tasks_total = tasks_total + 1, tasks_done = tasks_done + (NEW.status = 'done')::int
    WHERE id = NEW.project_id;
  ELSIF (OLD.status = 'done') IS DISTINCT FROM (NEW.status = 'done') THEN
    UPDATE projects SET tasks_done = tasks_done + CASE WHEN NEW.status = 'done' THEN 1 ELSE -1 END
    WHERE id = NEW.project_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_project_counts AFTER INSERT OR UPDATE OF status ON tasks
  FOR EACH ROW EXECUTE FUNCTION projects_task_counts();

CREATE FUNCTION projects_hours_logged() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tasks SET hours_logged = hours_logged + NEW.hours WHERE id = NEW.task_id;
  UPDATE projects SET hours_logged = hours_logged + NEW.hours WHERE id = NEW.project_id;
  RETURN NULL;
END $$;
CREATE TRIGGER timesheet_entries_hours AFTER INSERT ON timesheet_entries
  FOR EACH ROW EXECUTE FUNCTION projects_hours_logged();
