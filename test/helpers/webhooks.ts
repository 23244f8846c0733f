// A real HTTP receiver on a free loopback port for the webhook tests: it
// records every request and answers as the test says (status, or never).
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  id: string
  timestamp: string
  signature: string
  body: string
  json: any
  at: number
}

export interface Receiver {
  url: string
  received: Received[]
  /** Decides the answer of the n-th request (0-based): a status, a status later, or 'hang' to never answer. */
  answer: (n: number, r: Received) => number | Promise<number> | 'hang'
  /** Resolves when `count` requests (optionally of a filter) have arrived; fails after `ms`. */
  waitFor(count: number, ms?: number, keep?: (r: Received) => boolean): Promise<Received[]>
  close(): Promise<void>
}

export async function startReceiver(answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>()
  const waiters = new Set<() => void>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const r: Received = {
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        json: JSON.parse(body),
        at: Date.now(),
      }
      const n = receiver.received.length
      receiver.received.push(r)
      for (const w of waiters) w()
      const status = receiver.answer(n, r)
      if (status === 'hang') {
        hanging.add(res)
        return
      }
      void Promise.resolve(status).then((s) => res.writeHead(s, { 'content-type': 'text/plain' }).end('ok'))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received: [],
    answer,
    waitFor(count, ms = 10_000, keep = () => true) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = receiver.received.filter(keep)
          if (got.length >= count) {
            waiters.delete(check)
            clearTimeout(timer)
            resolve(got)
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`receiver got ${receiver.received.filter(keep).length} of ${count} requests within ${ms} ms`))
        }, ms)
        waiters.add(check)
        check()
      })
    },
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return receiver
}
