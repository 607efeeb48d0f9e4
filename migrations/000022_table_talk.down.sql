DROP TABLE IF EXISTS message_reports;
DROP TABLE IF EXISTS game_mutes;
