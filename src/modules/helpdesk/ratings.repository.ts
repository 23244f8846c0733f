import type { Queryable } from '../../core/db.ts'

/** A ticket's one rating by its customer. */
export const ratingsRepository = {
  /** The rating, or undefined when the ticket was rated already. */
  async insertRating(q: Queryable, organizationId: string, ticketId: string, rating: number, comment: string | null, ratedBy: string | null) {
    const { rows } = await q.query<{ created_at: Date }>(
      `INSERT INTO helpdesk_ratings (ticket_id, organization_id, rating, comment, rated_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, ticket_id) DO NOTHING RETURNING created_at`,
      [ticketId, organizationId, rating, comment, ratedBy],
    )
    return rows[0]?.created_at
  },
}
