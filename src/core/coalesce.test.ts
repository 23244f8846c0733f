import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ReadCoalescer } from './coalesce.ts'

/** A read whose end the test decides: each call is one run, numbered from 1. */
function controlledReads() {
  const runs: Array<{ n: number; finish: (value?: unknown) => void; fail: (err: Error) => void }> = []
  const read = () => new Promise<number>((resolve, reject) => {
    const n = runs.length + 1
    runs.push({ n, finish: (value) => resolve((value as number) ?? n), fail: reject })
  })
  return { runs, read }
}
/** A few turns of the event loop: a run's read begins on the turn after it is started. */
const tick = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
}

test('reads arriving before a run has begun to read join it', async () => {
  const c = new ReadCoalescer()
  const { runs, read } = controlledReads()
  const together = [c.run('k', read), c.run('k', read), c.run('k', read)]
  assert.equal(runs.length, 0, 'the read begins on the next turn')
  await tick()
  assert.equal(runs.length, 1)
  runs[0].finish()
  assert.deepEqual(await Promise.all(together), [1, 1, 1])
  await tick()
  assert.equal(c.size, 0)
})

test('reads arriving during a run share the next run, which starts only after the current one ends', async () => {
  const c = new ReadCoalescer()
  const { runs, read } = controlledReads()
  const first = c.run('k', read)
  await tick()
  assert.equal(runs.length, 1)
  // Three reads while run 1 is in progress: none joins it (it began before they arrived).
  const late = [c.run('k', read), c.run('k', read), c.run('k', read)]
  await tick()
  assert.equal(runs.length, 1, 'the next run waits for the current one')
  runs[0].finish()
  assert.equal(await first, 1)
  await tick()
  assert.equal(runs.length, 2, 'one run for the three')
  // A read arriving now, while run 2 is in progress, waits for run 3.
  const later = c.run('k', read)
  runs[1].finish()
  assert.deepEqual(await Promise.all(late), [2, 2, 2])
  await tick()
  assert.equal(runs.length, 3)
  runs[2].finish()
  assert.equal(await later, 3)
  await tick()
  assert.equal(c.size, 0, 'no run in progress, nothing kept')
})

test('different keys never share; a failure reaches exactly the reads of its run, and the next run starts afresh', async () => {
  const c = new ReadCoalescer()
  const { runs, read } = controlledReads()
  const a = c.run('a', read)
  const b = c.run('b', read)
  await tick()
  assert.equal(runs.length, 2)
  const a2 = [c.run('a', read), c.run('a', read)]
  runs[0].fail(new Error('boom'))
  await assert.rejects(a, /boom/)
  await tick()
  assert.equal(runs.length, 3)
  runs[2].fail(new Error('second'))
  for (const p of a2) await assert.rejects(p, /second/)
  runs[1].finish('b')
  assert.equal(await b, 'b')
  const again = c.run('a', read)
  await tick()
  runs[3].finish()
  assert.equal(await again, 4)
  await tick()
  assert.equal(c.size, 0)
})

test('a read that throws synchronously rejects its callers instead of escaping', async () => {
  const c = new ReadCoalescer()
  await assert.rejects(c.run('k', () => { throw new Error('sync') }), /sync/)
  await tick()
  assert.equal(c.size, 0)
})
