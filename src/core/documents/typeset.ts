import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import * as fontkit from 'fontkit'

/**
 * Text on document PDFs in any of the scripts customers write: Noto Sans
 * (Latin, Greek, Cyrillic, currency symbols), then Noto Sans JP, SC and KR
 * (kana, kanji/hanzi, hangul), all TrueType from @expo-google-fonts packages
 * (docs/decisions/0004-document-fonts.md). Each run of text is set in the
 * first font of that chain that has its glyphs, so "Łódź 東京" mixes two
 * fonts on one line. pdfkit embeds only the fonts a document uses, subset to
 * the glyphs it uses.
 *
 * Lines are broken here rather than by pdfkit, so that a cell's height is
 * known before it is drawn (table rows never split across pages) and mixed
 * runs share one baseline.
 */

export type Weight = 'regular' | 'bold'

interface Face {
  /** pdfkit's name of the face, registered on each document. */
  name: string
  /**
   * Parsed once and shared by every document (pdfkit takes a fontkit font in
   * place of the file): its layout tables are read at first use, not per PDF.
   */
  font: fontkit.Font
}
interface Family {
  regular: Face
  bold: Face
  /** For glyph coverage (the same in both weights). */
  coverage: fontkit.Font
}

const require = createRequire(import.meta.url)
const FAMILIES: Array<[string, string]> = [
  ['NotoSans', '@expo-google-fonts/noto-sans'],
  ['NotoSansJP', '@expo-google-fonts/noto-sans-jp'],
  ['NotoSansSC', '@expo-google-fonts/noto-sans-sc'],
  ['NotoSansKR', '@expo-google-fonts/noto-sans-kr'],
]

let loaded: Family[] | undefined
/** The font chain, read from node_modules at first use and kept. */
function families(): Family[] {
  loaded ??= FAMILIES.map(([family, pkg]) => {
    const face = (weight: '400Regular' | '700Bold'): Face => ({
      name: `${family}-${weight}`,
      font: fontkit.create(readFileSync(require.resolve(`${pkg}/${weight}/${family}_${weight}.ttf`))) as fontkit.Font,
    })
    const regular = face('400Regular')
    return { regular, bold: face('700Bold'), coverage: regular.font }
  })
  return loaded
}

/** Loads the fonts now (at start-up) rather than on the first document. */
export function loadFonts() {
  families()
}

/** The document the text goes on; the subset of pdfkit's PDFDocument used here. */
export type Doc = PDFKit.PDFDocument

/** Registers the chain's faces on a new document (nothing is embedded until a face is used). */
export function registerFonts(doc: Doc) {
  for (const f of families()) {
    doc.registerFont(f.regular.name, f.regular.font as unknown as Buffer)
    doc.registerFont(f.bold.name, f.bold.font as unknown as Buffer)
  }
}

/** A piece of text set in one face. */
export interface Run {
  face: string
  text: string
  width: number
}

const cache = new Map<string, number>()
const codePointsOf = (s: string) => [...s]
const isSpace = (c: string) => /\s/.test(c)
/** Characters of no script of their own: digits, punctuation, spaces, symbols, combining marks, joiners. */
const isNeutral = (c: string) => /[\p{Script=Common}\p{Script=Inherited}]/u.test(c)

function familyFor(c: string, current: Family | undefined): Family {
  const chain = families()
  const cp = c.codePointAt(0)!
  // Neutral characters stay in the run they follow ("丸の内1-1-1" is one run), when its face has them.
  if (current && isNeutral(c) && current.coverage.hasGlyphForCodePoint(cp)) return current
  return chain.find((f) => f.coverage.hasGlyphForCodePoint(cp)) ?? current ?? chain[0]
}

/** Splits text into runs of one face each, the first face of the chain that has the glyphs. */
export function runsOf(doc: Doc, text: string, weight: Weight, size: number): Run[] {
  const runs: Array<{ family: Family; text: string }> = []
  for (const c of codePointsOf(text)) {
    const last = runs[runs.length - 1]
    const family = familyFor(c, last?.family)
    if (last && last.family === family) last.text += c
    else runs.push({ family, text: c })
  }
  return runs.map((r) => {
    const face = r.family[weight].name
    return { face, text: r.text, width: widthOf(doc, face, r.text, size) }
  })
}

function widthOf(doc: Doc, face: string, text: string, size: number) {
  const key = `${face}\u0000${size}\u0000${text}`
  let w = cache.get(key)
  if (w === undefined) {
    w = doc.font(face).fontSize(size).widthOfString(text)
    if (cache.size > 20_000) cache.clear()
    cache.set(key, w)
  }
  return w
}

/** One line of runs, and its width. */
export interface Line {
  runs: Run[]
  width: number
}

// Ideographs, kana and hangul may break anywhere; other scripts break at spaces.
const BREAK_ANYWHERE = /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\u{20000}-\u{3ffff}]/u

/** Words and the spaces between them: a CJK character is a word of its own. */
function tokens(paragraph: string): string[] {
  const out: string[] = []
  let word = ''
  for (const c of codePointsOf(paragraph)) {
    if (isSpace(c) || BREAK_ANYWHERE.test(c)) {
      if (word) out.push(word)
      word = ''
      out.push(c)
    } else word += c
  }
  if (word) out.push(word)
  return out
}

/**
 * Breaks text into lines no wider than `width`: at newlines, at spaces, between
 * CJK characters, and inside a word only when the word alone is too wide.
 */
export function wrap(doc: Doc, text: string, opts: { width: number; size: number; weight?: Weight }): Line[] {
  const { width, size } = opts
  const weight = opts.weight ?? 'regular'
  const lines: Line[] = []
  for (const paragraph of text.replace(/\r\n?/g, '\n').split('\n')) {
    let current = ''
    let currentWidth = 0
    const measure = (s: string) => runsOf(doc, s, weight, size).reduce((w, r) => w + r.width, 0)
    const flush = () => {
      const trimmed = current.replace(/\s+$/u, '')
      lines.push(layoutLine(doc, trimmed, weight, size))
      current = ''
      currentWidth = 0
    }
    for (const token of tokens(paragraph)) {
      if (!current && isSpace(token)) continue
      const w = measure(token)
      if (current && currentWidth + w > width) {
        flush()
        if (isSpace(token)) continue
      }
      if (w > width && !isSpace(token)) {
        // A word wider than the line (an IBAN, a URL): broken between characters.
        for (const c of codePointsOf(token)) {
          const cw = measure(c)
          if (current && currentWidth + cw > width) flush()
          current += c
          currentWidth += cw
        }
        continue
      }
      current += token
      currentWidth += w
    }
    flush()
  }
  return lines
}

function layoutLine(doc: Doc, text: string, weight: Weight, size: number): Line {
  const runs = text ? runsOf(doc, text, weight, size) : []
  return { runs, width: runs.reduce((w, r) => w + r.width, 0) }
}

/** The distance between two baselines. */
export const lineHeight = (size: number) => size * 1.35

/** The height of lines of text set at `size`. */
export const heightOf = (lines: Line[], size: number) => lines.length * lineHeight(size)

/**
 * Draws lines from `top` down, aligned in the box [x, x + width]; answers the
 * y under the last line. Runs share one baseline whatever their face.
 */
export function drawLines(doc: Doc, lines: Line[], x: number, top: number, opts: { width: number; size: number; align?: 'left' | 'right' | 'center' }) {
  const { width, size } = opts
  let y = top
  for (const line of lines) {
    const baseline = y + size * 1.07
    let cx = opts.align === 'right' ? x + width - line.width : opts.align === 'center' ? x + (width - line.width) / 2 : x
    for (const run of line.runs) {
      doc.font(run.face).fontSize(size).text(run.text, cx, baseline, { lineBreak: false, baseline: 'alphabetic' })
      cx += run.width
    }
    y += lineHeight(size)
  }
  return y
}

/** Wraps and draws text in one call; answers the y under it. */
export function drawText(doc: Doc, text: string, x: number, top: number, opts: { width: number; size: number; weight?: Weight; align?: 'left' | 'right' | 'center' }) {
  return drawLines(doc, wrap(doc, text, opts), x, top, opts)
}

/** Whether some font of the chain has a glyph for every character of the text. */
export function printable(text: string): boolean {
  return codePointsOf(text).every((c) => isSpace(c) || families().some((f) => f.coverage.hasGlyphForCodePoint(c.codePointAt(0)!)))
}
