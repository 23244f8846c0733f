// The dashboard: a single-page React app, built into dist/ and served by the
// API's own process at `/` (src/core/dashboard.ts). `npm run dashboard:dev`
// serves it with hot reload on :5173, sending /api to the API on :3000.
import react from '@vitejs/plugin-react'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { proxy: { '/api': process.env.BP_API_URL ?? 'http://localhost:3000' } },
})
