// The helpdesk's tabs besides the tickets (docs/helpdesk.md "Dashboard pages"):
// teams, SLA policies and statistics. Agents read teams and policies; only an
// admin creates, edits and deletes them (the API's roles); statistics are for agents.
import { Link, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, date, Empty, ErrorMessage, Field, Form, formFields, ListView, Loading, Page, SearchInput, Table, Tabs, toast, useLoad, useUrlFilters } from '../ui.tsx'

type Team = Schemas['HelpdeskTeam']
type Policy = Schemas['SlaPolicy']
type Priority = Schemas['Ticket']['priority']
type User = Schemas['User']

const PRIORITIES: Priority[] = ['low', 'medium', 'high', 'urgent']
const AGENT_ROLES = new Set(['admin', 'support', 'agent'])

/** The helpdesk's tabs: tickets, teams, SLA policies, statistics. */
export function HelpdeskTabs() {
  return (
    <Tabs
      label="Helpdesk"
      tabs={[
        { to: '/helpdesk', label: 'Tickets', end: true },
        { to: '/helpdesk/teams', label: 'Teams' },
        { to: '/helpdesk/sla', label: 'SLA policies' },
        { to: '/helpdesk/stats', label: 'Statistics' },
      ]}
    />
  )
}

/**
 * The users with an agent role (admin, support, agent), A to Z, for the
 * pickers of assignees and team members: an admin lists the users (GET /users
 * is admin only, one page of 100); any other role knows only itself.
 */
export function useAgents() {
  const { api, role, me } = useSession()
  return useLoad(async (): Promise<User[]> => {
    if (role !== 'admin') return [me.user]
    const users = await api.get('/api/users', { params: { query: { limit: 100, sortBy: 'name', sortOrder: 'asc' } } })
    return users.data.filter((u) => AGENT_ROLES.has(u.role))
  }, [role])
}

/** The teams, A to Z (one page of 100), for the team selects of a ticket and of the statistics. */
export function useTeams() {
  const { api } = useSession()
  return useLoad(async () => (await api.get('/api/helpdesk/teams', { params: { query: { limit: 100, sortBy: 'name', sortOrder: 'asc' } } })).data, [])
}

// ---------------------------------------------------------------- teams

/** Member names as far as the caller may know them: every agent for an admin, else its own name and a count of the others. */
function memberNames(team: Team, agents: User[] | undefined, meId: string): string {
  if (team.memberIds.length === 0) return 'no members'
  const known = new Map((agents ?? []).map((u) => [u.id, u.name]))
  const names = team.memberIds.map((id) => (id === meId ? `${known.get(id) ?? 'you'}` : known.get(id))).filter((n): n is string => Boolean(n))
  const others = team.memberIds.length - names.length
  return [...names, ...(others > 0 ? [`${others} other${others === 1 ? '' : 's'}`] : [])].join(', ')
}

export function TeamsView() {
  const { api, role, me } = useSession()
  const f = useUrlFilters()
  const search = f.get('search')
  const admin = role === 'admin'
  const agents = useAgents()
  const list = useLoad(() => api.get('/api/helpdesk/teams', { params: { query: { page: f.page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(search ? { search } : {}) } } }), [f.page, search])
  return (
    <Page
      title="Helpdesk teams"
      actions={
        admin && (
          <Link className="button primary" to="/helpdesk/teams/new">
            New team
          </Link>
        )
      }
    >
      <HelpdeskTabs />
      <Card>
        <div className="filters" role="search" aria-label="Filter teams">
          <Field label="Search">
            <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Team name" />
          </Field>
        </div>
        <ErrorMessage error={agents.error} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Teams"
          rowKey={(t) => t.id}
          empty={search ? 'No team matches this search.' : admin ? 'No teams yet: create one with New team.' : 'No teams yet: an admin creates them.'}
          columns={[
            { label: 'Team', cell: (t) => (admin ? <Link to={`/helpdesk/teams/${t.id}`}>{t.name}</Link> : t.name) },
            { label: 'Members', cell: (t) => memberNames(t, agents.data, me.user.id) },
            { label: 'Created', cell: (t) => date(t.createdAt) },
            ...(admin
              ? [
                  {
                    label: 'Actions',
                    cell: (t: Team) => (
                      <ActionButton variant="danger" confirm={`Delete the team ${t.name}? Its tickets are left without a team.`} action={() => api.delete('/api/helpdesk/teams/{id}', { params: { path: { id: t.id } } })} done={`Team ${t.name} deleted.`} onDone={list.reload}>
                        Delete <span className="visually-hidden">{t.name}</span>
                      </ActionButton>
                    ),
                  },
                ]
              : []),
          ]}
        />
      </Card>
    </Page>
  )
}

/** Checkboxes of the agents by name; `name` puts each chosen id into the form's data. */
function MemberChecks({ agents, chosen }: { agents: User[]; chosen: string[] }) {
  return (
    <fieldset className="group">
      <legend>Members</legend>
      {agents.length === 0 ? (
        <p className="muted">No user has an agent role (admin, support, agent): give one that role in Users and roles.</p>
      ) : (
        <div className="row">
          {agents.map((u) => (
            <label key={u.id} className="check">
              <input type="checkbox" name="memberIds" value={u.id} defaultChecked={chosen.includes(u.id)} />
              {u.name} <span className="muted">({u.role})</span>
            </label>
          ))}
        </div>
      )}
    </fieldset>
  )
}

/** A new team (no `:teamId`) or a team's page: its name and members; admins only (the menu links here only for them). */
export function TeamEdit() {
  const { api } = useSession()
  const { teamId } = useParams()
  const navigate = useNavigate()
  const agents = useAgents()
  const team = useLoad(async () => (teamId ? api.get('/api/helpdesk/teams/{id}', { params: { path: { id: teamId } } }) : null), [teamId])
  const t = team.data
  const title = teamId ? (t ? `Team ${t.name}` : 'Team') : 'New team'
  const memberIdsOf = (data: FormData) => data.getAll('memberIds').map(String)
  // Members the admin's list does not hold (not an agent any more): kept, and said.
  const unknown = t ? t.memberIds.filter((id) => !agents.data?.some((u) => u.id === id)) : []
  return (
    <Page
      title={title}
      actions={
        t && (
          <ActionButton variant="danger" confirm={`Delete the team ${t.name}? Its tickets are left without a team.`} action={() => api.delete('/api/helpdesk/teams/{id}', { params: { path: { id: t.id } } })} done={`Team ${t.name} deleted.`} onDone={() => navigate('/helpdesk/teams')}>
            Delete team
          </ActionButton>
        )
      }
    >
      <HelpdeskTabs />
      <ErrorMessage error={team.error ?? agents.error} />
      {(!agents.data || team.loading) && !team.error && !agents.error && <Loading />}
      {agents.data && !team.loading && (!teamId || t) && (
        <Card>
          <Form
            key={t?.updatedAt ?? 'new'}
            label={teamId ? 'Edit team' : 'New team'}
            submitLabel={teamId ? 'Save changes' : 'Create team'}
            submit={(data) => {
              const name = formFields(data).name ?? ''
              const memberIds = [...memberIdsOf(data), ...unknown]
              return t ? api.patch('/api/helpdesk/teams/{id}', { params: { path: { id: t.id } }, body: { name, memberIds } }) : api.post('/api/helpdesk/teams', { body: { name, memberIds } })
            }}
            onDone={(saved) => {
              toast(teamId ? `Team ${saved.name} saved.` : `Team ${saved.name} created.`)
              if (teamId) team.reload()
              else navigate('/helpdesk/teams')
            }}
          >
            <Field label="Name">
              <input name="name" required maxLength={200} defaultValue={t?.name} />
            </Field>
            <MemberChecks agents={agents.data} chosen={t?.memberIds ?? []} />
            {unknown.length > 0 && <p className="muted">{unknown.length} member(s) no longer in the list of agents are kept.</p>}
          </Form>
        </Card>
      )}
      <p>
        <Link to="/helpdesk/teams">Back to the teams</Link>
      </p>
    </Page>
  )
}

// ---------------------------------------------------------------- SLA policies

/** Hours as the API gives them, in words: "4 h 30 min", "45 min", "1 s". */
export function duration(hours: number): string {
  const totalSeconds = Math.round(hours * 3600)
  if (totalSeconds < 60) return `${totalSeconds} s`
  const h = Math.floor(totalSeconds / 3600)
  const m = Math.round((totalSeconds - h * 3600) / 60)
  return [h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean).join(' ')
}

/** Hours and minutes typed in two fields as the API's hours (a positive number); an Error naming the duration otherwise. */
export function hoursOf(hoursText: string | undefined, minutesText: string | undefined, label: string): number {
  const h = hoursText ? Number(hoursText) : 0
  const m = minutesText ? Number(minutesText) : 0
  if (!Number.isInteger(h) || h < 0 || !Number.isInteger(m) || m < 0 || m > 59) throw new Error(`${label}: whole hours, and minutes from 0 to 59.`)
  const hours = h + m / 60
  if (hours <= 0) throw new Error(`${label}: more than 0 minutes.`)
  if (hours > 87_600) throw new Error(`${label}: at most 87,600 hours (10 years).`)
  return hours
}

/** Two fields, hours and minutes, for one duration of a policy; its default value split from the API's hours. */
function DurationFields({ name, label, hours }: { name: string; label: string; hours?: number }) {
  const minutes = hours === undefined ? undefined : Math.round(hours * 60)
  return (
    <fieldset className="group">
      <legend>{label}</legend>
      <div className="row">
        <Field label={`${label}: hours`}>
          <input name={`${name}H`} type="number" min={0} max={87600} step={1} inputMode="numeric" defaultValue={minutes === undefined ? undefined : Math.floor(minutes / 60)} />
        </Field>
        <Field label={`${label}: minutes`}>
          <input name={`${name}M`} type="number" min={0} max={59} step={1} inputMode="numeric" defaultValue={minutes === undefined ? undefined : minutes % 60} />
        </Field>
      </div>
    </fieldset>
  )
}

export function SlaView() {
  const { api, role } = useSession()
  const admin = role === 'admin'
  const policies = useLoad(() => api.get('/api/helpdesk/sla'), [])
  return (
    <Page
      title="SLA policies"
      actions={
        admin && (
          <Link className="button primary" to="/helpdesk/sla/new">
            New policy
          </Link>
        )
      }
    >
      <HelpdeskTabs />
      <Card>
        <p className="muted">A new ticket takes the oldest policy that holds its priority (the list is oldest first); its deadlines count from the ticket's creation.</p>
        <ErrorMessage error={policies.error} />
        {!policies.data && !policies.error && <Loading />}
        {policies.data && (
          <Table
            caption="SLA policies"
            rows={policies.data}
            rowKey={(p) => p.id}
            empty={admin ? 'No SLA policies yet: tickets have no deadlines. Create one with New policy.' : 'No SLA policies yet: tickets have no deadlines.'}
            columns={[
              { label: 'Policy', cell: (p) => (admin ? <Link to={`/helpdesk/sla/${p.id}`}>{p.name}</Link> : p.name) },
              { label: 'Priorities', cell: (p) => <span className="badges">{p.applies.map((a) => <Badge key={a}>{a}</Badge>)}</span> },
              { label: 'First response within', cell: (p) => duration(p.firstResponseHours) },
              { label: 'Resolution within', cell: (p) => duration(p.resolutionHours) },
              { label: 'Created', cell: (p) => date(p.createdAt) },
              ...(admin
                ? [
                    {
                      label: 'Actions',
                      cell: (p: Policy) => (
                        <ActionButton variant="danger" confirm={`Delete the SLA policy ${p.name}? Tickets keep the deadlines they were given; new ones of its priorities take the next policy, or none.`} action={() => api.delete('/api/helpdesk/sla/{id}', { params: { path: { id: p.id } } })} done={`SLA policy ${p.name} deleted.`} onDone={policies.reload}>
                          Delete <span className="visually-hidden">{p.name}</span>
                        </ActionButton>
                      ),
                    },
                  ]
                : []),
            ]}
          />
        )}
      </Card>
    </Page>
  )
}

export function SlaEdit() {
  const { api } = useSession()
  const { policyId } = useParams()
  const navigate = useNavigate()
  // No GET of one policy: the list (a bare array) holds it.
  const policies = useLoad(async () => (policyId ? api.get('/api/helpdesk/sla') : []), [policyId])
  const p = policyId ? policies.data?.find((x) => x.id === policyId) : undefined
  const missing = policyId && policies.data && !p
  return (
    <Page
      title={policyId ? (p ? `SLA policy ${p.name}` : 'SLA policy') : 'New SLA policy'}
      actions={
        p && (
          <ActionButton variant="danger" confirm={`Delete the SLA policy ${p.name}? Tickets keep the deadlines they were given.`} action={() => api.delete('/api/helpdesk/sla/{id}', { params: { path: { id: p.id } } })} done={`SLA policy ${p.name} deleted.`} onDone={() => navigate('/helpdesk/sla')}>
            Delete policy
          </ActionButton>
        )
      }
    >
      <HelpdeskTabs />
      <ErrorMessage error={policies.error} />
      {missing && <ErrorMessage error={new Error('This SLA policy was not found: it may have been deleted.')} />}
      {policies.loading && !policies.error && <Loading />}
      {!policies.loading && (!policyId || p) && (
        <Card>
          <Form
            key={p?.updatedAt ?? 'new'}
            label={p ? 'Edit SLA policy' : 'New SLA policy'}
            submitLabel={p ? 'Save changes' : 'Create policy'}
            submit={async (data) => {
              const f = formFields(data)
              const applies = data.getAll('applies').map(String) as Priority[]
              if (applies.length === 0) throw new Error('Choose at least one priority the policy applies to.')
              const body = { name: f.name ?? '', firstResponseHours: hoursOf(f.firstH, f.firstM, 'First response'), resolutionHours: hoursOf(f.resolutionH, f.resolutionM, 'Resolution'), applies }
              return p ? api.patch('/api/helpdesk/sla/{id}', { params: { path: { id: p.id } }, body }) : api.post('/api/helpdesk/sla', { body })
            }}
            onDone={(saved) => {
              toast(p ? `SLA policy ${saved.name} saved.` : `SLA policy ${saved.name} created.`)
              if (p) policies.reload()
              else navigate('/helpdesk/sla')
            }}
          >
            <Field label="Name">
              <input name="name" required maxLength={200} defaultValue={p?.name} />
            </Field>
            <fieldset className="group">
              <legend>Applies to the priorities</legend>
              <div className="row">
                {PRIORITIES.map((x) => (
                  <label key={x} className="check">
                    <input type="checkbox" name="applies" value={x} defaultChecked={p?.applies.includes(x)} />
                    {x}
                  </label>
                ))}
              </div>
            </fieldset>
            <DurationFields name="first" label="First response" hours={p?.firstResponseHours} />
            <DurationFields name="resolution" label="Resolution" hours={p?.resolutionHours} />
            {p && <p className="muted">Tickets already open keep the deadlines they were given.</p>}
          </Form>
        </Card>
      )}
      <p>
        <Link to="/helpdesk/sla">Back to the SLA policies</Link>
      </p>
    </Page>
  )
}

// ---------------------------------------------------------------- statistics

const percent = (share: number) => new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 }).format(share)
const number = (n: number, digits = 2) => new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(n)

function Kpi({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="kpi" role="group" aria-label={label}>
      <div className="kpi-label">{label}</div>
      <div className="kpi-value">{value}</div>
      {hint && <div className="muted small">{hint}</div>}
    </div>
  )
}

export function StatsView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const from = f.get('from')
  const to = f.get('to')
  const teamId = f.get('teamId')
  const teams = useTeams()
  const stats = useLoad(() => api.get('/api/helpdesk/stats', { params: { query: { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(teamId ? { teamId } : {}) } } }), [from, to, teamId])
  const s = stats.data
  return (
    <Page title="Helpdesk statistics">
      <HelpdeskTabs />
      <Card>
        <div className="filters" role="search" aria-label="Period and team">
          <Field label="From" hint="First day (UTC); 30 days by default">
            <input type="date" value={from} onChange={(e) => f.set('from', e.target.value)} />
          </Field>
          <Field label="To" hint="Last day, included; today by default">
            <input type="date" value={to} onChange={(e) => f.set('to', e.target.value)} />
          </Field>
          <Field label="Team">
            <select value={teamId} onChange={(e) => f.set('teamId', e.target.value)}>
              <option value="">every team</option>
              {(teams.data ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <ErrorMessage error={teams.error} />
      </Card>
      <ErrorMessage error={stats.error} />
      {!s && !stats.error && <Loading />}
      {s && (
        <Card title={`From ${date(s.period.from)} to ${date(s.period.to)}`}>
          <div className="kpis" data-testid="helpdesk-stats">
            <Kpi label="Tickets created" value={String(s.ticketsCreated)} />
            <Kpi label="Tickets closed" value={String(s.ticketsClosed)} hint="Closed in the period and not reopened" />
            <Kpi label="Average first response" value={s.avgFirstResponseMinutes === null ? '—' : `${number(s.avgFirstResponseMinutes)} min`} hint="Created in the period and answered" />
            <Kpi label="Average resolution" value={s.avgResolutionHours === null ? '—' : `${number(s.avgResolutionHours)} h`} hint="Created in the period and closed" />
            <Kpi label="SLA breached" value={percent(s.slaBreachRate)} hint="Of the tickets created in the period with an SLA" />
            <Kpi label="Customer satisfaction" value={s.csat === null ? '—' : `${number(s.csat)} / 5`} hint="Mean of the ratings given in the period" />
          </div>
          <h3>Tickets created by priority</h3>
          {s.ticketsCreated === 0 ? (
            <Empty>No ticket was created in this period.</Empty>
          ) : (
            <Table caption="Tickets created by priority" rows={PRIORITIES.map((p) => ({ p, n: s.byPriority[p] }))} rowKey={(r) => r.p} empty="" columns={[{ label: 'Priority', cell: (r) => r.p }, { label: 'Tickets', cell: (r) => r.n, align: 'right' }]} />
          )}
        </Card>
      )}
    </Page>
  )
}
