-- Issue 26: the statement-level trigger of migrations/0126 locks the tasks and
-- projects a timesheet statement touches in id order before updating them, so
-- that two bulk statements sharing rows do not deadlock. A statement of one
-- entry (POST .../timesheets, the hot path) touches one task and one project:
-- nothing to order, and the two locking queries only cost time. They now run
-- only when the statement touches more than one task or project.
CREATE OR REPLACE FUNCTION projects_hours_logged() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT count(DISTINCT task_id) FROM entries_new) > 1 THEN
    PERFORM 1 FROM tasks WHERE id IN (SELECT task_id FROM entries_new) ORDER BY id FOR NO KEY UPDATE;
  END IF;
  UPDATE tasks AS k SET hours_logged = k.hours_logged + d.hours
  FROM (SELECT task_id, sum(hours) AS hours FROM entries_new GROUP BY task_id) AS d
  WHERE k.id = d.task_id;
  IF (SELECT count(DISTINCT project_id) FROM entries_new) > 1 THEN
    PERFORM 1 FROM projects WHERE id IN (SELECT project_id FROM entries_new) ORDER BY id FOR NO KEY UPDATE;
  END IF;
  UPDATE projects AS p SET hours_logged = p.hours_logged + d.hours
  FROM (SELECT project_id, sum(hours) AS hours FROM entries_new GROUP BY project_id) AS d
  WHERE p.id = d.project_id;
  RETURN NULL;
END $$;
