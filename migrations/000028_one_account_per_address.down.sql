-- The addresses cleared going up are not restored: nothing kept them.
DROP TABLE IF EXISTS server_secrets;
DROP INDEX IF EXISTS players_email_unique;
