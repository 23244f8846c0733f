// Fills a demo organization with realistic records through the API itself (so
// every rule applies) and prints a login and a test API key. Uses the same
// configuration as `npm start` (DATABASE_URL or DATA_DIR). On PostgreSQL it
// works while the server runs. The embedded database belongs to one process at
// a time: while `npm start` holds it, the seed refuses at once and says so.
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { DatabaseInUseError } from '../src/core/db.ts'
import type { App } from '../src/core/module.ts'

const EMAIL = process.env.SEED_EMAIL ?? 'demo@example.com'
const PASSWORD = process.env.SEED_PASSWORD ?? 'demo-password-2026'

let app: App
try {
  app = await buildApp(loadConfig({ ...process.env, JOBS: 'off', RATE_LIMIT: 'off', LOG_LEVEL: 'warn' }), { logger: false })
} catch (err) {
  if (!(err instanceof DatabaseInUseError)) throw err
  console.error(`${err.message}\nTo seed the embedded database: stop the server, run \`npm run seed\`, then \`npm start\` again.`)
  process.exit(1)
}

let token = ''
async function api<T = any>(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown): Promise<T> {
  const res = await app.inject({ method, url: `/api${url}`, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload: payload as object } : {}) })
  if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json() as T
}

/** Calls a module's route only when that module is installed (404 on its path otherwise). */
async function optional(label: string, fn: () => Promise<void>) {
  try {
    await fn()
  } catch (err) {
    if (/: 404 .*Route/.test((err as Error).message)) console.log(`  (${label}: module not installed, skipped)`)
    else throw err
  }
}

const pick = <T>(list: T[], i: number) => list[i % list.length]

try {
  const existing = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: EMAIL, password: PASSWORD } })
  if (existing.statusCode === 200) {
    token = existing.json().accessToken
    console.log('The demo organization exists already; making a new API key.')
  } else {
    const reg = await api('POST', '/auth/register', { organizationName: 'Northwind Trading', name: 'Dana Demo', email: EMAIL, password: PASSWORD })
    token = reg.accessToken
    console.log(`Seeding organization ${reg.organization.name} (${reg.organization.id})`)

    const users: Record<string, { id: string }> = {}
    for (const [name, role] of [['Sam Seller', 'member'], ['Sue Support', 'support'], ['Abe Agent', 'agent'], ['Cora Customer', 'customer']] as const) {
      users[role] = await api('POST', '/users', { name, email: `${role}.${EMAIL}`, password: PASSWORD, role })
    }

    const companies = ['Acme Corp', 'Globex', 'Initech', 'Umbrella Supplies', 'Stark Industries', 'Wayne Enterprises', 'Hooli', 'Vandelay Imports', 'Soylent Foods', 'Tyrell Systems']
    const contacts: { id: string }[] = []
    for (let i = 0; i < 40; i++) {
      const company = i < 30
      const name = company ? `${pick(companies, i)}${i >= 10 ? ` ${Math.floor(i / 10) + 1}` : ''}` : `Person ${i}`
      const vendor = i % 7 === 0
      contacts.push(
        await api('POST', '/contacts', {
          name,
          email: `contact${i}@${company ? name.toLowerCase().replace(/[^a-z]+/g, '') : 'mail'}.example`,
          phone: `+1 555 01${String(i).padStart(2, '0')}`,
          type: company ? 'company' : 'individual',
          ...(vendor ? { vendor: true, paymentTerms: 'net 30', currency: 'usd', leadTimeDays: 7 + i, minOrderQty: 10 } : {}),
        }),
      )
    }

    const products: { id: string }[] = []
    const catalogue: [string, string, number, string][] = [
      ['Office chair', 'CHAIR-01', 12900, 'storable'], ['Standing desk', 'DESK-02', 45900, 'storable'], ['Monitor 27"', 'MON-27', 21900, 'storable'],
      ['Keyboard', 'KEY-01', 4900, 'storable'], ['Mouse', 'MOU-01', 2500, 'storable'], ['Desk lamp', 'LAMP-01', 3900, 'storable'],
      ['Printer paper (box)', 'PAP-500', 1200, 'consumable'], ['Toner', 'TON-01', 6500, 'consumable'], ['Installation service', 'SRV-INST', 15000, 'service'],
      ['Consulting hour', 'SRV-HOUR', 12000, 'service'],
    ]
    for (const [name, sku, price, type] of catalogue) {
      products.push(await api('POST', '/products', { name, sku, price, type, currency: 'usd', cost: Math.round(price * 0.6), reorderPoint: type === 'storable' ? 5 : 0 }))
    }
    const connectors: { id: string; erpVersion: string }[] = []
    for (const erp of ['17.0', '18.0', '19.0']) {
      connectors.push(await api('POST', '/products', { name: `Marketplace Connector (ERP ${erp})`, sku: `CONN-MKT-${erp}`, price: 49900, currency: 'usd', type: 'service', moduleName: 'marketplace_connector', erpVersion: erp, billing: 'one_time', activationsLimit: 1 }))
      await api('POST', '/products', { name: `Multi-country Connector (ERP ${erp})`, sku: `CONN-MC-${erp}`, price: 24900, currency: 'usd', type: 'service', moduleName: 'multi_country_connector', erpVersion: erp, billing: 'one_time', activationsLimit: 1 })
    }

    await optional('licenses', async () => {
      const license = await api('POST', '/admin/licenses', { productId: connectors[2].id, userId: users.customer.id, activationsLimit: 2 })
      console.log(`  License for ${users.customer.id} (customer.${EMAIL}), ERP ${connectors[2].erpVersion}: ${license.key}`)
    })

    const employees: { id: string }[] = []
    for (const [i, [name, department, jobTitle]] of [
      ['Sam Seller', 'Sales', 'Account executive'], ['Rita Rep', 'Sales', 'Sales representative'], ['Omar Ops', 'Operations', 'Warehouse lead'],
      ['Priya Projects', 'Services', 'Project manager'], ['Ken Consultant', 'Services', 'Consultant'], ['Fay Finance', 'Finance', 'Accountant'],
    ].entries()) {
      employees.push(await api('POST', '/employees', { name, department, jobTitle, email: `${name.split(' ')[0].toLowerCase()}@northwind.example`, hireDate: `202${i % 5}-0${(i % 9) + 1}-15` }))
    }

    await optional('quotations and invoices', async () => {
      for (let i = 0; i < 12; i++) {
        const lineItems = [0, 1, 2].slice(0, (i % 3) + 1).map((k) => ({ productId: pick(products, i + k).id, quantity: (k + 1) * 2, unitPrice: 10000 + 2500 * k, discount: k === 1 ? 10 : 0 }))
        const q = await api('POST', '/sales/quotations', { contactId: pick(contacts, i).id, salespersonId: pick(employees, i % 2).id, currency: 'usd', lineItems })
        if (i % 3 === 0) continue
        const confirmed = await api('POST', `/sales/quotations/${q.id}/confirm`)
        const orderId = confirmed.orderId ?? confirmed.order?.id ?? confirmed.id
        if (i % 3 === 2 && orderId) {
          const inv = await api('POST', `/orders/${orderId}/invoice`, {})
          await api('POST', `/invoices/${inv.id}/send`, { subject: 'Your invoice', message: 'Thank you for your order.' })
          await api('POST', `/invoices/${inv.id}/pay`, { amount: i % 2 ? inv.total : Math.floor(inv.total / 2), currency: 'usd', method: 'bank_transfer', reference: `PAY-${i}` })
        }
      }
    })
  }

  const key = await api('POST', '/api-keys', { name: 'demo key', environment: app.ctx.config.apiEnv })
  console.log(`
Demo organization ready.
  Log in:   POST /api/auth/login  {"email": "${EMAIL}", "password": "${PASSWORD}"}
  API key:  ${key.key}
  Try:      curl -H "Authorization: Bearer ${key.key}" http://localhost:${app.ctx.config.port}/api/contacts
`)
} finally {
  await app.close()
}
