-- Automatic persisted queries of /graphql: the hash a client sends, and the query text it names.
-- Kept in the database so that every API instance knows a query any one of them registered.
CREATE TABLE graphql_persisted_queries (
  sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  query text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
