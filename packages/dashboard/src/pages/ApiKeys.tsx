import { useState } from 'react'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession, type Role } from '../session.tsx'
import { ActionButton, Badge, Card, CopyButton, date, Field, Form, formFields, ListView, Page, useLoad, useUrlFilters, type Tone } from '../ui.tsx'

const ROLES: Role[] = ['admin', 'support', 'agent', 'member', 'customer']
const ENVIRONMENTS = ['test', 'live'] as const
type Environment = (typeof ENVIRONMENTS)[number]
/** A live key acts on real data: it stands out. */
const environmentTone: Record<Environment, Tone> = { live: 'warn', test: 'info' }

/** Settings, API keys (docs/platform.md "API keys"): create with environment and role, the value shown once, revoke. */
export function ApiKeysPage() {
  const { api, role } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const environment = f.choice('environment', ENVIRONMENTS)
  const [created, setCreated] = useState<Schemas['CreatedApiKey'] | null>(null)
  const list = useLoad(
    () => api.get('/api/api-keys', { params: { query: { page, limit: 20, sortBy: 'createdAt', sortOrder: 'desc', ...(environment ? { environment } : {}) } } }),
    [page, environment],
  )

  return (
    <Page title="API keys">
      <Card title="Create a key">
        <Form
          label="Create an API key"
          submitLabel="Create key"
          submit={async (data) => {
            const f = formFields(data)
            return api.post('/api/api-keys', { body: { name: f.name ?? '', environment: f.environment as 'live' | 'test', ...(f.role ? { role: f.role as Role } : {}) } })
          }}
          onDone={(key) => {
            setCreated(key)
            list.reload()
          }}
        >
          <div className="row">
            <Field label="Name">
              <input name="name" required maxLength={200} placeholder="e.g. Warehouse sync" />
            </Field>
            <Field label="Environment">
              <select name="environment" defaultValue="test">
                <option value="test">test</option>
                <option value="live">live</option>
              </select>
            </Field>
            <Field label="Role" hint={role === 'admin' ? 'The key acts with this role' : 'Only admins may give another role'}>
              <select name="role" defaultValue={role} disabled={role !== 'admin'}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </Field>
          </div>
        </Form>
        {created && (
          <div className="secret" role="status">
            <p>
              <strong>Copy this key now: it is shown once.</strong> Keys are stored only as a hash; if you lose it, revoke it and make another.
            </p>
            <div className="secret-value">
              <code data-testid="new-key">{created.key}</code>
              <CopyButton text={created.key} label="Copy key" />
              <button type="button" onClick={() => setCreated(null)}>
                Done
              </button>
            </div>
          </div>
        )}
      </Card>
      <Card
        title="Keys"
        actions={
          <Field label="Environment">
            <select value={environment} onChange={(e) => f.set('environment', e.target.value)}>
              <option value="">all</option>
              <option value="test">test</option>
              <option value="live">live</option>
            </select>
          </Field>
        }
      >
        <ListView
          list={list}
          onPage={f.setPage}
          caption="API keys"
          rowKey={(k) => k.id}
          empty={environment ? `No ${environment} keys. Pick another environment, or create one above.` : 'No keys yet. Create one above to call the API from your code.'}
          columns={[
            { label: 'Name', cell: (k) => k.name },
            { label: 'Key', cell: (k) => <code>{`${k.prefix}…${k.last4}`}</code> },
            { label: 'Environment', cell: (k) => <Badge tone={environmentTone[k.environment]}>{k.environment}</Badge> },
            { label: 'Role', cell: (k) => k.role },
            { label: 'Created', cell: (k) => date(k.createdAt) },
            {
              label: 'Actions',
              cell: (k) => (
                <ActionButton variant="danger" confirm={`Revoke the key "${k.name}"? Programs using it stop working at once.`} action={() => api.delete('/api/api-keys/{id}', { params: { path: { id: k.id } } })} onDone={list.reload}>
                  Revoke <span className="visually-hidden">{k.name}</span>
                </ActionButton>
              ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}
