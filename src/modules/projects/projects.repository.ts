import { iso, type Queryable } from '../../core/db.ts'
import type { DayRange } from '../../core/dates.ts'
import { Where, paginate, setClause, type PageParams } from '../../core/pagination.ts'
import type {
  Milestone, MilestoneListQuery, Project, ProjectListQuery, ProjectStatus, Task, TaskListQuery, TaskPriority, TaskStatus, TimesheetEntry,
} from './projects.schemas.ts'

/** A timesheet entry as its export reads it (report runs): hours as exact decimal text. */
export interface TimesheetExportRow {
  id: string
  date: string
  projectId: string
  projectName: string
  taskId: string
  taskTitle: string
  employeeId: string
  employeeName: string
  hours: string
  billable: boolean
  description: string | null
}

interface ProjectRow {
  id: string
  organization_id: string
  name: string
  status: ProjectStatus
  contact_id: string | null
  contact_name: string | null
  contact_email: string | null
  manager_id: string | null
  manager_name: string | null
  start_date: string | null
  end_date: string | null
  hours_budget: number | null
  billable: boolean
  archived: boolean
  tasks_total: number
  tasks_done: number
  progress: number
  hours_logged: number
  created_at: Date
  updated_at: Date
}

const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  name: r.name,
  status: r.status,
  contact: r.contact_id ? { id: r.contact_id, name: r.contact_name!, email: r.contact_email } : null,
  manager: r.manager_id ? { id: r.manager_id, name: r.manager_name! } : null,
  startDate: r.start_date,
  endDate: r.end_date,
  progress: Number(r.progress),
  tasksTotal: r.tasks_total,
  tasksDone: r.tasks_done,
  hoursLogged: Number(r.hours_logged),
  hoursBudget: r.hours_budget === null ? null : Number(r.hours_budget),
  billable: r.billable,
  archived: r.archived,
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

// Names are joined, not copied: a renamed contact or employee shows its new name.
// progress: numeric round() is exact and rounds half away from zero.
const PROJECT_FROM = `projects p
  LEFT JOIN contacts c ON c.organization_id = p.organization_id AND c.id = p.contact_id
  LEFT JOIN employees m ON m.organization_id = p.organization_id AND m.id = p.manager_id`
const PROJECT_SELECT = `p.*, c.name AS contact_name, c.email AS contact_email, m.name AS manager_name,
  CASE WHEN p.tasks_total = 0 THEN 0 ELSE round(100.0 * p.tasks_done / p.tasks_total, 2) END AS progress`

export interface ProjectValues {
  name: string
  status: ProjectStatus
  contactId: string | null
  managerId: string | null
  startDate: string | null
  endDate: string | null
  hoursBudget: number | null
  billable: boolean
  archived: boolean
}

interface TaskRow {
  id: string
  project_id: string
  title: string
  description: string | null
  status: TaskStatus
  assignee_id: string | null
  assignee_name: string | null
  priority: TaskPriority
  due_date: Date | null
  hours_logged: number
  hours_estimate: number | null
  tags: string[]
  created_at: Date
  updated_at: Date
}

const toTask = (r: TaskRow): Task => ({
  id: r.id,
  projectId: r.project_id,
  title: r.title,
  description: r.description,
  status: r.status,
  assignee: r.assignee_id ? { id: r.assignee_id, name: r.assignee_name! } : null,
  priority: r.priority,
  dueDate: r.due_date ? iso(r.due_date) : null,
  hoursLogged: Number(r.hours_logged),
  hoursEstimate: r.hours_estimate === null ? null : Number(r.hours_estimate),
  tags: r.tags,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

const TASK_FROM = 'tasks t LEFT JOIN employees a ON a.organization_id = t.organization_id AND a.id = t.assignee_id'
const TASK_SELECT = 't.*, a.name AS assignee_name'

export interface TaskValues {
  title: string
  description: string | null
  status: TaskStatus
  assigneeId: string | null
  priority: TaskPriority
  dueDate: Date | null
  hoursEstimate: number | null
  tags: string[]
}

interface MilestoneRow {
  id: string
  project_id: string
  name: string
  target_date: Date | null
  reached: boolean
  reached_date: Date | null
  created_at: Date
  updated_at: Date
}

const toMilestone = (r: MilestoneRow): Milestone => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  targetDate: r.target_date ? iso(r.target_date) : null,
  reached: r.reached,
  reachedDate: r.reached_date ? iso(r.reached_date) : null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

export interface MilestoneValues {
  name: string
  targetDate: Date | null
  reached: boolean
  reachedDate: Date | null
}

export const projectsRepository = {
  /** Hours of every timesheet entry dated in the range, over every project, and the billable ones among them. */
  async organizationHours(q: Queryable, organizationId: string, r: { from: string; to: string }) {
    const { rows } = await q.query<{ hours: number; billable: number }>(
      `SELECT coalesce(sum(hours), 0) AS hours, coalesce(sum(hours) FILTER (WHERE billable), 0) AS billable
       FROM timesheet_entries WHERE organization_id = $1 AND date BETWEEN $2::date AND $3::date`,
      [organizationId, r.from, r.to],
    )
    return { hoursLogged: Number(rows[0].hours), billableHours: Number(rows[0].billable) }
  },

  // ------------------------------------------------------------ projects
  async findProject(q: Queryable, organizationId: string, id: string, lock = false): Promise<Project | undefined> {
    const { rows } = await q.query<ProjectRow>(
      `SELECT ${PROJECT_SELECT} FROM ${PROJECT_FROM} WHERE p.organization_id = $1 AND p.id = $2${lock ? ' FOR UPDATE OF p' : ''}`,
      [organizationId, id],
    )
    return rows[0] && toProject(rows[0])
  },

  async insertProject(q: Queryable, organizationId: string, id: string, v: ProjectValues) {
    await q.query(
      `INSERT INTO projects (id, organization_id, name, status, contact_id, manager_id, start_date, end_date, hours_budget, billable)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [id, organizationId, v.name, v.status, v.contactId, v.managerId, v.startDate, v.endDate, v.hoursBudget, v.billable],
    )
  },

  async updateProject(q: Queryable, organizationId: string, id: string, v: ProjectValues) {
    await q.query(
      `UPDATE projects SET name = $3, status = $4, contact_id = $5, manager_id = $6, start_date = $7, end_date = $8,
         hours_budget = $9, billable = $10, archived = $11, updated_at = now()
       WHERE organization_id = $1 AND id = $2`,
      [organizationId, id, v.name, v.status, v.contactId, v.managerId, v.startDate, v.endDate, v.hoursBudget, v.billable, v.archived],
    )
  },

  async archiveProject(q: Queryable, organizationId: string, id: string) {
    await q.query('UPDATE projects SET archived = true, updated_at = now() WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },

  listProjects(q: Queryable, organizationId: string, query: ProjectListQuery & PageParams) {
    const archived = query.archived ?? false
    const where = new Where().scope('p.organization_id', organizationId)
    // live_status is the status of a project that is not archived (migration 0080): one counted filter for both conditions.
    if (query.status && !archived) where.counted('p.live_status', query.status)
    else where.counted('p.archived', archived).maybe(query.status, 'p.status = ?')
    where
      .maybe(query.contactId, 'p.contact_id = ?')
      .maybe(query.managerId, 'p.manager_id = ?')
      .search(query.search, ['p.name'])
    return paginate(q, query, {
      from: PROJECT_FROM,
      select: PROJECT_SELECT,
      where,
      counter: 'projects',
      sortColumns: { createdAt: 'p.created_at', updatedAt: 'p.updated_at', name: 'p.name', startDate: 'p.start_date', endDate: 'p.end_date' },
      defaultSort: 'createdAt',
      tieBreaker: 'p.id',
      map: toProject,
    })
  },

  // ------------------------------------------------------------ tasks
  async findTask(q: Queryable, organizationId: string, projectId: string, id: string, lock = false): Promise<Task | undefined> {
    const { rows } = await q.query<TaskRow>(
      `SELECT ${TASK_SELECT} FROM ${TASK_FROM} WHERE t.organization_id = $1 AND t.project_id = $2 AND t.id = $3${lock ? ' FOR UPDATE OF t' : ''}`,
      [organizationId, projectId, id],
    )
    return rows[0] && toTask(rows[0])
  },

  async insertTask(q: Queryable, organizationId: string, projectId: string, id: string, v: TaskValues) {
    await q.query(
      `INSERT INTO tasks (id, organization_id, project_id, title, description, status, assignee_id, priority, due_date, hours_estimate, tags)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [id, organizationId, projectId, v.title, v.description, v.status, v.assigneeId, v.priority, v.dueDate, v.hoursEstimate, v.tags],
    )
  },

  async updateTask(q: Queryable, organizationId: string, id: string, patch: Partial<TaskValues>) {
    const columns = { title: 'title', description: 'description', status: 'status', assigneeId: 'assignee_id', priority: 'priority', dueDate: 'due_date', hoursEstimate: 'hours_estimate', tags: 'tags' }
    // setClause skips undefined values only; null clears a column.
    const set = setClause(patch, columns, 2)
    await q.query(`UPDATE tasks SET ${set.sql ? `${set.sql}, ` : ''}updated_at = now() WHERE organization_id = $1 AND id = $2`, [organizationId, id, ...set.params])
  },

  listTasks(q: Queryable, organizationId: string, projectId: string, query: TaskListQuery & PageParams) {
    const where = new Where()
      .scope('t.organization_id', organizationId)
      .add('t.project_id = ?', projectId)
      .maybe(query.status, 't.status = ?')
      .maybe(query.assigneeId, 't.assignee_id = ?')
      .search(query.search, ['t.title'])
    return paginate(q, query, {
      from: TASK_FROM,
      select: TASK_SELECT,
      where,
      sortColumns: { createdAt: 't.created_at', updatedAt: 't.updated_at', dueDate: 't.due_date', title: 't.title' },
      defaultSort: 'createdAt',
      tieBreaker: 't.id',
      map: toTask,
    })
  },

  // ------------------------------------------------------------ timesheets
  /**
   * Serializes the timesheet writes of one employee and day in the
   * organization until the transaction ends (a transaction-scoped advisory
   * lock; a hash collision only makes two unrelated days wait on each other).
   */
  async lockEmployeeDay(q: Queryable, organizationId: string, employeeId: string, date: string) {
    await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`timesheet:${organizationId}:${employeeId}:${date}`])
  },

  /** The hours of one employee on one date, across every project of the organization. */
  async hoursOfDay(q: Queryable, organizationId: string, employeeId: string, date: string): Promise<number> {
    const { rows } = await q.query<{ hours: number }>(
      'SELECT coalesce(sum(hours), 0) AS hours FROM timesheet_entries WHERE organization_id = $1 AND employee_id = $2 AND date = $3',
      [organizationId, employeeId, date],
    )
    return Number(rows[0].hours)
  },

  async insertTimesheet(
    q: Queryable,
    organizationId: string,
    e: { id: string; projectId: string; taskId: string; employeeId: string; date: string; hours: number; description: string | null; billable: boolean },
  ): Promise<TimesheetEntry> {
    const { rows } = await q.query<{ id: string; hours: number; date: string; created_at: Date; employee_name: string }>(
      `WITH e AS (
         INSERT INTO timesheet_entries (id, organization_id, project_id, task_id, employee_id, date, hours, description, billable)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id, employee_id, date, hours, created_at)
       SELECT e.id, e.date, e.hours, e.created_at, em.name AS employee_name FROM e JOIN employees em ON em.organization_id = $2 AND em.id = e.employee_id`,
      [e.id, organizationId, e.projectId, e.taskId, e.employeeId, e.date, e.hours, e.description, e.billable],
    )
    const r = rows[0]
    return {
      id: r.id,
      projectId: e.projectId,
      taskId: e.taskId,
      employee: { id: e.employeeId, name: r.employee_name },
      date: r.date,
      hours: Number(r.hours),
      description: e.description,
      billable: e.billable,
      createdAt: iso(r.created_at),
    }
  },

  /** Hours of the project's entries dated within from..to (inclusive, either open), in total, billable, and by employee. */
  async timesheetTotals(q: Queryable, organizationId: string, projectId: string, from: string | null, to: string | null) {
    const { rows } = await q.query<{ employee_id: string; name: string; hours: number; billable_hours: number }>(
      `SELECT t.employee_id, em.name, sum(t.hours) AS hours, coalesce(sum(t.hours) FILTER (WHERE t.billable), 0) AS billable_hours
       FROM timesheet_entries t JOIN employees em ON em.organization_id = t.organization_id AND em.id = t.employee_id
       WHERE t.organization_id = $4 AND t.project_id = $1 AND ($2::date IS NULL OR t.date >= $2::date) AND ($3::date IS NULL OR t.date <= $3::date)
       GROUP BY t.employee_id, em.name
       ORDER BY sum(t.hours) DESC, em.name, t.employee_id`,
      [projectId, from, to, organizationId],
    )
    return rows.map((r) => ({ employeeId: r.employee_id, name: r.name, hours: Number(r.hours), billableHours: Number(r.billable_hours) }))
  },

  // ------------------------------------------------------------ milestones
  async findMilestone(q: Queryable, organizationId: string, projectId: string, id: string, lock = false): Promise<Milestone | undefined> {
    const { rows } = await q.query<MilestoneRow>(
      `SELECT * FROM milestones WHERE organization_id = $1 AND project_id = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
      [organizationId, projectId, id],
    )
    return rows[0] && toMilestone(rows[0])
  },

  async insertMilestone(q: Queryable, organizationId: string, projectId: string, id: string, v: MilestoneValues): Promise<Milestone> {
    const { rows } = await q.query<MilestoneRow>(
      `INSERT INTO milestones (id, organization_id, project_id, name, target_date, reached, reached_date)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [id, organizationId, projectId, v.name, v.targetDate, v.reached, v.reachedDate],
    )
    return toMilestone(rows[0])
  },

  async updateMilestone(q: Queryable, organizationId: string, id: string, v: MilestoneValues): Promise<Milestone> {
    const { rows } = await q.query<MilestoneRow>(
      `UPDATE milestones SET name = $2, target_date = $3, reached = $4, reached_date = $5, updated_at = now()
       WHERE organization_id = $6 AND id = $1 RETURNING *`,
      [id, v.name, v.targetDate, v.reached, v.reachedDate, organizationId],
    )
    return toMilestone(rows[0])
  },

  listMilestones(q: Queryable, organizationId: string, projectId: string, query: MilestoneListQuery & PageParams) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .add('project_id = ?', projectId)
      .maybe(query.reached, 'reached = ?')
      .search(query.search, ['name'])
    return paginate(q, query, {
      from: 'milestones',
      select: '*',
      where,
      sortColumns: { createdAt: 'created_at', targetDate: 'target_date', name: 'name' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toMilestone,
    })
  },

  /**
   * One keyset batch of the timesheet entries dated within range (inclusive),
   * in (date, id) order on timesheet_entries_org_date_idx (migration 0116);
   * `after` is the last row of the batch before.
   */
  async exportTimesheetsBatch(q: Queryable, organizationId: string, range: DayRange, after: TimesheetExportRow | undefined, limit: number) {
    const { rows } = await q.query<TimesheetExportRow>(
      `SELECT t.id, t.date, t.project_id AS "projectId", p.name AS "projectName", t.task_id AS "taskId", k.title AS "taskTitle",
              t.employee_id AS "employeeId", em.name AS "employeeName", t.hours::text AS hours, t.billable, t.description
         FROM timesheet_entries t
         JOIN projects p ON p.organization_id = t.organization_id AND p.id = t.project_id
         JOIN tasks k ON k.organization_id = t.organization_id AND k.id = t.task_id
         JOIN employees em ON em.organization_id = t.organization_id AND em.id = t.employee_id
        WHERE t.organization_id = $1 AND t.date >= $2::date AND t.date <= $3::date
          AND ($4::date IS NULL OR (t.date, t.id) > ($4::date, $5::uuid))
        ORDER BY t.date, t.id LIMIT $6`,
      [organizationId, range.from, range.to, after?.date ?? null, after?.id ?? null, limit],
    )
    return rows
  },
}
