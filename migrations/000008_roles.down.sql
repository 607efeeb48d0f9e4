DROP INDEX IF EXISTS deliveries_created_at;
DROP INDEX IF EXISTS inbound_mails_received_at;

-- The role stays: it is the cluster's, and other databases may use it.
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE, SELECT ON SEQUENCES FROM azuld_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM azuld_app;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM azuld_app;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM azuld_app;
REVOKE USAGE ON SCHEMA public FROM azuld_app;
