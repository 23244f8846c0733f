import { parseArgs } from 'node:util'
import { LicenseClient } from './client.ts'
import { LicenseError } from './errors.ts'
import { FileStorage, defaultStatePath } from './storage.ts'
import { domainOf } from './request.ts'

export const USAGE = `Usage: license-client <command> [options]

Commands:
  activate     bind the license to this instance's domain
  validate     ask the service whether the license is valid here (offline token when unreachable)
  deactivate   release this instance's domain, or --domain <host>
  status       show the stored state (offline token, last-known-good, next re-verification, limiter)
  reverify     the daily re-verification: validate and refresh the offline token

Options (each also read from the environment variable shown):
  --key <key>              LICENSE_KEY
  --module <name>          LICENSE_MODULE
  --url <public url>       LICENSE_PUBLIC_URL          the ERP instance's public URL
  --identity <id>          LICENSE_INSTALLATION_ID     hardware or database identity (hashed)
  --erp-version <x.0>      LICENSE_ERP_VERSION
  --secret <secret>        LICENSE_SIGNING_SECRET      the product's signing secret
  --base-url <url>         LICENSE_BASE_URL            default http://localhost:3000/api
  --state <file>           LICENSE_STATE_FILE          default ~/.license-client/<module>@<domain>.json
  --domain <host>          deactivate: the domain to release
  --retries <n>            LICENSE_RETRIES             retries after a transient failure, default 3
  --timeout <ms>           LICENSE_TIMEOUT_MS          timeout of one attempt, default 10000
  --json                   print JSON instead of text

Exit status: 0 done or valid, 1 refused or invalid, 2 usage error, 3 service unavailable.`

export const EXIT = { ok: 0, refused: 1, usage: 2, unavailable: 3 } as const

const OPTIONS = {
  key: { env: 'LICENSE_KEY', required: true },
  module: { env: 'LICENSE_MODULE', required: true },
  url: { env: 'LICENSE_PUBLIC_URL', required: true },
  identity: { env: 'LICENSE_INSTALLATION_ID', required: true },
  'erp-version': { env: 'LICENSE_ERP_VERSION', required: true },
  secret: { env: 'LICENSE_SIGNING_SECRET', required: true },
  'base-url': { env: 'LICENSE_BASE_URL', required: false },
  state: { env: 'LICENSE_STATE_FILE', required: false },
  domain: { env: undefined, required: false },
  retries: { env: 'LICENSE_RETRIES', required: false },
  timeout: { env: 'LICENSE_TIMEOUT_MS', required: false },
} as const

type Output = { out: (line: string) => void; err: (line: string) => void }

/** The command line tool; returns the exit status. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: Output): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...Object.fromEntries(Object.keys(OPTIONS).map((name) => [name, { type: 'string' as const }])), json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    })
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`)
    return EXIT.usage
  }
  const [command, ...extra] = parsed.positionals
  if (parsed.values.help || !command) {
    io.out(USAGE)
    return parsed.values.help ? EXIT.ok : EXIT.usage
  }
  const given = parsed.values as Record<string, string | boolean | undefined>
  const value = (name: keyof typeof OPTIONS) => (given[name] as string | undefined) ?? (OPTIONS[name].env ? env[OPTIONS[name].env!] : undefined)
  const missing = (Object.keys(OPTIONS) as (keyof typeof OPTIONS)[]).filter((n) => OPTIONS[n].required && !value(n))
  const counts = { retries: value('retries'), timeout: value('timeout') }
  const badCount = Object.entries(counts).find(([, v]) => v !== undefined && !/^\d+$/.test(v))
  if (badCount) {
    io.err(`--${badCount[0]} must be a whole number\n\n${USAGE}`)
    return EXIT.usage
  }
  if (!['activate', 'validate', 'deactivate', 'status', 'reverify'].includes(command) || extra.length || missing.length) {
    const problem = missing.length ? `Missing ${missing.map((n) => `--${n}`).join(', ')}` : `Unknown command: ${[command, ...extra].join(' ')}`
    io.err(`${problem}\n\n${USAGE}`)
    return EXIT.usage
  }
  const moduleName = value('module')!
  const client = new LicenseClient({
    key: value('key')!, moduleName, publicUrl: value('url')!, installationId: value('identity')!,
    erpVersion: value('erp-version')!, signingSecret: value('secret')!, baseUrl: value('base-url') || undefined,
    retries: counts.retries === undefined ? undefined : Number(counts.retries),
    timeoutMs: counts.timeout === undefined ? undefined : Number(counts.timeout),
    storage: new FileStorage(value('state') ?? defaultStatePath(moduleName, domainOf(value('url')!))),
  })
  const print = (text: string, data: unknown) => io.out(parsed.values.json ? JSON.stringify(data, null, 2) : text)
  try {
    return await perform(command, client, value('domain'), print)
  } catch (err) {
    if (!(err instanceof LicenseError)) throw err
    const wait = err.retryAfterMs ? ` (wait ${Math.ceil(err.retryAfterMs / 60_000)} min)` : ''
    print(`${err.code}: ${err.message}${wait}`, { error: err.code, message: err.message, status: err.status ?? null, retryAfterMs: err.retryAfterMs ?? null })
    return err.transient ? EXIT.unavailable : EXIT.refused
  }
}

const when = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString())

async function perform(command: string, client: LicenseClient, domain: string | undefined, print: (text: string, data: unknown) => void): Promise<number> {
  switch (command) {
    case 'activate': {
      const r = await client.activate()
      print(`Activated on ${client.domain} (${r.activationsCount} of ${r.activationsLimit} activations used)`, r)
      return EXIT.ok
    }
    case 'deactivate': {
      const r = await client.deactivate(domain)
      print(`Deactivated ${domain ? domainOf(domain) : client.domain}${r.activationsCount === undefined ? '' : ` (${r.activationsCount} activations in use)`}`, r)
      return EXIT.ok
    }
    case 'validate': {
      const r = await client.validate({ fresh: true })
      const grace = r.graceUntil ? `, grace until ${when(r.graceUntil)}` : ''
      print(`${r.valid ? 'VALID' : r.code}: ${r.message} (answered by ${r.source}${grace})`, r)
      return r.valid ? EXIT.ok : r.code === 'SERVICE_UNAVAILABLE' ? EXIT.unavailable : EXIT.refused
    }
    case 'reverify': {
      const r = await client.reverify()
      print(r.refreshed ? `Re-verified; offline token valid until ${when(r.offlineToken!.claims.exp * 1000)}` : `Not re-verified: ${r.tokenError ?? `${r.result.code}: ${r.result.message}`}`, r)
      return r.refreshed ? EXIT.ok : r.result.code === 'SERVICE_UNAVAILABLE' ? EXIT.unavailable : EXIT.refused
    }
    default: {
      const s = await client.localStatus()
      const token = s.offlineToken
      print([
        `License ${s.request.key}, module ${s.request.module_name}, domain ${s.request.domain || '(undetermined)'}, ERP ${s.request.erp_version}`,
        `Service: ${s.baseUrl}`,
        `Offline token: ${token ? `${token.problem ?? 'valid'}${token.claims ? `, expires ${when(token.claims.exp * 1000)}` : ''}` : 'none'}`,
        `Last known good: ${when(s.lastKnownGoodAt)}`,
        `Last re-verification: ${when(s.lastReverifiedAt)}; next due ${when(s.nextReverificationAt)}`,
        ...(s.hardRejection ? [`Last rejection: ${s.hardRejection.code} (${s.hardRejection.message}) at ${when(s.hardRejection.at)}`] : []),
        `Activation attempts: ${s.activationWaitMs ? `blocked for ${Math.ceil(s.activationWaitMs / 60_000)} min` : 'allowed'}`,
      ].join('\n'), s)
      return EXIT.ok
    }
  }
}
