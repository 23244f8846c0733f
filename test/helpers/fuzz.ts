// What the fuzz test (test/fuzz.test.ts) generates and checks, read from the
// OpenAPI document: the operations, schema-valid inputs (json-schema-faker),
// hostile values and mutations (fast-check), and the response rules.
import { STATUS_CODES } from 'node:http'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import { generateSync } from 'json-schema-faker'
import { codeToStatus, isErrorCode, type ErrorCode } from '../../src/core/errors.ts'
import { ajvOptions } from '../../src/core/validation.ts'

export type Json = any

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

export interface Operation {
  id: string
  method: string
  /** The document's path, e.g. /api/contacts/{id}. */
  path: string
  /** The route's path relative to /api with Fastify's :params, as the tenancy fixtures name it (/contacts/:id). */
  route: string
  op: Json
  pathParams: Json[]
  queryParams: Json[]
  /** Body schema by content type, references resolved. */
  bodies: Record<string, Json>
  isPublic: boolean
}

/** A component schema by its reference (#/components/schemas/Name). */
const lookup = (doc: Json, ref: string) => ref.split('/').slice(1).reduce((node: Json, key) => node?.[key], doc)

/** The schema with every $ref inlined (request schemas are not recursive; a guard stops at depth 20). */
export function deref(doc: Json, schema: Json, depth = 0): Json {
  if (depth > 20) return {}
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s, depth))
  if (!schema || typeof schema !== 'object') return schema
  if (typeof schema.$ref === 'string') return deref(doc, lookup(doc, schema.$ref), depth + 1)
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, deref(doc, v, depth + 1)]))
}

/** Every operation of the document. */
export function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = []
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method]
      if (!op) continue
      const params = (op.parameters ?? []).map((p: Json) => deref(doc, p))
      const bodies = Object.fromEntries(Object.entries<Json>(op.requestBody?.content ?? {}).map(([type, c]) => [type, deref(doc, c.schema)]))
      out.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        route: path.replace(/^\/api(?=\/)/, '').replace(/\{(\w+)\}/g, ':$1'),
        op,
        pathParams: params.filter((p: Json) => p.in === 'path'),
        queryParams: params.filter((p: Json) => p.in === 'query'),
        bodies,
        isPublic: Array.isArray(op.security) && op.security.length === 0,
      })
    }
  }
  return out
}

// Values written into JSON text as they are: 1e400 cannot be made with JSON.stringify.

/** A JSON number literal sent as written (1e400, -0, 1e21, 9007199254740993). */
export class RawNumber {
  constructor(readonly text: string) {}
  [fc.toStringMethod]() {
    return `RawNumber(${this.text})`
  }
}

/** A long string, printed short in a counterexample ('a'.repeat(1000000)). */
export class Repeat {
  constructor(
    readonly unit: string,
    readonly count: number,
  ) {}
  get value() {
    return this.unit.repeat(this.count)
  }
  [fc.toStringMethod]() {
    return `${JSON.stringify(this.unit)}.repeat(${this.count})`
  }
}

export function toJsonText(value: unknown): string {
  const raws: string[] = []
  const text = JSON.stringify(value, (_key, v) => (v instanceof RawNumber ? `\u0001raw${raws.push(v.text) - 1}\u0001` : v instanceof Repeat ? v.value : v))
  return (text ?? '').replace(/"\\u0001raw(\d+)\\u0001"/g, (_, i: string) => raws[Number(i)])
}

/** A value as query-string text (numbers and raw literals as written, other structures as JSON). */
export function toQueryText(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => toQueryText(v))
  if (value instanceof RawNumber) return [value.text]
  if (value instanceof Repeat) return [value.value]
  if (value === null || value === undefined) return ['']
  if (typeof value === 'object') return [toJsonText(value)]
  return [String(value)]
}

/** encodeURIComponent that does not throw on a lone surrogate: its UTF-8 bytes as if it were encodable. */
export function encodeComponent(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return [...text].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('')
  }
}

// Hostile values.

export const ODD_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', 'a\udc00b', '\udbff\udbff', '\u202eevil\u202c', 'مرحبا بالعالم', 'שלום', '😀👍🏽👨‍👩‍👧', 'e\u0301\u0301',
  '\ufeff', '\u2028\u2029', '\r\n\t', '\u0007\u001b[31m', 'null', 'true', '0', '-1', "' OR '1'='1' --", '%', '_', '\\', '%00', '..', '../../etc/passwd',
  '<script>alert(1)</script>', '${7*7}{{7*7}}', '__proto__', 'constructor',
]
/** Past every maxLength: 1 MB of ASCII (under BODY_LIMIT), 1.2 MB of two-byte text (over it), and lengths just past common limits. */
export const LONG_STRINGS = [new Repeat('a', 1_000_000), new Repeat('é', 600_000), new Repeat('a', 257), new Repeat('ü', 5001), new Repeat('x', 100_001), new Repeat('😀', 201)]
export const ODD_DATES = [
  '0000-01-01', '0001-01-01T00:00:00Z', '10000-01-01', '+010000-01-01T00:00:00Z', '9999-12-31T23:00:00-01:00', '9999-12-31T23:59:59.999Z',
  '1899-12-31T23:59:59Z', '1900-01-01T00:30:00+01:00', '2024-06-30T23:59:60Z', '2026-02-30', '2026-02-29', '2024-02-29', '2026-13-01', '2026-00-10',
  '2026-01-01T24:00:00Z', '2026-01-01T23:60:00Z', '2026-01-01T10:00:00+24:00', '2026-01-01T10:00:00+14:00', '2026-01-01T10:00:00.1234567891Z',
  '2026-01-01T10:00', '2026-01-01 10:00:00Z', '2026-1-1', '20260101', '-002026-01-01', '2026-01-01T10:00:00z', '2026-01-01T10:00:00+0100',
]
export const ODD_NUMBERS = [0, -0, 1, -1, 0.5, -0.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, Number.MIN_VALUE, 1e21, -1e21, 1e300, 1e-7]
export const RAW_NUMBERS = ['1e400', '-1e400', '-0', '1e21', '9007199254740993', '1.0', '1E2', '0.1e-400', '123456789012345678901234567890', '-0.0']
export const NUMBER_LIKE = ['NaN', 'Infinity', '-Infinity', '1e400', '0x10', ' 1', '1 ', '1_000', '١٢', '+1', '.5', '5.', '1e21', '-0', '9007199254740993']

const nonFinite = (n: number) => (Number.isFinite(n) ? n : new RawNumber(Number.isNaN(n) ? '1e400' : n > 0 ? '1e400' : '-1e400'))

/** A value nobody would send on purpose: wrong types, nulls, odd text, edge numbers, odd dates, huge strings. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_DATES) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_NUMBERS) },
  { weight: 3, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => new RawNumber(t)) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBER_LIKE) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('a', '\u0000', '\ud800', '\udc00', '😀', '\u202e', '%', "'"), maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { a: 1 }, [[[]]]) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double().map(nonFinite), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map((b) => new RawNumber(String(b)))) },
  { weight: 1, arbitrary: fc.constantFrom(...LONG_STRINGS) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
)

/** A change to one place of a value: replace it, remove it, add an unknown field next to it, or wrap it in an array. */
export interface Mutation {
  pick: number
  action: 'replace' | 'remove' | 'add' | 'wrap'
  value: unknown
}
export const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  action: fc.constantFrom('replace', 'replace', 'replace', 'replace', 'remove', 'add', 'wrap'),
  value: hostileValue,
})

type PathKey = string | number
function places(value: unknown, at: PathKey[] = [], out: PathKey[][] = []): PathKey[][] {
  out.push(at)
  if (Array.isArray(value)) value.forEach((v, i) => places(v, [...at, i], out))
  else if (value && typeof value === 'object' && !(value instanceof RawNumber) && !(value instanceof Repeat)) for (const [k, v] of Object.entries(value)) places(v, [...at, k], out)
  return out
}

/** The value with one mutation applied; the root's removal is undefined (no body). */
export function mutate(value: unknown, m: Mutation): unknown {
  const all = places(value)
  // Prefer leaves and fields over the root: the root is one place among many.
  const at = all[m.pick % all.length]
  const copy = structuredCloneRaw(value)
  if (at.length === 0) {
    if (m.action === 'remove') return undefined
    if (m.action === 'add' && copy && typeof copy === 'object' && !Array.isArray(copy)) return { ...(copy as object), unexpectedField: m.value }
    if (m.action === 'wrap') return [copy]
    return m.value
  }
  const parent = at.slice(0, -1).reduce((node: Json, key) => node[key], copy as Json)
  const key = at[at.length - 1]
  if (m.action === 'remove') {
    if (Array.isArray(parent)) parent.splice(key as number, 1)
    else delete parent[key]
  } else if (m.action === 'add') {
    if (Array.isArray(parent)) parent.push(m.value)
    else parent[`${String(key)}Extra`] = m.value
  } else if (m.action === 'wrap') parent[key] = [parent[key]]
  else parent[key] = m.value
  return copy
}

function structuredCloneRaw(value: unknown): unknown {
  if (value instanceof RawNumber || value instanceof Repeat) return value
  if (Array.isArray(value)) return value.map(structuredCloneRaw)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, structuredCloneRaw(v)]))
  return value
}

// Schema-valid values.

/** A small deterministic PRNG (mulberry32), so that a run is reproduced by its seed. */
export function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A value of the schema by json-schema-faker (small arrays, dates near now).
 * It gives up on a few schemas for some seeds (minProperties with closed
 * objects): the next seeds are tried, then an empty value of the type.
 */
export function fake(schema: Json, seed: number): unknown {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return fakeOnce(schema, seed + attempt)
    } catch {
      // another seed
    }
  }
  return [schema.type].flat().includes('object') || schema.properties ? {} : ''
}

function fakeOnce(schema: Json, seed: number): unknown {
  return generateSync(schema, {
    seed,
    maxItems: 3,
    optionalsProbability: 0.6,
    minDateTime: '2000-01-01T00:00:00Z',
    maxDateTime: '2060-01-01T00:00:00Z',
    failOnInvalidTypes: false,
  })
}

/** Where real values help a fake value pass. */
export interface Realism {
  /** Field name (contactId, productId, ...) -> ids of records; `*` for any other uuid field. */
  ids: Record<string, string[]>
  /** Field name (key, email, ...) -> real values, whatever the field's type. */
  values: Record<string, unknown[]>
  random: () => number
}

const TIMESTAMP_INPUT = /^\^\\d\{4\}-\\d\{2\}-\\d\{2\}\(T/

/**
 * The fake value made more plausible: uuid fields often name real records (of
 * the caller, or of another organization when `ids` holds those), timestamp
 * inputs often real dates, currencies often usd. Without it random uuids only
 * ever reach "not found".
 */
export function realistic(schema: Json, value: unknown, r: Realism, name = ''): unknown {
  if (!schema || typeof schema !== 'object') return value
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]
  if (branches.length) {
    const branch = branches.find((b: Json) => matchesType(b, value))
    return branch ? realistic(branch, value, r, name) : value
  }
  const known = r.values[name]
  if (known?.length && (value === null || typeof value !== 'object') && r.random() < 0.75) return known[Math.floor(r.random() * known.length)]
  if (typeof value === 'string') {
    if (schema.format === 'uuid' && r.random() < 0.8) {
      const pool = r.ids[name] ?? r.ids['*'] ?? []
      if (pool.length) return pool[Math.floor(r.random() * pool.length)]
    }
    if (typeof schema.pattern === 'string' && TIMESTAMP_INPUT.test(schema.pattern) && r.random() < 0.8) {
      const d = new Date(Date.UTC(2020, 0, 1) + Math.floor(r.random() * 20 * 365) * 86_400_000)
      return r.random() < 0.5 ? d.toISOString().slice(0, 10) : d.toISOString()
    }
    if (/^\^\[(a-z|A-Za-z)\]\{3\}\$$/.test(schema.pattern ?? '') && r.random() < 0.8) return 'usd'
    return value
  }
  if (Array.isArray(value)) return value.map((v) => realistic(schema.items, v, r, name))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, realistic(schema.properties?.[k], v, r, k)]))
  }
  return value
}

function matchesType(schema: Json, value: unknown): boolean {
  const types = [schema.type].flat().filter(Boolean)
  if (!types.length) return true
  const t = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value
  return types.includes(t) || (t === 'integer' && types.includes('number'))
}

// Responses.

export interface Answer {
  status: number
  headers: Record<string, unknown>
  body: string
}

/**
 * The rules every answer keeps: no 5xx; every error in the format of
 * docs/errors.md "The error body" with a code of its status; the status
 * declared by the operation; a JSON body valid against the schema declared for
 * that status (references resolved from components), or the declared content
 * type.
 */
export function responseRules(doc: Json) {
  const ajv = addFormats.default(new Ajv({ ...ajvOptions, coerceTypes: false, useDefaults: false }))
  const toDefs = (schema: Json): Json => JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, '"openapi#/$defs/'))
  ajv.addSchema({ $id: 'openapi', $defs: toDefs(doc.components.schemas) })
  const validators = new Map<Json, ValidateFunction>()
  const validatorOf = (schema: Json) => {
    let v = validators.get(schema)
    if (!v) validators.set(schema, (v = ajv.compile(toDefs(schema))))
    return v
  }
  const declared = (op: Json, status: number): Json | undefined => {
    const r = op.responses?.[String(status)] ?? op.responses?.[`${String(status)[0]}XX`] ?? op.responses?.default
    return r?.$ref ? lookup(doc, r.$ref) : r
  }

  return (o: Operation, res: Answer): string[] => {
    const problems: string[] = []
    const type = String(res.headers['content-type'] ?? '').split(';')[0].trim()
    let json: Json
    let parsed = false
    if (type === 'application/json' && res.body.length) {
      try {
        json = JSON.parse(res.body)
        parsed = true
      } catch {
        problems.push(`answer is not JSON although its content-type says so: ${res.body.slice(0, 200)}`)
      }
    }
    if (res.status >= 500) problems.push(`${res.status}: ${res.body.slice(0, 300)}`)
    if (res.status >= 400) {
      const body = parsed ? json : undefined
      const keys = body && typeof body === 'object' ? Object.keys(body).sort() : []
      const ok =
        body && keys.join() === 'code,error,message,statusCode' && body.statusCode === res.status && body.error === STATUS_CODES[res.status] &&
        isErrorCode(body.code) && codeToStatus[body.code as ErrorCode] === res.status &&
        (typeof body.message === 'string' || (Array.isArray(body.message) && body.message.every((m: unknown) => typeof m === 'string')))
      if (!ok) problems.push(`error body not in the format of docs/errors.md "The error body" {statusCode, message, error, code} of status ${res.status}: ${res.body.slice(0, 300)}`)
    }
    const spec = declared(o.op, res.status)
    if (!spec) {
      problems.push(`status ${res.status} is not declared by ${o.id}: ${res.body.slice(0, 200)}`)
      return problems
    }
    const content = spec.content as Record<string, Json> | undefined
    if (!content) {
      if (res.status === 204 && res.body.length) problems.push(`204 with a body: ${res.body.slice(0, 100)}`)
      return problems
    }
    if (!content[type]) {
      problems.push(`content-type ${type || '(none)'} of ${res.status} is not among the declared ${Object.keys(content).join(', ')}`)
      return problems
    }
    if (type === 'application/json' && parsed && content[type].schema) {
      const validate = validatorOf(content[type].schema)
      if (!validate(json)) {
        const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')
        problems.push(`${res.status} body breaks its declared schema: ${errors}: ${res.body.slice(0, 300)}`)
      }
    }
    return problems
  }
}

// The sweep: every field, one at a time, set to what no column can hold.

export interface Field {
  path: Array<string | number>
  schema: Json
}

/** Every field of a (dereferenced) body schema, array items as index 0, nullable branches looked through. */
export function fieldsOf(schema: Json, path: Array<string | number> = [], out: Field[] = []): Field[] {
  if (!schema || typeof schema !== 'object' || path.length > 8) return out
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) if (branch.type !== 'null') fieldsOf(branch, path, out)
  for (const [name, prop] of Object.entries<Json>(schema.properties ?? {})) {
    out.push({ path: [...path, name], schema: prop })
    fieldsOf(prop, [...path, name], out)
  }
  if (schema.items) fieldsOf(schema.items, [...path, 0], out)
  return out
}

/** A copy of value with `v` at path, making the objects and arrays on the way. */
export function setAt(value: unknown, path: Array<string | number>, v: unknown): unknown {
  const root: Json = structuredCloneRaw(value ?? {})
  let node = root
  path.forEach((key, i) => {
    if (i === path.length - 1) node[key] = v
    else {
      if (node[key] === null || typeof node[key] !== 'object') node[key] = typeof path[i + 1] === 'number' ? [] : {}
      node = node[key]
    }
  })
  return root
}

const isDateLike = (s: Json) => ['date', 'date-time'].includes(s.format) || TIMESTAMP_INPUT.test(s.pattern ?? '')
const typesOf = (s: Json): string[] => [s.type, ...(s.anyOf ?? []).map((b: Json) => b.type)].flat().filter(Boolean)

/** What no column holds, for a field of this schema: NUL and lone surrogates in text, non-finite and huge numbers, dates past 9999 and leap seconds. */
export function unstorableFor(schema: Json): unknown[] {
  const types = typesOf(schema)
  const out: unknown[] = []
  if (types.includes('string')) out.push('a\u0000b', 'a\ud800b')
  if ([schema, ...(schema.anyOf ?? [])].some(isDateLike)) out.push('9999-12-31T23:00:00-01:00', '2024-06-30T23:59:60Z', '0000-01-01')
  if (types.includes('number') || types.includes('integer')) out.push(new RawNumber('1e400'), new RawNumber('1e21'), new RawNumber('-1e400'))
  return out
}

/** The same for a query parameter, as text. */
export function unstorableQueryText(schema: Json): string[] {
  const types = typesOf(schema)
  const out: string[] = []
  if (types.includes('string')) out.push('a\u0000b')
  if ([schema, ...(schema.anyOf ?? [])].some(isDateLike)) out.push('9999-12-31T23:00:00-01:00', '2024-06-30T23:59:60Z', '0000-01-01')
  if (types.includes('number') || types.includes('integer')) out.push('1e400', 'Infinity', '-Infinity', '1e21')
  return out
}
