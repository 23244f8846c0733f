-- The organization's profile, printed as the seller on its documents (GET/PATCH /organization).
-- address is {lines: string[], city, postalCode, country} or null; the logo is a PNG or JPEG
-- (checked by its first bytes and by decoding it) of at most 256 KiB.
ALTER TABLE organizations
  ADD COLUMN legal_name text,
  ADD COLUMN address jsonb,
  ADD COLUMN tax_id text,
  ADD COLUMN email text,
  ADD COLUMN phone text,
  ADD COLUMN payment_instructions text,
  ADD COLUMN logo bytea,
  ADD COLUMN logo_type text CHECK (logo_type IN ('image/png', 'image/jpeg')),
  ADD COLUMN logo_width integer,
  ADD COLUMN logo_height integer,
  ADD CONSTRAINT organizations_logo_check CHECK ((logo IS NULL) = (logo_type IS NULL));
