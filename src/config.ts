import { Type, type Static } from 'typebox'
import { Value } from 'typebox/value'
import { availableParallelism } from 'node:os'

/**
 * The service's whole configuration, read from the environment once at start.
 * Every variable is listed in the README; a bad value stops the start with a
 * message naming the variable.
 */
const Env = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  /** Read replicas (streaming standbys of DATABASE_URL), comma-separated: lag-tolerant reads go there (docs/scale-out.md "Read replicas"). */
  DATABASE_REPLICA_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://[^,]+(,\\s*postgres(ql)?://[^,]+)*$' })),
  /** A replica further behind the primary than this (milliseconds) is skipped until it catches up. */
  DATABASE_REPLICA_MAX_LAG_MS: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 10_000 }),
  DATA_DIR: Type.String({ default: './data' }),
  PG_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /** API processes on the one port (node's cluster module, src/cluster.ts); `npm start -- --workers N` says the same. */
  WEB_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  API_ENV: Type.Union([Type.Literal('test'), Type.Literal('live')], { default: 'test' }),
  RATE_LIMIT: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  RATE_LIMIT_GENERAL: Type.Integer({ minimum: 1, default: 60 }),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /** The key that seals the secrets kept in the database (core/secrets.ts, docs/secrets.md); required when API_ENV=live. */
  SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  /** The key SECRET_KEY replaces, while rotating: values sealed with it are read and sealed again with SECRET_KEY at start. */
  SECRET_KEY_PREVIOUS: Type.Optional(Type.String({ minLength: 32 })),
  ACCESS_TOKEN_TTL: Type.Integer({ minimum: 30, default: 900 }),
  REFRESH_TOKEN_TTL: Type.Integer({ minimum: 60, default: 30 * 24 * 3600 }),
  /** log2 of scrypt's N for new password hashes; 17 is OWASP's recommendation. Lower only to speed up tests. */
  PASSWORD_HASH_COST: Type.Integer({ minimum: 14, maximum: 20, default: 17 }),
  ALLOW_SIGNUP: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'true' }),
  CORS_ORIGIN: Type.String({ default: '*' }),
  TRUST_PROXY: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
  BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info' }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.String({ default: 'Business Platform <no-reply@localhost>' }),
  JOBS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  PAYMENT_PROCESSOR: Type.Union([Type.Literal('local'), Type.Literal('stripe')], { default: 'local' }),
  STRIPE_SECRET_KEY: Type.Optional(Type.String()),
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String()),
  /** Another Stripe API address, e.g. stripe-mock (http://localhost:12111) for development and tests. */
  STRIPE_API_BASE: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** Worker threads that render PDFs off the event loop (core/cpu-pool.ts); 0 renders on the event loop. Default: the cores less one, at least 1. */
  CPU_POOL_THREADS: Type.Optional(Type.Integer({ minimum: 0, maximum: 256 })),
  /** Renders that may wait for a free worker thread; one more is refused with 503 and Retry-After. */
  CPU_POOL_QUEUE: Type.Integer({ minimum: 1, maximum: 100_000, default: 32 }),
  /** Seconds between the attempts of a webhook delivery, comma-separated (docs/webhooks.md "Retries"); short in tests. */
  WEBHOOK_RETRY_DELAYS: Type.String({ pattern: '^\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?){0,29}$', default: '5,300,1800,7200,18000,36000,50400,72000,86400' }),
})

type EnvValues = Static<typeof Env>

export interface RateLimits {
  enabled: boolean
  /** requests per minute for the general authenticated API */
  general: number
  /** health, readiness, docs, well-known files (per IP) */
  public: number
  validate: number
  activate: number
  support: number
  capture: number
  register: number
  login: number
}

export interface Config {
  port: number
  host: string
  databaseUrl?: string
  /** DATABASE_REPLICA_URL, split: the read replicas (none: every read is the primary's). */
  replicaUrls: string[]
  /** DATABASE_REPLICA_MAX_LAG_MS. */
  replicaMaxLagMs: number
  dataDir: string
  pgPoolSize: number
  /** WEB_CONCURRENCY: API processes sharing the port (1: this process alone). */
  workers: number
  redisUrl?: string
  apiEnv: 'test' | 'live'
  rateLimits: RateLimits
  jwtSecret?: string
  /** SECRET_KEY: seals the secrets kept in the database. Unset (API_ENV=test only): generated into DATA_DIR/secret.key, or per process for memory://. */
  secretKey?: string
  /** SECRET_KEY_PREVIOUS: still opens values sealed before a rotation. */
  secretKeyPrevious?: string
  accessTokenTtl: number
  /** log2 of scrypt's N (PASSWORD_HASH_COST). */
  passwordHashCost: number
  refreshTokenTtl: number
  allowSignup: boolean
  corsOrigin: string
  /** Take the client IP from X-Forwarded-For (only behind a proxy you run: clients could forge it otherwise). */
  trustProxy: boolean
  bodyLimit: number
  logLevel: string
  publicUrl?: string
  smtpUrl?: string
  mailFrom: string
  jobs: boolean
  paymentProcessor: 'local' | 'stripe'
  stripeSecretKey?: string
  stripeWebhookSecret?: string
  stripeApiBase?: string
  /** WEBHOOK_RETRY_DELAYS in seconds: one retry per delay after the first attempt. */
  webhookRetryDelays: number[]
  /** CPU_POOL_THREADS: worker threads for PDFs (0: on the event loop). */
  cpuPoolThreads: number
  /** CPU_POOL_QUEUE: renders that may wait for a worker before one is refused (503). */
  cpuPoolQueue: number
}

export const SPEC_RATE_LIMITS: Omit<RateLimits, 'enabled' | 'general'> = {
  // docs/platform.md "Rate limits": health, readiness, docs and well-known files, per IP, generous
  // enough for probes and a docs page, so that they too carry X-RateLimit-*.
  public: 600,
  validate: 30,
  activate: 10,
  support: 5,
  capture: 10,
  register: 5,
  login: 10,
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(Env.properties)) {
    const v = env[key]
    if (v !== undefined && v !== '') raw[key] = v
  }
  const converted = Value.Default(Env, Value.Convert(Env, raw))
  if (!Value.Check(Env, converted)) {
    const problems = [...Value.Errors(Env, converted)].map((e) => `${e.instancePath.slice(1) || 'environment'} ${e.message}`)
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`)
  }
  const e = converted as EnvValues
  // Settings that depend on each other: every problem is named at once.
  const problems: string[] = []
  if (e.PAYMENT_PROCESSOR === 'stripe' && (!e.STRIPE_SECRET_KEY || !e.STRIPE_WEBHOOK_SECRET)) {
    problems.push('PAYMENT_PROCESSOR=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET')
  }
  const processor = paymentProcessorProblem({ apiEnv: e.API_ENV, paymentProcessor: e.PAYMENT_PROCESSOR })
  if (processor) problems.push(processor)
  if (e.API_ENV === 'live' && !e.SECRET_KEY) {
    problems.push('API_ENV=live needs SECRET_KEY (32+ characters, e.g. `openssl rand -base64 32`): the key that seals the secrets kept in the database')
  }
  if (e.DATABASE_REPLICA_URL && !e.DATABASE_URL) {
    problems.push('DATABASE_REPLICA_URL needs DATABASE_URL: replicas are standbys of a PostgreSQL server, and the embedded database (PGlite) has none')
  }
  // Several processes (docs/scale-out.md "Many processes"): one database server and one rate-limit store that they all share.
  if (e.WEB_CONCURRENCY > 1 && !e.DATABASE_URL) {
    problems.push(`WEB_CONCURRENCY=${e.WEB_CONCURRENCY} needs DATABASE_URL: the embedded database (PGlite) belongs to one process; set WEB_CONCURRENCY=1 or use a PostgreSQL server`)
  }
  if (e.WEB_CONCURRENCY > 1 && e.RATE_LIMIT === 'on' && !e.REDIS_URL) {
    problems.push(`WEB_CONCURRENCY=${e.WEB_CONCURRENCY} needs REDIS_URL so that the processes share the rate limits (each would count alone, allowing ${e.WEB_CONCURRENCY} times the limit)`)
  }
  if (problems.length) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`)
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    replicaUrls: e.DATABASE_REPLICA_URL ? e.DATABASE_REPLICA_URL.split(',').map((u) => u.trim()) : [],
    replicaMaxLagMs: e.DATABASE_REPLICA_MAX_LAG_MS,
    dataDir: e.DATA_DIR,
    pgPoolSize: e.PG_POOL_SIZE,
    workers: e.WEB_CONCURRENCY,
    redisUrl: e.REDIS_URL,
    apiEnv: e.API_ENV,
    rateLimits: { enabled: e.RATE_LIMIT === 'on', general: e.RATE_LIMIT_GENERAL, ...SPEC_RATE_LIMITS },
    jwtSecret: e.JWT_SECRET,
    secretKey: e.SECRET_KEY,
    secretKeyPrevious: e.SECRET_KEY_PREVIOUS,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    passwordHashCost: e.PASSWORD_HASH_COST,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL,
    allowSignup: e.ALLOW_SIGNUP === 'true',
    corsOrigin: e.CORS_ORIGIN,
    trustProxy: e.TRUST_PROXY === 'true',
    bodyLimit: e.BODY_LIMIT,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    jobs: e.JOBS === 'on',
    paymentProcessor: e.PAYMENT_PROCESSOR,
    stripeSecretKey: e.STRIPE_SECRET_KEY,
    stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET,
    stripeApiBase: e.STRIPE_API_BASE,
    webhookRetryDelays: e.WEBHOOK_RETRY_DELAYS.split(',').map(Number),
    // The cores less one, shared by the processes: the event loops (and the database, when local) keep a core while PDFs render.
    cpuPoolThreads: e.CPU_POOL_THREADS ?? Math.max(1, Math.floor((availableParallelism() - 1) / e.WEB_CONCURRENCY)),
    cpuPoolQueue: e.CPU_POOL_QUEUE,
  }
}

/**
 * The local payment processor takes no money (whoever opens a checkout can
 * press Pay): it never runs with API_ENV=live, whether PAYMENT_PROCESSOR=local
 * is set or left to its default. loadConfig and buildApp both refuse it.
 */
export function assertPaymentProcessorAllowed(config: Pick<Config, 'apiEnv' | 'paymentProcessor'>) {
  const problem = paymentProcessorProblem(config)
  if (problem) throw new Error(`Invalid configuration:\n  ${problem}`)
}

function paymentProcessorProblem(config: Pick<Config, 'apiEnv' | 'paymentProcessor'>) {
  if (config.apiEnv === 'live' && config.paymentProcessor === 'local') {
    return 'API_ENV=live needs PAYMENT_PROCESSOR=stripe: PAYMENT_PROCESSOR=local (the default) is a stand-in that takes no money, for API_ENV=test only'
  }
}
