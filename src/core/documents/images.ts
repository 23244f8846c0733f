import { inflateSync } from 'node:zlib'
import PDFDocument from 'pdfkit'
import { ValidationError } from '../errors.ts'

/** Largest logo, decoded. */
export const LOGO_MAX_BYTES = 256 * 1024
/** Largest logo side in pixels: bounds the memory a PNG takes once inflated. */
const LOGO_MAX_SIDE = 2000

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const JPEG = Buffer.from([0xff, 0xd8, 0xff])
const DATA_URL = /^data:(image\/[a-z+.-]+);base64,/i
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

export interface Logo {
  data: Buffer
  contentType: 'image/png' | 'image/jpeg'
  width: number
  height: number
}

/**
 * A logo as clients send it (base64, or a data URL) checked and decoded: at
 * most LOGO_MAX_BYTES, a PNG or a JPEG by its first bytes whatever it claims,
 * and one that pdfkit can draw (it is decoded into a throwaway PDF). 422
 * otherwise, saying which rule failed.
 */
export async function readLogo(input: string, field = 'logo'): Promise<Logo> {
  const text = input.replace(DATA_URL, '').replace(/\s+/g, '')
  if (!BASE64.test(text) || text.length % 4 !== 0) throw new ValidationError(`${field} must be base64 (or a data: URL) of a PNG or JPEG image`)
  const data = Buffer.from(text, 'base64')
  if (data.length === 0) throw new ValidationError(`${field} is empty`)
  if (data.length > LOGO_MAX_BYTES) throw new ValidationError(`${field} is larger than ${LOGO_MAX_BYTES / 1024} KiB`)
  const contentType = data.subarray(0, PNG.length).equals(PNG) ? 'image/png' : data.subarray(0, JPEG.length).equals(JPEG) ? 'image/jpeg' : null
  if (!contentType) throw new ValidationError(`${field} must be a PNG or JPEG image`)
  let size: { width: number; height: number }
  try {
    // pdfkit inflates a PNG in a callback that throws out of reach: its data is checked here first.
    if (contentType === 'image/png') checkPng(data)
    size = await drawable(data, field)
  } catch (err) {
    if (err instanceof ValidationError) throw err
    throw new ValidationError(`${field} is not a readable ${contentType === 'image/png' ? 'PNG' : 'JPEG'} image`)
  }
  return { data, contentType, ...size }
}

/** pdfkit's parsed image (its typings omit openImage); doc.image takes it in place of the bytes. */
export const openImage = (doc: PDFKit.PDFDocument, data: Buffer) =>
  (doc as unknown as { openImage(src: Buffer): { width: number; height: number } }).openImage(data)

/** Opens the image with pdfkit, checks its size, and draws it into a PDF that is thrown away. */
async function drawable(data: Buffer, field: string) {
  const doc = new PDFDocument({ size: [100, 100], margin: 0 })
  doc.on('data', () => {})
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve)
    doc.on('error', reject)
  })
  const image = openImage(doc, data)
  const { width, height } = image
  if (!(width > 0 && height > 0)) throw new Error('no size')
  if (width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE) {
    throw new ValidationError(`${field} is ${width} x ${height} pixels; at most ${LOGO_MAX_SIDE} x ${LOGO_MAX_SIDE}`)
  }
  doc.image(image as unknown as Buffer, 0, 0, { fit: [100, 100] })
  doc.end()
  await done
  return { width, height }
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]]

/**
 * Reads the PNG's chunks and inflates its image data synchronously, which
 * must give exactly the bytes its header announces; throws otherwise.
 */
function checkPng(data: Buffer) {
  let pos = 8
  let header: { width: number; height: number; depth: number; colorType: number; interlace: number } | undefined
  let palette = false
  const idat: Buffer[] = []
  while (pos + 8 <= data.length) {
    const length = data.readUInt32BE(pos)
    const type = data.toString('latin1', pos + 4, pos + 8)
    const body = data.subarray(pos + 8, pos + 8 + length)
    if (body.length !== length) throw new Error('truncated chunk')
    if (type === 'IHDR') header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8], colorType: body[9], interlace: body[12] }
    else if (type === 'PLTE') palette = true
    else if (type === 'IDAT') idat.push(body)
    else if (type === 'IEND') break
    pos += 12 + length
  }
  if (!header || !idat.length || !(header.colorType in CHANNELS)) throw new Error('not a PNG')
  if (header.width > LOGO_MAX_SIDE || header.height > LOGO_MAX_SIDE) return // refused with its size by drawable
  if (header.colorType === 3 && !palette) throw new Error('no palette')
  const bits = CHANNELS[header.colorType] * header.depth
  const rowBytes = (w: number) => 1 + Math.ceil((w * bits) / 8)
  const expected = header.interlace
    ? ADAM7.reduce((sum, [x, y, dx, dy]) => {
      const w = Math.ceil((header!.width - x) / dx)
      const h = Math.ceil((header!.height - y) / dy)
      return w > 0 && h > 0 ? sum + h * rowBytes(w) : sum
    }, 0)
    : header.height * rowBytes(header.width)
  const pixels = inflateSync(Buffer.concat(idat), { maxOutputLength: expected + 1 })
  if (pixels.length !== expected) throw new Error('image data of the wrong size')
}
