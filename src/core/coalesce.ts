/**
 * Identical expensive reads made at the same time share one run, without
 * serving anyone a figure older than their request (docs/decisions/0009).
 *
 * A read that arrives while no run of its key exists starts one, whose read
 * begins on the next turn of the event loop, so that requests arriving
 * together (in one poll of the sockets) join it. A read may join a run only
 * while that run's read has not begun: a run that has begun took its
 * snapshot before the newcomer arrived and might miss a write the caller
 * has just committed. Such a newcomer waits for the next run of the key,
 * which starts once the current one ends and which every read arriving
 * meanwhile shares. So every answer is computed from a snapshot taken after
 * its request arrived, and with n identical requests in flight at most two
 * runs exist: one running, one waiting. Failures are shared like results
 * (the error of the run each caller waited for). Nothing outlives its run:
 * a key with no run holds no memory.
 */
export class ReadCoalescer {
  private readonly slots = new Map<string, Slot>()

  run<T>(key: string, read: () => Promise<T>): Promise<T> {
    const slot = this.slots.get(key)
    if (!slot) return this.start(key, read)
    if (!slot.begun) return slot.run as Promise<T>
    // Begun before this read arrived: share the run after it (queued by the first read to arrive meanwhile).
    slot.next ??= slot.run.then(noop, noop).then(() => {
      this.slots.delete(key)
      return this.start(key, read)
    })
    return slot.next as Promise<T>
  }

  /** A run of key whose read begins on the next turn of the event loop; its slot goes when it settles, unless a next run is queued behind it. */
  private start<T>(key: string, read: () => Promise<T>): Promise<T> {
    const slot: Slot = { begun: false, run: Promise.resolve() }
    const run = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      slot.begun = true
      return read()
    })
    slot.run = run
    this.slots.set(key, slot)
    run.then(noop, noop).then(() => {
      if (this.slots.get(key) === slot && !slot.next) this.slots.delete(key)
    })
    return run
  }

  /** Keys with a run waiting or in progress (for tests). */
  get size() {
    return this.slots.size
  }
}

interface Slot {
  /** Whether the read has begun (after that, newcomers wait for the next run). */
  begun: boolean
  run: Promise<unknown>
  next?: Promise<unknown>
}

function noop() {}
