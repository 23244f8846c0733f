export interface MailAttachment {
  filename: string
  contentType: string
  content: Buffer
}

export interface MailMessage {
  /** The organization the message is sent for (null for service messages). */
  organizationId: string | null
  to: string
  subject: string
  text: string
  html?: string
  attachments?: MailAttachment[]
}
