import type { Queryable } from '../../core/db.ts'

/** A done move with what the posting rules read of it: the product's cost basis and the types of both ends. */
export interface HistoryMoveRow {
  id: string
  reference: string
  transfer_id: string | null
  product_id: string
  product_name: string
  cost: string | null
  currency: string
  product_type: string
  quantity: string
  source_location_id: string
  destination_location_id: string
  source_type: string
  destination_type: string
  done_at: Date
}

export const valuationRepository = {
  /**
   * Locks the product's quants at internal locations, in the order every
   * writer locks quants (location in code-point order, one product), and
   * returns their sum as read after the locks: the on-hand quantity that no
   * validation can change until this transaction ends (exact decimal text).
   */
  async lockOnHand(q: Queryable, organizationId: string, productId: string): Promise<string> {
    const { rows } = await q.query<{ on_hand: string }>(
      `SELECT coalesce(sum(l.quantity), 0)::text AS on_hand FROM (
         SELECT quantity FROM stock_quants WHERE organization_id = $1 AND product_id = $2 AND internal
         ORDER BY location_id COLLATE "C" FOR UPDATE) l`,
      [organizationId, productId],
    )
    return rows[0].on_hand
  },

  /** Every done move of the organization with its product's current cost basis and its locations' types, oldest first. */
  async doneMoves(q: Queryable, organizationId: string): Promise<HistoryMoveRow[]> {
    const { rows } = await q.query<HistoryMoveRow>(
      `SELECT m.id, m.reference, m.transfer_id, m.product_id, p.name AS product_name, p.cost::text AS cost, p.currency, p.type AS product_type,
              m.quantity::text AS quantity, m.source_location_id, m.destination_location_id, s.type AS source_type, d.type AS destination_type, m.done_at
         FROM stock_moves m
         JOIN products p ON p.organization_id = m.organization_id AND p.id = m.product_id
         JOIN locations s ON s.organization_id = m.organization_id AND s.id = m.source_location_id
         JOIN locations d ON d.organization_id = m.organization_id AND d.id = m.destination_location_id
        WHERE m.organization_id = $1
        ORDER BY m.done_at, m.id`,
      [organizationId],
    )
    return rows
  },
}
