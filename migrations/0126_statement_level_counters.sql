-- Issue 26, "Bulk writes are quadratic" (docs/decisions/0012): the list
-- counters of migrations/0050 and the project figures of 0080 were kept by
-- row triggers, which update the same counter row once per written row. In
-- one transaction every such update adds a version to that row and walks the
-- versions before it: an INSERT ... SELECT of 40,000 contacts took 66 s (0.97 s
-- without the trigger). Here they become statement-level triggers over the
-- statement's transition tables: each counter row is written once per
-- statement, with the sum of the statement's changes to it.
--
-- list_counts: one trigger per event (PostgreSQL allows transition tables
-- only on a trigger of one event). Each sums +1 per new row and -1 per old row
-- by (organization, key) and upserts every non-zero sum into the connection's
-- shard (pg_backend_pid() % 16, as before), in (organization, key) order, so
-- two statements lock the counter rows they share in the same order. An
-- UPDATE counts its old rows out and its new rows in: a row whose counted
-- columns did not change adds nothing, and nothing is written. Rows of no
-- organization are not counted (the outbox's mail of no organization,
-- migrations/0053), on every table.
--
-- Each table gets its own function, list_counts_track_<table>, with its
-- counted columns written in the SQL: a generic function reading the columns
-- from the trigger's arguments has to turn each whole row into jsonb, which
-- made a one-row INSERT's counting about a third slower than the row
-- trigger's (docs/decisions/0012). A key's value is the column's value as
-- to_jsonb renders it, as the row trigger's `to_jsonb(row)->>column` did
-- ('true', not 't'). The columns stay in the triggers' arguments, which
-- pg_get_triggerdef shows and the tests read.
CREATE FUNCTION list_counts_create_triggers(tbl text, cols text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  fn text := 'list_counts_track_' || tbl;
  args text := coalesce((SELECT string_agg(quote_literal(c), ', ') FROM unnest(cols) AS c), '');
  -- (VALUES (''), ('type=' || (to_jsonb(r.type) #>> '{}')), ...) AS k(key): the keys of row r.
  keys text := format('(VALUES (%L)%s) AS k(key)', '',
    coalesce((SELECT string_agg(format(', (%L || (to_jsonb(r.%I) #>> %L))', c || '=', c, '{}'), '' ORDER BY i) FROM unnest(cols) WITH ORDINALITY AS u(c, i)), ''));
  upsert text := format($u$INSERT INTO list_counts (table_name, organization_id, key, shard, n)
    SELECT %L, d.organization_id, d.key, pg_backend_pid() %%%% 16, d.n
    FROM (SELECT r.organization_id, k.key, sum(r.delta) AS n
          FROM (%%s) AS r CROSS JOIN LATERAL %s
          WHERE r.organization_id IS NOT NULL AND k.key IS NOT NULL
          GROUP BY 1, 2
          HAVING sum(r.delta) <> 0) AS d
    ORDER BY d.organization_id, d.key
    ON CONFLICT (table_name, organization_id, key, shard) DO UPDATE SET n = list_counts.n + EXCLUDED.n$u$, tbl, keys);
BEGIN
  EXECUTE format($f$CREATE OR REPLACE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  IF TG_OP = 'INSERT' THEN
    %s;
  ELSIF TG_OP = 'DELETE' THEN
    %s;
  ELSE
    %s;
  END IF;
  RETURN NULL;
END $body$
$f$, fn,
    format(upsert, 'SELECT t.*, 1 AS delta FROM list_counts_new AS t'),
    format(upsert, 'SELECT t.*, -1 AS delta FROM list_counts_old AS t'),
    format(upsert, 'SELECT t.*, -1 AS delta FROM list_counts_old AS t UNION ALL SELECT t.*, 1 FROM list_counts_new AS t'));
  -- The INSERT trigger keeps the row trigger's name, <table>_list_counts: the
  -- benches that seed by SQL disable it by that name and recount.
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS list_counts_new FOR EACH STATEMENT EXECUTE FUNCTION %I(%s)',
    tbl || '_list_counts', tbl, fn, args);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS list_counts_old FOR EACH STATEMENT EXECUTE FUNCTION %I(%s)',
    tbl || '_list_counts_delete', tbl, fn, args);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS list_counts_old NEW TABLE AS list_counts_new FOR EACH STATEMENT EXECUTE FUNCTION %I(%s)',
    tbl || '_list_counts_update', tbl, fn, args);
END $$;

-- Every table with the row trigger gets the statement triggers, with the same
-- counted columns (the trigger's arguments). The counters already hold the
-- right totals; dropping and creating the triggers in this migration's
-- transaction lets no write through between the two.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT c.relname, g.tgname,
           coalesce((string_to_array(encode(g.tgargs, 'escape'), '\000'))[1:g.tgnargs], '{}'::text[]) AS cols
    FROM pg_trigger AS g JOIN pg_class AS c ON c.oid = g.tgrelid
    WHERE g.tgfoid = 'list_counts_track'::regproc
    ORDER BY c.relname
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', t.tgname, t.relname);
    PERFORM list_counts_create_triggers(t.relname, t.cols);
  END LOOP;
END $$;

DROP FUNCTION list_counts_track();
DROP FUNCTION list_counts_add(text, jsonb, text[], integer);

-- For the tables of later migrations: counts the present rows (of an
-- organization) and installs the statement triggers and the TRUNCATE one.
CREATE OR REPLACE FUNCTION list_counts_install(tbl text, cols text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format(
    $f$INSERT INTO list_counts (table_name, organization_id, key, shard, n)
       SELECT %L, r.organization_id, k.key, 0, count(*)
       FROM %I AS r
       CROSS JOIN LATERAL (SELECT '' AS key
                           UNION ALL
                           SELECT c || '=' || (to_jsonb(r)->>c) FROM unnest(%L::text[]) AS c WHERE to_jsonb(r)->>c IS NOT NULL) AS k
       WHERE r.organization_id IS NOT NULL
       GROUP BY 1, 2, 3$f$, tbl, tbl, cols);
  PERFORM list_counts_create_triggers(tbl, cols);
  EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncated()',
    tbl || '_list_counts_truncated', tbl);
END $$;

-- The project figures of migrations/0080, per statement: a task insert adds
-- to its project's tasks (and done tasks) once per statement; a status change
-- into or out of done moves tasks_done by the statement's net change (the row
-- trigger fired on UPDATE OF status; a trigger with transition tables takes no
-- column list, so this one compares the old and new status of each row); a
-- timesheet insert adds the statement's hours to each task and project once.
-- The rows are locked in id order first (FOR NO KEY UPDATE, the lock the
-- UPDATE takes), so two statements that share rows do not deadlock. The
-- figures are those of the row triggers: the same sums, exact decimals.
DROP TRIGGER tasks_project_counts ON tasks;
DROP TRIGGER timesheet_entries_hours ON timesheet_entries;

CREATE OR REPLACE FUNCTION projects_task_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM projects WHERE id IN (SELECT project_id FROM tasks_new) ORDER BY id FOR NO KEY UPDATE;
    UPDATE projects AS p SET tasks_total = p.tasks_total + d.total, tasks_done = p.tasks_done + d.done
    FROM (SELECT project_id, count(*)::int AS total, (count(*) FILTER (WHERE status = 'done'))::int AS done
          FROM tasks_new GROUP BY project_id) AS d
    WHERE p.id = d.project_id;
  ELSE
    IF NOT EXISTS (SELECT 1 FROM tasks_old AS o JOIN tasks_new AS n ON n.id = o.id
                   WHERE (o.status = 'done') IS DISTINCT FROM (n.status = 'done')) THEN
      RETURN NULL;
    END IF;
    PERFORM 1 FROM projects
    WHERE id IN (SELECT n.project_id FROM tasks_old AS o JOIN tasks_new AS n ON n.id = o.id
                 WHERE (o.status = 'done') IS DISTINCT FROM (n.status = 'done'))
    ORDER BY id FOR NO KEY UPDATE;
    UPDATE projects AS p SET tasks_done = p.tasks_done + d.delta
    FROM (SELECT n.project_id, sum(CASE WHEN n.status = 'done' THEN 1 ELSE -1 END)::int AS delta
          FROM tasks_old AS o JOIN tasks_new AS n ON n.id = o.id
          WHERE (o.status = 'done') IS DISTINCT FROM (n.status = 'done')
          GROUP BY n.project_id
          HAVING sum(CASE WHEN n.status = 'done' THEN 1 ELSE -1 END) <> 0) AS d
    WHERE p.id = d.project_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_project_counts AFTER INSERT ON tasks
  REFERENCING NEW TABLE AS tasks_new FOR EACH STATEMENT EXECUTE FUNCTION projects_task_counts();
CREATE TRIGGER tasks_project_counts_update AFTER UPDATE ON tasks
  REFERENCING OLD TABLE AS tasks_old NEW TABLE AS tasks_new FOR EACH STATEMENT EXECUTE FUNCTION projects_task_counts();

CREATE OR REPLACE FUNCTION projects_hours_logged() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM tasks WHERE id IN (SELECT task_id FROM entries_new) ORDER BY id FOR NO KEY UPDATE;
  UPDATE tasks AS k SET hours_logged = k.hours_logged + d.hours
  FROM (SELECT task_id, sum(hours) AS hours FROM entries_new GROUP BY task_id) AS d
  WHERE k.id = d.task_id;
  PERFORM 1 FROM projects WHERE id IN (SELECT project_id FROM entries_new) ORDER BY id FOR NO KEY UPDATE;
  UPDATE projects AS p SET hours_logged = p.hours_logged + d.hours
  FROM (SELECT project_id, sum(hours) AS hours FROM entries_new GROUP BY project_id) AS d
  WHERE p.id = d.project_id;
  RETURN NULL;
END $$;
CREATE TRIGGER timesheet_entries_hours AFTER INSERT ON timesheet_entries
  REFERENCING NEW TABLE AS entries_new FOR EACH STATEMENT EXECUTE FUNCTION projects_hours_logged();
