// Prints the SQL an operator runs on a Citus coordinator after the migrations
// (docs/scale-out.md "Citus"): create_reference_table for each reference table,
// then create_distributed_table for the organizations and every table
// colocated with them, in foreign key order. Read from pg_catalog by
// src/core/citus.ts, the reader test/citus-ready.test.ts checks.
//
//   npx tsx scripts/citus.ts               the schema of the migrations (an in-memory PGlite)
//   npx tsx scripts/citus.ts --database    the schema of DATABASE_URL, as it is (nothing applied)
//   npx tsx scripts/citus.ts --markdown    the tables by Citus role, as the README's table
// It stops with exit code 1, listing them, while the schema breaks a rule.
import { citusMarkdown, citusSql, readCitusSchema } from '../src/core/citus.ts'
import { openDb } from '../src/core/db.ts'
import { migrate } from '../src/core/migrate.ts'

const args = new Set(process.argv.slice(2))
const fromDatabase = args.has('--database')
if (fromDatabase && !process.env.DATABASE_URL) {
  console.error('--database reads DATABASE_URL, which is not set')
  process.exit(2)
}
const db = await openDb(fromDatabase ? { databaseUrl: process.env.DATABASE_URL, dataDir: '', pgPoolSize: 1 } : { dataDir: 'memory://' })
try {
  if (!fromDatabase) await migrate(db)
  const schema = await readCitusSchema(db)
  if (schema.violations.length) {
    console.error(`The schema breaks ${schema.violations.length} Citus rule(s):\n${schema.violations.map((v) => `- ${v}`).join('\n')}`)
    process.exitCode = 1
  } else process.stdout.write(args.has('--markdown') ? citusMarkdown(schema) : citusSql(schema))
} finally {
  await db.close()
}
