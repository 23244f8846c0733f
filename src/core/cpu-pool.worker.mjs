// The entry of every worker of the CPU pool (src/core/cpu-pool.ts). The
// service runs TypeScript through tsx (`tsx src/server.ts`, `node --import
// tsx --test`); a worker thread does not inherit tsx's loader on Node 20
// (piscina given a .ts file, or `execArgv: ['--import', 'tsx']`, fails with
// ERR_UNKNOWN_FILE_EXTENSION), so this plain JavaScript file registers tsx in
// the worker first, then imports the task modules it is asked to run (each
// once per worker: a module's top level, fonts for instance, runs once).
import { register } from 'tsx/esm/api'

register()
const { AppError } = await import('./errors.ts')

/** Runs `name` of `module` on `input`; answers { ok, value } or { ok: false, error } with what is needed to throw the same error again. */
export default async function run({ module, name, input }) {
  try {
    const mod = await import(module)
    return { ok: true, value: await mod[name](input) }
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err))
    const sent = { name: e.name, message: e.message, stack: e.stack }
    if (typeof e.code === 'string') sent.code = e.code
    if (e instanceof AppError) sent.app = { messages: e.messages, options: e.options }
    return { ok: false, error: sent }
  }
}
