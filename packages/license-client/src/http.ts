import { SIGNATURE_HEADER, signBody, verifyBody } from './signature.ts'

/** Recommended client backoff (docs/platform.md "Client backoff"): min(1000 * 2^attempt, 30000) ms. */
export const backoffDelay = (attempt: number) => Math.min(1000 * 2 ** attempt, 30_000)

/** Never wait longer than an hour for a rate-limit window, whatever the header says. */
const MAX_RATE_LIMIT_WAIT_MS = 60 * 60_000

/** How the answer's X-Service-Signature compared with its body. */
export type SignatureCheck = 'valid' | 'invalid' | 'absent'

export interface ServiceAnswer {
  status: number
  /** Parsed JSON body, or null when the body is empty or not JSON. */
  body: any
  signature: SignatureCheck
}

/** The service could not give an answer: network error, timeout, 5xx or 429, after every retry. */
export class TransientFailure extends Error {
  override readonly name = 'TransientFailure'
  constructor(message: string, readonly status?: number) {
    super(message)
  }
}

export interface TransportOptions {
  baseUrl: string
  signingSecret: string
  now: () => number
  sleep: (ms: number) => Promise<void>
  fetch: typeof fetch
  timeoutMs: number
  retries: number
}

const isTransientStatus = (status: number) => status === 429 || status >= 500

/**
 * HTTP to the license endpoints with the retry policy of docs/license-client.md "Retries": a 429
 * waits until X-RateLimit-Reset, anything else transient waits the backoff.
 */
export class Transport {
  constructor(private readonly o: TransportOptions) {}

  /** POST a JSON body signed with the product secret, authenticated by the license key. */
  post(path: string, body: unknown, licenseKey: string): Promise<ServiceAnswer> {
    const raw = JSON.stringify(body)
    return this.send(path, {
      method: 'POST',
      body: raw,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${licenseKey}`,
        [SIGNATURE_HEADER]: signBody(raw, this.o.signingSecret),
      },
    })
  }

  get(path: string): Promise<ServiceAnswer> {
    return this.send(path, { method: 'GET', headers: { accept: 'application/json' } })
  }

  private async send(path: string, init: RequestInit): Promise<ServiceAnswer> {
    const url = `${this.o.baseUrl.replace(/\/+$/, '')}${path}`
    for (let attempt = 0; ; attempt++) {
      let res: Response | undefined
      let failure: string
      try {
        res = await this.o.fetch(url, { ...init, signal: AbortSignal.timeout(this.o.timeoutMs) })
        const text = await res.text()
        if (!isTransientStatus(res.status)) return this.answer(res, text)
        failure = `The license service answered ${res.status}`
      } catch (err) {
        res = undefined
        failure = `The license service could not be reached: ${(err as Error).message}`
      }
      if (attempt >= this.o.retries) throw new TransientFailure(failure, res?.status)
      await this.o.sleep(res?.status === 429 ? this.rateLimitWait(res, attempt) : backoffDelay(attempt))
    }
  }

  /** Until X-RateLimit-Reset (Unix seconds); the backoff when the header is missing. */
  private rateLimitWait(res: Response, attempt: number): number {
    const reset = Number(res.headers.get('x-ratelimit-reset'))
    if (!res.headers.has('x-ratelimit-reset') || !Number.isFinite(reset)) return backoffDelay(attempt)
    return Math.min(Math.max(0, reset * 1000 - this.o.now()), MAX_RATE_LIMIT_WAIT_MS)
  }

  private answer(res: Response, text: string): ServiceAnswer {
    const header = res.headers.get(SIGNATURE_HEADER)
    const signature: SignatureCheck = header === null ? 'absent' : verifyBody(text, this.o.signingSecret, header) ? 'valid' : 'invalid'
    let body: any = null
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      body = null
    }
    return { status: res.status, body, signature }
  }
}
