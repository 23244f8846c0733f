import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/** The repository's root folder. */
export const repoRoot = join(import.meta.dirname, '..', '..')

/**
 * Every file under `dir` (relative to the repository), sorted, as paths
 * relative to the repository; installed and built folders (node_modules,
 * dist) are left out. The source scans of the tests (module shape, module
 * needs, contract citations) read the tree through it.
 */
export function filesUnder(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : filesUnder(path)
      return [path]
    })
}
