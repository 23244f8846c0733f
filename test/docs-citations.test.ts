// Citations of the contract in the code (issue 25, item 4). The code cites the
// rule it implements as `docs/<page>.md "<Heading>"`; this test fails when the
// page or the heading does not exist, and on any bare SPEC or CONTRACT
// citation left in the code (those files are not in the repository, so a
// reader cannot follow them). The tests cite the same way and are scanned too,
// all but this file, which names SPEC and CONTRACT on purpose. Each failure
// names its file and line.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { filesUnder, repoRoot } from './helpers/files.ts'

const root = repoRoot
const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'packages', d.name, 'src')))
  .map((d) => join('packages', d.name, 'src'))
const scanned = ['src', ...packages]
// test/ is scanned too (its .ts files), all but this file: its patterns and examples hold the words it looks for.
const self = join('test', 'docs-citations.test.ts')

/** Every source file under `dir`, relative to the repository. */
const sources = (dir: string) => filesUnder(dir).filter((file) => /\.(ts|tsx|js|mjs|cjs)$/.test(file))

interface Line { file: string; line: number; text: string }
const files = [...scanned.flatMap(sources), ...sources('test').filter((file) => file.endsWith('.ts') && file !== self)]
const lines: Line[] = files.flatMap((file) =>
  readFileSync(join(root, file), 'utf8').split('\n').map((text, i) => ({ file, line: i + 1, text })))

/** The headings of a page, as written after the #s (any level), without trailing #s or spaces. */
const headingsCache = new Map<string, Set<string> | null>()
function headings(page: string): Set<string> | null {
  if (!headingsCache.has(page)) {
    const path = join(root, 'docs', page)
    if (!existsSync(path)) headingsCache.set(page, null)
    else {
      let fenced = false
      const found = new Set<string>()
      for (const text of readFileSync(path, 'utf8').split('\n')) {
        if (/^\s*(```|~~~)/.test(text)) fenced = !fenced
        const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)
        if (m) found.add(m[1]!)
      }
      headingsCache.set(page, found)
    }
  }
  return headingsCache.get(page)!
}

// `docs/webhooks.md "Retries"`; a heading may hold backquotes but no double quote.
const CITATION = /docs\/([\w./-]+\.md) "([^"\n]+)"/g
// A citation's page and heading stay on one line, so that the scan sees the pair:
// neither a heading whose quote runs on, nor a page at the end of a line whose
// next line opens with the heading.
const OPEN_CITATION = /docs\/[\w./-]+\.md "[^"]*$/
const PAGE_AT_END = /docs\/[\w./-]+\.md\W*$/
const HEADING_AT_START = /^\s*(\*|\/\/)?\s*"/
// SPEC or CONTRACT as a word (SPEC_RATE_LIMITS is an identifier, not a citation).
const BARE = /\b(SPEC|CONTRACT)\b/

const where = (l: Line) => `${l.file}:${l.line}`

describe('citations of the contract in src/, packages/*/src and test/', () => {
  test('the scan finds the code', () => {
    assert.ok(lines.some((l) => l.file === join('src', 'app.ts')), 'src/app.ts not scanned')
    assert.ok(packages.length > 0, 'no packages/*/src scanned')
    assert.ok(lines.some((l) => l.file === join('test', 'helpers', 'assert.ts')), 'test/helpers/assert.ts not scanned')
    assert.ok(lines.some((l) => l.file === join('test', 'security', 'csv.test.ts')), 'test/security/csv.test.ts not scanned')
    assert.ok(!files.includes(self), `${self} scanned, though it names SPEC and CONTRACT on purpose`)
  })

  test('the test recognizes what it checks', () => {
    assert.match('// (SPEC 4.12)', BARE)
    assert.match('CONTRACT "Webhooks out"', BARE)
    assert.doesNotMatch('export const SPEC_RATE_LIMITS = {}', BARE)
    assert.deepEqual([...'see (docs/webhooks.md "Delivery", docs/errors.md "The codes")'.matchAll(CITATION)].map((m) => [m[1], m[2]]),
      [['webhooks.md', 'Delivery'], ['errors.md', 'The codes']])
    assert.ok(headings('errors.md')?.has('The codes'), 'docs/errors.md has a heading "The codes"')
    assert.equal(headings('no-such-page.md'), null)
    assert.match(' * (docs/errors.md "Illegal state', OPEN_CITATION)
    assert.doesNotMatch(' * (docs/errors.md "The codes")', OPEN_CITATION)
  })

  test('every docs/<page>.md "<Heading>" citation names a page that exists and a heading it has', () => {
    const broken: string[] = []
    let cited = 0
    for (const [i, l] of lines.entries()) {
      for (const [, page, heading] of l.text.matchAll(CITATION)) {
        cited++
        const found = headings(page!)
        if (!found) broken.push(`${where(l)}: docs/${page} does not exist`)
        else if (!found.has(heading!)) broken.push(`${where(l)}: docs/${page} has no heading "${heading}"`)
      }
      const next = lines[i + 1]
      if (PAGE_AT_END.test(l.text) && next?.file === l.file && HEADING_AT_START.test(next.text)) broken.push(`${where(l)}: a citation's page and heading are on two lines; keep docs/<page>.md "<Heading>" on one line`)
      if (OPEN_CITATION.test(l.text)) broken.push(`${where(l)}: a citation's heading runs onto the next line; keep docs/<page>.md "<Heading>" on one line`)
    }
    assert.ok(cited > 0, 'no citation found at all: is the pattern right?')
    assert.deepEqual(broken, [], `${broken.length} citation(s) point nowhere:\n${broken.join('\n')}`)
  })

  test('no bare SPEC or CONTRACT citation is left: cite the docs/ page and heading instead', () => {
    const bare = lines.filter((l) => BARE.test(l.text)).map((l) => `${where(l)}: ${l.text.trim().slice(0, 160)}`)
    assert.deepEqual(bare, [], `${bare.length} bare citation(s) of SPEC or CONTRACT, which are not in the repository; ` +
      `write the rule on a docs/ page and cite it as docs/<page>.md "<Heading>":\n${bare.join('\n')}`)
  })

  test('the README\'s "Contract, by module" links every page of docs/', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const start = readme.indexOf('## Contract, by module')
    assert.ok(start >= 0, 'README.md has no section "Contract, by module"')
    const end = readme.indexOf('\n## ', start + 1)
    const section = readme.slice(start, end < 0 ? undefined : end)
    const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'))
    const unlinked = pages.filter((page) => !section.includes(`(docs/${page}`))
    assert.deepEqual(unlinked, [], `pages of docs/ not linked from README.md "Contract, by module": ${unlinked.join(', ')}`)
  })
})
