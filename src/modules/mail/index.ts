import { defineModule } from '../../core/module.ts'
import { mailRoutes } from './mail.routes.ts'
import { MailService } from './mail.service.ts'

export type { MailService }
export type { MailMessage } from './mail.types.ts'

declare module '../../core/module.ts' {
  interface Services {
    mail: MailService
  }
}

/** The durable e-mail outbox and its SMTP delivery (a kernel queue, core/worker.ts). */
export const mailModule = defineModule({
  name: 'mail',
  needs: [],
  async register(app, ctx) {
    const mail = new MailService(ctx.db, ctx.config.smtpUrl, ctx.config.mailFrom, app.log, ctx.secrets)
    await mail.init()
    app.addHook('onClose', async () => mail.close())
    ctx.worker.add(mail.queue)
    ctx.jobs.register({
      name: 'mail-delivery',
      description: 'Delivers queued e-mails over SMTP (SMTP_URL), retrying failures with backoff; the queue worker of every process does it continuously, this runs one pass',
      intervalMs: 5_000,
      run: (scope) => mail.deliverDue(scope.organizationId),
    })
    mailRoutes(app, mail)
    return mail
  },
})
