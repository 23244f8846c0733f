// A second process for test/worker.test.ts: drains the scratch queue of the
// PostgreSQL database DATABASE_URL (the rows the test made) and exits.
import Fastify from 'fastify'
import { openDb } from '../../src/core/db.ts'
import { scratchQueue } from './worker.ts'

const db = await openDb({ databaseUrl: process.env.DATABASE_URL, dataDir: 'memory://' })
const queue = scratchQueue(db, Fastify({ logger: false }).log, 'child', {}, Number(process.env.SCRATCH_DELAY_MS ?? 2))
const result = await queue.drain()
await db.close()
process.stdout.write(JSON.stringify(result))
