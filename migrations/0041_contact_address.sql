-- Optional postal address ({lines, city, postalCode, country}) and tax id of a contact,
-- printed in the buyer block of its documents.
ALTER TABLE contacts
  ADD COLUMN address jsonb,
  ADD COLUMN tax_id text;
