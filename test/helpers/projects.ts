import { unique, type TestOrg } from './app.ts'

/** Factories of the projects module, through the API. */

export async function createProject(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await o.post('/projects', { name: unique('Project '), ...overrides })
  if (res.status !== 201) throw new Error(`project: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

export async function createTask(o: TestOrg, projectId: string, overrides: Record<string, unknown> = {}) {
  const res = await o.post(`/projects/${projectId}/tasks`, { title: unique('Task '), ...overrides })
  if (res.status !== 201) throw new Error(`task: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

export async function createMilestone(o: TestOrg, projectId: string, overrides: Record<string, unknown> = {}) {
  const res = await o.post(`/projects/${projectId}/milestones`, { name: unique('Milestone '), ...overrides })
  if (res.status !== 201) throw new Error(`milestone: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}
