import { useState } from 'react'
import { useSession, type Role } from '../session.tsx'
import { ActionButton, Card, confirmAction, date, ErrorMessage, Field, Form, formFields, ListView, Page, SearchInput, toast, useLoad, useUrlFilters } from '../ui.tsx'

const ROLES: Role[] = ['admin', 'support', 'agent', 'member', 'customer']

/** Settings, users and roles (admin): invite a user with a role, change a role, remove a user. The list's filters live in the address. */
export function UsersPage() {
  const { api, me } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const role = f.choice('role', ROLES)
  const users = useLoad(
    () => api.get('/api/users', { params: { query: { page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(search ? { search } : {}), ...(role ? { role } : {}) } } }),
    [page, search, role],
  )
  return (
    <Page title="Users and roles">
      <Card title="Add a user">
        <Form
          label="Add a user"
          submitLabel="Add user"
          submit={async (data) => {
            const f = formFields(data)
            return api.post('/api/users', { body: { name: f.name ?? '', email: f.email ?? '', password: f.password ?? '', role: (f.role ?? 'member') as Role } })
          }}
          done={(u) => `Added ${u.name} (${u.email}) as ${u.role}.`}
          onDone={users.reload}
        >
          <div className="row">
            <Field label="Name">
              <input name="name" required autoComplete="off" />
            </Field>
            <Field label="E-mail">
              <input name="email" type="email" required autoComplete="off" />
            </Field>
            <Field label="Initial password" hint="At least 10 characters">
              <input name="password" type="password" minLength={10} required autoComplete="new-password" />
            </Field>
            <Field label="Role">
              <select name="role" defaultValue="member">
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </Field>
          </div>
        </Form>
      </Card>
      <Card
        title="Users"
        actions={
          <div className="filters">
            <Field label="Search">
              <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Name or e-mail" />
            </Field>
            <Field label="Role">
              <select value={role} onChange={(e) => f.set('role', e.target.value)}>
                <option value="">all</option>
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </Field>
          </div>
        }
      >
        <ListView
          list={users}
          onPage={f.setPage}
          caption="Users"
          rowKey={(u) => u.id}
          empty={search || role ? 'No user matches these filters.' : 'No users yet. Add one above.'}
          columns={[
            { label: 'Name', cell: (u) => u.name },
            { label: 'E-mail', cell: (u) => u.email },
            {
              label: 'Role',
              cell: (u) => (
                <RoleSelect
                  value={u.role}
                  name={u.name}
                  label={`Role of ${u.name}`}
                  disabled={u.id === me.user.id}
                  onChange={(next) => api.patch('/api/users/{id}', { params: { path: { id: u.id } }, body: { role: next } })}
                  onDone={users.reload}
                />
              ),
            },
            { label: 'Since', cell: (u) => date(u.createdAt) },
            {
              label: 'Actions',
              cell: (u) =>
                u.id === me.user.id ? (
                  <span className="muted">you</span>
                ) : (
                  <ActionButton variant="danger" confirm={`Remove ${u.name}? Their sessions and API keys stop working.`} action={() => api.delete('/api/users/{id}', { params: { path: { id: u.id } } })} done={`Removed ${u.name}.`} onDone={users.reload}>
                    Remove <span className="visually-hidden">{u.name}</span>
                  </ActionButton>
                ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}

/** A user's role; making someone admin asks first (it gives every right, users and keys included). */
function RoleSelect({ value, name, label, disabled, onChange, onDone }: { value: Role; name: string; label: string; disabled: boolean; onChange: (role: Role) => Promise<unknown>; onDone: () => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  return (
    <>
      <select
        aria-label={label}
        value={value}
        disabled={disabled || busy}
        aria-busy={busy}
        onChange={async (e) => {
          const next = e.target.value as Role
          if (next === 'admin' && !confirmAction(`Make ${name} an admin? Admins can manage users, roles, API keys and every record of the organization.`)) return
          setBusy(true)
          setError(undefined)
          try {
            await onChange(next)
            toast(`${name} is now ${/^[aeiou]/.test(next) ? 'an' : 'a'} ${next}.`)
            onDone()
          } catch (err) {
            setError(err)
          } finally {
            setBusy(false)
          }
        }}
      >
        {ROLES.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
      <ErrorMessage error={error} />
    </>
  )
}
