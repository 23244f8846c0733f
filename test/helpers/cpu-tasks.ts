import { ValidationError } from '../../src/core/errors.ts'

/**
 * Tasks for the CPU pool's tests (test/cpu-pool.test.ts), run inside its
 * worker threads: one that holds its worker for a while, and ones that fail
 * in each way a task can.
 */

/** Keeps the worker's thread busy for `ms` (a synchronous spin, as a heavy render is). */
export function spin(ms: number): number {
  const end = Date.now() + ms
  let n = 0
  while (Date.now() < end) n++
  return n
}

/** Throws as asked: an AppError of the kernel, a built-in TypeError, or an Error with a code of its own. */
export function fail(kind: 'app' | 'type' | 'coded'): never {
  if (kind === 'app') throw new ValidationError(['first rule broken', 'second rule broken'])
  if (kind === 'type') throw new TypeError('not a function, as a broken renderer would say')
  throw Object.assign(new Error('a failure with a code'), { code: 'ERR_SOMETHING' })
}
