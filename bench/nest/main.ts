// The NestJS + TypeORM comparison of bench/writes.ts: a small Nest app
// (platform-express, the default) over the service's contacts table, with
//   POST /contacts            Repository.save of a new Contact
//   GET  /contacts?page&limit findAndCount, skip/take, created_at desc, id desc
// Started by bench/writes.ts as a child process:
//   DATABASE_URL=... ORGANIZATION_ID=... tsx --tsconfig bench/nest/tsconfig.json bench/nest/main.ts
// It prints `listening <port>` once it accepts connections, and stops on SIGTERM or when
// its stdin (a pipe) closes; NEST_SQL_LOG=1 logs TypeORM's
// statements (a save is SELECT by id, START TRANSACTION, INSERT ... RETURNING, COMMIT).
import 'reflect-metadata'
import type { AddressInfo } from 'node:net'
import { NestFactory } from '@nestjs/core'
import { AppModule } from './app.module.ts'

const app = await NestFactory.create(AppModule, { logger: ['error'] })
app.enableShutdownHooks()
await app.listen(0, '127.0.0.1')
// Started by bench/writes.ts: its end of stdin closed (the bench gone) stops this server too.
if (!process.stdin.isTTY) process.stdin.on('end', () => void app.close().finally(() => process.exit(0))).resume()
console.log(`listening ${(app.getHttpServer().address() as AddressInfo).port}`)
