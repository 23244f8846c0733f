import assert from 'node:assert/strict'
import type { Res } from './app.ts'
import { expectStatus } from './assert.ts'

type Value = string | number

/**
 * Asserts that values are in the given order (ties allowed) and not all equal,
 * so an unsorted or constant column cannot pass by accident. Strings compare by
 * code point, as PostgreSQL's C collation does; tests pick values whose order is
 * the same in any collation.
 */
export function assertOrdered(values: Value[], order: 'asc' | 'desc', label = 'values') {
  assert.ok(new Set(values).size > 1, `${label}: need at least two distinct values to check an order`)
  for (let i = 1; i < values.length; i++) {
    const [a, b] = [values[i - 1], values[i]]
    const ok = order === 'asc' ? a <= b : a >= b
    assert.ok(ok, `${label} not ${order} at ${i}: ${JSON.stringify(values)}`)
  }
}

/**
 * Lists `path` sorted by `field` both ways (limit 100) and checks the order of
 * the rows that `keep` selects (by default all of them).
 */
export async function expectSortable(
  get: (path: string) => Promise<Res>,
  path: string,
  field: string,
  keep: (row: any) => boolean = () => true,
) {
  const sep = path.includes('?') ? '&' : '?'
  for (const order of ['asc', 'desc'] as const) {
    const res = await get(`${path}${sep}sortBy=${field}&sortOrder=${order}&limit=100`)
    expectStatus(res, 200)
    assertOrdered(res.body.data.filter(keep).map((r: any) => r[field]), order, `${path} sortBy=${field}`)
  }
}

/** Asserts the envelope of docs/platform.md "Lists": exact total, page, limit, totalPages and page size. */
export function expectPage(res: Res, expected: { total: number; page: number; limit: number }) {
  expectStatus(res, 200)
  const { total, page, limit } = expected
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'meta'])
  const { nextCursor, ...meta } = res.body.meta
  assert.deepEqual(meta, { total, page, limit, totalPages: Math.ceil(total / limit) })
  // A cursor continues after this page exactly when rows follow it.
  assert.equal(typeof nextCursor, page * limit < total ? 'string' : 'object', `nextCursor of page ${page} of ${total} by ${limit}`)
  if (page * limit >= total) assert.equal(nextCursor, null)
  const size = Math.max(0, Math.min(limit, total - (page - 1) * limit))
  assert.equal(res.body.data.length, size, `page ${page} of ${total} by ${limit}`)
  return res.body.data as any[]
}

/** The ids of a list response, for set comparisons. */
export const idsOf = (res: Res): string[] => res.body.data.map((r: { id: string }) => r.id).sort()

/**
 * The rules every list shares (docs/platform.md "Lists"): page and limit
 * bounds, sortBy limited to the sortable fields (`notSortable` is a real field
 * that is not), sortOrder values, and unknown query parameters
 * (docs/platform.md "Bodies and validation"), each a 400 with the error body
 * of docs/errors.md "The error body".
 */
export async function expectListQueryRules(get: (path: string) => Promise<Res>, path: string, notSortable: string) {
  const bad = ['limit=101', 'limit=0', 'limit=-1', 'limit=abc', 'page=0', 'page=1.5', 'page=100000000000000000000', `sortBy=${notSortable}`, 'sortBy=nope', 'sortOrder=up', 'unknownParam=1']
  for (const query of bad) expectStatus(await get(`${path}?${query}`), 400)
  expectStatus(await get(`${path}?sortBy=${notSortable}`), 400, 'sortBy')
  expectStatus(await get(`${path}?unknownParam=1`), 400, 'unknownParam')
  const defaults = expectStatus(await get(path), 200)
  assert.equal(defaults.meta.page, 1)
  assert.equal(defaults.meta.limit, 20)
  expectStatus(await get(`${path}?limit=100`), 200)
}

/**
 * Waits until the clock has passed the millisecond of `iso`, so the next record
 * gets a later timestamp (PGlite's clock has millisecond resolution) and
 * orders by createdAt or updatedAt are decided by time, not by the id tie-breaker.
 */
export async function afterTimestamp(iso: string) {
  while (Date.now() <= Date.parse(iso)) await new Promise((resolve) => setTimeout(resolve, 1))
}
