/**
 * Money rules of docs/platform.md "Money", computed exactly: amounts are integer cents and
 * quantities, discounts and tax rates are decimals, so the products are taken
 * as fractions of big integers and rounded once, half away from zero. Floating
 * point would round 0.5-cent cases the wrong way (1.005 * 100 = 100.49999...).
 */
import { Type } from 'typebox'
import { ValidationError } from './errors.ts'

/** A JavaScript number as an exact fraction of its shortest decimal form. */
function fraction(n: number): { num: bigint; den: bigint } {
  const [mantissa, exp = '0'] = String(n).toLowerCase().split('e')
  const [int, frac = ''] = mantissa.split('.')
  const scale = frac.length - Number(exp)
  const digits = BigInt(int + frac)
  return scale >= 0 ? { num: digits, den: 10n ** BigInt(scale) } : { num: digits * 10n ** BigInt(-scale), den: 1n }
}

/** num / den rounded half away from zero. */
function divideRounded(num: bigint, den: bigint): bigint {
  const negative = num < 0n !== den < 0n
  const a = num < 0n ? -num : num
  const b = den < 0n ? -den : den
  const q = (2n * a + b) / (2n * b)
  return negative ? -q : q
}

function toSafeNumber(v: bigint, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new ValidationError(`${what} is too large`)
  return Number(v)
}

/** round(quantity * unitPrice * (100 - discount) / 100), half away from zero. */
export function lineTotal(quantity: number, unitPrice: number, discount = 0): number {
  const q = fraction(quantity)
  const d = fraction(discount)
  const num = q.num * BigInt(unitPrice) * (100n * d.den - d.num)
  return toSafeNumber(divideRounded(num, q.den * d.den * 100n), 'line total')
}

/** round(amount * rate / 100), half away from zero: the tax of one line. */
export function percentOf(amount: number, rate: number): number {
  const r = fraction(rate)
  return toSafeNumber(divideRounded(BigInt(amount) * r.num, r.den * 100n), 'tax amount')
}

export interface PricedLine {
  quantity: number
  unitPrice: number
  discount?: number
  taxRate?: number | null
}

export interface Totals {
  /** The total of each line, in the order given. */
  lineTotals: number[]
  subtotal: number
  taxAmount: number
  total: number
}

/** Subtotal, tax (summed per line) and total of a document's lines. */
export function documentTotals(lines: readonly PricedLine[]): Totals {
  const lineTotals = lines.map((l) => lineTotal(l.quantity, l.unitPrice, l.discount ?? 0))
  const subtotal = lineTotals.reduce((s, t) => s + t, 0)
  const taxAmount = lines.reduce((s, l, i) => s + (l.taxRate ? percentOf(lineTotals[i], l.taxRate) : 0), 0)
  const total = subtotal + taxAmount
  if (!Number.isSafeInteger(total)) throw new ValidationError('document total is too large')
  return { lineTotals, subtotal, taxAmount, total }
}

/** An ISO 4217 currency code as clients send it; stored lower-case (normalizeCurrency). */
export const CurrencyInput = Type.String({ pattern: '^[A-Za-z]{3}$', maxLength: 3, description: 'ISO 4217 code (e.g. eur); stored lower-case' })
export const normalizeCurrency = (c: string) => c.toLowerCase()
