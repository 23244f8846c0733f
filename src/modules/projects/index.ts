import { defineModule } from '../../core/module.ts'
import { projectEventTypes } from './projects.schemas.ts'
import { projectsRoutes } from './projects.routes.ts'
import { ProjectsService } from './projects.service.ts'

export type { ProjectsService }
export type { TimesheetExportRow } from './projects.repository.ts'
export { Project, Task } from './projects.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    projects: ProjectsService
  }
}

/**
 * Projects (docs/projects.md "Projects"): projects, tasks, timesheets with
 * the 24-hour day, and milestones.
 */
export const projectsModule = defineModule({
  name: 'projects',
  needs: ['contacts', 'employees'],
  async register(app, ctx) {
    ctx.events.declare(projectEventTypes)
    const projects = new ProjectsService(ctx.db, ctx.events, { contacts: ctx.services.contacts, employees: ctx.services.employees })
    projectsRoutes(app, projects)
    return projects
  },
})
