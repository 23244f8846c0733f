// Makes a new current signing key for offline license tokens:
//   npx tsx src/modules/licenses/rotate-key.ts
// Uses the service's DATABASE_URL / DATA_DIR. Earlier keys stay published in
// the JWKS until the tokens they signed have expired.
import { loadConfig } from '../../config.ts'
import { openDb } from '../../core/db.ts'
import { migrate } from '../../core/migrate.ts'
import { OfflineTokenSigner } from './license-tokens.ts'

const db = await openDb(loadConfig())
try {
  await migrate(db)
  const kid = await new OfflineTokenSigner(db).rotate()
  console.log(`New current license signing key: ${kid}`)
} finally {
  await db.close()
}
