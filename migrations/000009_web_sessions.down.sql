DROP TABLE IF EXISTS signin_links;
DROP TABLE IF EXISTS web_sessions;
