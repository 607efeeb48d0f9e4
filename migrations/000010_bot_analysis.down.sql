DROP TABLE IF EXISTS game_analyses;
