import { Type } from 'typebox'
import type { FastifyBaseLogger } from 'fastify'
import { ADMIN, principalOf } from './auth.ts'
import type { Db } from './db.ts'
import { NotFoundError } from './errors.ts'
import type { App } from './http.ts'
import { Named, responses } from './schemas.ts'

/**
 * Whose records one run of a job may touch and report. The scheduler runs a
 * job for every organization (`{}`); an admin's run (POST
 * /admin/jobs/:name/run) names the admin's organization, and the job then
 * changes, sends, deletes and counts only that organization's rows
 * (docs/platform.md "Jobs", docs/architecture.md "Jobs"). Rows of no organization
 * (mail of no organization, idempotency keys of anonymous callers) are the
 * scheduler's alone.
 */
export interface JobScope {
  /** Only this organization; absent: every organization (a scheduled run). */
  organizationId?: string
}

export interface Job {
  /** Name used by POST /admin/jobs/:name/run. */
  name: string
  description: string
  /** The job runs once per interval across all processes (queues run in every process: core/worker.ts). */
  intervalMs: number
  /**
   * Does the work once and tells what it changed, within `scope` (every
   * organization, or only the one an admin's run names: see JobScope).
   * Must be safe to run in several processes at once.
   */
  run(scope: JobScope): Promise<Record<string, unknown>>
}

/**
 * Scheduled background jobs; each also runs on demand through the admin route.
 * Every process ticks, but a job runs only in the process that claims its
 * interval: one conditional update of its `scheduled_jobs` row, so two
 * processes never both run it for the same interval. Queues (mail, report
 * runs) are the kernel worker's (core/worker.ts); their jobs run one pass.
 */
export class Jobs {
  private readonly jobs = new Map<string, Job>()
  private readonly timers: NodeJS.Timeout[] = []
  private readonly busy = new Set<string>()
  private running = new Set<Promise<unknown>>()

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  register(job: Job) {
    if (this.jobs.has(job.name)) throw new Error(`Job "${job.name}" is registered twice`)
    this.jobs.set(job.name, job)
  }

  list(): Job[] {
    return [...this.jobs.values()]
  }

  get(name: string): Job | undefined {
    return this.jobs.get(name)
  }

  /** Claims this interval of the job for this process; false when another process has it. */
  async claim(job: Job): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `INSERT INTO scheduled_jobs (name, last_started_at) VALUES ($1, now())
       ON CONFLICT (name) DO UPDATE SET last_started_at = now()
        WHERE scheduled_jobs.last_started_at <= now() - make_interval(secs => $2)`,
      [job.name, (job.intervalMs - Math.min(500, job.intervalMs / 10)) / 1000],
    )
    return rowCount > 0
  }

  /** One scheduled tick: runs the job unless it is still running here or another process claimed the interval. */
  async tick(job: Job): Promise<Record<string, unknown> | null> {
    if (this.busy.has(job.name)) return null
    this.busy.add(job.name)
    try {
      if (!(await this.claim(job))) return null
      // The scheduler's run: every organization.
      const result = await job.run({})
      await this.db.query('UPDATE scheduled_jobs SET last_finished_at = now(), last_error = NULL WHERE name = $1', [job.name])
      return result
    } catch (err) {
      await this.db.query('UPDATE scheduled_jobs SET last_error = $2 WHERE name = $1', [job.name, String((err as Error)?.message ?? err).slice(0, 1000)]).catch(() => {})
      throw err
    } finally {
      this.busy.delete(job.name)
    }
  }

  start() {
    for (const job of this.jobs.values()) {
      const timer = setInterval(() => {
        const run = this.tick(job)
          .then((result) => result && this.log.debug({ job: job.name, result }, 'job ran'))
          .catch((err) => this.log.error({ err, job: job.name }, 'job failed'))
          .finally(() => this.running.delete(run))
        this.running.add(run)
      }, job.intervalMs)
      timer.unref()
      this.timers.push(timer)
    }
  }

  /** Stops scheduling and waits for runs in flight. */
  async stop() {
    for (const t of this.timers) clearInterval(t)
    this.timers.length = 0
    await Promise.allSettled([...this.running])
  }
}

const JobInfo = Named('Job', Type.Object({ name: Type.String(), description: Type.String(), intervalSeconds: Type.Number() }))
const JobRun = Named('JobRun', Type.Object({ job: Type.String(), result: Type.Record(Type.String(), Type.Unknown(), { description: 'What the job changed' }) }))

/** GET /admin/jobs and POST /admin/jobs/:name/run; installed after every module, so the description names each job. */
export function jobRoutes(app: App, jobs: Jobs) {
  const names = jobs.list().map((j) => `\`${j.name}\` (${j.description})`)
  app.get('/admin/jobs', {
    schema: {
      operationId: 'listJobs', tags: ['system'], summary: 'List scheduled jobs', description: 'Every background job with its schedule. Each also runs on demand with POST /admin/jobs/{name}/run.',
      response: responses({ 200: Type.Array(JobInfo) }),
    },
    config: { access: { roles: ADMIN } },
  }, async () => jobs.list().map((j) => ({ name: j.name, description: j.description, intervalSeconds: j.intervalMs / 1000 })))

  app.post('/admin/jobs/:name/run', {
    schema: {
      operationId: 'runJob', tags: ['system'],
      summary: 'Run a scheduled job now',
      description: "Runs the named job once for the caller's organization only, and answers with what it changed there: " +
        "another organization's records are neither touched nor counted (their scheduled runs handle them; rows of no organization, " +
        `such as anonymous callers' idempotency keys, only the scheduled run). Jobs: ${names.join('; ')}.`,
      params: Type.Object({ name: Type.String({ maxLength: 100 }) }),
      response: responses({ 200: JobRun }, [404]),
    },
    // No dry run: a pass of mail or webhook deliveries reaches outside servers, which no rollback takes back (docs/platform.md "Dry runs").
    config: { access: { roles: ADMIN }, dryRun: false },
  }, async (req) => {
    const job = jobs.get(req.params.name)
    if (!job) throw new NotFoundError(`Job ${req.params.name} (known: ${jobs.list().map((j) => j.name).join(', ')})`)
    return { job: job.name, result: await job.run({ organizationId: principalOf(req).organizationId }) }
  })
}
