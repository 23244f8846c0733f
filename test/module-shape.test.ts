// The shape of a module's files (docs/architecture.md "A module's files"): every
// file under src/modules/<m>/ is index.ts, <resource>.<kind>.ts with a kind of
// the closed list, or a test <resource>.test.ts / <resource>.<aspect>.test.ts;
// and role sets are declared in src/core/auth.ts only.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, test } from 'node:test'
import { ROLES } from '../src/core/auth.ts'
import { filesUnder } from './helpers/files.ts'

/** The kinds of file a module may hold; docs/architecture.md says what each holds. */
const KINDS = [
  'routes', 'schemas', 'service', 'repository', 'types', 'fixtures', // the layers
  'pdf', 'csv', 'mails', // documents the module writes
  'adapter', 'delivery', 'signature', 'lib', 'script', // the rest
] as const

const NAME = '[a-z][a-z0-9]*(?:-[a-z0-9]+)*' // kebab-case
const FILE = new RegExp(`^(?:index|${NAME}\\.(?:${KINDS.join('|')})|${NAME}(?:\\.${NAME})?\\.test)\\.ts$`)

/** What is wrong with a file name under src/modules/<m>/, or undefined. */
function nameProblem(name: string): string | undefined {
  if (FILE.test(name)) return undefined
  const parts = name.split('.')
  if (parts.length < 3 || parts.at(-1) !== 'ts') return 'is not <resource>.<kind>.ts'
  if (!new RegExp(`^${NAME}$`).test(parts[0])) return `resource "${parts[0]}" is not kebab-case`
  if (parts.at(-2) === 'test') return 'a test is <resource>.test.ts or <resource>.<aspect>.test.ts (kebab-case)'
  return `kind "${parts.at(-2)}" is not one of ${KINDS.join(', ')}`
}

const ROLE = `'(?:${ROLES.join('|')})'`
const ITEM = `(?:${ROLE}|\\.\\.\\.[A-Za-z_.]+)`
/** A declaration of a role set: a typed Role list or set, or a literal list of role names (and spreads). */
const ROLE_SET = [
  /:\s*(?:readonly\s+)?Role\[\]\s*=/,
  /(?:Set|Array)<Role>/,
  new RegExp(`\\[\\s*(?:${ITEM}\\s*,\\s*)*${ROLE}\\s*(?:,\\s*${ITEM}\\s*)*,?\\s*\\]`),
]

/** The lines of `source` that declare a role set. */
function roleSets(source: string): string[] {
  return source.split('\n').filter((line) => !/^\s*(?:\/\/|\*|\/\*)/.test(line) && ROLE_SET.some((re) => re.test(line)))
}


describe('module shape', () => {
  test('every file of a module is index.ts or <resource>.<kind>.ts', () => {
    const problems: string[] = []
    for (const m of readdirSync('src/modules')) {
      if (!statSync(join('src/modules', m)).isDirectory()) continue
      for (const file of filesUnder(join('src/modules', m))) {
        const problem = nameProblem(file.split('/').at(-1)!)
        if (problem) problems.push(`${file}: ${problem}`)
      }
    }
    assert.deepEqual(problems, [])
  })

  test("no file is named after another module (sales/sales-reports.*, not sales/reports.*)", () => {
    const names = readdirSync('src/modules').filter((m) => statSync(join('src/modules', m)).isDirectory())
    const problems = names.flatMap((m) =>
      filesUnder(join('src/modules', m)).filter((file) => {
        const resource = file.split('/').at(-1)!.split('.')[0]
        return resource !== m && names.includes(resource)
      }))
    assert.deepEqual(problems, [])
  })

  test('the check refuses names outside the scheme', () => {
    for (const good of ['index.ts', 'locations.routes.ts', 'credit-notes.repository.ts', 'inventory.concurrency.test.ts', 'invoices.test.ts', 'decimal.lib.ts'])
      assert.equal(nameProblem(good), undefined, good)
    for (const bad of ['decimal.ts', 'billing-events.ts', 'creditNotes.repository.ts', 'credit_notes.service.ts', 'invoices.helpers.ts', 'inventory-Concurrency.test.ts', 'a.b.c.test.ts', 'notes.md'])
      assert.notEqual(nameProblem(bad), undefined, bad)
  })

  test('role sets are declared in src/core/auth.ts only', () => {
    const problems: string[] = []
    for (const file of filesUnder('src')) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file === join('src', 'core', 'auth.ts')) continue
      for (const line of roleSets(readFileSync(file, 'utf8'))) problems.push(`${relative('.', file)}: ${line.trim()}`)
    }
    assert.deepEqual(problems, [])
  })

  test('the scan finds a role set however it is spelled', () => {
    for (const line of [
      "const PORTAL: readonly Role[] = ['customer', 'admin']",
      "const READERS: ReadonlySet<string> = new Set(['admin', 'member'])",
      "const readers = { access: { roles: ['admin', 'member'] as readonly Role[] } }",
      "const STAFF_READERS = [...AGENTS, 'member']",
      'const AGENT_ROLES = new Set<Role>(AGENTS)',
    ]) assert.equal(roleSets(line).length, 1, line)
    for (const line of ["if (p.role === 'admin') return", "status: StringEnum(['draft', 'sent'])", "StringEnum(['product', 'customer', 'salesperson'])", 'roles: BUYERS', '// e.g. [\'admin\', \'member\']'])
      assert.deepEqual(roleSets(line), [], line)
  })
})
