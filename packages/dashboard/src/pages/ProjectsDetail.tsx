// A project's page (docs/dashboard-projects.md "A project's page"): its
// figures as the API keeps them (progress, tasks done, hours against the
// budget), its tasks (added, status, assignee and estimate changed), hours
// logged on a task, the timesheet summary with the billable hours, and its
// milestones (added, reached, reopened).
import { useEffect, useRef, useState } from 'react'
import { Link, useLocation, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, date, ErrorMessage, Field, Form, formFields, Loading, Notice, Page, Table, toast, useLoad, useUrlFilters, type Tone } from '../ui.tsx'
import { EmployeePicker } from './Employees.tsx'
import { today } from './finance.tsx'
import { ArchiveButton, hoursText, parseHours, ProjectBadge, RestoreButton, statusWords, type Project } from './Projects.tsx'

type Task = Schemas['Task']
type TaskStatus = Task['status']
type Priority = Task['priority']
type Milestone = Schemas['Milestone']
const TASK_STATUSES: TaskStatus[] = ['todo', 'in_progress', 'in_review', 'done', 'blocked']
const PRIORITIES: Priority[] = ['low', 'medium', 'high', 'urgent']
const priorityTones: Record<Priority, Tone> = { low: 'neutral', medium: 'info', high: 'warn', urgent: 'bad' }
/** A timestamp the API answers for a date typed alone (midnight UTC), as that day. */
const day = (value: string | null | undefined) => (value ? date(value.slice(0, 10)) : '—')

/**
 * What the page that led here said ("Harbor website created."), from the history state, taken out of the history
 * entry so that a reload does not say it again; `say` for what this page does next.
 */
function useFlash() {
  const { state, pathname, search, hash } = useLocation()
  const navigate = useNavigate()
  const incoming = (state as { flash?: unknown } | null)?.flash
  const [said, say] = useState(typeof incoming === 'string' ? incoming : undefined)
  useEffect(() => {
    if (typeof incoming !== 'string') return
    say(incoming)
    navigate({ pathname, search, hash }, { replace: true, state: null })
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [incoming])
  return [said, say] as const
}

export function ProjectDetail() {
  const { api } = useSession()
  const { id = '' } = useParams()
  const navigate = useNavigate()
  const [said, setSaid] = useFlash()
  const f = useUrlFilters()
  const from = f.get('from')
  const to = f.get('to')
  const project = useLoad(() => api.get('/api/projects/{id}', { params: { path: { id } } }), [id])
  const tasks = useLoad(() => api.get('/api/projects/{id}/tasks', { params: { path: { id }, query: { limit: 100, sortBy: 'createdAt', sortOrder: 'asc' } } }), [id])
  const milestones = useLoad(() => api.get('/api/projects/{id}/milestones', { params: { path: { id }, query: { limit: 100, sortBy: 'createdAt', sortOrder: 'asc' } } }), [id])
  const summary = useLoad(() => api.get('/api/projects/{id}/timesheets', { params: { path: { id }, query: { ...(from ? { from } : {}), ...(to ? { to } : {}) } } }), [id, from, to])
  const p = project.data
  /** After a task or hours change: the project's figures, its tasks and the hours (and the notice of the page before is dropped: the toast says what was done). */
  const refresh = () => {
    setSaid(undefined)
    project.reload()
    tasks.reload()
    summary.reload()
  }
  return (
    <Page
      title={p ? p.name : 'Project'}
      actions={
        p && (
          <>
            <Link className="button" to={`/projects/${id}/edit`}>
              Edit project
            </Link>
            {p.archived ? (
              <RestoreButton
                project={p}
                onDone={() => {
                  setSaid(`${p.name} restored.`)
                  project.reload()
                }}
              />
            ) : (
              <ArchiveButton project={p} onDone={() => navigate('/projects', { state: { flash: `${p.name} archived.` } })} />
            )}
          </>
        )
      }
    >
      {said && <Notice>{said}</Notice>}
      <ErrorMessage error={project.error} />
      {!p && !project.error && <Loading />}
      {p && (
        <>
          {p.archived && <Notice>This project is archived: it is not in the list of projects, and it still takes tasks, hours and milestones. Restore brings it back.</Notice>}
          <Figures p={p} />
          <Tasks project={p} tasks={tasks} onChange={refresh} />
          <LogHours project={p} tasks={tasks.data?.data ?? []} onDone={refresh} />
          <Timesheets summary={summary} from={from} to={to} set={f.set} />
          <Milestones project={p} milestones={milestones} />
        </>
      )}
      <p>
        <Link to="/projects">Back to the projects</Link>
      </p>
    </Page>
  )
}

/** The project's details and the figures the API keeps (docs/projects.md "Derived figures"). */
function Figures({ p }: { p: Project }) {
  return (
    <Card title="Progress">
      <section aria-label="Key figures" className="kpis">
        <div className="kpi">
          <div className="kpi-label">Progress</div>
          <div className="kpi-value" data-testid="project-progress">
            {p.progress} %
          </div>
          <progress className="progress" value={p.progress} max={100} aria-label="Progress" />
        </div>
        <div className="kpi">
          <div className="kpi-label">Tasks done</div>
          <div className="kpi-value" data-testid="project-tasks">
            {p.tasksDone} of {p.tasksTotal}
          </div>
        </div>
        <div className="kpi">
          <div className="kpi-label">Hours logged</div>
          <div className="kpi-value" data-testid="project-hours">
            {hoursText(p.hoursLogged)}
            {p.hoursBudget ? ` of ${hoursText(p.hoursBudget)}` : ''}
          </div>
        </div>
      </section>
      <dl className="details">
        <dt>Status</dt>
        <dd data-testid="project-status">
          <ProjectBadge status={p.status} />
        </dd>
        <dt>Customer</dt>
        <dd>{p.contact ? <Link to={`/contacts/${p.contact.id}`}>{p.contact.name}</Link> : '—'}</dd>
        <dt>Manager</dt>
        <dd>{p.manager ? <Link to={`/employees/${p.manager.id}`}>{p.manager.name}</Link> : '—'}</dd>
        <dt>Dates</dt>
        <dd>{p.startDate || p.endDate ? `${date(p.startDate)} to ${date(p.endDate)}` : '—'}</dd>
        <dt>Hours budget</dt>
        <dd>{p.hoursBudget ? hoursText(p.hoursBudget) : 'none'}</dd>
        <dt>Hours are</dt>
        <dd>{p.billable ? 'billable unless an entry says otherwise' : 'internal (not billable) unless an entry says otherwise'}</dd>
      </dl>
    </Card>
  )
}

type Loaded<T> = { data?: { data: T[]; meta: { total: number } }; error: unknown; reload: () => void }

/** The tasks, oldest first: status changed in the row, the rest in the task's Edit form; then the New task form. */
function Tasks({ project, tasks, onChange }: { project: Project; tasks: Loaded<Task>; onChange: () => void }) {
  const [editing, setEditing] = useState<Task | null>(null)
  const [added, setAdded] = useState(0)
  const rows = tasks.data?.data
  return (
    <Card title="Tasks">
      <ErrorMessage error={tasks.error} />
      {!rows && !tasks.error && <Loading />}
      {rows && (
        <Table
          caption={`Tasks of ${project.name}`}
          rowKey={(t) => t.id}
          rows={rows}
          empty="No tasks yet: add the first one below."
          columns={[
            {
              label: 'Task',
              cell: (t) => (
                <>
                  {t.title} <Badge tone={priorityTones[t.priority]}>{t.priority}</Badge>
                </>
              ),
            },
            { label: 'Assignee', cell: (t) => t.assignee?.name ?? '—' },
            { label: 'Status', cell: (t) => <TaskStatusSelect project={project} task={t} onDone={onChange} /> },
            { label: 'Estimate', align: 'right', cell: (t) => hoursText(t.hoursEstimate) },
            { label: 'Logged', align: 'right', cell: (t) => hoursText(t.hoursLogged) },
            { label: 'Due', cell: (t) => day(t.dueDate) },
            {
              label: 'Actions',
              cell: (t) => (
                <button type="button" onClick={() => setEditing(t)}>
                  Edit <span className="visually-hidden">{t.title}</span>
                </button>
              ),
            },
          ]}
        />
      )}
      {tasks.data && tasks.data.meta.total > (rows?.length ?? 0) && <p className="muted">The first {rows?.length} of {tasks.data.meta.total} tasks are shown.</p>}
      {editing && (
        <section aria-label={`Edit task ${editing.title}`}>
          <h3>Edit task: {editing.title}</h3>
          <TaskForm
            key={editing.id}
            project={project}
            task={editing}
            onDone={(t) => {
              toast(`Task ${t.title} saved.`)
              setEditing(null)
              onChange()
            }}
            onCancel={() => setEditing(null)}
          />
        </section>
      )}
      <h3>New task</h3>
      <TaskForm
        key={`new-${added}`}
        project={project}
        onDone={(t) => {
          toast(`Task ${t.title} added.`)
          setAdded((n) => n + 1)
          onChange()
        }}
      />
    </Card>
  )
}

/** A task's status, changed in its row (PATCH at once; every status may go to every status). */
function TaskStatusSelect({ project, task, onDone }: { project: Project; task: Task; onDone: () => void }) {
  const { api } = useSession()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  // The status chosen, shown while the change is sent and until the task is loaded again (undefined: the task's).
  const [chosen, setChosen] = useState<{ from: string; to: TaskStatus }>()
  const value = chosen && chosen.from === task.updatedAt ? chosen.to : task.status
  return (
    <>
      <select
        aria-label={`Status of ${task.title}`}
        value={value}
        disabled={busy}
        aria-busy={busy}
        onChange={async (e) => {
          const status = e.target.value as TaskStatus
          setChosen({ from: task.updatedAt, to: status })
          setBusy(true)
          setError(undefined)
          try {
            await api.patch('/api/projects/{id}/tasks/{taskId}', { params: { path: { id: project.id, taskId: task.id } }, body: { status } })
            toast(`${task.title}: ${statusWords(status)}.`)
            onDone()
          } catch (err) {
            setChosen(undefined)
            setError(err)
          } finally {
            setBusy(false)
          }
        }}
      >
        {TASK_STATUSES.map((s) => (
          <option key={s} value={s}>
            {statusWords(s)}
          </option>
        ))}
      </select>
      <ErrorMessage error={error} />
    </>
  )
}

/** A new task's fields (POST), or `task`'s to change (PATCH: the assignee only when changed, emptied fields as null). */
function TaskForm({ project, task, onDone, onCancel }: { project: Project; task?: Task; onDone: (t: Task) => void; onCancel?: () => void }) {
  const { api } = useSession()
  const [assigneeId, setAssigneeId] = useState(task?.assignee?.id ?? '')
  const path = { id: project.id }
  const submit = (data: FormData) => {
    const f = formFields(data)
    const body = {
      title: f.title ?? '',
      priority: (f.priority ?? 'medium') as Priority,
      hoursEstimate: parseHours(f.hoursEstimate, 'Estimate') ?? null,
      dueDate: f.dueDate ?? null,
      description: f.description ?? null,
    }
    if (!task) return api.post('/api/projects/{id}/tasks', { params: { path }, body: { ...body, ...(assigneeId ? { assigneeId } : {}) } })
    return api.patch('/api/projects/{id}/tasks/{taskId}', { params: { path: { ...path, taskId: task.id } }, body: { ...body, ...(assigneeId !== (task.assignee?.id ?? '') ? { assigneeId: assigneeId || null } : {}) } })
  }
  return (
    <Form
      label={task ? `Edit task ${task.title}` : 'New task'}
      submitLabel={task ? 'Save task' : 'Add task'}
      submit={submit}
      onDone={onDone}
      actions={
        onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )
      }
    >
      <div className="row">
        <Field label="Title">
          <input name="title" required maxLength={200} defaultValue={task?.title} autoComplete="off" />
        </Field>
        <Field label="Priority">
          <select name="priority" defaultValue={task?.priority ?? 'medium'}>
            {PRIORITIES.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
        </Field>
        <Field label="Estimate" hint="Hours, e.g. 6 or 1:30">
          <input name="hoursEstimate" inputMode="decimal" className="narrow" defaultValue={task?.hoursEstimate ?? ''} />
        </Field>
        <Field label="Due date">
          <input name="dueDate" type="date" defaultValue={task?.dueDate?.slice(0, 10) ?? ''} />
        </Field>
      </div>
      <div className="row">
        <EmployeePicker label="Assignee" value={assigneeId} onChange={setAssigneeId} none="nobody" current={task?.assignee} />
      </div>
      <Field label="Description">
        <textarea name="description" maxLength={10000} rows={2} defaultValue={task?.description ?? ''} />
      </Field>
    </Form>
  )
}

/**
 * Hours logged on a task by an employee picked by name: the date (today unless changed), the hours typed as 1.5 or
 * 1:30 (parseHours), billable as the project says unless changed. The API refuses a day of one employee above 24
 * hours, across every project: its sentence is shown, and nothing is logged.
 */
function LogHours({ project, tasks, onDone }: { project: Project; tasks: Task[]; onDone: () => void }) {
  const { api } = useSession()
  const [employeeId, setEmployeeId] = useState('')
  const hours = useRef<HTMLInputElement>(null)
  const description = useRef<HTMLTextAreaElement>(null)
  const submit = (data: FormData) => {
    const f = formFields(data)
    const taskId = f.taskId ?? ''
    if (!taskId) throw new Error('Task: choose the task the hours were spent on.')
    if (!employeeId) throw new Error('Employee: choose who worked the hours.')
    const h = parseHours(f.hours, 'Hours')
    if (!h) throw new Error('Hours: above 0, like 1.5 or 1:30.')
    return api.post('/api/projects/{id}/tasks/{taskId}/timesheets', {
      params: { path: { id: project.id, taskId } },
      body: { employeeId, date: f.date ?? today(), hours: h, billable: data.get('billable') === 'on', ...(f.description ? { description: f.description } : {}) },
    })
  }
  return (
    <Card title="Log hours">
      {tasks.length === 0 ? (
        <p className="muted">Hours are logged on a task: add a task first.</p>
      ) : (
        <Form
          label="Log hours"
          submitLabel="Log hours"
          submit={submit}
          onDone={(entry) => {
            toast(`${hoursText(entry.hours)} logged for ${entry.employee.name} on ${date(entry.date)}${entry.billable ? ', billable' : ', not billable'}.`)
            if (hours.current) hours.current.value = ''
            if (description.current) description.current.value = ''
            onDone()
          }}
        >
          <div className="row">
            <Field label="Task">
              <select name="taskId" required defaultValue="">
                <option value="">choose a task</option>
                {tasks.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.title}
                  </option>
                ))}
              </select>
            </Field>
            <EmployeePicker label="Employee" value={employeeId} onChange={setEmployeeId} required />
          </div>
          <div className="row">
            <Field label="Date">
              <input name="date" type="date" required defaultValue={today()} />
            </Field>
            <Field label="Hours" hint="1.5 or 1:30; at most 24 a day for one employee">
              <input ref={hours} name="hours" required inputMode="decimal" className="narrow" autoComplete="off" />
            </Field>
            <label className="check">
              <input type="checkbox" name="billable" defaultChecked={project.billable} /> Billable
            </label>
          </div>
          <Field label="What was done">
            <textarea ref={description} name="description" maxLength={2000} rows={2} />
          </Field>
        </Form>
      )}
    </Card>
  )
}

/** The timesheet summary (GET /projects/:id/timesheets), over the dates of the address or every date: hours, billable hours, the budget used, by employee. */
function Timesheets({ summary, from, to, set }: { summary: { data?: Schemas['TimesheetSummary']; error: unknown }; from: string; to: string; set: (key: string, value: string) => void }) {
  const s = summary.data
  return (
    <Card title="Timesheets">
      <div className="filters" role="search" aria-label="Dates of the hours">
        <Field label="From">
          <input type="date" value={from} onChange={(e) => set('from', e.target.value)} />
        </Field>
        <Field label="To">
          <input type="date" value={to} onChange={(e) => set('to', e.target.value)} />
        </Field>
      </div>
      <ErrorMessage error={summary.error} />
      {!s && !summary.error && <Loading />}
      {s && (
        <>
          <dl className="details totals" aria-label="Hours">
            <dt>Hours logged{from || to ? ` (${from ? date(from) : 'start'} to ${to ? date(to) : 'today'})` : ''}</dt>
            <dd data-testid="total-hours">{hoursText(s.totalHours)}</dd>
            <dt>Billable hours</dt>
            <dd data-testid="billable-hours">{hoursText(s.billableHours)}</dd>
            <dt>Not billable</dt>
            <dd data-testid="internal-hours">{hoursText(Math.round((s.totalHours - s.billableHours) * 100) / 100)}</dd>
            <dt>Budget</dt>
            <dd>{s.budget ? hoursText(s.budget) : 'none'}</dd>
            <dt>Budget used</dt>
            <dd data-testid="utilization">{s.utilizationPercent === null ? '—' : `${s.utilizationPercent} %`}</dd>
          </dl>
          <Table
            caption="Hours by employee"
            rowKey={(e) => e.employeeId}
            rows={s.byEmployee}
            empty="No hours logged over these dates."
            columns={[
              { label: 'Employee', cell: (e) => <Link to={`/employees/${e.employeeId}`}>{e.name}</Link> },
              { label: 'Hours', align: 'right', cell: (e) => hoursText(e.hours) },
            ]}
          />
          <p className="muted">The API keeps hours, not rates: billable hours are counted here, and invoiced from Invoices. Single entries are not listed by the API.</p>
        </>
      )}
    </Card>
  )
}

/** The milestones, oldest first: Mark reached (today) or Reopen; then the New milestone form. */
function Milestones({ project, milestones }: { project: Project; milestones: Loaded<Milestone> }) {
  const { api } = useSession()
  const rows = milestones.data?.data
  const path = (m: Milestone) => ({ params: { path: { id: project.id, milestoneId: m.id } } })
  return (
    <Card title="Milestones">
      <ErrorMessage error={milestones.error} />
      {!rows && !milestones.error && <Loading />}
      {rows && (
        <Table
          caption={`Milestones of ${project.name}`}
          rowKey={(m) => m.id}
          rows={rows}
          empty="No milestones yet."
          columns={[
            { label: 'Milestone', cell: (m) => m.name },
            { label: 'Target', cell: (m) => day(m.targetDate) },
            { label: 'Reached', cell: (m) => (m.reached ? <Badge tone="good">reached {date(m.reachedDate)}</Badge> : <Badge>open</Badge>) },
            {
              label: 'Actions',
              cell: (m) =>
                m.reached ? (
                  <ActionButton action={() => api.patch('/api/projects/{id}/milestones/{milestoneId}', { ...path(m), body: { reached: false } })} done={`${m.name} reopened.`} onDone={milestones.reload}>
                    Reopen <span className="visually-hidden">{m.name}</span>
                  </ActionButton>
                ) : (
                  <ActionButton action={() => api.patch('/api/projects/{id}/milestones/{milestoneId}', { ...path(m), body: { reached: true } })} done={`${m.name} reached.`} onDone={milestones.reload}>
                    Mark reached <span className="visually-hidden">{m.name}</span>
                  </ActionButton>
                ),
            },
          ]}
        />
      )}
      <h3>New milestone</h3>
      <Form
        label="New milestone"
        submitLabel="Add milestone"
        submit={(data) => {
          const f = formFields(data)
          return api.post('/api/projects/{id}/milestones', { params: { path: { id: project.id } }, body: { name: f.name ?? '', ...(f.targetDate ? { targetDate: f.targetDate } : {}) } })
        }}
        done={(m) => `Milestone ${m.name} added.`}
        onDone={milestones.reload}
      >
        <div className="row">
          <Field label="Name">
            <input name="name" required maxLength={200} autoComplete="off" />
          </Field>
          <Field label="Target date">
            <input name="targetDate" type="date" />
          </Field>
        </div>
      </Form>
    </Card>
  )
}
