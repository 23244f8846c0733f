// Tenancy contract fixtures of the projects module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createMilestone, createProject, createTask } from '../../../test/helpers/projects.ts'
import { createContact } from '../../../test/helpers/sales-fixtures.ts'
import { createEmployee, defineTenancyFixtures, foreignContact, foreignEmployee } from '../../../test/helpers/tenancy.ts'

const UNKNOWN = '00000000-0000-4000-8000-000000000000'

const project = async (o: TestOrg) => ({ id: (await createProject(o)).id as string })
const task = async (o: TestOrg) => {
  const p = await createProject(o)
  return { id: p.id as string, taskId: (await createTask(o, p.id)).id as string }
}
const milestone = async (o: TestOrg) => {
  const p = await createProject(o)
  return { id: p.id as string, milestoneId: (await createMilestone(o, p.id)).id as string }
}

/** A valid project body naming the owner's own contact and employee. */
const projectBody = async (o: TestOrg) => ({ name: 'Tenancy project', contactId: (await createContact(o)).id, managerId: (await createEmployee(o)).id })
const projectFields = {
  contactId: { status: 422, foreign: foreignContact },
  managerId: { status: 422, foreign: foreignEmployee },
} as const
const taskBody = async (o: TestOrg) => ({ title: 'Tenancy task', assigneeId: (await createEmployee(o)).id })
const assigneeField = { assigneeId: { status: 422, foreign: foreignEmployee } } as const

export default defineTenancyFixtures({
  paths: {
    '/projects/:id': project,
    '/projects/:id/tasks': project,
    '/projects/:id/timesheets': project,
    '/projects/:id/milestones': project,
    '/projects/:id/tasks/:taskId': task,
    '/projects/:id/tasks/:taskId/timesheets': task,
    '/projects/:id/milestones/:milestoneId': milestone,
  },
  bodies: {
    'PATCH /projects/:id': { name: 'Renamed project' },
    'POST /projects/:id/tasks': { title: 'Tenancy task' },
    'PATCH /projects/:id/tasks/:taskId': { status: 'done' },
    'POST /projects/:id/tasks/:taskId/timesheets': { employeeId: UNKNOWN, date: '2026-01-05', hours: 1 },
    'POST /projects/:id/milestones': { name: 'Tenancy milestone' },
    'PATCH /projects/:id/milestones/:milestoneId': { reached: true },
  },
  references: {
    'POST /projects': { body: projectBody, unchanged: '/projects', fields: projectFields },
    'PATCH /projects/:id': { params: project, body: projectBody, unchanged: '/projects/:id', fields: projectFields },
    'POST /projects/:id/tasks': { params: project, body: taskBody, unchanged: '/projects/:id/tasks', fields: assigneeField },
    'PATCH /projects/:id/tasks/:taskId': { params: task, body: taskBody, unchanged: '/projects/:id/tasks/:taskId', fields: assigneeField },
    'POST /projects/:id/tasks/:taskId/timesheets': {
      params: task,
      body: async (o) => ({ employeeId: (await createEmployee(o)).id, date: '2026-01-05', hours: 1 }),
      unchanged: '/projects/:id/timesheets',
      fields: { employeeId: { status: 422, foreign: foreignEmployee } },
    },
  },
  lists: {
    '/projects': async (o) => {
      const p = await createProject(o)
      return [p.id, p.name]
    },
  },
})
