import { crc32, deflateSync } from 'node:zlib'
import { OPS, getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'

/** The text of every page of a PDF, read back with pdf.js (an independent reader), items joined by spaces. */
export async function pdfText(data: Buffer): Promise<string> {
  return (await pdfPages(data)).map((p) => p.text).join('\n')
}

/** Each page of a PDF as pdf.js reads it: its text (items joined by spaces) and how many images it paints. */
export async function pdfPages(data: Buffer): Promise<Array<{ text: string; images: number }>> {
  const pdf = await getDocument({ data: new Uint8Array(data), verbosity: 0, useSystemFonts: false, isEvalSupported: false }).promise
  const pages: Array<{ text: string; images: number }> = []
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n)
    const content = await page.getTextContent()
    const ops = await page.getOperatorList()
    pages.push({
      text: content.items.map((i) => ('str' in i ? i.str : '')).join(' '),
      images: ops.fnArray.filter((f) => f === OPS.paintImageXObject || f === OPS.paintInlineImageXObject).length,
    })
  }
  await pdf.destroy()
  return pages
}

/**
 * A PNG drawn by `pixel` (RGBA, 0-255 each), made here so that tests need no
 * image files: signature, IHDR, one IDAT, IEND, each chunk with its CRC.
 */
export function makePng(width: number, height: number, pixel: (x: number, y: number) => [number, number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const out = Buffer.alloc(12 + data.length)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body), 8 + data.length)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bits per channel
  header[9] = 6 // RGBA
  const raw = Buffer.alloc(height * (1 + width * 4))
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * (1 + width * 4) + 1 + x * 4)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A small logo: a blue rounded badge with a white bar, on transparency. */
export function sampleLogo(width = 240, height = 80): Buffer {
  return makePng(width, height, (x, y) => {
    const inside = Math.hypot(Math.max(0, Math.abs(x - width / 2) - (width / 2 - 20)), Math.max(0, Math.abs(y - height / 2) - (height / 2 - 20))) < 20
    if (!inside) return [0, 0, 0, 0]
    const bar = y > height * 0.4 && y < height * 0.6 && x > width * 0.2 && x < width * 0.8
    return bar ? [255, 255, 255, 255] : [37, 99, 235, 255]
  })
}

/** A 72 x 24 pixel JPEG (a teal bar), as base64: made once with pdftoppm, since Node has no JPEG encoder. */
export const SAMPLE_JPEG_BASE64 =
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk//2wBDAQ4ODhMREyYVFSZPNS01T09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT0//wAARCAAYAEgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDFooru/Df9g/2Fbfbv7N+0fNv87y9/3jjOeemK2bseNSp+0dr2OEor07/il/8AqD/+QqP+KX/6g/8A5Cpc/kb/AFX+8jzGivTv+KX/AOoP/wCQqP8Ail/+oP8A+QqOfyD6r/eR5jRXp3/FL/8AUH/8hVmeJP7B/sK5+w/2b9o+XZ5Pl7/vDOMc9M0cxMsNZN8yOEoooqjmCiiigAooooAKKKKACiiigAooooA//9k='
