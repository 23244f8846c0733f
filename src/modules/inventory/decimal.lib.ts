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
