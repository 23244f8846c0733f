-- Issue 24, finding 1: the local processor's checkout url carries a random
-- token (256 bits) bound to its session; only its SHA-256 hash is kept. The
-- page and its actions (pay, decline, cancel) refuse a request without it.
-- Sessions made before this migration have none and can no longer be acted on.
ALTER TABLE local_checkout_sessions ADD COLUMN token_hash text;
