import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { mailRoutes } from './mail.routes.ts'
import { MailService } from './mail.service.ts'

declare module '../services.ts' {
  interface Services {
    mail: MailService
  }
}

export async function mailModule(app: App, ctx: ModuleContext) {
  const mail = new MailService(ctx.db, ctx.config.smtpUrl, ctx.config.mailFrom, app.log)
  ctx.services.mail = mail
  app.addHook('onClose', async () => mail.close())
  ctx.jobs.register({
    name: 'mail-delivery',
    description: 'Delivers queued e-mails over SMTP (SMTP_URL), retrying failures with backoff',
    intervalMs: 5_000,
    run: () => mail.deliverDue(),
  })
  mailRoutes(app, mail)
}
