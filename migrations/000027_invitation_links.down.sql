DROP TABLE IF EXISTS invitation_links;
DROP TABLE IF EXISTS invitation_key;
