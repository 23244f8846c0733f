-- A buyer may be known to the processor under more than one customer id: the
-- one we created (the default, reused for every checkout) and any other the
-- processor names in an event of that buyer's checkout (issue 10). Every id
-- leads back to the buyer, so later receipts and failure mails reach them.
ALTER TABLE billing_customers DROP CONSTRAINT billing_customers_pkey;
ALTER TABLE billing_customers ADD COLUMN is_default boolean NOT NULL DEFAULT true;
ALTER TABLE billing_customers ADD PRIMARY KEY USING INDEX billing_customers_customer_key;
CREATE UNIQUE INDEX billing_customers_default_key ON billing_customers (processor, user_id) WHERE is_default;
