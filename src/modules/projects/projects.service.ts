import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import type { DomainEvents } from '../../core/events.ts'
import { AppError, NotFoundError, ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import type { PageParams } from '../../core/pagination.ts'
import { parseTimestamp } from '../../core/dates.ts'
import { contactRef, employeeRef } from '../../core/documents/index.ts'
import { keysetBatches } from '../../core/batches.ts'
import type { DayRange } from '../../core/dates.ts'
import { projectsRepository as repo, type TimesheetExportRow, type MilestoneValues, type ProjectValues, type TaskValues } from './projects.repository.ts'
import type {
  CreateMilestone, CreateProject, CreateTask, CreateTimesheet, Milestone, MilestoneListQuery, Project, ProjectListQuery,
  Task, TaskListQuery, TimesheetEntry, TimesheetSummary, TimesheetSummaryQuery, UpdateMilestone, UpdateProject, UpdateTask,
} from './projects.schemas.ts'

type Deps = Pick<Services, 'contacts' | 'employees'>

export type ProjectEvent = 'project.created' | 'project.updated' | 'project.archived'
export type TaskEvent = 'task.created' | 'task.updated'

/** The hours one employee may log on one date, across the organization (docs/projects.md "The 24-hour day"). */
export const DAY_LIMIT_HOURS = 24

/**
 * Hours are kept with 2 decimals (numeric columns): more is refused, never
 * rounded away. Read from the number's shortest decimal form (1.1 is "1.1",
 * 1e-7 is "1e-7"), not from float arithmetic.
 */
function hasTwoDecimals(n: number) {
  const [mantissa, exp = '0'] = String(n).toLowerCase().split('e')
  return (mantissa.split('.')[1]?.length ?? 0) - Number(exp) <= 2
}

/** Exact sum of hours of 2 decimals, in hundredths. */
const hundredths = (n: number) => Math.round(n * 100)

/**
 * Runs a check and adds its 422 messages to `errors` instead of throwing, so
 * that one answer names every failed rule; other errors pass through.
 */
async function collect<T>(errors: string[], check: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await check()
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err
    errors.push(...[err.messages].flat())
    return undefined
  }
}

/** A date-only input that exists and falls within the years every date of the API may (422 naming the field). */
const checkDate = (value: string | null | undefined, field: string, errors: string[]) =>
  value ? collect(errors, () => parseTimestamp(value, field)) : undefined

function checkHours(value: number | null | undefined, field: string, errors: string[]) {
  if (typeof value === 'number' && !hasTwoDecimals(value)) errors.push(`${field} must have at most 2 decimals`)
}

/**
 * Projects, tasks, timesheets and milestones (docs/projects.md "Projects",
 * docs/projects.md "Tasks", docs/projects.md "Timesheets", docs/projects.md "Milestones").
 */
export class ProjectsService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly deps: Deps,
  ) {}

  /** Appends the event with the change (docs/architecture.md); object is the resource as GET answers it. */
  private async emitProject(q: Queryable, type: ProjectEvent, organizationId: string, id: string) {
    const project = await this.getProject(organizationId, id, q)
    await this.events.append(q, { organizationId, type, resource: { type: 'project', id }, object: project })
    return project
  }

  private async emitTask(q: Queryable, type: TaskEvent, organizationId: string, projectId: string, id: string) {
    const task = await this.getTask(organizationId, projectId, id, q)
    await this.events.append(q, { organizationId, type, resource: { type: 'task', id }, object: task })
    return task
  }

  /**
   * For the analytics module (GET /analytics/overview): hours of the
   * timesheet entries dated in the range (YYYY-MM-DD, inclusive) over every
   * project, and the billable ones.
   */
  organizationHours(organizationId: string, range: { from: string; to: string }) {
    return repo.organizationHours(this.db, organizationId, range)
  }

  // ------------------------------------------------------------ projects
  listProjects(organizationId: string, query: ProjectListQuery & PageParams) {
    return repo.listProjects(this.db, organizationId, query)
  }

  async getProject(organizationId: string, id: string, q: Queryable = this.db, lock = false): Promise<Project> {
    const project = await repo.findProject(q, organizationId, id, lock)
    if (!project) throw new NotFoundError('Project')
    return project
  }

  createProject(organizationId: string, input: CreateProject) {
    return this.db.tx(async (q) => {
      const values = await this.resolveProject(q, organizationId, input, undefined)
      const id = randomUUID()
      await repo.insertProject(q, organizationId, id, values)
      return this.emitProject(q, 'project.created', organizationId, id)
    })
  }

  updateProject(organizationId: string, id: string, patch: UpdateProject) {
    return this.db.tx(async (q) => {
      const current = await this.getProject(organizationId, id, q, true)
      const values = await this.resolveProject(q, organizationId, patch, current)
      await repo.updateProject(q, organizationId, id, values)
      return this.emitProject(q, !current.archived && values.archived ? 'project.archived' : 'project.updated', organizationId, id)
    })
  }

  /** DELETE archives (docs/projects.md "Projects"): the project keeps its data; archiving an archived project is a no-op (no event). */
  archiveProject(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const current = await this.getProject(organizationId, id, q, true)
      if (current.archived) return
      await repo.archiveProject(q, organizationId, id)
      await this.emitProject(q, 'project.archived', organizationId, id)
    })
  }

  /** The stored values of a create or of a patch over `current`: references checked, dates in order (422). */
  private async resolveProject(q: Queryable, organizationId: string, input: UpdateProject, current: Project | undefined): Promise<ProjectValues> {
    const errors: string[] = []
    await checkDate(input.startDate, 'startDate', errors)
    await checkDate(input.endDate, 'endDate', errors)
    checkHours(input.hoursBudget, 'hoursBudget', errors)
    const v: ProjectValues = {
      name: input.name ?? current!.name,
      status: input.status ?? current?.status ?? 'active',
      contactId: input.contactId !== undefined ? input.contactId : (current?.contact?.id ?? null),
      managerId: input.managerId !== undefined ? input.managerId : (current?.manager?.id ?? null),
      startDate: input.startDate !== undefined ? input.startDate : (current?.startDate ?? null),
      endDate: input.endDate !== undefined ? input.endDate : (current?.endDate ?? null),
      hoursBudget: input.hoursBudget !== undefined ? input.hoursBudget : (current?.hoursBudget ?? null),
      billable: input.billable ?? current?.billable ?? false,
      archived: input.archived ?? current?.archived ?? false,
    }
    if (!errors.length && v.startDate && v.endDate && v.endDate < v.startDate) {
      errors.push(`endDate (${v.endDate}) must not be before startDate (${v.startDate})`)
    }
    const { contactId, managerId } = input
    if (contactId) await collect(errors, () => contactRef(this.deps.contacts, organizationId, contactId, q))
    if (managerId) await collect(errors, () => employeeRef(this.deps.employees, organizationId, managerId, q, 'managerId'))
    if (errors.length) throw new ValidationError(errors)
    return v
  }

  // ------------------------------------------------------------ tasks
  async listTasks(organizationId: string, projectId: string, query: TaskListQuery & PageParams) {
    await this.getProject(organizationId, projectId)
    return repo.listTasks(this.db, organizationId, projectId, query)
  }

  async getTask(organizationId: string, projectId: string, id: string, q: Queryable = this.db, lock = false): Promise<Task> {
    const task = await repo.findTask(q, organizationId, projectId, id, lock)
    if (!task) {
      await this.getProject(organizationId, projectId, q)
      throw new NotFoundError('Task')
    }
    return task
  }

  createTask(organizationId: string, projectId: string, input: CreateTask) {
    return this.db.tx(async (q) => {
      await this.getProject(organizationId, projectId, q)
      const patch = await this.resolveTask(q, organizationId, input)
      const id = randomUUID()
      await repo.insertTask(q, organizationId, projectId, id, {
        title: input.title,
        description: patch.description ?? null,
        status: 'todo',
        assigneeId: patch.assigneeId ?? null,
        priority: input.priority ?? 'medium',
        dueDate: patch.dueDate ?? null,
        hoursEstimate: patch.hoursEstimate ?? null,
        tags: patch.tags ?? [],
      })
      return this.emitTask(q, 'task.created', organizationId, projectId, id)
    })
  }

  updateTask(organizationId: string, projectId: string, id: string, patch: UpdateTask) {
    return this.db.tx(async (q) => {
      await this.getTask(organizationId, projectId, id, q, true)
      await repo.updateTask(q, organizationId, id, await this.resolveTask(q, organizationId, patch))
      return this.emitTask(q, 'task.updated', organizationId, projectId, id)
    })
  }

  /** The columns a task body sets: assignee checked, dueDate parsed, hours of 2 decimals, tags once each (422). */
  private async resolveTask(q: Queryable, organizationId: string, input: UpdateTask): Promise<Partial<TaskValues>> {
    const errors: string[] = []
    const { dueDate: due, assigneeId } = input
    const dueDate = due == null ? due : await collect(errors, () => parseTimestamp(due, 'dueDate'))
    checkHours(input.hoursEstimate, 'hoursEstimate', errors)
    if (assigneeId) await collect(errors, () => employeeRef(this.deps.employees, organizationId, assigneeId, q, 'assigneeId'))
    if (errors.length) throw new ValidationError(errors)
    return {
      title: input.title,
      description: input.description,
      status: input.status,
      assigneeId: input.assigneeId,
      priority: input.priority,
      dueDate,
      hoursEstimate: input.hoursEstimate,
      tags: input.tags && [...new Set(input.tags)],
    }
  }

  // ------------------------------------------------------------ timesheets
  /**
   * Logs hours on a task. The day of one employee holds at most 24 hours over
   * every task of the organization (400 LIMIT_EXCEEDED above): the writes of
   * one (organization, employee, date) are serialized by an advisory lock
   * held to commit, so the sum read under the lock includes every committed
   * entry and no concurrent entry of that day can commit in between.
   */
  logTime(organizationId: string, projectId: string, taskId: string, input: CreateTimesheet): Promise<TimesheetEntry> {
    return this.db.tx(async (q) => {
      const project = await this.getProject(organizationId, projectId, q)
      await this.getTask(organizationId, projectId, taskId, q)
      const errors: string[] = []
      await checkDate(input.date, 'date', errors)
      checkHours(input.hours, 'hours', errors)
      await collect(errors, () => employeeRef(this.deps.employees, organizationId, input.employeeId, q, 'employeeId'))
      if (errors.length) throw new ValidationError(errors)
      await repo.lockEmployeeDay(q, organizationId, input.employeeId, input.date)
      const logged = await repo.hoursOfDay(q, organizationId, input.employeeId, input.date)
      if (hundredths(logged) + hundredths(input.hours) > DAY_LIMIT_HOURS * 100) {
        throw new AppError(
          'LIMIT_EXCEEDED',
          `Hours logged exceed the daily limit of ${DAY_LIMIT_HOURS} hours: the employee has ${logged} hours on ${input.date}, ${input.hours} more would make ${(hundredths(logged) + hundredths(input.hours)) / 100}`,
        )
      }
      return repo.insertTimesheet(q, organizationId, {
        id: randomUUID(),
        projectId,
        taskId,
        employeeId: input.employeeId,
        date: input.date,
        hours: input.hours,
        description: input.description ?? null,
        billable: input.billable ?? project.billable,
      })
    })
  }

  /**
   * The project's hours dated from..to (inclusive, each optional): total,
   * billable, per employee (hours descending), and against the budget
   * utilizationPercent = round(100 x totalHours / budget, 2).
   */
  async timesheetSummary(organizationId: string, projectId: string, query: TimesheetSummaryQuery): Promise<TimesheetSummary> {
    const errors: string[] = []
    await checkDate(query.from, 'from', errors)
    await checkDate(query.to, 'to', errors)
    if (!errors.length && query.from && query.to && query.from > query.to) errors.push('from must not be after to')
    if (errors.length) throw new ValidationError(errors)
    const project = await this.getProject(organizationId, projectId)
    const rows = await repo.timesheetTotals(this.db, organizationId, projectId, query.from ?? null, query.to ?? null)
    // Sums in hundredths: exact whatever the number of entries.
    const total = rows.reduce((s, r) => s + hundredths(r.hours), 0)
    const billable = rows.reduce((s, r) => s + hundredths(r.billableHours), 0)
    const budget = project.hoursBudget
    return {
      projectId,
      from: query.from ?? null,
      to: query.to ?? null,
      totalHours: total / 100,
      billableHours: billable / 100,
      budget,
      utilizationPercent: budget === null ? null : percentOf(total, hundredths(budget)),
      byEmployee: rows.map((r) => ({ employeeId: r.employeeId, name: r.name, hours: r.hours })),
    }
  }

  // ------------------------------------------------------------ milestones
  async listMilestones(organizationId: string, projectId: string, query: MilestoneListQuery & PageParams) {
    await this.getProject(organizationId, projectId)
    return repo.listMilestones(this.db, organizationId, projectId, query)
  }

  createMilestone(organizationId: string, projectId: string, input: CreateMilestone): Promise<Milestone> {
    return this.db.tx(async (q) => {
      await this.getProject(organizationId, projectId, q)
      const targetDate = input.targetDate ? parseTimestamp(input.targetDate, 'targetDate') : null
      return repo.insertMilestone(q, organizationId, projectId, randomUUID(), { name: input.name, targetDate, reached: false, reachedDate: null })
    })
  }

  /**
   * reached=true without reachedDate records the current time (a milestone
   * already reached keeps its date); reachedDate alone marks it reached at
   * that time; reached=false clears reachedDate (422 with a reachedDate).
   */
  updateMilestone(organizationId: string, projectId: string, id: string, patch: UpdateMilestone): Promise<Milestone> {
    return this.db.tx(async (q) => {
      const current = await repo.findMilestone(q, organizationId, projectId, id, true)
      if (!current) {
        await this.getProject(organizationId, projectId, q)
        throw new NotFoundError('Milestone')
      }
      const errors: string[] = []
      if (patch.reached === false && patch.reachedDate !== undefined) errors.push('reachedDate may not be given with reached=false')
      const { targetDate: target, reachedDate: reachedAt } = patch
      const targetDate = target === undefined
        ? (current.targetDate ? new Date(current.targetDate) : null)
        : target === null ? null : ((await collect(errors, () => parseTimestamp(target, 'targetDate'))) ?? null)
      const reachedDate = reachedAt === undefined ? undefined : await collect(errors, () => parseTimestamp(reachedAt, 'reachedDate'))
      if (errors.length) throw new ValidationError(errors)
      const reached = patch.reached ?? (patch.reachedDate !== undefined ? true : current.reached)
      const values: MilestoneValues = {
        name: patch.name ?? current.name,
        targetDate,
        reached,
        reachedDate: !reached ? null : (reachedDate ?? (current.reachedDate ? new Date(current.reachedDate) : new Date())),
      }
      return repo.updateMilestone(q, organizationId, id, values)
    })
  }
  /**
   * The timesheet entries dated within range (inclusive) over every project,
   * oldest first, read in keyset batches: a caller may stream millions
   * without holding them (the `timesheets` report run).
   */
  exportTimesheets(organizationId: string, range: DayRange): AsyncGenerator<TimesheetExportRow> {
    return keysetBatches<TimesheetExportRow>((after, limit) => repo.exportTimesheetsBatch(this.db, organizationId, range, after, limit))
  }

}

/** round(100 x part / whole, 2) of two counts of hundredths (whole > 0), exactly, half away from zero. */
function percentOf(part: number, whole: number) {
  const [p, w] = [BigInt(part), BigInt(whole)]
  return Number((2n * 10_000n * p + w) / (2n * w)) / 100

}
