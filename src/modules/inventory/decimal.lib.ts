/**
 * Exact sums and differences of quantities. Quantities are numbers in JSON and
 * numeric in SQL; a difference computed in binary floating point (1 - 0.9 =
 * 0.09999999999999998) would be stored as such and break the ledger's
 * equalities. Each number is taken at its shortest decimal spelling (what
 * JSON and the numeric column hold), so 1 - 0.9 is 0.1.
 */
function scaled(n: number): [bigint, number] {
  const [mantissa, exponent] = n.toString().split('e')
  const negative = mantissa.startsWith('-')
  const [int, frac = ''] = (negative ? mantissa.slice(1) : mantissa).split('.')
  let digits = int + frac
  let scale = frac.length - (exponent ? Number(exponent) : 0)
  if (scale < 0) {
    digits += '0'.repeat(-scale)
    scale = 0
  }
  return [BigInt(digits) * (negative ? -1n : 1n), scale]
}

function combine(a: number, b: number, sign: 1n | -1n): number {
  const [x, sx] = scaled(a)
  const [y, sy] = scaled(b)
  const scale = Math.max(sx, sy)
  const r = x * 10n ** BigInt(scale - sx) + sign * y * 10n ** BigInt(scale - sy)
  const negative = r < 0n
  const digits = (negative ? -r : r).toString().padStart(scale + 1, '0')
  const text = scale ? `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}` : digits
  return Number(negative ? `-${text}` : text)
}

/** a + b, exactly as decimals. */
export const add = (a: number, b: number) => combine(a, b, 1n)
/** a - b, exactly as decimals. */
export const sub = (a: number, b: number) => combine(a, b, -1n)

/**
 * round(quantity x cents), half away from zero, exactly: the quantity at its
 * decimal spelling times the integer amount, in integers, then rounded once
 * (docs/accounting.md "Posting rules: stock moves and revaluations"). No
 * binary floating point product: 1.005 x 100 is 100.5, rounded to 101.
 */
export function mulRound(quantity: number, cents: number): number {
  if (!Number.isSafeInteger(cents)) throw new Error(`mulRound: ${cents} is not a whole number of cents`)
  const [x, scale] = scaled(quantity)
  const product = x * BigInt(cents)
  const unit = 10n ** BigInt(scale)
  const negative = product < 0n
  const abs = negative ? -product : product
  // Half of a power of ten is exact (5, 50, ...); for a whole quantity (unit 1) it is 0 and nothing is rounded.
  const value = (abs + unit / 2n) / unit
  return Number(negative ? -value : value)
}
