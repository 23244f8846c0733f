import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { test } from 'node:test'

// The real entry point: starts, answers, and on SIGTERM finishes the request
// in flight before it exits.

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

async function waitForHealth(port: number) {
  // Up to a minute: a cold start compiles the TypeScript, slow on a busy machine.
  for (let i = 0; i < 600; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`)
      if (res.ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('server did not start')
}

test('npm start serves the API and shuts down gracefully on SIGTERM', async (t) => {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: 'memory://', LOG_LEVEL: 'silent', RATE_LIMIT: 'off' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  // A failed assertion must not leave the server running (the test run would wait for it forever).
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  await waitForHealth(port)

  // A request whose body is still arriving when SIGTERM comes.
  const body = JSON.stringify({ organizationName: 'Graceful', name: 'G', email: 'graceful@example.com', password: 'long enough pw' })
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/api/auth/register', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.write(body.slice(0, 20))
    setTimeout(() => {
      child.kill('SIGTERM')
      setTimeout(() => req.end(body.slice(20)), 300)
    }, 200)
  })

  const done = await response
  assert.equal(done.status, 201, done.body)
  assert.equal(await exited, 0)
  await assert.rejects(fetch(`http://127.0.0.1:${port}/api/health`))
})

test('a bad configuration stops the start with a clear message', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: 'not-a-port', DATA_DIR: 'memory://' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (c) => (stderr += c))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  assert.equal(code, 1)
  assert.match(stderr, /Invalid configuration:\n\s+PORT must be integer/)
})
