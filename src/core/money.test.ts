import assert from 'node:assert/strict'
import { test } from 'node:test'
import { documentTotals, lineTotal, percentOf } from './money.ts'

test('line total = round(quantity * unitPrice * (100 - discount) / 100), half away from zero, exactly', () => {
  assert.equal(lineTotal(3, 1999, 10), 5397) // 5397.3
  assert.equal(lineTotal(2, 1001, 12.5), 1752) // 1751.75
  assert.equal(lineTotal(0.5, 1), 1) // 0.5 rounds up
  assert.equal(lineTotal(1.005, 100), 101) // 100.5 exactly, although 1.005 * 100 is 100.49999... in floating point
  assert.equal(lineTotal(1, -1, 50), -1) // -0.5 rounds away from zero
  assert.equal(lineTotal(1e-7, 1e9), 100)
  assert.equal(lineTotal(7, 333, 100), 0)
  assert.equal(lineTotal(2.5, 3, 33.3), 5) // 5.0025
})

test('tax per line: round(line total * taxRate / 100), summed', () => {
  assert.equal(percentOf(5397, 20), 1079) // 1079.4
  assert.equal(percentOf(12345, 7.5), 926) // 925.875
  assert.equal(percentOf(10, 5), 1) // 0.5
  const totals = documentTotals([
    { quantity: 1, unitPrice: 10, taxRate: 5 },
    { quantity: 1, unitPrice: 10, taxRate: 5 },
    { quantity: 1, unitPrice: 999 },
  ])
  // Per-line rounding: 0.5 + 0.5 rounds to 1 + 1, not round(1.0) on the sum.
  assert.deepEqual(totals, { lineTotals: [10, 10, 999], subtotal: 1019, taxAmount: 2, total: 1021 })
})

test('amounts beyond safe integers are refused (422)', () => {
  assert.throws(() => lineTotal(1e9, 1e12), /too large/)
})
