// Imports (issue 28): a 50,000-contact CSV file (BENCH_IMPORTS_ROWS) imported
// end to end through the HTTP API of a listening server: POST /api/imports
// (multipart, the file streamed), then GET /api/imports/:id polled every
// 100 ms until it ends, the import run by the app's own queue worker (woken
// by NOTIFY). Then the same file again as a dry run, into a fresh
// organization. Measured: rows per second from the POST to the end, and the
// peak growth of the process's RSS over its value before the POST (sampled
// every 50 ms). On PGlite (in this process's memory) and, when
// BENCH_DATABASE_URL or DATABASE_URL is set, on PostgreSQL (a fresh database).
// Goal (docs/imports.md "Limits"): at least 5,000 rows/s on PostgreSQL, RSS
// growth under 100 MiB.
//
//   npx tsx bench/imports.ts
import { randomBytes } from 'node:crypto'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createDatabase } from '../test/helpers/app.ts'

const ROWS = Number(process.env.BENCH_IMPORTS_ROWS ?? 50_000)

function csvFile(rows: number) {
  const lines = ['name,email,phone,vendor,leadTimeDays']
  const tag = randomBytes(3).toString('hex')
  for (let i = 1; i <= rows; i++) lines.push(`"Contact ${i}, Ltd",contact-${tag}-${i}@example.com,+1 555 ${String(i).padStart(6, '0')},${i % 5 === 0},${i % 30}`)
  return Buffer.from(lines.join('\r\n') + '\r\n')
}

async function importOnce(base: string, label: string, file: Buffer, dryRun: boolean) {
  const reg = await fetch(`${base}/api/auth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ organizationName: `Bench imports ${label}`, name: 'Bench', email: `bench-i-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' }),
  })
  const { accessToken } = (await reg.json()) as { accessToken: string }
  const headers = { authorization: `Bearer ${accessToken}` }
  global.gc?.()
  const rss0 = process.memoryUsage().rss
  let peak = rss0
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
  const started = performance.now()
  const form = new FormData()
  form.set('resource', 'contacts')
  form.set('dryRun', String(dryRun))
  form.set('file', new Blob([new Uint8Array(file)], { type: 'text/csv' }), 'contacts.csv')
  const post = await fetch(`${base}/api/imports`, { method: 'POST', headers, body: form })
  if (post.status !== 202) throw new Error(`POST /imports: ${post.status} ${await post.text()}`)
  const accepted = performance.now()
  let imp = (await post.json()) as { id: string; status: string; created: number; errors: unknown[]; processedRows: number }
  const progress: number[] = []
  while (imp.status === 'pending' || imp.status === 'running') {
    await new Promise((r) => setTimeout(r, 100))
    imp = (await (await fetch(`${base}/api/imports/${imp.id}`, { headers })).json()) as typeof imp
    progress.push(imp.processedRows)
  }
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  if (imp.status !== 'succeeded' || imp.created !== ROWS) throw new Error(`import ${imp.status}: ${JSON.stringify(imp).slice(0, 500)}`)
  const growth = (peak - rss0) / 2 ** 20
  const line = `${label}${dryRun ? ' dry run' : ''}: ${ROWS} contacts (${(file.length / 2 ** 20).toFixed(1)} MiB CSV) in ${seconds.toFixed(1)} s = ${Math.round(ROWS / seconds)} rows/s ` +
    `(upload answered 202 after ${((accepted - started) / 1000).toFixed(1)} s), peak RSS +${growth.toFixed(0)} MiB over ${(rss0 / 2 ** 20).toFixed(0)} MiB; ` +
    `processedRows seen: ${[...new Set(progress)].length} distinct values`
  console.log(line)
  return line
}

async function run(label: string, databaseUrl?: string) {
  const config = loadConfig({ ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), DATA_DIR: 'memory://', RATE_LIMIT: 'off', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789' })
  const app = await buildApp(config, { logger: false })
  await app.services.imports!.queue.start()
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  try {
    const file = csvFile(ROWS)
    await importOnce(address, label, file, false)
    await importOnce(address, label, csvFile(ROWS), true)
  } finally {
    await app.services.imports!.queue.stop()
    await app.close()
  }
}

const pgBase = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL
if (pgBase) {
  const db = await createDatabase(pgBase, 'bp_bench')
  try {
    await run('PostgreSQL', db.url)
  } finally {
    await db.drop()
  }
}
if (process.env.BENCH_IMPORTS_PGLITE !== 'off') await run('PGlite')
