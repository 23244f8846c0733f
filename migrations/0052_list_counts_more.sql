-- Issue 11 for the remaining lists (decision 0005): counters and indexes for
-- users, inventory locations and credit notes; indexes for API keys (their
-- list always leaves out revoked keys, so its total is a count of the
-- organization's active keys through a partial index).
SELECT list_counts_install('users', ARRAY['role']);
SELECT list_counts_install('locations', ARRAY['type']);
SELECT list_counts_install('credit_notes', ARRAY[]::text[]);

CREATE INDEX users_org_created_id_idx ON users (organization_id, created_at, id);
CREATE INDEX users_org_name_idx ON users (organization_id, name, id);
CREATE INDEX users_org_email_idx ON users (organization_id, email, id);
CREATE INDEX users_org_role_idx ON users (organization_id, role, id);
CREATE INDEX users_org_updated_idx ON users (organization_id, updated_at, id);
CREATE INDEX users_name_trgm_idx ON users USING gin (name gin_trgm_ops);
CREATE INDEX users_email_trgm_idx ON users USING gin (email gin_trgm_ops);

CREATE INDEX api_keys_org_active_created_idx ON api_keys (organization_id, created_at, id) WHERE revoked_at IS NULL;
CREATE INDEX api_keys_org_active_name_idx ON api_keys (organization_id, name, id) WHERE revoked_at IS NULL;
CREATE INDEX api_keys_org_active_user_idx ON api_keys (organization_id, user_id, created_at) WHERE revoked_at IS NULL;
CREATE INDEX api_keys_name_trgm_idx ON api_keys USING gin (name gin_trgm_ops);

CREATE INDEX locations_org_created_idx ON locations (organization_id, created_at, id);
CREATE INDEX locations_org_code_idx ON locations (organization_id, code, id);
CREATE INDEX locations_org_name_idx ON locations (organization_id, name, id);
CREATE INDEX locations_org_type_idx ON locations (organization_id, type, created_at);
CREATE INDEX locations_org_warehouse_idx ON locations (organization_id, warehouse_id, created_at);
CREATE INDEX locations_name_trgm_idx ON locations USING gin (name gin_trgm_ops);
CREATE INDEX locations_code_trgm_idx ON locations USING gin (code gin_trgm_ops);

CREATE INDEX credit_notes_org_amount_idx ON credit_notes (organization_id, amount, id);
CREATE INDEX credit_notes_org_invoice_idx ON credit_notes (organization_id, invoice_id, created_at);
CREATE INDEX credit_notes_org_contact_idx ON credit_notes (organization_id, contact_id, created_at);
CREATE INDEX credit_notes_number_trgm_idx ON credit_notes USING gin (number gin_trgm_ops);
CREATE INDEX credit_notes_contact_name_trgm_idx ON credit_notes USING gin (contact_name gin_trgm_ops);
CREATE INDEX credit_notes_contact_email_trgm_idx ON credit_notes USING gin (contact_email gin_trgm_ops);
