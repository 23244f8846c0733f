import { Type, type Static } from 'typebox'
import type { PublicEventType } from '../../core/events.ts'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { ContactRef, EmployeeRef } from '../../core/documents/index.ts'

const Uuid = (description?: string) => Type.String({ format: 'uuid', maxLength: 36, ...(description ? { description } : {}) })
const DateOnly = (description: string) => Type.String({ format: 'date', maxLength: 10, description })
/** Hours as the API takes them: a number with at most 2 decimals (422 otherwise), docs/projects.md. */
const Hours = (description: string, minimum: { minimum: number } | { exclusiveMinimum: number }) =>
  Type.Number({ ...minimum, maximum: 1_000_000_000, description: `${description}; at most 2 decimals` })

// ---------------------------------------------------------------- projects (docs/projects.md "Projects")

export const PROJECT_STATUSES = ['active', 'on_hold', 'done', 'cancelled'] as const
export type ProjectStatus = (typeof PROJECT_STATUSES)[number]

export const Project = Named('Project', Type.Object({
  id: Uuid(),
  name: Type.String(),
  status: StringEnum(PROJECT_STATUSES),
  contact: Nullable(ContactRef),
  manager: Nullable(EmployeeRef),
  startDate: Nullable(Type.String({ format: 'date' })),
  endDate: Nullable(Type.String({ format: 'date' })),
  progress: Type.Number({ description: 'round(100 x tasksDone / tasksTotal, 2); 0 without tasks' }),
  tasksTotal: Type.Integer(),
  tasksDone: Type.Integer(),
  hoursLogged: Type.Number({ description: "The sum of the project's timesheet entries" }),
  hoursBudget: Nullable(Type.Number()),
  billable: Type.Boolean({ description: 'The default of its timesheet entries' }),
  archived: Type.Boolean({ description: 'Set by DELETE; archived projects leave GET /projects unless archived=true' }),
  organizationId: Uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Project = Static<typeof Project>
export const ProjectList = Named('ProjectList', listOf(Project))

const projectFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  contactId: Nullable(Uuid('A contact of the organization (the customer)')),
  managerId: Nullable(Uuid('An employee of the organization')),
  startDate: Nullable(DateOnly('YYYY-MM-DD')),
  endDate: Nullable(DateOnly('YYYY-MM-DD, not before startDate')),
  hoursBudget: Nullable(Hours('Above 0', { exclusiveMinimum: 0 })),
  billable: Type.Boolean(),
}
export const CreateProjectBody = Type.Object(
  {
    name: projectFields.name,
    contactId: Type.Optional(projectFields.contactId),
    managerId: Type.Optional(projectFields.managerId),
    startDate: Type.Optional(projectFields.startDate),
    endDate: Type.Optional(projectFields.endDate),
    hoursBudget: Type.Optional(projectFields.hoursBudget),
    billable: Type.Optional({ ...projectFields.billable, description: 'Defaults to false' }),
  },
  { additionalProperties: false },
)
export type CreateProject = Static<typeof CreateProjectBody>

export const UpdateProjectBody = Type.Object(
  {
    name: Type.Optional(projectFields.name),
    status: Type.Optional(StringEnum(PROJECT_STATUSES, { description: 'Any of the four, from any state' })),
    contactId: Type.Optional(projectFields.contactId),
    managerId: Type.Optional(projectFields.managerId),
    startDate: Type.Optional(projectFields.startDate),
    endDate: Type.Optional(projectFields.endDate),
    hoursBudget: Type.Optional(projectFields.hoursBudget),
    billable: Type.Optional(projectFields.billable),
    archived: Type.Optional(Type.Boolean({ description: 'false restores an archived project; true archives it as DELETE does' })),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateProject = Static<typeof UpdateProjectBody>

export const PROJECT_SORTABLE = ['createdAt', 'updatedAt', 'name', 'startDate', 'endDate'] as const
export const ProjectListQuery = listQuery(PROJECT_SORTABLE, {
  status: Type.Optional(StringEnum(PROJECT_STATUSES)),
  contactId: Type.Optional(Uuid('Projects of this contact')),
  managerId: Type.Optional(Uuid('Projects this employee manages')),
  archived: Type.Optional(Type.Boolean({ default: false, description: 'true: only archived projects; false (default): only the others' })),
})
export type ProjectListQuery = Static<typeof ProjectListQuery>

// ---------------------------------------------------------------- tasks

export const TASK_STATUSES = ['todo', 'in_progress', 'in_review', 'done', 'blocked'] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]
export const TASK_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const
export type TaskPriority = (typeof TASK_PRIORITIES)[number]

export const Task = Named('Task', Type.Object({
  id: Uuid(),
  projectId: Uuid(),
  title: Type.String(),
  description: Nullable(Type.String()),
  status: StringEnum(TASK_STATUSES),
  assignee: Nullable(EmployeeRef),
  priority: StringEnum(TASK_PRIORITIES),
  dueDate: Nullable(Timestamp),
  hoursLogged: Type.Number({ description: "The sum of the task's timesheet entries" }),
  hoursEstimate: Nullable(Type.Number()),
  tags: Type.Array(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Task = Static<typeof Task>
export const TaskList = Named('TaskList', listOf(Task))

const taskFields = {
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 10_000 })),
  assigneeId: Nullable(Uuid('An employee of the organization')),
  priority: StringEnum(TASK_PRIORITIES),
  dueDate: Nullable(TimestampInput),
  hoursEstimate: Nullable(Hours('0 or more', { minimum: 0 })),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 50, description: 'Duplicates are kept once' }),
}
export const CreateTaskBody = Type.Object(
  {
    title: taskFields.title,
    description: Type.Optional(taskFields.description),
    assigneeId: Type.Optional(taskFields.assigneeId),
    priority: Type.Optional(StringEnum(TASK_PRIORITIES, { description: 'Defaults to medium' })),
    dueDate: Type.Optional(taskFields.dueDate),
    hoursEstimate: Type.Optional(taskFields.hoursEstimate),
    tags: Type.Optional(taskFields.tags),
  },
  { additionalProperties: false },
)
export type CreateTask = Static<typeof CreateTaskBody>

export const UpdateTaskBody = Type.Object(
  {
    title: Type.Optional(taskFields.title),
    description: Type.Optional(taskFields.description),
    status: Type.Optional(StringEnum(TASK_STATUSES, { description: 'Any of the five, from any state' })),
    assigneeId: Type.Optional(taskFields.assigneeId),
    priority: Type.Optional(taskFields.priority),
    dueDate: Type.Optional(taskFields.dueDate),
    hoursEstimate: Type.Optional(taskFields.hoursEstimate),
    tags: Type.Optional({ ...taskFields.tags, description: 'Replaces every tag' }),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateTask = Static<typeof UpdateTaskBody>

export const TASK_SORTABLE = ['createdAt', 'updatedAt', 'dueDate', 'title'] as const
export const TaskListQuery = listQuery(TASK_SORTABLE, {
  status: Type.Optional(StringEnum(TASK_STATUSES)),
  assigneeId: Type.Optional(Uuid('Tasks assigned to this employee')),
})
export type TaskListQuery = Static<typeof TaskListQuery>

export const TaskParams = Type.Object({ id: Uuid(), taskId: Uuid() })

// ---------------------------------------------------------------- timesheets

export const TimesheetEntry = Named('TimesheetEntry', Type.Object({
  id: Uuid(),
  projectId: Uuid(),
  taskId: Uuid(),
  employee: EmployeeRef,
  date: Type.String({ format: 'date' }),
  hours: Type.Number(),
  description: Nullable(Type.String()),
  billable: Type.Boolean(),
  createdAt: Timestamp,
}))
export type TimesheetEntry = Static<typeof TimesheetEntry>

export const CreateTimesheetBody = Type.Object(
  {
    employeeId: Uuid('An employee of the organization'),
    date: DateOnly('The day worked, YYYY-MM-DD'),
    hours: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'Above 0, at most 2 decimals; the day of one employee holds at most 24 hours across the organization (400 above)' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    billable: Type.Optional(Type.Boolean({ description: "Defaults to the project's billable" })),
  },
  { additionalProperties: false },
)
export type CreateTimesheet = Static<typeof CreateTimesheetBody>

export const TimesheetSummaryQuery = Type.Object(
  {
    from: Type.Optional(DateOnly('First day, inclusive (YYYY-MM-DD); default: no lower bound')),
    to: Type.Optional(DateOnly('Last day, inclusive (YYYY-MM-DD); default: no upper bound')),
  },
  { additionalProperties: false },
)
export type TimesheetSummaryQuery = Static<typeof TimesheetSummaryQuery>

export const TimesheetSummary = Named('TimesheetSummary', Type.Object({
  projectId: Uuid(),
  from: Nullable(Type.String({ format: 'date' })),
  to: Nullable(Type.String({ format: 'date' })),
  totalHours: Type.Number({ description: 'Hours of the entries dated from..to' }),
  billableHours: Type.Number({ description: 'Hours of those entries that are billable' }),
  budget: Nullable(Type.Number({ description: "The project's hoursBudget" })),
  utilizationPercent: Nullable(Type.Number({ description: 'round(100 x totalHours / budget, 2); null without a budget' })),
  byEmployee: Type.Array(Type.Object({ employeeId: Uuid(), name: Type.String(), hours: Type.Number() }), { description: 'Sorted by hours descending, then name' }),
}))
export type TimesheetSummary = Static<typeof TimesheetSummary>

// ---------------------------------------------------------------- milestones

export const Milestone = Named('Milestone', Type.Object({
  id: Uuid(),
  projectId: Uuid(),
  name: Type.String(),
  targetDate: Nullable(Timestamp),
  reached: Type.Boolean(),
  reachedDate: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Milestone = Static<typeof Milestone>
export const MilestoneList = Named('MilestoneList', listOf(Milestone))

export const CreateMilestoneBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    targetDate: Type.Optional(Nullable(TimestampInput)),
  },
  { additionalProperties: false },
)
export type CreateMilestone = Static<typeof CreateMilestoneBody>

export const UpdateMilestoneBody = Type.Object(
  {
    name: Type.Optional(CreateMilestoneBody.properties.name),
    targetDate: Type.Optional(Nullable(TimestampInput)),
    reached: Type.Optional(Type.Boolean({ description: 'true without reachedDate records the current time (or keeps the recorded one); false clears reachedDate' })),
    reachedDate: Type.Optional({ ...TimestampInput, description: 'When it was reached; implies reached=true' }),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateMilestone = Static<typeof UpdateMilestoneBody>

export const MILESTONE_SORTABLE = ['createdAt', 'targetDate', 'name'] as const
export const MilestoneListQuery = listQuery(MILESTONE_SORTABLE, {
  reached: Type.Optional(Type.Boolean({ description: 'Only reached (true) or open (false) milestones' })),
})
export type MilestoneListQuery = Static<typeof MilestoneListQuery>

export const MilestoneParams = Type.Object({ id: Uuid(), milestoneId: Uuid() })

/** Event types of projects and tasks (docs/webhooks.md); data.object is the record as GET answers it. */
export const projectEventTypes: PublicEventType[] = [
  { type: 'project.created', version: 1, object: Project, description: 'A project was created.' },
  { type: 'project.updated', version: 1, object: Project, description: 'A project was changed (PATCH), its status included.' },
  { type: 'project.archived', version: 1, object: Project, description: 'A project was archived (DELETE /projects/:id).' },
  { type: 'task.created', version: 1, object: Task, description: 'A task was created in a project.' },
  { type: 'task.updated', version: 1, object: Task, description: 'A task was changed (PATCH), its status included.' },
]
