/** Machine codes the service answers with (docs/licenses.md "Checks"). */
export type ServiceCode =
  | 'VALID'
  | 'LICENSE_NOT_FOUND'
  | 'LICENSE_INACTIVE'
  | 'LICENSE_EXPIRED'
  | 'MODULE_MISMATCH'
  | 'VERSION_MISMATCH'
  | 'NOT_ACTIVATED_ON_DOMAIN'
  | 'ACTIVATION_LIMIT_REACHED'
  | 'INVALID_SIGNATURE'

/** Codes this library adds for outcomes decided on the client side. */
export type ClientCode =
  /** The instance's public URL gave no host; nothing was sent. */
  | 'DOMAIN_UNDETERMINED'
  /** The client-side activation limiter tripped (10 failed activations within an hour). */
  | 'ACTIVATION_THROTTLED'
  /** The service could not be reached (network error, timeout, 5xx, 429) after the retries, and no grace applies. */
  | 'SERVICE_UNAVAILABLE'
  /** The answer's X-Service-Signature is missing or wrong: the answer is not trusted. */
  | 'INVALID_RESPONSE_SIGNATURE'
  /** The service answered something this client does not understand. */
  | 'UNEXPECTED_RESPONSE'

export type LicenseCode = ServiceCode | ClientCode

/** The rejections after which no grace is granted (docs/license-client.md "Hard rejections"). */
export const HARD_REJECTIONS: readonly ServiceCode[] = [
  'LICENSE_NOT_FOUND',
  'LICENSE_INACTIVE',
  'LICENSE_EXPIRED',
  'MODULE_MISMATCH',
  'VERSION_MISMATCH',
  'NOT_ACTIVATED_ON_DOMAIN',
]

/** The five fields every license client request carries, with exactly these names (docs/licenses.md "Client request"). */
export interface ClientRequest {
  key: string
  module_name: string
  domain: string
  hw_fingerprint: string
  erp_version: string
}

/** The license as the validate endpoint describes it. */
export interface LicenseSummary {
  key: string
  status: string
  expiresAt: string | null
}

/** Where a verification answer came from. */
export type VerificationSource = 'service' | 'cache' | 'grace' | 'client'

export interface VerificationResult {
  valid: boolean
  code: LicenseCode
  message: string
  license: LicenseSummary | null
  source: VerificationSource
  /** When the answer was obtained (ms since the epoch, the client's clock). */
  checkedAt: number
  /** Last time the service itself confirmed the license valid (ms), if ever. */
  lastKnownGoodAt: number | null
  /** For grace answers: when the offline token stops covering this installation (ms). */
  graceUntil?: number
}

export interface ActivationResult {
  activated: boolean
  activationsCount: number
  activationsLimit: number
}

export interface DeactivationResult {
  deactivated: boolean
  activationsCount?: number
}

/** Claims of the offline token (docs/licenses.md "Offline token"). iat and exp are Unix seconds. */
export interface OfflineTokenClaims {
  key: string
  module: string
  domain: string
  erp_version: string
  hw_fingerprint: string
  status: string
  iat: number
  exp: number
}

export interface OfflineToken {
  token: string
  claims: OfflineTokenClaims
}

/** An Ed25519 public key as published at /.well-known/jwks.json. */
export interface Jwk {
  kty: string
  crv?: string
  x?: string
  kid?: string
  alg?: string
  use?: string
}

export interface Jwks {
  keys: Jwk[]
}

/** Everything the client keeps between runs. Times are ms since the epoch. */
export interface LicenseState {
  offlineToken?: string
  jwks?: Jwks
  lastKnownGoodAt?: number
  lastReverifiedAt?: number
  /** The license as the service last described it when valid (shown in grace answers). */
  lastLicense?: LicenseSummary
  /** The last hard rejection the service gave; while set, no grace is granted. */
  hardRejection?: { code: ServiceCode; message: string; at: number }
  /** Times of failed activation attempts within the limiter window. */
  activationFailures?: number[]
}

/** The small interface a host implements to keep the client's state (a file by default). */
export interface LicenseStorage {
  load(): Promise<LicenseState>
  save(state: LicenseState): Promise<void>
}

export interface LicenseClientOptions {
  /** The license key; upper-cased before sending. */
  key: string
  /** Technical name of the connector module. */
  moduleName: string
  /** The ERP instance's public URL (its base URL system parameter); the domain is its host. */
  publicUrl: string
  /** The installation's hardware or database identity; only its SHA-256 is sent. */
  installationId: string
  /** ERP version, e.g. "19.0"; sent as its major version "<major>.0". */
  erpVersion: string
  /** The licensed product's signing secret (HMAC key of requests and responses). */
  signingSecret: string
  /** The service's base address, including /api. Defaults to DEFAULT_BASE_URL. */
  baseUrl?: string
  /** Where the offline token and timestamps are kept; a JSON file by default. */
  storage?: LicenseStorage
  /** Current time in ms; injectable for tests and simulations. */
  now?: () => number
  /** Waits the given ms; injectable so retries can be observed without waiting. */
  sleep?: (ms: number) => Promise<void>
  /** The fetch implementation; the global one by default. */
  fetch?: typeof fetch
  /** Timeout of one HTTP attempt in ms (default 10 000). */
  timeoutMs?: number
  /** Retries after a transient failure (default 3, so 4 attempts at most). */
  retries?: number
}
