import { Type, type Static, type TObject, type TOptional, type TProperties, type TSchema, type TUnsafe } from 'typebox'
import { Named, StringEnum } from './schemas.ts'
import type { Db, Queryable } from './db.ts'

/**
 * SPEC 4.12: page 1-based, limit default 20 and at most 100, sortOrder default desc.
 * page is bounded so that its offset stays a safe integer and a PostgreSQL bigint
 * (an unbounded page reached the database as 1e20 and failed with 500). Exported
 * alone for lists that page without sorting (the processor's invoices).
 */
export const pagingProperties = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 1, description: '1-based page number' }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, at most 100' }),
}
const pageProperties = {
  ...pagingProperties,
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
}

const Meta = Named('PageMeta', Type.Object({
  total: Type.Integer({ description: 'Records matching the filters, across every page' }),
  page: Type.Integer(),
  limit: Type.Integer(),
  totalPages: Type.Integer(),
}))

/** SPEC 2.12 envelope around one item schema; publish it with Named('<Item>List', listOf(Item)). */
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
   * they find through an expression no index takes (`(column || '')`). The
   * planner then reads the posting lists of the words that narrow the search
   * and leaves aside a word that most rows share ('Contact' of 'Contact 777'
   * over a million contacts: 1,600 index pages, against 8 for '777'); the
   * statistics of each column tell it which (decision 0005).
   */
  search(text: string | undefined, columns: string[]): this {
    if (!text) return this
    const like = (s: string) => this.param(`%${s.replace(/[\\%_]/g, (c) => '\\' + c)}%`)
    const p = like(text)
    const words = searchWords(text)
    if (words.length < 2) {
      this.parts.push(`(${columns.map((c) => `${c} ILIKE ${p}`).join(' OR ')})`)
    } else {
      this.parts.push(`(${columns.map((c) => `(${c} || '') ILIKE ${p}`).join(' OR ')})`)
      for (const word of words) {
        const w = like(word)
        this.parts.push(`(${columns.map((c) => `${c} ILIKE ${w}`).join(' OR ')})`)
      }
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
 * The words of a search text that a trigram index can answer: runs of letters
 * and digits of three or more characters (pg_trgm makes no trigram of a
 * shorter one, and a GIN scan without trigrams reads the whole index), each
 * once, none inside another, at most four (the longest).
 */
export function searchWords(text: string): string[] {
  const runs = [...new Set((text.match(/[\p{L}\p{N}]{3,}/gu) ?? []))].sort((a, b) => b.length - a.length)
  const words = runs.filter((w, i) => !runs.some((o, j) => j < i && o.includes(w)))
  return words.slice(0, 4)
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

/** One page with the exact total of matching records. */
export async function paginate<Row, T>(q: Queryable, page: PageParams, spec: ListSpec<Row, T>): Promise<Page<T>> {
  const sort = spec.sortColumns[page.sortBy ?? spec.defaultSort]
  const dir = page.sortOrder === 'asc' ? 'ASC' : 'DESC'
  const where = spec.where.toString()
  const params = spec.where.params
  const n = params.length
  const offset = (page.page - 1) * page.limit
  const order = `ORDER BY ${sort} ${dir}, ${spec.tieBreaker} ${dir} LIMIT $${n + 1} OFFSET $${n + 2}`
  const count = countQuery(spec)
  let total: number
  let rows: Row[]
  if (spec.where.searched) {
    // A search reads its matches through the trigram indexes once, for the page and the
    // total together (the bitmap of a frequent word costs more than the rows it finds).
    ;({ rows, total } = await withSearchPlanner(q, async (t) => {
      const r = await t.query<Row>(
        `SELECT ${spec.select}, count(*) OVER ()::int AS list_total__ FROM ${spec.from} WHERE ${where} ${order}`,
        [...params, page.limit, offset],
      )
      // Past the last page no row carries the total; it is then counted alone.
      const first = r.rows[0] as { list_total__?: number } | undefined
      return { rows: r.rows, total: first?.list_total__ ?? (offset === 0 ? 0 : (await t.query<{ total: number }>(count.sql, count.params)).rows[0].total) }
    }))
  } else {
    const [counted, r] = await Promise.all([
      spec.total ? spec.total(q) : q.query<{ total: number }>(count.sql, count.params).then((c) => c.rows[0].total),
      q.query<Row>(`SELECT ${spec.select} FROM ${spec.from} WHERE ${where} ${order}`, [...params, page.limit, offset]),
    ])
    total = counted
    rows = r.rows
  }
  return {
    data: rows.map(spec.map),
    meta: { total, page: page.page, limit: page.limit, totalPages: Math.ceil(total / page.limit) },
  }
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
