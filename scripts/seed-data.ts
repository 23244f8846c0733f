// The demo company of `npm run seed`, as a function of an app: scripts/seed.ts
// runs it on the configured database, and the e2e test of the seed's
// screenshots (test/e2e/seed-screenshots.e2e.test.ts) on its own app. Through
// the API itself (app.inject, so every rule applies): users of every role,
// customers and vendors, the two connector products of SPEC 4.11 with their
// builds, quotations and invoices in every state, stock, purchases,
// manufacturing, projects, a helpdesk, licenses and a checkout.
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'

export const SEED_EMAIL = 'demo@example.com'
export const SEED_PASSWORD = 'demo-password-2026'

export interface SeedOptions {
  /** The admin's e-mail; the other users' are `<role>.<email>` (default SEED_EMAIL). */
  email?: string
  /** Every user's password (default SEED_PASSWORD). */
  password?: string
  /** Where progress lines go (default console.log). */
  log?: (line: string) => void
}

/** The user of each role, [role, name, e-mail]; the admin registers the organization. */
export function seedUsers(email = SEED_EMAIL) {
  return [
    ['admin', 'Dana Demo', email],
    ['member', 'Sam Seller', `member.${email}`],
    ['support', 'Sue Support', `support.${email}`],
    ['agent', 'Abe Agent', `agent.${email}`],
    ['customer', 'Cora Customer', `customer.${email}`],
  ] as const
}

type Method = 'GET' | 'POST' | 'PATCH'

const pick = <T>(list: T[], i: number) => list[i % list.length]
/** A date `offset` days from today (UTC), YYYY-MM-DD. */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

// ------------------------------------------------------------ module builds

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
function crc32(data: Buffer) {
  let c = 0xffffffff
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** A ZIP archive (stored, not compressed) of the given text files. */
function zip(files: Record<string, string>) {
  const local: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const [path, text] of Object.entries(files)) {
    const name = Buffer.from(path)
    const data = Buffer.from(text)
    const crc = crc32(data)
    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(20, 4) // version needed
    header.writeUInt16LE(0x0800, 6) // UTF-8 names
    header.writeUInt16LE(0x21, 12) // 1980-01-01
    header.writeUInt32LE(crc, 14)
    header.writeUInt32LE(data.length, 18)
    header.writeUInt32LE(data.length, 22)
    header.writeUInt16LE(name.length, 26)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02014b50, 0)
    entry.writeUInt16LE(20, 4)
    entry.writeUInt16LE(20, 6)
    entry.writeUInt16LE(0x0800, 8)
    entry.writeUInt16LE(0x21, 14)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(data.length, 20)
    entry.writeUInt32LE(data.length, 24)
    entry.writeUInt16LE(name.length, 28)
    entry.writeUInt32LE(offset, 42)
    local.push(header, name, data)
    central.push(entry, name)
    offset += header.length + name.length + data.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(central.length / 2, 8)
  end.writeUInt16LE(central.length / 2, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...local, directory, end])
}

function multipart(fields: Record<string, string>, file: { name: string; filename: string; content: Buffer }) {
  const boundary = `----seed${randomBytes(8).toString('hex')}`
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: application/zip\r\n\r\n`),
    file.content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  )
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

/** The installable module: an ERP addon folder with its manifest. */
function moduleZip(moduleName: string, title: string, version: string, summary: string) {
  return zip({
    [`${moduleName}/__init__.py`]: 'from . import models\n',
    [`${moduleName}/models/__init__.py`]: 'from . import connection\n',
    [`${moduleName}/models/connection.py`]: `# ${title}: the connection record and its scheduled actions (SPEC 4.11).\n`,
    [`${moduleName}/__manifest__.py`]: `{\n    'name': '${title}',\n    'version': '${version}',\n    'summary': '${summary}',\n    'license': 'OPL-1',\n    'depends': ['sale_management', 'stock', 'account'],\n    'installable': True,\n}\n`,
    [`${moduleName}/README.md`]: `# ${title} ${version}\n\n${summary}\n\nEnter your license key in Settings after installing.\n`,
  })
}

/**
 * Fills the app with the demo organization, unless its admin can sign in already
 * (then nothing is written). Answers whether it seeded and an access token of the
 * admin.
 */
export async function seed(app: App, opts: SeedOptions = {}): Promise<{ seeded: boolean; token: string }> {
  const EMAIL = opts.email ?? SEED_EMAIL
  const PASSWORD = opts.password ?? SEED_PASSWORD
  const ROLES = seedUsers(EMAIL)
  const log = opts.log ?? ((line: string) => console.log(line))
  let token = ''
  async function request<T = any>(method: Method, url: string, opts: { payload?: unknown; as?: string | null; headers?: Record<string, string> } = {}): Promise<T> {
    const bearer = opts.as === undefined ? token : opts.as
    const res = await app.inject({
      method,
      url: `/api${url}`,
      headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...opts.headers },
      ...(opts.payload !== undefined ? { payload: opts.payload as object } : {}),
    })
    if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
    return (res.statusCode === 204 || !res.body ? undefined : String(res.headers['content-type']).includes('json') ? res.json() : res.body) as T
  }
  const api = <T = any>(method: Method, url: string, payload?: unknown) => request<T>(method, url, { payload })

  /** Calls a module's routes only when that module is installed (404 on its path otherwise). */
  async function optional(label: string, fn: () => Promise<void>) {
    try {
      await fn()
    } catch (err) {
      if (/: 404 .*Route/.test((err as Error).message)) log(`  (${label}: module not installed, skipped)`)
      else throw err
    }
  }

  const existing = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: EMAIL, password: PASSWORD } })
  if (existing.statusCode === 200) return { seeded: false, token: existing.json().accessToken as string }

  const reg = await api('POST', '/auth/register', { organizationName: 'Northwind Trading', name: ROLES[0][1], email: EMAIL, password: PASSWORD })
  token = reg.accessToken
  log(`Seeding organization ${reg.organization.name} (${reg.organization.id})`)

  await api('PATCH', '/organization', {
    legalName: 'Northwind Trading LLC',
    address: { lines: ['200 Harbor Street', 'Suite 4'], city: 'Portland', postalCode: '97204', country: 'US' },
    taxId: 'US-93-1234567',
    email: 'billing@northwind.example',
    phone: '+1 503 555 0100',
    paymentInstructions: 'Bank transfer to Northwind Trading LLC, account 1234 5678 90, routing 123000848. Please quote the invoice number.',
  })

  const users: Record<string, { id: string }> = {}
  for (const [role, name, email] of ROLES.slice(1)) users[role] = await api('POST', '/users', { name, email, password: PASSWORD, role })

  // ---------------------------------------------------------------- contacts
  const companies = ['Acme Corp', 'Globex', 'Initech', 'Umbrella Supplies', 'Stark Industries', 'Wayne Enterprises', 'Hooli', 'Vandelay Imports', 'Soylent Foods', 'Tyrell Systems']
  const cities: [string, string, string][] = [['Chicago', '60601', 'US'], ['Springfield', '62701', 'US'], ['Austin', '73301', 'US'], ['Toronto', 'M5H 2N2', 'CA'], ['New York', '10001', 'US'], ['Gotham', '07001', 'US'], ['Palo Alto', '94301', 'US'], ['London', 'EC1A 1BB', 'GB'], ['Berlin', '10115', 'DE'], ['Los Angeles', '90001', 'US']]
  const contacts: { id: string; name: string }[] = []
  for (let i = 0; i < 40; i++) {
    const company = i < 30
    const name = company ? `${pick(companies, i)}${i >= 10 ? ` ${Math.floor(i / 10) + 1}` : ''}` : `Person ${i}`
    const vendor = i % 7 === 0
    const [city, postalCode, country] = pick(cities, i)
    contacts.push(
      await api('POST', '/contacts', {
        name,
        email: `contact${i}@${company ? name.toLowerCase().replace(/[^a-z]+/g, '') : 'mail'}.example`,
        phone: `+1 555 01${String(i).padStart(2, '0')}`,
        type: company ? 'company' : 'individual',
        address: { lines: [`${100 + i * 7} Main Street`], city, postalCode, country },
        ...(vendor ? { vendor: true, paymentTerms: 'net 30', currency: 'usd', leadTimeDays: 7 + i, minOrderQty: 10 } : {}),
      }),
    )
  }
  // The customer user's own contact: the helpdesk shows a customer the tickets of the contact with its e-mail.
  const cora = await api('POST', '/contacts', { name: 'Cora Customer', email: `customer.${EMAIL}`, phone: '+1 555 0199', type: 'individual', address: { lines: ['12 Elm Road'], city: 'Denver', postalCode: '80202', country: 'US' } })

  // ---------------------------------------------------------------- products
  const catalogue: [string, string, number, string][] = [
    ['Office chair', 'CHAIR-01', 12900, 'storable'], ['Standing desk', 'DESK-02', 45900, 'storable'], ['Monitor 27"', 'MON-27', 21900, 'storable'],
    ['Keyboard', 'KEY-01', 4900, 'storable'], ['Mouse', 'MOU-01', 2500, 'storable'], ['Desk lamp', 'LAMP-01', 3900, 'storable'],
    ['Printer paper (box)', 'PAP-500', 1200, 'consumable'], ['Toner', 'TON-01', 6500, 'consumable'], ['Installation service', 'SRV-INST', 15000, 'service'],
    ['Consulting hour', 'SRV-HOUR', 12000, 'service'],
  ]
  const products: { id: string; name: string; price: number }[] = []
  for (const [name, sku, price, type] of catalogue) {
    products.push(await api('POST', '/products', { name, sku, price, type, currency: 'usd', cost: Math.round(price * 0.6), reorderPoint: type === 'storable' ? 5 : 0 }))
  }
  const [chair, desk, monitor, keyboard, mouse, lamp, , , installation, consulting] = products
  const workstation = await api('POST', '/products', { name: 'Home-office workstation', sku: 'WS-HOME', price: 89900, type: 'storable', currency: 'usd', cost: 52000, reorderPoint: 2, description: 'Standing desk, chair, two 27" monitors, keyboard and mouse, assembled and tested.' })

  // The two connectors of SPEC 4.11: one product per ERP version, one-time, 499 and 249 USD; module versions 2.0.0 and 1.0.2 (SPEC 9.2).
  const connectorSpecs = [
    { title: 'Marketplace Connector', moduleName: 'marketplace_connector', sku: 'CONN-MKT', price: 49900, moduleVersion: '2.0.0', summary: 'Sync products, orders, customers and stock with external marketplaces.' },
    { title: 'Multi-country Connector', moduleName: 'multi_country_connector', sku: 'CONN-MC', price: 24900, moduleVersion: '1.0.2', summary: 'One connection per country shop, with per-country taxes and currencies.' },
  ]
  const connectors: Record<string, { id: string; name: string; erpVersion: string; moduleName: string }> = {}
  for (const spec of connectorSpecs) {
    for (const erp of ['17.0', '18.0', '19.0']) {
      const product = await api('POST', '/products', { name: `${spec.title} (ERP ${erp})`, sku: `${spec.sku}-${erp}`, price: spec.price, currency: 'usd', type: 'service', moduleName: spec.moduleName, erpVersion: erp, billing: 'one_time', activationsLimit: 1, description: spec.summary })
      connectors[`${spec.moduleName}@${erp}`] = product
      await optional('module builds', async () => {
        const version = `${erp}.${spec.moduleVersion}`
        const form = multipart({ version }, { name: 'file', filename: `${spec.moduleName}-${version}.zip`, content: moduleZip(spec.moduleName, spec.title, version, spec.summary) })
        await request('POST', `/products/${product.id}/builds`, form)
      })
    }
  }

  // --------------------------------------------------------------- employees
  const employees: { id: string }[] = []
  for (const [i, [name, department, jobTitle]] of [
    ['Sam Seller', 'Sales', 'Account executive'], ['Rita Rep', 'Sales', 'Sales representative'], ['Omar Ops', 'Operations', 'Warehouse lead'],
    ['Priya Projects', 'Services', 'Project manager'], ['Ken Consultant', 'Services', 'Consultant'], ['Fay Finance', 'Finance', 'Accountant'],
  ].entries()) {
    employees.push(await api('POST', '/employees', { name, department, jobTitle, email: `${name.split(' ')[0].toLowerCase()}@northwind.example`, hireDate: `202${i % 5}-0${(i % 9) + 1}-15` }))
  }
  const [sam, rita, omar, priya, ken] = employees

  // ---------------------------------------------------------------- purchase: the stock comes in through purchase orders
  await optional('purchase', async () => {
    const vendor = async (name: string, domain: string, leadTimeDays: number, prices: [{ id: string }, number, number?][]) => {
      const v = await api('POST', '/purchase/vendors', { name, email: `orders@${domain}`, phone: '+1 555 0300', type: 'company', paymentTerms: 'net 30', currency: 'usd', leadTimeDays, minOrderQty: 1 })
      for (const [product, price, minQty] of prices) await api('POST', `/purchase/vendors/${v.id}/pricelists`, { productId: product.id, price, ...(minQty ? { minQty } : {}) })
      return v
    }
    const ergo = await vendor('Ergo Furniture Supply', 'ergofurniture.example', 10, [[chair, 7500], [desk, 27000], [lamp, 2200]])
    const pixel = await vendor('PixelView Displays', 'pixelview.example', 14, [[monitor, 13000], [monitor, 12500, 20]])
    const keystone = await vendor('Keystone Peripherals', 'keystone.example', 5, [[keyboard, 2800], [mouse, 1400]])

    const rfq = (vendorId: string, lines: [{ id: string }, number][], expectedArrival: number, notes?: string) =>
      api('POST', '/purchase/rfqs', { vendorId, expectedArrival: day(expectedArrival), lineItems: lines.map(([p, quantity]) => ({ productId: p.id, quantity })), ...(notes ? { notes } : {}) })
    const receiveAll = async (po: { id: string; lineItems: { productId: string; quantity: number }[] }, daysAgo: number) =>
      api('POST', `/purchase/orders/${po.id}/receive`, { receiptDate: day(-daysAgo), lines: po.lineItems.map((l) => ({ productId: l.productId, receivedQty: l.quantity })) })

    const furniture = await rfq(ergo.id, [[chair, 40], [desk, 15], [lamp, 4]], -20, 'Deliver to the loading dock, weekdays 8-16.')
    await api('POST', `/purchase/rfqs/${furniture.id}/send`, {})
    await receiveAll(await api('POST', `/purchase/rfqs/${furniture.id}/confirm`), 21)
    await api('POST', `/purchase/orders/${furniture.id}/bill`, { vendorInvoiceNumber: 'EFS-2026-0412', invoiceDate: day(-20) })
    const screens = await rfq(pixel.id, [[monitor, 30]], -14)
    await receiveAll(await api('POST', `/purchase/rfqs/${screens.id}/confirm`), 15)
    await api('POST', `/purchase/orders/${screens.id}/bill`, { vendorInvoiceNumber: 'PV-88231', invoiceDate: day(-14) })
    const peripherals = await rfq(keystone.id, [[keyboard, 20], [mouse, 10]], -8)
    await receiveAll(await api('POST', `/purchase/rfqs/${peripherals.id}/confirm`), 8)
    // Partly received: the rest waits as a ready receipt in inventory.
    const restock = await rfq(ergo.id, [[chair, 20], [desk, 10]], 3)
    await api('POST', `/purchase/rfqs/${restock.id}/confirm`)
    await api('POST', `/purchase/orders/${restock.id}/receive`, { lines: [{ productId: chair.id, receivedQty: 10, notes: 'Second pallet follows next week' }] })
    await api('POST', `/purchase/rfqs/${(await rfq(pixel.id, [[monitor, 20]], 20)).id}/send`, {})
    await rfq(keystone.id, [[keyboard, 30], [mouse, 40]], 25, 'Waiting for the spring price list.')
    await api('POST', `/purchase/rfqs/${(await rfq(ergo.id, [[lamp, 25]], 12)).id}/cancel`)
  })

  // ----------------------------------------------------------- manufacturing
  await optional('manufacturing', async () => {
    const bom = await api('POST', '/manufacturing/boms', {
      name: 'Home-office workstation', productId: workstation.id, quantity: 1,
      components: [[desk, 1], [chair, 1], [monitor, 2], [keyboard, 1], [mouse, 1]].map(([p, quantity]) => ({ productId: (p as { id: string }).id, quantity })),
      operations: [{ name: 'Assemble desk and mount monitors', workcenter: 'Assembly bench', durationMinutes: 40 }, { name: 'Cable management', workcenter: 'Assembly bench', durationMinutes: 15 }, { name: 'Quality check', workcenter: 'QC station', durationMinutes: 10 }],
    })
    const order = (quantity: number, scheduled: number) => api('POST', '/manufacturing/orders', { productId: workstation.id, bomId: bom.id, quantity, scheduledDate: day(scheduled) })
    const workOrders = async (id: string) => (await api('GET', `/manufacturing/orders/${id}/work-orders`)).data as { id: string }[]

    const done = await order(2, -6)
    await api('POST', `/manufacturing/orders/${done.id}/confirm`)
    for (const wo of await workOrders(done.id)) {
      await api('POST', `/manufacturing/orders/${done.id}/work-orders/${wo.id}/start`)
      await api('POST', `/manufacturing/orders/${done.id}/work-orders/${wo.id}/done`, { durationMinutes: 35, notes: 'OK' })
    }
    await api('POST', `/manufacturing/orders/${done.id}/produce`, { qty: 2, lotNumber: `LOT-${day(-5)}` })

    const running = await order(3, -1)
    await api('POST', `/manufacturing/orders/${running.id}/confirm`)
    const [first] = await workOrders(running.id)
    await api('POST', `/manufacturing/orders/${running.id}/work-orders/${first.id}/start`)
    await api('POST', `/manufacturing/orders/${running.id}/produce`, { qty: 1, lotNumber: `LOT-${day(0)}` })

    await api('POST', `/manufacturing/orders/${(await order(2, 4)).id}/confirm`)
    await order(4, 14)
  })

  // --------------------------------------------------------------- inventory
  await optional('inventory', async () => {
    // A delivery done, one ready and waiting to be validated, and a cycle count.
    const delivery = (moves: [{ id: string }, number][], origin: string, scheduled: number) =>
      api('POST', '/inventory/transfers', { type: 'delivery', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-CUSTOMER', scheduledDate: day(scheduled), origin, moves: moves.map(([p, demandQty]) => ({ productId: p.id, demandQty })) })
    const shipped = await delivery([[chair, 3], [keyboard, 2]], 'Acme Corp showroom', -2)
    await api('POST', `/inventory/transfers/${shipped.id}/confirm`)
    await api('POST', `/inventory/transfers/${shipped.id}/validate`, {})
    const waiting = await delivery([[chair, 5], [monitor, 2]], 'Globex office move', 1)
    await api('POST', `/inventory/transfers/${waiting.id}/confirm`)
    await delivery([[desk, 1]], 'Initech sample', 7)
    await api('POST', '/inventory/adjustments', { locationId: 'LOC-STOCK', reason: 'Cycle count: one lamp damaged in storage', lines: [{ productId: lamp.id, realQty: 3 }] })
  })

  // ------------------------------------------------- quotations, orders and invoices
  await optional('quotations and invoices', async () => {
    const plan = ['confirmed', 'draft', 'sent', 'confirmed', 'cancelled', 'confirmed', 'sent', 'confirmed', 'draft', 'confirmed', 'confirmed', 'cancelled', 'confirmed', 'sent'] as const
    const orders: { id: string }[] = []
    for (const [i, status] of plan.entries()) {
      const items = [pick([chair, desk, monitor, workstation, keyboard], i), pick([installation, lamp, consulting], i), pick([mouse, keyboard, monitor], i + 1)]
      const lineItems = items.slice(0, (i % 3) + 1).map((p, k) => ({ productId: p.id, quantity: [4, 2, 10][k] + (i % 4), discount: k === 1 ? 10 : 0 }))
      const q = await api('POST', '/sales/quotations', { contactId: pick(contacts, i * 3).id, salespersonId: pick([sam, rita], i).id, currency: 'usd', validUntil: day(30 - i), lineItems, terms: 'Payment within 30 days of the invoice.' })
      if (status === 'sent' || (status === 'confirmed' && i % 2 === 0) || status === 'cancelled') await api('POST', `/sales/quotations/${q.id}/send`, { subject: `Quotation ${q.reference}`, message: 'As discussed, please find our offer attached.' })
      if (status === 'confirmed') orders.push(await api('POST', `/sales/quotations/${q.id}/confirm`))
      if (status === 'cancelled') await api('POST', `/sales/quotations/${q.id}/cancel`)
    }

    const send = (id: string) => api('POST', `/invoices/${id}/send`, { subject: 'Your invoice', message: 'Thank you for your business.' })
    const pay = (inv: { id: string }, amount: number, ref: string) => api('POST', `/invoices/${inv.id}/pay`, { amount, currency: 'usd', method: 'bank_transfer', reference: ref })
    // Orders invoiced: paid, paid, partly paid, sent, draft, paid; the last two stay to be invoiced.
    for (const [i, state] of (['paid', 'paid', 'partial_paid', 'sent', 'draft', 'paid'] as const).entries()) {
      const inv = await api('POST', `/orders/${orders[i].id}/invoice`, {})
      if (state === 'draft') continue
      await send(inv.id)
      if (state === 'paid') await pay(inv, inv.total, `PAY-${1000 + i}`)
      if (state === 'partial_paid') await pay(inv, Math.floor(inv.total / 2), `PAY-${1000 + i}`)
    }
    // Standalone invoices: two overdue (one partly paid), a cancelled one, one cancelled by a credit note, an open one for consulting.
    const standalone = (contactId: string, lines: [{ id: string }, number][], invoiceDate: number, dueDate: number, notes?: string) =>
      api('POST', '/invoices', { contactId, currency: 'usd', invoiceDate: day(invoiceDate), dueDate: day(dueDate), lineItems: lines.map(([p, quantity]) => ({ productId: p.id, quantity })), ...(notes ? { notes } : {}) })
    const late = await standalone(contacts[5].id, [[consulting, 12]], -50, -20, 'Consulting in March.')
    await send(late.id)
    const latePartPaid = await standalone(contacts[8].id, [[installation, 3], [lamp, 6]], -45, -15)
    await send(latePartPaid.id)
    await pay(latePartPaid, 20000, 'PAY-0999')
    await api('POST', '/admin/jobs/invoices-overdue/run')
    const mistaken = await standalone(contacts[11].id, [[mouse, 5]], -3, 27, 'Issued twice by mistake.')
    await api('POST', `/invoices/${mistaken.id}/cancel`)
    const returned = await standalone(contacts[14].id, [[chair, 2]], -10, 20)
    await send(returned.id)
    await api('POST', `/invoices/${returned.id}/credit-note`, { reason: 'Goods returned in their original packaging.' })
    await send((await standalone(contacts[2].id, [[consulting, 6]], -1, 29, 'Workshop on the marketplace connector.')).id)
  })

  // -------------------------------------------------------------------- projects
  await optional('projects', async () => {
    const project = async (body: Record<string, unknown>, tasks: [string, string, { id: string }, number, [{ id: string }, number, number][]][], milestones: [string, number, number?][], status?: string) => {
      const p = await api('POST', '/projects', body)
      for (const [title, taskStatus, assignee, hoursEstimate, entries] of tasks) {
        const task = await api('POST', `/projects/${p.id}/tasks`, { title, assigneeId: assignee.id, hoursEstimate, priority: hoursEstimate > 10 ? 'high' : 'medium', dueDate: day(Math.round(hoursEstimate)), tags: ['client'] })
        for (const [employee, hours, daysAgo] of entries) await api('POST', `/projects/${p.id}/tasks/${task.id}/timesheets`, { employeeId: employee.id, date: day(-daysAgo), hours, description: title })
        if (taskStatus !== 'todo') await api('PATCH', `/projects/${p.id}/tasks/${task.id}`, { status: taskStatus })
      }
      for (const [name, target, reachedAgo] of milestones) {
        const m = await api('POST', `/projects/${p.id}/milestones`, { name, targetDate: day(target) })
        if (reachedAgo !== undefined) await api('PATCH', `/projects/${p.id}/milestones/${m.id}`, { reachedDate: day(-reachedAgo) })
      }
      if (status) await api('PATCH', `/projects/${p.id}`, { status })
    }
    await project(
      { name: 'Marketplace rollout for Acme Corp', contactId: contacts[0].id, managerId: priya.id, startDate: day(-30), endDate: day(30), hoursBudget: 120, billable: true },
      [
        ['Kick-off workshop', 'done', priya, 4, [[priya, 3.5, 28], [ken, 3.5, 28]]],
        ['Install the connector on ERP 19.0', 'done', ken, 8, [[ken, 6, 21], [ken, 2.5, 20]]],
        ['Map the product catalogue', 'in_review', ken, 16, [[ken, 7.5, 14], [ken, 6, 13], [priya, 1, 12]]],
        ['Configure order and stock sync', 'in_progress', ken, 12, [[ken, 4, 3], [ken, 5.25, 2]]],
        ['Train warehouse staff', 'todo', omar, 6, []],
        ['Go-live checklist', 'blocked', priya, 3, [[priya, 0.75, 1]]],
      ],
      [['Connector installed', -20, 20], ['Catalogue live', 7], ['Go-live', 25]],
    )
    await project(
      { name: 'Warehouse reorganisation', managerId: omar.id, startDate: day(-20), endDate: day(40), hoursBudget: 40 },
      [['Measure the racks', 'done', omar, 4, [[omar, 4, 18]]], ['New bin labels', 'in_progress', omar, 6, [[omar, 2, 6]]]],
      [['Layout approved', -10, 12]],
      'on_hold',
    )
    await project(
      { name: 'Globex ERP health check', contactId: contacts[1].id, managerId: priya.id, startDate: day(-60), endDate: day(-40), hoursBudget: 16, billable: true },
      [['Audit the configuration', 'done', ken, 8, [[ken, 8, 55]]], ['Report and recommendations', 'done', priya, 6, [[priya, 5, 45]]]],
      [['Report delivered', -42, 42]],
      'done',
    )
  })

  // ------------------------------------------------------------------------ CRM
  let captureToken: string | undefined
  await optional('crm', async () => {
    captureToken = (await api('GET', '/crm/capture-settings')).captureToken
    const leads = [
      ['Nadia Novak', 'nadia@brightshop.example', 'Bright Shop', 'We sell on three marketplaces and need one stock figure.'],
      ['Oscar Ortega', 'oscar@ortega-trading.example', 'Ortega Trading', 'Do you support ERP 17.0? We upgrade next year.'],
      ['Lena Lang', 'lena@langwaren.example', 'Langwaren GmbH', 'Pricing for the multi-country connector, 4 country shops.'],
      ['Victor Vale', 'victor@valeoutdoor.example', 'Vale Outdoor', 'Demo of the marketplace connector, please.'],
    ]
    const ids: string[] = []
    for (const [name, email, company, message] of leads) {
      ids.push((await request('POST', '/crm/capture', { as: null, payload: { captureToken, name, email, company, message, source: 'website', phone: '+1 555 0400' } })).id)
    }
    await api('POST', `/crm/leads/${ids[0]}/convert`)
  })

  // The customer user acts for itself on the helpdesk, the license endpoints and the checkout.
  const customer = (await request('POST', '/auth/login', { as: null, payload: { email: `customer.${EMAIL}`, password: PASSWORD } })).accessToken as string

  // -------------------------------------------------------------------- helpdesk
  await optional('helpdesk', async () => {
    await api('POST', '/helpdesk/sla', { name: 'Priority', firstResponseHours: 1, resolutionHours: 8, applies: ['urgent', 'high'] })
    await api('POST', '/helpdesk/sla', { name: 'Standard', firstResponseHours: 8, resolutionHours: 72, applies: ['medium', 'low'] })
    const connectorTeam = await api('POST', '/helpdesk/teams', { name: 'Connector support', memberIds: [users.support.id, users.agent.id] })
    const billingTeam = await api('POST', '/helpdesk/teams', { name: 'Billing and accounts', memberIds: [reg.user.id, users.support.id] })

    type Step = ['assign', string] | ['reply', string, string?] | ['note', string] | ['status', string] | ['close', string] | ['rate', number, string]
    const ticket = async (contactId: string, subject: string, description: string, priority: string, teamId: string | null, steps: Step[]) => {
      const t = await api('POST', '/helpdesk/tickets', { contactId, subject, description, priority, ...(teamId ? { teamId } : {}), tags: ['connector'] })
      for (const step of steps) {
        if (step[0] === 'assign') await api('POST', `/helpdesk/tickets/${t.id}/assign`, { assigneeId: users[step[1]].id })
        if (step[0] === 'reply') await request('POST', `/helpdesk/tickets/${t.id}/reply`, { as: step[2] === 'customer' ? customer : token, payload: { body: step[1] } })
        if (step[0] === 'note') await api('POST', `/helpdesk/tickets/${t.id}/reply`, { body: step[1], internal: true })
        if (step[0] === 'status') await api('PATCH', `/helpdesk/tickets/${t.id}`, { status: step[1] })
        if (step[0] === 'close') await api('POST', `/helpdesk/tickets/${t.id}/close`, { resolution: step[1] })
        if (step[0] === 'rate') await request('POST', `/helpdesk/tickets/${t.id}/rating`, { as: customer, payload: { rating: step[1], comment: step[2] } })
      }
    }
    await ticket(cora.id, 'Activation fails on our staging instance', 'The connector says "Activation limit reached" on staging.example.', 'high', connectorTeam.id, [
      ['assign', 'agent'], ['reply', 'Your license allows two domains; production uses one. Could you send the domain staging reports?'],
      ['reply', 'It is staging.cora-customer.example, thanks!', 'customer'], ['note', 'Customer asks for a third slot; check with sales before raising the limit.'],
    ])
    await ticket(cora.id, 'How do I move the connector to ERP 19.0?', 'We upgrade our ERP next month.', 'medium', connectorTeam.id, [
      ['assign', 'support'], ['reply', 'Download the 19.0 build from the portal, install it after the upgrade, and enter the same key: a license for 19.0 is needed.'], ['status', 'resolved'], ['rate', 5, 'Clear and quick, thank you.'],
    ])
    await ticket(cora.id, 'Receipt for my multi-country connector', 'Please resend the receipt with our VAT number.', 'low', billingTeam.id, [
      ['assign', 'support'], ['reply', 'Done: the corrected receipt is on its way.'], ['close', 'Receipt resent with the VAT number.'], ['rate', 4, 'Fine.'],
    ])
    await ticket(contacts[0].id, 'Orders not syncing since this morning', 'No marketplace order arrived since 08:00.', 'urgent', connectorTeam.id, [
      ['assign', 'agent'], ['note', 'The marketplace API returns 503 for all clients; watch their status page.'], ['reply', 'The marketplace has an outage; orders will sync automatically once it is back.'],
    ])
    await ticket(contacts[6].id, 'Stock levels differ from the marketplace', 'Three SKUs show 0 on the marketplace but 12 in the ERP.', 'medium', connectorTeam.id, [
      ['assign', 'support'], ['reply', 'Could you send us the connector log of the last inventory sync?'], ['status', 'pending_customer'],
    ])
    await ticket(contacts[1].id, 'Wrong address on invoice', 'Our new address is not on the last invoice.', 'low', billingTeam.id, [])
    await ticket(contacts[2].id, 'Request for a product demo', 'Could we see the multi-country connector live?', 'low', null, [])
    await ticket(contacts[4].id, 'Refund for a duplicate purchase', 'We bought the 18.0 connector twice.', 'medium', billingTeam.id, [
      ['assign', 'agent'], ['reply', 'The duplicate license is revoked and the refund issued; it shows within five days.'], ['close', 'Refunded the duplicate order.'],
    ])
    if (captureToken) await request('POST', '/support', { as: null, payload: { captureToken, name: 'Pat Prospect', email: 'pat@prospect.example', subject: 'Cannot download the 18.0 build', description: 'The link in the e-mail expired.', priority: 'medium' } })
  })

  // ---------------------------------------------- licenses, checkout and downloads of the customer user
  await optional('licenses', async () => {
    const product = connectors['marketplace_connector@19.0']
    const license = await api('POST', '/admin/licenses', { productId: product.id, userId: users.customer.id, activationsLimit: 2 })
    await request('POST', '/licenses/activate', { as: customer, payload: { key: license.key, domain: 'shop.cora-customer.example', module_name: product.moduleName, erp_version: '19.0', hw_fingerprint: 'a3f1c9e2b7d4' } })
    log(`  License for customer.${EMAIL}, ${product.name}, active on shop.cora-customer.example: ${license.key}`)

    await optional('billing', async () => {
      // The customer buys the multi-country connector for ERP 18.0 with the local payment processor: the checkout
      // page's Pay button is a plain form POST, so the event flow (order, license, e-mails) runs as for a person.
      const bought = connectors['multi_country_connector@18.0']
      const base = app.ctx.config.publicUrl ?? `http://localhost:${app.ctx.config.port}`
      const checkout = await request('POST', '/billing/checkout', { as: customer, payload: { items: [{ productId: bought.id, quantity: 1 }], successUrl: `${base}/?checkout={CHECKOUT_SESSION_ID}`, cancelUrl: `${base}/` } })
      // The checkout url's token goes with the Pay form's POST, as on the page.
      const page = new URL(checkout.url)
      const paid = await app.inject({ method: 'POST', url: `${page.pathname}/complete${page.search}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })
      if (paid.statusCode !== 303) throw new Error(`checkout ${checkout.sessionId}: ${paid.statusCode} ${paid.body}`)
      const mine = await request<{ key: string; productId: string }[]>('GET', '/licenses', { as: customer })
      const key = mine.find((l) => l.productId === bought.id)?.key
      if (!key) throw new Error('the checkout issued no license')
      await request('POST', '/licenses/activate', { as: customer, payload: { key, domain: 'erp.cora-customer.example', module_name: bought.moduleName, erp_version: '18.0' } })
      log(`  Checkout paid by customer.${EMAIL}: ${bought.name}, license ${key}`)
    })
  })

  // -------------------------------------------------------------------- reports
  await optional('reports', async () => {
    await api('POST', '/reports', { type: 'invoices', parameters: { from: day(-90), to: day(0) } })
    await api('POST', '/admin/jobs/report-runs/run')
  })
  return { seeded: true, token }
}
