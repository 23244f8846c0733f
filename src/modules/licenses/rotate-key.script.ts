// Makes a new current signing key for offline license tokens:
//   npx tsx src/modules/licenses/rotate-key.script.ts
// Uses the service's DATABASE_URL / DATA_DIR, and its SECRET_KEY, which seals the
// new private key (a key that does not open the existing ones stops it first).
// Earlier keys stay published in the JWKS until the tokens they signed have expired.
import { loadConfig } from '../../config.ts'
import { openDb } from '../../core/db.ts'
import { migrate } from '../../core/migrate.ts'
import { SecretBox } from '../../core/secrets.ts'
import { OfflineTokenSigner } from './license-tokens.signature.ts'

const config = loadConfig()
const secrets = await SecretBox.open(config)
const db = await openDb(config)
try {
  await migrate(db)
  const signer = new OfflineTokenSigner(db, secrets)
  await signer.init()
  const kid = await signer.rotate()
  console.log(`New current license signing key: ${kid}`)
} finally {
  await db.close()
}
