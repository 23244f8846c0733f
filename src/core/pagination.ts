import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Type, type Static, type TObject, type TOptional, type TProperties, type TSchema, type TUnsafe } from 'typebox'
import { AppError } from './errors.ts'
import { Named, Nullable, StringEnum } from './schemas.ts'
import type { Db, Queryable } from './db.ts'

/**
 * docs/platform.md "Lists": page 1-based, limit default 20 and at most 100, sortOrder default desc.
 * page is bounded so that its offset stays a safe integer and a PostgreSQL bigint
 * (an unbounded page reached the database as 1e20 and failed with 500). Exported
 * alone for lists that page without sorting (the processor's invoices).
 */
export const pagingProperties = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 1, description: '1-based page number (not with cursor)' }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, at most 100' }),
}
/** Longest cursor `paginate` writes: a fingerprint and two column values as text, base64url. */
const CURSOR_MAX = 1000
const pageProperties = {
  ...pagingProperties,
  cursor: Type.Optional(Type.String({
    minLength: 1, maxLength: CURSOR_MAX,
    description: 'meta.nextCursor of a previous answer: continues after its last row (send the same filters and sort; not with page)',
  })),
  sortOrder: StringEnum(['asc', 'desc'] as const, { default: 'desc' }),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Free text across name and e-mail fields' })),
}

/**
 * The query schema of a list: paging, sortBy limited to the module's sortable
 * fields (anything else is 400), and the module's own filters.
 */
export function listQuery<S extends readonly string[], P extends TProperties>(sortable: S, filters: P) {
  return Type.Object(
    {
      ...pageProperties,
      sortBy: Type.Optional(StringEnum(sortable, { description: `One of: ${sortable.join(', ')}` })),
      ...filters,
    },
    { additionalProperties: false },
  ) as unknown as TObject<typeof pageProperties & { sortBy: TOptional<TUnsafe<S[number]>> } & P>
}

export interface PageParams {
  page: number
  limit: number
  sortOrder: 'asc' | 'desc'
  sortBy?: string
  search?: string
  /** An opaque position from meta.nextCursor (docs/platform.md "Cursor pagination"). */
  cursor?: string
}

const Meta = Named('PageMeta', Type.Object({
  total: Type.Integer({ description: 'Records matching the filters, across every page' }),
  page: Nullable(Type.Integer({ description: 'null when the request sent a cursor' })),
  limit: Type.Integer(),
  totalPages: Nullable(Type.Integer({ description: 'null when the request sent a cursor' })),
  nextCursor: Nullable(Type.String({ description: 'Send as cursor (with the same filters and sort) for the rows after this page; null when none follows' })),
}))

/** The list envelope (docs/platform.md "Lists") around one item schema; publish it with Named('<Item>List', listOf(Item)). */
export function listOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), meta: Meta })
}

export interface Page<T> {
  data: T[]
  meta: Static<typeof Meta>
}

/**
 * Collects WHERE conditions with numbered parameters. It also records whether
 * the conditions are exactly what a list counter answers (docs/decisions/0005):
 * the organization (`scope`) and at most one counted equality (`counted`).
 * Any other condition (`add`, `maybe`, `search`) makes the total a count(*).
 */
export class Where {
  readonly params: unknown[] = []
  private readonly parts: string[] = []
  private organizationId?: string
  private readonly counterKeys: string[] = []
  private uncounted = false
  private hasSearch = false

  /** Adds `sql`, where each `?` takes the next value. */
  add(sql: string, ...values: unknown[]): this {
    let i = 0
    this.parts.push(sql.replace(/\?/g, () => this.param(values[i++])))
    this.uncounted = true
    return this
  }

  /** The tenant condition `column = organizationId` (column may carry a table alias). */
  scope(column: string, organizationId: string): this {
    this.parts.push(`${column} = ${this.param(organizationId)}`)
    this.organizationId = organizationId
    return this
  }

  /**
   * `column = value` when value is defined, a filter the table's list counter
   * keeps a count for (the column is named in its list_counts_track trigger).
   */
  counted(column: string, value: string | boolean | undefined): this {
    if (value === undefined) return this
    this.parts.push(`${column} = ${this.param(value)}`)
    this.counterKeys.push(`${column.slice(column.lastIndexOf('.') + 1)}=${String(value)}`)
    return this
  }

  /** The list_counts key that answers the total of these conditions, or undefined when a count(*) must. */
  counterKey(): { organizationId: string; key: string } | undefined {
    if (this.uncounted || this.organizationId === undefined || this.counterKeys.length > 1) return undefined
    return { organizationId: this.organizationId, key: this.counterKeys[0] ?? '' }
  }

  /** Adds `sql` only when value is defined. */
  maybe(value: unknown, sql: string): this {
    return value === undefined ? this : this.add(sql, value)
  }

  /** Whether a search condition was added (its matches come from trigram indexes, migrations/0051). */
  get searched(): boolean {
    return this.hasSearch
  }

  /**
   * Case-insensitive substring match across columns. A text of several words
   * also gets one condition per word (each implied by the whole text) for the
   * trigram indexes to answer, while the whole text is checked on the rows
   * they find through an expression no index takes
   * (`strpos(lower(column), lower(text)) > 0`, what ILIKE '%text%' does without
   * lowering its pattern on every row). The planner then reads the posting
   * lists of the words that narrow the search and leaves aside a word that most
   * rows share ('Contact' of 'Contact 777' over a million contacts: 1,600 index
   * pages, against 8 for '777'); the statistics of each column tell it which
   * (decision 0005). A pattern without letters (' 777') is matched by LIKE,
   * which is ILIKE on such a pattern without lowering every row.
   */
  search(text: string | undefined, columns: string[]): this {
    if (!text) return this
    const like = (s: string) => {
      const op = caseless(s) ? 'LIKE' : 'ILIKE'
      const p = this.param(`%${s.replace(/[\\%_]/g, (c) => '\\' + c)}%`)
      return `(${columns.map((c) => `${c} ${op} ${p}`).join(' OR ')})`
    }
    const words = searchWords(text)
    if (words.length < 2) {
      this.parts.push(like(text))
    } else {
      const t = this.param(text)
      this.parts.push(`(${columns.map((c) => `strpos(lower(${c}), lower(${t})) > 0`).join(' OR ')})`)
      for (const word of words) this.parts.push(like(word))
    }
    this.uncounted = true
    this.hasSearch = true
    return this
  }

  param(value: unknown): string {
    this.params.push(value)
    return `$${this.params.length}`
  }

  toString() {
    return this.parts.length ? this.parts.join(' AND ') : 'TRUE'
  }
}

/**
 * Whether ILIKE and LIKE agree on a pattern: it has ASCII characters only and
 * no letter. No character lowers to an ASCII digit, space or sign, so such a
 * pattern is in the lowered text exactly where it is in the text.
 */
const caseless = (s: string) => /^[\x00-\x40\x5b-\x60\x7b-\x7f]*$/.test(s)

/**
 * The words of a search text that a trigram index can answer: runs of letters
 * and digits of three or more characters (pg_trgm makes no trigram of a
 * shorter one, and a GIN scan without trigrams reads the whole index), each
 * once, none inside another, at most four (the longest). Each is returned
 * with the character that borders it in the text, when one does: ' 777' of
 * 'Contact 777' gives pg_trgm the trigrams of a word that starts with 777
 * ('  7', ' 77'), which 1,131 of a million names have, where '777' alone
 * is in 3,719 (decision 0005). Each is a substring of the text.
 */
export function searchWords(text: string): string[] {
  const runs = [...text.matchAll(/[\p{L}\p{N}]{3,}/gu)].map((m) => ({ word: m[0], at: m.index }))
  const unique = runs.filter((r, i) => runs.findIndex((o) => o.word === r.word) === i).sort((a, b) => b.word.length - a.word.length)
  return unique
    .filter((r, i) => !unique.some((o, j) => j < i && o.word.includes(r.word)))
    .slice(0, 4)
    .map((r) => text.slice(Math.max(0, r.at - 1), r.at + r.word.length + 1))
}

export interface ListSpec<Row, T> {
  /** FROM clause, joins included. */
  from: string
  select: string
  where: Where
  /** API field name to SQL expression, for every sortable field. */
  sortColumns: Record<string, string>
  defaultSort: string
  /** Unique column that breaks ties so pages never overlap. */
  tieBreaker: string
  map: (row: Row) => T
  /**
   * The table whose list_counts_track trigger keeps per-organization counters
   * (migrations/0050): the total is read from them when the conditions are the
   * organization and at most one counted filter (Where.counted).
   */
  counter?: string
  /**
   * The total, when the list knows a cheaper exact way than a count(*) of its
   * conditions (e.g. a counter minus a few rows); searches still count.
   */
  total?: (q: Queryable) => Promise<number>
}

/** The sum of a table's list counters (migrations/0050) of these keys for the organization. */
export async function counterTotal(q: Queryable, table: string, organizationId: string, keys: string[]): Promise<number> {
  const { rows } = await q.query<{ total: number }>(
    'SELECT coalesce(sum(n), 0)::int AS total FROM list_counts WHERE table_name = $1 AND organization_id = $2 AND key = ANY ($3::text[])',
    [table, organizationId, keys],
  )
  return rows[0].total
}

/** The SQL of a list's total: the counter rows when they answer it, else a count(*). */
export function countQuery(spec: Pick<ListSpec<unknown, unknown>, 'from' | 'where' | 'counter'>): { sql: string; params: unknown[] } {
  const key = spec.counter ? spec.where.counterKey() : undefined
  if (key && spec.counter) {
    return {
      sql: 'SELECT coalesce(sum(n), 0)::int AS total FROM list_counts WHERE table_name = $1 AND organization_id = $2 AND key = $3',
      params: [spec.counter, key.organizationId, key.key],
    }
  }
  return { sql: `SELECT count(*)::int AS total FROM ${spec.from} WHERE ${spec.where.toString()}`, params: spec.where.params }
}

/**
 * Runs a search's statements with the planner kept on the trigram bitmaps.
 * PostgreSQL prices a GIN scan by the posting lists of every trigram of the
 * text, so when a word of the search is in most rows ('Contact 777' over a
 * million rows named 'Contact <n>') it expects the bitmap to cost more than
 * walking the sort index and filtering every row of the organization, and
 * picks the walk: seconds instead of 25 ms (decision 0005). Inside one
 * transaction, SET LOCAL takes sequential and plain index scans out of its
 * choices; bitmap scans (every search and every join of a list has an index
 * for one) remain. Statements are prepared once per connection (core/db.ts),
 * and a prepared statement's generic plan cannot see which word of the search
 * is rare (Where.search), so the search is planned for its own values each
 * time (plan_cache_mode, about a millisecond). A caller's open transaction
 * (no tx) runs as it is.
 */
export function withSearchPlanner<T>(q: Queryable, fn: (q: Queryable) => Promise<T>): Promise<T> {
  if (!('tx' in q)) return fn(q)
  return (q as Db).tx(async (t) => {
    await t.query(
      "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true), set_config('plan_cache_mode', 'force_custom_plan', true)",
    )
    return fn(t)
  })
}

/**
 * Cursors (docs/platform.md "Cursor pagination"). A cursor is the position of a
 * page's last row: its sort value and tie-breaker as PostgreSQL's text (exact:
 * microseconds, numerics), and a fingerprint of the list it was made for (FROM,
 * conditions and their values, organization included, sort and direction).
 * The next page is a keyset condition `(sort, tie) > (value, id)` (< for desc),
 * which the `(organization_id, column, id)` indexes answer at any depth; rows
 * inserted or deleted meanwhile shift nothing, unlike an OFFSET. A cursor of
 * another list, filter, sort or organization, or one not made here, is 400.
 */
const fingerprint = (spec: ListSpec<unknown, unknown>, sort: string, dir: string) =>
  createHash('sha256').update(JSON.stringify([spec.from, spec.where.toString(), spec.where.params, sort, spec.tieBreaker, dir])).digest('base64url').slice(0, 22)

type Position = [value: string | null, tie: string]

const badCursor = () => new AppError('INVALID_PARAMETER', 'cursor is malformed, or was made for another list, filter or sort')

function encodeCursor(fp: string, pos: Position): string {
  return Buffer.from(JSON.stringify([fp, ...pos])).toString('base64url')
}

function decodeCursor(cursor: string, fp: string): Position {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw badCursor()
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== fp) throw badCursor()
  const [, value, tie] = parsed
  if ((value !== null && typeof value !== 'string') || typeof tie !== 'string') throw badCursor()
  return [value, tie]
}

/**
 * The rows after `pos` in ORDER BY sort dir, tie dir, where PostgreSQL puts
 * NULLs last in ascending order and first in descending order.
 */
function keyset(sort: string, tie: string, dir: 'ASC' | 'DESC', [value, id]: Position, param: (v: unknown) => string): string {
  const op = dir === 'ASC' ? '>' : '<'
  if (value === null) {
    return dir === 'ASC' ? `(${sort} IS NULL AND ${tie} > ${param(id)})` : `((${sort} IS NULL AND ${tie} < ${param(id)}) OR ${sort} IS NOT NULL)`
  }
  const after = `(${sort}, ${tie}) ${op} (${param(value)}, ${param(id)})`
  return dir === 'ASC' ? `(${after} OR ${sort} IS NULL)` : after
}

/** SQLSTATE class 22 (data exception): a position value the column cannot take. */
const isDataException = (err: unknown) => typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('22')

/**
 * One page with the exact total of matching records: by page number (OFFSET),
 * or after a cursor (keyset). Either way meta.nextCursor continues after the
 * last row; one row more than the page is read to know whether one follows.
 */
export async function paginate<Row, T>(q: Queryable, page: PageParams, spec: ListSpec<Row, T>): Promise<Page<T>> {
  const sort = spec.sortColumns[page.sortBy ?? spec.defaultSort]
  const dir = page.sortOrder === 'asc' ? 'ASC' : 'DESC'
  const fp = fingerprint(spec as ListSpec<unknown, unknown>, sort, dir)
  const position = page.cursor === undefined ? undefined : decodeCursor(page.cursor, fp)
  const params = [...spec.where.params]
  const param = (v: unknown) => `$${params.push(v)}`
  let where = spec.where.toString()
  if (position) where = `(${where}) AND ${keyset(sort, spec.tieBreaker, dir, position, param)}`
  const offset = position ? 0 : (page.page - 1) * page.limit
  const limit = `LIMIT ${param(page.limit + 1)}${position ? '' : ` OFFSET ${param(offset)}`}`
  const order = `ORDER BY ${sort} ${dir}, ${spec.tieBreaker} ${dir} ${limit}`
  const select = `${spec.select}, ${sort} AS cursor_sort_raw__, ${spec.tieBreaker} AS cursor_tie_raw__`
  // The cursor's values are cast to text for the page's rows only, not for every row an OFFSET
  // skips (at page 500 the casts cost more than the page: 2.9 ms against 1.3).
  const positioned = (sql: string) =>
    `SELECT *, cursor_sort_raw__::text AS cursor_sort__, cursor_tie_raw__::text AS cursor_tie__ FROM (${sql}) AS page__ ORDER BY cursor_sort_raw__ ${dir}, cursor_tie_raw__ ${dir}`
  const count = countQuery(spec)
  type Positioned = Row & { cursor_sort__: string | null; cursor_tie__: string; list_total__?: number }
  let total: number
  let rows: Positioned[]
  try {
    if (spec.where.searched) {
      // A search reads its matches through the trigram indexes once, for the page and the
      // total together (the bitmap of a frequent word costs more than the rows it finds).
      // After a cursor the window would count only the rows after it: the total is counted alone.
      ;({ rows, total } = await withSearchPlanner(q, async (t) => {
        const r = await t.query<Positioned>(positioned(`SELECT ${select}${position ? '' : ', count(*) OVER ()::int AS list_total__'} FROM ${spec.from} WHERE ${where} ${order}`), params)
        // Past the last page no row carries the total; it is then counted alone.
        const known = position ? undefined : (r.rows[0]?.list_total__ ?? (offset === 0 ? 0 : undefined))
        return { rows: r.rows, total: known ?? (await t.query<{ total: number }>(count.sql, count.params)).rows[0].total }
      }))
    } else {
      const [counted, r] = await Promise.all([
        spec.total ? spec.total(q) : q.query<{ total: number }>(count.sql, count.params).then((c) => c.rows[0].total),
        q.query<Positioned>(positioned(`SELECT ${select} FROM ${spec.from} WHERE ${where} ${order}`), params),
      ])
      total = counted
      rows = r.rows
    }
  } catch (err) {
    // A position this list could never have written (a forged value of the wrong type).
    if (position && isDataException(err)) throw badCursor()
    throw err
  }
  const more = rows.length > page.limit
  if (more) rows = rows.slice(0, page.limit)
  const last = rows.at(-1)
  const nextCursor = more && last ? encodeCursor(fp, [last.cursor_sort__, last.cursor_tie__]) : null
  return {
    data: rows.map(spec.map),
    meta: position
      ? { total, page: null, limit: page.limit, totalPages: null, nextCursor }
      : { total, page: page.page, limit: page.limit, totalPages: Math.ceil(total / page.limit), nextCursor },
  }
}

/** pagingProperties and a cursor, for a list without a choice of sort (work orders; the processor invoices, paged by offsetPaging). */
export const cursorPagingProperties = { ...pagingProperties, cursor: pageProperties.cursor }

/**
 * Paging of a list the database does not hold (the payment processor's
 * invoices, which it pages by offset): the cursor carries the offset of the
 * next row, so it skips or repeats a row when the other system inserts at the
 * head meanwhile. `key` names the list and its caller (a cursor of another is 400).
 */
export function offsetPaging(page: Pick<PageParams, 'page' | 'limit' | 'cursor'>, key: string) {
  const fp = createHash('sha256').update(`offset:${key}`).digest('base64url').slice(0, 22)
  const start = page.cursor === undefined ? (page.page - 1) * page.limit : Number(decodeCursor(page.cursor, fp)[1])
  if (!Number.isSafeInteger(start) || start < 0) throw badCursor()
  return {
    /** The offset and size to ask the other system for (page is 1-based, offset / limit + 1 when the cursor's offset is not a page boundary). */
    offset: start,
    page<T>(data: T[], total: number): Page<T> {
      const next = start + data.length
      const nextCursor = data.length && next < total ? encodeCursor(fp, [null, String(next)]) : null
      return {
        data,
        meta: page.cursor === undefined
          ? { total, page: page.page, limit: page.limit, totalPages: Math.ceil(total / page.limit), nextCursor }
          : { total, page: null, limit: page.limit, totalPages: null, nextCursor },
      }
    },
  }
}

/** The envelope of a list known to be empty without a query (meta as paginate writes it). */
export function emptyPage<T>(page: Pick<PageParams, 'page' | 'limit' | 'cursor'>): Page<T> {
  return { data: [], meta: { total: 0, page: page.cursor === undefined ? page.page : null, limit: page.limit, totalPages: page.cursor === undefined ? 0 : null, nextCursor: null } }
}

/**
 * Refuses `cursor` together with `page` (400). Runs before validation, while
 * the query still holds only what the caller sent (page gets its default 1
 * during validation).
 */
export function installCursorRule(app: FastifyInstance) {
  app.addHook('preValidation', async (req) => {
    const query = req.query as Record<string, unknown> | undefined
    if (query && query.cursor !== undefined && query.page !== undefined) throw new AppError('INVALID_PARAMETER', 'cursor and page cannot be combined: a cursor continues where its answer ended')
  })
}

/**
 * SET clause of a partial update: only the fields present in patch, mapped to
 * their columns, parameters numbered after `offset` existing ones.
 */
export function setClause(patch: Record<string, unknown>, columns: Record<string, string>, offset: number) {
  const sets: string[] = []
  const params: unknown[] = []
  for (const [field, column] of Object.entries(columns)) {
    if (patch[field] === undefined) continue
    params.push(patch[field])
    sets.push(`${column} = $${offset + params.length}`)
  }
  return { sql: sets.join(', '), params }
}
