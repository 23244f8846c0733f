-- One spelling in code, routes and tables: the API says "license" (issue 9).
-- Renames the tables of 0020 and every index and constraint named after them,
-- so that constraint names in error mapping read the same as the code.
ALTER TABLE licences RENAME TO licenses;
ALTER TABLE licence_activations RENAME TO license_activations;
ALTER TABLE license_activations RENAME COLUMN licence_id TO license_id;
ALTER TABLE licence_signing_keys RENAME TO license_signing_keys;

ALTER INDEX licences_pkey RENAME TO licenses_pkey;
ALTER INDEX licences_key_key RENAME TO licenses_key_key;
ALTER INDEX licences_org_created_idx RENAME TO licenses_org_created_idx;
ALTER INDEX licences_user_idx RENAME TO licenses_user_idx;
ALTER INDEX licences_subscription_idx RENAME TO licenses_subscription_idx;
ALTER INDEX licences_order_idx RENAME TO licenses_order_idx;
ALTER INDEX licences_expiry_idx RENAME TO licenses_expiry_idx;
ALTER INDEX licence_activations_pkey RENAME TO license_activations_pkey;
ALTER INDEX licence_signing_keys_pkey RENAME TO license_signing_keys_pkey;
ALTER INDEX licence_signing_keys_current_key RENAME TO license_signing_keys_current_key;

ALTER TABLE licenses RENAME CONSTRAINT licences_organization_id_fkey TO licenses_organization_id_fkey;
ALTER TABLE licenses RENAME CONSTRAINT licences_product_id_fkey TO licenses_product_id_fkey;
ALTER TABLE licenses RENAME CONSTRAINT licences_user_id_fkey TO licenses_user_id_fkey;
ALTER TABLE licenses RENAME CONSTRAINT licences_key_check TO licenses_key_check;
ALTER TABLE licenses RENAME CONSTRAINT licences_status_check TO licenses_status_check;
ALTER TABLE licenses RENAME CONSTRAINT licences_activations_limit_check TO licenses_activations_limit_check;
ALTER TABLE licenses RENAME CONSTRAINT licences_check TO licenses_check;
ALTER TABLE license_activations RENAME CONSTRAINT licence_activations_licence_id_fkey TO license_activations_license_id_fkey;
ALTER TABLE license_activations RENAME CONSTRAINT licence_activations_domain_check TO license_activations_domain_check;
