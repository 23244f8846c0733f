-- Issue 27, the general ledger (docs/accounting.md). Accounts, journal entries
-- and their lines, daily balances kept by a statement-level trigger, the lock
-- date, the chart of every organization that exists, and the list of
-- organizations whose history (sent invoices, payments, bills, stock moves)
-- the accounting module posts at its first start (docs/accounting.md "History").

ALTER TABLE organizations ADD COLUMN lock_date date;

CREATE TABLE accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  code text NOT NULL,
  name text NOT NULL,
  type text NOT NULL CHECK (type IN ('asset', 'liability', 'equity', 'income', 'expense')),
  system boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, code)
);

CREATE TABLE journal_entries (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  number text NOT NULL,
  date date NOT NULL,
  currency text NOT NULL,
  memo text NOT NULL DEFAULT '',
  source_type text CHECK (source_type IN ('invoice', 'invoice_payment', 'invoice_cancellation', 'vendor_bill', 'bill_payment',
    'stock_move', 'revaluation', 'manual', 'reversal')),
  source_id text,
  reverses_id uuid REFERENCES journal_entries(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, number)
);
-- One reversal per entry (a second one is a 409), and the reversedBy lookup.
CREATE UNIQUE INDEX journal_entries_reverses_idx ON journal_entries (reverses_id) WHERE reverses_id IS NOT NULL;
-- The list: newest date first, per currency.
CREATE INDEX journal_entries_org_date_idx ON journal_entries (organization_id, date DESC, created_at DESC, id);
CREATE INDEX journal_entries_source_idx ON journal_entries (organization_id, source_type, source_id);

CREATE TABLE journal_lines (
  entry_id uuid NOT NULL REFERENCES journal_entries(id) ON DELETE CASCADE,
  line_no integer NOT NULL,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts(id),
  currency text NOT NULL,
  date date NOT NULL,
  debit bigint NOT NULL DEFAULT 0 CHECK (debit >= 0),
  credit bigint NOT NULL DEFAULT 0 CHECK (credit >= 0),
  description text,
  CHECK ((debit > 0) <> (credit > 0)),
  PRIMARY KEY (entry_id, line_no)
);
-- An account's ledger and the "has lines" check of DELETE /accounting/accounts/:id.
CREATE INDEX journal_lines_account_idx ON journal_lines (organization_id, account_id, currency, date, entry_id);

-- Entries are never changed (docs/accounting.md "Journal entries"): a reversal is a new entry.
CREATE FUNCTION journal_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'journal entries are never changed; post a reversal' USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER journal_entries_no_update BEFORE UPDATE ON journal_entries FOR EACH ROW EXECUTE FUNCTION journal_refuse_update();
CREATE TRIGGER journal_lines_no_update BEFORE UPDATE ON journal_lines FOR EACH ROW EXECUTE FUNCTION journal_refuse_update();

-- Sums of the lines per organization, currency, account and day: the trial
-- balance and the balance sheet read these (a few thousand rows for years of
-- entries) instead of summing every line. Kept by one statement-level trigger
-- over the inserted lines: each day's row is written once per statement with
-- the statement's sums, in key order (decision 0012's lesson: never update one
-- row once per line). Postings of one organization are already serialized by
-- their entry number (the JE sequence row, taken first), so two transactions
-- never wait on these rows in opposite orders.
CREATE TABLE journal_balances (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  currency text NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts(id),
  date date NOT NULL,
  debit bigint NOT NULL,
  credit bigint NOT NULL,
  PRIMARY KEY (organization_id, currency, date, account_id)
);
CREATE INDEX journal_balances_account_idx ON journal_balances (organization_id, account_id, currency, date);

CREATE FUNCTION journal_balances_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journal_balances AS b (organization_id, currency, account_id, date, debit, credit)
  SELECT organization_id, currency, account_id, date, sum(debit), sum(credit)
    FROM new_lines GROUP BY organization_id, currency, account_id, date
    ORDER BY organization_id, currency, date, account_id
  ON CONFLICT (organization_id, currency, date, account_id)
  DO UPDATE SET debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit;
  RETURN NULL;
END $$;
CREATE TRIGGER journal_lines_balances AFTER INSERT ON journal_lines
  REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION journal_balances_track();

-- The chart of every organization that exists (new ones get it from the
-- accounting module when they are made: accounting.lib.ts CHART, the same list).
INSERT INTO accounts (organization_id, code, name, type, system, created_at)
SELECT o.id, c.code, c.name, c.type, true, now()
  FROM organizations o CROSS JOIN (VALUES
    ('1000', 'Bank', 'asset'),
    ('1100', 'Accounts receivable', 'asset'),
    ('1200', 'Inventory', 'asset'),
    ('1300', 'Tax receivable', 'asset'),
    ('2000', 'Accounts payable', 'liability'),
    ('2100', 'Tax payable', 'liability'),
    ('2200', 'Goods received not billed', 'liability'),
    ('3000', 'Owner''s equity', 'equity'),
    ('4000', 'Sales', 'income'),
    ('5000', 'Cost of goods sold', 'expense'),
    ('5100', 'Inventory adjustments', 'expense'),
    ('5200', 'Purchase price difference', 'expense'),
    ('5300', 'Production', 'expense')) AS c(code, name, type);

-- Organizations whose documents predate the ledger: the accounting module posts
-- their history at start, before the service answers (docs/accounting.md "History").
CREATE TABLE accounting_history_pending (
  organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE
);
INSERT INTO accounting_history_pending (organization_id) SELECT id FROM organizations;
