import type { FastifyBaseLogger } from 'fastify'
import { Piscina } from 'piscina'
import { AppError, ERROR_CODES, type ErrorCode } from './errors.ts'

/**
 * The kernel's pool of worker threads for CPU-heavy steps (rendering a PDF),
 * so that they do not hold the event loop: while ten 500-line invoices
 * render, /health and the lists still answer in milliseconds
 * (docs/decisions/0011-heavy-work-off-the-event-loop.md).
 *
 * A task is a function exported by a TypeScript module of the kernel, named
 * by the module's file URL and the export's name (see `cpuTask`); its input
 * and result cross the thread boundary by structured clone (a Buffer arrives
 * as a Uint8Array). Each worker imports a task's module once and keeps it,
 * so what the module loads at its top (fonts) is loaded once per worker.
 *
 * The pool is bounded twice: `threads` workers (by default one fewer than the
 * machine's cores, at least one, so the event loop keeps a core), and at
 * most `maxQueue` tasks waiting for one. A task beyond that is refused at
 * once with SERVICE_UNAVAILABLE (503, with Retry-After): 503 is maintenance
 * or overload, docs/errors.md "Statuses". The client retries later; nothing
 * of its request was done. With `threads: 0` tasks run on the
 * calling thread, as before the pool existed (no bound then).
 *
 * The workers start with the first task (an app that renders nothing starts
 * none) and stop with close(), which app.close() calls.
 */

export interface CpuPoolOptions {
  /** Worker threads; 0 runs every task on the calling thread. */
  threads: number
  /** Tasks that may wait for a free worker; one more is refused (503). */
  maxQueue: number
}

/** A function `name` exported by the module at `module` (a file: URL), taking I and answering R. */
export interface CpuTask<I, R> {
  module: string
  name: string
  /** Phantom: the types of the input and the result. */
  readonly types?: (input: I) => R
}

/** Names a task: `cpuTask<PdfDocument, Uint8Array>(new URL('./pdf.task.ts', import.meta.url), 'renderPdf')`. */
export const cpuTask = <I, R>(module: URL, name: string): CpuTask<I, R> => ({ module: module.href, name })

/** An error as it crosses from a worker: what is needed to throw the same one again. */
export interface SentError {
  name: string
  message: string
  stack?: string
  code?: string
  /** An AppError: its messages and options. */
  app?: { messages: string | string[]; options: { retryAfterSeconds?: number } }
}

/** What the worker entry (cpu-pool.worker.mjs) answers. */
export type Outcome<R> = { ok: true; value: R } | { ok: false, error: SentError }

const BUILT_IN: Record<string, ErrorConstructor> = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError }

/** The error thrown in the worker, thrown again here: an AppError keeps its code and messages, a built-in error its class and message. */
export function receivedError(e: SentError): Error {
  if (e.app && (ERROR_CODES as readonly string[]).includes(e.code ?? '')) {
    const err = new AppError(e.code as ErrorCode, e.app.messages, e.app.options)
    if (e.stack) err.stack = e.stack
    return err
  }
  const err = new (BUILT_IN[e.name] ?? Error)(e.message)
  if (!(e.name in BUILT_IN)) err.name = e.name
  if (e.stack) err.stack = e.stack
  if (e.code !== undefined) (err as NodeJS.ErrnoException).code = e.code
  return err
}

const ENTRY = new URL('./cpu-pool.worker.mjs', import.meta.url).href
const QUEUE_FULL = 'Task queue is at limit'
/** How much lower the workers' priority is than the event loop's (Linux nice). */
const NICE = 10

export class CpuPool {
  private pool: Piscina | undefined
  private closed = false

  constructor(
    readonly options: CpuPoolOptions,
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** Runs the task on a worker (or here, with threads: 0); refused with 503 when maxQueue tasks already wait. */
  async run<I, R>(task: CpuTask<I, R>, input: I): Promise<R> {
    if (this.options.threads === 0) {
      const mod = (await import(task.module)) as Record<string, (input: I) => R | Promise<R>>
      return await mod[task.name](input)
    }
    if (this.closed) throw new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down; retry shortly', { retryAfterSeconds: 1 })
    const pool = this.start()
    // Refused before it is queued: piscina's own bound (maxQueue, below) stays as the backstop.
    if (pool.queueSize >= this.options.maxQueue) throw this.overloaded(pool)
    let outcome: Outcome<R>
    try {
      outcome = await pool.run({ module: task.module, name: task.name, input })
    } catch (err) {
      if ((err as Error).message === QUEUE_FULL) throw this.overloaded(pool)
      throw err
    }
    if (!outcome.ok) throw receivedError(outcome.error)
    return outcome.value
  }

  /** Tasks waiting for a worker now. */
  get queued(): number {
    return this.pool?.queueSize ?? 0
  }

  /** Worker threads running now (0 until the first task). */
  get running(): number {
    return this.pool?.threads.length ?? 0
  }

  /** Stops the workers once the tasks they run are done; later tasks are refused. */
  async close(): Promise<void> {
    this.closed = true
    const pool = this.pool
    this.pool = undefined
    await pool?.close()
  }

  private start(): Piscina {
    if (!this.pool) {
      const { threads, maxQueue } = this.options
      // niceIncrement: on Linux the workers' threads run at a lower priority (nice 10, through
      // piscina's optional @napi-rs/nice), so that the event loop, and a local database, get the
      // CPU first when the cores are all busy; elsewhere it is ignored.
      this.pool = new Piscina({ filename: ENTRY, minThreads: threads, maxThreads: threads, maxQueue, idleTimeout: 60_000, niceIncrement: NICE })
      // A worker that dies (out of memory) fails its task; the pool starts another. Never an unhandled 'error'.
      this.pool.on('error', (err: unknown) => this.log?.error({ err }, 'CPU pool worker failed'))
    }
    return this.pool
  }

  /** 503 with Retry-After: the time the waiting tasks take at the mean run time so far, 1 to 60 s. */
  private overloaded(pool: Piscina): AppError {
    const mean = pool.histogram.runTime.mean
    const seconds = Number.isFinite(mean) && mean > 0 ? (pool.queueSize * mean) / this.options.threads / 1000 : 1
    return new AppError('SERVICE_UNAVAILABLE', 'Too much work is queued (documents to render); retry shortly', { retryAfterSeconds: Math.min(60, Math.max(1, Math.ceil(seconds))) })
  }
}
