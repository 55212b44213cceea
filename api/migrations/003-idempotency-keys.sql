-- Idempotency keys of POST/PATCH (and GraphQL) writes, per caller: the request's fingerprint, and
-- once the write is done, the response to replay. `attempt` names the request that holds the key
-- while `status` is null (in flight) until `locked_until`; the key is forgotten after `expires_at`.
-- In the database so that a retry reaching another instance finds it.
CREATE TABLE idempotency_keys (
  owner text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  attempt uuid NOT NULL,
  status integer,
  headers jsonb,
  body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (owner, key)
);

CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
