-- Billing: our own records of what the payment processor does. Events may
-- arrive in any order and more than once; these tables hold enough to apply
-- each event once and to reach the same end state whatever the order.

-- The processor's customer of each buyer (a user), per processor.
CREATE TABLE billing_customers (
  processor text NOT NULL CHECK (processor IN ('local', 'stripe')),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  customer_id text NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (processor, user_id)
);
CREATE UNIQUE INDEX billing_customers_customer_key ON billing_customers (customer_id);

-- A checkout: the cart and the buyer, kept so that checkout.session.completed
-- can be applied from our record (the event only names the session). Once
-- completed it also tracks the resulting order.
CREATE TABLE billing_checkouts (
  id uuid PRIMARY KEY,
  session_id text NOT NULL,
  processor text NOT NULL,
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  customer_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('payment', 'subscription')),
  items jsonb NOT NULL,
  amount_total bigint NOT NULL CHECK (amount_total >= 0),
  currency text NOT NULL,
  success_url text NOT NULL,
  cancel_url text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed')),
  subscription_id text,
  payment_intent text,
  order_id uuid,
  order_reference text,
  order_status text CHECK (order_status IN ('paid', 'cancelled', 'refunded')),
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  CHECK ((status = 'completed') = (order_status IS NOT NULL))
);
CREATE UNIQUE INDEX billing_checkouts_session_key ON billing_checkouts (session_id);
CREATE INDEX billing_checkouts_user_idx ON billing_checkouts (user_id, created_at DESC);
CREATE INDEX billing_checkouts_subscription_idx ON billing_checkouts (subscription_id) WHERE subscription_id IS NOT NULL;
CREATE INDEX billing_checkouts_payment_intent_idx ON billing_checkouts (payment_intent) WHERE payment_intent IS NOT NULL;

-- Processor subscriptions as the last applied event (or a confirmed cancel) left them.
CREATE TABLE billing_subscriptions (
  id text PRIMARY KEY,
  customer_id text,
  organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  status text NOT NULL,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  cancel_at timestamptz,
  canceled_at timestamptz,
  current_period_end timestamptz,
  -- `created` of the last subscription event applied; older ones are stale.
  last_event_at bigint NOT NULL DEFAULT 0,
  deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_subscriptions_user_idx ON billing_subscriptions (user_id, created_at DESC);
CREATE INDEX billing_subscriptions_customer_idx ON billing_subscriptions (customer_id);

-- Paid processor invoices (invoice.paid).
CREATE TABLE billing_payments (
  invoice_id text PRIMARY KEY,
  subscription_id text,
  customer_id text,
  payment_intent text,
  amount_paid bigint NOT NULL CHECK (amount_paid >= 0),
  currency text NOT NULL,
  period_end timestamptz,
  paid_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_payments_subscription_idx ON billing_payments (subscription_id);
CREATE INDEX billing_payments_payment_intent_idx ON billing_payments (payment_intent) WHERE payment_intent IS NOT NULL;

-- Refunds by payment intent (charge.refunded), kept even when they arrive before the payment they undo.
CREATE TABLE billing_refunds (
  payment_intent text PRIMARY KEY,
  charge_id text,
  amount_refunded bigint NOT NULL DEFAULT 0,
  full_refund boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Every event applied, by id: the once-only guard of the receiver.
CREATE TABLE billing_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  created bigint NOT NULL,
  outcome text NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_events_received_idx ON billing_events (received_at DESC);
