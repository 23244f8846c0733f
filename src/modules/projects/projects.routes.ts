import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { ProjectsService } from './projects.service.ts'
import * as S from './projects.schemas.ts'

const tags = ['projects']
const org = (req: Parameters<typeof principalOf>[0]) => principalOf(req).organizationId

export function projectsRoutes(app: App, projects: ProjectsService) {
  // ---------------------------------------------------------- projects
  app.get('/projects', {
    schema: {
      operationId: 'listProjects', tags, summary: 'List projects',
      description: 'Filters: status, contactId, managerId, archived (default false: archived projects are left out; true lists only them). search matches the project name.',
      querystring: S.ProjectListQuery, response: responses({ 200: S.ProjectList }),
    },
  }, async (req) => projects.listProjects(org(req), req.query))

  app.post('/projects', {
    schema: {
      operationId: 'createProject', tags, summary: 'Create a project',
      description: 'Starts active. contactId must name a contact and managerId an employee of the organization (422); endDate before startDate is 422; hoursBudget above 0 with at most 2 decimals; billable defaults to false.',
      body: S.CreateProjectBody, response: responses({ 201: S.Project }, [422]),
    },
  }, async (req, reply) => reply.status(201).send(await projects.createProject(org(req), req.body)))

  app.get('/projects/:id', {
    schema: {
      operationId: 'getProject', tags, summary: 'Get a project',
      description: 'Archived projects too (archived: true). progress, tasksTotal, tasksDone and hoursLogged are exact at read time.',
      params: IdParams, response: responses({ 200: S.Project }, [404]),
    },
  }, async (req) => projects.getProject(org(req), req.params.id))

  app.patch('/projects/:id', {
    schema: {
      operationId: 'updateProject', tags, summary: 'Update a project',
      description: 'The fields of create, each optional (null clears contactId, managerId, dates and hoursBudget), plus status (any of the four, from any state) and archived (false restores an archived project). endDate before startDate, the stored value counting for the one not given, is 422.',
      params: IdParams, body: S.UpdateProjectBody, response: responses({ 200: S.Project }, [404, 422]),
    },
  }, async (req) => projects.updateProject(org(req), req.params.id, req.body))

  app.delete('/projects/:id', {
    schema: {
      operationId: 'archiveProject', tags, summary: 'Archive a project',
      description: 'Archives (204): the project keeps its tasks, timesheets and milestones, GET /projects/:id answers it with archived: true, and GET /projects leaves it out unless archived=true. Archiving an archived project is 204 again.',
      params: IdParams, response: responses({ 204: NoContent }, [404]),
    },
  }, async (req, reply) => {
    await projects.archiveProject(org(req), req.params.id)
    return reply.status(204).send()
  })

  // ---------------------------------------------------------- tasks
  app.get('/projects/:id/tasks', {
    schema: {
      operationId: 'listTasks', tags, summary: "List a project's tasks",
      description: 'Filters: status, assigneeId. search matches the title. 404 for an unknown project.',
      params: IdParams, querystring: S.TaskListQuery, response: responses({ 200: S.TaskList }, [404]),
    },
  }, async (req) => projects.listTasks(org(req), req.params.id, req.query))

  app.post('/projects/:id/tasks', {
    schema: {
      operationId: 'createTask', tags, summary: 'Create a task',
      description: 'Starts todo; priority defaults to medium. assigneeId must name an employee of the organization (422).',
      params: IdParams, body: S.CreateTaskBody, response: responses({ 201: S.Task }, [404, 422]),
    },
  }, async (req, reply) => reply.status(201).send(await projects.createTask(org(req), req.params.id, req.body)))

  app.get('/projects/:id/tasks/:taskId', {
    schema: {
      operationId: 'getTask', tags, summary: 'Get a task',
      description: 'A task of the project; 404 for an unknown project or task.',
      params: S.TaskParams, response: responses({ 200: S.Task }, [404]),
    },
  }, async (req) => projects.getTask(org(req), req.params.id, req.params.taskId))

  app.patch('/projects/:id/tasks/:taskId', {
    schema: {
      operationId: 'updateTask', tags, summary: 'Update a task',
      description: 'The fields of create, each optional (null clears description, assigneeId, dueDate, hoursEstimate), plus status: any of the five, from any state.',
      params: S.TaskParams, body: S.UpdateTaskBody, response: responses({ 200: S.Task }, [404, 422]),
    },
  }, async (req) => projects.updateTask(org(req), req.params.id, req.params.taskId, req.body))

  // ---------------------------------------------------------- timesheets
  app.post('/projects/:id/tasks/:taskId/timesheets', {
    schema: {
      operationId: 'logTimesheet', tags, summary: 'Log hours on a task',
      description: "employeeId must name an employee of the organization (422); hours above 0 with at most 2 decimals (422); billable defaults to the project's. The hours of one employee on one date, over every task of the organization, may not exceed 24: 400 (LIMIT_EXCEEDED), also under concurrency.",
      params: S.TaskParams, body: S.CreateTimesheetBody, response: responses({ 201: S.TimesheetEntry }, [404, 422]),
    },
  }, async (req, reply) => reply.status(201).send(await projects.logTime(org(req), req.params.id, req.params.taskId, req.body)))

  app.get('/projects/:id/timesheets', {
    schema: {
      operationId: 'getTimesheetSummary', tags, summary: "Summarize a project's timesheets",
      description: 'Entries dated from..to (inclusive; each optional, default all): totalHours, billableHours, budget (hoursBudget or null), utilizationPercent = round(100 x totalHours / budget, 2) (null without a budget), byEmployee sorted by hours descending then name. from after to is 422.',
      params: IdParams, querystring: S.TimesheetSummaryQuery, response: responses({ 200: S.TimesheetSummary }, [404, 422]),
    },
  }, async (req) => projects.timesheetSummary(org(req), req.params.id, req.query))

  // ---------------------------------------------------------- milestones
  app.get('/projects/:id/milestones', {
    schema: {
      operationId: 'listMilestones', tags, summary: "List a project's milestones",
      description: 'Filter: reached. search matches the name. 404 for an unknown project.',
      params: IdParams, querystring: S.MilestoneListQuery, response: responses({ 200: S.MilestoneList }, [404]),
    },
  }, async (req) => projects.listMilestones(org(req), req.params.id, req.query))

  app.post('/projects/:id/milestones', {
    schema: {
      operationId: 'createMilestone', tags, summary: 'Create a milestone',
      description: 'name and an optional targetDate (timestamp); starts not reached.',
      params: IdParams, body: S.CreateMilestoneBody, response: responses({ 201: S.Milestone }, [404, 422]),
    },
  }, async (req, reply) => reply.status(201).send(await projects.createMilestone(org(req), req.params.id, req.body)))

  app.patch('/projects/:id/milestones/:milestoneId', {
    schema: {
      operationId: 'updateMilestone', tags, summary: 'Update a milestone',
      description: 'reached=true without reachedDate records the current time (a reached milestone keeps its date); reachedDate alone marks it reached then; reached=false clears reachedDate (422 together with a reachedDate). name and targetDate may change too.',
      params: S.MilestoneParams, body: S.UpdateMilestoneBody, response: responses({ 200: S.Milestone }, [404, 422]),
    },
  }, async (req) => projects.updateMilestone(org(req), req.params.id, req.params.milestoneId, req.body))
}
