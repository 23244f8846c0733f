import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * A full garbage collection on demand. A long run (a report run, an import)
 * allocates a few kilobytes per row; V8 promotes part of that short-lived
 * garbage to the old space and, with the app's ~100 MiB of live heap, lets
 * the old space grow to about four times that before collecting it
 * (measured: +300 MiB of RSS over 1,000,000 report rows, of which under
 * 30 MiB was alive). Collecting whenever the heap has grown by some slack
 * during a run keeps the process's RSS flat; it costs a few collections of
 * tens of milliseconds per million rows.
 */
let gc: (() => void) | undefined
export const collectGarbage = () => {
  if (!gc) {
    gc = (globalThis as { gc?: () => void }).gc
    if (!gc) {
      // Node's documented way to reach the collector of a process started without --expose-gc.
      v8.setFlagsFromString('--expose-gc')
      gc = runInNewContext('gc') as () => void
    }
  }
  gc()
}

export const heapUsed = () => v8.getHeapStatistics().used_heap_size

/** A check to call between steps of a long run: collects once the heap has grown by `slack` bytes since the guard was made (or since its last collection). */
export function heapGuard(slack: number) {
  let base = heapUsed()
  return () => {
    if (heapUsed() <= base + slack) return
    collectGarbage()
    base = heapUsed()
  }
}
