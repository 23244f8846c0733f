// What a module gives the tenancy contract test (test/tenancy.test.ts), in its
// own src/modules/<module>/<module>.fixtures.ts (default export). The test
// finds those files itself: a new module adds its file and touches nothing else.
import assert from 'node:assert/strict'
import { readdir } from 'node:fs/promises'
import { unique, type TestOrg } from './app.ts'
import { createLicensedProduct } from './licenses.ts'
import { createContact, createProduct } from './sales-fixtures.ts'

/** Path parameters that name a record, e.g. `{ id }`. */
export type Params = Record<string, string>

/** Makes a record owned by `owner` and returns the path parameters that name it. */
export type PathFixture = (owner: TestOrg) => Promise<Params>

/** A record of another organization, and its texts that must never reach anyone else (name, e-mail, ...). */
export interface ForeignRecord {
  id: string
  secrets: string[]
}

/** A body field that names a record of another module, e.g. `contactId` or `lineItems[].productId`. */
export interface ReferenceField {
  /** What the module answers when the field names another organization's record. */
  status: 404 | 422
  /** Makes such a record, owned by `other`. */
  foreign: (other: TestOrg) => Promise<ForeignRecord>
  /**
   * A valid body of the owner for this field, when the fixture's `body` does
   * not take it (a report run's parameters depend on its type); it passes as
   * it is, with the owner's own record.
   */
  body?: (owner: TestOrg) => Promise<Record<string, unknown>>
}

/** A create or update route whose body names records of other modules. */
export interface ReferenceFixture {
  /** The path parameters (routes with parameters): a record of the owner. */
  params?: PathFixture
  /** A valid body of the owner, naming the owner's own records; the test puts a foreign id in one field at a time. */
  body: (owner: TestOrg) => Promise<Record<string, unknown>>
  /**
   * GET path whose answer a refused request must leave as it was: the list a
   * create adds to, or the record an update changes (`:name` from `params`).
   */
  unchanged: string
  /** Every field of the body that names a record; the test fails for a field of the body schema that is missing here. */
  fields: Record<string, ReferenceField>
}

/**
 * The owner's records on a list route (GET without parameters): makes them and
 * returns texts that name them (ids, unique names, e-mails). The owner's answer
 * must contain each, and no other organization's answer may contain any of them.
 * Answers with no ids (reports) also give `count`: how many of the caller's
 * records the answer counts, more than zero for the owner and zero for an
 * organization that has none.
 */
export type ListFixture =
  | ((owner: TestOrg) => Promise<string[]>)
  | { make: (owner: TestOrg) => Promise<string[]>; count: (body: any) => number }

export interface TenancyFixtures {
  /** Route path (relative to /api, e.g. '/invoices/:id') -> a record of the owner. */
  paths?: Record<string, PathFixture>
  /** 'METHOD path' -> a valid body, for routes whose schema would answer 422 before the record is looked up. */
  bodies?: Record<string, unknown>
  /** 'METHOD path' -> the body fields that name records of other modules. */
  references?: Record<string, ReferenceFixture>
  /** List path -> the owner's records on it. */
  lists?: Record<string, ListFixture>
  /** 'METHOD path' -> why the route holds no record of an organization (it is then skipped). */
  exempt?: Record<string, string>
}

/** Declares a module's fixtures (typed; the object is returned as is). */
export const defineTenancyFixtures = (fixtures: TenancyFixtures): TenancyFixtures => fixtures

const modulesDir = new URL('../../src/modules/', import.meta.url)

/**
 * Every module's fixtures (src/modules/<module>/*.fixtures.ts, default export), by
 * module folder; two files of one folder are merged, a key given twice fails.
 * Used by the tenancy contract test and the fuzz test (real records for path parameters).
 */
export async function loadModuleFixtures(): Promise<Map<string, TenancyFixtures>> {
  const byModule = new Map<string, TenancyFixtures>()
  for (const dir of await readdir(modulesDir, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue
    const merged: Required<TenancyFixtures> = { paths: {}, bodies: {}, references: {}, lists: {}, exempt: {} }
    for (const file of (await readdir(new URL(`${dir.name}/`, modulesDir))).filter((f) => f.endsWith('.fixtures.ts')).sort()) {
      const where = `src/modules/${dir.name}/${file}`
      const fixtures = (await import(new URL(`${dir.name}/${file}`, modulesDir).href)).default as TenancyFixtures | undefined
      assert.ok(fixtures && typeof fixtures === 'object', `${where} must export its fixtures as default (defineTenancyFixtures)`)
      for (const part of Object.keys(merged) as Array<keyof TenancyFixtures>) {
        for (const [key, value] of Object.entries(fixtures[part] ?? {})) {
          assert.ok(!(key in merged[part]), `${where}: ${part} "${key}" is declared twice in src/modules/${dir.name}`)
          ;(merged[part] as Record<string, unknown>)[key] = value
        }
      }
    }
    byModule.set(dir.name, merged)
  }
  return byModule
}

// Records of another organization for the body reference checks, each with the
// texts that would betray it in an answer.

export const foreignContact = async (other: TestOrg): Promise<ForeignRecord> => {
  const c = await createContact(other)
  return { id: c.id, secrets: [c.name, c.email] }
}

export const foreignProduct = async (other: TestOrg): Promise<ForeignRecord> => {
  const p = await createProduct(other)
  return { id: p.id, secrets: [p.name] }
}

export const foreignLicensedProduct = async (other: TestOrg): Promise<ForeignRecord> => {
  const p = await createLicensedProduct(other)
  return { id: p.id, secrets: [p.name, p.moduleName, p.signingSecret] }
}

export const foreignEmployee = async (other: TestOrg): Promise<ForeignRecord> => {
  const e = await createEmployee(other)
  return { id: e.id, secrets: [e.name, e.email] }
}

export const foreignUser = async (other: TestOrg): Promise<ForeignRecord> => {
  const u = await createUser(other)
  return { id: u.id, secrets: [u.name, u.email] }
}

/** The warehouse of the organization's default locations (warehouses have no route of their own). */
export const foreignWarehouse = async (other: TestOrg): Promise<ForeignRecord> => ({ id: await warehouseOf(other), secrets: [] })

/** A payment method the organization saved at the processor. */
export const foreignPaymentMethod = async (other: TestOrg): Promise<ForeignRecord> => {
  const res = await other.post('/billing/payment-methods', { paymentMethodId: 'pm_card_visa' })
  if (res.status !== 201) throw new Error(`payment method: ${res.status} ${JSON.stringify(res.body)}`)
  return { id: res.body.id, secrets: [] }
}

// Small factories the fixtures share.

export async function createUser(o: TestOrg, role = 'member') {
  const res = await o.post('/users', { name: unique('User '), email: `${unique('u')}@example.com`, password: 'long enough password', role })
  if (res.status !== 201) throw new Error(`user: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string; email: string }
}

export async function createEmployee(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await o.post('/employees', { name: unique('Employee '), email: `${unique('e')}@example.com`, ...overrides })
  if (res.status !== 201) throw new Error(`employee: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string; email: string }
}

export async function warehouseOf(o: TestOrg): Promise<string> {
  const res = await o.get('/inventory/locations?limit=100')
  const id = res.body.data?.find((l: { warehouseId: string | null }) => l.warehouseId)?.warehouseId
  if (!id) throw new Error(`no warehouse among the default locations: ${res.status} ${JSON.stringify(res.body)}`)
  return id
}
