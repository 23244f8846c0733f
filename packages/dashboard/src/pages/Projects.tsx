// Projects (docs/dashboard-projects.md "Projects"): the list (search, status,
// archived, A to Z), a new project for a customer picked by name, its edit
// page, and archiving (the API's DELETE keeps everything); the project's own
// page (tasks, milestones, hours) is in ProjectsDetail.tsx.
import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, date, ErrorMessage, Field, Form, formFields, ListView, Loading, Notice, Page, useLoad, useUrlFilters, type Tone } from '../ui.tsx'
import { EmployeePicker } from './Employees.tsx'
import { ContactPicker } from './finance.tsx'
import { ProjectDetail } from './ProjectsDetail.tsx'
import { RecordList, useRecordList } from './records.tsx'

export type Project = Schemas['Project']
type ProjectStatus = Project['status']
export const PROJECT_STATUSES: ProjectStatus[] = ['active', 'on_hold', 'done', 'cancelled']
const projectTones: Record<ProjectStatus, Tone> = { active: 'info', on_hold: 'warn', done: 'good', cancelled: 'neutral' }
/** A status in words ("on hold", "in progress"). */
export const statusWords = (status: string) => status.replace(/_/g, ' ')
export const ProjectBadge = ({ status }: { status: ProjectStatus }) => <Badge tone={projectTones[status]}>{statusWords(status)}</Badge>

/** Hours as a person reads them: "1.5 h", "24 h". */
export const hoursText = (hours: number | null | undefined) => (hours === null || hours === undefined ? '—' : `${hours.toLocaleString('en', { maximumFractionDigits: 2 })} h`)

/**
 * Hours typed as a decimal ("1.5", "1,5", "0.25") or as hours and minutes ("1:30"), as the API takes them: a number
 * with at most two decimals (docs/projects.md "Timesheets"). Minutes that make more decimals (1:20 is 1.333… h) are
 * refused with the nearest amounts to type, never rounded silently. Undefined when empty; an Error naming `label`
 * when it is not an amount of hours.
 */
export function parseHours(text: string | undefined, label: string): number | undefined {
  const t = (text ?? '').trim()
  if (!t) return undefined
  const clock = /^(\d{1,7}):([0-5]\d)$/.exec(t)
  if (clock) {
    const minutes = Number(clock[1]) * 60 + Number(clock[2])
    if ((minutes * 100) % 60 !== 0) {
      const down = Math.floor((minutes * 100) / 60) / 100
      throw new Error(`${label}: ${t} is ${(minutes / 60).toFixed(4).replace(/0+$/, '')}… hours, and hours are kept to two decimals: type ${down.toFixed(2)} or ${(down + 0.01).toFixed(2)}, or minutes in steps of 3 (1:30, 1:15, 0:45).`)
    }
    return minutes / 60
  }
  const decimal = t.replace(',', '.')
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(decimal) && !/^\.\d{1,2}$/.test(decimal)) throw new Error(`${label}: hours like 1.5 or 1:30 (two decimals at most).`)
  return Number(decimal)
}

export function ProjectsPage() {
  return (
    <Routes>
      <Route index element={<ProjectList />} />
      <Route path="new" element={<NewProject />} />
      <Route path=":id" element={<ProjectDetail />} />
      <Route path=":id/edit" element={<EditProject />} />
    </Routes>
  )
}

const SHOWN = ['archived'] as const

/** Projects, A to Z: searched by name (once the typing pauses), filtered by status, the archived ones apart; the filters live in the address. */
function ProjectList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const status = f.choice('status', PROJECT_STATUSES)
  const archived = f.choice('show', SHOWN) === 'archived'
  const list = useLoad(
    () => api.get('/api/projects', { params: { query: { page, limit: 20, sortBy: 'name', sortOrder: 'asc', archived, ...(search ? { search } : {}), ...(status ? { status } : {}) } } }),
    [page, search, status, archived],
  )
  const rows = useRecordList(list, page, f.setPage)
  const [said, setSaid] = useState<string>()
  const done = (text: string) => {
    setSaid(text)
    if (list.data?.data.length === 1 && page > 1) f.setPage(page - 1)
    else list.reload()
  }
  return (
    <RecordList
      title="Projects"
      what="project"
      listPath="/projects"
      notice={said ? <Notice>{said}</Notice> : rows.notice}
      search={search}
      onSearch={(v) => f.set('search', v)}
      searchPlaceholder="Name"
      filters={
        <>
          <Field label="Status">
            <select value={status} onChange={(e) => f.set('status', e.target.value)}>
              <option value="">all</option>
              {PROJECT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {statusWords(s)}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Archived">
            <select value={archived ? 'archived' : ''} onChange={(e) => f.set('show', e.target.value)}>
              <option value="">not archived</option>
              <option value="archived">archived only</option>
            </select>
          </Field>
        </>
      }
    >
      <ListView
        list={list}
        onPage={f.setPage}
        caption={archived ? 'Archived projects' : 'Projects'}
        rowKey={(p) => p.id}
        empty={
          search || status ? (
            'No project matches these filters.'
          ) : archived ? (
            'No archived project.'
          ) : (
            <>
              No projects yet. <Link to="/projects/new">Create a project</Link> for a customer, then add its tasks and log hours.
            </>
          )
        }
        columns={[
          { label: 'Name', cell: (p) => <Link to={`/projects/${p.id}`}>{p.name}</Link> },
          { label: 'Customer', cell: (p) => p.contact?.name ?? '—' },
          { label: 'Manager', cell: (p) => p.manager?.name ?? '—' },
          { label: 'Status', cell: (p) => <ProjectBadge status={p.status} /> },
          { label: 'Progress', align: 'right', cell: (p) => `${p.progress} %` },
          { label: 'Tasks done', align: 'right', cell: (p) => `${p.tasksDone} of ${p.tasksTotal}` },
          { label: 'Hours', align: 'right', cell: (p) => (p.hoursBudget ? `${hoursText(p.hoursLogged)} of ${hoursText(p.hoursBudget)}` : hoursText(p.hoursLogged)) },
          { label: 'Billable', cell: (p) => (p.billable ? <Badge tone="good">billable</Badge> : <Badge>internal</Badge>) },
          { label: 'Ends', cell: (p) => date(p.endDate) },
          {
            label: 'Actions',
            cell: (p) => (p.archived ? <RestoreButton project={p} onDone={() => done(`${p.name} restored.`)} /> : <ArchiveButton project={p} onDone={() => done(`${p.name} archived.`)} />),
          },
        ]}
      />
    </RecordList>
  )
}

/** Archives a project (DELETE /projects/:id), asked first: it leaves the list, and everything of it is kept. */
export function ArchiveButton({ project, onDone }: { project: Project; onDone: () => void }) {
  const { api } = useSession()
  return (
    <ActionButton
      variant="danger"
      confirm={`Archive the project ${project.name}? It leaves the list of projects; its tasks, hours and milestones are kept, and it can be restored from the archived projects.`}
      action={() => api.delete('/api/projects/{id}', { params: { path: { id: project.id } } })}
      onDone={onDone}
    >
      Archive <span className="visually-hidden">{project.name}</span>
    </ActionButton>
  )
}

/** Brings an archived project back to the list (PATCH archived: false). */
export function RestoreButton({ project, onDone }: { project: Project; onDone: () => void }) {
  const { api } = useSession()
  return (
    <ActionButton action={() => api.patch('/api/projects/{id}', { params: { path: { id: project.id } }, body: { archived: false } })} onDone={onDone}>
      Restore <span className="visually-hidden">{project.name}</span>
    </ActionButton>
  )
}

function NewProject() {
  const { api } = useSession()
  const navigate = useNavigate()
  return (
    <Page title="New project">
      <Card>
        <ProjectForm label="New project" submitLabel="Create project" save={(body) => api.post('/api/projects', { body: body as ProjectCreate })} onDone={(p) => navigate(`/projects/${p.id}`, { state: { flash: `${p.name} created.` } })} />
      </Card>
      <p>
        <Link to="/projects">Back to the projects</Link>
      </p>
    </Page>
  )
}

/** A project's edit page: its form with its values (status included), Save changes, then back to the project. */
function EditProject() {
  const { api } = useSession()
  const { id = '' } = useParams()
  const navigate = useNavigate()
  const project = useLoad(() => api.get('/api/projects/{id}', { params: { path: { id } } }), [id])
  const p = project.data
  return (
    <Page title={p ? `Edit ${p.name}` : 'Edit project'}>
      <ErrorMessage error={project.error} />
      {!p && !project.error && <Loading />}
      {p && (
        <Card>
          <ProjectForm
            key={p.updatedAt}
            label="Edit project"
            submitLabel="Save changes"
            project={p}
            save={(body) => api.patch('/api/projects/{id}', { params: { path: { id } }, body })}
            onDone={(saved) => navigate(`/projects/${id}`, { state: { flash: `Changes to ${saved.name} saved.` } })}
          />
        </Card>
      )}
      <p>
        <Link to={`/projects/${id}`}>Back to the project</Link>
      </p>
    </Page>
  )
}

type ProjectCreate = { name: string; contactId?: string | null; managerId?: string | null; startDate: string | null; endDate: string | null; hoursBudget: number | null; billable: boolean }
type ProjectPatch = Partial<ProjectCreate> & { status?: ProjectStatus }

/**
 * The fields of POST /projects (and, to edit, the status): the customer picked by name among the contacts, the
 * manager among the employees. An edit sends the customer and the manager only when changed (the pickers show the
 * first 20 matches, which need not hold the current one); emptied dates and budget are sent as null.
 */
function ProjectForm({ label, submitLabel, project, save, onDone }: { label: string; submitLabel: string; project?: Project; save: (body: ProjectPatch) => Promise<Project>; onDone: (p: Project) => void }) {
  const [contactId, setContactId] = useState(project?.contact?.id ?? '')
  const [managerId, setManagerId] = useState(project?.manager?.id ?? '')
  const body = (data: FormData): ProjectPatch => {
    const f = formFields(data)
    const budget = parseHours(f.hoursBudget, 'Hours budget')
    if (budget === 0) throw new Error('Hours budget: above 0, or empty for no budget.')
    if (f.startDate && f.endDate && f.endDate < f.startDate) throw new Error('End date: not before the start date (the same day is a one-day project).')
    return {
      name: f.name ?? '',
      ...(contactId !== (project?.contact?.id ?? '') ? { contactId: contactId || null } : {}),
      ...(managerId !== (project?.manager?.id ?? '') ? { managerId: managerId || null } : {}),
      startDate: f.startDate ?? null,
      endDate: f.endDate ?? null,
      hoursBudget: budget ?? null,
      billable: data.get('billable') === 'on',
      ...(project && f.status ? { status: f.status as ProjectStatus } : {}),
    }
  }
  return (
    <Form label={label} submitLabel={submitLabel} submit={(data) => save(body(data))} onDone={onDone}>
      <div className="row">
        <Field label="Name">
          <input name="name" required maxLength={200} defaultValue={project?.name} autoComplete="off" />
        </Field>
        {project && (
          <Field label="Status">
            <select name="status" defaultValue={project.status}>
              {PROJECT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {statusWords(s)}
                </option>
              ))}
            </select>
          </Field>
        )}
      </div>
      <div className="row">
        <ContactPicker label="Customer" value={contactId} onChange={setContactId} />
        {project?.contact && contactId === project.contact.id && <p className="muted">Customer now: {project.contact.name}</p>}
      </div>
      <div className="row">
        <EmployeePicker label="Manager" value={managerId} onChange={setManagerId} none="no manager" current={project?.manager} />
      </div>
      <div className="row">
        <Field label="Start date">
          <input name="startDate" type="date" defaultValue={project?.startDate ?? ''} />
        </Field>
        <Field label="End date" hint="Not before the start date">
          <input name="endDate" type="date" defaultValue={project?.endDate ?? ''} />
        </Field>
        <Field label="Hours budget" hint="e.g. 40 or 12.5; empty for none">
          <input name="hoursBudget" inputMode="decimal" className="narrow" defaultValue={project?.hoursBudget ?? ''} />
        </Field>
      </div>
      <label className="check">
        <input type="checkbox" name="billable" defaultChecked={project?.billable ?? false} /> Billable: its hours are billable unless an entry says otherwise
      </label>
    </Form>
  )
}
