-- Indexes that answer every list of issue 11 (docs/decisions/0005): a btree
-- per (organization_id, sort column, id) for each sortable field that had
-- none, one per documented filter that had none, and trigram GIN indexes for
-- the search columns (ILIKE '%text%' of three characters or more).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- contacts: sorts email, updatedAt; vendor=true with the default sort.
CREATE INDEX contacts_org_email_idx ON contacts (organization_id, email, id);
CREATE INDEX contacts_org_updated_idx ON contacts (organization_id, updated_at, id);
CREATE INDEX contacts_org_vendor_created_idx ON contacts (organization_id, created_at, id) WHERE vendor;
CREATE INDEX contacts_name_trgm_idx ON contacts USING gin (name gin_trgm_ops);
CREATE INDEX contacts_email_trgm_idx ON contacts USING gin (email gin_trgm_ops);

-- invoices: sorts and filters had theirs (0011, 0013); search.
CREATE INDEX invoices_number_trgm_idx ON invoices USING gin (number gin_trgm_ops);
CREATE INDEX invoices_contact_name_trgm_idx ON invoices USING gin (contact_name gin_trgm_ops);
CREATE INDEX invoices_contact_email_trgm_idx ON invoices USING gin (contact_email gin_trgm_ops);

-- orders: sorts total, status, updatedAt; filters salespersonId, source.
CREATE INDEX orders_org_total_idx ON orders (organization_id, total, id);
CREATE INDEX orders_org_status_id_idx ON orders (organization_id, status, id);
CREATE INDEX orders_org_updated_idx ON orders (organization_id, updated_at, id);
CREATE INDEX orders_org_salesperson_idx ON orders (organization_id, salesperson_id, created_at);
CREATE INDEX orders_org_source_idx ON orders (organization_id, source, created_at);
CREATE INDEX orders_reference_trgm_idx ON orders USING gin (reference gin_trgm_ops);
CREATE INDEX orders_contact_name_trgm_idx ON orders USING gin (contact_name gin_trgm_ops);
CREATE INDEX orders_contact_email_trgm_idx ON orders USING gin (contact_email gin_trgm_ops);

-- quotations: sorts updatedAt, total, status, validUntil.
CREATE INDEX quotations_org_updated_idx ON quotations (organization_id, updated_at, id);
CREATE INDEX quotations_org_total_idx ON quotations (organization_id, total, id);
CREATE INDEX quotations_org_status_id_idx ON quotations (organization_id, status, id);
CREATE INDEX quotations_org_valid_until_idx ON quotations (organization_id, valid_until, id);
CREATE INDEX quotations_reference_trgm_idx ON quotations USING gin (reference gin_trgm_ops);
CREATE INDEX quotations_contact_name_trgm_idx ON quotations USING gin (contact_name gin_trgm_ops);
CREATE INDEX quotations_contact_email_trgm_idx ON quotations USING gin (contact_email gin_trgm_ops);

-- products: sorts name, price; filters moduleName, erpVersion, licensed.
CREATE INDEX products_org_name_idx ON products (organization_id, name, id);
CREATE INDEX products_org_price_idx ON products (organization_id, price, id);
CREATE INDEX products_org_module_idx ON products (organization_id, module_name, created_at);
CREATE INDEX products_org_erp_version_idx ON products (organization_id, erp_version, created_at);
CREATE INDEX products_name_trgm_idx ON products USING gin (name gin_trgm_ops);
CREATE INDEX products_sku_trgm_idx ON products USING gin (sku gin_trgm_ops);

-- employees: sorts name, department, hireDate; filter department.
CREATE INDEX employees_org_name_idx ON employees (organization_id, name, id);
CREATE INDEX employees_org_department_idx ON employees (organization_id, department, id);
CREATE INDEX employees_org_department_created_idx ON employees (organization_id, department, created_at, id);
CREATE INDEX employees_org_hire_date_idx ON employees (organization_id, hire_date, id);
CREATE INDEX employees_name_trgm_idx ON employees USING gin (name gin_trgm_ops);
CREATE INDEX employees_email_trgm_idx ON employees USING gin (email gin_trgm_ops);

-- leads: sorts name, email.
CREATE INDEX leads_org_name_idx ON leads (organization_id, name, id);
CREATE INDEX leads_org_email_idx ON leads (organization_id, email, id);
CREATE INDEX leads_name_trgm_idx ON leads USING gin (name gin_trgm_ops);
CREATE INDEX leads_email_trgm_idx ON leads USING gin (email gin_trgm_ops);
CREATE INDEX leads_company_trgm_idx ON leads USING gin (company gin_trgm_ops);

-- licenses: sorts updatedAt, expiresAt, status, key; filters productId, userId, status.
CREATE INDEX licenses_org_updated_idx ON licenses (organization_id, updated_at, id);
CREATE INDEX licenses_org_expires_idx ON licenses (organization_id, expires_at, id);
CREATE INDEX licenses_org_status_idx ON licenses (organization_id, status, id);
CREATE INDEX licenses_org_key_idx ON licenses (organization_id, key, id);
CREATE INDEX licenses_org_product_idx ON licenses (organization_id, product_id, created_at);
