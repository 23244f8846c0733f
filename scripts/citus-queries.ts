// The queries' side of Citus (docs/scale-out.md "Queries of one organization"):
// a statement reaches one worker only when every distributed table it names is
// pinned to one organization, by `organization_id = <a value>` or by equality
// with the organization_id of a table pinned so (a join, a correlated
// subquery). Citus refuses a join between distributed tables on anything but
// that column, and runs a statement with an unpinned table on every shard.
//
// The statements are the ones the test suite sends: with SQL_CAPTURE=<folder>
// set, each process writes every distinct SQL text it sends to PostgreSQL
// there (src/core/db.ts); CI does so in the PostgreSQL run, then
//   npx tsx scripts/citus-queries.ts <folder>
// parses each statement with PostgreSQL's own parser (libpg-query) and stops
// with exit code 1, listing them, on statements that leave a distributed
// table unpinned. A statement that reads or writes across organizations by
// design (a job over every organization, a queue's claim, a lookup by a
// credential before its organization is known) says so with a comment in its
// SQL, `/* across organizations: <why> */`, and is listed, not refused.
import { readdirSync, readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { loadModule, parseSync } from 'libpg-query'

/** The comment that marks a statement meant to span organizations. */
export const ACROSS = /\/\*\s*across organizations:\s*([^*]+?)\s*\*\//

type Node = Record<string, any>
interface Col {
  alias: string | null
  col: string
}

const colRef = (n: Node | undefined): Col | null => {
  if (n?.TypeCast) return colRef(n.TypeCast.arg)
  const f = n?.ColumnRef?.fields as Node[] | undefined
  if (!f || f.some((x) => !x.String)) return null
  const names = f.map((x) => x.String.sval as string)
  return { alias: names.length > 1 ? names[names.length - 2] : null, col: names[names.length - 1] }
}
/** A value fixed for the statement: a parameter, a literal, or a cast of one. */
const isValue = (n: Node | undefined): boolean => !!n && (!!n.ParamRef || !!n.A_Const || (!!n.TypeCast && isValue(n.TypeCast.arg)))
const conjuncts = (e: Node | undefined): Node[] => (!e ? [] : e.BoolExpr?.boolop === 'AND_EXPR' ? e.BoolExpr.args.flatMap(conjuncts) : [e])
const ctesOf = (w: Node | undefined): Node[] => (w ? ((w.WithClause ?? w).ctes as Node[]) : [])

interface Scope {
  table: string
  pinned: boolean
}

/**
 * The distributed tables a statement leaves unpinned, as `table` or `table alias`.
 * `distributed` maps each distributed table to its distribution column.
 */
export function unpinned(stmt: Node, distributed: ReadonlyMap<string, string>): string[] {
  const found: string[] = []
  const statement = (s: Node, outer: Map<string, Scope>, ctes: Set<string>) => {
    if (s.SelectStmt) block(s.SelectStmt, outer, ctes)
    else if (s.UpdateStmt) block(s.UpdateStmt, outer, ctes, s.UpdateStmt.relation)
    else if (s.DeleteStmt) block(s.DeleteStmt, outer, ctes, s.DeleteStmt.relation)
    else if (s.InsertStmt) {
      const local = withCtes(s.InsertStmt.withClause, outer, ctes)
      const sel = s.InsertStmt.selectStmt
      if (sel && !sel.SelectStmt?.valuesLists) statement(sel, outer, local)
    }
  }
  const withCtes = (w: Node | undefined, outer: Map<string, Scope>, ctes: Set<string>) => {
    const local = new Set(ctes)
    for (const c of ctesOf(w)) {
      local.add(c.CommonTableExpr.ctename)
      statement(c.CommonTableExpr.ctequery, outer, local)
    }
    return local
  }
  const block = (b: Node, outer: Map<string, Scope>, ctes: Set<string>, target?: Node) => {
    if (b.op && b.op !== 'SETOP_NONE') {
      const local = withCtes(b.withClause, outer, ctes)
      statement({ SelectStmt: b.larg }, outer, local)
      statement({ SelectStmt: b.rarg }, outer, local)
      return
    }
    const local = withCtes(b.withClause, outer, ctes)
    const refs = new Map<string, string>()
    const quals: Node[] = []
    const subqueries: Node[] = []
    const from = (n: Node | undefined) => {
      if (!n) return
      if (n.RangeVar) {
        if (!local.has(n.RangeVar.relname)) refs.set(n.RangeVar.alias?.aliasname ?? n.RangeVar.relname, n.RangeVar.relname)
      } else if (n.JoinExpr) {
        from(n.JoinExpr.larg)
        from(n.JoinExpr.rarg)
        quals.push(...conjuncts(n.JoinExpr.quals))
        subqueries.push(n.JoinExpr.quals)
      } else if (n.RangeSubselect) subqueries.push({ FromSubquery: n.RangeSubselect.subquery, lateral: n.RangeSubselect.lateral })
    }
    if (target) from({ RangeVar: target })
    for (const n of (b.fromClause ?? b.usingClause ?? []) as Node[]) from(n)
    quals.push(...conjuncts(b.whereClause))

    const scope = new Map(outer)
    for (const [a, t] of refs) scope.set(a, { table: t, pinned: false })
    const aliasOf = (c: Col) => c.alias ?? (refs.size === 1 ? [...refs.keys()][0] : null)
    const isOrg = (c: Col | null) => {
      if (!c) return false
      const t = scope.get(aliasOf(c) ?? '')?.table
      return !!t && distributed.get(t) === c.col
    }
    const pin = (c: Col) => {
      const s = scope.get(aliasOf(c) ?? '')
      if (!s || s.pinned) return false
      scope.set(aliasOf(c)!, { ...s, pinned: true })
      return true
    }
    const pinnedCol = (c: Col) => !!scope.get(aliasOf(c) ?? '')?.pinned
    for (let changed = true; changed; ) {
      changed = false
      for (const q of quals) {
        const e = q.A_Expr
        if (!e || e.kind !== 'AEXPR_OP' || e.name?.[0]?.String?.sval !== '=') continue
        const l = colRef(e.lexpr)
        const r = colRef(e.rexpr)
        if (isOrg(l) && isValue(e.rexpr)) changed = pin(l!) || changed
        if (isOrg(r) && isValue(e.lexpr)) changed = pin(r!) || changed
        if (isOrg(l) && isOrg(r)) {
          if (pinnedCol(l!)) changed = pin(r!) || changed
          if (pinnedCol(r!)) changed = pin(l!) || changed
        }
      }
    }
    for (const [a, t] of refs) if (distributed.has(t) && !scope.get(a)!.pinned) found.push(a === t ? t : `${t} ${a}`)
    for (const sq of subqueries) if (sq?.FromSubquery) statement(sq.FromSubquery, sq.lateral ? scope : outer, local)
    const sublinks = (n: unknown) => {
      if (Array.isArray(n)) n.forEach(sublinks)
      else if (n && typeof n === 'object') {
        const o = n as Node
        if (o.SubLink) return statement(o.SubLink.subselect, scope, local)
        for (const v of Object.values(o)) sublinks(v)
      }
    }
    sublinks([b.whereClause, b.targetList, b.havingClause, b.returningList, subqueries.filter((s) => !s?.FromSubquery)])
  }
  statement(stmt, new Map(), new Set())
  return [...new Set(found)]
}

export interface QueryCheck {
  /** Statements that leave a distributed table unpinned, without the comment. */
  refused: { sql: string; tables: string[] }[]
  /** Statements across organizations by design, with their reason. */
  across: { sql: string; tables: string[]; why: string }[]
  checked: number
}

/** Checks SQL texts (each one or more statements); DDL (the migrations) is skipped. */
export async function checkQueries(texts: Iterable<string>, distributed: ReadonlyMap<string, string>): Promise<QueryCheck> {
  await loadModule()
  const out: QueryCheck = { refused: [], across: [], checked: 0 }
  for (const sql of texts) {
    const stmts = (parseSync(sql).stmts ?? []) as Node[]
    if (!stmts.every((s) => s.stmt.SelectStmt || s.stmt.InsertStmt || s.stmt.UpdateStmt || s.stmt.DeleteStmt)) continue
    const tables = [...new Set(stmts.flatMap((s) => unpinned(s.stmt, distributed)))]
    out.checked++
    if (!tables.length) continue
    const why = ACROSS.exec(sql)?.[1]
    if (why) out.across.push({ sql, tables, why })
    else out.refused.push({ sql, tables })
  }
  return out
}

/** The SQL texts a SQL_CAPTURE folder holds (one JSON string per line, a file per process). */
export function readCaptured(folder: string): Set<string> {
  const texts = new Set<string>()
  for (const f of readdirSync(folder)) for (const line of readFileSync(`${folder}/${f}`, 'utf8').split('\n')) if (line) texts.add(JSON.parse(line))
  return texts
}

const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim()

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folder = process.argv[2]
  if (!folder) {
    console.error('usage: npx tsx scripts/citus-queries.ts <SQL_CAPTURE folder>')
    process.exit(2)
  }
  const { openDb } = await import('../src/core/db.ts')
  const { migrate } = await import('../src/core/migrate.ts')
  const { readCitusSchema } = await import('../src/core/citus.ts')
  const db = await openDb({ dataDir: 'memory://' })
  let distributed: Map<string, string>
  try {
    await migrate(db)
    distributed = new Map((await readCitusSchema(db)).tables.filter((t) => t.role === 'distributed').map((t) => [t.name, t.column!]))
  } finally {
    await db.close()
  }
  const result = await checkQueries(readCaptured(folder), distributed)
  const reasons = new Map<string, Set<string>>()
  for (const a of result.across) for (const t of a.tables) reasons.set(a.why, (reasons.get(a.why) ?? new Set()).add(t.split(' ')[0]))
  console.log(`${result.checked} statements checked; ${result.across.length} across organizations by design, for ${reasons.size} reasons:`)
  for (const [why, tables] of [...reasons].sort()) console.log(`- ${why} (${[...tables].sort().join(', ')})`)
  if (result.refused.length) {
    console.error(`\n${result.refused.length} statement(s) leave a distributed table without its organization:`)
    for (const r of result.refused) console.error(`- ${r.tables.join(', ')}: ${oneLine(r.sql).slice(0, 400)}`)
    process.exitCode = 1
  }
}
