import type { FastifyBaseLogger } from 'fastify'

export interface Job {
  /** Name used by POST /admin/jobs/:name/run. */
  name: string
  description: string
  intervalMs: number
  /** Does the work once and tells what it changed. Must be safe to run in several processes at once. */
  run(): Promise<Record<string, unknown>>
}

/** Scheduled background jobs; each also runs on demand through the admin route. */
export class Jobs {
  private readonly jobs = new Map<string, Job>()
  private readonly timers: NodeJS.Timeout[] = []
  private running = new Set<Promise<unknown>>()

  constructor(private readonly log: FastifyBaseLogger) {}

  register(job: Job) {
    this.jobs.set(job.name, job)
  }

  list(): Job[] {
    return [...this.jobs.values()]
  }

  get(name: string): Job | undefined {
    return this.jobs.get(name)
  }

  start() {
    for (const job of this.jobs.values()) {
      const timer = setInterval(() => {
        const run = job
          .run()
          .then((result) => this.log.debug({ job: job.name, result }, 'job ran'))
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
