import { createHash } from 'node:crypto'

/**
 * Request samples of every operation of the OpenAPI document (`x-codeSamples`,
 * read by the docs page at /api/docs and by other renderers): one in curl and
 * one with the TypeScript SDK (packages/sdk). They are made from the operation
 * itself, never written per route: its method and path, example values of its
 * path parameters and required query parameters, and a body with the required
 * fields of its request body schema (the first property when none is required).
 * Example values come from the schema: `examples`, `const`, `enum`, `default`,
 * a property name the API uses everywhere (email, currency, ...), an "e.g. X"
 * in the description, the format, the pattern; each is kept only when it meets
 * the schema's constraints. A module improves its samples by adding `examples`
 * to its TypeBox schemas.
 */

type Json = Record<string, any>

export interface CodeSample {
  lang: string
  label: string
  source: string
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** Values of property names that mean the same thing on every resource. Used only where they fit the schema. */
const NAMED_EXAMPLES: Record<string, unknown> = {
  name: 'Acme Ltd',
  organizationName: 'Acme Ltd',
  email: 'ada@acme.example',
  password: 'correct-horse-battery-staple',
  phone: '+44 20 7946 0000',
  title: 'Kick-off meeting',
  subject: 'Your order',
  body: 'Thank you, we are on it.',
  description: 'Consulting day',
  notes: 'Delivered on site',
  code: 'MAIN',
  locationId: 'LOC-MAIN',
  sourceLocationId: 'LOC-MAIN',
  destinationLocationId: 'LOC-SHOP',
  vendorInvoiceNumber: 'INV-2026-0042',
  resolution: 'Replaced the faulty part',
  key: 'BPL-ABCD-EFGH-IJKL-MNOP',
  module_name: 'sale_connector',
  hw_fingerprint: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  currency: 'eur',
  country: 'DE',
  url: 'https://hooks.acme.example/business-platform',
  successUrl: 'https://shop.acme.example/thanks?session={CHECKOUT_SESSION_ID}',
  cancelUrl: 'https://shop.acme.example/cart',
  returnUrl: 'https://shop.acme.example/account',
  domain: 'erp.acme.example',
  date: '2026-03-31',
  from: '2026-01-01',
  to: '2026-03-31',
  dueDate: '2026-04-30',
  amount: 25000,
  price: 9000,
  unitPrice: 9000,
  quantity: 2,
  hours: 7.5,
  rating: 5,
}

/** Document examples of the formats the document uses. */
const FORMAT_EXAMPLES: Record<string, string> = {
  email: 'ada@acme.example',
  date: '2026-03-31',
  'date-time': '2026-03-31T09:30:00Z',
  uri: 'https://acme.example',
}

const FORMAT_CHECKS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
}

/** A stable UUID for a parameter or property name, so that two ids of one operation differ. */
function exampleUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16], 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** Whether a value meets the constraints of a (resolved, single-typed) schema. */
function fits(schema: Json, value: unknown): boolean {
  if (value === undefined) return false
  if (schema.const !== undefined) return JSON.stringify(schema.const) === JSON.stringify(value)
  if (Array.isArray(schema.enum)) return schema.enum.some((v: unknown) => JSON.stringify(v) === JSON.stringify(value))
  if (typeof value === 'string') {
    if (schema.type !== undefined && schema.type !== 'string') return false
    if (value.length < (schema.minLength ?? 0) || value.length > (schema.maxLength ?? Infinity)) return false
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) return false
    const check = FORMAT_CHECKS[schema.format]
    return !check || check.test(value)
  }
  if (typeof value === 'number') {
    if (schema.type === 'integer' && !Number.isInteger(value)) return false
    if (schema.type !== undefined && schema.type !== 'integer' && schema.type !== 'number') return false
    if (schema.minimum !== undefined && value < schema.minimum) return false
    if (schema.maximum !== undefined && value > schema.maximum) return false
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return false
    return schema.exclusiveMaximum === undefined || value < schema.exclusiveMaximum
  }
  if (typeof value === 'boolean') return schema.type === undefined || schema.type === 'boolean'
  return true
}

/**
 * A string that matches a simple pattern (literals, classes, \d \w \S, groups,
 * alternatives, quantifiers), taking the fewest repetitions and cycling
 * through each class so that ids look like ids; undefined for a pattern beyond
 * that. The caller checks the result against the pattern.
 */
export function sampleFromPattern(pattern: string): string | undefined {
  let i = 0
  const classChars = (): string[] => {
    // i is just after '['
    const chars: string[] = []
    while (i < pattern.length && pattern[i] !== ']') {
      const c = pattern[i++]
      if (c === '\\') {
        const e = pattern[i++]
        chars.push(...(ESCAPES[e] ?? [e]))
        continue
      }
      if (pattern[i] === '-' && pattern[i + 1] !== ']' && i + 1 < pattern.length) {
        const end = pattern[i + 1]
        i += 2
        for (let code = c.charCodeAt(0); code <= end.charCodeAt(0); code++) chars.push(String.fromCharCode(code))
        continue
      }
      chars.push(c)
    }
    i++ // ']'
    return chars
  }
  const sequence = (): string[][] | undefined => {
    // Alternatives of atoms, each atom a list of strings (its repetitions); the first alternative is taken.
    const out: string[][] = []
    while (i < pattern.length && pattern[i] !== ')' && pattern[i] !== '|') {
      let atom: (n: number) => string
      const c = pattern[i++]
      if (c === '^' || c === '$') continue
      if (c === '(') {
        if (pattern.startsWith('?:', i)) i += 2
        const inner = sequence()
        if (!inner) return undefined
        while (pattern[i] === '|') {
          i++
          if (!sequence()) return undefined
        }
        if (pattern[i++] !== ')') return undefined
        const text = inner.map((parts) => parts.join('')).join('')
        atom = () => text
      } else if (c === '[') {
        if (pattern[i] === '^') {
          // [^\s] and the like: any visible character not listed.
          const start = ++i
          classChars()
          const excluded = pattern.slice(start, i - 1)
          const pick = ['x', 'y', 'z', '1'].find((ch) => !new RegExp(`[${excluded}]`, 'u').test(ch))
          if (!pick) return undefined
          atom = () => pick
        } else {
          const chars = classChars()
          if (!chars.length) return undefined
          const preferred = chars.filter((ch) => /[A-Za-z0-9]/.test(ch))
          const pool = preferred.length ? preferred : chars
          atom = (n) => pool[n % pool.length]
        }
      } else if (c === '\\') {
        const e = pattern[i++]
        const chars = ESCAPES[e]
        atom = chars ? (n) => chars[n % chars.length] : () => e
      } else if (c === '.') {
        atom = () => 'x'
      } else if ('*+?{'.includes(c)) {
        return undefined
      } else {
        atom = () => c
      }
      // Quantifier: the fewest repetitions allowed.
      let count = 1
      const q = pattern[i]
      if (q === '?' || q === '*') {
        count = 0
        i++
      } else if (q === '+') {
        i++
      } else if (q === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i))
        if (!m) return undefined
        count = Number(m[1])
        i += m[0].length
      }
      out.push(Array.from({ length: count }, (_, n) => atom(n)))
    }
    return out
  }
  const parts = sequence()
  while (parts && pattern[i] === '|') {
    i++
    if (!sequence()) return undefined
  }
  if (!parts || i < pattern.length) return undefined
  return parts.map((p) => p.join('')).join('')
}

const DIGITS = '0123456789'.split('')
const ESCAPES: Record<string, string[]> = {
  d: DIGITS,
  w: 'abcdefghijklmnopqrstuvwxyz'.split(''),
  S: 'x'.split(''),
  s: [' '],
}

class Examples {
  constructor(private readonly doc: Json) {}

  /** A schema through its $ref, and nullable or union types reduced to their first non-null branch. */
  resolve(schema: Json | undefined, depth = 0): Json {
    if (!schema || depth > 20) return {}
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.replace(/^#\/components\/schemas\//, '')
      return this.resolve(this.doc.components?.schemas?.[name], depth + 1)
    }
    const branches: Json[] | undefined = schema.anyOf ?? schema.oneOf
    if (branches) {
      const branch = branches.find((b) => this.resolve(b, depth + 1).type !== 'null') ?? branches[0]
      return this.resolve({ ...branch, description: branch.description ?? schema.description }, depth + 1)
    }
    if (Array.isArray(schema.allOf)) {
      const parts = schema.allOf.map((p: Json) => this.resolve(p, depth + 1))
      return {
        type: 'object',
        properties: Object.assign({}, ...parts.map((p: Json) => p.properties)),
        required: parts.flatMap((p: Json) => p.required ?? []),
      }
    }
    if (Array.isArray(schema.type)) {
      return { ...schema, type: schema.type.find((t: string) => t !== 'null') ?? 'null' }
    }
    return schema
  }

  /** An example value of a schema; `name` is the property or parameter it is for. */
  value(raw: Json | undefined, name = '', depth = 0): unknown {
    const schema = this.resolve(raw)
    const hint = /\be\.g\.,? ([^\s,;)]+?)\.?(?=[\s,;)]|$)/.exec(schema.description ?? '')?.[1]
    const candidates: unknown[] = [
      schema.examples?.[0], schema.example, schema.const, schema.enum?.[0], schema.default,
      NAMED_EXAMPLES[name], hint,
    ]
    for (const c of candidates) if (c !== undefined && c !== null && fits(schema, c)) return c
    switch (schema.type) {
      case 'object':
        return depth > 6 ? {} : this.object(schema, false, depth + 1)
      case 'array': {
        const count = Math.max(1, schema.minItems ?? 1)
        const items = this.resolve(schema.items)
        if (schema.uniqueItems && Array.isArray(items.enum)) return items.enum.slice(0, count)
        const item = depth > 6 ? undefined : this.value(items, singular(name), depth + 1)
        return Array.from({ length: count }, () => item)
      }
      case 'integer':
      case 'number': {
        for (const n of [1, schema.minimum, Math.ceil(schema.exclusiveMinimum ?? 0) + 1, schema.maximum]) if (typeof n === 'number' && fits(schema, n)) return n
        return 1
      }
      case 'boolean':
        return true
      case 'string': {
        if (schema.format === 'uuid') return exampleUuid(name)
        const fromFormat = FORMAT_EXAMPLES[schema.format]
        if (fits(schema, fromFormat)) return fromFormat
        if (schema.pattern) {
          const sample = sampleFromPattern(schema.pattern)
          if (fits(schema, sample)) return sample
        }
        const word = name || 'string'
        return word.padEnd(schema.minLength ?? 0, 'x')
      }
      default:
        return null
    }
  }

  /** The required properties of an object schema, or its first property when none is required and `firstWhenNone`. */
  object(schema: Json, firstWhenNone: boolean, depth = 0): Json {
    const props: Json = schema.properties ?? {}
    let keys: string[] = (schema.required ?? []).filter((k: string) => k in props)
    if (!keys.length && firstWhenNone) keys = Object.keys(props).filter((k) => !props[k].readOnly).slice(0, 1)
    return Object.fromEntries(keys.map((k) => [k, this.value(props[k], k, depth)]))
  }
}

/** 'lineItems' -> 'lineItem', to name the examples of array items. */
const singular = (name: string) => name.replace(/ies$/, 'y').replace(/s$/, '')

/** A value in a double-quoted shell word. */
const shellDouble = (s: string) => s.replace(/[\\"$`]/g, (c) => `\\${c}`)
/** A value in a single-quoted shell word. */
const shellSingle = (s: string) => s.replace(/'/g, `'\\''`)

const isIdentifier = (key: string) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)

/** A value as a TypeScript literal: one line when short, indented otherwise. */
export function tsLiteral(value: unknown, indent = ''): string {
  const flat = (v: unknown): string => {
    if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
    if (Array.isArray(v)) return `[${v.map(flat).join(', ')}]`
    if (v && typeof v === 'object') {
      const entries = Object.entries(v).map(([k, x]) => `${isIdentifier(k) ? k : flat(k)}: ${flat(x)}`)
      return entries.length ? `{ ${entries.join(', ')} }` : '{}'
    }
    return String(v)
  }
  const one = flat(value)
  if (one.length + indent.length <= 90 || !value || typeof value !== 'object') return one
  const inner = `${indent}  `
  if (Array.isArray(value)) return `[\n${value.map((x) => `${inner}${tsLiteral(x, inner)},`).join('\n')}\n${indent}]`
  const entries = Object.entries(value).map(([k, x]) => `${inner}${isIdentifier(k) ? k : flat(k)}: ${tsLiteral(x, inner)},`)
  return `{\n${entries.join('\n')}\n${indent}}`
}

/** 'Contact' -> 'contact', 'APIKey' -> 'apiKey': a variable named for a component. */
function variableName(ref: string | undefined, fallback: string): string {
  const name = ref?.split('/').pop()
  if (!name) return fallback
  const camel = name.replace(/^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/, (m) => m.toLowerCase())
  return RESERVED.has(camel) ? fallback : camel
}
const RESERVED = new Set(['delete', 'new', 'default', 'function', 'class', 'export', 'import', 'return', 'api'])

/** How a file or page answer is read: openapi-fetch's parseAs, and the extension curl saves it under. */
const FILE_TYPES: Record<string, { parseAs: 'blob' | 'text'; ext?: string }> = {
  'application/pdf': { parseAs: 'blob', ext: 'pdf' },
  'application/zip': { parseAs: 'blob', ext: 'zip' },
  'application/octet-stream': { parseAs: 'blob', ext: 'bin' },
  'image/png': { parseAs: 'blob', ext: 'png' },
  'image/jpeg': { parseAs: 'blob', ext: 'jpg' },
  'text/csv': { parseAs: 'text', ext: 'csv' },
  'text/html': { parseAs: 'text' },
}

interface Request {
  method: string
  path: string
  pathParams: Json
  query: Json
  body?: Json
  multipart: boolean
  authenticated: boolean
  /** The success answer: JSON (with the component it refers to), a list envelope, a file, or nothing. */
  answer: { kind: 'json'; ref?: string } | { kind: 'list'; rowRef?: string } | { kind: 'file'; type: string } | { kind: 'none' }
}

function describeRequest(doc: Json, examples: Examples, path: string, method: string, op: Json): Request {
  const params: Json[] = op.parameters ?? []
  const pathParams = Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, examples.value(p.schema, p.name)]))
  const query = Object.fromEntries(params.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, examples.value(p.schema, p.name)]))
  const content: Json = op.requestBody?.content ?? {}
  const multipart = !content['application/json'] && !!content['multipart/form-data']
  const bodySchema = content['application/json']?.schema ?? content['multipart/form-data']?.schema
  const body = bodySchema ? examples.object(examples.resolve(bodySchema), true) : undefined
  const security = op.security ?? doc.security ?? []
  const authenticated = security.some((s: Json) => Object.keys(s).length > 0)

  const [, success] = Object.entries<Json>(op.responses ?? {}).find(([status]) => /^2/.test(status)) ?? []
  const successContent: Json = success?.content ?? {}
  let answer: Request['answer'] = { kind: 'none' }
  const json = successContent['application/json']?.schema
  if (json) {
    const resolved = examples.resolve(json)
    const data = resolved.properties?.data
    const isList = method === 'get' && data?.type === 'array' && examples.resolve(resolved.properties?.meta).properties?.nextCursor
    answer = isList ? { kind: 'list', rowRef: data.items?.$ref } : { kind: 'json', ref: json.$ref }
  } else {
    const type = Object.keys(successContent).find((t) => FILE_TYPES[t])
    if (type) answer = { kind: 'file', type }
  }
  return { method, path, pathParams, query, body, multipart, authenticated, answer }
}

function queryString(query: Json): string {
  const entries = Object.entries(query)
  return entries.length ? `?${entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}` : ''
}

function curlSample(r: Request): string {
  const url = r.path.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(String(r.pathParams[name])))
  const lines = [`curl${r.method === 'get' ? '' : ` -X ${r.method.toUpperCase()}`} "$BP_URL${shellDouble(url + queryString(r.query))}"`]
  if (r.authenticated) lines.push('-H "Authorization: Bearer $BP_API_KEY"')
  if (r.method === 'post') lines.push('-H "Idempotency-Key: $(uuidgen)"')
  if (r.body && r.multipart) {
    for (const [k, v] of Object.entries(r.body)) lines.push(typeof v === 'string' && k === 'file' ? `-F "${k}=@path/to/file"` : `-F "${shellDouble(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)}"`)
  } else if (r.body) {
    lines.push('-H "Content-Type: application/json"')
    lines.push(`-d '${shellSingle(JSON.stringify(r.body, null, 2)).replace(/\n/g, '\n  ')}'`)
  }
  if (r.answer.kind === 'file' && FILE_TYPES[r.answer.type].ext) lines.push(`-o response.${FILE_TYPES[r.answer.type].ext}`)
  return lines.join(' \\\n  ')
}

function sdkSample(r: Request): string {
  const credentials = r.authenticated ? ', apiKey: process.env.BP_API_KEY' : ''
  const imports = r.answer.kind === 'file' ? 'ApiError, createSdk' : 'createSdk'
  const head = [
    `import { ${imports} } from '@business-platform/sdk'`,
    ...(r.multipart ? ["import { readFile } from 'node:fs/promises'"] : []),
    '',
    `const api = createSdk({ baseUrl: process.env.BP_URL ?? 'http://localhost:3000'${credentials} })`,
  ]
  const hasPath = Object.keys(r.pathParams).length > 0
  const hasQuery = Object.keys(r.query).length > 0
  const lines: string[] = []

  if (r.answer.kind === 'list') {
    const args = [`'${r.path}'`]
    if (hasQuery || hasPath) args.push(hasQuery ? tsLiteral(r.query) : 'undefined')
    if (hasPath) args.push(tsLiteral(r.pathParams))
    const row = variableName(r.answer.rowRef, 'row')
    lines.push(`for await (const ${row} of api.list(${args.join(', ')})) console.log(${row})`)
    return [...head, ...lines].join('\n')
  }

  const init: string[] = []
  const params: string[] = []
  if (hasPath) params.push(`path: ${tsLiteral(r.pathParams, '    ')}`)
  if (hasQuery) params.push(`query: ${tsLiteral(r.query, '    ')}`)
  if (params.length) init.push(`params: { ${params.join(', ')} }`)
  if (r.body && r.multipart) {
    lines.push('const form = new FormData()')
    for (const [k, v] of Object.entries(r.body)) {
      lines.push(k === 'file' ? `form.set('file', new Blob([await readFile('path/to/file')]), 'file')` : `form.set(${tsLiteral(k)}, ${tsLiteral(typeof v === 'string' ? v : JSON.stringify(v))})`)
    }
    // The typed body is the form's fields; a FormData is sent as it is (multipart/form-data).
    init.push('body: form as never')
  } else if (r.body) {
    init.push(`body: ${tsLiteral(r.body, '  ')}`)
  }

  if (r.answer.kind === 'file') {
    const { parseAs } = FILE_TYPES[r.answer.type]
    init.push(`parseAs: '${parseAs}'`)
    lines.push(`// Files and pages come through api.raw, which answers { data, error, response } instead of throwing.`)
    lines.push(`const { data, error, response } = await api.raw.${r.method.toUpperCase()}('${r.path}', ${callInit(init)})`)
    lines.push('if (!data) throw new ApiError(response, error)')
    lines.push(parseAs === 'blob' ? `console.log(response.headers.get('content-type'), data.size)` : 'console.log(data)')
    return [...head, ...lines].join('\n')
  }

  const call = `await api.${r.method}('${r.path}'${init.length ? `, ${callInit(init)}` : ''})`
  if (r.answer.kind === 'none') lines.push(call)
  else {
    const name = variableName(r.answer.ref, 'result')
    lines.push(`const ${name} = ${call}`, `console.log(${name})`)
  }
  return [...head, ...lines].join('\n')
}

/** The init object of a call: one line when short, one member a line otherwise. */
function callInit(members: string[]): string {
  const one = `{ ${members.join(', ')} }`
  return one.length <= 80 && !one.includes('\n') ? one : `{\n${members.map((m) => `  ${m},`).join('\n')}\n}`
}

/** The two samples of one operation. */
export function codeSamples(doc: Json, path: string, method: string, op: Json): CodeSample[] {
  const request = describeRequest(doc, new Examples(doc), path, method, op)
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(request) },
    { lang: 'TypeScript', label: 'TypeScript SDK', source: sdkSample(request) },
  ]
}

/** Adds `x-codeSamples` to every operation of the document's paths. */
export function addCodeSamples(doc: Json): void {
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      if (item[method]) item[method]['x-codeSamples'] = codeSamples(doc, path, method, item[method])
    }
  }
}
