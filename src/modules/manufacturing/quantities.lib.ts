/**
 * Exact quantity arithmetic for component needs: products and quotients of
 * decimal quantities (component quantity x order quantity / BOM quantity,
 * through phantom kits) are kept as fractions of BigInts and rounded once, to
 * SCALE decimal places, half away from zero. Sums and differences use the
 * inventory module's exact decimals (add, sub).
 */
export const SCALE = 6

export interface Fraction {
  n: bigint
  d: bigint
}

/** A number at its shortest decimal spelling (what JSON and numeric hold), as a fraction. */
export function fraction(x: number): Fraction {
  const [mantissa, exponent] = x.toString().split('e')
  const negative = mantissa.startsWith('-')
  const [int, frac = ''] = (negative ? mantissa.slice(1) : mantissa).split('.')
  const shift = frac.length - (exponent ? Number(exponent) : 0)
  const digits = BigInt(int + frac) * (negative ? -1n : 1n)
  return shift >= 0 ? { n: digits, d: 10n ** BigInt(shift) } : { n: digits * 10n ** BigInt(-shift), d: 1n }
}

export const times = (a: Fraction, b: Fraction): Fraction => ({ n: a.n * b.n, d: a.d * b.d })
export const over = (a: Fraction, b: Fraction): Fraction => ({ n: a.n * b.d, d: a.d * b.n })

/** The fraction rounded to SCALE decimals, half away from zero (d > 0). */
export function round(f: Fraction): number {
  const scaled = f.n * 10n ** BigInt(SCALE)
  const negative = scaled < 0n
  const abs = negative ? -scaled : scaled
  let q = abs / f.d
  if ((abs % f.d) * 2n >= f.d) q += 1n
  const digits = q.toString().padStart(SCALE + 1, '0')
  const text = `${digits.slice(0, -SCALE)}.${digits.slice(-SCALE)}`
  return Number(negative ? `-${text}` : text)
}

/** round(total x part / whole): the share of a rounded total that `part` of `whole` stands for. */
export const share = (total: number, part: number, whole: number) => round(over(times(fraction(total), fraction(part)), fraction(whole)))

export const plus = (a: Fraction, b: Fraction): Fraction => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d })
