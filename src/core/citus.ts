import type { Queryable } from './db.ts'

/**
 * The schema as Citus would hold it (docs/scale-out.md "Citus"). Citus
 * spreads a distributed table over its workers by one column, here
 * `organization_id`, and keeps a reference table whole on every node. Its
 * rules, checked here from `pg_catalog` after the migrations (by
 * test/citus-ready.test.ts) and used to write the calls an operator runs
 * (scripts/citus.ts):
 * - every table of schema public is distributed (it has `organization_id`;
 *   `organizations` itself by `id`), a reference table or a coordinator-local
 *   table, each of the last two listed below with its reason;
 * - a distributed table's primary key and every UNIQUE constraint or unique
 *   index include `organization_id` (rows of one key live on one shard);
 * - a foreign key between distributed tables includes `organization_id` on
 *   both sides (both rows are on one shard);
 * - a reference table refers to no distributed table, and a coordinator-local
 *   table is tied by no foreign key to a distributed or reference table.
 */

/** Tables without an organization, copied whole to every node: read by every tenant, written rarely. */
export const REFERENCE_TABLES: Readonly<Record<string, string>> = {
  settings: 'global settings of the service (signing secrets, the instance id): read by every process and tenant, written once',
  schema_migrations: 'the migrations applied; the same for every tenant',
  license_signing_keys: 'the keys that sign license tokens of every organization; rotated rarely',
}

/**
 * Tables without an organization that stay on the coordinator only (plain
 * PostgreSQL tables there): written often, or before any organization is
 * known, and never joined with a tenant table.
 */
export const COORDINATOR_LOCAL_TABLES: Readonly<Record<string, string>> = {
  scheduled_jobs: 'one row per job of the service, claimed by a conditional UPDATE each interval; belongs to no organization',
  idempotency_keys: 'keyed by the credential scope and the Idempotency-Key, read and written around the request before the route runs',
  login_failures: 'counted per email before the login knows the user or its organization',
  user_emails: "the one table that keeps an email unique across organizations (a user's own row is distributed), read by the login before any organization is known",
  billing_events: "the payment processor's webhook events, keyed by its event id, recorded before the organization is known",
  billing_subscriptions:
    "the processor's subscriptions as its events report them: one may arrive before its customer is known and get its organization later, which Citus cannot do to a distribution column; read only with organization_id and user_id given",
  billing_payments: "the processor's paid invoices, keyed by its invoice id; joined only with billing_refunds",
  billing_refunds: "the processor's refunds, keyed by its payment intent; joined only with billing_payments",
  local_customers: 'the built-in test payment processor (PAYMENT_PROCESSOR=local): the storage of an outside service, not of the tenants',
  local_payment_methods: 'the built-in test payment processor, as local_customers',
  local_checkout_sessions: 'the built-in test payment processor, as local_customers',
  local_subscriptions: 'the built-in test payment processor, as local_customers',
  local_invoices: 'the built-in test payment processor, as local_customers',
  local_portal_sessions: 'the built-in test payment processor, as local_customers',
  local_events: 'the built-in test payment processor, as local_customers',
}

export const DISTRIBUTION_COLUMN = 'organization_id'
/** The table every distributed table is colocated with, distributed by its own id. */
export const ROOT_TABLE = 'organizations'

export type CitusRole = 'distributed' | 'reference' | 'coordinator-local'

export interface CitusTable {
  name: string
  role: CitusRole
  /** The distribution column of a distributed table. */
  column?: string
  /** Why a reference or coordinator-local table is one. */
  reason?: string
}

export interface CitusForeignKey {
  name: string
  table: string
  columns: string[]
  refTable: string
  refColumns: string[]
  /** As pg_get_constraintdef spells it. */
  definition: string
}

export interface CitusSchema {
  tables: CitusTable[]
  foreignKeys: CitusForeignKey[]
  violations: string[]
}

/** Reads schema public from pg_catalog: each table's role, the foreign keys, and every rule broken. */
export async function readCitusSchema(q: Queryable): Promise<CitusSchema> {
  const tables = (
    await q.query<{ name: string; has_org: boolean; org_nullable: boolean }>(
      `SELECT c.relname AS name, a.attname IS NOT NULL AS has_org, coalesce(NOT a.attnotnull, false) AS org_nullable
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        ORDER BY c.relname`,
      [DISTRIBUTION_COLUMN],
    )
  ).rows
  const uniques = (
    await q.query<{ table: string; index: string; primary: boolean; columns: string[] | null; definition: string }>(
      `SELECT c.relname AS "table", i.relname AS "index", x.indisprimary AS "primary",
              (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum) AS columns,
              pg_get_indexdef(i.oid) AS definition
         FROM pg_index x
         JOIN pg_class c ON c.oid = x.indrelid
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND x.indisunique
        ORDER BY 1, 2`,
    )
  ).rows
  const foreignKeys = (
    await q.query<CitusForeignKey>(
      `SELECT con.conname AS name, c.relname AS "table", r.relname AS "refTable", pg_get_constraintdef(con.oid) AS definition,
              (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum) AS columns,
              (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum) AS "refColumns"
         FROM pg_constraint con
         JOIN pg_class c ON c.oid = con.conrelid
         JOIN pg_class r ON r.oid = con.confrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND con.contype = 'f'
        ORDER BY 2, 1`,
    )
  ).rows

  const violations: string[] = []
  const classified: CitusTable[] = []
  for (const t of tables) {
    const reference = REFERENCE_TABLES[t.name]
    const local = COORDINATOR_LOCAL_TABLES[t.name]
    if (t.name === ROOT_TABLE) classified.push({ name: t.name, role: 'distributed', column: 'id' })
    else if (reference !== undefined) classified.push({ name: t.name, role: 'reference', reason: reference })
    else if (local !== undefined) classified.push({ name: t.name, role: 'coordinator-local', reason: local })
    else if (t.has_org) classified.push({ name: t.name, role: 'distributed', column: DISTRIBUTION_COLUMN })
    else {
      violations.push(`table ${t.name}: no ${DISTRIBUTION_COLUMN}, and not listed as a reference or coordinator-local table (src/core/citus.ts)`)
      continue
    }
    // A coordinator-local table may name an organization (billing_subscriptions); a reference table, copied to every node, may not.
    if (reference !== undefined && t.has_org) violations.push(`table ${t.name}: has ${DISTRIBUTION_COLUMN} but is listed as a reference table`)
    if (t.name !== ROOT_TABLE && reference === undefined && local === undefined && t.org_nullable) violations.push(`table ${t.name}: ${DISTRIBUTION_COLUMN} may be NULL (Citus refuses a row without its distribution column)`)
  }
  for (const name of [...Object.keys(REFERENCE_TABLES), ...Object.keys(COORDINATOR_LOCAL_TABLES)]) {
    if (!tables.some((t) => t.name === name)) violations.push(`table ${name}: listed in src/core/citus.ts but not in the schema`)
  }
  const role = new Map(classified.map((t) => [t.name, t]))

  for (const u of uniques) {
    const t = role.get(u.table)
    if (t?.role !== 'distributed') continue
    if (!(u.columns ?? []).includes(t.column!)) {
      violations.push(`${u.primary ? 'primary key' : 'unique index'} ${u.index} of ${u.table} lacks ${t.column}: ${u.definition.replace(/^CREATE UNIQUE INDEX \S+ ON public\.\S+ USING btree /, '')}`)
    }
  }
  for (const fk of foreignKeys) {
    const from = role.get(fk.table)
    const to = role.get(fk.refTable)
    if (!from || !to) continue
    const spelled = `foreign key ${fk.name}: ${fk.table} (${fk.columns.join(', ')}) -> ${fk.refTable} (${fk.refColumns.join(', ')})`
    if (from.role === 'distributed' && to.role === 'distributed') {
      // Both distribution columns at the same position of the key: each row and the row it names are on one shard.
      const at = fk.columns.indexOf(from.column!)
      if (at < 0 || fk.refColumns[at] !== to.column) violations.push(`${spelled} between distributed tables does not pair ${from.column} with ${to.column}`)
    } else if (from.role === 'reference' && to.role === 'distributed') violations.push(`${spelled} from a reference table to a distributed table`)
    else if ((from.role === 'coordinator-local') !== (to.role === 'coordinator-local')) violations.push(`${spelled} between a coordinator-local table and a ${from.role === 'coordinator-local' ? to.role : from.role} table`)
  }
  return { tables: classified, foreignKeys, violations }
}

/**
 * The distributed tables in an order where each comes after the tables its
 * foreign keys name (create_distributed_table of a table whose foreign key
 * names a table not yet distributed fails), and the foreign keys that close a
 * cycle (orders and invoices name each other): those are dropped before and
 * added again after. Self-references need neither.
 */
export function foreignKeyOrder(schema: CitusSchema): { tables: CitusTable[]; deferred: CitusForeignKey[] } {
  const distributed = schema.tables.filter((t) => t.role === 'distributed')
  const byName = new Map(distributed.map((t) => [t.name, t]))
  const edges = schema.foreignKeys.filter((fk) => byName.has(fk.table) && byName.has(fk.refTable) && fk.table !== fk.refTable)
  const out: CitusTable[] = []
  const deferred: CitusForeignKey[] = []
  const done = new Set<string>()
  const visiting = new Set<string>()
  const visit = (t: CitusTable) => {
    if (done.has(t.name)) return
    visiting.add(t.name)
    for (const fk of edges.filter((e) => e.table === t.name).sort((a, b) => a.refTable.localeCompare(b.refTable) || a.name.localeCompare(b.name))) {
      if (visiting.has(fk.refTable)) deferred.push(fk)
      else visit(byName.get(fk.refTable)!)
    }
    visiting.delete(t.name)
    done.add(t.name)
    out.push(t)
  }
  // The root first: every other table is colocated with it.
  for (const t of [...distributed].sort((a, b) => (a.name === ROOT_TABLE ? -1 : b.name === ROOT_TABLE ? 1 : a.name.localeCompare(b.name)))) visit(t)
  return { tables: out, deferred }
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`

/**
 * The SQL an operator runs on a Citus coordinator after the migrations:
 * reference tables first, then the root table and every distributed table
 * colocated with it, each after the tables its foreign keys name.
 */
export function citusSql(schema: CitusSchema): string {
  const lines = ['-- Generated by `npx tsx scripts/citus.ts` from pg_catalog (src/core/citus.ts). Run on the Citus coordinator after the migrations.', 'BEGIN;']
  lines.push('-- Reference tables: copied whole to every node.')
  for (const t of schema.tables.filter((t) => t.role === 'reference')) lines.push(`SELECT create_reference_table(${literal(t.name)});`)
  lines.push(`-- Distributed tables, by ${DISTRIBUTION_COLUMN} (${ROOT_TABLE} by id), colocated, in foreign key order.`)
  const { tables, deferred } = foreignKeyOrder(schema)
  if (deferred.length) lines.push('-- Foreign keys that close a cycle: dropped here, added again once both tables are distributed.')
  for (const fk of deferred) lines.push(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name};`)
  for (const t of tables) {
    if (t.name === ROOT_TABLE) lines.push(`SELECT create_distributed_table(${literal(t.name)}, ${literal(t.column!)});`)
    else lines.push(`SELECT create_distributed_table(${literal(t.name)}, ${literal(t.column!)}, colocate_with => ${literal(ROOT_TABLE)});`)
  }
  for (const fk of deferred) lines.push(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} ${fk.definition};`)
  const local = schema.tables.filter((t) => t.role === 'coordinator-local')
  if (local.length) lines.push(`-- Left on the coordinator as plain tables: ${local.map((t) => t.name).join(', ')}.`)
  lines.push('COMMIT;')
  return lines.join('\n') + '\n'
}

/** The tables by Citus role, as a Markdown table (the README's "Tables by Citus role"). */
export function citusMarkdown(schema: CitusSchema): string {
  const rows = ['| Table | Citus role | Distribution column or reason |', '| --- | --- | --- |']
  const order: CitusRole[] = ['distributed', 'reference', 'coordinator-local']
  for (const r of order) {
    for (const t of schema.tables.filter((t) => t.role === r)) {
      const note = r === 'distributed' ? `\`${t.column}\`${t.name === ROOT_TABLE ? ' (the root; the others are colocated with it)' : ''}` : t.reason!.replace(/\|/g, '\\|')
      rows.push(`| \`${t.name}\` | ${r} | ${note} |`)
    }
  }
  return rows.join('\n') + '\n'
}
