import cluster, { type Worker } from 'node:cluster'

/**
 * The primary process of `WEB_CONCURRENCY=N npm start`
 * (docs/scale-out.md "Many processes"): it serves nothing itself. It forks N API processes,
 * which share the one port through node's cluster module (the primary
 * accepts connections and hands them out in turn), and keeps them running:
 *
 * - a process that dies after it was serving is replaced one second later;
 * - a process that dies before it ever listened (a bad configuration, the
 *   port taken, a migration that failed) stops the whole service with its
 *   exit code, since its replacement would fail the same way;
 * - SIGTERM or SIGINT is passed to every process, which finishes the requests
 *   in flight (src/server.ts); the primary exits once they all have, or after
 *   35 seconds.
 *
 * Everything the processes must agree on lives in the shared stores: the
 * database (migrations under an advisory lock, each job's interval claimed
 * by one process, queue rows claimed with SKIP LOCKED, credential changes
 * announced with NOTIFY) and Redis (the rate limits). Logs are the
 * processes' own, each line with its `pid`.
 */
export function runPrimary(workers: number, log: (message: string) => void = (m) => console.error(m)) {
  let stopping = false
  let exitCode = 0
  const listening = new WeakSet<Worker>()

  const fork = () => {
    const worker = cluster.fork()
    worker.on('listening', () => listening.add(worker))
    worker.on('exit', (code, signal) => {
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode)
        return
      }
      if (!listening.has(worker)) {
        log(`API process ${worker.process.pid} stopped before it served (exit ${code ?? signal}); stopping`)
        stopAll(code || 1)
        return
      }
      log(`API process ${worker.process.pid} died (exit ${code ?? signal}); starting another`)
      setTimeout(() => !stopping && fork(), 1000).unref()
    })
  }

  const stopAll = (code: number) => {
    if (stopping) return
    stopping = true
    exitCode = code
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w))
    if (running.length === 0) process.exit(exitCode)
    for (const w of running) w.process.kill('SIGTERM')
    // src/server.ts gives its own shutdown 30 seconds; a process past that is killed with the primary.
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL')
      process.exit(1)
    }, 35_000).unref()
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stopAll(0))
  for (let i = 0; i < workers; i++) fork()
  log(`started ${workers} API processes (WEB_CONCURRENCY=${workers})`)
}
