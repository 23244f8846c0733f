-- The local payment processor (PAYMENT_PROCESSOR=local): a persistent stand-in
-- for Stripe with its own customers, sessions, subscriptions, invoices,
-- payment methods and an outbox of signed events delivered to /billing/webhooks.

CREATE TABLE local_customers (
  id text PRIMARY KEY,
  email text NOT NULL,
  name text,
  default_payment_method text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE local_payment_methods (
  id text PRIMARY KEY,
  customer_id text NOT NULL REFERENCES local_customers(id) ON DELETE CASCADE,
  brand text NOT NULL,
  last4 text NOT NULL,
  exp_month integer NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
  exp_year integer NOT NULL,
  declines boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX local_payment_methods_customer_idx ON local_payment_methods (customer_id, created_at);

CREATE TABLE local_checkout_sessions (
  id text PRIMARY KEY,
  customer_id text NOT NULL REFERENCES local_customers(id),
  mode text NOT NULL CHECK (mode IN ('payment', 'subscription')),
  line_items jsonb NOT NULL,
  amount_total bigint NOT NULL,
  currency text NOT NULL,
  billing_interval text CHECK (billing_interval IN ('month', 'year')),
  success_url text NOT NULL,
  cancel_url text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'complete', 'expired')),
  subscription_id text,
  payment_intent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);

CREATE TABLE local_subscriptions (
  id text PRIMARY KEY,
  customer_id text NOT NULL REFERENCES local_customers(id),
  status text NOT NULL CHECK (status IN ('active', 'past_due', 'canceled')),
  billing_interval text NOT NULL CHECK (billing_interval IN ('month', 'year')),
  amount bigint NOT NULL,
  currency text NOT NULL,
  current_period_start timestamptz NOT NULL,
  current_period_end timestamptz NOT NULL,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  cancel_at timestamptz,
  canceled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX local_subscriptions_due_idx ON local_subscriptions (current_period_end) WHERE status <> 'canceled';

CREATE TABLE local_invoices (
  id text PRIMARY KEY,
  number text NOT NULL UNIQUE,
  customer_id text NOT NULL REFERENCES local_customers(id),
  subscription_id text,
  status text NOT NULL CHECK (status IN ('paid', 'open')),
  amount_due bigint NOT NULL,
  amount_paid bigint NOT NULL,
  currency text NOT NULL,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  payment_intent text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  paid_at timestamptz
);
CREATE INDEX local_invoices_customer_idx ON local_invoices (customer_id, created_at DESC, id DESC);

CREATE TABLE local_portal_sessions (
  id text PRIMARY KEY,
  customer_id text NOT NULL REFERENCES local_customers(id),
  return_url text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Outbox of events to deliver, signed like Stripe's, to our own receiver.
CREATE TABLE local_events (
  id text PRIMARY KEY,
  seq bigserial,
  type text NOT NULL,
  payload text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text
);
CREATE INDEX local_events_due_idx ON local_events (next_attempt_at, seq) WHERE delivered_at IS NULL;
