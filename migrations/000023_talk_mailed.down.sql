DROP TABLE IF EXISTS talk_mailed;
