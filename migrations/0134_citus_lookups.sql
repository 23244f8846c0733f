-- The plain lookup indexes of migration 0133 that no statement needs any more
-- (issue 30; docs/scale-out.md "What it costs today"). 0133 kept, beside each key
-- it re-keyed to begin with organization_id, an index on the old key alone, for the
-- statements that did not name the organization. Every statement of the service now
-- names it (scripts/citus-queries.ts checks the statements the suite sends), so the
-- composite keys serve them, and each of these indexes only cost every insert a write.
-- Kept: the nine a lookup by a credential or a processor's id needs before the
-- organization is known (an API key's hash, a refresh token's and a reset link's
-- hash, a login's e-mail, a license key, a lead capture token, a ticket confirmation,
-- a checkout session, a processor's customer id).
DROP INDEX accounts_lookup_idx;
DROP INDEX adjustment_lines_lookup_idx;
DROP INDEX adjustments_lookup_idx;
DROP INDEX api_keys_lookup_idx;
DROP INDEX bill_payments_lookup_idx;
DROP INDEX billing_checkouts_lookup_idx;
DROP INDEX billing_customers_default_lookup_idx;
DROP INDEX bom_components_lookup_idx;
DROP INDEX boms_lookup_idx;
DROP INDEX contacts_lookup_idx;
DROP INDEX credit_notes_invoice_id_lookup_idx;
DROP INDEX credit_notes_lookup_idx;
DROP INDEX domain_event_deliveries_lookup_idx;
DROP INDEX domain_events_id_lookup_idx;
DROP INDEX domain_events_lookup_idx;
DROP INDEX employees_lookup_idx;
DROP INDEX employees_user_lookup_idx;
DROP INDEX helpdesk_attachments_message_position_lookup_idx;
DROP INDEX helpdesk_attachments_lookup_idx;
DROP INDEX helpdesk_messages_lookup_idx;
DROP INDEX helpdesk_ratings_lookup_idx;
DROP INDEX helpdesk_sla_breaches_lookup_idx;
DROP INDEX helpdesk_sla_policies_lookup_idx;
DROP INDEX helpdesk_team_members_lookup_idx;
DROP INDEX helpdesk_teams_lookup_idx;
DROP INDEX helpdesk_tickets_lookup_idx;
DROP INDEX import_rows_lookup_idx;
DROP INDEX imports_lookup_idx;
DROP INDEX invoice_payments_lookup_idx;
DROP INDEX invoices_order_lookup_idx;
DROP INDEX invoices_lookup_idx;
DROP INDEX journal_entries_lookup_idx;
DROP INDEX journal_entries_reverses_idx_lookup_idx;
DROP INDEX journal_lines_lookup_idx;
DROP INDEX leads_lookup_idx;
DROP INDEX license_activations_lookup_idx;
DROP INDEX licenses_lookup_idx;
DROP INDEX milestones_lookup_idx;
DROP INDEX module_builds_lookup_idx;
DROP INDEX module_builds_product_version_lookup_idx;
DROP INDEX orders_lookup_idx;
DROP INDEX orders_quotation_id_lookup_idx;
DROP INDEX outbox_lookup_idx;
DROP INDEX outbox_attachments_lookup_idx;
DROP INDEX password_resets_lookup_idx;
DROP INDEX production_order_outputs_lookup_idx;
DROP INDEX production_orders_lookup_idx;
DROP INDEX products_lookup_idx;
DROP INDEX projects_lookup_idx;
DROP INDEX purchase_orders_lookup_idx;
DROP INDEX purchase_receipts_lookup_idx;
DROP INDEX quotations_lookup_idx;
DROP INDEX refresh_tokens_lookup_idx;
DROP INDEX report_file_chunks_lookup_idx;
DROP INDEX report_runs_lookup_idx;
DROP INDEX stock_moves_lookup_idx;
DROP INDEX tasks_lookup_idx;
DROP INDEX timesheet_entries_lookup_idx;
DROP INDEX transfer_moves_lookup_idx;
DROP INDEX transfers_lookup_idx;
DROP INDEX users_lookup_idx;
DROP INDEX vendor_bills_lookup_idx;
DROP INDEX vendor_bills_purchase_order_lookup_idx;
DROP INDEX vendor_pricelists_lookup_idx;
DROP INDEX warehouses_lookup_idx;
DROP INDEX webhook_deliveries_lookup_idx;
DROP INDEX webhook_deliveries_seq_lookup_idx;
DROP INDEX webhook_endpoints_lookup_idx;
DROP INDEX work_orders_production_order_id_position_lookup_idx;
