/**
 * Identical expensive reads made at the same time share one run, without
 * serving anyone a figure older than their request (docs/decisions/0009).
 *
 * A read that arrives while no run of its key is in progress starts one. A
 * read that arrives while one is in progress does not join it (that run took
 * its snapshot before the read arrived, and might miss a write the caller
 * has just committed): it waits for the next run of the key, which starts
 * once the current one ends, and which every read arriving meanwhile shares.
 * So every answer is computed from a snapshot taken after its request
 * arrived, and with n identical requests in flight at most two runs exist:
 * one running, one waiting. Failures are shared like results (the error of
 * the run each caller waited for). Nothing outlives its run: a key with no
 * run in progress holds no memory.
 */
export class ReadCoalescer {
  private readonly slots = new Map<string, { running: Promise<unknown>; next?: Promise<unknown> }>()

  run<T>(key: string, read: () => Promise<T>): Promise<T> {
    const slot = this.slots.get(key)
    if (!slot) return this.start(key, read)
    // A run is in progress: share the one after it (queued by the first read to arrive meanwhile).
    slot.next ??= slot.running.then(noop, noop).then(() => {
      slot.next = undefined
      this.slots.delete(key)
      return this.start(key, read)
    })
    return slot.next as Promise<T>
  }

  /** Starts a run of key now; its slot goes when it settles, unless a next run has been queued behind it. */
  private start<T>(key: string, read: () => Promise<T>): Promise<T> {
    const running = Promise.resolve().then(read)
    const slot: { running: Promise<unknown>; next?: Promise<unknown> } = { running }
    this.slots.set(key, slot)
    running.then(noop, noop).then(() => {
      if (this.slots.get(key) === slot && !slot.next) this.slots.delete(key)
    })
    return running
  }

  /** Keys with a run in progress (for tests). */
  get size() {
    return this.slots.size
  }
}

function noop() {}
