// Employees (docs/dashboard-projects.md "Employees"): the people a project
// names (its manager, a task's assignee, the person of a timesheet entry),
// listed A to Z, created, edited and deleted; and the employee picker the
// project pages use to pick them by name.
import { useState } from 'react'
import { Link } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { date, Field, Form, formFields, ListView, useDebounced, useLoad, useUrlFilters } from '../ui.tsx'
import { DeleteRow, EditRecord, NewRecord, orNull, RecordList, RecordRoutes, useRecordList } from './records.tsx'

type Employee = Schemas['Employee']

export function EmployeesPage() {
  const { api } = useSession()
  const common = { what: 'employee', listPath: '/employees', Form: EmployeeForm }
  return (
    <RecordRoutes
      list={<EmployeeList />}
      create={<NewRecord {...common} create={(body: EmployeeBody) => api.post('/api/employees', { body })} />}
      edit={
        <EditRecord
          {...common}
          load={(id) => api.get('/api/employees/{id}', { params: { path: { id } } })}
          update={(id, body: EmployeeBody) => api.patch('/api/employees/{id}', { params: { path: { id } }, body })}
          remove={(id) => api.delete('/api/employees/{id}', { params: { path: { id } } })}
        />
      }
    />
  )
}

/** Employees: searched by name or e-mail (once the typing pauses), filtered by department (exact), A to Z, paged; the filters live in the address. */
function EmployeeList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const department = f.get('department')
  const list = useLoad(
    () => api.get('/api/employees', { params: { query: { page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(search ? { search } : {}), ...(department ? { department } : {}) } } }),
    [page, search, department],
  )
  const rows = useRecordList(list, page, f.setPage)
  return (
    <RecordList
      title="Employees"
      what="employee"
      listPath="/employees"
      notice={rows.notice}
      search={search}
      onSearch={(v) => f.set('search', v)}
      searchPlaceholder="Name or e-mail"
      filters={department ? <DepartmentFilter value={department} onClear={() => f.set('department', '')} /> : null}
    >
      <ListView
        list={list}
        onPage={f.setPage}
        caption="Employees"
        rowKey={(e) => e.id}
        empty={
          search || department ? (
            'No employee matches these filters.'
          ) : (
            <>
              No employees yet. <Link to="/employees/new">Create an employee</Link>, or import them (<Link to="/settings/import">Import</Link>).
            </>
          )
        }
        columns={[
          { label: 'Name', cell: (e) => <Link to={`/employees/${e.id}`}>{e.name}</Link> },
          { label: 'E-mail', cell: (e) => e.email ?? '—' },
          { label: 'Department', cell: (e) => (e.department ? <Link to={`/employees?department=${encodeURIComponent(e.department)}`}>{e.department}</Link> : '—') },
          { label: 'Job title', cell: (e) => e.jobTitle ?? '—' },
          { label: 'Hired', cell: (e) => date(e.hireDate) },
          {
            label: 'Actions',
            cell: (e) => <DeleteRow what="employee" name={e.name} remove={() => api.delete('/api/employees/{id}', { params: { path: { id: e.id } } })} onDone={() => rows.deleted(e.name)} />,
          },
        ]}
      />
    </RecordList>
  )
}

/** The department a list is narrowed to (chosen by a department's link in the list), and the way back to every department. */
function DepartmentFilter({ value, onClear }: { value: string; onClear: () => void }) {
  return (
    <p className="muted">
      Department: <strong>{value}</strong>{' '}
      <button type="button" onClick={onClear}>
        Every department
      </button>
    </p>
  )
}

type EmployeeBody = { name: string; email: string | null; department: string | null; jobTitle: string | null; hireDate: string | null }

/** The body of a create or an edit: emptied fields as null (the API clears them). The link to a user (`userId`) is left as it is. */
function employeeBody(data: FormData): EmployeeBody {
  const f = formFields(data)
  return { name: f.name ?? '', email: orNull(f.email), department: orNull(f.department), jobTitle: orNull(f.jobTitle), hireDate: orNull(f.hireDate) }
}

/** The fields of POST /employees but the link to a user: a new employee's, or `employee`'s to edit. */
function EmployeeForm({ label, submitLabel, record: employee, save, onDone }: { label: string; submitLabel: string; record?: Employee; save: (body: EmployeeBody) => Promise<Employee>; onDone: (e: Employee) => void }) {
  return (
    <Form label={label} submitLabel={submitLabel} submit={(data) => save(employeeBody(data))} onDone={onDone}>
      <div className="row">
        <Field label="Name">
          <input name="name" required maxLength={200} defaultValue={employee?.name} autoComplete="off" />
        </Field>
        <Field label="E-mail">
          <input name="email" type="email" maxLength={254} defaultValue={employee?.email ?? ''} autoComplete="off" />
        </Field>
        <Field label="Department">
          <input name="department" maxLength={100} defaultValue={employee?.department ?? ''} autoComplete="off" />
        </Field>
        <Field label="Job title">
          <input name="jobTitle" maxLength={100} defaultValue={employee?.jobTitle ?? ''} autoComplete="off" />
        </Field>
        <Field label="Hire date">
          <input name="hireDate" type="date" defaultValue={employee?.hireDate ?? ''} />
        </Field>
      </div>
    </Form>
  )
}

/**
 * Picks an employee by name: a search box that asks the API once the typing pauses, and a select of the first 20
 * matches, A to Z (the chosen one, or `current`, kept in it). `name` puts the id into a form's data; `none` names the
 * empty choice (an optional field: "nobody").
 */
export function EmployeePicker({ label, value, onChange, name, required, none, current }: { label: string; value: string; onChange: (id: string) => void; name?: string; required?: boolean; none?: string; current?: { id: string; name: string } | null }) {
  const { api } = useSession()
  const [search, setSearch] = useState('')
  const [chosen, setChosen] = useState<{ id: string; name: string } | null>(current ?? null)
  const wanted = useDebounced(search.trim())
  const found = useLoad(() => api.get('/api/employees', { params: { query: { limit: 20, sortBy: 'name', sortOrder: 'asc', ...(wanted ? { search: wanted } : {}) } } }), [wanted])
  const rows = found.data?.data ?? []
  const options = chosen && value === chosen.id && !rows.some((e) => e.id === chosen.id) ? [chosen, ...rows] : rows
  const total = found.data?.meta.total
  return (
    <>
      <Field label={`Find ${label.toLowerCase()}`}>
        <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} autoComplete="off" placeholder="Name or e-mail" />
      </Field>
      <Field label={label} hint={found.error ? 'The employees could not be loaded.' : total !== undefined ? `${total} match${total === 1 ? '' : 'es'}${total > rows.length ? `, first ${rows.length} shown` : ''}` : undefined}>
        <select
          name={name}
          value={value}
          required={required}
          aria-busy={found.loading}
          onChange={(e) => {
            const picked = options.find((o) => o.id === e.target.value)
            setChosen(picked ? { id: picked.id, name: picked.name } : null)
            onChange(e.target.value)
          }}
        >
          <option value="">{none ?? (options.length ? 'choose an employee' : 'no employee matches')}</option>
          {options.map((e) => (
            <option key={e.id} value={e.id}>
              {e.name}
              {'email' in e && e.email ? ` (${e.email})` : ''}
            </option>
          ))}
        </select>
      </Field>
    </>
  )
}
